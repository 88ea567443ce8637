/* tests/test_katrain.c -- KaTrain 1.20's AI modes (teach/katrain.c) against
 * ../shared/docs/katrain-ai-modes.md: each mode on hand-built analyses and network outputs where
 * its rule decides the move (values worked out by hand in the comments), the sampling by
 * statistics over many draws of a fixed seed, the calibration tables and their check values,
 * the tunables' errors; and the search's anti-mirror logic (mcts/mirror.c) on the shared g170
 * net against an opponent that mirrors every move through tengen.
 *
 * Coordinates are GTP vertices (row 1 at the bottom); KaTrain's y also counts from the bottom,
 * shido's rows from the top, which the tie-break, ranking and attach tests tell apart. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "go/board.h"
#include "go/game.h"
#include "mcts/internal.h"
#include "mcts/mcts.h"
#include "nn/nn.h"
#include "teach/choice.h"
#include "teach/katrain.h"

#include "tests/common.h"

/* ---- helpers --------------------------------------------------------------------------------- */

static teach_play_params params_of(const char *policy)
{
    teach_play_params p = teach_play_params_default();
    char err[256];
    ck_assert_msg(teach_play_params_set(&p, "play_policy", policy, err, sizeof err), "%s", err);
    return p;
}

static void set(teach_play_params *p, const char *name, const char *value)
{
    char err[256];
    ck_assert_msg(teach_play_params_set(p, name, value, err, sizeof err), "%s", err);
}

/* The move index of a vertex in an nn_result's policy ([y*size+x], pass at size*size). */
static int pol_index(int size, const char *vertex)
{
    if (!strcmp(vertex, "pass"))
        return size * size;
    int p = test_point(size, vertex);
    return go_point_y(p) * size + go_point_x(p);
}

/* A KataGo result for g: NAN on illegal moves, 0 elsewhere (the caller sets the policy). */
static nn_result *net_for(const go_game *g)
{
    nn_result *r = calloc(1, sizeof *r);
    ck_assert_ptr_nonnull(r);
    int size = g->board.size;
    r->size = size;
    r->family = NN_FAMILY_KATA;
    r->has_score = r->has_ownership = true;
    for (int i = 0; i < size * size; i++)
        if (go_game_legal(g, go_point_at(i % size, i / size), g->board.to_move) != GO_MOVE_OK)
            r->policy[i] = NAN;
    return r;
}

static void net_set(nn_result *r, const char *vertex, double p)
{
    r->policy[pol_index(r->size, vertex)] = (float)p;
}

/* Every legal point of r gets p (pass keeps its value). */
static void net_fill(nn_result *r, double p)
{
    for (int i = 0; i < r->size * r->size; i++)
        if (!isnan(r->policy[i]))
            r->policy[i] = (float)p;
}

typedef struct cand {
    const char *vertex;     /* "pass" allowed */
    double lead;            /* the mover's view */
    int64_t visits;
    const float *own;       /* white's view, or NULL */
} cand;

/* An analysis of root lead root_lead (mover's view) with the candidates in order. */
static mcts_analysis an_of(const go_game *g, double root_lead, const cand *c, int n)
{
    int size = g->board.size;
    mcts_analysis a = {.size = size, .to_move = g->board.to_move, .root_score_lead = root_lead,
                       .has_score = true, .has_ownership = true, .num_moves = n};
    a.moves = calloc((size_t)(n > 0 ? n : 1), sizeof *a.moves);
    ck_assert_ptr_nonnull(a.moves);
    for (int i = 0; i < n; i++) {
        int m = strcmp(c[i].vertex, "pass") ? test_point(size, c[i].vertex) : GO_PASS;
        a.moves[i] = (mcts_move_info){.move = m, .visits = c[i].visits ? c[i].visits : 10,
                                      .score_lead = c[i].lead, .order = i, .pv_len = 1,
                                      .pv = {m}, .ownership = c[i].own};
    }
    return a;
}

static bool try_choose(const teach_play_params *p, const go_game *g, const mcts_analysis *an,
                       const nn_result *net, teach_rng *rng, teach_choice *out, char *err)
{
    teach_choice_in in = {.game = g, .an = an, .search_choice = GO_PASS, .net = net};
    return teach_katrain_choose(p, &in, rng, out, err, 256);
}

/* The choice of p, which must succeed and say why. */
static teach_choice choose(const teach_play_params *p, const go_game *g, const mcts_analysis *an,
                           const nn_result *net, teach_rng *rng)
{
    teach_choice out;
    char err[256];
    ck_assert_msg(try_choose(p, g, an, net, rng, &out, err), "%s", err);
    ck_assert_msg(out.why[0] != 0, "no explanation");
    return out;
}

static const char *vtx(int size, int p)
{
    static char buf[4][8];
    static int k;
    k = (k + 1) % 4;
    return go_point_to_gtp(size, p, buf[k]);
}

static void assert_move(int size, int got, const char *want, const char *why)
{
    int w = strcmp(want, "pass") ? test_point(size, want) : GO_PASS;
    ck_assert_msg(got == w, "played %s, expected %s (%s)", vtx(size, got), want, why);
}

/* Counts of each move over n choices of p from one seed. */
static void tally(const teach_play_params *p, const go_game *g, const mcts_analysis *an,
                  const nn_result *net, int n, uint64_t seed, int *count)
{
    teach_rng rng = {seed};
    memset(count, 0, sizeof(int) * GO_POINTS);
    for (int i = 0; i < n; i++)
        count[choose(p, g, an, net, &rng).move]++;
}

/* Whether count is within 5 standard deviations of n draws of probability q. */
static void assert_share(int count, int n, double q, const char *what)
{
    double sd = sqrt(n * q * (1 - q)) + 1e-9;
    ck_assert_msg(fabs(count - n * q) <= 5 * sd, "%s: %d of %d, expected %.1f", what, count, n,
                  n * q);
}

/* ---- calibration (section 3) ----------------------------------------------------------------- */

/* The kyu of an Elo by CALIBRATED_RANK_ELO: linear from 18k to 3d (-2), then to (1700, -4);
 * held at the ends. */
static double kyu_of_elo(double elo)
{
    const double e0 = -21.679482223451032, step = 64.28191416767208, e2d = 1263.9588011299913;
    if (elo <= e0)
        return 18;
    if (elo <= e2d)
        return 18 - (elo - e0) / step;
    if (elo >= 1700)
        return -4;
    return -2 - 2 * (elo - e2d) / (1700 - e2d);
}

static void check_rank(const teach_play_params *p, double want_kyu, const char *label)
{
    char buf[16];
    double r = teach_katrain_rank(p, buf, sizeof buf);
    ck_assert_msg(fabs((1 - r) - want_kyu) < 1e-9, "%s: kyu %.6f, expected %.6f",
                  teach_policy_name(p->policy), 1 - r, want_kyu);
    if (label)
        ck_assert_msg(!strcmp(buf, label), "%s: label %s, expected %s",
                      teach_policy_name(p->policy), buf, label);
}

START_TEST(calibration_check_values)
{
    /* section 3's check values at config defaults (Elo, kyu, label) */
    static const struct {
        const char *mode;
        double elo, kyu;
        const char *label;
    } want[] = {
        {"weighted", 1042.25179764667, 1.449, "1k"}, {"scoreloss", 1035, 1.562, "2k"},
        {"pick", 798.0, 5.249, "5k"},                 {"local", 975, 2.495, "2k"},
        {"tenuki", 972.5, 2.534, "3k"},               {"territory", 995, 2.184, "2k"},
        {"influence", 1028, 1.671, "2k"},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        teach_play_params p = params_of(want[i].mode);
        char buf[16];
        double kyu = 1 - teach_katrain_rank(&p, buf, sizeof buf);
        ck_assert_msg(fabs(kyu - kyu_of_elo(want[i].elo)) < 1e-9, "%s: kyu %.6f", want[i].mode,
                      kyu);
        ck_assert_msg(fabs(kyu - want[i].kyu) < 5e-4, "%s: kyu %.4f, expected %.3f",
                      want[i].mode, kyu, want[i].kyu);
        ck_assert_msg(!strcmp(buf, want[i].label), "%s: %s", want[i].mode, buf);
    }
    static const struct {
        const char *mode;
        const char *label;
    } fixed[] = {{"rank", "4k"},  {"policy", "5d"},     {"simple", "2d"},     {"settle", "2d"},
                 {"best", "9d"},  {"handicap", "9d"},   {"jigo", "9d"},       {"antimirror", "9d"}};
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) {
        teach_play_params p = params_of(fixed[i].mode);
        char buf[16];
        teach_katrain_rank(&p, buf, sizeof buf);
        ck_assert_msg(!strcmp(buf, fixed[i].label), "%s: %s", fixed[i].mode, buf);
    }
    /* rank: 1 - kyu_rank, labels either side of 1d */
    teach_play_params p = params_of("rank");
    set(&p, "kt_kyu_rank", "0");
    check_rank(&p, 0, "1d");
    set(&p, "kt_kyu_rank", "-2");
    check_rank(&p, -2, "3d");
    set(&p, "kt_kyu_rank", "15");
    check_rank(&p, 15, "15k");
    /* not a KaTrain mode: no rank */
    p = params_of("ikeda");
    char buf[16];
    ck_assert(isnan(teach_katrain_rank(&p, buf, sizeof buf)));
    ck_assert_str_eq(buf, "?");
}
END_TEST

START_TEST(calibration_tables)
{
    /* every point of AI_WEIGHTED_ELO and AI_SCORELOSS_ELO, through CALIBRATED_RANK_ELO */
    static const double wx[] = {0.5, 1.0, 1.25, 1.5, 1.75, 2, 2.5, 3.0};
    static const double wy[] = {1591.5718897531551, 1269.9896556526198, 1042.25179764667,
                                848.9410084463602,  630.1483212024823,  575.3637091858013,
                                410.9747543504796,  219.8667371799533};
    teach_play_params p = params_of("weighted");
    char v[32];
    for (int i = 0; i < 8; i++) {
        snprintf(v, sizeof v, "%.17g", wx[i]);
        set(&p, "kt_weaken_fac", v);
        check_rank(&p, kyu_of_elo(wy[i]), NULL);
    }
    set(&p, "kt_weaken_fac", "1.125");   /* halfway between 1.0 and 1.25 */
    check_rank(&p, kyu_of_elo(0.5 * (wy[1] + wy[2])), NULL);
    set(&p, "kt_weaken_fac", "10");      /* held at the end */
    check_rank(&p, kyu_of_elo(wy[7]), NULL);
    static const double sx[] = {0.0, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0};
    static const double sy[] = {539, 625, 859, 1035, 1201, 1299, 1346, 1374, 1386};
    p = params_of("scoreloss");
    for (int i = 0; i < 9; i++) {
        snprintf(v, sizeof v, "%.17g", sx[i]);
        set(&p, "kt_strength", v);
        check_rank(&p, kyu_of_elo(sy[i]), NULL);
    }
    set(&p, "kt_strength", "0.15");
    check_rank(&p, kyu_of_elo(0.5 * (859 + 1035)), NULL);
    /* the grids' corners, some cells, a bilinear point; the ends of the Elo table */
    static const struct {
        const char *mode, *frac, *n;
        double elo;
        const char *label;
    } g[] = {
        {"pick", "0", "0", -533, "18k"},        {"pick", "1", "0", 1700, "5d"},
        {"pick", "0.2", "15", 508, NULL},       {"pick", "0.05", "50", 670, NULL},
        {"local", "0.05", "0", 791, NULL},      {"local", "0.5", "50", 1700, NULL},
        {"local", "0.3", "25", 1477, NULL},     {"tenuki", "0.75", "50", 1483, NULL},
        {"tenuki", "0", "10", 327, NULL},       {"tenuki", "0.1", "5", 546, NULL},
        {"territory", "0.1", "50", 1039, NULL}, {"territory", "0.5", "10", 1310, NULL},
        {"territory", "0.75", "25", 1635, NULL},{"influence", "1", "50", 1623, "5d"},
        {"influence", "0", "0", 217, NULL},     {"influence", "0.2", "15", 878, NULL},
        {"influence", "0.4", "20", (1097 + 1390 + 1120 + 1420) / 4.0, NULL},
        {"pick", "0.35", "100", 0.75 * 1305 + 0.25 * 1550, NULL},   /* n held at 50 */
    };
    for (size_t i = 0; i < sizeof g / sizeof g[0]; i++) {
        p = params_of(g[i].mode);
        set(&p, "kt_pick_frac", g[i].frac);
        set(&p, "kt_pick_n", g[i].n);
        check_rank(&p, kyu_of_elo(g[i].elo), g[i].label);
    }
}
END_TEST

/* ---- needs and the handicap mode's advantage (2.2) ------------------------------------------- */

START_TEST(auto_pda_and_needs)
{
    ck_assert_double_eq_tol(teach_katrain_auto_pda(0, 6.5), -0.0134, 1e-4);
    ck_assert_double_eq_tol(teach_katrain_auto_pda(0, 7.5), 0.0134, 1e-4);
    ck_assert_double_eq_tol(teach_katrain_auto_pda(2, 0.5), -0.5491, 1e-4);
    ck_assert_double_eq_tol(teach_katrain_auto_pda(4, 0.5), -1.2991, 1e-4);
    ck_assert_double_eq_tol(teach_katrain_auto_pda(9, 0.5), -3.0, 1e-12);   /* adv 8.464 */
    ck_assert_double_eq_tol(teach_katrain_auto_pda(1, 7), 0.0, 1e-12);      /* 1 stone: none */

    /* four handicap stones, komi 0.5, white (the AI) to move: black's -1.2991 is white's +1.2991 */
    go_game g;
    test_game_from(&g, 19, NULL, GO_BLACK, "chinese", 0.5f);
    int pts[9];
    ck_assert_int_eq(go_game_fixed_handicap(&g, 4, pts), 4);
    teach_play_params p = params_of("handicap");
    teach_play_needs n = teach_play_needs_of(&p, &g);
    ck_assert(n.search && !n.move_ownership && !n.anti_mirror && !n.raw_policy);
    ck_assert_double_eq_tol(n.pda, 1.2991, 1e-4);
    set(&p, "kt_automatic", "false");
    set(&p, "kt_pda", "-1.5");
    ck_assert_double_eq_tol(teach_katrain_needs(&p, &g).pda, 1.5, 1e-12);
    go_game_free(&g);
    test_game_from(&g, 19, NULL, GO_BLACK, "chinese", 7.5f);
    ck_assert_double_eq_tol(teach_katrain_needs(&p, &g).pda, -1.5, 1e-12);
    p = params_of("handicap");
    ck_assert_double_eq_tol(teach_katrain_needs(&p, &g).pda, 0.0134, 1e-4);

    /* what the other modes ask for */
    static const char *const net_only[] = {"policy", "weighted", "pick",      "local",
                                           "tenuki", "influence", "territory", "rank"};
    for (int i = 0; i < 8; i++) {
        p = params_of(net_only[i]);
        n = teach_play_needs_of(&p, &g);
        ck_assert_msg(n.raw_policy && !n.search, "%s", net_only[i]);
    }
    p = params_of("simple");
    n = teach_play_needs_of(&p, &g);
    ck_assert(n.search && n.move_ownership);
    p = params_of("settle");
    ck_assert(teach_play_needs_of(&p, &g).move_ownership);
    p = params_of("antimirror");
    n = teach_play_needs_of(&p, &g);
    ck_assert(n.search && n.anti_mirror && n.pda == 0);
    p = params_of("scoreloss");
    n = teach_play_needs_of(&p, &g);
    ck_assert(n.search && !n.move_ownership && !n.raw_policy && !n.anti_mirror);
    go_game_free(&g);
}
END_TEST

/* ---- the pick family's counts and weights (2.9, 2.10) ---------------------------------------- */

START_TEST(rank_sample_counts)
{
    /* section 2.10's test vectors */
    static const int kyu[6] = {15, 10, 8, 4, 0, -2};
    static const struct {
        int n_legal, points, n[6];
    } rows[] = {
        {361, 361, {23, 44, 55, 82, 114, 132}}, {300, 361, {13, 23, 30, 47, 72, 86}},
        {200, 361, {13, 20, 24, 33, 46, 54}},   {100, 361, {10, 15, 17, 22, 29, 33}},
        {81, 81, {18, 28, 33, 41, 48, 51}},     {169, 169, {21, 37, 45, 62, 79, 86}},
    };
    teach_play_params p = params_of("rank");
    for (int r = 0; r < 6; r++)
        for (int k = 0; k < 6; k++) {
            p.kt_kyu_rank = kyu[k];
            /* rank never switches to the endgame, however deep */
            int n = teach_katrain_pick_count(&p, rows[r].n_legal, rows[r].points, 300);
            ck_assert_msg(n == rows[r].n[k], "n_legal %d of %d, kyu %d: %d, expected %d",
                          rows[r].n_legal, rows[r].points, kyu[k], n, rows[r].n[k]);
        }
    ck_assert_int_eq(teach_katrain_pick_count(&p, 0, 361, 0), 1);   /* at least one */
}
END_TEST

START_TEST(pick_counts)
{
    teach_play_params p = params_of("pick");      /* 0.35, 5 */
    ck_assert_int_eq(teach_katrain_pick_count(&p, 100, 361, 0), 40);
    ck_assert_int_eq(teach_katrain_pick_count(&p, 361, 361, 0), 131);   /* floor(131.35) */
    ck_assert_int_eq(teach_katrain_pick_count(&p, 0, 361, 0), 5);
    ck_assert_int_eq(teach_katrain_pick_count(&p, 100, 361, 350), 40);  /* pick never switches */
    set(&p, "kt_pick_n", "0");
    set(&p, "kt_pick_frac", "0");
    ck_assert_int_eq(teach_katrain_pick_count(&p, 100, 361, 0), 1);     /* at least one */
    p = params_of("local");                       /* 0.0, 15, endgame 0.5 */
    ck_assert_int_eq(teach_katrain_pick_count(&p, 300, 361, 180), 15);
    ck_assert_int_eq(teach_katrain_pick_count(&p, 300, 361, 181), 150); /* 181 > 180.5 */
    p = params_of("tenuki");                      /* 0.4, 5, endgame 0.45 */
    ck_assert_int_eq(teach_katrain_pick_count(&p, 361, 361, 0), 149);   /* floor(149.4) */
    ck_assert_int_eq(teach_katrain_pick_count(&p, 200, 361, 163), 100); /* 163 > 162.45 */
    ck_assert_int_eq(teach_katrain_pick_count(&p, 20, 361, 163), 13);   /* n_normal larger */
    p = params_of("territory");                   /* 0.3, 5, endgame 0.4 */
    ck_assert_int_eq(teach_katrain_pick_count(&p, 81, 81, 32), 29);     /* floor(29.3) */
    ck_assert_int_eq(teach_katrain_pick_count(&p, 81, 81, 33), 40);     /* 33 > 32.4 */
}
END_TEST

START_TEST(line_weights)
{
    teach_play_params p = params_of("influence");   /* threshold 3.5, line_weight 10 */
    ck_assert_double_eq_tol(teach_katrain_line_weight(&p, 19, test_point(19, "D16")), 1, 1e-12);
    ck_assert_double_eq_tol(teach_katrain_line_weight(&p, 19, test_point(19, "C16")),
                            pow(10, -0.5), 1e-12);
    ck_assert_double_eq_tol(teach_katrain_line_weight(&p, 19, test_point(19, "R3")), 0.1, 1e-12);
    ck_assert_double_eq_tol(teach_katrain_line_weight(&p, 19, test_point(19, "T1")), 1e-5, 1e-17);
    ck_assert_double_eq_tol(teach_katrain_line_weight(&p, 19, test_point(19, "K10")), 1, 1e-12);
    p = params_of("territory");                     /* line_weight 2 */
    ck_assert_double_eq_tol(teach_katrain_line_weight(&p, 19, test_point(19, "A10")), 1, 1e-12);
    ck_assert_double_eq_tol(teach_katrain_line_weight(&p, 19, test_point(19, "K3")), 1, 1e-12);
    ck_assert_double_eq_tol(teach_katrain_line_weight(&p, 19, test_point(19, "D10")),
                            pow(2, -0.5), 1e-12);
    ck_assert_double_eq_tol(teach_katrain_line_weight(&p, 19, test_point(19, "K10")),
                            pow(2, -6.5), 1e-12);
    set(&p, "kt_line_weight", "4");
    ck_assert_double_eq_tol(teach_katrain_line_weight(&p, 19, test_point(19, "K10")),
                            pow(4, -6.5), 1e-15);
    p = params_of("pick");
    ck_assert_double_eq(teach_katrain_line_weight(&p, 19, test_point(19, "A1")), 1);
}
END_TEST

/* ---- the policy-based modes ------------------------------------------------------------------ */

START_TEST(override_test)
{
    go_game g;
    test_game_from(&g, 9, NULL, GO_BLACK, "tromp-taylor", 7.5f);
    teach_rng rng = {1};
    nn_result *r = net_for(&g);
    teach_play_params p = params_of("pick");   /* pick_override 0.95 */
    /* (a) pass among the 5 best: the top entry is played, here a point */
    net_fill(r, 0.001);
    net_set(r, "D4", 0.4);
    net_set(r, "pass", 0.2);
    teach_choice c = choose(&p, &g, NULL, r, &rng);
    assert_move(9, c.move, "D4", c.why);
    ck_assert_msg(strstr(c.why, "pass is among"), "%s", c.why);
    /* ... and pass itself when it is the top entry */
    net_set(r, "pass", 0.5);
    c = choose(&p, &g, NULL, r, &rng);
    assert_move(9, c.move, "pass", c.why);
    /* (b) top1 > pick_override, strictly */
    net_fill(r, 0.0005);
    net_set(r, "pass", 0);
    net_set(r, "E5", 0.96);
    c = choose(&p, &g, NULL, r, &rng);
    assert_move(9, c.move, "E5", c.why);
    ck_assert_msg(strstr(c.why, "obvious"), "%s", c.why);
    net_set(r, "E5", 0.95);
    c = choose(&p, &g, NULL, r, &rng);
    ck_assert_msg(!strstr(c.why, "obvious"), "0.95 is not above 0.95: %s", c.why);
    /* (c) rank: p2 = 0.85 at 4k, 0.99 at 15k; p1 = 0.8 on a board full of legal moves */
    p = params_of("rank");
    net_fill(r, 0.1 / 79);
    net_set(r, "E5", 0.5);
    net_set(r, "C3", 0.4);
    c = choose(&p, &g, NULL, r, &rng);
    assert_move(9, c.move, "E5", c.why);
    ck_assert_msg(strstr(c.why, "two best"), "0.9 > 0.85: %s", c.why);
    set(&p, "kt_kyu_rank", "15");
    c = choose(&p, &g, NULL, r, &rng);
    ck_assert_msg(!strstr(c.why, "obvious"), "0.9 < 0.99: %s", c.why);
    /* rank's p1 with 300 legal moves of 361: 0.8 (1 - 0.5 * 61 / 361) = 0.73241 */
    go_game g19;
    test_game_from(&g19, 19, NULL, GO_BLACK, "tromp-taylor", 7.5f);
    nn_result *r19 = net_for(&g19);
    for (int i = 0; i < 300; i++)
        r19->policy[i] = 0.2f / 299;
    r19->policy[0] = 0.7330f;
    p = params_of("rank");
    c = choose(&p, &g19, NULL, r19, &rng);
    ck_assert_msg(strstr(c.why, "obvious"), "0.7330 > 0.73241: %s", c.why);
    assert_move(19, c.move, "A19", c.why);
    r19->policy[0] = 0.7320f;
    c = choose(&p, &g19, NULL, r19, &rng);
    ck_assert_msg(!strstr(c.why, "obvious"), "0.7320 < 0.73241: %s", c.why);
    free(r19);
    go_game_free(&g19);
    free(r);
    go_game_free(&g);
}
END_TEST

START_TEST(ranking_ties_and_lz_policy)
{
    /* equal policy everywhere: the ranking keeps KaTrain's list order, x-major then its y from
     * the bottom, so the top policy move is A1, not A9 */
    go_game g;
    test_game_from(&g, 9, NULL, GO_BLACK, "tromp-taylor", 7.5f);
    ck_assert_int_eq(go_game_play(&g, test_point(9, "E5"), GO_BLACK), GO_MOVE_OK);
    nn_result *r = net_for(&g);
    net_fill(r, 1.0 / 80);
    teach_play_params p = params_of("policy");
    set(&p, "kt_opening_moves", "0");   /* depth 1 > 0: the top policy move */
    teach_rng rng = {7};
    teach_choice c = choose(&p, &g, NULL, r, &rng);
    assert_move(9, c.move, "A1", c.why);
    net_set(r, "B1", 0.02);
    assert_move(9, choose(&p, &g, NULL, r, &rng).move, "B1", "larger policy");
    /* a Leela Zero net: the raw softmax covers occupied points (E5's 0.5 is ignored) and the
     * legal moves are renormalised: D4's 0.2 of 0.5 legal mass is 0.4 */
    r->family = NN_FAMILY_LZ;
    r->has_score = r->has_ownership = false;
    for (int i = 0; i <= 81; i++)
        r->policy[i] = 0;
    net_set(r, "E5", 0.5);
    net_set(r, "D4", 0.2);
    net_set(r, "F6", 0.1);
    net_set(r, "C7", 0.15);
    net_set(r, "pass", 0.05);
    c = choose(&p, &g, NULL, r, &rng);
    assert_move(9, c.move, "D4", c.why);
    ck_assert_msg(strstr(c.why, "0.400"), "%s", c.why);
    /* the weighted draw sees the renormalised values too; without the pass (which would be
     * among the 5 best) D4, C7, F6 are 0.2, 0.15, 0.1 of 0.45 */
    net_set(r, "pass", 0);
    p = params_of("weighted");
    int count[GO_POINTS];
    tally(&p, &g, NULL, r, 2000, 11, count);
    assert_share(count[test_point(9, "D4")], 2000, 0.4 / 0.9, "D4");
    assert_share(count[test_point(9, "F6")], 2000, 0.2 / 0.9, "F6");
    ck_assert_int_eq(count[test_point(9, "E5")], 0);
    free(r);
    go_game_free(&g);
}
END_TEST

START_TEST(weighted_sampling)
{
    go_game g;
    test_game_from(&g, 9, NULL, GO_WHITE, "tromp-taylor", 7.5f);
    nn_result *r = net_for(&g);
    net_set(r, "C3", 0.1);
    net_set(r, "G3", 0.2);
    net_set(r, "C7", 0.3);
    net_set(r, "G7", 0.4);
    const char *const v[4] = {"C3", "G3", "C7", "G7"};
    int count[GO_POINTS];
    /* weaken_fac 1: in proportion to the policy */
    teach_play_params p = params_of("weighted");
    set(&p, "kt_weaken_fac", "1");
    tally(&p, &g, NULL, r, 4000, 3, count);
    for (int i = 0; i < 4; i++)
        assert_share(count[test_point(9, v[i])], 4000, 0.1 * (i + 1), v[i]);
    /* weaken_fac 2: by sqrt(policy) */
    set(&p, "kt_weaken_fac", "2");
    tally(&p, &g, NULL, r, 4000, 4, count);
    double sum = sqrt(0.1) + sqrt(0.2) + sqrt(0.3) + sqrt(0.4);
    for (int i = 0; i < 4; i++)
        assert_share(count[test_point(9, v[i])], 4000, sqrt(0.1 * (i + 1)) / sum, v[i]);
    /* lower_bound: only policies strictly above it */
    set(&p, "kt_weaken_fac", "1");
    set(&p, "kt_lower_bound", "0.25");
    tally(&p, &g, NULL, r, 2000, 5, count);
    ck_assert_int_eq(count[test_point(9, "C3")] + count[test_point(9, "G3")], 0);
    assert_share(count[test_point(9, "G7")], 2000, 4.0 / 7, "G7");
    /* nothing above it: the top policy move */
    set(&p, "kt_lower_bound", "0.5");
    teach_rng rng = {5};
    assert_move(9, choose(&p, &g, NULL, r, &rng).move, "G7", "no candidates");
    /* ai:policy's opening is weighted with lower bound 0.02: D5's 0.015 is never drawn */
    net_set(r, "D5", 0.015);
    p = params_of("policy");
    tally(&p, &g, NULL, r, 1000, 6, count);
    ck_assert_int_eq(count[test_point(9, "D5")], 0);
    assert_share(count[test_point(9, "C3")], 1000, 0.1, "C3");
    free(r);
    go_game_free(&g);
}
END_TEST

START_TEST(pick_tie_break_and_pass)
{
    go_game g;
    test_game_from(&g, 9, NULL, GO_BLACK, "tromp-taylor", 7.5f);
    nn_result *r = net_for(&g);
    teach_play_params p = params_of("pick");
    set(&p, "kt_pick_n", "25");   /* everything sampled: the choice is the tie-break's */
    teach_rng rng = {9};
    /* equal keys and weights on one column: the larger KaTrain y, the upper point */
    net_set(r, "C3", 0.3);
    net_set(r, "C7", 0.3);
    assert_move(9, choose(&p, &g, NULL, r, &rng).move, "C7", "larger y");
    /* then the larger x */
    net_set(r, "C7", 0);
    net_set(r, "G3", 0.3);
    assert_move(9, choose(&p, &g, NULL, r, &rng).move, "G3", "larger x");
    /* influence: keys p * w. A1 0.3 (w 1e-5), A2 and B1 0.2 (1e-4), B2 and C1 0.1 (1e-3):
     * keys 3e-6, 2e-5, 1e-4, C1 winning the tie with B2 on x; below the pass's 0.05 the top
     * policy move A1 is played instead */
    for (int i = 0; i <= 81; i++)
        r->policy[i] = 0;
    net_set(r, "A1", 0.3);
    net_set(r, "A2", 0.2);
    net_set(r, "B1", 0.2);
    net_set(r, "B2", 0.1);
    net_set(r, "C1", 0.1);
    net_set(r, "pass", 0.05);
    p = params_of("influence");
    set(&p, "kt_pick_n", "25");
    teach_choice c = choose(&p, &g, NULL, r, &rng);
    assert_move(9, c.move, "A1", c.why);
    ck_assert_msg(strstr(c.why, "below pass"), "%s", c.why);
    net_set(r, "pass", 0);
    c = choose(&p, &g, NULL, r, &rng);
    assert_move(9, c.move, "C1", c.why);
    /* territory (weight 1 on lines 1-3): the best policy */
    p = params_of("territory");
    set(&p, "kt_pick_n", "25");
    assert_move(9, choose(&p, &g, NULL, r, &rng).move, "A1", "territory");
    /* nothing of positive policy: the top policy move */
    for (int i = 0; i <= 81; i++)
        r->policy[i] = 0;
    net_set(r, "pass", 1);
    p = params_of("pick");
    set(&p, "kt_pick_override", "1");
    assert_move(9, choose(&p, &g, NULL, r, &rng).move, "pass", "only pass");
    free(r);
    go_game_free(&g);
}
END_TEST

START_TEST(pick_uniform_sampling)
{
    /* pick with n = 1: one move drawn uniformly among those of positive policy, whatever its
     * policy; n = 3: the best of three, so the top of 10 moves 1 - C(9,3)/C(10,3) = 30% */
    go_game g;
    test_game_from(&g, 9, NULL, GO_BLACK, "tromp-taylor", 7.5f);
    nn_result *r = net_for(&g);
    static const char *const v[10] = {"A1", "B2", "C3", "D4", "E5", "F6", "G7", "H8", "J9", "A9"};
    for (int i = 0; i < 10; i++)
        net_set(r, v[i], 0.01 * (i + 1));
    teach_play_params p = params_of("pick");
    set(&p, "kt_pick_frac", "0");
    set(&p, "kt_pick_n", "1");
    int count[GO_POINTS];
    tally(&p, &g, NULL, r, 3000, 21, count);
    for (int i = 0; i < 10; i++)
        assert_share(count[test_point(9, v[i])], 3000, 0.1, v[i]);
    set(&p, "kt_pick_n", "3");
    tally(&p, &g, NULL, r, 3000, 22, count);
    assert_share(count[test_point(9, "A9")], 3000, 0.3, "A9");
    ck_assert_int_eq(count[test_point(9, "A1")] + count[test_point(9, "B2")], 0);
    free(r);
    go_game_free(&g);
}
END_TEST

/* Whether a and b are at Chebyshev distance d or less. */
static bool within(int a, int b, int d)
{
    return abs(go_point_x(a) - go_point_x(b)) <= d && abs(go_point_y(a) - go_point_y(b)) <= d;
}

/* Mean Euclidean distance from `from` of the moves counted. */
static double mean_distance(const int *count, int from)
{
    double sum = 0;
    int n = 0;
    for (int p = 0; p < GO_POINTS; p++)
        if (count[p] && p != GO_PASS) {
            double dx = go_point_x(p) - go_point_x(from), dy = go_point_y(p) - go_point_y(from);
            sum += count[p] * sqrt(dx * dx + dy * dy);
            n += count[p];
        }
    return sum / n;
}

START_TEST(local_tenuki_endgame)
{
    go_game g;
    test_game_from(&g, 19, NULL, GO_BLACK, "tromp-taylor", 7.5f);
    ck_assert_int_eq(go_game_play(&g, test_point(19, "Q16"), GO_BLACK), GO_MOVE_OK);
    int last = test_point(19, "Q16");
    nn_result *r = net_for(&g);
    net_fill(r, 1.0 / 360);
    int count[GO_POINTS];
    /* local, stddev 1, one draw: next to the last move */
    teach_play_params p = params_of("local");
    set(&p, "kt_stddev", "1");
    set(&p, "kt_pick_n", "1");
    tally(&p, &g, NULL, r, 500, 31, count);
    double local_d = mean_distance(count, last);
    for (int q = 0; q < GO_POINTS; q++)
        if (count[q])
            ck_assert_msg(within(q, last, 6), "%s drawn", vtx(19, q));
    ck_assert_msg(local_d < 2.0, "mean distance %.2f", local_d);   /* Rayleigh mean 1.25 */
    /* tenuki (stddev 7.5): away from it; the 9 points around it weigh under 1 - e^(-2/112.5) */
    p = params_of("tenuki");
    set(&p, "kt_pick_n", "1");
    set(&p, "kt_pick_frac", "0");
    tally(&p, &g, NULL, r, 500, 32, count);
    int near = 0;
    for (int q = 0; q < GO_POINTS; q++)
        if (count[q] && within(q, last, 1))
            near += count[q];
    ck_assert_int_le(near, 1);
    ck_assert_msg(mean_distance(count, last) > 8, "tenuki mean %.2f",
                  mean_distance(count, last));
    /* endgame (kt_endgame 0: depth 1 > 0): weights 1 and n = 360 / 2, so the one move of high
     * policy far from the last move is sampled, and wins, in half the draws; before, never */
    net_set(r, "C3", 0.05);
    p = params_of("local");
    set(&p, "kt_stddev", "1");
    set(&p, "kt_pick_n", "1");
    tally(&p, &g, NULL, r, 400, 33, count);
    ck_assert_int_eq(count[test_point(19, "C3")], 0);
    set(&p, "kt_endgame", "0");
    tally(&p, &g, NULL, r, 400, 34, count);
    assert_share(count[test_point(19, "C3")], 400, 180.0 / 360, "C3 in the endgame");
    teach_rng rng = {1};
    teach_choice c = choose(&p, &g, NULL, r, &rng);
    ck_assert_msg(strstr(c.why, "endgame"), "%s", c.why);
    /* no last move: policy weighted with 2.7's settings */
    go_game_free(&g);
    test_game_from(&g, 19, NULL, GO_BLACK, "tromp-taylor", 7.5f);
    free(r);
    r = net_for(&g);
    net_fill(r, 1.0 / 361);
    p = params_of("tenuki");
    c = choose(&p, &g, NULL, r, &rng);
    ck_assert_msg(strstr(c.why, "no last move"), "%s", c.why);
    free(r);
    go_game_free(&g);
}
END_TEST

/* ---- the search-based modes ------------------------------------------------------------------ */

START_TEST(scoreloss_draws)
{
    go_game g;
    test_game_from(&g, 9, NULL, GO_WHITE, "tromp-taylor", 7.5f);
    /* root lead 3: points lost 0, 1, 3 and -1 (counted as 0); strength 0.5 weights
     * 1, e^-0.5, e^-1.5, 1 */
    cand cs[] = {{"E5", 3.0, 0, NULL}, {"C3", 2.0, 0, NULL}, {"G7", 0.0, 0, NULL},
                 {"D4", 4.0, 0, NULL}};
    mcts_analysis an = an_of(&g, 3.0, cs, 4);
    teach_play_params p = params_of("scoreloss");
    set(&p, "kt_strength", "0.5");
    double w[4] = {1, exp(-0.5), exp(-1.5), 1}, sum = w[0] + w[1] + w[2] + w[3];
    int count[GO_POINTS];
    tally(&p, &g, &an, NULL, 4000, 41, count);
    for (int i = 0; i < 4; i++)
        assert_share(count[test_point(9, cs[i].vertex)], 4000, w[i] / sum, cs[i].vertex);
    /* a known draw: the candidate of largest ln(u) / w, one u per candidate in list order */
    for (uint64_t seed = 100; seed < 110; seed++) {
        teach_rng rng = {seed}, mirror = {seed};
        int best = 0;
        double best_key = -INFINITY;
        for (int i = 0; i < 4; i++) {
            double key = log(teach_rng_uniform(&mirror)) / (w[i] + 1e-18);
            if (key > best_key) {
                best_key = key;
                best = i;
            }
        }
        teach_choice c = choose(&p, &g, &an, NULL, &rng);
        assert_move(9, c.move, cs[best].vertex, c.why);
    }
    /* strength 0: uniform */
    set(&p, "kt_strength", "0");
    tally(&p, &g, &an, NULL, 2000, 42, count);
    assert_share(count[test_point(9, "G7")], 2000, 0.25, "G7 at strength 0");
    /* the best move is to pass, or there is no candidate: pass */
    mcts_analysis_free(&an);
    cand pass_first[] = {{"pass", 3.0, 0, NULL}, {"C3", 3.0, 0, NULL}};
    an = an_of(&g, 3.0, pass_first, 2);
    teach_rng rng = {1};
    assert_move(9, choose(&p, &g, &an, NULL, &rng).move, "pass", "pass first");
    mcts_analysis_free(&an);
    an = an_of(&g, 3.0, NULL, 0);
    assert_move(9, choose(&p, &g, &an, NULL, &rng).move, "pass", "empty");
    mcts_analysis_free(&an);
    go_game_free(&g);
}
END_TEST

START_TEST(jigo_target)
{
    go_game g;
    test_game_from(&g, 9, NULL, GO_WHITE, "tromp-taylor", 7.5f);
    /* leads of the mover (white here): |lead - 0.5| = 2.5, 0.1, 0.2, 1.0, 0.1 */
    cand cs[] = {{"E5", 3.0, 0, NULL},  {"C3", 0.4, 0, NULL}, {"G7", 0.7, 0, NULL},
                 {"D4", -0.5, 0, NULL}, {"pass", 0.6, 0, NULL}};
    mcts_analysis an = an_of(&g, 3.0, cs, 5);
    teach_play_params p = params_of("jigo");
    teach_rng rng = {1};
    teach_choice c = choose(&p, &g, &an, NULL, &rng);
    assert_move(9, c.move, "C3", c.why);   /* first of the two at 0.1 */
    ck_assert_msg(strstr(c.why, "KataJigo: C3 ends closest to +0.5"), "%s", c.why);
    set(&p, "kt_target_score", "-2");
    assert_move(9, choose(&p, &g, &an, NULL, &rng).move, "D4", "target -2");
    set(&p, "kt_target_score", "0.6");
    assert_move(9, choose(&p, &g, &an, NULL, &rng).move, "pass", "pass is eligible");
    mcts_analysis_free(&an);
    an = an_of(&g, 0, NULL, 0);
    assert_move(9, choose(&p, &g, &an, NULL, &rng).move, "pass", "empty");
    mcts_analysis_free(&an);
    go_game_free(&g);
}
END_TEST

/* Black G5 set up, then black G9 and white G7: black to move on 13x13. */
static void simple_game(go_game *g)
{
    test_game_from(g, 13, NULL, GO_BLACK, "tromp-taylor", 7.5f);
    ck_assert(go_game_setup_stone(g, test_point(13, "G5"), GO_BLACK));
    ck_assert_int_eq(go_game_play(g, test_point(13, "G9"), GO_BLACK), GO_MOVE_OK);
    ck_assert_int_eq(go_game_play(g, test_point(13, "G7"), GO_WHITE), GO_MOVE_OK);
}

START_TEST(simple_settle_costs)
{
    go_game g;
    simple_game(&g);
    static float zero[NN_MAX_POINTS];
    /* root lead 2. H7 and G6 touch white's G7 with no black stone at the 1.20.0 offsets (G6's
     * G5 below it is one of the typo's holes): attachments; G8 has black G9 above it, KaTrain's
     * (0, 1): no attachment. B2 is 5 or more from G7 and G9: tenuki. C3 has too few visits for
     * order 4, the pass loses more than 0.75, F2 more than max_points_lost. */
    cand cs[] = {{"H7", 2.0, 20, zero},  {"G6", 1.9, 9, zero}, {"G8", 1.8, 5, zero},
                 {"B2", 1.9, 5, zero},   {"C3", 1.99, 2, zero}, {"pass", 1.0, 5, zero},
                 {"F2", 0.2, 5, zero},   {"F8", 1.99, 5, NULL}};
    mcts_analysis an = an_of(&g, 2.0, cs, 8);
    teach_play_params p = params_of("simple");
    teach_rng rng = {1};
    /* costs: H7 0 + 1, G6 0.1 + 1, G8 0.2, B2 0.1 + 0.5 */
    teach_choice c = choose(&p, &g, &an, NULL, &rng);
    assert_move(13, c.move, "G8", c.why);
    ck_assert_msg(strstr(c.why, "cost 0.20") && strstr(c.why, "4 candidates"), "%s", c.why);
    set(&p, "kt_attach_penalty", "0");
    assert_move(13, choose(&p, &g, &an, NULL, &rng).move, "H7", "no attach penalty");
    set(&p, "kt_attach_penalty", "1");
    set(&p, "kt_tenuki_penalty", "0");
    assert_move(13, choose(&p, &g, &an, NULL, &rng).move, "B2", "no tenuki penalty");
    /* F8 has no ownership, C3 too few visits: lowering min_visits lets C3 (cost 0.01) in */
    set(&p, "kt_min_visits", "2");
    assert_move(13, choose(&p, &g, &an, NULL, &rng).move, "C3", "min_visits 2");
    mcts_analysis_free(&an);

    /* ownership (white's view) after G8: black owns G5 (-0.8) and G7's white stone (-0.9),
     * white G9 (+0.2). simple, black's view: S_own 0.8 + 0.9, S_opp 0.2, cost 0.2 - (1.7 +
     * 0.5 * 0.2) = -1.60. settle, at the stones: black's G5 and G9 0.8 + 0.2, white's G7 0.9,
     * cost 0.2 - (1.0 + 0.45) = -1.25 (reading the grid transposed would find nothing there) */
    static float own[NN_MAX_POINTS];
    own[pol_index(13, "G5")] = -0.8f;
    own[pol_index(13, "G7")] = -0.9f;
    own[pol_index(13, "G9")] = 0.2f;
    cand cs2[] = {{"H7", 2.0, 20, zero}, {"G8", 1.8, 5, own}};
    an = an_of(&g, 2.0, cs2, 2);
    p = params_of("simple");
    c = choose(&p, &g, &an, NULL, &rng);
    assert_move(13, c.move, "G8", c.why);
    ck_assert_msg(strstr(c.why, "cost -1.60"), "%s", c.why);
    p = params_of("settle");
    c = choose(&p, &g, &an, NULL, &rng);
    assert_move(13, c.move, "G8", c.why);
    ck_assert_msg(strstr(c.why, "cost -1.25"), "%s", c.why);
    /* negative settled_weight seeks the unsettled: H7 */
    set(&p, "kt_settled_weight", "-1");
    assert_move(13, choose(&p, &g, &an, NULL, &rng).move, "H7", "seeking complications");
    /* nothing survives: KaTrain raises an error */
    set(&p, "kt_max_points_lost", "0");
    teach_choice out;
    char err[256];
    ck_assert(!try_choose(&p, &g, &an, NULL, &rng, &out, err));
    ck_assert_msg(strstr(err, "Settle Stones"), "%s", err);
    mcts_analysis_free(&an);
    /* the best move is to pass: pass */
    cand pass_first[] = {{"pass", 2.0, 20, zero}, {"G8", 1.8, 5, zero}};
    an = an_of(&g, 2.0, pass_first, 2);
    assert_move(13, choose(&p, &g, &an, NULL, &rng).move, "pass", "pass first");
    mcts_analysis_free(&an);
    go_game_free(&g);

    /* white to move: its own view of the same ownership, S_own 0.2, S_opp 1.7; N13 and N12 are
     * tenuki from A1 and G7 */
    simple_game(&g);
    ck_assert_int_eq(go_game_play(&g, test_point(13, "A1"), GO_BLACK), GO_MOVE_OK);
    cand cs3[] = {{"N13", 0.0, 20, zero}, {"N12", -0.1, 5, own}};
    an = an_of(&g, 0.0, cs3, 2);
    p = params_of("simple");
    c = choose(&p, &g, &an, NULL, &rng);
    assert_move(13, c.move, "N12", c.why);
    ck_assert_msg(strstr(c.why, "cost -0.45"), "0.1 + 0.5 - (0.2 + 0.85): %s", c.why);
    mcts_analysis_free(&an);
    go_game_free(&g);
}
END_TEST

START_TEST(searched_modes_and_fallbacks)
{
    go_game g;
    test_game_from(&g, 9, NULL, GO_BLACK, "tromp-taylor", 7.5f);
    cand cs[] = {{"D4", 1.0, 0, NULL}, {"E5", 0.5, 0, NULL}};
    mcts_analysis an = an_of(&g, 1.0, cs, 2);
    teach_rng rng = {1};
    teach_play_params p = params_of("antimirror");
    teach_choice c = choose(&p, &g, &an, NULL, &rng);
    assert_move(9, c.move, "D4", c.why);
    ck_assert_msg(strstr(c.why, "anti-mirror"), "%s", c.why);
    p = params_of("handicap");
    c = choose(&p, &g, &an, NULL, &rng);
    assert_move(9, c.move, "D4", c.why);
    ck_assert_msg(strstr(c.why, "+0.01"), "%s", c.why);   /* even game, komi 7.5 */
    /* a policy mode without the network: ai:default, the search's first move */
    p = params_of("rank");
    c = choose(&p, &g, &an, NULL, &rng);
    assert_move(9, c.move, "D4", c.why);
    ck_assert_msg(strstr(c.why, "no policy"), "%s", c.why);
    teach_choice out;
    char err[256];
    ck_assert(!try_choose(&p, &g, NULL, NULL, &rng, &out, err));
    /* a search mode without its search: an error */
    p = params_of("jigo");
    ck_assert(!try_choose(&p, &g, NULL, NULL, &rng, &out, err));
    ck_assert_msg(strstr(err, "KataJigo"), "%s", err);
    /* without a score (a Leela Zero net): the search's move */
    an.has_score = false;
    p = params_of("scoreloss");
    c = choose(&p, &g, &an, NULL, &rng);
    assert_move(9, c.move, "D4", c.why);
    p = params_of("simple");
    ck_assert(!try_choose(&p, &g, &an, NULL, &rng, &out, err));
    /* not a KaTrain mode */
    p = params_of("best");
    ck_assert(!try_choose(&p, &g, &an, NULL, &rng, &out, err));
    /* teach_choose hands the KaTrain modes over */
    an.has_score = true;
    p = params_of("jigo");
    teach_choice_in in = {.game = &g, .an = &an, .search_choice = GO_PASS};
    ck_assert_msg(teach_choose(&p, &in, &rng, &out, err, sizeof err), "%s", err);
    assert_move(9, out.move, "E5", out.why);
    mcts_analysis_free(&an);
    go_game_free(&g);
}
END_TEST

START_TEST(bad_settings)
{
    teach_play_params p = teach_play_params_default(), before = p;
    char err[256];
    static const struct {
        const char *name, *value, *says;
    } bad[] = {
        {"kt_pick_frac", "2", "outside"},  {"kt_kyu_rank", "16", "outside"},
        {"kt_kyu_rank", "1.5", "integer"}, {"kt_pda", "3.5", "outside"},
        {"kt_line_weight", "0", "outside"}, {"kt_stddev", "0", "outside"},
        {"kt_weaken_fac", "0", "outside"}, {"kt_automatic", "maybe", "true or false"},
        {"kt_strength", "abc", "number"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ck_assert_msg(!teach_play_params_set(&p, bad[i].name, bad[i].value, err, sizeof err),
                      "%s=%s accepted", bad[i].name, bad[i].value);
        ck_assert_msg(strstr(err, bad[i].name) && strstr(err, bad[i].says), "%s", err);
    }
    ck_assert(!memcmp(&p, &before, sizeof p));
    /* "default" gives a mode tunable back to its mode */
    set(&p, "play_policy", "tenuki");
    set(&p, "kt_pick_override", "0.5");
    set(&p, "ktPickOverride", "default");
    ck_assert(isnan(p.kt_pick_override));
}
END_TEST

/* ---- the search's anti-mirror logic (mcts/mirror.c) ------------------------------------------ */

/* A 13x13 game where the first `pairs` moves of `lead` (from the list) are each answered by the
 * other colour's point reflection through tengen; `first` is played before them (NULL: none). */
static void mirrored_game(go_game *g, const char *first, go_color lead, int pairs, float komi)
{
    static const char *const moves[] = {"D10", "K10", "F11", "H11", "D8",  "K8",  "G9", "B9",
                                        "M9",  "E12", "J12", "F9",  "G12", "L12", "C12"};
    test_game_from(g, 13, NULL, GO_BLACK, "tromp-taylor", komi);
    if (first)
        ck_assert_int_eq(go_game_play(g, test_point(13, first), go_opponent(lead)), GO_MOVE_OK);
    for (int i = 0; i < pairs; i++) {
        int p = test_point(13, moves[i]);
        int q = go_point_at(12 - go_point_x(p), 12 - go_point_y(p));
        ck_assert_int_eq(go_game_play(g, p, lead), GO_MOVE_OK);
        ck_assert_int_eq(go_game_play(g, q, go_opponent(lead)), GO_MOVE_OK);
    }
}

/* A search of g with anti_mirror, 1 thread, `visits` visits and a fixed seed. */
static mcts_search *search_of(nn_model *m, const go_game *g, bool anti, int visits,
                              mcts_analysis *a)
{
    mcts_params p = mcts_params_default();
    p.max_visits = visits;
    p.seed = 4242;
    p.anti_mirror = anti;
    char err[512];
    mcts_search *s = mcts_new(m, &p, err, sizeof err);
    ck_assert_msg(s != NULL, "%s", err);
    mcts_set_position(s, g);
    ck_assert_msg(mcts_run(s, NULL, NULL, NULL, err, sizeof err), "%s", err);
    mcts_analysis_opts o = {.pv_len = 4};
    ck_assert(mcts_analysis_get(s, &o, a));
    return s;
}

static int64_t visits_at(const mcts_analysis *a, int move)
{
    for (int i = 0; i < a->num_moves; i++)
        if (a->moves[i].move == move)
            return a->moves[i].visits;
    return 0;
}

START_TEST(anti_mirror_search)
{
    nn_model *m = test_model_load(TEST_G170, "cpu");
    int tengen = test_point(13, "G7");
    go_game g;
    mcts_analysis plain = {0}, anti = {0};
    /* 13 mirrored replies are not yet a mirroring opponent (13 < 7 + 13 / 2): the anti-mirror
     * search is the plain one, visit for visit */
    mirrored_game(&g, NULL, GO_BLACK, 13, 7.5f);
    mcts_search *s1 = search_of(m, &g, false, 40, &plain);
    mcts_search *s2 = search_of(m, &g, true, 40, &anti);
    ck_assert_int_eq(s2->mirror.pla, GO_EMPTY);
    ck_assert_int_eq(plain.num_moves, anti.num_moves);
    for (int i = 0; i < plain.num_moves; i++) {
        ck_assert_int_eq(plain.moves[i].move, anti.moves[i].move);
        ck_assert_int_eq(plain.moves[i].visits, anti.moves[i].visits);
    }
    mcts_free(s1);
    mcts_free(s2);
    go_game_free(&g);

    /* 15: white mirrors, komi 7.5 under area scoring (advantage 7.5 - 1 = 6.5 for white). At
     * the root black's tengen gets prior p + 0.3 (1 - p) and 6% of the visits forced (white's
     * last reply is far from tengen); in the tree white's mirror replies get prior weight 1 /
     * (1 + sqrt(depth)), and 15% forced, so the line under black's best move is a mirror */
    mirrored_game(&g, NULL, GO_BLACK, 15, 7.5f);
    s1 = search_of(m, &g, false, 100, &plain);
    s2 = search_of(m, &g, true, 100, &anti);
    ck_assert_int_eq(s1->mirror.pla, GO_EMPTY);
    ck_assert_int_eq(s2->mirror.pla, GO_WHITE);
    ck_assert_double_eq_tol(s2->mirror.advantage, 6.5, 1e-9);
    int64_t t_plain = visits_at(&plain, tengen), t_anti = visits_at(&anti, tengen);
    ck_assert_msg(t_anti >= 0.06 * (anti.root_visits - 1) - 1 && t_anti > t_plain,
                  "tengen: %lld visits with anti-mirror, %lld without",
                  (long long)t_anti, (long long)t_plain);
    const mcts_move_info *top = &anti.moves[0];
    ck_assert_int_ge(top->pv_len, 2);
    ck_assert_msg(top->pv[1] == go_point_at(12 - go_point_x(top->pv[0]),
                                            12 - go_point_y(top->pv[0])),
                  "%s answered by %s", vtx(13, top->pv[0]), vtx(13, top->pv[1]));
    /* the mode plays that search's move */
    teach_play_params p = params_of("antimirror");
    teach_rng rng = {1};
    teach_choice c = choose(&p, &g, &anti, NULL, &rng);
    ck_assert_int_eq(c.move, anti.moves[0].move);
    mcts_analysis_free(&plain);
    mcts_analysis_free(&anti);
    mcts_free(s1);
    mcts_free(s2);
    go_game_free(&g);

    /* the hard case: black took tengen first and mirrors white, komi 0.5 (advantage 1 - 0.5 for
     * black). White's moves touching the tengen stone get 0.10 / 4 liberties of the visits
     * forced each and a utility bonus */
    mirrored_game(&g, "G7", GO_WHITE, 15, 0.5f);
    s1 = search_of(m, &g, false, 100, &plain);
    s2 = search_of(m, &g, true, 100, &anti);
    ck_assert_int_eq(s2->mirror.pla, GO_BLACK);
    ck_assert_double_eq_tol(s2->mirror.advantage, 0.5, 1e-9);
    int64_t c_plain = 0, c_anti = 0;
    for (int d = 0; d < 4; d++) {
        c_plain += visits_at(&plain, tengen + go_dir4[d]);
        c_anti += visits_at(&anti, tengen + go_dir4[d]);
    }
    ck_assert_msg(c_anti > c_plain && c_anti >= 4 * (0.025 * (anti.root_visits - 1) - 1),
                  "contact with tengen: %lld visits with anti-mirror, %lld without",
                  (long long)c_anti, (long long)c_plain);
    mcts_analysis_free(&plain);
    mcts_analysis_free(&anti);
    mcts_free(s1);
    mcts_free(s2);
    go_game_free(&g);
    nn_model_free(m);
}
END_TEST

Suite *katrain_suite(void)
{
    Suite *s = suite_create("katrain");
    TCase *tc = tcase_create("modes");
    tcase_add_test(tc, calibration_check_values);
    tcase_add_test(tc, calibration_tables);
    tcase_add_test(tc, auto_pda_and_needs);
    tcase_add_test(tc, rank_sample_counts);
    tcase_add_test(tc, pick_counts);
    tcase_add_test(tc, line_weights);
    tcase_add_test(tc, override_test);
    tcase_add_test(tc, ranking_ties_and_lz_policy);
    tcase_add_test(tc, weighted_sampling);
    tcase_add_test(tc, pick_tie_break_and_pass);
    tcase_add_test(tc, pick_uniform_sampling);
    tcase_add_test(tc, local_tenuki_endgame);
    tcase_add_test(tc, scoreloss_draws);
    tcase_add_test(tc, jigo_target);
    tcase_add_test(tc, simple_settle_costs);
    tcase_add_test(tc, searched_modes_and_fallbacks);
    tcase_add_test(tc, bad_settings);
    suite_add_tcase(s, tc);
    TCase *search = tcase_create("anti_mirror");
    tcase_set_timeout(search, 120);
    tcase_add_test(search, anti_mirror_search);
    suite_add_tcase(s, search);
    return s;
}

int main(void) { return test_run_suite(katrain_suite()); }
