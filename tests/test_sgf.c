/* tests/test_sgf.c -- SGF reader/writer: hand-written records, the bad-file corpus, deep trees,
 * professional games from ../shared (round trip and replay), and go_game -> SGF -> go_game. */
#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "go/sgf.h"
#include "tests/common.h"

#define GOOD_DIR SHIDO_TEST_DATA "/sgf/good/"
#define BAD_DIR SHIDO_TEST_DATA "/sgf/bad/"
#define PRO_GAMES SHIDO_SHARED_DIR "/games/pro-title-games.sgf"
#define PRO_GAME_COUNT 1532

static char err[512];

static go_sgf_collection *read_good(const char *name)
{
    char path[1024];
    snprintf(path, sizeof path, "%s%s", GOOD_DIR, name);
    go_sgf_collection *c = go_sgf_read_file(path, err, sizeof err);
    ck_assert_msg(c != NULL, "%s", err);
    return c;
}

static go_sgf_collection *parse_str(const char *s)
{
    return go_sgf_parse(s, strlen(s), err, sizeof err);
}

static const go_sgf_node *child(const go_sgf_node *n, int i)
{
    ck_assert_int_gt(n->num_children, i);
    return n->children[i];
}

static const go_sgf_node *main_line_node(const go_sgf_node *n, int steps)
{
    while (steps-- > 0)
        n = child(n, 0);
    return n;
}

/* Trees equal in identifiers, values, order and shape; compared with an explicit stack since
 * the deep-tree tests exceed any sane recursion depth. */
static bool trees_equal(const go_sgf_node *a, const go_sgf_node *b)
{
    size_t cap = 64, top = 0;
    const go_sgf_node **stack = malloc(cap * 2 * sizeof *stack);
    bool equal = true;
    stack[top++] = a;
    stack[top++] = b;
    while (top > 0 && equal) {
        const go_sgf_node *y = stack[--top], *x = stack[--top];
        equal = x->num_props == y->num_props && x->num_children == y->num_children;
        for (int i = 0; equal && i < x->num_props; i++) {
            const go_sgf_prop *p = &x->props[i], *q = &y->props[i];
            equal = !strcmp(p->ident, q->ident) && p->num_values == q->num_values;
            for (int j = 0; equal && j < p->num_values; j++)
                equal = !strcmp(p->values[j], q->values[j]);
        }
        for (int i = 0; equal && i < x->num_children; i++) {
            if (top + 2 > cap) {
                cap *= 2;
                stack = realloc(stack, cap * sizeof *stack);
            }
            ck_assert_ptr_eq(x->children[i]->parent, x);
            stack[top++] = x->children[i];
            stack[top++] = y->children[i];
        }
    }
    free(stack);
    return equal;
}

/* parse -> write -> parse gives the same trees. */
static void assert_round_trip(const go_sgf_collection *c)
{
    char *text = go_sgf_write(c);
    ck_assert_ptr_nonnull(text);
    go_sgf_collection *d = go_sgf_parse(text, strlen(text), err, sizeof err);
    ck_assert_msg(d != NULL, "re-parse failed: %s\n%s", err, text);
    ck_assert_int_eq(d->num_games, c->num_games);
    for (int i = 0; i < c->num_games; i++)
        ck_assert_msg(trees_equal(c->games[i], d->games[i]), "game %d differs after round trip",
                      i + 1);
    go_sgf_free(d);
    free(text);
}

static void assert_game_round_trip(const go_game *g);

/* The SGF text the writer makes of g contains want. */
static void assert_written(const go_game *g, const char *want)
{
    go_sgf_collection *c = go_sgf_from_game(g);
    ck_assert_ptr_nonnull(c);
    char *text = go_sgf_write(c);
    ck_assert_msg(text && strstr(text, want), "%s not in\n%s", want, text ? text : "(null)");
    free(text);
    go_sgf_free(c);
}

/* Field by field: go_rules has padding, and japanese and korean are the same record. */
static void assert_same_rules(const go_rules *a, const go_rules *b)
{
    ck_assert_int_eq(a->ko, b->ko);
    ck_assert_int_eq(a->scoring, b->scoring);
    ck_assert_int_eq(a->tax, b->tax);
    ck_assert_int_eq(a->multi_stone_suicide, b->multi_stone_suicide);
    ck_assert_int_eq(a->button, b->button);
    ck_assert_int_eq(a->white_handicap_bonus, b->white_handicap_bonus);
    ck_assert_int_eq(a->friendly_pass_ok, b->friendly_pass_ok);
}

START_TEST(test_info)
{
    go_sgf_collection *c = read_good("info.sgf");
    ck_assert_int_eq(c->num_games, 1);
    go_sgf_info info;
    ck_assert_msg(go_sgf_info_read(c->games[0], &info, err, sizeof err), "%s", err);
    ck_assert_int_eq(info.size, 13);
    ck_assert_float_eq(info.komi, 0.5f);
    ck_assert_int_eq(info.handicap, 2);
    ck_assert_str_eq(info.rules, "Japanese");
    ck_assert_str_eq(info.black, "Honinbo Shusaku");
    ck_assert_str_eq(info.white, "Gennan Inseki");
    ck_assert_str_eq(info.result, "B+3.5");
    ck_assert_str_eq(go_sgf_get(c->games[0], "DT"), "1846-09-11");
    ck_assert_ptr_null(go_sgf_get(c->games[0], "ZZ"));
    ck_assert_str_eq(go_sgf_get(main_line_node(c->games[0], 5), "C"), "White hanes.");

    go_game g;
    ck_assert_msg(go_sgf_to_game(c->games[0], -1, &g, err, sizeof err), "%s", err);
    ck_assert_int_eq(g.board.size, 13);
    ck_assert_float_eq(g.komi, 0.5f);
    ck_assert_int_eq(g.handicap, 2);
    ck_assert_str_eq(go_rules_name(&g.rules), "japanese");
    ck_assert_int_eq(g.setup.to_move, GO_WHITE); /* HA + AB without PL: white starts */
    ck_assert_int_eq(g.num_moves, 5);
    ck_assert_int_eq(g.moves[0].color, GO_WHITE);
    ck_assert_int_eq(g.moves[0].point, test_sgf_point("jj"));
    ck_assert_int_eq(g.board.color[test_sgf_point("dj")], GO_BLACK);
    ck_assert_int_eq(g.board.color[test_sgf_point("bk")], GO_WHITE);
    ck_assert_int_eq(g.board.to_move, GO_BLACK);
    go_game_free(&g);

    /* move_limit stops the replay after that many moves. */
    ck_assert(go_sgf_to_game(c->games[0], 2, &g, err, sizeof err));
    ck_assert_int_eq(g.num_moves, 2);
    ck_assert_int_eq(g.board.color[test_sgf_point("cj")], GO_EMPTY);
    go_game_free(&g);
    ck_assert(go_sgf_to_game(c->games[0], 0, &g, err, sizeof err));
    ck_assert_int_eq(g.num_moves, 0);
    ck_assert_int_eq(g.board.color[test_sgf_point("jd")], GO_BLACK);
    go_game_free(&g);
    assert_round_trip(c);
    go_sgf_free(c);
}
END_TEST

START_TEST(test_defaults)
{
    go_sgf_collection *c = parse_str("(;)");
    ck_assert_ptr_nonnull(c);
    go_sgf_info info;
    ck_assert(go_sgf_info_read(c->games[0], &info, err, sizeof err));
    ck_assert_int_eq(info.size, 19);
    ck_assert_float_eq(info.komi, 0.0f);
    ck_assert_int_eq(info.handicap, 0);
    ck_assert_str_eq(info.rules, "");
    ck_assert_str_eq(info.black, "");
    go_game g;
    ck_assert(go_sgf_to_game(c->games[0], -1, &g, err, sizeof err));
    ck_assert_int_eq(g.board.size, 19);
    ck_assert_str_eq(go_rules_name(&g.rules), "tromp-taylor");
    ck_assert_int_eq(g.board.to_move, GO_BLACK);
    go_game_free(&g);
    go_sgf_free(c);

    /* Long names are cut at a UTF-8 character boundary. */
    char rec[400] = "(;PB[";
    for (int i = 0; i < 100; i++)
        strcat(rec, "\xe6\x97\xa5"); /* a three-byte character */
    strcat(rec, "])");
    c = parse_str(rec);
    ck_assert(go_sgf_info_read(c->games[0], &info, err, sizeof err));
    ck_assert_uint_eq(strlen(info.black), 126);
    go_sgf_free(c);
}
END_TEST

START_TEST(test_variations)
{
    go_sgf_collection *c = read_good("variations.sgf");
    const go_sgf_node *root = c->games[0];
    ck_assert_ptr_null(root->parent);
    ck_assert_str_eq(go_sgf_get(root, "C"), "root");
    const go_sgf_node *m1 = child(root, 0);
    ck_assert_int_eq(root->num_children, 1);
    ck_assert_str_eq(go_sgf_get(m1, "C"), "main 1");
    ck_assert_int_eq(m1->num_children, 3);
    ck_assert_str_eq(go_sgf_get(child(m1, 0), "C"), "A");
    ck_assert_str_eq(go_sgf_get(child(m1, 1), "C"), "B");
    ck_assert_str_eq(go_sgf_get(child(m1, 2), "C"), "C");
    const go_sgf_node *a2 = child(child(m1, 0), 0);
    ck_assert_str_eq(go_sgf_get(a2, "C"), "A2");
    ck_assert_ptr_eq(a2->parent, child(m1, 0));
    ck_assert_int_eq(a2->num_children, 2);
    ck_assert_str_eq(go_sgf_get(child(a2, 0), "C"), "A3a");
    ck_assert_str_eq(go_sgf_get(child(a2, 1), "C"), "A3b");
    ck_assert_int_eq(child(a2, 1)->num_children, 0);
    ck_assert_int_eq(child(m1, 1)->num_children, 0);
    ck_assert_str_eq(go_sgf_get(child(child(m1, 2), 0), "C"), "C2");

    /* The main line is the first child each time: ee, cc, gg, cg. */
    go_game g;
    ck_assert(go_sgf_to_game(root, -1, &g, err, sizeof err));
    ck_assert_int_eq(g.num_moves, 4);
    ck_assert_int_eq(g.moves[3].point, test_sgf_point("cg"));
    ck_assert_int_eq(g.board.color[test_sgf_point("gc")], GO_EMPTY);
    go_game_free(&g);

    char *text = go_sgf_write(c);
    ck_assert_ptr_nonnull(strstr(text, "(;W[cg]C[A3a])(;W[gc]C[A3b])"));
    free(text);
    assert_round_trip(c);
    go_sgf_free(c);
}
END_TEST

START_TEST(test_escapes)
{
    go_sgf_collection *c = read_good("escapes.sgf");
    const go_sgf_node *root = c->games[0];
    ck_assert_str_eq(go_sgf_get(root, "C"), "brackets ] and backslash \\ here");
    ck_assert_str_eq(go_sgf_get(root, "GN"), "soft line break");
    ck_assert_str_eq(go_sgf_get(child(root, 0), "C"), "two\nlines: a:b");
    ck_assert_str_eq(go_sgf_get(child(child(root, 0), 0), "C"), "trailing backslash \\");
    char *text = go_sgf_write(c);
    ck_assert_ptr_nonnull(strstr(text, "C[brackets \\] and backslash \\\\ here]"));
    ck_assert_ptr_nonnull(strstr(text, "C[trailing backslash \\\\]"));
    free(text);
    assert_round_trip(c);
    go_sgf_free(c);

    c = read_good("escapes-crlf.sgf");
    ck_assert_str_eq(go_sgf_get(c->games[0], "C"), "windowssoft break");
    ck_assert_str_eq(go_sgf_get(c->games[0], "N"), "crlf\r\nkept");
    assert_round_trip(c);
    go_sgf_free(c);

    /* A value holding every byte but NUL survives the writer's escaping. */
    go_sgf_node root2 = {0}, *roots[1] = {&root2};
    go_sgf_prop prop = {"C", 1, NULL};
    char all[256], *vals[1] = {all};
    for (int i = 1; i < 256; i++)
        all[i - 1] = (char)i;
    all[255] = '\0';
    prop.values = vals;
    root2.num_props = 1;
    root2.props = &prop;
    go_sgf_collection one = {1, roots};
    text = go_sgf_write(&one);
    go_sgf_collection *d = parse_str(text);
    ck_assert_msg(d != NULL, "%s", err);
    ck_assert_str_eq(go_sgf_get(d->games[0], "C"), all);
    go_sgf_free(d);
    free(text);
}
END_TEST

START_TEST(test_compressed_setup)
{
    go_sgf_collection *c = read_good("compressed.sgf");
    go_game g;
    ck_assert_msg(go_sgf_to_game(c->games[0], -1, &g, err, sizeof err), "%s", err);
    go_board want;
    test_board_from(&want, 9,
                    "XXX......"
                    "XXX......"
                    "........."
                    "........."
                    "....OO..."
                    "....O...."
                    "....OO..."
                    ".......O."
                    "........X");
    ck_assert_uint_eq(g.board.hash, want.hash);
    ck_assert_int_eq(g.setup.to_move, GO_WHITE); /* PL[W] */
    ck_assert_int_eq(g.moves[0].color, GO_WHITE);
    ck_assert_int_eq(g.board.to_move, GO_BLACK);
    go_game_free(&g);
    go_sgf_free(c);
}
END_TEST

START_TEST(test_passes)
{
    go_sgf_collection *c = read_good("passes.sgf");
    go_game g;
    ck_assert_msg(go_sgf_to_game(c->games[0], -1, &g, err, sizeof err), "%s", err);
    ck_assert_str_eq(go_rules_name(&g.rules), "chinese");
    ck_assert_float_eq(g.komi, 7.5f);
    ck_assert_int_eq(g.num_moves, 6);
    ck_assert_int_eq(g.moves[1].point, GO_PASS);
    ck_assert_int_eq(g.moves[3].point, GO_PASS); /* "tt" on 19x19 */
    ck_assert_int_eq(g.moves[4].point, GO_PASS);
    ck_assert_int_eq(g.moves[5].point, test_sgf_point("dp"));
    go_game_free(&g);

    /* The writer spells passes as empty values. */
    ck_assert(go_sgf_to_game(c->games[0], -1, &g, err, sizeof err));
    assert_written(&g, ";B[dd];W[];B[];W[dp]");
    go_game_free(&g);
    go_sgf_free(c);
}
END_TEST

START_TEST(test_pl)
{
    go_sgf_collection *c = read_good("pl-midgame.sgf");
    go_game g;
    ck_assert_msg(go_sgf_to_game(c->games[0], -1, &g, err, sizeof err), "%s", err);
    ck_assert_int_eq(g.num_moves, 3);
    ck_assert_int_eq(g.board.color[test_sgf_point("ee")], GO_WHITE);
    ck_assert_int_eq(g.board.color[test_sgf_point("fe")], GO_EMPTY);
    ck_assert_int_eq(g.board.to_move, GO_WHITE);
    assert_game_round_trip(&g);
    go_game_free(&g);
    go_sgf_free(c);

    /* A PL that changes nothing keeps the ko ban. */
    c = parse_str("(;SZ[9]RU[Japanese]AB[de][ed][ef]AW[fd][ff][ge][ee];B[fe];PL[W];W[ee])");
    ck_assert(!go_sgf_to_game(c->games[0], -1, &g, err, sizeof err));
    ck_assert_str_eq(err, "node 3: move 2 W[ee]: illegal move: ko");
    go_sgf_free(c);
}
END_TEST

START_TEST(test_multigame)
{
    go_sgf_collection *c = read_good("multigame.sgf");
    ck_assert_int_eq(c->num_games, 3);
    const char *black[] = {"First Black", "Second Black", "Third"};
    const int sizes[] = {9, 19, 13}, moves[] = {2, 3, 1};
    for (int i = 0; i < 3; i++) {
        ck_assert_ptr_null(c->games[i]->parent);
        ck_assert_str_eq(go_sgf_get(c->games[i], "PB"), black[i]);
        go_game g;
        ck_assert(go_sgf_to_game(c->games[i], -1, &g, err, sizeof err));
        ck_assert_int_eq(g.board.size, sizes[i]);
        ck_assert_int_eq(g.num_moves, moves[i]);
        go_game_free(&g);
    }
    assert_round_trip(c);
    go_sgf_free(c);
}
END_TEST

START_TEST(test_old_identifiers)
{
    go_sgf_collection *c = read_good("oldstyle.sgf");
    const go_sgf_node *root = c->games[0];
    ck_assert_int_eq(root->num_props, 6);
    const char *idents[] = {"GM", "FF", "SZ", "AB", "AW", "C"};
    for (int i = 0; i < 6; i++)
        ck_assert_str_eq(root->props[i].ident, idents[i]);
    ck_assert_int_eq(root->props[3].num_values, 2);
    ck_assert_str_eq(root->props[3].values[1], "gg");
    go_game g;
    ck_assert_msg(go_sgf_to_game(root, -1, &g, err, sizeof err), "%s", err);
    ck_assert_int_eq(g.num_moves, 2);
    ck_assert_int_eq(g.board.color[test_sgf_point("cc")], GO_BLACK);
    ck_assert_int_eq(g.board.color[test_sgf_point("gc")], GO_WHITE);
    go_game_free(&g);
    go_sgf_free(c);
}
END_TEST

START_TEST(test_markup_kept)
{
    go_sgf_collection *c = read_good("markup.sgf");
    const go_sgf_node *n1 = child(c->games[0], 0), *n2 = child(n1, 0);
    ck_assert_int_eq(n1->num_props, 6);
    ck_assert_str_eq(n1->props[1].ident, "LB");
    ck_assert_int_eq(n1->props[1].num_values, 2);
    ck_assert_str_eq(n1->props[1].values[1], "gg:long label");
    ck_assert_str_eq(go_sgf_get(n2, "DD"), "");
    ck_assert_str_eq(go_sgf_get(n2, "AR"), "aa:ii");
    ck_assert_int_eq(n2->props[n2->num_props - 1].num_values, 3);
    go_game g;
    ck_assert(go_sgf_to_game(c->games[0], -1, &g, err, sizeof err));
    ck_assert_int_eq(g.num_moves, 2);
    go_game_free(&g);
    assert_round_trip(c);
    go_sgf_free(c);
}
END_TEST

/* RU spellings and the preset each maps to; NULL: go_game_init's default (tromp-taylor). */
static const struct {
    const char *ru, *preset;
} ru_cases[] = {
    {"Chinese", "chinese"},         {"Japanese", "japanese"},     {"Korean", "korean"},
    {"AGA", "aga"},                 {"NZ", "new-zealand"},        {"New Zealand", "new-zealand"},
    {"Tromp-Taylor", "tromp-taylor"}, {"TT", "tromp-taylor"},     {"stone-scoring", "stone-scoring"},
    {"Ing", NULL},                  {"", NULL},                   {"koSIMPLE", NULL},
    {"koPOSITIONALscoreAREAtaxNONEsui0whbNfpok1", "chinese-ogs"},
};

START_TEST(test_rules_mapping)
{
    char rec[200];
    snprintf(rec, sizeof rec, "(;SZ[9]RU[%s];B[ee])", ru_cases[_i].ru);
    go_sgf_collection *c = parse_str(rec);
    go_game g;
    ck_assert_msg(go_sgf_to_game(c->games[0], -1, &g, err, sizeof err), "%s", err);
    go_rules want;
    ck_assert(go_rules_preset(&want, ru_cases[_i].preset ? ru_cases[_i].preset : "tromp-taylor"));
    assert_same_rules(&g.rules, &want);
    go_game_free(&g);
    go_sgf_free(c);
}
END_TEST

START_TEST(test_katago_rules)
{
    go_sgf_collection *c = read_good("katago-rules.sgf");
    go_game g;
    ck_assert_msg(go_sgf_to_game(c->games[0], -1, &g, err, sizeof err), "%s", err);
    ck_assert_ptr_null(go_rules_name(&g.rules));
    ck_assert_int_eq(g.rules.ko, GO_KO_SITUATIONAL);
    ck_assert_int_eq(g.rules.scoring, GO_SCORING_TERRITORY);
    ck_assert_int_eq(g.rules.tax, GO_TAX_ALL);
    ck_assert(g.rules.multi_stone_suicide);
    ck_assert_int_eq(g.rules.white_handicap_bonus, GO_WHB_N_MINUS_ONE);
    ck_assert(!g.rules.friendly_pass_ok);
    /* Custom rules come back in the same form from the writer. */
    go_sgf_collection *d = go_sgf_from_game(&g);
    ck_assert_str_eq(go_sgf_get(d->games[0], "RU"), go_sgf_get(c->games[0], "RU"));
    go_sgf_free(d);
    go_game_free(&g);
    go_sgf_free(c);
}
END_TEST

/* SZ[w:h]: a rectangle of w columns and h rows (KataGo writes and reads these). */
START_TEST(test_rectangular)
{
    go_sgf_collection *c = parse_str("(;SZ[19:13]AB[aa:ab];B[sm];W[am])");
    go_sgf_info info;
    ck_assert_msg(go_sgf_info_read(c->games[0], &info, err, sizeof err), "%s", err);
    ck_assert_int_eq(info.width, 19);
    ck_assert_int_eq(info.height, 13);
    ck_assert_int_eq(info.size, 19);
    go_game g;
    ck_assert_msg(go_sgf_to_game(c->games[0], -1, &g, err, sizeof err), "%s", err);
    ck_assert_int_eq(g.board.width, 19);
    ck_assert_int_eq(g.board.height, 13);
    ck_assert_int_eq(g.board.color[go_point_at(18, 12)], GO_BLACK);
    ck_assert_int_eq(g.board.color[go_point_at(0, 12)], GO_WHITE);
    ck_assert_int_eq(g.board.color[go_point_at(0, 1)], GO_BLACK);
    ck_assert_int_eq(g.board.num_empty, 19 * 13 - 4);
    assert_written(&g, "SZ[19:13]");
    assert_game_round_trip(&g);
    go_game_free(&g);
    go_sgf_free(c);
    /* a row past the height, a column past the width, a side out of range */
    const char *bad[][2] = {{"(;SZ[19:13];B[an])", "not a point of the 19x13 board"},
                            {"(;SZ[5:13];B[fa])", "not a point of the 5x13 board"},
                            {"(;SZ[9:13]AW[aa:in])", "not a point or rectangle of the 9x13"},
                            {"(;SZ[20:5])", "board size 20x5 is not supported"},
                            {"(;SZ[5:1])", "board size 5x1 is not supported"}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        c = parse_str(bad[i][0]);
        err[0] = '\0';
        ck_assert(!go_sgf_to_game(c->games[0], -1, &g, err, sizeof err));
        ck_assert_msg(strstr(err, bad[i][1]) != NULL, "%s: %s", bad[i][0], err);
        go_sgf_free(c);
    }
    c = parse_str("(;SZ[13:13])");
    ck_assert(go_sgf_info_read(c->games[0], &info, err, sizeof err));
    ck_assert_int_eq(info.size, 13);
    ck_assert_int_eq(info.width * 100 + info.height, 1313);
    go_sgf_free(c);
}
END_TEST

/* Error positions: line and column of the offending byte (columns count bytes from 1). */
static const struct {
    const char *sgf, *msg;
} pos_cases[] = {
    {"(;FF[4]\n;B[aa]\n;W[bb]))", "line 3, column 8: unbalanced ')'"},
    {"(;FF[4]\n;B[aa]\n;W[bb]])", "line 3, column 7: unexpected ']'"},
    {"(;B[aa]\x01)", "line 1, column 8: unexpected byte 0x01 (binary data?)"},
    {"(;FF[4]\r\n;B[aa]\r\n;[bb])", "line 3, column 2: property value without identifier"},
    {"(;FF[4]\n\n  ;C[open\n\n", "line 3, column 5: unterminated property value"},
    {"(;FF[4]\n(;B[aa]\n", "line 2, column 1: '(' is never closed"},
    {"\xef\xbb\xbf(;FF[4])\x01", "line 1, column 12: expected '(' to start a game tree, found byte 0x01"},
    {"(;FF[4]\r;B[aa]\r;W[bb]\r", "line 1, column 1: '(' is never closed"},
    {"(;FF[4]\r;B[aa]\r;W[bb]\r)x", "line 4, column 2: expected '('"},
};

START_TEST(test_error_positions)
{
    go_sgf_collection *c = parse_str(pos_cases[_i].sgf);
    ck_assert_ptr_null(c);
    ck_assert_msg(strstr(err, pos_cases[_i].msg) != NULL, "got \"%s\", want \"%s\"", err,
                  pos_cases[_i].msg);
}
END_TEST

/* The bad corpus: every file in tests/data/sgf/bad is listed in expected.txt with the text its
 * error must contain, and fails either in the parser (message with a line) or in the replay. */
#define MAX_BAD 64
static char bad_name[MAX_BAD][128], bad_want[MAX_BAD][128];
static int num_bad;

static void load_bad_manifest(void)
{
    FILE *f = fopen(BAD_DIR "expected.txt", "r");
    if (!f)
        return;
    char line[512];
    while (num_bad < MAX_BAD && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = '\0';
        char *tab = strchr(line, '\t');
        if (line[0] == '#' || !tab)
            continue;
        *tab = '\0';
        snprintf(bad_name[num_bad], sizeof bad_name[0], "%.127s", line);
        snprintf(bad_want[num_bad], sizeof bad_want[0], "%.127s", tab + 1);
        num_bad++;
    }
    fclose(f);
}

START_TEST(test_bad_manifest_complete)
{
    ck_assert_int_ge(num_bad, 15);
    DIR *d = opendir(BAD_DIR);
    ck_assert_ptr_nonnull(d);
    int files = 0;
    for (struct dirent *e; (e = readdir(d));) {
        size_t n = strlen(e->d_name);
        if (n < 4 || strcmp(e->d_name + n - 4, ".sgf"))
            continue;
        files++;
        bool listed = false;
        for (int i = 0; i < num_bad; i++)
            listed |= !strcmp(bad_name[i], e->d_name);
        ck_assert_msg(listed, "%s is not listed in expected.txt", e->d_name);
    }
    closedir(d);
    ck_assert_int_eq(files, num_bad);
}
END_TEST

START_TEST(test_bad_file)
{
    char path[512];
    snprintf(path, sizeof path, "%s%s", BAD_DIR, bad_name[_i]);
    err[0] = '\0';
    go_sgf_collection *c = go_sgf_read_file(path, err, sizeof err);
    if (!c) {
        ck_assert_msg(strstr(err, path) && strstr(err, "line ") &&
                          strstr(err, bad_want[_i]),
                      "%s: got \"%s\", want \"%s\"", bad_name[_i], err, bad_want[_i]);
        return;
    }
    bool failed = false;
    for (int i = 0; i < c->num_games && !failed; i++) {
        go_game g;
        failed = !go_sgf_to_game(c->games[i], -1, &g, err, sizeof err);
        if (!failed)
            go_game_free(&g);
    }
    go_sgf_free(c);
    ck_assert_msg(failed, "%s: no error", bad_name[_i]);
    ck_assert_msg(strstr(err, bad_want[_i]), "%s: got \"%s\", want \"%s\"", bad_name[_i], err,
                  bad_want[_i]);
}
END_TEST

START_TEST(test_read_file_errors)
{
    ck_assert_ptr_null(go_sgf_read_file("/nonexistent/x.sgf", err, sizeof err));
    ck_assert_ptr_nonnull(strstr(err, "/nonexistent/x.sgf: cannot open"));
    ck_assert_ptr_null(go_sgf_read_file(BAD_DIR, err, sizeof err));
    ck_assert_ptr_nonnull(strstr(err, "cannot read: Is a directory"));

    /* A sparse file one byte over the limit is refused without parsing it. */
    char path[] = "/tmp/shido_sgf_huge_XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(ftruncate(fd, (off_t)GO_SGF_MAX_BYTES + 1), 0);
    close(fd);
    ck_assert_ptr_null(go_sgf_read_file(path, err, sizeof err));
    unlink(path);
    ck_assert_ptr_nonnull(strstr(err, path));
    ck_assert_ptr_nonnull(strstr(err, "larger than the 64 MiB limit"));

    ck_assert_ptr_null(go_sgf_parse("(;)", GO_SGF_MAX_BYTES + 1, err, sizeof err));
    ck_assert_ptr_nonnull(strstr(err, "exceeds the 64 MiB limit"));
    ck_assert_ptr_null(go_sgf_parse(NULL, 0, err, sizeof err));
    ck_assert_ptr_nonnull(strstr(err, "line 1, column 1: no game tree found"));
    /* No error buffer at all is fine. */
    ck_assert_ptr_null(go_sgf_parse(")", 1, NULL, 0));
}
END_TEST

/* head, then n copies of unit, then tail, in one malloc'd string. */
static char *repeat(const char *head, const char *unit, int n, const char *tail)
{
    size_t hl = strlen(head), ul = strlen(unit), tl = strlen(tail);
    char *s = malloc(hl + ul * (size_t)n + tl + 1), *w = s;
    memcpy(w, head, hl);
    w += hl;
    for (int i = 0; i < n; i++, w += ul)
        memcpy(w, unit, ul);
    memcpy(w, tail, tl + 1);
    return s;
}

START_TEST(test_deep_line)
{
    /* 100,000 nodes in one sequence: a sequence is not nesting, so this must parse. */
    char *s = repeat("(;SZ[19]", ";B[aa];W[bb]", 50000, ")");
    go_sgf_collection *c = parse_str(s);
    ck_assert_msg(c != NULL, "%s", err);
    int depth = 0;
    for (const go_sgf_node *n = c->games[0]; n->num_children; n = n->children[0])
        depth++;
    ck_assert_int_eq(depth, 100000);
    assert_round_trip(c);
    go_game g;
    ck_assert(go_sgf_to_game(c->games[0], 1, &g, err, sizeof err));
    ck_assert_int_eq(g.num_moves, 1);
    go_game_free(&g);
    ck_assert(!go_sgf_to_game(c->games[0], -1, &g, err, sizeof err));
    ck_assert_str_eq(err, "node 3: move 3 B[aa]: illegal move: point occupied");
    go_sgf_free(c);
    free(s);
}
END_TEST

START_TEST(test_deep_nesting)
{
    /* GO_SGF_MAX_DEPTH nested variations parse, write, compare and free without recursion. */
    char *open = repeat("", "(;B[]", GO_SGF_MAX_DEPTH, ""), *close = repeat("", ")", GO_SGF_MAX_DEPTH, "");
    size_t n = strlen(open);
    char *s = malloc(n + strlen(close) + 1);
    memcpy(s, open, n);
    strcpy(s + n, close);
    go_sgf_collection *c = parse_str(s);
    ck_assert_msg(c != NULL, "%s", err);
    assert_round_trip(c);
    go_sgf_free(c);
    free(s);

    /* One level deeper is refused with a clear message. */
    s = malloc(n + strlen(close) + 8);
    sprintf(s, "%s(;B[]%s)", open, close);
    ck_assert_ptr_null(parse_str(s));
    ck_assert_ptr_nonnull(strstr(err, "variations nested deeper than 10000 levels"));
    free(s);
    free(open);
    free(close);

    /* 100,000 bare '(' fail at once, and 100,000 nested "(;" fail at the depth limit. */
    s = repeat("", "(", 100000, "");
    ck_assert_ptr_null(parse_str(s));
    ck_assert_ptr_nonnull(strstr(err, "line 1, column 2: expected ';' after '('"));
    free(s);
    s = repeat("", "(;", 100000, "");
    ck_assert_ptr_null(parse_str(s));
    ck_assert_ptr_nonnull(strstr(err, "nested deeper"));
    free(s);

    /* A wide tree: 20,000 variations of one node. */
    s = repeat("(;SZ[9]", "(;B[ee])", 20000, ")");
    c = parse_str(s);
    ck_assert_int_eq(c->games[0]->num_children, 20000);
    assert_round_trip(c);
    go_sgf_free(c);
    free(s);
}
END_TEST

/* Final position of a replayed game as a digest: board hash, side to move and move count. */
static void assert_same_game(const go_game *a, const go_game *b)
{
    ck_assert_int_eq(a->board.width, b->board.width);
    ck_assert_int_eq(a->board.height, b->board.height);
    ck_assert_uint_eq(a->board.hash, b->board.hash);
    ck_assert_int_eq(a->board.to_move, b->board.to_move);
    ck_assert_int_eq(a->num_moves, b->num_moves);
    ck_assert_uint_eq(a->setup.hash, b->setup.hash);
    ck_assert_int_eq(a->setup.to_move, b->setup.to_move);
    ck_assert_float_eq(a->komi, b->komi);
    ck_assert_int_eq(a->handicap, b->handicap);
    assert_same_rules(&a->rules, &b->rules);
}

/* go_game -> SGF text -> tree -> go_game gives the same game. */
static void assert_game_round_trip(const go_game *g)
{
    go_sgf_collection *c = go_sgf_from_game(g);
    ck_assert_ptr_nonnull(c);
    char *text = go_sgf_write(c);
    go_sgf_free(c);
    c = parse_str(text);
    ck_assert_msg(c != NULL, "%s\n%s", err, text);
    go_game h;
    ck_assert_msg(go_sgf_to_game(c->games[0], -1, &h, err, sizeof err), "%s\n%s", err, text);
    assert_same_game(g, &h);
    go_game_free(&h);
    go_sgf_free(c);
    free(text);
}

START_TEST(test_meijin)
{
    go_sgf_collection *c = go_sgf_read_file(TEST_MEIJIN, err, sizeof err);
    ck_assert_msg(c != NULL, "%s", err);
    ck_assert_int_eq(c->num_games, 1);
    go_sgf_info info;
    ck_assert(go_sgf_info_read(c->games[0], &info, err, sizeof err));
    ck_assert_str_eq(info.black, "Cho U");
    ck_assert_str_eq(info.white, "Takao Shinji");
    ck_assert_float_eq(info.komi, 6.5f);
    ck_assert_str_eq(info.result, "W+R");
    assert_round_trip(c);
    go_game g;
    ck_assert_msg(go_sgf_to_game(c->games[0], -1, &g, err, sizeof err), "%s", err);
    ck_assert_int_eq(g.num_moves, 210);
    ck_assert_int_eq(g.moves[209].color, GO_WHITE);
    ck_assert_int_eq(g.moves[209].point, test_sgf_point("ca"));
    ck_assert_int_eq(g.board.to_move, GO_BLACK);
    assert_game_round_trip(&g);
    go_game_free(&g);
    go_sgf_free(c);
}
END_TEST

/* Records in pro-title-games.sgf that do not replay as they stand. None of its games has RU, so
 * go_game_init's default rules apply (tromp-taylor: positional superko).
 *  1053, 23rd Meijin round 4, RE[Void]: a triple ko. Move 219 recreates an earlier position:
 *        legal under the Japanese rules of the match (which then void the game), not under
 *        superko. With RU[Japanese] all 224 moves replay.
 *  1252, 36th Oza round 1, RE[W+F], and 1444, 23rd Tengen round 3, RE[B+F]: the last move
 *        retakes a ko at once, illegal under any rules; the player lost by forfeit (the record
 *        of 1444 says so in its last comment). */
static const struct {
    int game, move;
    const char *err_default, *err_japanese;
} pro_illegal[] = {
    {1053, 219, "node 219: move 219 B[cj]: illegal move: superko", NULL},
    {1252, 265, "node 265: move 265 B[lg]: illegal move: superko",
     "node 265: move 265 B[lg]: illegal move: ko"},
    {1444, 202, "node 202: move 202 W[fp]: illegal move: superko",
     "node 202: move 202 W[fp]: illegal move: ko"},
};

/* Appends a one-value property, allocated as go_sgf_free expects. */
static void add_prop(go_sgf_node *n, const char *ident, const char *value)
{
    n->props = realloc(n->props, sizeof *n->props * (size_t)(n->num_props + 1));
    go_sgf_prop *p = &n->props[n->num_props++];
    p->ident = strdup(ident);
    p->num_values = 1;
    p->values = malloc(sizeof *p->values);
    p->values[0] = strdup(value);
}

START_TEST(test_pro_collection)
{
    go_sgf_collection *c = go_sgf_read_file(PRO_GAMES, err, sizeof err);
    ck_assert_msg(c != NULL, "%s", err);
    ck_assert_int_eq(c->num_games, PRO_GAME_COUNT);

    go_sgf_collection first = {50, c->games};
    assert_round_trip(&first);

    long total_moves = 0;
    int next_illegal = 0;
    for (int i = 0; i < c->num_games; i++) {
        go_game g;
        bool known = next_illegal < (int)(sizeof pro_illegal / sizeof pro_illegal[0]) &&
                     pro_illegal[next_illegal].game == i + 1;
        bool ok = go_sgf_to_game(c->games[i], -1, &g, err, sizeof err);
        if (known) {
            ck_assert_msg(!ok, "game %d replays but should not", i + 1);
            ck_assert_str_eq(err, pro_illegal[next_illegal].err_default);
            /* Everything before the offending move replays. */
            ok = go_sgf_to_game(c->games[i], pro_illegal[next_illegal].move - 1, &g, err,
                                sizeof err);
            ck_assert_msg(ok, "game %d: %s", i + 1, err);
            ck_assert_int_eq(g.num_moves, pro_illegal[next_illegal].move - 1);
            next_illegal++;
        }
        ck_assert_msg(ok, "game %d (%s, round %s): %s", i + 1, go_sgf_get(c->games[i], "EV"),
                      go_sgf_get(c->games[i], "RO"), err);
        char why[256];
        ck_assert_msg(go_board_check(&g.board, why, sizeof why), "game %d: %s", i + 1, why);
        total_moves += g.num_moves;
        if (i < 50)
            assert_game_round_trip(&g);
        go_game_free(&g);
    }
    ck_assert_int_gt(total_moves, 300000);

    /* Under the Japanese rules the games were played by, only the two forfeits remain. */
    for (size_t k = 0; k < sizeof pro_illegal / sizeof pro_illegal[0]; k++) {
        go_sgf_node *root = c->games[pro_illegal[k].game - 1];
        add_prop(root, "RU", "Japanese");
        go_game g;
        bool ok = go_sgf_to_game(root, -1, &g, err, sizeof err);
        if (!pro_illegal[k].err_japanese) {
            ck_assert_msg(ok, "game %d: %s", pro_illegal[k].game, err);
            go_game_free(&g);
        } else {
            ck_assert(!ok);
            ck_assert_str_eq(err, pro_illegal[k].err_japanese);
        }
    }
    go_sgf_free(c);
}
END_TEST

START_TEST(test_from_game)
{
    go_rules rules;
    ck_assert(go_rules_preset(&rules, "japanese"));
    go_game g;
    ck_assert(go_game_init(&g, 9, &rules, 0.5f));

    /* Fixed handicap: white to move is implied, so no PL is written. */
    ck_assert_int_eq(go_game_fixed_handicap(&g, 2, NULL), 2);
    const char *moves[] = {"ee", "cc", "dc", "cd", "bc", "", "bd", "cb", "db", "ba"};
    for (int i = 0; i < 10; i++) {
        go_color c = i % 2 == 0 ? GO_WHITE : GO_BLACK;
        int p = moves[i][0] ? test_sgf_point(moves[i]) : GO_PASS;
        ck_assert_int_eq(go_game_play(&g, p, c), GO_MOVE_OK);
    }
    go_sgf_collection *col = go_sgf_from_game(&g);
    const go_sgf_node *root = col->games[0];
    const char *want[][2] = {{"FF", "4"},   {"GM", "1"},   {"CA", "UTF-8"}, {"AP", "shido"},
                             {"SZ", "9"},   {"KM", "0.5"}, {"RU", "japanese"}, {"HA", "2"}};
    for (int i = 0; i < 8; i++)
        ck_assert_str_eq(go_sgf_get(root, want[i][0]), want[i][1]);
    ck_assert_ptr_nonnull(go_sgf_get(root, "AB"));
    ck_assert_ptr_null(go_sgf_get(root, "AW"));
    ck_assert_ptr_null(go_sgf_get(root, "PL"));
    go_sgf_free(col);
    assert_game_round_trip(&g);
    go_game_free(&g);

    /* Free setup with black to move after white stones needs PL; custom rules, odd komi. */
    ck_assert(go_game_init(&g, 5, NULL, -3.25f));
    g.rules.tax = GO_TAX_ALL;
    ck_assert(go_game_setup_stone(&g, test_sgf_point("bb"), GO_WHITE));
    ck_assert(go_game_setup_stone(&g, test_sgf_point("dd"), GO_BLACK));
    go_game_set_to_move(&g, GO_WHITE);
    col = go_sgf_from_game(&g);
    ck_assert_str_eq(go_sgf_get(col->games[0], "PL"), "W");
    ck_assert_str_eq(go_sgf_get(col->games[0], "KM"), "-3.25");
    go_sgf_free(col);
    assert_game_round_trip(&g);
    ck_assert_int_eq(go_game_play(&g, test_sgf_point("cc"), GO_WHITE), GO_MOVE_OK);
    ck_assert_int_eq(go_game_play(&g, GO_PASS, GO_BLACK), GO_MOVE_OK);
    assert_game_round_trip(&g);
    go_game_set_to_move(&g, GO_BLACK); /* black again, after its own pass */
    col = go_sgf_from_game(&g);
    const go_sgf_node *last = main_line_node(col->games[0], 3);
    ck_assert_int_eq(last->num_props, 1);
    ck_assert_str_eq(go_sgf_get(last, "PL"), "B");
    go_sgf_free(col);
    assert_game_round_trip(&g);
    go_game_free(&g);

    /* An empty game. */
    ck_assert(go_game_init(&g, 19, NULL, 7.5f));
    assert_game_round_trip(&g);
    go_game_free(&g);
}
END_TEST

Suite *sgf_suite(void)
{
    Suite *s = suite_create("sgf");
    TCase *tc = tcase_create("read");
    tcase_add_test(tc, test_info);
    tcase_add_test(tc, test_defaults);
    tcase_add_test(tc, test_variations);
    tcase_add_test(tc, test_escapes);
    tcase_add_test(tc, test_compressed_setup);
    tcase_add_test(tc, test_passes);
    tcase_add_test(tc, test_pl);
    tcase_add_test(tc, test_multigame);
    tcase_add_test(tc, test_old_identifiers);
    tcase_add_test(tc, test_markup_kept);
    tcase_add_loop_test(tc, test_rules_mapping, 0, (int)(sizeof ru_cases / sizeof ru_cases[0]));
    tcase_add_test(tc, test_katago_rules);
    tcase_add_test(tc, test_rectangular);
    suite_add_tcase(s, tc);

    tc = tcase_create("errors");
    load_bad_manifest();
    tcase_add_loop_test(tc, test_error_positions, 0,
                        (int)(sizeof pos_cases / sizeof pos_cases[0]));
    tcase_add_test(tc, test_bad_manifest_complete);
    tcase_add_loop_test(tc, test_bad_file, 0, num_bad);
    tcase_add_test(tc, test_read_file_errors);
    suite_add_tcase(s, tc);

    tc = tcase_create("limits");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, test_deep_line);
    tcase_add_test(tc, test_deep_nesting);
    suite_add_tcase(s, tc);

    tc = tcase_create("games");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, test_meijin);
    tcase_add_test(tc, test_pro_collection);
    tcase_add_test(tc, test_from_game);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return test_run_suite(sgf_suite()); }
