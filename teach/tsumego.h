/* tools/tsumego_net.h -- the tsumego solver guided by a network (`--model` of `shido tsumego`).
 *
 * The solver proves; the network only says where to look first and what to answer when no proof
 * comes in time. The network sees the framed board (go_tsumego_problem.framed) with a komi that
 * makes the problem decide the game (tsumego_net_komi): with komi 7.5 the frame alone often
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
 *     (tsumego_net_search_decided), and phase 3 gets the time;
 *  3. the solver again with the rest of the time, going on from the tables of phase 1
 *     (go_tsumego_work), its prior now the search's visits on the problem region (the policy
 *     where it visited nothing): a proof still counts, and if none comes the guess is the most
 *     visited first move that the solver has not refuted.
 * On the 57 advanced Cho Chikun problems of a sample that the solver leaves open, the search
 * (400 visits) picks the book answer in 31, the policy's top move in 21, the solver's own guess
 * in 7 (bench/RESULTS.md). */
#ifndef SHIDO_TOOLS_TSUMEGO_NET_H
#define SHIDO_TOOLS_TSUMEGO_NET_H

#include <stdbool.h>
#include <stdint.h>

#include "go/tsumego.h"
#include "nn/nn.h"

/* What one thread needs to guide solves with one model: an evaluator and a search. */
typedef struct tsumego_net tsumego_net;

/* Makes a guide on model (not owned; it must outlive the guide). NULL with a message in err on
 * failure. */
tsumego_net *tsumego_net_new(nn_model *model, char *err, int err_len);
void tsumego_net_free(tsumego_net *t);

/* On a failure (phase 1 above), keep the solver's most stubborn try as the answer instead of the
 * search's move: what a sparring partner wants when its side has lost (GTP's genmove), where
 * the position after a right move fails as it should. Off by default. */
void tsumego_net_set_stubborn(tsumego_net *t, bool on);

/* Whether the last solve was a failure answered with the search's move (phase 1 above): false
 * for any other result, for a stubborn guide, and when the search visited none of the region's
 * moves in its time, the answer then being the solver's most stubborn try. */
bool tsumego_net_failure_searched(const tsumego_net *t);

/* Solves p as go_tsumego_solve does (lim->prior and lim->work are ignored: the network supplies
 * the prior, the guide keeps the tables), in the
 * phases above. Nodes and time in out cover every phase. Returns false with a message in err
 * when out of memory or when the network cannot evaluate the board. */
bool tsumego_net_solve(tsumego_net *t, const go_tsumego_problem *p, const go_tsumego_limits *lim,
                       go_tsumego_solution *out, char *err, int err_len);

/* The search of phase 2 stops early once its most visited move cannot be overtaken: true when
 * the lead of the most visited move (first visits) over the runner-up (second) is more than the
 * visits the rest of the search's time_s would bring at the rate so far (visits in elapsed_s).
 * The guess is then the move the full time would give, and the time left goes to phase 3.
 * Never before 100 visits. */
bool tsumego_net_search_decided(int64_t first, int64_t second, int64_t visits, double elapsed_s,
                                double time_s);

/* White's komi for p's framed board that makes the problem decide the game: the frame's areas
 * balanced, and the region counted so that the defender wins by living with about a quarter of
 * it and loses by dying. A half-point value. */
float tsumego_net_komi(const go_tsumego_problem *p);

#endif
