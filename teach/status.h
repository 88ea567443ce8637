/* teach/status.h -- the status of the stones at the end of a game (GTP's final_score and
 * final_status_list): dead stones and seki from the network's ownership, Benson's pass-alive
 * areas overriding it. */
#ifndef SHIDO_TEACH_STATUS_H
#define SHIDO_TEACH_STATUS_H

#include <stdbool.h>

#include "go/game.h"
#include "teach/player.h"

/* Ownership (from the stone's owner's view) below which a stone is dead, and the magnitude below
 * which a living stone outside pass-alive areas is in seki. */
#define TEACH_DEAD_OWNERSHIP (-0.4)
#define TEACH_SEKI_OWNERSHIP 0.25

/* Marks dead stones (dead[p]) and stones in seki (seki[p]; either may be NULL), by board point,
 * from the ownership of the search player's network averaged over the eight symmetries: a stone
 * in the other colour's pass-alive area is dead, one in its own alive; elsewhere a stone is dead
 * below TEACH_DEAD_OWNERSHIP and in seki when alive with |ownership| < TEACH_SEKI_OWNERSHIP.
 * Returns false (nothing marked) when the network has no ownership head (Leela Zero) or cannot
 * evaluate g. */
bool teach_mark_status(teach_player *search, const go_game *g, bool *dead, bool *seki);

#endif
