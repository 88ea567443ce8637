/* tests/test_train.c -- the in-tree trainer (nn/train) and the discriminator's net: every
 * layer's gradient against finite differences of a double-precision forward, determinism and
 * thread counts, learning a separable toy set, the checkpoint format (round trip, corruption),
 * the inference path (nn_eval on ref and cpu) and the input planes. */
#include "tests/common.h"

#include "nn/disc_inputs.h"
#include "nn/train/gemm.h"
#include "nn/train/train.h"
#include "weights/desc_disc.h"
#include "weights/disc.h"
#include "weights/weights.h"

/* ---- a double-precision forward for finite differences -------------------------------------- */

/* The mean BCE loss of d on n positions with the weights in p (double, file order), computed in
 * double throughout. */
static double loss_double(const nn_disc_desc *d, const double *p, int n, const float *x,
                          const float *y)
{
    int size = d->size, area = size * size;
    double total = 0;
    size_t widest = (size_t)d->planes * area;
    for (int l = 0; l < d->num_layers; l++)
        if ((size_t)nn_disc_layer_outputs(d, l) > widest)
            widest = (size_t)nn_disc_layer_outputs(d, l);
    double *a = malloc(widest * sizeof *a), *b = malloc(widest * sizeof *b);
    for (int s = 0; s < n; s++) {
        for (int i = 0; i < d->planes * area; i++)
            a[i] = x[(size_t)s * d->planes * area + i];
        const double *q = p;
        for (int l = 0; l < d->num_layers; l++) {
            const nn_disc_layer *L = &d->layer[l];
            if (L->kind == NN_DISC_CONV) {
                int k = L->conv.ky, ci = L->conv.c_in, co = L->conv.c_out, pad = k / 2;
                const double *w = q, *bias = q + (size_t)co * ci * k * k;
                for (int o = 0; o < co; o++)
                    for (int yy = 0; yy < size; yy++)
                        for (int xx = 0; xx < size; xx++) {
                            double v = bias[o];
                            for (int i = 0; i < ci; i++)
                                for (int ky = 0; ky < k; ky++)
                                    for (int kx = 0; kx < k; kx++) {
                                        int sy = yy + ky - pad, sx = xx + kx - pad;
                                        if (sy >= 0 && sy < size && sx >= 0 && sx < size)
                                            v += w[((o * ci + i) * k + ky) * k + kx] *
                                                 a[(i * size + sy) * size + sx];
                                    }
                            b[(o * size + yy) * size + xx] = v;
                        }
                q += (size_t)co * (ci * k * k + 1);
            } else {
                int ci = L->dense.c_in, co = L->dense.c_out;
                const double *w = q, *bias = q + (size_t)ci * co;
                for (int o = 0; o < co; o++) {
                    double v = bias[o];
                    for (int i = 0; i < ci; i++)
                        v += w[(size_t)i * co + o] * a[i];
                    b[o] = v;
                }
                q += (size_t)co * (ci + 1);
            }
            for (int i = 0; i < nn_disc_layer_outputs(d, l); i++)
                a[i] = L->act == NN_ACT_RELU && b[i] < 0 ? 0 : b[i];
        }
        double z = a[0];
        total += (z > 0 ? z : 0) - z * y[s] + log1p(exp(-fabs(z)));
    }
    free(a);
    free(b);
    return total / n;
}

static void random_inputs(float *x, size_t len, uint64_t *s)
{
    for (size_t i = 0; i < len; i++) {
        *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
        x[i] = (float)((double)(*s >> 11) / 9007199254740992.0 * 2.0 - 1.0);
    }
}

/* A small net that has every kind of layer step: 3x3 and 1x1 convolutions, conv -> dense and
 * dense -> dense. */
static nn_desc *small_net(uint64_t seed)
{
    static const int conv[] = {4, 3}, dense[] = {6};
    nn_desc *d = weights_disc_make(5, 3, conv, 2, dense, 1, seed);
    ck_assert_ptr_nonnull(d);
    /* biases away from zero, so their gradients are tested too */
    float *ptr[2 * NN_DISC_MAX_LAYERS];
    size_t len[2 * NN_DISC_MAX_LAYERS];
    int nt = weights_disc_tensors(d->disc, ptr, len, 2 * NN_DISC_MAX_LAYERS);
    uint64_t s = seed ^ 77;
    for (int t = 1; t < nt; t += 2)
        random_inputs(ptr[t], len[t], &s);
    return d;
}

/* The trainer's SGEMM (our AVX-512 kernel where the CPU has it, else OpenBLAS) against plain
 * loops in double: every transposition, tiles cut at every edge, beta 0 and 1. */
START_TEST(test_gemm)
{
    /* panels of every width the kernel has: 16, 32, 40 (36 is a batch of 4 in tiles), 48 */
    static const int shapes[][3] = {{1, 1, 1},    {7, 33, 5},     {17, 40, 300},
                                    {130, 70, 260}, {9, 2100, 3}, {96, 405, 1152},
                                    {12, 36, 40}, {4, 16, 9},     {11, 41, 17}};
    nn_train_gemm_ws *w = nn_train_gemm_ws_new();
    ck_assert_ptr_nonnull(w);
    uint64_t s = 3;
    for (size_t t = 0; t < sizeof shapes / sizeof *shapes; t++)
        for (int v = 0; v < 8; v++) {
            bool ta = v & 1, tb = v & 2, beta = v & 4;
            int M = shapes[t][0], N = shapes[t][1], K = shapes[t][2];
            int lda = (ta ? M : K) + 3, ldb = (tb ? K : N) + 5, ldc = N + 2;
            float *A = malloc(sizeof(float) * (size_t)lda * (ta ? K : M));
            float *B = malloc(sizeof(float) * (size_t)ldb * (tb ? N : K));
            float *C = malloc(sizeof(float) * (size_t)ldc * M);
            random_inputs(A, (size_t)lda * (ta ? K : M), &s);
            random_inputs(B, (size_t)ldb * (tb ? N : K), &s);
            random_inputs(C, (size_t)ldc * M, &s);
            double *want = malloc(sizeof(double) * (size_t)M * N);
            for (int i = 0; i < M; i++)
                for (int j = 0; j < N; j++) {
                    double sum = beta ? C[(size_t)i * ldc + j] : 0.0;
                    for (int k = 0; k < K; k++)
                        sum += (double)(ta ? A[(size_t)k * lda + i] : A[(size_t)i * lda + k]) *
                               (tb ? B[(size_t)j * ldb + k] : B[(size_t)k * ldb + j]);
                    want[(size_t)i * N + j] = sum;
                }
            float guard = C[(size_t)(M - 1) * ldc + N];
            nn_train_sgemm(w, ta, tb, M, N, K, A, lda, B, ldb, beta ? 1.0f : 0.0f, C, ldc);
            ck_assert_msg(C[(size_t)(M - 1) * ldc + N] == guard, "wrote past the row");
            for (int i = 0; i < M; i++)
                for (int j = 0; j < N; j++) {
                    double got = C[(size_t)i * ldc + j], ref = want[(size_t)i * N + j];
                    ck_assert_msg(fabs(got - ref) <= 1e-4 * (1 + sqrt((double)K)) + 1e-5 * fabs(ref),
                                  "%dx%dx%d ta %d tb %d beta %d: C[%d][%d] %g, want %g", M, N,
                                  K, ta, tb, beta, i, j, got, ref);
                }
            free(A);
            free(B);
            free(C);
            free(want);
        }
    nn_train_gemm_ws_free(w);
}
END_TEST

/* _i 0: 3x3 layers by Winograd (the default), 1: by im2col. */
START_TEST(test_gradient_check)
{
    nn_train_force_im2col(_i == 1);
    nn_desc *D = small_net(3);
    nn_disc_desc *d = D->disc;
    enum { N = 3 };
    size_t in = (size_t)d->planes * d->size * d->size;
    float x[N * 75], y[N] = {1.0f, 0.0f, 1.0f};
    uint64_t s = 11;
    random_inputs(x, N * in, &s);
    nn_trainer *t = nn_trainer_new(d, N, 1);
    ck_assert_ptr_nonnull(t);
    double loss = nn_trainer_gradient(t, N, x, y, NULL);
    const float *g = nn_trainer_grad(t);
    size_t P = nn_trainer_num_params(t);
    double *p = malloc(P * sizeof *p);
    float *ptr[2 * NN_DISC_MAX_LAYERS];
    size_t len[2 * NN_DISC_MAX_LAYERS], k = 0;
    int nt = weights_disc_tensors(d, ptr, len, 2 * NN_DISC_MAX_LAYERS);
    for (int i = 0; i < nt; i++)
        for (size_t j = 0; j < len[i]; j++)
            p[k++] = ptr[i][j];
    ck_assert_uint_eq(k, P);
    ck_assert_msg(fabs(loss - loss_double(d, p, N, x, y)) < 1e-5, "loss %g vs double %g", loss,
                  loss_double(d, p, N, x, y));
    /* every parameter of every tensor: central differences in double */
    k = 0;
    int bad = 0;
    for (int i = 0; i < nt; i++)
        for (size_t j = 0; j < len[i]; j++, k++) {
            const double h = 1e-6;
            double keep = p[k];
            p[k] = keep + h;
            double up = loss_double(d, p, N, x, y);
            p[k] = keep - h;
            double down = loss_double(d, p, N, x, y);
            p[k] = keep;
            double num = (up - down) / (2 * h);
            if (fabs(g[k] - num) > 1e-4 + 1e-3 * fabs(num) && bad++ < 10)
                fprintf(stderr, "layer %d %s [%zu]: backward %.7g, finite difference %.7g\n",
                        i / 2, i % 2 ? "bias" : "weights", j, g[k], num);
        }
    ck_assert_msg(bad == 0, "%d gradients differ from finite differences", bad);
    free(p);
    nn_trainer_free(t);
    nn_desc_free(D);
    nn_train_force_im2col(false);
}
END_TEST

/* Winograd's 3x3 layers against im2col's on the paper's 9x9 net and on a 7x7 one (tiles cut by
 * the edge), batches whose thread shares make chunks of every kind (16 images; 8, 4 and 1, which
 * divide a block of 16 tiles; 5, 10 and 11, which do not): the same logits and gradients up to
 * fp32 rounding. */
START_TEST(test_winograd_matches_im2col)
{
    enum { MAX_N = 21 };
    static const int conv[] = {12, 8}, dense[] = {5};
    /* n, threads (larger batches are likely to hold a pre-activation within rounding of 0, where
     * the two ReLU masks may differ) */
    static const int runs[][2] = {{21, 1}, {21, 2}, {16, 2}, {12, 3}, {2, 2}};
    for (int net = 0; net < 2; net++) {
        nn_desc *D = net == 0 ? weights_disc_paper(9, NN_DISC_PLANES, 8)
                              : weights_disc_make(7, 3, conv, 2, dense, 1, 8);
        ck_assert_ptr_nonnull(D);
        nn_disc_desc *d = D->disc;
        size_t in = (size_t)d->planes * d->size * d->size;
        float *x = malloc(MAX_N * in * sizeof *x), y[MAX_N], logits[2][MAX_N];
        uint64_t s = 21;
        random_inputs(x, MAX_N * in, &s);
        for (int i = 0; i < MAX_N; i++)
            y[i] = (float)(i % 3 == 0);
        for (size_t r = 0; r < sizeof runs / sizeof *runs; r++) {
            int N = runs[r][0], threads = runs[r][1];
            nn_trainer *t[2];
            for (int m = 0; m < 2; m++) {
                nn_train_force_im2col(m == 1);
                t[m] = nn_trainer_new(d, N, threads);
                ck_assert_ptr_nonnull(t[m]);
                nn_trainer_gradient(t[m], N, x, y, logits[m]);
            }
            nn_train_force_im2col(false);
            for (int i = 0; i < N; i++)
                ck_assert_msg(fabs(logits[0][i] - logits[1][i]) <= 1e-5 + 1e-4 * fabs(logits[1][i]),
                              "net %d, %d positions: logit %d: %g by Winograd, %g by im2col", net,
                              N, i, logits[0][i], logits[1][i]);
            size_t P = nn_trainer_num_params(t[0]);
            const float *g0 = nn_trainer_grad(t[0]), *g1 = nn_trainer_grad(t[1]);
            double top = 0, worst = 0;
            for (size_t k = 0; k < P; k++) {
                top = fmax(top, fabs(g1[k]));
                worst = fmax(worst, fabs(g0[k] - g1[k]));
            }
            ck_assert_msg(top > 0 && worst <= 1e-4 * top,
                          "net %d, %d positions, %d threads: gradients differ by %g (largest %g)",
                          net, N, threads, worst, top);
            nn_trainer_free(t[0]);
            nn_trainer_free(t[1]);
        }
        free(x);
        nn_desc_free(D);
    }
}
END_TEST

/* The same batch split over 1, 2 and 3 threads gives the same gradient within fp32 rounding;
 * the same thread count gives the same bits. */
START_TEST(test_threads_and_determinism)
{
    enum { N = 7 };
    nn_desc *D[4];
    nn_trainer *t[4];
    int threads[4] = {1, 2, 3, 2};
    float x[N * 75], y[N];
    uint64_t s = 5;
    random_inputs(x, sizeof x / sizeof *x, &s);
    for (int i = 0; i < N; i++)
        y[i] = (float)(i % 2);
    for (int i = 0; i < 4; i++) {
        D[i] = small_net(9);
        t[i] = nn_trainer_new(D[i]->disc, N, threads[i]);
        ck_assert_ptr_nonnull(t[i]);
        nn_adam a = NN_ADAM_DEFAULTS;
        for (int step = 0; step < 3; step++) {
            nn_trainer_gradient(t[i], N, x, y, NULL);
            nn_trainer_adam(t[i], &a);
        }
        nn_trainer_gradient(t[i], N, x, y, NULL);
    }
    size_t P = nn_trainer_num_params(t[0]);
    for (int i = 1; i < 3; i++)
        for (size_t k = 0; k < P; k++) {
            double a = nn_trainer_grad(t[0])[k], b = nn_trainer_grad(t[i])[k];
            ck_assert_msg(fabs(a - b) <= 1e-5 + 1e-3 * fabs(a), "%d threads: grad[%zu] %g vs %g",
                          threads[i], k, b, a);
        }
    ck_assert_msg(memcmp(nn_trainer_grad(t[1]), nn_trainer_grad(t[3]), P * sizeof(float)) == 0,
                  "two runs with 2 threads differ");
    for (int i = 0; i < 4; i++) {
        nn_trainer_free(t[i]);
        nn_desc_free(D[i]);
    }
}
END_TEST

/* Adam adds the shares' gradients as it goes, a chunk at a time: its steps must equal those
 * taken after nn_trainer_grad summed them whole (bit for bit), with a share left empty (a batch
 * of 2 on 3 threads) and tensors longer than a chunk; and that gradient must be one thread's. */
START_TEST(test_adam_sums_shares)
{
    enum { N = 2 };
    static const int conv[] = {48, 32}, dense[] = {6};
    nn_desc *D[3];
    nn_trainer *t[3];
    int threads[3] = {3, 3, 1};
    float x[N * 75], y[N] = {0.0f, 1.0f};
    uint64_t s = 11;
    random_inputs(x, sizeof x / sizeof *x, &s);
    for (int i = 0; i < 3; i++) {
        D[i] = weights_disc_make(5, 3, conv, 2, dense, 1, 4);
        ck_assert_ptr_nonnull(D[i]);
        t[i] = nn_trainer_new(D[i]->disc, N, threads[i]);
        ck_assert_ptr_nonnull(t[i]);
    }
    size_t P = nn_trainer_num_params(t[0]);
    ck_assert_uint_gt(P, 3 * 1024);
    nn_adam a = NN_ADAM_DEFAULTS;
    for (int step = 0; step < 3; step++)
        for (int i = 0; i < 3; i++) {
            nn_trainer_gradient(t[i], N, x, y, NULL);
            if (i == 1) /* summed whole before the step */
                nn_trainer_grad(t[1]);
            if (i == 2) { /* t[1]'s gradient is still the one made before its step */
                const float *g1 = nn_trainer_grad(t[1]), *g2 = nn_trainer_grad(t[2]);
                for (size_t k = 0; k < P; k++)
                    ck_assert_msg(fabs(g1[k] - g2[k]) <= 1e-5 + 1e-3 * fabs(g2[k]),
                                  "step %d: grad[%zu] %g with 3 threads, %g with one", step, k,
                                  g1[k], g2[k]);
            }
            nn_trainer_adam(t[i], &a);
        }
    float *w0[2 * NN_DISC_MAX_LAYERS], *w1[2 * NN_DISC_MAX_LAYERS];
    size_t len[2 * NN_DISC_MAX_LAYERS];
    int nt = weights_disc_tensors(D[0]->disc, w0, len, 2 * NN_DISC_MAX_LAYERS);
    weights_disc_tensors(D[1]->disc, w1, len, 2 * NN_DISC_MAX_LAYERS);
    for (int k = 0; k < nt; k++)
        ck_assert_msg(memcmp(w0[k], w1[k], len[k] * sizeof(float)) == 0,
                      "tensor %d: Adam on the shares' sum differs from Adam on nn_trainer_grad", k);
    ck_assert_msg(memcmp(nn_trainer_moment(t[0], 1), nn_trainer_moment(t[1], 1),
                         P * sizeof(float)) == 0, "second moments differ");
    for (int i = 0; i < 3; i++) {
        nn_trainer_free(t[i]);
        nn_desc_free(D[i]);
    }
}
END_TEST

/* A separable toy set: the label says whether plane 0 holds more ones than plane 1 (by at least
 * two). The net must fit it completely. */
START_TEST(test_learns_toy_set)
{
    enum { N = 256, SIZE = 5, PLANES = 2, AREA = SIZE * SIZE };
    static float x[N * PLANES * AREA], y[N];
    uint64_t s = 1;
    for (int i = 0; i < N; i++) {
        int diff;
        do {
            diff = 0;
            for (int k = 0; k < PLANES * AREA; k++) {
                s = s * 6364136223846793005ULL + 1442695040888963407ULL;
                float v = (s >> 62) == 0 ? 1.0f : 0.0f;
                x[(size_t)i * PLANES * AREA + k] = v;
                diff += k < AREA ? (int)v : -(int)v;
            }
        } while (abs(diff) < 2);
        y[i] = diff > 0 ? 1.0f : 0.0f;
    }
    static const int conv[] = {8}, dense[] = {8};
    nn_desc *D = weights_disc_make(SIZE, PLANES, conv, 1, dense, 1, 4);
    ck_assert_ptr_nonnull(D);
    nn_trainer *t = nn_trainer_new(D->disc, 32, 2);
    nn_adam a = {3e-3f, 0.9f, 0.999f, 1e-8f};
    float logits[N];
    int right = 0;
    for (int epoch = 0; epoch < 200 && right < N; epoch++) {
        for (int b = 0; b < N; b += 32) {
            nn_trainer_gradient(t, 32, x + (size_t)b * PLANES * AREA, y + b, NULL);
            nn_trainer_adam(t, &a);
        }
        nn_trainer_predict(t, N, x, logits);
        right = 0;
        for (int i = 0; i < N; i++)
            right += (logits[i] > 0) == (y[i] > 0.5f);
    }
    ck_assert_msg(right == N, "the toy set: %d of %d right", right, N);
    nn_trainer_free(t);
    nn_desc_free(D);
}
END_TEST

/* ---- the checkpoint file ---------------------------------------------------------------------- */

static char *tmp_path(const char *name)
{
    static char buf[4][256];
    static int next;
    char *p = buf[next++ % 4];
    snprintf(p, 256, "/tmp/shido-test-train-%d-%s", (int)getpid(), name);
    return p;
}

/* A checkpoint of the paper's net with a training state. */
static void write_checkpoint(const char *path, nn_desc **out)
{
    nn_desc *D = weights_disc_paper(9, NN_DISC_PLANES, 21);
    ck_assert_ptr_nonnull(D);
    D->disc->black_to_play = true;
    weights_disc_train_state ts = {.step = 1234, .epoch = 7, .best_epoch = 5, .bad_epochs = 2,
                                   .rng = {1, 2, 3, 0xfeedfacecafebeefULL},
                                   .best_val_loss = 0.1234567890123,
                                   .lr = 1e-3f, .beta1 = 0.9f, .beta2 = 0.999f, .eps = 1e-8f};
    ts.num_params = weights_disc_num_params(D->disc);
    ts.m = malloc(ts.num_params * sizeof(float));
    ts.v = malloc(ts.num_params * sizeof(float));
    uint64_t s = 8;
    random_inputs(ts.m, ts.num_params, &s);
    random_inputs(ts.v, ts.num_params, &s);
    char err[512];
    ck_assert_msg(weights_save_disc(path, D->disc, &ts, err, sizeof err), "%s", err);
    weights_disc_train_state_free(&ts);
    *out = D;
}

START_TEST(test_checkpoint_round_trip)
{
    char *a = tmp_path("a.dsc"), *b = tmp_path("b.dsc");
    nn_desc *D;
    write_checkpoint(a, &D);
    char err[512];
    weights_disc_train_state ts;
    nn_desc *L = weights_load_disc(a, &ts, err, sizeof err);
    ck_assert_msg(L != NULL, "%s", err);
    ck_assert_int_eq(L->family, NN_FAMILY_DISC);
    ck_assert(L->disc->black_to_play);
    ck_assert_int_eq(ts.epoch, 7);
    ck_assert_uint_eq(ts.step, 1234);
    ck_assert(ts.rng[3] == 0xfeedfacecafebeefULL);
    ck_assert(ts.best_val_loss == 0.1234567890123);
    float *pa[2 * NN_DISC_MAX_LAYERS], *pb[2 * NN_DISC_MAX_LAYERS];
    size_t la[2 * NN_DISC_MAX_LAYERS], lb[2 * NN_DISC_MAX_LAYERS];
    int na = weights_disc_tensors(D->disc, pa, la, 2 * NN_DISC_MAX_LAYERS);
    int nb = weights_disc_tensors(L->disc, pb, lb, 2 * NN_DISC_MAX_LAYERS);
    ck_assert_int_eq(na, nb);
    for (int i = 0; i < na; i++) {
        ck_assert_uint_eq(la[i], lb[i]);
        ck_assert_msg(memcmp(pa[i], pb[i], la[i] * sizeof(float)) == 0, "tensor %d differs", i);
    }
    ck_assert_msg(weights_save_disc(b, L->disc, &ts, err, sizeof err), "%s", err);
    size_t len_a, len_b;
    char *fa = test_read_file(a, &len_a), *fb = test_read_file(b, &len_b);
    ck_assert_uint_eq(len_a, len_b);
    ck_assert_msg(memcmp(fa, fb, len_a) == 0, "saved again, the file differs");
    /* weights_load sniffs it like any network */
    nn_desc *S = weights_load(a, err, sizeof err);
    ck_assert_msg(S && S->family == NN_FAMILY_DISC, "%s", err);
    nn_desc_free(S);
    free(fa);
    free(fb);
    weights_disc_train_state_free(&ts);
    nn_desc_free(L);
    nn_desc_free(D);
    remove(a);
    remove(b);
}
END_TEST

/* write_checkpoint's file as bytes (*len of them), with the offset of its colours field. */
static char *checkpoint_bytes(const char *path, nn_desc **D, size_t *len, size_t *colours_at)
{
    write_checkpoint(path, D);
    *colours_at = 24 + 20 * (size_t)(*D)->disc->num_layers +
                  4 * weights_disc_num_params((*D)->disc);
    return test_read_file(path, len);
}

/* A version 1 file (no colours field) loads as a colour-free net with the same weights. */
START_TEST(test_checkpoint_version_1)
{
    char *path = tmp_path("v1.dsc");
    nn_desc *D;
    size_t len, at;
    char *data = checkpoint_bytes(path, &D, &len, &at);
    uint32_t colours, version = 1, crc;
    memcpy(&colours, data + at, 4);
    ck_assert_uint_eq(colours, 1);
    memmove(data + at, data + at + 4, len - at - 4);
    len -= 4;
    memcpy(data + 8, &version, 4);
    crc = (uint32_t)crc32(0L, (const unsigned char *)data, (uInt)(len - 4));
    memcpy(data + len - 4, &crc, 4);
    test_write_file(path, data, len, false);
    char err[512] = "";
    weights_disc_train_state ts;
    nn_desc *L = weights_load_disc(path, &ts, err, sizeof err);
    ck_assert_msg(L != NULL, "%s", err);
    ck_assert(!L->disc->black_to_play);
    ck_assert_int_eq(ts.epoch, 7);
    float *pa[2 * NN_DISC_MAX_LAYERS], *pb[2 * NN_DISC_MAX_LAYERS];
    size_t la[2 * NN_DISC_MAX_LAYERS], lb[2 * NN_DISC_MAX_LAYERS];
    int n = weights_disc_tensors(D->disc, pa, la, 2 * NN_DISC_MAX_LAYERS);
    weights_disc_tensors(L->disc, pb, lb, 2 * NN_DISC_MAX_LAYERS);
    for (int i = 0; i < n; i++)
        ck_assert(memcmp(pa[i], pb[i], la[i] * sizeof(float)) == 0);
    weights_disc_train_state_free(&ts);
    nn_desc_free(L);
    nn_desc_free(D);
    free(data);
    remove(path);
}
END_TEST

/* Writes data with byte `at` replaced (or cut to `at` bytes when cut) and expects a load error
 * containing want. */
static void expect_refused(const char *data, size_t len, size_t at, int value, bool cut,
                           const char *want)
{
    char *path = tmp_path("bad.dsc");
    char *copy = malloc(len);
    memcpy(copy, data, len);
    if (!cut)
        copy[at] = (char)value;
    test_write_file(path, copy, cut ? at : len, false);
    char err[512] = "";
    weights_disc_train_state ts;
    nn_desc *d = weights_load_disc(path, &ts, err, sizeof err);
    ck_assert_msg(d == NULL, "a corrupt checkpoint (byte %zu, %s) was accepted", at,
                  cut ? "cut" : "changed");
    ck_assert_msg(strstr(err, want) != NULL, "byte %zu: \"%s\" does not say \"%s\"", at, err,
                  want);
    ck_assert_msg(strstr(err, path) != NULL, "the message does not name the file: %s", err);
    free(copy);
    remove(path);
}

START_TEST(test_checkpoint_corrupt)
{
    char path[256]; /* a copy: expect_refused's own tmp_path calls reuse the buffers */
    snprintf(path, sizeof path, "%s", tmp_path("good.dsc"));
    nn_desc *D;
    size_t len, colours_at;
    char *data = checkpoint_bytes(path, &D, &len, &colours_at);
    expect_refused(data, len, 0, 'X', false, "magic");
    expect_refused(data, len, 8, 9, false, "version");
    expect_refused(data, len, 12, 40, false, "size");
    expect_refused(data, len, 16, 0, false, "planes");
    expect_refused(data, len, 20, 99, false, "layers");
    expect_refused(data, len, 24, 3, false, "layer 0 kind");
    expect_refused(data, len, 28, 4, false, "layer 0 kernel");
    expect_refused(data, len, 32, 26, false, "does not follow");   /* c_in 26, planes 25 */
    expect_refused(data, len, 24 + 5 * 4 + 16, 7, false, "layer 1 activation");
    expect_refused(data, len, colours_at, 2, false, "colours");
    expect_refused(data, len, 200, 0x7f, false, "crc");             /* a weight's byte */
    expect_refused(data, len, len - 2, 0, false, "crc");
    expect_refused(data, len, 30, 0, true, "truncated");
    expect_refused(data, len, 2000, 0, true, "layer 0 weights");
    expect_refused(data, len, len - 1000, 0, true, "truncated");
    expect_refused(data, len, len - 3, 0, true, "crc");
    /* a NaN weight under a valid crc: refused by the shape and value check */
    char *copy = malloc(len);
    memcpy(copy, data, len);
    uint32_t nan_bits = 0x7fc00000u, crc;
    memcpy(copy + 24 + 6 * 20 + 40, &nan_bits, 4); /* a weight of layer 0 (6 headers of 20 bytes) */
    crc = (uint32_t)crc32(0L, (const unsigned char *)copy, (uInt)(len - 4));
    memcpy(copy + len - 4, &crc, 4);
    test_write_file(path, copy, len, false);
    char err[512] = "";
    nn_desc *d = weights_load_disc(path, NULL, err, sizeof err);
    ck_assert_msg(d == NULL && strstr(err, "not finite"), "NaN weight: %s", err);
    free(copy);
    free(data);
    nn_desc_free(D);
    remove(path);
}
END_TEST

/* ---- inference ------------------------------------------------------------------------------ */

/* Random positions judged through nn_eval on ref and cpu agree; the window and symmetry checks
 * refuse what does not fit. */
START_TEST(test_eval_ref_cpu)
{
    char err[512];
    nn_model *ref = nn_model_from_desc(weights_disc_paper(9, NN_DISC_PLANES, 5), "ref", err,
                                       sizeof err);
    nn_model *cpu = nn_model_from_desc(weights_disc_paper(9, NN_DISC_PLANES, 5), "cpu", err,
                                       sizeof err);
    ck_assert_msg(ref && cpu, "%s", err);
    nn_context *cr = nn_context_new(ref, 8, err, sizeof err),
               *cc = nn_context_new(cpu, 8, err, sizeof err);
    ck_assert_msg(cr && cc, "%s", err);
    go_game g[4];
    nn_query q[8];
    for (int i = 0; i < 4; i++) {
        test_game_random(&g[i], i < 2 ? 9 : 19, 30 + 10 * i, (unsigned)i + 1);
        for (int s = 0; s < 2; s++)
            q[2 * i + s] = (nn_query){.game = &g[i], .symmetry = 3 * s + i,
                                      .window_x = i < 2 ? 0 : 10, .window_y = i < 2 ? 0 : 5 * s};
    }
    nn_result rr[8], rc[8];
    ck_assert_msg(nn_eval(cr, 8, q, rr, err, sizeof err), "%s", err);
    ck_assert_msg(nn_eval(cc, 8, q, rc, err, sizeof err), "%s", err);
    bool spread = false;
    for (int i = 0; i < 8; i++) {
        ck_assert_int_eq(rc[i].family, NN_FAMILY_DISC);
        ck_assert(rr[i].likeness > 0 && rr[i].likeness < 1);
        ck_assert_msg(fabs(rr[i].likeness - rc[i].likeness) < 1e-5, "%d: ref %.8f cpu %.8f", i,
                      rr[i].likeness, rc[i].likeness);
        spread |= fabs(rr[i].likeness - rr[0].likeness) > 1e-4;
    }
    ck_assert_msg(spread, "every position got the same likeness");
    nn_query off = {.game = &g[2], .window_x = 11, .window_y = 0};
    ck_assert(!nn_eval(cc, 1, &off, rc, err, sizeof err));
    ck_assert_msg(strstr(err, "does not fit"), "%s", err);
    for (int i = 0; i < 4; i++)
        go_game_free(&g[i]);
    nn_context_free(cr);
    nn_context_free(cc);
    nn_model_free(ref);
    nn_model_free(cpu);
}
END_TEST

/* ---- input planes --------------------------------------------------------------------------- */

static float plane_at(const float *pl, int plane, int x, int y) { return pl[(plane * 9 + y) * 9 + x]; }

START_TEST(test_input_planes)
{
    go_board b;
    /* white C1 (2,8) in atari (one liberty, B1 (1,8)); a black chain of three on the top edge
     * with 4 liberties */
    test_board_from(&b, 9,
                    "X X X . . . . . .\n"
                    ". . . . . . . . .\n"
                    ". . . . . . . . .\n"
                    ". . . . . . . . .\n"
                    ". . . . . . . . .\n"
                    ". . . . . . . . .\n"
                    ". . . . . . . . .\n"
                    ". . X . . . . . .\n"
                    ". . O X . . . . .\n");
    float pl[NN_DISC_PLANES * 81];
    ck_assert(nn_disc_inputs(&b, 0, 0, 9, 0, pl));
    ck_assert(plane_at(pl, 0, 0, 0) == 1 && plane_at(pl, 1, 2, 8) == 1 && plane_at(pl, 2, 4, 4) == 1);
    ck_assert(plane_at(pl, 3 + 3, 0, 0) == 1);  /* the top chain: 4 liberties... */
    ck_assert(plane_at(pl, 3, 0, 0) == 0 && plane_at(pl, 7, 0, 0) == 0);
    ck_assert(plane_at(pl, 8 + 2, 1, 0) == 1);  /* ...and 3 stones */
    ck_assert(plane_at(pl, 3, 2, 8) == 1);      /* white in atari: 1 liberty, 1 stone */
    ck_assert(plane_at(pl, 8, 2, 8) == 1);
    ck_assert(plane_at(pl, 18, 1, 8) == 1);     /* black at B1 captures one white stone */
    ck_assert(plane_at(pl, 13, 1, 8) == 0);     /* white there captures nothing */
    ck_assert(plane_at(pl, 18, 4, 4) == 0);
    for (int i = 0; i < 81; i++)
        ck_assert(pl[23 * 81 + i] == 1 && pl[24 * 81 + i] == 0);
    /* symmetry 1 mirrors x: the white stone moves from (2,8) to (6,8) */
    ck_assert(nn_disc_inputs(&b, 0, 0, 9, 1, pl));
    ck_assert(plane_at(pl, 1, 6, 8) == 1 && plane_at(pl, 1, 2, 8) == 0);
    /* symmetry 4 transposes: (2,8) -> (8,2) */
    ck_assert(nn_disc_inputs(&b, 0, 0, 9, 4, pl));
    ck_assert(plane_at(pl, 1, 8, 2) == 1);
    ck_assert(!nn_disc_inputs(&b, 1, 0, 9, 0, pl));
    ck_assert(!nn_disc_inputs(&b, 0, 0, 9, 8, pl));
}
END_TEST

#ifdef SHIDO_HAVE_CUDA
/* The GPU trainer's loss, gradient and one Adam step against the CPU's on the same batch. */
START_TEST(test_cuda_matches_cpu)
{
    if (!test_cuda_device_present("the CUDA trainer's comparison with the CPU"))
        return;
    enum { N = 5 };
    nn_desc *C = small_net(13), *G = small_net(13);
    float x[N * 75], y[N] = {1, 0, 0, 1, 1}, lc[N], lg[N];
    uint64_t s = 17;
    random_inputs(x, sizeof x / sizeof *x, &s);
    char err[512];
    nn_trainer *tc = nn_trainer_new_on(C->disc, N, 1, "cpu", err, sizeof err);
    nn_trainer *tg = nn_trainer_new_on(G->disc, N, 1, "cuda", err, sizeof err);
    ck_assert_msg(tc && tg, "%s", err);
    double a = nn_trainer_gradient(tc, N, x, y, lc), b = nn_trainer_gradient(tg, N, x, y, lg);
    ck_assert_msg(fabs(a - b) < 1e-5, "loss: cpu %g cuda %g (%s)", a, b, nn_trainer_error(tg));
    for (int i = 0; i < N; i++)
        ck_assert_msg(fabs(lc[i] - lg[i]) < 1e-4, "logit %d: cpu %g cuda %g", i, lc[i], lg[i]);
    size_t P = nn_trainer_num_params(tc);
    const float *gc = nn_trainer_grad(tc), *gg = nn_trainer_grad(tg);
    for (size_t k = 0; k < P; k++)
        ck_assert_msg(fabs(gc[k] - gg[k]) <= 1e-5 + 1e-3 * fabs(gc[k]),
                      "grad[%zu]: cpu %g cuda %g", k, gc[k], gg[k]);
    nn_adam adam = NN_ADAM_DEFAULTS;
    nn_trainer_adam(tc, &adam);
    nn_trainer_adam(tg, &adam);
    ck_assert_msg(nn_trainer_sync(tg), "%s", nn_trainer_error(tg));
    float *pc[2 * NN_DISC_MAX_LAYERS], *pg[2 * NN_DISC_MAX_LAYERS];
    size_t lenc[2 * NN_DISC_MAX_LAYERS], leng[2 * NN_DISC_MAX_LAYERS];
    int nt = weights_disc_tensors(C->disc, pc, lenc, 2 * NN_DISC_MAX_LAYERS);
    weights_disc_tensors(G->disc, pg, leng, 2 * NN_DISC_MAX_LAYERS);
    for (int i = 0; i < nt; i++)
        for (size_t j = 0; j < lenc[i]; j++)
            ck_assert_msg(fabs(pc[i][j] - pg[i][j]) <= 1e-5 + 1e-4 * fabs(pc[i][j]),
                          "tensor %d [%zu] after Adam: cpu %g cuda %g", i, j, pc[i][j], pg[i][j]);
    nn_trainer_free(tc);
    nn_trainer_free(tg);
    nn_desc_free(C);
    nn_desc_free(G);
}
END_TEST
#endif

static Suite *train_suite(void)
{
    Suite *s = suite_create("train");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, test_gemm);
    tcase_add_loop_test(tc, test_gradient_check, 0, 2);
    tcase_add_test(tc, test_winograd_matches_im2col);
    tcase_add_test(tc, test_threads_and_determinism);
    tcase_add_test(tc, test_adam_sums_shares);
    tcase_add_test(tc, test_learns_toy_set);
    tcase_add_test(tc, test_checkpoint_round_trip);
    tcase_add_test(tc, test_checkpoint_corrupt);
    tcase_add_test(tc, test_checkpoint_version_1);
    tcase_add_test(tc, test_eval_ref_cpu);
    tcase_add_test(tc, test_input_planes);
#ifdef SHIDO_HAVE_CUDA
    tcase_add_test(tc, test_cuda_matches_cpu);
#endif
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return test_run_suite(train_suite()); }
