"""Small pure-Python PNG decoder for the fake LLM server (standard library only).

Supports what winagent sends: non-interlaced 8-bit colour type 2 (RGB) and 6 (RGBA),
and colour type 3 (palette) at 1, 2, 4 or 8 bits per pixel (winagent's encoder uses a
palette for screens with few colours); all five row filters. Anything else raises PNGError with a message that says why.
Also finds the centre of the pixels of one colour, which is what the `${color_x:...}`
templates of the fake server need.
"""

import math
import re
import struct
import zlib
from itertools import accumulate

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"

_COLOUR_TYPE_NAMES = {
    0: "greyscale",
    2: "RGB",
    3: "palette",
    4: "greyscale+alpha",
    6: "RGBA",
}


class PNGError(ValueError):
    """The data is not a PNG this decoder supports (the message says why)."""


class Image:
    """A decoded image: `rows` holds `height` bytes objects of `width * channels` bytes."""

    def __init__(self, width, height, channels, rows):
        self.width = width
        self.height = height
        self.channels = channels
        self.rows = rows

    def pixel(self, x, y):
        """Return the (r, g, b) of one pixel (alpha, if any, dropped)."""
        row = self.rows[y]
        i = x * self.channels
        return row[i], row[i + 1], row[i + 2]


def _paeth_step(left, item):
    """accumulate() step for the Paeth filter: item is (filtered byte, up, up-left)."""
    x, b, c = item
    p = left + b - c
    pa = abs(p - left)
    pb = abs(p - b)
    pc = abs(p - c)
    if pa <= pb and pa <= pc:
        pred = left
    elif pb <= pc:
        pred = b
    else:
        pred = c
    return (x + pred) & 255


def _average_step(left, item):
    """accumulate() step for the Average filter: item is (filtered byte, up)."""
    x, b = item
    return (x + ((left + b) >> 1)) & 255


def _sub_step(left, x):
    return (left + x) & 255


def _unfilter_row(ftype, line, prev, bpp):
    """Undo one row's filter. `prev` is the previous unfiltered row (zeros for the first).

    Filters that depend on the byte to the left are run per channel with
    itertools.accumulate, which keeps the per-byte work in C as far as possible.
    """
    if ftype == 0:
        return line
    if ftype == 2:
        return bytes((a + b) & 255 for a, b in zip(line, prev))
    out = bytearray(len(line))
    for c in range(bpp):
        raw = line[c::bpp]
        if ftype == 1:
            out[c::bpp] = bytes(accumulate(raw, _sub_step))
        elif ftype == 3:
            up = prev[c::bpp]
            vals = list(accumulate(zip(raw, up), _average_step, initial=0))
            out[c::bpp] = bytes(vals[1:])
        elif ftype == 4:
            up = prev[c::bpp]
            upleft = b"\x00" + up[:-1]
            vals = list(accumulate(zip(raw, up, upleft), _paeth_step, initial=0))
            out[c::bpp] = bytes(vals[1:])
        else:
            raise PNGError("unknown PNG row filter type %d" % ftype)
    return bytes(out)


def decode_png(data):
    """Decode PNG bytes into an Image. Raises PNGError for anything unsupported or corrupt."""
    if not isinstance(data, (bytes, bytearray)):
        raise PNGError("PNG data must be bytes")
    if not data.startswith(PNG_SIGNATURE):
        raise PNGError("not a PNG (bad signature)")
    pos = len(PNG_SIGNATURE)
    header = None
    palette = None
    idat = []
    while pos + 8 <= len(data):
        length, ctype = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        crc_bytes = data[pos + 8 + length:pos + 12 + length]
        if len(body) != length or len(crc_bytes) != 4:
            raise PNGError("truncated PNG chunk %r" % ctype)
        if zlib.crc32(ctype + body) & 0xFFFFFFFF != struct.unpack(">I", crc_bytes)[0]:
            raise PNGError("CRC mismatch in PNG chunk %r" % ctype)
        pos += 12 + length
        if ctype == b"IHDR":
            if length != 13:
                raise PNGError("bad IHDR length")
            header = struct.unpack(">IIBBBBB", body)
        elif ctype == b"PLTE":
            if length % 3 or not 3 <= length <= 768:
                raise PNGError("bad PLTE length %d" % length)
            palette = [body[i:i + 3] for i in range(0, length, 3)]
        elif ctype == b"IDAT":
            idat.append(body)
        elif ctype == b"IEND":
            break
    if header is None:
        raise PNGError("PNG has no IHDR chunk")
    width, height, depth, colour, compression, filt, interlace = header
    if width == 0 or height == 0:
        raise PNGError("PNG has zero size")
    if colour not in (2, 3, 6):
        raise PNGError("unsupported PNG colour type %d (%s); only 2 (RGB), 3 (palette) "
                       "and 6 (RGBA)" % (colour, _COLOUR_TYPE_NAMES.get(colour, "unknown")))
    if depth != 8 and not (colour == 3 and depth in (1, 2, 4)):
        raise PNGError("unsupported PNG bit depth %d for colour type %d" % (depth, colour))
    if colour == 3 and palette is None:
        raise PNGError("palette PNG without a PLTE chunk")
    if compression != 0 or filt != 0:
        raise PNGError("unsupported PNG compression/filter method")
    if interlace != 0:
        raise PNGError("unsupported interlaced PNG (Adam7)")
    if not idat:
        raise PNGError("PNG has no IDAT chunk")
    try:
        raw = zlib.decompress(b"".join(idat))
    except zlib.error as exc:
        raise PNGError("corrupt PNG image data: %s" % exc) from None
    channels = {2: 3, 3: 1, 6: 4}[colour]
    stride = (width * channels * depth + 7) // 8
    if len(raw) < height * (stride + 1):
        raise PNGError("PNG image data too short (%d bytes for %dx%d)" % (len(raw), width, height))
    rows = []
    prev = bytes(stride)
    for y in range(height):
        start = y * (stride + 1)
        line = raw[start + 1:start + 1 + stride]
        row = _unfilter_row(raw[start], line, prev, max(1, channels * depth // 8))
        rows.append(row)
        prev = row
    if colour == 3:
        rows = [_expand_palette(row, width, depth, palette) for row in rows]
        channels = 3
    return Image(width, height, channels, rows)


def _expand_palette(row, width, depth, palette):
    """Palette indices (packed depth bits each, high bits first) -> RGB bytes."""
    if depth == 8:
        indices = row[:width]
    else:
        per_byte = 8 // depth
        mask = (1 << depth) - 1
        indices = [(b >> (8 - depth * (k + 1))) & mask for b in row for k in range(per_byte)]
        indices = indices[:width]
    try:
        return b"".join(palette[i] for i in indices)
    except IndexError:
        raise PNGError("palette index out of range") from None


def _band_table(target, tolerance):
    """A bytes.translate table mapping values within tolerance of target to 1, others to 0."""
    return bytes(1 if abs(v - target) <= tolerance else 0 for v in range(256))


_ONE = re.compile(b"\x01")


def find_colour(image, rgb, tolerance=8):
    """Find the pixels whose R, G and B are each within `tolerance` of `rgb` (alpha ignored).

    Returns (cx, cy, count) with the centre (mean position) in pixels, or None when no
    pixel matches. Rows are matched with bytes.translate and big-integer AND so a full
    screenshot takes well under a second.
    """
    tables = [_band_table(t, tolerance) for t in rgb]
    ch = image.channels
    w = image.width
    sum_x = 0
    sum_y = 0
    count = 0
    for y, row in enumerate(image.rows):
        mask = None
        for c in range(3):
            band = row[c::ch].translate(tables[c])
            v = int.from_bytes(band, "big")
            mask = v if mask is None else (mask & v)
            if not mask:
                break
        if not mask:
            continue
        hits = mask.to_bytes(w, "big")
        n = hits.count(1)
        count += n
        sum_y += y * n
        sum_x += sum(m.start() for m in _ONE.finditer(hits))
    if count == 0:
        return None
    return sum_x / count, sum_y / count, count


def to_frame(value, size):
    """Convert a pixel position to the 0-999 frame scale: round(value * 999 / (size - 1))."""
    if size <= 1:
        return 0
    return int(math.floor(value * 999.0 / (size - 1) + 0.5))
