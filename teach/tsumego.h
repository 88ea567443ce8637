/* teach/tsumego.h -- the tsumego solver as the front ends use it: problem set-up with the goal a
 * statement names, the solve guided by a network when there is one, and the solver as a player
 * (GTP's --tsumego sparring partner).
 *
 * The solver (go/tsumego.h) proves; a network only says where to look first and what to answer
 * when no proof comes in time. The network sees the framed board (go_tsumego_problem.framed) with a komi that
 * makes the problem decide the game (teach_tsumego_komi): with komi 7.5 the frame alone often
 * wins the game for the attacker, and a search then cannot tell a killing move from a wrong one.
 * A solve runs in up to three phases within the time limit T:
 *  1. the exact solver for 0.45 T, its first moves ordered by the network's policy (averaged
 *     over the eight symmetries; among first moves that win outright, the policy's favourite
 *     is the answer); a proven status with its answer chosen ends the solve here,
 *     except a ko, which goes on to phase 3 (without the search) for the solver's second look
 *     with the wide region, an outright win alone replacing the ko, and a failure (every first
 *     move fails, the other goal and the wide region too: for a problem from a collection, a
 *     sign that the frame or the region does not fit it), whose answer is then the most
 *     visited move of phase 2's search instead of the solver's most stubborn try;
 *  2. otherwise a PUCT search (mcts/) of the framed board for 0.25 T, one thread, its first
 *     moves kept to the problem's region (skipped when the status is proven and only the
 *     choice among the first moves that reach it is left: a ko whose moves were not all
 *     compared in time); it stops sooner when its favourite can no longer be overtaken
 *     (teach_tsumego_search_decided), and phase 3 gets the time;
 *  3. the solver again with the rest of the time, going on from the tables of phase 1
 *     (go_tsumego_work), its prior now the search's visits on the problem region (the policy
 *     where it visited nothing): a proof still counts, and if none comes the guess is the most
 *     visited first move that the solver has not refuted.
 * A second network, stronger and slower, may take the search of phase 2 (the guess network:
 * teach_tsumego_set_guess_model); its search then gets 0.45 T, and phase 3 the rest. Three to
 * five of its visits guess no better than the guide's search; sixteen do (bench/RESULTS.md).
 * On the 57 advanced Cho Chikun problems of a sample that the solver leaves open, the search
 * (400 visits) picks the book answer in 31, the policy's top move in 21, the solver's own guess
 * in 7 (bench/RESULTS.md). */
#ifndef SHIDO_TEACH_TSUMEGO_H
#define SHIDO_TEACH_TSUMEGO_H

#include <stdbool.h>
#include <stdint.h>

#include "go/tsumego.h"
#include "nn/nn.h"
#include "teach/engine.h"
#include "teach/player.h"

/* What one thread needs to solve problems: the solver's tables and, with a model, an evaluator
 * and a search to guide it. */
typedef struct teach_tsumego teach_tsumego;

/* Makes a solver, guided by model when not NULL (not owned; it must outlive the solver). The
 * guide's search takes its tunables from params (NULL: the defaults) but always runs one thread,
 * a batch of one, seed 1 and a tree of at most 256 MB. A max_visits in params (`--visits`) caps
 * the search of phase 2, which then runs to the cap or its time without stopping early: with
 * teach_tsumego_set_max_nodes and time to spare, a solve is the same on every machine and under
 * any load. NULL with a message in err on failure. */
teach_tsumego *teach_tsumego_new(nn_model *model, const mcts_params *params, char *err,
                                 int err_len);
void teach_tsumego_free(teach_tsumego *t);

/* Whether a network guides t. */
bool teach_tsumego_guided(const teach_tsumego *t);

/* Makes the search for the guess (phase 2 above) run on model (not owned; it must outlive t;
 * NULL: the guide's network again), with the guide's search tunables. False with a message in
 * err when t has no guiding network or out of memory (t then unchanged). */
bool teach_tsumego_set_guess_model(teach_tsumego *t, nn_model *model, char *err, int err_len);

/* The front ends' `--guess-weights NET` (path; NULL: none) beside the shared options o: into
 * *out an engine of that one network on o's backend with o's tunables, whose model goes to
 * teach_tsumego_set_guess_model (the caller frees the engine after the solvers; *out NULL when
 * path is). Returns 0, else an exit status with a message in err: 2 when o has no -w network to
 * order the solver's moves (a usage error), 1 when the file cannot be loaded (err names it). */
int teach_tsumego_guess_engine_new(const teach_options *o, const char *path, teach_engine **out,
                                   char *err, int err_len);

/* The help line of `--guess-weights NET` (ends in a newline). A static string. */
const char *teach_tsumego_guess_help(void);

/* Caps the time of every later solve at max_s seconds, its table at what that time can fill
 * (teach_tsumego_table_log2), 0: no cap. The GTP fuzz target keeps its solves short. */
void teach_tsumego_set_max_time(teach_tsumego *t, double max_s);

/* Caps every later solve's solver phases at n positions each (the smaller of n and the solve's
 * own max_nodes; 0: no cap). */
void teach_tsumego_set_max_nodes(teach_tsumego *t, uint64_t n);

/* Runs the solver phases of every later solve on n threads (go_tsumego_limits.threads; a
 * solve's own, when more, stays), 0: the solve's own. The guide's search keeps to one. */
void teach_tsumego_set_threads(teach_tsumego *t, int n);

/* On a failure (phase 1 above), keep the solver's most stubborn try as the answer instead of the
 * search's move: what a sparring partner wants when its side has lost (GTP's genmove), where
 * the position after a right move fails as it should. Off by default. */
void teach_tsumego_set_stubborn(teach_tsumego *t, bool on);

/* Whether the last solve was a failure answered with the search's move (phase 1 above): false
 * for any other result, for a stubborn guide, and when the search visited none of the region's
 * moves in its time, the answer then being the solver's most stubborn try. */
bool teach_tsumego_failure_searched(const teach_tsumego *t);

/* Solves p as go_tsumego_solve does; with a network (lim->prior and lim->work are then ignored:
 * the network supplies the prior, the guide keeps the tables) in the phases above. Nodes and time
 * in out cover every phase. Returns false with a message in err when out of memory or when the
 * network cannot evaluate the board. */
bool teach_tsumego_solve(teach_tsumego *t, const go_tsumego_problem *p,
                         const go_tsumego_limits *lim, go_tsumego_solution *out, char *err,
                         int err_len);

/* The search of phase 2 stops early once its most visited move cannot be overtaken: true when
 * the lead of the most visited move (first visits) over the runner-up (second) is more than the
 * visits the rest of the search's time_s would bring at the rate so far (visits in elapsed_s).
 * The guess is then the move the full time would give, and the time left goes to phase 3.
 * Never before 100 visits. */
bool teach_tsumego_search_decided(int64_t first, int64_t second, int64_t visits, double elapsed_s,
                                   double time_s);

/* White's komi for p's framed board that makes the problem decide the game: the frame's areas
 * balanced, and the region counted so that the defender wins by living with about a quarter of
 * it and loses by dying. A half-point value. */
float teach_tsumego_komi(const go_tsumego_problem *p);

/* Where the goal of a set-up problem came from. */
typedef enum {
    TEACH_GOAL_INFERRED = 0,  /* from the position (go_tsumego_setup) */
    TEACH_GOAL_GIVEN,         /* by the caller */
    TEACH_GOAL_STATED,        /* by the problem's statement (its comment or name) */
} teach_goal_source;

/* go_tsumego_setup_why with the goal given (not AUTO), else the one the problem's statement names
 * (stated, from go_tsumego_goal_from_text; AUTO for none), else inferred. A stated goal the
 * position cannot take (no weak group of the mover to live with, none of the opponent's to kill)
 * gives way to the inferred one. *from (may be NULL) says where the goal came from; why (may be
 * NULL) why the position was refused. */
bool teach_tsumego_setup(const go_board *b, go_color to_play, go_tsumego_goal given,
                         go_tsumego_goal stated, go_tsumego_problem *p, teach_goal_source *from,
                         go_tsumego_refusal *why, char *err, int err_len);

/* The transposition table (go_tsumego_limits.tt_log2) for what a solve of secs can fill at about
 * 20 M positions a second, from 64 KB up to the solver's default of 32 MB: a short solve need
 * not map and clear the whole default. */
int teach_tsumego_table_log2(double secs);

/* ---- the solver as a player --------------------------------------------------------------- */

/* A player that answers corner and side problems with t's first move (best resistance or
 * refutation: t should be stubborn), secs seconds a move or less when genmove's limits say so;
 * it passes once the problem is settled (no weak defender group left), and hands every other
 * position, and a move the game's superko forbids, to fallback (GTP: the search). Without a
 * fallback such positions fail with the reason, except a forbidden move, which becomes a pass.
 * Analyses and their reports are fallback's. t and fallback (may be NULL) are borrowed and must
 * outlive the player. */
teach_player *teach_tsumego_player_new(teach_tsumego *t, double secs, teach_player *fallback,
                                       char *err, int err_len);

#endif
