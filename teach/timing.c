/* teach/timing.c -- move time budgets (timing.h). */
#include "teach/timing.h"

#include <stdint.h>

#include "teach/engine.h"

/* Seconds kept for the controller's and the network's lag. */
#define LAG_S 0.3

double teach_move_budget_s(const teach_time_control *t, const teach_clock *k, int board_size,
                           int moves_played)
{
    if (t->system == TEACH_TIME_NONE)
        return 0;
    teach_clock none = {0};
    if (!k)
        k = &none;
    double budget;
    if (k->known && k->stones_left > 0) {
        if (t->system == TEACH_TIME_BYOYOMI)
            budget = 0.8 * k->time_left_s - LAG_S;
        else
            budget = 0.9 * k->time_left_s / k->stones_left - LAG_S;
    } else {
        double left = k->known ? k->time_left_s : t->main_time_s;
        double moves_left = 0.5 * (0.6 * board_size * board_size - moves_played);
        if (moves_left < 20)
            moves_left = 20;
        budget = left / moves_left;
        if (t->system == TEACH_TIME_BYOYOMI && t->periods > 0)
            budget += 0.5 * t->period_time_s;
        else if (t->system == TEACH_TIME_CANADIAN && t->period_stones > 0)
            budget += 0.5 * t->period_time_s / t->period_stones;
        if (t->system == TEACH_TIME_ABSOLUTE && budget > left - 2 * LAG_S)
            budget = left - 2 * LAG_S;
        budget -= LAG_S;
    }
    return budget < 0.05 ? 0.05 : budget;
}

mcts_limits teach_move_limits(const mcts_params *p, double budget_s)
{
    mcts_limits lim = {0};
    if (budget_s > 0) {
        int64_t ms = (int64_t)(budget_s * 1000.0);
        if (p->max_time_ms <= 0 || ms < p->max_time_ms)
            lim.max_time_ms = ms > 0 ? ms : 1;
    }
    if (p->max_visits <= 0 && p->max_playouts <= 0 && p->max_time_ms <= 0 && budget_s <= 0)
        lim.max_visits = TEACH_DEFAULT_VISITS;
    return lim;
}
