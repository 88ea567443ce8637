/* teach/throughput.h -- network evaluations per second through nn_eval, as search workers make
 * them: what `shido bench nn` measures and prints. */
#ifndef SHIDO_TEACH_THROUGHPUT_H
#define SHIDO_TEACH_THROUGHPUT_H

#include <stdbool.h>

#include "go/game.h"
#include "nn/nn.h"

#define TEACH_THROUGHPUT_POSITIONS 5
#define TEACH_THROUGHPUT_MAX_THREADS 64

/* One measurement's settings. */
typedef struct teach_throughput_opts {
    int threads;          /* workers, each with its own context (1..TEACH_THROUGHPUT_MAX_THREADS) */
    int batch;            /* positions per nn_eval call */
    double seconds;       /* each worker's timed run after its warm-up */
    bool forward_only;    /* time nn_forward_again: the backend's forward pass alone */
    int eval_threads;     /* nn_context_set_threads of each worker's context (1: none) */
    const nn_kata_profile *profile;   /* for nets with a metadata encoder; others ignore it */
} teach_throughput_opts;

/* What it measured. */
typedef struct teach_throughput {
    long evals, batches;
    double evals_per_s;        /* the sum of the workers' rates */
    double ms_per_batch;       /* the mean time of one call */
    double evals_per_cpu_s;    /* evaluations per CPU second of the workers (what one core
                                  gives, less sensitive to other load on a shared machine) */
} teach_throughput;

/* The positions evaluated: the empty 19x19 board and the same board after Q16, D4, Q3, D16 (1..4
 * moves), cycled through the batch with symmetries 0..7. False when out of memory; free each
 * with go_game_free. */
bool teach_throughput_positions(go_game pos[TEACH_THROUGHPUT_POSITIONS]);

/* Measures m: the workers warm up one at a time (two batches each: first-touch page faults and
 * BLAS buffers, and on a GPU the algorithm search and the CUDA graph capture, are not what is
 * measured) and start timing together. False with a message in err when a worker cannot start
 * or an evaluation fails. */
bool teach_throughput_run(nn_model *m, const go_game pos[TEACH_THROUGHPUT_POSITIONS],
                          const teach_throughput_opts *o, teach_throughput *out, char *err,
                          int err_len);

#endif
