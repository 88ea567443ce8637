/* teach/timing.h -- how long to think about a move: the clock a controller described (GTP's
 * time_settings, kgs-time_settings and time_left) turned into a time budget and the search
 * limits of one move. */
#ifndef SHIDO_TEACH_TIMING_H
#define SHIDO_TEACH_TIMING_H

#include <stdbool.h>

#include "mcts/mcts.h"

typedef enum {
    TEACH_TIME_NONE,      /* no time limit */
    TEACH_TIME_ABSOLUTE,  /* main time only, sudden death */
    TEACH_TIME_CANADIAN,  /* main time, then period_stones moves in each period (GTP's byo yomi) */
    TEACH_TIME_BYOYOMI,   /* main time, then `periods` Japanese byo-yomi periods (KGS) */
} teach_time_system;

/* The clock as the controller described it. */
typedef struct teach_time_control {
    teach_time_system system;
    double main_time_s;
    double period_time_s;
    int period_stones;  /* Canadian: moves per period */
    int periods;        /* Japanese byo-yomi: number of periods */
} teach_time_control;

/* What the controller last reported for one colour: seconds left in the current main time or
 * period and, in overtime, the stones (Canadian) or periods (byo-yomi) left; 0 stones means main
 * time. known is false before any report. */
typedef struct teach_clock {
    bool known;
    double time_left_s;
    int stones_left;
} teach_clock;

/* Seconds to spend on the next move of the side whose clock k is (NULL: not reported), 0 for no
 * limit. Main time is spread over the moves likely left on a board of board_size with
 * moves_played already played (at least 20 of them), with half an overtime period added; in
 * overtime 90% of a Canadian period over its stones, or 80% of a Japanese period. A margin for
 * the controller's lag is kept; never less than 0.05 s. */
double teach_move_budget_s(const teach_time_control *t, const teach_clock *k, int board_size,
                           int moves_played);

/* The limits of a move's search under the tunables p and a budget (0: none): the budget when it
 * is shorter than p's max_time_ms, and TEACH_DEFAULT_VISITS when neither sets any limit. */
mcts_limits teach_move_limits(const mcts_params *p, double budget_s);

#endif
