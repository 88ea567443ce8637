/* tests/test_lz.c -- the Leela Zero family: loading the shared weight files, reproducing Leela
 * Zero 0.17's own outputs (../shared/vectors/lz-*.jsonl) with the reference forward pass, the
 * input planes and symmetries, and the loader's behaviour on corrupt files (truncated plain and
 * gzipped, bad values, bad version lines, missing and extra lines): a clean NULL with a message
 * naming the file every time. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "go/game.h"
#include "go/rules.h"
#include "weights/desc.h"
#include "weights/desc_lz.h"
#include "nn/lz_inputs.h"
#include "nn/ref/lz_forward.h"
#include "tests/common.h"
#include "tests/vectors.h"
#include "weights/lz.h"

typedef struct lz_case {
    const char *weights;  /* under ../shared/weights */
    const char *vectors;  /* under ../shared/vectors */
    int version, blocks, filters;
} lz_case;

static const lz_case cases[] = {
    {"lz-0k.txt", "lz-0k.jsonl", 1, 1, 8},
    {"lz-rand-b4c32.txt.gz", "lz-rand-b4c32.jsonl", 1, 4, 32},
    {"lz-rand-b2c16-v2.txt.gz", "lz-rand-b2c16-v2.jsonl", 2, 2, 16},
};
#define NUM_CASES ((int)(sizeof cases / sizeof cases[0]))

static void weights_path(const char *name, char *out, size_t len)
{
    snprintf(out, len, "%s%s", TEST_WEIGHTS, name);
}

static nn_desc *load_shared(const char *name)
{
    char path[1024], err[1024] = "";
    weights_path(name, path, sizeof path);
    nn_desc *d = weights_load_lz(path, err, sizeof err);
    ck_assert_msg(d != NULL, "%s", err);
    return d;
}

static char *slurp_shared(const char *name, size_t *len)
{
    char path[1024];
    weights_path(name, path, sizeof path);
    return test_read_file(path, len);
}

/* Writes data to a fresh temporary file, gzipped (fast level) or plain; path gets its name. */
static void write_temp(const char *data, size_t len, bool gz, char *path)
{
    strcpy(path, "/tmp/shido-test-lz-XXXXXX");
    int fd = mkstemp(path);
    ck_assert_msg(fd >= 0, "mkstemp failed");
    close(fd);
    test_write_file(path, data, len, gz);
}

/* Loads data as a temporary file; expects a clean NULL whose message names the file and, when
 * want is not NULL, contains want. */
static void expect_fail(const char *data, size_t len, bool gz, const char *want, const char *why)
{
    char path[64], err[1024] = "";
    write_temp(data, len, gz, path);
    nn_desc *d = weights_load_lz(path, err, sizeof err);
    unlink(path);
    if (d)
        nn_desc_free(d);
    ck_assert_msg(d == NULL, "%s (%s): loaded but should fail", why, gz ? "gzipped" : "plain");
    ck_assert_msg(strstr(err, path) != NULL, "%s: message does not name the file: %s", why, err);
    if (want)
        ck_assert_msg(strstr(err, want) != NULL, "%s: message '%s' lacks '%s'", why, err, want);
}

/* Loads data as a temporary file and expects success; returns the description. */
static nn_desc *expect_load(const char *data, size_t len, bool gz, const char *why)
{
    char path[64], err[1024] = "";
    write_temp(data, len, gz, path);
    nn_desc *d = weights_load_lz(path, err, sizeof err);
    unlink(path);
    ck_assert_msg(d != NULL, "%s: %s", why, err);
    return d;
}

/* Offset of the start of line n (1-based) in text, or len when there are fewer lines. */
static size_t line_start(const char *text, size_t len, int n)
{
    size_t off = 0;
    for (int i = 1; i < n && off < len; i++) {
        const char *nl = memchr(text + off, '\n', len - off);
        if (!nl)
            return len;
        off = (size_t)(nl - text) + 1;
    }
    return off;
}

/* A new string: text with [from, to) replaced by repl. */
static char *splice(const char *text, size_t len, size_t from, size_t to, const char *repl,
                    size_t *out_len)
{
    size_t rl = strlen(repl);
    char *s = malloc(len - (to - from) + rl + 1);
    ck_assert_ptr_nonnull(s);
    memcpy(s, text, from);
    memcpy(s + from, repl, rl);
    memcpy(s + from + rl, text + to, len - to);
    *out_len = len - (to - from) + rl;
    s[*out_len] = '\0';
    return s;
}

/* ---- loading the shared files ---- */

START_TEST(test_load_shared)
{
    const lz_case *c = &cases[_i];
    nn_desc *d = load_shared(c->weights);
    const struct nn_lz_desc *lz = d->lz;
    ck_assert_int_eq(d->family, NN_FAMILY_LZ);
    ck_assert_ptr_nonnull(strstr(d->source, c->weights));
    ck_assert_int_eq(lz->version, c->version);
    ck_assert_int_eq(lz->blocks, c->blocks);
    ck_assert_int_eq(lz->filters, c->filters);
    ck_assert(lz->value_is_black == (c->version == 2));
    ck_assert_int_eq(lz->input_conv.c_in, NN_LZ_INPUT_PLANES);
    ck_assert_int_eq(lz->input_conv.c_out, c->filters);
    ck_assert_int_eq(lz->input_conv.ky, 3);
    ck_assert_ptr_null(lz->input_conv.bias);
    ck_assert_int_eq(lz->block[c->blocks - 1].conv2.c_in, c->filters);
    ck_assert_ptr_null(lz->block[c->blocks - 1].conv2.bias);
    ck_assert_int_eq(lz->policy_conv.ky, 1);
    ck_assert_int_eq(lz->policy_fc.c_in, 2 * NN_LZ_POINTS);
    ck_assert_int_eq(lz->policy_fc.c_out, NN_LZ_POLICY_OUTPUTS);
    ck_assert_int_eq(lz->value_fc1.c_in, NN_LZ_POINTS);
    ck_assert_int_eq(lz->value_fc1.c_out, NN_LZ_VALUE_HIDDEN);
    ck_assert_int_eq(lz->value_fc2.c_out, 1);
    ck_assert_float_eq(lz->input_bn.eps, 1e-5f);

    /* Values against the text: the folded mean (mean - bias) and the transposed policy fc. */
    size_t len;
    char *text = slurp_shared(c->weights, &len);
    const char *bias_line = text + line_start(text, len, 3);
    const char *mean_line = text + line_start(text, len, 4);
    char *end;
    float b0 = strtof(bias_line, &end), m0 = strtof(mean_line, &end);
    ck_assert_float_eq(lz->input_bn.mean[0], m0 - b0);
    int fc_line = 2 + 4 + 8 * c->blocks + 4;
    char *s = text + line_start(text, len, fc_line);
    float file_w = 0;
    for (int k = 0; k <= 2 * NN_LZ_POINTS + 5; k++) /* [out 1][in 5] is token 722 + 5 */
        file_w = strtof(s, &s);
    ck_assert_float_eq(lz->policy_fc.w[5 * NN_LZ_POLICY_OUTPUTS + 1], file_w);
    free(text);
    nn_desc_free(d);
}
END_TEST

START_TEST(test_is_lz)
{
    char path[1024];
    for (int i = 0; i < NUM_CASES; i++) {
        weights_path(cases[i].weights, path, sizeof path);
        ck_assert_msg(weights_is_lz(path), "%s", path);
    }
    ck_assert(!weights_is_lz(TEST_G170));
    ck_assert(!weights_is_lz(TEST_B2C16));
    ck_assert(!weights_is_lz("/nonexistent/shido/lz.txt"));
    ck_assert(!weights_is_lz("/dev/null"));
    ck_assert(!weights_is_lz(NULL));
}
END_TEST

START_TEST(test_open_errors)
{
    char err[1024] = "";
    ck_assert_ptr_null(weights_load_lz("/nonexistent/shido/lz.txt", err, sizeof err));
    ck_assert_msg(strstr(err, "/nonexistent/shido/lz.txt") && strstr(err, "cannot open"), "%s",
                  err);
    err[0] = '\0';
    ck_assert_ptr_null(weights_load_lz("/tmp", err, sizeof err));
    ck_assert_msg(strstr(err, "/tmp") != NULL, "%s", err);
    /* A message that does not fit is cut, not overrun. */
    char tiny[8];
    memset(tiny, 'x', sizeof tiny);
    ck_assert_ptr_null(weights_load_lz("/nonexistent/shido/lz.txt", tiny, 5));
    ck_assert_int_eq((int)strlen(tiny), 4);
    ck_assert_ptr_null(weights_load_lz("/nonexistent/shido/lz.txt", NULL, 0));
}
END_TEST

/* ---- the reference against Leela Zero 0.17's own outputs ---- */

START_TEST(test_vectors)
{
    const lz_case *c = &cases[_i];
    nn_desc *d = load_shared(c->weights);
    char path[1024], err[2048] = "";
    snprintf(path, sizeof path, "%s%s", TEST_VECTORS, c->vectors);
    vec_file vf;
    ck_assert_msg(vec_file_read(path, &vf, err, sizeof err), "%s", err);
    ck_assert_int_gt(vf.num_records, 0);
    double max_policy = 0, max_winrate = 0;
    for (int r = 0; r < vf.num_records; r += vec_stride()) {
        const cJSON *rec = vf.records[r];
        const char *id = cJSON_GetObjectItemCaseSensitive(rec, "id")->valuestring;
        int sym = cJSON_GetObjectItemCaseSensitive(rec, "symmetry")->valueint;
        const char *to_move = cJSON_GetObjectItemCaseSensitive(rec, "to_move")->valuestring;
        go_game g;
        ck_assert_msg(vec_setup_game(rec, &g, err, sizeof err), "%s: %s", id, err);
        ck_assert_msg(g.board.to_move == vec_color(to_move), "%s: side to move", id);
        float policy[NN_LZ_POLICY_OUTPUTS], winrate = -1;
        ck_assert_msg(nn_lz_ref_eval(d, &g, sym, policy, &winrate, err, sizeof err), "%s: %s",
                      id, err);
        vec_lz_compare(rec, policy, winrate, &max_policy, &max_winrate);
        go_game_free(&g);
    }
    printf("%s: %d records, max |policy error| %.3g, max |winrate error| %.3g\n", c->vectors,
           vf.num_records, max_policy, max_winrate);
    fflush(stdout);
    vec_file_free(&vf);
    nn_desc_free(d);
}
END_TEST

/* ---- input planes, symmetries, output mapping ---- */

static void new_game(go_game *g, int size)
{
    go_rules rules;
    go_rules_preset(&rules, "tromp-taylor");
    ck_assert(go_game_init(g, size, &rules, 7.5f));
}

static void play(go_game *g, const char *color, const char *vertex)
{
    int p = go_point_from_gtp(g->board.size, vertex);
    ck_assert_msg(go_game_play(g, p, vec_color(color)) == GO_MOVE_OK, "%s %s", color, vertex);
}

/* Net index (sym 0) of a GTP vertex: Leela Zero counts rows from the bottom. */
static int net_index(const char *vertex)
{
    int p = go_point_from_gtp(19, vertex);
    return (18 - go_point_y(p)) * 19 + go_point_x(p);
}

static int plane_count(const float *planes, int plane)
{
    int n = 0;
    for (int i = 0; i < NN_LZ_POINTS; i++)
        n += planes[plane * NN_LZ_POINTS + i] != 0;
    return n;
}

START_TEST(test_input_history)
{
    go_game g;
    new_game(&g, 19);
    float planes[NN_LZ_INPUT_PLANES * NN_LZ_POINTS];
    /* Empty board, black to move: one board of history, black-to-move plane on. */
    ck_assert(nn_lz_inputs(&g, 0, planes));
    for (int p = 0; p < 16; p++)
        ck_assert_int_eq(plane_count(planes, p), 0);
    ck_assert_int_eq(plane_count(planes, 16), NN_LZ_POINTS);
    ck_assert_int_eq(plane_count(planes, 17), 0);

    play(&g, "B", "Q16");
    play(&g, "W", "D4");
    play(&g, "B", "pass");
    /* White to move after B Q16, W D4, B pass; going back: now, before the pass (the same
     * board), before D4, before Q16 (empty), then nothing:
     *   own (white):    D4, D4, -, -
     *   opponent:       Q16, Q16, Q16, - */
    ck_assert(nn_lz_inputs(&g, 0, planes));
    int d4 = net_index("D4"), q16 = net_index("Q16");
    ck_assert_int_eq(d4, 3 * 19 + 3);
    ck_assert_int_eq(q16, 15 * 19 + 15);
    for (int h = 0; h < 8; h++) {
        ck_assert_int_eq(plane_count(planes, h), (h < 2 ? 1 : 0));
        ck_assert_int_eq(plane_count(planes, 8 + h), (h < 3 ? 1 : 0));
    }
    ck_assert_float_eq(planes[0 * NN_LZ_POINTS + d4], 1.0f);
    ck_assert_float_eq(planes[1 * NN_LZ_POINTS + d4], 1.0f);
    ck_assert_float_eq(planes[8 * NN_LZ_POINTS + q16], 1.0f);
    ck_assert_float_eq(planes[10 * NN_LZ_POINTS + q16], 1.0f);
    ck_assert_int_eq(plane_count(planes, 16), 0);
    ck_assert_int_eq(plane_count(planes, 17), NN_LZ_POINTS);

    /* After 8 more moves the history is full: 8 boards, the oldest lacking the last 7 stones. */
    const char *more[] = {"C3", "R17", "C4", "R16", "C5", "R15", "C6", "R14"};
    for (int i = 0; i < 8; i++)
        play(&g, i % 2 ? "B" : "W", more[i]);
    ck_assert(nn_lz_inputs(&g, 0, planes));
    ck_assert_int_eq(g.board.to_move, GO_WHITE);
    for (int h = 0; h < 8; h++) {
        /* Going back, white loses C6, C5, C4 at h = 2, 4, 6; black R14, R15, R16, R17 at
         * h = 1, 3, 5, 7. */
        ck_assert_int_eq(plane_count(planes, h), 5 - h / 2);
        ck_assert_int_eq(plane_count(planes, 8 + h), 5 - (h + 1) / 2);
    }
    go_game_free(&g);
}
END_TEST

START_TEST(test_input_setup_anchor)
{
    /* Setup stones are move 0: the boards before it are zero planes, not empty-board copies of
     * anything, and the setup board itself is history once moves are played. */
    go_game g;
    new_game(&g, 19);
    ck_assert(go_game_setup_stone(&g, go_point_from_gtp(19, "D4"), GO_BLACK));
    ck_assert(go_game_setup_stone(&g, go_point_from_gtp(19, "Q16"), GO_BLACK));
    go_game_set_to_move(&g, GO_WHITE);
    float planes[NN_LZ_INPUT_PLANES * NN_LZ_POINTS];
    ck_assert(nn_lz_inputs(&g, 0, planes));
    ck_assert_int_eq(plane_count(planes, 8), 2);
    for (int h = 1; h < 8; h++)
        ck_assert_int_eq(plane_count(planes, 8 + h), 0);
    play(&g, "W", "K10");
    ck_assert(nn_lz_inputs(&g, 0, planes));
    ck_assert_int_eq(plane_count(planes, 0), 2); /* black to move: own = black */
    ck_assert_int_eq(plane_count(planes, 1), 2);
    ck_assert_int_eq(plane_count(planes, 2), 0);
    ck_assert_int_eq(plane_count(planes, 8), 1);
    ck_assert_int_eq(plane_count(planes, 9), 0);
    go_game_free(&g);
}
END_TEST

START_TEST(test_symmetry_round_trip)
{
    /* Symmetry s: the stone at a point shows at net index i exactly when policy output i lands
     * back on that point. */
    const char *points[] = {"A1", "T19", "A19", "T1", "D4", "Q3", "C17", "K10", "F11"};
    for (int s = 0; s < NN_LZ_SYMMETRIES; s++) {
        bool seen[NN_LZ_POINTS] = {false};
        for (int i = 0; i < NN_LZ_POINTS; i++) {
            int j = nn_lz_symmetry_index(s, i);
            ck_assert(j >= 0 && j < NN_LZ_POINTS && !seen[j]);
            seen[j] = true;
        }
        for (size_t k = 0; k < sizeof points / sizeof points[0]; k++) {
            go_game g;
            new_game(&g, 19);
            play(&g, "B", points[k]);
            float planes[NN_LZ_INPUT_PLANES * NN_LZ_POINTS];
            ck_assert(nn_lz_inputs(&g, s, planes));
            int at = -1;
            for (int i = 0; i < NN_LZ_POINTS; i++)
                if (planes[8 * NN_LZ_POINTS + i] != 0)
                    at = i;
            ck_assert_int_ge(at, 0);
            float net[NN_LZ_POLICY_OUTPUTS] = {0}, policy[NN_LZ_POLICY_OUTPUTS];
            net[at] = 1.0f;
            net[NN_LZ_POINTS] = 0.5f;
            nn_lz_policy_to_board(s, net, policy);
            int p = go_point_from_gtp(19, points[k]);
            ck_assert_float_eq(policy[go_point_y(p) * 19 + go_point_x(p)], 1.0f);
            ck_assert_float_eq(policy[NN_LZ_POINTS], 0.5f);
            go_game_free(&g);
        }
    }
    /* Leela Zero's numbering, in its coordinates (y from the bottom). */
    ck_assert_int_eq(nn_lz_symmetry_index(0, 1 * 19 + 2), 1 * 19 + 2);
    ck_assert_int_eq(nn_lz_symmetry_index(1, 1 * 19 + 2), 17 * 19 + 2);
    ck_assert_int_eq(nn_lz_symmetry_index(2, 1 * 19 + 2), 1 * 19 + 16);
    ck_assert_int_eq(nn_lz_symmetry_index(4, 1 * 19 + 2), 2 * 19 + 1);
    ck_assert_int_eq(nn_lz_symmetry_index(7, 1 * 19 + 2), 16 * 19 + 17);
}
END_TEST

START_TEST(test_eval_errors)
{
    nn_desc *d = load_shared("lz-0k.txt");
    float policy[NN_LZ_POLICY_OUTPUTS], winrate;
    char err[512] = "";
    go_game g;
    new_game(&g, 9);
    float planes[NN_LZ_INPUT_PLANES * NN_LZ_POINTS];
    ck_assert(!nn_lz_inputs(&g, 0, planes));
    ck_assert(!nn_lz_ref_eval(d, &g, 0, policy, &winrate, err, sizeof err));
    ck_assert_msg(strstr(err, "9x9") && strstr(err, "19x19") && strstr(err, "lz-0k.txt"), "%s",
                  err);
    go_game_free(&g);
    new_game(&g, 19);
    ck_assert(!nn_lz_ref_eval(d, &g, 8, policy, &winrate, err, sizeof err));
    ck_assert_msg(strstr(err, "symmetry") != NULL, "%s", err);
    ck_assert(!nn_lz_ref_eval(d, &g, -1, policy, &winrate, err, sizeof err));
    ck_assert(!nn_lz_ref_eval(NULL, &g, 0, policy, &winrate, err, sizeof err));
    ck_assert(nn_lz_ref_eval(d, &g, 0, policy, &winrate, err, sizeof err));
    double sum = 0;
    for (int i = 0; i < NN_LZ_POLICY_OUTPUTS; i++)
        sum += policy[i];
    ck_assert_double_eq_tol(sum, 1.0, 1e-5);
    go_game_free(&g);
    nn_desc_free(d);
}
END_TEST

START_TEST(test_v2_is_black_winrate)
{
    /* The same weights read as version 1 give the value head's raw view: the mover's winrate
     * for v1 equals black's for v2 when black moves, and 1 - it when white moves. */
    size_t len, len1;
    char *text = slurp_shared("lz-rand-b2c16-v2.txt.gz", &len);
    ck_assert(text[0] == '2');
    char *as_v1 = splice(text, len, 0, 1, "1", &len1);
    nn_desc *v2 = load_shared("lz-rand-b2c16-v2.txt.gz");
    nn_desc *v1 = expect_load(as_v1, len1, true, "v2 relabelled v1");
    ck_assert(!v1->lz->value_is_black && v2->lz->value_is_black);
    go_game g;
    new_game(&g, 19);
    char err[256];
    float p1[NN_LZ_POLICY_OUTPUTS], p2[NN_LZ_POLICY_OUTPUTS], w1, w2;
    for (int move = 0; move < 2; move++) {
        ck_assert(nn_lz_ref_eval(v1, &g, 3, p1, &w1, err, sizeof err));
        ck_assert(nn_lz_ref_eval(v2, &g, 3, p2, &w2, err, sizeof err));
        ck_assert(memcmp(p1, p2, sizeof p1) == 0);
        if (g.board.to_move == GO_BLACK)
            ck_assert_float_eq(w1, w2);
        else
            ck_assert_float_eq_tol(w2, 1.0f - w1, 1e-7f);
        if (move == 0)
            play(&g, "B", "Q4");
    }
    go_game_free(&g);
    nn_desc_free(v1);
    nn_desc_free(v2);
    free(as_v1);
    free(text);
}
END_TEST

/* ---- corrupt files ---- */

/* Truncated decompressed content, plain and gzipped, at 200 evenly spaced offsets and at every
 * line boundary of the first 20 lines. Only cuts before the last line are sure to be errors:
 * cutting digits off the final value leaves a valid file. */
START_TEST(test_truncated)
{
    const lz_case *c = &cases[_i];
    size_t len;
    char *text = slurp_shared(c->weights, &len);
    size_t last = len;
    while (last > 0 && text[last - 1] == '\n')
        last--;
    while (last > 0 && text[last - 1] != '\n')
        last--;
    size_t cuts[256];
    int n = 0;
    for (int i = 0; i < 200; i++)
        cuts[n++] = (size_t)((double)last * i / 199);
    for (int line = 2; line <= 21; line++) {
        size_t at = line_start(text, len, line);
        cuts[n++] = at;       /* just after the LF */
        cuts[n++] = at - 1;   /* just before it */
    }
    for (int i = 0; i < n; i++) {
        char why[128];
        snprintf(why, sizeof why, "%s cut at %zu of %zu", c->weights, cuts[i], len);
        expect_fail(text, cuts[i], false, NULL, why);
        /* gzipping every cut of a 3 MB file is slow; every fourth one still covers the path */
        if (i % 4 == 0 || i >= 200)
            expect_fail(text, cuts[i], true, NULL, why);
    }
    free(text);
}
END_TEST

/* The gzip stream itself cut short or damaged: zlib must report it, not end quietly. */
START_TEST(test_truncated_gzip_stream)
{
    char path[1024];
    weights_path("lz-rand-b4c32.txt.gz", path, sizeof path);
    FILE *f = fopen(path, "rb");
    ck_assert_ptr_nonnull(f);
    static char gz[4 << 20];
    size_t len = fread(gz, 1, sizeof gz, f);
    fclose(f);
    ck_assert(len > 1000 && len < sizeof gz);
    for (int i = 0; i < 60; i++) {
        size_t cut = 10 + (size_t)((double)(len - 11) * i / 59);
        char why[96];
        snprintf(why, sizeof why, "gzip stream cut at %zu of %zu", cut, len);
        expect_fail(gz, cut, false, NULL, why);
    }
    /* A flipped bit inside the compressed data: an inflate or CRC error somewhere. */
    gz[len / 2] ^= 0x10;
    expect_fail(gz, len, false, NULL, "flipped bit in the gzip stream");
}
END_TEST

/* Replaces the token starting at `at` in text by repl and expects an error naming `line`. */
static void expect_bad_token(const char *text, size_t len, size_t at, const char *repl, int line,
                             const char *want)
{
    size_t end = at;
    while (end < len && text[end] != ' ' && text[end] != '\n' && text[end] != '\r')
        end++;
    size_t n;
    char *bad = splice(text, len, at, end, repl, &n);
    char where[64], why[128];
    snprintf(where, sizeof where, "line %d ", line);
    snprintf(why, sizeof why, "'%s' on line %d", repl, line);
    expect_fail(bad, n, false, where, why);
    expect_fail(bad, n, false, want, why);
    free(bad);
    (void)len;
}

START_TEST(test_bad_values)
{
    size_t len;
    char *text = slurp_shared("lz-0k.txt", &len);
    const char *not_number[] = {"nan",  "NaN", "inf", "-inf", "infinity", "0x1p3", "1.0f",
                                "1..2", "--1", "1e",  "e5",   ".",        "+",     "1,5",
                                "1e+",  "\xd9\xa1", "0.5x", "\x01"};
    const char *not_finite[] = {"1e999", "-1e999", "3.5e38", "1e39"};
    /* The first value of line 2, a value inside the policy fc line, the last value of the file. */
    size_t fc_at = line_start(text, len, 18);
    for (int k = 0; k < 1000; k++)
        fc_at = (size_t)(strchr(text + fc_at, ' ') - text) + 1;
    size_t last_at = len;
    while (last_at > 0 && text[last_at - 1] != '\n')
        last_at--;
    struct {
        size_t at;
        int line;
    } spots[] = {{line_start(text, len, 2), 2}, {fc_at, 18}, {last_at, 27}};
    for (size_t s = 0; s < 3; s++) {
        for (size_t i = 0; i < sizeof not_number / sizeof not_number[0]; i++)
            expect_bad_token(text, len, spots[s].at, not_number[i], spots[s].line,
                             "is not a decimal number");
        for (size_t i = 0; i < sizeof not_finite / sizeof not_finite[0]; i++)
            expect_bad_token(text, len, spots[s].at, not_finite[i], spots[s].line,
                             "is not a finite float");
    }
    /* Digits turned into letters at 60 places spread over the file. */
    for (int k = 0; k < 60; k++) {
        size_t at = line_start(text, len, 2) + (len - 40) * (size_t)k / 60;
        while (!(text[at] >= '0' && text[at] <= '9'))
            at++;
        char *bad = malloc(len + 1);
        memcpy(bad, text, len + 1);
        /* not 'e': "0.15" -> "0.e5" would still be a number */
        bad[at] = "abcdfghijklmnopqrstuvwxyz"[k % 25];
        char why[64];
        snprintf(why, sizeof why, "letter at %zu", at);
        expect_fail(bad, len, k % 2 == 1, "not a decimal number", why);
        free(bad);
    }
    /* A separator turned into a comma: two values become one bad one, the count is off. */
    size_t n;
    char *bad = splice(text, len, fc_at - 1, fc_at, ",", &n);
    expect_fail(bad, n, false, "line 18 (policy fc weights): expected 261364 floats, got 261363",
                "comma");
    free(bad);
    /* A NUL byte. */
    bad = malloc(len);
    memcpy(bad, text, len);
    bad[fc_at] = '\0';
    expect_fail(bad, len, false, "line 18: NUL byte", "NUL byte");
    free(bad);
    /* A negative variance: the normalisation would take the root of a negative number. */
    bad = splice(text, len, line_start(text, len, 5), line_start(text, len, 5), "-1 ", &n);
    expect_fail(bad, n, false, "line 5 (input conv bn variances): expected 8 floats, got 9",
                "extra value");
    free(bad);
    size_t var_at = line_start(text, len, 5);
    bad = splice(text, len, var_at, (size_t)(strchr(text + var_at, ' ') - text), "-0.5", &n);
    expect_fail(bad, n, false, "line 5 (input conv bn variances): value 1 is -0.5", "negative var");
    free(bad);
    /* Folding the conv bias into the mean must stay finite. */
    size_t b3 = line_start(text, len, 3), m4 = line_start(text, len, 4);
    char *tmp = splice(text, len, m4, (size_t)(strchr(text + m4, ' ') - text), "3e38", &n);
    bad = splice(tmp, n, b3, (size_t)(strchr(tmp + b3, ' ') - tmp), "-3e38", &n);
    expect_fail(bad, n, false,
                "line 4 (input conv bn means): value 1 minus the conv bias is not a finite float",
                "folded mean overflows");
    free(tmp);
    free(bad);
    /* Variances down to -eps (exclusive) and tiny values are fine. */
    bad = splice(text, len, var_at, (size_t)(strchr(text + var_at, ' ') - text), "-9e-6", &n);
    nn_desc_free(expect_load(bad, n, false, "variance -9e-6"));
    free(bad);
    bad = splice(text, len, var_at, (size_t)(strchr(text + var_at, ' ') - text), "1e-50", &n);
    nn_desc_free(expect_load(bad, n, false, "underflowing value"));
    free(bad);
    free(text);
}
END_TEST

START_TEST(test_bad_version)
{
    size_t len;
    char *text = slurp_shared("lz-0k.txt", &len);
    size_t body = line_start(text, len, 2);
    const char *versions[] = {"3\r\n", "abc\r\n", "0\n", "-1\n", "2.5\n", "1 1\n", "\n",
                              "01\n",  "\xef\xbb\xbf\x31\n", "v1\n", "11\n"};
    for (size_t i = 0; i < sizeof versions / sizeof versions[0]; i++) {
        size_t n;
        char *bad = splice(text, len, 0, body, versions[i], &n);
        expect_fail(bad, n, i % 2 == 1, "line 1 (format version): expected \"1\" or \"2\"",
                    versions[i]);
        free(bad);
    }
    /* Spaces and CR around the digit are fine, and "2" makes it an ELF net. */
    size_t n;
    char *ok = splice(text, len, 0, body, " 2 \r\n", &n);
    nn_desc *d = expect_load(ok, n, false, "version ' 2 '");
    ck_assert(d->lz->version == 2 && d->lz->value_is_black);
    nn_desc_free(d);
    free(ok);
    expect_fail("", 0, false, "empty file", "empty file");
    expect_fail("", 0, true, "empty file", "empty gzip file");
    char junk[1000];
    unsigned x = 12345;
    for (size_t i = 0; i < sizeof junk; i++) {
        x = x * 1103515245u + 12345u;
        junk[i] = (char)(x >> 16);
    }
    expect_fail(junk, sizeof junk, false, NULL, "binary junk");
    expect_fail(junk, sizeof junk, true, NULL, "gzipped binary junk");
    free(text);
}
END_TEST

START_TEST(test_line_count)
{
    size_t len, n;
    char *text = slurp_shared("lz-rand-b4c32.txt.gz", &len);
    /* The exact message for a short layer line. */
    size_t l6 = line_start(text, len, 6), l7 = line_start(text, len, 7);
    size_t cut = l7 - 1;
    while (text[cut - 1] != ' ')
        cut--;
    char *bad = splice(text, len, cut - 1, l7 - 1, "", &n);
    expect_fail(bad, n, true,
                "line 6 (residual block 1, conv 1 weights): expected 9216 floats, got 9215",
                "one value short");
    free(bad);
    /* An extra line, a missing line, an extra empty line at the end. */
    bad = splice(text, len, l6, l6, "0.5\n", &n);
    expect_fail(bad, n, false, "52 lines: expected 19 + 8 x blocks", "extra line");
    free(bad);
    bad = splice(text, len, l6, l7, "", &n);
    expect_fail(bad, n, true, "50 lines: expected 19 + 8 x blocks", "missing line");
    free(bad);
    ck_assert(text[len - 1] == '\n');
    bad = splice(text, len, len, len, "\n", &n);
    expect_fail(bad, n, false, "52 lines", "empty line at the end");
    free(bad);
    /* A whole block removed is a valid 3-block net; the same lines moved to the heads are not. */
    size_t b4 = line_start(text, len, 30), heads = line_start(text, len, 38);
    bad = splice(text, len, b4, heads, "", &n);
    nn_desc *d = expect_load(bad, n, false, "3 blocks");
    ck_assert_int_eq(d->lz->blocks, 3);
    nn_desc_free(d);
    free(bad);
    /* Without the final LF, and with CRLF line ends (lz-0k.txt has both), it still loads. */
    d = expect_load(text, len - 1, false, "no final LF");
    ck_assert_int_eq(d->lz->blocks, 4);
    nn_desc_free(d);
    /* The filter count comes from line 3; a different line 2 length is caught as line 2. */
    bad = splice(text, len, l6 - 1, l6 - 1, " 0.1", &n);
    expect_fail(bad, n, false, "line 5 (input conv bn variances): expected 32 floats, got 33",
                "long line 5");
    free(bad);
    size_t l3 = line_start(text, len, 3);
    bad = splice(text, len, l3 - 1, l3 - 1, " 0.1", &n);
    expect_fail(bad, n, false, "line 2 (input conv weights): expected 5184 floats, got 5185",
                "long line 2");
    free(bad);
    bad = splice(text, len, l3, line_start(text, len, 4) - 1, "", &n);
    expect_fail(bad, n, false, "line 3 (input conv biases): expected one float per filter, got 0",
                "empty line 3");
    free(bad);
    free(text);
}
END_TEST

Suite *lz_suite(void)
{
    Suite *s = suite_create("lz");
    TCase *tc = tcase_create("load");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, test_load_shared, 0, NUM_CASES);
    tcase_add_test(tc, test_is_lz);
    tcase_add_test(tc, test_open_errors);
    suite_add_tcase(s, tc);

    tc = tcase_create("vectors");
    tcase_set_timeout(tc, 300);
    tcase_add_loop_test(tc, test_vectors, 0, NUM_CASES);
    tcase_add_test(tc, test_v2_is_black_winrate);
    tcase_add_test(tc, test_eval_errors);
    suite_add_tcase(s, tc);

    tc = tcase_create("inputs");
    tcase_add_test(tc, test_input_history);
    tcase_add_test(tc, test_input_setup_anchor);
    tcase_add_test(tc, test_symmetry_round_trip);
    suite_add_tcase(s, tc);

    tc = tcase_create("corrupt");
    tcase_set_timeout(tc, 600);
    tcase_add_loop_test(tc, test_truncated, 0, NUM_CASES);
    tcase_add_test(tc, test_truncated_gzip_stream);
    tcase_add_test(tc, test_bad_values);
    tcase_add_test(tc, test_bad_version);
    tcase_add_test(tc, test_line_count);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return test_run_suite(lz_suite()); }
