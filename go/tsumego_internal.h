/* go/tsumego_internal.h -- what the tsumego files share: the region board and the df-pn search.
 *
 * The solver does not play on a go_board: it plays on the region only, with points renumbered
 * 0..n-1 and a neighbour table. Points outside the region are "frame": attacker stones that can
 * never be captured. An attacker chain touching the frame is therefore safe, and the frame is no
 * liberty of anything. This is what the real frame on go_tsumego_problem.framed does, at a cost
 * that does not grow with the board: a position is about 6 bytes per region point, copied whole
 * for every move (copy-make, no undo).
 */
#ifndef SHIDO_GO_TSUMEGO_INTERNAL_H
#define SHIDO_GO_TSUMEGO_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "go/board.h"
#include "go/tsumego.h"
#include "go/clock.h"

#define TS_MAX_POINTS GO_TSUMEGO_MAX_REGION
#define TS_EDGE (-1)  /* neighbour off the board */
#define TS_FRAME (-2) /* neighbour outside the region: the attacker's frame */
#define TS_NONE 255   /* no ko point, in a uint8_t field (region indices stop at 254) */
#define TS_PASS TS_MAX_POINTS /* a pass in a move list */

/* Ko-threat budgets: how often a colour may retake a ko at once (0 to TS_MAX_THREATS, or
 * unlimited). */
#define TS_MAX_THREATS 3
#define TS_UNLIMITED (TS_MAX_THREATS + 1)

/* Static description of a problem's region (read-only during a search). */
typedef struct ts_geom {
    int n;                              /* region points */
    int size;                           /* board size */
    go_color attacker, defender;
    int16_t idx[GO_POINTS];             /* region index of a board point, TS_EDGE or TS_FRAME */
    int16_t pt[TS_MAX_POINTS];          /* board point of a region index */
    int16_t nb[TS_MAX_POINTS][4];       /* neighbours: region index, TS_EDGE or TS_FRAME */
    uint64_t zob[3][TS_MAX_POINTS];     /* stone keys per colour */
    uint64_t zob_ko[TS_MAX_POINTS];     /* ko point key */
    uint64_t zob_white;                 /* white to move */
    uint64_t zob_budget[3][TS_UNLIMITED + 1]; /* remaining ko-threat budget per colour */
    uint64_t zob_passed[3];             /* by ts_pos.passed (0: no key) */
} ts_geom;

/* Per-point state. head/next/libs/stones as in go_board (valid at a chain head where noted). */
typedef struct ts_point {
    uint8_t color;  /* GO_EMPTY, GO_BLACK, GO_WHITE */
    uint8_t head;
    uint8_t next;
    uint8_t libs;   /* at head: liberties inside the region */
    uint8_t stones; /* at head */
    uint8_t flags;  /* TS_SAFE at a head, TS_TARGET on a stone */
} ts_point;

#define TS_SAFE 1   /* chain touches the frame: never captured */
#define TS_TARGET 2 /* an original target stone still on the board */

typedef struct ts_pos {
    uint64_t hash;       /* stones only */
    int16_t target_left; /* target stones on the board */
    uint8_t ko;          /* point the side to move may not play without a threat, or TS_NONE */
    uint8_t to_move;
    uint8_t budget[3];   /* ko-threat budget per colour */
    uint8_t passed;      /* passes just played: 0, 1, or 2 for two or more in a row */
    uint8_t threats;     /* ko threats spent so far (wraps; only for telling cycles apart) */
    ts_point p[TS_MAX_POINTS];
} ts_pos;

/* --- tsumego_board.c --- */

/* Fills g for the points of a size x size board where region[p] is set (at most TS_MAX_POINTS
 * of them; GO_POINTS entries). Deterministic keys. */
void ts_geom_init(ts_geom *g, int size, const uint8_t *region, go_color attacker);

/* The region part of b as a position; defender stones become targets unless not_target[i] is
 * true (NULL: all do). The board's ko point is kept when to_move is the side it binds. */
void ts_pos_from_board(const ts_geom *g, const go_board *b, go_color to_move, const bool *not_target,
                       ts_pos *s);

/* Copies the first g->n points only (the rest is never read). */
void ts_pos_copy(const ts_geom *g, ts_pos *dst, const ts_pos *src);

/* True when c may play i (empty, no suicide). Ko is the caller's business. */
bool ts_legal(const ts_geom *g, const ts_pos *s, int i, int c);

/* Plays c at i (legal) or passes (TS_PASS); sets ko and to_move. Returns stones captured. */
int ts_play(const ts_geom *g, ts_pos *s, int i, int c);

/* Key of the position for the transposition table: stones, side to move, ko, budgets. */
static inline uint64_t ts_key(const ts_geom *g, const ts_pos *s)
{
    uint64_t k = s->hash ^ g->zob_budget[GO_BLACK][s->budget[GO_BLACK]] ^
                 g->zob_budget[GO_WHITE][s->budget[GO_WHITE]];
    if (s->to_move == GO_WHITE)
        k ^= g->zob_white;
    if (s->ko != TS_NONE)
        k ^= g->zob_ko[s->ko];
    k ^= g->zob_passed[s->passed];
    return k;
}

/* Pass-alive defender chains (Benson, inside the region): alive[i] true on their stones.
 * Returns true when at least one target stone is pass-alive. alive may be NULL. */
bool ts_benson_defender(const ts_geom *g, const ts_pos *s, bool *alive);

/* Eye spaces of the defender's areas (see the .c file): returns the largest one's size and sets
 * *dead when every area is a known dead shape for the side to move, or (with eyeless) an area
 * with room for one eye at most, whatever the attacker leaves there (eyeless_area). */
#define TS_DEAD_MAX 8
#define TS_SPACE_CAP 16
int ts_defender_space(const ts_geom *g, const ts_pos *s, bool eyeless, bool *dead);

/* Are the target chains sealed (tsumego_board.c): with the defender chains they can connect
 * to, unable to gain a liberty but by capturing, with room for one eye at most, and every
 * attacker chain next to them or their liberties safe or with more liberties than the race
 * gives the defender time to take, so that the attacker fills their liberties and captures them
 * whatever the defender does? False when there are no target stones. */
bool ts_targets_sealed(const ts_geom *g, const ts_pos *s);

/* May the side to move play i in s under the ko rule and its budget? (i empty and legal) */
static inline bool ts_ko_allows(const ts_pos *s, int i)
{
    return i != s->ko || s->budget[s->to_move] > 0;
}

/* Plays a move of the side to move, spending a ko threat when it retakes a banned ko. A pass of
 * the attacker right after a defender's pass (not after two) removes the defender's ko threats:
 * when the defender has nothing better than to pass, the attacker can answer every threat it
 * has before starting a ko, which is why bent four in the corner is dead under Japanese rules.
 * Its pass after a move on the board (playing elsewhere) leaves them. */
int ts_play_move(const ts_geom *g, ts_pos *s, int i);

/* The key ts_play_move(g, s, i) would give, without playing: true when the move of the side to
 * move at i (legal) captures nothing, since the child then differs by one stone, the side to
 * move and a cleared ko and pass flag. False for captures (a ko retake is one) and a pass. */
bool ts_quiet_key(const ts_geom *g, const ts_pos *s, int i, uint64_t *key);

/* --- tsumego_search.c: df-pn over the local game, numbers from the attacker's view --- */

typedef enum { TS_OPEN = 0, TS_ATTACKER_WINS, TS_DEFENDER_WINS } ts_outcome;

typedef struct ts_search ts_search;

/* A search with its own transposition table of 2^tt_log2 x 16 bytes; NULL when out of memory. */
ts_search *ts_search_new(const ts_geom *g, int tt_log2);
void ts_search_free(ts_search *s);

/* Limits shared by every search of one solve: an absolute deadline (CLOCK_MONOTONIC seconds) and
 * a node budget (0 = none). Nodes are counted across searches. */
void ts_search_limits(ts_search *s, double deadline_s, uint64_t max_nodes);
uint64_t ts_search_nodes(const ts_search *s);
bool ts_search_out_of_time(ts_search *s);

/* A prior for the first moves of colour c (by region index; NULL clears it): at the root of a
 * search with c to move, the moves are taken in the order of the prior instead of the search's
 * own, which decides what df-pn expands first there. */
void ts_search_set_prior(ts_search *s, int c, const float *prior);

/* Threads one search may use (1 by default): a search that runs past a few thousand nodes
 * starts threads - 1 helpers that search the same position with it, sharing the table, until
 * it ends; nodes and limits count them all. Results stay exact; which proof is found first,
 * and the table left behind, depend on the threads' timing. */
#define TS_MAX_THREADS 64
void ts_search_set_threads(ts_search *s, int threads);
uint64_t ts_search_helped(const ts_search *s); /* of ts_search_nodes, the helpers' so far */

/* Runs df-pn from root until it is proven either way or a limit is hit. */
ts_outcome ts_search_prove(ts_search *s, const ts_pos *root);

/* The same from line[n - 1], the positions before it (n - 1 of them, each the one before after
 * a move) being its history: a move that repeats one of them is a repetition, as on the line
 * searched. A first move's search has the problem's start position as its history, so that
 * its value is the one the start position's search would find. TS_OPEN when n is not between
 * 1 and 100. */
ts_outcome ts_search_prove_line(ts_search *s, const ts_pos *line, int n);

/* Simulation (on by default): a child of a node that needs every child settled the same way is
 * first tried by replaying the proof of a settled sibling. Off only to compare (tests). */
void ts_search_set_simulation(ts_search *s, bool on);
uint64_t ts_search_simulated(const ts_search *s); /* children settled by simulation so far */

/* The eyeless-area terminal (on by default, see ts_defender_space) and the sealed-chain one
 * (ts_targets_sealed). Off only to compare (tests). */
void ts_search_set_eyeless(ts_search *s, bool on);
void ts_search_set_sealed(ts_search *s, bool on);

/* What the table knows of a position: TS_OPEN when nothing is proven. pn/dn may be NULL. */
ts_outcome ts_search_lookup(ts_search *s, const ts_pos *pos, uint32_t *pn, uint32_t *dn,
                            uint32_t *work);

/* Candidate moves of the side to move in pos, in the search's order, pass included for the
 * defender. Returns the count (at most TS_MAX_POINTS + 1). */
int ts_search_moves(ts_search *s, const ts_pos *pos, int *moves);

/* The same in the order of the position alone (captures, ataris, liberties), without what the
 * searches so far have learnt: the same for every search of the position. */
int ts_search_moves_by_shape(ts_search *s, const ts_pos *pos, int *moves);

/* Terminal outcome of a position by the rules alone (captures, Benson), or TS_OPEN. */
ts_outcome ts_search_terminal(ts_search *s, const ts_pos *pos);

/* --- tsumego.c / tsumego_sgf.c: one solve --- */

/* Ko-threat budgets of the mover and its opponent for one question "does the mover win?". */
typedef struct ts_budgets {
    uint8_t mover, other;
} ts_budgets;

typedef struct ts_solver {
    const go_tsumego_problem *prob;
    ts_geom geom;
    ts_pos root;       /* to_play to move, budgets zero */
    ts_search *search;
    ts_budgets level;  /* the budgets at which the status was settled (or failed) */
} ts_solver;

/* root with the mover's budgets applied (the mover is root->to_move). */
void ts_solver_position(const ts_solver *sv, ts_budgets lv, ts_pos *out);

/* Does the colour `mover` win the outcome? */
static inline bool ts_wins(const ts_geom *g, ts_outcome o, int mover)
{
    return o == (mover == (int)g->attacker ? TS_ATTACKER_WINS : TS_DEFENDER_WINS);
}

/* The SGF solution tree of a finished solve: a malloc'd string, NULL when out of memory. Proof
 * lines come from the search's table; missing links are re-proved until deadline_s. */
char *ts_solution_sgf(ts_solver *sv, const go_tsumego_solution *sol, double deadline_s);

#endif
