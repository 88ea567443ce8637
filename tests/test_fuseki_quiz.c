/* tests/test_fuseki_quiz.c -- the fuseki quiz generator (teach/fuseki_quiz.h, seed 000 section
 * 6): its parameters; every condition of every kind on positions built to pass or fail it, with
 * the features the generator computes; quizzes made on an opening position (every wrong answer
 * meets its kind's conditions on the deep search, the labels, explanations and difficulty) and
 * on the empty board (no two choices symmetric copies); the quiz's SGF parsed back with
 * go/sgf.h (labels, comments, variations, the main line); `shido fuseki-quiz` with threads and
 * shards (merged shards equal one run, byte for byte), `stats`, and its errors. The shared
 * 6-block net, small visit counts. */
#include <check.h>
#include <cjson/cJSON.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "go/sgf.h"
#include "teach/engine.h"
#include "teach/explain.h"
#include "teach/features.h"
#include "teach/fuseki_quiz.h"

#include "tests/common.h"
#include "tests/shido_pipe.h"

static teach_engine *engine_g170(void)
{
    teach_options o;
    teach_options_init(&o);
    o.weights[o.num_weights++] = TEST_G170;
    snprintf(o.backend, sizeof o.backend, "cpu");
    char err[512];
    teach_engine *e = teach_engine_new(&o, err, sizeof err);
    ck_assert_msg(e != NULL, "%s", err);
    return e;
}

/* Quick parameters for tests (the sanitizer build evaluates slowly): the paper's conditions,
 * a short confirming search. */
static teach_quiz_params quick_params(void)
{
    teach_quiz_params p = teach_quiz_params_default();
    p.deep_visits = 4;
    return p;
}

/* ---- parameters -------------------------------------------------------------------------- */

START_TEST(test_params)
{
    teach_quiz_params p = teach_quiz_params_default();
    /* the paper's values */
    ck_assert_int_eq(p.candidates, 25);
    ck_assert_double_eq(p.min_score_loss, 0.5);
    ck_assert_double_eq(p.max_prior_katago, 0.001);
    ck_assert_double_eq(p.big_max_density, 0);
    ck_assert_int_eq(p.big_min_dist, 8);
    ck_assert_int_eq(p.near_max_dist, 8);
    ck_assert_double_eq(p.near_min_human_prior, 0.01);
    ck_assert_double_eq(p.near_min_score_loss, 1.0);
    ck_assert_double_eq(p.over_min_strengthen, 0.1);
    char err[256];
    ck_assert(teach_quiz_params_set(&p, "near-min-human-prior", "0.02", err, sizeof err));
    ck_assert_double_eq(p.near_min_human_prior, 0.02);
    ck_assert(teach_quiz_params_set(&p, "VISITS", "800", err, sizeof err));
    ck_assert_int_eq(p.visits, 800);
    ck_assert(teach_quiz_params_set(&p, "drop_symmetric", "false", err, sizeof err));
    ck_assert(!p.drop_symmetric);
    ck_assert(!teach_quiz_params_set(&p, "visits", "2.5", err, sizeof err));
    ck_assert_msg(strstr(err, "visits"), "%s", err);
    ck_assert(!teach_quiz_params_set(&p, "max_prior_katago", "2", err, sizeof err));
    ck_assert(!teach_quiz_params_set(&p, "frobnicate", "1", err, sizeof err));
    ck_assert_msg(strstr(err, "frobnicate"), "%s", err);
    ck_assert_ptr_nonnull(strstr(teach_quiz_params_help(), "over_min_strengthen"));
}
END_TEST

/* ---- conditions on built positions ------------------------------------------------------- */

/* A 19x19 opening: the four star points taken, black to move (japanese, komi 6.5). */
static const char *const four_stars = "..................."
                                      "..................."
                                      "..................."
                                      "...O...........X..."
                                      "..................."
                                      "..................."
                                      "..................."
                                      "..................."
                                      "..................."
                                      "..................."
                                      "..................."
                                      "..................."
                                      "..................."
                                      "..................."
                                      "..................."
                                      "...X...........O..."
                                      "..................."
                                      "..................."
                                      "...................";

/* The features of moves (GTP vertices) of position g against answer, searched at 8 visits. */
static void features_of(teach_features *f, const go_game *g, const char *answer,
                        const char *const *moves, int n, teach_move_features *out)
{
    char err[512];
    int size = g->board.size, pts[16];
    for (int i = 0; i < n; i++)
        pts[i] = test_point(size, moves[i]);
    ck_assert(teach_features_set_position(f, g, err, sizeof err));
    ck_assert_msg(teach_features_compute(f, pts, n, test_point(size, answer), 8, out, NULL, err,
                                         sizeof err),
                  "%s", err);
}

START_TEST(test_conditions)
{
    teach_engine *e = engine_g170();
    char err[512];
    teach_features *f = teach_features_new(e, 1, err, sizeof err);
    ck_assert_msg(f != NULL, "%s", err);
    teach_quiz_params p = teach_quiz_params_default();
    go_game g;
    test_game_from(&g, 19, four_stars, GO_BLACK, "japanese", 6.5f);
    /* the answer: R6, an approach to the lower right; A1 the corner's first line, K10 tengen,
     * C6 next to D4, R8 near the answer */
    enum { A1, K10, C6, R8, ANS, TOP, N };
    char top_v[8];
    int top;
    ck_assert(teach_features_set_position(f, &g, err, sizeof err));
    ck_assert_int_eq(teach_features_top_moves(f, false, 1, &top), 1);
    const char *const mv[N] = {"A1", "K10", "C6", "R8", "R6", go_point_to_gtp(19, top, top_v)};
    teach_move_features x[N];
    features_of(f, &g, "R6", mv, N, x);
    unsigned fail;
    /* Prior_KataGo < 0.001: A1 passes, the answer (a natural approach) fails */
    ck_assert_msg(x[A1].prior_katago < 0.001, "%g", x[A1].prior_katago);
    ck_assert(!(teach_quiz_check(&p, TEACH_QUIZ_BIG_POINT, &x[A1], false, false) &
                TEACH_QUIZ_FAIL_PRIOR_KATAGO));
    ck_assert_msg(x[ANS].prior_katago >= 0.001, "%g", x[ANS].prior_katago);
    ck_assert(teach_quiz_check(&p, TEACH_QUIZ_BIG_POINT, &x[ANS], false, false) &
              TEACH_QUIZ_FAIL_PRIOR_KATAGO);
    /* score loss >= 0.5: A1 passes; the answer itself (loss 0) fails */
    ck_assert_msg(x[A1].score_loss >= 1.0, "%g", x[A1].score_loss);
    ck_assert(!(teach_quiz_check(&p, TEACH_QUIZ_OVER_STRENGTHEN, &x[A1], true, false) &
                TEACH_QUIZ_FAIL_SCORE_LOSS));
    ck_assert_double_eq_tol(x[ANS].score_loss, 0, 1e-9);
    ck_assert(teach_quiz_check(&p, TEACH_QUIZ_OVER_STRENGTHEN, &x[ANS], true, false) &
              TEACH_QUIZ_FAIL_SCORE_LOSS);
    /* without the search, the loss is not judged */
    ck_assert(!(teach_quiz_check(&p, TEACH_QUIZ_OVER_STRENGTHEN, &x[ANS], false, false) &
                TEACH_QUIZ_FAIL_SCORE_LOSS));
    /* big point: density 0 (tengen: the stars are 18 away) passes, C6 (5 from D4) fails; the
     * distance to the answer >= 8: K10 (18 from R6) passes, R8 (4) fails */
    ck_assert_double_eq(x[K10].density, 0);
    ck_assert_double_eq_tol(x[C6].density, 1.0 / 42, 1e-12);   /* third line: 42 points */
    ck_assert_int_eq(x[K10].dist_ref, 7 + 4 + 7);
    ck_assert_int_eq(x[R8].dist_ref, 0 + 2 + 2);
    fail = teach_quiz_check(&p, TEACH_QUIZ_BIG_POINT, &x[K10], false, false);
    ck_assert(!(fail & (TEACH_QUIZ_FAIL_DENSITY | TEACH_QUIZ_FAIL_FAR)));
    ck_assert(teach_quiz_check(&p, TEACH_QUIZ_BIG_POINT, &x[C6], false, false) &
              TEACH_QUIZ_FAIL_DENSITY);
    ck_assert(teach_quiz_check(&p, TEACH_QUIZ_BIG_POINT, &x[R8], false, false) &
              TEACH_QUIZ_FAIL_FAR);
    /* near: R8 within 8 passes, K10 fails */
    ck_assert(!(teach_quiz_check(&p, TEACH_QUIZ_NEAR, &x[R8], false, false) &
                TEACH_QUIZ_FAIL_NEAR));
    ck_assert(teach_quiz_check(&p, TEACH_QUIZ_NEAR, &x[K10], false, false) &
              TEACH_QUIZ_FAIL_NEAR);
    /* near, Prior_StrongHuman >= 0.01 (one network: the main policy); the policy's favourite
     * passes, A1 fails; under the one-network bound 1e-4 a move between the two passes */
    ck_assert(!(teach_quiz_check(&p, TEACH_QUIZ_NEAR, &x[TOP], false, false) &
                TEACH_QUIZ_FAIL_HUMAN_PRIOR));
    ck_assert(teach_quiz_check(&p, TEACH_QUIZ_NEAR, &x[A1], false, false) &
              TEACH_QUIZ_FAIL_HUMAN_PRIOR);
    teach_move_features y = x[A1];
    y.prior_human = 5e-4;
    ck_assert(teach_quiz_check(&p, TEACH_QUIZ_NEAR, &y, false, false) &
              TEACH_QUIZ_FAIL_HUMAN_PRIOR);
    ck_assert(!(teach_quiz_check(&p, TEACH_QUIZ_NEAR, &y, false, true) &
                TEACH_QUIZ_FAIL_HUMAN_PRIOR));
    /* near, score loss >= 1: A1 passes, the answer fails; a NAN loss fails */
    ck_assert(!(teach_quiz_check(&p, TEACH_QUIZ_NEAR, &x[A1], true, false) &
                TEACH_QUIZ_FAIL_NEAR_LOSS));
    ck_assert(teach_quiz_check(&p, TEACH_QUIZ_NEAR, &x[ANS], true, false) &
              TEACH_QUIZ_FAIL_NEAR_LOSS);
    y.score_loss = NAN;
    ck_assert(teach_quiz_check(&p, TEACH_QUIZ_NEAR, &y, true, false) &
              TEACH_QUIZ_FAIL_NEAR_LOSS);
    go_game_free(&g);

    /* over-strengthening: black's E5 in atari; E4 saves it (strengthening >= 0.1), J1 does
     * not */
    test_game_from(&g, 9,
                   ". . . . . . . . ."
                   ". . . . . . . . ."
                   ". . O . . . X . ."
                   ". . . . O . . . ."
                   ". . . O X O . . ."
                   ". . . . . . . . ."
                   ". . X . X . X . ."
                   ". . . . . . . . ."
                   ". . . . . . . . .",
                   GO_BLACK, "japanese", 6.5f);
    static const char *const mv9[2] = {"E4", "J1"};
    teach_move_features z[2];
    features_of(f, &g, "E4", mv9, 2, z);
    ck_assert(!(teach_quiz_check(&p, TEACH_QUIZ_OVER_STRENGTHEN, &z[0], true, false) &
                TEACH_QUIZ_FAIL_STRENGTHEN));
    ck_assert(teach_quiz_check(&p, TEACH_QUIZ_OVER_STRENGTHEN, &z[1], true, false) &
              TEACH_QUIZ_FAIL_STRENGTHEN);
    /* the kinds do not test each other's conditions */
    ck_assert(!(teach_quiz_check(&p, TEACH_QUIZ_BIG_POINT, &z[1], true, false) &
                TEACH_QUIZ_FAIL_STRENGTHEN));
    ck_assert(!(teach_quiz_check(&p, TEACH_QUIZ_OVER_STRENGTHEN, &x[C6], false, false) &
                (TEACH_QUIZ_FAIL_DENSITY | TEACH_QUIZ_FAIL_NEAR)));
    go_game_free(&g);
    teach_features_free(f);
    teach_engine_free(e);
}
END_TEST

/* ---- quizzes ----------------------------------------------------------------------------- */

/* Checks what every quiz must hold; returns the answer's choice. */
static const teach_quiz_choice *check_quiz(const teach_quiz *q, const teach_quiz_params *p)
{
    const teach_quiz_choice *ans = NULL;
    char v[8];
    ck_assert_int_ge(q->num_choices, 1);
    ck_assert_int_le(q->num_choices, TEACH_QUIZ_MAX_CHOICES);
    for (int i = 0; i < q->num_choices; i++) {
        const teach_quiz_choice *c = &q->choices[i];
        ck_assert_int_eq(c->label, 'A' + i);
        ck_assert_ptr_nonnull(strstr(c->explain_en, go_point_to_gtp(q->size, c->f.move, v)));
        ck_assert_ptr_nonnull(strstr(c->explain_ja, v));
        if (c->kind == TEACH_QUIZ_ANSWER) {
            ck_assert_ptr_null(ans);
            ans = c;
            ck_assert_int_eq(i, q->answer_index);
            ck_assert_int_eq(c->f.move, q->answer);
            ck_assert_ptr_nonnull(strstr(c->explain_en, "Correct"));
            continue;
        }
        /* every condition of its kind holds on the deep search's features */
        ck_assert_uint_eq(teach_quiz_check(p, c->kind, &c->f, true, q->one_net), 0);
        ck_assert(c->deep_score_loss >= p->deep_margin);
        ck_assert_double_eq_tol(c->deep_score_loss, c->f.score_loss, 1e-9);
        ck_assert(c->difficulty_visits != 0);
        ck_assert_ptr_eq(teach_quiz_find(q, c->kind), c);
        for (int j = 0; j < i; j++)
            ck_assert_int_ne(q->choices[j].f.move, c->f.move);
    }
    ck_assert_ptr_nonnull(ans);
    for (int k = 0; k < TEACH_QUIZ_KINDS; k++)
        ck_assert((teach_quiz_find(q, (teach_quiz_kind)k) != NULL) ==
                  (q->missing[k] == TEACH_QUIZ_FOUND));
    ck_assert_ptr_nonnull(q->grade);
    ck_assert_ptr_nonnull(strstr(q->question_en, q->to_move == GO_WHITE ? "White" : "Black"));
    ck_assert_ptr_nonnull(strstr(q->question_ja, q->to_move == GO_WHITE ? "白" : "黒"));
    return ans;
}

START_TEST(test_make_quiz)
{
    teach_engine *e = engine_g170();
    char err[512];
    teach_features *f = teach_features_new(e, 1, err, sizeof err);
    ck_assert_msg(f != NULL, "%s", err);
    teach_quiz_params p = quick_params();
    ck_assert(teach_features_set_policy_symmetries(f, 1));
    ck_assert(!teach_features_set_policy_symmetries(f, 3));
    go_game g;
    test_game_from(&g, 19, four_stars, GO_BLACK, "japanese", 6.5f);
    teach_quiz *q = malloc(sizeof *q);
    ck_assert_msg(teach_quiz_make(f, &p, &g, test_point(19, "R6"), q, err, sizeof err), "%s",
                  err);
    check_quiz(q, &p);
    ck_assert(q->one_net);
    ck_assert_msg(teach_quiz_usable(q), "no wrong answer found");
    ck_assert_int_gt(q->searched, 0);
    /* the same position gives the same quiz */
    teach_quiz *q2 = malloc(sizeof *q2);
    ck_assert(teach_quiz_make(f, &p, &g, test_point(19, "R6"), q2, err, sizeof err));
    ck_assert_int_eq(q2->num_choices, q->num_choices);
    for (int i = 0; i < q->num_choices; i++) {
        ck_assert_int_eq(q2->choices[i].f.move, q->choices[i].f.move);
        ck_assert_double_eq(q2->choices[i].deep_score_lead, q->choices[i].deep_score_lead);
        ck_assert_str_eq(q2->choices[i].explain_en, q->choices[i].explain_en);
    }
    /* the engine's best move as the answer */
    ck_assert(teach_quiz_make(f, &p, &g, GO_NO_POINT, q2, err, sizeof err));
    check_quiz(q2, &p);
    /* bad answers are refused by name */
    ck_assert(!teach_quiz_make(f, &p, &g, test_point(19, "D4"), q2, err, sizeof err));
    ck_assert_msg(strstr(err, "suggested move D4") && strstr(err, "occupied"), "%s", err);
    ck_assert(!teach_quiz_make(f, &p, &g, GO_PASS, q2, err, sizeof err));
    ck_assert_msg(strstr(err, "pass"), "%s", err);
    free(q2);

    /* the SGF, parsed back */
    go_sgf_collection *c = teach_quiz_sgf(q, &g, "quiz", "Black player", "White player");
    ck_assert_ptr_nonnull(c);
    char *text = go_sgf_write(c);
    go_sgf_free(c);
    ck_assert_ptr_nonnull(text);
    c = go_sgf_parse(text, strlen(text), err, sizeof err);
    ck_assert_msg(c != NULL, "%s", err);
    ck_assert_int_eq(c->num_games, 1);
    const go_sgf_node *root = c->games[0], *n = root;
    ck_assert_str_eq(go_sgf_get(root, "GN"), "quiz");
    ck_assert_str_eq(go_sgf_get(root, "PB"), "Black player");
    /* setup-only position: the labels and the question are on the root */
    const go_sgf_prop *lb = NULL;
    for (int i = 0; i < n->num_props; i++)
        if (!strcmp(n->props[i].ident, "LB"))
            lb = &n->props[i];
    ck_assert_ptr_nonnull(lb);
    ck_assert_int_eq(lb->num_values, q->num_choices);
    char pt[3], want[8];
    for (int i = 0; i < q->num_choices; i++) {
        snprintf(want, sizeof want, "%s:%c", go_sgf_point_text(q->choices[i].f.move, pt),
                 'A' + i);
        ck_assert_str_eq(lb->values[i], want);
    }
    ck_assert_ptr_nonnull(strstr(go_sgf_get(n, "C"), q->question_en));
    ck_assert_ptr_nonnull(strstr(go_sgf_get(n, "C"), q->question_ja));
    ck_assert_int_eq(n->num_children, q->num_choices);
    const teach_quiz_choice *ans = &q->choices[q->answer_index];
    const go_sgf_node *first = n->children[0];
    ck_assert_str_eq(go_sgf_get(first, "B"), go_sgf_point_text(ans->f.move, pt));
    ck_assert_ptr_nonnull(go_sgf_get(first, "TE"));
    ck_assert_ptr_nonnull(strstr(go_sgf_get(first, "C"), "Correct"));
    ck_assert_ptr_nonnull(strstr(go_sgf_get(first, "C"), ans->explain_en));
    ck_assert_ptr_nonnull(strstr(go_sgf_get(first, "C"), ans->explain_ja));
    for (int k = 1; k < n->num_children; k++) {
        const go_sgf_node *ch = n->children[k];
        const char *comment = go_sgf_get(ch, "C");
        ck_assert_ptr_nonnull(go_sgf_get(ch, "BM"));
        ck_assert_ptr_nonnull(strstr(comment, "Wrong ("));
        bool matched = false;
        for (int i = 0; i < q->num_choices; i++)
            if (!strcmp(go_sgf_get(ch, "B"), go_sgf_point_text(q->choices[i].f.move, pt)))
                matched = strstr(comment, q->choices[i].explain_en) &&
                          strstr(comment, q->choices[i].explain_ja) &&
                          strstr(comment, teach_quiz_kind_name(q->choices[i].kind));
        ck_assert(matched);
    }
    /* the main line ends with the answer */
    go_game back;
    ck_assert_msg(go_sgf_to_game(root, -1, &back, err, sizeof err), "%s", err);
    ck_assert_int_eq(back.num_moves, 1);
    ck_assert_int_eq(back.moves[0].point, ans->f.move);
    go_game_free(&back);
    go_sgf_free(c);
    free(text);
    free(q);
    go_game_free(&g);
    teach_features_free(f);
    teach_engine_free(e);
}
END_TEST

START_TEST(test_symmetric_choices)
{
    teach_engine *e = engine_g170();
    char err[512];
    teach_features *f = teach_features_new(e, 1, err, sizeof err);
    ck_assert_msg(f != NULL, "%s", err);
    teach_quiz_params p = quick_params();
    go_game g;
    test_game_from(&g, 19, NULL, GO_BLACK, "japanese", 6.5f);
    /* the answer: the empty board's most likely move below the Prior_KataGo bound, so that its
     * symmetric copies (the same prior) head the one-network pool */
    ck_assert(teach_features_set_position(f, &g, err, sizeof err));
    int top[361], n = teach_features_top_moves(f, false, 361, top), answer = GO_NO_POINT;
    for (int i = 0; i < n && answer == GO_NO_POINT; i++)
        if (teach_features_prior(f, top[i], false) < p.max_prior_katago)
            answer = top[i];
    ck_assert_int_ne(answer, GO_NO_POINT);
    teach_quiz *q = malloc(sizeof *q);
    ck_assert_msg(teach_quiz_make(f, &p, &g, answer, q, err, sizeof err), "%s", err);
    check_quiz(q, &p);
    /* the empty board has every symmetry: no choice is a copy of another, and the answer's
     * copies were passed over */
    for (int i = 0; i < q->num_choices; i++)
        for (int j = 0; j < i; j++)
            ck_assert(!teach_symmetric_copies(19, 0xfe, q->choices[i].f.move,
                                              q->choices[j].f.move));
    ck_assert_int_gt(q->dropped_symmetric, 0);
    /* without the filter nothing is passed over */
    p.drop_symmetric = false;
    ck_assert(teach_quiz_make(f, &p, &g, answer, q, err, sizeof err));
    ck_assert_int_eq(q->dropped_symmetric, 0);
    /* an ordinary answer on the empty board */
    p.drop_symmetric = true;
    ck_assert(teach_quiz_make(f, &p, &g, test_point(19, "Q16"), q, err, sizeof err));
    check_quiz(q, &p);
    for (int i = 0; i < q->num_choices; i++)
        for (int j = 0; j < i; j++)
            ck_assert(!teach_symmetric_copies(19, 0xfe, q->choices[i].f.move,
                                              q->choices[j].f.move));
    free(q);
    go_game_free(&g);
    teach_features_free(f);
    teach_engine_free(e);
}
END_TEST

START_TEST(test_explanations)
{
    teach_move_features ans = {0}, d = {0};
    ans.move = test_point(19, "C10");
    ans.density = 0.1;
    ans.strengthen_own = 0.15;
    ans.weaken_opp = 0.12;
    d.move = test_point(19, "K3");
    d.score_loss = 2.5;
    d.strengthen_own = 0.01;
    d.weaken_opp = 0;
    char buf[TEACH_QUIZ_TEXT];
    teach_explain_choice(TEACH_QUIZ_BIG_POINT, &d, &ans, 2.5, 19, 0.05, TEACH_LANG_EN, buf,
                         sizeof buf);
    ck_assert_str_eq(buf, "K3 is a big point, but the urgent point C10 is worth 2.5 points "
                          "more: it settles both groups' bases.");
    teach_explain_choice(TEACH_QUIZ_BIG_POINT, &d, &ans, 2.5, 19, 0.05, TEACH_LANG_JA, buf,
                         sizeof buf);
    ck_assert_str_eq(buf, "K3は大場ですが、急場のC10のほうが2.5目大きい。C10は双方の根拠に関わる急場です。");
    d.strengthen_own = 0.14;
    teach_explain_choice(TEACH_QUIZ_OVER_STRENGTHEN, &d, &ans, 2.5, 19, 0.05, TEACH_LANG_EN,
                         buf, sizeof buf);
    ck_assert_str_eq(buf, "K3 defends stones that were not threatened (own stones +0.14); C10 "
                          "settles both groups' bases and is worth 2.5 points more.");
    ans.weaken_opp = 0.01;
    teach_explain_choice(TEACH_QUIZ_ANSWER, &ans, &ans, 6.1, 19, 0.05, TEACH_LANG_EN, buf,
                         sizeof buf);
    ck_assert_str_eq(buf, "Correct: C10 strengthens its own stones where it matters; the other "
                          "choices lose up to 6.1 points.");
    /* a review's mistake: a big point (density 0) while the best move is urgent */
    d.density = 0;
    d.strengthen_own = 0.01;
    d.dist_last = 20;
    ans.dist_last = 3;
    teach_explain_mistake(&d, &ans, 4.0, 19, 0.05, TEACH_LANG_EN, buf, sizeof buf);
    ck_assert_str_eq(buf, "A big point, but the urgent point C10 was worth 4.0 points more: it "
                          "strengthens its own stones where it matters.");
    d.density = 0.2;
    teach_explain_mistake(&d, &ans, 4.0, 19, 0.05, TEACH_LANG_EN, buf, sizeof buf);
    ck_assert_str_eq(buf, "Leaves the fight of the last move: answering at C10 was urgent (4.0 "
                          "points).");
    d.strengthen_own = 0.2;
    teach_explain_mistake(&d, &ans, 4.0, 19, 0.05, TEACH_LANG_JA, buf, sizeof buf);
    ck_assert_str_eq(buf, "まだ守らなくてよい石を守っています。C10のほうが4.0目良く、自分の石を強化する急場です。");
}
END_TEST

/* ---- the command --------------------------------------------------------------------------- */

static char *run(const char *const *args, int *code, char **err)
{
    int status;
    char *out = pipe_run(args, "/dev/null", NULL, err, &status);
    ck_assert(WIFEXITED(status));
    *code = WEXITSTATUS(status);
    return out;
}

/* Runs fuseki-quiz on the Meijin game, moves 20-22, quick settings, with extra options
 * (NULL-terminated); returns the exit status. */
static int quiz_run(const char *dir, const char *jsonl, const char *const *extra, char **err)
{
    const char *args[32] = {"fuseki-quiz", TEST_MEIJIN, "--moves", "20-22", "-w", TEST_G170,
                            "--quiz", "deep_visits=4", "--quiz", "candidates=15",
                            "--policy-symmetries", "1", "--out-dir", dir, "--jsonl", jsonl};
    int n = 16;
    for (int i = 0; extra && extra[i]; i++)
        args[n++] = extra[i];
    args[n] = NULL;
    int code;
    free(run(args, &code, err));
    return code;
}

START_TEST(test_quiz_command)
{
    char dir[] = "/tmp/shido-test-quiz-XXXXXX", path[512], jl[512], j1[512], j2[512], jm[512];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(jl, sizeof jl, "%s/all.jsonl", dir);
    snprintf(j1, sizeof j1, "%s/s1.jsonl", dir);
    snprintf(j2, sizeof j2, "%s/s2.jsonl", dir);
    snprintf(jm, sizeof jm, "%s/merged.jsonl", dir);
    char *err;
    static const char *const two[] = {"--threads", "2", NULL};
    ck_assert_msg(quiz_run(dir, jl, two, &err) == 0, "%s", err);
    ck_assert_ptr_nonnull(strstr(err, "3 positions"));
    free(err);
    /* every record parses; every usable quiz has its SGF, whose labels are the choices */
    char *all = test_read_file(jl, NULL);
    int records = 0;
    for (char *line = all, *next; *line; line = next) {
        next = strchr(line, '\n');
        ck_assert_ptr_nonnull(next);
        *next++ = 0;
        cJSON *o = cJSON_Parse(line);
        ck_assert_msg(o != NULL, "%s", line);
        ck_assert_double_eq(test_json_num(o, "index"), records);
        ck_assert_double_eq(test_json_num(o, "moveNumber"), 20 + records);
        const cJSON *sgf = cJSON_GetObjectItemCaseSensitive(o, "sgf");
        const cJSON *choices = cJSON_GetObjectItemCaseSensitive(o, "choices");
        if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "usable"))) {
            ck_assert(cJSON_IsString(sgf));
            snprintf(path, sizeof path, "%s/%s", dir, sgf->valuestring);
            char why[256];
            go_sgf_collection *c = go_sgf_read_file(path, why, sizeof why);
            ck_assert_msg(c != NULL, "%s", why);
            const go_sgf_node *n = c->games[0];
            while (n->num_children == 1)
                n = n->children[0];
            ck_assert_int_eq(n->num_children, cJSON_GetArraySize(choices));
            int k = 0;
            const cJSON *ch;
            cJSON_ArrayForEach(ch, choices)
            {
                const cJSON *ft = cJSON_GetObjectItemCaseSensitive(ch, "features");
                const char *mv = cJSON_GetObjectItemCaseSensitive(ft, "move")->valuestring;
                char pt[3], want[8];
                snprintf(want, sizeof want, "%s:%c",
                         go_sgf_point_text(go_point_from_gtp(19, mv), pt), 'A' + k);
                bool found = false;
                for (int i = 0; i < n->num_props; i++)
                    if (!strcmp(n->props[i].ident, "LB"))
                        for (int v = 0; v < n->props[i].num_values; v++)
                            found |= !strcmp(n->props[i].values[v], want);
                ck_assert_msg(found, "label %s", want);
                k++;
            }
            go_sgf_free(c);
        }
        cJSON_Delete(o);
        records++;
    }
    ck_assert_int_eq(records, 3);
    /* shards on one thread each, merged: the same records as the run on two threads */
    static const char *const s1[] = {"--shard", "1/2", NULL}, *const s2[] = {"--shard", "2/2",
                                                                            NULL};
    ck_assert_msg(quiz_run(dir, j1, s1, &err) == 0, "%s", err);
    free(err);
    ck_assert_msg(quiz_run(dir, j2, s2, &err) == 0, "%s", err);
    free(err);
    const char *margs[] = {"fuseki-quiz", "merge", j2, j1, "--out", jm, NULL};
    int code;
    free(run(margs, &code, &err));
    ck_assert_msg(code == 0, "%s", err);
    free(err);
    char *merged = test_read_file(jm, NULL);
    char *again = test_read_file(jl, NULL);
    ck_assert_str_eq(merged, again);
    free(merged);
    free(again);
    free(all);
    const char *sargs[] = {"fuseki-quiz", "stats", jl, NULL};
    char *out = run(sargs, &code, &err);
    ck_assert_msg(code == 0 && strstr(out, "positions 3 (errors 0)"), "%s%s", out, err);
    ck_assert_ptr_nonnull(strstr(out, "| big point |"));
    free(out);
    free(err);

    /* bad input: each error names what is wrong */
    static const struct {
        const char *extra[6];
        const char *want;
    } bad[] = {
        {{"--answer", "Z99", NULL}, "no such move 'Z99'"},
        {{"--answer", "R16", NULL}, "suggested move R16: illegal move: point occupied"},
        {{"--moves", "400-410", NULL}, "no positions: moves 400-410"},
        {{"--shard", "3/2", NULL}, "--shard 3/2"},
        {{"--quiz", "visits=abc", NULL}, "visits"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        code = quiz_run(dir, jl, bad[i].extra, &err);
        ck_assert_msg(code != 0 && strstr(err, bad[i].want), "case %zu: %d %s", i, code, err);
        free(err);
    }
    const char *nofile[] = {"fuseki-quiz", "/nonexistent.sgf", "-w", TEST_G170, NULL};
    free(run(nofile, &code, &err));
    ck_assert_msg(code == 1 && strstr(err, "/nonexistent.sgf"), "%s", err);
    free(err);
    /* clean up */
    DIR *d = opendir(dir);
    struct dirent *ent;
    while ((ent = readdir(d)))
        if (ent->d_name[0] != '.') {
            snprintf(path, sizeof path, "%s/%s", dir, ent->d_name);
            unlink(path);
        }
    closedir(d);
    rmdir(dir);
}
END_TEST

Suite *fuseki_quiz_suite(void)
{
    Suite *s = suite_create("fuseki_quiz");
    TCase *t = tcase_create("quiz");
    tcase_set_timeout(t, 600);
    tcase_add_test(t, test_params);
    tcase_add_test(t, test_explanations);
    tcase_add_test(t, test_conditions);
    tcase_add_test(t, test_make_quiz);
    tcase_add_test(t, test_symmetric_choices);
    tcase_add_test(t, test_quiz_command);
    suite_add_tcase(s, t);
    return s;
}

int main(void) { return test_run_suite(fuseki_quiz_suite()); }
