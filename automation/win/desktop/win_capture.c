/* Screen and window capture for the Windows backend: BitBlt and PrintWindow into one
 * reused top-down 32-bit DIB section, copied out row by row into a struct wa_image. */
#include <windows.h>
#include <stdlib.h>
#include <string.h>

#include "automation/win/desktop/win_capture.h"
#include "automation/win/desktop/win_tree_job.h"
#include "automation/win/desktop/win_window.h"
#include "base/os.h"

/* The DIB every capture draws into, kept between calls: creating a 1920x1080 DIB
 * section and its DC costs about as much as the BitBlt itself. Guarded by `lock`, so
 * captures from several threads take turns. */
struct dib {
    HDC dc;
    HBITMAP bmp;
    HGDIOBJ old;
    uint8_t *bits;
    int w, h;
};

static SRWLOCK lock = SRWLOCK_INIT;
static struct dib cache;

static void dib_free(struct dib *d)
{
    if (d->dc) {
        SelectObject(d->dc, d->old);
        DeleteDC(d->dc);
    }
    if (d->bmp)
        DeleteObject(d->bmp);
    memset(d, 0, sizeof *d);
}

/* Makes d a w x h DIB (reusing it when it already is). */
static wa_err dib_ensure(struct dib *d, int w, int h)
{
    if (d->bits && d->w == w && d->h == h)
        return WA_E_OK;
    dib_free(d);
    BITMAPINFO bi = {.bmiHeader = {.biSize = sizeof(BITMAPINFOHEADER),
                                   .biWidth = w,
                                   .biHeight = -h, /* negative: top-down rows */
                                   .biPlanes = 1,
                                   .biBitCount = 32,
                                   .biCompression = BI_RGB}};
    void *bits = NULL;
    d->dc = CreateCompatibleDC(NULL);
    d->bmp = d->dc ? CreateDIBSection(d->dc, &bi, DIB_RGB_COLORS, &bits, NULL, 0) : NULL;
    if (!d->bmp || !bits) {
        dib_free(d);
        return wa_fail(WA_E_NOMEM, "cannot create a %dx%d capture bitmap (GDI error %lu)", w, h,
                       (unsigned long)GetLastError());
    }
    d->old = SelectObject(d->dc, d->bmp);
    d->bits = bits;
    d->w = w;
    d->h = h;
    return WA_E_OK;
}

/* Copies the w x h block at (x0, y0) of the DIB into a new image. */
static wa_err copy_out(const struct dib *d, int x0, int y0, int w, int h, struct wa_image *out)
{
    wa_err e = image_alloc_raw(out, w, h, true);
    if (e)
        return e;
    size_t row = (size_t)w * 4, stride = (size_t)d->w * 4;
    const uint8_t *src = d->bits + (size_t)y0 * stride + (size_t)x0 * 4;
    if (x0 == 0 && w == d->w)
        memcpy(out->px, src, row * (size_t)h);
    else
        for (int y = 0; y < h; y++)
            memcpy(out->px + (size_t)y * row, src + (size_t)y * stride, row);
    return WA_E_OK;
}

static RECT virtual_screen(void)
{
    int x = GetSystemMetrics(SM_XVIRTUALSCREEN), y = GetSystemMetrics(SM_YVIRTUALSCREEN);
    return (RECT){x, y, x + GetSystemMetrics(SM_CXVIRTUALSCREEN),
                  y + GetSystemMetrics(SM_CYVIRTUALSCREEN)};
}

static bool contains(RECT outer, struct wa_rect r)
{
    return r.left >= outer.left && r.top >= outer.top && r.right <= outer.right &&
           r.bottom <= outer.bottom;
}

/* BitBlt of screen rect r into the cached DIB, then into out. Call with lock held. */
static wa_err screen_copy(struct wa_rect r, struct wa_image *out)
{
    int w = wa_rect_width(r), h = wa_rect_height(r);
    wa_err e = dib_ensure(&cache, w, h);
    if (e)
        return e;
    RECT vs = virtual_screen();
    if (!contains(vs, r)) /* what lies off every monitor stays black */
        memset(cache.bits, 0, (size_t)w * (size_t)h * 4);
    HDC screen = GetDC(NULL);
    if (!screen)
        return wa_fail(WA_E_ACTION_FAILED, "cannot get the screen's device context");
    /* CAPTUREBLT: include layered windows (tooltips, menus with shadows). */
    BOOL ok = BitBlt(cache.dc, 0, 0, w, h, screen, r.left, r.top, SRCCOPY | CAPTUREBLT);
    DWORD err = GetLastError();
    ReleaseDC(NULL, screen);
    if (!ok) {
        char msg[300];
        return wa_fail(WA_E_ACTION_FAILED,
                       "screen capture failed (%s): the screen may be locked "
                       "or on a secure desktop",
                       win_error_text(err, msg, sizeof msg));
    }
    GdiFlush(); /* GDI may batch: finish drawing before reading the bits */
    return copy_out(&cache, 0, 0, w, h, out);
}

wa_err win_capture_screen(struct wa_rect r, struct wa_image *out)
{
    memset(out, 0, sizeof *out);
    if (wa_rect_empty(r)) {
        RECT vs = virtual_screen();
        r = (struct wa_rect){vs.left, vs.top, vs.right, vs.bottom};
    }
    if (wa_rect_empty(r))
        return wa_fail(WA_E_ACTION_FAILED, "the virtual screen is empty");
    AcquireSRWLockExclusive(&lock);
    wa_err e = screen_copy(r, out);
    ReleaseSRWLockExclusive(&lock);
    return e;
}

/* A cheap look at 8 x 8 pixels of the block: all black means PrintWindow drew
 * nothing (DirectX and some GPU-composited windows). */
static bool looks_black(const struct dib *d, int x0, int y0, int w, int h)
{
    for (int j = 0; j < 8; j++)
        for (int i = 0; i < 8; i++) {
            int x = x0 + (int)((2 * i + 1) * (long)w / 16),
                y = y0 + (int)((2 * j + 1) * (long)h / 16);
            const uint8_t *p = d->bits + ((size_t)y * (size_t)d->w + (size_t)x) * 4;
            if (p[0] | p[1] | p[2])
                return false;
        }
    return true;
}

/* PrintWindow into the DIB (which PrintWindow fills with the whole window rect,
 * invisible borders included), cropped to the frame. Call with lock held. */
static wa_err print_window(HWND h, RECT fr, struct wa_image *out)
{
    RECT wr;
    if (!GetWindowRect(h, &wr))
        return wa_fail(WA_E_WINDOW_NOT_FOUND, "window went away");
    int ww = wr.right - wr.left, wh = wr.bottom - wr.top;
    if (ww <= 0 || wh <= 0)
        return wa_fail(WA_E_ACTION_FAILED, "window has no size");
    wa_err e = dib_ensure(&cache, ww, wh);
    if (e)
        return e;
    /* The reused DIB still holds the last capture: whatever PrintWindow leaves unpainted
     * must read as black, not as an old picture. */
    memset(cache.bits, 0, (size_t)ww * (size_t)wh * 4);
    /* PW_RENDERFULLCONTENT (8.1+) also gets DirectComposition content; older systems
     * reject the flag, so try without. */
    if (!PrintWindow(h, cache.dc, PW_RENDERFULLCONTENT) && !PrintWindow(h, cache.dc, 0))
        return wa_fail(WA_E_ACTION_FAILED, "PrintWindow failed");
    GdiFlush();
    RECT crop;
    if (!IntersectRect(&crop, &fr, &wr))
        return wa_fail(WA_E_ACTION_FAILED, "frame lies outside the window");
    int x0 = crop.left - wr.left, y0 = crop.top - wr.top;
    int cw = crop.right - crop.left, ch = crop.bottom - crop.top;
    if (cw != fr.right - fr.left || ch != fr.bottom - fr.top || looks_black(&cache, x0, y0, cw, ch))
        return wa_fail(WA_E_ACTION_FAILED, "PrintWindow drew nothing");
    return copy_out(&cache, x0, y0, cw, ch, out);
}

wa_err win_capture_window(uint64_t hwnd, struct wa_image *out, struct wa_rect *frame)
{
    memset(out, 0, sizeof *out);
    memset(frame, 0, sizeof *frame);
    HWND h;
    wa_err e = win_window_check(hwnd, &h);
    if (e)
        return e;
    if (IsIconic(h))
        return wa_fail(WA_E_ACTION_FAILED, "window 0x%llx is minimised: restore it to see it",
                       (unsigned long long)hwnd);
    RECT fr;
    if (!win_window_frame(h, &fr) || fr.right <= fr.left || fr.bottom <= fr.top)
        return wa_fail(WA_E_ACTION_FAILED, "window 0x%llx has no size", (unsigned long long)hwnd);
    struct wa_rect r = {fr.left, fr.top, fr.right, fr.bottom};
    *frame = r;
    AcquireSRWLockExclusive(&lock);
    /* PrintWindow makes the target paint itself (a message to its thread: a hung one
     * is skipped) and cannot show its open menus; the screen is quicker and exact
     * when nothing covers the window. */
    bool on_screen = contains(virtual_screen(), r) && !win_window_covered(h, fr);
    if (on_screen || IsHungAppWindow(h)) {
        e = screen_copy(r, out);
    } else if (print_window(h, fr, out) != WA_E_OK) {
        /* Wine (8) always lands here: its PrintWindow hands our DC to the target
         * process, where it means nothing, and the bitmap stays black. */
        e = screen_copy(r, out);
        if (!e)
            wa_fail(WA_E_OK, "PrintWindow drew nothing: copied from the screen, so windows "
                             "covering it show");
    }
    ReleaseSRWLockExclusive(&lock);
    return e;
}

/* ---- a capture beside a walk ---- */

struct win_pixels {
    volatile LONG refs;
    HWND h;
    struct win_job *task;
    SRWLOCK lock; /* the image: held shared while read, exclusive to take it */
    wa_err e;
    struct wa_image img;
    struct wa_rect frame;
    double ms;
};

static void pixels_capture(void *arg)
{
    struct win_pixels *p = arg;
    double t0 = os_clock_ms();
    p->e = win_capture_window((uint64_t)(uintptr_t)p->h, &p->img, &p->frame);
    p->ms = os_clock_ms() - t0;
    win_pixels_release(p);
}

struct win_pixels *win_pixels_start(HWND h)
{
    struct win_pixels *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->refs = 2; /* the caller's and the task's */
    p->h = h;
    InitializeSRWLock(&p->lock);
    if (win_task_start(pixels_capture, p, &p->task) != WA_E_OK) {
        free(p);
        return NULL;
    }
    return p;
}

struct win_pixels *win_pixels_ref(struct win_pixels *p)
{
    if (p)
        InterlockedIncrement(&p->refs);
    return p;
}

void win_pixels_release(struct win_pixels *p)
{
    if (!p || InterlockedDecrement(&p->refs) != 0)
        return;
    /* the last one out: the task is done (it held a reference until it returned) */
    win_job_release(p->task);
    image_cleanup(&p->img);
    free(p);
}

bool win_pixels_wait(struct win_pixels *p, DWORD ms)
{
    return WaitForSingleObject(win_job_done(p->task), ms) == WAIT_OBJECT_0;
}

const struct wa_image *win_pixels_hold(struct win_pixels *p, struct wa_rect *frame)
{
    AcquireSRWLockShared(&p->lock);
    if (p->e == WA_E_OK && p->img.px) {
        *frame = p->frame;
        return &p->img;
    }
    ReleaseSRWLockShared(&p->lock);
    return NULL;
}

void win_pixels_unhold(struct win_pixels *p)
{
    ReleaseSRWLockShared(&p->lock);
}

bool win_pixels_take(struct win_pixels *p, DWORD ms, struct wa_image *img, struct wa_rect *frame,
                     double *took_ms)
{
    if (!win_pixels_wait(p, ms))
        return false;
    AcquireSRWLockExclusive(&p->lock);
    bool got = p->e == WA_E_OK && p->img.px;
    if (got) {
        *img = p->img;
        *frame = p->frame;
        *took_ms = p->ms;
        p->img = (struct wa_image){0};
    }
    ReleaseSRWLockExclusive(&p->lock);
    return got;
}
