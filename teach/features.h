/* teach/features.h -- features of a candidate move (seed 000, Hsueh & Ikeda: "Procedural
 * generation of unsuggested moves for Go opening puzzles", sections 3-5), as the fuseki quiz
 * generator, the game review, `shido features` and the analysis commands use them.
 *
 * For a position, the side to move ("the mover") and a candidate move m:
 *   Rémi distance     dx + dy + max(dx, dy) between two points (to a reference move, to the last
 *                     two moves of the game);
 *   density           stones within Rémi distance 8 of m / points of the board within it, m
 *                     itself left out (the paper's examples, 8 stones / 35 points and 11 / 48,
 *                     are a second-line point and an open one counted so: 48 points around a
 *                     point away from the edges);
 *   score loss        scoreLead(ref) - scoreLead(m), the mover's view, each from a search of the
 *                     position after the move (the reference: a given move, else the best move
 *                     of a search of the position);
 *   Prior_KataGo      the main (first) network's policy for m;
 *   Prior_StrongHuman the second network's policy (any Leela Zero or KataGo file), or the main
 *                     network's when only one is loaded;
 *   strengthen own    (eq. 2) mean over the mover's stones c before the move of
 *                     own_after_m(c) - own_after_pass(c), ownership in the mover's view, each
 *                     from a search of the position after m and after the mover's pass;
 *   weaken opponent   (eq. 3) the same mean over the opponent's stones (still the mover's view:
 *                     positive when the opponent's stones come closer to being the mover's).
 * Policies are the networks' raw outputs averaged over the eight symmetries (or one, see
 * teach_features_set_policy_symmetries), kept to the legal moves (a Leela Zero policy, which spreads mass over occupied points, renormalised over them).
 *
 * The searches run on a private mcts_search with the engine's tunables except: the visit count
 * each call names, a seed fixed at TEACH_FEATURES_SEED when the tunables leave it at 0 (so that
 * the same position gives the same features), no root noise, no temperature, and the tree
 * dropped before each search (features never depend on what was searched before). */
#ifndef SHIDO_TEACH_FEATURES_H
#define SHIDO_TEACH_FEATURES_H

#include <stdbool.h>
#include <stdint.h>

#include "go/game.h"
#include "mcts/mcts.h"
#include "nn/nn.h"
#include "teach/engine.h"

#define TEACH_DENSITY_RADIUS 8      /* the paper's "near a move": Rémi distance <= 8 */
#define TEACH_FEATURES_SEED 20231111u

/* ---- geometry (no network) ---------------------------------------------------------------- */

/* The Rémi distance between two on-board points; -1 when either is a pass or no point. */
int teach_remi_distance(int a, int b);

/* Stones (either colour) within Rémi distance radius of p over the points of b within it, p
 * itself left out (48 points for radius 8 away from the edges, 35 on the second line). 0 for a
 * pass. */
double teach_stone_density(const go_board *b, int p, int radius);

/* The point symmetry s (0..7: bit 0 flips x, bit 1 flips y, bit 2 swaps x and y, applied in that
 * order) sends p to on a size x size board; GO_PASS stays GO_PASS. */
int teach_symmetry_point(int size, int p, int s);

/* The symmetries (bit s for s = 1..7) that map b's stones onto themselves. 0 for most positions;
 * on an empty board 0xfe. */
unsigned teach_board_symmetries(const go_board *b);

/* Whether a and b are copies of each other under one of the symmetries in mask (a == b is not). */
bool teach_symmetric_copies(int size, unsigned mask, int a, int b);

/* Equations 2 and 3: with own_move and own_pass the ownership (white's view, [y * size + x] as
 * nn_result) after the mover's move and after the mover's pass, the mean change over the mover's
 * stones on `before` (*strengthen) and over the opponent's (*weaken), both in the mover's view.
 * A side without stones gives NAN. */
void teach_contributions(const go_board *before, go_color mover, const float *own_move,
                         const float *own_pass, double *strengthen, double *weaken);

/* The legal part of a raw policy (nn_result of g's side to move) into out[size * size + 1]:
 * illegal moves 0, the rest renormalised to sum 1 (KataGo policies already do). */
void teach_policy_legal(const nn_result *r, const go_game *g, float *out);

/* The policy index of a move (y * size + x, pass = size * size). */
int teach_policy_index(int size, int move);

/* ---- the features of moves ---------------------------------------------------------------- */

typedef struct teach_move_features {
    int move;                /* point or GO_PASS */
    int dist_ref;            /* Rémi distance to the reference move; -1 when none */
    int dist_last, dist_last2;   /* to the last move and the one before (-1: none or a pass) */
    double density;          /* within TEACH_DENSITY_RADIUS */
    double prior_katago;     /* main network's policy */
    double prior_human;      /* the second network's (the main one's when alone) */
    int policy_rank;         /* 1 + the legal moves the main policy prefers to this one */
    double score_lead;       /* after the move, mover's view, points */
    double winrate;          /* after the move, mover's view */
    double score_loss;       /* reference's score_lead - score_lead (0 for the reference) */
    double strengthen_own;   /* eq. 2; NAN when unknown (no ownership head, no own stones) */
    double weaken_opp;       /* eq. 3; NAN likewise */
    int64_t visits;          /* of the search after the move (0: not searched) */
} teach_move_features;

#define TEACH_AFTER_STEPS 24   /* visit counts 1, 2, 4, ... a search records its lead at */

/* What a search of the position after a move found. The search runs in steps, to 1, 2, 4, ...
 * visits and then to its count, recording the score lead after each step (the same search as
 * one run: the tree is kept between steps), so that "how many visits it takes" can be read off
 * (the fuseki quiz's difficulty). */
typedef struct teach_after {
    int move;
    double score_lead;       /* the mover's view (the mover: the side to move before it) */
    double winrate;          /* the mover's view */
    bool has_ownership;
    float ownership[NN_MAX_POINTS];   /* white's view, [y * size + x] */
    int64_t visits;
    int num_steps;
    int step_visits[TEACH_AFTER_STEPS];   /* 1, 2, 4, ..., visits */
    double step_lead[TEACH_AFTER_STEPS];  /* score_lead after each */
} teach_after;

/* One thread's feature evaluator: a search on the engine's first network and evaluation contexts
 * for it and the Prior_StrongHuman network. Uses only the engine's models (shared, read-only)
 * and tunables (copied here): several evaluators on one engine may run on different threads. */
typedef struct teach_features teach_features;

/* An evaluator whose searches run search_threads threads. NULL with a reason in err (no network,
 * out of memory). Free with teach_features_free; the engine must outlive it. */
teach_features *teach_features_new(teach_engine *e, int search_threads, char *err, int err_len);
void teach_features_free(teach_features *f);

/* How many symmetries the policies of later positions average: 8 (the default) or 1 (the
 * position as it stands: 7 evaluations fewer a position). False for another n. */
bool teach_features_set_policy_symmetries(teach_features *f, int n);

/* The network index giving Prior_StrongHuman: 1 when the engine has a second network, else 0. */
int teach_features_human_net(const teach_features *f);

/* Sets the position (copied) and evaluates both policies on it. False with a reason in err. */
bool teach_features_set_position(teach_features *f, const go_game *g, char *err, int err_len);

/* The position set (owned by f). */
const go_game *teach_features_game(const teach_features *f);

/* The main (human false) or Prior_StrongHuman (human true) policy of a move of the position set
 * (0 for an illegal one). */
double teach_features_prior(const teach_features *f, int move, bool human);

/* Up to k legal moves other than pass, best first by the chosen policy, into moves; returns how
 * many. Ties keep the board order. */
int teach_features_top_moves(const teach_features *f, bool human, int k, int *moves);

/* Whether move is legal for the side to move of the position set; false with "D4: illegal move
 * for black (occupied)" (or "not on the board") in err otherwise. */
bool teach_features_check_move(const teach_features *f, int move, char *err, int err_len);

/* Searches the position after move (a legal point or GO_PASS) for visits visits. False with a
 * reason in err (an illegal move, a failed evaluation). */
bool teach_features_search_after(teach_features *f, int move, int visits, teach_after *out,
                                 char *err, int err_len);

/* Searches the position set for visits visits and returns the move the search would play (never
 * a pass while another legal move exists). False with a reason in err. */
bool teach_features_best_move(teach_features *f, int visits, int *move, char *err, int err_len);

/* A search of the position set at visits visits with the root's moves restricted to mask (by
 * board point, as mcts_set_root_moves; NULL: none), continuing the tree of the previous call
 * when keep_tree and the position is unchanged. out as mcts_analysis_get with opts (NULL: every
 * visited move, no ownership; the caller frees it with mcts_analysis_free). False with a reason
 * in err. */
bool teach_features_search_root(teach_features *f, int visits, const bool *mask, bool keep_tree,
                                const mcts_analysis_opts *opts, mcts_analysis *out, char *err,
                                int err_len);

/* Network evaluations this evaluator has made (the searches' and the policies'), for costs. */
int64_t teach_features_evals(const teach_features *f);

/* The features of move that need no search (distances, density, priors, policy rank) against
 * ref_move (GO_NO_POINT: none); the search values are NAN and visits 0. */
void teach_features_static(const teach_features *f, int move, int ref_move,
                           teach_move_features *out);

/* The features of a move of the position set from the searches after it (after), after a pass
 * (pass; NULL or no ownership: contributions NAN) and after the reference move (ref; NULL: no
 * score loss, dist_ref -1). */
void teach_features_fill(const teach_features *f, const teach_after *after,
                         const teach_after *pass, const teach_after *ref,
                         teach_move_features *out);

/* Features of n moves of the position set (every one checked legal first), each from a search
 * of visits visits, against ref_move (GO_NO_POINT: the best move of a search of the position at
 * visits). ref_out (may be NULL) gets the reference's own features. False with a reason naming
 * the move in err. */
bool teach_features_compute(teach_features *f, const int *moves, int n, int ref_move, int visits,
                            teach_move_features *out, teach_move_features *ref_out, char *err,
                            int err_len);

/* ---- the analysis commands (kata-analyze, JSON analysis) ---------------------------------- */

/* What the features of an analysis need beyond the search: the policies of the position and the
 * ownership after a pass, evaluated once per analysed position. */
typedef struct teach_analysis_base {
    int size;
    float prior_katago[NN_MAX_MOVES];
    float prior_human[NN_MAX_MOVES];
    bool has_pass_ownership;
    float pass_ownership[NN_MAX_POINTS];   /* white's view, one network evaluation after a pass */
} teach_analysis_base;

/* Evaluates g's policies (the engine's first and Prior_StrongHuman networks) and the position
 * after a pass (the first network, averaged over the symmetries) into b, on the engine's own
 * contexts (one thread at a time, as the engine). False with a reason in err. */
bool teach_analysis_base_eval(teach_engine *e, const go_game *g, teach_analysis_base *b,
                              char *err, int err_len);

/* The features of every move of an analysis of g (an->num_moves entries into out): score loss
 * against the analysis' first move from the moves' score leads, the contributions from each
 * move's subtree ownership (an analysis made with move_ownership) against the pass move's own
 * when the search visited it, else b's evaluation after a pass; distances to g's last two moves,
 * dist_ref to the first move. */
void teach_analysis_features(const teach_analysis_base *b, const go_game *g,
                             const mcts_analysis *an, teach_move_features *out);

#endif
