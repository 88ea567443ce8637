/* nn/lz_inputs.h -- Go positions in and out of a Leela Zero network: the 18 input planes, the
 * eight symmetries with Leela Zero's own numbering, and the outputs back in board terms.
 *
 * Orders. The net works in Leela Zero's order: index = y * 19 + x with y = 0 the BOTTOM row
 * (GTP row 1). shido's boards and every policy handed out here are row-major with the TOP row
 * first (as go_point_at and the reference vectors), then pass at index 361.
 *
 * Symmetry s (0-7) maps a net index (x, y) to the board point it reads: transpose if s & 4, then
 * mirror x if s & 2, then mirror y if s & 1 (all in Leela Zero's coordinates). Input plane index i
 * holds the stone at that point, and policy output i is the probability of that point, which is
 * exactly how Leela Zero's gather_features and get_output_internal use its symmetry table.
 *
 * Planes (each 361 floats, net order), for the side to move ("own") and the opponent:
 *   0-7    own stones now, 1 move ago, ... 7 moves ago
 *   8-15   opponent stones at the same times
 *   16     all ones when black is to move        17   all ones when white is to move
 * History follows Leela Zero: a pass repeats the board; before the first move (or before the
 * setup/handicap position, which Leela Zero's fixed_handicap and loadsgf anchor as move 0) the
 * planes are zero, not copies of the first board. Leela Zero's GTP set_free_handicap instead plays
 * each stone as a move; shido's setup stones have no order, so positions set up that way match
 * Leela Zero only once 7 moves have been played after them.
 */
#ifndef SHIDO_NN_LZ_INPUTS_H
#define SHIDO_NN_LZ_INPUTS_H

#include <stdbool.h>

#include "go/game.h"
#include "weights/desc_lz.h"

/* The net index that symmetry s maps net index idx to (both 0..360 in net order). */
int nn_lz_symmetry_index(int symmetry, int idx);

/* The board point (go_point_at) that net index idx (net order, 0..360) reads under symmetry s. */
int nn_lz_net_index_point(int symmetry, int idx);

/* Fills planes[NN_LZ_INPUT_PLANES * NN_LZ_POINTS] for the side to move in g. Returns false (and
 * writes nothing) unless the board is 19x19 and symmetry is 0..7. */
bool nn_lz_inputs(const go_game *g, int symmetry, float *planes);

/* Undoes the symmetry on the net's policy (NN_LZ_POLICY_OUTPUTS values in net order, pass last):
 * policy[y * 19 + x] (top row first) and policy[361] = pass. */
void nn_lz_policy_to_board(int symmetry, const float *net_policy, float *policy);

/* The winrate for the side to move from the value head's winrate, (1 + tanh(v)) / 2: version 2
 * (ELF) nets give black's winrate, which is turned round when white is to move. */
float nn_lz_winrate_to_move(const struct nn_lz_desc *lz, go_color to_move, float head_winrate);

#endif
