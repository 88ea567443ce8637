/* tests/test_cpu.c -- the float32 OpenBLAS path (nn/cpu): each layer against the double
 * reference of nn/ref/ref_ops.h on awkward shapes (channels 1/7/96, boards 9/13/19, kernels
 * 1/3/5, guard bands around every output), and whole networks reproducing KataGo's and Leela
 * Zero's own outputs in ../shared/vectors with the tolerances of test_kata and test_lz. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "go/game.h"
#include "nn/cpu/blas_ops.h"
#include "nn/cpu/cpu_forward.h"
#include "nn/desc.h"
#include "nn/desc_lz.h"
#include "nn/ref/ref_ops.h"
#include "tests/vectors.h"
#include "weights/kata.h"
#include "weights/lz.h"

#define WEIGHTS SHIDO_SHARED_DIR "/weights/"
#define VECTORS SHIDO_SHARED_DIR "/vectors/"

/* ---- layers against the reference ---------------------------------------------------------- */

#define GUARD 64
#define GUARD_VALUE 12345.0f
#define LAYER_RTOL 1e-4

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

/* Compares got with ref per element, |got-ref| <= rtol * (1 + |ref|), NaN/Inf must match;
 * prints at most 10 mismatches as (c,y,x) and checks the guard bands of got. */
static void compare(const char *what, const float *got, const float *ref, int c, int h, int w)
{
    int bad = 0;
    double worst = 0;
    for (int ch = 0; ch < c; ch++)
        for (int r = 0; r < h; r++)
            for (int col = 0; col < w; col++) {
                size_t i = ((size_t)ch * h + r) * w + col;
                double e = fabs((double)got[i] - ref[i]);
                bool ok = isfinite(ref[i])
                              ? isfinite(got[i]) && e <= LAYER_RTOL * (1 + fabs(ref[i]))
                              : !isfinite(got[i]);
                worst = isfinite(e) && e > worst ? e : worst;
                if (!ok && bad++ < 10)
                    printf("%s: (c=%d,y=%d,x=%d) got %.9g, ref %.9g\n", what, ch, r, col,
                           got[i], ref[i]);
            }
    size_t n = (size_t)c * h * w;
    for (int i = 1; i <= GUARD; i++) {
        ck_assert_msg(got[-i] == GUARD_VALUE, "%s: wrote before the output", what);
        ck_assert_msg(got[n - 1 + i] == GUARD_VALUE, "%s: wrote past the output", what);
    }
    ck_assert_msg(bad == 0, "%s: %d mismatches (worst %.3g)", what, bad, worst);
}

static const int chans[] = {1, 7, 96};
static const int sides[] = {9, 13, 19};
static const int kernels[] = {1, 3, 5};

/* _i runs over channels in x channels out x board sides x kernels; odd cases have no bias, and
 * the 3x3 ones on 13x13 also run dilated (2, 1). */
START_TEST(conv_matches_ref)
{
    int c_in = chans[_i % 3], c_out = chans[_i / 3 % 3], n = sides[_i / 9 % 3];
    int k = kernels[_i / 27 % 3];
    rng_state = 1000 + (unsigned long long)_i;
    for (int dil = 1; dil <= (k == 3 && n == 13 ? 2 : 1); dil++) {
        nn_conv_desc c = {.ky = k, .kx = k, .c_in = c_in, .c_out = c_out, .dil_y = dil,
                          .dil_x = 1};
        snprintf(c.name, sizeof c.name, "conv %dx%d %d->%d on %dx%d dil %d", k, k, c_in, c_out, n,
                 n, dil);
        c.w = random_floats((size_t)c_out * c_in * k * k);
        c.bias = _i % 2 ? NULL : random_floats((size_t)c_out);
        float *x = random_floats((size_t)c_in * n * n);
        float *ref = guarded((size_t)c_out * n * n), *got = guarded((size_t)c_out * n * n);
        nn_ref_conv(&c, n, n, x, ref);
        nn_cpu_conv(&c, n, n, x, got);
        compare(c.name, got, ref, c_out, n, n);
        guarded_free(ref);
        guarded_free(got);
        free(x);
        nn_conv_free(&c);
    }
    nn_cpu_scratch_free();
}
END_TEST

/* _i runs over channels x board sides x activations; odd cases use a mask and NULL scale/bias. */
START_TEST(bn_act_matches_ref)
{
    int c = chans[_i % 3], n = sides[_i / 3 % 3];
    nn_activation act = (nn_activation)(_i / 9 % 3);
    rng_state = 2000 + (unsigned long long)_i;
    nn_bn_desc b = {.c = c, .eps = 1e-5f};
    snprintf(b.name, sizeof b.name, "bn c %d on %dx%d act %d%s", c, n, n, (int)act,
             _i % 2 ? " masked" : "");
    b.mean = random_floats((size_t)c);
    b.var = random_floats((size_t)c);
    for (int i = 0; i < c; i++)
        b.var[i] = fabsf(b.var[i]) + 0.01f;
    b.scale = _i % 2 ? NULL : random_floats((size_t)c);
    b.bias = _i % 2 ? NULL : random_floats((size_t)c);
    float *mask = NULL;
    if (_i % 2) {
        mask = malloc(sizeof *mask * (size_t)(n * n));
        ck_assert(mask);
        for (int i = 0; i < n * n; i++)
            mask[i] = i % n < n - 2 && i / n < n - 2 ? 1.0f : 0.0f;
    }
    size_t len = (size_t)c * n * n;
    float *x = random_floats(len);
    for (size_t i = 0; i < len; i++)
        x[i] *= 30.0f;  /* reach both the linear tail and the cut-off of mish */
    float *ref = guarded(len), *got = guarded(len);
    memcpy(ref, x, sizeof *x * len);
    memcpy(got, x, sizeof *x * len);
    nn_ref_bn_act(&b, act, n, n, mask, ref);
    nn_cpu_bn_act(&b, act, n, n, mask, got);
    compare(b.name, got, ref, c, n, n);
    guarded_free(ref);
    guarded_free(got);
    free(x);
    free(mask);
    nn_bn_free(&b);
}
END_TEST

/* _i runs over c_in x c_out in {1, 7, 96, 361}; odd cases have no bias. */
START_TEST(matmul_matches_ref)
{
    static const int sizes[] = {1, 7, 96, 361};
    int c_in = sizes[_i % 4], c_out = sizes[_i / 4];
    rng_state = 3000 + (unsigned long long)_i;
    nn_matmul_desc m = {.c_in = c_in, .c_out = c_out};
    snprintf(m.name, sizeof m.name, "matmul %d->%d", c_in, c_out);
    m.w = random_floats((size_t)c_in * c_out);
    m.bias = _i % 2 ? NULL : random_floats((size_t)c_out);
    float *x = random_floats((size_t)c_in);
    float *ref = guarded((size_t)c_out), *got = guarded((size_t)c_out);
    nn_ref_matmul(&m, x, ref);
    nn_cpu_matmul(&m, x, got);
    compare(m.name, got, ref, c_out, 1, 1);
    guarded_free(ref);
    guarded_free(got);
    free(x);
    nn_matmul_free(&m);
}
END_TEST

/* ---- KataGo vectors ------------------------------------------------------------------------ */

enum { F_WIN, F_LOSS, F_NORESULT, F_LEAD, F_SCORE, F_SCORE_SQ, F_VARTIME, F_ST_WL, F_ST_SCORE,
       F_POLICY, F_PASS, F_OWNERSHIP, F_COUNT };
static const char *field_name[F_COUNT] = {
    "whiteWin", "whiteLoss", "noResult", "whiteLead", "whiteScoreSelfplay",
    "whiteScoreSelfplaySq", "varTimeLeft", "shorttermWinlossError", "shorttermScoreError",
    "policy", "policyPass", "whiteOwnership"};
/* As test_kata: probabilities, policy and ownership 2e-5, scores 2e-3 points, the squared score
 * 2e-5 relative. */
static const double field_tol[F_COUNT] = {2e-5, 2e-5, 2e-5, 2e-3, 2e-3, 2e-5, 2e-3, 2e-3, 2e-3,
                                          2e-5, 2e-5, 2e-5};

static double json_num(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    ck_assert_msg(cJSON_IsNumber(v), "vector field %s missing", key);
    return v->valuedouble;
}

static void note(double e, const char *id, double *worst, const char **worst_id)
{
    if (e > *worst) {
        *worst = e;
        *worst_id = id;
    }
}

static const struct { const char *weights, *vectors; } kata_cases[] = {
    {"g170-b6c96-s175395328-d26788732.bin.gz", "katago-g170-b6c96.jsonl"},
    {"rand-b2c16-v15.bin.gz", "katago-rand-b2c16-v15.jsonl"},
    {"rand-b5c192nbt-v15.bin.gz", "katago-rand-b5c192nbt-v15.jsonl"},
};

START_TEST(kata_vectors)
{
    char err[2048], path[1024];
    snprintf(path, sizeof path, "%s%s", WEIGHTS, kata_cases[_i].weights);
    nn_desc *d = weights_load_kata(path, err, sizeof err);
    ck_assert_msg(d, "%s", err);
    snprintf(path, sizeof path, "%s%s", VECTORS, kata_cases[_i].vectors);
    vec_file vf;
    ck_assert_msg(vec_file_read(path, &vf, err, sizeof err), "%s", err);
    ck_assert_int_gt(vf.num_records, 0);
    double worst[F_COUNT] = {0};
    const char *worst_id[F_COUNT] = {0};
    nn_kata_output *out = malloc(sizeof *out);
    ck_assert(out);
    int checked = 0;
    for (int r = 0; r < vf.num_records; r += vec_stride()) {
        const cJSON *rec = vf.records[r];
        const char *id = cJSON_GetObjectItemCaseSensitive(rec, "id")->valuestring;
        int sym = (int)json_num(rec, "symmetry");
        go_game g;
        ck_assert_msg(vec_setup_game(rec, &g, err, sizeof err), "%s: %s", id, err);
        ck_assert_msg(nn_kata_cpu_eval(d, &g, sym, NN_KATA_DEFAULT_OPTIMISM, out, err, sizeof err),
                      "%s: %s", id, err);
        const cJSON *o = cJSON_GetObjectItemCaseSensitive(rec, "outputs");
        double got[F_COUNT] = {out->white_win, out->white_loss, out->no_result, out->white_lead,
                               out->white_score_selfplay, out->white_score_selfplay_sq,
                               out->var_time_left, out->shortterm_winloss_error,
                               out->shortterm_score_error};
        for (int f = 0; f <= F_ST_SCORE; f++) {
            double want = json_num(o, field_name[f]), e = fabs(got[f] - want);
            if (f == F_SCORE_SQ)
                e /= fmax(1.0, fabs(want));
            note(isnan(e) ? INFINITY : e, id, &worst[f], &worst_id[f]);
        }
        const cJSON *pol = cJSON_GetObjectItemCaseSensitive(o, "policy");
        const cJSON *own = cJSON_GetObjectItemCaseSensitive(o, "whiteOwnership");
        int area = g.board.size * g.board.size;
        ck_assert_int_eq(cJSON_GetArraySize(pol), area);
        ck_assert_int_eq(cJSON_GetArraySize(own), area);
        for (int i = 0; i < area; i++) {
            const cJSON *pv = cJSON_GetArrayItem(pol, i);
            if (cJSON_IsNull(pv)) {
                ck_assert_msg(isnan(out->policy[i]), "%s sym %d: point %d illegal in KataGo", id,
                              sym, i);
            } else {
                ck_assert_msg(isfinite(out->policy[i]), "%s sym %d: point %d legal in KataGo",
                              id, sym, i);
                note(fabs(out->policy[i] - pv->valuedouble), id, &worst[F_POLICY],
                     &worst_id[F_POLICY]);
            }
            double e = fabs(out->white_ownership[i] - cJSON_GetArrayItem(own, i)->valuedouble);
            note(isnan(e) ? INFINITY : e, id, &worst[F_OWNERSHIP], &worst_id[F_OWNERSHIP]);
        }
        double e = fabs(out->policy_pass - json_num(o, "policyPass"));
        note(isnan(e) ? INFINITY : e, id, &worst[F_PASS], &worst_id[F_PASS]);
        go_game_free(&g);
        checked++;
    }
    printf("cpu %s: %d of %d records, max |error| per field:\n", kata_cases[_i].vectors, checked,
           vf.num_records);
    for (int f = 0; f < F_COUNT; f++)
        printf("  %-22s %.3g%s  (%s)\n", field_name[f], worst[f],
               f == F_SCORE_SQ ? " relative" : "", worst_id[f] ? worst_id[f] : "-");
    fflush(stdout);
    for (int f = 0; f < F_COUNT; f++)
        ck_assert_msg(worst[f] <= field_tol[f], "%s: %s off by %g at %s", kata_cases[_i].vectors,
                      field_name[f], worst[f], worst_id[f]);
    free(out);
    vec_file_free(&vf);
    nn_desc_free(d);
    nn_cpu_scratch_free();
}
END_TEST

/* ---- Leela Zero vectors -------------------------------------------------------------------- */

#define LZ_POLICY_TOL 2e-5
#define LZ_WINRATE_TOL 2e-5

static const struct { const char *weights, *vectors; } lz_cases[] = {
    {"lz-0k.txt", "lz-0k.jsonl"},
    {"lz-rand-b4c32.txt.gz", "lz-rand-b4c32.jsonl"},
    {"lz-rand-b2c16-v2.txt.gz", "lz-rand-b2c16-v2.jsonl"},
};

START_TEST(lz_vectors)
{
    char err[2048] = "", path[1024];
    snprintf(path, sizeof path, "%s%s", WEIGHTS, lz_cases[_i].weights);
    nn_desc *d = weights_load_lz(path, err, sizeof err);
    ck_assert_msg(d, "%s", err);
    snprintf(path, sizeof path, "%s%s", VECTORS, lz_cases[_i].vectors);
    vec_file vf;
    ck_assert_msg(vec_file_read(path, &vf, err, sizeof err), "%s", err);
    ck_assert_int_gt(vf.num_records, 0);
    double max_policy = 0, max_winrate = 0;
    int checked = 0;
    for (int r = 0; r < vf.num_records; r += vec_stride()) {
        const cJSON *rec = vf.records[r];
        const char *id = cJSON_GetObjectItemCaseSensitive(rec, "id")->valuestring;
        int sym = cJSON_GetObjectItemCaseSensitive(rec, "symmetry")->valueint;
        const cJSON *out = cJSON_GetObjectItemCaseSensitive(rec, "outputs");
        const cJSON *want_policy = cJSON_GetObjectItemCaseSensitive(out, "policy");
        ck_assert_int_eq(cJSON_GetArraySize(want_policy), NN_LZ_POINTS);
        go_game g;
        ck_assert_msg(vec_setup_game(rec, &g, err, sizeof err), "%s: %s", id, err);
        float policy[NN_LZ_POLICY_OUTPUTS], winrate = -1;
        ck_assert_msg(nn_lz_cpu_eval(d, &g, sym, policy, &winrate, err, sizeof err), "%s: %s",
                      id, err);
        double worst = 0;
        int worst_at = -1;
        for (int i = 0; i <= NN_LZ_POINTS; i++) {
            double want = i < NN_LZ_POINTS
                              ? cJSON_GetArrayItem(want_policy, i)->valuedouble
                              : cJSON_GetObjectItemCaseSensitive(out, "policyPass")->valuedouble;
            ck_assert_msg(isfinite(policy[i]), "%s: policy %d not finite", id, i);
            double e = fabs(policy[i] - want);
            if (e > worst) {
                worst = e;
                worst_at = i;
            }
        }
        double want_w = cJSON_GetObjectItemCaseSensitive(out, "winrate")->valuedouble;
        double ew = fabs(winrate - want_w);
        ck_assert_msg(worst <= LZ_POLICY_TOL, "%s sym %d: policy[%d] off by %.3g", id, sym,
                      worst_at, worst);
        ck_assert_msg(ew <= LZ_WINRATE_TOL, "%s sym %d: winrate %.9f, Leela Zero %.9f", id, sym,
                      winrate, want_w);
        max_policy = worst > max_policy ? worst : max_policy;
        max_winrate = ew > max_winrate ? ew : max_winrate;
        go_game_free(&g);
        checked++;
    }
    printf("cpu %s: %d of %d records, max |policy error| %.3g, max |winrate error| %.3g\n",
           lz_cases[_i].vectors, checked, vf.num_records, max_policy, max_winrate);
    fflush(stdout);
    vec_file_free(&vf);
    nn_desc_free(d);
    nn_cpu_scratch_free();
}
END_TEST

/* The CPU evals refuse what the reference refuses, naming themselves. */
START_TEST(eval_errors)
{
    char err[1024] = "";
    nn_desc *kata = weights_load_kata(WEIGHTS "rand-b2c16-v15.bin.gz", err, sizeof err);
    ck_assert_msg(kata, "%s", err);
    go_game g;
    go_rules rules;
    go_rules_preset(&rules, "tromp-taylor");
    ck_assert(go_game_init(&g, 19, &rules, 7.5f));
    float policy[NN_LZ_POLICY_OUTPUTS], winrate;
    ck_assert(!nn_lz_cpu_eval(kata, &g, 0, policy, &winrate, err, sizeof err));
    ck_assert_msg(strstr(err, "nn_lz_cpu_eval") && strstr(err, "not a Leela Zero network"), "%s",
                  err);
    nn_kata_output *out = malloc(sizeof *out);
    ck_assert(out);
    ck_assert(!nn_kata_cpu_eval(kata, &g, 8, NN_KATA_DEFAULT_OPTIMISM, out, err, sizeof err));
    ck_assert_msg(strstr(err, "symmetry"), "%s", err);
    free(out);
    go_game_free(&g);
    nn_desc_free(kata);
}
END_TEST

Suite *cpu_suite(void)
{
    Suite *s = suite_create("cpu");
    TCase *layers = tcase_create("layers");
    tcase_set_timeout(layers, 120);
    tcase_add_loop_test(layers, conv_matches_ref, 0, 81);
    tcase_add_loop_test(layers, bn_act_matches_ref, 0, 27);
    tcase_add_loop_test(layers, matmul_matches_ref, 0, 16);
    suite_add_tcase(s, layers);

    TCase *vec = tcase_create("vectors");
    tcase_set_timeout(vec, 600);
    tcase_add_loop_test(vec, kata_vectors, 0, 3);
    tcase_add_loop_test(vec, lz_vectors, 0, 3);
    tcase_add_test(vec, eval_errors);
    suite_add_tcase(s, vec);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(cpu_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed != 0;
}
