/* Unit tests: base/os.h services of the serve transports (folder listing, random
 * bytes, UTC time, loopback TCP, who may write a folder) on POSIX, and the ipc folder
 * refused when others may write it. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent/core/core.h"
#include "agent/front/serve.h"
#include "base/os.h"

static void test_list_dir_sorted(void **state)
{
    (void)state;
    char dir[] = "/tmp/test_os_serve-XXXXXX";
    assert_non_null(mkdtemp(dir));
    const char *names[] = {"req_b.json", "req_a.json", "sub", "Z"};
    char path[512];
    for (size_t i = 0; i < 4; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        if (i == 2)
            assert_int_equal(os_mkdir_p(path), WA_E_OK);
        else
            assert_int_equal(os_write_file(path, "x", 1), WA_E_OK);
    }
    struct os_dir_list l;
    assert_int_equal(os_list_dir(dir, &l), WA_E_OK);
    assert_int_equal(l.count, 4);
    assert_string_equal(l.names[0], "Z");
    assert_string_equal(l.names[1], "req_a.json");
    assert_string_equal(l.names[2], "req_b.json");
    assert_string_equal(l.names[3], "sub");
    os_dir_list_cleanup(&l);
    assert_int_equal(l.count, 0);
    assert_null(l.names);

    for (size_t i = 0; i < 4; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        if (i == 2)
            rmdir(path);
        else
            os_remove(path);
    }
    assert_int_equal(os_list_dir(dir, &l), WA_E_OK);
    assert_int_equal(l.count, 0);
    rmdir(dir);
    assert_int_equal(os_list_dir(dir, &l), WA_E_IO);
    assert_int_equal(l.count, 0);
}

static void test_random_bytes(void **state)
{
    (void)state;
    unsigned char a[32] = {0}, b[32] = {0}, zero[32] = {0};
    assert_int_equal(os_random_bytes(a, sizeof a), WA_E_OK);
    assert_int_equal(os_random_bytes(b, sizeof b), WA_E_OK);
    assert_memory_not_equal(a, b, sizeof a);
    assert_memory_not_equal(a, zero, sizeof a);
}

static void test_utc_time(void **state)
{
    (void)state;
    struct os_tm t;
    os_utc_time(1700000000123LL, &t); /* 2023-11-14T22:13:20.123Z */
    assert_int_equal(t.year, 2023);
    assert_int_equal(t.month, 11);
    assert_int_equal(t.day, 14);
    assert_int_equal(t.hour, 22);
    assert_int_equal(t.min, 13);
    assert_int_equal(t.sec, 20);
    assert_int_equal(t.msec, 123);
}

static int connect_loopback(int port)
{
    int s = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    assert_int_equal(connect(s, (struct sockaddr *)&a, sizeof a), 0);
    return s;
}

static void test_loopback_tcp(void **state)
{
    (void)state;
    os_socket l, c;
    int port = 0;
    assert_int_equal(os_tcp_listen_loopback(0, &l, &port), WA_E_OK);
    assert_true(port > 0);

    /* Bound to 127.0.0.1 only. */
    struct sockaddr_in a;
    socklen_t len = sizeof a;
    assert_int_equal(getsockname((int)l, (struct sockaddr *)&a, &len), 0);
    assert_int_equal(ntohl(a.sin_addr.s_addr), INADDR_LOOPBACK);

    uint32_t peer = 1;
    assert_int_equal(os_tcp_accept(l, 50, &c, &peer), WA_E_OK); /* nobody yet */
    assert_int_equal(peer, 0);
    assert_int_equal(c, OS_SOCKET_NONE);

    int client = connect_loopback(port);
    assert_int_equal(os_tcp_accept(l, 1000, &c, &peer), WA_E_OK);
    assert_int_equal(peer, INADDR_LOOPBACK);
    assert_true(c != OS_SOCKET_NONE);

    char buf[64];
    size_t got;
    assert_int_equal(os_tcp_recv(c, buf, sizeof buf, 50, &got), WA_E_TIMEOUT);
    assert_int_equal(send(client, "hello\n", 6, 0), 6);
    assert_int_equal(os_tcp_recv(c, buf, sizeof buf, 1000, &got), WA_E_OK);
    assert_int_equal(got, 6);
    assert_memory_equal(buf, "hello\n", 6);
    assert_int_equal(os_tcp_send(c, "world\n", 6), WA_E_OK);
    assert_int_equal(recv(client, buf, sizeof buf, 0), 6);
    assert_memory_equal(buf, "world\n", 6);

    close(client); /* orderly close: 0 bytes, then sending fails without SIGPIPE */
    assert_int_equal(os_tcp_recv(c, buf, sizeof buf, 1000, &got), WA_E_OK);
    assert_int_equal(got, 0);
    wa_err e = WA_E_OK;
    for (int i = 0; i < 50 && !e; i++)
        e = os_tcp_send(c, "x", 1);
    assert_int_equal(e, WA_E_IO);
    os_tcp_close(c);
    os_tcp_close(l);
    os_tcp_close(OS_SOCKET_NONE);

    assert_int_equal(os_tcp_listen_loopback(70000, &l, &port), WA_E_INVALID_ARGS);
}

/* Whoever can put a file in the ipc folder runs commands as its user: a folder the group
 * or the world may write is refused; one only its user may write is served, with a new
 * token whose file lies in the state folder, never in the folder it guards. */
static void test_ipc_folder_others_may_write_is_refused(void **state)
{
    (void)state;
    char dir[64], token_path[128];
    snprintf(dir, sizeof dir, "/tmp/wa-ipc-XXXXXX");
    assert_non_null(mkdtemp(dir));
    bool others = false;
    assert_int_equal(chmod(dir, 0777), 0);
    assert_int_equal(os_dir_others_write(dir, &others), WA_E_OK);
    assert_true(others);
    char state_dir[64];
    snprintf(state_dir, sizeof state_dir, "/tmp/wa-state-XXXXXX");
    assert_non_null(mkdtemp(state_dir));
    struct core_config cfg = {
        .be = backend_default(), .shell = SHELL_DENIED, .state_dir = state_dir};
    struct core *c = NULL;
    struct session *ses = NULL;
    assert_int_equal(core_new(&cfg, &c), WA_E_OK);
    assert_int_equal(session_new(c, NULL, &ses), WA_E_OK);
    struct serve_ipc *ipc = NULL;
    assert_int_equal(serve_ipc_open(ses, dir, 0, &ipc), WA_E_DENIED);
    assert_non_null(strstr(wa_err_detail(), "other users"));
    assert_null(ipc);
    snprintf(token_path, sizeof token_path, "%s/token", dir);
    assert_false(os_path_exists(token_path));
    assert_int_equal(chmod(dir, 0720), 0); /* the group too */
    assert_int_equal(serve_ipc_open(ses, dir, 0, &ipc), WA_E_DENIED);
    assert_int_equal(chmod(dir, 0755), 0);
    assert_int_equal(os_dir_others_write(dir, &others), WA_E_OK);
    assert_false(others);
    assert_int_equal(serve_ipc_open(ses, dir, 0, &ipc), WA_E_OK);
    bool required = true;
    const char *token = serve_ipc_token(ipc, &required);
    assert_false(required);
    assert_int_equal(strlen(token), 32);
    assert_false(os_path_exists(token_path)); /* not in the folder it guards */
    const char *file = serve_ipc_token_file(ipc);
    assert_true(strncmp(file, state_dir, strlen(state_dir)) == 0);
    char *written = NULL;
    assert_int_equal(os_read_file(file, 100, &written, NULL), WA_E_OK);
    assert_string_equal(written, token);
    free(written);
    char kept[200];
    snprintf(kept, sizeof kept, "%s", file);
    serve_ipc_close(ipc);
    assert_false(os_path_exists(kept)); /* gone with the server */
    session_free(ses);
    core_free(c);
    char cmd[160];
    snprintf(cmd, sizeof cmd, "rm -rf %s %s", dir, state_dir);
    assert_int_equal(system(cmd), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_list_dir_sorted),
        cmocka_unit_test(test_random_bytes),
        cmocka_unit_test(test_utc_time),
        cmocka_unit_test(test_loopback_tcp),
        cmocka_unit_test(test_ipc_folder_others_may_write_is_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
