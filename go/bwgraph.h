/* go/bwgraph.h -- the BW Graph Model (seed 004, Sato, Anada & Tsutsumi): a position as two point
 * sets and a connection relation, and the set operators tactical maps are built from.
 *
 *   b = empty-or-black points, w = empty-or-white points; black = b - w, white = w - b,
 *   empty = b & w, all = b | w, complement(A) = all - A.
 *   F0(x) = x and its 4-neighbours (the "touch" relation N, reflexive).
 *   F(x)  = the points touching the chain that holds x, the chain included (an empty point is a
 *           chain of its own, so F(x) = F0(x) for empty points and single stones).
 *   Pre_n(A) = {x : |F(x) & A| >= n}      (x's chain reaches n points of A)
 *   Suc_n(A) = {x : |F^-1(x) & A| >= n}   (n points of A have chains reaching x)
 *   Adj_n(A) = {x : |F0(x) & A| >= n}     (n = 1..5; F0 has at most 5 points)
 *   H   = complement(Pre_2(empty)): stones with one liberty, empty points with no empty neighbour.
 *   r_b = empty & Adj_1(b xor H), r_w = empty & Adj_1(w xor H): the points where a move is not
 *         suicide. Simple ko is not in the model (the paper leaves it out): the board engine
 *         forbids the ko point.
 *   A move i by black: a(i) = (Pre_1({i}) - w) | {i} (the new chain), d(i) = (Pre_1({i}) & H) - b
 *   (the captured stones), b' = b | d(i), w' = w - a(i), F'(x) = Suc_1(a(i)) on a(i), F0 on d(i),
 *   F elsewhere. White: swap b and w.
 *
 * Representation of F: only chains of two or more stones are stored (stones and reach = F of any
 * of their points); everywhere else F = F0, so Pre_n and Suc_n are Adj_n corrected chain by chain.
 * A go_bw is plain data (about 18 KB); copy it with = or memcpy.
 */
#ifndef SHIDO_GO_BWGRAPH_H
#define SHIDO_GO_BWGRAPH_H

#include <stdbool.h>
#include <stdint.h>

#include "go/bitboard.h"
#include "go/board.h"

#define GO_BW_MAX_CHAINS 184 /* a 19x19 board holds at most 180 chains of two or more stones */

typedef struct go_bw_chain {
    go_bb stones;       /* two or more stones of one colour */
    go_bb reach;        /* F(x) for every x of the chain: the chain and its 4-neighbours */
    uint8_t lo, hi;     /* the words of reach that can be non-zero, lo..hi inclusive */
} go_bw_chain;

typedef struct go_bw {
    int size;
    go_bb all;          /* b | w: the points of the board */
    go_bb b, w;
    go_bb multi;        /* points in stored chains; F = F0 elsewhere */
    int num_chains;
    int16_t chain_of[GO_BB_BITS]; /* index into chains[] for points of multi, else -1 */
    go_bw_chain chains[GO_BW_MAX_CHAINS];
} go_bw;

/* What a move changed: the new chain a(i) and the captured stones d(i). */
typedef struct go_bw_move {
    go_bb chain;
    go_bb captured;
} go_bw_move;

/* An empty board of size x size; returns false (g untouched) for an absurd size. */
bool go_bw_init(go_bw *g, int size);

/* The model of a board position, F derived by growing each chain over its colour (the paper's
 * "derivable from b, w and F0"). */
void go_bw_from_board(go_bw *g, const go_board *b);

static inline go_bb go_bw_black(const go_bw *g) { return go_bb_andnot(g->b, g->w); }
static inline go_bb go_bw_white(const go_bw *g) { return go_bb_andnot(g->w, g->b); }
static inline go_bb go_bw_empty(const go_bw *g) { return go_bb_and(g->b, g->w); }

/* The operators, writing into *out (which may alias *a); n outside 1..5 is clamped into it
 * (n <= 0 would be every point, which no map needs). A may hold points off the board; they are
 * ignored. The pointer forms exist because 48-byte values passed through memory cost more than
 * the operators themselves (bench/bwgraph.c); the value forms are for readable callers. */
void go_bw_adj_to(const go_bw *g, const go_bb *a, int n, go_bb *out);
void go_bw_pre_to(const go_bw *g, const go_bb *a, int n, go_bb *out);
void go_bw_suc_to(const go_bw *g, const go_bb *a, int n, go_bb *out);

static inline go_bb go_bw_adj(const go_bw *g, go_bb a, int n)
{
    go_bw_adj_to(g, &a, n, &a);
    return a;
}
static inline go_bb go_bw_pre(const go_bw *g, go_bb a, int n)
{
    go_bw_pre_to(g, &a, n, &a);
    return a;
}
static inline go_bb go_bw_suc(const go_bw *g, go_bb a, int n)
{
    go_bw_suc_to(g, &a, n, &a);
    return a;
}

/* F(x) and F^-1(x) = Pre_1({x}) of one point (a bit index on the board). */
go_bb go_bw_reach(const go_bw *g, int bit);
go_bb go_bw_reached_by(const go_bw *g, int bit);

/* H, the atari set. */
go_bb go_bw_atari(const go_bw *g);

/* r_b (c = GO_BLACK) or r_w (c = GO_WHITE): the empty points that are not suicide for c. */
go_bb go_bw_legal(const go_bw *g, go_color c);

/* Plays colour c at bit by the recurrences; bit must be in go_bw_legal(g, c). Fills out (may be
 * NULL) with a(i) and d(i). */
void go_bw_play(go_bw *g, int bit, go_color c, go_bw_move *out);

/* The colour of a bit under the model: GO_EMPTY, GO_BLACK, GO_WHITE, or GO_BORDER off the board. */
go_color go_bw_color(const go_bw *g, int bit);

#endif
