/* nn/train/winograd.c -- F(3x3, 3x3) for the trainer (see winograd.h). The tile transforms work
 * on LANES tiles at once, one array row per point of a tile, so that the compiler vectorises them
 * across tiles (the weight transforms across filters).
 *
 * The matrices, for the points 0, 1, -1, 2 and infinity (Toom-Cook; checked against direct
 * convolution by tests/test_train.c):
 *   B^T = [2 -1 -2  1 0]   G = [ 1/2    0    0 ]   A^T = [1 1  1 1 0]
 *         [0 -2 -1  1 0]       [-1/2 -1/2 -1/2 ]         [0 1 -1 2 0]
 *         [0  2 -3  1 0]       [-1/6  1/6 -1/6 ]         [0 1  1 4 1]
 *         [0 -1  0  1 0]       [ 1/6  1/3  2/3 ]
 *         [0  2 -1 -2 1]       [  0    0    1  ] */
#include "nn/train/winograd.h"

#include <stddef.h>
#include <string.h>

#define LANES 16

int nn_wino_tiles(int size)
{
    int t = (size + 2) / 3;
    return t * t;
}

/* n (<= LANES) floats: vector moves for a whole block and for the images of a point in chunks of
 * 8 or 4 (a loop of n turns into a memcpy call, which costs more than the copy). */
static inline NN_TRAIN_INLINE void copy_lanes(float *dst, const float *src, int n)
{
    if (n == LANES)
        for (int l = 0; l < LANES; l++)
            dst[l] = src[l];
    else if (n == 8)
        for (int l = 0; l < 8; l++)
            dst[l] = src[l];
    else if (n == 4)
        for (int l = 0; l < 4; l++)
            dst[l] = src[l];
    else
        for (int l = 0; l < n; l++)
            dst[l] = src[l];
}

/* ---- weights --------------------------------------------------------------------------------- */

/* Three points of in (rows `is` apart, LANES filters each) through G: five. */
static inline NN_TRAIN_INLINE void g_lanes(const float *in, size_t is, float *out, size_t os)
{
    for (int l = 0; l < LANES; l++) {
        float g0 = in[l], g1 = in[is + l], g2 = in[2 * is + l];
        out[l] = 0.5f * g0;
        out[os + l] = -0.5f * (g0 + g1 + g2);
        out[2 * os + l] = (g1 - g0 - g2) * (1.0f / 6.0f);
        out[3 * os + l] = (g0 + 2.0f * g1 + 4.0f * g2) * (1.0f / 6.0f);
        out[4 * os + l] = g2;
    }
}

/* Five points through G^T: three. */
static inline NN_TRAIN_INLINE void gt_lanes(const float *in, size_t is, float *out, size_t os)
{
    for (int l = 0; l < LANES; l++) {
        float e0 = in[l], e1 = in[is + l], e2 = in[2 * is + l], e3 = in[3 * is + l],
              e4 = in[4 * is + l];
        out[l] = 0.5f * (e0 - e1) + (e3 - e2) * (1.0f / 6.0f);
        out[os + l] = -0.5f * e1 + e2 * (1.0f / 6.0f) + e3 * (1.0f / 3.0f);
        out[2 * os + l] = -0.5f * e1 - e2 * (1.0f / 6.0f) + e3 * (2.0f / 3.0f) + e4;
    }
}

NN_TRAIN_CLONES void nn_wino_weights_part(const float *w, int k, int c, bool rotated, int part,
                                           int parts, float *U)
{
    /* lanes run along U's rows: filters (o, i) for consecutive i (forward) or o (rotated) */
    size_t kc = (size_t)k * c;
    int outer = rotated ? c : k, inner = rotated ? k : c;
    int a0 = (int)((long)outer * part / parts), a1 = (int)((long)outer * (part + 1) / parts);
    float g[9 * LANES], t[15 * LANES], u[25 * LANES];
    for (int a = a0; a < a1; a++)
        for (int b0 = 0; b0 < inner; b0 += LANES) {
            int cnt = inner - b0 < LANES ? inner - b0 : LANES;
            /* filter l of the block at base + l * ls: nine taps, reversed when rotated */
            size_t ls = rotated ? (size_t)c * 9 : 9;
            const float *base = w + (rotated ? (size_t)b0 * c + a : (size_t)a * c + b0) * 9;
            if (cnt < LANES)
                memset(g, 0, sizeof g);
            for (int j = 0; j < 9; j++) {
                const float *src = base + (rotated ? 8 - j : j);
                if (cnt == LANES)
                    for (int l = 0; l < LANES; l++)
                        g[j * LANES + l] = src[l * ls];
                else
                    for (int l = 0; l < cnt; l++)
                        g[j * LANES + l] = src[l * ls];
            }
            for (int b = 0; b < 3; b++) /* columns: t (5 x 3) = G g */
                g_lanes(g + b * LANES, 3 * LANES, t + b * LANES, 3 * LANES);
            /* rows: u (5 x 5) = t G^T, straight into U when the block is whole */
            size_t at = (size_t)a * inner + b0;
            float *uo = cnt == LANES ? U + at : u;
            size_t us = cnt == LANES ? kc : LANES;
            for (int p = 0; p < 5; p++)
                g_lanes(t + p * 3 * LANES, LANES, uo + p * 5 * us, us);
            if (cnt < LANES)
                for (int xi = 0; xi < 25; xi++)
                    copy_lanes(U + (size_t)xi * kc + at, u + xi * LANES, cnt);
        }
}

void nn_wino_weights(const float *w, int k, int c, bool rotated, float *U)
{
    nn_wino_weights_part(w, k, c, rotated, 0, 1, U);
}

NN_TRAIN_CLONES void nn_wino_weight_grad(const float *dU, int k, int c, float *dw)
{
    /* lanes run along dU's rows, filters (o, i) in order */
    size_t kc = (size_t)k * c;
    float e[25 * LANES], t[15 * LANES], g[9 * LANES];
    for (size_t f0 = 0; f0 < kc; f0 += LANES) {
        int cnt = kc - f0 < LANES ? (int)(kc - f0) : LANES;
        /* columns: t (3 x 5) = G^T e, straight from dU when the block is whole */
        const float *ei = cnt == LANES ? dU + f0 : e;
        size_t es = cnt == LANES ? kc : LANES;
        if (cnt < LANES) {
            memset(e, 0, sizeof e);
            for (int xi = 0; xi < 25; xi++)
                copy_lanes(e + xi * LANES, dU + (size_t)xi * kc + f0, cnt);
        }
        for (int q = 0; q < 5; q++)
            gt_lanes(ei + q * es, 5 * es, t + q * LANES, 5 * LANES);
        for (int a = 0; a < 3; a++) /* rows: g (3 x 3) = t G */
            gt_lanes(t + a * 5 * LANES, LANES, g + a * 3 * LANES, LANES);
        for (int l = 0; l < cnt; l++) {
            float *dst = dw + (f0 + l) * 9;
            for (int j = 0; j < 9; j++)
                dst[j] = g[j * LANES + l];
        }
    }
}

/* ---- tiles ----------------------------------------------------------------------------------- */

/* The five points of in (rows `is` apart, LANES tiles each) through B^T into out (rows os
 * apart). */
static inline NN_TRAIN_INLINE void bt_lanes(const float *in, size_t is, float *out, size_t os)
{
    for (int l = 0; l < LANES; l++) {
        float d0 = in[l], d1 = in[is + l], d2 = in[2 * is + l], d3 = in[3 * is + l],
              d4 = in[4 * is + l];
        out[l] = 2.0f * (d0 - d2) - d1 + d3;
        out[os + l] = d3 - 2.0f * d1 - d2;
        out[2 * os + l] = 2.0f * d1 - 3.0f * d2 + d3;
        out[3 * os + l] = d3 - d1;
        out[4 * os + l] = 2.0f * (d1 - d3) - d2 + d4;
    }
}

/* Five points through A^T: three. */
static inline NN_TRAIN_INLINE void at_lanes(const float *in, size_t is, float *out, size_t os)
{
    for (int l = 0; l < LANES; l++) {
        float m0 = in[l], m1 = in[is + l], m2 = in[2 * is + l], m3 = in[3 * is + l],
              m4 = in[4 * is + l];
        out[l] = m0 + m1 + m2 + m3;
        out[os + l] = m1 - m2 + 2.0f * m3;
        out[2 * os + l] = m1 + m2 + 4.0f * m3 + m4;
    }
}

/* Three points through A: five. */
static inline NN_TRAIN_INLINE void a_lanes(const float *in, size_t is, float *out, size_t os)
{
    for (int l = 0; l < LANES; l++) {
        float y0 = in[l], y1 = in[is + l], y2 = in[2 * is + l];
        out[l] = y0;
        out[os + l] = y0 + y1 + y2;
        out[2 * os + l] = y0 - y1 + y2;
        out[3 * os + l] = y0 + 2.0f * y1 + 4.0f * y2;
        out[4 * os + l] = y2;
    }
}

/* Tiles are numbered tile-major across the images of a chunk (t = tile * n + image), and the
 * transforms read and write the chunk's planes through a scratch copy that is point-major (the n
 * images of a point side by side) and padded, so that a block of LANES tiles usually reads LANES
 * consecutive floats. at[l]: where tile t0 + l's top-left point lies in that copy. Returns
 * whether the block's lanes are consecutive floats. */
static bool locate(int t0, int cnt, int n, int size, int side, int *at)
{
    int tw = (size + 2) / 3;
    for (int l = 0; l < LANES; l++) {
        int t = t0 + (l < cnt ? l : 0), tile = t / n;
        at[l] = ((tile / tw * 3) * side + tile % tw * 3) * n + t % n;
    }
    return cnt == LANES && at[LANES - 1] - at[0] == LANES - 1;
}

/* Images i0 .. i0 + n - 1 of a channel's block x (size^2 points of n_all images) into the
 * chunk's copy (side^2 points of n floats, zero outside), at row and column `off` (1 for inputs
 * and their halo, 0 for outputs). */
static inline NN_TRAIN_INLINE void to_points(const float *x, int n_all, int i0, int n, int size,
                                         int side, int off, float *pad)
{
    memset(pad, 0, (size_t)n * side * side * sizeof *pad);
    for (int y = 0; y < size; y++)
        for (int xx = 0; xx < size; xx++) {
            const float *src = x + ((size_t)y * size + xx) * n_all + i0;
            float *dst = pad + ((size_t)(y + off) * side + xx + off) * n;
            if (n == LANES)
                copy_lanes(dst, src, LANES);
            else
                memcpy(dst, src, (size_t)n * sizeof *dst);
        }
}

int nn_wino_scratch(int size, int n)
{
    int side = 3 * ((size + 2) / 3) + 2;
    return n * side * side;
}

/* Points p (of a pside x pside block, `side` the copy's row length) of LANES tiles into d. */
static inline NN_TRAIN_INLINE void load_block(const float *pad, const int *at, bool dense, int n,
                                          int side, int pside, float *d)
{
    for (int p = 0; p < pside * pside; p++) {
        const float *src = pad + (size_t)(p / pside * side + p % pside) * n;
        if (dense)
            for (int l = 0; l < LANES; l++)
                d[p * LANES + l] = src[at[0] + l];
        else
            for (int l = 0; l < LANES; l++)
                d[p * LANES + l] = src[at[l]];
    }
}

/* Chunks of n images, n dividing LANES, read and write their points straight from the feature
 * map: a block of LANES tiles is LANES / n tile positions of n images each (tile-major). */
static bool direct(int n) { return LANES % n == 0; }

/* The side x side points from the top-left (y0, x0) of each tile of the block t0 (cnt tiles) of a
 * chunk of n images from i0, of a channel's block x (zero off the board), into d. */
static inline NN_TRAIN_INLINE void load_points(const float *x, int n_all, int i0, int n, int size,
                                               int t0, int cnt, int off, int side, float *d)
{
    int tw = (size + 2) / 3;
    if (cnt < LANES)
        memset(d, 0, (size_t)side * side * LANES * sizeof *d);
    for (int g = 0; g * n < cnt; g++) {
        int tile = t0 / n + g, y0 = tile / tw * 3 - off, x0 = tile % tw * 3 - off;
        for (int p = 0; p < side * side; p++) {
            int y = y0 + p / side, xx = x0 + p % side;
            float *dst = d + p * LANES + g * n;
            if (y < 0 || y >= size || xx < 0 || xx >= size)
                for (int l = 0; l < n; l++)
                    dst[l] = 0.0f;
            else
                copy_lanes(dst, x + ((size_t)y * size + xx) * n_all + i0, n);
        }
    }
}

/* The pside x pside points of each tile of the block t0 (cnt tiles) of a channel into d: from
 * the feature map x (chunks that divide LANES) or from its padded copy scratch (side^2 points, the
 * tiles' top-left `off` points in). */
static inline NN_TRAIN_INLINE void tile_points(const float *x, const float *scratch, int n_all,
                                               int i0, int n, int size, int t0, int cnt, int off,
                                               int side, int pside, float *d)
{
    if (direct(n)) {
        load_points(x, n_all, i0, n, size, t0, cnt, off, pside, d);
        return;
    }
    int at[LANES];
    bool dense = locate(t0, cnt, n, size, side, at);
    load_block(scratch, at, dense, n, side, pside, d);
}

/* The points of every tile of channels 0..rows-1 of x into the transform domain, out[25][rows][T]:
 * 5x5 blocks (a halo of 1) through B^T on both sides, or (grad) 3x3 blocks through A. */
static inline NN_TRAIN_INLINE void to_domain(const float *x, int rows, int n_all, int i0, int n,
                                             int size, bool grad, float *scratch, float *out)
{
    int T = n * nn_wino_tiles(size), off = grad ? 0 : 1, pside = grad ? 3 : 5;
    int side = 3 * ((size + 2) / 3) + 2 * off;
    size_t area = (size_t)size * size;
    float d[25 * LANES], t[25 * LANES], v[25 * LANES];
    for (int r = 0; r < rows; r++) {
        const float *xr = x + (size_t)r * area * n_all;
        if (!direct(n))
            to_points(xr, n_all, i0, n, size, side, off, scratch);
        for (int t0 = 0; t0 < T; t0 += LANES) {
            int cnt = T - t0 < LANES ? T - t0 : LANES;
            tile_points(xr, scratch, n_all, i0, n, size, t0, cnt, off, side, pside, d);
            /* rows of the result straight into out when the block is whole */
            float *vo = cnt == LANES ? out + (size_t)r * T + t0 : v;
            size_t vs = cnt == LANES ? (size_t)rows * T : LANES;
            for (int b = 0; b < pside; b++) { /* columns: t (5 x pside) = B^T d or A d */
                if (grad)
                    a_lanes(d + b * LANES, 3 * LANES, t + b * LANES, 3 * LANES);
                else
                    bt_lanes(d + b * LANES, 5 * LANES, t + b * LANES, 5 * LANES);
            }
            for (int p = 0; p < 5; p++) { /* rows: t B or t A^T */
                if (grad)
                    a_lanes(t + p * 3 * LANES, LANES, vo + p * 5 * vs, vs);
                else
                    bt_lanes(t + p * 5 * LANES, LANES, vo + p * 5 * vs, vs);
            }
            if (cnt < LANES)
                for (int xi = 0; xi < 25; xi++)
                    copy_lanes(out + ((size_t)xi * rows + r) * T + t0, v + xi * LANES, cnt);
        }
    }
}

NN_TRAIN_CLONES void nn_wino_input(const float *x, int c, int n_all, int i0, int n, int size,
                                   float *scratch, float *V)
{
    to_domain(x, c, n_all, i0, n, size, false, scratch, V);
}

NN_TRAIN_CLONES void nn_wino_grad_output(const float *dy, int k, int n_all, int i0, int n,
                                         int size, float *scratch, float *Z)
{
    to_domain(dy, k, n_all, i0, n, size, true, scratch, Z);
}

/* dst = src + b for n floats (a LANES-wide vector when n is LANES), through a ReLU when relu. */
static inline NN_TRAIN_INLINE void store_lanes(float *dst, const float *src, int n, float b,
                                               bool relu)
{
    if (n == LANES && relu)
        for (int l = 0; l < LANES; l++)
            dst[l] = src[l] + b > 0.0f ? src[l] + b : 0.0f;
    else if (n == LANES)
        for (int l = 0; l < LANES; l++)
            dst[l] = src[l] + b;
    else
        for (int l = 0; l < n; l++)
            dst[l] = !relu || src[l] + b > 0.0f ? src[l] + b : 0.0f;
}

NN_TRAIN_CLONES void nn_wino_output(const float *M, int rows, int n_all, int i0, int n, int size,
                                    const float *bias, bool relu, float *scratch, float *y)
{
    int T = n * nn_wino_tiles(size), side = 3 * ((size + 2) / 3), tw = (size + 2) / 3;
    size_t area = (size_t)size * size;
    int at[LANES];
    float m[25 * LANES], t[15 * LANES], o[9 * LANES];
    for (int r = 0; r < rows; r++) {
        float b = bias ? bias[r] : 0.0f;
        float *yr = y + (size_t)r * area * n_all + i0;
        for (int t0 = 0; t0 < T; t0 += LANES) {
            int cnt = T - t0 < LANES ? T - t0 : LANES;
            bool dense = locate(t0, cnt, n, size, side, at);
            /* columns: t (3 x 5) = A^T m, straight from M when the block is whole */
            const float *mi = cnt == LANES ? M + (size_t)r * T + t0 : m;
            size_t ms = cnt == LANES ? (size_t)rows * T : LANES;
            if (cnt < LANES)
                for (int xi = 0; xi < 25; xi++)
                    copy_lanes(m + xi * LANES, M + ((size_t)xi * rows + r) * T + t0, cnt);
            for (int q = 0; q < 5; q++)
                at_lanes(mi + q * ms, 5 * ms, t + q * LANES, 5 * LANES);
            for (int p = 0; p < 3; p++) /* rows: o (3 x 3) = t A */
                at_lanes(t + p * 5 * LANES, LANES, o + p * 3 * LANES, LANES);
            if (direct(n)) { /* straight into y, n images of a tile at a time */
                for (int g = 0; g * n < cnt; g++) {
                    int tile = t0 / n + g;
                    for (int p = 0; p < 9; p++) {
                        int yy = tile / tw * 3 + p / 3, xx = tile % tw * 3 + p % 3;
                        if (yy < size && xx < size)
                            store_lanes(yr + ((size_t)yy * size + xx) * n_all,
                                        o + p * LANES + g * n, n, b, relu);
                    }
                }
                continue;
            }
            for (int p = 0; p < 9; p++) {
                float *dst = scratch + (size_t)(p / 3 * side + p % 3) * n;
                if (dense)
                    for (int l = 0; l < LANES; l++)
                        dst[at[0] + l] = o[p * LANES + l];
                else
                    for (int l = 0; l < cnt; l++)
                        dst[at[l]] = o[p * LANES + l];
            }
        }
        if (direct(n))
            continue;
        for (int yy = 0; yy < size; yy++)
            for (int xx = 0; xx < size; xx++) {
                store_lanes(yr + ((size_t)yy * size + xx) * n_all,
                            scratch + ((size_t)yy * side + xx) * n, n, b, relu);
            }
    }
}
