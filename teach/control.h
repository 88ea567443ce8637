/* teach/control.h -- seed 001's move choice (Shi's thesis, section 3 of
 * ../shared/docs/algorithms.md) and what this project builds beyond it: position control that
 * keeps a teaching game close (naive, softmax, Ikeda's controller with methods A, B and C, the
 * KataGo+ score band, a two-phase controller, an adaptive one), styles (line weights,
 * aggressive, peaceful) and the naturalness safeguards every controlled policy keeps. */
#ifndef SHIDO_TEACH_CONTROL_H
#define SHIDO_TEACH_CONTROL_H

#include <stdbool.h>

#include "teach/choice.h"

/* Chooses under one of the seed 001 policies (TEACH_POLICY_NAIVE .. TEACH_POLICY_PEACEFUL); in
 * needs the analysis (and what teach_play_needs_of asks for). False with a message in err when
 * the analysis is missing or holds no move. */
bool teach_control_choose(const teach_play_params *p, const teach_choice_in *in, teach_rng *rng,
                          teach_choice *out, char *err, int err_len);

/* The line of a point (1 on the edge), and its style weight under p. */
int teach_line_of(int size, int point);
double teach_style_weight(const teach_play_params *p, int size, int point);

/* The prior weights of the mover's moves on g under p: the style's line weights, times method
 * B's distance factors for the policies that use it when it applies; by board point into w
 * (GO_POINTS values). False (w all 1) when every weight is 1. */
bool teach_prior_weights(const teach_play_params *p, const go_game *g, float *w);

/* Method B's prior factor for a move at Euclidean distance d from the opponent's last move. */
double teach_method_b_factor(double d);

/* Ikeda's naturalness filter: a move gap = w_best - w below the best with prior p passes for
 * handicap degree c. */
bool teach_ikeda_natural(double gap, double p, double c);

/* The score controller's weight of a move of prior p and score lead delta (mover's view) under
 * p's band and gamma. */
double teach_score_weight(const teach_play_params *p, double prior, double delta);

/* The thesis's endgame criteria (seed 001, section 6): |lead| <= endgame_lead, score stdev
 * <= endgame_stdev and |lead - pass_lead| <= endgame_pass, each from the mover's view, the
 * tunables of 0 by board size (13x13 and below: 5 and 7; 19x19: 12 and 5). */
bool teach_endgame_criteria(const teach_play_params *p, int size, double lead, double stdev,
                            double pass_lead);

#endif
