/* teach/batch.c -- independent positions on worker threads, results in order (batch.h). */
#include "teach/batch.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define ERR_LEN 512

typedef struct slot {
    bool finished, ok;
    char err[ERR_LEN];
} slot;

typedef struct batch {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int n, window, next, delivered;
    bool stop;
    slot *slots;
    teach_batch_job_fn job;
    void *ctx;
} batch;

typedef struct worker {
    batch *b;
    teach_features *f;
    pthread_t thread;
} worker;

static void *worker_main(void *arg)
{
    worker *w = arg;
    batch *b = w->b;
    char err[ERR_LEN];
    pthread_mutex_lock(&b->lock);
    for (;;) {
        while (!b->stop && b->next < b->n && b->next >= b->delivered + b->window)
            pthread_cond_wait(&b->cond, &b->lock);
        if (b->stop || b->next >= b->n)
            break;
        int i = b->next++;
        pthread_mutex_unlock(&b->lock);
        err[0] = 0;
        bool ok = b->job(w->f, i, b->ctx, err, sizeof err);
        pthread_mutex_lock(&b->lock);
        slot *s = &b->slots[i % b->window];
        s->finished = true;
        s->ok = ok;
        snprintf(s->err, sizeof s->err, "%s", err);
        pthread_cond_broadcast(&b->cond);
    }
    pthread_mutex_unlock(&b->lock);
    return NULL;
}

bool teach_batch_run(teach_engine *e, int threads, int policy_symmetries, int n, int window,
                     teach_batch_job_fn job, teach_batch_done_fn done, void *ctx, char *err,
                     int err_len)
{
    if (threads < 1)
        threads = 1;
    if (window < 1)
        window = 1;
    batch b = {.n = n, .window = window, .job = job, .ctx = ctx};
    worker *w = calloc((size_t)threads, sizeof *w);
    b.slots = calloc((size_t)window, sizeof *b.slots);
    if (!w || !b.slots) {
        free(w);
        free(b.slots);
        snprintf(err, (size_t)err_len, "out of memory");
        return false;
    }
    bool ok = true;
    for (int t = 0; ok && t < threads; t++) {
        w[t].b = &b;
        ok = (w[t].f = teach_features_new(e, 1, err, err_len)) != NULL;
        if (ok && !teach_features_set_policy_symmetries(w[t].f, policy_symmetries))
            ok = !snprintf(err, (size_t)err_len, "policy symmetries: 1 or 8, not %d",
                           policy_symmetries);
    }
    pthread_mutex_init(&b.lock, NULL);
    pthread_cond_init(&b.cond, NULL);
    int started = 0;
    for (; ok && started < threads; started++)
        if (pthread_create(&w[started].thread, NULL, worker_main, &w[started]) != 0) {
            if (started == 0)
                ok = !snprintf(err, (size_t)err_len, "cannot start a worker thread");
            break;
        }
    if (ok) {
        pthread_mutex_lock(&b.lock);
        while (b.delivered < n && !b.stop) {
            slot *s = &b.slots[b.delivered % window];
            if (!s->finished) {
                pthread_cond_wait(&b.cond, &b.lock);
                continue;
            }
            slot got = *s;
            s->finished = false;
            pthread_mutex_unlock(&b.lock);
            bool more = done(b.delivered, got.ok, got.err, ctx);
            pthread_mutex_lock(&b.lock);
            b.delivered++;
            b.stop |= !more;
            pthread_cond_broadcast(&b.cond);
        }
        pthread_mutex_unlock(&b.lock);
    }
    for (int t = 0; t < started; t++)
        pthread_join(w[t].thread, NULL);
    pthread_cond_destroy(&b.cond);
    pthread_mutex_destroy(&b.lock);
    for (int t = 0; t < threads; t++)
        teach_features_free(w[t].f);
    free(w);
    free(b.slots);
    return ok;
}
