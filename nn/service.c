/* nn/service.c -- the evaluation service (nn.h): one queue of requests from any number of
 * submitting threads, evaluated in shared batches on the service's contexts.
 *
 * No thread of its own: a submitter whose request is queued and finds a context free becomes
 * the batch's leader (KataGo runs NN server threads; leading on the caller's thread spares a
 * lone search two thread switches per batch, which on a loaded CPU cost more than the batch).
 * The leader gathers: it takes queued requests in arrival order while they fit in max_batch,
 * once the queue holds max_batch positions, or every counted submitter has a request in the
 * service (queued or being evaluated: nobody else can add to this batch), or wait_us has passed.
 * It evaluates them, answers them all, frees the context and wakes the others; a request taken
 * by another leader just waits for its answer.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "nn/nn.h"

#define SERVICE_MAX_CONTEXTS 64
#define SERVICE_MAX_BATCH 4096

typedef struct service_request {
    int n;
    const nn_query *q;
    nn_result *out;
    bool queued, done, ok;
    char err[256];
    struct service_request *next;
} service_request;

/* One context and the leader's working memory with it. */
typedef struct service_slot {
    nn_context *ctx;
    nn_query *q;           /* [max_batch]: the gathered batch */
    nn_result *out;
    service_request **taken;
    bool busy;
} service_slot;

struct nn_service {
    nn_model *model;
    int max_batch, wait_us, num_slots;
    service_slot *slots;
    pthread_mutex_t lock;
    pthread_cond_t change;   /* a request arrived or was answered, a context was freed */
    service_request *head, *tail;
    int queued_positions;
    int in_service;          /* requests queued or being evaluated */
    int clients;             /* counted submitters (nn_service_clients) */
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
static void eval_batch(service_slot *t, int num_taken, int n)
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

/* Leads one batch on slot t (taken, lock held): gathers, evaluates without the lock, answers. */
static void lead(nn_service *s, service_slot *t)
{
    struct timespec until;
    deadline_after_us(&until, s->wait_us);
    while (s->head && s->queued_positions < s->max_batch && s->in_service < s->clients) {
        if (pthread_cond_timedwait(&s->change, &s->lock, &until) == ETIMEDOUT)
            break;
    }
    int num_taken = 0, n = 0;
    while (s->head && n + s->head->n <= s->max_batch) {
        service_request *r = s->head;
        s->head = r->next;
        r->queued = false;
        memcpy(t->q + n, r->q, sizeof *r->q * (size_t)r->n);
        n += r->n;
        t->taken[num_taken++] = r;
    }
    if (!s->head)
        s->tail = NULL;
    if (num_taken > 0) {
        s->queued_positions -= n;
        s->stats.batches++;
        s->stats.positions += n;
        s->stats.full_batches += n == s->max_batch;
        pthread_mutex_unlock(&s->lock);
        eval_batch(t, num_taken, n);
        pthread_mutex_lock(&s->lock);
        for (int i = 0; i < num_taken; i++)
            t->taken[i]->done = true;
        s->in_service -= num_taken;
    }
    t->busy = false;
    pthread_cond_broadcast(&s->change);
}

void nn_service_free(nn_service *s)
{
    if (!s)
        return;
    for (int i = 0; i < s->num_slots; i++) {
        service_slot *t = &s->slots[i];
        nn_context_free(t->ctx);
        free(t->q);
        free(t->out);
        free(t->taken);
    }
    free(s->slots);
    pthread_mutex_destroy(&s->lock);
    pthread_cond_destroy(&s->change);
    free(s);
}

nn_service *nn_service_new(nn_model *m, int max_batch, int contexts, int wait_us, char *err,
                           int err_len)
{
    if (!m || max_batch < 1 || max_batch > SERVICE_MAX_BATCH || contexts < 1 ||
        contexts > SERVICE_MAX_CONTEXTS || wait_us < 0) {
        snprintf(err, (size_t)err_len,
                 "%s: max_batch must be 1..%d, contexts 1..%d, wait_us >= 0 (got %d, %d, %d)",
                 __func__, SERVICE_MAX_BATCH, SERVICE_MAX_CONTEXTS, max_batch, contexts, wait_us);
        return NULL;
    }
    nn_service *s = calloc(1, sizeof *s);
    service_slot *ts = calloc((size_t)contexts, sizeof *ts);
    if (!s || !ts) {
        free(s);
        free(ts);
        snprintf(err, (size_t)err_len, "%s: out of memory", __func__);
        return NULL;
    }
    s->model = m;
    s->max_batch = max_batch;
    s->wait_us = wait_us;
    s->slots = ts;
    s->num_slots = contexts;
    pthread_mutex_init(&s->lock, NULL);
    pthread_cond_init(&s->change, NULL);
    for (int i = 0; i < contexts; i++) {
        service_slot *t = &ts[i];
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
    service_request r = {.n = n, .q = q, .out = out, .queued = true};
    pthread_mutex_lock(&s->lock);
    if (s->tail)
        s->tail->next = &r;
    else
        s->head = &r;
    s->tail = &r;
    s->queued_positions += n;
    s->in_service++;
    pthread_cond_broadcast(&s->change);   /* a gathering leader may go now */
    while (!r.done) {
        service_slot *free_slot = NULL;
        for (int i = 0; r.queued && i < s->num_slots && !free_slot; i++)
            if (!s->slots[i].busy)
                free_slot = &s->slots[i];
        if (free_slot) {
            free_slot->busy = true;
            lead(s, free_slot);
        } else {
            pthread_cond_wait(&s->change, &s->lock);
        }
    }
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
    pthread_cond_broadcast(&s->change);
    pthread_mutex_unlock(&s->lock);
}

void nn_service_get_stats(nn_service *s, nn_service_stats *st)
{
    pthread_mutex_lock(&s->lock);
    *st = s->stats;
    pthread_mutex_unlock(&s->lock);
}
