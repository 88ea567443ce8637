/* tests/test_bouzy.c -- Bouzy dilation/erosion maps on small boards computed by hand (each step
 * worked out in the comments), the presets, and properties that hold on random positions. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>

#include "go/board.h"
#include "go/bouzy.h"
#include "go/playout.h"
#include "tests/common.h"

#define S GO_BOUZY_STONE_VALUE

static void assert_map(const go_bouzy_map *m, const int *want, const char *what)
{
    for (int y = 0; y < m->size; y++)
        for (int x = 0; x < m->size; x++) {
            int got = m->score[go_point_at(x, y)], w = want[y * m->size + x];
            ck_assert_msg(got == w, "%s: (%d,%d) is %d, want %d", what, x, y, got, w);
        }
}

static void map_after(go_bouzy_map *m, const go_board *b, int n, int mm)
{
    go_bouzy_compute(m, b, (go_bouzy_params){n, mm, S});
}

/* One black stone in the middle of 3x3. Dilation 1: the four sides touch it (+1 each), corners
 * touch only zeros. Dilation 2: sides 1 + 1 (the stone; the corners are still 0) = 2, corners
 * 0 + 2 = 2. Dilation 3: sides 2 + 3 = 5, corners 2 + 2 = 4. Erosion then finds no point <= 0 to
 * eat from, so (3, 5) equals (3, 0). */
START_TEST(single_stone_3x3)
{
    go_board b;
    test_board_from(&b, 3, ". . .  . X .  . . .");
    go_bouzy_map m;
    map_after(&m, &b, 1, 0);
    assert_map(&m, (int[]){0, 1, 0, 1, S, 1, 0, 1, 0}, "(1,0)");
    map_after(&m, &b, 2, 0);
    assert_map(&m, (int[]){2, 2, 2, 2, S, 2, 2, 2, 2}, "(2,0)");
    map_after(&m, &b, 3, 0);
    assert_map(&m, (int[]){4, 5, 4, 5, S, 5, 4, 5, 4}, "(3,0)");
    map_after(&m, &b, 3, 5);
    assert_map(&m, (int[]){4, 5, 4, 5, S, 5, 4, 5, 4}, "(3,5)");
}
END_TEST

/* Black on the left side, white on the right of 3x3. The middle column touches both colours (or
 * zeros only) and stays 0; the left corners gain one a dilation, the right ones lose one. Erosion:
 * each corner has one neighbour at 0 (the top or bottom middle), so it moves one step towards 0 per
 * erosion and stops there. */
START_TEST(two_colours_3x3)
{
    go_board b;
    test_board_from(&b, 3, ". . .  X . O  . . .");
    go_bouzy_map m;
    map_after(&m, &b, 1, 0);
    assert_map(&m, (int[]){1, 0, -1, S, 0, -S, 1, 0, -1}, "(1,0)");
    go_bouzy_compute(&m, &b, GO_BOUZY_CONCEPT);
    assert_map(&m, (int[]){5, 0, -5, S, 0, -S, 5, 0, -5}, "(5,0)");
    go_bouzy_compute(&m, &b, GO_BOUZY_GNUGO_AREA);
    assert_map(&m, (int[]){4, 0, -4, S, 0, -S, 4, 0, -4}, "(4,0)");
    map_after(&m, &b, 5, 2);
    assert_map(&m, (int[]){3, 0, -3, S, 0, -S, 3, 0, -3}, "(5,2)");
    go_bouzy_compute(&m, &b, GO_BOUZY_GNUGO_MOYO);
    assert_map(&m, (int[]){0, 0, 0, S, 0, -S, 0, 0, 0}, "(5,10)");
    go_bouzy_compute(&m, &b, GO_BOUZY_GNUGO_TERRITORY);
    assert_map(&m, (int[]){0, 0, 0, S, 0, -S, 0, 0, 0}, "(5,21)");
}
END_TEST

/* Black at (1,1), white at (3,3) on 5x5, worked point by point:
 * dilation 1: the four neighbours of each stone get +-1;
 * dilation 2: e.g. (0,0) = 0 + 2 (two +1 neighbours), (1,0) = 1 + 1 (the stone), (3,1) stays 0
 *   because it touches (2,1) = +1 and (3,2) = -1, (2,2) likewise;
 * erosion 1: (2,0) = 2 - 1 (touches (3,0) = 0), (2,1) = 2 - 2 (touches (3,1), (2,2)) = 0,
 *   (0,2) = 2 - 1, (1,2) = 2 - 2 = 0; the white side mirrors it with signs flipped. */
START_TEST(diagonal_stones_5x5)
{
    go_board b;
    test_board_from(&b, 5, ". . . . .  . X . . .  . . . . .  . . . O .  . . . . .");
    go_bouzy_map m;
    map_after(&m, &b, 1, 0);
    assert_map(&m,
               (int[]){0, 1, 0, 0,  0,
                       1, S, 1, 0,  0,
                       0, 1, 0, -1, 0,
                       0, 0, -1, -S, -1,
                       0, 0, 0, -1, 0}, "(1,0)");
    map_after(&m, &b, 2, 0);
    assert_map(&m,
               (int[]){2, 2, 2, 0,  0,
                       2, S, 2, 0,  0,
                       2, 2, 0, -2, -2,
                       0, 0, -2, -S, -2,
                       0, 0, -2, -2, -2}, "(2,0)");
    map_after(&m, &b, 2, 1);
    assert_map(&m,
               (int[]){2, 2, 1, 0,  0,
                       2, S, 0, 0,  0,
                       1, 0, 0, 0,  -1,
                       0, 0, 0, -S, -2,
                       0, 0, -1, -2, -2}, "(2,1)");
}
END_TEST

START_TEST(presets_and_difference)
{
    go_bouzy_params p = GO_BOUZY_GNUGO_TERRITORY;
    ck_assert(p.dilations == 5 && p.erosions == 21 && p.stone_value == 128);
    p = GO_BOUZY_GNUGO_MOYO;
    ck_assert(p.dilations == 5 && p.erosions == 10);
    p = GO_BOUZY_GNUGO_AREA;
    ck_assert(p.dilations == 4 && p.erosions == 0);
    p = GO_BOUZY_CONCEPT;
    ck_assert(p.dilations == 5 && p.erosions == 0);
    /* Adding a stone changes the map; the difference counts absolute changes only. */
    go_board parent, child;
    test_board_from(&parent, 3, ". . .  . X .  . . .");
    test_board_from(&child, 3, ". . .  . X .  . . O");
    go_bouzy_map a, c;
    go_bouzy_compute(&a, &parent, (go_bouzy_params){1, 0, S});
    go_bouzy_compute(&c, &child, (go_bouzy_params){1, 0, S});
    /* child after one dilation: (2,1) and (1,2) touch both colours and stay 0 (were +1); the
     * corner (2,2) goes from 0 to -128. */
    ck_assert_int_eq(go_bouzy_difference(&a, &c), 1 + 1 + S);
    ck_assert_int_eq(go_bouzy_difference(&c, &a), 1 + 1 + S);
}
END_TEST

/* On random positions: stones keep their value, erosion never flips a sign and only moves scores
 * towards 0, and (5,0) followed by 21 single erosions is GNU Go's (5,21) map. */
START_TEST(random_positions_properties)
{
    uint64_t rng = 77;
    for (int game = 0; game < 60; game++) {
        int size = 5 + game % 15;
        go_board b;
        go_board_init(&b, size);
        int moves = (int)(go_rand_next(&rng) % (unsigned)(size * size));
        for (int i = 0; i < moves; i++)
            go_board_play(&b, go_playout_pick(&b, &rng), b.to_move);
        go_bouzy_map d, e;
        go_bouzy_compute(&d, &b, GO_BOUZY_CONCEPT);
        e = d;
        for (int k = 0; k < 21; k++) {
            go_bouzy_map before = e;
            go_bouzy_erode(&e, &b);
            for (int p = 0; p < GO_POINTS; p++) {
                if (b.color[p] == GO_BLACK || b.color[p] == GO_WHITE) {
                    ck_assert_int_eq(e.score[p], b.color[p] == GO_BLACK ? S : -S);
                    continue;
                }
                int x = before.score[p], y = e.score[p];
                ck_assert(x >= 0 ? (y >= 0 && y <= x) : (y <= 0 && y >= x));
            }
        }
        go_bouzy_map t;
        go_bouzy_compute(&t, &b, GO_BOUZY_GNUGO_TERRITORY);
        ck_assert_int_eq(go_bouzy_difference(&t, &e), 0);
    }
}
END_TEST

Suite *bouzy_suite(void)
{
    Suite *s = suite_create("bouzy");
    TCase *t = tcase_create("core");
    tcase_add_test(t, single_stone_3x3);
    tcase_add_test(t, two_colours_3x3);
    tcase_add_test(t, diagonal_stones_5x5);
    tcase_add_test(t, presets_and_difference);
    tcase_add_test(t, random_positions_properties);
    suite_add_tcase(s, t);
    return s;
}

int main(void) { return test_run_suite(bouzy_suite()); }
