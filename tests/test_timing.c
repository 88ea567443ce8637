/* tests/test_timing.c -- game clocks by the rules of each time system, the time manager's plans
 * computed by hand, its measured margins, the stop rule, and whole games on a simulated clock
 * (a referee's clock charged with the engine's time plus a controller lag): no flag ever falls,
 * and byo-yomi periods are used to at least 85%. */
#include <check.h>
#include <math.h>

#include "go/time_control.h"
#include "teach/timing.h"
#include "tests/common.h"

#define NEAR(a, b) (fabs((a) - (b)) < 1e-9)

static void assert_near(double got, double want, const char *what)
{
    ck_assert_msg(fabs(got - want) < 1e-6, "%s: got %.9f, want %.9f", what, got, want);
}

/* ---- clocks ------------------------------------------------------------------------------- */

START_TEST(test_clock_absolute_and_fischer)
{
    go_time_control t = {.system = GO_TIME_ABSOLUTE, .main_time_s = 10};
    go_clock k = go_clock_start(&t);
    ck_assert(go_clock_charge(&t, &k, 4) && NEAR(k.time_left_s, 6));
    ck_assert(go_clock_charge(&t, &k, 6) && NEAR(k.time_left_s, 0));   /* exactly in time */
    ck_assert(!go_clock_charge(&t, &k, 0.001));

    t = (go_time_control){.system = GO_TIME_FISCHER, .main_time_s = 10, .increment_s = 5,
                          .main_cap_s = 12};
    k = go_clock_start(&t);
    ck_assert(go_clock_charge(&t, &k, 1) && NEAR(k.time_left_s, 12));   /* 14 capped at 12 */
    ck_assert(go_clock_charge(&t, &k, 11) && NEAR(k.time_left_s, 6));
    ck_assert(!go_clock_charge(&t, &k, 6.5));
    t.move_cap_s = 3;
    k = go_clock_start(&t);
    ck_assert(!go_clock_charge(&t, &k, 3.5));   /* over the move cap with time on the clock */
    double s;
    int stones;
    go_clock_to_gtp(&t, &k, &s, &stones);
    ck_assert(s == 0 && stones == 0);
}
END_TEST

START_TEST(test_clock_canadian)
{
    go_time_control t = {.system = GO_TIME_CANADIAN, .main_time_s = 5, .period_time_s = 10,
                         .period_stones = 2};
    go_clock k = go_clock_start(&t);
    /* 7 s: main time's 5, then 2 of the first period's 10, which counts one stone */
    ck_assert(go_clock_charge(&t, &k, 7) && k.overtime && NEAR(k.time_left_s, 8));
    ck_assert_int_eq(k.stones_left, 1);
    double s;
    int stones;
    go_clock_to_gtp(&t, &k, &s, &stones);
    ck_assert(NEAR(s, 8) && stones == 1);
    /* the period's last stone in time: a fresh period */
    ck_assert(go_clock_charge(&t, &k, 7.5) && NEAR(k.time_left_s, 10) && k.stones_left == 2);
    ck_assert(go_clock_charge(&t, &k, 9) && NEAR(k.time_left_s, 1));
    ck_assert(!go_clock_charge(&t, &k, 1.5));
    /* time_settings 0 1 1: no main time, one second a move */
    t = (go_time_control){.system = GO_TIME_CANADIAN, .period_time_s = 1, .period_stones = 1};
    k = go_clock_start(&t);
    ck_assert(k.overtime && NEAR(k.time_left_s, 1) && k.stones_left == 1);
    for (int i = 0; i < 100; i++)
        ck_assert(go_clock_charge(&t, &k, 0.99));
    ck_assert(!go_clock_charge(&t, &k, 1.01));
    k = go_clock_from_gtp(&t, 0.5, 1);
    ck_assert(k.overtime && k.stones_left == 1 && NEAR(k.time_left_s, 0.5));
}
END_TEST

START_TEST(test_clock_byoyomi)
{
    go_time_control t = {.system = GO_TIME_BYOYOMI, .main_time_s = 10, .period_time_s = 30,
                         .periods = 3};
    go_clock k = go_clock_start(&t);
    /* runs 25 s into overtime: within the first period, which comes back */
    ck_assert(go_clock_charge(&t, &k, 35) && k.overtime && k.periods_left == 3);
    ck_assert(NEAR(k.time_left_s, 30));
    ck_assert(go_clock_charge(&t, &k, 30) && k.periods_left == 3);   /* a whole period is fine */
    ck_assert(go_clock_charge(&t, &k, 61) && k.periods_left == 1);   /* two used up */
    double s;
    int stones;
    go_clock_to_gtp(&t, &k, &s, &stones);
    ck_assert(NEAR(s, 30) && stones == 1);
    ck_assert(!go_clock_charge(&t, &k, 30.5));
    k = go_clock_from_gtp(&t, 12, 2);
    ck_assert(k.overtime && k.periods_left == 2 && NEAR(k.time_left_s, 12));
    k = go_clock_from_gtp(&t, 7, 0);
    ck_assert(!k.overtime && k.periods_left == 3);
    t.system = GO_TIME_NONE;
    ck_assert(go_clock_charge(&t, &k, 1e9));
}
END_TEST

/* ---- plans -------------------------------------------------------------------------------- */

/* Plans computed by hand with the default margin: 0.05 overhead + 0.05 lag + 0.02 spare. */
START_TEST(test_plans_by_hand)
{
    teach_timekeeper tk;
    teach_timekeeper_init(&tk);
    assert_near(teach_timekeeper_margin_s(&tk), 0.12, "default margin");
    ck_assert(!teach_timekeeper_plan(&tk, GO_BLACK, 19, 0).limited);

    /* one-second byo-yomi: the whole period less the margin, never cut short */
    go_time_control t = {.system = GO_TIME_BYOYOMI, .period_time_s = 1, .periods = 3};
    teach_timekeeper_set_control(&tk, &t);
    teach_time_plan p = teach_timekeeper_plan(&tk, GO_BLACK, 9, 10);
    ck_assert(p.limited && !p.save_pays);
    assert_near(p.target_s, 0.88, "byo-yomi target");
    assert_near(p.max_s, 0.88, "byo-yomi max");

    /* Canadian overtime, 25.5 s for 3 stones: a third each, half again when undecided */
    t = (go_time_control){.system = GO_TIME_CANADIAN, .main_time_s = 300, .period_time_s = 30,
                          .period_stones = 5};
    teach_timekeeper_set_control(&tk, &t);
    teach_timekeeper_time_left(&tk, GO_WHITE, 25.5, 3);
    p = teach_timekeeper_plan(&tk, GO_WHITE, 19, 150);
    ck_assert(p.save_pays);
    assert_near(p.target_s, 25.5 / 3 - 0.12, "canadian target");
    assert_near(p.max_s, 1.5 * 25.5 / 3 - 0.12, "canadian max");
    /* the period's last stone: all that is left */
    teach_timekeeper_time_left(&tk, GO_WHITE, 4, 1);
    p = teach_timekeeper_plan(&tk, GO_WHITE, 19, 150);
    assert_near(p.target_s, 3.88, "last stone");
    ck_assert(p.max_s == p.target_s && !p.save_pays);
    /* Canadian main time at the start of 19x19: our moves left 0.5 * 0.7 * 361 = 126.35, and
     * the overtime's 6 s a stone on top */
    p = teach_timekeeper_plan(&tk, GO_BLACK, 19, 0);
    assert_near(p.target_s, 300 / 126.35 + 6 - 0.12, "canadian main target");
    assert_near(p.max_s, 3 * p.target_s, "canadian main max");

    /* sudden death, 5 minutes on 9x9: 28.35 moves left, and a reserve for the floor of
     * 0.1 * 81 + 5 = 13.1 moves at the margin and 0.01 s each; late in a 19x19 game the floor
     * of 0.1 * 361 + 5 = 41.1 moves */
    t = (go_time_control){.system = GO_TIME_ABSOLUTE, .main_time_s = 300};
    teach_timekeeper_set_control(&tk, &t);
    p = teach_timekeeper_plan(&tk, GO_BLACK, 9, 0);
    assert_near(p.target_s, (300 - 13.1 * 0.13) / 28.35 - 0.12, "absolute target");
    assert_near(p.max_s, 3 * p.target_s, "absolute max");
    assert_near(p.min_s, 0.1 * p.target_s, "absolute min");
    teach_timekeeper_time_left(&tk, GO_BLACK, 600, 0);
    p = teach_timekeeper_plan(&tk, GO_BLACK, 19, 200);
    assert_near(p.target_s, (600 - 41.1 * 0.13) / 41.1 - 0.12, "absolute late target");
    /* almost out of time: the flag comes first */
    teach_timekeeper_time_left(&tk, GO_BLACK, 1, 0);
    p = teach_timekeeper_plan(&tk, GO_BLACK, 19, 200);
    ck_assert(p.max_s <= 0.3 * 1 - 0.12 + 1e-9 && p.target_s <= p.max_s);

    /* Fischer 60 + 5 at the start of 19x19 (the increment pays for the reserve), then with a
     * move cap of 10 s */
    t = (go_time_control){.system = GO_TIME_FISCHER, .main_time_s = 60, .increment_s = 5};
    teach_timekeeper_set_control(&tk, &t);
    p = teach_timekeeper_plan(&tk, GO_BLACK, 19, 0);
    assert_near(p.target_s, 60 / 126.35 + 5 - 0.12, "fischer target");
    assert_near(p.max_s, 3 * p.target_s, "fischer max");
    t.move_cap_s = 10;
    teach_timekeeper_set_control(&tk, &t);
    p = teach_timekeeper_plan(&tk, GO_BLACK, 19, 0);
    assert_near(p.max_s, 9.88, "fischer move cap");

    /* Japanese byo-yomi in main time: main time's share on top of the period, at most what
     * keeps the first period */
    t = (go_time_control){.system = GO_TIME_BYOYOMI, .main_time_s = 600, .period_time_s = 30,
                          .periods = 5};
    teach_timekeeper_set_control(&tk, &t);
    p = teach_timekeeper_plan(&tk, GO_BLACK, 19, 0);
    assert_near(p.target_s, 600 / 126.35 + 30 - 0.12, "byo-yomi main target");
    ck_assert(p.save_pays);
    teach_timekeeper_time_left(&tk, GO_BLACK, 10, 0);
    p = teach_timekeeper_plan(&tk, GO_BLACK, 19, 200);
    assert_near(p.target_s, 10 / 41.1 + 30 - 0.12, "byo-yomi late main target");
    assert_near(p.max_s, 39.88, "byo-yomi late main max");
}
END_TEST

START_TEST(test_stop_rule)
{
    teach_time_plan p = {.limited = true, .target_s = 10, .max_s = 30, .min_s = 1,
                         .save_pays = true};
    /* dominance: 600 visits ahead and 500 more to come by the target */
    ck_assert(teach_time_should_stop(&p, 5, 100, 1000, 400));
    ck_assert(!teach_time_should_stop(&p, 5, 100, 800, 400));
    ck_assert(!teach_time_should_stop(&p, 0.5, 100, 1000, 0));   /* too early to judge */
    /* at the target: stop when clear, go on while close */
    ck_assert(teach_time_should_stop(&p, 10, 100, 1000, 600));
    ck_assert(!teach_time_should_stop(&p, 10, 100, 1000, 700));
    ck_assert(!teach_time_should_stop(&p, 29.9, 100, 1000, 990));
    ck_assert(teach_time_should_stop(&p, 30, 100, 1000, 990));
    /* where time saved is not time won, no early stop */
    p.save_pays = false;
    ck_assert(!teach_time_should_stop(&p, 5, 100, 1000, 0));
    p.limited = false;
    ck_assert(!teach_time_should_stop(&p, 1e9, 100, 1000, 0));
}
END_TEST

/* The margins: the engine's overhead from its own moves, the controller's lag from time_left
 * reports after them, and bookkeeping without reports. */
START_TEST(test_measured_margins)
{
    teach_timekeeper tk;
    teach_timekeeper_init(&tk);
    go_time_control t = {.system = GO_TIME_ABSOLUTE, .main_time_s = 300};
    teach_timekeeper_set_control(&tk, &t);
    teach_timekeeper_time_left(&tk, GO_BLACK, 300, 0);
    teach_timekeeper_moved(&tk, GO_BLACK, 10, 9.9);
    assert_near(tk.overhead_s, 0.1, "first overhead");
    assert_near(tk.clock[GO_BLACK].time_left_s, 300 - 10 - 0.05, "own account");
    teach_timekeeper_time_left(&tk, GO_BLACK, 289.5, 0);   /* the controller charged 0.5 more */
    assert_near(tk.lag_s, 0.5, "first lag");
    assert_near(teach_timekeeper_margin_s(&tk), 0.62, "margin");
    teach_timekeeper_moved(&tk, GO_BLACK, 5, 5);
    teach_timekeeper_time_left(&tk, GO_BLACK, 284.2, 0);   /* 0.3: a fall is taken slowly */
    assert_near(tk.lag_s, 0.48, "falling lag");
    teach_timekeeper_moved(&tk, GO_BLACK, 5, 5);
    teach_timekeeper_time_left(&tk, GO_BLACK, 278.2, 0);   /* 1.0: a rise by half at once */
    assert_near(tk.lag_s, 0.74, "rising lag");
    /* a report not after a move of ours, or of the other colour, is no sample */
    teach_timekeeper_time_left(&tk, GO_BLACK, 200, 0);
    teach_timekeeper_time_left(&tk, GO_WHITE, 100, 0);
    assert_near(tk.lag_s, 0.74, "no sample");
    ck_assert_int_eq(tk.lag_samples, 3);

    /* byo-yomi: the period comes back, so a report in overtime says nothing of the lag; our
     * own account follows the clock through main time into the periods */
    teach_timekeeper_init(&tk);
    t = (go_time_control){.system = GO_TIME_BYOYOMI, .main_time_s = 10, .period_time_s = 1,
                          .periods = 3};
    teach_timekeeper_set_control(&tk, &t);
    teach_timekeeper_moved(&tk, GO_WHITE, 9.95, -1);
    ck_assert(!tk.clock[GO_WHITE].overtime && NEAR(tk.clock[GO_WHITE].time_left_s, 0));
    teach_timekeeper_moved(&tk, GO_WHITE, 0.5, -1);
    ck_assert(tk.clock[GO_WHITE].overtime && tk.clock[GO_WHITE].periods_left == 3);
    teach_timekeeper_time_left(&tk, GO_WHITE, 1, 3);
    teach_timekeeper_moved(&tk, GO_WHITE, 0.9, 0.85);
    teach_timekeeper_time_left(&tk, GO_WHITE, 1, 3);
    ck_assert_int_eq(tk.lag_samples, 0);
    ck_assert_int_eq(tk.overhead_samples, 1);

    /* a server's known lag (--lag): assumed from the start, and never less after samples */
    teach_timekeeper_init(&tk);
    teach_timekeeper_set_lag_floor(&tk, 0.5);
    assert_near(teach_timekeeper_margin_s(&tk), 0.05 + 0.5 + 0.02, "floor margin");
    t = (go_time_control){.system = GO_TIME_ABSOLUTE, .main_time_s = 60};
    teach_timekeeper_set_control(&tk, &t);
    teach_timekeeper_time_left(&tk, GO_BLACK, 60, 0);
    teach_timekeeper_moved(&tk, GO_BLACK, 2, 2);
    teach_timekeeper_time_left(&tk, GO_BLACK, 57.9, 0);   /* 0.1 s of lag seen */
    assert_near(teach_timekeeper_margin_s(&tk), tk.overhead_s + 0.5 + 0.02, "floor holds");
    teach_timekeeper_moved(&tk, GO_BLACK, 2, 2);
    teach_timekeeper_time_left(&tk, GO_BLACK, 54.9, 0);   /* 1 s: more than the floor */
    ck_assert(teach_timekeeper_margin_s(&tk) > tk.overhead_s + 0.5 + 0.02);
}
END_TEST

/* ---- whole games on a simulated clock ----------------------------------------------------- */

/* A game of `moves` moves of ours on a board of size n: each search stops at its plan's target,
 * or at its maximum every third move (undecided), and its answer comes `overhead` after the
 * stop; the referee charges that plus `lag`, and reports the clock before each move when
 * `report`. Returns the smallest share of a byo-yomi period used in overtime (1 when none). */
static double play_simulated(const go_time_control *t, int n, int moves, double overhead,
                             double lag, bool report)
{
    teach_timekeeper tk;
    teach_timekeeper_init(&tk);
    teach_timekeeper_set_control(&tk, t);
    go_clock referee = go_clock_start(t);
    double least_share = 1;
    for (int i = 0; i < moves; i++) {
        if (report) {
            double s;
            int stones;
            go_clock_to_gtp(t, &referee, &s, &stones);
            teach_timekeeper_time_left(&tk, GO_BLACK, s, stones);
        }
        bool overtime = referee.overtime;
        teach_time_plan p = teach_timekeeper_plan(&tk, GO_BLACK, n, 2 * i);
        double stop = i % 3 == 2 ? p.max_s : p.target_s;
        double spent = stop + overhead;
        teach_timekeeper_moved(&tk, GO_BLACK, spent, stop);
        ck_assert_msg(go_clock_charge(t, &referee, spent + lag),
                      "%s: flag fell at move %d (plan %.3f..%.3f, spent %.3f)",
                      go_time_system_name(t), i, p.target_s, p.max_s, spent + lag);
        if (t->system == GO_TIME_BYOYOMI && overtime && i > 3 &&
            (spent + lag) / t->period_time_s < least_share)
            least_share = (spent + lag) / t->period_time_s;
    }
    return least_share;
}

START_TEST(test_simulated_games)
{
    /* learns: the clock shows the controller's lag (main time, Fischer, Canadian periods of
     * several stones); in one-stone Canadian or byo-yomi overtime the period comes back and
     * shows nothing, so the lag there must be within the default margin. Short clocks only on
     * 9x9: 200 moves cannot be played in 30 s at a controller's lag of 0.2 s a move. */
    const struct {
        go_time_control t;
        bool learns, small_only;
    } cases[] = {
        {{.system = GO_TIME_ABSOLUTE, .main_time_s = 300}, true, false},
        {{.system = GO_TIME_ABSOLUTE, .main_time_s = 30}, true, true},
        {{.system = GO_TIME_FISCHER, .main_time_s = 30, .increment_s = 1}, true, false},
        {{.system = GO_TIME_FISCHER, .main_time_s = 10, .increment_s = 2, .main_cap_s = 20,
          .move_cap_s = 3}, true, false},
        {{.system = GO_TIME_CANADIAN, .period_time_s = 1, .period_stones = 1}, false, false},
        {{.system = GO_TIME_CANADIAN, .main_time_s = 60, .period_time_s = 20,
          .period_stones = 10}, true, false},
        {{.system = GO_TIME_BYOYOMI, .period_time_s = 1, .periods = 1}, false, false},
        {{.system = GO_TIME_BYOYOMI, .main_time_s = 60, .period_time_s = 5, .periods = 1}, true,
         false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        for (int n = 9; n <= 19; n += 10) {
            if (n == 19 && cases[i].small_only)
                continue;
            const go_time_control *t = &cases[i].t;
            /* longer than the games the plans expect; a sudden death of 30 s lasts so long */
            int moves = n == 9 ? (cases[i].small_only ? 45 : 60) : 200;
            double lag = cases[i].learns ? 0.2 : 0.04;
            double share = play_simulated(t, n, moves, 0.03, lag, true);
            if (t->system == GO_TIME_BYOYOMI)
                ck_assert_msg(share >= 0.85, "byo-yomi period used to %.2f only", share);
            /* no reports: the engine's own account, a lag within the default margin */
            play_simulated(t, n, moves, 0.03, 0.04, false);
        }
}
END_TEST

static Suite *timing_suite(void)
{
    Suite *s = suite_create("timing");
    TCase *tc = tcase_create("clocks");
    tcase_add_test(tc, test_clock_absolute_and_fischer);
    tcase_add_test(tc, test_clock_canadian);
    tcase_add_test(tc, test_clock_byoyomi);
    suite_add_tcase(s, tc);
    tc = tcase_create("manager");
    tcase_add_test(tc, test_plans_by_hand);
    tcase_add_test(tc, test_stop_rule);
    tcase_add_test(tc, test_measured_margins);
    tcase_add_test(tc, test_simulated_games);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return test_run_suite(timing_suite()); }
