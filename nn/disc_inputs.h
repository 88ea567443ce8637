/* nn/disc_inputs.h -- the input planes of the tsumego discriminator (seed 002, section 4): a
 * size x size window of a board, each point described by 25 binary planes:
 *   0 black stone, 1 white stone, 2 empty;
 *   3-7   liberties of the chain on the point: 1, 2, 3, 4, 5 or more (empty points: none);
 *   8-12  stones of that chain: 1, 2, 3, 4, 5 or more;
 *   13-17 black stones that white would capture by playing on this empty point (legal moves
 *         only): 1, 2, 3, 4, 5 or more;
 *   18-22 white stones black would capture there, likewise;
 *   23 all ones, 24 all zeros.
 * Liberties and captures are those on the whole board, so a window cut from a bigger board sees
 * the chains as they are. */
#ifndef SHIDO_NN_DISC_INPUTS_H
#define SHIDO_NN_DISC_INPUTS_H

#include <stdbool.h>

#include "go/board.h"

#define NN_DISC_PLANES 25

/* Writes the planes [NN_DISC_PLANES][size][size] of the window with top-left corner (x0, y0) of
 * b, turned by symmetry (0..7, go_symmetry_xy on the window's coordinates). False when the window leaves the board or the
 * symmetry is out of range. */
bool nn_disc_inputs(const go_board *b, int x0, int y0, int size, int symmetry, float *planes);

#endif
