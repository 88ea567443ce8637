/* teach/throughput.c -- evaluations per second with several workers (throughput.h). Each worker
 * thread owns a context and evaluates whole batches through nn_eval, as a search worker would;
 * all of them share one model. */
#include "teach/throughput.h"

#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "go/clock.h"
#include "go/rules.h"

/* The start line: the workers warm up one at a time, and none times anything before all have
 * warmed up. A GPU worker's warm-up searches its convolution algorithms by timing them, which a
 * concurrent worker disturbs (then a slow algorithm may stay for the whole run), and captures
 * its graphs, which stalls the others. On an H100 two workers of b18c384nbt at batch 256 came to
 * 4,204 evals/s against 14,165 for one with both warming up together; with a common start
 * after concurrent warm-ups, still 3,816 against 14,792. */
typedef struct start_line {
    pthread_mutex_t warm;   /* held by the worker warming up */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int ready;      /* workers past their warm-up */
    int expected;   /* workers started; INT_MAX until the main thread knows */
} start_line;

static void start_line_wait(start_line *s)
{
    pthread_mutex_lock(&s->mu);
    s->ready++;
    pthread_cond_broadcast(&s->cv);
    while (s->ready < s->expected)
        pthread_cond_wait(&s->cv, &s->mu);
    pthread_mutex_unlock(&s->mu);
}

/* One worker: its settings, and what it measured. */
typedef struct worker {
    pthread_t thread;
    start_line *start;
    nn_model *model;
    const go_game *positions;
    const teach_throughput_opts *o;
    long evals, batches;
    double busy;            /* seconds spent inside nn_eval, warm-up excluded */
    double cpu;             /* CPU seconds the worker used meanwhile */
    bool ok;
    char err[512];
} worker;

static double thread_cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void *worker_run(void *arg)
{
    worker *w = arg;
    const teach_throughput_opts *o = w->o;
    int batch = o->batch;
    nn_context *c = nn_context_new(w->model, batch, w->err, sizeof w->err);
    nn_query *q = malloc(sizeof *q * (size_t)batch);
    nn_result *out = malloc(sizeof *out * (size_t)batch);
    w->ok = c != NULL && nn_context_set_threads(c, o->eval_threads > 0 ? o->eval_threads : 1,
                                                w->err, sizeof w->err);
    if (w->ok && (!q || !out)) {
        snprintf(w->err, sizeof w->err, "out of memory");
        w->ok = false;
    }
    for (int i = 0; w->ok && i < batch; i++)
        q[i] = (nn_query){.game = &w->positions[i % TEACH_THROUGHPUT_POSITIONS],
                          .symmetry = i % 8, .policy_optimism = NN_DEFAULT_POLICY_OPTIMISM,
                          .profile = o->profile};
    pthread_mutex_lock(&w->start->warm);
    for (int i = 0; i < 2; i++)
        w->ok = w->ok && nn_eval(c, batch, q, out, w->err, sizeof w->err);
    pthread_mutex_unlock(&w->start->warm);
    start_line_wait(w->start);   /* also after a failure: the others wait for this worker */
    double start = go_now_s(), cpu_start = thread_cpu_seconds();
    while (w->ok && (w->batches == 0 || w->busy < o->seconds)) {
        w->ok = o->forward_only ? nn_forward_again(c, w->err, sizeof w->err)
                                : nn_eval(c, batch, q, out, w->err, sizeof w->err);
        w->batches++;
        w->evals += batch;
        w->busy = go_now_s() - start;
    }
    w->cpu = thread_cpu_seconds() - cpu_start;
    nn_context_free(c);
    free(q);
    free(out);
    return NULL;
}

bool teach_throughput_run(nn_model *m, const go_game pos[TEACH_THROUGHPUT_POSITIONS],
                          const teach_throughput_opts *o, teach_throughput *out, char *err,
                          int err_len)
{
    int threads = o->threads;
    if (threads < 1 || threads > TEACH_THROUGHPUT_MAX_THREADS || o->batch < 1) {
        snprintf(err, (size_t)err_len, "threads must be 1..%d and the batch at least 1",
                 TEACH_THROUGHPUT_MAX_THREADS);
        return false;
    }
    worker *w = calloc((size_t)threads, sizeof *w);
    if (!w) {
        snprintf(err, (size_t)err_len, "out of memory");
        return false;
    }
    start_line line = {.ready = 0, .expected = INT_MAX};
    if (pthread_mutex_init(&line.warm, NULL) != 0 || pthread_mutex_init(&line.mu, NULL) != 0 ||
        pthread_cond_init(&line.cv, NULL) != 0) {
        snprintf(err, (size_t)err_len, "cannot make the workers' start line");
        free(w);
        return false;
    }
    int started = 0;
    for (int t = 0; t < threads; t++) {
        w[t] = (worker){.start = &line, .model = m, .positions = pos, .o = o};
        if (pthread_create(&w[t].thread, NULL, worker_run, &w[t]) != 0)
            break;
        started++;
    }
    pthread_mutex_lock(&line.mu);
    line.expected = started;
    pthread_cond_broadcast(&line.cv);
    pthread_mutex_unlock(&line.mu);
    bool ok = started == threads;
    if (!ok)
        snprintf(err, (size_t)err_len, "cannot start %d threads", threads);
    teach_throughput r = {0};
    double latency = 0, cpu = 0;
    for (int t = 0; t < started; t++) {
        pthread_join(w[t].thread, NULL);
        if (ok && !w[t].ok) {
            snprintf(err, (size_t)err_len, "%s", w[t].err);
            ok = false;
        }
        r.evals += w[t].evals;
        r.batches += w[t].batches;
        latency += w[t].busy;
        cpu += w[t].cpu;
    }
    if (ok) {
        /* every worker ran for about `seconds` after its warm-up: throughput is the sum of the
         * workers' rates, latency the mean time of one nn_eval call */
        for (int t = 0; t < threads; t++)
            r.evals_per_s += (double)w[t].evals / w[t].busy;
        r.ms_per_batch = 1e3 * latency / (double)r.batches;
        r.evals_per_cpu_s = (double)r.evals / cpu;
        *out = r;
    }
    pthread_cond_destroy(&line.cv);
    pthread_mutex_destroy(&line.mu);
    pthread_mutex_destroy(&line.warm);
    free(w);
    return ok;
}

bool teach_throughput_positions(go_game pos[TEACH_THROUGHPUT_POSITIONS])
{
    static const char *moves[] = {"Q16", "D4", "Q3", "D16"};
    go_rules rules;
    go_rules_preset(&rules, "tromp-taylor");
    for (int p = 0; p < TEACH_THROUGHPUT_POSITIONS; p++) {
        if (!go_game_init(&pos[p], 19, &rules, 7.5f)) {
            while (p-- > 0)
                go_game_free(&pos[p]);
            return false;
        }
        for (int m = 0; m < p; m++) {
            go_color c = m % 2 ? GO_WHITE : GO_BLACK;
            go_game_play(&pos[p], go_point_from_gtp(19, moves[m]), c);
        }
    }
    return true;
}
