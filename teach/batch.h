/* teach/batch.h -- many independent positions on several threads: each worker thread owns a
 * feature evaluator (teach/features.h, one search thread) and takes the next job; finished jobs
 * are handed back on the caller's thread in index order, so that output is the same whatever the
 * number of threads. What the fuseki quiz generator and the game review run on. */
#ifndef SHIDO_TEACH_BATCH_H
#define SHIDO_TEACH_BATCH_H

#include <stdbool.h>

#include "teach/engine.h"
#include "teach/features.h"

/* Job index on a worker's evaluator, on the worker's thread. Returns false with a reason in err
 * (the job failed; the batch goes on). */
typedef bool (*teach_batch_job_fn)(teach_features *f, int index, void *ctx, char *err,
                                   int err_len);

/* Job index finished (ok, else err holds why), called on the caller's thread in index order.
 * Returns false to stop the batch (jobs running finish, no new one starts). */
typedef bool (*teach_batch_done_fn)(int index, bool ok, const char *err, void *ctx);

/* Runs jobs 0..n-1 on `threads` worker threads (at least 1) with evaluators on e whose policies
 * average policy_symmetries symmetries (8 or 1: teach_features_set_policy_symmetries). Job i
 * starts only after done(i - window) has returned (window >= 1), so that the caller needs room
 * for at most window unfinished results (slot i % window). Returns false with a reason in err
 * when the evaluators or threads cannot be made (no job ran then). */
bool teach_batch_run(teach_engine *e, int threads, int policy_symmetries, int n, int window,
                     teach_batch_job_fn job, teach_batch_done_fn done, void *ctx, char *err,
                     int err_len);

#endif
