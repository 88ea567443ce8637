/* tools/progress.c -- the batch commands' progress bar (progress.h). */
#include "tools/progress.h"

#include <unistd.h>

#include "go/clock.h"

#define BAR_WIDTH 24

void progress_start(progress *p, int total, const char *what, int mode)
{
    bool tty = isatty(fileno(stderr));
    p->out = mode > 0 || (mode < 0 && tty) ? stderr : NULL;
    p->tty = tty;
    p->what = what;
    p->total = total;
    p->start_s = p->last_draw_s = go_now_s();
    p->last_decile = 0;
    p->note[0] = 0;
}

void progress_note(progress *p, const char *note)
{
    snprintf(p->note, sizeof p->note, "%s", note);
}

const char *progress_duration(double s, char *buf, int len)
{
    long t = s > 0 ? (long)(s + 0.5) : 0;
    if (t >= 3600)
        snprintf(buf, (size_t)len, "%ldh%02ldm", t / 3600, t / 60 % 60);
    else if (t >= 60)
        snprintf(buf, (size_t)len, "%ldm%02lds", t / 60, t % 60);
    else
        snprintf(buf, (size_t)len, "%lds", t);
    return buf;
}

static void draw(progress *p, int done, bool final)
{
    double now = go_now_s(), el = now - p->start_s, rate = el > 0 ? done / el : 0;
    char bar[BAR_WIDTH + 1], eta[48], took[32];
    int fill = p->total > 0 ? (int)((double)done * BAR_WIDTH / p->total) : BAR_WIDTH;
    for (int i = 0; i < BAR_WIDTH; i++)
        bar[i] = i < fill ? '#' : '.';
    bar[BAR_WIDTH] = 0;
    if (final)
        snprintf(eta, sizeof eta, "in %s", progress_duration(el, took, sizeof took));
    else
        snprintf(eta, sizeof eta, "ETA %s",
                 rate > 0 ? progress_duration((p->total - done) / rate, took, sizeof took) : "?");
    fprintf(p->out, "%s[%s] %d/%d %s %d%% %.2f/s %s%s%s%s", p->tty ? "\r" : "", bar, done,
            p->total, p->what, p->total ? (int)(100.0 * done / p->total) : 100, rate, eta,
            p->note[0] ? ", " : "", p->note, p->tty && !final ? "   " : "\n");
    fflush(p->out);
    p->last_draw_s = now;
}

void progress_update(progress *p, int done)
{
    if (!p->out)
        return;
    if (p->tty) {
        if (go_now_s() - p->last_draw_s >= 0.1 || done == p->total)
            draw(p, done, false);
        return;
    }
    int decile = p->total ? (int)(10.0 * done / p->total) : 10;
    if (decile > p->last_decile && done < p->total) { /* the last line is progress_end's */
        p->last_decile = decile;
        draw(p, done, false);
    }
}

void progress_end(progress *p, int done)
{
    if (p->out)
        draw(p, done, true);
}
