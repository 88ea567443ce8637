/* tests/test_nn_rect.c -- networks on rectangular boards (width x height, each 2..19) through
 * nn_eval: the cpu backend against the reference under every symmetry (batches mixing the
 * width x height and height x width tensors of transposing symmetries), a position and its
 * transpose giving transposed outputs, KataGo 1.17.2's own numbers on 9x13, 13x9 and 19x4
 * boards, and the nets that take square boards only refusing the others. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "go/game.h"
#include "nn/disc_inputs.h"
#include "nn/nn.h"
#include "tests/common.h"
#include "tests/vectors.h"
#include "weights/disc.h"

#define G170 TEST_WEIGHTS "g170-b6c96-s175395328-d26788732.bin.gz"
#define B2C16 TEST_WEIGHTS "rand-b2c16-v15.bin.gz"
#define B5C192 TEST_WEIGHTS "rand-b5c192nbt-v15.bin.gz"
#define B10C384H6 TEST_WEIGHTS "b10c384h6nbttflrs.bin.gz"

static const char *const backends[] = {"ref", "cpu"};

/* Whether to leave out a case of the transformer net's reference pass (seconds a position): only
 * in the sanitizer run (SHIDO_VECTORS_STRIDE > 1), where it is ~4 times slower. */
static bool transformer_ref_skip(void)
{
    if (vec_stride() == 1)
        return false;
    printf("skipped under SHIDO_VECTORS_STRIDE: the transformer net's reference pass\n");
    return true;
}

/* A width x height game under Tromp-Taylor rules, komi 7.5, after the moves of text ("B C4 W
 * G10 ...", GTP vertices of that board). With transpose, the same game on the height x width
 * board mirrored in its main diagonal: (x, y) -> (y, x), y = 0 the top row. */
static void rect_game(go_game *g, int width, int height, const char *text, bool transpose)
{
    go_rules rules;
    go_rules_preset(&rules, "tromp-taylor");
    ck_assert(transpose ? go_game_init_rect(g, height, width, &rules, 7.5f)
                        : go_game_init_rect(g, width, height, &rules, 7.5f));
    char buf[512], *save = NULL;
    snprintf(buf, sizeof buf, "%s", text);
    for (char *c = strtok_r(buf, " ", &save); c; c = strtok_r(NULL, " ", &save)) {
        char *v = strtok_r(NULL, " ", &save);
        ck_assert(v);
        int p = go_point_from_gtp_rect(width, height, v);
        ck_assert_msg(p > 0, "%s is not a vertex of %dx%d", v, width, height);
        if (transpose)
            p = go_point_at(go_point_y(p), go_point_x(p));
        go_color color = c[0] == 'B' ? GO_BLACK : GO_WHITE;
        ck_assert_msg(go_game_play(g, p, color) == GO_MOVE_OK, "%s %s", c, v);
    }
}

static void assert_board_of(const nn_result *r, const go_game *g)
{
    ck_assert_int_eq(r->width, g->board.width);
    ck_assert_int_eq(r->height, g->board.height);
    ck_assert_int_eq(r->size, g->board.size);
}

/* ---- the cpu backend against the reference --------------------------------------------------- */

static const struct {
    const char *weights;
    int width, height, moves;
} agree_cases[] = {
    {G170, 9, 13, 14},   {G170, 13, 9, 14},   {G170, 19, 5, 20},   {G170, 2, 19, 5},
    {B2C16, 9, 13, 14},  {B2C16, 13, 9, 14},  {B2C16, 19, 5, 20},  {B2C16, 2, 19, 5},
    {B5C192, 9, 13, 14}, {B5C192, 13, 9, 14}, {B5C192, 19, 5, 20}, {B5C192, 2, 19, 5},
    {B10C384H6, 9, 13, 10},
};

/* The symmetries a test runs: all eight in the Release build; under the sanitizers, which run
 * the reference pass ~4 times slower, 0 and 5 (one transposing, so both tensor shapes of a
 * rectangle are still in one batch). Returns how many, into syms. */
static int test_symmetries(int syms[8])
{
    int n = test_count(8, 2);
    for (int k = 0; k < n; k++)
        syms[k] = n == 8 ? k : k ? 5 : 0;
    return n;
}

/* _i: a net and a board. The symmetries of one position in one nn_eval (two tensor shapes in
 * one batch) on each backend: cpu within TEST_FP32_TOL of ref, as the square boards'
 * synthetic_cpu_matches_ref of test_nn. */
START_TEST(cpu_matches_ref)
{
    const char *weights = agree_cases[_i].weights;
    int width = agree_cases[_i].width, height = agree_cases[_i].height;
    if (!strcmp(weights, B10C384H6) && transformer_ref_skip())
        return;
    char err[1024];
    go_game g;
    test_game_random_rect(&g, width, height, agree_cases[_i].moves, 100u + (unsigned)_i);
    int syms[8], ns = test_symmetries(syms);
    nn_query q[8];
    for (int k = 0; k < ns; k++)
        q[k] = (nn_query){.game = &g, .symmetry = syms[k],
                          .policy_optimism = NN_DEFAULT_POLICY_OPTIMISM};
    nn_result *r = malloc(sizeof *r * 16);
    ck_assert(r);
    for (int b = 0; b < 2; b++) {
        nn_model *m = test_model_load(weights, backends[b]);
        nn_context *c = nn_context_new(m, ns, err, sizeof err);
        ck_assert_msg(c, "%s", err);
        ck_assert_msg(nn_eval(c, ns, q, r + 8 * b, err, sizeof err), "%s", err);
        nn_context_free(c);
        nn_model_free(m);
    }
    double worst = 0;
    for (int k = 0; k < ns; k++) {
        assert_board_of(&r[k], &g);
        assert_board_of(&r[8 + k], &g);
        double d = test_result_full_diff(&r[k], &r[8 + k]);
        ck_assert_msg(d <= TEST_FP32_TOL, "%s %dx%d symmetry %d: cpu differs from ref by %g",
                      weights, width, height, syms[k], d);
        worst = fmax(worst, d);
    }
    printf("%s %dx%d: cpu - ref max |diff| %.3g over %d symmetries\n", weights, width, height,
           worst, ns);
    free(r);
    go_game_free(&g);
}
END_TEST

/* ---- a position and its transpose ----------------------------------------------------------- */

/* The symmetry under which the transpose of a position shows the net exactly what the position
 * shows it under s: KataGo's symmetry s maps a board to the net's tensor by a transpose (bit 2)
 * and then flips of the tensor's rows (bit 0) and columns (bit 1) -- for a transposing one,
 * the rows and columns of the board's transpose -- so the flips trade places. */
static int transposed_symmetry(int s)
{
    int flips = (s & 1) << 1 | (s & 2) >> 1;
    return s & 4 ? flips : 4 | flips;
}

static const struct {
    const char *weights;
    int backend;
} transpose_cases[] = {{G170, 0}, {G170, 1}, {B2C16, 0}, {B2C16, 1}, {B10C384H6, 1}};

/* _i: a net and a backend. P on a 9 x 13 board (black just took a ko) and its
 * transpose P' on 13 x 9, P under each symmetry s of test_symmetries and P' under
 * transposed_symmetry(s), all in one nn_eval: each pair gives the same value and scores and
 * transposed policy and ownership, to float rounding; width and height mixed up anywhere along
 * the way break it. The batch's results also equal single evaluations (exactly on ref). */
START_TEST(transpose_transposes_outputs)
{
    const char *weights = transpose_cases[_i].weights;
    const char *backend = backends[transpose_cases[_i].backend];
    /* black's E10 takes white's D10: white may not retake at once */
    static const char *moves = "B D11 W E11 B C10 W F10 B D9 W E9 B J1 W D10 B E10";
    char err[1024];
    go_game g[2];
    rect_game(&g[0], 9, 13, moves, false);
    rect_game(&g[1], 9, 13, moves, true);
    ck_assert_int_eq(g[1].board.width, 13);
    ck_assert_int_eq(g[1].board.height, 9);
    int syms[8], ns = test_symmetries(syms);
    nn_query q[16];
    for (int k = 0; k < ns; k++) {
        q[k] = (nn_query){.game = &g[0], .symmetry = syms[k],
                          .policy_optimism = NN_DEFAULT_POLICY_OPTIMISM};
        q[ns + k] = q[k];
        q[ns + k].game = &g[1];
        q[ns + k].symmetry = transposed_symmetry(syms[k]);
    }
    nn_result *r = malloc(sizeof *r * 17);
    ck_assert(r);
    nn_model *m = test_model_load(weights, backend);
    nn_context *c = nn_context_new(m, 2 * ns, err, sizeof err);
    ck_assert_msg(c, "%s", err);
    ck_assert_msg(nn_eval(c, 2 * ns, q, r, err, sizeof err), "%s", err);
    int illegal = 0;
    for (int k = 0; k < ns; k++) {
        int s = syms[k];
        const nn_result *a = &r[k], *b = &r[ns + k];
        assert_board_of(a, &g[0]);
        assert_board_of(b, &g[1]);
        double d = 0;
        for (int y = 0; y < 13; y++)
            for (int x = 0; x < 9; x++) {
                float pa = a->policy[y * 9 + x], pb = b->policy[x * 13 + y];
                ck_assert_msg(isnan(pa) == isnan(pb), "symmetry %d: legality of (%d, %d)", s, x,
                              y);
                illegal += isnan(pa);
                if (!isnan(pa))
                    d = fmax(d, fabs(pa - pb));
                d = fmax(d, fabs(a->white_ownership[y * 9 + x] - b->white_ownership[x * 13 + y]));
            }
        d = fmax(d, fabs(a->policy[9 * 13] - b->policy[9 * 13]));
        d = fmax(d, fabs(a->white_win - b->white_win));
        d = fmax(d, fabs(a->no_result - b->no_result));
        d = fmax(d, fabs(a->white_lead - b->white_lead) / (1 + fabs(a->white_lead)));
        d = fmax(d, fabs(a->white_score_selfplay - b->white_score_selfplay) /
                        (1 + fabs(a->white_score_selfplay)));
        ck_assert_msg(d <= 1e-6, "%s %s symmetry %d and its transpose's %d differ by %g",
                      weights, backend, s, transposed_symmetry(s), d);
    }
    /* 8 stones and the ko point, in every symmetry */
    ck_assert_int_eq(illegal, ns * 9);
    bool exact = !strcmp(backend, "ref");
    for (int i = 0; i < 2; i++) { /* one of each tensor shape: P plain, then transposed */
        int k = 0;
        while ((q[k].symmetry & 4) != (i ? 4 : 0))
            k++;
        ck_assert_msg(nn_eval(c, 1, &q[k], &r[16], err, sizeof err), "%s", err);
        double d = test_result_full_diff(&r[k], &r[16]);
        ck_assert_msg(exact ? d == 0 : d <= 1e-5, "%s query %d: batch and single differ by %g",
                      backend, k, d);
    }
    nn_context_free(c);
    nn_model_free(m);
    free(r);
    go_game_free(&g[0]);
    go_game_free(&g[1]);
}
END_TEST

/* ---- KataGo's own numbers ----------------------------------------------------------------- */

typedef struct kata_point {
    const char *vertex;
    double value;   /* NAN: an illegal move */
} kata_point;

/* Printed by KataGo 1.17.2 (Eigen backend, fp32), symmetry 0 and its default policy optimism,
 * to the digits kata-raw-nn prints: run as
 *   katago gtp -model ../shared/weights/<net> -config cpp/configs/gtp_example.cfg
 *     -override-config "numSearchThreads=1,nnRandomize=false,rules=tromp-taylor,maxVisits=1"
 * and sent
 *   rectangular_boardsize W H, clear_board, kata-set-rules tromp-taylor, komi 7.5,
 *   play <color> <vertex> for each move below, kata-raw-nn 0. */
static const struct {
    const char *weights;
    int width, height;
    const char *moves;
    double white_win, white_lead, white_score_selfplay, var_time_left, pass;
    kata_point policy[6], ownership[5];
} katago_cases[] = {
    {G170, 9, 13, "B C4 W G10 B D10 W F3 B E7", 0.582178, 1.139, 2.021, -1, 0.000001,
     {{"D4", 0.282296}, {"D5", 0.150471}, {"G7", 0.116225}, {"E12", 0.000590}, {"J1", 0.000007},
      {"C4", NAN}},
     {{"A13", -0.1819698}, {"J13", 0.2198090}, {"A1", -0.2365165}, {"J1", 0.3653917},
      {"D9", -0.5066603}}},
    {G170, 13, 9, "B C3 W K7 B K3 W D7 B G5 W H4 B H5", 0.677216, 4.660, 4.181, -1, 0.000001,
     {{"J4", 0.603178}, {"K4", 0.268023}, {"D4", 0.082763}, {"G8", 0.000052}, {"N1", 0.000008},
      {"H4", NAN}},
     {{"A9", 0.2654627}, {"N9", 0.2444765}, {"A1", -0.5050557}, {"N1", -0.3868219},
      {"E6", 0.0154820}}},
    /* 76 points: an even area, where square code would take 19x19's odd one for the komi's
     * parity */
    {G170, 19, 4, "B D2 W Q3 B K3 W K2 B L2 W C3", 0.187328, -5.149, -6.032, -1, 0.000001,
     {{"C2", 0.517333}, {"D3", 0.417226}, {"E3", 0.033156}, {"T4", 0.000012}, {"A1", 0.000012},
      {"K3", NAN}},
     {{"A4", -0.0647633}, {"T4", 0.5260362}, {"A1", -0.1070648}, {"T1", 0.5098489},
      {"G3", -0.4379740}}},
    {B10C384H6, 9, 13, "B C4 W G10 B D10 W F3 B E7", 0.897139, 1.546, 2.395, 4.946, 0.000004,
     {{"D3", 0.272626}, {"D4", 0.174889}, {"E11", 0.132716}, {"E12", 0.015675},
      {"J1", 0.000001}, {"G10", NAN}},
     {{"A13", -0.2248324}, {"J13", 0.2477252}, {"A1", -0.3321444}, {"J1", 0.3404388},
      {"D9", -0.2741250}}},
};

/* _i = case * 2 + backend: within the tolerances of the ../shared/vectors checks. */
START_TEST(katago_rect_outputs)
{
    int ci = _i / 2;
    const char *weights = katago_cases[ci].weights, *backend = backends[_i % 2];
    if (!strcmp(weights, B10C384H6) && _i % 2 == 0 && transformer_ref_skip())
        return;
    int width = katago_cases[ci].width, height = katago_cases[ci].height;
    char err[1024];
    go_game g;
    rect_game(&g, width, height, katago_cases[ci].moves, false);
    nn_model *m = test_model_load(weights, backend);
    nn_context *c = nn_context_new(m, 1, err, sizeof err);
    ck_assert_msg(c, "%s", err);
    nn_query q = {.game = &g, .symmetry = 0, .policy_optimism = NN_DEFAULT_POLICY_OPTIMISM};
    nn_result *r = malloc(sizeof *r);
    ck_assert(r);
    ck_assert_msg(nn_eval(c, 1, &q, r, err, sizeof err), "%s", err);
    assert_board_of(r, &g);
    char what[160];
    snprintf(what, sizeof what, "%s %s %dx%d", weights, backend, width, height);
    ck_assert_msg(fabs(r->white_win - katago_cases[ci].white_win) <= TEST_PROB_TOL,
                  "%s: whiteWin %.7f, KataGo %.6f", what, r->white_win,
                  katago_cases[ci].white_win);
    ck_assert_msg(fabs(r->white_lead - katago_cases[ci].white_lead) <= TEST_SCORE_TOL,
                  "%s: whiteLead %.4f, KataGo %.3f", what, r->white_lead,
                  katago_cases[ci].white_lead);
    ck_assert_msg(fabs(r->white_score_selfplay - katago_cases[ci].white_score_selfplay) <=
                      TEST_SCORE_TOL,
                  "%s: whiteScoreSelfplay %.4f, KataGo %.3f", what, r->white_score_selfplay,
                  katago_cases[ci].white_score_selfplay);
    ck_assert_msg(fabs(r->var_time_left - katago_cases[ci].var_time_left) <= TEST_SCORE_TOL,
                  "%s: varTimeLeft %.4f, KataGo %.3f", what, r->var_time_left,
                  katago_cases[ci].var_time_left);
    int area = width * height;
    ck_assert_msg(fabs(r->policy[area] - katago_cases[ci].pass) <= TEST_PROB_TOL,
                  "%s: pass %.7f, KataGo %.6f", what, r->policy[area], katago_cases[ci].pass);
    for (int i = 0; i < 6; i++) {
        const kata_point *k = &katago_cases[ci].policy[i];
        int p = go_board_parse_vertex(&g.board, k->vertex);
        ck_assert(p > 0);
        float got = r->policy[go_point_y(p) * width + go_point_x(p)];
        if (isnan(k->value))
            ck_assert_msg(isnan(got), "%s: %s legal", what, k->vertex);
        else
            ck_assert_msg(fabs(got - k->value) <= TEST_PROB_TOL, "%s: policy %s %.7f, KataGo %.6f",
                          what, k->vertex, got, k->value);
    }
    for (int i = 0; i < 5; i++) {
        const kata_point *k = &katago_cases[ci].ownership[i];
        int p = go_board_parse_vertex(&g.board, k->vertex);
        ck_assert(p > 0);
        float got = r->white_ownership[go_point_y(p) * width + go_point_x(p)];
        ck_assert_msg(fabs(got - k->value) <= TEST_PROB_TOL,
                      "%s: ownership %s %.7f, KataGo %.7f", what, k->vertex, got, k->value);
    }
    free(r);
    nn_context_free(c);
    nn_model_free(m);
    go_game_free(&g);
}
END_TEST

/* ---- nets that take square boards only ---------------------------------------------------- */

START_TEST(square_nets_refuse_rectangles)
{
    char err[1024];
    static const int conv[] = {8}, dense[] = {8};
    nn_desc *d = weights_disc_make(9, NN_DISC_PLANES, conv, 1, dense, 1, 5);
    ck_assert(d);
    nn_model *m = nn_model_from_desc(d, "cpu", err, sizeof err);
    ck_assert_msg(m, "%s", err);
    nn_context *c = nn_context_new(m, 1, err, sizeof err);
    ck_assert_msg(c, "%s", err);
    go_game g;
    nn_result *r = malloc(sizeof *r);
    ck_assert(r);
    test_game_random_rect(&g, 9, 13, 6, 7);
    nn_query q = {.game = &g};
    ck_assert(!nn_eval(c, 1, &q, r, err, sizeof err));
    ck_assert_msg(strstr(err, "square") && strstr(err, "9x13"), "%s", err);
    go_game_free(&g);
    test_game_random_rect(&g, 9, 9, 6, 7);   /* the same net takes a square board */
    ck_assert_msg(nn_eval(c, 1, &q, r, err, sizeof err), "%s", err);
    ck_assert(r->likeness > 0 && r->likeness < 1);
    go_game_free(&g);
    nn_context_free(c);
    nn_model_free(m);

    m = test_model_load(TEST_LZ_B4C32, "cpu");
    c = nn_context_new(m, 1, err, sizeof err);
    ck_assert_msg(c, "%s", err);
    static const int shapes[][2] = {{19, 13}, {13, 19}};
    for (int i = 0; i < 2; i++) {
        test_game_random_rect(&g, shapes[i][0], shapes[i][1], 6, 7);
        err[0] = '\0';
        ck_assert(!nn_eval(c, 1, &q, r, err, sizeof err));
        char want[32];
        snprintf(want, sizeof want, "%dx%d", shapes[i][0], shapes[i][1]);
        ck_assert_msg(strstr(err, "19x19") && strstr(err, want), "%s", err);
        go_game_free(&g);
    }
    nn_context_free(c);
    nn_model_free(m);
    free(r);
}
END_TEST

static Suite *nn_rect_suite(void)
{
    Suite *s = suite_create("nn_rect");
    TCase *agree = tcase_create("backends");
    tcase_set_timeout(agree, 600);
    tcase_add_loop_test(agree, cpu_matches_ref, 0,
                        (int)(sizeof agree_cases / sizeof agree_cases[0]));
    tcase_add_loop_test(agree, transpose_transposes_outputs, 0,
                        (int)(sizeof transpose_cases / sizeof transpose_cases[0]));
    suite_add_tcase(s, agree);
    TCase *katago = tcase_create("katago");
    tcase_set_timeout(katago, 600);
    tcase_add_loop_test(katago, katago_rect_outputs, 0,
                        2 * (int)(sizeof katago_cases / sizeof katago_cases[0]));
    suite_add_tcase(s, katago);
    TCase *refuse = tcase_create("refusals");
    tcase_add_test(refuse, square_nets_refuse_rectangles);
    suite_add_tcase(s, refuse);
    return s;
}

int main(void) { return test_run_suite(nn_rect_suite()); }
