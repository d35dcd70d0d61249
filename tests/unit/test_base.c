/* Unit tests: the error table, the capped dynbuf and the string helpers. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "base/dynbuf.h"
#include "base/netpath.h"
#include "base/wa_err.h"
#include "base/os.h"
#include "base/str.h"
#include "base/term_text.h"

static void error_codes_round_trip(void **state)
{
    (void)state;
    assert_string_equal(wa_err_code(WA_E_OK), "ok");
    assert_string_equal(wa_err_code(WA_E_STALE_REF), "stale_ref");
    assert_string_equal(wa_err_code(WA_E_WINDOW_NOT_FOUND), "window_not_found");
    assert_string_equal(wa_err_code((wa_err)9999), "unknown");
    for (int e = 0; e < WA_E__COUNT; e++)
        assert_int_equal(wa_err_from_code(wa_err_code((wa_err)e)), e);
    assert_int_equal(wa_err_from_code("no_such_code"), WA_E__COUNT);
}

static void fail_keeps_detail(void **state)
{
    (void)state;
    wa_err_clear();
    assert_string_equal(wa_err_detail(), "");
    assert_int_equal(wa_fail(WA_E_TIMEOUT, "waited %d ms", 250), WA_E_TIMEOUT);
    assert_string_equal(wa_err_detail(), "waited 250 ms");
    char big[2000];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    wa_fail(WA_E_IO, "%s", big);
    assert_int_equal(strlen(wa_err_detail()), 511);
}

static void dynbuf_grows_and_formats(void **state)
{
    (void)state;
    struct dynbuf b;
    dynbuf_init(&b, 1 << 20);
    assert_string_equal(dynbuf_str(&b), "");
    for (int i = 0; i < 1000; i++)
        assert_int_equal(dynbuf_addf(&b, "%d,", i), WA_E_OK);
    assert_true(b.len > 3000);
    assert_memory_equal(b.data, "0,1,2,", 6);
    assert_int_equal(b.data[b.len], '\0');
    char *s = dynbuf_take(&b);
    assert_non_null(s);
    assert_int_equal(b.len, 0);
    assert_null(b.data);
    free(s);
    dynbuf_cleanup(&b);
}

static void dynbuf_enforces_cap(void **state)
{
    (void)state;
    struct dynbuf b;
    dynbuf_init(&b, 10);
    assert_int_equal(dynbuf_adds(&b, "0123456789"), WA_E_OK);
    assert_int_equal(dynbuf_addc(&b, 'x'), WA_E_TOO_LARGE);
    assert_int_equal(b.len, 10);
    assert_string_equal(dynbuf_str(&b), "0123456789");
    assert_int_equal(dynbuf_addf(&b, "%s", "more"), WA_E_TOO_LARGE);
    dynbuf_truncate(&b, 4); /* back to what it held before later adds */
    assert_int_equal(b.len, 4);
    assert_string_equal(dynbuf_str(&b), "0123");
    dynbuf_truncate(&b, 9); /* longer than it holds: as it was */
    assert_string_equal(dynbuf_str(&b), "0123");
    dynbuf_reset(&b);
    assert_int_equal(b.len, 0);
    assert_string_equal(dynbuf_str(&b), "");
    /* A length that would overflow size_t is refused, not wrapped. */
    assert_int_equal(dynbuf_add(&b, "", (size_t)-1), WA_E_TOO_LARGE);
    assert_int_equal(dynbuf_reserve(&b, (size_t)-1), WA_E_TOO_LARGE);
    assert_int_equal(dynbuf_reserve(&b, 11), WA_E_TOO_LARGE); /* past the cap */
    dynbuf_cleanup(&b);
    assert_int_equal(dynbuf_reserve(&b, 0), WA_E_OK); /* room for nothing is still a string */
    assert_string_equal(dynbuf_str(&b), "");
    assert_string_equal(b.data, "");
    dynbuf_cleanup(&b); /* twice is harmless */
}

/* Room reserved is room kept: adds up to it allocate nothing more. */
static void dynbuf_reserve_keeps_room(void **state)
{
    (void)state;
    struct dynbuf b;
    dynbuf_init(&b, 1u << 20);
    assert_int_equal(dynbuf_adds(&b, "ab"), WA_E_OK);
    assert_int_equal(dynbuf_reserve(&b, 100000), WA_E_OK);
    assert_true(b.cap > b.len + 100000);
    const char *data = b.data;
    char chunk[1000];
    memset(chunk, 'x', sizeof chunk);
    for (int i = 0; i < 100; i++)
        assert_int_equal(dynbuf_add(&b, chunk, sizeof chunk), WA_E_OK);
    assert_ptr_equal(b.data, data);
    assert_int_equal(b.len, 100002);
    assert_int_equal(dynbuf_str(&b)[100002], '\0');
    assert_int_equal(memcmp(b.data, "abxx", 4), 0);
    dynbuf_cleanup(&b);
}

static void dynbuf_redacts_every_occurrence(void **state)
{
    (void)state;
    struct dynbuf b;
    dynbuf_init(&b, 1 << 10);
    const char text[] = "KEYa KEYKEY bKE";
    assert_int_equal(dynbuf_add_redacted(&b, text, sizeof text - 1, "KEY"), WA_E_OK);
    assert_string_equal(dynbuf_str(&b), "[redacted]a [redacted][redacted] bKE");
    dynbuf_reset(&b);
    assert_int_equal(dynbuf_add_redacted(&b, "a\0KEY", 5, "KEY"), WA_E_OK); /* bytes, not C text */
    assert_int_equal(b.len, 12);
    assert_memory_equal(b.data, "a\0[redacted]", 12);
    dynbuf_reset(&b);
    assert_int_equal(dynbuf_add_redacted(&b, "KEY", 3, NULL), WA_E_OK);
    assert_int_equal(dynbuf_add_redacted(&b, "KEY", 3, ""), WA_E_OK);
    assert_string_equal(dynbuf_str(&b), "KEYKEY");
    dynbuf_cleanup(&b);
}

static void string_helpers(void **state)
{
    (void)state;
    assert_true(str_ieq_n("Button", "button:OK", 6));
    assert_false(str_ieq_n("Button", "butto:OK", 5));
    assert_false(str_ieq_n("Button", "buttonx", 7));
    assert_false(str_ieq_n(NULL, "x", 1));
    assert_true(str_ieq_n("", ":x", 0));
    assert_true(str_wildcard("Enable*", "enable feature"));
    assert_true(str_wildcard("?K", "OK"));
    assert_false(str_wildcard("OK?", "OK"));
    assert_string_equal(str_path_base("C:\\dir\\a.png"), "a.png");
    assert_string_equal(str_path_base("/x/y/"), "y/");
    assert_true(str_equal_secret("tok", "tok"));
    assert_false(str_equal_secret("tok", "toke"));
    assert_false(str_equal_secret("tok", NULL));
}

/* os_run_pieces: every piece runs exactly once, on at most two threads, and all are
 * done when it returns (the last pieces are slow, so a helper is still on one then). */
struct pieces_seen {
    int runs[64];
};

/* Text bound for a terminal: control, escape and bidi characters, C1 controls and bytes
 * that are no UTF-8 become visible escapes; other characters stay; a cut never splits an
 * escape; JSON keeps its meaning. */
/* Every spelling Windows resolves to its network redirector is remote by its spelling
 * alone; drive paths, in any spelling, are not. */
static void network_paths_are_known_by_their_spelling(void **state)
{
    (void)state;
    static const char *const remote[] = {
        "\\\\host\\share\\x.exe",
        "\\\\host\\share\\a b",
        "//host/share/x.exe",
        "\\/host/share",
        "\\\\?\\UNC\\host\\share\\x.exe",
        "\\\\.\\UNC\\host\\share\\x.exe",
        "//?/UNC/host/share/x.exe",
        "//./UNC/host/share/x.exe",
        "\\\\?\\GLOBALROOT\\Device\\Mup\\host\\share\\x.exe",
        "\\\\?\\Volume{12345678-1234-1234-1234-123456789abc}\\x.exe",
        "\\\\.\\pipe\\x",
        "\\??\\UNC\\host\\share\\x.exe",
        "/?\?/UNC/host/share/x.exe",
        "\\\\.\\C:\\..\\UNC\\host\\share\\x.exe",
        "//?/C:/./x.exe",
        "\\\\?\\C:",
        "\\\\?",
        "\\\\",
    };
    for (size_t i = 0; i < sizeof remote / sizeof *remote; i++)
        if (!netpath_remote(remote[i]))
            fail_msg("%s was taken for a local path", remote[i]);
    static const char *const local[] = {
        "C:\\Windows\\notepad.exe",
        "c:/x/y.exe",
        "notepad",
        "x\\..\\y.exe",
        "\\Windows\\notepad.exe",
        "\\\\?\\C:\\x.exe",
        "//./D:/x.exe",
        "C:x.exe",
        "",
    };
    for (size_t i = 0; i < sizeof local / sizeof *local; i++)
        if (netpath_remote(local[i]))
            fail_msg("%s was taken for a network path: %s", local[i], netpath_remote(local[i]));
    assert_null(netpath_remote(NULL));
    assert_true(netpath_has_drive("c:\\x"));
    assert_false(netpath_has_drive("\\\\?\\C:\\x"));
}

static void terminal_text_is_escaped(void **state)
{
    (void)state;
    char out[128];
    assert_true(term_escape("a\x1b[2Kb\r\n\tc\x7f", out, sizeof out));
    assert_string_equal(out, "a\\x1b[2Kb\\r\\n\\tc\\x7f");
    assert_true(
        term_escape("gr\xc3\xbc\xc3\x9f \xe2\x80\xae\xc2\x9b\xe2\x81\xa6", out, sizeof out));
    assert_string_equal(out, "gr\xc3\xbc\xc3\x9f \\u{202E}\\u{009B}\\u{2066}");
    assert_true(term_escape("\xff\xc3(", out, sizeof out)); /* no UTF-8 */
    assert_string_equal(out, "\\xff\\xc3(");
    assert_false(term_escape("abc\x1b", out, 6)); /* cut before the escape, not in it */
    assert_string_equal(out, "abc");
    struct dynbuf b;
    dynbuf_init(&b, 1024);
    assert_int_equal(term_escape_buf(&b, "line 1\nline\x1b 2\n", true), WA_E_OK);
    assert_string_equal(dynbuf_str(&b), "line 1\nline\\x1b 2\n");
    dynbuf_reset(&b);
    assert_int_equal(term_json_buf(&b, "{\"t\":\"a\xe2\x80\xae"
                                       "b\\u001b\x7f\"}"),
                     WA_E_OK);
    assert_string_equal(dynbuf_str(&b), "{\"t\":\"a\\u202eb\\u001b\\u007f\"}");
    dynbuf_cleanup(&b);
}

static void mark_piece(void *ctx, int i)
{
    struct pieces_seen *s = ctx;
    if (i >= 60)
        os_sleep_ms(5);
    __atomic_fetch_add(&s->runs[i], 1, __ATOMIC_SEQ_CST);
}

static void run_pieces_runs_each_once(void **state)
{
    (void)state;
    static const int counts[] = {0, 1, 2, 7, 64};
    for (int round = 0; round < 20; round++)
        for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
            struct pieces_seen seen = {{0}};
            os_run_pieces(counts[c], mark_piece, &seen);
            for (int i = 0; i < 64; i++)
                if (seen.runs[i] != (i < counts[c]))
                    fail_msg("%d pieces: piece %d ran %d times", counts[c], i, seen.runs[i]);
        }
}

/* The helper is started once and kept: across many calls, the pieces the calling thread
 * did not run itself ran on one and the same other thread. */
static _Thread_local int thread_marker;

struct pieces_where {
    const void *thread[16];
};

static void note_thread(void *ctx, int i)
{
    struct pieces_where *w = ctx;
    w->thread[i] = &thread_marker;
    os_sleep_ms(1); /* long enough for the helper to wake and take some */
}

static void run_pieces_keeps_one_helper(void **state)
{
    (void)state;
    const void *helper = NULL;
    int helped = 0;
    for (int round = 0; round < 30; round++) {
        struct pieces_where w = {{0}};
        os_run_pieces(16, note_thread, &w);
        for (int i = 0; i < 16; i++) {
            assert_non_null(w.thread[i]);
            if (w.thread[i] == (const void *)&thread_marker)
                continue;
            if (helper && w.thread[i] != helper)
                fail_msg("round %d: a second helper thread ran piece %d", round, i);
            helper = w.thread[i];
            helped++;
        }
    }
    assert_true(helped > 0); /* the helper did take pieces */
}

/* Callers on several threads at once: one has the helper, the others run their pieces
 * alone; every piece of every call still runs exactly once. */
struct caller {
    atomic_int *left;
    int failures;
};

static void busy_caller(void *arg)
{
    struct caller *c = arg;
    for (int round = 0; round < 40; round++) {
        struct pieces_seen seen = {{0}};
        os_run_pieces(64, mark_piece, &seen);
        for (int i = 0; i < 64; i++)
            c->failures += seen.runs[i] != 1;
    }
    atomic_fetch_sub(c->left, 1);
}

static void run_pieces_from_several_threads(void **state)
{
    (void)state;
    atomic_int left = 3;
    struct caller callers[3] = {{&left, 0}, {&left, 0}, {&left, 0}};
    for (int i = 0; i < 3; i++)
        assert_int_equal(os_thread_start(busy_caller, &callers[i]), WA_E_OK);
    for (int waited = 0; atomic_load(&left) > 0 && waited < 60000; waited += 10)
        os_sleep_ms(10);
    assert_int_equal(atomic_load(&left), 0);
    for (int i = 0; i < 3; i++)
        assert_int_equal(callers[i].failures, 0);
}

/* os_run_beside hands its function to the kept helper when it waits for work: a
 * counter local to the thread that runs it keeps growing from call to call, where a
 * new thread each time would start it at 1 again. */
static _Thread_local int beside_runs;

struct beside {
    atomic_int done;
    int runs_seen;
};

static void run_beside_note(void *arg)
{
    struct beside *b = arg;
    b->runs_seen = ++beside_runs;
    atomic_store(&b->done, 1);
}

static void run_beside_uses_the_kept_helper(void **state)
{
    (void)state;
    struct pieces_where w = {{0}};
    os_run_pieces(16, note_thread, &w); /* the helper is up */
    int most = 0;
    for (int call = 0; call < 20; call++) {
        struct beside b = {0};
        assert_int_equal(os_run_beside(run_beside_note, &b), WA_E_OK);
        for (int waited = 0; !atomic_load(&b.done) && waited < 10000; waited++)
            os_sleep_ms(1);
        assert_int_equal(atomic_load(&b.done), 1);
        most = b.runs_seen > most ? b.runs_seen : most;
        os_sleep_ms(10); /* for the helper to be waiting again */
    }
    assert_int_equal(beside_runs, 0); /* never on the caller */
    assert_true(most >= 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(error_codes_round_trip),
        cmocka_unit_test(fail_keeps_detail),
        cmocka_unit_test(dynbuf_grows_and_formats),
        cmocka_unit_test(dynbuf_enforces_cap),
        cmocka_unit_test(dynbuf_redacts_every_occurrence),
        cmocka_unit_test(string_helpers),
        cmocka_unit_test(terminal_text_is_escaped),
        cmocka_unit_test(network_paths_are_known_by_their_spelling),
        cmocka_unit_test(dynbuf_reserve_keeps_room),
        cmocka_unit_test(run_pieces_runs_each_once),
        cmocka_unit_test(run_pieces_keeps_one_helper),
        cmocka_unit_test(run_pieces_from_several_threads),
        cmocka_unit_test(run_beside_uses_the_kept_helper),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
