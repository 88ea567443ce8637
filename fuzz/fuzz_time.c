/* fuzz/fuzz_time.c -- libFuzzer target for the clock commands and the time manager.
 *
 * The input is a GTP session (time_settings, kgs-time_settings, kata-time_settings, time_left and
 * anything else) read by a fresh engine without a network. Then, for both colours, board sizes
 * and game stages, the time manager's plan is checked: finite, 0 < target <= max, a maximum a
 * search limit can hold in milliseconds; and a stretch of moves charged at the plan's maximum
 * keeps every clock and margin a finite number, the stop rule answering for any visit counts.
 *
 * Run: fuzz_time -max_len=2048 -dict=tests/data/gtp/fuzz-gtp.dict CORPUS tests/data/time
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "teach/timing.h"
#include "tools/gtp.h"

static void check_plan(const teach_time_plan *p)
{
    if (!p->limited)
        return;
    if (!isfinite(p->target_s) || !isfinite(p->max_s) || !isfinite(p->min_s) ||
        !(p->target_s > 0) || p->target_s > p->max_s || p->max_s > 1e7 || p->min_s < 0 ||
        p->min_s > p->target_s)
        abort();
}

static void check_clock(const go_clock *k)
{
    if (!isfinite(k->time_left_s) || k->stones_left < 0 || k->periods_left < 0)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gtp_engine e;
    if (!gtp_engine_init(&e))
        abort();
    e.allow_files = false;
    e.tsumego_s = 0.0005; /* tsumego_solve and genmove's solver, briefly (10 s a solve otherwise) */
    e.tsumego_max_s = 0.0005;
    FILE *in = fmemopen((void *)data, size ? size : 1, "r");
    FILE *out = fopen("/dev/null", "w");
    if (!in || !out)
        abort();
    if (size)
        gtp_engine_run(&e, in, out);
    fclose(in);
    fclose(out);
    teach_timekeeper *tk = &e.time;
    for (int c = GO_BLACK; c <= GO_WHITE; c++)
        for (int n = 9; n <= 19; n += 10)
            for (int played = 0; played <= 400; played += 200) {
                teach_time_plan p = teach_timekeeper_plan(tk, c, n, played);
                check_plan(&p);
                teach_time_should_stop(&p, p.target_s, 1e6, INT64_MAX / 2, 0);
                teach_time_should_stop(&p, 0, 0, 0, 0);
            }
    /* a stretch of moves at the plan's maximum, with an overhead, on the engine's own account */
    for (int i = 0; i < 64; i++) {
        int c = i % 2 ? GO_WHITE : GO_BLACK;
        teach_time_plan p = teach_timekeeper_plan(tk, c, 19, i);
        check_plan(&p);
        double stop = p.limited ? p.max_s : 1;
        teach_timekeeper_moved(tk, c, stop + 0.01 * (i % 7), stop);
        check_clock(&tk->clock[c]);
        if (!isfinite(teach_timekeeper_margin_s(tk)) || teach_timekeeper_margin_s(tk) < 0)
            abort();
    }
    gtp_engine_free(&e);
    return 0;
}
