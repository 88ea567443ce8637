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
 * Planes are in the board's own orientation, index (c * height + y) * width + x with y = 0 the
 * TOP row, on a width x height tensor. KataGo's own tensor is 19x19 with the board in a corner
 * and a mask; every layer masks what lies off the board, so both give the same numbers.
 */
#ifndef SHIDO_NN_KATA_INPUTS_H
#define SHIDO_NN_KATA_INPUTS_H

#include <stdbool.h>

#include "go/board.h"
#include "go/game.h"
#include "go/rules.h"
#include "weights/desc_kata.h"

#define NN_KATA_SYMMETRIES 8
#define NN_KATA_MAX_POINTS (GO_MAX_SIZE * GO_MAX_SIZE)

typedef struct nn_kata_inputs {
    int size, width, height;   /* the board's, as go_board's */
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
 * the superko bans above): legal[y * width + x]. Passing is always legal. */
void nn_kata_legal_moves(const go_game *g, const go_rules *rules, bool *legal);

/* KataGo's symmetry s (0..7: bit 0 flips y, bit 1 flips x, bit 2 transposes) on planes of a
 * width x height board. Inputs go into the net's orientation (outputs == false: src is on the
 * board, [planes][height][width]); the net's outputs come back to the board's (outputs == true:
 * dst is on the board). A transposing symmetry (s >= 4) puts the board on a height x width
 * tensor: [planes][width][height] on the net's side. dst and src must not overlap. */
void nn_kata_symmetry_apply(int s, bool outputs, int width, int height, int planes,
                            const float *src, float *dst);

/* The net's tensor of a width x height board under symmetry s: *tensor_w x *tensor_h. */
static inline void nn_kata_tensor_dims(int s, int width, int height, int *tensor_w,
                                       int *tensor_h)
{
    *tensor_w = s & 4 ? height : width;
    *tensor_h = s & 4 ? width : height;
}

/* KataGo's ladder features of one board (nn/kata_ladder.c). For every stone, top row first,
 * whose chain has 1 or 2 liberties and cannot escape a ladder (1 liberty: the defender moves
 * first; 2: the attacker does), calls f with the stone; for a chain met for the first time with
 * 2 liberties, working[] holds the attacker's moves that capture it. Returns false when out of
 * memory. */
typedef void (*nn_kata_ladder_fn)(void *ctx, int point, const int *working, int num_working);
bool nn_kata_ladders(const go_board *b, nn_kata_ladder_fn f, void *ctx);

/* ---- human-SL profiles: KataGo's SGF metadata -------------------------------------------------
 *
 * KataGo's human-SL nets (model version 15 with a metadata encoder, e.g. b18c384nbt-humanv0)
 * imitate the players of a described game record: who plays (rank, human or not), where, when,
 * at what time control. KataGo keeps that in an SGFMetadata and turns it into
 * NN_KATA_META_INPUTS features per position (SGFMetadata::fillMetadataRow); the net's encoder maps
 * them to a per-channel trunk bias. KataGo refuses to evaluate such a net without a profile
 * ("SGFMetadata is required ... Did you specify humanSLProfile"), and so does nn_eval. */

typedef enum {
    NN_KATA_TC_UNKNOWN = 0,
    NN_KATA_TC_NONE,
    NN_KATA_TC_ABSOLUTE,
    NN_KATA_TC_SIMPLE,
    NN_KATA_TC_BYOYOMI,
    NN_KATA_TC_CANADIAN,
    NN_KATA_TC_FISCHER,
} nn_kata_time_control;

/* Game-record sources as KataGo numbers them (0: none of these) */
typedef enum {
    NN_KATA_SOURCE_OGS = 1,
    NN_KATA_SOURCE_KGS = 2,
    NN_KATA_SOURCE_FOX = 3,
    NN_KATA_SOURCE_TYGEM = 4,
    NN_KATA_SOURCE_GOGOD = 5,
    NN_KATA_SOURCE_GO4GO = 6,
} nn_kata_source;

/* One player's side of a profile. */
typedef struct nn_kata_player_meta {
    int inverse_rank;      /* 0 an AI ("KataGo"), 1 = 9d, ..., 9 = 1d, 10 = 1k, 11 = 2k, ... */
    bool unranked;         /* a server's "-" rank: the rank features stay 0 */
    bool rank_unknown;     /* the record gives no rank */
    bool human;
} nn_kata_player_meta;

/* KataGo's SGFMetadata. */
typedef struct nn_kata_profile {
    nn_kata_player_meta black, white;
    bool game_unrated, ratedness_unknown;
    nn_kata_time_control time_control;
    double main_time_s, period_time_s;
    int byoyomi_periods, canadian_moves;
    int year, month, day;  /* the game's date (Gregorian) */
    int source;            /* nn_kata_source, or 0; 0..15 */
} nn_kata_profile;

/* Fills p from a KataGo humanSLProfile name: "rank_9d" .. "rank_1d", "rank_1k" .. "rank_20k"
 * (KGS, byo-yomi 20 min + 5 x 30 s, ratedness unknown, 2020-03-01), "preaz_<rank>" (the same on
 * 2016-09-01, before AlphaZero-style play), "proyear_1800" .. "proyear_2023" (professionals,
 * GoGoD records up to 2020, Go4Go from 2021, unknown time control, 1 June of that year).
 * "rank_5k_1d" and "preaz_5k_1d" give black and white different ranks (an extension KataGo
 * front ends also accept). Returns false with a message in err for any other name. */
bool nn_kata_profile_parse(const char *name, nn_kata_profile *p, char *err, int err_len);

/* The NN_KATA_META_INPUTS features of p for the side to move on a board of board_area points,
 * exactly as KataGo's SGFMetadata::fillMetadataRow (player's then opponent's view):
 *   0-1 human, 2-3 unranked, 4-5 rank unknown; 6-39 and 40-73 the rank as a thermometer (the
 *   first min(inverse rank, 34) set); 74 unrated (0.5 when unknown); 75-81 the time control
 *   one-hot; 82-85 log main time, period time, periods, Canadian moves (capped); 86
 *   0.5 ln(area / 361); 87-150 cos and sin of the days since 1970-01-01 over 32 periods from 7
 *   days growing geometrically to 7 * 80000 days; 151 + source one-hot; the rest 0. */
void nn_kata_profile_features(const nn_kata_profile *p, go_color to_move, int board_area,
                              float *features);

#endif
