/* tests/test_tacmap_mine.c -- mining tactical maps that characterise (position, move) pairs: the
 * score on hand-computed numbers; on capturing moves the miner finds "the liberties of enemy
 * chains in atari" with coverage 100%; on random moves no map is much better than chance;
 * results do not depend on the thread count; bad input gives clear errors. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "go/board.h"
#include "go/playout.h"
#include "go/tacmap.h"
#include "go/tacmap_mine.h"
#include "tools/analysis_cmds.h"
#include "tests/common.h"

#define NUM_PAIRS 60

typedef struct pairs {
    int n;
    go_board board[NUM_PAIRS];
    int move[NUM_PAIRS];
    go_bb capture[NUM_PAIRS];   /* liberties of the mover's enemy chains in atari */
} pairs;

/* The liberties of c's enemy chains in atari, from the board engine alone. */
static go_bb capture_points(const go_board *b, go_color c)
{
    go_bb r = go_bb_none();
    for (int y = 0; y < b->size; y++)
        for (int x = 0; x < b->size; x++) {
            int p = go_point_at(x, y);
            if (b->color[p] != go_opponent(c) || go_board_libs(b, p) != 1)
                continue;
            int lib;
            ck_assert_int_eq(go_board_chain_liberties(b, p, &lib, 1), 1);
            go_bb_set(&r, go_bb_bit_of(lib));
        }
    return r;
}

/* Positions of random 9x9 games. capture: those where the side to move can capture at exactly one
 * point, with that move; else every 7th position with a uniformly random legal move. */
static void make_pairs(pairs *ps, bool capture, uint64_t seed)
{
    uint64_t rng = seed;
    ps->n = 0;
    for (int game = 0; ps->n < NUM_PAIRS && game < 400; game++) {
        go_board b;
        go_board_init(&b, 9);
        for (int ply = 0; ply < 150 && ps->n < NUM_PAIRS; ply++) {
            go_color c = b.to_move;
            go_bb cap = capture_points(&b, c);
            int move = GO_PASS;
            if (capture && go_bb_count(cap) == 1) {
                move = go_bb_point_of(go_bb_next(cap, 0));
            } else if (!capture && ply % 7 == 3) {
                int legal[81], n = 0;
                for (int i = 0; i < 81; i++) {
                    int p = go_point_at(i % 9, i / 9);
                    if (b.color[p] == GO_EMPTY && go_board_is_legal(&b, p, c, false))
                        legal[n++] = p;
                }
                if (n)
                    move = legal[go_rand_next(&rng) % (uint64_t)n];
            }
            if (move != GO_PASS && go_board_is_legal(&b, move, c, false)) {
                ps->board[ps->n] = b;
                ps->move[ps->n] = move;
                ps->capture[ps->n] = cap;
                ps->n++;
            }
            int p = go_playout_pick(&b, &rng);
            if (p == GO_PASS)
                break;
            go_board_play(&b, p, c);
        }
    }
    ck_assert_int_eq(ps->n, NUM_PAIRS);
}

static go_tm_mine_set *set_of(const pairs *ps)
{
    go_tm_mine_set *s = go_tm_mine_set_new();
    ck_assert_ptr_nonnull(s);
    char err[256];
    for (int i = 0; i < ps->n; i++)
        ck_assert_msg(go_tm_mine_set_add(s, &ps->board[i], ps->move[i], ps->board[i].to_move, err,
                                         sizeof err),
                      "%s", err);
    ck_assert_int_eq(go_tm_mine_set_count(s), ps->n);
    return s;
}

/* Small enough for the sanitizer build: 9,600 enumerated maps and a few random ones. */
static go_tm_mine_params quick_params(void)
{
    go_tm_mine_params p = go_tm_mine_defaults();
    p.max_depth = 3;
    p.tries = 1000;
    p.refine = 16;
    return p;
}

START_TEST(score_by_hand)
{
    /* p = 3/4, s = (1 + 2 + 4 + 3) / 32; bits: log2 6 + log2 3 + log2 1.5 + log2 0.4. */
    bool hit[4] = {true, true, true, false};
    int selected[4] = {1, 2, 4, 3}, legal[4] = {8, 8, 8, 8};
    go_tm_mine_stats st = go_tm_mine_score(4, hit, selected, legal);
    ck_assert_int_eq(st.pairs, 4);
    ck_assert_int_eq(st.hits, 3);
    ck_assert_double_eq_tol(st.coverage, 0.75, 1e-12);
    ck_assert_double_eq_tol(st.mean_selected, 2.5, 1e-12);
    ck_assert_double_eq_tol(st.mean_legal, 8, 1e-12);
    ck_assert_double_eq_tol(st.selectivity, 0.3125, 1e-12);
    ck_assert_double_eq_tol(st.lift, 2.4, 1e-12);
    double want = (log2(6) + log2(3) + log2(1.5) + log2(0.4)) / 4;
    ck_assert_double_eq_tol(st.score_bits, want, 1e-12);
    ck_assert_double_eq_tol(st.score_bits, 0.858240, 1e-6);

    /* The ideal map (the move alone, every time) saves log2 |L| bits. */
    bool all[2] = {true, true};
    int one[2] = {1, 1}, l2[2] = {16, 64};
    st = go_tm_mine_score(2, all, one, l2);
    ck_assert_double_eq_tol(st.score_bits, 5, 1e-12);
    ck_assert_double_eq_tol(st.lift, 1 / ((1.0 / 16 + 1.0 / 64) / 2), 1e-9);

    /* Everything selected: coverage 1, lift 1, no information. */
    int every[2] = {16, 64};
    st = go_tm_mine_score(2, all, every, l2);
    ck_assert_double_eq_tol(st.lift, 1, 1e-12);
    ck_assert_double_eq_tol(st.score_bits, 0, 1e-12);

    /* Selecting the move less often than chance scores 0. */
    bool none[2] = {false, true};
    int half[2] = {8, 48};
    st = go_tm_mine_score(2, none, half, l2);
    ck_assert(st.coverage <= st.selectivity);
    ck_assert_double_eq(st.score_bits, 0);

    st = go_tm_mine_score(0, NULL, NULL, NULL);
    ck_assert_int_eq(st.pairs, 0);
    ck_assert_double_eq(st.score_bits, 0);
}
END_TEST

START_TEST(captures_found)
{
    static pairs ps;
    make_pairs(&ps, true, 0x1234567u);
    go_tm_mine_set *s = set_of(&ps);
    go_tm_mine_params p = quick_params();
    go_tm_mined best[5];
    char err[256], text[1024];
    go_tm_mine_info info;
    int n = go_tm_mine_run(s, &p, best, 5, &info, err, sizeof err);
    ck_assert_msg(n >= 1, "%s", err);
    go_tm_print(&best[0].map, text, sizeof text);
    ck_assert_msg(best[0].stats.coverage == 1.0, "top map %s covers %.1f%%", text,
                  100 * best[0].stats.coverage);
    /* Equivalent to the liberties of enemy chains in atari: the same legal points everywhere. */
    go_bb sets[NUM_PAIRS];
    go_tm_mine_stats st = go_tm_mine_eval(s, &best[0].map, sets);
    ck_assert_double_eq(st.score_bits, best[0].stats.score_bits);
    for (int i = 0; i < ps.n; i++)
        ck_assert_msg(go_bb_eq(sets[i], ps.capture[i]), "top map %s differs from the capture "
                      "points in pair %d (%d points)", text, i, go_bb_count(sets[i]));
    ck_assert_double_eq_tol(st.mean_selected, 1, 1e-12);
    ck_assert(st.lift > 20);
    /* The language's own spelling: the liberties of the opponent's stones in atari. */
    go_tmap want;
    ck_assert(go_tm_parse("Adj1(H & white)", &want, err, sizeof err));
    go_tm_mine_stats ref = go_tm_mine_eval(s, &want, NULL);
    ck_assert_double_eq_tol(ref.score_bits, st.score_bits, 1e-12);
    ck_assert_int_le(best[0].depth, 3);
    go_tm_mine_set_free(s);
}
END_TEST

START_TEST(random_moves_no_lift)
{
    static pairs ps;
    make_pairs(&ps, false, 0xfeedbeefu);
    go_tm_mine_set *s = set_of(&ps);
    go_tm_mine_params p = quick_params();
    p.max_overlap = 1;
    go_tm_mined best[50];
    char err[256], text[1024];
    int n = go_tm_mine_run(s, &p, best, 50, NULL, err, sizeof err);
    ck_assert_msg(n >= 0, "%s", err);
    /* Bounds for ~10^4 maps unrelated to the moves, each failed by chance with probability
     * ~1e-6: G = 2 N ln2 score (about chi-squared, 1 degree of freedom) below 30 (seeds 1..8
     * give at most 10.3), and the hits at most 4.5 binomial standard deviations above the N s
     * a random move would give (lift <= 1 + 4.5 sqrt((1 - s) / (N s))). A real pattern is far
     * beyond both: the capture map has G ~ 500 and z ~ 60. */
    for (int i = 0; i < n; i++) {
        const go_tm_mine_stats *st = &best[i].stats;
        go_tm_print(&best[i].map, text, sizeof text);
        double g = 2 * ps.n * log(2) * st->score_bits;
        double expected = ps.n * st->selectivity;
        double z = (st->hits - expected) / sqrt(expected * (1 - st->selectivity) + 1e-9);
        ck_assert_msg(g < 30 && z < 4.5, "map %s: score %.3f bits, G %.1f, coverage %.2f, "
                      "lift %.2f, z %.1f", text, st->score_bits, g, st->coverage, st->lift, z);
    }
    go_tm_mine_set_free(s);
}
END_TEST

START_TEST(threads_do_not_matter)
{
    static pairs ps;
    make_pairs(&ps, false, 0xabcdefu);
    go_tm_mine_set *s = set_of(&ps);
    go_tm_mine_params p = quick_params();
    p.max_depth = 4;
    p.enumerate = false;
    p.tries = 3000;
    go_tm_mined one[8], two[8];
    char err[256];
    int n1 = go_tm_mine_run(s, &p, one, 8, NULL, err, sizeof err);
    p.threads = 2;
    int n2 = go_tm_mine_run(s, &p, two, 8, NULL, err, sizeof err);
    ck_assert_int_eq(n1, n2);
    for (int i = 0; i < n1; i++) {
        ck_assert(go_tm_equal(&one[i].map, &two[i].map));
        ck_assert_double_eq(one[i].stats.score_bits, two[i].stats.score_bits);
    }
    go_tm_mine_set_free(s);
}
END_TEST

START_TEST(gloss_reads)
{
    go_tmap m;
    char err[128], words[512];
    ck_assert(go_tm_parse("Adj1(H & white) - nPre2(black)", &m, err, sizeof err));
    ck_assert_int_gt(go_tm_mine_gloss(&m, words, sizeof words), 0);
    ck_assert_str_eq(words, "[points in or next to [[atari points] that are [enemy stones]]] except "
                            "[points whose chain touches fewer than 2 of [own stones]]");
    ck_assert_int_eq(go_tm_mine_gloss(&m, words, 10), -1);
    ck_assert_int_eq((int)strlen(words), 9);
    for (int op = 0; op < GO_TM_OP_COUNT; op++)
        ck_assert_int_gt((int)strlen(go_tm_mine_op_legend(op)), 5);
}
END_TEST

START_TEST(bad_input)
{
    char err[256];
    go_tm_mine_set *s = go_tm_mine_set_new();
    go_tm_mine_params p = quick_params();
    go_tm_mined best[2];
    ck_assert_int_eq(go_tm_mine_run(s, &p, best, 2, NULL, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "no (position, move) pairs"), "%s", err);

    go_board b;
    test_board_from(&b, 5, ". X . . .\n"
                           "X . . . .\n"
                           ". . . . .\n"
                           ". . . . .\n"
                           ". . . . .\n");
    ck_assert(!go_tm_mine_set_add(s, &b, go_point_at(0, 0), GO_WHITE, err, sizeof err));
    ck_assert_msg(strstr(err, "not a legal move") && strstr(err, "A5"), "%s", err);
    ck_assert(!go_tm_mine_set_add(s, &b, go_point_at(1, 0), GO_WHITE, err, sizeof err));
    ck_assert(!go_tm_mine_set_add(s, &b, GO_PASS, GO_BLACK, err, sizeof err));
    ck_assert(go_tm_mine_set_add(s, &b, go_point_at(2, 2), GO_WHITE, err, sizeof err));
    p.threads = 0;
    ck_assert_int_eq(go_tm_mine_run(s, &p, best, 2, NULL, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "bad parameters"), "%s", err);
    go_tm_mine_set_free(s);

    /* The command: unreadable and malformed files fail with status 1, no file with 2. */
    char *missing[] = {"tactical-maps", "characterise", "/nonexistent/shido-none.sgf"};
    ck_assert_int_eq(shido_cmd_tactical_maps(3, missing), 1);
    char path[] = "/tmp/shido-test-tacmap-mine-XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    FILE *f = fdopen(fd, "w");
    fputs("(;GM[1]SZ[19];B[pd];W[dp", f);
    fclose(f);
    char *broken[] = {"tactical-maps", "characterise", path};
    ck_assert_int_eq(shido_cmd_tactical_maps(3, broken), 1);
    remove(path);
    char *nothing[] = {"tactical-maps", "characterise"};
    ck_assert_int_eq(shido_cmd_tactical_maps(2, nothing), 2);
}
END_TEST

static Suite *tacmap_mine_suite(void)
{
    Suite *s = suite_create("tacmap_mine");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, score_by_hand);
    tcase_add_test(tc, captures_found);
    tcase_add_test(tc, random_moves_no_lift);
    tcase_add_test(tc, threads_do_not_matter);
    tcase_add_test(tc, gloss_reads);
    tcase_add_test(tc, bad_input);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return test_run_suite(tacmap_mine_suite()); }
