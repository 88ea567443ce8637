/* go/score.h -- Benson's unconditional life, KataGo's area and independent-life area, and final
 * scoring.
 *
 * Benson: a set of chains of colour c is pass-alive when each of them has at least two "vital"
 * regions, a region being a maximal connected set of points not holding c's stones whose every
 * empty point is a liberty of the chain; chains and regions are pruned to a fixed point. A region
 * surrounded only by pass-alive chains and containing no empty point that the opponent could live
 * in is pass-alive territory (KataGo's "pass-alive area").
 */
#ifndef SHIDO_GO_SCORE_H
#define SHIDO_GO_SCORE_H

#include <stdbool.h>
#include <stdint.h>

#include "go/board.h"
#include "go/game.h"

/* Pass-alive area of both colours: area[p] = GO_BLACK / GO_WHITE where p is a pass-alive stone or
 * pass-alive territory of that colour, else GO_EMPTY. area has GO_POINTS entries.
 * multi_stone_suicide: as in the rules (it changes which regions the opponent can live in). */
void go_benson_area(const go_board *b, bool multi_stone_suicide, uint8_t *area);

/* Pass-alive area of one colour only (other entries left GO_EMPTY). */
void go_benson_area_for(const go_board *b, go_color c, bool multi_stone_suicide, uint8_t *area);

/* KataGo's Board::calculateArea: the pass-alive area, plus with safe_big the regions of empty
 * points bordered only by one colour's pass-alive chains, with unsafe_big every region of empty
 * points bordered by one colour only (where the other colour's pass-alive area does not already
 * hold it), and with non_pass_alive_stones every remaining stone for its colour. area has
 * GO_POINTS entries (GO_BLACK / GO_WHITE / GO_EMPTY; off the board GO_EMPTY). */
void go_area_kata(const go_board *b, bool multi_stone_suicide, bool non_pass_alive_stones,
                  bool safe_big, bool unsafe_big, uint8_t *area);

/* KataGo's Board::calculateIndependentLifeArea. The basic area is go_area_kata(b, suicide, true,
 * true, true); each connected area of one owner in it is in seki when a stone of the owner there
 * is in atari or a point of it touches an empty point of no area (dame). area receives the areas
 * not in seki whole (stones and territory), and from the seki areas their territory (empty points
 * and the opponent's stones inside) when keep_territories, their stones when keep_stones. Returns
 * white's minus black's number of areas not in seki (whiteMinusBlackIndependentLifeRegionCount,
 * the groups the tax ALL charges 2 points each). */
int go_area_independent_life(const go_board *b, bool multi_stone_suicide, bool keep_territories,
                             bool keep_stones, uint8_t *area);

/* Tromp-Taylor area: owner[p] = colour of the stone, or of the only colour an empty region
 * reaches, else GO_EMPTY. Returns black points minus white points (no komi). owner may be NULL. */
int go_score_area_tromp_taylor(const go_board *b, uint8_t *owner);

/* Final score from black's view (positive: black leads) under the game's rules and komi, with
 * dead stones marked (dead[p] true, GO_POINTS entries, may be NULL for "all alive"):
 *   area scoring: stones + surrounded empty regions, dead stones counted for the captor, plus
 *     the white handicap bonus (handicap N or N-1 stones added to white);
 *   territory scoring: surrounded empty points (dead stones' points included) + prisoners
 *     (captures and dead stones); under tax SEKI empty regions bordered by both colours' living
 *     stones count nothing; under tax ALL the points of every region count 2 less per group
 *     (stone scoring); area scoring with tax SEKI or ALL counts as KataGo does, on
 *     go_area_independent_life(keep_territories false, keep_stones true) and 2 points per
 *     independent area under ALL;
 *   minus komi. owner (may be NULL) receives each point's owner.
 * Details, as KataGo settles them: the white handicap bonus follows the rules' field under either
 * scoring; N is g->handicap when set, else the black stones of a setup without white stones plus
 * the opening run of black moves, and N <= 1 counts as no handicap. Under territory scoring with
 * tax SEKI or ALL a connected area of one colour's stones and territory is in seki when a stone of
 * it is in atari or touches an empty point both colours touch that neither can fill keeping two
 * liberties (KataGo's "touches dame", for a human game whose dame are left open); its territory
 * counts nothing, and under tax ALL every area not in seki costs 2 points. With the button rule
 * the first player to pass gets half a point (the side to move when nobody passed). */
double go_score_final(const go_game *g, const bool *dead, uint8_t *owner);

/* KataGo's handicap count: the handicap recorded for the game, else the black stones of a setup
 * holding no white stone plus the opening run of black moves (handicap given as consecutive black
 * moves). One stone is not a handicap (0). */
int go_score_handicap_stones(const go_game *g);

/* The GTP final_score text for a score from black's view: "B+3.5", "W+0.5" or "0". */
const char *go_score_to_text(double black_lead, char *buf, int len);

#endif
