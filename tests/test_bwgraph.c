/* tests/test_bwgraph.c -- bitboards and the BW Graph Model: set operations, the operators against
 * a plain-loop reference that follows the paper's definitions literally, hand-made diagrams, and
 * the differential test: over 1,200 random games (9x9, 13x13, 19x19) the model's legal sets, atari
 * set, captures and positions equal the board engine's move by move. Then tactical maps: parser,
 * printer, depth, decomposition, evaluation against the model, uniform generation. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "go/bitboard.h"
#include "go/board.h"
#include "go/bwgraph.h"
#include "go/playout.h"
#include "go/tacmap.h"
#include "tests/common.h"

static void assert_bb_eq(go_bb got, go_bb want, int size, const char *what)
{
    if (go_bb_eq(got, want))
        return;
    char g[512], w[512];
    go_bb_to_ascii(got, size, g, sizeof g);
    go_bb_to_ascii(want, size, w, sizeof w);
    ck_abort_msg("%s differs\ngot:\n%swant:\n%s", what, g, w);
}

static go_bw bw_from(int size, const char *pic)
{
    go_board b;
    test_board_from(&b, size, pic);
    go_bw g;
    go_bw_from_board(&g, &b);
    return g;
}

START_TEST(bitboard_basics)
{
    for (int size = GO_MIN_SIZE; size <= GO_MAX_SIZE; size++) {
        go_bb all = go_bb_board(size);
        ck_assert_int_eq(go_bb_count(all), size * size);
        ck_assert(go_bb_is_empty(go_bb_not(all, all)));
        /* The dilation of one corner is the corner and its two neighbours, on every size. */
        go_bb corner = go_bb_single(go_bb_bit_at(size - 1, size - 1));
        ck_assert_int_eq(go_bb_count(go_bb_dilate(corner, all)), 3);
        ck_assert_int_eq(go_bb_count(go_bb_neighbours(go_bb_single(0), all)), 2);
        /* Dilating the left column reaches exactly the second column, never the previous row's
         * last point (the guard column). */
        go_bb left = go_bb_none(), second = go_bb_none();
        for (int y = 0; y < size; y++) {
            go_bb_set(&left, go_bb_bit_at(0, y));
            go_bb_set(&second, go_bb_bit_at(1, y));
        }
        assert_bb_eq(go_bb_andnot(go_bb_dilate(left, all), left), second, size, "left column");
        int n = 0, prev = -1;
        for (int i = go_bb_next(all, 0); i >= 0; i = go_bb_next(all, i + 1)) {
            ck_assert_int_gt(i, prev);
            prev = i;
            n++;
        }
        ck_assert_int_eq(n, size * size);
    }
    go_bb all = go_bb_board(5);
    go_bb a = test_bb_from(5, "##... #.... ..... ..... ....#");
    go_bb b = test_bb_from(5, "#.... ..... ..... ..... #...#");
    assert_bb_eq(go_bb_or(a, b), test_bb_from(5, "##... #.... ..... ..... #...#"), 5, "union");
    assert_bb_eq(go_bb_and(a, b), test_bb_from(5, "#.... ..... ..... ..... ....#"), 5,
                 "intersection");
    assert_bb_eq(go_bb_andnot(a, b), test_bb_from(5, ".#... #.... ..... ..... ....."), 5,
                 "difference");
    assert_bb_eq(go_bb_xor(a, b), test_bb_from(5, ".#... #.... ..... ..... #...."), 5, "xor");
    assert_bb_eq(go_bb_not(a, all), test_bb_from(5, "..### .#### ##### ##### ####."), 5,
                 "complement");
    assert_bb_eq(go_bb_and(go_bb_shift_right(a), all),
                 test_bb_from(5, ".##.. .#... ..... ..... ....."), 5, "shift right");
    assert_bb_eq(go_bb_and(go_bb_shift_down(a), all),
                 test_bb_from(5, "..... ##... #.... ..... ....."), 5, "shift down");
    assert_bb_eq(go_bb_neighbours(a, all), test_bb_from(5, "###.. ##... #.... ....# ...#."), 5,
                 "neighbours");
    ck_assert(go_bb_subset(go_bb_and(a, b), a));
    ck_assert(!go_bb_subset(a, b));
    assert_bb_eq(go_bb_flood(go_bb_not(a, all), go_bb_bit_at(4, 0), all),
                 go_bb_andnot(go_bb_not(a, all), test_bb_from(5, "..... ..... ..... ..... ....#")),
                 5, "flood");
    char buf[64];
    ck_assert_int_eq(go_bb_to_ascii(b, 2, buf, sizeof buf), 6);
    ck_assert_str_eq(buf, "#.\n..\n");
    ck_assert_int_eq(go_bb_to_ascii(b, 5, buf, 10), -1);
}
END_TEST

/* ---- the reference: F from a flood fill of the board, operators by their definitions ---- */

typedef struct ref_model {
    int size;
    go_bb all;
    go_bb f[GO_BB_BITS];   /* F(x) */
    go_bb f0[GO_BB_BITS];  /* F0(x) */
} ref_model;

static void ref_build(ref_model *m, const go_board *b)
{
    m->size = b->size;
    m->all = go_bb_board(b->size);
    go_bb black = go_bb_of_color(b, GO_BLACK), white = go_bb_of_color(b, GO_WHITE);
    for (int i = go_bb_next(m->all, 0); i >= 0; i = go_bb_next(m->all, i + 1)) {
        int x = i % GO_BB_STRIDE, y = i / GO_BB_STRIDE;
        go_bb f0 = go_bb_single(i);
        static const int dx[4] = {1, -1, 0, 0}, dy[4] = {0, 0, 1, -1};
        for (int d = 0; d < 4; d++)
            if (x + dx[d] >= 0 && x + dx[d] < b->size && y + dy[d] >= 0 && y + dy[d] < b->size)
                go_bb_set(&f0, go_bb_bit_at(x + dx[d], y + dy[d]));
        m->f0[i] = f0;
        go_bb chain = go_bb_test(black, i)   ? go_bb_flood(black, i, m->all)
                      : go_bb_test(white, i) ? go_bb_flood(white, i, m->all)
                                             : go_bb_single(i);
        m->f[i] = go_bb_dilate(chain, m->all);
    }
}

/* which: 0 Pre, 1 Suc, 2 Adj */
static go_bb ref_op(const ref_model *m, int which, go_bb a, int n)
{
    go_bb r = go_bb_none();
    for (int x = go_bb_next(m->all, 0); x >= 0; x = go_bb_next(m->all, x + 1)) {
        int k = 0;
        if (which == 0) {
            k = go_bb_count(go_bb_and(m->f[x], a));
        } else if (which == 1) {
            for (int y = go_bb_next(a, 0); y >= 0; y = go_bb_next(a, y + 1))
                k += go_bb_test(m->f[y], x);
        } else {
            k = go_bb_count(go_bb_and(m->f0[x], a));
        }
        if (k >= n)
            go_bb_set(&r, x);
    }
    return r;
}

static go_bb random_set(go_bb all, uint64_t *rng)
{
    go_bb r;
    int density = (int)(go_rand_next(rng) % 4);
    for (int i = 0; i < GO_BB_WORDS; i++) {
        uint64_t x = go_rand_next(rng);
        for (int k = 0; k < density; k++)
            x &= go_rand_next(rng);
        r.w[i] = x;
    }
    return go_bb_and(r, all);
}

static void check_operators(const go_board *b, uint64_t *rng, int sets)
{
    static ref_model m;
    ref_build(&m, b);
    go_bw g;
    go_bw_from_board(&g, b);
    static const char *names[3] = {"Pre", "Suc", "Adj"};
    for (int s = 0; s < sets; s++) {
        go_bb a = s == 0 ? go_bw_empty(&g) : s == 1 ? go_bw_black(&g) : random_set(g.all, rng);
        for (int n = 1; n <= 5; n++) {
            go_bb got[3] = {go_bw_pre(&g, a, n), go_bw_suc(&g, a, n), go_bw_adj(&g, a, n)};
            for (int which = 0; which < 3; which++) {
                char what[32];
                snprintf(what, sizeof what, "%s_%d", names[which], n);
                assert_bb_eq(got[which], ref_op(&m, which, a, n), b->size, what);
            }
        }
    }
    /* F(x) = Suc_1({x}), F^-1(x) = Pre_1({x}), F0(x) = Adj_1({x}) (section 2.3). */
    for (int x = go_bb_next(g.all, 0); x >= 0; x = go_bb_next(g.all, x + 1)) {
        go_bb one = go_bb_single(x);
        assert_bb_eq(go_bw_reach(&g, x), m.f[x], b->size, "F(x)");
        assert_bb_eq(go_bw_suc(&g, one, 1), m.f[x], b->size, "Suc_1({x})");
        assert_bb_eq(go_bw_reached_by(&g, x), ref_op(&m, 0, one, 1), b->size, "F^-1(x)");
        assert_bb_eq(go_bw_adj(&g, one, 1), m.f0[x], b->size, "Adj_1({x})");
    }
}

START_TEST(operators_match_reference)
{
    uint64_t rng = 0x9e3779b97f4a7c15ull;
    static const int sizes[] = {2, 3, 5, 9, 13, 19};
    for (int k = 0; k < 6; k++) {
        for (int game = 0; game < 3; game++) {
            go_board b;
            go_board_init(&b, sizes[k]);
            int moves = (int)(go_rand_next(&rng) % (unsigned)(sizes[k] * sizes[k] * 2));
            for (int i = 0; i < moves; i++)
                go_board_play(&b, go_playout_pick(&b, &rng), b.to_move);
            check_operators(&b, &rng, 6);
        }
    }
}
END_TEST

START_TEST(corners_and_edges)
{
    for (int size = 3; size <= GO_MAX_SIZE; size += 4) {
        go_bw g;
        ck_assert(go_bw_init(&g, size));
        go_bb corners = go_bb_not(go_bw_adj(&g, g.all, 4), g.all);
        go_bb edges = go_bb_not(go_bw_adj(&g, g.all, 5), g.all);
        ck_assert_int_eq(go_bb_count(corners), 4);
        ck_assert(go_bb_test(corners, go_bb_bit_at(size - 1, 0)));
        ck_assert_int_eq(go_bb_count(edges), 4 * (size - 1));
        ck_assert(go_bb_is_empty(go_bb_andnot(g.multi, g.all)));
    }
    go_bw g;
    ck_assert(!go_bw_init(&g, 20));
    ck_assert(!go_bw_init(&g, 1));
}
END_TEST

/* White's three stones and the point between them all have one liberty, that point: it is in H,
 * it is suicide for white and a capture for black (the situation of the paper's figure 4). */
START_TEST(atari_set_and_suicide)
{
    go_bw g = bw_from(5, "O X . . ."
                         ". O X . ."
                         "O X . . ."
                         "X . . . ."
                         ". . . . .");
    assert_bb_eq(go_bw_atari(&g), test_bb_from(5, "##... ##... #.... ..... ....."), 5, "H");
    int i = go_bb_bit_at(0, 1);
    ck_assert(go_bb_test(go_bw_legal(&g, GO_BLACK), i));
    ck_assert(!go_bb_test(go_bw_legal(&g, GO_WHITE), i));
    ck_assert_int_eq(go_bb_count(go_bw_legal(&g, GO_BLACK)), 18); /* every empty point */
    ck_assert_int_eq(go_bb_count(go_bw_legal(&g, GO_WHITE)), 17);
    go_bw_move mv;
    go_bw_play(&g, i, GO_BLACK, &mv);
    assert_bb_eq(mv.captured, test_bb_from(5, "#.... .#... #.... ..... ....."), 5, "d(i)");
    assert_bb_eq(mv.chain, go_bb_single(i), 5, "a(i)");
    assert_bb_eq(go_bw_white(&g), go_bb_none(), 5, "white after capture");
    ck_assert_int_eq(go_bw_color(&g, go_bb_bit_at(0, 0)), GO_EMPTY);
    ck_assert_int_eq(go_bw_color(&g, i), GO_BLACK);
    ck_assert_int_eq(go_bw_color(&g, go_bb_bit_at(5, 0)), GO_BORDER);
}
END_TEST

/* The connection relation of a chain: F of its stones is the chain and its neighbours, F^-1 of
 * an empty point next to it includes the whole chain; F of that empty point is just F0. */
START_TEST(connection_edges_are_directed)
{
    go_bw g = bw_from(4, ". . . ."
                         "X X X ."
                         ". . O ."
                         ". . . .");
    int stone = go_bb_bit_at(0, 1), y = go_bb_bit_at(3, 1);
    assert_bb_eq(go_bw_reach(&g, stone), test_bb_from(4, "###. #### ###. ...."), 4, "F(stone)");
    ck_assert(go_bb_test(go_bw_reached_by(&g, y), stone));  /* stone -> Y */
    ck_assert(!go_bb_test(go_bw_reach(&g, y), stone));      /* but not Y -> stone */
    assert_bb_eq(go_bw_reach(&g, y), test_bb_from(4, "...# ..## ...# ...."), 4, "F(Y)");
    /* Black plays Y: the new chain is the three stones and Y, reaching their union of F. */
    go_bw_move mv;
    go_bw_play(&g, y, GO_BLACK, &mv);
    assert_bb_eq(mv.chain, test_bb_from(4, ".... #### .... ...."), 4, "a(Y)");
    ck_assert_int_eq(g.num_chains, 1);
    assert_bb_eq(go_bw_reach(&g, stone), test_bb_from(4, "#### #### #### ...."), 4, "F'(stone)");
}
END_TEST

/* ---- the differential test ---- */

static void assert_same_position(const go_bw *g, const go_board *b, const char *when)
{
    go_bw fresh;
    go_bw_from_board(&fresh, b);
    TEST_REQUIRE(go_bb_eq(g->b, fresh.b) && go_bb_eq(g->w, fresh.w), "%s: b, w differ", when);
    TEST_REQUIRE(go_bb_eq(g->multi, fresh.multi), "%s: chains differ", when);
    TEST_REQUIRE(g->num_chains == fresh.num_chains, "%s: chain counts differ", when);
    for (int k = 0; k < g->num_chains; k++) {
        int first = go_bb_next(g->chains[k].stones, 0);
        const go_bw_chain *c = &fresh.chains[fresh.chain_of[first]];
        TEST_REQUIRE(go_bb_eq(g->chains[k].stones, c->stones) &&
                               go_bb_eq(g->chains[k].reach, c->reach),
                           "%s: F differs on a chain", when);
    }
}

/* The atari set and legality computed from the engine's chains and liberty counts. */
static void assert_legal_sets(const go_bw *g, const go_board *b, const char *when)
{
    go_bb h = go_bw_atari(g);
    go_bb legal[3] = {go_bb_none(), go_bw_legal(g, GO_BLACK), go_bw_legal(g, GO_WHITE)};
    for (int i = go_bb_next(g->all, 0); i >= 0; i = go_bb_next(g->all, i + 1)) {
        int p = go_bb_point_of(i);
        bool in_h;
        if (b->color[p] == GO_EMPTY) {
            in_h = true;
            for (int d = 0; d < 4; d++)
                in_h &= b->color[p + go_dir4[d]] != GO_EMPTY;
        } else {
            in_h = go_board_libs(b, p) == 1;
        }
        TEST_REQUIRE(go_bb_test(h, i) == in_h, "%s: H differs at bit %d", when, i);
        for (go_color c = GO_BLACK; c <= GO_WHITE; c++) {
            bool engine = go_board_is_legal(b, p, c, false);
            bool model = go_bb_test(legal[c], i);
            if (p == b->ko_point && c == b->to_move)
                TEST_REQUIRE(model && !engine, "%s: ko point should be model-legal only", when);
            else
                TEST_REQUIRE(model == engine, "%s: legality of bit %d for %d: model %d, engine %d",
                                   when, i, c, model, engine);
        }
    }
}

START_TEST(differential_random_games)
{
    uint64_t rng = 0x1234567887654321ull;
    static const int sizes[3] = {9, 13, 19};
    long moves_checked = 0, captures = 0;
    for (int game = 0; game < 1200; game++) {
        int size = sizes[game % 3];
        go_board b;
        go_board_init(&b, size);
        go_bw g;
        go_bw_init(&g, size);
        int passes = 0;
        for (int move = 0; move < 3 * size * size && passes < 2; move++) {
            char when[64];
            snprintf(when, sizeof when, "game %d (%dx%d) move %d", game, size, size, move);
            assert_legal_sets(&g, &b, when);
            int p = go_playout_pick(&b, &rng);
            go_color c = b.to_move;
            if (p == GO_PASS) {
                go_board_play(&b, p, c);
                passes++;
                continue;
            }
            passes = 0;
            go_bb black = go_bb_of_color(&b, GO_BLACK), white = go_bb_of_color(&b, GO_WHITE);
            int bit = go_bb_bit_of(p);
            TEST_REQUIRE(go_bb_test(go_bw_legal(&g, c), bit), "%s: played move not legal", when);
            go_bw_move mv;
            go_bw_play(&g, bit, c, &mv);
            int captured = go_board_play(&b, p, c);
            go_bb opp_before = c == GO_BLACK ? white : black;
            go_bb removed = go_bb_andnot(opp_before, go_bb_of_color(&b, go_opponent(c)));
            TEST_REQUIRE(go_bb_eq(mv.captured, removed), "%s: d(i) differs", when);
            TEST_REQUIRE(go_bb_count(mv.captured) == captured, "%s: capture count differs", when);
            go_bb own = go_bb_of_color(&b, c);
            TEST_REQUIRE(go_bb_eq(mv.chain, go_bb_flood(own, bit, g.all)), "%s: a(i) differs",
                               when);
            assert_same_position(&g, &b, when);
            moves_checked++;
            captures += captured;
        }
    }
    printf("differential: 1200 games, %ld moves, %ld stones captured, all equal\n", moves_checked,
           captures);
    ck_assert_int_gt(moves_checked, 200000);
}
END_TEST

/* ---- tactical maps ---- */

static go_tmap parse_ok(const char *text)
{
    go_tmap m;
    char err[128];
    ck_assert_msg(go_tm_parse(text, &m, err, sizeof err), "'%s': %s", text, err);
    return m;
}

static void assert_prints_as(const char *text, const char *want)
{
    go_tmap m = parse_ok(text);
    char buf[1024];
    ck_assert_int_ge(go_tm_print(&m, buf, sizeof buf), 0);
    ck_assert_str_eq(buf, want);
    go_tmap again = parse_ok(buf);
    ck_assert(go_tm_equal(&m, &again));
}

START_TEST(tacmap_parse_print)
{
    assert_prints_as("b", "b");
    assert_prints_as("  Adj1( b-w )&~Pre2(H)", "Adj1(b - w) & ~Pre2(H)");
    assert_prints_as("b | w & H", "b | w & H");          /* '&' binds tighter */
    assert_prints_as("(b | w) & H", "(b | w) & H");
    assert_prints_as("b - w - H", "b - w - H");          /* left to right */
    assert_prints_as("b - (w - H)", "b - (w - H)");
    assert_prints_as("b & (w & H)", "b & (w & H)");      /* the tree is kept as written */
    assert_prints_as("~(black | white)", "~(black | white)");
    assert_prints_as("~~empty", "~~empty");
    assert_prints_as("nPre3(Suc5(nAdj1(white)))", "nPre3(Suc5(nAdj1(white)))");
    assert_prints_as("((b))", "b");
    /* Depth: leaves 1 (the shorthands too), one more per operator on the longest path. */
    ck_assert_int_eq(go_tm_depth(&(go_tmap){0}), 0);
    go_tmap m = parse_ok("black");
    ck_assert_int_eq(go_tm_depth(&m), 1);
    m = parse_ok("Adj1(b)");
    ck_assert_int_eq(go_tm_depth(&m), 2);
    m = parse_ok("Adj1(b) & w");
    ck_assert_int_eq(go_tm_depth(&m), 3);
    m = parse_ok("nPre2(empty) - ~~H");
    ck_assert_int_eq(go_tm_depth(&m), 4);
    /* A small buffer reports -1 and keeps a terminated prefix. */
    char small[6];
    ck_assert_int_eq(go_tm_print(&m, small, sizeof small), -1);
    ck_assert_str_eq(small, "nPre2");
}
END_TEST

START_TEST(tacmap_parse_errors)
{
    static const struct {
        const char *text, *want;
    } bad[] = {
        {"", "column 1: unexpected end of map"},
        {"b &", "column 4: unexpected end of map"},
        {"Pre(b)", "column 4: Pre needs a threshold 1..5, got '('"},
        {"Pre6(b)", "column 4: Pre needs a threshold 1..5, got '6'"},
        {"Adj1 b", "column 6: expected '(' after Adj1"},
        {"Adj1(b", "column 7: expected ')' to close Adj1("},
        {"(b | w", "column 7: expected ')'"},
        {"b)", "column 2: unexpected ')' after the map"},
        {"foo & b", "column 1: unknown name 'foo'"},
        {"b | | w", "column 5: expected a map, got '|'"},
        {"B", "column 1: unknown name 'B'"},
        {"b w", "column 3: unexpected 'w' after the map"},
        {"~", "column 2: unexpected end of map"},
        {"\x01", "column 1: expected a map, got '\x01'"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        go_tmap m;
        char err[128];
        ck_assert_msg(!go_tm_parse(bad[k].text, &m, err, sizeof err), "'%s' parsed", bad[k].text);
        ck_assert_str_eq(err, bad[k].want);
    }
    /* Limits: nesting, depth and size are refused with a message, never a crash. */
    static char text[8192];
    go_tmap m;
    char err[128];
    for (int i = 0; i < 3000; i++)
        text[i] = '(';
    text[3000] = 'b';
    text[3001] = 0;
    ck_assert(!go_tm_parse(text, &m, err, sizeof err));
    ck_assert_str_eq(err, "column 129: nested deeper than 128");
    strcpy(text, "b");
    for (int i = 0; i < 40; i++)
        strcat(text, " | b");
    ck_assert(!go_tm_parse(text, &m, err, sizeof err));
    ck_assert_str_eq(err, "column 1: map is deeper than 32");
    text[0] = 0;
    for (int i = 0; i < 300; i++)
        strcat(text, i ? " | (b & w)" : "(b & w)");
    ck_assert(!go_tm_parse(text, &m, err, sizeof err));
    ck_assert_str_eq(err, "column 1287: map has more than 512 nodes");
    ck_assert(!go_tm_parse("b b", &m, err, 0)); /* no room for a message is fine too */
    /* Random text built from the grammar's pieces and stray bytes: every input either parses
     * and prints back to itself modulo spacing, or fails with a located message. */
    static const char *pieces[] = {"b", "w", "H", "black", "white", "empty", "~", "(", ")", "|",
                                   "&", "-", " ", "Pre1(", "Suc5(", "nAdj3(", "Adj", "Pre0(",
                                   "\x7f", "x", "9"};
    uint64_t rng = 1;
    int parsed = 0;
    for (int k = 0; k < 20000; k++) {
        text[0] = 0;
        int len = (int)(go_rand_next(&rng) % 24);
        for (int i = 0; i < len; i++)
            strcat(text, pieces[go_rand_next(&rng) % (sizeof pieces / sizeof pieces[0])]);
        if (go_tm_parse(text, &m, err, sizeof err)) {
            char a[4096];
            go_tmap back;
            ck_assert_int_ge(go_tm_print(&m, a, sizeof a), 0);
            TEST_REQUIRE(go_tm_parse(a, &back, err, sizeof err) && go_tm_equal(&m, &back),
                         "'%s' printed as '%s' does not parse back", text, a);
            parsed++;
        } else {
            TEST_REQUIRE(!strncmp(err, "column ", 7), "'%s': message '%s'", text, err);
        }
    }
    ck_assert_int_gt(parsed, 100);
}
END_TEST

START_TEST(tacmap_round_trip_random)
{
    uint64_t rng = 99;
    for (int k = 0; k < 3000; k++) {
        go_tmap m, back;
        go_tm_random(&m, 1 + k % GO_TM_MAX_RANDOM_DEPTH, &rng);
        ck_assert_int_le(go_tm_depth(&m), 1 + k % GO_TM_MAX_RANDOM_DEPTH);
        static char a[16384], b[16384];
        char err[128];
        ck_assert_int_ge(go_tm_print(&m, a, sizeof a), 0);
        ck_assert_msg(go_tm_parse(a, &back, err, sizeof err), "%s: %s", a, err);
        ck_assert_msg(go_tm_equal(&m, &back), "round trip changed the tree: %s", a);
        go_tm_print(&back, b, sizeof b);
        ck_assert_str_eq(a, b);
    }
}
END_TEST

/* The model's sets written as maps evaluate to the model's own results. */
START_TEST(tacmap_eval_matches_model)
{
    uint64_t rng = 4242;
    for (int game = 0; game < 6; game++) {
        go_board b;
        go_board_init(&b, game % 2 ? 19 : 9);
        for (int i = 0; i < 40 + 30 * game; i++)
            go_board_play(&b, go_playout_pick(&b, &rng), b.to_move);
        go_bw g;
        go_bw_from_board(&g, &b);
        go_tm_leaves l;
        go_tm_leaves_init(&l, &g);
        go_tmap m = parse_ok("empty & Adj1((b - H) | (H - b))");
        ck_assert(go_bb_eq(go_tm_eval(&m, &g, &l), go_bw_legal(&g, GO_BLACK)));
        m = parse_ok("b & w & Adj1((w - H) | (H - w))");
        ck_assert(go_bb_eq(go_tm_eval(&m, &g, &l), go_bw_legal(&g, GO_WHITE)));
        m = parse_ok("nPre2(b & w)");
        ck_assert(go_bb_eq(go_tm_eval(&m, &g, &l), go_bw_atari(&g)));
        m = parse_ok("~Suc3(black) & Pre4(w) | nAdj2(H) - white");
        /* ((~Suc3(black) & Pre4(w)) | nAdj2(H)) - white: '|' and '-' share a level. */
        go_bb want = go_bb_or(go_bb_and(go_bb_not(go_bw_suc(&g, go_bw_black(&g), 3), g.all),
                                        go_bw_pre(&g, g.w, 4)),
                              go_bb_not(go_bw_adj(&g, go_bw_atari(&g), 2), g.all));
        want = go_bb_andnot(want, go_bw_white(&g));
        ck_assert(go_bb_eq(go_tm_eval(&m, &g, &l), want));
        /* Corners and edges (section 3.1). */
        m = parse_ok("nAdj4(b | w)");
        ck_assert_int_eq(go_bb_count(go_tm_eval(&m, &g, &l)), 4);
        m = parse_ok("nAdj5(b | w)");
        ck_assert_int_eq(go_bb_count(go_tm_eval(&m, &g, &l)), 4 * (b.size - 1));
    }
}
END_TEST

START_TEST(tacmap_components)
{
    go_tmap m = parse_ok("(Adj1(black) & ~H) & (b | w) & Suc2(empty & w)");
    int nodes[8];
    ck_assert_int_eq(go_tm_components(&m, nodes, 8), 4);
    static const char *want[4] = {"Adj1(black)", "~H", "b | w", "Suc2(empty & w)"};
    for (int k = 0; k < 4; k++) {
        char buf[128];
        go_tm_print_node(&m, nodes[k], buf, sizeof buf);
        ck_assert_str_eq(buf, want[k]);
        go_tmap part;
        go_tm_extract(&m, nodes[k], &part);
        go_tm_print(&part, buf, sizeof buf);
        ck_assert_str_eq(buf, want[k]);
        ck_assert_int_eq(part.node[part.num_nodes - 1].a < part.num_nodes - 1, part.num_nodes > 1);
    }
    m = parse_ok("b | w & H");
    ck_assert_int_eq(go_tm_components(&m, nodes, 8), 1);
    ck_assert_int_eq(go_tm_components(&m, nodes, 0), 1);
}
END_TEST

/* Grown maps respect the depth bound, print and parse back, and use every operator. */
START_TEST(tacmap_grow)
{
    uint64_t rng = 3;
    int ops[GO_TM_OP_COUNT] = {0};
    for (int k = 0; k < 2000; k++) {
        go_tmap m, back;
        int depth = 1 + k % GO_TM_MAX_RANDOM_DEPTH;
        go_tm_random_grow(&m, depth, &rng);
        ck_assert_int_le(go_tm_depth(&m), depth);
        for (int i = 0; i < m.num_nodes; i++)
            ops[m.node[i].op]++;
        static char text[16384];
        char err[128];
        ck_assert_int_ge(go_tm_print(&m, text, sizeof text), 0);
        ck_assert_msg(go_tm_parse(text, &back, err, sizeof err), "%s: %s", text, err);
        ck_assert(go_tm_equal(&m, &back));
    }
    for (int op = 0; op < GO_TM_OP_COUNT; op++)
        ck_assert_msg(ops[op] > 0, "operator %d never drawn", op);
}
END_TEST

/* Every one of the 300 maps of depth <= 2 comes out about equally often. */
START_TEST(tacmap_uniform)
{
    ck_assert(go_tm_count(1) == 6);
    ck_assert(go_tm_count(2) == 300);
    ck_assert(go_tm_count(3) == 279306);
    enum { MAPS = 300, DRAWS = 300 * 200 };
    static char seen[MAPS][32];
    static int hits[MAPS];
    int distinct = 0;
    uint64_t rng = 7;
    for (int k = 0; k < DRAWS; k++) {
        go_tmap m;
        go_tm_random(&m, 2, &rng);
        char buf[32];
        go_tm_print(&m, buf, sizeof buf);
        int i = 0;
        while (i < distinct && strcmp(seen[i], buf))
            i++;
        if (i == distinct) {
            ck_assert_int_lt(distinct, MAPS);
            strcpy(seen[distinct++], buf);
        }
        hits[i]++;
    }
    ck_assert_int_eq(distinct, MAPS);
    /* Chi-square with 299 degrees of freedom: mean 299, sd 24.5; 450 is six sd out. */
    double chi2 = 0;
    for (int i = 0; i < MAPS; i++)
        chi2 += (hits[i] - 200.0) * (hits[i] - 200.0) / 200.0;
    ck_assert_msg(chi2 < 450, "chi-square %.1f", chi2);
}
END_TEST

Suite *bwgraph_suite(void)
{
    Suite *s = suite_create("bwgraph");
    TCase *t = tcase_create("core");
    tcase_set_timeout(t, 300);
    tcase_add_test(t, bitboard_basics);
    tcase_add_test(t, operators_match_reference);
    tcase_add_test(t, corners_and_edges);
    tcase_add_test(t, atari_set_and_suicide);
    tcase_add_test(t, connection_edges_are_directed);
    tcase_add_test(t, differential_random_games);
    suite_add_tcase(s, t);
    TCase *tm = tcase_create("tacmap");
    tcase_set_timeout(tm, 120);
    tcase_add_test(tm, tacmap_parse_print);
    tcase_add_test(tm, tacmap_parse_errors);
    tcase_add_test(tm, tacmap_round_trip_random);
    tcase_add_test(tm, tacmap_eval_matches_model);
    tcase_add_test(tm, tacmap_components);
    tcase_add_test(tm, tacmap_uniform);
    tcase_add_test(tm, tacmap_grow);
    suite_add_tcase(s, tm);
    return s;
}

int main(void) { return test_run_suite(bwgraph_suite()); }
