/* tests/test_features.c -- seed 000's move features (teach/features.h): Rémi distances and
 * stone densities on hand-built boards against values counted by hand, the symmetries of a
 * position, equations 2 and 3 on hand-made ownership, the contributions found by searches on
 * positions where a pass and a move differ in a known way (an atari saved, a stone captured),
 * score losses and priors from the searches. The searches use the shared 6-block net with a few
 * visits on 9x9 and 19x19 boards. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "teach/engine.h"
#include "teach/features.h"

#include "tests/common.h"

/* An engine on the shared 6-block net, CPU backend, default tunables. */
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

/* ---- geometry --------------------------------------------------------------------------- */

START_TEST(test_remi_distance)
{
    /* the paper's examples: corner star point to tengen 18, upper-left to upper-right star 24 */
    ck_assert_int_eq(teach_remi_distance(test_point(19, "D4"), test_point(19, "K10")), 18);
    ck_assert_int_eq(teach_remi_distance(test_point(19, "D16"), test_point(19, "Q16")), 24);
    /* dx 1, dy 2: 1 + 2 + 2 */
    ck_assert_int_eq(teach_remi_distance(test_point(19, "C3"), test_point(19, "D5")), 5);
    ck_assert_int_eq(teach_remi_distance(test_point(19, "C3"), test_point(19, "C3")), 0);
    ck_assert_int_eq(teach_remi_distance(GO_PASS, test_point(19, "C3")), -1);
    ck_assert_int_eq(teach_remi_distance(test_point(19, "C3"), GO_NO_POINT), -1);
}
END_TEST

static void place(go_board *b, const char *vertex, go_color c)
{
    ck_assert(go_board_place(b, test_point(b->size, vertex), c));
}

START_TEST(test_density)
{
    go_board b;
    go_board_init(&b, 19);
    ck_assert_double_eq(teach_stone_density(&b, test_point(19, "K10"), 8), 0);
    /* around K10 (x 9, y 9): K11 d 2, L12 d 5, M13 d 8, K14 d 8, O10 d 8 inside; N14 d 11 and
     * P10 d 10 outside; 48 points within distance 8 (the point itself left out) */
    place(&b, "K11", GO_BLACK);
    place(&b, "L12", GO_WHITE);
    place(&b, "M13", GO_BLACK);
    place(&b, "K14", GO_WHITE);
    place(&b, "O10", GO_BLACK);
    place(&b, "N14", GO_WHITE);
    place(&b, "P10", GO_BLACK);
    ck_assert_double_eq_tol(teach_stone_density(&b, test_point(19, "K10"), 8), 5.0 / 48,
                            1e-12);
    /* B3: none of the stones above is within distance 8 */
    ck_assert_double_eq(teach_stone_density(&b, test_point(19, "B3"), 8), 0);
    /* B10 on the second line away from corners: 35 points; A10 d 2, C12 d 5, B14 d 8 inside,
     * B15 d 10 outside */
    place(&b, "A10", GO_BLACK);
    place(&b, "C12", GO_WHITE);
    place(&b, "B14", GO_BLACK);
    place(&b, "B15", GO_WHITE);
    ck_assert_double_eq_tol(teach_stone_density(&b, test_point(19, "B10"), 8), 3.0 / 35,
                            1e-12);
    /* the corner A1: 16 points; B2 at d 3 */
    place(&b, "B2", GO_WHITE);
    ck_assert_double_eq_tol(teach_stone_density(&b, test_point(19, "A1"), 8), 1.0 / 16, 1e-12);
    /* a smaller radius: around K10 within 2 only K11 (of the 8 neighbours within d 2: the four
     * orthogonal ones at d 2; diagonals are at d 3) */
    ck_assert_double_eq_tol(teach_stone_density(&b, test_point(19, "K10"), 2), 1.0 / 4, 1e-12);
    ck_assert_double_eq(teach_stone_density(&b, GO_PASS, 8), 0);
}
END_TEST

START_TEST(test_symmetries)
{
    go_board b;
    go_board_init(&b, 19);
    ck_assert_uint_eq(teach_board_symmetries(&b), 0xfe);
    /* D4 (x 3, y 15) maps to itself only under symmetry 7 (flip x, flip y, swap): (15, 3) then
     * back to (3, 15) */
    place(&b, "D4", GO_BLACK);
    ck_assert_uint_eq(teach_board_symmetries(&b), 0x80);
    /* C4 (2, 15) -> flips (16, 3) -> swap (3, 16) = D3 */
    ck_assert_int_eq(teach_symmetry_point(19, test_point(19, "C4"), 7), test_point(19, "D3"));
    ck_assert(teach_symmetric_copies(19, 0x80, test_point(19, "C4"), test_point(19, "D3")));
    ck_assert(!teach_symmetric_copies(19, 0x80, test_point(19, "C4"), test_point(19, "E4")));
    ck_assert(!teach_symmetric_copies(19, 0x80, test_point(19, "C4"), test_point(19, "C4")));
    ck_assert(!teach_symmetric_copies(19, 0, test_point(19, "C4"), test_point(19, "D3")));
    /* Q16 (15, 3) is its own image under symmetry 7 too; C4 is not (its image D3 is empty) */
    place(&b, "Q16", GO_WHITE);
    ck_assert_uint_eq(teach_board_symmetries(&b), 0x80);
    place(&b, "C4", GO_WHITE);
    ck_assert_uint_eq(teach_board_symmetries(&b), 0);
}
END_TEST

START_TEST(test_contributions_formula)
{
    go_board b;
    go_board_init(&b, 5);
    place(&b, "A5", GO_BLACK);   /* index 0 */
    place(&b, "B5", GO_BLACK);   /* index 1 */
    place(&b, "E1", GO_WHITE);   /* index 24 */
    float move[25] = {0}, pass[25] = {0};
    move[0] = -0.8f, move[1] = -0.6f, move[24] = 0.2f;   /* white's view */
    pass[0] = -0.2f, pass[1] = -0.4f, pass[24] = 0.6f;
    move[12] = 1.0f;   /* an empty point changes nothing */
    double s, w;
    /* black moves: own stones in black's view +0.6 and +0.2 -> 0.4; E1 in black's view goes
     * from -0.6 to -0.2 -> +0.4 */
    teach_contributions(&b, GO_BLACK, move, pass, &s, &w);
    ck_assert_double_eq_tol(s, 0.4, 1e-6);
    ck_assert_double_eq_tol(w, 0.4, 1e-6);
    /* white moves: E1 in white's view 0.2 - 0.6; the black stones -0.6 and -0.2 */
    teach_contributions(&b, GO_WHITE, move, pass, &s, &w);
    ck_assert_double_eq_tol(s, -0.4, 1e-6);
    ck_assert_double_eq_tol(w, -0.4, 1e-6);
    go_board_init(&b, 5);
    place(&b, "C3", GO_BLACK);
    teach_contributions(&b, GO_BLACK, move, pass, &s, &w);
    ck_assert(isnan(w));
    ck_assert(isfinite(s));
}
END_TEST

/* ---- features from searches ------------------------------------------------------------- */

/* A 9x9 game (japanese rules, komi 6.5) of the diagram, black to move. */
static void game9(go_game *g, const char *pic) { test_game_from(g, 9, pic, GO_BLACK, "japanese", 6.5f); }

/* Black's E5 is in atari (white D5, F5, E6); E4 connects it to the black wall on the third line.
 * After a black pass white captures it: the move and the pass differ by that stone. */
static const char *const atari_saved = ". . . . . . . . ."
                                       ". . . . . . . . ."
                                       ". . O . . . X . ."
                                       ". . . . O . . . ."
                                       ". . . O X O . . ."
                                       ". . . . . . . . ."
                                       ". . X . X . X . ."
                                       ". . . . . . . . ."
                                       ". . . . . . . . .";

/* White's E5 is in atari (black D5, F5, E6): black E4 captures it, after a pass white escapes. */
static const char *const atari_capture = ". . . . . . . . ."
                                         ". . . . . . . . ."
                                         ". . X . . . O . ."
                                         ". . . . X . . . ."
                                         ". . . X O X . . ."
                                         ". . . . . . . . ."
                                         ". . O . . . O . ."
                                         ". . . . . . . . ."
                                         ". . . . . . . . .";

START_TEST(test_contributions_search)
{
    teach_engine *e = engine_g170();
    char err[512];
    teach_features *f = teach_features_new(e, 1, err, sizeof err);
    ck_assert_msg(f != NULL, "%s", err);
    go_game g;
    game9(&g, atari_saved);
    ck_assert(teach_features_set_position(f, &g, err, sizeof err));
    int moves[2] = {test_point(9, "E4"), test_point(9, "J1")};
    teach_move_features out[2], ref;
    ck_assert_msg(teach_features_compute(f, moves, 2, moves[0], 16, out, &ref, err, sizeof err),
                  "%s", err);
    /* five black stones; E5 goes from captured (about -1 in black's view) to safe (about +1):
     * the mean over them rises by about 2/5 */
    ck_assert_msg(out[0].strengthen_own > 0.2, "strengthen %f", out[0].strengthen_own);
    ck_assert_msg(out[1].strengthen_own < out[0].strengthen_own - 0.15,
                  "J1 strengthens %f, E4 %f", out[1].strengthen_own, out[0].strengthen_own);
    /* the reference's own loss is 0; J1 (a first-line corner move while E5 hangs) loses */
    ck_assert_double_eq(ref.score_loss, 0);
    ck_assert_double_eq_tol(out[0].score_loss, 0, 1e-9);
    ck_assert_double_eq_tol(out[1].score_loss, ref.score_lead - out[1].score_lead, 1e-9);
    ck_assert_msg(out[1].score_loss > 2, "J1 loses %f", out[1].score_loss);
    ck_assert_int_eq(out[1].dist_ref, teach_remi_distance(moves[0], moves[1]));
    ck_assert_int_eq(out[0].dist_last, -1);   /* a setup position: no last move */
    ck_assert_int_eq(out[0].visits, 16);
    go_game_free(&g);

    game9(&g, atari_capture);
    ck_assert(teach_features_set_position(f, &g, err, sizeof err));
    ck_assert_msg(teach_features_compute(f, moves, 2, moves[0], 16, out, &ref, err, sizeof err),
                  "%s", err);
    /* four white stones; E5's ownership in black's view goes from white's (escaped after the
     * pass) to black's (captured) */
    ck_assert_msg(out[0].weaken_opp > 0.2, "weaken %f", out[0].weaken_opp);
    ck_assert_msg(out[1].weaken_opp < out[0].weaken_opp - 0.15, "J1 weakens %f",
                  out[1].weaken_opp);
    go_game_free(&g);
    teach_features_free(f);
    teach_engine_free(e);
}
END_TEST

START_TEST(test_priors_and_determinism)
{
    teach_engine *e = engine_g170();
    char err[512];
    teach_features *f = teach_features_new(e, 1, err, sizeof err);
    ck_assert_msg(f != NULL, "%s", err);
    go_game g;
    game9(&g, atari_saved);
    ck_assert(teach_features_set_position(f, &g, err, sizeof err));
    /* one network: Prior_StrongHuman is Prior_KataGo; the legal policy sums to 1 */
    ck_assert_int_eq(teach_features_human_net(f), 0);
    double sum = 0;
    for (int y = 0; y < 9; y++)
        for (int x = 0; x < 9; x++) {
            int p = go_point_at(x, y);
            sum += teach_features_prior(f, p, false);
            ck_assert_double_eq(teach_features_prior(f, p, false),
                                teach_features_prior(f, p, true));
        }
    sum += teach_features_prior(f, GO_PASS, false);
    ck_assert_double_eq_tol(sum, 1, 1e-5);
    ck_assert_double_eq(teach_features_prior(f, test_point(9, "E5"), false), 0);   /* occupied */
    int top[3];
    ck_assert_int_eq(teach_features_top_moves(f, false, 3, top), 3);
    ck_assert(teach_features_prior(f, top[0], false) >= teach_features_prior(f, top[1], false));
    ck_assert(teach_features_prior(f, top[1], false) >= teach_features_prior(f, top[2], false));
    /* the same search twice gives the same numbers: the tree is dropped and the seed fixed */
    teach_after *a = malloc(2 * sizeof *a);
    ck_assert(teach_features_search_after(f, top[0], 12, &a[0], err, sizeof err));
    ck_assert(teach_features_search_after(f, top[1], 12, &a[1], err, sizeof err));
    ck_assert(teach_features_search_after(f, top[0], 12, &a[1], err, sizeof err));
    ck_assert_double_eq(a[0].score_lead, a[1].score_lead);
    /* steps 1, 2, 4, 8 then 12 */
    ck_assert_int_eq(a[0].num_steps, 5);
    ck_assert_int_eq(a[0].step_visits[0], 1);
    ck_assert_int_eq(a[0].step_visits[3], 8);
    ck_assert_int_eq(a[0].step_visits[4], 12);
    ck_assert_double_eq(a[0].step_lead[4], a[0].score_lead);
    /* an occupied point and an off-board one are refused by name */
    ck_assert(!teach_features_search_after(f, test_point(9, "E5"), 4, &a[0], err, sizeof err));
    ck_assert_msg(strstr(err, "E5") && strstr(err, "occupied"), "%s", err);
    int bad[1] = {test_point(9, "C7")};
    teach_move_features out;
    ck_assert(!teach_features_compute(f, bad, 1, GO_NO_POINT, 4, &out, NULL, err, sizeof err));
    ck_assert_msg(strstr(err, "C7") && strstr(err, "occupied"), "%s", err);
    free(a);
    go_game_free(&g);
    teach_features_free(f);
    teach_engine_free(e);
}
END_TEST

Suite *features_suite(void)
{
    Suite *s = suite_create("features");
    TCase *t = tcase_create("geometry");
    tcase_add_test(t, test_remi_distance);
    tcase_add_test(t, test_density);
    tcase_add_test(t, test_symmetries);
    tcase_add_test(t, test_contributions_formula);
    suite_add_tcase(s, t);
    t = tcase_create("search");
    tcase_set_timeout(t, 600);
    tcase_add_test(t, test_contributions_search);
    tcase_add_test(t, test_priors_and_determinism);
    suite_add_tcase(s, t);
    return s;
}

int main(void) { return test_run_suite(features_suite()); }
