/* tests/test_control.c -- the move-choice tunables (teach/choice.h), seed 001's policies on
 * hand-built analyses where each rule decides the move (teach/control.h), the playout doubling
 * advantage in the evaluator and the search, and the teaching player through GTP and JSON. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "go/sgf.h"
#include "shido_pipe.h"
#include "teach/choice.h"
#include "teach/control.h"
#include "teach/naturalness.h"
#include "teach/play.h"
#include "tools/analysis_json.h"
#include "tools/gtp.h"

/* ---- building analyses ---------------------------------------------------------------------- */

typedef struct test_an {
    mcts_analysis an;
    mcts_move_info moves[32];
    go_game game;
    teach_play_state state;
} test_an;

/* A 13x13 Tromp-Taylor game from a diagram with to_move to move, and an empty analysis of it. */
static void an_init(test_an *t, const char *pic, go_color to_move)
{
    memset(t, 0, sizeof *t);
    test_game_from(&t->game, 13, pic, to_move, "tromp-taylor", 7.5f);
    t->an.size = 13;
    t->an.to_move = to_move;
    t->an.moves = t->moves;
    t->an.root_visits = 0;
}

/* Adds a visited move: vertex, visits, winrate and score lead (mover's view), prior. */
static void an_add(test_an *t, const char *v, int64_t visits, double winrate, double lead,
                   double prior)
{
    mcts_move_info *m = &t->moves[t->an.num_moves];
    memset(m, 0, sizeof *m);
    m->move = strcmp(v, "pass") ? test_point(13, v) : GO_PASS;
    m->visits = visits;
    m->winrate = winrate;
    m->score_lead = lead;
    m->prior = prior;
    m->order = t->an.num_moves++;
    t->an.root_visits += visits;
    if (m->order == 0) {
        t->an.root_winrate = winrate;
        t->an.root_score_lead = lead;
    }
}

/* The move p chooses on t, the search's own choice being the analysis's first move, with the
 * moves excluded[0..num_excluded) left out. */
static int choose_excluding(const teach_play_params *p, test_an *t, uint64_t seed,
                            const int *excluded, int num_excluded, char *why)
{
    teach_choice_in in = {.game = &t->game, .an = &t->an, .search_choice = t->moves[0].move,
                          .state = &t->state, .excluded = excluded,
                          .num_excluded = num_excluded};
    teach_rng rng = {seed};
    teach_choice out;
    char err[256];
    ck_assert_msg(teach_choose(p, &in, &rng, &out, err, sizeof err), "%s", err);
    if (why)
        strcpy(why, out.why);
    return out.move;
}

static int choose(const teach_play_params *p, test_an *t, uint64_t seed, char *why)
{
    return choose_excluding(p, t, seed, NULL, 0, why);
}

static void assert_move(int got, const char *want, const char *why)
{
    char v[8];
    ck_assert_msg(got == test_point(13, want), "chose %s, not %s (%s)",
                  go_point_to_gtp(13, got, v), want, why ? why : "");
}

static teach_play_params params_of(const char *policy)
{
    teach_play_params p = teach_play_params_default();
    char err[256];
    ck_assert_msg(teach_play_params_set(&p, "play_policy", policy, err, sizeof err), "%s", err);
    p.prior_floor = 0;   /* the rule alone decides, unless a test says otherwise */
    return p;
}

/* ---- tunables ------------------------------------------------------------------------------ */

START_TEST(test_tunables)
{
    teach_play_params p = teach_play_params_default();
    char err[256], buf[64];
    ck_assert_int_eq(p.policy, TEACH_POLICY_BEST);
    ck_assert(teach_play_params_set(&p, "playPolicy", "ABC25", err, sizeof err));
    ck_assert_int_eq(p.policy, TEACH_POLICY_IKEDA);
    ck_assert(p.ikeda_c == 2.5 && p.method_a && p.method_b && p.method_c &&
              p.method_c_alpha == 0.25);
    ck_assert(teach_play_params_set(&p, "play-policy", "A15", err, sizeof err));
    ck_assert(p.ikeda_c == 1.5 && p.method_a && !p.method_b && !p.method_c);
    ck_assert(teach_play_params_get(&p, "play_policy", buf, sizeof buf));
    ck_assert_str_eq(buf, "ikeda");
    ck_assert(!teach_play_params_set(&p, "play_policy", "gentle", err, sizeof err));
    ck_assert_msg(strstr(err, "play_policy") && strstr(err, "gentle") && strstr(err, "ikeda"),
                  "%s", err);
    ck_assert(!teach_play_params_set(&p, "ikeda_t_min", "1.5", err, sizeof err));
    ck_assert_msg(strstr(err, "ikeda_t_min") && strstr(err, "[0, 1]"), "%s", err);
    ck_assert(!teach_play_params_set(&p, "kt_pick_frac", "2", err, sizeof err));
    ck_assert_msg(strstr(err, "kt_pick_frac"), "%s", err);
    ck_assert(!teach_play_params_set(&p, "no_such", "1", err, sizeof err));
    ck_assert_msg(strstr(err, "no_such"), "%s", err);
    ck_assert(teach_play_params_set(&p, "style", "center19", err, sizeof err));
    ck_assert(p.style_w[0] == 0.25 && p.style_w[4] == 2.0);
    ck_assert(teach_play_params_set(&p, "style", "1,2,3,4,5", err, sizeof err));
    ck_assert(p.style_w[2] == 3);
    ck_assert(!teach_play_params_set(&p, "style", "1,2,3", err, sizeof err));
    ck_assert_msg(strstr(err, "style"), "%s", err);
    ck_assert(isnan(p.kt_pick_n));
    ck_assert(teach_play_params_get(&p, "kt_pick_n", buf, sizeof buf));
    ck_assert_str_eq(buf, "default");
    ck_assert(teach_play_params_set(&p, "kt_pick_n", "7", err, sizeof err) && p.kt_pick_n == 7);
    ck_assert(teach_play_params_set(&p, "kt_pick_n", "default", err, sizeof err) &&
              isnan(p.kt_pick_n));
    /* the search's tunables and these share one setter and config files */
    mcts_params m = mcts_params_default();
    teach_play_params q = teach_play_params_default();
    ck_assert(teach_set_param(&m, &q, "maxVisits", "77", err, sizeof err) && m.max_visits == 77);
    ck_assert(teach_set_param(&m, &q, "play_policy", "naive", err, sizeof err) &&
              q.policy == TEACH_POLICY_NAIVE);
    ck_assert(!teach_set_param(&m, NULL, "play_policy", "naive", err, sizeof err));
    int n;
    const mcts_param_info *list = teach_play_param_list(&n);
    ck_assert(n > 40 && !strcmp(list[0].name, "play_policy"));
}
END_TEST

START_TEST(test_needs)
{
    go_game g;
    test_game_from(&g, 13, NULL, GO_BLACK, "tromp-taylor", 7.5f);
    teach_play_params p = params_of("best");
    teach_play_needs n = teach_play_needs_of(&p, &g);
    ck_assert(n.search && !n.root_ownership && !n.raw_policy && n.c_puct == 0);
    p = params_of("A15");
    n = teach_play_needs_of(&p, &g);
    ck_assert(n.search && n.root_ownership && n.c_puct == 10);
    p = params_of("net");
    n = teach_play_needs_of(&p, &g);
    ck_assert(!n.search && n.raw_policy);
    p = params_of("aggressive");
    ck_assert(teach_play_needs_of(&p, &g).move_ownership);
    p = params_of("two-phase");   /* method A on: its search spreads */
    ck_assert(p.method_a);
    ck_assert(teach_play_needs_of(&p, &g).pass_lead && teach_play_needs_of(&p, &g).c_puct == 10);
    p.method_a = false;
    ck_assert(teach_play_needs_of(&p, &g).c_puct == 0);
    p = params_of("adaptive");
    ck_assert(teach_play_needs_of(&p, &g).c_puct == 10);
    go_game_free(&g);
}
END_TEST

START_TEST(test_geometry)
{
    teach_play_params p = teach_play_params_default();
    ck_assert_int_eq(teach_line_of(13, test_point(13, "A1")), 1);
    ck_assert_int_eq(teach_line_of(13, test_point(13, "C3")), 3);
    ck_assert_int_eq(teach_line_of(13, test_point(13, "D10")), 4);
    ck_assert_int_eq(teach_line_of(13, test_point(13, "G7")), 7);
    ck_assert_int_eq(teach_line_of(19, go_point_from_gtp(19, "Q16")), 4);
    char err[128];
    ck_assert(teach_play_params_set(&p, "style", "edge13", err, sizeof err));
    ck_assert(teach_style_weight(&p, 13, test_point(13, "B2")) == 2.0);
    ck_assert(teach_style_weight(&p, 13, test_point(13, "C11")) == 2.0);
    ck_assert(teach_style_weight(&p, 13, test_point(13, "D4")) == 0.5);
    ck_assert(teach_style_weight(&p, 13, test_point(13, "G7")) == 0.5);
    ck_assert(teach_style_weight(&p, 13, GO_PASS) == 1.0);
    /* method B's distance table (seed 001 section 5.2.2) */
    ck_assert(teach_method_b_factor(1.0) == 1.50 && teach_method_b_factor(2.0) == 1.50);
    ck_assert(teach_method_b_factor(2.5) == 1.25 && teach_method_b_factor(3.0) == 1.25);
    ck_assert(teach_method_b_factor(3.2) == 1.00 && teach_method_b_factor(4.5) == 0.75);
    ck_assert(teach_method_b_factor(5.5) == 0.50 && teach_method_b_factor(7.0) == 0.25);
    ck_assert(teach_method_b_factor(7.1) == 0.10);
    /* the naturalness filter at c = 1.5: gap 0.04 needs p > 0.10 (0.03c = 0.045 > 0.04) ... */
    ck_assert(teach_ikeda_natural(0.04, 0.06, 1.5));   /* 0.04 < 0.045 and 0.06 > 0.05 */
    ck_assert(!teach_ikeda_natural(0.05, 0.06, 1.5));  /* 0.05 >= 0.045; 0.06 < 0.10 */
    ck_assert(teach_ikeda_natural(0.05, 0.11, 1.5));   /* 0.05 < 0.06 and 0.11 > 0.10 */
    ck_assert(teach_ikeda_natural(0.11, 0.41, 1.5));   /* 0.11 < 0.12 and 0.41 > 0.40 */
    ck_assert(!teach_ikeda_natural(0.12, 0.90, 1.5));
    /* the score band [-10, -4], gamma 3 */
    p = teach_play_params_default();
    ck_assert_double_eq_tol(teach_score_weight(&p, 0.3, -6), 0.3, 1e-12);
    ck_assert_double_eq_tol(teach_score_weight(&p, 0.3, -2), 0.3 / 9, 1e-12);
    ck_assert_double_eq_tol(teach_score_weight(&p, 0.3, -11), 0.1, 1e-12);
}
END_TEST

/* ---- the policies -------------------------------------------------------------------------- */

START_TEST(test_naive_and_best)
{
    test_an t;
    an_init(&t, NULL, GO_BLACK);
    an_add(&t, "G7", 400, 0.80, 9.0, 0.40);
    an_add(&t, "D10", 100, 0.62, 4.0, 0.20);
    an_add(&t, "K4", 50, 0.51, 0.5, 0.10);
    an_add(&t, "C3", 20, 0.30, -6.0, 0.05);
    teach_play_params p = params_of("naive");
    assert_move(choose(&p, &t, 1, NULL), "K4", NULL);
    p = params_of("best");
    assert_move(choose(&p, &t, 1, NULL), "G7", NULL);
    /* the prior floor: K4 (prior 0.10) is left out at 0.15, C3 too; D10 is closest then */
    p = params_of("naive");
    p.prior_floor = 0.15;
    assert_move(choose(&p, &t, 1, NULL), "D10", NULL);
    go_game_free(&t.game);
}
END_TEST

/* net: the favourite, or early in the game a move drawn by P^(1/T) among the legal ones */
START_TEST(test_net_temperature)
{
    test_an t;
    an_init(&t, NULL, GO_BLACK);
    ck_assert_int_eq(go_game_play(&t.game, test_point(13, "G7"), GO_BLACK), GO_MOVE_OK);
    static nn_result net;
    memset(&net, 0, sizeof net);
    net.size = 13;
    int g7 = 6 * 13 + 6, d10 = 3 * 13 + 3, k4 = 9 * 13 + 9;
    net.policy[g7] = 0.5f;    /* occupied: never played */
    net.policy[d10] = 0.375f;
    net.policy[k4] = 0.125f;
    teach_play_params p = params_of("net");
    teach_choice_in in = {.game = &t.game, .net = &net, .state = &t.state};
    teach_rng rng = {7};
    teach_choice out;
    char err[128];
    int n = 4000, d = 0;
    ck_assert(teach_choose(&p, &in, &rng, &out, err, sizeof err));
    assert_move(out.move, "D10", out.why);
    p.net_temperature = 1;
    p.net_temperature_moves = 10;
    for (int i = 0; i < n; i++) {
        ck_assert(teach_choose(&p, &in, &rng, &out, err, sizeof err));
        ck_assert_msg(out.move == test_point(13, "D10") || out.move == test_point(13, "K4"),
                      "%d", out.move);
        d += out.move == test_point(13, "D10");
    }
    /* D10 three times in four (sd 0.007) */
    ck_assert_msg(fabs((double)d / n - 0.75) < 0.03, "%d of %d", d, n);
    /* T = 0.5: P^2, D10 9 times in 10 */
    p.net_temperature = 0.5;
    d = 0;
    for (int i = 0; i < n; i++) {
        ck_assert(teach_choose(&p, &in, &rng, &out, err, sizeof err));
        d += out.move == test_point(13, "D10");
    }
    ck_assert_msg(fabs((double)d / n - 0.9) < 0.025, "%d of %d", d, n);
    ck_assert_msg(strstr(out.why, "drawn"), "%s", out.why);
    /* the draw itself: weights <= 0 never, nothing positive -1 */
    double wt[4] = {0, 1, 3, -1};
    int hits[4] = {0};
    for (int i = 0; i < n; i++)
        hits[teach_rng_pick(&rng, wt, 4)]++;
    ck_assert_int_eq(hits[0] + hits[3], 0);
    ck_assert_msg(fabs((double)hits[2] / n - 0.75) < 0.03, "%d of %d", hits[2], n);
    double none[2] = {0, -2};
    ck_assert_int_eq(teach_rng_pick(&rng, none, 2), -1);
    /* past the early moves: the favourite again */
    p.net_temperature_moves = 0;
    ck_assert(teach_choose(&p, &in, &rng, &out, err, sizeof err));
    assert_move(out.move, "D10", out.why);
    go_game_free(&t.game);
}
END_TEST

START_TEST(test_ikeda_cases)
{
    char why[320];
    test_an t;
    teach_play_params p = params_of("ikeda"); /* c = 1.5: T_uniq 0.12, T_dif 0.045 */
    /* 1. the only move: 0.80 - 0.66 >= 0.12 */
    an_init(&t, NULL, GO_BLACK);
    an_add(&t, "G7", 300, 0.80, 5, 0.3);
    an_add(&t, "D10", 200, 0.66, 3, 0.6);
    assert_move(choose(&p, &t, 1, why), "G7", why);
    ck_assert_msg(strstr(why, "only move"), "%s", why);
    go_game_free(&t.game);
    /* 2. behind: 0.30 < T_min */
    an_init(&t, NULL, GO_BLACK);
    an_add(&t, "G7", 300, 0.30, -5, 0.1);
    an_add(&t, "D10", 200, 0.29, -5, 0.6);
    assert_move(choose(&p, &t, 1, why), "G7", why);
    go_game_free(&t.game);
    /* 3. even: among the moves within 0.045 of 0.50 (G7 0.50, D10 0.48), the highest prior */
    an_init(&t, NULL, GO_BLACK);
    an_add(&t, "G7", 300, 0.50, 0.5, 0.2);
    an_add(&t, "D10", 200, 0.48, 0.0, 0.5);
    an_add(&t, "K4", 100, 0.45, -1.0, 0.9);
    assert_move(choose(&p, &t, 1, why), "D10", why);
    go_game_free(&t.game);
    /* 4. ahead (0.70): the natural moves are G7 (gap 0), D10 (gap 0.05, p 0.15 > 0.10), K4
     * (gap 0.10, p 0.45 > 0.40); C3 (gap 0.11, p 0.30) is not. The lowest winrate: K4. */
    an_init(&t, NULL, GO_BLACK);
    an_add(&t, "G7", 300, 0.70, 6, 0.05);
    an_add(&t, "D10", 200, 0.65, 4, 0.15);
    an_add(&t, "K4", 100, 0.60, 2, 0.45);
    an_add(&t, "C3", 100, 0.59, 1.5, 0.30);
    assert_move(choose(&p, &t, 1, why), "K4", why);
    /* method C, alpha 0.25: Gain G7 0 + 0.0125, D10 0.05 + 0.0375 = 0.0875, K4 0.10 + 0.1125 =
     * 0.2125: K4; with alpha 0 and D10's prior raised the same; now make D10 win on prior */
    p.method_c = true;
    assert_move(choose(&p, &t, 1, why), "K4", why);
    t.moves[1].prior = 0.95;   /* D10: 0.05 + 0.2375 = 0.2875 */
    assert_move(choose(&p, &t, 1, why), "D10", why);
    ck_assert_msg(strstr(why, "method C"), "%s", why);
    /* method A: K4 and D10 under 2% of the visits are dropped; root 710 visits, 2% = 14.2 */
    p = params_of("A15");
    t.moves[1].visits = 10;
    t.moves[2].visits = 10;
    t.an.root_visits = 420;   /* 2% = 8.4: both stay */
    assert_move(choose(&p, &t, 1, why), "K4", why);
    t.an.root_visits = 1000;  /* 2% = 20: both go, C3 is not natural: the best */
    assert_move(choose(&p, &t, 1, why), "G7", why);
    go_game_free(&t.game);
}
END_TEST

/* Black's L10 alone, and white's last move at K10 next to it; black to play. */
static void k10_position(test_an *t)
{
    an_init(t,
            ". . . . . . . . . . . . ."
            ". . . . . . . . . . . . ."
            ". . . . . . . . . . . . ."
            ". . . . . . . . . . X . ."
            ". . . . . . . . . . . . ."
            ". . . . . . . . . . . . ."
            ". . . . . . . . . . . . ."
            ". . . . . . . . . . . . ."
            ". . . . . . . . . . . . ."
            ". . . . . . . . . . . . ."
            ". . . . . . . . . . . . ."
            ". . . . . . . . . . . . ."
            ". . . . . . . . . . . . .", GO_WHITE);
    ck_assert_int_eq(go_game_play(&t->game, test_point(13, "K10"), GO_WHITE), GO_MOVE_OK);
    t->an.to_move = GO_BLACK;
}

START_TEST(test_method_b)
{
    char why[320];
    test_an t;
    /* white's last move at K10 next to black's L10: black answers near it */
    k10_position(&t);
    /* even (0.50): G7 (p 0.40, far: d 4.2, x0.75 = 0.30) against K9 (p 0.25, d 1, x1.5 = 0.375) */
    an_add(&t, "G7", 300, 0.50, 0, 0.40);
    an_add(&t, "K9", 250, 0.49, 0, 0.25);
    teach_play_params p = params_of("ikeda");
    assert_move(choose(&p, &t, 1, why), "G7", why);
    p.method_b = true;
    assert_move(choose(&p, &t, 1, why), "K9", why);
    go_game_free(&t.game);
}
END_TEST

/* The prior weights the search gets (weights_in_search): the style's line weight times method B's
 * factor where ABC25 applies it, values by hand. */
START_TEST(test_prior_weights)
{
    test_an t;
    k10_position(&t);
    float w[GO_POINTS];
    char err[256];
    teach_play_params p = params_of("best");
    ck_assert(!teach_prior_weights(&p, &t.game, w));   /* no style, no method B */
    ck_assert(w[test_point(13, "G7")] == 1.0f);
    ck_assert(teach_play_params_set(&p, "style", "edge13", err, sizeof err));
    ck_assert(teach_play_params_set(&p, "weights_in_search", "true", err, sizeof err));
    ck_assert(p.weights_in_search);
    ck_assert(teach_prior_weights(&p, &t.game, w));
    /* best: the style alone (K9 on line 4: 0.5; A1 on line 1: 2) */
    ck_assert_float_eq_tol(w[test_point(13, "K9")], 0.5, 1e-6);
    ck_assert_float_eq_tol(w[test_point(13, "A1")], 2.0, 1e-6);
    /* ABC25 (method B on: black's L10 within 3 of K10): K9 at d 1 x1.5 = 0.75; G7 at d 4.24
     * x0.75 = 0.375; A1 at d 12.7 x0.10 = 0.2; C3 on line 3 at d 9.9: 2 x 0.10 = 0.2 */
    teach_play_params q = params_of("ABC25");
    memcpy(q.style_w, p.style_w, sizeof q.style_w);
    ck_assert(teach_prior_weights(&q, &t.game, w));
    ck_assert_float_eq_tol(w[test_point(13, "K9")], 0.75, 1e-6);
    ck_assert_float_eq_tol(w[test_point(13, "G7")], 0.375, 1e-6);
    ck_assert_float_eq_tol(w[test_point(13, "A1")], 0.2, 1e-6);
    ck_assert_float_eq_tol(w[test_point(13, "C3")], 0.2, 1e-6);
    /* without a style ABC25 still weights by method B */
    q = params_of("ABC25");
    ck_assert(teach_prior_weights(&q, &t.game, w));
    ck_assert_float_eq_tol(w[test_point(13, "K9")], 1.5, 1e-6);
    go_game_free(&t.game);
}
END_TEST

START_TEST(test_score_band)
{
    char why[320];
    test_an t;
    an_init(&t, NULL, GO_BLACK);
    an_add(&t, "G7", 300, 0.9, 8.0, 0.30);   /* 8 > -4: 0.30 / 3^12 */
    an_add(&t, "D10", 200, 0.8, 2.9, 0.25);  /* dropped: more than 5 below the best (8) */
    an_add(&t, "K4", 100, 0.7, 4.0, 0.20);   /* 0.20 / 3^8 */
    an_add(&t, "C3", 100, 0.6, 5.0, 0.005);  /* prior <= 0.01: dropped */
    teach_play_params p = params_of("score");
    /* K4's 0.2 / 3^8 = 3.0e-5 beats G7's 0.3 / 3^12 = 5.6e-7 */
    assert_move(choose(&p, &t, 1, why), "K4", why);
    t.moves[0].prior = 0.92;   /* an obvious move is played */
    assert_move(choose(&p, &t, 1, why), "G7", why);
    ck_assert_msg(strstr(why, "obvious"), "%s", why);
    go_game_free(&t.game);
}
END_TEST

START_TEST(test_softmax)
{
    test_an t;
    an_init(&t, NULL, GO_BLACK);
    an_add(&t, "G7", 400, 0.6, 1, 0.4);
    an_add(&t, "D10", 100, 0.5, 0, 0.3);
    an_add(&t, "K4", 100, 0.5, 0, 0.3);
    an_add(&t, "C3", 3, 0.5, 0, 0.3);
    teach_play_params p = params_of("softmax");
    p.softmax_min_visits = 10;   /* C3 never */
    teach_play_state_reset(&t.state, &p, false);
    int count[3] = {0, 0, 0};
    const char *v[3] = {"G7", "D10", "K4"};
    for (uint64_t seed = 1; seed <= 3000; seed++) {
        int m = choose(&p, &t, seed * 7919, NULL);
        ck_assert(m != test_point(13, "C3"));
        for (int k = 0; k < 3; k++)
            count[k] += m == test_point(13, v[k]);
    }
    /* z = 1: 400 : 100 : 100, i.e. 2/3, 1/6, 1/6 (3000 draws: sd 26 and 20) */
    ck_assert_msg(abs(count[0] - 2000) < 130 && abs(count[1] - 500) < 100 &&
                      abs(count[2] - 500) < 100, "%d %d %d", count[0], count[1], count[2]);
    t.state.softmax_z = 30;      /* practically the most visited */
    for (uint64_t seed = 1; seed <= 50; seed++)
        assert_move(choose(&p, &t, seed, NULL), "G7", NULL);
    go_game_free(&t.game);
}
END_TEST

START_TEST(test_adaptive)
{
    char why[320];
    test_an t;
    teach_play_params p = params_of("adaptive");
    p.adaptive_horizon = 50;   /* the lead over every move left (49.7 at move 2) */
    p.adaptive_margin = 0;     /* the lead aimed at: level */
    an_init(&t, NULL, GO_BLACK);
    /* move 0: nothing measured, lead 0 on an empty 13x13 (moves left (101.4 - 0) / 2 = 50.7):
     * the target is 0 loss: G7 (loss 0) */
    an_add(&t, "G7", 300, 0.5, 0.0, 0.3);
    an_add(&t, "D10", 200, 0.45, -2.0, 0.6);
    an_add(&t, "K4", 100, 0.40, -4.0, 0.1);
    assert_move(choose(&p, &t, 1, why), "G7", why);
    ck_assert(t.state.have_expected && t.state.expected_lead == 0.0 &&
              t.state.expected_move_number == 1);
    /* two moves later the opponent's reply cost it 4 points: our lead is +4 */
    ck_assert_int_eq(go_game_play(&t.game, test_point(13, "G7"), GO_BLACK), GO_MOVE_OK);
    ck_assert_int_eq(go_game_play(&t.game, test_point(13, "A1"), GO_WHITE), GO_MOVE_OK);
    t.an.num_moves = 0;
    t.an.root_visits = 0;
    an_add(&t, "D4", 300, 0.7, 4.0, 0.3);    /* loss 0 */
    an_add(&t, "J10", 200, 0.6, 1.0, 0.5);   /* loss 3 */
    an_add(&t, "C11", 100, 0.5, -1.0, 0.2);  /* loss 5 */
    /* measured 4 (one move: the mean is 4); target 4 + 4 / 49.7 = 4.08: C11 (5) is 0.92 away,
     * J10 (3) 1.08: both within a point of the closest, J10 of higher prior */
    assert_move(choose(&p, &t, 1, why), "J10", why);
    ck_assert_double_eq_tol(t.state.opp_loss_mean, 4.0, 1e-9);
    ck_assert_int_eq(t.state.opp_moves, 1);
    /* the lead given back over 2 moves, at least 3 (the floor): 4 + 4 / 3 = 5.3, C11 (5) alone
     * within a point of it */
    p.adaptive_horizon = 2;
    t.state.have_expected = false;   /* the same measurement is not taken twice */
    assert_move(choose(&p, &t, 1, why), "C11", why);
    /* aiming at a lead of +4 (the lead now): 4 + 0 / 3 = 4, J10 (3) and C11 (5) both a point
     * away, J10 of higher prior */
    p.adaptive_margin = 4;
    assert_move(choose(&p, &t, 1, why), "J10", why);
    /* aiming at -6: 4 + 10 / 3 = 7.3, C11 the closest */
    p.adaptive_margin = -6;
    assert_move(choose(&p, &t, 1, why), "C11", why);
    /* C11 excluded (adaptive_verify found it losing more than the cap): J10, the closest left;
     * all but the search's choice excluded: D4 */
    int out[] = {test_point(13, "C11"), test_point(13, "J10")};
    assert_move(choose_excluding(&p, &t, 1, out, 1, why), "J10", why);
    assert_move(choose_excluding(&p, &t, 1, out, 2, why), "D4", why);
    /* no move losing more than 4 points: C11 (5) out, J10 (3) the closest left; a cap of 5
     * keeps C11 */
    p.adaptive_max_loss = 4;
    assert_move(choose(&p, &t, 1, why), "J10", why);
    p.adaptive_max_loss = 5;
    assert_move(choose(&p, &t, 1, why), "C11", why);
    p.adaptive_max_loss = 0;
    /* candidates of 150 visits or more: C11 (100) out, J10 (200) the closest left; 100 keeps
     * C11 */
    p.adaptive_min_visits = 150;
    assert_move(choose(&p, &t, 1, why), "J10", why);
    p.adaptive_min_visits = 100;
    assert_move(choose(&p, &t, 1, why), "C11", why);
    p.adaptive_min_visits = 1;
    /* a window of 2.5 points: J10 (3.0 off the aim, 0.7 beyond C11's 2.3) of higher prior */
    p.adaptive_window = 2.5;
    assert_move(choose(&p, &t, 1, why), "J10", why);
    p.adaptive_window = 1.0;
    /* natural moves first, 2 points per e-fold of prior: D4 7.33 + 2 * 1.20 = 9.74, J10
     * 4.33 + 2 * 0.69 = 5.72, C11 2.33 + 2 * 1.61 = 5.55: J10 within a point of C11, of
     * higher prior */
    p.adaptive_natural = 2;
    assert_move(choose(&p, &t, 1, why), "J10", why);
    p.adaptive_natural = 0.5;   /* C11 3.14, J10 4.68: C11 alone */
    assert_move(choose(&p, &t, 1, why), "C11", why);
    p.adaptive_natural = 0;
    /* losses count from the search's own choice (D4, +4), not from a move of a few visits
     * whose lead is its noise (E5, +6): nothing to give back (opponent's loss 0, at the
     * margin) is D4, not E5 */
    an_add(&t, "E5", 3, 0.75, 6.0, 0.05);
    t.state.opp_loss_mean = 0;
    p.adaptive_margin = 4;
    assert_move(choose(&p, &t, 1, why), "D4", why);
    /* between games: a game ended 4 points up moves the margin by -0.5 * 4 to +2, one ended 6
     * points down by +3 to +5; the correction stays through a new game's reset, within
     * [-50, 50]. With the margin at -11 (a shift of -15): 0 + (4 + 11) / 3 (the horizon's
     * floor) = 5 to lose: C11 */
    p.adaptive_learn = 0.5;
    teach_adaptive_learn(&t.state, &p, 4.0);
    ck_assert_double_eq_tol(t.state.margin_shift, -2.0, 1e-12);
    teach_adaptive_learn(&t.state, &p, -6.0);
    ck_assert_double_eq_tol(t.state.margin_shift, 1.0, 1e-12);
    teach_play_state_reset(&t.state, &p, true);
    ck_assert_double_eq_tol(t.state.margin_shift, 1.0, 1e-12);
    t.state.margin_shift = -15;
    t.state.have_expected = false;
    assert_move(choose(&p, &t, 1, why), "C11", why);
    ck_assert_msg(strstr(why, "margin -11.0"), "%s", why);
    p.adaptive_clip = 1000;   /* the default clip (8) would take 4 of it */
    teach_adaptive_learn(&t.state, &p, -200.0);   /* +100 would pass the bound */
    ck_assert_double_eq_tol(p.adaptive_margin + t.state.margin_shift, 50.0, 1e-12);
    teach_play_state_reset(&t.state, &p, false);
    ck_assert_double_eq_tol(t.state.margin_shift, 0.0, 1e-12);
    /* clipped at 2 with a gain of 1: a staircase of 2 points on won and lost games, what is
     * inside the clip learnt as it is */
    p.adaptive_learn = 1;
    p.adaptive_clip = 2;
    teach_adaptive_learn(&t.state, &p, 30.5);
    ck_assert_double_eq_tol(t.state.margin_shift, -2.0, 1e-12);
    teach_adaptive_learn(&t.state, &p, -40.0);
    ck_assert_double_eq_tol(t.state.margin_shift, 0.0, 1e-12);
    teach_adaptive_learn(&t.state, &p, -1.5);
    ck_assert_double_eq_tol(t.state.margin_shift, 1.5, 1e-12);
    go_game_free(&t.game);
}
END_TEST

START_TEST(test_styles_by_ownership)
{
    char why[320];
    test_an t;
    static float root[NN_MAX_POINTS], own_a[NN_MAX_POINTS], own_b[NN_MAX_POINTS];
    an_init(&t, NULL, GO_BLACK);
    /* white's view: the top half is white's (+0.6), the bottom black's (-0.6) */
    for (int i = 0; i < 169; i++)
        root[i] = own_a[i] = own_b[i] = i / 13 < 6 ? 0.6f : -0.6f;
    /* move a (a reduction in white's area at the top) takes 0.5 from white on 6 points */
    for (int i = 0; i < 6; i++)
        own_a[13 * 2 + 3 + i] = 0.1f;
    /* move b (a move at home) gives black 0.3 more on 8 points of its own area */
    for (int i = 0; i < 8; i++)
        own_b[13 * 10 + 2 + i] = -0.9f;
    t.an.ownership = root;
    an_add(&t, "G7", 300, 0.5, 1.0, 0.3);
    an_add(&t, "F11", 200, 0.48, 0.0, 0.2);   /* a: loss 1 */
    an_add(&t, "F3", 200, 0.47, -0.5, 0.2);   /* b: loss 1.5 */
    t.moves[0].ownership = root;
    t.moves[1].ownership = own_a;
    t.moves[2].ownership = own_b;
    teach_play_params p = params_of("aggressive");
    assert_move(choose(&p, &t, 1, why), "F11", why);
    p = params_of("peaceful");
    assert_move(choose(&p, &t, 1, why), "F3", why);
    p.style_max_loss = 1.0;   /* F3 loses 1.5: no longer allowed */
    assert_move(choose(&p, &t, 1, why), "G7", why);
    go_game_free(&t.game);
}
END_TEST

START_TEST(test_two_phase)
{
    char why[320];
    test_an t;
    teach_play_params p = params_of("two-phase");
    an_init(&t, NULL, GO_BLACK);
    an_add(&t, "G7", 300, 0.50, 1.0, 0.2);
    an_add(&t, "D10", 200, 0.48, 0.5, 0.5);
    t.an.root_score_stdev = 20;   /* not yet an endgame: ikeda's even case, D10 */
    teach_choice_in in = {.game = &t.game, .an = &t.an, .search_choice = t.moves[0].move,
                          .state = &t.state, .has_pass_lead = true, .pass_lead = -1.0};
    teach_rng rng = {1};
    teach_choice out;
    char err[128];
    ck_assert(teach_choose(&p, &in, &rng, &out, err, sizeof err));
    assert_move(out.move, "D10", out.why);
    ck_assert(!t.state.in_endgame && strstr(out.why, "(open)"));
    /* a saturated winrate (0.95 >= 0.9), not yet the endgame: the score band for this move.
     * Leads 10 / 6 / 5 (none more than 5 below the best): 0.2 / 3^14, 0.5 / 3^10 = 8.5e-6,
     * 0.3 / 3^9 = 1.5e-5: K4 */
    test_an u;
    an_init(&u, NULL, GO_BLACK);
    an_add(&u, "G7", 300, 0.95, 10.0, 0.2);
    an_add(&u, "D10", 200, 0.93, 6.0, 0.5);
    an_add(&u, "K4", 100, 0.92, 5.0, 0.3);
    u.an.root_score_stdev = 20;
    u.an.root_score_lead = 10;
    teach_choice_in in_u = {.game = &u.game, .an = &u.an, .search_choice = u.moves[0].move,
                            .state = &u.state, .has_pass_lead = true, .pass_lead = 9.0};
    ck_assert(teach_choose(&p, &in_u, &rng, &out, err, sizeof err));
    assert_move(out.move, "K4", out.why);
    ck_assert_msg(!u.state.in_endgame && strstr(out.why, "(saturated)"), "%s", out.why);
    p.saturation = 0.99;   /* below it: Ikeda's controller (ahead: a natural move back) */
    ck_assert(teach_choose(&p, &in_u, &rng, &out, err, sizeof err));
    ck_assert_msg(strstr(out.why, "(open)") && strstr(out.why, "ahead"), "%s", out.why);
    p.saturation = 0.9;
    /* the cap as learnt between games: a game won by 20 raises it by 0.5 * 8 (the clip) to 9,
     * one lost by 3 lowers it by 1.5 to 7.5; it stays through a new game's reset. A cap of
     * 4.5 drops K4 (5 below the best 10): D10 (6) 0.5 / 3^10 against G7 0.2 / 3^14; a cap of 2
     * drops D10 too: G7. Within [0, 50]; a new series starts from score_cap. */
    teach_two_phase_learn(&u.state, &p, 20.0);
    ck_assert_double_eq_tol(u.state.cap_shift, 4.0, 1e-12);
    teach_two_phase_learn(&u.state, &p, -3.0);
    ck_assert_double_eq_tol(u.state.cap_shift, 2.5, 1e-12);
    teach_play_state_reset(&u.state, &p, true);
    ck_assert_double_eq_tol(u.state.cap_shift, 2.5, 1e-12);
    u.state.cap_shift = -0.5;
    ck_assert(teach_choose(&p, &in_u, &rng, &out, err, sizeof err));
    assert_move(out.move, "D10", out.why);
    ck_assert_msg(strstr(out.why, "score band [-10, -4], cap 4.5"), "%s", out.why);
    u.state.cap_shift = -3;
    ck_assert(teach_choose(&p, &in_u, &rng, &out, err, sizeof err));
    assert_move(out.move, "G7", out.why);
    p.cap_clip = 1000;
    teach_two_phase_learn(&u.state, &p, 200.0);   /* a cap of 102 would pass the bound */
    ck_assert_double_eq_tol(p.score_cap + u.state.cap_shift, 50.0, 1e-12);
    teach_two_phase_learn(&u.state, &p, -200.0);
    ck_assert_double_eq_tol(p.score_cap + u.state.cap_shift, 0.0, 1e-12);
    teach_play_state_reset(&u.state, &p, false);
    ck_assert_double_eq_tol(u.state.cap_shift, 0.0, 1e-12);
    go_game_free(&u.game);
    /* |lead| 1 <= 5, stdev 5 <= 10, pass change 2 <= 7: the endgame, and it stays */
    t.an.root_score_stdev = 5;
    ck_assert(teach_choose(&p, &in, &rng, &out, err, sizeof err));
    ck_assert(t.state.in_endgame && strstr(out.why, "(endgame)"));
    snprintf(why, sizeof why, "%s", out.why);
    t.an.root_score_stdev = 20;
    ck_assert(teach_choose(&p, &in, &rng, &out, err, sizeof err));
    ck_assert_msg(strstr(out.why, "(endgame)"), "%s / %s", why, out.why);
    go_game_free(&t.game);
    /* the endgame below the band (the search's G7 at -12 < -10): the search's move, where the
     * band's weights would take D10 (a lead of -11 from fewer visits: 0.5 / 3 against
     * 0.2 / 9); the plain score policy keeps the band's choice */
    test_an v;
    an_init(&v, NULL, GO_BLACK);
    an_add(&v, "G7", 300, 0.10, -12.0, 0.2);
    an_add(&v, "D10", 20, 0.12, -11.0, 0.5);
    v.an.root_score_stdev = 20;
    v.an.root_score_lead = -12;
    v.state.in_endgame = true;
    teach_choice_in in_v = {.game = &v.game, .an = &v.an, .search_choice = v.moves[0].move,
                            .state = &v.state, .has_pass_lead = true, .pass_lead = -12.0};
    ck_assert(teach_choose(&p, &in_v, &rng, &out, err, sizeof err));
    assert_move(out.move, "G7", out.why);
    ck_assert_msg(strstr(out.why, "(endgame)") && strstr(out.why, "below the band"), "%s",
                  out.why);
    teach_play_params q = params_of("score");
    ck_assert(teach_choose(&q, &in_v, &rng, &out, err, sizeof err));
    assert_move(out.move, "D10", out.why);
    go_game_free(&v.game);
}
END_TEST

/* The thesis's endgame criteria, values by hand: 13x13 |lead| <= 5, stdev <= 10, a pass
 * changing the lead by <= 7; 19x19 12 and 5; the tunables override. */
START_TEST(test_endgame_criteria)
{
    teach_play_params p = teach_play_params_default();
    ck_assert(teach_endgame_criteria(&p, 13, 4.0, 9.0, 10.0));    /* |4 - 10| = 6 */
    ck_assert(!teach_endgame_criteria(&p, 13, 6.0, 9.0, 6.0));    /* lead */
    ck_assert(!teach_endgame_criteria(&p, 13, 4.0, 11.0, 4.0));   /* stdev */
    ck_assert(!teach_endgame_criteria(&p, 13, 4.0, 9.0, -4.0));   /* |4 + 4| = 8 */
    ck_assert(teach_endgame_criteria(&p, 19, -11.0, 5.0, -7.0));  /* |-11 + 7| = 4 */
    ck_assert(!teach_endgame_criteria(&p, 19, -11.0, 5.0, -5.0)); /* 6 > 5 */
    p.endgame_lead = 20;
    ck_assert(teach_endgame_criteria(&p, 13, 6.0, 9.0, 6.0));
}
END_TEST

/* `teach-stats --find-endgames`: one position a game, none twice. A collection of one random
 * 9x9 game twice: with criteria every position meets, the first game gives its position at
 * --from-move (written as an SGF of that many moves), the second none (the same position);
 * with no stdev allowed, no position. */
START_TEST(test_find_endgames)
{
    char dir[] = "/tmp/test_control-XXXXXX", games[64], out[64], found[96];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(games, sizeof games, "%s/games.sgf", dir);
    snprintf(out, sizeof out, "%s/out", dir);
    snprintf(found, sizeof found, "%s/endgame-01.sgf", out);
    go_game g;
    test_game_random(&g, 9, 30, 7);
    go_sgf_collection *c = go_sgf_from_game(&g);
    char *text = go_sgf_write(c);
    FILE *f = fopen(games, "w");
    ck_assert(f && fprintf(f, "%s\n%s\n", text, text) > 0 && fclose(f) == 0);
    free(text);
    go_sgf_free(c);
    for (int strict = 0; strict < 2; strict++) {
        const char *args[] = {"teach-stats", "--find-endgames", "5", "--out-dir", out, "-w",
                              TEST_G170, "--threads", "1", "--endgame-visits", "4",
                              "--from-move", "20", "--set", "endgame_lead=1000", "--set",
                              strict ? "endgame_stdev=0" : "endgame_stdev=1000", "--set",
                              "endgame_pass=1000", games, NULL};
        char *err;
        int status;
        char *answer = pipe_run(args, "/dev/null", NULL, &err, &status);
        ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "%s", err);
        ck_assert_msg(strstr(err, strict ? "0 endgame positions of 5" : "1 endgame positions of 5"),
                      "%s", err);
        if (!strict) {
            ck_assert_msg(strstr(answer, "endgame-01.sgf") && strstr(answer, "game 1 move 20:"),
                          "%s", answer);
            char why[256];
            go_sgf_collection *back = go_sgf_read_file(found, why, sizeof why);
            ck_assert_msg(back != NULL, "%s", why);
            go_game h;
            ck_assert_msg(go_sgf_to_game(back->games[0], -1, &h, why, sizeof why), "%s", why);
            ck_assert_int_eq(h.num_moves, 20);
            for (int i = 0; i < 20; i++)
                ck_assert(h.moves[i].point == g.moves[i].point &&
                          h.moves[i].color == g.moves[i].color);
            go_game_free(&h);
            go_sgf_free(back);
            ck_assert_int_eq(unlink(found), 0);
        }
        free(answer);
        free(err);
    }
    go_game_free(&g);
    ck_assert_int_eq(rmdir(out), 0);
    ck_assert_int_eq(unlink(games), 0);
    ck_assert_int_eq(rmdir(dir), 0);
}
END_TEST

START_TEST(test_safeguards)
{
    char why[320];
    test_an t;
    teach_play_params p = params_of("naive");
    an_init(&t, NULL, GO_BLACK);
    an_add(&t, "G7", 300, 0.8, 5, 0.3);
    an_add(&t, "pass", 50, 0.5, 0, 0.1);
    an_add(&t, "D10", 100, 0.7, 3, 0.2);
    /* a pass is never a controller's way of giving back */
    assert_move(choose(&p, &t, 1, why), "D10", why);
    /* the search passing (a finished game) is followed */
    teach_choice_in in = {.game = &t.game, .an = &t.an, .search_choice = GO_PASS,
                          .state = &t.state};
    teach_rng rng = {1};
    teach_choice out;
    char err[128];
    ck_assert(teach_choose(&p, &in, &rng, &out, err, sizeof err));
    ck_assert_int_eq(out.move, GO_PASS);
    /* a threat: black's stones at C3-C4 lost ownership since black's last search; white's last
     * move D3. Only moves near them stay: D4 (not K10) */
    go_game_free(&t.game);
    an_init(&t,
            ". . . . . . . . . . . . ."
            ". . . . . . . . . . . . ."
            ". . . . . . . . . . . . ."
            ". . . . . . . . . . . . ."
            ". . . . . . . . . . . . ."
            ". . . . . . . . . . . . ."
            ". . . . . . . . . . . . ."
            ". . . . . . . . . . . . ."
            ". . . . . . . . . . . . ."
            ". . X . . . . . . . . . ."
            ". . X . . . . . . . . . ."
            ". . . . . . . . . . . . ."
            ". . . . . . . . . . . . .", GO_BLACK);
    ck_assert_int_eq(go_game_play(&t.game, test_point(13, "K11"), GO_BLACK), GO_MOVE_OK);
    ck_assert_int_eq(go_game_play(&t.game, test_point(13, "D3"), GO_WHITE), GO_MOVE_OK);
    static float before[NN_MAX_POINTS], now[NN_MAX_POINTS];
    for (int i = 0; i < 169; i++)
        before[i] = now[i] = 0;
    int c4 = 13 * 9 + 2, c3 = 13 * 10 + 2;   /* rows from the top: C4 is row 9, C3 row 10 */
    before[c4] = before[c3] = -0.9f;            /* black's, white's view */
    now[c4] = now[c3] = -0.2f;                  /* dropped by 0.7 each: 1.4 > 1.0 */
    t.state.have_ownership = true;
    t.state.ownership_move_number = 0;
    memcpy(t.state.ownership, before, sizeof before);
    t.an.ownership = now;
    an_add(&t, "K10", 300, 0.6, 2, 0.3);
    an_add(&t, "G7", 200, 0.55, 1, 0.3);
    an_add(&t, "D4", 100, 0.52, 0, 0.3);
    an_add(&t, "L3", 100, 0.50, -1, 0.3);
    p = params_of("naive");
    assert_move(choose(&p, &t, 1, why), "D4", why);
    ck_assert_msg(strstr(why, "threat"), "%s", why);
    go_game_free(&t.game);
}
END_TEST

/* The end of a teaching game: after the opponent's pass we pass when that loses at most
 * pass_loss against the search's choice, and no move repeats a position (the throw-in cycle
 * that simple ko allows, where area scoring loses nothing, once ran games to the move limit). */
START_TEST(test_safeguards_at_the_end)
{
    char why[320];
    test_an t;
    teach_play_params p = params_of("naive");
    an_init(&t, NULL, GO_BLACK);
    ck_assert_int_eq(go_game_play(&t.game, test_point(13, "G7"), GO_BLACK), GO_MOVE_OK);
    ck_assert_int_eq(go_game_play(&t.game, GO_PASS, GO_WHITE), GO_MOVE_OK);
    an_add(&t, "K10", 300, 0.8, 5.0, 0.3);
    an_add(&t, "pass", 50, 0.75, 4.6, 0.4);
    an_add(&t, "D10", 100, 0.6, 3.0, 0.2);
    /* passing loses 0.4 <= 0.5: the game ends */
    ck_assert_int_eq(choose(&p, &t, 1, why), GO_PASS);
    ck_assert_msg(strstr(why, "opponent passed and passing loses 0.4"), "%s", why);
    /* losing 0.6, or a tolerance of 0.3: play on (naive: the winrate nearest 50%) */
    t.moves[1].score_lead = 4.4;
    assert_move(choose(&p, &t, 1, why), "D10", why);
    t.moves[1].score_lead = 4.6;
    p.pass_loss = 0.3;
    assert_move(choose(&p, &t, 1, why), "D10", why);
    /* our own pass before is no opponent's pass */
    p.pass_loss = 0.5;
    go_game_free(&t.game);
    an_init(&t, NULL, GO_BLACK);
    ck_assert_int_eq(go_game_play(&t.game, GO_PASS, GO_BLACK), GO_MOVE_OK);
    go_game_set_to_move(&t.game, GO_BLACK);
    an_add(&t, "K10", 300, 0.8, 5.0, 0.3);
    an_add(&t, "pass", 50, 0.75, 4.6, 0.4);
    an_add(&t, "D10", 100, 0.6, 3.0, 0.2);
    assert_move(choose(&p, &t, 1, why), "D10", why);
    go_game_free(&t.game);

    /* the cycle, under Chinese rules (simple ko): black N2, white passes, black N3 (self-atari),
     * white N1 takes two; black N2 would take one back and repeat the position after black's
     * N2 with white to move */
    an_init(&t, NULL, GO_BLACK);
    go_game_free(&t.game);
    /* black L1 M1 L2 L3 L4 around white M2 M3 M4 N4, the corner points N1-N3 empty */
    static const char *stones[] = {"L1", "M1", "L2", "L3", "L4", "M2", "M3", "M4", "N4"};
    test_game_from(&t.game, 13, NULL, GO_BLACK, "chinese", 7.5f);
    for (int i = 0; i < 9; i++)
        ck_assert(go_game_setup_stone(&t.game, test_point(13, stones[i]), i < 5 ? GO_BLACK
                                                                                : GO_WHITE));
    static const char *seq[] = {"N2", "pass", "N3", "N1"};
    for (int i = 0; i < 4; i++) {
        int q = strcmp(seq[i], "pass") ? test_point(13, seq[i]) : GO_PASS;
        ck_assert_int_eq(go_game_play(&t.game, q, i % 2 ? GO_WHITE : GO_BLACK), GO_MOVE_OK);
    }
    ck_assert_int_eq(t.game.board.color[test_point(13, "N2")], GO_EMPTY);
    ck_assert_int_eq(go_game_legal(&t.game, test_point(13, "N2"), GO_BLACK), GO_MOVE_OK);
    ck_assert(go_game_repeats(&t.game, test_point(13, "N2"), GO_BLACK));
    ck_assert(!go_game_repeats(&t.game, test_point(13, "N3"), GO_BLACK));
    ck_assert(!go_game_repeats(&t.game, test_point(13, "G7"), GO_BLACK));
    ck_assert(!go_game_repeats(&t.game, GO_PASS, GO_BLACK));
    an_add(&t, "N2", 300, 0.5, 2.0, 0.3);   /* the search's own choice, and naive's */
    an_add(&t, "G7", 100, 0.8, 1.0, 0.2);
    an_add(&t, "D10", 100, 0.9, 1.0, 0.2);
    assert_move(choose(&p, &t, 1, why), "G7", why);
    ck_assert_msg(strstr(why, "1 moves that repeat a position left out"), "%s", why);
    /* under positional superko the move is illegal: nothing to leave out */
    go_game g2;
    test_game_from(&g2, 13, NULL, GO_BLACK, "tromp-taylor", 7.5f);
    for (int i = 0; i < 9; i++)
        ck_assert(go_game_setup_stone(&g2, test_point(13, stones[i]), i < 5 ? GO_BLACK
                                                                           : GO_WHITE));
    for (int i = 0; i < 4; i++) {
        int q = strcmp(seq[i], "pass") ? test_point(13, seq[i]) : GO_PASS;
        ck_assert_int_eq(go_game_play(&g2, q, i % 2 ? GO_WHITE : GO_BLACK), GO_MOVE_OK);
    }
    ck_assert_int_eq(go_game_legal(&g2, test_point(13, "N2"), GO_BLACK), GO_MOVE_SUPERKO);
    ck_assert(!go_game_repeats(&g2, test_point(13, "N2"), GO_BLACK));
    go_game_free(&g2);
    go_game_free(&t.game);
}
END_TEST

/* ---- the playout doubling advantage ------------------------------------------------------ */

START_TEST(test_pda_in_the_net_and_the_search)
{
    nn_model *m = test_model_load(TEST_G170, "cpu");
    char err[256];
    nn_context *c = nn_context_new(m, 2, err, sizeof err);
    ck_assert_msg(c, "%s", err);
    go_game g;
    test_game_from(&g, 19, NULL, GO_BLACK, "chinese", 7.5f);
    nn_result r[2];
    nn_query q[2] = {{.game = &g, .symmetry = 0}, {.game = &g, .symmetry = 0, .pda = -2.0}};
    ck_assert_msg(nn_eval(c, 2, q, r, err, sizeof err), "%s", err);
    /* told that black is the weaker side, the net gives black less */
    ck_assert_msg(r[1].white_win > r[0].white_win + 0.02, "%g %g", r[0].white_win,
                  r[1].white_win);
    ck_assert_msg(r[1].white_lead > r[0].white_lead + 1.0, "%g %g", r[0].white_lead,
                  r[1].white_lead);
    /* the search: black to move with an advantage of -1 sees itself behind */
    mcts_params p = mcts_params_default();
    p.max_visits = 24;
    p.seed = 3;
    mcts_search *s = mcts_new(m, &p, err, sizeof err);
    ck_assert(s);
    mcts_set_position(s, &g);
    ck_assert(mcts_run(s, NULL, NULL, NULL, err, sizeof err));
    mcts_analysis a = {0};
    ck_assert(mcts_analysis_get(s, NULL, &a));
    double plain = a.root_score_lead;
    char e2[128];
    ck_assert(mcts_params_set(&p, "playoutDoublingAdvantage", "-1", e2, sizeof e2));
    ck_assert(!mcts_params_set(&p, "playoutDoublingAdvantage", "4", e2, sizeof e2));
    ck_assert(mcts_set_params(s, &p, err, sizeof err));
    mcts_set_position(s, &g);
    ck_assert(mcts_run(s, NULL, NULL, NULL, err, sizeof err));
    ck_assert(mcts_analysis_get(s, NULL, &a));
    ck_assert_msg(a.root_score_lead < plain - 0.5, "%g against %g", a.root_score_lead, plain);
    ck_assert_int_eq(a.root_visits, 24);   /* a fresh tree for the new advantage */
    mcts_analysis_free(&a);
    mcts_free(s);
    go_game_free(&g);
    nn_context_free(c);
    nn_model_free(m);
}
END_TEST

/* ---- the teaching player through GTP and JSON --------------------------------------------- */

START_TEST(test_gtp_teaching_player)
{
    gtp_engine e;
    char *argv[] = {"gtp", "-w", TEST_G170, "--visits", "24", "--set", "play_policy=ABC25",
                    "--set", "play_seed=5"};
    test_gtp_start(&e, 9, argv);
    char *got = test_gtp_feed(&e, "boardsize 13\nkata-get-param playPolicy\nkata-get-param "
                                  "ikeda_c\ngenmove b\ngenmove w", false);
    ck_assert_msg(!strncmp(got, "=\n\n= ikeda\n\n= 2.5\n\n= ", 20), "%s", got);
    free(got);
    ck_assert_int_eq(e.game.num_moves, 2);
    ck_assert(e.play_player && teach_player_is_play(e.play_player));
    const char *why = teach_play_player_why(e.play_player);
    ck_assert_msg(!strncmp(why, "ikeda", 5), "%s", why);
    got = test_gtp_feed(&e, "kata-set-param play_policy gentle\nkata-set-param ikeda_c 99", false);
    ck_assert_msg(strstr(got, "? ") && strstr(got, "gentle") && strstr(got, "ikeda_c"), "%s",
                  got);
    free(got);
    got = test_gtp_feed(&e, "kata-list-params", false);
    ck_assert_msg(strstr(got, " play_policy ") && strstr(got, " maxTime "), "%s", got);
    free(got);
    got = test_gtp_feed(&e, "kata-set-param play_policy net\ngenmove b", false);
    ck_assert_msg(!strncmp(got, "=\n\n= ", 5), "%s", got);
    free(got);
    ck_assert_msg(strstr(teach_play_player_why(e.play_player), "network"), "%s",
                  teach_play_player_why(e.play_player));
    /* KaTrain's modes play through the same player: jigo, and handicap with its advantage */
    got = test_gtp_feed(&e, "kata-set-param play_policy jigo\ngenmove w\n"
                            "kata-set-param play_policy handicap\ngenmove b", false);
    ck_assert_msg(!strncmp(got, "=\n\n= ", 5) && strstr(got + 5, "\n\n=\n\n= "), "%s", got);
    free(got);
    ck_assert_int_eq(e.game.num_moves, 5);
    ck_assert_msg(strlen(teach_play_player_why(e.play_player)) > 0, "no explanation");
    /* the opening drawn by the policy: a new play_seed reseeds, so a seed replays its game */
    char first[2][64];
    for (int k = 0; k < 3; k++) {
        char cmd[256];
        snprintf(cmd, sizeof cmd, "clear_board\nkata-set-param play_seed %d\n"
                 "kata-set-param play_policy net\nkata-set-param net_temperature 1\n"
                 "kata-set-param net_temperature_moves 20\n"
                 "genmove b\ngenmove w\ngenmove b\ngenmove w", k == 1 ? 8 : 7);
        got = test_gtp_feed(&e, cmd, false);
        ck_assert_msg(!strncmp(got, "=\n\n=\n\n=\n\n=\n\n=\n\n= ", 16), "%s", got);
        if (k < 2)
            snprintf(first[k], sizeof first[k], "%s", got + 15);
        else
            ck_assert_str_eq(got + 15, first[0]);
        free(got);
    }
    ck_assert_msg(strcmp(first[0], first[1]), "seeds 7 and 8 drew the same opening: %s", first[0]);
    gtp_engine_free(&e);
}
END_TEST

/* adaptive_verify on 9x9, aiming 40 points behind with a cap of 3 points a move: a move the root
 * barely visited is searched on its own before it is played, and dropped when it loses more than
 * the cap there. Every verified move played loses at most the cap; most moves (5-6 of 8 in
 * trials) are verified, none with 32 visits at the root has the 48 that would spare it. */
START_TEST(test_adaptive_verify)
{
    gtp_engine e;
    char *argv[] = {"gtp", "-w", TEST_G170, "--threads", "1", "--visits", "32", "--set",
                    "play_policy=adaptive", "--set", "adaptive_margin=-40", "--set",
                    "adaptive_max_loss=3", "--set", "adaptive_verify=48"};
    test_gtp_start(&e, 15, argv);
    char *got = test_gtp_feed(&e, "boardsize 9", false);
    free(got);
    int verified = 0;
    for (int k = 0; k < 8; k++) {
        got = test_gtp_feed(&e, k % 2 ? "genmove w" : "genmove b", false);
        ck_assert_msg(!strncmp(got, "= ", 2), "%s", got);
        free(got);
        const char *why = teach_play_player_why(e.play_player);
        const char *v = strstr(why, "(verified: loses ");
        if (v) {
            ck_assert_msg(atof(v + strlen("(verified: loses ")) <= 3.0, "%s", why);
            verified++;
        }
    }
    ck_assert_msg(verified >= 2, "%d moves verified: %s", verified,
                  teach_play_player_why(e.play_player));
    gtp_engine_free(&e);
}
END_TEST

/* adaptive's margin and two-phase's cap learn from a game that ended with its pass: on 5x5 white
 * fills every point but two eyes, black's one legal move is a pass, at a lead of about -32.5
 * (komi 7.5); the next game's margin is -2 less half of it clipped to 8: +2, the cap 5 less the
 * same 4: 1 (two-phase with the score band from a winrate of
 * 0.5: black's on the empty 9x9 board at komi 0.5 is saturated, and no move there has the
 * prior of an obvious one). An undone move ends no game: nothing more is learnt. */
START_TEST(test_gtp_learns)
{
    static const char *policy[] = {"play_policy=adaptive", "play_policy=two-phase"};
    static const char *shown[] = {"margin %lf", "cap %lf"};
    static const double want[] = {2.0, 1.0};
    gtp_engine e;
    char *argv[] = {"gtp", "-w", TEST_G170, "--visits", "16", "--threads", "1",
                    "--set", (char *)policy[_i], "--set", "saturation=0.5"};
    test_gtp_start(&e, 11, argv);
    char script[1024] = "boardsize 5\nkomi 7.5";
    for (int i = 0; i < 25; i++) {
        char v[4] = {(char)('A' + i / 5), (char)('1' + i % 5), 0};
        if (strcmp(v, "B2") && strcmp(v, "D4")) {
            size_t n = strlen(script);
            snprintf(script + n, sizeof script - n, "\nplay w %s", v);
        }
    }
    strcat(script, "\ngenmove b\nboardsize 9\nkomi 0.5\ngenmove b");
    char *got = test_gtp_feed(&e, script, false);
    ck_assert_msg(strstr(got, "= pass\n\n=\n\n=\n\n= "), "%s", got + strlen(got) / 2);
    free(got);
    double value[2];
    for (int k = 0; k < 2; k++) {
        const char *why = teach_play_player_why(e.play_player);
        const char *m = strstr(why, _i ? "cap " : "margin ");
        ck_assert_msg(m && sscanf(m, shown[_i], &value[k]) == 1, "%s", why);
        ck_assert_msg(fabs(value[k] - want[_i]) < 1e-9, "%s", why);
        if (k == 0) {
            got = test_gtp_feed(&e, "undo\ngenmove b", false);
            ck_assert_msg(!strncmp(got, "=\n\n= ", 5), "%s", got);
            free(got);
        }
    }
    ck_assert_double_eq_tol(value[0], value[1], 1e-9);
    gtp_engine_free(&e);
}
END_TEST

/* ... and from a game left after its move at a winrate of at least left_winrate (0.9), which
 * GTP cannot tell from the opponent's resignation: on 9x9 at komi 0.5, black to play against a
 * white stone (behind) and left teaches nothing; black with two stones of its own (ahead)
 * and undone teaches nothing; the same left for a new game moves the margin -2 by half of its
 * lead clipped to 8: -6, the cap 5 by the same: 9. */
START_TEST(test_gtp_learns_left)
{
    static const char *policy[] = {"play_policy=adaptive", "play_policy=two-phase"};
    static const char *shown[] = {"margin %lf", "cap %lf"};
    static const double before[] = {-2.0, 5.0}, after[] = {-6.0, 9.0};
    gtp_engine e;
    char *argv[] = {"gtp", "-w", TEST_G170, "--visits", "16", "--threads", "1",
                    "--set", (char *)policy[_i], "--set", "saturation=0.5"};
    test_gtp_start(&e, 11, argv);
    static const char *script[] = {
        "boardsize 9\nkomi 0.5\nplay w E5\ngenmove b",
        "boardsize 9\nplay b C3\nplay b E5\ngenmove b",
        "undo\nundo\ngenmove b",
        "boardsize 9\ngenmove b",
    };
    for (int k = 0; k < 4; k++) {
        char *got = test_gtp_feed(&e, script[k], false);
        ck_assert_msg(!strstr(got, "?") && !strstr(got, "= pass") && !strstr(got, "resign"),
                      "%s", got);
        free(got);
        if (k == 0)
            continue;
        const char *why = teach_play_player_why(e.play_player);
        const char *m = strstr(why, _i ? "cap " : "margin ");
        double value;
        ck_assert_msg(m && sscanf(m, shown[_i], &value) == 1, "%s", why);
        ck_assert_msg(fabs(value - (k == 3 ? after : before)[_i]) < 1e-9, "%d: %s", k, why);
    }
    gtp_engine_free(&e);
}
END_TEST

/* behind_plain: two-phase behind on 9x9 (two White stones at komi 0.5) plays the move of a plain
 * search, the move `best` plays on the same seed (F6); without it, or under a time limit (which
 * the first search spends), method A's wide search chooses another (D4). */
START_TEST(test_gtp_behind_plain)
{
    static const char *policy[] = {"play_policy=two-phase", "play_policy=two-phase",
                                   "play_policy=best", "play_policy=two-phase"};
    static const char *plain[] = {"behind_plain=true", "behind_plain=false", "behind_plain=true",
                                  "behind_plain=true"};
    /* the time limit (a minute) is never reached: 16 visits end each search */
    static const char *limit[] = {"max_time_ms=0", "max_time_ms=0", "max_time_ms=0",
                                  "max_time_ms=60000"};
    char moves[4][16];
    for (int k = 0; k < 4; k++) {
        gtp_engine e;
        char *argv[] = {"gtp", "-w", TEST_G170, "--visits", "16", "--threads", "1", "--set",
                        "seed=3", "--set", (char *)policy[k], "--set", (char *)plain[k],
                        "--set", (char *)limit[k]};
        test_gtp_start(&e, 15, argv);
        char *got = test_gtp_feed(&e, "boardsize 9\nkomi 0.5\nplay w E5\nplay w C3\ngenmove b",
                                  false);
        size_t at = strlen(got);
        while (at > 0 && got[at - 1] != '=')
            at--;
        bool parsed = at > 0 && sscanf(got + at - 1, "= %15s", moves[k]) == 1;
        ck_assert_msg(parsed, "%s", got);
        free(got);
        if (k != 2) {   /* best plays without a teaching player */
            const char *why = teach_play_player_why(e.play_player);
            ck_assert_msg(strstr(why, "behind") && !strstr(why, "a plain search") == (k != 0),
                          "%s", why);
            ck_assert_msg(k != 0 || strstr(why, "a plain search: F6"), "%s", why);
        }
        gtp_engine_free(&e);
    }
    ck_assert_str_eq(moves[0], "F6");
    ck_assert_str_eq(moves[2], "F6");
    ck_assert_str_eq(moves[1], "D4");
    ck_assert_str_eq(moves[3], "D4");
}
END_TEST

START_TEST(test_json_move_choice)
{
    const char *q = "{\"id\":\"a\",\"moves\":[[\"B\",\"D4\"]],\"rules\":\"chinese\",\"komi\":7.5,"
                    "\"boardXSize\":9,\"boardYSize\":9,\"maxVisits\":16,\"overrideSettings\":"
                    "{\"playPolicy\":\"naive\"}}\n"
                    "{\"id\":\"b\",\"moves\":[],\"rules\":\"chinese\",\"komi\":7.5,"
                    "\"boardXSize\":9,\"boardYSize\":9,\"maxVisits\":8,\"overrideSettings\":"
                    "{\"playPolicy\":\"nice\"}}\n";
    FILE *in = fmemopen((void *)q, strlen(q), "r");
    char *outbuf = NULL;
    size_t outlen = 0;
    FILE *out = open_memstream(&outbuf, &outlen);
    /* the check-only engine parses overrideSettings like the real one */
    ck_assert_int_eq(shido_analysis_check(in, out), 0);
    fclose(in);
    fclose(out);
    ck_assert_msg(strstr(outbuf, "\"id\":\"b\"") && strstr(outbuf, "nice") &&
                      strstr(outbuf, "play_policy"),
                  "%s", outbuf);
    free(outbuf);
    /* the real engine reports the move the policy chooses */
    char path[] = "/tmp/shido-control-XXXXXX";
    int fd = mkstemp(path);
    ck_assert(fd >= 0);
    size_t first = strchr(q, '\n') - q + 1;
    ck_assert(write(fd, q, first) == (ssize_t)first);
    close(fd);
    const char *args[] = {"analysis", "-w", TEST_G170, "--threads", "1", NULL};
    char *err;
    int status;
    char *got = pipe_run(args, path, NULL, &err, &status);
    unlink(path);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "%s", err);
    ck_assert_msg(strstr(got, "\"moveChoice\":{\"move\":\"") &&
                      strstr(got, "\"policy\":\"naive\"") &&
                      strstr(got, "winrate closest to 50%"),
                  "%s", got);
    free(got);
    free(err);
}
END_TEST

/* A teaching engine on the G170 network. */
static teach_engine *engine_g170(void)
{
    teach_options o;
    teach_options_init(&o);
    o.weights[o.num_weights++] = TEST_G170;
    char err[256];
    teach_engine *e = teach_engine_new(&o, err, sizeof err);
    ck_assert_msg(e, "%s", err);
    return e;
}

/* The naturalness of black's moves in B E5, W E3, B C3, W pass on 9x9: two moves; lines 5 and
 * 3 (one on line >= 4); C3 is 2 from white's E3, E5 has no previous move; priors from the net. */
START_TEST(test_naturalness)
{
    char err[256];
    teach_engine *e = engine_g170();
    go_game g;
    test_game_from(&g, 9, NULL, GO_BLACK, "chinese", 7.5f);
    const char *moves[] = {"E5", "E3", "C3"};
    for (int i = 0; i < 3; i++)
        ck_assert_int_eq(go_game_play(&g, go_point_from_gtp(9, moves[i]), i % 2 ? GO_WHITE
                                                                                : GO_BLACK),
                         GO_MOVE_OK);
    ck_assert_int_eq(go_game_play(&g, GO_PASS, GO_WHITE), GO_MOVE_OK);
    teach_nat_opts opts = {0};
    teach_nat_stats st = {0};
    ck_assert_msg(teach_naturalness_add(e, NULL, &g, GO_BLACK, &opts, &st, err, sizeof err), "%s",
                  err);
    ck_assert_int_eq(st.games, 1);
    ck_assert_int_eq(st.moves, 2);
    ck_assert_int_eq(st.line_moves, 2);
    ck_assert_int_eq(st.high_line, 1);
    ck_assert_double_eq(st.sum_sq_high_line, 1.0);
    double lo, hi;
    teach_nat_line_interval(&st, &lo, &hi);   /* one game: no interval */
    ck_assert(isnan(lo) && isnan(hi));
    /* four games of 1, 1, 3 and 3 such moves: mean 2, sd sqrt(4/3), half 1.96 * 0.5774 */
    teach_nat_stats four = {.games = 4, .high_line = 8, .sum_sq_high_line = 20};
    teach_nat_line_interval(&four, &lo, &hi);
    ck_assert_double_eq_tol(lo, 2 - 1.131586, 1e-5);
    ck_assert_double_eq_tol(hi, 2 + 1.131586, 1e-5);
    ck_assert_int_eq(st.dist_moves, 1);
    ck_assert_double_eq_tol(st.sum_dist, 2.0, 1e-12);
    ck_assert_msg(st.sum_prior > 0 && st.sum_prior <= 2 && st.sum_log_prior < 0, "%g %g",
                  st.sum_prior, st.sum_log_prior);
    ck_assert_int_eq(st.judged, 0);
    /* white's one move (E3): 2 from black's E5 before it; its pass is left out */
    teach_nat_stats w = {0};
    ck_assert(teach_naturalness_add(e, NULL, &g, GO_WHITE, &opts, &w, err, sizeof err));
    ck_assert_int_eq(w.moves, 1);
    ck_assert_double_eq_tol(w.sum_dist, 2.0, 1e-12);
    go_game_free(&g);
    teach_engine_free(e);
}
END_TEST

/* The judge on 9x9: white's three stones D5-F5 in atari at G5. Black's capture loses nothing;
 * black's A9 instead lets them out, a blunder of more than 5 points that the judge's root
 * barely visits, so the judge searches the position after it (teach/naturalness.c). */
START_TEST(test_naturalness_judge)
{
    static const char pic[] = ". . . . . . . . .\n"
                              ". . . . . . . . .\n"
                              ". . . . . . . . .\n"
                              ". . . X X X . . .\n"
                              ". . X O O O . . .\n"
                              ". . . X X X . . .\n"
                              ". . . . . . . . .\n"
                              ". . . . . . . . .\n"
                              ". . . . . . . . .\n";
    char err[256];
    teach_engine *e = engine_g170();
    teach_player *judge = teach_search_player_new(e, err, sizeof err);
    ck_assert_msg(judge, "%s", err);
    teach_nat_opts opts = {.judge_visits = 200};
    const char *first[] = {"G5", "A9"};
    teach_nat_stats st[2] = {{0}};
    for (int k = 0; k < 2; k++) {
        go_game g;
        test_game_from(&g, 9, pic, GO_BLACK, "chinese", 7.5f);
        ck_assert_int_eq(go_game_play(&g, test_point(9, first[k]), GO_BLACK), GO_MOVE_OK);
        ck_assert_msg(teach_naturalness_add(e, judge, &g, GO_BLACK, &opts, &st[k], err,
                                            sizeof err),
                      "%s", err);
        go_game_free(&g);
        ck_assert_int_eq(st[k].judged, 1);
    }
    ck_assert_msg(st[0].unnatural == 0 && st[0].sum_loss < 1.5, "capture: loss %.2f",
                  st[0].sum_loss);
    ck_assert_msg(st[1].unnatural == 1 && st[1].sum_loss > 5, "A9: loss %.2f", st[1].sum_loss);
    teach_player_free(judge);
    teach_engine_free(e);
}
END_TEST

static Suite *control_suite(void)
{
    Suite *s = suite_create("control");
    TCase *tc = tcase_create("policies");
    tcase_add_test(tc, test_tunables);
    tcase_add_test(tc, test_needs);
    tcase_add_test(tc, test_geometry);
    tcase_add_test(tc, test_naive_and_best);
    tcase_add_test(tc, test_net_temperature);
    tcase_add_test(tc, test_ikeda_cases);
    tcase_add_test(tc, test_method_b);
    tcase_add_test(tc, test_score_band);
    tcase_add_test(tc, test_softmax);
    tcase_add_test(tc, test_adaptive);
    tcase_add_test(tc, test_prior_weights);
    tcase_add_test(tc, test_styles_by_ownership);
    tcase_add_test(tc, test_two_phase);
    tcase_add_test(tc, test_safeguards);
    tcase_add_test(tc, test_safeguards_at_the_end);
    tcase_add_test(tc, test_endgame_criteria);
    suite_add_tcase(s, tc);
    TCase *net = tcase_create("network");
    tcase_set_timeout(net, 300);
    tcase_add_test(net, test_pda_in_the_net_and_the_search);
    tcase_add_test(net, test_gtp_teaching_player);
    tcase_add_test(net, test_json_move_choice);
    tcase_add_test(net, test_naturalness);
    tcase_add_test(net, test_naturalness_judge);
    tcase_add_test(net, test_adaptive_verify);
    tcase_add_test(net, test_find_endgames);
    tcase_add_loop_test(net, test_gtp_learns, 0, 2);
    tcase_add_loop_test(net, test_gtp_learns_left, 0, 2);
    tcase_add_test(net, test_gtp_behind_plain);
    suite_add_tcase(s, net);
    return s;
}

int main(void) { return test_run_suite(control_suite()); }
