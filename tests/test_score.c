/* tests/test_score.c -- Benson's pass-alive area, KataGo's area flags and independent-life area
 * (against KataGo's own test positions), Tromp-Taylor counting, final scores under every rule
 * family, and a differential check against GNU Go's final_score on finished random games.
 * Positions are ASCII diagrams, top row first; expected areas use X / O / . for black / white /
 * neither. */
#include <check.h>
#include <ctype.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "go/board.h"
#include "go/game.h"
#include "go/rules.h"
#include "go/score.h"
#include "tests/common.h"
#include "tests/gnugo_pipe.h"

#define GNUGO_REPLY_TIMEOUT_MS 60000   /* the longest wait for one reply of GNU Go */

/* Diagram of an area map: one row per line, X / O / . */
static void area_text(int size, const uint8_t *area, char *out)
{
    for (int y = 0; y < size; y++) {
        for (int x = 0; x < size; x++) {
            uint8_t a = area[go_point_at(x, y)];
            *out++ = a == GO_BLACK ? 'X' : a == GO_WHITE ? 'O' : '.';
        }
        *out++ = '\n';
    }
    *out = 0;
}

/* The diagram without whitespace, for comparing pictures however they are laid out. */
static void squeeze(const char *in, char *out)
{
    for (; *in; in++)
        if (!isspace((unsigned char)*in))
            *out++ = *in;
    *out = 0;
}

/* Checks go_benson_area of the position against the expected map, and that the one-colour maps
 * are its two disjoint halves with nothing marked off the board. */
static void expect_area(const char *name, int size, const char *pic, bool suicide,
                        const char *want)
{
    go_board b;
    test_board_from(&b, size, pic);
    uint8_t area[GO_POINTS], black[GO_POINTS], white[GO_POINTS];
    go_benson_area(&b, suicide, area);
    char got[GO_POINTS * 2], got_flat[GO_POINTS], want_flat[GO_POINTS];
    area_text(size, area, got);
    squeeze(got, got_flat);
    squeeze(want, want_flat);
    ck_assert_msg(strcmp(got_flat, want_flat) == 0, "%s (multi-stone suicide %s): got\n%s", name,
                  suicide ? "on" : "off", got);

    go_benson_area_for(&b, GO_BLACK, suicide, black);
    go_benson_area_for(&b, GO_WHITE, suicide, white);
    for (int p = 0; p < GO_POINTS; p++) {
        if (!go_board_on(&b, p)) {
            ck_assert_msg(area[p] == GO_EMPTY, "%s: point %d off the board is marked", name, p);
            continue;
        }
        ck_assert_msg(black[p] == GO_EMPTY || black[p] == GO_BLACK, "%s: black map", name);
        ck_assert_msg(white[p] == GO_EMPTY || white[p] == GO_WHITE, "%s: white map", name);
        ck_assert_msg(!(black[p] && white[p]), "%s: both colours own point %d", name, p);
        ck_assert_msg(area[p] == (black[p] | white[p]), "%s: one-colour maps differ at %d", name,
                      p);
    }
}

static void expect_area_both(const char *name, int size, const char *pic, const char *want)
{
    expect_area(name, size, pic, false, want);
    expect_area(name, size, pic, true, want);
}

static const char *const all_empty_9 = ". . . . . . . . . "
                                       ". . . . . . . . . "
                                       ". . . . . . . . . "
                                       ". . . . . . . . . "
                                       ". . . . . . . . . "
                                       ". . . . . . . . . "
                                       ". . . . . . . . . "
                                       ". . . . . . . . . "
                                       ". . . . . . . . . ";

/* ---- KataGo's cpp/tests/testboardarea.cpp positions, modes "Safe big territories 0, Unsafe big
 * territories 0, Non pass alive stones 0", suicide 0 and 1 (star points typed as '.'). ---- */

START_TEST(katago_area_1)
{
    const char *pic = "..o.o.xx."
                      ".oooo.x.x"
                      "oo.....xx"
                      "........."
                      "........."
                      "x......oo"
                      ".xx...o.o"
                      "x.x..oo.o"
                      ".x.x.o.o.";
    const char *want = "......XXX"
                       "......XXX"
                       ".......XX"
                       "........."
                       "........."
                       ".......OO"
                       "......OOO"
                       ".....OOOO"
                       ".....OOOO";
    expect_area_both("Area 1", 9, pic, want);
}
END_TEST

START_TEST(katago_area_2_suicide_differs)
{
    /* A black stone in white's corner eye: it touches only one of white's chains, so with
     * multi-stone suicide legal the eye stops being vital for the top chain and every white
     * chain, then black's group, falls in turn. */
    const char *pic = "x.oooooo."
                      "oox..xx.o"
                      "o...xox.o"
                      "o...x.x.o"
                      "oxxx.xx.o"
                      "ox..x...o"
                      "o.xox...o"
                      "o.xxx...o"
                      ".ooooooo.";
    const char *want = "OOOOOOOOO"
                       "OO...XX.O"
                       "O...XXX.O"
                       "O...XXX.O"
                       "OXXXXXX.O"
                       "OXXXX...O"
                       "O.XXX...O"
                       "O.XXX...O"
                       "OOOOOOOOO";
    expect_area("Area 2", 9, pic, false, want);
    expect_area("Area 2", 9, pic, true, all_empty_9);

    const char *pic2 = "..oooooo."
                       "oox..xx.o"
                       "o...xox.o"
                       "o...x.x.o"
                       "oxxx.xx.o"
                       "ox..x...o"
                       "o.x.x...o"
                       "o.xxx...o"
                       ".ooooooo.";
    expect_area_both("Area 2 second board", 9, pic2, all_empty_9);
}
END_TEST

START_TEST(katago_area_3)
{
    const char *pic = "o.o....xx......o..o"
                      ".oo.xxx.x......ooo."
                      "xo..x..xx........oo"
                      "oo..xxx............"
                      "..................."
                      ".......xx.........."
                      "....xxx.x......xxx."
                      "....xo.xx......x.x."
                      "....xxx........x.x."
                      "xxx.....xxxxx...x.x"
                      "..x.....x...x...xx."
                      "o.xxx...x...x....xx"
                      "o.x.x...x...xxx...."
                      "..xxx...x...x.x...."
                      "xxx.....xxxxxxx...."
                      "oo................."
                      ".o.....oo.oo......o"
                      ".oooo.o.o.o.o.oooo."
                      "o..o.o.oo.oo.o.o.o.";
    const char *want0 = "OOO................"
                        "OOO................"
                        "OO................."
                        "OO................."
                        "..................."
                        ".......XX.........."
                        "....XXXXX......XXX."
                        "....XXXXX......XXX."
                        "....XXX........XXX."
                        "XXX.............XXX"
                        "..X.............XXX"
                        "..XXX............XX"
                        "..XXX.............."
                        "..XXX.............."
                        "XXX................"
                        "..................."
                        "..........OO......."
                        "..........OOO.OOOO."
                        "..........OOOOOOOO.";
    const char *want1 = "..................."
                        "..................."
                        "..................."
                        "..................."
                        "..................."
                        "..................."
                        "...............XXX."
                        "...............XXX."
                        "...............XXX."
                        "................XXX"
                        "................XXX"
                        ".................XX"
                        "..................."
                        "..................."
                        "..................."
                        "..................."
                        "..........OO......."
                        "..........OOO.OOOO."
                        "..........OOOOOOOO.";
    expect_area("Area 3", 19, pic, false, want0);
    expect_area("Area 3", 19, pic, true, want1);
}
END_TEST

START_TEST(katago_area_4)
{
    const char *pic = ".x.x.xxxx.xxxx.x.x."
                      "x.xxxx..x.x..xxxx.x"
                      "xx.x..x.x.x.x..x.x."
                      "x.x.xx.xx.xx.xx.x.x"
                      ".x.xx.xx...xx.xx.x."
                      ".x.x...........x.x."
                      "x.x.............x.x"
                      ".x...............x."
                      "..................."
                      "xxx.....xxxxx......"
                      "..x.....x...x.xxxxx"
                      "oxxxx...x..xx.x...."
                      "o.x.x...x.o.xxx...."
                      "..xxx...x...x.x...."
                      "xxx.....xxxxxxxxxxx"
                      "..............o...."
                      "ooooo....ooooo.oooo"
                      ".o..oo...o...ooo..."
                      "o.o.xo...o.o.o.o.oo";
    const char *want0 = "XXXXXXXXX.........."
                        "XXXXXX..X.........."
                        "XX.X....X.........."
                        "X......XX.........."
                        "......XX..........."
                        "..................."
                        "..................."
                        "..................."
                        "..................."
                        "XXX.....XXXXX......"
                        "XXX.....XXXXX.XXXXX"
                        "XXXXX...XXXXX.X...."
                        "XXXXX...XXXXXXX...."
                        "XXXXX...XXXXXXX...."
                        "XXX.....XXXXXXXXXXX"
                        "..................."
                        "..................."
                        "..................."
                        "...................";
    const char *want1 = "XXXXXXXXX.........."
                        "XXXXXX..X.........."
                        "XX.X....X.........."
                        "X......XX.........."
                        "......XX..........."
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
                        "..................."
                        "..................."
                        "...................";
    expect_area("Area 4", 19, pic, false, want0);
    expect_area("Area 4", 19, pic, true, want1);
}
END_TEST

START_TEST(katago_pass_alive_bug)
{
    const char *pic = ". O . O O X X O ."
                      "O . O . O O X X O"
                      "O O O O O O X . X"
                      "O X O . O O X X X"
                      "X X O O O O X X ."
                      ". X O O O X X X ."
                      ". X O O O O O O X"
                      "O X X O X X X X X"
                      ". X X X . X . . .";
    const char *want = "OOOOOXXXX"
                       "OOOOOOXXX"
                       "OOOOOOXXX"
                       "OXOOOOXXX"
                       "XXOOOOXXX"
                       "XXOOOXXXX"
                       "XXOOOOOOX"
                       "XXXOXXXXX"
                       "XXXXXXXXX";
    expect_area_both("Pass alive bug-derived", 9, pic, want);
}
END_TEST

START_TEST(katago_simple_and_colours)
{
    const char *pic = "..ooo.."
                      "..xxx.."
                      "xxxxxxx"
                      ".....x."
                      "ooooox."
                      ".o..oxx"
                      ".x..ox.";
    const char *want = "......."
                       "..XXX.."
                       "XXXXXXX"
                       ".....XX"
                       ".....XX"
                       ".....XX"
                       ".....XX";
    expect_area_both("One more simple test case", 7, pic, want);

    const char *pic2 = ".oxo.oxo."
                       "ooxoooxxo"
                       "xxxxxxxxx"
                       ".x.x....."
                       "xxxoooooo"
                       "..o.xo.o."
                       "ooooooooo"
                       "xooxxxoxx"
                       ".xox.xox.";
    const char *want2 = "XXXXXXXXX"
                        "XXXXXXXXX"
                        "XXXXXXXXX"
                        "XXXX....."
                        "XXXOOOOOO"
                        "..OOOOOOO"
                        "OOOOOOOOO"
                        "OOOOOOOOO"
                        "OOOOOOOOO";
    expect_area_both("Bug-derived, more colours and orientations", 9, pic2, want2);
}
END_TEST

START_TEST(katago_recursive_safe_position)
{
    const char *pic = ".xx.....o.o.o...xx."
                      "x.x.x...ooooo.x.x.x"
                      "xx.x..oo...o...x.xx"
                      "..x..o.o...o....x.."
                      ".x.x..oo...o...x.x."
                      ".x.x....ooo....xox."
                      "o.x...oo...o....x.."
                      ".x.x.o.o...o...x.x."
                      "..x...oo...o....x.."
                      ".xx.....o.o........"
                      "xooo.....xxxx......"
                      ".x....xxxx..xx....."
                      "x.....x.x....x....."
                      "...o...x.x..xx.o.o."
                      "o.o.oo.xxxxxxoo.o.o"
                      ".o.o...xooooo..o.o."
                      "oox.o..xoxo.o.o.xoo"
                      "o.oo..xxoxoxox.oo.o"
                      ".oo..x..x.x.x...oo.";
    const char *want = "XXX.....OOOOO...XXX"
                       "XXX.....OOOOO...XXX"
                       "XX.........O.....XX"
                       "...........O......."
                       "...........O......."
                       "..................."
                       "..................."
                       "..................."
                       "..................."
                       "..................."
                       ".........XXXX......"
                       "......XXXX..XX....."
                       "......XXX....X....."
                       ".......XXX..XX....."
                       ".......XXXXXX......"
                       ".O.....X.........O."
                       "OO.....X.........OO"
                       "OOOO..XX.......OOOO"
                       "OOO.............OOO";
    expect_area_both("More tests for recursive safe", 19, pic, want);
}
END_TEST

/* ---- KataGo's testboardarea.cpp: the square area-flag and IndependentLife boards ---- */

static const char *const il1 = ".oooxooo.ox..xo.o.."
                               "o.xoxo.xoox..xoooxx"
                               "oooxxxooxxx..xxxxoo"
                               "xxx.xxxxx.x.....xo."
                               "..xxx....xx.....xoo"
                               "................xxx"
                               "xxxxxxxxxxxxxx..xoo"
                               ".............x..xo."
                               "..oo.........x.xxox"
                               "oo.o.......ooxxooox"
                               "xoooo...ooooxoox.x."
                               ".xo.o...o.ox.xoxxxx"
                               "xoooo...ooooxoooooo"
                               "oo.........oooooooo"
                               "xxxxxxxxxxxxxxxxxxx"
                               "oooooox....xooooooo"
                               "xxxo.ox....xo.ooxxx"
                               "..xooox.xx.xooo.x.."
                               "..xo.ox....xo.oox..";

static const char *const il1_00 = "OOOO..............."
                                  "OOOO..............."
                                  "OOO................"
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
                                  "..................."
                                  "OOOOOO............."
                                  "XXXOOO............."
                                  "XXXOOO............."
                                  "XXXOOO.............";

static const char *const il1_10 = "OOOO....O..XX..O..."
                                  "OOOO.......XX......"
                                  "OOO........XX......"
                                  "...X.....X.XXXXX..O"
                                  "XX...XXXX..XXXXX..."
                                  "XXXXXXXXXXXXXXXX..."
                                  "..............XX..."
                                  "..............XX..."
                                  "..............X...."
                                  "..O................"
                                  "O.................X"
                                  "OO.O.....O..X......"
                                  "O.................."
                                  "..................."
                                  "..................."
                                  "OOOOOO.XXXX........"
                                  "XXXOOO.XXXX..O....."
                                  "XXXOOO.X..X......XX"
                                  "XXXOOO.XXXX..O...XX";

static const char *const il1_01 = "OOOOXOOO.OX..XO.O.."
                                  "OOOOXO.XOOX..XOOOXX"
                                  "OOOXXXOOXXX..XXXXOO"
                                  "XXX.XXXXX.X.....XO."
                                  "..XXX....XX.....XOO"
                                  "................XXX"
                                  "XXXXXXXXXXXXXX..XOO"
                                  ".............X..XO."
                                  "..OO.........X.XXOX"
                                  "OO.O.......OOXXOOOX"
                                  ".OOOO...OOOOXOOX.X."
                                  "..O.O...O.OX.XOXXXX"
                                  ".OOOO...OOOOXOOOOOO"
                                  "OO.........OOOOOOOO"
                                  "XXXXXXXXXXXXXXXXXXX"
                                  "OOOOOOX....XOOOOOOO"
                                  "XXXOOOX....XO.OOXXX"
                                  "XXXOOOX.XX.XOOO.X.."
                                  "XXXOOOX....XO.OOX..";

static const char *const il1_11 = "OOOOXOOOOOXXXXOOO.."
                                  "OOOOXO.XOOXXXXOOOXX"
                                  "OOOXXXOOXXXXXXXXXOO"
                                  "XXXXXXXXXXXXXXXXXOO"
                                  "XXXXXXXXXXXXXXXXXOO"
                                  "XXXXXXXXXXXXXXXXXXX"
                                  "XXXXXXXXXXXXXXXXXOO"
                                  ".............XXXXO."
                                  "..OO.........XXXXOX"
                                  "OOOO.......OOXXOOOX"
                                  "OOOOO...OOOOXOOX.XX"
                                  "OOOOO...OOOXXXOXXXX"
                                  "OOOOO...OOOOXOOOOOO"
                                  "OO.........OOOOOOOO"
                                  "XXXXXXXXXXXXXXXXXXX"
                                  "OOOOOOXXXXXXOOOOOOO"
                                  "XXXOOOXXXXXXOOOOXXX"
                                  "XXXOOOXXXXXXOOO.XXX"
                                  "XXXOOOXXXXXXOOOOXXX";

static const char *const il2 = "x.o.ox.......xo.ox."
                               "xo..ox.......xo..ox"
                               "o..ox.........xo..o"
                               "..ox.....o.....xo.."
                               "oox.............xoo"
                               "xx...............xx"
                               "..................."
                               "..xx.............xx"
                               "xxoox......xxx..xoo"
                               "oo.ox...xxxooox.xo."
                               "xoooox.xooooxooxxoo"
                               ".xo.ox.xo.ox.xoxoo."
                               "xoooox.xooooxooxo.x"
                               "ooxxx...xxxoooxxoo."
                               "xx.........xxx..xoo"
                               "xxx..xxx.......xxxx"
                               "oooxxooox...xxxoooo"
                               "xxoooxxoox.xooo.oxx"
                               ".xo.o.xo.oxxo.ooox.";

static const char *const il2_00_s0 = "..............OOO.."
                                     "..............OOOO."
                                     "...............OOOO"
                                     "................OOO"
                                     ".................OO"
                                     "..................."
                                     "..................."
                                     "..................."
                                     "..OO.............OO"
                                     "OOOO.............OO"
                                     "OOOOO............OO"
                                     "OOOOO...........OOO"
                                     "OOOOO...........OOO"
                                     "OO..............OOO"
                                     ".................OO"
                                     "..................."
                                     "...............OOOO"
                                     "............OOOOOOO"
                                     "............OOOOOOO";

static const char *const il2_00_s1 = "..............OOO.."
                                     "..............OOOO."
                                     "...............OOOO"
                                     "................OOO"
                                     ".................OO"
                                     "..................."
                                     "..................."
                                     "..................."
                                     "..OO..............."
                                     "OOOO..............."
                                     "OOOOO.............."
                                     "OOOOO.............."
                                     "OOOOO.............."
                                     "OO................."
                                     "..................."
                                     "..................."
                                     "...............OOOO"
                                     "............OOOOOOO"
                                     "............OOOOOOO";

static const char *const il2_10_s0 = "...O..........OOO.X"
                                     "..OO..........OOOO."
                                     ".OO............OOOO"
                                     "OO..............OOO"
                                     ".................OO"
                                     "..................."
                                     "..................."
                                     "..................."
                                     "..OO.............OO"
                                     "OOOO.............OO"
                                     "OOOOO............OO"
                                     "OOOOO....O..X...OOO"
                                     "OOOOO...........OOO"
                                     "OO..............OOO"
                                     ".................OO"
                                     "..................."
                                     "...............OOOO"
                                     "............OOOOOOO"
                                     "X..O....O...OOOOOOO";

static const char *const il2_10_s1 = "...O..........OOO.X"
                                     "..OO..........OOOO."
                                     ".OO............OOOO"
                                     "OO..............OOO"
                                     ".................OO"
                                     "..................."
                                     "..................."
                                     "..................."
                                     "..OO..............."
                                     "OOOO..............O"
                                     "OOOOO.............."
                                     "OOOOO....O..X......"
                                     "OOOOO.............."
                                     "OO................."
                                     "..................."
                                     "..................."
                                     "...............OOOO"
                                     "............OOOOOOO"
                                     "X..O....O...OOOOOOO";

static const char *const il2_01_s0 = "X.O.OX.......XOOOX."
                                     "XO..OX.......XOOOOX"
                                     "O..OX.........XOOOO"
                                     "..OX.....O.....XOOO"
                                     "OOX.............XOO"
                                     "XX...............XX"
                                     "..................."
                                     "..XX.............XX"
                                     "XXOOX......XXX..XOO"
                                     "OOOOX...XXXOOOX.XOO"
                                     "OOOOOX.XOOOOXOOXXOO"
                                     "OOOOOX.XO.OX.XOXOOO"
                                     "OOOOOX.XOOOOXOOXOOO"
                                     "OOXXX...XXXOOOXXOOO"
                                     "XX.........XXX..XOO"
                                     "XXX..XXX.......XXXX"
                                     "OOOXXOOOX...XXXOOOO"
                                     "XXOOOXXOOX.XOOOOOOO"
                                     ".XO.O.XO.OXXOOOOOOO";

static const char *const il2_01_s1 = "X.O.OX.......XOOOX."
                                     "XO..OX.......XOOOOX"
                                     "O..OX.........XOOOO"
                                     "..OX.....O.....XOOO"
                                     "OOX.............XOO"
                                     "XX...............XX"
                                     "..................."
                                     "..XX.............XX"
                                     "XXOOX......XXX..XOO"
                                     "OOOOX...XXXOOOX.XO."
                                     "OOOOOX.XOOOOXOOXXOO"
                                     "OOOOOX.XO.OX.XOXOO."
                                     "OOOOOX.XOOOOXOOXO.X"
                                     "OOXXX...XXXOOOXXOO."
                                     "XX.........XXX..XOO"
                                     "XXX..XXX.......XXXX"
                                     "OOOXXOOOX...XXXOOOO"
                                     "XXOOOXXOOX.XOOOOOOO"
                                     ".XO.O.XO.OXXOOOOOOO";

static const char *const il2_11_s0 = "X.OOOX.......XOOOXX"
                                     "XOOOOX.......XOOOOX"
                                     "OOOOX.........XOOOO"
                                     "OOOX.....O.....XOOO"
                                     "OOX.............XOO"
                                     "XX...............XX"
                                     "..................."
                                     "..XX.............XX"
                                     "XXOOX......XXX..XOO"
                                     "OOOOX...XXXOOOX.XOO"
                                     "OOOOOX.XOOOOXOOXXOO"
                                     "OOOOOX.XOOOXXXOXOOO"
                                     "OOOOOX.XOOOOXOOXOOO"
                                     "OOXXX...XXXOOOXXOOO"
                                     "XX.........XXX..XOO"
                                     "XXX..XXX.......XXXX"
                                     "OOOXXOOOX...XXXOOOO"
                                     "XXOOOXXOOX.XOOOOOOO"
                                     "XXOOO.XOOOXXOOOOOOO";

static const char *const il2_11_s1 = "X.OOOX.......XOOOXX"
                                     "XOOOOX.......XOOOOX"
                                     "OOOOX.........XOOOO"
                                     "OOOX.....O.....XOOO"
                                     "OOX.............XOO"
                                     "XX...............XX"
                                     "..................."
                                     "..XX.............XX"
                                     "XXOOX......XXX..XOO"
                                     "OOOOX...XXXOOOX.XOO"
                                     "OOOOOX.XOOOOXOOXXOO"
                                     "OOOOOX.XOOOXXXOXOO."
                                     "OOOOOX.XOOOOXOOXO.X"
                                     "OOXXX...XXXOOOXXOO."
                                     "XX.........XXX..XOO"
                                     "XXX..XXX.......XXXX"
                                     "OOOXXOOOX...XXXOOOO"
                                     "XXOOOXXOOX.XOOOOOOO"
                                     "XXOOO.XOOOXXOOOOOOO";

static const char *const a1 = "..o.o.xx."
                              ".oooo.x.x"
                              "oo.....xx"
                              "........."
                              "........."
                              "x......oo"
                              ".xx...o.o"
                              "x.x..oo.o"
                              ".x.x.o.o.";

static const char *const a1_110 = "OO.O..XXX"
                                  "O.....XXX"
                                  ".......XX"
                                  "........."
                                  "........."
                                  ".......OO"
                                  "X.....OOO"
                                  ".X...OOOO"
                                  "X.X..OOOO";

static const char *const a1_111 = "OOOOO.XXX"
                                  "OOOOO.XXX"
                                  "OO.....XX"
                                  "........."
                                  "........."
                                  "X......OO"
                                  "XXX...OOO"
                                  "XXX..OOOO"
                                  "XXXX.OOOO";

static const char *const a2 = "x.oooooo."
                              "oox..xx.o"
                              "o...xox.o"
                              "o...x.x.o"
                              "oxxx.xx.o"
                              "ox..x...o"
                              "o.xox...o"
                              "o.xxx...o"
                              ".ooooooo.";

static const char *const a2_110_s0 = "OOOOOOOOO"
                                     "OO...XX.O"
                                     "O...XXX.O"
                                     "O...XXX.O"
                                     "OXXXXXX.O"
                                     "OXXXX...O"
                                     "O.XXX...O"
                                     "O.XXX...O"
                                     "OOOOOOOOO";

static const char *const a2_110_s1 = "........O"
                                     "........."
                                     "........."
                                     "........."
                                     "....X...."
                                     "........."
                                     "........."
                                     "........."
                                     "O.......O";

static const char *const a2_111_s0 = "OOOOOOOOO"
                                     "OOX..XX.O"
                                     "O...XXX.O"
                                     "O...XXX.O"
                                     "OXXXXXX.O"
                                     "OXXXX...O"
                                     "O.XXX...O"
                                     "O.XXX...O"
                                     "OOOOOOOOO";

static const char *const a2_111_s1 = "X.OOOOOOO"
                                     "OOX..XX.O"
                                     "O...XOX.O"
                                     "O...X.X.O"
                                     "OXXXXXX.O"
                                     "OX..X...O"
                                     "O.XOX...O"
                                     "O.XXX...O"
                                     "OOOOOOOOO";

static const char *const s7 = "..ooo.."
                              "..xxx.."
                              "xxxxxxx"
                              ".....x."
                              "ooooox."
                              ".o..oxx"
                              ".x..ox.";

static const char *const s7_110 = "......."
                                  "..XXX.."
                                  "XXXXXXX"
                                  ".....XX"
                                  ".....XX"
                                  ".....XX"
                                  ".....XX";

static const char *const s7_111 = "..OOO.."
                                  "..XXX.."
                                  "XXXXXXX"
                                  ".....XX"
                                  "OOOOOXX"
                                  ".O..OXX"
                                  ".X..OXX";

/* ---- KataGo's area flags and independent-life area (testboardarea.cpp, the square boards) ----
 * Expected maps are KataGo's outputs for its "Safe big / Unsafe big / Non pass alive stones"
 * modes and its legacy calculateIndependentLifeArea modes (keepTerritories, keepStones). */

/* Compares a map with the expected diagram, naming the case on failure. */
static void expect_map(const char *name, int size, const uint8_t *map, const char *want)
{
    char got[GO_POINTS * 2], got_flat[GO_POINTS], want_flat[GO_POINTS];
    area_text(size, map, got);
    squeeze(got, got_flat);
    squeeze(want, want_flat);
    ck_assert_msg(strcmp(got_flat, want_flat) == 0, "%s: got\n%s", name, got);
}

/* go_area_kata of pic with the flags (safe big, unsafe big, non-pass-alive stones), both suicide
 * rules; want[s] for multi-stone suicide off (0) / on (1). Nothing off the board is marked. */
static void expect_kata_area(const char *name, int size, const char *pic, bool safe_big,
                             bool unsafe_big, bool stones, const char *const want[2])
{
    go_board b;
    test_board_from(&b, size, pic);
    for (int s = 0; s < 2; s++) {
        uint8_t area[GO_POINTS];
        char label[128];
        snprintf(label, sizeof label, "%s, safe %d unsafe %d stones %d suicide %d", name,
                 safe_big, unsafe_big, stones, s);
        go_area_kata(&b, s, stones, safe_big, unsafe_big, area);
        expect_map(label, size, area, want[s]);
        for (int p = 0; p < GO_POINTS; p++)
            ck_assert_msg(go_board_on(&b, p) || area[p] == GO_EMPTY, "%s: off board", label);
    }
}

START_TEST(katago_area_flags)
{
    const char *const a1_same[2] = {a1_110, a1_110}, *const a1_all[2] = {a1_111, a1_111};
    expect_kata_area("Area 1", 9, a1, true, true, false, a1_same);
    expect_kata_area("Area 1", 9, a1, true, true, true, a1_all);
    /* white's unsafe big territory does not take black's pass-alive territory (top left) */
    const char *const a2_110[2] = {a2_110_s0, a2_110_s1}, *const a2_111[2] = {a2_111_s0,
                                                                              a2_111_s1};
    expect_kata_area("Area 2", 9, a2, true, true, false, a2_110);
    expect_kata_area("Area 2", 9, a2, true, true, true, a2_111);
    const char *const s7_same[2] = {s7_110, s7_110}, *const s7_all[2] = {s7_111, s7_111};
    expect_kata_area("One more simple test case", 7, s7, true, true, false, s7_same);
    expect_kata_area("One more simple test case", 7, s7, true, true, true, s7_all);
    /* safe big territories alone add nothing on this board */
    const char *const a1_pass = "......XXX"
                                "......XXX"
                                ".......XX"
                                "........."
                                "........."
                                ".......OO"
                                "......OOO"
                                ".....OOOO"
                                ".....OOOO";
    const char *const a1_safe[2] = {a1_pass, a1_pass};
    expect_kata_area("Area 1", 9, a1, true, false, false, a1_safe);
}
END_TEST

/* go_area_independent_life of pic in KataGo's four modes, both suicide rules: want[mode][s] with
 * mode = keep_territories + 2 * keep_stones, count[s] the expected white-minus-black count. */
static void expect_independent_life(const char *name, int size, const char *pic,
                                    const char *const want[4][2], const int count[2])
{
    go_board b;
    test_board_from(&b, size, pic);
    for (int mode = 0; mode < 4; mode++)
        for (int s = 0; s < 2; s++) {
            uint8_t area[GO_POINTS];
            char label[128];
            bool territories = mode & 1, stones = mode & 2;
            snprintf(label, sizeof label, "%s, keep territories %d stones %d suicide %d", name,
                     territories, stones, s);
            int got = go_area_independent_life(&b, s, territories, stones, area);
            ck_assert_msg(got == count[s], "%s: count %d, want %d", label, got, count[s]);
            expect_map(label, size, area, want[mode][s]);
            for (int p = 0; p < GO_POINTS; p++)
                ck_assert_msg(go_board_on(&b, p) || area[p] == GO_EMPTY, "%s: off board",
                              label);
        }
}

START_TEST(katago_independent_life_1)
{
    const char *const want[4][2] = {
        {il1_00, il1_00}, {il1_10, il1_10}, {il1_01, il1_01}, {il1_11, il1_11}};
    const int count[2] = {1, 1};
    expect_independent_life("IndependentLife 1", 19, il1, want, count);
}
END_TEST

START_TEST(katago_independent_life_2)
{
    /* multi-stone suicide makes the white group on the right edge (rows 9-14) pass-dead */
    const char *const want[4][2] = {{il2_00_s0, il2_00_s1},
                                    {il2_10_s0, il2_10_s1},
                                    {il2_01_s0, il2_01_s1},
                                    {il2_11_s0, il2_11_s1}};
    const int count[2] = {4, 3};
    expect_independent_life("IndependentLife 2", 19, il2, want, count);
}
END_TEST

/* ---- hand-made positions ---- */

START_TEST(two_eyes_live_one_eye_dies)
{
    /* two (here three) single-point eyes: pass-alive, the eyes are territory; the open area
     * below has many points away from black and is not */
    expect_area_both("three eyes", 5,
                     ". X . X . "
                     "X X X X X "
                     ". . . . . "
                     ". . . . . "
                     ". . . . . ",
                     "XXXXX XXXXX ..... ..... .....");
    /* one eye: the outside is not vital, so the group is not pass-alive */
    expect_area_both("one eye", 5,
                     ". X . . . "
                     "X X . . . "
                     ". . . . . "
                     ". . . . . "
                     ". . . . . ",
                     "..... ..... ..... ..... .....");
}
END_TEST

START_TEST(false_eye)
{
    /* The eye at C5 touches the lone stone D5, whose only other neighbour region is the outside:
     * D5 falls, the eye borders a fallen chain, and the group keeps one real eye. */
    expect_area_both("false eye", 5,
                     ". X . X O "
                     "X X X O O "
                     "O O O O . "
                     ". . . . . "
                     ". . . . . ",
                     "..... ..... ..... ..... .....");
    /* the same with D5 joined to the group: two real eyes */
    expect_area_both("real second eye", 5,
                     ". X . X O "
                     "X X X X O "
                     "O O O O O "
                     ". . . . . "
                     ". . . . . ",
                     "XXXX. XXXX. ..... ..... .....");
}
END_TEST

START_TEST(shared_eyes)
{
    /* The lone stone A6 shares both of its eyes with the big chain: each of them is vital for
     * both chains, so both are pass-alive. */
    expect_area_both("chains sharing eyes", 6,
                     "X . X X O . "
                     ". X . X O . "
                     "X X X X O . "
                     "O O O O O . "
                     ". . . . . . "
                     ". . . . . . ",
                     "XXXX.. XXXX.. XXXX.. ...... ...... ......");
    /* five separate stones on 3x3, every empty point a suicide for white */
    expect_area_both("3x3 five stones", 3, "X.X .X. X.X", "XXX XXX XXX");
    /* the plus shape: four corner eyes */
    expect_area_both("3x3 plus", 3, ".X. XXX .X.", "XXX XXX XXX");
    expect_area_both("3x3 one eye", 3, ".X. XX. ...", "... ... ...");
}
END_TEST

START_TEST(enclosed_opponent_and_big_areas)
{
    /* White's two-eyed wall owns the black corner stones: the corner region has a single point
     * (A6) away from white, so black can never make two eyes there. */
    expect_area_both("small region with opponent stones", 6,
                     ". X O . O . "
                     "X X O O O O "
                     "O O O . . . "
                     ". . . . . . "
                     ". . . . . . "
                     ". . . . . . ",
                     "OOOOOO OOOOOO OOO... ...... ...... ......");
    /* A big area behind a living wall is not pass-alive territory, with or without a white
     * stone inside (KataGo marks it only in its "safe big territories" mode). */
    const char *wall = "X X X X X X X "
                       ". X . X . X . "
                       "X X X X X X X "
                       ". X . X . X . ";
    char with_stone[256], empty_inside[256];
    snprintf(with_stone, sizeof with_stone, "%s%s", ". . . . . . . . . . O . . . . . . . . . . ",
             wall);
    snprintf(empty_inside, sizeof empty_inside, "%s%s",
             ". . . . . . . . . . . . . . . . . . . . . ", wall);
    const char *want = "....... ....... ....... XXXXXXX XXXXXXX XXXXXXX XXXXXXX";
    expect_area_both("big area with a white stone", 7, with_stone, want);
    expect_area_both("big empty area", 7, empty_inside, want);
}
END_TEST

START_TEST(seki_is_not_pass_alive)
{
    /* one eye each and one shared liberty (C5): a seki, neither side pass-alive */
    expect_area_both("seki", 5,
                     ". X . O . "
                     "X X X O O "
                     "X X X O O "
                     "X X X O O "
                     "X X X O O ",
                     "..... ..... ..... ..... .....");
}
END_TEST

START_TEST(corners_edges_small_boards)
{
    expect_area_both("2x2 diagonal", 2, "X. .X", "XX XX");
    expect_area_both("2x2 one stone", 2, "X. ..", ".. ..");
    expect_area_both("2x2 empty", 2, ".. ..", ".. ..");
    expect_area_both("2x2 both colours", 2, "XO ..", ".. ..");
    /* an edge group with two eyes on the first line */
    expect_area_both("edge", 5,
                     ". . . . . "
                     ". . . . . "
                     ". . . . . "
                     "X X X X X "
                     ". X . X . ",
                     "..... ..... ..... XXXXX XXXXX");
    /* an empty 19x19 board and a single stone: nothing */
    go_board b;
    go_board_init(&b, 19);
    uint8_t area[GO_POINTS];
    go_benson_area(&b, false, area);
    for (int p = 0; p < GO_POINTS; p++)
        ck_assert_int_eq(area[p], GO_EMPTY);
    go_board_play(&b, go_point_at(3, 3), GO_BLACK);
    go_benson_area(&b, true, area);
    for (int p = 0; p < GO_POINTS; p++)
        ck_assert_int_eq(area[p], GO_EMPTY);
}
END_TEST

/* ---- Tromp-Taylor and final scores ---- */

START_TEST(tromp_taylor_counts)
{
    go_board b;
    uint8_t owner[GO_POINTS];
    /* black 5 stones + 5 territory, white 5 stones + 10 territory */
    test_board_from(&b, 5, ". . . . . X X X X X O O O O O . . . . . . . . . .");
    ck_assert_int_eq(go_score_area_tromp_taylor(&b, owner), -5);
    ck_assert_int_eq(owner[go_point_at(2, 0)], GO_BLACK);
    ck_assert_int_eq(owner[go_point_at(2, 4)], GO_WHITE);
    ck_assert_int_eq(owner[0], GO_EMPTY);
    /* a region reaching both colours is neutral */
    test_board_from(&b, 5, ". . . . . . X . O . . X . O . . X . O . . . . . .");
    ck_assert_int_eq(go_score_area_tromp_taylor(&b, owner), 0);
    ck_assert_int_eq(owner[go_point_at(0, 0)], GO_EMPTY);
    ck_assert_int_eq(owner[go_point_at(1, 1)], GO_BLACK);
    /* black: 6 stones and the two closed points A4, A2; white: its stone; the open right side
     * reaches both colours */
    test_board_from(&b, 4, ". X . . X X . O . X . . X X . .");
    ck_assert_int_eq(go_score_area_tromp_taylor(&b, NULL), 8 - 1);
    /* empty board and full-board single colour */
    go_board_init(&b, 9);
    ck_assert_int_eq(go_score_area_tromp_taylor(&b, NULL), 0);
    go_board_play(&b, go_point_at(4, 4), GO_WHITE);
    ck_assert_int_eq(go_score_area_tromp_taylor(&b, NULL), -81);
}
END_TEST

static void expect_score(const go_game *g, const bool *dead, double want, const char *text)
{
    char buf[32];
    double got = go_score_final(g, dead, NULL);
    ck_assert_msg(got == want, "score %g, want %g", got, want);
    ck_assert_str_eq(go_score_to_text(got, buf, sizeof buf), text);
}

START_TEST(final_area_and_territory)
{
    const char *pic = ". . O . . X X X X X O O O O O . . . . . . . . . .";
    go_game g;
    bool dead[GO_POINTS] = {false};
    dead[go_point_at(2, 0)] = true;

    /* area: black 5 stones + 5 points (the dead stone's point included); white 5 + 10 */
    test_game_from(&g, 5, pic, GO_BLACK, "chinese", 0.5f);
    expect_score(&g, dead, -5.5, "W+5.5");
    uint8_t owner[GO_POINTS];
    go_score_final(&g, dead, owner);
    ck_assert_int_eq(owner[go_point_at(2, 0)], GO_BLACK);
    /* without dead stones the white stone makes the top row neutral */
    expect_score(&g, NULL, 5 - 16 - 0.5, "W+11.5");
    go_game_free(&g);

    /* territory: black 5 points + 1 prisoner (the dead stone) + 3 captures; white 10 */
    test_game_from(&g, 5, pic, GO_BLACK, "japanese", 6.5f);
    g.board.captures[GO_BLACK] = 3;
    g.board.captures[GO_WHITE] = 1;
    expect_score(&g, dead, 5 + 1 + 3 - 10 - 1 - 6.5, "W+8.5");
    go_game_free(&g);

    /* tromp-taylor with integer komi: a jigo */
    test_game_from(&g, 5, ". . . . . X X X X X O O O O O . . . . . . . . . .", GO_BLACK,
                   "tromp-taylor", -5.0f);
    expect_score(&g, NULL, 0, "0");
    go_game_free(&g);
}
END_TEST

START_TEST(final_group_tax)
{
    /* black owns the two outer column pairs (2 groups, 28 points), white the middle (1 group,
     * 21 points) */
    const char *pic = ". X O . O X . "
                      ". X O . O X . "
                      ". X O . O X . "
                      ". X O . O X . "
                      ". X O . O X . "
                      ". X O . O X . "
                      ". X O . O X . ";
    go_game g;
    test_game_from(&g, 7, pic, GO_BLACK, "stone-scoring", 0.0f);
    expect_score(&g, NULL, 28 - 21 - 2 * (2 - 1), "B+5");
    go_game_free(&g);
    test_game_from(&g, 7, pic, GO_BLACK, "chinese", 0.0f);
    expect_score(&g, NULL, 7, "B+7");
    go_game_free(&g);
    /* territory scoring: 14 - 7, the tax applies there too */
    test_game_from(&g, 7, pic, GO_BLACK, "japanese", 0.0f);
    g.rules.tax = GO_TAX_ALL;
    expect_score(&g, NULL, 7 - 2, "B+5");
    go_game_free(&g);
}
END_TEST

START_TEST(final_seki)
{
    /* one eye each, one shared liberty; the eyes are seki territory */
    const char *pic = ". X . O . "
                      "X X X O O "
                      "X X X O O "
                      "X X X O O "
                      "X X X O O ";
    go_game g;
    uint8_t owner[GO_POINTS];
    int black_eye = go_point_at(0, 0), white_eye = go_point_at(4, 0), shared = go_point_at(2, 0);

    test_game_from(&g, 5, pic, GO_BLACK, "japanese", 0.5f);
    expect_score(&g, NULL, -0.5, "W+0.5");
    go_score_final(&g, NULL, owner);
    ck_assert_int_eq(owner[black_eye], GO_EMPTY);
    ck_assert_int_eq(owner[white_eye], GO_EMPTY);
    ck_assert_int_eq(owner[shared], GO_EMPTY);
    ck_assert_int_eq(owner[go_point_at(0, 4)], GO_BLACK);
    /* without the seki rule each eye counts for its owner */
    g.rules.tax = GO_TAX_NONE;
    go_score_final(&g, NULL, owner);
    ck_assert_int_eq(owner[black_eye], GO_BLACK);
    ck_assert_int_eq(owner[white_eye], GO_WHITE);
    go_game_free(&g);

    /* area scoring with the seki rule: the stones count, the eyes do not (13 - 9) */
    test_game_from(&g, 5, pic, GO_BLACK, "chinese", 0.0f);
    g.rules.tax = GO_TAX_SEKI;
    expect_score(&g, NULL, 13 - 9, "B+4");
    g.rules.tax = GO_TAX_NONE;
    expect_score(&g, NULL, 14 - 10, "B+4");
    go_game_free(&g);

    /* groups in seki pay no group tax under stone scoring */
    test_game_from(&g, 5, pic, GO_BLACK, "stone-scoring", 0.0f);
    expect_score(&g, NULL, 13 - 9, "B+4");
    go_game_free(&g);

    /* A chain left in atari is treated as in seki too (KataGo's rule): its eye does not count
     * unless the chain is marked dead, and then its points are white's territory. */
    const char *atari = ". X O . O "
                        "X X O O O "
                        "O O O . O "
                        ". O O O O "
                        "O O . O . ";
    test_game_from(&g, 5, atari, GO_BLACK, "japanese", 0.0f);
    expect_score(&g, NULL, 0 - 5, "W+5");
    g.rules.tax = GO_TAX_NONE;
    expect_score(&g, NULL, 1 - 5, "W+4");
    bool dead[GO_POINTS] = {false};
    dead[go_point_at(1, 0)] = dead[go_point_at(0, 1)] = dead[go_point_at(1, 1)] = true;
    expect_score(&g, dead, -(5 + 4) - 3, "W+12");
    go_game_free(&g);

    /* Plain dame are not seki: an open point between living groups that either side can fill
     * safely leaves both territories counted under Japanese rules. */
    const char *dame = ". X . O . "
                       "X X . O O "
                       "X X . O . "
                       "X X . O O "
                       ". X . O . ";
    test_game_from(&g, 5, dame, GO_BLACK, "japanese", 0.0f);
    expect_score(&g, NULL, 2 - 3, "W+1");
    go_game_free(&g);
}
END_TEST

/* The number of points a map diagram gives black (X) minus those it gives white (O). */
static int map_lead(const char *map)
{
    int lead = 0;
    for (; *map; map++)
        lead += (*map == 'X') - (*map == 'O');
    return lead;
}

/* Area scoring with a group tax counts KataGo's way: the independent-life area with the seki
 * areas' stones kept (KataGo's "Keep Territories 0 Keep Stones 1" map), and under tax ALL 2 points
 * per independent area (BoardHistory::countAreaScoreWhiteMinusBlack). */
START_TEST(final_area_tax_is_katago)
{
    const struct {
        const char *pic, *kept; /* KataGo's keep-stones map, suicide off */
        int white_minus_black;
    } cases[] = {{il1, il1_01, 1}, {il2, il2_01_s0, 4}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        go_game g;
        test_game_from(&g, 19, cases[i].pic, GO_BLACK, "chinese", 7.5f);
        g.rules.tax = GO_TAX_SEKI;
        g.rules.white_handicap_bonus = GO_WHB_ZERO;
        double base = map_lead(cases[i].kept);
        uint8_t owner[GO_POINTS];
        ck_assert(go_score_final(&g, NULL, owner) == base - 7.5);
        expect_map("area tax SEKI owner", 19, owner, cases[i].kept);
        g.rules.tax = GO_TAX_ALL;
        ck_assert(go_score_final(&g, NULL, NULL) ==
                  base + 2.0 * cases[i].white_minus_black - 7.5);
        go_game_free(&g);
    }
}
END_TEST

START_TEST(final_handicap_and_button)
{
    go_rules r;
    go_game g;
    int pts[9];
    const struct {
        const char *rules;
        double bonus;
    } cases[] = {{"chinese", 4}, {"aga", 3}, {"japanese", 0}, {"tromp-taylor", 0}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ck_assert(go_rules_preset(&r, cases[i].rules));
        ck_assert(go_game_init(&g, 9, &r, 0.5f));
        ck_assert_int_eq(go_game_fixed_handicap(&g, 4, pts), 4);
        double area = r.scoring == GO_SCORING_AREA ? 81 : 77;
        double got = go_score_final(&g, NULL, NULL);
        ck_assert_msg(got == area - cases[i].bonus - 0.5, "%s: %g", cases[i].rules, got);
        go_game_free(&g);
    }

    /* setup stones without white ones count as handicap; with a white stone they do not */
    ck_assert(go_rules_preset(&r, "chinese"));
    ck_assert(go_game_init(&g, 9, &r, 0.0f));
    for (int i = 0; i < 3; i++)
        ck_assert(go_game_setup_stone(&g, go_point_at(2 + 2 * i, 2), GO_BLACK));
    ck_assert(go_score_final(&g, NULL, NULL) == 81 - 3);
    ck_assert(go_game_setup_stone(&g, go_point_at(8, 8), GO_WHITE));
    ck_assert(go_score_final(&g, NULL, NULL) == go_score_area_tromp_taylor(&g.board, NULL));
    go_game_free(&g);

    /* handicap given as an opening run of black moves, as GTP front ends do */
    ck_assert(go_game_init(&g, 9, &r, 0.0f));
    ck_assert_int_eq(go_game_play(&g, go_point_at(2, 2), GO_BLACK), GO_MOVE_OK);
    ck_assert_int_eq(go_game_play(&g, go_point_at(6, 6), GO_BLACK), GO_MOVE_OK);
    ck_assert_int_eq(go_game_play(&g, go_point_at(6, 2), GO_WHITE), GO_MOVE_OK);
    double base = go_score_area_tromp_taylor(&g.board, NULL);
    ck_assert(go_score_final(&g, NULL, NULL) == base - 2);
    /* ...unless white also moves twice: a problem set up move by move */
    ck_assert_int_eq(go_game_play(&g, go_point_at(2, 6), GO_WHITE), GO_MOVE_OK);
    base = go_score_area_tromp_taylor(&g.board, NULL);
    ck_assert(go_score_final(&g, NULL, NULL) == base);
    go_game_free(&g);

    /* one black move is an ordinary game */
    ck_assert(go_game_init(&g, 9, &r, 0.0f));
    ck_assert_int_eq(go_game_play(&g, go_point_at(4, 4), GO_BLACK), GO_MOVE_OK);
    ck_assert(go_score_final(&g, NULL, NULL) == 81);
    go_game_free(&g);

    /* the button: half a point to the first player to pass */
    ck_assert(go_rules_preset(&r, "aga-button"));
    ck_assert(go_game_init(&g, 9, &r, 7.0f));
    ck_assert_int_eq(go_game_play(&g, go_point_at(4, 4), GO_BLACK), GO_MOVE_OK);
    ck_assert_int_eq(go_game_play(&g, GO_PASS, GO_WHITE), GO_MOVE_OK);
    ck_assert_int_eq(go_game_play(&g, GO_PASS, GO_BLACK), GO_MOVE_OK);
    ck_assert(go_score_final(&g, NULL, NULL) == 81 - 0.5 - 7.0);
    go_game_free(&g);
}
END_TEST

START_TEST(score_text)
{
    char buf[32];
    ck_assert_str_eq(go_score_to_text(3.5, buf, sizeof buf), "B+3.5");
    ck_assert_str_eq(go_score_to_text(-0.5, buf, sizeof buf), "W+0.5");
    ck_assert_str_eq(go_score_to_text(0, buf, sizeof buf), "0");
    ck_assert_str_eq(go_score_to_text(-12, buf, sizeof buf), "W+12");
    ck_assert_str_eq(go_score_to_text(361, buf, sizeof buf), "B+361");
}
END_TEST

/* ---- random positions ---- */

static uint64_t rng_next(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* One random move for c that does not fill c's own eye, or GO_PASS when there is none. */
static int random_move(const go_board *b, go_color c, bool suicide, uint64_t *rng)
{
    int cand[GO_POINTS], n = 0;
    for (int i = 0; i < b->num_empty; i++) {
        int p = b->empty[i];
        if (go_board_is_legal(b, p, c, suicide) && !go_board_is_eye(b, p, c))
            cand[n++] = p;
    }
    return n ? cand[rng_next(rng) % (uint64_t)n] : GO_PASS;
}

/* Plays a random game to its end (two passes in a row). Returns false when it runs past the
 * move cap (a long ko cycle), leaving b unspecified. */
static bool random_game(go_board *b, int size, uint64_t *rng)
{
    go_board_init(b, size);
    int passes = 0;
    for (int moves = 0; passes < 2; moves++) {
        if (moves > 6 * size * size)
            return false;
        int p = random_move(b, b->to_move, false, rng);
        passes = p == GO_PASS ? passes + 1 : 0;
        go_board_play(b, p, b->to_move);
    }
    return true;
}

START_TEST(pass_alive_survives_anything)
{
    /* Pass-alive stones cannot be captured and pass-alive territory never holds a pass-alive
     * opponent stone, whatever the opponent plays while the owner passes. */
    uint64_t rng = 0x5C0AE5EEDull;
    int checked = 0;
    for (int iter = 0; iter < 160; iter++) {
        int size = 5 + 2 * (iter % 3);
        bool suicide = iter % 2;
        go_board b;
        go_board_init(&b, size);
        int stop = size * size + (int)(rng_next(&rng) % (uint64_t)(2 * size * size));
        for (int m = 0; m < stop; m++)
            go_board_play(&b, random_move(&b, b.to_move, suicide, &rng), b.to_move);
        go_color owner = iter % 4 < 2 ? GO_BLACK : GO_WHITE, other = go_opponent(owner);
        uint8_t area[GO_POINTS], later[GO_POINTS];
        go_benson_area_for(&b, owner, suicide, area);
        for (int m = 0; m < 3 * size * size; m++) {
            int p = random_move(&b, other, suicide, &rng);
            go_board_play(&b, p, other);
            go_board_play(&b, GO_PASS, owner);
        }
        go_benson_area_for(&b, other, suicide, later);
        for (int p = 0; p < GO_POINTS; p++) {
            if (area[p] != owner)
                continue;
            checked++;
            ck_assert_msg(later[p] != other, "opponent lives in pass-alive area (iter %d)", iter);
        }
        uint8_t before[GO_POINTS];
        go_benson_area_for(&b, owner, suicide, before);
        for (int p = 0; p < GO_POINTS; p++)
            if (area[p] == owner)
                ck_assert_msg(before[p] == owner, "pass-alive area shrank (iter %d)", iter);
    }
    ck_assert_int_gt(checked, 100);
}
END_TEST

/* ---- GNU Go oracle ---- */

/* GNU Go's "B+3.5" / "W+0.5" / "0" as a lead for black. */
static double parse_gtp_score(const char *s)
{
    if (s[0] == '0')
        return 0;
    ck_assert_msg((s[0] == 'B' || s[0] == 'W') && s[1] == '+', "odd score \"%s\"", s);
    double v = strtod(s + 2, NULL);
    return s[0] == 'B' ? v : -v;
}

START_TEST(gnugo_final_score_agrees)
{
    if (!test_gnugo_present(TEST_GNUGO, "test_score: the GNU Go cross-check not run"))
        return;
    signal(SIGPIPE, SIG_IGN);
    static const char *const chinese[] = {"--chinese-rules", NULL};
    gnugo_pipe e;
    ck_assert_msg(gnugo_pipe_open(&e, TEST_GNUGO, chinese, GNUGO_REPLY_TIMEOUT_MS), "%s", e.err);
    char reply[256], cmd[64], v[8];
    uint64_t rng = 0x9E3779B97F4A7C15ull;
    int games = 0;
    while (games < 40) {
        int size = 5 + 2 * (games % 5);
        go_board b;
        if (!random_game(&b, size, &rng))
            continue;
        games++;
        uint8_t owner[GO_POINTS], area[GO_POINTS];
        int mine = go_score_area_tromp_taylor(&b, owner);
        /* only one-point eyes are left, so every chain has two vital eyes and Benson agrees */
        go_benson_area(&b, false, area);
        for (int y = 0; y < size; y++)
            for (int x = 0; x < size; x++) {
                int p = go_point_at(x, y);
                ck_assert_msg(owner[p] != GO_EMPTY, "game %d left a neutral point", games);
                ck_assert_msg(area[p] == owner[p], "game %d: Benson differs from the count",
                              games);
            }
        double komi = games % 2 ? 7.5 : 0.5;
        snprintf(cmd, sizeof cmd, "boardsize %d", size);
        ck_assert(gnugo_pipe_cmd(&e, reply, sizeof reply, "%s", cmd) == 1);
        ck_assert(gnugo_pipe_cmd(&e, reply, sizeof reply, "clear_board") == 1);
        snprintf(cmd, sizeof cmd, "komi %.1f", komi);
        ck_assert(gnugo_pipe_cmd(&e, reply, sizeof reply, "%s", cmd) == 1);
        /* Every chain of the final position keeps an empty eye, so placing its stones in any
         * order never captures anything. */
        for (int p = 0; p < GO_POINTS; p++) {
            if (b.color[p] != GO_BLACK && b.color[p] != GO_WHITE)
                continue;
            snprintf(cmd, sizeof cmd, "play %s %s", b.color[p] == GO_BLACK ? "black" : "white",
                     go_point_to_gtp(size, p, v));
            ck_assert_msg(gnugo_pipe_cmd(&e, reply, sizeof reply, "%s", cmd) == 1,
                          "GNU Go refused %s: %s", cmd, reply);
        }
        ck_assert(gnugo_pipe_cmd(&e, reply, sizeof reply, "final_score") == 1);
        double theirs = parse_gtp_score(reply);
        char board_text[2048];
        go_board_to_ascii(&b, board_text, sizeof board_text);
        ck_assert_msg(theirs == mine - komi, "game %d: GNU Go says %s, we say %g\n%s", games,
                      reply, mine - komi, board_text);
    }
    gnugo_pipe_close(&e);
}
END_TEST

Suite *score_suite(void)
{
    Suite *s = suite_create("score");
    TCase *benson = tcase_create("benson");
    tcase_add_test(benson, katago_area_1);
    tcase_add_test(benson, katago_area_2_suicide_differs);
    tcase_add_test(benson, katago_area_3);
    tcase_add_test(benson, katago_area_4);
    tcase_add_test(benson, katago_pass_alive_bug);
    tcase_add_test(benson, katago_simple_and_colours);
    tcase_add_test(benson, katago_recursive_safe_position);
    tcase_add_test(benson, two_eyes_live_one_eye_dies);
    tcase_add_test(benson, false_eye);
    tcase_add_test(benson, shared_eyes);
    tcase_add_test(benson, enclosed_opponent_and_big_areas);
    tcase_add_test(benson, seki_is_not_pass_alive);
    tcase_add_test(benson, corners_edges_small_boards);
    tcase_add_test(benson, pass_alive_survives_anything);
    suite_add_tcase(s, benson);

    TCase *kata = tcase_create("katago_area");
    tcase_add_test(kata, katago_area_flags);
    tcase_add_test(kata, katago_independent_life_1);
    tcase_add_test(kata, katago_independent_life_2);
    suite_add_tcase(s, kata);

    TCase *score = tcase_create("score");
    tcase_add_test(score, tromp_taylor_counts);
    tcase_add_test(score, final_area_and_territory);
    tcase_add_test(score, final_group_tax);
    tcase_add_test(score, final_seki);
    tcase_add_test(score, final_area_tax_is_katago);
    tcase_add_test(score, final_handicap_and_button);
    tcase_add_test(score, score_text);
    suite_add_tcase(s, score);

    TCase *oracle = tcase_create("gnugo");
    tcase_set_timeout(oracle, 300);
    tcase_add_test(oracle, gnugo_final_score_agrees);
    suite_add_tcase(s, oracle);
    return s;
}

int main(void) { return test_run_suite(score_suite()); }
