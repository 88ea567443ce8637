/* tools/progress.h -- a progress bar with rate and ETA on standard error, for the batch commands
 * (fuseki-quiz, review, tsumego bench): "[#########.........] 37/171 22% 1.3/s ETA 1m43s", with
 * a note of the caller's after it ("12 correct"). Redrawn in place on a terminal at most ten
 * times a second; elsewhere (a log file) one line every 10%. */
#ifndef SHIDO_TOOLS_PROGRESS_H
#define SHIDO_TOOLS_PROGRESS_H

#include <stdbool.h>
#include <stdio.h>

typedef struct progress {
    FILE *out;            /* NULL: silent */
    bool tty;
    const char *what;     /* "quizzes", "moves" */
    int total;
    double start_s, last_draw_s;
    int last_decile;
    char note[64];        /* printed after the ETA when not empty (progress_note) */
} progress;

/* Starts a bar of total steps on stderr; mode 1 always, 0 never, -1 on a terminal only. */
void progress_start(progress *p, int total, const char *what, int mode);

/* Sets the note the next drawing prints after the ETA ("" for none). */
void progress_note(progress *p, const char *note);

/* Shows done of the total steps. */
void progress_update(progress *p, int done);

/* Ends the bar (the line finished with the elapsed time). */
void progress_end(progress *p, int done);

/* "1h02m", "3m05s", "12s" into buf; returns buf. */
const char *progress_duration(double s, char *buf, int len);

#endif
