/* Deflate for PNG rows of screen content (see png_deflate.h). In the spirit of fpng and
 * fpnge: instead of zlib's general search (a hash chain at every byte), three places
 * are tried at each position, the ones where screens repeat: the pixel to the left (a
 * flat area is a run), the row above (a window's body, a column of list rows) and the
 * last position the same four bytes were seen (a letter or an icon drawn before). A
 * match found is taken greedily (no lazy evaluation, nothing inserted inside it), so a
 * flat 1280-pixel row costs a few dozen steps. Tokens are gathered into blocks of at
 * most BLOCK_TOKENS, each with its own Huffman codes from its histogram. Under Wine the
 * PNG of the bench desktop at 1280x720 took 15.6 ms with zlib level 1 (tuned), ~2-3 ms
 * with this, 1.05-1.09x the bytes on Wine screens (docs/observation.md, "The image"). */
#include "automation/image/png_deflate.h"

#include <stdlib.h>
#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#define WINDOW       32768
#define MIN_MATCH    4 /* what one 32-bit compare proves */
#define MAX_MATCH    258
#define HASH_BITS    14
#define BLOCK_TOKENS (1 << 14)

#define LIT_CODES  286 /* 0-255 literals, 256 end of block, 257-285 lengths */
#define DIST_CODES 30
#define CL_CODES   19 /* the code length alphabet of a dynamic block's header */
#define END_BLOCK  256

/* A token is a literal byte (below 256) or a match: length << 16 | distance (1-32768). */
#define TOKEN_MATCH(len, dist) ((uint32_t)(len) << 16 | (uint32_t)(dist))

struct deflater {
    const uint8_t *data;
    size_t len, stride, bpp;
    uint32_t *hash;   /* 1 + the last position of a 4-byte value's hash; 0: none */
    uint32_t *tokens; /* of the block being gathered */
    size_t ntokens;
    uint32_t lit_freq[LIT_CODES], dist_freq[DIST_CODES];
    /* Output: bits gather in acc (n of them, the first in the lowest bit). */
    uint8_t *out;
    size_t out_len, out_cap;
    uint64_t acc;
    unsigned n;
};

static inline uint32_t load32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

static inline uint64_t load64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

static inline unsigned floor_log2(uint32_t v) /* v > 0 */
{
    return 31u - (unsigned)__builtin_clz(v);
}

/* How many bytes from a on equal those from b (b < a: the match may overlap a), up to
 * end. */
static inline size_t match_length(const uint8_t *a, const uint8_t *b, const uint8_t *end)
{
    const uint8_t *start = a;
#if defined(__SSE2__)
    while (end - a >= 16) { /* runs go on for thousands of bytes */
        __m128i eq = _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)a),
                                    _mm_loadu_si128((const __m128i *)b));
        unsigned mask = (unsigned)_mm_movemask_epi8(eq) ^ 0xffffu;
        if (mask)
            return (size_t)(a - start) + (size_t)__builtin_ctz(mask);
        a += 16;
        b += 16;
    }
#endif
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    while (end - a >= 8) {
        uint64_t x = load64(a) ^ load64(b);
        if (x)
            return (size_t)(a - start) + (size_t)__builtin_ctzll(x) / 8;
        a += 8;
        b += 8;
    }
#endif
    while (a < end && *a == *b) {
        a++;
        b++;
    }
    return (size_t)(a - start);
}

/* The length symbol of a match of len (3-258) bytes, its extra bits and their value
 * (RFC 1951 3.2.5): lengths 3-10 have a symbol each, then four symbols per power of
 * two, each with one more extra bit. */
static inline unsigned length_symbol(unsigned len, unsigned *nextra, unsigned *extra)
{
    unsigned l = len - 3;
    *nextra = 0;
    *extra = 0;
    if (len == MAX_MATCH)
        return 285;
    if (l < 8)
        return 257 + l;
    unsigned b = floor_log2(l), top = (l >> (b - 2)) & 3;
    *nextra = b - 2;
    *extra = l - ((4 + top) << (b - 2));
    return 257 + 4 * (b - 1) + top;
}

/* Likewise for a distance (1-32768): two symbols per power of two. */
static inline unsigned distance_symbol(unsigned dist, unsigned *nextra, unsigned *extra)
{
    unsigned d = dist - 1;
    *nextra = 0;
    *extra = 0;
    if (d < 4)
        return d;
    unsigned b = floor_log2(d), top = (d >> (b - 1)) & 1;
    *nextra = b - 1;
    *extra = d - ((2 + top) << (b - 1));
    return 2 * b + top;
}

/* Up to 32 bits at a time; acc never holds more than 63. out has room (see
 * ensure_room). */
static inline void put_bits(struct deflater *d, uint32_t bits, unsigned n)
{
    d->acc |= (uint64_t)bits << d->n;
    d->n += n;
    if (d->n >= 32) {
        uint8_t *p = d->out + d->out_len;
        p[0] = (uint8_t)d->acc;
        p[1] = (uint8_t)(d->acc >> 8);
        p[2] = (uint8_t)(d->acc >> 16);
        p[3] = (uint8_t)(d->acc >> 24);
        d->out_len += 4;
        d->acc >>= 32;
        d->n -= 32;
    }
}

/* Writes out the whole bytes in acc, and a last partial one padded with zeros. */
static void align_to_byte(struct deflater *d)
{
    while (d->n > 0) {
        d->out[d->out_len++] = (uint8_t)d->acc;
        d->acc >>= 8;
        d->n = d->n > 8 ? d->n - 8 : 0;
    }
    d->acc = 0;
}

static bool ensure_room(struct deflater *d, size_t bytes)
{
    if (d->out_cap - d->out_len >= bytes)
        return true;
    size_t cap = d->out_cap * 2 > d->out_len + bytes ? d->out_cap * 2 : d->out_len + bytes;
    uint8_t *p = realloc(d->out, cap);
    if (!p)
        return false;
    d->out = p;
    d->out_cap = cap;
    return true;
}

struct leaf {
    uint32_t freq;
    uint16_t sym;
};

/* Sorts n leaves by frequency (at most BLOCK_TOKENS + 1, so 16 bits), ties in the order
 * given: two stable counting passes, a byte each. */
static void leaves_sort(struct leaf *leaf, int n)
{
    struct leaf tmp[LIT_CODES];
    struct leaf *from = leaf, *to = tmp;
    for (int shift = 0; shift < 16; shift += 8) {
        unsigned count[257] = {0};
        for (int i = 0; i < n; i++)
            count[((from[i].freq >> shift) & 0xff) + 1]++;
        for (int b = 0; b < 256; b++)
            count[b + 1] += count[b];
        for (int i = 0; i < n; i++)
            to[count[(from[i].freq >> shift) & 0xff]++] = from[i];
        struct leaf *t = from;
        from = to;
        to = t;
    }
}

/* The code lengths (1 to max_bits; 0 for a symbol not used) of a prefix code for
 * freq[0, n), n <= LIT_CODES. At least two symbols get a code, so that the code is
 * complete, as zlib's inflate requires. Huffman's lengths by the two-queue method over
 * the symbols sorted by frequency, then, when one is longer than max_bits, the counts
 * per length put right as miniz does (the Kraft sum brought back to exactly one). */
static void huffman_lengths(const uint32_t *freq, int n, unsigned max_bits, uint8_t *lengths)
{
    struct leaf leaf[LIT_CODES] = {{0, 0}}; /* zeroed for cppcheck, which cannot see n >= 2 */
    int nleaf = 0;
    for (int s = 0; s < n; s++) {
        lengths[s] = 0;
        if (freq[s])
            leaf[nleaf++] = (struct leaf){freq[s], (uint16_t)s};
    }
    for (int s = 0; nleaf < 2 && s < n; s++)
        if (!freq[s])
            leaf[nleaf++] = (struct leaf){1, (uint16_t)s};
    leaves_sort(leaf, nleaf);

    /* Internal node k (0 to nleaf-2) is made by merge k; the last is the root. */
    uint32_t node_freq[LIT_CODES];
    int node_parent[LIT_CODES], leaf_parent[LIT_CODES] = {0};
    int next_leaf = 0, next_node = 0;
    for (int k = 0; k < nleaf - 1; k++) {
        uint32_t f = 0;
        for (int pick = 0; pick < 2; pick++) {
            if (next_leaf < nleaf &&
                (next_node >= k || leaf[next_leaf].freq <= node_freq[next_node])) {
                f += leaf[next_leaf].freq;
                leaf_parent[next_leaf++] = k;
            } else {
                f += node_freq[next_node];
                node_parent[next_node++] = k;
            }
        }
        node_freq[k] = f;
    }
    unsigned depth[LIT_CODES];
    depth[nleaf - 2] = 0;
    for (int k = nleaf - 3; k >= 0; k--)
        depth[k] = depth[node_parent[k]] + 1;

    unsigned count[16] = {0};
    for (int i = 0; i < nleaf; i++) {
        unsigned len = depth[leaf_parent[i]] + 1;
        count[len < max_bits ? len : max_bits]++;
    }
    uint32_t total = 0;
    for (unsigned l = 1; l <= max_bits; l++)
        total += count[l] << (max_bits - l);
    while (total > (1u << max_bits)) {
        count[max_bits]--;
        for (unsigned l = max_bits - 1; l > 0; l--)
            if (count[l]) {
                count[l]--;
                count[l + 1] += 2;
                break;
            }
        total--;
    }
    /* The rarest symbols get the longest codes. */
    int i = 0;
    for (unsigned l = max_bits; l > 0; l--)
        for (unsigned c = count[l]; c > 0; c--)
            lengths[leaf[i++].sym] = (uint8_t)l;
}

/* The canonical codes of lengths (RFC 1951 3.2.2), bit-reversed: deflate sends a
 * Huffman code from its first bit, put_bits from the lowest. */
static void huffman_codes(const uint8_t *lengths, int n, uint16_t *codes)
{
    unsigned count[16] = {0}, next[16];
    for (int s = 0; s < n; s++)
        count[lengths[s]]++;
    count[0] = 0;
    unsigned code = 0;
    for (int b = 1; b < 16; b++) {
        code = (code + count[b - 1]) << 1;
        next[b] = code;
    }
    for (int s = 0; s < n; s++) {
        unsigned len = lengths[s];
        if (!len)
            continue;
        unsigned c = next[len]++, r = 0;
        for (unsigned b = 0; b < len; b++)
            r |= ((c >> b) & 1) << (len - 1 - b);
        codes[s] = (uint16_t)r;
    }
}

/* The code lengths of both codes as the header sends them: runs of a length as 16
 * (repeat the last 3-6 times, 2 extra bits), of zeros as 17 (3-10, 3 bits) and 18
 * (11-138, 7 bits). Returns how many; each is symbol | extra << 8. */
static int length_runs(const uint8_t *lengths, int n, uint16_t *runs, uint32_t *cl_freq)
{
    int count = 0;
    for (int i = 0; i < n;) {
        uint8_t v = lengths[i];
        int run = 1;
        while (i + run < n && lengths[i + run] == v)
            run++;
        i += run;
        if (v == 0) {
            while (run >= 11) {
                int r = run < 138 ? run : 138;
                runs[count++] = (uint16_t)(18 | (r - 11) << 8);
                run -= r;
            }
            if (run >= 3) {
                runs[count++] = (uint16_t)(17 | (run - 3) << 8);
                run = 0;
            }
        } else {
            runs[count++] = v;
            run--;
            while (run >= 3) {
                int r = run < 6 ? run : 6;
                runs[count++] = (uint16_t)(16 | (r - 3) << 8);
                run -= r;
            }
        }
        while (run-- > 0)
            runs[count++] = v;
    }
    for (int k = 0; k < count; k++)
        cl_freq[runs[k] & 0xff]++;
    return count;
}

/* Writes the gathered tokens as one dynamic Huffman block and starts the next. */
static bool write_block(struct deflater *d, bool final)
{
    static const uint8_t cl_order[CL_CODES] = {16, 17, 18, 0, 8,  7, 9,  6, 10, 5,
                                               11, 4,  12, 3, 13, 2, 14, 1, 15};
    /* The header takes at most ~600 bytes, a token at most 15+5+15+13 bits. */
    if (!ensure_room(d, d->ntokens * 6 + 1024))
        return false;
    d->lit_freq[END_BLOCK] = 1;
    uint8_t lengths[LIT_CODES + DIST_CODES], cl_lengths[CL_CODES];
    uint16_t lit_codes[LIT_CODES], dist_codes[DIST_CODES], cl_codes[CL_CODES];
    huffman_lengths(d->lit_freq, LIT_CODES, 15, lengths);
    uint8_t dist_lengths[DIST_CODES];
    huffman_lengths(d->dist_freq, DIST_CODES, 15, dist_lengths);
    huffman_codes(lengths, LIT_CODES, lit_codes);
    huffman_codes(dist_lengths, DIST_CODES, dist_codes);
    int hlit = LIT_CODES, hdist = DIST_CODES;
    while (hlit > 257 && !lengths[hlit - 1])
        hlit--;
    while (hdist > 1 && !dist_lengths[hdist - 1])
        hdist--;
    uint8_t lit_lengths[LIT_CODES];
    memcpy(lit_lengths, lengths, sizeof lit_lengths);
    memcpy(lengths + hlit, dist_lengths, (size_t)hdist); /* both, as one sequence */

    uint16_t runs[LIT_CODES + DIST_CODES];
    uint32_t cl_freq[CL_CODES] = {0};
    int nruns = length_runs(lengths, hlit + hdist, runs, cl_freq);
    huffman_lengths(cl_freq, CL_CODES, 7, cl_lengths);
    huffman_codes(cl_lengths, CL_CODES, cl_codes);
    int hclen = CL_CODES;
    while (hclen > 4 && !cl_lengths[cl_order[hclen - 1]])
        hclen--;

    put_bits(d, final ? 1 : 0, 1);
    put_bits(d, 2, 2); /* dynamic Huffman codes */
    put_bits(d, (uint32_t)(hlit - 257), 5);
    put_bits(d, (uint32_t)(hdist - 1), 5);
    put_bits(d, (uint32_t)(hclen - 4), 4);
    for (int i = 0; i < hclen; i++)
        put_bits(d, cl_lengths[cl_order[i]], 3);
    for (int i = 0; i < nruns; i++) {
        unsigned sym = runs[i] & 0xff, extra = runs[i] >> 8;
        put_bits(d, cl_codes[sym], cl_lengths[sym]);
        if (sym == 16)
            put_bits(d, extra, 2);
        else if (sym == 17)
            put_bits(d, extra, 3);
        else if (sym == 18)
            put_bits(d, extra, 7);
    }

    for (size_t i = 0; i < d->ntokens; i++) {
        uint32_t t = d->tokens[i];
        if (t < 256) {
            put_bits(d, lit_codes[t], lit_lengths[t]);
            continue;
        }
        unsigned nextra, extra, dnextra, dextra;
        unsigned ls = length_symbol(t >> 16, &nextra, &extra);
        unsigned ds = distance_symbol(t & 0xffff, &dnextra, &dextra);
        put_bits(d, lit_codes[ls] | extra << lit_lengths[ls], lit_lengths[ls] + nextra);
        put_bits(d, dist_codes[ds] | dextra << dist_lengths[ds], dist_lengths[ds] + dnextra);
    }
    put_bits(d, lit_codes[END_BLOCK], lit_lengths[END_BLOCK]);
    d->ntokens = 0;
    memset(d->lit_freq, 0, sizeof d->lit_freq);
    memset(d->dist_freq, 0, sizeof d->dist_freq);
    return true;
}

static inline bool add_literal(struct deflater *d, uint8_t byte)
{
    d->tokens[d->ntokens++] = byte;
    d->lit_freq[byte]++;
    return d->ntokens < BLOCK_TOKENS || write_block(d, false);
}

/* A match of any length >= 3, as matches of at most MAX_MATCH. */
static bool add_match(struct deflater *d, size_t len, size_t dist)
{
    unsigned nextra, extra;
    while (len > 0) {
        size_t part = len;
        if (part > MAX_MATCH) /* leave at least 3 for the last part */
            part = len - MAX_MATCH < 3 ? len - 3 : MAX_MATCH;
        len -= part;
        d->tokens[d->ntokens++] = TOKEN_MATCH(part, dist);
        d->lit_freq[length_symbol((unsigned)part, &nextra, &extra)]++;
        d->dist_freq[distance_symbol((unsigned)dist, &nextra, &extra)]++;
        if (d->ntokens == BLOCK_TOKENS && !write_block(d, false))
            return false;
    }
    return true;
}

static inline uint32_t hash4(uint32_t v)
{
    return (v * 2654435761u) >> (32 - HASH_BITS);
}

/* Greedy parsing. At each position the candidates are compared up to MAX_MATCH bytes
 * (a longer match goes as several tokens of that length anyway) and on a tie the
 * nearest wins, the run first: its distance costs no extra bits, the row above's ten
 * or more for every token. A run is taken whole; the row above or an earlier copy at
 * most MAX_MATCH bytes at a time, after which a run may take over (rows of zeros
 * under the Up filter match the row above too, at that cost), and none of them is
 * compared further than that, so long stretches of equal rows stay linear. */
static bool compress(struct deflater *d)
{
    const uint8_t *p = d->data, *end = p + d->len;
    size_t i = 0, bpp = d->bpp, stride = d->stride <= WINDOW ? d->stride : 0;
    while (i + MIN_MATCH <= d->len) {
        uint32_t cur = load32(p + i);
        const uint8_t *at = p + i + MIN_MATCH;
        const uint8_t *near_end =
            end - at > MAX_MATCH - MIN_MATCH ? at + MAX_MATCH - MIN_MATCH : end;
        size_t best = 0, dist = 0;
        if (i >= bpp && load32(p + i - bpp) == cur) {
            best = MIN_MATCH + match_length(at, at - bpp, end);
            dist = bpp;
        }
        if (best < MAX_MATCH && stride && i >= stride && load32(p + i - stride) == cur) {
            size_t l = MIN_MATCH + match_length(at, at - stride, near_end);
            if (l > best) {
                best = l;
                dist = stride;
            }
        }
        uint32_t h = hash4(cur), seen = d->hash[h];
        d->hash[h] = (uint32_t)i + 1;
        if (best < MAX_MATCH && seen && i - (seen - 1) <= WINDOW && load32(p + seen - 1) == cur) {
            size_t from = seen - 1;
            size_t l = MIN_MATCH + match_length(at, p + from + MIN_MATCH, near_end);
            if (l > best) {
                best = l;
                dist = i - from;
            }
        }
        if (best) {
            if (!add_match(d, best, dist))
                return false;
            i += best;
        } else {
            if (!add_literal(d, p[i]))
                return false;
            i++;
        }
    }
    for (; i < d->len; i++)
        if (!add_literal(d, p[i]))
            return false;
    return true;
}

wa_err png_deflate(const uint8_t *data, size_t len, size_t stride, size_t bpp, bool final,
                   uint8_t **out, size_t *out_len)
{
    *out = NULL;
    *out_len = 0;
    struct deflater *d = calloc(1, sizeof *d);
    wa_err e = WA_E_NOMEM;
    if (!d)
        return wa_fail(e, "out of memory");
    d->data = data;
    d->len = len;
    d->stride = stride;
    d->bpp = bpp ? bpp : 1;
    d->hash = calloc((size_t)1 << HASH_BITS, sizeof *d->hash);
    d->tokens = malloc(BLOCK_TOKENS * sizeof *d->tokens);
    /* Screens compress far better than 8:1; noise grows the buffer as it goes. */
    d->out_cap = len / 8 + 1024;
    d->out = malloc(d->out_cap);
    if (!d->hash || !d->tokens || !d->out || !compress(d) || !write_block(d, final) ||
        !ensure_room(d, 16))
        goto out;
    if (!final) { /* an empty stored block: byte aligned, 00 00 ff ff */
        put_bits(d, 0, 3);
        align_to_byte(d);
        static const uint8_t empty[4] = {0, 0, 0xff, 0xff};
        memcpy(d->out + d->out_len, empty, 4);
        d->out_len += 4;
    } else {
        align_to_byte(d);
    }
    *out = d->out;
    *out_len = d->out_len;
    d->out = NULL;
    e = WA_E_OK;
out:
    free(d->out);
    free(d->hash);
    free(d->tokens);
    free(d);
    return e ? wa_fail(e, "out of memory") : WA_E_OK;
}

#define ADLER_BASE 65521u
#define ADLER_NMAX 5536 /* bytes before the sums must be reduced: 173 * 32, <= zlib's 5552 */

uint32_t png_adler32(uint32_t adler, const uint8_t *data, size_t len)
{
    uint32_t a = adler & 0xffff, b = adler >> 16;
    while (len > 0) {
        size_t block = len < ADLER_NMAX ? len : ADLER_NMAX;
        len -= block;
#if defined(__SSE2__)
        /* 32 bytes a step: a gains their sum, b 32 times a before them plus the bytes
         * weighted 32 down to 1. Every lane stays below the block's true b (< 2^32). */
        size_t steps = block / 32;
        if (steps) {
            const __m128i zero = _mm_setzero_si128();
            const __m128i w0 = _mm_setr_epi16(32, 31, 30, 29, 28, 27, 26, 25);
            const __m128i w1 = _mm_setr_epi16(24, 23, 22, 21, 20, 19, 18, 17);
            const __m128i w2 = _mm_setr_epi16(16, 15, 14, 13, 12, 11, 10, 9);
            const __m128i w3 = _mm_setr_epi16(8, 7, 6, 5, 4, 3, 2, 1);
            __m128i sum = zero, before = zero, weighted = zero;
            for (size_t k = 0; k < steps; k++, data += 32) {
                __m128i v0 = _mm_loadu_si128((const __m128i *)data);
                __m128i v1 = _mm_loadu_si128((const __m128i *)(data + 16));
                before = _mm_add_epi32(before, sum);
                sum = _mm_add_epi32(sum,
                                    _mm_add_epi32(_mm_sad_epu8(v0, zero), _mm_sad_epu8(v1, zero)));
                weighted = _mm_add_epi32(weighted, _mm_madd_epi16(_mm_unpacklo_epi8(v0, zero), w0));
                weighted = _mm_add_epi32(weighted, _mm_madd_epi16(_mm_unpackhi_epi8(v0, zero), w1));
                weighted = _mm_add_epi32(weighted, _mm_madd_epi16(_mm_unpacklo_epi8(v1, zero), w2));
                weighted = _mm_add_epi32(weighted, _mm_madd_epi16(_mm_unpackhi_epi8(v1, zero), w3));
            }
            weighted = _mm_add_epi32(weighted, _mm_slli_epi32(before, 5));
            uint32_t s[4], w[4];
            _mm_storeu_si128((__m128i *)s, sum);
            _mm_storeu_si128((__m128i *)w, weighted);
            uint64_t bb = (uint64_t)b + (uint64_t)a * 32 * steps + w[0] + w[1] + w[2] + w[3];
            a += s[0] + s[2]; /* the sums of absolute differences sit in lanes 0 and 2 */
            b = (uint32_t)(bb % ADLER_BASE);
            block -= steps * 32;
        }
#endif
        for (; block > 0; block--) {
            a += *data++;
            b += a;
        }
        a %= ADLER_BASE;
        b %= ADLER_BASE;
    }
    return b << 16 | a;
}
