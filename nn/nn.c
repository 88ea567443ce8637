/* nn/nn.c -- the evaluator of nn.h: models bound to a backend, contexts, batched evaluation. */
#include "nn/nn.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nn/backend.h"
#include "weights/desc_disc.h"
#include "weights/desc_kata.h"
#include "weights/desc_lz.h"
#include "nn/disc_inputs.h"
#include "nn/kata_inputs.h"
#include "nn/lz_inputs.h"
#include "nn/ref/kata_forward.h"
#include "nn/ref/lz_forward.h"
#include "weights/weights.h"
#ifdef SHIDO_HAVE_CUDA
#include "nn/cuda/cuda_device.h"
#endif

struct nn_model {
    nn_desc *desc;
    const nn_backend_ops *backend;
    void *weights;   /* the backend's prepared weights */
};

/* The helper threads of a context (nn_context_set_threads): they share the CPU work of a batch
 * (input features before the forward, output conversion after it) with the calling thread,
 * each taking a contiguous run of the slots, with scratch of its own. */
typedef struct nn_pool nn_pool;
static void pool_free(nn_pool *P);

/* Per position slot of a batch: input planes and raw outputs sized for a 19x19 tensor. */
struct nn_context {
    nn_model *model;
    int max_batch;
    void *backend_ctx;
    size_t spatial_len, global_len, policy_len, pass_len, score_len;  /* floats per position */
    float *spatial, *global, *policy, *pass, *value, *score, *ownership;
    float *meta;               /* [max_batch][NN_KATA_META_INPUTS] with a metadata encoder */
    const nn_kata_profile *profile;   /* for queries without one */
    int *slot_query;           /* [max_batch]: the query in each slot of the current forward */
    nn_kata_inputs *inputs;    /* working memory of the KataGo input features */
    nn_kata_output *kata;      /* one position's KataGo output while it is converted */
    nn_pool *pool;             /* nn_context_set_threads's helpers, or NULL */
    int last_n, last_width, last_height;   /* the last forward's batch (nn_forward_again), 0
                                              before one */
};

static const nn_backend_ops *const backends[] = {
#ifdef SHIDO_HAVE_CUDA
    &nn_cuda_backend,
#endif
    &nn_cpu_backend, &nn_ref_backend, NULL};
static const char *const backend_names[] = {
#ifdef SHIDO_HAVE_CUDA
    "cuda",
#endif
    "cpu", "ref", NULL};

const char *const *nn_backend_names(void) { return backend_names; }

int nn_backend_devices(const char *backend)
{
    size_t len = strcspn(backend, ":");
#ifdef SHIDO_HAVE_CUDA
    if (len == 4 && !strncmp(backend, "cuda", 4))
        return nn_cuda_device_count();
#endif
    for (int i = 0; backend_names[i]; i++)
        if (strlen(backend_names[i]) == len && !strncmp(backend, backend_names[i], len))
            return 1;
    return 0;
}

const nn_backend_ops *nn_backend_find(const char *name)
{
    for (int i = 0; backends[i]; i++)
        if (!strcmp(backends[i]->name, name))
            return backends[i];
    return NULL;
}

/* Loads d for backends[first], or for the next available one when that one cannot run on this
 * machine (saying so on stderr); with any_after, also when the load itself fails. */
static void *model_load_from(nn_model *m, int first, bool any_after, const char *options,
                             char *err, int err_len)
{
    for (int i = first; backends[i]; i++) {
        const nn_backend_ops *b = backends[i];
        char why[256] = "";
        if (b->available && !b->available(why, sizeof why)) {
            if (i == first && !any_after)
                fprintf(stderr, "nn: backend %s is not available here (%s); falling back\n",
                        b->name, why);
            snprintf(err, (size_t)err_len, "%s: backend %s: %s", m->desc->source, b->name, why);
            continue;
        }
        m->backend = b;
        void *w = b->load(m->desc, i == first ? options : NULL, err, err_len);
        if (w || !any_after)
            return w;
        if (backends[i + 1])   /* e.g. cuda without kernels for this net's layers */
            fprintf(stderr, "nn: %s; trying backend %s\n", err, backends[i + 1]->name);
    }
    return NULL;
}

nn_model *nn_model_from_desc(nn_desc *d, const char *backend, char *err, int err_len)
{
    nn_model *m = calloc(1, sizeof *m);
    if (!m) {
        snprintf(err, (size_t)err_len, "%s: out of memory", d->source);
        nn_desc_free(d);
        return NULL;
    }
    m->desc = d;
    if (backend) {
        /* "name" or "name:options" */
        const char *colon = strchr(backend, ':');
        size_t name_len = colon ? (size_t)(colon - backend) : strlen(backend);
        int first = -1;
        for (int i = 0; backends[i] && first < 0; i++)
            if (strlen(backends[i]->name) == name_len &&
                !strncmp(backends[i]->name, backend, name_len))
                first = i;
        if (first < 0) {
            int len = snprintf(err, (size_t)err_len, "%s: unknown backend \"%s\" (this build has:",
                               d->source, backend);
            for (int i = 0; backend_names[i] && len > 0 && len < err_len; i++)
                len += snprintf(err + len, (size_t)(err_len - len), " %s", backend_names[i]);
            if (len > 0 && len < err_len)
                snprintf(err + len, (size_t)(err_len - len), ")");
        } else {
            m->weights = model_load_from(m, first, false, colon ? colon + 1 : NULL, err, err_len);
        }
    } else {
        m->weights = model_load_from(m, 0, true, NULL, err, err_len);
    }
    if (!m->weights) {
        nn_desc_free(d);
        free(m);
        return NULL;
    }
    return m;
}

nn_model *nn_model_load(const char *path, const char *backend, char *err, int err_len)
{
    nn_desc *d = weights_load(path, err, err_len);
    return d ? nn_model_from_desc(d, backend, err, err_len) : NULL;
}

void nn_model_free(nn_model *m)
{
    if (!m)
        return;
    m->backend->free(m->weights);
    nn_desc_free(m->desc);
    free(m);
}

const nn_desc *nn_model_desc(const nn_model *m) { return m->desc; }
const char *nn_model_backend(const nn_model *m) { return m->backend->name; }
nn_family nn_model_family(const nn_model *m) { return m->desc->family; }

void nn_context_free(nn_context *c)
{
    if (!c)
        return;
    pool_free(c->pool);
    if (c->backend_ctx)
        c->model->backend->context_free(c->backend_ctx);
    free(c->spatial);
    free(c->global);
    free(c->policy);
    free(c->pass);
    free(c->value);
    free(c->score);
    free(c->ownership);
    free(c->meta);
    free(c->slot_query);
    free(c->inputs);
    free(c->kata);
    free(c);
}

nn_context *nn_context_new(nn_model *m, int max_batch, char *err, int err_len)
{
    if (max_batch < 1 || max_batch > 4096) {
        snprintf(err, (size_t)err_len, "nn_context_new: batch size %d out of range 1..4096",
                 max_batch);
        return NULL;
    }
    nn_context *c = calloc(1, sizeof *c);
    if (!c) {
        snprintf(err, (size_t)err_len, "nn_context_new: out of memory");
        return NULL;
    }
    c->model = m;
    c->max_batch = max_batch;
    const nn_desc *d = m->desc;
    if (d->family == NN_FAMILY_KATA) {
        const nn_kata_desc *k = d->kata;
        c->spatial_len = (size_t)k->num_spatial * NN_MAX_POINTS;
        c->global_len = (size_t)k->num_global;
        c->policy_len = (size_t)k->policy.out_channels * NN_MAX_POINTS;
        c->pass_len = (size_t)k->policy.out_channels;
        c->score_len = (size_t)k->score_channels;
    } else if (d->family == NN_FAMILY_DISC) {
        c->spatial_len = (size_t)d->disc->planes * NN_MAX_POINTS;
        c->policy_len = 1;
    } else {
        c->spatial_len = (size_t)NN_LZ_INPUT_PLANES * NN_LZ_POINTS;
        c->policy_len = NN_LZ_POLICY_OUTPUTS;
    }
    size_t b = (size_t)max_batch;
    /* +1 keeps every calloc non-empty (LZ nets have no global, pass or score outputs) */
    c->spatial = calloc(b * c->spatial_len, sizeof *c->spatial);
    c->global = calloc(b * c->global_len + 1, sizeof *c->global);
    c->policy = calloc(b * c->policy_len, sizeof *c->policy);
    c->pass = calloc(b * c->pass_len + 1, sizeof *c->pass);
    c->value = calloc(b * 3, sizeof *c->value);
    c->score = calloc(b * c->score_len + 1, sizeof *c->score);
    c->ownership = calloc(b * NN_MAX_POINTS, sizeof *c->ownership);
    c->slot_query = calloc(b, sizeof *c->slot_query);
    bool meta = d->family == NN_FAMILY_KATA && d->kata->meta_encoder_version > 0;
    c->meta = meta ? calloc(b * NN_KATA_META_INPUTS, sizeof *c->meta) : NULL;
    c->inputs = d->family == NN_FAMILY_KATA ? malloc(sizeof *c->inputs) : NULL;
    c->kata = d->family == NN_FAMILY_KATA ? malloc(sizeof *c->kata) : NULL;
    if (!c->spatial || !c->global || !c->policy || !c->pass || !c->value || !c->score ||
        !c->ownership || !c->slot_query || (meta && !c->meta) ||
        (d->family == NN_FAMILY_KATA && (!c->inputs || !c->kata))) {
        snprintf(err, (size_t)err_len, "nn_context_new: out of memory");
        nn_context_free(c);
        return NULL;
    }
    c->backend_ctx = m->backend->context_new(d, m->weights, max_batch, err, err_len);
    if (!c->backend_ctx) {
        nn_context_free(c);
        return NULL;
    }
    return c;
}

void nn_context_set_profile(nn_context *c, const nn_kata_profile *p) { c->profile = p; }

/* KataGo's handicap inputs (nninputs.cpp, inputs version 7): global 15 says a playout doubling
 * advantage is in play, global 16 holds half of it, from the mover's view. */
static bool set_pda(nn_context *c, const nn_desc *d, int s, const nn_query *q, char *err,
                    int err_len)
{
    if (q->pda == 0 || d->kata->inputs_version < 7)
        return true;
    if (!isfinite(q->pda)) {
        snprintf(err, (size_t)err_len, "%s: eval: the playout doubling advantage is not finite",
                 d->source);
        return false;
    }
    float *global = c->global + (size_t)s * c->global_len;
    global[15] = 1.0f;
    global[16] = (float)(0.5 * q->pda);
    return true;
}

/* The metadata features of query q into slot s, for a net with a metadata encoder; false with a
 * message when the query has no profile (KataGo: "SGFMetadata is required") or a broken one. */
static bool fill_meta(nn_context *c, int s, const nn_query *q, char *err, int err_len)
{
    const nn_kata_profile *p = q->profile ? q->profile : c->profile;
    const char *source = c->model->desc->source;
    if (!p) {
        snprintf(err, (size_t)err_len,
                 "%s: eval: a human SL net (metadata encoder) needs a profile such as rank_5k, "
                 "as KataGo needs humanSLProfile", source);
        return false;
    }
    if (p->source < 0 || p->source > 15 || (int)p->time_control < NN_KATA_TC_UNKNOWN ||
        (int)p->time_control > NN_KATA_TC_FISCHER || p->month < 1 || p->month > 12) {
        snprintf(err, (size_t)err_len, "%s: eval: bad profile (source %d, time control %d, "
                 "month %d)", source, p->source, (int)p->time_control, p->month);
        return false;
    }
    const go_board *b = &q->game->board;
    nn_kata_profile_features(p, b->to_move, b->width * b->height,
                             c->meta + (size_t)s * NN_KATA_META_INPUTS);
    return true;
}

static void kata_result(const nn_kata_output *k, nn_result *r)
{
    int area = k->width * k->height;
    r->size = k->size;
    r->width = k->width;
    r->height = k->height;
    r->family = NN_FAMILY_KATA;
    r->has_score = true;
    r->has_ownership = true;
    r->white_win = k->white_win;
    r->white_loss = k->white_loss;
    r->no_result = k->no_result;
    r->white_lead = k->white_lead;
    r->white_score_selfplay = k->white_score_selfplay;
    r->white_score_selfplay_sq = k->white_score_selfplay_sq;
    double var = k->white_score_selfplay_sq - k->white_score_selfplay * k->white_score_selfplay;
    r->white_score_stdev = var > 0 ? sqrt(var) : 0.0;
    r->var_time_left = k->var_time_left;
    r->shortterm_winloss_error = k->shortterm_winloss_error;
    r->shortterm_score_error = k->shortterm_score_error;
    memcpy(r->policy, k->policy, (size_t)area * sizeof *r->policy);
    r->policy[area] = k->policy_pass;
    memcpy(r->white_ownership, k->white_ownership, (size_t)area * sizeof *r->white_ownership);
}

static void lz_result(const nn_desc *d, const go_game *g, int symmetry, const float *logits,
                      float value, nn_result *r)
{
    float net_policy[NN_LZ_POLICY_OUTPUTS], head_winrate;
    nn_lz_postprocess(logits, value, net_policy, &head_winrate);
    nn_lz_policy_to_board(symmetry, net_policy, r->policy);
    float winrate = nn_lz_winrate_to_move(d->lz, g->board.to_move, head_winrate);
    r->size = r->width = r->height = NN_LZ_BOARD_SIZE;
    r->family = NN_FAMILY_LZ;
    r->has_score = r->has_ownership = false;
    r->white_win = g->board.to_move == GO_WHITE ? winrate : 1.0 - winrate;
    r->white_loss = 1.0 - r->white_win;
    r->no_result = 0;
    r->white_lead = r->white_score_selfplay = r->white_score_selfplay_sq = 0;
    r->white_score_stdev = 0;
    r->var_time_left = r->shortterm_winloss_error = r->shortterm_score_error = -1;
    memset(r->white_ownership, 0, sizeof r->white_ownership);
}

/* The tensor a query is evaluated on, width x height: its board's in the net's orientation (a
 * KataGo net's transposing symmetry swaps the sides), or a discriminator's window. */
static void forward_shape(const nn_desc *d, const nn_query *q, int *width, int *height)
{
    const go_board *b = &q->game->board;
    if (d->family == NN_FAMILY_DISC)
        *width = *height = d->disc->size;
    else if (d->family == NN_FAMILY_KATA)
        nn_kata_tensor_dims(q->symmetry, b->width, b->height, width, height);
    else
        *width = *height = NN_LZ_BOARD_SIZE;
}

/* Writes the inputs of query q into slot s of a batch of its tensor shape; false with a message
 * on a query the net cannot take. */
static bool fill_slot(nn_context *c, int s, const nn_query *q, nn_kata_inputs *inputs, char *err,
                      int err_len)
{
    const nn_desc *d = c->model->desc;
    const go_board *b = &q->game->board;
    /* packed for this tensor shape, as backend.h lays batches out */
    int tw, th;
    forward_shape(d, q, &tw, &th);
    size_t area = (size_t)tw * th;
    float *spatial = c->spatial + (size_t)s * (c->spatial_len / NN_MAX_POINTS) * area;
    if (d->family == NN_FAMILY_DISC) {
        int w = d->disc->size;
        if (!go_board_square(b)) {
            snprintf(err, (size_t)err_len, "%s: eval: tsumego discriminator nets take square "
                     "boards only (got %dx%d)", d->source, b->width, b->height);
            return false;
        }
        if (!nn_disc_inputs(&q->game->board, q->window_x, q->window_y, w, q->symmetry,
                            spatial)) {
            snprintf(err, (size_t)err_len, "%s: eval: the discriminator's %dx%d window at (%d, %d) "
                     "with symmetry %d does not fit a %dx%d board", d->source, w, w, q->window_x,
                     q->window_y, q->symmetry, b->width, b->height);
            return false;
        }
        return true;
    }
    if (d->family == NN_FAMILY_KATA)
        return nn_kata_eval_inputs(d, q->game, q->symmetry, q->policy_optimism, inputs,
                                   spatial, c->global + (size_t)s * c->global_len, err,
                                   err_len) &&
               set_pda(c, d, s, q, err, err_len) && (!c->meta || fill_meta(c, s, q, err, err_len));
    if (b->width != NN_LZ_BOARD_SIZE || b->height != NN_LZ_BOARD_SIZE || q->symmetry < 0 ||
        q->symmetry >= NN_LZ_SYMMETRIES || !nn_lz_inputs(q->game, q->symmetry, spatial)) {
        snprintf(err, (size_t)err_len,
                 "%s: eval: Leela Zero networks take 19x19 boards and symmetries 0..7 (got %dx%d, "
                 "symmetry %d)", d->source, b->width, b->height, q->symmetry);
        return false;
    }
    return true;
}

/* Converts slot s of the last forward (a tensor of `area` points) into out[slot_query[s]], with
 * kata as scratch for KataGo nets. */
static void post_slot(nn_context *c, int s, int area, const nn_query *q, nn_result *out,
                      nn_kata_output *kata)
{
    const nn_desc *d = c->model->desc;
    const nn_query *qs = &q[c->slot_query[s]];
    nn_result *r = &out[c->slot_query[s]];
    if (d->family == NN_FAMILY_LZ) {
        lz_result(d, qs->game, qs->symmetry, c->policy + (size_t)s * NN_LZ_POLICY_OUTPUTS,
                  c->value[s], r);
        return;
    }
    if (d->family == NN_FAMILY_DISC) {
        memset(r, 0, sizeof *r);
        r->size = r->width = r->height = d->disc->size;
        r->family = NN_FAMILY_DISC;
        r->var_time_left = r->shortterm_winloss_error = r->shortterm_score_error = -1;
        double z = c->value[s];
        r->likeness = z >= 0 ? 1.0 / (1.0 + exp(-z)) : exp(z) / (1.0 + exp(z));
        return;
    }
    /* the backend packs each position's outputs for this tensor shape back to back */
    const nn_kata_desc *k = d->kata;
    size_t oc = (size_t)k->policy.out_channels, sa = (size_t)s * area;
    nn_kata_raw raw = {.policy = c->policy + sa * oc, .pass = c->pass + s * oc,
                       .value = c->value + (size_t)s * 3,
                       .score = c->score + (size_t)s * c->score_len,
                       .ownership = c->ownership + sa};
    nn_kata_post_outputs(k, qs->game, qs->symmetry, qs->policy_optimism, &raw, kata);
    kata_result(kata, r);
}

/* Runs the slots 0..n-1 (all on a width x height tensor) through the backend. */
static bool forward_slots(nn_context *c, int n, int width, int height, char *err, int err_len)
{
    nn_backend_batch b = {.n = n, .width = width, .height = height, .spatial = c->spatial,
                          .global = c->global,
                          .meta = c->meta, .policy = c->policy, .pass = c->pass,
                          .value = c->value,
                          .score = c->score, .ownership = c->ownership};
    if (!c->model->backend->forward(c->backend_ctx, &b, err, err_len))
        return false;
    c->last_n = n;
    c->last_width = width;
    c->last_height = height;
    return true;
}

/* ---- the helpers of nn_context_set_threads ------------------------------------------------- */

#define NN_MAX_THREADS 64

typedef enum { JOB_FILL, JOB_POST } nn_job_kind;

/* One thread's share of a job and its scratch; [0] is the calling thread's. */
typedef struct nn_helper {
    nn_kata_inputs *inputs;
    nn_kata_output *kata;
    bool ok;
    char err[512];
} nn_helper;

typedef struct nn_worker_arg {
    nn_pool *pool;
    int index;
} nn_worker_arg;

struct nn_pool {
    int workers;              /* the calling thread included */
    pthread_t *threads;       /* [workers - 1] */
    nn_worker_arg *args;
    nn_helper *h;             /* [workers] */
    pthread_mutex_t mu;
    pthread_cond_t start, finished;
    unsigned gen;             /* bumped for each job */
    int running;              /* helper threads still on the job of gen */
    bool quit;
    /* the job */
    nn_context *c;
    nn_job_kind kind;
    int n, area;
    const nn_query *q;
    nn_result *out;
};

/* The job on slots from .. to-1 with one thread's scratch; false with a message on a query that
 * cannot be filled. */
static bool run_slots(nn_context *c, nn_job_kind kind, int from, int to, int area,
                      const nn_query *q, nn_result *out, nn_kata_inputs *inputs,
                      nn_kata_output *kata, char *err, int err_len)
{
    for (int s = from; s < to; s++) {
        if (kind == JOB_POST)
            post_slot(c, s, area, q, out, kata);
        else if (!fill_slot(c, s, &q[c->slot_query[s]], inputs, err, err_len))
            return false;
    }
    return true;
}

/* Worker w's run of the job's slots. */
static void run_share(nn_pool *P, int w)
{
    nn_helper *h = &P->h[w];
    int from = (int)((long)P->n * w / P->workers), to = (int)((long)P->n * (w + 1) / P->workers);
    h->ok = run_slots(P->c, P->kind, from, to, P->area, P->q, P->out, h->inputs, h->kata, h->err,
                      (int)sizeof h->err);
}

static void *worker_main(void *arg)
{
    nn_worker_arg *a = arg;
    nn_pool *P = a->pool;
    unsigned seen = 0;
    for (;;) {
        pthread_mutex_lock(&P->mu);
        while (P->gen == seen && !P->quit)
            pthread_cond_wait(&P->start, &P->mu);
        if (P->quit) {
            pthread_mutex_unlock(&P->mu);
            return NULL;
        }
        seen = P->gen;
        pthread_mutex_unlock(&P->mu);
        run_share(P, a->index);
        pthread_mutex_lock(&P->mu);
        if (--P->running == 0)
            pthread_cond_signal(&P->finished);
        pthread_mutex_unlock(&P->mu);
    }
}

static void pool_free(nn_pool *P)
{
    if (!P)
        return;
    pthread_mutex_lock(&P->mu);
    P->quit = true;
    pthread_cond_broadcast(&P->start);
    pthread_mutex_unlock(&P->mu);
    for (int i = 0; i < P->workers - 1; i++)
        pthread_join(P->threads[i], NULL);
    for (int i = 1; i < P->workers; i++) {
        free(P->h[i].inputs);
        free(P->h[i].kata);
    }
    pthread_mutex_destroy(&P->mu);
    pthread_cond_destroy(&P->start);
    pthread_cond_destroy(&P->finished);
    free(P->threads);
    free(P->args);
    free(P->h);
    free(P);
}

/* A pool of `workers` threads for c (the calling one and workers - 1 helpers), or NULL with a
 * message. */
static nn_pool *pool_new(nn_context *c, int workers, char *err, int err_len)
{
    nn_pool *P = calloc(1, sizeof *P);
    bool kata = c->model->desc->family == NN_FAMILY_KATA;
    bool ok = P && (P->h = calloc((size_t)workers, sizeof *P->h)) &&
              (P->threads = calloc((size_t)workers, sizeof *P->threads)) &&
              (P->args = calloc((size_t)workers, sizeof *P->args));
    if (P) {
        P->workers = 1;   /* threads started so far, the caller's included */
        pthread_mutex_init(&P->mu, NULL);
        pthread_cond_init(&P->start, NULL);
        pthread_cond_init(&P->finished, NULL);
        P->c = c;
    }
    if (ok) {
        P->h[0].inputs = c->inputs;
        P->h[0].kata = c->kata;
    }
    for (int i = 1; ok && i < workers; i++) {
        if (kata) {
            P->h[i].inputs = malloc(sizeof *P->h[i].inputs);
            P->h[i].kata = malloc(sizeof *P->h[i].kata);
            ok = P->h[i].inputs && P->h[i].kata;
            if (!ok) {
                free(P->h[i].inputs);
                free(P->h[i].kata);
                break;
            }
        }
        P->args[i - 1] = (nn_worker_arg){P, i};
        if (pthread_create(&P->threads[i - 1], NULL, worker_main, &P->args[i - 1]) != 0) {
            free(P->h[i].inputs);
            free(P->h[i].kata);
            snprintf(err, (size_t)err_len, "nn_context_set_threads: cannot start a thread");
            pool_free(P);
            return NULL;
        }
        P->workers = i + 1;
    }
    if (!ok) {
        snprintf(err, (size_t)err_len, "nn_context_set_threads: out of memory");
        pool_free(P);
        return NULL;
    }
    return P;
}

/* Runs a job over slots 0..n-1: on the pool's threads when there is one and the batch is big
 * enough to share, else on the calling thread. False with the first failing share's message. */
static bool run_job(nn_context *c, nn_job_kind kind, int n, int area, const nn_query *q,
                    nn_result *out, char *err, int err_len)
{
    nn_pool *P = c->pool;
    if (!P || n < 2 * P->workers)
        return run_slots(c, kind, 0, n, area, q, out, c->inputs, c->kata, err, err_len);
    pthread_mutex_lock(&P->mu);
    P->kind = kind;
    P->n = n;
    P->area = area;
    P->q = q;
    P->out = out;
    P->running = P->workers - 1;
    P->gen++;
    pthread_cond_broadcast(&P->start);
    pthread_mutex_unlock(&P->mu);
    run_share(P, 0);
    pthread_mutex_lock(&P->mu);
    while (P->running > 0)
        pthread_cond_wait(&P->finished, &P->mu);
    pthread_mutex_unlock(&P->mu);
    for (int w = 0; w < P->workers; w++)
        if (!P->h[w].ok) {
            snprintf(err, (size_t)err_len, "%s", P->h[w].err);
            return false;
        }
    return true;
}

bool nn_context_set_threads(nn_context *c, int threads, char *err, int err_len)
{
    if (threads < 1 || threads > NN_MAX_THREADS) {
        snprintf(err, (size_t)err_len, "nn_context_set_threads: %d threads (1..%d)", threads,
                 NN_MAX_THREADS);
        return false;
    }
    pool_free(c->pool);
    c->pool = NULL;
    if (threads == 1)
        return true;
    c->pool = pool_new(c, threads, err, err_len);
    return c->pool != NULL;
}

bool nn_eval(nn_context *c, int n, const nn_query *q, nn_result *out, char *err, int err_len)
{
    if (n < 1 || n > c->max_batch) {
        snprintf(err, (size_t)err_len, "nn_eval: batch of %d positions, context takes 1..%d", n,
                 c->max_batch);
        return false;
    }
    /* One forward per tensor shape present, in order of first appearance; done marks queries
     * already evaluated. */
    bool done[4096] = {false};
    const nn_desc *d = c->model->desc;
    for (int first = 0; first < n; first++) {
        if (done[first])
            continue;
        int width, height, slots = 0;
        forward_shape(d, &q[first], &width, &height);
        for (int i = first; i < n; i++) {
            int w, h;
            forward_shape(d, &q[i], &w, &h);
            if (done[i] || w != width || h != height)
                continue;
            c->slot_query[slots++] = i;
            done[i] = true;
        }
        int area = width * height;
        if (!run_job(c, JOB_FILL, slots, area, q, out, err, err_len) ||
            !forward_slots(c, slots, width, height, err, err_len) ||
            !run_job(c, JOB_POST, slots, area, q, out, err, err_len))
            return false;
    }
    return true;
}

bool nn_forward_again(nn_context *c, char *err, int err_len)
{
    if (c->last_n < 1) {
        snprintf(err, (size_t)err_len, "nn_forward_again: no batch evaluated yet");
        return false;
    }
    nn_backend_batch b = {.n = c->last_n, .width = c->last_width, .height = c->last_height,
                          .spatial = c->spatial, .global = c->global, .meta = c->meta,
                          .policy = c->policy, .pass = c->pass, .value = c->value, .score = c->score,
                          .ownership = c->ownership};
    return c->model->backend->forward(c->backend_ctx, &b, err, err_len);
}

bool nn_eval_average(nn_context *c, const go_game *g, unsigned sym_mask, double policy_optimism,
                     nn_result *out, char *err, int err_len)
{
    nn_query q[8];
    int n = 0;
    for (int s = 0; s < 8; s++)
        if (sym_mask & (1u << s))
            q[n++] = (nn_query){.game = g, .symmetry = s, .policy_optimism = policy_optimism};
    if (n == 0) {
        snprintf(err, (size_t)err_len, "nn_eval_average: no symmetry chosen");
        return false;
    }
    nn_result *r = malloc((size_t)n * sizeof *r);
    if (!r) {
        snprintf(err, (size_t)err_len, "nn_eval_average: out of memory");
        return false;
    }
    bool ok = nn_eval(c, n, q, r, err, err_len);
    if (ok) {
        *out = r[0];
        int moves = out->width * out->height + 1;
        for (int i = 1; i < n; i++) {
            out->white_win += r[i].white_win;
            out->white_loss += r[i].white_loss;
            out->no_result += r[i].no_result;
            out->white_lead += r[i].white_lead;
            out->white_score_selfplay += r[i].white_score_selfplay;
            out->white_score_selfplay_sq += r[i].white_score_selfplay_sq;
            out->var_time_left += r[i].var_time_left;
            out->shortterm_winloss_error += r[i].shortterm_winloss_error;
            out->shortterm_score_error += r[i].shortterm_score_error;
            for (int k = 0; k < moves; k++)
                out->policy[k] += r[i].policy[k];
            for (int k = 0; k < moves - 1; k++)
                out->white_ownership[k] += r[i].white_ownership[k];
        }
        double inv = 1.0 / n;
        out->white_win *= inv;
        out->white_loss *= inv;
        out->no_result *= inv;
        out->white_lead *= inv;
        out->white_score_selfplay *= inv;
        out->white_score_selfplay_sq *= inv;
        out->var_time_left *= inv;
        out->shortterm_winloss_error *= inv;
        out->shortterm_score_error *= inv;
        for (int k = 0; k < moves; k++)
            out->policy[k] = (float)(out->policy[k] * inv);
        for (int k = 0; k < moves - 1; k++)
            out->white_ownership[k] = (float)(out->white_ownership[k] * inv);
        double var = out->white_score_selfplay_sq -
                     out->white_score_selfplay * out->white_score_selfplay;
        out->white_score_stdev = var > 0 ? sqrt(var) : 0.0;
    }
    free(r);
    return ok;
}
