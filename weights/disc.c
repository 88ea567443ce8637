/* weights/disc.c -- the tsumego discriminator's description, its checkpoint file and the
 * paper's net with fresh weights (format: weights/disc.h). */
#include "weights/disc.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define DISC_MAGIC "SHIDODSC"
#define DISC_VERSION 2u
#define DISC_MAX_DENSE_IN (NN_DISC_MAX_CHANNELS * NN_DISC_MAX_SIZE * NN_DISC_MAX_SIZE)

int nn_disc_layer_outputs(const nn_disc_desc *d, int l)
{
    const nn_disc_layer *L = &d->layer[l];
    return L->kind == NN_DISC_CONV ? L->conv.c_out * d->size * d->size : L->dense.c_out;
}

static bool finite_all(const float *a, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!isfinite(a[i]))
            return false;
    return true;
}

/* The shapes chain and, with weights, the arrays and their values. */
static bool check(const nn_disc_desc *d, bool weights, char *err, int err_len)
{
    if (d->size < 3 || d->size > NN_DISC_MAX_SIZE || d->planes < 1 ||
        d->planes > NN_DISC_MAX_CHANNELS || d->num_layers < 1 ||
        d->num_layers > NN_DISC_MAX_LAYERS) {
        snprintf(err, (size_t)err_len, "discriminator: size %d, planes %d, layers %d out of "
                 "range", d->size, d->planes, d->num_layers);
        return false;
    }
    int area = d->size * d->size, have = d->planes; /* channels (conv) or values (dense) */
    bool dense_seen = false;
    for (int l = 0; l < d->num_layers; l++) {
        const nn_disc_layer *L = &d->layer[l];
        bool last = l == d->num_layers - 1;
        if (L->act != NN_ACT_IDENTITY && L->act != NN_ACT_RELU) {
            snprintf(err, (size_t)err_len, "discriminator: layer %d: activation %d is neither "
                     "identity nor ReLU", l, (int)L->act);
            return false;
        }
        if (L->kind == NN_DISC_CONV) {
            const nn_conv_desc *c = &L->conv;
            if (dense_seen || c->ky != c->kx || c->ky < 1 || c->ky > 7 || c->ky % 2 == 0 ||
                c->c_in != have || c->c_out < 1 || c->c_out > NN_DISC_MAX_CHANNELS ||
                (weights && (!c->w || !c->bias))) {
                snprintf(err, (size_t)err_len, "discriminator: layer %d (%s): convolution %dx%d "
                         "%d -> %d does not follow %d channels (odd square kernel up to 7, "
                         "before the dense layers)", l, c->name, c->ky, c->kx, c->c_in, c->c_out,
                         have);
                return false;
            }
            if (weights && (!finite_all(c->w, (size_t)c->c_out * c->c_in * c->ky * c->kx) ||
                            !finite_all(c->bias, (size_t)c->c_out))) {
                snprintf(err, (size_t)err_len, "discriminator: layer %d (%s): weights not finite",
                         l, c->name);
                return false;
            }
            have = c->c_out;
        } else if (L->kind == NN_DISC_DENSE) {
            const nn_matmul_desc *m = &L->dense;
            int in = dense_seen ? have : have * area;
            if (m->c_in != in || m->c_out < 1 || m->c_out > NN_DISC_MAX_CHANNELS ||
                (weights && (!m->w || !m->bias))) {
                snprintf(err, (size_t)err_len, "discriminator: layer %d (%s): dense %d -> %d "
                         "does not follow %d values", l, m->name, m->c_in, m->c_out, in);
                return false;
            }
            if (weights && (!finite_all(m->w, (size_t)m->c_in * m->c_out) ||
                            !finite_all(m->bias, (size_t)m->c_out))) {
                snprintf(err, (size_t)err_len, "discriminator: layer %d (%s): weights not finite",
                         l, m->name);
                return false;
            }
            dense_seen = true;
            have = m->c_out;
        } else {
            snprintf(err, (size_t)err_len, "discriminator: layer %d: kind %d is neither "
                     "convolution (1) nor dense (2)", l, (int)L->kind);
            return false;
        }
        if (last && (!dense_seen || have != 1 || L->act != NN_ACT_IDENTITY)) {
            snprintf(err, (size_t)err_len, "discriminator: the last layer must be a dense layer "
                     "to one logit without activation");
            return false;
        }
    }
    return true;
}

bool nn_disc_desc_check(const nn_disc_desc *d, char *err, int err_len)
{
    return check(d, true, err, err_len);
}

int weights_disc_tensors(nn_disc_desc *d, float **ptr, size_t *len, int max)
{
    int n = 0;
    for (int l = 0; l < d->num_layers; l++) {
        nn_disc_layer *L = &d->layer[l];
        float *w, *b;
        size_t nw, nb;
        if (L->kind == NN_DISC_CONV) {
            w = L->conv.w, b = L->conv.bias;
            nw = (size_t)L->conv.c_out * L->conv.c_in * L->conv.ky * L->conv.kx;
            nb = (size_t)L->conv.c_out;
        } else {
            w = L->dense.w, b = L->dense.bias;
            nw = (size_t)L->dense.c_in * L->dense.c_out;
            nb = (size_t)L->dense.c_out;
        }
        if (n < max)
            ptr[n] = w, len[n] = nw;
        n++;
        if (n < max)
            ptr[n] = b, len[n] = nb;
        n++;
    }
    return n;
}

size_t weights_disc_num_params(const nn_disc_desc *d)
{
    float *ptr[2 * NN_DISC_MAX_LAYERS];
    size_t len[2 * NN_DISC_MAX_LAYERS], total = 0;
    int n = weights_disc_tensors((nn_disc_desc *)d, ptr, len, 2 * NN_DISC_MAX_LAYERS);
    for (int i = 0; i < n; i++)
        total += len[i];
    return total;
}

void weights_disc_train_state_free(weights_disc_train_state *ts)
{
    if (!ts)
        return;
    free(ts->m);
    free(ts->v);
    ts->m = ts->v = NULL;
}

static void disc_free(struct nn_disc_desc *d)
{
    if (!d)
        return;
    for (int l = 0; l < NN_DISC_MAX_LAYERS; l++) {
        nn_conv_free(&d->layer[l].conv);
        nn_matmul_free(&d->layer[l].dense);
    }
    free(d);
}

void nn_disc_desc_free(struct nn_disc_desc *d) { disc_free(d); }

/* ---- fresh weights -------------------------------------------------------------------------- */

static uint64_t mix64(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* A standard normal draw (Box-Muller on two uniforms in (0, 1]). */
static double normal(uint64_t *s)
{
    double u1 = ((double)(mix64(s) >> 11) + 1.0) / 9007199254740992.0;
    double u2 = (double)(mix64(s) >> 11) / 9007199254740992.0;
    return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

static bool fill_he(float **w, size_t n, int fan_in, uint64_t *s)
{
    *w = malloc((n ? n : 1) * sizeof **w);
    if (!*w)
        return false;
    double sd = sqrt(2.0 / fan_in);
    for (size_t i = 0; i < n; i++)
        (*w)[i] = (float)(sd * normal(s));
    return true;
}

nn_desc *weights_disc_make(int size, int planes, const int *conv, int num_conv, const int *dense,
                           int num_dense, uint64_t seed)
{
    if (num_conv + num_dense + 2 > NN_DISC_MAX_LAYERS || size < 3 || size > NN_DISC_MAX_SIZE)
        return NULL;
    nn_desc *d = calloc(1, sizeof *d);
    nn_disc_desc *dd = calloc(1, sizeof *dd);
    if (!d || !dd) {
        free(d);
        free(dd);
        return NULL;
    }
    d->family = NN_FAMILY_DISC;
    d->disc = dd;
    snprintf(d->source, sizeof d->source, "(fresh discriminator, seed %llu)",
             (unsigned long long)seed);
    dd->size = size;
    dd->planes = planes;
    uint64_t s = seed;
    int have = planes, area = size * size;
    bool ok = true;
    for (int i = 0; i <= num_conv && ok; i++) {
        nn_disc_layer *L = &dd->layer[dd->num_layers++];
        int k = i < num_conv ? 3 : 1, out = i < num_conv ? conv[i] : 1;
        L->kind = NN_DISC_CONV;
        L->act = i < num_conv ? NN_ACT_RELU : NN_ACT_IDENTITY;
        nn_conv_desc *c = &L->conv;
        snprintf(c->name, sizeof c->name, "conv%d", i + 1);
        c->ky = c->kx = k;
        c->dil_y = c->dil_x = 1;
        c->c_in = have;
        c->c_out = out;
        ok = fill_he(&c->w, (size_t)out * have * k * k, have * k * k, &s) &&
             (c->bias = calloc((size_t)out, sizeof *c->bias));
        have = out;
    }
    have *= area;
    for (int i = 0; i <= num_dense && ok; i++) {
        nn_disc_layer *L = &dd->layer[dd->num_layers++];
        int out = i < num_dense ? dense[i] : 1;
        L->kind = NN_DISC_DENSE;
        L->act = i < num_dense ? NN_ACT_RELU : NN_ACT_IDENTITY;
        nn_matmul_desc *m = &L->dense;
        snprintf(m->name, sizeof m->name, "dense%d", i + 1);
        m->c_in = have;
        m->c_out = out;
        ok = fill_he(&m->w, (size_t)have * out, i < num_dense ? have : 2 * have, &s) &&
             (m->bias = calloc((size_t)out, sizeof *m->bias));
        have = out;
    }
    if (!ok) {
        nn_desc_free(d);
        return NULL;
    }
    return d;
}

nn_desc *weights_disc_paper(int size, int planes, uint64_t seed)
{
    static const int conv[] = {128, 96, 64}, dense[] = {64};
    return weights_disc_make(size, planes, conv, 3, dense, 1, seed);
}

/* ---- the file ------------------------------------------------------------------------------- */

/* The whole file is built in (or read into) one buffer: checkpoints are a few MB. */
typedef struct buf {
    unsigned char *p;
    size_t len, cap, pos;
    bool oom;
} buf;

static void put(buf *b, const void *src, size_t n)
{
    if (b->oom)
        return;
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->len + n)
            cap *= 2;
        unsigned char *p = realloc(b->p, cap);
        if (!p) {
            b->oom = true;
            return;
        }
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->len, src, n);
    b->len += n;
}

static void put_u32(buf *b, uint32_t v)
{
    unsigned char c[4] = {(unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16),
                          (unsigned char)(v >> 24)};
    put(b, c, 4);
}

static void put_u64(buf *b, uint64_t v)
{
    put_u32(b, (uint32_t)v);
    put_u32(b, (uint32_t)(v >> 32));
}

static void put_f32(buf *b, float f)
{
    uint32_t v;
    memcpy(&v, &f, 4);
    put_u32(b, v);
}

static void put_f64(buf *b, double f)
{
    uint64_t v;
    memcpy(&v, &f, 8);
    put_u64(b, v);
}

static void put_floats(buf *b, const float *a, size_t n)
{
    for (size_t i = 0; i < n; i++)
        put_f32(b, a[i]);
}

bool weights_save_disc(const char *path, const nn_disc_desc *d, const weights_disc_train_state *ts,
                       char *err, int err_len)
{
    if (!nn_disc_desc_check(d, err, err_len))
        return false;
    buf b = {0};
    put(&b, DISC_MAGIC, 8);
    put_u32(&b, DISC_VERSION);
    put_u32(&b, (uint32_t)d->size);
    put_u32(&b, (uint32_t)d->planes);
    put_u32(&b, (uint32_t)d->num_layers);
    for (int l = 0; l < d->num_layers; l++) {
        const nn_disc_layer *L = &d->layer[l];
        bool conv = L->kind == NN_DISC_CONV;
        put_u32(&b, (uint32_t)L->kind);
        put_u32(&b, conv ? (uint32_t)L->conv.ky : 0u);
        put_u32(&b, (uint32_t)(conv ? L->conv.c_in : L->dense.c_in));
        put_u32(&b, (uint32_t)(conv ? L->conv.c_out : L->dense.c_out));
        put_u32(&b, (uint32_t)L->act);
    }
    float *ptr[2 * NN_DISC_MAX_LAYERS];
    size_t len[2 * NN_DISC_MAX_LAYERS], total = 0;
    int nt = weights_disc_tensors((nn_disc_desc *)d, ptr, len, 2 * NN_DISC_MAX_LAYERS);
    for (int i = 0; i < nt; i++) {
        put_floats(&b, ptr[i], len[i]);
        total += len[i];
    }
    if (ts && ts->num_params != total) {
        snprintf(err, (size_t)err_len, "%s: the training state holds %zu parameters, the net %zu",
                 path, ts->num_params, total);
        free(b.p);
        return false;
    }
    put_u32(&b, d->black_to_play ? 1u : 0u);
    put_u32(&b, ts ? 1u : 0u);
    if (ts) {
        put_u64(&b, ts->step);
        put_u32(&b, (uint32_t)ts->epoch);
        put_u32(&b, (uint32_t)ts->best_epoch);
        put_u32(&b, (uint32_t)ts->bad_epochs);
        for (int i = 0; i < 4; i++)
            put_u64(&b, ts->rng[i]);
        put_f64(&b, ts->best_val_loss);
        put_f32(&b, ts->lr);
        put_f32(&b, ts->beta1);
        put_f32(&b, ts->beta2);
        put_f32(&b, ts->eps);
        put_floats(&b, ts->m, total);
        put_floats(&b, ts->v, total);
    }
    if (!b.oom)
        put_u32(&b, (uint32_t)crc32(0L, b.p, (uInt)b.len));
    if (b.oom) {
        snprintf(err, (size_t)err_len, "%s: out of memory", path);
        free(b.p);
        return false;
    }
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "wb");
    bool ok = f && fwrite(b.p, 1, b.len, f) == b.len;
    if (f && fclose(f) != 0)
        ok = false;
    if (ok && rename(tmp, path) != 0)
        ok = false;
    if (!ok) {
        snprintf(err, (size_t)err_len, "%s: cannot write: %s", path, strerror(errno));
        remove(tmp);
    }
    free(b.p);
    return ok;
}

/* ---- reading -------------------------------------------------------------------------------- */

typedef struct reader {
    const unsigned char *p;
    size_t len, pos;
    const char *path;
    char *err;
    int err_len;
    bool bad;
} reader;

static bool take(reader *r, void *dst, size_t n, const char *field)
{
    if (r->bad)
        return false;
    if (r->len - r->pos < n) {
        snprintf(r->err, (size_t)r->err_len, "%s: truncated: the file ends in %s (byte %zu of "
                 "%zu)", r->path, field, r->pos, r->len);
        r->bad = true;
        return false;
    }
    memcpy(dst, r->p + r->pos, n);
    r->pos += n;
    return true;
}

static uint32_t get_u32(reader *r, const char *field)
{
    unsigned char c[4] = {0};
    take(r, c, 4, field);
    return (uint32_t)c[0] | (uint32_t)c[1] << 8 | (uint32_t)c[2] << 16 | (uint32_t)c[3] << 24;
}

static uint64_t get_u64(reader *r, const char *field)
{
    uint64_t lo = get_u32(r, field);
    return lo | (uint64_t)get_u32(r, field) << 32;
}

static bool get_floats(reader *r, float *a, size_t n, const char *field)
{
    for (size_t i = 0; i < n && !r->bad; i++) {
        uint32_t v = get_u32(r, field);
        memcpy(&a[i], &v, 4);
    }
    return !r->bad;
}

/* A header field out of its range: the message names it. */
static bool in_range(reader *r, const char *field, uint64_t v, uint64_t lo, uint64_t hi)
{
    if (r->bad)
        return false;
    if (v < lo || v > hi) {
        snprintf(r->err, (size_t)r->err_len, "%s: %s is %llu, expected %llu..%llu", r->path,
                 field, (unsigned long long)v, (unsigned long long)lo, (unsigned long long)hi);
        r->bad = true;
        return false;
    }
    return true;
}

static bool read_file(const char *path, unsigned char **data, size_t *len, char *err, int err_len)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, (size_t)err_len, "%s: cannot open: %s", path, strerror(errno));
        return false;
    }
    size_t cap = 1 << 16, n = 0;
    unsigned char *p = malloc(cap);
    for (;;) {
        if (!p) {
            snprintf(err, (size_t)err_len, "%s: out of memory", path);
            fclose(f);
            return false;
        }
        n += fread(p + n, 1, cap - n, f);
        if (n < cap)
            break;
        if (cap > ((size_t)1 << 31)) {
            snprintf(err, (size_t)err_len, "%s: larger than any discriminator checkpoint", path);
            free(p);
            fclose(f);
            return false;
        }
        cap *= 2;
        unsigned char *q = realloc(p, cap);
        if (!q)
            free(p);
        p = q;
    }
    bool failed = ferror(f);
    fclose(f);
    if (failed) {
        snprintf(err, (size_t)err_len, "%s: read error", path);
        free(p);
        return false;
    }
    *data = p;
    *len = n;
    return true;
}

bool weights_is_disc(const char *path)
{
    FILE *f = fopen(path, "rb");
    char m[8];
    bool yes = f && fread(m, 1, 8, f) == 8 && memcmp(m, DISC_MAGIC, 8) == 0;
    if (f)
        fclose(f);
    return yes;
}

/* The layer headers and weights of d from r; false with the message set. */
static bool read_layers(reader *r, nn_disc_desc *d)
{
    int n = d->num_layers;
    for (int l = 0; l < n && !r->bad; l++) {
        char field[64];
        nn_disc_layer *L = &d->layer[l];
        snprintf(field, sizeof field, "layer %d kind", l);
        uint32_t kind = get_u32(r, field);
        if (!in_range(r, field, kind, 1, 2))
            return false;
        L->kind = (nn_disc_layer_kind)kind;
        bool conv = kind == NN_DISC_CONV;
        snprintf(field, sizeof field, "layer %d kernel", l);
        uint32_t k = get_u32(r, field);
        if (!in_range(r, field, k, conv ? 1 : 0, conv ? 7 : 0))
            return false;
        if (conv && k % 2 == 0) {
            snprintf(r->err, (size_t)r->err_len, "%s: %s is %u, expected an odd size", r->path,
                     field, k);
            r->bad = true;
            return false;
        }
        snprintf(field, sizeof field, "layer %d c_in", l);
        uint32_t c_in = get_u32(r, field);
        if (!in_range(r, field, c_in, 1, conv ? NN_DISC_MAX_CHANNELS : DISC_MAX_DENSE_IN))
            return false;
        snprintf(field, sizeof field, "layer %d c_out", l);
        uint32_t c_out = get_u32(r, field);
        if (!in_range(r, field, c_out, 1, NN_DISC_MAX_CHANNELS))
            return false;
        snprintf(field, sizeof field, "layer %d activation", l);
        uint32_t act = get_u32(r, field);
        if (!in_range(r, field, act, 0, 1))
            return false;
        L->act = act ? NN_ACT_RELU : NN_ACT_IDENTITY;
        if (conv) {
            snprintf(L->conv.name, sizeof L->conv.name, "conv%d", l + 1);
            L->conv.ky = L->conv.kx = (int)k;
            L->conv.dil_y = L->conv.dil_x = 1;
            L->conv.c_in = (int)c_in;
            L->conv.c_out = (int)c_out;
        } else {
            snprintf(L->dense.name, sizeof L->dense.name, "dense%d", l + 1);
            L->dense.c_in = (int)c_in;
            L->dense.c_out = (int)c_out;
        }
    }
    char why[400];
    if (!r->bad && !check(d, false, why, sizeof why)) {
        snprintf(r->err, (size_t)r->err_len, "%s: %s", r->path, why);
        r->bad = true;
    }
    for (int l = 0; l < n && !r->bad; l++) {
        nn_disc_layer *L = &d->layer[l];
        bool conv = L->kind == NN_DISC_CONV;
        size_t nw = conv ? (size_t)L->conv.c_out * L->conv.c_in * L->conv.ky * L->conv.kx
                         : (size_t)L->dense.c_in * L->dense.c_out;
        size_t nb = (size_t)(conv ? L->conv.c_out : L->dense.c_out);
        char field[64];
        snprintf(field, sizeof field, "layer %d weights", l);
        if (nw * 4 > r->len - r->pos) {
            snprintf(r->err, (size_t)r->err_len, "%s: truncated: %s need %zu bytes, %zu left",
                     r->path, field, nw * 4, r->len - r->pos);
            r->bad = true;
            return false;
        }
        float *w = malloc(nw * sizeof *w), *b = malloc(nb * sizeof *b);
        if (conv)
            L->conv.w = w, L->conv.bias = b;
        else
            L->dense.w = w, L->dense.bias = b;
        if (!w || !b) {
            snprintf(r->err, (size_t)r->err_len, "%s: out of memory", r->path);
            r->bad = true;
            return false;
        }
        get_floats(r, w, nw, field);
        snprintf(field, sizeof field, "layer %d bias", l);
        get_floats(r, b, nb, field);
    }
    return !r->bad;
}

static bool read_train(reader *r, weights_disc_train_state *ts, size_t P)
{
    ts->step = get_u64(r, "train step");
    uint32_t epoch = get_u32(r, "train epoch"), best = get_u32(r, "train best_epoch"),
             bad = get_u32(r, "train bad_epochs");
    if (!in_range(r, "train epoch", epoch, 0, 1000000) ||
        !in_range(r, "train best_epoch", best, 0, epoch) ||
        !in_range(r, "train bad_epochs", bad, 0, epoch))
        return false;
    ts->epoch = (int)epoch;
    ts->best_epoch = (int)best;
    ts->bad_epochs = (int)bad;
    for (int i = 0; i < 4; i++)
        ts->rng[i] = get_u64(r, "train rng");
    uint64_t bits = get_u64(r, "train best_val_loss");
    memcpy(&ts->best_val_loss, &bits, 8);
    float h[4];
    get_floats(r, h, 4, "train Adam settings");
    ts->lr = h[0], ts->beta1 = h[1], ts->beta2 = h[2], ts->eps = h[3];
    if (r->bad)
        return false;
    if (!(h[0] > 0 && h[0] < 1 && h[1] >= 0 && h[1] < 1 && h[2] >= 0 && h[2] < 1 && h[3] > 0)) {
        snprintf(r->err, (size_t)r->err_len, "%s: train Adam settings out of range (lr %g, "
                 "beta1 %g, beta2 %g, eps %g)", r->path, h[0], h[1], h[2], h[3]);
        r->bad = true;
        return false;
    }
    if (P * 8 > r->len - r->pos) {
        snprintf(r->err, (size_t)r->err_len, "%s: truncated: the Adam moments need %zu bytes, %zu "
                 "left", r->path, P * 8, r->len - r->pos);
        r->bad = true;
        return false;
    }
    ts->num_params = P;
    ts->m = malloc(P * sizeof *ts->m);
    ts->v = malloc(P * sizeof *ts->v);
    if (!ts->m || !ts->v) {
        snprintf(r->err, (size_t)r->err_len, "%s: out of memory", r->path);
        r->bad = true;
        return false;
    }
    return get_floats(r, ts->m, P, "train Adam m") && get_floats(r, ts->v, P, "train Adam v");
}

nn_desc *weights_load_disc(const char *path, weights_disc_train_state *ts, char *err, int err_len)
{
    if (ts)
        memset(ts, 0, sizeof *ts);
    unsigned char *data;
    size_t len;
    if (!read_file(path, &data, &len, err, err_len))
        return NULL;
    reader r = {.p = data, .len = len, .path = path, .err = err, .err_len = err_len};
    nn_desc *d = calloc(1, sizeof *d);
    nn_disc_desc *dd = calloc(1, sizeof *dd);
    weights_disc_train_state local = {0};
    char magic[8] = {0};
    if (!d || !dd) {
        snprintf(err, (size_t)err_len, "%s: out of memory", path);
        r.bad = true;
    } else {
        d->family = NN_FAMILY_DISC;
        d->disc = dd;
        snprintf(d->source, sizeof d->source, "%s", path);
        if (take(&r, magic, 8, "magic") && memcmp(magic, DISC_MAGIC, 8) != 0) {
            snprintf(err, (size_t)err_len, "%s: magic is not %s: not a discriminator checkpoint",
                     path, DISC_MAGIC);
            r.bad = true;
        }
    }
    uint32_t v = get_u32(&r, "version");
    in_range(&r, "version", v, 1, DISC_VERSION);
    uint32_t size = get_u32(&r, "size");
    in_range(&r, "size", size, 3, NN_DISC_MAX_SIZE);
    uint32_t planes = get_u32(&r, "planes");
    in_range(&r, "planes", planes, 1, NN_DISC_MAX_CHANNELS);
    uint32_t layers = get_u32(&r, "layers");
    in_range(&r, "layers", layers, 1, NN_DISC_MAX_LAYERS);
    if (!r.bad) {
        dd->size = (int)size;
        dd->planes = (int)planes;
        dd->num_layers = (int)layers;
        read_layers(&r, dd);
    }
    if (v >= 2) {
        uint32_t colours = get_u32(&r, "colours");
        in_range(&r, "colours", colours, 0, 1);
        dd->black_to_play = colours == 1;
    }
    uint32_t has_train = get_u32(&r, "train flag");
    in_range(&r, "train flag", has_train, 0, 1);
    if (!r.bad && has_train)
        read_train(&r, &local, weights_disc_num_params(dd));
    if (!r.bad) {
        size_t body = r.pos;
        uint32_t want = get_u32(&r, "crc");
        uint32_t got = (uint32_t)crc32(0L, data, (uInt)body);
        if (!r.bad && want != got) {
            snprintf(err, (size_t)err_len, "%s: crc is %08x, the contents give %08x: the file is "
                     "corrupt", path, want, got);
            r.bad = true;
        } else if (!r.bad && r.pos != r.len) {
            snprintf(err, (size_t)err_len, "%s: %zu bytes after the crc", path, r.len - r.pos);
            r.bad = true;
        }
    }
    if (!r.bad) {
        char why[512];
        if (!nn_disc_desc_check(dd, why, sizeof why)) {
            snprintf(err, (size_t)err_len, "%s: %s", path, why);
            r.bad = true;
        }
    }
    free(data);
    if (r.bad) {
        weights_disc_train_state_free(&local);
        nn_desc_free(d);
        if (!d)
            free(dd);
        return NULL;
    }
    if (ts)
        *ts = local;
    else
        weights_disc_train_state_free(&local);
    return d;
}
