/* nn/cpu/cpu_forward.h -- the KataGo and Leela Zero forward passes of nn/ref with the float32
 * OpenBLAS layers of blas_ops.h: same orchestration, same post-processing, same outputs within
 * float rounding. Single-threaded BLAS; the calling thread owns its im2col scratch
 * (nn_cpu_scratch_free). */
#ifndef SHIDO_NN_CPU_CPU_FORWARD_H
#define SHIDO_NN_CPU_CPU_FORWARD_H

#include <stdbool.h>

#include "go/game.h"
#include "nn/desc.h"
#include "nn/ref/kata_forward.h"
#include "nn/ref/lz_forward.h"

/* nn_kata_ref_eval on the CPU path: fills out, or returns false with a message in err. */
bool nn_kata_cpu_eval(const nn_desc *d, const go_game *g, int symmetry, double policy_optimism,
                      nn_kata_output *out, char *err, int err_len);

/* nn_lz_ref_eval on the CPU path: fills policy[362] and *winrate, or returns false with a
 * message in err. */
bool nn_lz_cpu_eval(const nn_desc *d, const go_game *g, int symmetry, float *policy,
                    float *winrate, char *err, int err_len);

#endif
