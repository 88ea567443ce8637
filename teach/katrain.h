/* teach/katrain.h -- KaTrain 1.20's AI play modes, re-implemented from the behaviour specified in
 * ../shared/docs/katrain-ai-modes.md (sections 0-3): scoreloss, policy, weighted, the pick family
 * (pick, local, tenuki, influence, territory, rank), simple and settle (ownership styles), jigo,
 * antimirror and handicap, with their defaults, and the rank calibration KaTrain shows. */
#ifndef SHIDO_TEACH_KATRAIN_H
#define SHIDO_TEACH_KATRAIN_H

#include <stdbool.h>

#include "teach/choice.h"

/* What KaTrain mode p->policy needs (the search or the network alone, per-move ownership, the
 * playout doubling advantage of handicap on g). */
teach_play_needs teach_katrain_needs(const teach_play_params *p, const go_game *g);

/* Chooses under KaTrain mode p->policy (TEACH_POLICY_KT_SCORELOSS .. TEACH_POLICY_KT_HANDICAP).
 * False with a message in err where KaTrain itself raises an error (simple / settle with no
 * candidate left) or the input the mode needs is missing. */
bool teach_katrain_choose(const teach_play_params *p, const teach_choice_in *in, teach_rng *rng,
                          teach_choice *out, char *err, int err_len);

/* handicap's automatic playout doubling advantage for black from H handicap stones and komi
 * (section 2.2): clamp(-(max(H - 1, 0) - (komi - 7) / 14) * 3 / 8, -3, 3). */
double teach_katrain_auto_pda(int handicap, double komi);

/* The number of moves the pick family (pick, local, tenuki, influence, territory, rank) samples
 * under p with n_legal moves of positive policy on a board of `points` points after `depth`
 * moves (section 2.9: the endgame switch included; rank: section 2.10's formula). */
int teach_katrain_pick_count(const teach_play_params *p, int n_legal, int points, int depth);

/* influence / territory: the sampling weight of point (go/board.h) on a size x size board under
 * p's threshold and line_weight (section 2.9); 1 under other modes. */
double teach_katrain_line_weight(const teach_play_params *p, int size, int point);

/* The rank KaTrain shows for mode p (section 3): r in dan (r >= 0.5 dan, else 1 - r kyu), and
 * its label ("2k", "5d") in buf. */
double teach_katrain_rank(const teach_play_params *p, char *buf, int len);

#endif
