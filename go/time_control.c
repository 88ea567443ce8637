/* go/time_control.c -- game clocks (time_control.h). */
#include "go/time_control.h"

#include <math.h>

go_clock go_clock_start(const go_time_control *t)
{
    go_clock k = {.time_left_s = t->main_time_s, .periods_left = t->periods};
    if (t->main_time_s <= 0 && (t->system == GO_TIME_CANADIAN || t->system == GO_TIME_BYOYOMI)) {
        k.overtime = true;
        k.time_left_s = t->period_time_s;
        k.stones_left = t->system == GO_TIME_CANADIAN ? t->period_stones : 0;
    }
    return k;
}

static bool flag_falls(go_clock *k)
{
    k->time_left_s = 0;
    return false;
}

/* Byo-yomi periods a move of `over` seconds into overtime uses up: none within one period, one
 * more for each further period begun. */
static int periods_used(double over, double period)
{
    if (period <= 0)
        return over > 0 ? 1 << 30 : 0;
    double n = ceil(over / period) - 1;
    return n <= 0 ? 0 : n > (1 << 30) ? 1 << 30 : (int)n;
}

bool go_clock_charge(const go_time_control *t, go_clock *k, double spent_s)
{
    if (!(spent_s >= 0))
        spent_s = 0;
    switch (t->system) {
    case GO_TIME_NONE:
        return true;
    case GO_TIME_ABSOLUTE:
        k->time_left_s -= spent_s;
        return k->time_left_s >= 0 || flag_falls(k);
    case GO_TIME_FISCHER:
        if (t->move_cap_s > 0 && spent_s > t->move_cap_s)
            return flag_falls(k);
        k->time_left_s -= spent_s;
        if (k->time_left_s < 0)
            return flag_falls(k);
        k->time_left_s += t->increment_s;
        if (t->main_cap_s > 0 && k->time_left_s > t->main_cap_s)
            k->time_left_s = t->main_cap_s;
        return true;
    case GO_TIME_CANADIAN:
    case GO_TIME_BYOYOMI:
        break;
    }
    double over = spent_s;
    if (!k->overtime) {
        if (spent_s <= k->time_left_s) {
            k->time_left_s -= spent_s;
            return true;
        }
        over = spent_s - k->time_left_s;
        k->overtime = true;
        k->time_left_s = t->period_time_s;
        k->stones_left = t->period_stones;
        k->periods_left = t->periods;
    }
    if (t->system == GO_TIME_BYOYOMI) {
        int used = periods_used(over, t->period_time_s);
        if (used >= k->periods_left) {
            k->periods_left = 0;
            return flag_falls(k);
        }
        k->periods_left -= used;
        k->time_left_s = t->period_time_s;
        return true;
    }
    k->time_left_s -= over;
    if (k->time_left_s < 0)
        return flag_falls(k);
    if (--k->stones_left <= 0) {
        k->time_left_s = t->period_time_s;
        k->stones_left = t->period_stones;
    }
    return true;
}

void go_clock_to_gtp(const go_time_control *t, const go_clock *k, double *seconds, int *stones)
{
    *seconds = k->time_left_s;
    *stones = 0;
    if (k->overtime)
        *stones = t->system == GO_TIME_BYOYOMI ? k->periods_left : k->stones_left;
}

go_clock go_clock_from_gtp(const go_time_control *t, double seconds, int stones)
{
    go_clock k = {.time_left_s = seconds, .periods_left = t->periods};
    if (stones > 0 && (t->system == GO_TIME_CANADIAN || t->system == GO_TIME_BYOYOMI)) {
        k.overtime = true;
        if (t->system == GO_TIME_BYOYOMI)
            k.periods_left = stones;
        else
            k.stones_left = stones;
    }
    return k;
}

const char *go_time_system_name(const go_time_control *t)
{
    switch (t->system) {
    case GO_TIME_ABSOLUTE:
        return "absolute";
    case GO_TIME_CANADIAN:
        return "canadian";
    case GO_TIME_BYOYOMI:
        return "byoyomi";
    case GO_TIME_FISCHER:
        return t->main_cap_s > 0 || t->move_cap_s > 0 ? "fischer-capped" : "fischer";
    case GO_TIME_NONE:
        break;
    }
    return "none";
}
