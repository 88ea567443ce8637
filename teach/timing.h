/* teach/timing.h -- the time manager: how long to think about a move under a game clock, and
 * when a running search stops.
 *
 * A timekeeper holds the clock a controller described (GTP's time_settings, kgs-time_settings,
 * kata-time_settings), its view of both players' clocks (the controller's time_left reports,
 * and between them its own bookkeeping of the moves it made), and two measured delays: the
 * engine's own overhead (from receiving genmove to answering, beyond the moment the search was
 * asked to stop) and the controller's lag (the time a controller charges beyond what the engine
 * measured, seen in its next time_left report). Both are kept as margins in every budget.
 *
 * A move's plan has a target (what a move of the game is worth: main time spread over the moves
 * likely left, the increment, or an overtime period) and a maximum that an undecided search may
 * go on to. The search stops early when one move dominates so that the second cannot catch up by
 * the target (only where time saved can be spent later: not in byo-yomi overtime, where the
 * period comes back anyway), stops at the target when the best move is clear, and goes on past
 * it while the best and second moves are close in visits, up to the maximum. No plan ever spends
 * more than the clock holds less the margins: a move on an unlimited clock has no plan.
 */
#ifndef SHIDO_TEACH_TIMING_H
#define SHIDO_TEACH_TIMING_H

#include <stdbool.h>

#include "go/time_control.h"
#include "mcts/mcts.h"
#include "teach/player.h"

/* Margins before anything is measured: the engine's overhead and the controller's lag. */
#define TEACH_TIME_DEFAULT_OVERHEAD_S 0.05
#define TEACH_TIME_DEFAULT_LAG_S 0.05

/* The budget of one move, in seconds from receiving the command. */
typedef struct teach_time_plan {
    bool limited;       /* false: no clock, nothing below applies */
    double target_s;    /* stop here when the best move is clear */
    double max_s;       /* an undecided search may go on to here (>= target_s) */
    double min_s;       /* never stop before this for dominance */
    bool save_pays;     /* time not spent now can be spent later: stop early on dominance */
} teach_time_plan;

typedef struct teach_timekeeper {
    go_time_control control;
    go_clock clock[3];        /* indexed by go_color: the controller's report or our bookkeeping */
    bool reported[3];         /* clock[c] came from time_left since our last move as c */
    go_clock expected[3];     /* c's clock after our last move by our own measure */
    bool expect_valid[3];     /* expected[c] can be compared with the next report */
    double overhead_s;        /* measured: time from genmove to answer beyond the stop */
    double lag_s;             /* measured: controller time beyond ours */
    double lag_floor_s;       /* the lag is never taken as less (a server's known delay) */
    int overhead_samples, lag_samples;
} teach_timekeeper;

/* A timekeeper with no limit and the default margins. */
void teach_timekeeper_init(teach_timekeeper *tk);

/* A new clock (time_settings and its kin): both players start it afresh; the margins
 * measured so far are kept. */
void teach_timekeeper_set_control(teach_timekeeper *tk, const go_time_control *t);

/* A time_left report for colour c: seconds left and stones (GTP's sense, go_clock_to_gtp).
 * When it follows a move of ours as c in the same phase of the clock, the difference from our
 * own account is a sample of the controller's lag. */
void teach_timekeeper_time_left(teach_timekeeper *tk, int color, double seconds, int stones);

/* The plan for a move of colour c on a board of board_size with moves_played moves played. */
teach_time_plan teach_timekeeper_plan(const teach_timekeeper *tk, int color, int board_size,
                                      int moves_played);

/* The plan from a clock directly (what teach_timekeeper_plan does with its own view), margin_s
 * kept back from every limit. */
teach_time_plan teach_time_plan_for(const go_time_control *t, const go_clock *k, int board_size,
                                    int moves_played, double margin_s);

/* A move of colour c was answered spent_s seconds after its command arrived, stop_s after it the
 * search was asked to stop (its plan's stop; < 0 when unknown): charges c's clock and measures
 * the overhead. */
void teach_timekeeper_moved(teach_timekeeper *tk, int color, double spent_s, double stop_s);

/* Sets the least lag every plan assumes (what a server is known to add; in byo-yomi overtime the
 * clock never shows it), and the lag to start from when it is more than the default. */
void teach_timekeeper_set_lag_floor(teach_timekeeper *tk, double lag_s);

/* Smooths a measured delay: the first sample is taken as it is, later ones move *v half way up at
 * once and a tenth of the way down; negative samples count as 0. *n counts the samples. */
void teach_time_smooth(double *v, double sample, int *n);

/* The margin every plan keeps: overhead and lag as measured (the lag at least its floor), with a
 * little to spare. */
double teach_timekeeper_margin_s(const teach_timekeeper *tk);

/* Whether a search under plan that has run elapsed_s seconds since the command arrived,
 * making visits_per_s, with best and second the visits of the move it would play and of the
 * runner-up, should stop now. */
bool teach_time_should_stop(const teach_time_plan *plan, double elapsed_s, double visits_per_s,
                            int64_t best, int64_t second);

/* Chooses a move with player p under plan: the search limits are base's (NULL: the player's
 * tunables' own) with the plan's maximum as its time limit, and the plan's stop rule applied
 * at every progress check (often: cb, which may be NULL, is called at each, at least every
 * base->report_interval_cs, and may stop the search itself). started_s is go_now_s()
 * when the command arrived; *stop_s receives the moment, in seconds after started_s, when the
 * search was asked to stop (or reached its limit). Returns as teach_player_genmove. */
teach_move_status teach_timed_genmove(teach_player *p, const teach_time_plan *plan, const mcts_limits *base,
                        mcts_progress_fn cb, void *ctx, double started_s, int *move,
                        double *stop_s, char *err, int err_len);

/* The limits of a move's search under the tunables p and a budget (0: none): the budget when it
 * is shorter than p's max_time_ms, and TEACH_DEFAULT_VISITS when neither sets any limit. */
mcts_limits teach_move_limits(const mcts_params *p, double budget_s);

#endif
