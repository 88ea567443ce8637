/* nn/train/gemm.c -- the trainer's SGEMM (see gemm.h): an MR x NR AVX-512 kernel of 16
 * accumulators over K blocks, reading A in place (broadcasts from MR rows, either layout) and B
 * rows in place; only a transposed B is packed, into panels of NR columns. The trainer keeps its
 * operands cache-sized (im2col a few images at a time), so packing would only copy them. */
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

/* C[rows][cols] (first: = beta C +, else +=) sum over k < kc of a(r, k) b(k, c), where a(r, k) =
 * a[r * ars + k * aks] (A read in place, either layout) and b(k, c) = b[k * bks + c] (rows of B,
 * or a packed panel). Rows past `rows` read row 0 again and are dropped; columns past `cols` are
 * masked off. */
__attribute__((target("avx512f"))) static void kernel(int kc, const float *a, size_t ars,
                                                      size_t aks, const float *b, size_t bks,
                                                      float *C, int ldc, int rows, int cols,
                                                      bool first, float beta)
{
    const float *a0 = a, *a1 = a + (rows > 1 ? ars : 0), *a2 = a + (rows > 2 ? 2 * ars : 0),
                *a3 = a + (rows > 3 ? 3 * ars : 0), *a4 = a + (rows > 4 ? 4 * ars : 0),
                *a5 = a + (rows > 5 ? 5 * ars : 0), *a6 = a + (rows > 6 ? 6 * ars : 0),
                *a7 = a + (rows > 7 ? 7 * ars : 0);
    __mmask16 m0 = cols >= 16 ? 0xffff : (__mmask16)((1u << cols) - 1);
    __mmask16 m1 = cols >= 32 ? 0xffff : cols > 16 ? (__mmask16)((1u << (cols - 16)) - 1) : 0;
    __mmask16 m2 = cols >= 48 ? 0xffff : cols > 32 ? (__mmask16)((1u << (cols - 32)) - 1) : 0;
    /* 24 named accumulators: an array indexed in a loop ends up on the stack */
    __m512 c00 = _mm512_setzero_ps(), c01 = c00, c02 = c00, c10 = c00, c11 = c00, c12 = c00,
           c20 = c00, c21 = c00, c22 = c00, c30 = c00, c31 = c00, c32 = c00, c40 = c00,
           c41 = c00, c42 = c00, c50 = c00, c51 = c00, c52 = c00, c60 = c00, c61 = c00,
           c62 = c00, c70 = c00, c71 = c00, c72 = c00;
    for (int k = 0; k < kc; k++) {
        const float *bk = b + (size_t)k * bks;
        __m512 b0 = _mm512_maskz_loadu_ps(m0, bk), b1 = _mm512_maskz_loadu_ps(m1, bk + 16),
               b2 = _mm512_maskz_loadu_ps(m2, bk + 32);
        size_t ak = (size_t)k * aks;
#define ROW(r)                                                                                     \
    do {                                                                                           \
        __m512 av = _mm512_set1_ps(a##r[ak]);                                                      \
        c##r##0 = _mm512_fmadd_ps(av, b0, c##r##0);                                                \
        c##r##1 = _mm512_fmadd_ps(av, b1, c##r##1);                                                \
        c##r##2 = _mm512_fmadd_ps(av, b2, c##r##2);                                                \
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
    __mmask16 m[3] = {m0, m1, m2};
    float keep = first ? beta : 1.0f;
    for (int r = 0; r < rows; r++) {
        float *d = C + (size_t)r * ldc;
        for (int h = 0; h < 3; h++) {
            if (!m[h])
                continue;
            if (keep != 0.0f)
                c[r][h] = _mm512_fmadd_ps(_mm512_set1_ps(keep),
                                          _mm512_maskz_loadu_ps(m[h], d + 16 * h), c[r][h]);
            _mm512_mask_storeu_ps(d + 16 * h, m[h], c[r][h]);
        }
    }
}

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
                    for (int ir = 0; ir < mc; ir += MR)
                        kernel(kc, A + (ic + ir) * ars + pc * aks, ars, aks, b, bks,
                               C + (size_t)(ic + ir) * ldc + jc + jr, ldc,
                               mc - ir < MR ? mc - ir : MR, nc - jr < NR ? nc - jr : NR, pc == 0,
                               beta);
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
    if (!force_blas && w && K > 0 && __builtin_cpu_supports("avx512f")) {
        own_sgemm(w, ta, tb, M, N, K, A, lda, B, ldb, beta, C, ldc);
        return;
    }
#endif
    cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, M,
                N, K, 1.0f, A, lda, B, ldb, beta, C, ldc);
}
