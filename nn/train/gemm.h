/* nn/train/gemm.h -- the trainer's matrix products: C = A B + beta C on row-major matrices,
 * either operand transposed. On CPUs with AVX-512 (F and VL) our own kernel (8 x 48 tiles, K
 * blocks, operands read in place) runs; elsewhere OpenBLAS's cblas_sgemm. Our own because
 * OpenBLAS 0.3.21 (Debian 12) does not know Sapphire and Emerald Rapids and falls back to its SSE3
 * "Prescott" kernels there, a third of the speed (bench/RESULTS.md). */
#ifndef SHIDO_NN_TRAIN_GEMM_H
#define SHIDO_NN_TRAIN_GEMM_H

#include <stdbool.h>
#include <stddef.h>

/* Packing buffers of one thread (NULL when out of memory); free with nn_train_gemm_ws_free. */
typedef struct nn_train_gemm_ws nn_train_gemm_ws;
nn_train_gemm_ws *nn_train_gemm_ws_new(void);
void nn_train_gemm_ws_free(nn_train_gemm_ws *w);

/* C[M][N] = op(A)[M][K] op(B)[K][N] + beta C, op = transpose when ta / tb (A stored [K][M] with
 * row stride lda, B stored [N][K]); beta 0 ignores what C held. */
void nn_train_sgemm(nn_train_gemm_ws *w, bool ta, bool tb, int M, int N, int K, const float *A,
                    int lda, const float *B, int ldb, float beta, float *C, int ldc);

/* Tests: use OpenBLAS even where our kernel could run (force true), or the default choice. */
void nn_train_gemm_force_blas(bool force);

#endif
