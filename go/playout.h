/* go/playout.h -- uniform random playouts: the board benchmark's workload and a source of
 * random positions for tests. */
#ifndef SHIDO_GO_PLAYOUT_H
#define SHIDO_GO_PLAYOUT_H

#include <stdint.h>

#include "go/board.h"

/* xorshift64* step; *state must be non-zero. */
uint64_t go_rand_next(uint64_t *state);

/* A random legal move for the side to move that does not fill its own eye: the first such point
 * met scanning the empty list from a random start, or GO_PASS when there is none. Simple ko, no
 * suicide. */
int go_playout_pick(const go_board *b, uint64_t *rng);

/* Plays random moves (go_playout_pick) from b until two passes in a row or max_moves moves.
 * Returns the number of stones played (passes not counted). */
int go_playout_run(go_board *b, uint64_t *rng, int max_moves);

#endif
