/* tests/test_nn.c -- the evaluator of nn/nn.h and its backends: every record of every file in
 * ../shared/vectors reproduced through nn_eval by each backend (batches mixing records, so board
 * sizes and symmetries mix), batched results equal to single ones, nn_eval_average equal to the
 * mean of single evaluations, refused queries, and the layers of the "cpu" backend (Winograd
 * and im2col convolutions with their fused epilogues, batched matmuls) against the double
 * reference of nn/ref/ref_ops.h on awkward shapes, with guard bands around every output. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "go/game.h"
#include "nn/backend.h"
#include "nn/cpu/cpu_layers.h"
#include "weights/desc.h"
#include "nn/nn.h"
#ifdef SHIDO_HAVE_CUDA
#include "nn/cuda/cuda_device.h"
#endif
#include "nn/ref/ref_ops.h"
#include "tests/common.h"
#include "tests/vectors.h"
#include "weights/synth.h"

static const char *const backends[] = {"ref", "cpu"};

/* Whether to skip a case costing `macs` multiply-adds in the plain-loop reference: only in the
 * sanitizer run (SHIDO_VECTORS_STRIDE > 1), where the reference is ~4 times slower; the
 * ordinary run checks every case. */
static bool sanitizer_skip(double macs)
{
    if (vec_stride() == 1 || macs < 2e8)
        return false;
    printf("skipped under SHIDO_VECTORS_STRIDE: %.3g multiply-adds of reference\n", macs);
    return true;
}

/* ---- vectors through nn_eval ---------------------------------------------------------------- */

#define VEC_BATCH 7

/* The records of vectors (every stride-th) through nn_eval of backend on weights, VEC_BATCH at
 * a time, against the tolerances of vectors.h. */
static void check_through_nn_eval(const char *backend, const char *weights, const char *vectors,
                                  bool kata, int stride)
{
    char err[2048], path[1024], label[256];
    snprintf(path, sizeof path, "%s%s", TEST_WEIGHTS, weights);
    nn_model *m = test_model_load(path, backend);
    ck_assert_str_eq(nn_model_backend(m), backend);
    nn_context *c = nn_context_new(m, VEC_BATCH, err, sizeof err);
    ck_assert_msg(c, "%s", err);
    snprintf(path, sizeof path, "%s%s", TEST_VECTORS, vectors);
    vec_file vf;
    ck_assert_msg(vec_file_read(path, &vf, err, sizeof err), "%s", err);
    ck_assert_int_gt(vf.num_records, 0);
    go_game games[VEC_BATCH];
    nn_query q[VEC_BATCH];
    const cJSON *recs[VEC_BATCH];
    nn_result *out = malloc(sizeof *out * VEC_BATCH);
    ck_assert(out);
    vec_kata_stats st = {0};
    double max_policy = 0, max_winrate = 0;
    int n = 0;
    for (int r = 0; r < vf.num_records; r += stride) {
        const cJSON *rec = vf.records[r];
        const char *id = cJSON_GetObjectItemCaseSensitive(rec, "id")->valuestring;
        ck_assert_msg(vec_setup_game(rec, &games[n], err, sizeof err), "%s: %s", id, err);
        q[n] = (nn_query){.game = &games[n], .symmetry = (int)test_json_num(rec, "symmetry"),
                          .policy_optimism = NN_DEFAULT_POLICY_OPTIMISM};
        recs[n++] = rec;
        if (n < VEC_BATCH && r + stride < vf.num_records)
            continue;
        ck_assert_msg(nn_eval(c, n, q, out, err, sizeof err), "%s: %s", id, err);
        for (int i = 0; i < n; i++) {
            const nn_result *o = &out[i];
            ck_assert_int_eq(o->size, games[i].board.size);
            if (kata) {
                vec_kata_got got = vec_kata_got_of(o, o->policy, o->white_ownership);
                vec_kata_compare(recs[i], o->size, &got, &st);
            } else {
                double win = games[i].board.to_move == GO_WHITE ? o->white_win : o->white_loss;
                vec_lz_compare(recs[i], o->policy, win, &max_policy, &max_winrate);
            }
            go_game_free(&games[i]);
        }
        n = 0;
    }
    snprintf(label, sizeof label, "%s %s", backend, vectors);
    if (kata)
        vec_kata_finish(label, vf.num_records, &st);
    else
        printf("%s: max |policy error| %.3g, max |winrate error| %.3g\n", label, max_policy,
               max_winrate);
    free(out);
    vec_file_free(&vf);
    nn_context_free(c);
    nn_model_free(m);
}

/* The reference backend checks every REF_STRIDE-th record here: test_kata and test_lz run its
 * maths on every record, and the cpu backend takes every record through nn.c's batching. */
#define REF_STRIDE 8

/* _i = case * 2 + backend. */
START_TEST(vectors_through_nn_eval)
{
    const char *backend = backends[_i % 2];
    int ci = _i / 2;
    if (!strcmp(backend, "ref") && sanitizer_skip(1e9))
        return;
    int stride = !strcmp(backend, "ref") ? REF_STRIDE * vec_stride() : vec_stride();
    check_through_nn_eval(backend, vec_cases[ci].weights, vec_cases[ci].vectors,
                          vec_cases[ci].kata, stride);
}
END_TEST

/* KataGo 1.17's transformer net on the cpu backend, every record (test_kata runs the reference
 * on a few: it takes seconds a position). */
START_TEST(transformer_vectors_cpu)
{
    check_through_nn_eval("cpu", "b10c384h6nbttflrs.bin.gz", "katago-b10c384h6nbttflrs.jsonl",
                          true, vec_stride());
}
END_TEST

/* ---- batches against single positions --------------------------------------------------------- */

static const int batch_sizes[] = {1, 3, 17};

/* _i = backend * 3 + batch-size index: a batch mixing boards 9/13/19 and all symmetries equals
 * the same positions evaluated one by one (exactly for the reference). */
START_TEST(batch_equals_single)
{
    const char *backend = backends[_i / 3];
    int n = batch_sizes[_i % 3];
    char err[1024];
    if (!strcmp(backend, "ref") && sanitizer_skip(2.0 * n * 7.2e8))   /* two passes of g170 */
        return;
    nn_model *m = test_model_load(TEST_G170, backend);
    nn_context *c1 = nn_context_new(m, 1, err, sizeof err), *cb = nn_context_new(m, n, err, 1024);
    ck_assert(c1 && cb);
    go_game *g = malloc(sizeof *g * (size_t)n);
    nn_query *q = malloc(sizeof *q * (size_t)n);
    nn_result *batch = malloc(sizeof *batch * (size_t)n), *one = malloc(sizeof *one);
    ck_assert(g && q && batch && one);
    static const int sizes[] = {9, 13, 19};
    for (int i = 0; i < n; i++) {
        test_game_random(&g[i], sizes[i % 3], 3 + 5 * i, (unsigned)i);
        q[i] = (nn_query){.game = &g[i], .symmetry = (i * 5) % 8,
                          .policy_optimism = i % 2 ? 0.0 : NN_DEFAULT_POLICY_OPTIMISM};
    }
    ck_assert_msg(nn_eval(cb, n, q, batch, err, sizeof err), "%s", err);
    bool exact = !strcmp(backend, "ref");
    for (int i = 0; i < n; i++) {
        ck_assert_msg(nn_eval(c1, 1, &q[i], one, err, sizeof err), "%s", err);
        double d = test_result_full_diff(&batch[i], one);
        ck_assert_msg(exact ? d == 0 : d <= 1e-5, "%s batch %d position %d: differs by %g",
                      backend, n, i, d);
        go_game_free(&g[i]);
    }
    free(g);
    free(q);
    free(batch);
    free(one);
    nn_context_free(c1);
    nn_context_free(cb);
    nn_model_free(m);
}
END_TEST

/* Shapes no shared file has (mish, 5x5 input convolution, version 15 heads; KataGo 1.17's
 * transformer blocks with version 16 and 17 heads) as small synthetic nets: the cpu backend
 * against the reference through nn_eval, boards 19, 9 and 2. _i = 2 is the Leela Zero net. */
static const weights_synth_kata_shape synth_shapes[] = {
    {15, true, 2, 32, 16, 8, 8, 2, 3, 8, 8, 8, 16, NN_ACT_MISH, 0, 0},
    {8, false, 3, 24, 24, 16, 8, 2, 5, 8, 8, 8, 16, NN_ACT_RELU, 0, 0},
    {0},
    {16, true, 2, 32, 16, 8, 8, 0, 3, 8, 8, 8, 16, NN_ACT_SILU, 2, 24},
    {17, true, 1, 24, 12, 8, 8, 0, 3, 8, 8, 8, 16, NN_ACT_SILU, 3, 20},
};

START_TEST(synthetic_cpu_matches_ref)
{
    char err[1024];
    bool lz = _i == 2;
    nn_model *m[2];
    for (int b = 0; b < 2; b++) {
        nn_desc *d = lz ? weights_synth_lz(2, 16, 3) : weights_synth_kata(&synth_shapes[_i], 3);
        ck_assert(d);
        m[b] = nn_model_from_desc(d, backends[b], err, sizeof err);
        ck_assert_msg(m[b], "%s", err);
    }
    nn_context *c[2] = {nn_context_new(m[0], 3, err, sizeof err),
                        nn_context_new(m[1], 3, err, sizeof err)};
    ck_assert(c[0] && c[1]);
    go_game g[3];
    nn_query q[3];
    static const int sizes[] = {19, 9, 2};
    for (int i = 0; i < 3; i++) {
        test_game_random(&g[i], lz ? 19 : sizes[i], 4 + i, (unsigned)i);
        q[i] = (nn_query){.game = &g[i], .symmetry = 3 * i + 1, .policy_optimism = 0.2};
    }
    nn_result *r = malloc(sizeof *r * 6);
    ck_assert(r);
    ck_assert_msg(nn_eval(c[0], 3, q, r, err, sizeof err), "%s", err);
    ck_assert_msg(nn_eval(c[1], 3, q, r + 3, err, sizeof err), "%s", err);
    for (int i = 0; i < 3; i++) {
        double d = test_result_full_diff(&r[i], &r[3 + i]);
        printf("synthetic %d position %d: cpu - ref max |diff| %.3g\n", _i, i, d);
        ck_assert_msg(d <= TEST_FP32_TOL,
                      "synthetic net %d position %d: cpu differs from ref by %g", _i, i, d);
        go_game_free(&g[i]);
    }
    free(r);
    for (int b = 0; b < 2; b++) {
        nn_context_free(c[b]);
        nn_model_free(m[b]);
    }
}
END_TEST

/* The tiny version 16 and 17 files of tests/data/kata (test_kata's writer): grouped-query
 * attention (2 heads over 1 key/value head), learned and theta rotary encodings, RMS tips per
 * board and per point, 4 and 2 policy channels. cpu against ref, boards 19, 9 and 2. */
START_TEST(tiny_v16_v17_files_cpu_matches_ref)
{
    char err[1024], path[512];
    snprintf(path, sizeof path, "%s/kata/synthetic-v%d.txt", SHIDO_TEST_DATA, 16 + _i);
    nn_model *m[2] = {test_model_load(path, "cpu"), test_model_load(path, "ref")};
    nn_context *c[2] = {nn_context_new(m[0], 3, err, sizeof err),
                        nn_context_new(m[1], 3, err, sizeof err)};
    ck_assert(c[0] && c[1]);
    go_game g[3];
    nn_query q[3];
    static const int sizes[] = {19, 9, 2};
    for (int i = 0; i < 3; i++) {
        test_game_random(&g[i], sizes[i], 4 + i, (unsigned)i);
        q[i] = (nn_query){.game = &g[i], .symmetry = (3 * i + 2) % 8, .policy_optimism = 0.2};
    }
    nn_result *r = malloc(sizeof *r * 6);
    ck_assert(r);
    ck_assert_msg(nn_eval(c[0], 3, q, r, err, sizeof err), "%s", err);
    ck_assert_msg(nn_eval(c[1], 3, q, r + 3, err, sizeof err), "%s", err);
    for (int i = 0; i < 3; i++) {
        double d = test_result_full_diff(&r[i], &r[3 + i]);
        printf("tiny v%d position %d: cpu - ref max |diff| %.3g\n", 16 + _i, i, d);
        ck_assert_msg(d <= TEST_FP32_TOL, "v%d position %d: cpu differs from ref by %g", 16 + _i,
                      i, d);
        go_game_free(&g[i]);
    }
    free(r);
    for (int b = 0; b < 2; b++) {
        nn_context_free(c[b]);
        nn_model_free(m[b]);
    }
}
END_TEST

/* nn_eval_average is the mean of the single evaluations of the chosen symmetries. */
START_TEST(average_is_mean)
{
    char err[1024];
    nn_model *m = test_model_load(TEST_G170, "cpu");
    nn_context *c = nn_context_new(m, 8, err, sizeof err);
    ck_assert_msg(c, "%s", err);
    go_game g;
    test_game_random(&g, 13, 20, 7);
    unsigned mask = 0xa5;   /* symmetries 0, 2, 5, 7 */
    nn_result *avg = malloc(sizeof *avg), *one = malloc(sizeof *one), *sum = malloc(sizeof *sum);
    ck_assert(avg && one && sum);
    ck_assert_msg(nn_eval_average(c, &g, mask, 0.2, avg, err, sizeof err), "%s", err);
    memset(sum, 0, sizeof *sum);
    int k = 0, area = 13 * 13;
    for (int s = 0; s < 8; s++) {
        if (!(mask & (1u << s)))
            continue;
        nn_query q = {.game = &g, .symmetry = s, .policy_optimism = 0.2};
        ck_assert_msg(nn_eval(c, 1, &q, one, err, sizeof err), "%s", err);
        sum->white_win += one->white_win;
        sum->white_lead += one->white_lead;
        for (int i = 0; i <= area; i++)
            sum->policy[i] += one->policy[i];
        for (int i = 0; i < area; i++)
            sum->white_ownership[i] += one->white_ownership[i];
        k++;
    }
    /* within the batched-against-single tolerance: the average is one batch of four */
    ck_assert_int_eq(k, 4);
    ck_assert(fabs(avg->white_win - sum->white_win / k) < 1e-5);
    ck_assert(fabs(avg->white_lead - sum->white_lead / k) < 1e-3);
    for (int i = 0; i <= area; i++)
        ck_assert(isnan(sum->policy[i]) ? isnan(avg->policy[i])
                                        : fabs(avg->policy[i] - sum->policy[i] / k) < 1e-5);
    for (int i = 0; i < area; i++)
        ck_assert(fabs(avg->white_ownership[i] - sum->white_ownership[i] / k) < 1e-5);
    free(avg);
    free(one);
    free(sum);
    go_game_free(&g);
    nn_context_free(c);
    nn_model_free(m);
}
END_TEST

/* nn_forward_again (what `bench nn --forward-only` times) refuses a context that has run no
 * batch, reruns the backend on the last batch, and leaves the context evaluating as before:
 * the next nn_eval calls give bit for bit what a fresh context gives. */
START_TEST(forward_again)
{
    char err[1024] = "";
    nn_model *m = test_model_load(TEST_G170, "cpu");
    nn_context *c = nn_context_new(m, 2, err, sizeof err), *fresh = nn_context_new(m, 2, err, 1);
    ck_assert(c && fresh);
    ck_assert(!nn_forward_again(c, err, sizeof err));
    ck_assert_msg(strstr(err, "no batch evaluated yet"), "%s", err);
    go_game g;
    test_game_random(&g, 19, 30, 3);
    nn_query q[2] = {{.game = &g, .symmetry = 0}, {.game = &g, .symmetry = 5}};
    nn_result *a = malloc(2 * sizeof *a), *b = malloc(2 * sizeof *b);
    ck_assert(a && b);
    ck_assert_msg(nn_eval(c, 2, q, a, err, sizeof err), "%s", err);
    for (int i = 0; i < 3; i++)
        ck_assert_msg(nn_forward_again(c, err, sizeof err), "%s", err);
    nn_query q2 = {.game = &g, .symmetry = 3, .policy_optimism = 0};
    ck_assert_msg(nn_eval(c, 1, &q2, a + 1, err, sizeof err), "%s", err);
    ck_assert_msg(nn_eval(fresh, 1, &q2, b + 1, err, sizeof err), "%s", err);
    ck_assert_msg(nn_forward_again(c, err, sizeof err), "%s", err);
    ck_assert_msg(nn_eval(fresh, 1, q, b, err, sizeof err), "%s", err);
    ck_assert_msg(nn_eval(c, 1, q, a, err, sizeof err), "%s", err);
    for (int k = 0; k < 2; k++) {
        ck_assert(a[k].white_win == b[k].white_win && a[k].white_lead == b[k].white_lead);
        ck_assert(!memcmp(a[k].policy, b[k].policy, sizeof a[k].policy));
        ck_assert(!memcmp(a[k].white_ownership, b[k].white_ownership,
                          sizeof a[k].white_ownership));
    }
    free(a);
    free(b);
    go_game_free(&g);
    nn_context_free(c);
    nn_context_free(fresh);
    nn_model_free(m);
}
END_TEST

/* `shido bench nn` with several workers: they warm up one at a time and start timing together
 * (tools/bench_nn.c's start line); every worker runs and each batch size gives one row. */
START_TEST(bench_workers_start_together)
{
    char cmd[1024], line[512];
    snprintf(cmd, sizeof cmd, "%s bench nn --weights %s --backend cpu --threads 3 --batch 1,2 "
             "--seconds 0.05 2>&1", SHIDO_BINARY, TEST_WEIGHTS "lz-rand-b2c16-v2.txt.gz");
    FILE *p = popen(cmd, "r");
    ck_assert_ptr_nonnull(p);
    int rows = 0;
    while (fgets(line, sizeof line, p)) {
        char name[128], back[32];
        int threads, batch;
        long evals;
        double rate;
        if (sscanf(line, "%127s %31s %d %d %ld %lf", name, back, &threads, &batch, &evals,
                   &rate) != 6)
            continue;
        ck_assert_str_eq(name, "lz-rand-b2c16-v2.txt.gz");
        ck_assert_int_eq(threads, 3);
        ck_assert_int_eq(batch, rows + 1);
        ck_assert_msg(evals >= 3L * batch && rate > 0, "%s", line);   /* each worker ran */
        rows++;
    }
    ck_assert_int_eq(pclose(p), 0);
    ck_assert_int_eq(rows, 2);
}
END_TEST

/* nn_context_set_threads shares a batch's CPU work among threads: a mixed batch (three board
 * sizes, every symmetry) gives bit for bit what one thread gives, for KataGo and Leela Zero
 * nets; a bad query in a helper's share fails the call with its message; thread counts out of
 * range are refused; a context can go back to one thread. */
START_TEST(eval_threads)
{
    char err[1024] = "";
    static const char *const nets[2] = {TEST_G170, TEST_WEIGHTS "lz-rand-b2c16-v2.txt.gz"};
    for (int net = 0; net < 2; net++) {
        bool kata = net == 0;
        nn_model *m = test_model_load(nets[net], "cpu");
        enum { N = 24 };
        nn_context *one = nn_context_new(m, N, err, sizeof err);
        nn_context *many = nn_context_new(m, N, err, sizeof err);
        ck_assert(one && many);
        ck_assert(!nn_context_set_threads(many, 0, err, sizeof err));
        ck_assert_msg(strstr(err, "1..64"), "%s", err);
        ck_assert(!nn_context_set_threads(many, 65, err, sizeof err));
        ck_assert_msg(nn_context_set_threads(many, 2, err, sizeof err), "%s", err);
        ck_assert_msg(nn_context_set_threads(many, 3, err, sizeof err), "%s", err);
        go_game g[3];
        static const int sizes[3] = {9, 13, 19};
        for (int i = 0; i < 3; i++)
            test_game_random(&g[i], kata ? sizes[i] : 19, 10 + 7 * i, (unsigned)(11 + i));
        nn_query q[N];
        for (int i = 0; i < N; i++)
            q[i] = (nn_query){.game = &g[i % 3], .symmetry = i % 8, .policy_optimism = 0};
        nn_result *a = malloc(N * sizeof *a), *b = malloc(N * sizeof *b);
        ck_assert(a && b);
        ck_assert_msg(nn_eval(one, N, q, a, err, sizeof err), "%s", err);
        ck_assert_msg(nn_eval(many, N, q, b, err, sizeof err), "%s", err);
        for (int i = 0; i < N; i++) {
            ck_assert_int_eq(a[i].size, b[i].size);
            size_t area = (size_t)a[i].size * (size_t)a[i].size;
            ck_assert(a[i].white_win == b[i].white_win && a[i].white_lead == b[i].white_lead);
            ck_assert(!memcmp(a[i].policy, b[i].policy, sizeof(float) * (area + 1)));
            ck_assert(!memcmp(a[i].white_ownership, b[i].white_ownership,
                              sizeof(float) * area));
        }
        /* the last query has a symmetry out of range: it falls in the last helper's share */
        q[N - 1].symmetry = 9;
        err[0] = '\0';
        ck_assert(!nn_eval(many, N, q, b, err, sizeof err));
        ck_assert_msg(strstr(err, "symmetr"), "%s", err);
        q[N - 1].symmetry = 0;
        ck_assert_msg(nn_context_set_threads(many, 1, err, sizeof err), "%s", err);
        ck_assert_msg(nn_eval(many, N, q, b, err, sizeof err), "%s", err);
        ck_assert_msg(nn_eval(one, N, q, a, err, sizeof err), "%s", err);
        ck_assert(!memcmp(a[N - 1].policy, b[N - 1].policy, sizeof a[N - 1].policy));
        free(a);
        free(b);
        for (int i = 0; i < 3; i++)
            go_game_free(&g[i]);
        nn_context_free(one);
        nn_context_free(many);
        nn_model_free(m);
    }
}
END_TEST

/* Refused queries and models come back false / NULL with a message, never a crash. */
START_TEST(eval_errors)
{
    char err[1024] = "";
    nn_model *m = nn_model_load(TEST_B2C16, "nonesuch", err, sizeof err);
    ck_assert(!m);
    ck_assert_msg(strstr(err, "unknown backend"), "%s", err);
    ck_assert_msg(strstr(err, "this build has: ") && strstr(err, " cpu ref)"), "%s", err);
    m = nn_model_load(TEST_B2C16, "cpu:turbo", err, sizeof err);
    ck_assert(!m);
    ck_assert_msg(strstr(err, "unknown option \"turbo\""), "%s", err);
    m = test_model_load(TEST_B2C16, "cpu");
    ck_assert_str_eq(nn_model_backend(m), "cpu");
    nn_model_free(m);
    m = test_model_load(TEST_B2C16, NULL);
    /* no backend named: the first of this build's that runs here (cuda only with a device) */
#ifdef SHIDO_HAVE_CUDA
    ck_assert_str_eq(nn_model_backend(m), nn_cuda_device_count() > 0 ? "cuda" : "cpu");
#else
    ck_assert_str_eq(nn_model_backend(m), nn_backend_names()[0]);
#endif
    ck_assert(!nn_context_new(m, 0, err, sizeof err));
    nn_context *c = nn_context_new(m, 2, err, sizeof err);
    ck_assert_msg(c, "%s", err);
    go_game g;
    test_game_random(&g, 19, 4, 1);
    nn_query q[3] = {{.game = &g, .symmetry = 0, .policy_optimism = 0.2},
                     {.game = &g, .symmetry = 1, .policy_optimism = 0.2},
                     {.game = &g, .symmetry = 2, .policy_optimism = 0.2}};
    nn_result *out = malloc(sizeof *out * 3);
    ck_assert(out);
    ck_assert(!nn_eval(c, 0, q, out, err, sizeof err));
    ck_assert(!nn_eval(c, 3, q, out, err, sizeof err));
    ck_assert_msg(strstr(err, "batch"), "%s", err);
    q[1].symmetry = 9;
    ck_assert(!nn_eval(c, 2, q, out, err, sizeof err));
    ck_assert_msg(strstr(err, "symmetry"), "%s", err);
    ck_assert(!nn_eval_average(c, &g, 0x7, 0.2, out, err, sizeof err));   /* 3 > max batch */
    ck_assert(!nn_eval_average(c, &g, 0, 0.2, out, err, sizeof err));
    q[1].symmetry = 1;
    ck_assert_msg(nn_eval(c, 2, q, out, err, sizeof err), "%s", err);
    nn_context_free(c);
    nn_model_free(m);

    m = test_model_load(TEST_WEIGHTS "lz-rand-b2c16-v2.txt.gz", "cpu");
    c = nn_context_new(m, 1, err, sizeof err);
    ck_assert_msg(c, "%s", err);
    go_game small;
    test_game_random(&small, 9, 2, 3);
    nn_query bad = {.game = &small, .symmetry = 0, .policy_optimism = 0};
    ck_assert(!nn_eval(c, 1, &bad, out, err, sizeof err));
    ck_assert_msg(strstr(err, "19x19"), "%s", err);
    go_game_free(&small);
    free(out);
    go_game_free(&g);
    nn_context_free(c);
    nn_model_free(m);
}
END_TEST

/* ---- cpu layers against the reference ------------------------------------------------------- */

#define GUARD 64
#define GUARD_VALUE 12345.0f

static unsigned long long rng_state;

/* Uniform in [-1, 1), deterministic. */
static float rnd(void)
{
    rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (float)((double)(rng_state >> 11) / 9007199254740992.0 * 2.0 - 1.0);
}

static float *random_floats(size_t n)
{
    float *x = malloc(sizeof *x * (n ? n : 1));
    ck_assert(x);
    for (size_t i = 0; i < n; i++)
        x[i] = rnd();
    return x;
}

/* An output buffer of n floats between two guard bands; returns the start of the output. */
static float *guarded(size_t n)
{
    float *b = malloc(sizeof *b * (n + 2 * GUARD));
    ck_assert(b);
    for (size_t i = 0; i < n + 2 * GUARD; i++)
        b[i] = GUARD_VALUE;
    return b + GUARD;
}

static void guarded_free(float *y) { free(y - GUARD); }

/* A copy of x[n][c][area] in the cpu backend's layout [n][area][c]. */
static float *nhwc(const float *x, int n, int c, int area)
{
    float *y = malloc(sizeof *y * ((size_t)n * c * area + 1));
    ck_assert(y);
    for (int i = 0; i < n; i++)
        for (int ch = 0; ch < c; ch++)
            for (int p = 0; p < area; p++)
                y[((size_t)i * area + p) * c + ch] = x[((size_t)i * c + ch) * area + p];
    return y;
}

/* Per element |got-ref| <= TEST_FP32_TOL * (1 + |ref|) with got NHWC and ref NCHW, NaN/Inf must
 * match; prints at most 10 mismatches as (n,c,y,x) and checks the guard bands of got. */
static void compare(const char *what, const float *got, const float *ref, int n, int c,
                    int height, int width)
{
    int bad = 0;
    double worst = 0;
    size_t area = (size_t)height * width, len = (size_t)n * c * area;
    for (int i = 0; i < n; i++)
        for (int ch = 0; ch < c; ch++)
            for (size_t p = 0; p < area; p++) {
                double r = ref[((size_t)i * c + ch) * area + p];
                double g = got[((size_t)i * area + p) * c + ch];
                double e = fabs(g - r);
                bool ok = isfinite(r) ? isfinite(g) && e <= TEST_FP32_TOL * (1 + fabs(r))
                                      : !isfinite(g);
                worst = isfinite(e) && e > worst ? e : worst;
                if (!ok && bad++ < 10)
                    printf("%s: (n=%d,c=%d,y=%zu,x=%zu) got %.9g, ref %.9g\n", what, i, ch,
                           p / width, p % width, g, r);
            }
    for (int i = 1; i <= GUARD; i++) {
        ck_assert_msg(got[-i] == GUARD_VALUE, "%s: wrote before the output", what);
        ck_assert_msg(got[len - 1 + i] == GUARD_VALUE, "%s: wrote past the output", what);
    }
    fflush(stdout);
    ck_assert_msg(bad == 0, "%s: %d mismatches (worst %.3g)", what, bad, worst);
}

static nn_conv_desc random_conv(int k, int c_in, int c_out, bool bias)
{
    nn_conv_desc c = {.ky = k, .kx = k, .c_in = c_in, .c_out = c_out, .dil_y = 1, .dil_x = 1};
    snprintf(c.name, sizeof c.name, "test conv %dx%d %d->%d", k, k, c_in, c_out);
    /* weights scaled like a trained net's so sums stay near 1 */
    c.w = random_floats((size_t)c_out * c_in * k * k);
    float s = 1.0f / sqrtf((float)(c_in * k * k));
    for (size_t i = 0; i < (size_t)c_out * c_in * k * k; i++)
        c.w[i] *= s;
    c.bias = bias ? random_floats((size_t)c_out) : NULL;
    return c;
}

static const int chans[] = {1, 7, 96};
/* {height, width}: squares, and rectangles with ragged tiles along one side */
static const int conv_shapes[][2] = {{19, 19}, {9, 9}, {5, 5}, {2, 2}, {7, 19}, {19, 6}};

/* What the reference says, all NCHW: y = act((conv(pre(x)) + image bias) * scale + shift +
 * residual). */
static void reference_conv(const nn_conv_desc *c, int n, int height, int width, const float *x,
                           const nn_cpu_affine *pre, const nn_cpu_epilogue *e, float *ref)
{
    size_t area = (size_t)height * width;
    float *xi = malloc(sizeof *xi * (size_t)c->c_in * area);
    ck_assert(xi);
    for (int i = 0; i < n; i++) {
        for (int ch = 0; ch < c->c_in; ch++)
            for (size_t p = 0; p < area; p++) {
                double v = x[((size_t)i * c->c_in + ch) * area + p];
                if (pre)
                    v = nn_ref_activate(pre->act, v * pre->scale[ch] + pre->shift[ch]);
                xi[ch * area + p] = (float)v;
            }
        float *yi = ref + (size_t)i * c->c_out * area;
        nn_ref_conv(c, height, width, xi, yi);
        for (int ch = 0; ch < c->c_out; ch++)
            for (size_t p = 0; p < area; p++) {
                size_t at = ((size_t)i * c->c_out + ch) * area + p;
                double v = yi[ch * area + p];
                if (e->image_bias)
                    v += e->image_bias[(size_t)i * c->c_out + ch];
                v = v * (e->scale ? e->scale[ch] : 1.0) + (e->shift ? e->shift[ch] : 0.0);
                if (e->residual)
                    v += e->residual[at];
                ref[at] = (float)nn_ref_activate(e->act, v);
            }
    }
    free(xi);
}

/* _i over c_in x c_out x shapes x batches (3 x 3 x 6 x 3): the Winograd convolution, with a
 * pre-activation on odd cases and a full epilogue (image bias, batch norm, residual, mish or
 * relu) on every other pair, against the reference. */
START_TEST(winograd_matches_ref)
{
    int c_in = chans[_i / 54], c_out = chans[_i / 18 % 3];
    int height = conv_shapes[_i / 3 % 6][0], width = conv_shapes[_i / 3 % 6][1];
    int n = batch_sizes[_i % 3], area = height * width;
    if (sanitizer_skip(9.0 * c_in * c_out * area * n))
        return;
    rng_state = 1000u + (unsigned)_i;
    nn_conv_desc c = random_conv(3, c_in, c_out, _i % 2 == 0);
    size_t in_len = (size_t)n * c_in * area, out_len = (size_t)n * c_out * area;
    float *x = random_floats(in_len), *u = malloc(sizeof *u * nn_cpu_wino_filter_len(c_in, c_out));
    float *v = malloc(sizeof *v * nn_cpu_wino_scratch(n, height, width, c_in));
    float *mm = malloc(sizeof *mm * nn_cpu_wino_scratch(n, height, width, c_out));
    float *pre_s = random_floats((size_t)c_in), *pre_b = random_floats((size_t)c_in);
    float *sc = random_floats((size_t)c_out), *sh = random_floats((size_t)c_out);
    float *img = random_floats((size_t)n * c_out), *res = random_floats(out_len);
    float *ref = malloc(sizeof *ref * out_len), *got = guarded(out_len);
    float *xt = nhwc(x, n, c_in, area), *rest = nhwc(res, n, c_out, area);
    ck_assert(u && v && mm && ref);
    nn_cpu_affine pre = {pre_s, pre_b, _i % 3 ? NN_ACT_MISH : NN_ACT_RELU};
    nn_cpu_epilogue e = {.act = NN_ACT_IDENTITY, .conv_bias = c.bias};
    if (_i % 4 < 2)
        e = (nn_cpu_epilogue){c.bias, img, sc, sh, res, _i % 8 < 4 ? NN_ACT_RELU : NN_ACT_MISH};
    const nn_cpu_affine *p = _i % 2 ? &pre : NULL;
    reference_conv(&c, n, height, width, x, p, &e, ref);
    if (e.residual)
        e.residual = rest;
    nn_cpu_wino_filter(c_out, c_in, c.w, u);
    /* every fifth case through the portable kernel, and another fifth through AVX2, kernels
     * this machine may not pick */
    if (_i % 5 == 0)
        ck_assert(nn_cpu_force_kernel(NN_CPU_KERNEL_PORTABLE));
    else if (_i % 5 == 1)
        nn_cpu_force_kernel(NN_CPU_KERNEL_AVX2);   /* where the CPU has it */
    nn_cpu_wino_conv(c_in, c_out, u, n, height, width, xt, p, &e, v, mm, got);
    ck_assert(nn_cpu_force_kernel(NN_CPU_KERNEL_BEST));
    char what[160];
    snprintf(what, sizeof what, "winograd %d->%d %dx%d (w x h) batch %d case %d", c_in, c_out,
             width, height, n, _i);
    compare(what, got, ref, n, c_out, height, width);
    nn_conv_free(&c);
    free(x);
    free(xt);
    free(u);
    free(v);
    free(mm);
    free(pre_s);
    free(pre_b);
    free(sc);
    free(sh);
    free(img);
    free(res);
    free(rest);
    free(ref);
    guarded_free(got);
}
END_TEST

/* The AVX2 and AVX-512 kernels of the Winograd products give the same bits (each output one
 * chain of fused multiply-adds in the same order), on shapes with ragged tile blocks (tiles not
 * a multiple of 6 or 8), a ragged last panel (c_out 40) and the two half sums (c_in >= 32);
 * and so do the im2col and 1x1 convolutions that run on them. */
START_TEST(winograd_kernels_agree)
{
    if (!nn_cpu_force_kernel(NN_CPU_KERNEL_AVX512) || !nn_cpu_force_kernel(NN_CPU_KERNEL_AVX2)) {
        ck_assert(nn_cpu_force_kernel(NN_CPU_KERNEL_BEST));
        test_skip("this CPU lacks AVX-512 or AVX2", "winograd_kernels_agree");
        return;
    }
    static const int shapes[][4] = {{40, 40, 19, 3}, {96, 96, 19, 1}, {7, 33, 13, 5},
                                    {64, 16, 9, 7}};
    for (size_t t = 0; t < sizeof shapes / sizeof shapes[0]; t++) {
        int c_in = shapes[t][0], c_out = shapes[t][1], size = shapes[t][2], n = shapes[t][3];
        size_t out_len = (size_t)n * c_out * size * size;
        rng_state = 7000u + (unsigned)t;
        nn_conv_desc c = random_conv(3, c_in, c_out, true);
        float *x = random_floats((size_t)n * c_in * size * size);
        float *u = malloc(sizeof *u * nn_cpu_wino_filter_len(c_in, c_out));
        float *v = malloc(sizeof *v * nn_cpu_wino_scratch(n, size, size, c_in));
        float *mm = malloc(sizeof *mm * nn_cpu_wino_scratch(n, size, size, c_out));
        float *y[2] = {malloc(sizeof(float) * out_len), malloc(sizeof(float) * out_len)};
        ck_assert(u && v && mm && y[0] && y[1]);
        nn_cpu_wino_filter(c_out, c_in, c.w, u);
        nn_cpu_epilogue e = {.act = NN_ACT_MISH, .conv_bias = c.bias};
        for (int k = 0; k < 2; k++) {
            ck_assert(nn_cpu_force_kernel(k ? NN_CPU_KERNEL_AVX512 : NN_CPU_KERNEL_AVX2));
            ck_assert_str_eq(nn_cpu_kernel_name(), k ? "avx512" : "avx2");
            nn_cpu_wino_conv(c_in, c_out, u, n, size, size, x, NULL, &e, v, mm, y[k]);
        }
        ck_assert_msg(!memcmp(y[0], y[1], sizeof(float) * out_len),
                      "shape %zu: AVX2 and AVX-512 differ", t);
        nn_conv_free(&c);
        free(x);
        free(u);
        free(v);
        free(mm);
        free(y[0]);
        free(y[1]);
    }
    /* the im2col and 1x1 convolutions run on the same kernels: a 5x5 (k = 275, two half sums)
     * and a 1x1 with a ragged last panel */
    static const int gemm_shapes[][4] = {{5, 11, 40, 2}, {1, 96, 33, 3}};
    for (size_t t = 0; t < sizeof gemm_shapes / sizeof gemm_shapes[0]; t++) {
        int k = gemm_shapes[t][0], c_in = gemm_shapes[t][1], c_out = gemm_shapes[t][2];
        int n = gemm_shapes[t][3], size = 19;
        size_t out_len = (size_t)n * c_out * size * size;
        rng_state = 7100u + (unsigned)t;
        nn_conv_desc c = random_conv(k, c_in, c_out, true);
        float *x = random_floats((size_t)n * c_in * size * size);
        float *w = malloc(sizeof *w * nn_cpu_gemm_weights_len(&c));
        float *scratch = malloc(sizeof *scratch * nn_cpu_gemm_conv_scratch(&c, n, size, size));
        float *y[2] = {malloc(sizeof(float) * out_len), malloc(sizeof(float) * out_len)};
        ck_assert(w && scratch && y[0] && y[1]);
        nn_cpu_gemm_weights(&c, w);
        nn_cpu_epilogue e = {.act = NN_ACT_MISH, .conv_bias = c.bias};
        for (int kk = 0; kk < 2; kk++) {
            ck_assert(nn_cpu_force_kernel(kk ? NN_CPU_KERNEL_AVX512 : NN_CPU_KERNEL_AVX2));
            nn_cpu_gemm_conv(&c, w, n, size, size, x, NULL, &e, scratch, y[kk]);
        }
        ck_assert_msg(!memcmp(y[0], y[1], sizeof(float) * out_len),
                      "gemm shape %zu: AVX2 and AVX-512 differ", t);
        nn_conv_free(&c);
        free(x);
        free(w);
        free(scratch);
        free(y[0]);
        free(y[1]);
    }
    ck_assert(nn_cpu_force_kernel(NN_CPU_KERNEL_BEST));
}
END_TEST

static const int kernels[] = {1, 3, 5};

/* _i over kernels x c_in x c_out x batches (3 x 3 x 3 x 2) on 19x19 (1x1), 11 wide by 6 high
 * (5x5), 13x13 (3x3 dilated (2, 1)): the im2col path, the residual being the output itself as
 * in KataGo's nested blocks. */
START_TEST(gemm_conv_matches_ref)
{
    int k = kernels[_i / 18], c_in = chans[_i / 6 % 3], c_out = chans[_i / 2 % 3];
    int n = _i % 2 ? 3 : 1, height = k == 3 ? 13 : k == 5 ? 6 : 19;
    int width = k == 3 ? 13 : k == 5 ? 11 : 19, area = height * width;
    if (sanitizer_skip((double)k * k * c_in * c_out * area * n))
        return;
    rng_state = 5000u + (unsigned)_i;
    nn_conv_desc c = random_conv(k, c_in, c_out, _i % 3 == 0);
    if (k == 3)
        c.dil_y = 2;
    size_t out_len = (size_t)n * c_out * area;
    float *x = random_floats((size_t)n * c_in * area), *res = random_floats(out_len);
    float *pre_s = random_floats((size_t)c_in), *pre_b = random_floats((size_t)c_in);
    float *ref = malloc(sizeof *ref * out_len), *got = guarded(out_len);
    float *scratch = malloc(sizeof *scratch * nn_cpu_gemm_conv_scratch(&c, n, height, width));
    float *w = malloc(sizeof *w * nn_cpu_gemm_weights_len(&c));
    float *xt = nhwc(x, n, c_in, area), *rest = nhwc(res, n, c_out, area);
    ck_assert(ref && scratch && w);
    memcpy(got, rest, sizeof *got * out_len);
    nn_cpu_affine pre = {pre_s, pre_b, NN_ACT_RELU};
    nn_cpu_epilogue e = {.conv_bias = c.bias, .residual = res, .act = NN_ACT_MISH};
    const nn_cpu_affine *p = _i % 4 < 2 ? &pre : NULL;
    reference_conv(&c, n, height, width, x, p, &e, ref);
    e.residual = got;
    nn_cpu_gemm_weights(&c, w);
    nn_cpu_gemm_conv(&c, w, n, height, width, xt, p, &e, scratch, got);
    char what[160];
    snprintf(what, sizeof what, "gemm conv %dx%d %d->%d batch %d", k, k, c_in, c_out, n);
    compare(what, got, ref, n, c_out, height, width);
    nn_conv_free(&c);
    free(x);
    free(xt);
    free(res);
    free(rest);
    free(pre_s);
    free(pre_b);
    free(ref);
    free(scratch);
    free(w);
    guarded_free(got);
}
END_TEST

/* _i over c_in x c_out (1/7/96 each) x batch 1/17: batched matmul against the reference. */
START_TEST(matmul_matches_ref)
{
    int c_in = chans[_i / 6], c_out = chans[_i / 2 % 3], n = _i % 2 ? 17 : 1;
    rng_state = 9000u + (unsigned)_i;
    nn_matmul_desc m = {.c_in = c_in, .c_out = c_out};
    snprintf(m.name, sizeof m.name, "test matmul");
    m.w = random_floats((size_t)c_in * c_out);
    m.bias = _i % 4 < 2 ? random_floats((size_t)c_out) : NULL;
    float *x = random_floats((size_t)n * c_in), *ref = malloc(sizeof *ref * (size_t)n * c_out);
    float *got = guarded((size_t)n * c_out);
    ck_assert(ref);
    for (int i = 0; i < n; i++)
        nn_ref_matmul(&m, x + (size_t)i * c_in, ref + (size_t)i * c_out);
    nn_cpu_matmul_batch(&m, n, x, got);
    compare("matmul", got, ref, n, c_out, 1, 1);
    nn_matmul_free(&m);
    free(x);
    free(ref);
    guarded_free(got);
}
END_TEST

/* ---- human-SL metadata ---------------------------------------------------------------------- */

#define TWO_PI 6.283185307179586

/* |got - want| <= 1e-6 for feature i */
static void feature_is(const float *f, int i, double want, const char *profile)
{
    ck_assert_msg(fabs(f[i] - want) <= 1e-6, "%s: feature %d is %.9g, want %.9g", profile, i,
                  f[i], want);
}

/* features [from, to) all equal to v */
static void features_are(const float *f, int from, int to, double v, const char *profile)
{
    for (int i = from; i < to; i++)
        feature_is(f, i, v, profile);
}

/* KataGo's fillMetadataRow worked out by hand for a few profiles: day counts from 1970-01-01
 * (2020-03-01 is day 18322 = 7 * 2617 + 3, 2016-09-01 day 17045 = 7 * 2435, 1990-06-01 day
 * 7456 = 7 * 1065 + 1), so the weekly hand (features 87, 88) sits at 3/7, 0 and 1/7 of a turn. */
START_TEST(profile_features_by_hand)
{
    char err[256];
    nn_kata_profile p;
    float f[NN_KATA_META_INPUTS];

    ck_assert_msg(nn_kata_profile_parse("rank_9d", &p, err, sizeof err), "%s", err);
    nn_kata_profile_features(&p, GO_BLACK, 361, f);
    features_are(f, 0, 2, 1, "rank_9d");          /* both human */
    features_are(f, 2, 6, 0, "rank_9d");          /* ranked, ranks known */
    feature_is(f, 6, 1, "rank_9d");               /* inverse rank 1: one step each */
    features_are(f, 7, 40, 0, "rank_9d");
    feature_is(f, 40, 1, "rank_9d");
    features_are(f, 41, 74, 0, "rank_9d");
    feature_is(f, 74, 0.5, "rank_9d");            /* ratedness unknown */
    features_are(f, 75, 79, 0, "rank_9d");
    feature_is(f, 79, 1, "rank_9d");              /* byo-yomi */
    features_are(f, 80, 82, 0, "rank_9d");
    feature_is(f, 82, 0.4 * (log(1200.0 + 60) - 6.5), "rank_9d");
    feature_is(f, 83, 0.3 * (log(30.0 + 1) - 3), "rank_9d");
    feature_is(f, 84, 0.5 * (log(5.0 + 2) - 1.5), "rank_9d");
    feature_is(f, 85, 0.25 * (log(2.0) - 1.5), "rank_9d");
    feature_is(f, 86, 0, "rank_9d");              /* 19x19 */
    feature_is(f, 87, cos(2 * TWO_PI / 2 * 3 / 7), "rank_9d");
    feature_is(f, 88, sin(2 * TWO_PI / 2 * 3 / 7), "rank_9d");
    feature_is(f, 149, cos(2 * TWO_PI / 2 * 18322 / 560000.0), "rank_9d");   /* 7 * 80000 days */
    feature_is(f, 150, sin(2 * TWO_PI / 2 * 18322 / 560000.0), "rank_9d");
    features_are(f, 151, 153, 0, "rank_9d");
    feature_is(f, 153, 1, "rank_9d");             /* KGS */
    features_are(f, 154, NN_KATA_META_INPUTS, 0, "rank_9d");

    ck_assert(nn_kata_profile_parse("rank_20k", &p, err, sizeof err));
    nn_kata_profile_features(&p, GO_WHITE, 81, f);
    features_are(f, 6, 35, 1, "rank_20k");        /* inverse rank 29 */
    features_are(f, 35, 40, 0, "rank_20k");
    features_are(f, 40, 69, 1, "rank_20k");
    features_are(f, 69, 74, 0, "rank_20k");
    feature_is(f, 86, 0.5 * log(81 / 361.0), "rank_20k");

    /* black 5k (inverse 14), white 1d (9), white to move: the player's rank comes first */
    ck_assert(nn_kata_profile_parse("preaz_5k_1d", &p, err, sizeof err));
    nn_kata_profile_features(&p, GO_WHITE, 169, f);
    features_are(f, 6, 15, 1, "preaz_5k_1d");
    features_are(f, 15, 40, 0, "preaz_5k_1d");
    features_are(f, 40, 54, 1, "preaz_5k_1d");
    features_are(f, 54, 74, 0, "preaz_5k_1d");
    feature_is(f, 87, 1, "preaz_5k_1d");
    feature_is(f, 88, 0, "preaz_5k_1d");
    feature_is(f, 153, 1, "preaz_5k_1d");

    ck_assert(nn_kata_profile_parse("proyear_1990", &p, err, sizeof err));
    nn_kata_profile_features(&p, GO_BLACK, 361, f);
    feature_is(f, 6, 1, "proyear_1990");
    feature_is(f, 7, 0, "proyear_1990");
    feature_is(f, 74, 0, "proyear_1990");         /* rated */
    feature_is(f, 75, 1, "proyear_1990");         /* time control unknown */
    features_are(f, 76, 82, 0, "proyear_1990");
    feature_is(f, 82, 0.4 * (log(60.0) - 6.5), "proyear_1990");
    feature_is(f, 83, -0.9, "proyear_1990");
    feature_is(f, 84, 0.5 * (log(2.0) - 1.5), "proyear_1990");
    feature_is(f, 87, cos(2 * TWO_PI / 2 / 7), "proyear_1990");
    feature_is(f, 88, sin(2 * TWO_PI / 2 / 7), "proyear_1990");
    feature_is(f, 156, 1, "proyear_1990");        /* GoGoD */
    ck_assert(nn_kata_profile_parse("proyear_2022", &p, err, sizeof err));
    nn_kata_profile_features(&p, GO_BLACK, 361, f);
    feature_is(f, 156, 0, "proyear_2022");
    feature_is(f, 157, 1, "proyear_2022");        /* Go4Go */

    static const char *const bad[] = {"", "rank_", "rank_21k", "rank_0d", "rank_10d", "rank_9d_",
                                      "rank_9dx", "preaz_", "proyear_1799", "proyear_2024",
                                      "proyear_19x0", "human", "rank_5k_1d_2d"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        ck_assert_msg(!nn_kata_profile_parse(bad[i], &p, err, sizeof err), "%s accepted", bad[i]);
        ck_assert_msg(strstr(err, "unknown human SL profile"), "%s", err);
    }
}
END_TEST

/* A small version 15 net with a metadata encoder (192 -> 16 -> 16 -> trunk), the same weights
 * for the same seed. */
static nn_desc *meta_net(void)
{
    nn_desc *d = weights_synth_kata(&synth_shapes[0], 5);
    ck_assert(d);
    ck_assert(weights_synth_kata_add_meta(d, 16, 77));
    return d;
}

#define META_BATCH 4
static const char *const meta_profiles[META_BATCH] = {"rank_9d", "rank_20k", "proyear_1990",
                                                      "preaz_5k_1d"};

/* Through nn_eval: a batch mixing profiles, boards and sides to move on the cpu backend equals
 * the reference; one position alone equals its slot of the batch; the profile changes the
 * outputs; no profile is refused as KataGo refuses, and the context's profile stands in for a
 * query's. */
START_TEST(meta_net_through_nn_eval)
{
    char err[1024];
    nn_model *m[2];
    nn_context *c[2];
    for (int b = 0; b < 2; b++) {
        m[b] = nn_model_from_desc(meta_net(), backends[b], err, sizeof err);
        ck_assert_msg(m[b], "%s", err);
        c[b] = nn_context_new(m[b], META_BATCH, err, sizeof err);
        ck_assert_msg(c[b], "%s", err);
    }
    nn_kata_profile prof[META_BATCH];
    go_game g[META_BATCH];
    nn_query q[META_BATCH];
    static const int sizes[META_BATCH] = {19, 9, 13, 19};
    for (int i = 0; i < META_BATCH; i++) {
        ck_assert(nn_kata_profile_parse(meta_profiles[i], &prof[i], err, sizeof err));
        test_game_random(&g[i], sizes[i], 5 + i, (unsigned)i + 20);
        q[i] = (nn_query){.game = &g[i], .symmetry = (3 * i) % 8, .policy_optimism = 0.2,
                          .profile = &prof[i]};
    }
    nn_result *r = malloc(sizeof *r * 3 * META_BATCH);
    ck_assert(r);
    for (int b = 0; b < 2; b++)
        ck_assert_msg(nn_eval(c[b], META_BATCH, q, r + b * META_BATCH, err, sizeof err), "%s",
                      err);
    for (int i = 0; i < META_BATCH; i++) {
        double d = test_result_full_diff(&r[i], &r[META_BATCH + i]);
        printf("meta net %s position %d: cpu - ref max |diff| %.3g\n", meta_profiles[i], i, d);
        ck_assert_msg(d <= TEST_FP32_TOL, "%s: cpu differs from ref by %g", meta_profiles[i], d);
        ck_assert_msg(nn_eval(c[0], 1, &q[i], &r[2 * META_BATCH], err, sizeof err), "%s", err);
        ck_assert(test_result_full_diff(&r[i], &r[2 * META_BATCH]) == 0);
    }
    /* the same position under another profile: rank_9d against rank_20k */
    nn_query other = q[0];
    other.profile = &prof[1];
    ck_assert(nn_eval(c[0], 1, &other, &r[2 * META_BATCH], err, sizeof err));
    double moved = test_result_full_diff(&r[0], &r[2 * META_BATCH]);
    printf("meta net: rank_9d against rank_20k, max |diff| %.3g\n", moved);
    ck_assert_msg(moved > 1e-3, "the profile does not change the outputs (%g)", moved);

    other.profile = NULL;
    for (int b = 0; b < 2; b++) {
        ck_assert(!nn_eval(c[b], 1, &other, &r[2 * META_BATCH], err, sizeof err));
        ck_assert_msg(strstr(err, "needs a profile"), "%s", err);
        nn_context_set_profile(c[b], &prof[1]);
        ck_assert_msg(nn_eval(c[b], 1, &other, &r[2 * META_BATCH + b], err, sizeof err), "%s",
                      err);
        nn_context_set_profile(c[b], NULL);
    }
    ck_assert(test_result_full_diff(&r[2 * META_BATCH], &r[2 * META_BATCH + 1]) <=
              TEST_FP32_TOL);
    prof[1].source = 16;
    other.profile = &prof[1];
    ck_assert(!nn_eval(c[1], 1, &other, r, err, sizeof err));
    ck_assert_msg(strstr(err, "bad profile"), "%s", err);
    free(r);
    for (int i = 0; i < META_BATCH; i++)
        go_game_free(&g[i]);
    for (int b = 0; b < 2; b++) {
        nn_context_free(c[b]);
        nn_model_free(m[b]);
    }
}
END_TEST

/* The backends themselves (nn/backend.h): cpu equals ref with the metadata features of several
 * profiles and without any (the encoder left out), and the features move the outputs. */
START_TEST(meta_net_backends)
{
    char err[1024];
    const int n = META_BATCH, size = 13, area = size * size;
    nn_desc *d = meta_net();
    const nn_kata_desc *k = d->kata;
    int oc = k->policy.out_channels, sc = k->score_channels;
    float *spatial = random_floats((size_t)n * k->num_spatial * area);
    float *global = random_floats((size_t)n * k->num_global);
    float *meta = malloc(sizeof *meta * n * NN_KATA_META_INPUTS);
    ck_assert(meta);
    for (size_t i = 0; i < (size_t)n * k->num_spatial * area; i++)
        spatial[i] = spatial[i] > 0;   /* planes hold 0/1 */
    for (int i = 0; i < n; i++) {
        nn_kata_profile p;
        ck_assert(nn_kata_profile_parse(meta_profiles[i], &p, err, sizeof err));
        nn_kata_profile_features(&p, i % 2 ? GO_WHITE : GO_BLACK, area,
                                 meta + (size_t)i * NN_KATA_META_INPUTS);
    }
    /* [backend][with meta]: policy, pass, value, score, ownership back to back per position */
    size_t per = (size_t)oc * area + oc + 3 + sc + area;
    float *out[2][2];
    for (int b = 0; b < 2; b++) {
        const nn_backend_ops *ops = nn_backend_find(backends[b]);
        ck_assert(ops);
        void *w = ops->load(d, NULL, err, sizeof err);
        ck_assert_msg(w, "%s", err);
        void *ctx = ops->context_new(d, w, n, err, sizeof err);
        ck_assert_msg(ctx, "%s", err);
        for (int with = 0; with < 2; with++) {
            float *o = out[b][with] = malloc(sizeof *o * per * n);
            ck_assert(o);
            nn_backend_batch batch = {.n = n, .width = size, .height = size, .spatial = spatial,
                                      .global = global, .meta = with ? meta : NULL, .policy = o,
                                      .pass = o + (size_t)n * oc * area};
            batch.value = batch.pass + n * oc;
            batch.score = batch.value + n * 3;
            batch.ownership = batch.score + n * sc;
            ck_assert_msg(ops->forward(ctx, &batch, err, sizeof err), "%s", err);
        }
        ops->context_free(ctx);
        ops->free(w);
    }
    double moved = 0;
    for (int with = 0; with < 2; with++) {
        double worst = 0;
        for (size_t i = 0; i < per * n; i++) {
            double r = out[0][with][i], e = fabs(out[1][with][i] - r);
            ck_assert_msg(e <= TEST_FP32_TOL * (1 + fabs(r)),
                          "%s meta: output %zu cpu %.9g ref %.9g", with ? "with" : "without", i,
                          out[1][with][i], r);
            worst = fmax(worst, e);
            if (with)
                moved = fmax(moved, fabs(out[0][1][i] - out[0][0][i]));
        }
        printf("meta net backends %s meta: cpu - ref max |diff| %.3g\n", with ? "with" : "without",
               worst);
    }
    ck_assert_msg(moved > 1e-3, "the metadata features do not change the outputs (%g)", moved);
    for (int b = 0; b < 2; b++)
        for (int with = 0; with < 2; with++)
            free(out[b][with]);
    free(spatial);
    free(global);
    free(meta);
    nn_desc_free(d);
}
END_TEST

Suite *nn_suite(void)
{
    Suite *s = suite_create("nn");
    TCase *layers = tcase_create("layers");
    tcase_set_timeout(layers, 300);
    tcase_add_test(layers, winograd_kernels_agree);
    tcase_add_loop_test(layers, winograd_matches_ref, 0, 162);
    tcase_add_loop_test(layers, gemm_conv_matches_ref, 0, 54);
    tcase_add_loop_test(layers, matmul_matches_ref, 0, 18);
    suite_add_tcase(s, layers);

    TCase *eval = tcase_create("eval");
    tcase_set_timeout(eval, 600);
    tcase_add_loop_test(eval, batch_equals_single, 0, 6);
    tcase_add_test(eval, average_is_mean);
    tcase_add_loop_test(eval, synthetic_cpu_matches_ref, 0, 5);
    tcase_add_loop_test(eval, tiny_v16_v17_files_cpu_matches_ref, 0, 2);
    tcase_add_test(eval, eval_errors);
    tcase_add_test(eval, forward_again);
    tcase_add_test(eval, bench_workers_start_together);
    tcase_add_test(eval, eval_threads);
    tcase_add_test(eval, profile_features_by_hand);
    tcase_add_test(eval, meta_net_through_nn_eval);
    tcase_add_test(eval, meta_net_backends);
    suite_add_tcase(s, eval);

    TCase *vec = tcase_create("vectors");
    tcase_set_timeout(vec, 1200);
    tcase_add_loop_test(vec, vectors_through_nn_eval, 0, 2 * VEC_NUM_CASES);
    suite_add_tcase(s, vec);

    TCase *tf = tcase_create("transformer");
    tcase_set_timeout(tf, 600);
    tcase_add_test(tf, transformer_vectors_cpu);
    suite_add_tcase(s, tf);
    return s;
}

int main(void) { return test_run_suite(nn_suite()); }
