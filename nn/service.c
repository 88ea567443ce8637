/* nn/service.c -- the evaluation service (nn.h): one queue of requests from any number of
 * submitting threads, served by threads that each own a context and evaluate what is queued as
 * one batch.
 *
 * A request is a submitter's whole mini-batch (a search thread's leaves) and waits on the
 * service's condition variable until a service thread has filled its results. The gathering
 * rule: a service thread takes queued requests in arrival order while they fit in max_batch,
 * once the queue holds max_batch positions, or every counted submitter has a request in the
 * service (queued or being evaluated: nobody else can add to this batch), or wait_us has
 * passed since it began gathering.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "nn/nn.h"

#define SERVICE_MAX_THREADS 64
#define SERVICE_MAX_BATCH 4096

typedef struct service_request {
    int n;
    const nn_query *q;
    nn_result *out;
    bool done, ok;
    char err[256];
    struct service_request *next;
} service_request;

typedef struct service_thread {
    nn_service *s;
    pthread_t thread;
    nn_context *ctx;
    nn_query *q;           /* [max_batch]: the gathered batch */
    nn_result *out;
    service_request **taken;
    bool started;
} service_thread;

struct nn_service {
    nn_model *model;
    int max_batch, wait_us, num_threads;
    service_thread *threads;
    pthread_mutex_t lock;
    pthread_cond_t work;   /* a request arrived, or stop */
    pthread_cond_t done;   /* some request was answered */
    service_request *head, *tail;
    int queued_positions;
    int in_service;        /* requests queued or being evaluated */
    int clients;           /* counted submitters (nn_service_clients) */
    bool stop;
    nn_service_stats stats;
};

static void deadline_after_us(struct timespec *ts, int us)
{
    clock_gettime(CLOCK_REALTIME, ts);
    ts->tv_nsec += (long)us * 1000L;
    ts->tv_sec += ts->tv_nsec / 1000000000L;
    ts->tv_nsec %= 1000000000L;
}

/* Evaluates the taken requests; a failed batch is retried request by request so that only the
 * requests with a bad query get the error. */
static void serve_batch(service_thread *t, int num_taken, int n)
{
    char err[256] = "";
    bool ok = nn_eval(t->ctx, n, t->q, t->out, err, sizeof err);
    int at = 0;
    for (int i = 0; i < num_taken; i++) {
        service_request *r = t->taken[i];
        if (ok) {
            memcpy(r->out, t->out + at, sizeof *r->out * (size_t)r->n);
            r->ok = true;
        } else if (num_taken == 1) {
            r->ok = false;
            snprintf(r->err, sizeof r->err, "%s", err);
        } else {
            r->ok = nn_eval(t->ctx, r->n, r->q, r->out, r->err, sizeof r->err);
        }
        at += r->n;
    }
}

static void *service_main(void *arg)
{
    service_thread *t = arg;
    nn_service *s = t->s;
    pthread_mutex_lock(&s->lock);
    for (;;) {
        while (!s->stop && !s->head)
            pthread_cond_wait(&s->work, &s->lock);
        if (!s->head)
            break;   /* stopping with nothing queued */
        struct timespec until;
        deadline_after_us(&until, s->wait_us);
        while (!s->stop && s->head && s->queued_positions < s->max_batch &&
               s->in_service < s->clients) {
            if (pthread_cond_timedwait(&s->work, &s->lock, &until) == ETIMEDOUT)
                break;
        }
        if (!s->head)
            continue;   /* another service thread took them */
        int num_taken = 0, n = 0;
        while (s->head && n + s->head->n <= s->max_batch) {
            service_request *r = s->head;
            s->head = r->next;
            memcpy(t->q + n, r->q, sizeof *r->q * (size_t)r->n);
            n += r->n;
            t->taken[num_taken++] = r;
        }
        if (!s->head)
            s->tail = NULL;
        s->queued_positions -= n;
        s->stats.batches++;
        s->stats.positions += n;
        s->stats.full_batches += n == s->max_batch;
        pthread_mutex_unlock(&s->lock);
        serve_batch(t, num_taken, n);
        pthread_mutex_lock(&s->lock);
        for (int i = 0; i < num_taken; i++)
            t->taken[i]->done = true;
        s->in_service -= num_taken;
        pthread_cond_broadcast(&s->done);
        /* a submitter waiting for the others may now be the last one busy */
        pthread_cond_broadcast(&s->work);
    }
    pthread_mutex_unlock(&s->lock);
    return NULL;
}

void nn_service_free(nn_service *s)
{
    if (!s)
        return;
    pthread_mutex_lock(&s->lock);
    s->stop = true;
    pthread_cond_broadcast(&s->work);
    pthread_mutex_unlock(&s->lock);
    for (int i = 0; i < s->num_threads; i++) {
        service_thread *t = &s->threads[i];
        if (t->started)
            pthread_join(t->thread, NULL);
        nn_context_free(t->ctx);
        free(t->q);
        free(t->out);
        free(t->taken);
    }
    free(s->threads);
    pthread_mutex_destroy(&s->lock);
    pthread_cond_destroy(&s->work);
    pthread_cond_destroy(&s->done);
    free(s);
}

nn_service *nn_service_new(nn_model *m, int max_batch, int threads, int wait_us, char *err,
                           int err_len)
{
    if (!m || max_batch < 1 || max_batch > SERVICE_MAX_BATCH || threads < 1 ||
        threads > SERVICE_MAX_THREADS || wait_us < 0) {
        snprintf(err, (size_t)err_len,
                 "%s: max_batch must be 1..%d, threads 1..%d, wait_us >= 0 (got %d, %d, %d)",
                 __func__, SERVICE_MAX_BATCH, SERVICE_MAX_THREADS, max_batch, threads, wait_us);
        return NULL;
    }
    nn_service *s = calloc(1, sizeof *s);
    service_thread *ts = calloc((size_t)threads, sizeof *ts);
    if (!s || !ts) {
        free(s);
        free(ts);
        snprintf(err, (size_t)err_len, "%s: out of memory", __func__);
        return NULL;
    }
    s->model = m;
    s->max_batch = max_batch;
    s->wait_us = wait_us;
    s->threads = ts;
    s->num_threads = threads;
    pthread_mutex_init(&s->lock, NULL);
    pthread_cond_init(&s->work, NULL);
    pthread_cond_init(&s->done, NULL);
    for (int i = 0; i < threads; i++) {
        service_thread *t = &ts[i];
        t->s = s;
        t->q = calloc((size_t)max_batch, sizeof *t->q);
        t->out = malloc(sizeof *t->out * (size_t)max_batch);
        t->taken = calloc((size_t)max_batch, sizeof *t->taken);
        if (!t->q || !t->out || !t->taken) {
            snprintf(err, (size_t)err_len, "%s: out of memory", __func__);
            nn_service_free(s);
            return NULL;
        }
        if (!(t->ctx = nn_context_new(m, max_batch, err, err_len))) {
            nn_service_free(s);
            return NULL;
        }
    }
    for (int i = 0; i < threads; i++) {
        if (pthread_create(&ts[i].thread, NULL, service_main, &ts[i]) != 0) {
            snprintf(err, (size_t)err_len, "%s: cannot start service thread %d", __func__, i);
            nn_service_free(s);
            return NULL;
        }
        ts[i].started = true;
    }
    return s;
}

nn_model *nn_service_model(const nn_service *s) { return s->model; }

int nn_service_max_batch(const nn_service *s) { return s->max_batch; }

bool nn_service_eval(nn_service *s, int n, const nn_query *q, nn_result *out, char *err,
                     int err_len)
{
    if (n < 1 || n > s->max_batch) {
        snprintf(err, (size_t)err_len, "%s: %d positions, the service takes 1..%d", __func__, n,
                 s->max_batch);
        return false;
    }
    service_request r = {.n = n, .q = q, .out = out};
    pthread_mutex_lock(&s->lock);
    if (s->tail)
        s->tail->next = &r;
    else
        s->head = &r;
    s->tail = &r;
    s->queued_positions += n;
    s->in_service++;
    pthread_cond_broadcast(&s->work);   /* an idle thread starts, a gathering one may go */
    while (!r.done)
        pthread_cond_wait(&s->done, &s->lock);
    pthread_mutex_unlock(&s->lock);
    if (!r.ok)
        snprintf(err, (size_t)err_len, "%s", r.err);
    return r.ok;
}

void nn_service_clients(nn_service *s, int delta)
{
    pthread_mutex_lock(&s->lock);
    s->clients += delta;
    if (s->clients < 0)
        s->clients = 0;
    pthread_cond_broadcast(&s->work);
    pthread_mutex_unlock(&s->lock);
}

void nn_service_get_stats(nn_service *s, nn_service_stats *st)
{
    pthread_mutex_lock(&s->lock);
    *st = s->stats;
    pthread_mutex_unlock(&s->lock);
}
