/* nn/train/gemm.c -- the trainer's SGEMM (see gemm.h): an MR x NR AVX-512 kernel (up to 24
 * accumulators, as few vectors as a panel's columns need) over K blocks, reading A in place
 * (broadcasts from MR rows, either layout) and B rows in place; only a transposed B is packed,
 * into panels of NR columns. The trainer keeps its operands cache-sized (im2col a few images at
 * a time), so packing would only copy them. */
#include "nn/train/gemm.h"

#include <cblas.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define GEMM_AVX512 1
#endif

#define MR 8
#define NR 48
#define KC 128
#define MC 128
#define NC (42 * NR) /* whole panels */

struct nn_train_gemm_ws {
    float *b;                   /* a transposed B block: [KC][NC] as NC / NR panels */
};

static bool force_blas;

void nn_train_gemm_force_blas(bool force) { force_blas = force; }

nn_train_gemm_ws *nn_train_gemm_ws_new(void)
{
    nn_train_gemm_ws *w = calloc(1, sizeof *w);
    if (!w)
        return NULL;
    w->b = aligned_alloc(64, sizeof(float) * KC * NC);
    if (!w->b) {
        nn_train_gemm_ws_free(w);
        return NULL;
    }
    return w;
}

void nn_train_gemm_ws_free(nn_train_gemm_ws *w)
{
    if (!w)
        return;
    free(w->b);
    free(w);
}

#ifdef GEMM_AVX512
/* Rows k0.. (kc) and columns j0.. (nc) of B^T's storage B[N][K] into NR-column panels, k-major
 * inside, zero-padded: the one operand the kernel cannot read in place. */
static void pack_bt(const float *B, int ldb, int k0, int kc, int j0, int nc, float *out)
{
    for (int q = 0; q < nc; q += NR) {
        int cols = nc - q < NR ? nc - q : NR;
        float *o = out + (size_t)q * kc;
        for (int c = 0; c < NR; c++) {
            if (c >= cols) {
                for (int k = 0; k < kc; k++)
                    o[k * NR + c] = 0.0f;
                continue;
            }
            const float *src = B + (size_t)(j0 + q + c) * ldb + k0;
            for (int k = 0; k < kc; k++)
                o[k * NR + c] = src[k];
        }
    }
}

/* How many columns a call of the kernel computes: 16 per 512-bit vector, the last one narrowed
 * to 8 (a 256-bit vector) where that covers the panel. CPUs that run a 512-bit operation as two
 * 256-bit halves (AMD Zen 4) spend half as long on it: a batch of 4 images is 36 tiles, 40
 * columns' work instead of 48. */
enum { COLS16 = 1, COLS32 = 2, COLS40 = 3, COLS48 = 4 };

/* C[rows][cols] (first: = beta C +, else +=) sum over k < kc of a(r, k) b(k, c), where a(r, k) =
 * a[r * ars + k * aks] (A read in place, either layout) and b(k, c) = b[k * bks + c] (rows of B,
 * or a packed panel). Rows past `rows` read row 0 again and are dropped; columns past `cols` are
 * masked off, and those past the width's 16 to 48 not computed at all. */
static inline __attribute__((always_inline, target("avx512f,avx512vl,fma"))) void
kernel_of(int kc, const float *a, size_t ars, size_t aks, const float *b, size_t bks, float *C,
          int ldc, int rows, int cols, bool first, float beta, const int width)
{
    const int nv = width == COLS48 ? 3 : width == COLS16 ? 1 : 2; /* whole 512-bit vectors */
    const bool half = width == COLS40;
    const float *a0 = a, *a1 = a + (rows > 1 ? ars : 0), *a2 = a + (rows > 2 ? 2 * ars : 0),
                *a3 = a + (rows > 3 ? 3 * ars : 0), *a4 = a + (rows > 4 ? 4 * ars : 0),
                *a5 = a + (rows > 5 ? 5 * ars : 0), *a6 = a + (rows > 6 ? 6 * ars : 0),
                *a7 = a + (rows > 7 ? 7 * ars : 0);
    __mmask16 m0 = cols >= 16 ? 0xffff : (__mmask16)((1u << cols) - 1);
    __mmask16 m1 = cols >= 32 ? 0xffff : cols > 16 ? (__mmask16)((1u << (cols - 16)) - 1) : 0;
    __mmask16 m2 = cols >= 48 ? 0xffff : cols > 32 ? (__mmask16)((1u << (cols - 32)) - 1) : 0;
    __mmask8 mh = cols >= 40 ? 0xff : cols > 32 ? (__mmask8)((1u << (cols - 32)) - 1) : 0;
    /* named accumulators: an array indexed in a loop ends up on the stack */
    __m512 c00 = _mm512_setzero_ps(), c01 = c00, c02 = c00, c10 = c00, c11 = c00, c12 = c00,
           c20 = c00, c21 = c00, c22 = c00, c30 = c00, c31 = c00, c32 = c00, c40 = c00,
           c41 = c00, c42 = c00, c50 = c00, c51 = c00, c52 = c00, c60 = c00, c61 = c00,
           c62 = c00, c70 = c00, c71 = c00, c72 = c00;
    __m256 h0 = _mm256_setzero_ps(), h1 = h0, h2 = h0, h3 = h0, h4 = h0, h5 = h0, h6 = h0,
           h7 = h0;
    for (int k = 0; k < kc; k++) {
        const float *bk = b + (size_t)k * bks;
        __m512 b0 = _mm512_maskz_loadu_ps(m0, bk);
        __m512 b1 = nv > 1 ? _mm512_maskz_loadu_ps(m1, bk + 16) : b0;
        __m512 b2 = nv > 2 ? _mm512_maskz_loadu_ps(m2, bk + 32) : b0;
        __m256 bh = half ? _mm256_maskz_loadu_ps(mh, bk + 32) : _mm256_setzero_ps();
        size_t ak = (size_t)k * aks;
#define ROW(r)                                                                                     \
    do {                                                                                           \
        __m512 av = _mm512_set1_ps(a##r[ak]);                                                      \
        c##r##0 = _mm512_fmadd_ps(av, b0, c##r##0);                                                \
        if (nv > 1)                                                                                \
            c##r##1 = _mm512_fmadd_ps(av, b1, c##r##1);                                            \
        if (nv > 2)                                                                                \
            c##r##2 = _mm512_fmadd_ps(av, b2, c##r##2);                                            \
        if (half)                                                                                  \
            h##r = _mm256_fmadd_ps(_mm512_castps512_ps256(av), bh, h##r);                          \
    } while (0)
        ROW(0);
        ROW(1);
        ROW(2);
        ROW(3);
        ROW(4);
        ROW(5);
        ROW(6);
        ROW(7);
#undef ROW
    }
    __m512 c[MR][3] = {{c00, c01, c02}, {c10, c11, c12}, {c20, c21, c22}, {c30, c31, c32},
                       {c40, c41, c42}, {c50, c51, c52}, {c60, c61, c62}, {c70, c71, c72}};
    __m256 h[MR] = {h0, h1, h2, h3, h4, h5, h6, h7};
    __mmask16 m[3] = {m0, m1, m2};
    float keep = first ? beta : 1.0f;
    for (int r = 0; r < rows; r++) {
        float *d = C + (size_t)r * ldc;
        for (int v = 0; v < nv; v++) {
            if (!m[v])
                continue;
            if (keep != 0.0f)
                c[r][v] = _mm512_fmadd_ps(_mm512_set1_ps(keep),
                                          _mm512_maskz_loadu_ps(m[v], d + 16 * v), c[r][v]);
            _mm512_mask_storeu_ps(d + 16 * v, m[v], c[r][v]);
        }
        if (half) {
            if (keep != 0.0f)
                h[r] = _mm256_fmadd_ps(_mm256_set1_ps(keep), _mm256_maskz_loadu_ps(mh, d + 32),
                                       h[r]);
            _mm256_mask_storeu_ps(d + 32, mh, h[r]);
        }
    }
}

/* One instance of kernel_of a width, picked per panel by its columns. */
#define KERNEL(name, width)                                                                        \
    __attribute__((target("avx512f,avx512vl,fma"))) static void name(                              \
        int kc, const float *a, size_t ars, size_t aks, const float *b, size_t bks, float *C,      \
        int ldc, int rows, int cols, bool first, float beta)                                       \
    {                                                                                              \
        kernel_of(kc, a, ars, aks, b, bks, C, ldc, rows, cols, first, beta, width);                \
    }
KERNEL(kernel16, COLS16)
KERNEL(kernel32, COLS32)
KERNEL(kernel40, COLS40)
KERNEL(kernel48, COLS48)
#undef KERNEL

typedef void kernel_fn(int, const float *, size_t, size_t, const float *, size_t, float *, int,
                       int, int, bool, float);

static void own_sgemm(nn_train_gemm_ws *w, bool ta, bool tb, int M, int N, int K, const float *A,
                      int lda, const float *B, int ldb, float beta, float *C, int ldc)
{
    /* a(i, k): A[i][k] or, transposed, A[k][i] */
    size_t ars = ta ? 1 : (size_t)lda, aks = ta ? (size_t)lda : 1;
    for (int jc = 0; jc < N; jc += NC) {
        int nc = N - jc < NC ? N - jc : NC;
        for (int pc = 0; pc < K; pc += KC) {
            int kc = K - pc < KC ? K - pc : KC;
            if (tb)
                pack_bt(B, ldb, pc, kc, jc, nc, w->b);
            for (int ic = 0; ic < M; ic += MC) {
                int mc = M - ic < MC ? M - ic : MC;
                for (int jr = 0; jr < nc; jr += NR) {
                    const float *b = tb ? w->b + (size_t)jr * kc
                                        : B + (size_t)pc * ldb + jc + jr;
                    size_t bks = tb ? NR : (size_t)ldb;
                    int cols = nc - jr < NR ? nc - jr : NR;
                    kernel_fn *kern = cols > 40   ? kernel48
                                      : cols > 32 ? kernel40
                                      : cols > 16 ? kernel32
                                                  : kernel16;
                    for (int ir = 0; ir < mc; ir += MR)
                        kern(kc, A + (ic + ir) * ars + pc * aks, ars, aks, b, bks,
                             C + (size_t)(ic + ir) * ldc + jc + jr, ldc,
                             mc - ir < MR ? mc - ir : MR, cols, pc == 0, beta);
                }
            }
        }
    }
}
#endif

void nn_train_sgemm(nn_train_gemm_ws *w, bool ta, bool tb, int M, int N, int K, const float *A,
                    int lda, const float *B, int ldb, float beta, float *C, int ldc)
{
    if (M <= 0 || N <= 0)
        return;
#ifdef GEMM_AVX512
    if (!force_blas && w && K > 0 && __builtin_cpu_supports("avx512f") &&
        __builtin_cpu_supports("avx512vl")) {
        own_sgemm(w, ta, tb, M, N, K, A, lda, B, ldb, beta, C, ldc);
        return;
    }
#endif
    cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, M,
                N, K, 1.0f, A, lda, B, ldb, beta, C, ldc);
}
