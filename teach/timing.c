/* teach/timing.c -- the time manager (timing.h). */
#include "teach/timing.h"

#include <stdint.h>

#include "go/clock.h"
#include "teach/engine.h"

/* Kept on top of the measured overhead and lag. */
#define SPARE_S 0.02
/* The shortest budget a move ever gets, and the longest any plan holds (a clock of 10^30
 * seconds plans as one of 10^7: every time limit stays a number of milliseconds). */
#define SHORTEST_S 0.01
#define LONGEST_S 1e7
/* An undecided search: the runner-up has at least this share of the best move's visits. */
#define UNDECIDED_SHARE 0.625
/* How far past the target an undecided search may go, and the share of what is left of an
 * absolute or Fischer clock one move may take at most. */
#define EXTEND_FACTOR 3.0
#define MOVE_SHARE 0.3
/* Dominance is not judged before this share of the target has passed. */
#define MIN_SHARE 0.1
/* Measured delays are smoothed: a rise is taken at once by half, a fall slowly. */
#define RISE 0.5
#define FALL 0.1

void teach_timekeeper_init(teach_timekeeper *tk)
{
    *tk = (teach_timekeeper){.overhead_s = TEACH_TIME_DEFAULT_OVERHEAD_S,
                             .lag_s = TEACH_TIME_DEFAULT_LAG_S};
}

void teach_timekeeper_set_control(teach_timekeeper *tk, const go_time_control *t)
{
    tk->control = *t;
    for (int c = 0; c < 3; c++) {
        tk->clock[c] = go_clock_start(t);
        tk->reported[c] = tk->expect_valid[c] = false;
    }
}

void teach_time_smooth(double *v, double sample, int *n)
{
    if (!(sample > 0))
        sample = 0;
    *v = *n == 0 ? sample : *v + (sample > *v ? RISE : FALL) * (sample - *v);
    (*n)++;
}

void teach_timekeeper_time_left(teach_timekeeper *tk, int color, double seconds, int stones)
{
    if (color < 0 || color > 2)
        return;
    go_clock k = go_clock_from_gtp(&tk->control, seconds, stones);
    const go_clock *x = &tk->expected[color];
    if (tk->expect_valid[color] && x->overtime == k.overtime && x->stones_left == k.stones_left)
        teach_time_smooth(&tk->lag_s, x->time_left_s - k.time_left_s, &tk->lag_samples);
    tk->expect_valid[color] = false;
    tk->clock[color] = k;
    tk->reported[color] = true;
}

void teach_timekeeper_moved(teach_timekeeper *tk, int color, double spent_s, double stop_s)
{
    if (color < 0 || color > 2)
        return;
    if (stop_s >= 0 && spent_s >= stop_s)
        teach_time_smooth(&tk->overhead_s, spent_s - stop_s, &tk->overhead_samples);
    if (tk->control.system == GO_TIME_NONE)
        return;
    /* What the controller should report when it adds no lag, and our own best guess. The next
     * report shows the lag only when the move left the clock running on: not when it started a
     * period afresh (byo-yomi overtime always does, a Canadian period's last stone too). */
    go_clock before = tk->clock[color];
    go_clock *x = &tk->expected[color];
    *x = before;
    go_clock_charge(&tk->control, x, spent_s);
    bool runs_on = !x->overtime || (tk->control.system == GO_TIME_CANADIAN && before.overtime &&
                                    x->stones_left == before.stones_left - 1);
    tk->expect_valid[color] = tk->reported[color] && runs_on && x->time_left_s > 0;
    go_clock_charge(&tk->control, &tk->clock[color], spent_s + tk->lag_s);
    tk->reported[color] = false;
}

void teach_timekeeper_set_lag_floor(teach_timekeeper *tk, double lag_s)
{
    tk->lag_floor_s = lag_s > 0 ? lag_s : 0;
    if (tk->lag_samples == 0 && tk->lag_s < tk->lag_floor_s)
        tk->lag_s = tk->lag_floor_s;
}

double teach_timekeeper_margin_s(const teach_timekeeper *tk)
{
    double lag = tk->lag_s > tk->lag_floor_s ? tk->lag_s : tk->lag_floor_s;
    return tk->overhead_s + lag + SPARE_S;
}

/* Our moves likely left in a game on a board of size n with `played` moves played: 70% of the
 * points filled by both players, and never fewer than a tenth of the points and five more. */
static double moves_left(int n, int played)
{
    double left = 0.5 * (0.7 * n * n - played);
    double floor = 0.1 * n * n + 5;
    return left < floor ? floor : left;
}

static double at_least(double v, double lo) { return v < lo ? lo : v; }
static double at_most(double v, double hi) { return v > hi ? hi : v; }

teach_time_plan teach_time_plan_for(const go_time_control *t, const go_clock *k, int board_size,
                                    int moves_played, double margin_s)
{
    teach_time_plan p = {.limited = t->system != GO_TIME_NONE, .save_pays = true};
    if (!p.limited)
        return p;
    double m = margin_s, ml = moves_left(board_size, moves_played);
    double left = k->time_left_s;
    double hard;   /* the most this move can take and keep the flag up */
    switch (t->system) {
    case GO_TIME_ABSOLUTE:
    case GO_TIME_FISCHER: {
        double inc = t->system == GO_TIME_FISCHER ? t->increment_s : 0;
        /* Kept back for a game that goes on longer than expected: the moves of the floor of
         * moves_left at the least a move costs, less what the increments pay of it. */
        double reserve = moves_left(board_size, 1 << 20) * at_least(m + SHORTEST_S - inc, 0);
        double spread = at_least(left - reserve, 0);
        hard = left - m;
        if (t->system == GO_TIME_FISCHER && t->move_cap_s > 0)
            hard = at_most(hard, t->move_cap_s - m);
        p.target_s = spread / ml + inc - m;
        p.max_s = at_most(EXTEND_FACTOR * p.target_s, MOVE_SHARE * spread + inc - m);
        break;
    }
    case GO_TIME_CANADIAN:
        if (!k->overtime) {
            /* Once main time is out, every move has a period's share: main time adds to it. */
            double per_stone = t->period_stones > 0 ? t->period_time_s / t->period_stones : 0;
            hard = left + per_stone - m;
            p.target_s = left / ml + per_stone - m;
            p.max_s = EXTEND_FACTOR * p.target_s;
        } else {
            int s = k->stones_left > 0 ? k->stones_left : 1;
            /* The other stones of the period keep at least a margin and a little each. */
            hard = left - m - (s - 1) * (m + 0.1);
            p.target_s = left / s - m;
            p.max_s = s > 1 ? 1.5 * left / s - m : p.target_s;
            p.save_pays = s > 1;
        }
        break;
    case GO_TIME_BYOYOMI:
        if (!k->overtime) {
            /* Every move in overtime gets a whole period, which comes back: main time is what
             * the moves get on top of it. */
            hard = left + t->period_time_s - m;
            p.target_s = left / ml + t->period_time_s - m;
            p.max_s = EXTEND_FACTOR * p.target_s;
        } else {
            hard = t->period_time_s - m;
            p.target_s = p.max_s = hard;
            p.save_pays = false;
        }
        break;
    default:
        hard = 0;
        break;
    }
    hard = at_least(at_most(hard, LONGEST_S), SHORTEST_S);
    p.max_s = at_least(at_most(p.max_s, hard), SHORTEST_S);
    p.target_s = at_least(at_most(p.target_s, p.max_s), SHORTEST_S);
    p.min_s = MIN_SHARE * p.target_s;
    return p;
}

teach_time_plan teach_timekeeper_plan(const teach_timekeeper *tk, int color, int board_size,
                                      int moves_played)
{
    const go_clock *k = color >= 0 && color <= 2 ? &tk->clock[color] : &tk->clock[0];
    return teach_time_plan_for(&tk->control, k, board_size, moves_played,
                               teach_timekeeper_margin_s(tk));
}

bool teach_time_should_stop(const teach_time_plan *plan, double elapsed_s, double visits_per_s,
                            int64_t best, int64_t second)
{
    if (!plan->limited)
        return false;
    if (elapsed_s >= plan->max_s)
        return true;
    if (elapsed_s >= plan->target_s)
        return (double)second < UNDECIDED_SHARE * (double)best;
    /* Dominance: the runner-up could not catch up by the target even with every visit left. */
    return plan->save_pays && elapsed_s >= plan->min_s && best > 0 &&
           (double)(best - second) > visits_per_s * (plan->target_s - elapsed_s);
}

/* ---- a timed move ------------------------------------------------------------------------- */

typedef struct timed_ctx {
    const teach_time_plan *plan;
    double started_s;
    double stop_s;            /* when the plan stopped the search, after started_s (-1: not) */
    mcts_progress_fn cb;
    void *ctx;
} timed_ctx;

static bool timed_progress(const mcts_analysis *a, void *ctx)
{
    timed_ctx *t = ctx;
    if (t->cb && !t->cb(a, t->ctx))
        return false;
    double elapsed = go_now_s() - t->started_s;
    int64_t best = a->num_moves > 0 ? a->moves[0].visits : 0, second = 0;
    for (int i = 1; i < a->num_moves; i++)
        if (a->moves[i].visits > second)
            second = a->moves[i].visits;
    double rate = a->elapsed_s > 0 ? (double)a->playouts / a->elapsed_s : 0;
    if (teach_time_should_stop(t->plan, elapsed, rate, best, second)) {
        t->stop_s = elapsed;
        return false;
    }
    return true;
}

teach_move_status teach_timed_genmove(teach_player *p, const teach_time_plan *plan,
                                      const mcts_limits *base, mcts_progress_fn cb, void *ctx,
                                      double started_s, int *move, double *stop_s, char *err,
                                      int err_len)
{
    if (!plan->limited) {
        *stop_s = -1;
        return teach_player_genmove(p, base, cb, ctx, move, err, err_len);
    }
    mcts_limits lim = base ? *base : (mcts_limits){0};
    double left = plan->max_s - (go_now_s() - started_s);
    int64_t ms = (int64_t)(left * 1000.0);
    if (ms < 1)
        ms = 1;
    if (lim.max_time_ms <= 0 || ms < lim.max_time_ms)
        lim.max_time_ms = ms;
    if (!base)
        lim.max_visits = -1;   /* the clock decides, not the default visits */
    /* Checks every 10 ms for budgets under two seconds, else every 50 ms. */
    int every = plan->target_s < 2 ? 1 : 5;
    if (lim.report_interval_cs <= 0 || lim.report_interval_cs > every)
        lim.report_interval_cs = every;
    if (!cb) {
        lim.report.max_moves = 8;   /* the dominance test reads the first moves only */
        lim.report.pv_len = 1;
    }
    timed_ctx t = {plan, started_s, -1, cb, ctx};
    teach_move_status st = teach_player_genmove(p, &lim, timed_progress, &t, move, err, err_len);
    *stop_s = t.stop_s >= 0 ? t.stop_s : plan->max_s;
    return st;
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
