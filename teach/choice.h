/* teach/choice.h -- choosing the move to play on top of a finished search: the move-choice
 * policies that let a strong engine play a teaching game (seed 001's position control, natural
 * moves and styles, teach/control.c; KaTrain 1.20's AI modes, teach/katrain.c), their tunables,
 * and what each needs from the search.
 *
 * A policy is a function of what the search and the network saw: the analysis record of the root
 * (every visited move with its visits, winrate, score lead and prior, order 0 the search's own
 * choice, values from the mover's view), the network's raw output at the root, the position and
 * its history, and what the player remembers across moves (teach_play_state). It returns a move
 * and one line saying why. Randomness comes from a teach_rng the caller seeds, so a game is
 * reproducible for a given seed.
 *
 * Tunables (teach_play_params) are set by name, as the search's are (teach_engine_set_param tries
 * the search's table, then this one): `--set play_policy=ikeda`, `kata-set-param playPolicy ABC25`,
 * JSON `overrideSettings`, config files, `shido match --setup1 "kata-set-param ..."`. Names ignore
 * case, '-' and '_' (playPolicy = play_policy). The KaTrain tunables whose defaults differ by mode
 * (kt_pick_override, kt_pick_n, kt_pick_frac, kt_stddev, kt_endgame, kt_line_weight) are NAN until
 * set: NAN means the mode's own default (katrain-ai-modes.md section 1).
 */
#ifndef SHIDO_TEACH_CHOICE_H
#define SHIDO_TEACH_CHOICE_H

#include <stdbool.h>
#include <stdint.h>

#include "go/game.h"
#include "mcts/mcts.h"
#include "nn/nn.h"

typedef enum {
    TEACH_POLICY_BEST = 0,      /* the search's own choice (mcts_choose_move) */
    TEACH_POLICY_NET,           /* the network's top policy move, no search */
    /* seed 001 (teach/control.c) */
    TEACH_POLICY_NAIVE,         /* the winrate closest to 50% */
    TEACH_POLICY_SOFTMAX,       /* Wu et al.: N^z over moves above a visit threshold */
    TEACH_POLICY_IKEDA,         /* Ikeda's winrate controller with methods A, B, C (A15, ABC25) */
    TEACH_POLICY_SCORE,         /* the KataGo+ score band, for endgames */
    TEACH_POLICY_TWO_PHASE,     /* winrate band while the game is open, score band once it is not */
    TEACH_POLICY_ADAPTIVE,      /* keeps the game close from the opponent's measured strength */
    TEACH_POLICY_AGGRESSIVE,    /* into the opponent's area, within a score-loss cap */
    TEACH_POLICY_PEACEFUL,      /* strengthening one's own area, within a score-loss cap */
    /* KaTrain 1.20's AI modes (teach/katrain.c) */
    TEACH_POLICY_KT_SCORELOSS,
    TEACH_POLICY_KT_POLICY,
    TEACH_POLICY_KT_WEIGHTED,
    TEACH_POLICY_KT_PICK,
    TEACH_POLICY_KT_LOCAL,
    TEACH_POLICY_KT_TENUKI,
    TEACH_POLICY_KT_INFLUENCE,
    TEACH_POLICY_KT_TERRITORY,
    TEACH_POLICY_KT_RANK,
    TEACH_POLICY_KT_SIMPLE,
    TEACH_POLICY_KT_SETTLE,
    TEACH_POLICY_KT_JIGO,
    TEACH_POLICY_KT_ANTIMIRROR,
    TEACH_POLICY_KT_HANDICAP,
    TEACH_POLICY_COUNT
} teach_policy;

/* The name of a policy as play_policy takes it ("best", "ikeda", "scoreloss", ...). */
const char *teach_policy_name(teach_policy p);

/* Every move-choice tunable. Defaults: teach_play_params_default. */
typedef struct teach_play_params {
    teach_policy policy;
    uint64_t seed;              /* the choices' randomness (0: from the search's seed or time) */

    /* Style weighting (seed 001 chapter 7): each prior multiplied by w(line of the move) before a
     * prior-based policy compares priors; style_w[0] for lines 1-2, [1] line 3, [2] line 4, [3]
     * line 5, [4] lines above 5. All 1: no style. Presets by `style`: center13, edge13, center19,
     * edge19, none. */
    double style_w[5];
    /* Whether the style weights and method B's factors (where the policy applies them) also
     * weight the root's priors before the search, so that the search explores by them as the
     * thesis's Leela did (its candidates then lean the style's way), besides the choice. */
    bool weights_in_search;

    /* net: the policy's favourite; for the game's first net_temperature_moves moves with
     * net_temperature > 0, a move drawn with probability P^(1/net_temperature) (variety for an
     * opponent or a sparring partner that has no search). */
    double net_temperature;
    int net_temperature_moves;

    /* softmax: move i with probability N_i^z / sum N_j^z over moves with >= min_visits visits;
     * with adapt, z moves by adapt_step after each game toward a 50% result (up after a loss of
     * the opponent, down after its win). */
    double softmax_z;
    int64_t softmax_min_visits;
    bool softmax_adapt;
    double softmax_adapt_step;
    /* softmax's adaptation, adaptive's margin and two-phase's cap learn from a game that ended
     * with our pass or resignation, and from one left after our move (GTP and the GUIs never
     * say that the opponent resigned) when that move's search gave us a winrate of at least
     * left_winrate: the opponent resigned a lost game (1: a game left teaches nothing). */
    double left_winrate;

    /* ikeda (seed 001 section 3): c the handicap degree; T_uniq = 0.08 c, T_dif = 0.03 c;
     * T_min, T_max; method A: the search's c_puct raised to method_a_cpuct and moves under
     * method_a_min_visits dropped; method B: priors corrected by distance to the opponent's last
     * move when one of our stones is within method_b_trigger of it; method C: Gain = (w_max -
     * w_i) + alpha p_i in the high-winrate branch. Presets: A15 (c 1.5, A), ABC25 (c 2.5, A, B,
     * C, alpha 0.25). */
    double ikeda_c, ikeda_t_min, ikeda_t_max;
    bool method_a, method_b, method_c;
    double method_a_cpuct;
    double method_a_min_frac;
    double method_b_trigger;
    double method_c_alpha;

    /* score (KataGo+): the top score_top moves by prior; a move of prior >= 0.9 is played; moves
     * of prior <= 0.01 and more than score_cap points below the best dropped; the band
     * [score_low, score_high] of score lead (mover's view) kept, priors outside it divided by
     * gamma per point. */
    double score_gamma, score_low, score_high, score_cap;
    int score_top;

    /* two-phase: Ikeda's controller as set while the game is open (play_policy=two-phase turns
     * method A on: the score band can only pick among the moves the search looked at, and a
     * plain search of a few dozen visits leaves few of them);
     * the score band while the best winrate is saturated (>= saturation: Ikeda's winrate gaps
     * give nothing back there) and for good once the endgame starts: |score lead|
     * <= endgame_lead, score stdev <= endgame_stdev and passing changes the score lead by
     * <= endgame_pass (0: the thesis's values for the board size: 5 / 7 on 13x13 and below,
     * 12 / 5 on 19x19); below the band (the search's move leads by < score_low), the
     * search's move. Between games the band's cap (score_cap) moves by cap_learn times the
     * last game's final score (own view) clipped to [-cap_clip, cap_clip], within [0, 50]:
     * against an opponent that loses more a move than the cap gives back, the band gives back
     * more; against a stronger one, less. With behind_plain, a move where it plays for the
     * best (Ikeda's behind, or below the band) is the move of a second search at the engine's
     * own c_puct: method A's wide search reads too little to catch up (that move searches
     * twice; not under a time limit, which the first search spends). */
    double endgame_lead, endgame_stdev, endgame_pass;
    double saturation;
    double cap_learn;
    double cap_clip;
    bool behind_plain;

    /* adaptive: the opponent's mean score loss per move is estimated online (exponential mean,
     * weight adaptive_rate); our own per-move loss targets it, plus the lead beyond
     * adaptive_margin spread over the next adaptive_horizon moves. The margin (the controller's
     * own view; below zero it stays behind) covers what the opponent still loses once the game
     * has no moves left that give points back. Its search spreads with method A's c_puct so
     * that moves losing that much are candidates. A move's distance from the loss aimed at
     * counts adaptive_natural points more per e-fold its prior falls short (0: the nearest move
     * within adaptive_window points, by prior): what one move misses, the lead's steering gives
     * back later. */
    double adaptive_rate;
    double adaptive_horizon;
    double adaptive_margin;
    double adaptive_natural;
    double adaptive_window;
    /* adaptive, between games: the margin moves by -adaptive_learn times the last game's final
     * score (own view) clipped to [-adaptive_clip, adaptive_clip], toward the margin that ends
     * games level against this opponent (adaptive_learn 0: fixed). A small clip makes it a
     * staircase on won and lost games, which settles where the opponent wins half of them
     * whatever the blowouts. */
    double adaptive_learn;
    double adaptive_clip;
    /* adaptive: no move losing more than adaptive_max_loss points against the search's choice
     * (0: no cap): the lead comes back in moves a strong player does not call mistakes */
    double adaptive_max_loss;
    /* adaptive: moves of fewer visits left out (their lead is the network's first look) */
    int adaptive_min_visits;
    /* adaptive with adaptive_max_loss: a move chosen with fewer than adaptive_verify visits is
     * searched on its own with that many first (0: not); losing more than the cap there, it is
     * dropped and the choice made again, three times at most, then the search's own choice.
     * The root's lead of a barely visited move is mostly the network's first guess. Games only
     * (GTP genmove, match): the JSON engine's moveChoice does not verify. */
    int adaptive_verify;

    /* aggressive / peaceful: no move losing more than style_max_loss points against the best. */
    double style_max_loss;

    /* Naturalness safeguards of every controlled policy (not of best, net or KaTrain's modes):
     * no move below prior_floor unless nothing else is left; when the opponent's last move made
     * our stones' ownership drop by more than threat_drop (summed), only moves within Remi
     * distance threat_dist of the threatened stones; no move that repeats a position of the game
     * (a cycle); pass and resign as the search decides, and pass after the opponent's pass when
     * that loses at most pass_loss points against the search's choice. */
    double prior_floor;
    double pass_loss;
    double threat_drop;
    int threat_dist;

    /* KaTrain (katrain-ai-modes.md; NAN: the mode's default) */
    double kt_strength;         /* scoreloss */
    double kt_weaken_fac;       /* weighted */
    double kt_pick_override;
    double kt_lower_bound;      /* weighted */
    int kt_opening_moves;       /* policy */
    double kt_pick_n;
    double kt_pick_frac;
    double kt_stddev;           /* local, tenuki */
    double kt_endgame;          /* local, tenuki, influence, territory */
    double kt_threshold;        /* influence, territory */
    double kt_line_weight;      /* influence, territory */
    int kt_kyu_rank;            /* rank */
    double kt_max_points_lost;  /* simple, settle */
    double kt_settled_weight;
    double kt_opponent_fac;
    int kt_min_visits;
    double kt_attach_penalty;
    double kt_tenuki_penalty;
    double kt_target_score;     /* jigo */
    bool kt_automatic;          /* handicap: the playout doubling advantage from handicap and komi */
    double kt_pda;              /* handicap, when not automatic */
} teach_play_params;

teach_play_params teach_play_params_default(void);

/* Sets one tunable by name: play_policy (a policy name, or a preset: A15, ABC25), style (none,
 * center13, edge13, center19, edge19, or five weights "w12,w3,w4,w5,w6"), and every field above
 * by its name. False with a message naming the tunable and its range in err (p untouched) for an
 * unknown name or a bad value. */
bool teach_play_params_set(teach_play_params *p, const char *name, const char *value, char *err,
                           int err_len);

/* Writes the value of name as text (as teach_play_params_set reads it); false when unknown. */
bool teach_play_params_get(const teach_play_params *p, const char *name, char *buf, int len);

/* The settable names in a stable order; *n receives their number. Static storage. */
const mcts_param_info *teach_play_param_list(int *n);

/* What a policy needs from the search and the network. */
typedef struct teach_play_needs {
    bool search;            /* a search of the position (else the network's output alone) */
    bool move_ownership;    /* the analysis's per-move ownership (mcts_analysis_opts) */
    bool root_ownership;    /* the root's ownership */
    bool raw_policy;        /* the network's raw output at the root */
    bool pass_lead;         /* the score lead after a pass (two-phase's endgame test) */
    double c_puct;          /* > 0: the search's c_puct for this policy (method A) */
    double pda;             /* the search's playout doubling advantage for the mover (handicap) */
    bool anti_mirror;       /* the search's anti-mirror logic (antimirror; KataGo's antiMirror) */
    int min_moves;          /* report at least this many root moves (mcts_analysis_opts) */
} teach_play_needs;

/* What p needs on g (the handicap mode's automatic playout doubling advantage depends on its
 * handicap and komi). */
teach_play_needs teach_play_needs_of(const teach_play_params *p, const go_game *g);

/* A small reproducible random stream (SplitMix64). */
typedef struct teach_rng {
    uint64_t state;
} teach_rng;

/* A uniform double in [0, 1). */
double teach_rng_uniform(teach_rng *r);

/* An index of w[0..n) drawn with probability w[i] / sum (weights <= 0 never), one uniform used;
 * -1 when no weight is positive. */
int teach_rng_pick(teach_rng *r, const double *w, int n);

/* What the policy player remembers across moves of one game (and, for softmax adaptation,
 * across games). Plain data, owned by the player. */
typedef struct teach_play_state {
    double softmax_z;           /* the current exponent (softmax_adapt) */
    int games_done;
    /* adaptive: the opponent's mean score loss per move, and the moves it is measured over */
    double opp_loss_mean;
    int opp_moves;
    double margin_shift;        /* adaptive_learn's correction of adaptive_margin (kept) */
    bool have_expected;         /* after our move: what the search expected the opponent to get */
    double expected_lead;       /* our score lead after our last move, as the search saw it */
    int expected_move_number;   /* the game's move count it refers to */
    /* the threat test: our last root ownership (white's view) and the position it was for */
    bool have_ownership;
    int ownership_move_number;
    float ownership[NN_MAX_POINTS];
    bool in_endgame;            /* two-phase: the switch happened (it does not switch back) */
    double cap_shift;           /* two-phase: cap_learn's correction of score_cap (kept) */
} teach_play_state;

/* A fresh state for a new game (softmax adaptation, the adaptive margin's correction and the
 * two-phase cap's correction kept when keep_games is true). */
void teach_play_state_reset(teach_play_state *s, const teach_play_params *p, bool keep_games);

/* The adaptive controller's lesson from a finished game that ended final_lead (own view):
 * margin_shift -= adaptive_learn * final_lead clipped to [-adaptive_clip, adaptive_clip], the
 * margin kept within [-50, 50]. */
void teach_adaptive_learn(teach_play_state *s, const teach_play_params *p, double final_lead);

/* The two-phase controller's lesson from a finished game: the cap score_cap + cap_shift grows by
 * cap_learn * final_lead clipped to [-cap_clip, cap_clip], kept within [0, 50]. */
void teach_two_phase_learn(teach_play_state *s, const teach_play_params *p, double final_lead);

/* What a policy sees. */
typedef struct teach_choice_in {
    const go_game *game;          /* the position; its side to move chooses */
    const mcts_analysis *an;      /* the finished search, NULL when the policy needs none */
    int search_choice;            /* the search's own choice (mcts_choose_move), GO_PASS when none */
    const nn_result *net;         /* the network's output at the root, NULL when not needed */
    bool has_pass_lead;
    double pass_lead;             /* the mover's score lead after it passes */
    teach_play_state *state;      /* the player's memory (updated by the choice) */
    const int *excluded;          /* moves a seed 001 policy must not choose (NULL: none) */
    int num_excluded;
} teach_choice_in;

/* The choice: a point, GO_PASS or MCTS_RESIGN, and one line saying why. */
typedef struct teach_choice {
    int move;
    char why[320];
    bool strongest;   /* two-phase plays for the best here (behind, or below the score band) */
} teach_choice;

/* Chooses the move under p. False with a message in err when the policy cannot choose (its
 * input is missing, or a KaTrain mode that raises an error in KaTrain). */
bool teach_choose(const teach_play_params *p, const teach_choice_in *in, teach_rng *rng,
                  teach_choice *out, char *err, int err_len);

#endif
