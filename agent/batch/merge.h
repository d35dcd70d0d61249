/* Several batch folders brought together (`winagent report BATCHDIR... [--out DIR]`): the
 * folders of a batch's shards, run on as many machines, into one results.jsonl, one
 * index.html and one JUnit file with the tally, in a folder that holds them all so that
 * its links to each run's report work wherever the folder is copied. */
#ifndef WINAGENT_AGENT_BATCH_MERGE_H
#define WINAGENT_AGENT_BATCH_MERGE_H

#include <stddef.h>

#include "agent/report/results.h"
#include "base/wa_err.h"

/* Merges the batch folders dirs[0..n) into out_dir (NULL: the deepest folder that holds
 * them all), which must hold each of them (WA_E_USAGE otherwise, and when one is no batch
 * folder). Writes out_dir/results.jsonl (every line of each folder, in the order given,
 * its run_folder made relative to out_dir and "batch" naming its folder),
 * out_dir/index.html, and the JUnit XML to junit_path (NULL: out_dir/junit.xml). The
 * folder written, its JUnit file and the tally into the out parameters (out_path and
 * junit_out are heap strings; free() them). A task found in more than one folder is
 * said on stderr: its lines are all kept, and it counts once. */
wa_err merge_batches(const char *const *dirs, size_t n, const char *out_dir, const char *junit_path,
                     char **out_path, char **junit_out, struct tally *t);

/* The JUnit suite name of batch folders: their tasks file's name when they share it
 * ("nightly" from batch-20260101-120000-nightly-shard-2-of-3), else "batch". */
void merge_suite_name(const char *const *dirs, size_t n, char *out, size_t cap);

#endif
