/* go/score.h -- Benson's unconditional life and final scoring.
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
 *     (stone scoring);
 *   minus komi. owner (may be NULL) receives each point's owner.
 * Details, as KataGo settles them: the white handicap bonus follows the rules' field under either
 * scoring; N is g->handicap when set, else the black stones of a setup without white stones plus
 * the opening run of black moves, and N <= 1 counts as no handicap. Under tax SEKI or ALL a
 * connected area of one colour's stones and territory is in seki when a stone of it is in atari
 * or touches an empty point both colours touch that neither can fill keeping two liberties; its
 * territory counts nothing (its stones still count under area scoring), and under tax ALL every
 * area not in seki costs 2 points. With the button rule the first player to pass gets half a
 * point (the side to move when nobody passed). */
double go_score_final(const go_game *g, const bool *dead, uint8_t *owner);

/* The GTP final_score text for a score from black's view: "B+3.5", "W+0.5" or "0". */
const char *go_score_to_text(double black_lead, char *buf, int len);

#endif
