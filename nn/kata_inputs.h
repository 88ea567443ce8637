/* nn/kata_inputs.h -- KataGo's input features (NNInputs::fillRowV3..V7) from a go_game, the
 * legal moves as KataGo sees them, its 8 symmetries, and its ladder search.
 *
 * KataGo keeps a BoardHistory beside the board; shido derives the same state from the go_game:
 *   - the history starts at the setup position, and starts afresh wherever the colours stop
 *     alternating (KataGo's GTP clears the history when a move is not by the expected player,
 *     and when the side to move is set by hand);
 *   - territory scoring "chills" 1 point per stone played (white's bonus grows by one per black
 *     move, shrinks by one per white move), a button is taken by the first pass (0.5 points),
 *     and the white handicap bonus counts black's setup stones plus leading black moves (GTP's
 *     assumeMultipleStartingBlackMovesAreHandicap), as the rules' N / N-1 / 0 say;
 *   - superko bans are the moves whose result repeats a position of that history (positional),
 *     or a position with the same side to move (situational); the simple-ko point is banned
 *     under every ko rule, and the first pass with a button restarts the superko history;
 *   - two consecutive passes (or, under simple ko, a pass repeating an earlier pass by the same
 *     player in the same position) end the game or the main phase, as does, under simple ko, a
 *     position (with its side to move) seen a third time since the last pass. Inputs versions
 *     3..5 then hide the move history from the net, versions 6 and 7 show only the last move.
 *     GTP prevents the cleanup (encore) phase, so encore features stay 0;
 *   - where a pass would end an area-scored game but the rules call passing friendly
 *     (friendly_pass_ok), KataGo plays on: the history and the "pass ends the phase" feature
 *     are hidden (KataGo's shouldSuppressEndGameFromFriendlyPass).
 *
 * Planes are in the board's own orientation, index (c * size + y) * size + x with y = 0 the TOP
 * row, on a size x size tensor. KataGo's own tensor is 19x19 with the board in a corner and a
 * mask; every layer masks what lies off the board, so both give the same numbers.
 */
#ifndef SHIDO_NN_KATA_INPUTS_H
#define SHIDO_NN_KATA_INPUTS_H

#include <stdbool.h>

#include "go/board.h"
#include "go/game.h"
#include "go/rules.h"
#include "nn/desc_kata.h"

#define NN_KATA_SYMMETRIES 8
#define NN_KATA_MAX_POINTS (GO_MAX_SIZE * GO_MAX_SIZE)

typedef struct nn_kata_inputs {
    int size;
    int num_spatial, num_global;
    float spatial[NN_KATA_MAX_SPATIAL * NN_KATA_MAX_POINTS];   /* [c][y][x] */
    float global[NN_KATA_MAX_GLOBAL];
} nn_kata_inputs;

/* The rules a model version can be told (KataGo's ModelDesc::getSupportedRules): up to model
 * version 6 simple ko becomes situational, territory scoring area, tax none and no button; from
 * version 7 a button is dropped unless scoring is by area. */
void nn_kata_supported_rules(int model_version, const go_rules *rules, go_rules *out);

/* Fills the features of KataGo's inputs version 3..7 for the side to move of g under rules
 * (normally nn_kata_supported_rules of g's). The area planes 18 (side to move) and 19 (opponent)
 * follow KataGo: under area scoring with tax SEKI or ALL (versions 6, 7) they hold
 * go_area_independent_life with the seki areas' stones kept. Returns false with a message for an
 * unsupported inputs version or when out of memory. */
bool nn_kata_inputs_fill(int inputs_version, const go_game *g, const go_rules *rules,
                         nn_kata_inputs *in, char *err, int err_len);

/* KataGo's legal moves for the side to move of g under rules (occupied, simple ko, suicide and
 * the superko bans above): legal[y * size + x]. Passing is always legal. */
void nn_kata_legal_moves(const go_game *g, const go_rules *rules, bool *legal);

/* KataGo's symmetry s (0..7: bit 0 flips y, bit 1 flips x, bit 2 transposes) on planes of
 * size x size points. Inputs go into the net's orientation (outputs == false); the net's
 * outputs come back to the board's (outputs == true). dst and src must not overlap. */
void nn_kata_symmetry_apply(int s, bool outputs, int size, int planes, const float *src,
                            float *dst);

/* KataGo's ladder features of one board (nn/kata_ladder.c). For every stone, top row first,
 * whose chain has 1 or 2 liberties and cannot escape a ladder (1 liberty: the defender moves
 * first; 2: the attacker does), calls f with the stone; for a chain met for the first time with
 * 2 liberties, working[] holds the attacker's moves that capture it. Returns false when out of
 * memory. */
typedef void (*nn_kata_ladder_fn)(void *ctx, int point, const int *working, int num_working);
bool nn_kata_ladders(const go_board *b, nn_kata_ladder_fn f, void *ctx);

#endif
