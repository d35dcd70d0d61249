/* The fuzz targets' shared setup: a sandbox of one temporary folder and a fake desktop. */
#include "tests/fuzz/harness.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/landlock.h>

#include "automation/backend.h"
#include "automation/fake/fake_backend.h"
#include "base/os.h"

static char dir[4096];    /* the product's temporary folder */
static char parent[4096]; /* $TMPDIR as given: libFuzzer's crash files and new inputs */

/* ---- the sandbox ---- */

/* Landlock's ABI 4 restricts TCP too; Debian 12's headers predate it, so the attribute
 * is spelt out here (the kernel takes the longer struct from ABI 4 on). */
struct ruleset_attr {
    uint64_t handled_access_fs;
    uint64_t handled_access_net;
};
#define NET_BIND_TCP    (1ULL << 0)
#define NET_CONNECT_TCP (1ULL << 1)

/* Every right that writes, for the ABI the kernel speaks (reading stays free). */
static uint64_t write_rights(long abi)
{
    uint64_t r = LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_REMOVE_DIR |
                 LANDLOCK_ACCESS_FS_REMOVE_FILE | LANDLOCK_ACCESS_FS_MAKE_CHAR |
                 LANDLOCK_ACCESS_FS_MAKE_DIR | LANDLOCK_ACCESS_FS_MAKE_REG |
                 LANDLOCK_ACCESS_FS_MAKE_SOCK | LANDLOCK_ACCESS_FS_MAKE_FIFO |
                 LANDLOCK_ACCESS_FS_MAKE_BLOCK | LANDLOCK_ACCESS_FS_MAKE_SYM;
    if (abi >= 2)
        r |= 1ULL << 13; /* REFER */
    if (abi >= 3)
        r |= 1ULL << 14; /* TRUNCATE */
    return r;
}

static int allow_beneath(int ruleset, const char *path, uint64_t rights)
{
    struct landlock_path_beneath_attr pb = {.allowed_access = rights};
    pb.parent_fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (pb.parent_fd < 0)
        return -1;
    int rc = (int)syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &pb, 0);
    close(pb.parent_fd);
    return rc;
}

/* Writes only beneath $TMPDIR as given (and to /dev's devices, such as /dev/null); no
 * TCP where the kernel can refuse it. Best effort: a kernel without Landlock leaves it to
 * the targets, which are written not to write elsewhere anyway. */
static void sandbox(void)
{
    long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
    if (abi < 1) {
        fprintf(stderr, "fuzz: no Landlock in this kernel; writes are not fenced\n");
        return;
    }
    uint64_t fs = write_rights(abi);
    struct ruleset_attr attr = {.handled_access_fs = fs};
    size_t size = sizeof attr.handled_access_fs;
    if (abi >= 4) {
        attr.handled_access_net = NET_BIND_TCP | NET_CONNECT_TCP;
        size = sizeof attr;
    }
    int rs = (int)syscall(SYS_landlock_create_ruleset, &attr, size, 0);
    if (rs < 0) {
        fprintf(stderr, "fuzz: Landlock refused the ruleset: %s\n", strerror(errno));
        return;
    }
    if (allow_beneath(rs, parent, fs) || allow_beneath(rs, "/dev", LANDLOCK_ACCESS_FS_WRITE_FILE) ||
        prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) || syscall(SYS_landlock_restrict_self, rs, 0)) {
        fprintf(stderr, "fuzz: cannot fence writes: %s\n", strerror(errno));
        exit(1); /* half a fence is worse than a clear stop */
    }
    close(rs);
}

const char *fuzz_setup(void)
{
    if (dir[0])
        return dir;
    const char *tmp = getenv("TMPDIR");
    snprintf(parent, sizeof parent, "%s", tmp && *tmp ? tmp : "/tmp");
    snprintf(dir, sizeof dir, "%s/winagent-fuzz-XXXXXX", parent);
    if (!mkdtemp(dir)) {
        fprintf(stderr, "fuzz: cannot make %s: %s\n", dir, strerror(errno));
        exit(1);
    }
    /* The input lock, the refs' state folder and every other temporary file go here.
     * The working folder stays (libFuzzer reads relative paths after this); run.sh runs
     * the targets inside $TMPDIR, and elsewhere the fence refuses a relative path. */
    if (setenv("TMPDIR", dir, 1)) {
        fprintf(stderr, "fuzz: cannot move into %s\n", dir);
        exit(1);
    }
    unsetenv("WINAGENT_FAKE_LOG");
    unsetenv("WINAGENT_FAKE_SCENE");
    unsetenv("WINAGENT_AUDIT_LOG");
    sandbox();
    return dir;
}

char *fuzz_text(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    if (s) {
        if (size)
            memcpy(s, data, size);
        s[size] = '\0';
    }
    return s;
}

void fuzz_freeze_time(void)
{
    os_interrupt_request();
}

/* ---- the fake desktop ---- */

/* Small, so that images stay cheap under the sanitizers: a 400x300 monitor. */
static const char scene[] =
    "{\"monitors\":[{\"rect\":[0,0,400,300],\"primary\":true}],"
    "\"windows\":["
    "{\"hwnd\":256,\"title\":\"Untitled - Notepad\",\"class\":\"Notepad\","
    "\"process\":\"notepad.exe\",\"pid\":7,\"rect\":[10,10,210,160],\"foreground\":true,"
    "\"color\":\"#ffffff\",\"tree\":{\"type\":\"Window\",\"name\":\"Untitled - Notepad\","
    "\"bounds\":[10,10,210,160],\"children\":["
    "{\"type\":\"MenuItem\",\"name\":\"File\",\"bounds\":[10,20,40,30],"
    "\"patterns\":[\"expand\",\"invoke\"]},"
    "{\"type\":\"Button\",\"name\":\"Save\",\"automation_id\":\"save\","
    "\"bounds\":[50,20,80,30],\"patterns\":[\"invoke\"]},"
    "{\"type\":\"CheckBox\",\"name\":\"Wrap\",\"bounds\":[90,20,120,30],"
    "\"patterns\":[\"toggle\"]},"
    "{\"type\":\"ComboBox\",\"name\":\"Font\",\"bounds\":[130,20,200,30],"
    "\"patterns\":[\"expand\",\"select\",\"value\"],\"value\":\"Arial\",\"children\":["
    "{\"type\":\"ListItem\",\"name\":\"Arial\",\"bounds\":[130,30,200,40]},"
    "{\"type\":\"ListItem\",\"name\":\"Courier\",\"bounds\":[130,40,200,50]}]},"
    "{\"type\":\"Edit\",\"name\":\"Text Editor\",\"bounds\":[10,50,210,160],"
    "\"states\":[\"focused\"],\"patterns\":[\"value\"],\"value\":\"hello\"}]}},"
    "{\"hwnd\":512,\"title\":\"Calculator\",\"process\":\"calc.exe\",\"pid\":8,"
    "\"rect\":[220,10,390,150],\"color\":\"#dddddd\","
    "\"tree\":{\"type\":\"Window\",\"name\":\"Calculator\",\"bounds\":[220,10,390,150],"
    "\"children\":[{\"type\":\"Button\",\"name\":\"1\",\"bounds\":[230,20,260,50]},"
    "{\"type\":\"Button\",\"name\":\"2\",\"bounds\":[270,20,300,50]}]}},"
    "{\"hwnd\":768,\"title\":\"Passwords - KeePass\",\"process\":\"keepass.exe\",\"pid\":9,"
    "\"rect\":[50,170,250,290],\"color\":\"#000000\","
    "\"tree\":{\"type\":\"Window\",\"name\":\"Passwords - KeePass\","
    "\"bounds\":[50,170,250,290],\"children\":[{\"type\":\"Edit\",\"name\":\"Password\","
    "\"bounds\":[60,180,240,200],\"value\":\"secret\",\"password\":true}]}}],"
    "\"launch\":{\"notepad\":{\"hwnd\":1024,\"title\":\"New - Notepad\","
    "\"process\":\"notepad.exe\",\"pid\":10,\"rect\":[0,0,100,80],\"color\":\"#ffffff\"}},"
    "\"programs\":{\"notepad\":{\"path\":\"C:\\\\Windows\\\\notepad.exe\"}}}";

struct core *fuzz_core(void)
{
    static struct core *core;
    if (core)
        return core;
    fuzz_setup();
    const struct wa_backend *be = backend_default();
    wa_err e = fake_load_scene(scene, NULL);
    if (!e && be->init)
        e = be->init();
    static char state[4200];
    snprintf(state, sizeof state, "%s/state", dir);
    struct core_config cfg = {
        .be = be,
        .shell = SHELL_DENIED,
        .dry_run = true,
        .max_actions_per_s = 1e9,
        .state_dir = state,
    };
    if (!e)
        e = core_new(&cfg, &core);
    if (e) {
        fprintf(stderr, "fuzz: no core: %s\n", wa_err_detail());
        exit(1);
    }
    return core;
}
