/* tests/test_tsumego_gen.c -- the tsumego generators (teach/tsumego_gen.h): each retrograde
 * removal rule and each concept step on hand-made diagrams, the strictness check, the static
 * pruning, the canonical key, that every emitted problem re-solves to its recorded answer, and
 * `shido tsumego-gen` (shards merged equal one run, a second run resumes). Solver limits are
 * small so that the suite stays cheap. Diagrams are 9x9 with the problem in the top-left corner
 * ('X' black, 'O' white). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "go/bouzy.h"
#include "go/sgf.h"
#include "go/tsumego.h"
#include "teach/engine.h"
#include "teach/tsumego_gen.h"

#include "tests/common.h"
#include "tests/shido_pipe.h"

static const teach_tsgen_limits LIM = {.max_nodes = 200000, .time_s = 5, .tt_log2 = 16};

/* Black to kill: the vital point of straight three (B9). */
static const char *STRAIGHT_THREE = ". . . O X . . . ."
                                    "O O O O X . . . ."
                                    "X X X X X . . . ."
                                    ". . . . . . . . ."
                                    ". . . . . . . . ."
                                    ". . . . . . . . ."
                                    ". . . . . . . . ."
                                    ". . . . . . . . ."
                                    ". . . . . . . . .";

static go_board pic(const char *p, go_color to_move)
{
    go_board b;
    test_board_from(&b, 9, p);
    b.to_move = to_move;
    return b;
}

static bool has_removal(const teach_retro_removal *r, int n, teach_retro_rule rule, int a, int b)
{
    for (int i = 0; i < n; i++) {
        if (r[i].rule != rule)
            continue;
        if (b < 0 && r[i].n == 1 && r[i].points[0] == a)
            return true;
        if (b >= 0 && r[i].n == 2 &&
            ((r[i].points[0] == a && r[i].points[1] == b) ||
             (r[i].points[0] == b && r[i].points[1] == a)))
            return true;
    }
    return false;
}

/* ---- retrograde removal rules ------------------------------------------------------------- */

START_TEST(retro_connected_stones)
{
    /* a straight chain: its ends go without splitting it, its middle stones do not */
    go_board b = pic(". . . . . . . . ."
                     ". X X X X . . . ."
                     ". . . . . . . . ."
                     ". . . . . . . . ."
                     ". . . . . . . . ."
                     ". . . . . . . . ."
                     ". . . . . . . . ."
                     ". . . . . . . . ."
                     ". . . . . . . . .", GO_BLACK);
    teach_retro_removal r[TEACH_RETRO_MAX_REMOVALS];
    int n = teach_retro_removals(&b, NULL, 0, r, TEACH_RETRO_MAX_REMOVALS);
    ck_assert(has_removal(r, n, TEACH_RETRO_CONNECTED, test_point(9, "B8"), -1));
    ck_assert(has_removal(r, n, TEACH_RETRO_CONNECTED, test_point(9, "E8"), -1));
    ck_assert(!has_removal(r, n, TEACH_RETRO_CONNECTED, test_point(9, "C8"), -1));
    ck_assert(has_removal(r, n, TEACH_RETRO_CONNECTING, test_point(9, "C8"), -1));
    ck_assert(has_removal(r, n, TEACH_RETRO_CONNECTING, test_point(9, "D8"), -1));
    ck_assert_int_eq(n, 4);
    /* removing a stone leaves a sound board without it */
    go_board out;
    for (int i = 0; i < n; i++)
        if (r[i].points[0] == test_point(9, "C8"))
            teach_retro_apply(&b, &r[i], &out);
    test_assert_sound(&out);
    ck_assert_int_eq(out.color[test_point(9, "C8")], GO_EMPTY);
    ck_assert_int_eq(out.color[test_point(9, "B8")], GO_BLACK);
    ck_assert_int_eq(go_board_chain_size(&out, test_point(9, "D8")), 2);
    ck_assert_int_eq(out.to_move, GO_BLACK);
}
END_TEST

START_TEST(retro_connecting_diagonal)
{
    /* C7 alone links the chains B8-A8 and D6-D5 diagonally; B8's chain is two stones */
    go_board b = pic(". . . . . . . . ."
                     "X X . . . . . . ."
                     ". . X . . . . . ."
                     ". . . X . . . . ."
                     ". . . X . . . . ."
                     ". . . . . . . . ."
                     ". . . . . . . . ."
                     ". . . . . . . . ."
                     ". . . . . . . . .", GO_BLACK);
    teach_retro_removal r[TEACH_RETRO_MAX_REMOVALS];
    int n = teach_retro_removals(&b, NULL, 0, r, TEACH_RETRO_MAX_REMOVALS);
    ck_assert(has_removal(r, n, TEACH_RETRO_CONNECTING, test_point(9, "C7"), -1));
    ck_assert(!has_removal(r, n, TEACH_RETRO_CONNECTED, test_point(9, "C7"), -1));
    ck_assert(has_removal(r, n, TEACH_RETRO_CONNECTED, test_point(9, "A8"), -1));
}
END_TEST

START_TEST(retro_forced_exchanges)
{
    /* White's peep at C7 against Black's connecting stone C8 (B8-C8-D8), and the line's own
     * exchange F5 / F4 */
    go_board b = pic(". . . . . . . . ."
                     ". X X X . . . . ."
                     ". . O . . . . . ."
                     ". . . . . . . . ."
                     ". . . . . X . . ."
                     ". . . . . O . . ."
                     ". . . . . . . . ."
                     ". . . . . . . . ."
                     ". . . . . . . . .", GO_BLACK);
    int played[1][2] = {{test_point(9, "F5"), test_point(9, "F4")}};
    teach_retro_removal r[TEACH_RETRO_MAX_REMOVALS];
    int n = teach_retro_removals(&b, (const int(*)[2])played, 1, r, TEACH_RETRO_MAX_REMOVALS);
    ck_assert(has_removal(r, n, TEACH_RETRO_FORCED, test_point(9, "F5"), test_point(9, "F4")));
    ck_assert(has_removal(r, n, TEACH_RETRO_FORCED, test_point(9, "C7"), test_point(9, "C8")));
    /* the forced pairs come first */
    ck_assert_int_eq(r[0].rule, TEACH_RETRO_FORCED);
    go_board out;
    teach_retro_apply(&b, &r[0], &out);
    test_assert_sound(&out);
    ck_assert_int_eq(out.color[test_point(9, "F5")], GO_EMPTY);
    ck_assert_int_eq(out.color[test_point(9, "F4")], GO_EMPTY);
    /* without the peep there is no forced pair at C8 */
    go_board c = pic(". . . . . . . . ."
                     ". X X X . . . . ."
                     ". . . . . . . . ."
                     ". . . . . . . . ."
                     ". . . . . . . . ."
                     ". . . . . . . . ."
                     ". . . . . . . . ."
                     ". . . . . . . . ."
                     ". . . . . . . . .", GO_BLACK);
    n = teach_retro_removals(&c, NULL, 0, r, TEACH_RETRO_MAX_REMOVALS);
    for (int i = 0; i < n; i++)
        ck_assert_int_ne(r[i].rule, TEACH_RETRO_FORCED);
}
END_TEST

/* ---- strictness, pruning, key -------------------------------------------------------------- */

START_TEST(verify_strict_and_not)
{
    go_board b = pic(STRAIGHT_THREE, GO_BLACK);
    teach_tsgen_problem p;
    ck_assert_int_eq(teach_tsgen_verify(&b, GO_BLACK, GO_TSUMEGO_GOAL_KILL, &LIM, "note", &p),
                     TEACH_TSGEN_STRICT);
    ck_assert_int_eq(p.answer, test_point(9, "B9"));
    ck_assert_int_eq(p.line[0], p.answer);
    ck_assert_int_eq(p.goal, GO_TSUMEGO_GOAL_KILL);
    ck_assert_int_ge(p.difficulty, 1);
    ck_assert_int_le(p.difficulty, 9);
    ck_assert_ptr_nonnull(p.sgf);
    ck_assert_ptr_nonnull(strstr(p.sgf, "C[Black to kill."));
    ck_assert_ptr_nonnull(strstr(p.sgf, "note"));
    ck_assert_ptr_nonnull(strstr(p.sgf, "GB[1]"));
    ck_assert_ptr_nonnull(strstr(p.sgf, "C[Correct"));
    teach_tsgen_problem_free(&p);

    /* White to live there: B9 too, and the only move */
    ck_assert_int_eq(teach_tsgen_verify(&b, GO_WHITE, GO_TSUMEGO_GOAL_LIVE, &LIM, NULL, &p),
                     TEACH_TSGEN_STRICT);
    ck_assert_int_eq(p.answer, test_point(9, "B9"));
    ck_assert_ptr_nonnull(strstr(p.sgf, "GW[1]"));
    teach_tsgen_problem_free(&p);

    /* four points in a row: alive whoever moves (the solver: no killing move) */
    go_board four = pic(". . . . O X . . ."
                        "O O O O O X . . ."
                        "X X X X X X . . ."
                        ". . . . . . . . ."
                        ". . . . . . . . ."
                        ". . . . . . . . ."
                        ". . . . . . . . ."
                        ". . . . . . . . ."
                        ". . . . . . . . .", GO_BLACK);
    teach_tsgen_limits nop = LIM;
    nop.no_static_prune = true;
    teach_tsgen_verdict v = teach_tsgen_verify(&four, GO_BLACK, GO_TSUMEGO_GOAL_KILL, &nop,
                                               NULL, &p);
    ck_assert_msg(v == TEACH_TSGEN_FAILS || v == TEACH_TSGEN_REFUSED, "verdict %s",
                  teach_tsgen_verdict_name(v));
    ck_assert_ptr_null(p.sgf);
    /* and White, alive already, needs no move there */
    v = teach_tsgen_verify(&four, GO_WHITE, GO_TSUMEGO_GOAL_LIVE, &nop, NULL, &p);
    ck_assert_msg(v == TEACH_TSGEN_NO_MOVE_NEEDED || v == TEACH_TSGEN_NOT_UNIQUE ||
                      v == TEACH_TSGEN_REFUSED, "verdict %s", teach_tsgen_verdict_name(v));

    /* a two-point eye space and an open side: Black kills with either of two moves? White
     * lives by extending; the answer must be unique or the verdict says so */
    go_board two = pic(". . O X . . . . ."
                       "O O O X . . . . ."
                       "X X X X . . . . ."
                       ". . . . . . . . ."
                       ". . . . . . . . ."
                       ". . . . . . . . ."
                       ". . . . . . . . ."
                       ". . . . . . . . ."
                       ". . . . . . . . .", GO_WHITE);
    v = teach_tsgen_verify(&two, GO_WHITE, GO_TSUMEGO_GOAL_LIVE, &nop, NULL, &p);
    ck_assert_msg(v != TEACH_TSGEN_STRICT, "a dead two-point space is no problem: %s",
                  teach_tsgen_verdict_name(v));
}
END_TEST

START_TEST(verify_line_uniqueness)
{
    /* Black to kill bulky five: the line's later moves are checked when asked */
    go_board b = pic(". . . O X . . . ."
                     ". . . O X . . . ."
                     "O O O O X . . . ."
                     "X X X X X . . . ."
                     ". . . . . . . . ."
                     ". . . . . . . . ."
                     ". . . . . . . . ."
                     ". . . . . . . . ."
                     ". . . . . . . . .", GO_BLACK);
    teach_tsgen_limits none = LIM, one = LIM;
    none.line_checks = -1;
    one.line_checks = 1;
    teach_tsgen_problem p;
    ck_assert_int_eq(teach_tsgen_verify(&b, GO_BLACK, GO_TSUMEGO_GOAL_KILL, &none, NULL, &p),
                     TEACH_TSGEN_STRICT);
    ck_assert_int_eq(p.answer, test_point(9, "B8"));
    ck_assert_int_ge(p.line_len, 3);
    teach_tsgen_problem_free(&p);
    /* after B8 and White's reply Black has more than one way to finish */
    ck_assert_int_eq(teach_tsgen_verify(&b, GO_BLACK, GO_TSUMEGO_GOAL_KILL, &one, NULL, &p),
                     TEACH_TSGEN_LINE_NOT_UNIQUE);
}
END_TEST

START_TEST(difficulty_scale)
{
    ck_assert_int_eq(teach_tsgen_difficulty(215, 1), 1);
    ck_assert_int_eq(teach_tsgen_difficulty(5000, 3), 4);
    ck_assert_int_eq(teach_tsgen_difficulty(100000, 6), 6);
    ck_assert_int_eq(teach_tsgen_difficulty(0, 0), 1);
    ck_assert_int_eq(teach_tsgen_difficulty(UINT64_C(1) << 40, 30), 9);
    /* harder with more nodes or a longer line */
    ck_assert_int_gt(teach_tsgen_difficulty(100000, 3), teach_tsgen_difficulty(1000, 3));
    ck_assert_int_gt(teach_tsgen_difficulty(5000, 7), teach_tsgen_difficulty(5000, 1));
}
END_TEST

START_TEST(policy_rank_of_the_answer)
{
    go_board b = pic(STRAIGHT_THREE, GO_BLACK);
    teach_tsgen_problem p;
    ck_assert_int_eq(teach_tsgen_verify(&b, GO_BLACK, GO_TSUMEGO_GOAL_KILL, &LIM, NULL, &p),
                     TEACH_TSGEN_STRICT);
    teach_options o;
    teach_options_init(&o);
    o.num_weights = 1;
    o.weights[0] = TEST_G170;
    snprintf(o.backend, sizeof o.backend, "cpu");
    char err[512];
    teach_engine *e = teach_engine_new(&o, err, sizeof err);
    ck_assert_msg(e != NULL, "%s", err);
    int rank = 0;
    ck_assert_msg(teach_tsgen_policy_rank(e, 0, &p, &rank, err, sizeof err), "%s", err);
    /* the vital point of straight three is the net's first or second choice in a region of
     * three empty points and the stones' liberties */
    ck_assert_int_ge(rank, 1);
    ck_assert_int_le(rank, 2);
    /* a problem that cannot be set up is an error, not a rank */
    teach_tsgen_problem empty = p;
    go_board_init(&empty.board, 9);
    ck_assert(!teach_tsgen_policy_rank(e, 0, &empty, &rank, err, sizeof err));
    teach_engine_free(e);
    teach_tsgen_problem_free(&p);
}
END_TEST

START_TEST(static_pruning)
{
    /* two eyes around one chain (not pass-alive: D9 touches no white stone): settled */
    go_board alive = pic(". O . . . O X . ."
                         "O O . . . O X . ."
                         "O O O O O O X . ."
                         "X X X X X X X . ."
                         ". . . . . . . . ."
                         ". . . . . . . . ."
                         ". . . . . . . . ."
                         ". . . . . . . . ."
                         ". . . . . . . . .", GO_BLACK);
    ck_assert(teach_tsgen_static_settled(&alive, GO_WHITE));
    /* straight three: alive if White moves first, dead if Black does: not settled */
    go_board three = pic(STRAIGHT_THREE, GO_BLACK);
    ck_assert(!teach_tsgen_static_settled(&three, GO_WHITE));
    /* a second "eye" behind a cuttable diagonal (snapback shape): not counted */
    go_board snap = pic(". O . . O X . . ."
                        "O X O O O X . . ."
                        ". X X X X X . . ."
                        ". . . . . . . . ."
                        ". . . . . . . . ."
                        ". . . . . . . . ."
                        ". . . . . . . . ."
                        ". . . . . . . . ."
                        ". . . . . . . . .", GO_BLACK);
    ck_assert(!teach_tsgen_static_settled(&snap, GO_WHITE));
    /* a one-point space enclosed: dead whoever moves */
    go_board one = pic(". O X . . . . . ."
                       "O O X . . . . . ."
                       "X X X . . . . . ."
                       ". . . . . . . . ."
                       ". . . . . . . . ."
                       ". . . . . . . . ."
                       ". . . . . . . . ."
                       ". . . . . . . . ."
                       ". . . . . . . . .", GO_BLACK);
    ck_assert(teach_tsgen_static_settled(&one, GO_WHITE));
}
END_TEST

START_TEST(key_symmetry_and_colours)
{
    go_board b = pic(STRAIGHT_THREE, GO_BLACK);
    uint64_t k = teach_tsgen_key(&b, GO_BLACK);
    /* the mirror image in the top-right corner, colours swapped, White to play */
    go_board m;
    go_board_init(&m, 9);
    for (int y = 0; y < 9; y++)
        for (int x = 0; x < 9; x++) {
            go_color c = (go_color)b.color[go_point_at(x, y)];
            if (c == GO_BLACK || c == GO_WHITE)
                go_board_place(&m, go_point_at(8 - x, y), go_opponent(c));
        }
    ck_assert_uint_eq(teach_tsgen_key(&m, GO_WHITE), k);
    /* the other side to play, or a stone fewer, is another problem */
    ck_assert_uint_ne(teach_tsgen_key(&b, GO_WHITE), k);
    teach_retro_removal r = {TEACH_RETRO_CONNECTED, 1, {test_point(9, "A8"), -1}};
    go_board less;
    teach_retro_apply(&b, &r, &less);
    ck_assert_uint_ne(teach_tsgen_key(&less, GO_BLACK), k);
}
END_TEST

/* ---- generation: every problem re-solves ---------------------------------------------------- */

typedef struct collected {
    teach_tsgen_problem p[64];
    int n;
} collected;

static bool keep(void *ctx, teach_tsgen_problem *p, const char *how)
{
    collected *c = ctx;
    ck_assert_ptr_nonnull(how);
    if (c->n < 64) {
        c->p[c->n++] = *p;
        p->sgf = NULL;
    }
    return true;
}

/* Solves p again from its SGF's set-up: the recorded answer, unique, and the SGF's own marks. */
static void assert_resolves(const teach_tsgen_problem *p)
{
    char err[256];
    go_sgf_collection *col = go_sgf_parse(p->sgf, strlen(p->sgf), err, sizeof err);
    ck_assert_msg(col != NULL, "SGF: %s", err);
    go_game g;
    ck_assert(go_sgf_to_game(col->games[0], 0, &g, err, sizeof err));
    const char *c = go_sgf_get(col->games[0], "C");
    ck_assert_ptr_nonnull(c);
    ck_assert_int_eq(go_tsumego_goal_from_text(c), p->goal);
    go_tsumego_problem tp;
    ck_assert(go_tsumego_setup(&g.board, p->to_play, p->goal, &tp, err, sizeof err));
    go_tsumego_limits lim = {.max_nodes = 400000, .time_s = 10, .tt_log2 = 16};
    go_tsumego_solution s;
    ck_assert(go_tsumego_solve(&tp, &lim, &s));
    ck_assert_int_eq(s.status.result, GO_TSUMEGO_SUCCESS);
    ck_assert_int_eq(s.uniqueness, GO_TSUMEGO_UNIQUE);
    ck_assert_int_eq(s.best_move, p->answer);
    /* the correct branch in the SGF is the recorded answer */
    bool found = false;
    char pt[3];
    go_sgf_point_text(p->answer, pt);
    for (int i = 0; i < col->games[0]->num_children; i++) {
        const go_sgf_node *n = col->games[0]->children[i];
        const char *mv = go_sgf_get(n, p->to_play == GO_BLACK ? "B" : "W");
        const char *cm = go_sgf_get(n, "C");
        if (mv && !strcmp(mv, pt) && cm && !strncmp(cm, "Correct", 7))
            found = true;
        else
            ck_assert_msg(!cm || strncmp(cm, "Correct", 7), "a second correct branch %s", mv);
    }
    ck_assert(found);
    go_tsumego_solution_free(&s);
    go_game_free(&g);
    go_sgf_free(col);
}

START_TEST(retro_generate_resolves)
{
    /* bulky five: the line's positions and the stones around it give smaller problems */
    go_board b = pic(". . . O X . . . ."
                     ". . . O X . . . ."
                     "O O O O X . . . ."
                     "X X X X X . . . ."
                     ". . . . . . . . ."
                     ". . . . . . . . ."
                     ". . . . . . . . ."
                     ". . . . . . . . ."
                     ". . . . . . . . .", GO_BLACK);
    teach_retro_params pr = {.max_removals = 1, .max_candidates = 40, .limits = LIM};
    static collected c;
    c.n = 0;
    teach_tsgen_stats st;
    ck_assert(teach_retro_generate(&b, GO_BLACK, GO_TSUMEGO_GOAL_KILL, &pr, keep, &c, &st));
    ck_assert_int_ge(c.n, 1);
    ck_assert_int_le(st.candidates, 40);
    int total = 0, strict_by_rule = 0;
    for (int v = 0; v < TEACH_TSGEN_VERDICTS; v++)
        total += v == TEACH_TSGEN_DUPLICATE ? 0 : st.verdicts[v];
    for (int k = 0; k < TEACH_RETRO_RULES; k++)
        strict_by_rule += st.by_rule[k];
    ck_assert_int_eq(total, st.candidates);
    ck_assert_int_eq(st.verdicts[TEACH_TSGEN_STRICT], c.n);
    ck_assert_int_eq(strict_by_rule, c.n);
    uint64_t src = teach_tsgen_key(&b, GO_BLACK);
    for (int i = 0; i < c.n; i++) {
        ck_assert_uint_ne(c.p[i].key, src);
        for (int j = 0; j < i; j++)
            ck_assert_uint_ne(c.p[i].key, c.p[j].key);
        assert_resolves(&c.p[i]);
        teach_tsgen_problem_free(&c.p[i]);
    }
    /* a source without an outright solution gives nothing */
    go_board four = pic(". . . . O X . . ."
                        "O O O O O X . . ."
                        "X X X X X X . . ."
                        ". . . . . . . . ."
                        ". . . . . . . . ."
                        ". . . . . . . . ."
                        ". . . . . . . . ."
                        ". . . . . . . . ."
                        ". . . . . . . . .", GO_BLACK);
    c.n = 0;
    ck_assert(!teach_retro_generate(&four, GO_BLACK, GO_TSUMEGO_GOAL_KILL, &pr, keep, &c, &st));
    ck_assert_int_eq(c.n, 0);
}
END_TEST

/* ---- concept steps ------------------------------------------------------------------------ */

START_TEST(concept_tree_follows_bouzy)
{
    go_board b = pic(STRAIGHT_THREE, GO_BLACK);
    teach_concept_params pr = {.window = TEACH_CONCEPT_WINDOW_BOX, .max_nodes = 40};
    static teach_concept_node nodes[40];
    int n = teach_concept_tree(&b, &pr, NULL, nodes, 40);
    ck_assert_int_ge(n, 2);
    ck_assert_int_le(n, 40);
    ck_assert_int_eq(nodes[0].parent, -1);
    for (int i = 1; i < n; i++) {
        const teach_concept_node *c = &nodes[i], *par = &nodes[c->parent];
        ck_assert_int_lt(c->parent, i);
        ck_assert_int_eq(c->depth, par->depth + 1);
        /* one stone more, next to a stone of the parent, within two lines of the seed's box
         * (columns A..G, rows 9..5) */
        ck_assert_int_eq(par->board.color[c->added], GO_EMPTY);
        ck_assert_int_eq(c->board.color[c->added], c->added_color);
        ck_assert_int_le(go_point_x(c->added), 6);
        ck_assert_int_le(go_point_y(c->added), 4);
        bool next = false;
        for (int d = 0; d < 4; d++) {
            int q = c->added + (d == 0 ? 1 : d == 1 ? -1 : d == 2 ? GO_STRIDE : -GO_STRIDE);
            next |= par->board.color[q] == GO_BLACK || par->board.color[q] == GO_WHITE;
        }
        ck_assert(next);
        /* the colour against the point's influence; the difference is the one recorded */
        go_bouzy_map pm, cm;
        go_bouzy_compute(&pm, &par->board, GO_BOUZY_CONCEPT);
        go_bouzy_compute(&cm, &c->board, GO_BOUZY_CONCEPT);
        int s = pm.score[c->added];
        ck_assert(c->added_color == GO_BLACK ? s <= 0 : s >= 0);
        ck_assert_int_eq(go_bouzy_difference(&cm, &pm), c->bouzy_diff);
        /* kept: at least 80% of the largest difference among the siblings kept */
        for (int j = 1; j < n; j++)
            if (nodes[j].parent == c->parent)
                ck_assert(c->bouzy_diff >= 0.8 * nodes[j].bouzy_diff - 1e-9);
        test_assert_sound(&c->board);
        /* no two nodes are the same position */
        for (int j = 0; j < i; j++)
            ck_assert_uint_ne(teach_tsgen_key(&nodes[j].board, GO_BLACK),
                              teach_tsgen_key(&c->board, GO_BLACK));
    }
    /* a window mask keeps the stones inside it */
    uint8_t allowed[GO_POINTS] = {0};
    allowed[test_point(9, "A9")] = allowed[test_point(9, "B9")] = allowed[test_point(9, "C9")] =
        1;
    n = teach_concept_tree(&b, &pr, allowed, nodes, 40);
    ck_assert_int_ge(n, 2);
    for (int i = 1; i < n; i++)
        ck_assert(allowed[nodes[i].added]);
}
END_TEST

/* A score that the default never gives: the fewer black stones the better, and it records every
 * position's score by key, so that the order of the problems can be checked against it. */
typedef struct scored {
    uint64_t key[256];
    float score[256];
    int n;
} scored;

static bool by_black_stones(void *ctx, const go_board *const *boards, const go_color *to_play,
                            int n, float *out)
{
    scored *sc = ctx;
    for (int i = 0; i < n; i++) {
        ck_assert_int_eq(to_play[i], GO_BLACK);
        int black = 0;
        for (int p = 0; p < GO_POINTS; p++)
            black += boards[i]->color[p] == GO_BLACK;
        out[i] = (float)(-black);
        if (sc->n < 256) {
            sc->key[sc->n] = teach_tsgen_key(boards[i], GO_BLACK);
            sc->score[sc->n++] = out[i];
        }
    }
    return true;
}

static float score_of(const scored *sc, uint64_t key)
{
    for (int i = 0; i < sc->n; i++)
        if (sc->key[i] == key)
            return sc->score[i];
    ck_abort_msg("a problem that was never scored");
    return 0;
}

START_TEST(concept_generate_ranks_and_verifies)
{
    go_board b = pic(STRAIGHT_THREE, GO_BLACK);
    static collected c;
    c.n = 0;
    teach_tsgen_stats st;
    teach_concept_params pr = {.limits = LIM};
    int tesuji = test_point(9, "B9");
    ck_assert(teach_concept_generate(&b, GO_BLACK, GO_TSUMEGO_GOAL_KILL, tesuji, &pr, keep, &c,
                                     &st));
    ck_assert_int_ge(st.candidates, 1);
    ck_assert_int_eq(st.verdicts[TEACH_TSGEN_STRICT], c.n);
    for (int i = 0; i < c.n; i++) {
        ck_assert_int_eq(c.p[i].answer, tesuji);
        assert_resolves(&c.p[i]);
        teach_tsgen_problem_free(&c.p[i]);
    }
    /* the ranking follows the callback: problems come best-scored first */
    static scored sc;
    sc.n = 0;
    pr.score = by_black_stones;
    pr.score_ctx = &sc;
    c.n = 0;
    ck_assert(teach_concept_generate(&b, GO_BLACK, GO_TSUMEGO_GOAL_KILL, tesuji, &pr, keep, &c,
                                     &st));
    ck_assert_int_ge(sc.n, 1);
    ck_assert_int_ge(c.n, 2);
    for (int i = 0; i < c.n; i++) {
        if (i > 0)
            ck_assert(score_of(&sc, c.p[i - 1].key) >= score_of(&sc, c.p[i].key));
        teach_tsgen_problem_free(&c.p[i]);
    }
    /* verify_top: only the best node is verified */
    pr.verify_top = 1;
    c.n = 0;
    ck_assert(teach_concept_generate(&b, GO_BLACK, GO_TSUMEGO_GOAL_KILL, tesuji, &pr, keep, &c,
                                     &st));
    ck_assert_int_eq(st.candidates, 1);
    for (int i = 0; i < c.n; i++)
        teach_tsgen_problem_free(&c.p[i]);
    /* a tesuji that is not the answer: nothing is emitted */
    pr.score = NULL;
    pr.verify_top = 0;
    c.n = 0;
    ck_assert(teach_concept_generate(&b, GO_BLACK, GO_TSUMEGO_GOAL_KILL, test_point(9, "C9"),
                                     &pr, keep, &c, &st));
    ck_assert_int_eq(c.n, 0);
    ck_assert_int_eq(st.verdicts[TEACH_TSGEN_STRICT], 0);
}
END_TEST

/* ---- the command line ---------------------------------------------------------------------- */

static char *run_gen(const char *const *args, int *status)
{
    char *err = NULL;
    char *out = pipe_run(args, "/dev/null", NULL, &err, status);
    free(out);
    return err;
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return strdup("");
    fclose(f);
    return test_read_file(path, NULL);
}

START_TEST(command_shards_merge_and_resume)
{
    char dir[] = "/tmp/shido-test-tsgen-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char src[128], one[128], two[128], merged[160], sh1[192], sh2[192], full[160];
    snprintf(src, sizeof src, "%s/src.jsonl", dir);
    snprintf(one, sizeof one, "%s/one", dir);
    snprintf(two, sizeof two, "%s/two", dir);
    snprintf(merged, sizeof merged, "%s/merged.jsonl", dir);
    /* three small problems: straight three, bulky five, and one of Cho's */
    const char *recs =
        "{\"id\": \"t/three\", \"size\": 9, \"to_play\": \"B\", \"comment\": \"Black to kill\", "
        "\"AB\": [\"ea\", \"eb\", \"ac\", \"bc\", \"cc\", \"dc\", \"ec\"], \"AW\": [\"da\", "
        "\"ab\", \"bb\", \"cb\", \"db\"], \"solutions\": [\"ba\"]}\n"
        "{\"id\": \"t/five\", \"size\": 9, \"to_play\": \"B\", \"comment\": \"Black to kill\", "
        "\"AB\": [\"ea\", \"eb\", \"ec\", \"ad\", \"bd\", \"cd\", \"dd\", \"ed\"], \"AW\": "
        "[\"da\", \"db\", \"ac\", \"bc\", \"cc\", \"dc\"], \"solutions\": [\"bb\"]}\n"
        "{\"id\": \"cho-elementary/Prob0002\", \"size\": 19, \"to_play\": \"B\", \"AB\": [\"ab\", "
        "\"bb\", \"cb\", \"db\", \"eb\"], \"AW\": [\"ca\", \"ea\", \"fb\", \"ac\", \"bc\", \"cc\", "
        "\"dc\", \"ec\", \"fc\"], \"solutions\": [\"ba\"]}\n";
    test_write_file(src, recs, strlen(recs), false);
    int status;
    const char *a1[] = {"tsumego-gen", "retro", "--jsonl", src, "--out", one, "--max-candidates",
                        "12", "--nodes", "100000", "--quiet", NULL};
    char *err = run_gen(a1, &status);
    ck_assert_msg(status == 0, "tsumego-gen: %s", err);
    ck_assert_ptr_nonnull(strstr(err, "strict problems emitted"));
    free(err);
    for (int k = 1; k <= 2; k++) {
        char shard[16];
        snprintf(shard, sizeof shard, "%d/2", k);
        const char *a2[] = {"tsumego-gen", "retro", "--jsonl", src, "--out", two,
                            "--max-candidates", "12", "--nodes", "100000", "--shard", shard,
                            "--threads", "2", "--quiet", NULL};
        err = run_gen(a2, &status);
        ck_assert_msg(status == 0, "shard %s: %s", shard, err);
        free(err);
    }
    snprintf(sh1, sizeof sh1, "%s/shard-0001-of-0002.jsonl", two);
    snprintf(sh2, sizeof sh2, "%s/shard-0002-of-0002.jsonl", two);
    const char *a3[] = {"tsumego-gen", "merge", sh1, sh2, "--out", merged, NULL};
    err = run_gen(a3, &status);
    ck_assert_msg(status == 0, "merge: %s", err);
    free(err);
    snprintf(full, sizeof full, "%s/problems.jsonl", one);
    char *a = slurp(full), *b = slurp(merged);
    ck_assert_msg(strlen(a) > 0, "no problems");
    ck_assert_str_eq(a, b);
    free(b);
    /* the records read back as problems whose answer the solver confirms */
    const char *a4[] = {"tsumego", "bench", "--jsonl", full, "--time-per-problem", "5", NULL};
    char *out_err = NULL;
    char *out = pipe_run(a4, "/dev/null", NULL, &out_err, &status);
    ck_assert_msg(status == 0, "bench: %s", out_err);
    ck_assert_msg(strstr(out, "first move correct 100.0%") != NULL, "bench: %s", out);
    free(out);
    free(out_err);
    /* a second run resumes: nothing new, the file unchanged */
    err = run_gen(a1, &status);
    ck_assert_msg(status == 0, "resume: %s", err);
    ck_assert_ptr_nonnull(strstr(err, "resuming: 3 sources done"));
    free(err);
    b = slurp(full);
    ck_assert_str_eq(a, b);
    free(a);
    free(b);
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    ck_assert_int_eq(system(cmd), 0);
}
END_TEST

START_TEST(command_concept_seeds)
{
    char dir[] = "/tmp/shido-test-tsgen-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char seed[192];
    snprintf(seed, sizeof seed, "%s/tsumego-seeds/straight-three-vital.sgf", SHIDO_TEST_DATA);
    int status;
    const char *a[] = {"tsumego-gen", "concept", seed, "--out", dir, "--quiet", NULL};
    char *err = run_gen(a, &status);
    ck_assert_msg(status == 0, "concept: %s", err);
    ck_assert_ptr_nonnull(strstr(err, "candidates verified"));
    free(err);
    char path[256];
    snprintf(path, sizeof path, "%s/problems.jsonl", dir);
    char *text = slurp(path);
    ck_assert_ptr_nonnull(strstr(text, "\"method\":\"concept\""));
    ck_assert_ptr_nonnull(strstr(text, "\"solutions\":[\"ba\"]"));
    free(text);
    /* bad usage */
    const char *bad[] = {"tsumego-gen", "concept", seed, "--out", dir, "--keep", "2", NULL};
    err = run_gen(bad, &status);
    ck_assert_int_eq(WEXITSTATUS(status), 2);
    free(err);
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    ck_assert_int_eq(system(cmd), 0);
}
END_TEST

static Suite *tsumego_gen_suite(void)
{
    Suite *s = suite_create("tsumego_gen");
    TCase *rules = tcase_create("rules");
    tcase_add_test(rules, retro_connected_stones);
    tcase_add_test(rules, retro_connecting_diagonal);
    tcase_add_test(rules, retro_forced_exchanges);
    tcase_add_test(rules, static_pruning);
    tcase_add_test(rules, difficulty_scale);
    tcase_add_test(rules, key_symmetry_and_colours);
    tcase_add_test(rules, concept_tree_follows_bouzy);
    suite_add_tcase(s, rules);
    TCase *solve = tcase_create("solve");
    tcase_set_timeout(solve, 120);
    tcase_add_test(solve, verify_strict_and_not);
    tcase_add_test(solve, verify_line_uniqueness);
    tcase_add_test(solve, retro_generate_resolves);
    tcase_add_test(solve, concept_generate_ranks_and_verifies);
    tcase_add_test(solve, command_shards_merge_and_resume);
    tcase_add_test(solve, command_concept_seeds);
    tcase_add_test(solve, policy_rank_of_the_answer);
    suite_add_tcase(s, solve);
    return s;
}

int main(void) { return test_run_suite(tsumego_gen_suite()); }
