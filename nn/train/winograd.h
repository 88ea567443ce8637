/* nn/train/winograd.h -- the trainer's 3x3 convolutions (stride 1, zero padding 1) by Winograd's
 * minimal filtering F(3x3, 3x3): every 3x3 block of outputs comes from a 5x5 block of inputs,
 * Y = A^T [(G g G^T) . (B^T d B)] A, with the interpolation points 0, 1, -1, 2 and infinity. A
 * 9x9 board is exactly 3 x 3 tiles, so a layer costs 25 products per tile instead of 81 x 9 = 3.24
 * times fewer multiplications than the direct convolution; other sizes round up to whole tiles.
 *
 * The three passes are all 25 matrix products (one per point xi of the 5x5 transform domain):
 *   forward          M[xi] (k x T) = U[xi] (k x c) V[xi] (c x T)      U = G W G^T, V = B^T X B
 *   backward data    M[xi] (c x T) = U'[xi] (c x k) V'[xi] (k x T)    U' of W rotated by 180
 *                                                                     degrees, V' = B^T dY B
 *   backward filter  dU[xi] (k x c) = Z[xi] (k x T) V[xi]^T          Z = A dY A^T, dW = G^T dU G
 * where T counts tiles (images x tiles an image, tile-major inside an image). Outputs come back
 * with M's inverse transform A^T M A.
 *
 * Feature maps are laid out as in train.h, x[c][size][size][n_all] (the images of a point side
 * by side), of which the functions here read or write the images i0 .. i0 + n - 1. Transformed
 * arrays are [25][rows][T] with T = n * nn_wino_tiles(size) contiguous, tiles numbered tile-major
 * (t = tile * n + image). */
#ifndef SHIDO_NN_TRAIN_WINOGRAD_H
#define SHIDO_NN_TRAIN_WINOGRAD_H

#include <stdbool.h>

#define NN_WINO_POINTS 25 /* 5 x 5 transform domain */

/* The trainer's vector loops are compiled for AVX-512 and AVX2 too and picked at load time
 * (target_clones; not under the sanitizers, whose runtime is not up when ifunc resolvers run).
 * NN_TRAIN_INLINE: helpers inlined into such a function, so compiled for its target. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && \
    !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
#define NN_TRAIN_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#define NN_TRAIN_INLINE __attribute__((always_inline))
#else
#define NN_TRAIN_CLONES
#define NN_TRAIN_INLINE
#endif

/* Tiles an image of size x size holds: ceil(size / 3)^2. */
int nn_wino_tiles(int size);

/* U[25][k][c] = G W[k][c] G^T of weights W[k][c][3][3]; rotated (backward data):
 * U[25][c][k] = G rot180(W[k][c]) G^T. */
void nn_wino_weights(const float *w, int k, int c, bool rotated, float *U);

/* The same for part `part` of `parts` of U's rows (filters o, or i rotated), the rest untouched:
 * threads share the work. */
void nn_wino_weights_part(const float *w, int k, int c, bool rotated, int part, int parts,
                          float *U);

/* Floats of scratch the tile transforms of n images need (their planes, padded). */
int nn_wino_scratch(int size, int n);

/* V[25][c][T] = B^T d B of every 5x5 input block (zero off the board) of channels c of x. */
void nn_wino_input(const float *x, int c, int n_all, int i0, int n, int size, float *scratch,
                   float *V);

/* y[rows][..][n_all] (images i0..) = A^T M A of M[25][rows][T], plus bias[r] (bias NULL: none),
 * through a ReLU when relu. */
void nn_wino_output(const float *M, int rows, int n_all, int i0, int n, int size,
                    const float *bias, bool relu, float *scratch, float *y);

/* Z[25][k][T] = A dY A^T of every 3x3 output block of dy[k][..][n_all] (images i0..; zero off the
 * board). */
void nn_wino_grad_output(const float *dy, int k, int n_all, int i0, int n, int size,
                         float *scratch, float *Z);

/* dw[k][c][3][3] = G^T dU[xi][k][c] G. */
void nn_wino_weight_grad(const float *dU, int k, int c, float *dw);

#endif
