/* go/game.c -- game state with history, superko, undo and handicap placement. */
#include "go/game.h"

#include <stdlib.h>
#include <string.h>

const char *go_move_status_text(go_move_status s)
{
    switch (s) {
    case GO_MOVE_OK:
        return "ok";
    case GO_MOVE_OCCUPIED:
        return "illegal move: point occupied";
    case GO_MOVE_OFF_BOARD:
        return "illegal move: not on the board";
    case GO_MOVE_SUICIDE:
        return "illegal move: suicide";
    case GO_MOVE_KO:
        return "illegal move: ko";
    case GO_MOVE_SUPERKO:
        return "illegal move: superko";
    }
    return "illegal move";
}

/* Hash of the position as superko sees it: the stones, plus the side to move when situational.
 * hashes[] keeps the stones alone so that a change of rules mid-game needs no rebuild. */
static uint64_t superko_hash(uint64_t stones, go_color to_move, go_ko_rule ko)
{
    if (ko == GO_KO_SITUATIONAL && to_move == GO_WHITE)
        stones ^= go_zobrist_white_to_move();
    return stones;
}

bool go_game_init(go_game *g, int size, const go_rules *rules, float komi)
{
    return go_game_init_rect(g, size, size, rules, komi);
}

bool go_game_init_rect(go_game *g, int width, int height, const go_rules *rules, float komi)
{
    memset(g, 0, sizeof *g);
    if (!go_board_init_rect(&g->board, width, height))
        return false;
    if (rules)
        g->rules = *rules;
    else
        go_rules_preset(&g->rules, "tromp-taylor");
    g->komi = komi;
    g->cap_moves = 64;
    g->moves = malloc(sizeof *g->moves * (size_t)g->cap_moves);
    g->before = malloc(sizeof *g->before * (size_t)g->cap_moves);
    g->hashes = malloc(sizeof *g->hashes * (size_t)(g->cap_moves + 1));
    if (!g->moves || !g->before || !g->hashes) {
        go_game_free(g);
        return false;
    }
    go_game_clear(g);
    return true;
}

void go_game_free(go_game *g)
{
    free(g->moves);
    free(g->before);
    free(g->hashes);
    g->moves = NULL;
    g->before = NULL;
    g->hashes = NULL;
    g->cap_moves = g->num_moves = 0;
}

void go_game_clear(go_game *g)
{
    go_board_init_rect(&g->board, g->board.width, g->board.height);
    g->setup = g->board;
    g->handicap = 0;
    g->num_moves = 0;
    g->consecutive_passes = 0;
    g->hashes[0] = g->board.hash;
}

/* Whether the board after a move repeats an earlier position under superko rule ko. */
static bool repeats_position(const go_game *g, const go_board *after, go_ko_rule ko)
{
    uint64_t h = superko_hash(after->hash, after->to_move, ko);
    for (int i = 0; i <= g->num_moves; i++) {
        go_color to_move = i == 0 ? g->setup.to_move : go_opponent(g->moves[i - 1].color);
        if (superko_hash(g->hashes[i], to_move, ko) == h)
            return true;
    }
    return false;
}

go_move_status go_game_legal(const go_game *g, int p, go_color c)
{
    const go_board *b = &g->board;
    if (p == GO_PASS)
        return GO_MOVE_OK;
    if (!go_board_on(b, p))
        return GO_MOVE_OFF_BOARD;
    if (b->color[p] != GO_EMPTY)
        return GO_MOVE_OCCUPIED;
    /* Under superko rules the simple-ko ban is subsumed by the repetition test. */
    bool simple_ko = g->rules.ko == GO_KO_SIMPLE && p == b->ko_point && c == b->ko_color;
    if (simple_ko)
        return GO_MOVE_KO;
    go_board probe = *b;
    probe.ko_point = 0;
    if (!go_board_is_legal(&probe, p, c, g->rules.multi_stone_suicide))
        return GO_MOVE_SUICIDE;
    if (g->rules.ko == GO_KO_SIMPLE)
        return GO_MOVE_OK;
    go_board_play(&probe, p, c);
    return repeats_position(g, &probe, g->rules.ko) ? GO_MOVE_SUPERKO : GO_MOVE_OK;
}

bool go_game_repeats(const go_game *g, int p, go_color c)
{
    /* under a superko rule a legal move repeats nothing */
    if (p == GO_PASS || g->rules.ko != GO_KO_SIMPLE || go_game_legal(g, p, c) != GO_MOVE_OK)
        return false;
    go_board probe = g->board;
    go_board_play(&probe, p, c);
    return repeats_position(g, &probe, GO_KO_SITUATIONAL);
}

static bool grow_history(go_game *g)
{
    if (g->num_moves < g->cap_moves)
        return true;
    int cap = g->cap_moves * 2;
    go_move *m = realloc(g->moves, sizeof *m * (size_t)cap);
    if (!m)
        return false;
    g->moves = m;
    go_board *bf = realloc(g->before, sizeof *bf * (size_t)cap);
    if (!bf)
        return false;
    g->before = bf;
    uint64_t *h = realloc(g->hashes, sizeof *h * (size_t)(cap + 1));
    if (!h)
        return false;
    g->hashes = h;
    g->cap_moves = cap;
    return true;
}

go_move_status go_game_play(go_game *g, int p, go_color c)
{
    if (c != GO_BLACK && c != GO_WHITE)
        return GO_MOVE_OFF_BOARD;
    go_move_status st = go_game_legal(g, p, c);
    if (st != GO_MOVE_OK)
        return st;
    if (!grow_history(g))
        return GO_MOVE_OFF_BOARD;
    g->before[g->num_moves] = g->board;
    g->moves[g->num_moves] = (go_move){c, p};
    /* A superko rule keeps its own record: the simple-ko point must not forbid a retake that
     * recreates no earlier position, so go_board_play's ko point is not consulted there. */
    go_board_play(&g->board, p, c);
    g->num_moves++;
    g->hashes[g->num_moves] = g->board.hash;
    g->consecutive_passes = p == GO_PASS ? g->consecutive_passes + 1 : 0;
    return GO_MOVE_OK;
}

bool go_game_undo(go_game *g)
{
    if (g->num_moves == 0)
        return false;
    g->num_moves--;
    g->board = g->before[g->num_moves];
    int passes = 0;
    for (int i = g->num_moves - 1; i >= 0 && g->moves[i].point == GO_PASS; i--)
        passes++;
    g->consecutive_passes = passes;
    return true;
}

bool go_game_setup_stone(go_game *g, int p, go_color c)
{
    if (g->num_moves > 0)
        return false;
    if (!go_board_place(&g->board, p, c))
        return false;
    g->setup = g->board;
    g->hashes[0] = g->board.hash;
    return true;
}

void go_game_set_to_move(go_game *g, go_color c)
{
    g->board.to_move = c;
    if (g->num_moves == 0) {
        g->setup = g->board;
        g->hashes[0] = g->board.hash;
    } else {
        g->hashes[g->num_moves] = g->board.hash;
    }
}

int go_fixed_handicap_points(int size, int n, int *pts)
{
    if (size < 7 || n < 2 || n > 9)
        return 0;
    if ((size % 2 == 0 || size == 7) && n > 4)
        return 0;
    int lo = size >= 13 ? 3 : 2, hi = size - 1 - lo, mid = size / 2;
    /* GTP 4.1.1: corners first (lower left, upper right, upper left, lower right), then the
     * centre for odd counts, then the side points. */
    int xs[9], ys[9], k = 0;
#define ADD(x_, y_) (xs[k] = (x_), ys[k] = (y_), k++)
    ADD(lo, hi);
    ADD(hi, lo);
    if (n >= 3)
        ADD(lo, lo);
    if (n >= 4)
        ADD(hi, hi);
    if (n >= 6) {
        ADD(lo, mid);
        ADD(hi, mid);
    }
    if (n >= 8) {
        ADD(mid, hi);
        ADD(mid, lo);
    }
    if (n % 2 == 1 && n >= 5)
        ADD(mid, mid);
#undef ADD
    for (int i = 0; i < k; i++)
        pts[i] = go_point_at(xs[i], ys[i]);
    return k;
}

int go_game_fixed_handicap(go_game *g, int n, int *pts)
{
    int local[9];
    if (!pts)
        pts = local;
    if (g->num_moves > 0 || g->board.num_empty != g->board.width * g->board.height ||
        !go_board_square(&g->board))
        return 0;
    int k = go_fixed_handicap_points(g->board.size, n, pts);
    if (k == 0)
        return 0;
    for (int i = 0; i < k; i++)
        go_board_place(&g->board, pts[i], GO_BLACK);
    g->handicap = k;
    g->board.to_move = GO_WHITE;
    g->setup = g->board;
    g->hashes[0] = g->board.hash;
    return k;
}

go_color go_game_last_color(const go_game *g)
{
    return g->num_moves ? g->moves[g->num_moves - 1].color : GO_EMPTY;
}

bool go_game_copy(go_game *dst, const go_game *src)
{
    *dst = *src;
    size_t cap = (size_t)src->cap_moves;
    dst->moves = malloc(sizeof *dst->moves * cap);
    dst->before = malloc(sizeof *dst->before * cap);
    dst->hashes = malloc(sizeof *dst->hashes * (cap + 1));
    if (!dst->moves || !dst->before || !dst->hashes) {
        go_game_free(dst);
        return false;
    }
    memcpy(dst->moves, src->moves, sizeof *dst->moves * (size_t)src->num_moves);
    memcpy(dst->before, src->before, sizeof *dst->before * (size_t)src->num_moves);
    memcpy(dst->hashes, src->hashes, sizeof *dst->hashes * (size_t)(src->num_moves + 1));
    return true;
}
