/* tests/test_mcts.c -- the PUCT search on the shared KataGo (g170 b6c96) and Leela Zero (random
 * b4c32) nets with the CPU backend: visit bookkeeping, tactics, tree reuse, limits, stop,
 * params, pass policy (a Leela Zero net's on 19x19 too), threads with batches, the memory bound,
 * the move choice by utility lower confidence bound and KataGo's growing exploration (on
 * hand-made root statistics), minmoves'
 * unvisited moves, ownership standard deviations, the human-SL profile of a net with a metadata
 * encoder (a small synthetic one). Positions are ASCII diagrams (top row first),
 * mostly 9x9, and visit counts small so the suite stays quick under ASan. */
#include <check.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "go/board.h"
#include "go/game.h"
#include "mcts/internal.h"
#include "mcts/mcts.h"
#include "nn/nn.h"
#include "weights/synth.h"

#include "tests/common.h"

static const char *vtx(int size, int p)
{
    static char buf[8];
    return p == MCTS_RESIGN ? "resign" : go_point_to_gtp(size, p, buf);
}

static mcts_search *search_new(nn_model *m, int threads, int batch, int64_t visits)
{
    mcts_params p = mcts_params_default();
    p.num_threads = threads;
    p.batch_size = batch;
    p.max_visits = visits;
    p.seed = 12345;
    char err[512];
    mcts_search *s = mcts_new(m, &p, err, sizeof err);
    ck_assert_msg(s != NULL, "%s", err);
    return s;
}

static void run(mcts_search *s, const mcts_limits *lim)
{
    char err[512];
    ck_assert_msg(mcts_run(s, lim, NULL, NULL, err, sizeof err), "%s", err);
}

/* Visit counts of the root's children sum to the root's visits less its own evaluation; no
 * virtual loss is left anywhere once a run returns. */
static int64_t subtree_check(mcts_node *n)
{
    ck_assert_int_eq(atomic_load(&n->vloss), 0);
    mcts_child *ch = atomic_load(&n->children);
    int64_t sum = 0;
    for (int i = 0; ch && i < n->num_children; i++) {
        mcts_node *c = atomic_load(&ch[i].node);
        if (c)
            sum += subtree_check(c);
    }
    int visits = atomic_load(&n->visits);
    if (ch && !n->terminal && visits > 0)
        ck_assert_int_eq(sum, visits - 1);
    return visits;
}

static void assert_consistent(mcts_search *s)
{
    mcts_analysis a = {0};
    ck_assert(mcts_analysis_get(s, NULL, &a));
    int64_t sum = 0;
    for (int i = 0; i < a.num_moves; i++) {
        sum += a.moves[i].visits;
        ck_assert_int_eq(a.moves[i].order, i);
        ck_assert(a.moves[i].winrate >= 0 && a.moves[i].winrate <= 1);
        ck_assert(a.moves[i].lcb <= a.moves[i].winrate);
        ck_assert_int_eq(a.moves[i].pv[0], a.moves[i].move);
        if (i > 1)   /* moves[0] is the move to play, then by visits */
            ck_assert(a.moves[i].visits <= a.moves[i - 1].visits);
    }
    ck_assert_int_eq(sum, a.root_visits - 1);
    mcts_analysis_free(&a);
    subtree_check(s->root);
}

static const char *const empty9 =
    ". . . . . . . . ."
    ". . . . . . . . ."
    ". . . . . . . . ."
    ". . . . . . . . ."
    ". . . . . . . . ."
    ". . . . . . . . ."
    ". . . . . . . . ."
    ". . . . . . . . ."
    ". . . . . . . . .";

START_TEST(visits_add_up_kata)
{
    nn_model *m = test_model_load(TEST_G170, "cpu");
    mcts_search *s = search_new(m, 1, 1, 120);
    go_game g;
    test_game_from(&g, 9, empty9, GO_BLACK, "tromp-taylor", 7.0f);
    ck_assert(!mcts_set_position(s, &g));
    run(s, NULL);
    assert_consistent(s);
    mcts_analysis a = {0};
    mcts_analysis_opts o = {.ownership = true, .move_ownership = true};
    ck_assert(mcts_analysis_get(s, &o, &a));
    ck_assert_int_eq(a.root_visits, 120);
    ck_assert(a.has_score && a.has_ownership);
    ck_assert_int_eq(a.to_move, GO_BLACK);
    /* the empty board is close to even at komi 7 and the first move goes near the centre */
    ck_assert_msg(a.root_winrate > 0.2 && a.root_winrate < 0.8, "winrate %f", a.root_winrate);
    ck_assert(a.moves[0].move != GO_PASS);
    /* the first move is the one played: no much visited move has a better utility bound */
    ck_assert_int_eq(mcts_choose_move(s), a.moves[0].move);
    int64_t most = 0;
    for (int i = 0; i < a.num_moves; i++)
        most = a.moves[i].visits > most ? a.moves[i].visits : most;
    for (int i = 1; i < a.num_moves; i++)
        if (a.moves[i].visits >= 0.15 * (double)most)
            ck_assert(a.moves[i].utility_lcb <= a.moves[0].utility_lcb);
    ck_assert(a.moves[0].ownership != NULL);
    ck_assert(a.moves[0].score_stdev > 0);
    ck_assert(a.ownership[40] > -1.0f && a.ownership[40] < 1.0f);
    mcts_analysis_free(&a);
    mcts_free(s);
    go_game_free(&g);
    nn_model_free(m);
}
END_TEST

START_TEST(visits_add_up_lz)
{
    nn_model *m = test_model_load(TEST_LZ_B4C32, "cpu");
    mcts_search *s = search_new(m, 2, 4, 80);
    go_game g;
    test_game_from(&g, 19, NULL, GO_BLACK, "chinese", 7.5f);
    mcts_set_position(s, &g);
    run(s, NULL);
    assert_consistent(s);
    mcts_analysis a = {0};
    ck_assert(mcts_analysis_get(s, NULL, &a));
    ck_assert_int_eq(a.root_visits, 80);
    ck_assert(!a.has_score && !a.has_ownership);
    ck_assert(a.moves[0].score_lead == 0);
    /* Leela Zero's raw policy covers occupied points: none may be searched (none are here, but
     * the priors of the searched moves must still sum to at most 1) */
    double prior = 0;
    for (int i = 0; i < a.num_moves; i++)
        prior += a.moves[i].prior;
    ck_assert(prior <= 1.0 + 1e-5);
    mcts_analysis_free(&a);
    mcts_free(s);
    go_game_free(&g);
    nn_model_free(m);
}
END_TEST

/* Three black and three white stones in mutual atari: black captures first (H7); then three
 * black stones in atari run out into the open (E4). */
START_TEST(finds_capture_and_escape)
{
    nn_model *m = test_model_load(TEST_G170, "cpu");
    mcts_search *s = search_new(m, 1, 4, 50);
    go_game g;
    test_game_from(&g, 9,
              ". . . . . . . . ."
              ". O O O X X X . ."
              ". X X X O O O . ."
              ". O O O X X X . ."
              ". . . . . . . . ."
              ". . . . . . . . ."
              ". . X . . . O . ."
              ". . . . . . . . ."
              ". . . . . . . . .",
              GO_BLACK, "chinese", 7.5f);
    mcts_set_position(s, &g);
    run(s, NULL);
    int mv = mcts_choose_move(s);
    ck_assert_msg(mv == test_point(9, "H7"), "capture: got %s", vtx(9, mv));
    go_game_free(&g);

    test_game_from(&g, 9,
              ". . . . . . . . ."
              ". . . . O . . . ."
              ". . . O X O . . ."
              ". . . O X O . . ."
              ". . . O X O . . ."
              ". . . . . . . . ."
              ". . X . . . X . ."
              ". . . . . . . . ."
              ". . . . . . . . .",
              GO_BLACK, "chinese", 7.5f);
    mcts_set_position(s, &g);
    run(s, NULL);
    mv = mcts_choose_move(s);
    ck_assert_msg(mv == test_point(9, "E4"), "escape: got %s", vtx(9, mv));
    mcts_free(s);
    go_game_free(&g);
    nn_model_free(m);
}
END_TEST

START_TEST(tree_reuse_keeps_child_visits)
{
    nn_model *m = test_model_load(TEST_G170, "cpu");
    mcts_search *s = search_new(m, 1, 2, 80);
    go_game g;
    test_game_from(&g, 9, empty9, GO_BLACK, "tromp-taylor", 7.0f);
    mcts_set_position(s, &g);
    run(s, NULL);
    mcts_analysis a = {0};
    ck_assert(mcts_analysis_get(s, NULL, &a));
    int best = a.moves[0].move, reply = a.moves[0].pv_len > 1 ? a.moves[0].pv[1] : -1;
    int64_t child_visits = a.moves[0].visits, grandchild_visits = a.moves[0].pv_visits[1];
    ck_assert(reply >= 0);
    ck_assert_int_eq(go_game_play(&g, best, GO_BLACK), GO_MOVE_OK);
    ck_assert(mcts_set_position(s, &g));
    ck_assert(mcts_analysis_get(s, NULL, &a));
    ck_assert_int_eq(a.root_visits, child_visits);
    ck_assert_int_eq(a.to_move, GO_WHITE);
    assert_consistent(s);
    /* two moves at once (genmove then the opponent's play) */
    run(s, NULL);
    ck_assert(mcts_analysis_get(s, NULL, &a));
    ck_assert_int_eq(a.root_visits, 80);
    assert_consistent(s);
    int64_t reply_visits = 0;
    int reply2 = -1;
    for (int i = 0; i < a.num_moves; i++)
        if (a.moves[i].move == reply) {
            reply_visits = a.moves[i].visits;
            reply2 = a.moves[i].pv_len > 1 ? a.moves[i].pv[1] : -1;
        }
    ck_assert(reply_visits >= grandchild_visits);
    ck_assert_int_eq(go_game_play(&g, reply, GO_WHITE), GO_MOVE_OK);
    ck_assert(mcts_set_position(s, &g));
    if (reply2 > 0) {
        int64_t want = 0;
        ck_assert(mcts_analysis_get(s, NULL, &a));
        for (int i = 0; i < a.num_moves; i++)
            if (a.moves[i].move == reply2)
                want = a.moves[i].visits;
        ck_assert_int_eq(go_game_play(&g, reply2, GO_BLACK), GO_MOVE_OK);
        ck_assert(mcts_set_position(s, &g));
        ck_assert(mcts_analysis_get(s, NULL, &a));
        ck_assert_int_eq(a.root_visits, want);
    }
    /* a different game drops the tree */
    go_game other;
    test_game_from(&other, 9, empty9, GO_WHITE, "tromp-taylor", 7.0f);
    ck_assert(!mcts_set_position(s, &other));
    ck_assert(!mcts_analysis_get(s, NULL, &a));
    mcts_analysis_free(&a);
    mcts_free(s);
    go_game_free(&g);
    go_game_free(&other);
    nn_model_free(m);
}
END_TEST

START_TEST(limits_with_threads_and_batches)
{
    nn_model *m = test_model_load(TEST_G170, "cpu");
    mcts_search *s = search_new(m, 2, 8, 0);
    go_game g;
    test_game_from(&g, 9, empty9, GO_BLACK, "tromp-taylor", 7.0f);
    mcts_set_position(s, &g);
    mcts_limits lim = {.max_visits = 120};
    run(s, &lim);
    assert_consistent(s);
    mcts_analysis a = {0};
    ck_assert(mcts_analysis_get(s, NULL, &a));
    ck_assert_int_eq(a.root_visits, 120);
    /* playouts count this run only */
    lim = (mcts_limits){.max_playouts = 50};
    run(s, &lim);
    ck_assert(mcts_analysis_get(s, NULL, &a));
    ck_assert_int_eq(a.root_visits, 170);
    ck_assert_int_eq(a.playouts, 50);
    assert_consistent(s);
    mcts_stats st;
    mcts_get_stats(s, &st);
    ck_assert(st.nn_batches < st.nn_evals);   /* batches really hold several leaves */
    /* time limit */
    lim = (mcts_limits){.max_time_ms = 300};
    double t0 = go_now_s();
    run(s, &lim);
    double dt = go_now_s() - t0;
    ck_assert_msg(dt >= 0.29 && dt < 1.5 * test_time_scale(), "time limit 300 ms: ran %.3f s",
                  dt);
    assert_consistent(s);
    /* other thread and batch counts on the same tree */
    mcts_params p = *mcts_get_params(s);
    p.num_threads = 3;
    p.batch_size = 2;
    char err[256];
    ck_assert_msg(mcts_set_params(s, &p, err, sizeof err), "%s", err);
    ck_assert(mcts_analysis_get(s, NULL, &a));
    lim = (mcts_limits){.max_playouts = 30};
    int64_t visits = a.root_visits;
    run(s, &lim);
    ck_assert(mcts_analysis_get(s, NULL, &a));
    ck_assert_int_eq(a.root_visits, visits + 30);
    assert_consistent(s);
    p.num_threads = 0;
    ck_assert(!mcts_set_params(s, &p, err, sizeof err));
    ck_assert_int_eq(mcts_get_params(s)->num_threads, 3);
    mcts_analysis_free(&a);
    mcts_free(s);
    go_game_free(&g);
    nn_model_free(m);
}
END_TEST

static void *stop_later(void *arg)
{
    struct timespec ts = {0, 200000000};
    nanosleep(&ts, NULL);
    mcts_stop(arg);
    return NULL;
}

static bool stop_after_three(const mcts_analysis *a, void *ctx)
{
    int *calls = ctx;
    ck_assert(a->root_visits > 0);
    return ++*calls < 3;
}

START_TEST(stop_and_progress)
{
    nn_model *m = test_model_load(TEST_G170, "cpu");
    mcts_search *s = search_new(m, 2, 4, 0);
    go_game g;
    test_game_from(&g, 9, empty9, GO_BLACK, "tromp-taylor", 7.0f);
    mcts_set_position(s, &g);
    pthread_t t;
    ck_assert_int_eq(pthread_create(&t, NULL, stop_later, s), 0);
    double t0 = go_now_s();
    run(s, NULL);   /* no limit at all: runs until stopped */
    double dt = go_now_s() - t0;
    pthread_join(t, NULL);
    ck_assert_msg(dt >= 0.19 && dt < 1.5, "stopped after %.3f s", dt);
    assert_consistent(s);

    int calls = 0;
    mcts_limits lim = {.report_interval_cs = 5, .report = {.max_moves = 5}};
    char err[256];
    t0 = go_now_s();
    ck_assert(mcts_run(s, &lim, stop_after_three, &calls, err, sizeof err));
    dt = go_now_s() - t0;
    ck_assert_int_eq(calls, 3);
    ck_assert_msg(dt < 1.5, "callback stop after %.3f s", dt);
    assert_consistent(s);
    mcts_free(s);
    go_game_free(&g);
    nn_model_free(m);
}
END_TEST

START_TEST(params_round_trip)
{
    mcts_params p = mcts_params_default();
    char err[256], buf[64];
    int n;
    const mcts_param_info *list = mcts_param_list(&n);
    ck_assert(n >= 20);
    for (int i = 0; i < n; i++) {
        ck_assert(list[i].doc && list[i].doc[0]);
        ck_assert_msg(mcts_params_get(&p, list[i].name, buf, sizeof buf), "%s", list[i].name);
        /* every value reads back as it was written */
        if (strcmp(list[i].name, "clear_moves") != 0) {
            mcts_params q = p;
            ck_assert_msg(mcts_params_set(&q, list[i].name, buf, err, sizeof err), "%s", err);
            ck_assert(memcmp(&q, &p, sizeof p) == 0);
        }
    }
    ck_assert(mcts_params_set(&p, "c_puct", "1.5", err, sizeof err));
    ck_assert(p.c_puct == 1.5);
    /* KataGo's exploration names take its utility units, twice ours, and read back in them */
    ck_assert(p.c_puct_log == 0 && p.c_puct_base == 500);
    ck_assert(mcts_params_set(&p, "cpuctExploration", "1.0", err, sizeof err));
    ck_assert(mcts_params_set(&p, "cpuctExplorationLog", "0.45", err, sizeof err));
    ck_assert(mcts_params_set(&p, "cpuctExplorationBase", "400", err, sizeof err));
    ck_assert(mcts_params_set(&p, "fpuReductionMax", "0.2", err, sizeof err));
    ck_assert(mcts_params_set(&p, "rootFpuReductionMax", "0.1", err, sizeof err));
    ck_assert(p.c_puct == 0.5 && p.c_puct_log == 0.225 && p.c_puct_base == 400);
    ck_assert(p.fpu_reduction == 0.1 && p.root_fpu_reduction == 0.05);
    ck_assert(mcts_params_get(&p, "cpuctExplorationLog", buf, sizeof buf));
    ck_assert_str_eq(buf, "0.45000000000000001");
    ck_assert(mcts_params_get(&p, "c_puct_log", buf, sizeof buf));
    ck_assert_str_eq(buf, "0.22500000000000001");
    ck_assert(!mcts_params_set(&p, "cpuctExploration", "2001", err, sizeof err));   /* 1000 ours */
    ck_assert_msg(strstr(err, "cpuctExploration") && strstr(err, "2000"), "%s", err);
    ck_assert(p.c_puct == 0.5);
    ck_assert(mcts_params_set(&p, "c_puct", "1.5", err, sizeof err));
    ck_assert(mcts_params_set(&p, "maxVisits", "800", err, sizeof err));   /* KataGo spelling */
    ck_assert_int_eq(p.max_visits, 800);
    ck_assert(mcts_params_set(&p, "num-threads", "4", err, sizeof err));
    ck_assert_int_eq(p.num_threads, 4);
    ck_assert(mcts_params_set(&p, "pass_policy", "free", err, sizeof err));
    ck_assert_int_eq(p.pass_policy, MCTS_PASS_FREE);
    ck_assert(mcts_params_get(&p, "pass_policy", buf, sizeof buf));
    ck_assert_str_eq(buf, "free");
    ck_assert(mcts_params_set(&p, "staticScoreUtilityFactor", "0.2", err, sizeof err));
    ck_assert(p.static_score_utility_factor == 0.2);
    /* KataGo's move choice by utility LCB: on by default, its names are aliases */
    ck_assert(p.use_lcb_for_selection && p.lcb_visit_fraction == 0.15 && p.lcb_stdevs == 5.0);
    ck_assert(mcts_params_set(&p, "useLcbForSelection", "false", err, sizeof err));
    ck_assert(!p.use_lcb_for_selection);
    ck_assert(mcts_params_get(&p, "use_lcb_for_selection", buf, sizeof buf));
    ck_assert_str_eq(buf, "false");
    ck_assert(mcts_params_set(&p, "use_lcb_for_selection", "1", err, sizeof err));
    ck_assert(p.use_lcb_for_selection);
    ck_assert(!mcts_params_set(&p, "use_lcb_for_selection", "maybe", err, sizeof err));
    ck_assert(mcts_params_set(&p, "minVisitPropForLCB", "0.2", err, sizeof err));
    ck_assert(mcts_params_set(&p, "lcbStdevs", "4", err, sizeof err));
    ck_assert(p.lcb_visit_fraction == 0.2 && p.lcb_stdevs == 4.0);
    /* KataGo's antiMirror: off by default, a bool under either spelling */
    ck_assert(!p.anti_mirror);
    ck_assert(mcts_params_set(&p, "antiMirror", "true", err, sizeof err));
    ck_assert(p.anti_mirror);
    ck_assert(mcts_params_get(&p, "anti_mirror", buf, sizeof buf));
    ck_assert_str_eq(buf, "true");
    ck_assert(!mcts_params_set(&p, "anti_mirror", "2", err, sizeof err));
    ck_assert(strstr(err, "anti_mirror") && strstr(err, "true or false"));
    ck_assert(mcts_params_set(&p, "anti-mirror", "0", err, sizeof err));
    ck_assert(!p.anti_mirror);
    ck_assert(mcts_params_get(&p, "seed", buf, sizeof buf));
    ck_assert(mcts_params_add_move_filter(&p, false, GO_BLACK, test_point(9, "E5"), 1));
    ck_assert(mcts_params_set(&p, "clear_moves", "", err, sizeof err));
    ck_assert_int_eq(p.num_avoid, 0);

    mcts_params before = p;
    err[0] = 0;
    ck_assert(!mcts_params_set(&p, "no_such_thing", "1", err, sizeof err));
    ck_assert(strstr(err, "no_such_thing") != NULL);
    ck_assert(!mcts_params_set(&p, "c_puct", "abc", err, sizeof err));
    ck_assert(strstr(err, "c_puct") != NULL);
    ck_assert(!mcts_params_set(&p, "num_threads", "0", err, sizeof err));
    ck_assert(!mcts_params_set(&p, "num_threads", "2.5", err, sizeof err));
    ck_assert(!mcts_params_set(&p, "max_visits", "-3", err, sizeof err));
    ck_assert(!mcts_params_set(&p, "dirichlet_eps", "1.5", err, sizeof err));
    ck_assert(!mcts_params_set(&p, "pass_policy", "sometimes", err, sizeof err));
    ck_assert(!mcts_params_set(&p, "c_puct", "nan", err, sizeof err));
    ck_assert(!mcts_params_set(&p, "seed", "-1", err, sizeof err));
    ck_assert(memcmp(&before, &p, sizeof p) == 0);
}
END_TEST

/* A dead white stone (A5) inside black's one-column area; white has just passed. Under area
 * scoring two passes now would count that stone as alive and the column as neutral (white would
 * win by 8.5): black must capture it first, although the net's own policy wants to pass (0.78)
 * and pass_policy "free" does pass here. Once it is captured nothing is left to play: pass. */
START_TEST(no_pass_while_dead_stones_remain)
{
    nn_model *m = test_model_load(TEST_G170, "cpu");
    mcts_search *s = search_new(m, 1, 4, 60);
    go_game g;
    test_game_from(&g, 9,
              ". X X X X O O O ."
              ". X . X X O . O ."
              ". X X X X O O O ."
              ". X X X X O O O ."
              "O X X X X O O O ."
              ". X X X X O O O ."
              ". X X X X O O O ."
              ". X . X X O . O ."
              ". X X X X O O O .",
              GO_WHITE, "tromp-taylor", 7.5f);
    ck_assert_int_eq(go_game_play(&g, GO_PASS, GO_WHITE), GO_MOVE_OK);
    int p = test_point(9, "A5");
    for (int turn = 0; turn < 6 && g.board.color[p] == GO_WHITE; turn++) {
        mcts_set_position(s, &g);
        run(s, NULL);
        int mv = mcts_choose_move(s);
        ck_assert_msg(mv == test_point(9, "A4") || mv == test_point(9, "A6"),
                      "black %s with a dead stone left", vtx(9, mv));
        ck_assert_int_eq(go_game_play(&g, mv, GO_BLACK), GO_MOVE_OK);
        ck_assert_int_eq(go_game_play(&g, GO_PASS, GO_WHITE), GO_MOVE_OK);
    }
    ck_assert_msg(g.board.color[p] == GO_EMPTY, "the dead stone was never captured");
    mcts_set_position(s, &g);
    run(s, NULL);
    int mv = mcts_choose_move(s);
    ck_assert_msg(mv == GO_PASS, "game over, yet black plays %s", vtx(9, mv));
    mcts_free(s);
    go_game_free(&g);
    nn_model_free(m);
}
END_TEST

/* Both sides pass-alive with no neutral point: after white's pass black passes (moves inside
 * either side's pass-alive area are pruned, and the rest are suicide). */
START_TEST(passes_when_game_over)
{
    nn_model *m = test_model_load(TEST_G170, "cpu");
    mcts_search *s = search_new(m, 1, 4, 40);
    go_game g;
    test_game_from(&g, 9,
              "X . X . X O . O ."
              "X X X X X O O O O"
              "X X X X X O O O O"
              "X X X X X O O O O"
              "X X X X X O O O O"
              "X X X X X O O O O"
              "X X X X X O O O O"
              "X X X X X O O O O"
              "X X X X X O O O O",
              GO_WHITE, "tromp-taylor", 7.5f);
    ck_assert_int_eq(go_game_play(&g, GO_PASS, GO_WHITE), GO_MOVE_OK);
    mcts_set_position(s, &g);
    run(s, NULL);
    int mv = mcts_choose_move(s);
    ck_assert_msg(mv == GO_PASS, "got %s", vtx(9, mv));
    /* after both passes the game is over: nothing to search, pass again */
    ck_assert_int_eq(go_game_play(&g, GO_PASS, GO_BLACK), GO_MOVE_OK);
    mcts_set_position(s, &g);
    run(s, NULL);
    ck_assert_int_eq(mcts_choose_move(s), GO_PASS);
    go_game_free(&g);

    /* Territories that are not pass-alive but settled (black wins by 1.5 if the game ends):
     * nothing is pruned here, the search itself must prefer the pass. */
    test_game_from(&g, 9,
              ". . . . X O . . ."
              ". . . . X O . . ."
              ". . . . X O . . ."
              ". . . . X O . . ."
              ". . . . X O . . ."
              ". . . . X O . . ."
              ". . . . X O . . ."
              ". . . . X O . . ."
              ". . . . X O . . .",
              GO_WHITE, "tromp-taylor", 7.5f);
    ck_assert_int_eq(go_game_play(&g, GO_PASS, GO_WHITE), GO_MOVE_OK);
    mcts_set_position(s, &g);
    mcts_limits lim = {.max_visits = 80};
    run(s, &lim);
    mv = mcts_choose_move(s);
    ck_assert_msg(mv == GO_PASS, "settled board: got %s", vtx(9, mv));
    mcts_free(s);
    go_game_free(&g);
    nn_model_free(m);
}
END_TEST

START_TEST(memory_bound_stops_growth)
{
    nn_model *m = test_model_load(TEST_G170, "cpu");
    mcts_params p = mcts_params_default();
    p.max_tree_mb = 0.25;
    p.max_visits = 5000;
    p.seed = 7;
    char err[256];
    mcts_search *s = mcts_new(m, &p, err, sizeof err);
    ck_assert_msg(s != NULL, "%s", err);
    go_game g;
    test_game_from(&g, 9, empty9, GO_BLACK, "tromp-taylor", 7.0f);
    mcts_set_position(s, &g);
    run(s, NULL);
    mcts_stats st;
    mcts_get_stats(s, &st);
    ck_assert_msg(st.tree_mb < 0.26, "tree %.3f MiB", st.tree_mb);
    mcts_analysis a = {0};
    ck_assert(mcts_analysis_get(s, NULL, &a));
    ck_assert_msg(a.root_visits < 5000 && a.root_visits > 20, "%" PRId64 " visits", a.root_visits);
    assert_consistent(s);
    mcts_analysis_free(&a);
    mcts_free(s);
    go_game_free(&g);
    nn_model_free(m);
}
END_TEST

START_TEST(avoid_and_allow_moves)
{
    nn_model *m = test_model_load(TEST_G170, "cpu");
    mcts_params p = mcts_params_default();
    p.max_visits = 60;
    p.seed = 3;
    ck_assert(mcts_params_add_move_filter(&p, false, GO_BLACK, test_point(9, "E5"), 1));
    char err[256];
    mcts_search *s = mcts_new(m, &p, err, sizeof err);
    ck_assert_msg(s != NULL, "%s", err);
    go_game g;
    test_game_from(&g, 9, empty9, GO_BLACK, "tromp-taylor", 7.0f);
    mcts_set_position(s, &g);
    run(s, NULL);
    mcts_analysis a = {0};
    ck_assert(mcts_analysis_get(s, NULL, &a));
    for (int i = 0; i < a.num_moves; i++)
        ck_assert(a.moves[i].move != test_point(9, "E5"));
    /* allow: only two moves at the root */
    p.num_avoid = 0;
    ck_assert(mcts_params_add_move_filter(&p, true, GO_BLACK, test_point(9, "C3"), 1));
    ck_assert(mcts_params_add_move_filter(&p, true, GO_BLACK, test_point(9, "G7"), 1));
    ck_assert(mcts_set_params(s, &p, err, sizeof err));
    mcts_clear_tree(s);
    mcts_set_position(s, &g);
    run(s, NULL);
    ck_assert(mcts_analysis_get(s, NULL, &a));
    ck_assert(a.num_moves >= 1 && a.num_moves <= 2);
    for (int i = 0; i < a.num_moves; i++)
        ck_assert(a.moves[i].move == test_point(9, "C3") || a.moves[i].move == test_point(9, "G7"));
    int mv = mcts_choose_move(s);
    ck_assert(mv == test_point(9, "C3") || mv == test_point(9, "G7"));
    mcts_analysis_free(&a);
    mcts_free(s);
    go_game_free(&g);
    nn_model_free(m);
}
END_TEST

/* Once a restriction to the corner is lifted, a fresh search of g chooses off the corner (the
 * empty board's favourites are central); then frees s, g and m. */
static void back_to_centre_and_free(mcts_search *s, go_game *g, const bool *corner, nn_model *m)
{
    mcts_clear_tree(s);
    mcts_set_position(s, g);
    run(s, NULL);
    int mv = mcts_choose_move(s);
    ck_assert_msg(mv != GO_PASS && !corner[mv], "the unrestricted search chose %s", vtx(9, mv));
    mcts_free(s);
    go_game_free(g);
    nn_model_free(m);
}

/* A root mask keeps every root visit on its points (here the 3x3 corner, away from the empty
 * board's favourite moves) and the search chooses among them; lifted, the search goes back to
 * the centre. */
START_TEST(root_moves_mask)
{
    nn_model *m = test_model_load(TEST_G170, "cpu");
    mcts_search *s = search_new(m, 1, 1, 120);
    go_game g;
    test_game_from(&g, 9, empty9, GO_BLACK, "tromp-taylor", 7.0f);
    bool mask[GO_POINTS] = {false};
    for (int y = 0; y < 3; y++)
        for (int x = 0; x < 3; x++)
            mask[go_point_at(x, y)] = true;
    mcts_set_root_moves(s, mask);
    mcts_set_position(s, &g);
    run(s, NULL);
    mcts_analysis a = {0};
    ck_assert(mcts_analysis_get(s, NULL, &a));
    int64_t visits = 0;
    for (int i = 0; i < a.num_moves; i++) {
        int mv = a.moves[i].move;
        ck_assert_msg(mv == GO_PASS || mask[mv], "root move %s off the mask", vtx(9, mv));
        visits += mv == GO_PASS ? 0 : a.moves[i].visits;
    }
    ck_assert_int_ge(visits, 100);
    ck_assert(mask[mcts_choose_move(s)]);
    mcts_analysis_free(&a);
    assert_consistent(s);
    mcts_set_root_moves(s, NULL);
    back_to_centre_and_free(s, &g, mask, m);
}
END_TEST

/* Root weights steer the search: weight 1 on the 3x3 corner and 0 elsewhere puts the root's
 * visits there (the pass keeps its prior), while the analysis reports the network's own priors
 * (small in the corner of an empty board, not the weighted ninths); lifted, the search goes back
 * to the centre. */
START_TEST(root_weights_steer_search)
{
    nn_model *m = test_model_load(TEST_G170, "cpu");
    mcts_search *s = search_new(m, 1, 1, 120);
    go_game g;
    test_game_from(&g, 9, empty9, GO_BLACK, "tromp-taylor", 7.0f);
    float w[GO_POINTS];
    bool corner[GO_POINTS] = {false};
    for (int q = 0; q < GO_POINTS; q++)
        w[q] = 0;
    for (int y = 0; y < 3; y++)
        for (int x = 0; x < 3; x++) {
            w[go_point_at(x, y)] = 1;
            corner[go_point_at(x, y)] = true;
        }
    mcts_set_root_weights(s, w);
    mcts_set_position(s, &g);
    run(s, NULL);
    mcts_analysis a = {0};
    mcts_analysis_opts o = {.min_moves = 1000};
    ck_assert(mcts_analysis_get(s, &o, &a));
    int64_t in = 0, out = 0;
    double prior_sum = 0;
    for (int i = 0; i < a.num_moves; i++) {
        int mv = a.moves[i].move;
        prior_sum += a.moves[i].prior;
        if (mv != GO_PASS && corner[mv]) {
            in += a.moves[i].visits;
            ck_assert_msg(a.moves[i].prior < 0.05, "%s reported with prior %g", vtx(9, mv),
                          a.moves[i].prior);
        } else if (mv != GO_PASS) {
            out += a.moves[i].visits;
        }
    }
    ck_assert_msg(in >= 100 && out <= 2, "corner %lld visits, elsewhere %lld", (long long)in,
                  (long long)out);
    ck_assert_msg(fabs(prior_sum - 1.0) < 0.02, "reported priors sum to %g", prior_sum);
    ck_assert(corner[mcts_choose_move(s)]);
    mcts_analysis_free(&a);
    assert_consistent(s);
    mcts_set_root_weights(s, NULL);
    back_to_centre_and_free(s, &g, corner, m);
}
END_TEST

START_TEST(noise_temperature_resign)
{
    nn_model *m = test_model_load(TEST_G170, "cpu");
    mcts_params p = mcts_params_default();
    p.max_visits = 40;
    p.seed = 11;
    p.dirichlet_eps = 0.25;
    p.temperature = 1.0;
    p.temperature_moves = 10;
    char err[256];
    mcts_search *s = mcts_new(m, &p, err, sizeof err);
    ck_assert_msg(s != NULL, "%s", err);
    go_game g;
    test_game_from(&g, 9, empty9, GO_BLACK, "tromp-taylor", 7.0f);
    bool seen[GO_POINTS] = {0};
    int distinct = 0;
    for (int i = 0; i < 6; i++) {
        mcts_clear_tree(s);
        mcts_set_position(s, &g);
        run(s, NULL);
        int mv = mcts_choose_move(s);
        ck_assert(mv > 0);
        distinct += !seen[mv];
        seen[mv] = true;
    }
    ck_assert_msg(distinct >= 2, "noise and temperature gave one move only");
    mcts_free(s);
    go_game_free(&g);

    /* black hopelessly behind (white owns almost everything): resigns only when asked to */
    test_game_from(&g, 9,
              ". O . O . O . O ."
              "O O O O O O O O O"
              ". . . . . . . . ."
              "O O O O O O O O O"
              ". . . . . . . . ."
              "O O O O O O O O O"
              ". . . . . . . . ."
              "O O O O O O O O O"
              ". X . . . . . . .",
              GO_BLACK, "tromp-taylor", 7.5f);
    p = mcts_params_default();
    p.max_visits = 30;
    p.resign_min_visits = 10;
    s = mcts_new(m, &p, err, sizeof err);
    mcts_set_position(s, &g);
    run(s, NULL);
    ck_assert(mcts_choose_move(s) != MCTS_RESIGN);
    p.resign_threshold = 0.1;
    ck_assert(mcts_set_params(s, &p, err, sizeof err));
    ck_assert_int_eq(mcts_choose_move(s), MCTS_RESIGN);
    mcts_free(s);
    go_game_free(&g);
    nn_model_free(m);
}
END_TEST

/* One thread, batch 1, same seed: the same tree twice. A second search of the same position
 * after dropping the tree is served by the cache. (With batches, cache hits are backed up while
 * the batch fills, so the tree can take another shape.) */
/* The same moves with the same visits and winrates in both analyses. */
static void assert_same_analysis(const mcts_analysis *a, const mcts_analysis *b)
{
    ck_assert_int_eq(a->num_moves, b->num_moves);
    for (int i = 0; i < a->num_moves; i++) {
        ck_assert_int_eq(a->moves[i].move, b->moves[i].move);
        ck_assert_int_eq(a->moves[i].visits, b->moves[i].visits);
        ck_assert_double_eq_tol(a->moves[i].winrate, b->moves[i].winrate, 1e-9);
    }
}

/* A fresh search of g (tree and network cache cleared) into out. */
static void search_afresh(mcts_search *s, const go_game *g, mcts_analysis *out)
{
    mcts_clear_cache(s);
    mcts_clear_tree(s);
    mcts_set_position(s, g);
    run(s, NULL);
    ck_assert(mcts_analysis_get(s, NULL, out));
}

/* The empty 9x9 board (tromp-taylor, komi 7) into g, searched from s's tree into a. */
static void search_empty9(mcts_search *s, go_game *g, mcts_analysis *a)
{
    test_game_from(g, 9, empty9, GO_BLACK, "tromp-taylor", 7.0f);
    mcts_set_position(s, g);
    run(s, NULL);
    ck_assert(mcts_analysis_get(s, NULL, a));
}

START_TEST(deterministic_and_cached)
{
    nn_model *m = test_model_load(TEST_G170, "cpu");
    mcts_search *s = search_new(m, 1, 1, 60);
    go_game g;
    mcts_analysis a = {0}, b = {0};
    search_empty9(s, &g, &a);
    mcts_stats before, after;
    mcts_get_stats(s, &before);
    mcts_clear_tree(s);
    mcts_set_position(s, &g);
    run(s, NULL);
    mcts_get_stats(s, &after);
    ck_assert(mcts_analysis_get(s, NULL, &b));
    ck_assert_int_eq(after.nn_evals, before.nn_evals);   /* every position came from the cache */
    ck_assert(after.cache_hits >= before.cache_hits + 60);
    assert_same_analysis(&a, &b);
    /* without the cache the network gives the same values again */
    search_afresh(s, &g, &b);
    ck_assert_int_eq(b.moves[0].move, a.moves[0].move);
    ck_assert_int_eq(b.moves[0].visits, a.moves[0].visits);
    mcts_analysis_free(&a);
    mcts_analysis_free(&b);
    mcts_free(s);
    go_game_free(&g);
    nn_model_free(m);
}
END_TEST

/* Many searches, one evaluation service: four searches of four positions run at once through
 * one service give the same trees (moves, visits, values) as each alone on its own contexts
 * (same seed, one thread each, caches not shared: nothing but the batches is in common; values
 * equal to float rounding), and their leaves were evaluated in shared batches. */
typedef struct service_job {
    mcts_search *s;
    const go_game *g;
    mcts_analysis a;
    bool ok;
} service_job;

static void *service_job_run(void *arg)
{
    service_job *j = arg;
    char err[256];
    mcts_set_position(j->s, j->g);
    j->ok = mcts_run(j->s, NULL, NULL, NULL, err, sizeof err) &&
            mcts_analysis_get(j->s, NULL, &j->a);
    return NULL;
}

START_TEST(service_searches_match_alone)
{
    enum { N = 4 };
    nn_model *m = test_model_load(TEST_G170, "cpu");
    static const int first[N][2] = {{4, 4}, {2, 2}, {6, 2}, {3, 5}};
    go_game g[N];
    mcts_analysis alone[N];
    mcts_params p = mcts_params_default();
    p.num_threads = 1;
    p.batch_size = 4;
    p.max_visits = 40;
    p.seed = 777;
    char err[512] = "";
    for (int i = 0; i < N; i++) {
        test_game_from(&g[i], 9, empty9, GO_BLACK, "tromp-taylor", 7.0f);
        ck_assert(go_game_play(&g[i], go_point_at(first[i][0], first[i][1]), GO_BLACK) ==
                  GO_MOVE_OK);
        mcts_search *s = mcts_new(m, &p, err, sizeof err);
        ck_assert_msg(s, "%s", err);
        mcts_set_position(s, &g[i]);
        run(s, NULL);
        alone[i] = (mcts_analysis){0};
        ck_assert(mcts_analysis_get(s, NULL, &alone[i]));
        mcts_free(s);
    }
    nn_service *svc = nn_service_new(m, 16, 1, 20000, err, sizeof err);
    ck_assert_msg(svc, "%s", err);
    /* a client's batches must fit the service's */
    p.batch_size = 17;
    ck_assert(!mcts_new_client(svc, NULL, &p, err, sizeof err));
    ck_assert_msg(strstr(err, "max batch"), "%s", err);
    p.batch_size = 4;
    service_job jobs[N];
    pthread_t th[N];
    for (int i = 0; i < N; i++) {
        jobs[i] = (service_job){mcts_new_client(svc, NULL, &p, err, sizeof err), &g[i], {0}, false};
        ck_assert_msg(jobs[i].s, "%s", err);
    }
    for (int i = 0; i < N; i++)
        ck_assert(pthread_create(&th[i], NULL, service_job_run, &jobs[i]) == 0);
    for (int i = 0; i < N; i++)
        pthread_join(th[i], NULL);
    nn_service_stats st;
    nn_service_get_stats(svc, &st);
    for (int i = 0; i < N; i++) {
        ck_assert(jobs[i].ok);
        /* the same tree; values to float rounding, as OpenBLAS's sums depend on the batch size */
        const mcts_analysis *a = &alone[i], *b = &jobs[i].a;
        ck_assert_int_eq(a->num_moves, b->num_moves);
        for (int k = 0; k < a->num_moves; k++) {
            ck_assert_int_eq(a->moves[k].move, b->moves[k].move);
            ck_assert_int_eq(a->moves[k].visits, b->moves[k].visits);
            ck_assert_double_eq_tol(a->moves[k].winrate, b->moves[k].winrate, 1e-5);
            ck_assert_double_eq_tol(a->moves[k].score_lead, b->moves[k].score_lead, 1e-3);
        }
        mcts_analysis_free(&alone[i]);
        mcts_analysis_free(&jobs[i].a);
        mcts_free(jobs[i].s);
        go_game_free(&g[i]);
    }
    /* batches of several searches' leaves: more than one search's 4 on average */
    ck_assert_msg(st.positions > 4 * st.batches, "%" PRId64 " positions in %" PRId64 " batches",
                  st.positions, st.batches);
    nn_query q = {0};
    nn_result r;
    ck_assert(!nn_service_eval(svc, 17, &q, &r, err, sizeof err));
    /* the devices of a backend: one for the CPU ones, none for a name this build lacks */
    ck_assert_int_eq(nn_backend_devices("cpu"), 1);
    ck_assert_int_eq(nn_backend_devices("ref:x"), 1);
    ck_assert_int_eq(nn_backend_devices("nope"), 0);
    nn_service_free(svc);
    nn_model_free(m);
}
END_TEST

/* eval_threads shares each network call's CPU work among threads and changes nothing else: one
 * search thread with batches of 8 gives the same tree with 1 and with 3 eval threads, set at
 * creation or changed between runs; out-of-range counts are refused. */
START_TEST(eval_threads_change_nothing)
{
    nn_model *m = test_model_load(TEST_G170, "cpu");
    mcts_search *s = search_new(m, 1, 8, 120);
    go_game g;
    mcts_analysis a = {0}, b = {0};
    search_empty9(s, &g, &a);
    mcts_params p = *mcts_get_params(s);
    char err[512] = "";
    p.eval_threads = 65;
    ck_assert(!mcts_set_params(s, &p, err, sizeof err));
    p.eval_threads = 3;
    ck_assert_msg(mcts_set_params(s, &p, err, sizeof err), "%s", err);
    ck_assert_int_eq(mcts_get_params(s)->eval_threads, 3);
    search_afresh(s, &g, &b);
    assert_same_analysis(&a, &b);
    mcts_analysis_free(&b);
    mcts_free(s);
    /* the same with the count given at creation */
    p = mcts_params_default();
    p.num_threads = 1;
    p.batch_size = 8;
    p.max_visits = 120;
    p.seed = 12345;
    p.eval_threads = 3;
    s = mcts_new(m, &p, err, sizeof err);
    ck_assert_msg(s, "%s", err);
    search_afresh(s, &g, &b);
    assert_same_analysis(&a, &b);
    mcts_analysis_free(&a);
    mcts_analysis_free(&b);
    mcts_free(s);
    go_game_free(&g);
    nn_model_free(m);
}
END_TEST

/* KataGo's score utility: odd around a zero centre, increasing, bounded by the two factors,
 * flatter for a wider score distribution, and the dynamic term centred where it is told. */
START_TEST(score_utility_shape)
{
    struct mcts_search s = {0};
    s.p = mcts_params_default();
    double bound = s.p.static_score_utility_factor + s.p.dynamic_score_utility_factor;
    double prev = -INFINITY;
    for (double score = -400; score <= 400; score += 0.5) {
        double u = mcts_score_utility(&s, score, score * score, 361);
        ck_assert(u > prev);
        ck_assert(fabs(u) < bound);
        ck_assert_double_eq_tol(u, -mcts_score_utility(&s, -score, score * score, 361), 1e-12);
        prev = u;
    }
    /* stdev 10 around +5 is worth less than a sure +5 */
    double sure = mcts_score_utility(&s, 5, 25, 361), spread = mcts_score_utility(&s, 5, 125, 361);
    ck_assert(spread < sure && spread > 0);
    /* centred on +20, the dynamic term is zero at +20 */
    s.score_center = 20;
    s.p.static_score_utility_factor = 0;
    ck_assert_double_eq_tol(mcts_score_utility(&s, 20, 400, 361), 0, 1e-12);
    ck_assert(mcts_score_utility(&s, 21, 441, 361) > 0);
}
END_TEST

/* mcts_legal's shortcut agrees with go_game_legal on every point of random games under simple
 * ko, positional and situational superko (with and without multi-stone suicide). */
START_TEST(legal_matches_rules)
{
    static const char *const rules[] = {"japanese", "tromp-taylor", "aga", "new-zealand"};
    uint64_t rng = 99;
    for (int r = 0; r < 4; r++) {
        go_game g;
        test_game_from(&g, 5, NULL, GO_BLACK, rules[r], 0.5f);
        for (int move = 0; move < 400; move++) {
            go_color c = g.board.to_move;
            int legal[GO_POINTS], n = 0;
            for (int p = 1; p < GO_POINTS; p++) {
                if (!go_board_on(&g.board, p))
                    continue;
                bool want = go_game_legal(&g, p, c) == GO_MOVE_OK;
                ck_assert_msg(mcts_legal(&g, p, c) == want, "%s move %d at %s", rules[r], move,
                              vtx(5, p));
                if (want)
                    legal[n++] = p;
            }
            rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
            int p = n > 0 && (rng >> 33) % 16 ? legal[(rng >> 40) % (uint64_t)n] : GO_PASS;
            ck_assert_int_eq(go_game_play(&g, p, c), GO_MOVE_OK);
        }
        go_game_free(&g);
    }
}
END_TEST

/* ---- move choice by lower confidence bound, on hand-made root statistics ---------------- */

/* Adds `times` rounds of one backup per value of mover_u (the root mover's utility, used as its
 * win/loss too, as a Leela Zero net's value is) to n. */
static void add_backups(mcts_node *n, go_color mover, const double *mover_u, int count, int times)
{
    double sign = mover == GO_WHITE ? 1.0 : -1.0;
    for (int t = 0; t < times; t++)
        for (int i = 0; i < count; i++) {
            mcts_eval e = {.wl = sign * mover_u[i], .utility = sign * mover_u[i]};
            mcts_node_add(n, &e, NULL, 0);
        }
}

/* The node of the root child playing `move`, made when missing. */
static mcts_node *root_child(mcts_search *s, int move)
{
    mcts_child *ch = atomic_load(&s->root->children);
    for (int i = 0; i < s->root->num_children; i++)
        if (ch[i].move == move)
            return mcts_child_node(s, &ch[i]);
    ck_abort_msg("no root child %d", move);
    return NULL;
}

/* Evaluates the root of g once (expanded and prepared, no child visited). */
static void root_only(mcts_search *s, const go_game *g)
{
    mcts_clear_tree(s);
    mcts_set_position(s, g);
    mcts_limits one = {.max_visits = -1, .max_playouts = 1, .max_time_ms = -1};
    run(s, &one);
    ck_assert_int_eq(atomic_load(&s->root->visits), 1);
}

/* D4 has 100 visits of mean utility 0.2 (values 0.9 and -0.5: a wide bound); Q16 has fewer
 * visits of other values. KataGo's rule: Q16 is played only with at least lcb_visit_fraction of
 * D4's visits and a strictly better utility bound; the analysis lists the played move first,
 * its bounds agree with the choice, and the winrate lcb of a net without score is the utility
 * bound as a winrate. */
START_TEST(lcb_move_choice)
{
    nn_model *m = test_model_load(TEST_LZ_B4C32, "cpu");
    static const double noisy[] = {0.9, -0.5}, sure[] = {0.5}, wide[] = {1.0, -0.5};
    static const struct {
        const double *b;
        int nb, rounds;
        double fraction;
        bool use_lcb, want_q16;
        const char *what;
    } cases[] = {
        {sure, 1, 40, 0.15, true, true, "a sure move with 40% of the visits wins on its bound"},
        {sure, 1, 40, 0.15, false, false, "without the bound the most visited move is played"},
        {sure, 1, 10, 0.15, true, false, "10% of the visits is below the fraction"},
        {sure, 1, 10, 0.05, true, true, "unless the fraction is lowered"},
        {wide, 2, 20, 0.15, true, false, "a better mean with a wider bound does not win"},
    };
    go_game g;
    test_game_from(&g, 19, NULL, GO_BLACK, "chinese", 7.5f);
    int d4 = test_point(19, "D4"), q16 = test_point(19, "Q16");
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        mcts_params p = mcts_params_default();
        p.seed = 5;
        p.use_lcb_for_selection = cases[c].use_lcb;
        p.lcb_visit_fraction = cases[c].fraction;
        char err[256];
        mcts_search *s = mcts_new(m, &p, err, sizeof err);
        ck_assert_msg(s != NULL, "%s", err);
        root_only(s, &g);
        add_backups(root_child(s, d4), GO_BLACK, noisy, 2, 50);
        add_backups(root_child(s, q16), GO_BLACK, cases[c].b, cases[c].nb, cases[c].rounds);
        int want = cases[c].want_q16 ? q16 : d4;
        int got = mcts_choose_move(s);
        ck_assert_msg(got == want, "%s: played %s", cases[c].what, vtx(19, got));
        mcts_analysis a = {0};
        ck_assert(mcts_analysis_get(s, NULL, &a));
        ck_assert_int_eq(a.num_moves, 2);
        ck_assert_msg(a.moves[0].move == want, "%s: analysis lists %s first", cases[c].what,
                      vtx(19, a.moves[0].move));
        const mcts_move_info *d = a.moves[0].move == d4 ? &a.moves[0] : &a.moves[1];
        const mcts_move_info *q = d == &a.moves[0] ? &a.moves[1] : &a.moves[0];
        ck_assert_int_eq(d->visits, 100);
        bool eligible = q->visits >= cases[c].fraction * (double)d->visits;
        ck_assert_int_eq(cases[c].use_lcb && eligible && q->utility_lcb > d->utility_lcb,
                         cases[c].want_q16);
        for (int i = 0; i < 2; i++) {
            ck_assert(a.moves[i].utility_lcb < a.moves[i].utility);
            ck_assert_double_eq_tol(a.moves[i].lcb, 0.5 * (1.0 + a.moves[i].utility_lcb), 1e-9);
        }
        ck_assert_double_eq_tol(d->utility, 0.2, 1e-9);
        /* 100 visits of stdev 0.7: five standard errors (the prior's pull is negligible) */
        ck_assert_double_eq_tol(d->utility_lcb, 0.2 - 5 * 0.7 / 10, 1e-3);
        mcts_analysis_free(&a);
        mcts_free(s);
    }
    go_game_free(&g);
    nn_model_free(m);
}
END_TEST

/* The root child the next playout descends into, on the hand-made root of exploration_log:
 * Q9 60 visits of utility 0.6, E12 40 of 0.5, the root 101 of 0.5 (the mover's view). */
static int next_descent(nn_model *m, const go_game *g, double c_puct, double c_log, double base)
{
    mcts_params p = mcts_params_default();
    p.seed = 5;
    p.c_puct = c_puct;
    p.c_puct_log = c_log;
    p.c_puct_base = base;
    char err[256];
    mcts_search *s = mcts_new(m, &p, err, sizeof err);
    ck_assert_msg(s != NULL, "%s", err);
    root_only(s, g);
    static const double q9_u[] = {0.6}, e12_u[] = {0.5}, root_u[] = {0.5};
    add_backups(root_child(s, test_point(19, "Q9")), GO_BLACK, q9_u, 1, 60);
    add_backups(root_child(s, test_point(19, "E12")), GO_BLACK, e12_u, 1, 40);
    add_backups(s->root, GO_BLACK, root_u, 1, 100);
    mcts_child *ch = atomic_load(&s->root->children);
    int before[GO_MAX_SIZE * GO_MAX_SIZE + 1] = {0};
    for (int i = 0; i < s->root->num_children; i++) {
        mcts_node *c = atomic_load(&ch[i].node);
        before[i] = c ? atomic_load(&c->visits) : 0;
    }
    mcts_limits one = {.max_visits = -1, .max_playouts = 1, .max_time_ms = -1};
    run(s, &one);
    int move = -1;
    for (int i = 0; i < s->root->num_children; i++) {
        mcts_node *c = atomic_load(&ch[i].node);
        if (c && atomic_load(&c->visits) == before[i] + 1) {
            ck_assert_int_eq(move, -1);
            move = ch[i].move;
        }
    }
    ck_assert_int_ge(move, 0);
    mcts_free(s);
    return move;
}

/* KataGo's growing exploration. The random net's root priors: Q9 0.514, E12 0.446, every other
 * move below 0.01. With 100 child visits, Q9 scores 0.3 + c 0.514 sqrt(101) / 61 and E12
 * 0.25 + c 0.446 sqrt(101) / 41 (winrate units): Q9 below c = 2.03, E12 above (the unvisited
 * moves, about 0.25 - 0.1 sqrt(0.96) + c 0.01 sqrt(101), stay behind). c_puct 0.9 descends
 * into Q9; c_puct_log 1 with base 10 makes c 0.9 + ln(110 / 10) = 3.30: E12, as a constant
 * c_puct of 3.30 does; a huge base leaves 0.9's choice. */
START_TEST(exploration_log)
{
    nn_model *m = test_model_load(TEST_LZ_B4C32, "cpu");
    go_game g;
    test_game_from(&g, 19, NULL, GO_BLACK, "chinese", 7.5f);
    int q9 = test_point(19, "Q9"), e12 = test_point(19, "E12");
    ck_assert_int_eq(next_descent(m, &g, 0.9, 0, 500), q9);
    ck_assert_int_eq(next_descent(m, &g, 1.9, 0, 500), q9);
    ck_assert_int_eq(next_descent(m, &g, 2.2, 0, 500), e12);
    ck_assert_int_eq(next_descent(m, &g, 0.9, 1.0, 10), e12);
    ck_assert_int_eq(next_descent(m, &g, 0.9 + log(11.0), 0, 500), e12);
    ck_assert_int_eq(next_descent(m, &g, 0.9, 1.0, 1e9), q9);
    go_game_free(&g);
    nn_model_free(m);
}
END_TEST

/* ---- minmoves -------------------------------------------------------------------------- */

/* A 12-visit search of the empty 9x9 board asked for 20 moves: the visited ones first, then
 * unvisited moves by prior with 0 visits and the root's values (KataGo's convention); maxmoves
 * cuts after the fill; at most the moves the root may play are listed (not the pass the pass
 * policy forbids, not an avoided move). */
START_TEST(min_moves_fill)
{
    nn_model *m = test_model_load(TEST_G170, "cpu");
    mcts_search *s = search_new(m, 1, 1, 12);
    go_game g;
    test_game_from(&g, 9, empty9, GO_BLACK, "tromp-taylor", 7.0f);
    mcts_set_position(s, &g);
    run(s, NULL);
    mcts_analysis a = {0};
    ck_assert(mcts_analysis_get(s, NULL, &a));
    int visited = a.num_moves;
    double min_visited_lcb = INFINITY;
    for (int i = 0; i < visited; i++)
        min_visited_lcb = fmin(min_visited_lcb, a.moves[i].utility_lcb);
    ck_assert_int_lt(visited, 20);
    mcts_analysis_opts o = {.min_moves = 20, .ownership = true, .move_ownership = true};
    ck_assert(mcts_analysis_get(s, &o, &a));
    ck_assert_int_eq(a.num_moves, 20);
    /* the best prior among the root moves left unvisited */
    mcts_child *ch = atomic_load(&s->root->children);
    float best_unvisited = -1;
    for (int i = 0; i < s->root->num_children; i++) {
        mcts_node *c = atomic_load(&ch[i].node);
        if ((!c || atomic_load(&c->visits) == 0) && s->root_allowed[i])
            best_unvisited = fmaxf(best_unvisited, s->root_prior[i]);
    }
    bool seen[GO_POINTS] = {0};
    for (int i = 0; i < a.num_moves; i++) {
        const mcts_move_info *mi = &a.moves[i];
        ck_assert_int_eq(mi->order, i);
        ck_assert_msg(!seen[mi->move], "%s twice", vtx(9, mi->move));
        seen[mi->move] = true;
        ck_assert(mi->move != GO_PASS);
        ck_assert_ptr_nonnull(mi->ownership);
        if (i < visited) {
            ck_assert_int_gt(mi->visits, 0);
            continue;
        }
        ck_assert_int_eq(mi->visits, 0);
        ck_assert_int_eq(mi->pv_len, 1);
        ck_assert_int_eq(mi->pv[0], mi->move);
        ck_assert_int_eq(mi->pv_visits[0], 0);
        if (i == visited)
            ck_assert_double_eq_tol(mi->prior, best_unvisited, 1e-7);
        else
            ck_assert(mi->prior <= a.moves[i - 1].prior);
        ck_assert(mi->winrate >= 0 && mi->winrate <= 1);
        ck_assert(mi->utility < a.root_utility);   /* first-play urgency is below the root */
        ck_assert(mi->utility_lcb < min_visited_lcb);
        ck_assert(mi->lcb < mi->winrate);
        ck_assert_double_eq(mi->score_lead, a.root_score_lead);
        ck_assert_double_eq(mi->score_stdev, a.root_score_stdev);
        for (int k = 0; k < 81; k++)
            ck_assert_float_eq_tol(mi->ownership[k], a.ownership[k], 1e-6);
    }
    o.max_moves = 5;
    ck_assert(mcts_analysis_get(s, &o, &a));
    ck_assert_int_eq(a.num_moves, 5);
    mcts_analysis_opts all = {.min_moves = 1000};
    ck_assert(mcts_analysis_get(s, &all, &a));
    ck_assert_int_eq(a.num_moves, 81);   /* every point; no pass (neutral points remain) */
    /* an avoided move is never filled in */
    mcts_params p = *mcts_get_params(s);
    ck_assert(mcts_params_add_move_filter(&p, false, GO_BLACK, test_point(9, "E5"), 1));
    char err[256];
    ck_assert_msg(mcts_set_params(s, &p, err, sizeof err), "%s", err);
    mcts_clear_tree(s);
    mcts_set_position(s, &g);
    run(s, NULL);
    ck_assert(mcts_analysis_get(s, &all, &a));
    ck_assert_int_eq(a.num_moves, 80);
    for (int i = 0; i < a.num_moves; i++)
        ck_assert(a.moves[i].move != test_point(9, "E5"));
    mcts_analysis_free(&a);
    mcts_free(s);
    go_game_free(&g);
    nn_model_free(m);
}
END_TEST

/* ---- ownership standard deviation -------------------------------------------------------- */

static void fill_own(float *own, float v)
{
    for (int i = 0; i < NN_MAX_POINTS; i++)
        own[i] = v;
}

/* A root child backed up three times with ownership 0.8, -0.4 and 0.2 everywhere reports mean
 * 0.2 and standard deviation sqrt(0.24) per point; the root, evaluated once, reports 0. After a
 * real search the root's standard deviation is a spread: within [0, 1], not all zero, and at
 * least the spread of its children's means around its own (the law of total variance). */
START_TEST(ownership_stdev_moments)
{
    nn_model *m = test_model_load(TEST_G170, "cpu");
    mcts_search *s = search_new(m, 1, 1, 0);
    go_game g;
    test_game_from(&g, 9, empty9, GO_BLACK, "tromp-taylor", 7.0f);
    root_only(s, &g);
    mcts_node *e5 = root_child(s, test_point(9, "E5"));
    static const float values[] = {0.8f, -0.4f, 0.2f};
    float own[NN_MAX_POINTS];
    for (int i = 0; i < 3; i++) {
        mcts_eval e = {0};
        fill_own(own, values[i]);
        mcts_node_add(e5, &e, own, 81);
    }
    mcts_analysis a = {0};
    mcts_analysis_opts o = {.ownership = true, .ownership_stdev = true, .move_ownership = true,
                            .move_ownership_stdev = true};
    ck_assert(mcts_analysis_get(s, &o, &a));
    ck_assert_int_eq(a.num_moves, 1);
    ck_assert_ptr_nonnull(a.moves[0].ownership_stdev);
    for (int k = 0; k < 81; k++) {
        ck_assert_float_eq_tol(a.moves[0].ownership[k], 0.2f, 1e-6);
        ck_assert_float_eq_tol(a.moves[0].ownership_stdev[k], sqrtf(0.24f), 1e-5);
        ck_assert_float_eq_tol(a.ownership_stdev[k], 0.0f, 1e-3);
    }
    mcts_free(s);

    s = search_new(m, 1, 1, 60);
    mcts_set_position(s, &g);
    run(s, NULL);
    o.min_visits = 1;
    ck_assert(mcts_analysis_get(s, &o, &a));
    double most = 0;
    for (int k = 0; k < 81; k++) {
        double sd = a.ownership_stdev[k], between = 0;
        ck_assert(sd >= 0 && sd <= 1.0001);
        most = fmax(most, sd);
        for (int i = 0; i < a.num_moves; i++) {
            const mcts_move_info *mi = &a.moves[i];
            double d = mi->ownership[k] - a.ownership[k];
            between += (double)mi->visits * d * d;
            ck_assert(mi->ownership_stdev[k] >= 0 && mi->ownership_stdev[k] <= 1.0001);
        }
        between /= (double)a.root_visits;
        ck_assert_msg(sd * sd >= between - 1e-4, "point %d: stdev %g, children spread %g", k,
                      sd, sqrt(between));
    }
    ck_assert_msg(most > 0.01, "no spread anywhere");
    mcts_analysis_free(&a);
    mcts_free(s);
    go_game_free(&g);
    nn_model_free(m);
}
END_TEST

/* ---- Leela Zero nets and passing (19x19 by hand) ----------------------------------------- */

/* 19x19 with black (B..J) and white (K..S) walls, each with two eyes (C2 and C18, R2 and R18),
 * columns A and T empty: both sides pass-alive. dead: a white stone at A10 inside black's area. */
static void lz_endgame(go_game *g, bool dead)
{
    char pic[19 * 40 + 1], *w = pic;
    for (int row = 19; row >= 1; row--)
        for (int col = 0; col < 19; col++) {
            char c = col == 0 || col == 18 ? '.' : col <= 8 ? 'X' : 'O';
            bool eye_row = row == 2 || row == 18;
            if (eye_row && (col == 2 || col == 16))
                c = '.';
            if (dead && col == 0 && row == 10)
                c = 'O';
            *w++ = c;
            *w++ = ' ';
        }
    *w = 0;
    test_game_from(g, 19, pic, GO_WHITE, "chinese", 7.5f);
}

/* A Leela Zero net has no ownership, so a dead stone is seen by the count of the board (area
 * scoring takes every stone on it as alive): with white's dead stone at A10 black neither passes
 * nor plays elsewhere but captures it (A9 and A11), then passes; white's pass is answered by
 * black's at the finished position (the game ends), and a finished game stays passed. */
START_TEST(lz_net_passes_only_when_finished)
{
    nn_model *m = test_model_load(TEST_LZ_B4C32, "cpu");
    mcts_search *s = search_new(m, 1, 4, 16);
    go_game g;
    lz_endgame(&g, true);
    ck_assert_int_eq(go_game_play(&g, GO_PASS, GO_WHITE), GO_MOVE_OK);
    int dead = test_point(19, "A10");
    for (int turn = 0; turn < 4 && g.board.color[dead] == GO_WHITE; turn++) {
        mcts_set_position(s, &g);
        run(s, NULL);
        int mv = mcts_choose_move(s);
        ck_assert_msg(mv == test_point(19, "A9") || mv == test_point(19, "A11"),
                      "black %s with a dead stone left", vtx(19, mv));
        ck_assert_int_eq(go_game_play(&g, mv, GO_BLACK), GO_MOVE_OK);
        ck_assert_int_eq(go_game_play(&g, GO_PASS, GO_WHITE), GO_MOVE_OK);
    }
    ck_assert_msg(g.board.color[dead] == GO_EMPTY, "the dead stone was never captured");
    mcts_set_position(s, &g);
    run(s, NULL);
    int mv = mcts_choose_move(s);
    ck_assert_msg(mv == GO_PASS, "finished, yet black plays %s", vtx(19, mv));
    go_game_free(&g);
    /* The same board without the dead stone: white passes, black accepts. */
    lz_endgame(&g, false);
    ck_assert_int_eq(go_game_play(&g, GO_PASS, GO_WHITE), GO_MOVE_OK);
    mcts_set_position(s, &g);
    run(s, NULL);
    ck_assert_int_eq(mcts_choose_move(s), GO_PASS);
    ck_assert_int_eq(go_game_play(&g, GO_PASS, GO_BLACK), GO_MOVE_OK);
    mcts_set_position(s, &g);
    run(s, NULL);
    ck_assert_int_eq(mcts_choose_move(s), GO_PASS);
    mcts_free(s);
    go_game_free(&g);
    nn_model_free(m);
}
END_TEST

/* One run of visits from an empty 9x9 board with s's settings; the root's winrate. */
static bool run_empty9(mcts_search *s, int64_t visits, double *winrate, char *err, int err_len)
{
    go_game g;
    test_game_from(&g, 9, empty9, GO_BLACK, "chinese", 7.0f);
    mcts_set_position(s, &g); /* true when a tree was kept */
    go_game_free(&g);
    mcts_limits lim = {.max_visits = visits};
    if (!mcts_run(s, &lim, NULL, NULL, err, err_len))
        return false;
    mcts_analysis a = {0};
    ck_assert(mcts_analysis_get(s, NULL, &a));
    ck_assert_int_ge(a.root_visits, visits);
    *winrate = a.root_winrate;
    mcts_analysis_free(&a);
    return true;
}

/* humanSLProfile: checked when set, required by a human-SL net (the run fails with the
 * network's error), given to every thread's context, and changing it drops the tree and the
 * cached evaluations (else the second profile would be answered from the first one's cache). */
START_TEST(human_sl_profile)
{
    char err[512], buf[64];
    mcts_params p = mcts_params_default();
    ck_assert(mcts_params_get(&p, "humanSLProfile", buf, sizeof buf));
    ck_assert_str_eq(buf, "none");
    ck_assert(mcts_params_set(&p, "humanSLProfile", "rank_5k", err, sizeof err));
    ck_assert(mcts_params_get(&p, "human_sl_profile", buf, sizeof buf));
    ck_assert_str_eq(buf, "rank_5k");
    ck_assert(!mcts_params_set(&p, "humanSLProfile", "rank_99k", err, sizeof err));
    ck_assert_msg(strstr(err, "unknown human SL profile"), "%s", err);
    ck_assert(!mcts_params_set(&p, "humanSLProfile", "rank_5k_1d_and_much_more_than_fits",
                               err, sizeof err));
    ck_assert_str_eq(p.human_sl_profile, "rank_5k");  /* a refused value changes nothing */
    ck_assert(mcts_params_set(&p, "humanSLProfile", "none", err, sizeof err));
    ck_assert_str_eq(p.human_sl_profile, "");

    nn_desc *d = weights_synth_kata(&(weights_synth_kata_shape){15, true, 2, 32, 16, 8, 8, 2, 3, 8, 8, 8, 16,
                                               NN_ACT_MISH, 0, 0}, 5);
    ck_assert(d && weights_synth_kata_add_meta(d, 16, 77));
    nn_model *m = nn_model_from_desc(d, "cpu", err, sizeof err);
    ck_assert_msg(m, "%s", err);

    /* a profile mcts_params_set would refuse is refused by mcts_new too */
    snprintf(p.human_sl_profile, sizeof p.human_sl_profile, "rank_0d");
    ck_assert(!mcts_new(m, &p, err, sizeof err));
    ck_assert_msg(strstr(err, "human_sl_profile"), "%s", err);

    mcts_search *s = search_new(m, 1, 1, 0);
    double none_wr;
    ck_assert(!run_empty9(s, 4, &none_wr, err, sizeof err));
    ck_assert_msg(strstr(err, "needs a profile"), "%s", err);

    static const char *const names[3] = {"rank_20k", "rank_9d", "rank_20k"};
    double wr[3];
    for (int i = 0; i < 3; i++) {
        p = *mcts_get_params(s);
        ck_assert(mcts_params_set(&p, "humanSLProfile", names[i], err, sizeof err));
        ck_assert_msg(mcts_set_params(s, &p, err, sizeof err), "%s", err);
        ck_assert(mcts_profile(s) != NULL);
        ck_assert(s->root == NULL); /* the profile changed: the tree went */
        ck_assert_msg(run_empty9(s, 12, &wr[i], err, sizeof err), "%s", err);
        assert_consistent(s);
        printf("human SL profile %s: root winrate %.6f\n", names[i], wr[i]);
    }
    ck_assert_msg(fabs(wr[0] - wr[1]) > 1e-4, "rank_20k %.6f and rank_9d %.6f agree", wr[0],
                  wr[1]);
    ck_assert_msg(wr[2] == wr[0], "rank_20k again: %.9f, first %.9f", wr[2], wr[0]);

    /* several threads with batches: each context got the profile */
    p = *mcts_get_params(s);
    p.num_threads = 2;
    p.batch_size = 4;
    ck_assert_msg(mcts_set_params(s, &p, err, sizeof err), "%s", err);
    double wr_threads;
    ck_assert_msg(run_empty9(s, 64, &wr_threads, err, sizeof err), "%s", err);
    assert_consistent(s);

    /* back to no profile: refused again */
    ck_assert(mcts_params_set(&p, "humanSLProfile", "none", err, sizeof err));
    ck_assert(mcts_set_params(s, &p, err, sizeof err));
    ck_assert(mcts_profile(s) == NULL);
    ck_assert(!run_empty9(s, 4, &none_wr, err, sizeof err));
    ck_assert_msg(strstr(err, "needs a profile"), "%s", err);
    mcts_free(s);
    nn_model_free(m);
}
END_TEST

static Suite *mcts_suite(void)
{
    Suite *s = suite_create("mcts");
    TCase *tc = tcase_create("search");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, params_round_trip);
    tcase_add_test(tc, legal_matches_rules);
    tcase_add_test(tc, score_utility_shape);
    tcase_add_test(tc, visits_add_up_kata);
    tcase_add_test(tc, deterministic_and_cached);
    tcase_add_test(tc, eval_threads_change_nothing);
    tcase_add_test(tc, service_searches_match_alone);
    tcase_add_test(tc, visits_add_up_lz);
    tcase_add_test(tc, finds_capture_and_escape);
    tcase_add_test(tc, tree_reuse_keeps_child_visits);
    tcase_add_test(tc, limits_with_threads_and_batches);
    tcase_add_test(tc, stop_and_progress);
    tcase_add_test(tc, no_pass_while_dead_stones_remain);
    tcase_add_test(tc, passes_when_game_over);
    tcase_add_test(tc, memory_bound_stops_growth);
    tcase_add_test(tc, avoid_and_allow_moves);
    tcase_add_test(tc, root_moves_mask);
    tcase_add_test(tc, root_weights_steer_search);
    tcase_add_test(tc, noise_temperature_resign);
    tcase_add_test(tc, lcb_move_choice);
    tcase_add_test(tc, exploration_log);
    tcase_add_test(tc, min_moves_fill);
    tcase_add_test(tc, ownership_stdev_moments);
    tcase_add_test(tc, lz_net_passes_only_when_finished);
    tcase_add_test(tc, human_sl_profile);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return test_run_suite(mcts_suite()); }
