/* teach/play.h -- the teaching player: the PUCT search player with a move-choice policy on top
 * (teach/choice.h). For each move it takes the engine's tunables, asks the policy what it needs
 * (a search or the network alone, ownership, a larger c_puct, a playout doubling advantage),
 * searches accordingly and lets the policy choose among the search's candidates. Analyses are the
 * search's. It remembers what the policies need across the moves of a game and, for softmax
 * adaptation, across games. */
#ifndef SHIDO_TEACH_PLAY_H
#define SHIDO_TEACH_PLAY_H

#include <stdbool.h>

#include "teach/choice.h"
#include "teach/engine.h"
#include "teach/player.h"

/* A teaching player on search (a search player on e's first network; both borrowed, they must
 * outlive it). NULL with the reason in err when out of memory. */
teach_player *teach_play_player_new(teach_engine *e, teach_player *search, char *err,
                                    int err_len);

/* Whether p is a teaching player. */
bool teach_player_is_play(const teach_player *p);

/* The explanation of p's last choice ("ikeda: ahead (63.0%): the natural move ..."), "" before
 * any. Owned by p, valid until its next genmove. */
const char *teach_play_player_why(const teach_player *p);

/* What the last choice rested on: the analysis (NULL when the policy needed no search; owned by
 * p) and the network's output at the root (NULL when not evaluated). For measurements of the
 * played moves (naturalness: their priors). */
const mcts_analysis *teach_play_player_analysis(const teach_player *p);
const nn_result *teach_play_player_net(const teach_player *p);

/* The search tunables for a move under pp on g: base with the policy's c_puct, playout
 * doubling advantage and anti-mirror logic (teach_play_needs_of). */
mcts_params teach_play_search_params(const teach_play_params *pp, const mcts_params *base,
                                     const go_game *g);

/* Chooses under pp on g once search (a search player) has searched g for the move (searched;
 * search_choice its own choice) or not (a policy that needs no search): gathers the analysis
 * (into an: zeroed or from an earlier call, the caller frees it with mcts_analysis_free), the
 * network's output (into net, when the policy needs it), the score lead after a pass, and calls
 * teach_choose with state and rng. With a verifier (another search player; NULL: none) the
 * choice is checked by adaptive_verify (teach/choice.h). *have_an / *have_net say what was
 * filled. False with the reason in err. */
bool teach_play_decide(teach_player *search, teach_player *verifier, const teach_play_params *pp,
                       const go_game *g, bool searched, int search_choice,
                       teach_play_state *state, teach_rng *rng, mcts_analysis *an, bool *have_an,
                       nn_result *net, bool *have_net, teach_choice *out, char *err, int err_len);

/* The thesis's endgame test on g (teach_endgame_criteria under pp): a search of `visits` by
 * search (a search player) for the score lead and its stdev, and the lead after a pass (the
 * search's when it visited the pass, else the network's). Fills the values and the verdict;
 * false with the reason in err. */
typedef struct teach_endgame_check {
    double lead, stdev, pass_lead;   /* the mover's view */
    bool endgame;
} teach_endgame_check;

bool teach_endgame_test(teach_player *search, const teach_play_params *pp, const go_game *g,
                        int64_t visits, teach_endgame_check *out, char *err, int err_len);

#endif
