/* What every fuzz target shares: a private temporary folder inside $TMPDIR, which is
 * the only place the process may write (Landlock, where the kernel has it; libFuzzer's
 * -artifact_prefix and the corpus folder it adds to must be in $TMPDIR too), no TCP, no
 * time passing (every wait of the core ends at once, as a Ctrl+C would end it), and a
 * core on the fake desktop in dry-run mode with the shell off. */
#ifndef WINAGENT_TESTS_FUZZ_HARNESS_H
#define WINAGENT_TESTS_FUZZ_HARNESS_H

#include <stddef.h>
#include <stdint.h>

#include "agent/core/core.h"

/* libFuzzer's entry points, which every target defines. */
int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Once per process, before anything else: makes the temporary folder (inside $TMPDIR),
 * points TMPDIR at it and closes every other way out. Returns
 * the folder (static storage). */
const char *fuzz_setup(void);

/* The fuzz input as a NUL-terminated heap string (free()); NULL when out of memory. */
char *fuzz_text(const uint8_t *data, size_t size);

/* The one core of the process (made on first use): the fake desktop's scene of a
 * notepad, a calculator and a password manager (restricted), dry run, shell off, no rate
 * limit, its state folder in the temporary folder. */
struct core *fuzz_core(void);

/* Freezes time: from now on every os_sleep_ms returns at once with WA_E_INTERRUPTED
 * (targets whose inputs can ask for waits: `wait`, `wait_for`, the settle). */
void fuzz_freeze_time(void);

#endif
