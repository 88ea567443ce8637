/* go/time_control.h -- a game clock by the rules of its time system: what a player has left,
 * what a move costs, when the flag falls, and the state as GTP's time_left speaks of it.
 *
 * The referee (`shido match`) keeps both players' clocks with it; the engine's time manager
 * (teach/timing.h) keeps its own view of them between the controller's time_left reports.
 *
 * Systems (KGS's and KataGo's GTP forms, seconds as floats):
 *   absolute  main time only; the flag falls at 0.
 *   canadian  main time, then periods of period_time_s for period_stones moves each: a period
 *             whose stones are played in time starts afresh.
 *   byoyomi   main time, then `periods` Japanese periods of period_time_s: a move played within
 *             the period costs nothing (the period comes back); a move that runs over uses up
 *             one period for each period_time_s it takes, and the flag falls with the last.
 *   fischer   main time; increment_s added after each move played in time, the total capped at
 *             main_cap_s when that is > 0; a move may take at most move_cap_s when that is > 0.
 */
#ifndef SHIDO_GO_TIME_CONTROL_H
#define SHIDO_GO_TIME_CONTROL_H

#include <stdbool.h>

typedef enum {
    GO_TIME_NONE,
    GO_TIME_ABSOLUTE,
    GO_TIME_CANADIAN,
    GO_TIME_BYOYOMI,
    GO_TIME_FISCHER,
} go_time_system;

typedef struct go_time_control {
    go_time_system system;
    double main_time_s;
    double period_time_s;   /* canadian, byoyomi */
    int period_stones;      /* canadian: moves a period */
    int periods;            /* byoyomi: number of periods */
    double increment_s;     /* fischer */
    double main_cap_s;      /* fischer: most the clock may hold after an increment (<= 0: none) */
    double move_cap_s;      /* fischer: most one move may take (<= 0: none) */
} go_time_control;

/* One player's clock. */
typedef struct go_clock {
    double time_left_s;   /* main time, or in overtime what is left of the current period */
    bool overtime;        /* main time is spent */
    int stones_left;      /* canadian overtime: moves still to play in this period */
    int periods_left;     /* byoyomi: periods not yet used up */
} go_clock;

/* The clock at the start of a game. */
go_clock go_clock_start(const go_time_control *t);

/* Charges a move that took spent_s seconds. Returns false when the flag fell (the player lost
 * on time); the clock then shows no time left. A system of none never falls. */
bool go_clock_charge(const go_time_control *t, go_clock *k, double spent_s);

/* The clock as GTP's time_left reports it: seconds left in main time or the current period, and
 * stones: 0 in main time, else canadian's stones left in the period or byoyomi's periods left. */
void go_clock_to_gtp(const go_time_control *t, const go_clock *k, double *seconds, int *stones);

/* The clock a time_left report describes (the reverse of go_clock_to_gtp). */
go_clock go_clock_from_gtp(const go_time_control *t, double seconds, int stones);

/* The system's name as kata-time_settings spells it ("none", "absolute", "canadian",
 * "byoyomi", "fischer"; "fischer-capped" when a cap is set). */
const char *go_time_system_name(const go_time_control *t);

#endif
