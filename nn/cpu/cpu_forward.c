/* nn/cpu/cpu_forward.c -- the reference forward passes on the OpenBLAS layers (cpu_forward.h). */
#include "nn/cpu/cpu_forward.h"

#include "nn/cpu/blas_ops.h"

bool nn_kata_cpu_eval(const nn_desc *d, const go_game *g, int symmetry, double policy_optimism,
                      nn_kata_output *out, char *err, int err_len)
{
    nn_cpu_init();
    return nn_kata_eval_ops(&nn_cpu_ops, d, g, symmetry, policy_optimism, out, err, err_len);
}

bool nn_lz_cpu_eval(const nn_desc *d, const go_game *g, int symmetry, float *policy,
                    float *winrate, char *err, int err_len)
{
    nn_cpu_init();
    return nn_lz_eval_ops(&nn_cpu_ops, d, g, symmetry, policy, winrate, err, err_len);
}
