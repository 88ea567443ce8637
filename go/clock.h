/* go/clock.h -- the one monotonic clock every limit and timing in the project reads. */
#ifndef SHIDO_GO_CLOCK_H
#define SHIDO_GO_CLOCK_H

#include <time.h>

/* Seconds on CLOCK_MONOTONIC (for differences and deadlines, not the time of day). */
static inline double go_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

#endif
