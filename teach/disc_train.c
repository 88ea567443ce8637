/* teach/disc_train.c -- training the discriminator (Adam, augmentation, validation, early
 * stopping, checkpoints) and scoring positions with a trained one (see disc.h). */
#include "teach/disc.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "nn/disc_inputs.h"

#define W TEACH_DISC_SIZE
#define IN_LEN ((size_t)NN_DISC_PLANES * W * W)

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* xoshiro256** on the checkpoint's four words */
static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

static uint64_t next(uint64_t s[4])
{
    uint64_t r = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return r;
}

static void seed_rng(uint64_t s[4], uint64_t seed)
{
    for (int i = 0; i < 4; i++) {
        uint64_t z = (seed += 0x9e3779b97f4a7c15ULL);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        s[i] = z ^ (z >> 31);
    }
}

static float label_of(const teach_disc_sample *s) { return s->kind == TEACH_DISC_PROBLEM; }

/* Copies the net's parameters into (to_net false) or out of (to_net true) flat. */
static void copy_params(nn_disc_desc *d, float *flat, bool to_net)
{
    float *ptr[2 * NN_DISC_MAX_LAYERS];
    size_t len[2 * NN_DISC_MAX_LAYERS], p = 0;
    int nt = weights_disc_tensors(d, ptr, len, 2 * NN_DISC_MAX_LAYERS);
    for (int k = 0; k < nt; k++) {
        if (to_net)
            memcpy(ptr[k], flat + p, len[k] * sizeof *flat);
        else
            memcpy(flat + p, ptr[k], len[k] * sizeof *flat);
        p += len[k];
    }
}

/* Loss and accuracy of the samples idx[0..n) under variant v(i) = (symmetry, swap), colours
 * swapped only when swaps (a colour-free net): all 16 (or 8) variants each when all, else the
 * one fixed by the sample's position. With all and mean (n zeros), also each sample judged as
 * the scorer judges it (teach_disc_score): by the mean likeness of its 8 symmetries, colours as
 * they are. */
static void score_set(nn_trainer *t, const teach_disc_data *data, const int *idx, int n, bool all,
                      bool swaps, int batch, float *x, float *y, float *logits, double *mean,
                      teach_disc_eval *ev)
{
    memset(ev, 0, sizeof *ev);
    int kinds = swaps ? 16 : 8, variants = all ? kinds : 1, fill = 0;
    int owner[4096], pos[4096], var_of[4096];
    if (!all)
        mean = NULL;
    double loss = 0;
    long count = 0;
    for (int i = 0; i < n; i++)
        for (int v = 0; v < variants; v++) {
            const teach_disc_sample *s = &data->s[idx[i]];
            int var = all ? v : i % kinds;
            teach_disc_sample_planes(s, var % 8, var >= 8, x + (size_t)fill * IN_LEN);
            y[fill] = label_of(s);
            pos[fill] = i;
            var_of[fill] = var;
            owner[fill++] = idx[i];
            if (fill == batch || (i == n - 1 && v == variants - 1)) {
                nn_trainer_predict(t, fill, x, logits);
                loss += nn_train_bce(fill, logits, y, NULL, 1) * fill;
                for (int k = 0; k < fill; k++) {
                    const teach_disc_sample *o = &data->s[owner[k]];
                    ev->n[o->kind]++;
                    ev->right[o->kind] += (logits[k] > 0) == (y[k] > 0.5f);
                    if (mean && var_of[k] < 8)
                        mean[pos[k]] += 1 / (1 + exp(-(double)logits[k])) / 8;
                }
                count += fill;
                fill = 0;
            }
        }
    for (int i = 0; mean && i < n; i++) {
        const teach_disc_sample *s = &data->s[idx[i]];
        ev->samples[s->kind]++;
        ev->voted[s->kind] += (mean[i] > 0.5) == (label_of(s) > 0.5f);
    }
    ev->loss = count ? loss / (double)count : 0;
}

static long total_of(const long *a)
{
    long s = 0;
    for (int k = 0; k < TEACH_DISC_KINDS; k++)
        s += a[k];
    return s;
}

/* The samples of one split. */
static int *split_index(const teach_disc_data *data, teach_disc_split split, int *n)
{
    int *idx = malloc(((size_t)data->n + 1) * sizeof *idx);
    *n = 0;
    for (int i = 0; idx && i < data->n; i++)
        if (data->s[i].split == split)
            idx[(*n)++] = i;
    return idx;
}

bool teach_disc_evaluate(nn_disc_desc *net, const teach_disc_data *data, teach_disc_split split,
                         int threads, const char *backend, teach_disc_eval *out, char *err,
                         int err_len)
{
    enum { B = 256 };
    int n;
    int *idx = split_index(data, split, &n);
    nn_trainer *t = nn_trainer_new_on(net, B, threads < 1 ? 1 : threads, backend, err, err_len);
    if (!t) {
        free(idx);
        return false;
    }
    float *x = malloc(B * IN_LEN * sizeof *x), y[B], logits[B];
    double *mean = calloc((size_t)n + 1, sizeof *mean);
    bool ok = idx && t && x && mean;
    if (ok)
        score_set(t, data, idx, n, true, !net->black_to_play, B, x, y, logits, mean, out);
    else
        snprintf(err, (size_t)err_len, "discriminator evaluation: out of memory");
    free(idx);
    free(mean);
    free(x);
    nn_trainer_free(t);
    return ok;
}

bool teach_disc_train(nn_desc *net, const teach_disc_data *data, const teach_disc_train_opts *opt,
                      const weights_disc_train_state *resume, const nn_desc *best_so_far,
                      char *err, int err_len)
{
    teach_disc_train_opts o = *opt;
    if (o.epochs <= 0)
        o.epochs = 30;
    if (o.batch <= 0)
        o.batch = 32;
    if (o.threads <= 0)
        o.threads = 1;
    if (o.patience <= 0)
        o.patience = 5;
    if (o.adam.lr <= 0)
        o.adam = (nn_adam)NN_ADAM_DEFAULTS;
    if (o.batch > 4096) {
        snprintf(err, (size_t)err_len, "discriminator training: batch %d over 4096", o.batch);
        return false;
    }
    nn_disc_desc *d = net->disc;
    if (!resume)
        d->black_to_play = !o.colour_swap;
    int n_train, n_val;
    int *train = split_index(data, TEACH_DISC_TRAIN, &n_train);
    int *val = split_index(data, TEACH_DISC_VAL, &n_val);
    int eval_batch = o.batch > 256 ? o.batch : 256;
    nn_trainer *t = nn_trainer_new_on(d, eval_batch, o.threads, o.backend, err, err_len);
    if (!t) {
        free(train);
        free(val);
        return false;
    }
    size_t P = weights_disc_num_params(d);
    float *best = malloc(P * sizeof *best), *x = malloc((size_t)eval_batch * IN_LEN * sizeof *x);
    float *y = malloc((size_t)eval_batch * sizeof *y), *logits = malloc((size_t)eval_batch * sizeof *logits);
    bool ok = train && val && best && x && y && logits;
    if (!ok)
        snprintf(err, (size_t)err_len, "discriminator training: out of memory");
    else if (n_train == 0 || n_val == 0) {
        snprintf(err, (size_t)err_len, "discriminator training: %d training and %d validation "
                 "samples; both splits need some", n_train, n_val);
        ok = false;
    }
    weights_disc_train_state st = {.best_val_loss = INFINITY};
    seed_rng(st.rng, o.seed);
    if (ok && resume) {
        if (resume->num_params != P) {
            snprintf(err, (size_t)err_len, "discriminator training: the checkpoint holds %zu "
                     "parameters, the net %zu", resume->num_params, P);
            ok = false;
        } else {
            st = *resume;
            st.m = st.v = NULL;
            memcpy(nn_trainer_moment(t, 0), resume->m, P * sizeof(float));
            memcpy(nn_trainer_moment(t, 1), resume->v, P * sizeof(float));
            nn_trainer_set_step(t, resume->step);
            ok = nn_trainer_push(t);
        }
    }
    if (ok) {
        nn_disc_desc *from = best_so_far ? best_so_far->disc : d;
        if (best_so_far && weights_disc_num_params(from) != P) {
            snprintf(err, (size_t)err_len, "discriminator training: the best weights do not "
                     "match the net's shape");
            ok = false;
        } else {
            copy_params(from, best, false);
        }
    }
    long steps_per_epoch = (n_train + o.batch - 1) / o.batch;
    long total_steps = steps_per_epoch * (o.epochs - st.epoch), done_steps = 0;
    for (int epoch = st.epoch + 1; ok && epoch <= o.epochs; epoch++) {
        double t0 = now_s(), loss = 0;
        long right = 0;
        /* the order depends only on the generator, so a resumed run shuffles as the
         * uninterrupted one did */
        for (int i = 0, k = 0; i < data->n; i++)
            if (data->s[i].split == TEACH_DISC_TRAIN)
                train[k++] = i;
        for (int i = n_train - 1; i > 0; i--) {
            int j = (int)(next(st.rng) % (uint64_t)(i + 1)), tmp = train[i];
            train[i] = train[j];
            train[j] = tmp;
        }
        for (int b = 0; b < n_train; b += o.batch) {
            int cnt = n_train - b < o.batch ? n_train - b : o.batch;
            for (int k = 0; k < cnt; k++) {
                const teach_disc_sample *s = &data->s[train[b + k]];
                uint64_t r = next(st.rng);
                bool swap = !d->black_to_play && ((r >> 3) & 1);
                teach_disc_sample_planes(s, (int)(r % 8), swap, x + (size_t)k * IN_LEN);
                y[k] = label_of(s);
            }
            double l = nn_trainer_gradient(t, cnt, x, y, logits);
            if (isnan(l)) {
                snprintf(err, (size_t)err_len, "discriminator training: %s", nn_trainer_error(t));
                ok = false;
                break;
            }
            loss += l * cnt;
            for (int k = 0; k < cnt; k++)
                right += (logits[k] > 0) == (y[k] > 0.5f);
            nn_trainer_adam(t, &o.adam);
            if (o.on_step)
                o.on_step(o.ctx, ++done_steps, total_steps);
        }
        if (!ok || !nn_trainer_sync(t)) {
            if (ok)
                snprintf(err, (size_t)err_len, "discriminator training: %s", nn_trainer_error(t));
            ok = false;
            break;
        }
        double train_s = now_s() - t0;
        teach_disc_eval ev;
        score_set(t, data, val, n_val, false, !d->black_to_play, eval_batch, x, y, logits, NULL,
                  &ev);
        teach_disc_epoch e = {.epoch = epoch, .train_loss = loss / n_train,
                              .train_acc = (double)right / n_train, .val_loss = ev.loss,
                              .val_acc = (double)total_of(ev.right) / (double)total_of(ev.n),
                              .samples_per_s = n_train / train_s, .seconds = now_s() - t0};
        if (ev.loss < st.best_val_loss) {
            e.best = true;
            st.best_val_loss = ev.loss;
            st.best_epoch = epoch;
            st.bad_epochs = 0;
            copy_params(d, best, false);
        } else {
            st.bad_epochs++;
        }
        st.epoch = epoch;
        st.step = nn_trainer_step(t);
        st.lr = o.adam.lr, st.beta1 = o.adam.beta1, st.beta2 = o.adam.beta2, st.eps = o.adam.eps;
        if (e.best && o.best) {
            ok = weights_save_disc(o.best, d, NULL, err, err_len);
        }
        if (ok && o.checkpoint) {
            weights_disc_train_state save = st;
            save.num_params = P;
            save.m = nn_trainer_moment(t, 0);
            save.v = nn_trainer_moment(t, 1);
            ok = weights_save_disc(o.checkpoint, d, &save, err, err_len);
        }
        if (o.on_epoch)
            o.on_epoch(o.ctx, &e);
        if (st.bad_epochs >= o.patience)
            break;
    }
    if (ok)
        copy_params(d, best, true);
    free(train);
    free(val);
    free(best);
    free(x);
    free(y);
    free(logits);
    nn_trainer_free(t);
    return ok;
}

bool teach_disc_bench(int batch, int threads, double seconds, const char *backend,
                      teach_disc_throughput *out, char *err, int err_len)
{
    nn_desc *net = weights_disc_paper(W, NN_DISC_PLANES, 1);
    if (!net) {
        snprintf(err, (size_t)err_len, "out of memory");
        return false;
    }
    nn_trainer *t = nn_trainer_new_on(net->disc, batch, threads, backend, err, err_len);
    float *x = malloc((size_t)batch * IN_LEN * sizeof *x), *y = malloc((size_t)batch * sizeof *y);
    float *logits = malloc((size_t)batch * sizeof *logits);
    bool ok = t && x && y && logits;
    if (t && !ok)
        snprintf(err, (size_t)err_len, "out of memory at batch %d", batch);
    if (ok) {
        uint64_t s[4];
        seed_rng(s, 7);
        for (size_t i = 0; i < (size_t)batch * IN_LEN; i++)
            x[i] = (float)(next(s) >> 63);
        for (int i = 0; i < batch; i++)
            y[i] = (float)(i % 2);
        nn_adam adam = NN_ADAM_DEFAULTS;
        for (int w = 0; w < 2 && ok; w++) {
            ok = !isnan(nn_trainer_gradient(t, batch, x, y, logits));
            nn_trainer_adam(t, &adam);
        }
        long steps = 0, fwd = 0;
        double t0 = now_s(), t1 = t0;
        while (ok && t1 - t0 < seconds) {
            ok = !isnan(nn_trainer_gradient(t, batch, x, y, logits));
            nn_trainer_adam(t, &adam);
            steps++;
            t1 = now_s();
        }
        double f0 = now_s(), f1 = f0;
        while (ok && f1 - f0 < seconds / 2) {
            nn_trainer_predict(t, batch, x, logits);
            ok = !isnan(logits[0]);
            fwd++;
            f1 = now_s();
        }
        if (!ok)
            snprintf(err, (size_t)err_len, "%s", nn_trainer_error(t));
        else
            *out = (teach_disc_throughput){(double)steps * batch / (t1 - t0),
                                           1e3 * (t1 - t0) / (double)steps,
                                           (double)fwd * batch / (f1 - f0)};
    }
    free(x);
    free(y);
    free(logits);
    nn_trainer_free(t);
    nn_desc_free(net);
    return ok;
}

/* ---- scoring -------------------------------------------------------------------------------- */

#define SCORER_BATCH 64 /* windows per nn_eval, times 8 symmetries */
#define SCORER_MAX_SLOTS 64

/* One evaluator: a context and its batch. */
typedef struct scorer_slot {
    nn_context *ctx;
    go_game *games;         /* [SCORER_BATCH]: only .board is read by a discriminator */
    nn_query q[SCORER_BATCH * 8];
    nn_result *r;
    bool busy;
} scorer_slot;

struct teach_disc_scorer {
    nn_model *model;
    int num_slots;
    scorer_slot slot[SCORER_MAX_SLOTS];
    pthread_mutex_t mu;
    pthread_cond_t freed;
};

void teach_disc_scorer_free(teach_disc_scorer *s)
{
    if (!s)
        return;
    for (int i = 0; i < s->num_slots; i++) {
        nn_context_free(s->slot[i].ctx);
        free(s->slot[i].games);
        free(s->slot[i].r);
    }
    nn_model_free(s->model);
    pthread_mutex_destroy(&s->mu);
    pthread_cond_destroy(&s->freed);
    free(s);
}

teach_disc_scorer *teach_disc_scorer_load(const char *path, const char *backend, int threads,
                                          char *err, int err_len)
{
    teach_disc_scorer *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(err, (size_t)err_len, "%s: out of memory", path);
        return NULL;
    }
    pthread_mutex_init(&s->mu, NULL);
    pthread_cond_init(&s->freed, NULL);
    s->model = nn_model_load(path, backend, err, err_len);
    if (!s->model) {
        teach_disc_scorer_free(s);
        return NULL;
    }
    if (nn_model_family(s->model) != NN_FAMILY_DISC) {
        snprintf(err, (size_t)err_len, "%s: not a tsumego discriminator (a network that plays); "
                 "give a checkpoint of `shido train-discriminator`", path);
        teach_disc_scorer_free(s);
        return NULL;
    }
    int size = nn_model_desc(s->model)->disc->size;
    if (size != W) {
        snprintf(err, (size_t)err_len, "%s: a discriminator of %dx%d windows; the generators use "
                 "%dx%d", path, size, size, W, W);
        teach_disc_scorer_free(s);
        return NULL;
    }
    int slots = threads < 1 ? 1 : threads > SCORER_MAX_SLOTS ? SCORER_MAX_SLOTS : threads;
    for (; s->num_slots < slots; s->num_slots++) {
        scorer_slot *sl = &s->slot[s->num_slots];
        sl->ctx = nn_context_new(s->model, SCORER_BATCH * 8, err, err_len);
        sl->games = calloc(SCORER_BATCH, sizeof *sl->games);
        sl->r = malloc(SCORER_BATCH * 8 * sizeof *sl->r);
        if (!sl->ctx || !sl->games || !sl->r) {
            if (sl->ctx)
                snprintf(err, (size_t)err_len, "%s: out of memory", path);
            s->num_slots++;
            teach_disc_scorer_free(s);
            return NULL;
        }
    }
    return s;
}

/* A free slot, waiting for one when every slot is busy. */
static scorer_slot *take_slot(teach_disc_scorer *s)
{
    pthread_mutex_lock(&s->mu);
    for (;;) {
        for (int i = 0; i < s->num_slots; i++)
            if (!s->slot[i].busy) {
                s->slot[i].busy = true;
                pthread_mutex_unlock(&s->mu);
                return &s->slot[i];
            }
        pthread_cond_wait(&s->freed, &s->mu);
    }
}

static void give_slot(teach_disc_scorer *s, scorer_slot *sl)
{
    pthread_mutex_lock(&s->mu);
    sl->busy = false;
    pthread_cond_signal(&s->freed);
    pthread_mutex_unlock(&s->mu);
}

/* b with its colours swapped. */
static void swap_colours(const go_board *b, go_board *out)
{
    go_board_init_rect(out, b->width, b->height);
    for (int y = 0; y < b->height; y++)
        for (int x = 0; x < b->width; x++) {
            int p = go_point_at(x, y);
            if (b->color[p] != GO_EMPTY)
                go_board_place(out, p, go_opponent((go_color)b->color[p]));
        }
}

bool teach_disc_score(teach_disc_scorer *s, int n, const go_board *const *boards, const int *x,
                      const int *y, const go_color *to_play, double *out, char *err, int err_len)
{
    bool black_to_play = nn_model_desc(s->model)->disc->black_to_play;
    scorer_slot *sl = take_slot(s);
    bool ok = true;
    for (int from = 0; ok && from < n; from += SCORER_BATCH) {
        int cnt = n - from < SCORER_BATCH ? n - from : SCORER_BATCH;
        for (int i = 0; i < cnt; i++) {
            /* a net that knows the side to play sees it as black */
            if (black_to_play && to_play && to_play[from + i] == GO_WHITE)
                swap_colours(boards[from + i], &sl->games[i].board);
            else
                sl->games[i].board = *boards[from + i];
            for (int sym = 0; sym < 8; sym++)
                sl->q[i * 8 + sym] = (nn_query){.game = &sl->games[i], .symmetry = sym,
                                                .window_x = x[from + i],
                                                .window_y = y[from + i]};
        }
        ok = nn_eval(sl->ctx, cnt * 8, sl->q, sl->r, err, err_len);
        for (int i = 0; ok && i < cnt; i++) {
            double sum = 0;
            for (int sym = 0; sym < 8; sym++)
                sum += sl->r[i * 8 + sym].likeness;
            out[from + i] = sum / 8;
        }
    }
    give_slot(s, sl);
    return ok;
}

/* The normal form of b's corner window as a 19x19 board; false when it fits none. */
static bool window_board(const go_board *b, go_board *out)
{
    uint8_t cell[W * W];
    if (!teach_disc_window(b, cell))
        return false;
    go_board_init(out, 19);
    for (int i = 0; i < W * W; i++)
        if (cell[i])
            go_board_place(out, go_point_at(i % W, i / W), (go_color)cell[i]);
    return true;
}

double teach_disc_score_problem(teach_disc_scorer *s, const go_board *b, go_color to_play,
                                char *err, int err_len)
{
    go_board nb;
    if (!window_board(b, &nb))
        return -1;
    const go_board *bp = &nb;
    int zero = 0;
    double v;
    return teach_disc_score(s, 1, &bp, &zero, &zero, &to_play, &v, err, err_len) ? v : -1;
}

bool teach_disc_rank(void *scorer, const go_board *const *boards, const go_color *to_play, int n,
                     float *out)
{
    if (n <= 0)
        return true;
    /* the windows in normal form, their boards' indices, and room for the scores */
    struct item {
        go_board board;
        int at;
    } *it = calloc((size_t)n, sizeof *it);
    if (!it)
        return false;
    int m = 0;
    for (int i = 0; i < n; i++) {
        out[i] = 0.0f; /* no corner window: not a tsumego the net can judge */
        if (window_board(boards[i], &it[m].board))
            it[m++].at = i;
    }
    const go_board **bp = malloc((size_t)(m ? m : 1) * sizeof *bp);
    int *zero = calloc((size_t)(m ? m : 1), sizeof *zero);
    double *v = malloc((size_t)(m ? m : 1) * sizeof *v);
    go_color *mover = malloc((size_t)(m ? m : 1) * sizeof *mover);
    bool ok = bp && zero && v && mover;
    for (int k = 0; ok && k < m; k++) {
        bp[k] = &it[k].board;
        mover[k] = to_play ? to_play[it[k].at] : GO_BLACK;
    }
    char err[256];
    ok = ok && (m == 0 || teach_disc_score(scorer, m, bp, zero, zero, mover, v, err, sizeof err));
    for (int k = 0; ok && k < m; k++)
        out[it[k].at] = (float)v[k];
    free(bp);
    free(zero);
    free(v);
    free(mover);
    free(it);
    return ok;
}
