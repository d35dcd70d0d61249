/* Benchmark of the observation image pipeline: fast PNG encoder against the reference
 * (lodepng's defaults), downscaling, base64, and the whole step from a 1920x1080
 * capture to base64 text.
 *
 *   bench_image [--runs N] [--ref-runs N] [--json] [--png FILE]...
 *
 * Images: a busy synthetic 1280x720 screen, a plain synthetic 1280x800 desktop, and
 * each --png file (a real screenshot), both as it is and downscaled to 1280 pixels. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "automation/image/base64.h"
#include "automation/image/image.h"
#include "automation/image/png.h"
#include "base/os.h"
#include "../unit/synth_image.h"

#define OUT_MAX  ((size_t)512 << 20)
#define MAX_EDGE 1280

/* Median and 95th percentile of n timings (sorts them). */
struct stat {
    double median, p95;
};

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static struct stat stat_of(double *t, int n)
{
    qsort(t, (size_t)n, sizeof *t, cmp_double);
    struct stat s;
    s.median = n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2;
    int i95 = (int)(0.95 * (n - 1) + 0.5);
    s.p95 = t[i95];
    return s;
}

struct result {
    char name[64];
    int width, height;
    struct stat enc, ref, b64, down, pipe;
    size_t enc_bytes, ref_bytes, b64_bytes;
    int down_src_w, down_src_h, down_w, down_h;
};

static void die(const char *what, wa_err e)
{
    fprintf(stderr, "bench_image: %s: %s (%s)\n", what, wa_err_message(e), wa_err_detail());
    exit(1);
}

static double time_encode(wa_err (*enc)(const struct wa_image *, struct dynbuf *),
                          const struct wa_image *img, struct dynbuf *b)
{
    dynbuf_reset(b);
    double t0 = os_clock_ms();
    wa_err e = enc(img, b);
    double t = os_clock_ms() - t0;
    if (e)
        die("encode", e);
    return t;
}

/* The reference runs are spread evenly among the fast ones, so that both see the same
 * machine (the load of other processes comes and goes). */
static void time_encoders(const struct wa_image *img, int runs, int ref_runs, struct result *r)
{
    double *t = calloc((size_t)runs, sizeof *t), *tr = calloc((size_t)ref_runs, sizeof *tr);
    struct dynbuf fast, ref;
    dynbuf_init(&fast, OUT_MAX);
    dynbuf_init(&ref, OUT_MAX);
    for (int i = 0, k = 0; i < runs || k < ref_runs; i++) {
        if (i < runs)
            t[i] = time_encode(png_encode, img, &fast);
        if (k < ref_runs && (i >= runs || (long)(i + 1) * ref_runs / runs > k))
            tr[k++] = time_encode(png_encode_reference, img, &ref);
    }
    r->enc = stat_of(t, runs);
    r->ref = stat_of(tr, ref_runs);
    r->enc_bytes = fast.len;
    r->ref_bytes = ref.len;
    dynbuf_cleanup(&fast);
    dynbuf_cleanup(&ref);
    free(t);
    free(tr);
}

static struct stat time_base64(const struct dynbuf *png, int runs, size_t *bytes)
{
    double *t = calloc((size_t)runs, sizeof *t);
    struct dynbuf b;
    dynbuf_init(&b, OUT_MAX);
    for (int i = 0; i < runs; i++) {
        dynbuf_cleanup(&b); /* from empty each time, as in a step */
        dynbuf_init(&b, OUT_MAX);
        double t0 = os_clock_ms();
        wa_err e = base64_encode(png->data, png->len, &b);
        t[i] = os_clock_ms() - t0;
        if (e)
            die("base64", e);
    }
    *bytes = b.len;
    dynbuf_cleanup(&b);
    struct stat s = stat_of(t, runs);
    free(t);
    return s;
}

/* Downscale alone, and the whole step (downscale, encode, base64) from src. */
static void time_pipeline(const struct wa_image *src, int runs, struct result *r)
{
    double *td = calloc((size_t)runs, sizeof *td), *tp = calloc((size_t)runs, sizeof *tp);
    for (int i = 0; i < runs; i++) {
        struct wa_image small;
        struct dynbuf png, text;
        dynbuf_init(&png, OUT_MAX);
        dynbuf_init(&text, OUT_MAX);
        double t0 = os_clock_ms();
        wa_err e = image_downscale(src, MAX_EDGE, &small);
        double t1 = os_clock_ms();
        if (!e)
            e = png_encode(&small, &png);
        if (!e)
            e = base64_encode(png.data, png.len, &text);
        double t2 = os_clock_ms();
        if (e)
            die("pipeline", e);
        td[i] = t1 - t0;
        tp[i] = t2 - t0;
        r->down_w = small.width;
        r->down_h = small.height;
        image_cleanup(&small);
        dynbuf_cleanup(&png);
        dynbuf_cleanup(&text);
    }
    r->down_src_w = src->width;
    r->down_src_h = src->height;
    r->down = stat_of(td, runs);
    r->pipe = stat_of(tp, runs);
    free(td);
    free(tp);
}

/* Measures one observation image; pipe_src is the full-size capture it comes from. */
static void measure(const char *name, const struct wa_image *img, const struct wa_image *pipe_src,
                    int runs, int ref_runs, struct result *r)
{
    memset(r, 0, sizeof *r);
    snprintf(r->name, sizeof r->name, "%s", name);
    for (char *c = r->name; *c; c++) /* printed in JSON strings unescaped */
        if (*c == '"' || *c == '\\' || (unsigned char)*c < 32)
            *c = '_';
    r->width = img->width;
    r->height = img->height;
    time_encoders(img, runs, ref_runs, r);
    struct dynbuf png;
    dynbuf_init(&png, OUT_MAX);
    wa_err e = png_encode(img, &png);
    if (e)
        die("encode", e);
    r->b64 = time_base64(&png, runs, &r->b64_bytes);
    dynbuf_cleanup(&png);
    time_pipeline(pipe_src, runs, r);
    fprintf(stderr, "bench_image: %s done\n", name);
}

static wa_err load_png(const char *path, struct wa_image *img)
{
    char *data = NULL;
    size_t len = 0;
    wa_err e = os_read_file(path, (size_t)64 << 20, &data, &len);
    if (!e)
        e = png_decode(data, len, img);
    free(data);
    return e;
}

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/'), *b = strrchr(path, '\\');
    if (b && (!s || b > s))
        s = b;
    return s ? s + 1 : path;
}

static void print_table(const struct result *r, int n, int runs, int ref_runs)
{
    printf("PNG encoding (ms: median / p95; fast %d runs, reference %d runs)\n", runs, ref_runs);
    printf("%-28s %-10s %17s %9s %17s %9s %7s %6s\n", "image", "size", "fast ms", "bytes",
           "reference ms", "bytes", "speed", "size");
    for (int i = 0; i < n; i++) {
        char size[24];
        snprintf(size, sizeof size, "%dx%d", r[i].width, r[i].height);
        printf("%-28s %-10s %8.2f / %6.2f %9zu %8.1f / %6.1f %9zu %6.1fx %5.2fx\n", r[i].name, size,
               r[i].enc.median, r[i].enc.p95, r[i].enc_bytes, r[i].ref.median, r[i].ref.p95,
               r[i].ref_bytes, r[i].ref.median / r[i].enc.median,
               (double)r[i].enc_bytes / (double)r[i].ref_bytes);
    }
    printf("\nPipeline (ms: median / p95; downscale to %d, whole step = downscale + encode + "
           "base64)\n",
           MAX_EDGE);
    printf("%-28s %-21s %17s %17s %9s %17s\n", "image", "downscale", "downscale ms", "base64 ms",
           "b64 bytes", "whole step ms");
    for (int i = 0; i < n; i++) {
        char down[32];
        snprintf(down, sizeof down, "%dx%d->%dx%d", r[i].down_src_w, r[i].down_src_h, r[i].down_w,
                 r[i].down_h);
        printf("%-28s %-21s %8.2f / %6.2f %8.2f / %6.2f %9zu %8.2f / %6.2f\n", r[i].name, down,
               r[i].down.median, r[i].down.p95, r[i].b64.median, r[i].b64.p95, r[i].b64_bytes,
               r[i].pipe.median, r[i].pipe.p95);
    }
}

static void print_stat(const char *key, struct stat s, const char *tail)
{
    printf("\"%s\": {\"median_ms\": %.3f, \"p95_ms\": %.3f%s}", key, s.median, s.p95, tail);
}

static void print_json(const struct result *r, int n, int runs, int ref_runs)
{
    printf("{\"runs\": %d, \"ref_runs\": %d, \"max_edge\": %d, \"images\": [\n", runs, ref_runs,
           MAX_EDGE);
    for (int i = 0; i < n; i++) {
        char tail[64];
        printf("  {\"name\": \"%s\", \"width\": %d, \"height\": %d, ", r[i].name, r[i].width,
               r[i].height);
        snprintf(tail, sizeof tail, ", \"bytes\": %zu", r[i].enc_bytes);
        print_stat("encode", r[i].enc, tail);
        printf(", ");
        snprintf(tail, sizeof tail, ", \"bytes\": %zu", r[i].ref_bytes);
        print_stat("reference", r[i].ref, tail);
        printf(", \"speed_ratio\": %.2f, \"size_ratio\": %.3f, ", r[i].ref.median / r[i].enc.median,
               (double)r[i].enc_bytes / (double)r[i].ref_bytes);
        snprintf(tail, sizeof tail, ", \"bytes\": %zu", r[i].b64_bytes);
        print_stat("base64", r[i].b64, tail);
        printf(", ");
        snprintf(tail, sizeof tail, ", \"from\": \"%dx%d\", \"to\": \"%dx%d\"", r[i].down_src_w,
                 r[i].down_src_h, r[i].down_w, r[i].down_h);
        print_stat("downscale", r[i].down, tail);
        printf(", ");
        print_stat("pipeline", r[i].pipe, "");
        printf("}%s\n", i + 1 < n ? "," : "");
    }
    printf("]}\n");
}

static int usage(void)
{
    fprintf(stderr, "usage: bench_image [--runs N] [--ref-runs N] [--json] [--png FILE]...\n");
    return 2;
}

int main(int argc, char **argv)
{
    int runs = 15, ref_runs = 5;
    bool json = false;
    const char *files[16];
    int nfiles = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--runs") && i + 1 < argc)
            runs = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--ref-runs") && i + 1 < argc)
            ref_runs = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--json"))
            json = true;
        else if (!strcmp(argv[i], "--png") && i + 1 < argc && nfiles < 16)
            files[nfiles++] = argv[++i];
        else
            return usage();
    }
    if (runs < 1 || ref_runs < 1)
        return usage();

    struct result results[2 + 2 * 16];
    int n = 0;
    wa_err e;

    /* Synthetic screens; their pipelines start from the same scene at 1920x1080. */
    struct wa_image busy, plain, busy_full, plain_full;
    if ((e = image_alloc(&busy, 1280, 720, true)) || (e = image_alloc(&plain, 1280, 800, true)) ||
        (e = image_alloc(&busy_full, 1920, 1080, true)) ||
        (e = image_alloc(&plain_full, 1920, 1080, true)))
        die("alloc", e);
    synth_busy(&busy, 1);
    synth_plain(&plain, 2);
    synth_busy(&busy_full, 1);
    synth_plain(&plain_full, 2);
    measure("synthetic-busy", &busy, &busy_full, runs, ref_runs, &results[n++]);
    measure("synthetic-plain", &plain, &plain_full, runs, ref_runs, &results[n++]);
    image_cleanup(&busy);
    image_cleanup(&plain);
    image_cleanup(&busy_full);
    image_cleanup(&plain_full);

    /* Real screenshots: as captured, and as sent (downscaled). */
    for (int i = 0; i < nfiles; i++) {
        struct wa_image full, small;
        if ((e = load_png(files[i], &full)))
            die(files[i], e);
        full.bgra = false;
        char name[64];
        snprintf(name, sizeof name, "%.40s", base_name(files[i]));
        measure(name, &full, &full, runs, ref_runs, &results[n++]);
        if (full.width > MAX_EDGE || full.height > MAX_EDGE) {
            if ((e = image_downscale(&full, MAX_EDGE, &small)))
                die("downscale", e);
            snprintf(name, sizeof name, "%.34s@%d", base_name(files[i]), MAX_EDGE);
            measure(name, &small, &full, runs, ref_runs, &results[n++]);
            image_cleanup(&small);
        }
        image_cleanup(&full);
    }

    if (json)
        print_json(results, n, runs, ref_runs);
    else
        print_table(results, n, runs, ref_runs);
    return 0;
}
