/* tests/test_board.c -- the rules core: board, chains, captures, ko, superko, suicide, undo,
 * vertices, handicap, rules presets. Positions are written as ASCII diagrams (top row first). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "go/board.h"
#include "go/game.h"
#include "go/playout.h"
#include "go/rules.h"
#include "tests/common.h"

/* A game whose setup position is the diagram, with to_move and rules as given (komi 7.5). */
static void game_from(go_game *g, int size, const char *pic, go_color to_move, const char *rules)
{
    test_game_from(g, size, pic, to_move, rules, 7.5f);
    test_assert_sound(&g->board);
}

static void assert_board_is(const go_board *b, const char *pic)
{
    go_board want;
    test_board_from(&want, b->size, pic);
    for (int p = 0; p < GO_POINTS; p++)
        if (want.color[p] != b->color[p]) {
            char buf[2048], v[8];
            go_board_to_ascii(b, buf, sizeof buf);
            ck_abort_msg("board differs at %s:\n%s", go_point_to_gtp(b->size, p, v), buf);
        }
}

START_TEST(vertices_round_trip)
{
    char buf[8];
    for (int size = GO_MIN_SIZE; size <= GO_MAX_SIZE; size++)
        for (int y = 0; y < size; y++)
            for (int x = 0; x < size; x++) {
                int p = go_point_at(x, y);
                ck_assert_int_eq(go_point_from_gtp(size, go_point_to_gtp(size, p, buf)), p);
            }
    ck_assert_str_eq(go_point_to_gtp(19, go_point_at(0, 18), buf), "A1");
    ck_assert_str_eq(go_point_to_gtp(19, go_point_at(8, 0), buf), "J19");
    ck_assert_int_eq(go_point_from_gtp(19, "t19"), go_point_at(18, 0));
    ck_assert_int_eq(go_point_from_gtp(19, "PASS"), GO_PASS);
    const char *bad[] = {"I5", "A0", "A20", "U1", "", "A", "5A", "A1x", "Z9", "A01", "A-1"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        ck_assert_msg(go_point_from_gtp(19, bad[i]) == GO_NO_POINT, "accepted %s", bad[i]);
    ck_assert_int_eq(go_point_from_gtp(9, "K1"), GO_NO_POINT);
    ck_assert_int_eq(go_point_from_gtp(9, "A10"), GO_NO_POINT);
}
END_TEST

START_TEST(sizes)
{
    go_board b;
    ck_assert(!go_board_init(&b, 1));
    ck_assert(!go_board_init(&b, 20));
    ck_assert(!go_board_init(&b, -5));
    for (int s = GO_MIN_SIZE; s <= GO_MAX_SIZE; s++) {
        ck_assert(go_board_init(&b, s));
        ck_assert_int_eq(b.num_empty, s * s);
        test_assert_sound(&b);
    }
}
END_TEST

/* Rectangles (KataGo's rectangular_boardsize): every point named and found again, the points
 * beyond the width or height off the board, random games sound, fixed handicap refused. */
START_TEST(rectangles)
{
    static const int dims[][2] = {{2, 19}, {19, 2}, {9, 13}, {13, 9}, {5, 7}};
    go_board b;
    ck_assert(!go_board_init_rect(&b, 9, 20));
    ck_assert(!go_board_init_rect(&b, 1, 9));
    uint64_t rng = 99;
    char buf[16];
    for (size_t i = 0; i < sizeof dims / sizeof dims[0]; i++) {
        int w = dims[i][0], h = dims[i][1];
        ck_assert(go_board_init_rect(&b, w, h));
        ck_assert_int_eq(b.num_empty, w * h);
        ck_assert_int_eq(b.size, w > h ? w : h);
        ck_assert(!go_board_square(&b));
        test_assert_sound(&b);
        for (int y = 0; y < GO_MAX_SIZE; y++)
            for (int x = 0; x < GO_MAX_SIZE; x++) {
                int p = go_point_at(x, y);
                ck_assert_int_eq(go_board_on(&b, p), x < w && y < h);
                if (x < w && y < h)
                    ck_assert_int_eq(go_board_parse_vertex(&b, go_board_vertex(&b, p, buf)), p);
            }
        /* the first column past the width, the row above the top: no vertices */
        snprintf(buf, sizeof buf, "%c1", 'A' + w + (w >= 8));
        ck_assert_int_eq(go_board_parse_vertex(&b, buf), GO_NO_POINT);
        snprintf(buf, sizeof buf, "A%d", h + 1);
        ck_assert_int_eq(go_board_parse_vertex(&b, buf), GO_NO_POINT);
        snprintf(buf, sizeof buf, "A%d", h);
        ck_assert_int_eq(go_board_parse_vertex(&b, buf), go_point_at(0, 0));
        for (int game = 0; game < 10; game++) {
            ck_assert(go_board_init_rect(&b, w, h));
            for (int k = 0, passes = 0; k < 3 * w * h && passes < 2; k++) {
                int p = go_playout_pick(&b, &rng);
                go_board_play(&b, p, b.to_move);
                test_assert_sound(&b);
                passes = p == GO_PASS ? passes + 1 : 0;
            }
        }
    }
    /* a 9 wide, 13 high diagram: 13 rows of 9 points between the coordinates */
    ck_assert(go_board_init_rect(&b, 9, 13));
    char pic[1024];
    go_board_to_ascii(&b, pic, sizeof pic);
    ck_assert_ptr_nonnull(strstr(pic, "13  . . . . . . . . . 13\n"));
    ck_assert_ptr_nonnull(strstr(pic, "    A B C D E F G H J\n"));
    ck_assert_ptr_null(strstr(pic, "14"));
    go_game g;
    ck_assert(go_game_init_rect(&g, 9, 13, NULL, 7.5f));
    ck_assert_int_eq(go_game_fixed_handicap(&g, 2, NULL), 0);
    int j13 = go_board_parse_vertex(&g.board, "J13");
    ck_assert_int_eq(go_game_play(&g, j13, GO_BLACK), GO_MOVE_OK);
    go_game_clear(&g);
    ck_assert_int_eq(g.board.width * 100 + g.board.height, 913);
    ck_assert_int_eq(g.board.num_empty, 117);
    go_game_free(&g);
}
END_TEST

START_TEST(capture_and_liberties)
{
    go_game g;
    game_from(&g, 5,
              ". . . . ."
              ". X O . ."
              "X O . O ."
              ". X O . ."
              ". . . . .",
              GO_BLACK, "japanese");
    int b2 = test_point(5, "C3");
    ck_assert_int_eq(go_board_libs(&g.board, test_point(5, "B3")), 1);
    ck_assert_int_eq(go_game_play(&g, b2, GO_BLACK), GO_MOVE_OK);
    test_assert_sound(&g.board);
    ck_assert_int_eq(g.board.captures[GO_BLACK], 1);
    ck_assert_int_eq(g.board.color[test_point(5, "B3")], GO_EMPTY);
    /* the lone black stone at C3 sits in atari inside white's mouth */
    ck_assert_int_eq(go_board_libs(&g.board, b2), 1);
    go_game_free(&g);
}
END_TEST

START_TEST(simple_ko)
{
    go_game g;
    game_from(&g, 5,
              ". . . . ."
              ". X O . ."
              "X . X O ."
              ". X O . ."
              ". . . . .",
              GO_WHITE, "japanese");
    ck_assert_int_eq(go_game_play(&g, test_point(5, "B3"), GO_WHITE), GO_MOVE_OK);
    ck_assert_int_eq(g.board.captures[GO_WHITE], 1);
    ck_assert_int_eq(g.board.ko_point, test_point(5, "C3"));
    ck_assert_int_eq(go_game_legal(&g, test_point(5, "C3"), GO_BLACK), GO_MOVE_KO);
    /* a ko threat elsewhere lifts the ban */
    ck_assert_int_eq(go_game_play(&g, test_point(5, "E5"), GO_BLACK), GO_MOVE_OK);
    ck_assert_int_eq(go_game_play(&g, test_point(5, "E1"), GO_WHITE), GO_MOVE_OK);
    ck_assert_int_eq(go_game_play(&g, test_point(5, "C3"), GO_BLACK), GO_MOVE_OK);
    ck_assert_int_eq(go_game_legal(&g, test_point(5, "B3"), GO_WHITE), GO_MOVE_KO);
    test_assert_sound(&g.board);
    /* undo restores the earlier ban exactly */
    ck_assert(go_game_undo(&g));
    ck_assert_int_eq(g.board.color[test_point(5, "C3")], GO_EMPTY);
    ck_assert(go_game_undo(&g));
    ck_assert(go_game_undo(&g));
    ck_assert_int_eq(go_game_legal(&g, test_point(5, "C3"), GO_BLACK), GO_MOVE_KO);
    ck_assert(go_game_undo(&g));
    ck_assert(!go_game_undo(&g));
    assert_board_is(&g.board, ". . . . ."
                              ". X O . ."
                              "X . X O ."
                              ". X O . ."
                              ". . . . .");
    go_game_free(&g);
}
END_TEST

START_TEST(snapback)
{
    /* First a plain capture of three stones in the corner. */
    go_game g;
    game_from(&g, 5,
              ". . . . ."
              ". . . . ."
              "X X X . ."
              "O O X . ."
              ". O X . .",
              GO_BLACK, "japanese");
    ck_assert_int_eq(go_game_play(&g, test_point(5, "A1"), GO_BLACK), GO_MOVE_OK);
    ck_assert_int_eq(g.board.captures[GO_BLACK], 3);
    assert_board_is(&g.board, ". . . . ."
                              ". . . . ."
                              "X X X . ."
                              ". . X . ."
                              "X . X . .");
    go_game_free(&g);

    game_from(&g, 6,
              ". . . . . ."
              ". . . . . ."
              ". . . . . ."
              "X X X X . ."
              "O O O X . ."
              ". . O X . .",
              GO_BLACK, "japanese");
    /* Snapback: black throws in at B1, white takes with A1, black retakes five at B1. */
    ck_assert_int_eq(go_game_play(&g, test_point(6, "B1"), GO_BLACK), GO_MOVE_OK);
    ck_assert_int_eq(go_game_play(&g, test_point(6, "A1"), GO_WHITE), GO_MOVE_OK);
    ck_assert_int_eq(g.board.captures[GO_WHITE], 1);
    ck_assert_int_eq(g.board.ko_point, 0); /* two stones recaptured is not a ko */
    ck_assert_int_eq(go_game_play(&g, test_point(6, "B1"), GO_BLACK), GO_MOVE_OK);
    ck_assert_int_eq(g.board.captures[GO_BLACK], 5);
    assert_board_is(&g.board, ". . . . . ."
                              ". . . . . ."
                              ". . . . . ."
                              "X X X X . ."
                              ". . . X . ."
                              ". X . X . .");
    test_assert_sound(&g.board);
    go_game_free(&g);
}
END_TEST

START_TEST(suicide_rules)
{
    const char *pic = ". X . ."
                      "X . X ."
                      "O X . ."
                      ". O . .";
    go_game g;
    /* single-stone suicide is illegal under every rule set */
    game_from(&g, 4, pic, GO_WHITE, "tromp-taylor");
    ck_assert_int_eq(go_game_legal(&g, test_point(4, "B3"), GO_WHITE), GO_MOVE_SUICIDE);
    ck_assert_int_eq(go_game_legal(&g, test_point(4, "A4"), GO_WHITE), GO_MOVE_SUICIDE);
    go_game_free(&g);

    /* multi-stone suicide: white A2+A1 chain fills its last liberty */
    const char *pic2 = ". . . ."
                       "X X . ."
                       "O X . ."
                       ". X . .";
    game_from(&g, 4, pic2, GO_WHITE, "tromp-taylor");
    ck_assert_int_eq(go_game_play(&g, test_point(4, "A1"), GO_WHITE), GO_MOVE_OK);
    ck_assert_int_eq(g.board.captures[GO_BLACK], 2);
    ck_assert_int_eq(g.board.color[test_point(4, "A2")], GO_EMPTY);
    ck_assert_int_eq(g.board.color[test_point(4, "A1")], GO_EMPTY);
    test_assert_sound(&g.board);
    go_game_free(&g);
    game_from(&g, 4, pic2, GO_WHITE, "japanese");
    ck_assert_int_eq(go_game_legal(&g, test_point(4, "A1"), GO_WHITE), GO_MOVE_SUICIDE);
    go_game_free(&g);
    game_from(&g, 4, pic2, GO_WHITE, "new-zealand");
    ck_assert_int_eq(go_game_legal(&g, test_point(4, "A1"), GO_WHITE), GO_MOVE_OK);
    go_game_free(&g);

    /* a move that fills its own last liberty but captures is not suicide */
    game_from(&g, 4,
              ". O X ."
              "O X . ."
              "X . . ."
              ". . . .",
              GO_BLACK, "japanese");
    ck_assert_int_eq(go_game_play(&g, test_point(4, "A4"), GO_BLACK), GO_MOVE_OK);
    ck_assert_int_eq(g.board.captures[GO_BLACK], 2);
    test_assert_sound(&g.board);
    go_game_free(&g);
}
END_TEST

/* Triple ko: three kos on one board. Each ko toggles between "black stone at c, white takes at
 * b" and "white stone at b, black takes at c"; with two kos open for white and one for black the
 * capture is forced every turn and the whole board cycles every six moves. Simple ko allows the
 * cycle forever; positional and situational superko end it. */
START_TEST(triple_ko_superko)
{
    const char *pic = ". . . . . . . . . . ."
                      ". . X O . . . . . . ."
                      ". X . X O . . . . . ."
                      ". . X O . . . . . . ."
                      ". . X O . . . . . . ."
                      ". X O . O . . . . . ."
                      ". . X O . . . . . . ."
                      ". . X O . . . . . . ."
                      ". X . X O . . . . . ."
                      ". . X O . . . . . . ."
                      ". . . . . . . . . . .";
    const char *rules[] = {"japanese", "tromp-taylor", "aga"};
    for (int r = 0; r < 3; r++) {
        go_game g;
        game_from(&g, 11, pic, GO_WHITE, rules[r]);
        int moves = 0;
        for (int step = 0; step < 24; step++) {
            go_color c = g.board.to_move;
            int capture = 0, legal = 0;
            for (int y = 0; y < 11; y++)
                for (int x = 0; x < 11; x++) {
                    int p = go_point_at(x, y);
                    if (g.board.color[p] != GO_EMPTY || !go_board_captures(&g.board, p, c))
                        continue;
                    capture++;
                    if (!legal && go_game_legal(&g, p, c) == GO_MOVE_OK)
                        legal = p;
                }
            ck_assert_int_eq(capture, 2); /* two kos to take (after move one, one is banned) */
            if (!legal)
                break;
            ck_assert_int_eq(go_game_play(&g, legal, c), GO_MOVE_OK);
            test_assert_sound(&g.board);
            moves++;
        }
        if (r == 0)
            ck_assert_msg(moves == 24, "simple ko allows the cycle, got %d moves", moves);
        else
            ck_assert_msg(moves == 5, "superko (%s) must stop the sixth capture, got %d moves",
                          rules[r], moves);
        go_game_free(&g);
    }
}
END_TEST

START_TEST(superko_direct)
{
    /* Positional superko: retaking the ko recreates the position before white's capture, and
     * still does after both sides pass. */
    const char *pic = ". . . . ."
                      ". X O . ."
                      "X . X O ."
                      ". X O . ."
                      ". . . . .";
    go_game g;
    game_from(&g, 5, pic, GO_WHITE, "tromp-taylor");
    ck_assert_int_eq(go_game_play(&g, test_point(5, "B3"), GO_WHITE), GO_MOVE_OK);
    /* positional superko bans the immediate retake, as simple ko would */
    ck_assert_int_eq(go_game_legal(&g, test_point(5, "C3"), GO_BLACK), GO_MOVE_SUPERKO);
    ck_assert_int_eq(go_game_play(&g, GO_PASS, GO_BLACK), GO_MOVE_OK);
    ck_assert_int_eq(go_game_play(&g, GO_PASS, GO_WHITE), GO_MOVE_OK);
    /* still a repetition of the position before white's capture */
    ck_assert_int_eq(go_game_legal(&g, test_point(5, "C3"), GO_BLACK), GO_MOVE_SUPERKO);
    go_game_free(&g);

    /* Situational superko: after the passes the retake recreates the setup position with the
     * same side (white) to move, so it is banned too. */
    game_from(&g, 5, pic, GO_WHITE, "aga");
    ck_assert_int_eq(go_game_play(&g, test_point(5, "B3"), GO_WHITE), GO_MOVE_OK);
    ck_assert_int_eq(go_game_play(&g, GO_PASS, GO_BLACK), GO_MOVE_OK);
    ck_assert_int_eq(go_game_play(&g, GO_PASS, GO_WHITE), GO_MOVE_OK);
    ck_assert_int_eq(go_game_legal(&g, test_point(5, "C3"), GO_BLACK), GO_MOVE_SUPERKO);
    go_game_free(&g);

    /* Simple ko: a pass lifts the ban. */
    game_from(&g, 5, pic, GO_WHITE, "japanese");
    ck_assert_int_eq(go_game_play(&g, test_point(5, "B3"), GO_WHITE), GO_MOVE_OK);
    ck_assert_int_eq(go_game_play(&g, GO_PASS, GO_BLACK), GO_MOVE_OK);
    ck_assert_int_eq(go_game_play(&g, GO_PASS, GO_WHITE), GO_MOVE_OK);
    /* simple ko cleared */
    ck_assert_int_eq(go_game_legal(&g, test_point(5, "C3"), GO_BLACK), GO_MOVE_OK);
    go_game_free(&g);
}
END_TEST

START_TEST(random_playouts_stay_sound)
{
    uint64_t rng = 12345;
    for (int size = 2; size <= 19; size += (size < 9 ? 1 : 5)) {
        for (int game = 0; game < 20; game++) {
            go_board b;
            ck_assert(go_board_init(&b, size));
            int passes = 0;
            for (int i = 0; i < 3 * size * size && passes < 2; i++) {
                int p = go_playout_pick(&b, &rng);
                go_board before = b;
                int cap = go_board_play(&b, p, b.to_move);
                test_assert_sound(&b);
                ck_assert(cap >= 0);
                /* captured stones are exactly the opponent stones that disappeared */
                int gone = 0;
                for (int q = 0; q < GO_POINTS; q++)
                    gone += before.color[q] == go_opponent(before.to_move) &&
                            b.color[q] == GO_EMPTY;
                ck_assert_int_eq(gone, cap);
                passes = p == GO_PASS ? passes + 1 : 0;
            }
        }
    }
}
END_TEST

START_TEST(undo_restores_everything)
{
    go_rules r;
    go_rules_preset(&r, "tromp-taylor");
    go_game g;
    ck_assert(go_game_init(&g, 9, &r, 7.5f));
    uint64_t rng = 99;
    go_board seen[400];
    int n = 0;
    while (n < 300) {
        seen[n] = g.board;
        int p = go_playout_pick(&g.board, &rng);
        if (go_game_play(&g, p, g.board.to_move) != GO_MOVE_OK)
            break;
        n++;
    }
    ck_assert_int_eq(g.num_moves, n);
    while (n > 0) {
        ck_assert(go_game_undo(&g));
        n--;
        ck_assert(memcmp(&g.board, &seen[n], sizeof g.board) == 0);
    }
    go_game_free(&g);
}
END_TEST

START_TEST(handicap_points)
{
    int pts[9];
    char v[8];
    ck_assert_int_eq(go_fixed_handicap_points(19, 9, pts), 9);
    const char *want19[] = {"D4", "Q16", "D16", "Q4", "D10", "Q10", "K4", "K16", "K10"};
    for (int i = 0; i < 9; i++)
        ck_assert_str_eq(go_point_to_gtp(19, pts[i], v), want19[i]);
    ck_assert_int_eq(go_fixed_handicap_points(9, 5, pts), 5);
    ck_assert_str_eq(go_point_to_gtp(9, pts[4], v), "E5");
    ck_assert_int_eq(go_fixed_handicap_points(8, 5, pts), 0);
    ck_assert_int_eq(go_fixed_handicap_points(7, 5, pts), 0);
    ck_assert_int_eq(go_fixed_handicap_points(7, 4, pts), 4);
    ck_assert_int_eq(go_fixed_handicap_points(6, 2, pts), 0);
    ck_assert_int_eq(go_fixed_handicap_points(19, 10, pts), 0);
    ck_assert_int_eq(go_fixed_handicap_points(19, 1, pts), 0);
    go_game g;
    ck_assert(go_game_init(&g, 13, NULL, 0.5f));
    ck_assert_int_eq(go_game_fixed_handicap(&g, 4, pts), 4);
    ck_assert_int_eq(g.board.to_move, GO_WHITE);
    ck_assert_int_eq(g.handicap, 4);
    ck_assert_int_eq(go_game_fixed_handicap(&g, 2, pts), 0); /* board not empty */
    go_game_free(&g);
}
END_TEST

START_TEST(rules_presets)
{
    go_rules r;
    char json[256], err[128];
    ck_assert(go_rules_preset(&r, "Japanese"));
    ck_assert_int_eq(r.scoring, GO_SCORING_TERRITORY);
    ck_assert_int_eq(r.tax, GO_TAX_SEKI);
    ck_assert_str_eq(go_rules_name(&r), "japanese");
    go_rules_to_json(&r, json, sizeof json);
    ck_assert_str_eq(json, "{\"friendlyPassOk\":false,\"hasButton\":false,\"ko\":\"SIMPLE\","
                           "\"scoring\":\"TERRITORY\",\"suicide\":false,\"tax\":\"SEKI\","
                           "\"whiteHandicapBonus\":\"0\"}");
    ck_assert(go_rules_preset(&r, "tromp_taylor"));
    ck_assert(r.multi_stone_suicide && r.ko == GO_KO_POSITIONAL);
    ck_assert(go_rules_preset(&r, "aga"));
    ck_assert_int_eq(r.white_handicap_bonus, GO_WHB_N_MINUS_ONE);
    ck_assert_int_eq(r.ko, GO_KO_SITUATIONAL);
    ck_assert(go_rules_preset(&r, "stone-scoring"));
    ck_assert_int_eq(r.tax, GO_TAX_ALL);
    ck_assert(!go_rules_preset(&r, "martian"));
    ck_assert(go_rules_parse(&r, "{\"ko\":\"POSITIONAL\", \"scoring\":\"AREA\"}", err, 128));
    ck_assert_int_eq(r.ko, GO_KO_POSITIONAL);
    ck_assert_ptr_null(go_rules_name(&r)); /* stone-scoring with positional ko: custom */
    ck_assert(!go_rules_parse(&r, "{\"ko\":\"SOMETIMES\"}", err, 128));
    ck_assert(strstr(err, "ko") != NULL);
    ck_assert(!go_rules_parse(&r, "{\"ko\":", err, 128));
    ck_assert(!go_rules_parse(&r, "{} trailing", err, 128));
    ck_assert(go_rules_parse(&r, "chinese", err, 128));
    ck_assert_str_eq(go_rules_name(&r), "chinese");
}
END_TEST

START_TEST(ascii_rejects_nonsense)
{
    go_board b;
    ck_assert(!go_board_from_ascii(&b, 3, ". . ."));
    ck_assert(!go_board_from_ascii(&b, 3, ". . . . . . . . . ."));
    ck_assert(!go_board_from_ascii(&b, 3, ". . . . ? . . . ."));
    ck_assert(!go_board_from_ascii(&b, 2, "X O O ."));  /* X has no liberty */
    ck_assert(go_board_from_ascii(&b, 2, "X O . ."));
}
END_TEST

Suite *board_suite(void)
{
    Suite *s = suite_create("board");
    TCase *t = tcase_create("core");
    tcase_set_timeout(t, 120);
    tcase_add_test(t, vertices_round_trip);
    tcase_add_test(t, sizes);
    tcase_add_test(t, rectangles);
    tcase_add_test(t, capture_and_liberties);
    tcase_add_test(t, simple_ko);
    tcase_add_test(t, snapback);
    tcase_add_test(t, suicide_rules);
    tcase_add_test(t, triple_ko_superko);
    tcase_add_test(t, superko_direct);
    tcase_add_test(t, random_playouts_stay_sound);
    tcase_add_test(t, undo_restores_everything);
    tcase_add_test(t, handicap_points);
    tcase_add_test(t, rules_presets);
    tcase_add_test(t, ascii_rejects_nonsense);
    suite_add_tcase(s, t);
    return s;
}

int main(void) { return test_run_suite(board_suite()); }
