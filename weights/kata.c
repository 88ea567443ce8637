/* weights/kata.c -- KataGo model files -> nn_kata_desc (format in weights/kata.h). */
#include "weights/kata.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <zlib.h>

#include "weights/desc.h"

#define KATA_MAX_FILE_BYTES ((size_t)1 << 31)   /* decompressed; kata1 b40c768 is ~1 GiB */
#define KATA_MAX_NESTING 16                     /* nested bottleneck blocks within each other */
#define KATA_TOKEN_LEN 256
#define KATA_ROLE_LEN 160
#define KATA_BIN_SEARCH 100                     /* bytes KataGo skips before "@BIN@" */
#define KATA_MIN_BLOCK_BYTES 32
/* Kernels and dilations beyond these only reach past the edge of any board (19x19). */
#define KATA_MAX_KERNEL (2 * 19 - 1)
#define KATA_MAX_DILATION 19

/* The whole decompressed file and a cursor; the first error wins and stops everything. */
typedef struct kata_reader {
    const char *path;
    const unsigned char *buf;
    size_t len, pos;
    bool binary;
    int version;
    char *err;
    int err_len;
    bool failed;
} kata_reader;

/* ---- freeing ---------------------------------------------------------------------------- */

static void rms_free(nn_kata_rms_norm *r)
{
    free(r->weight);
    r->weight = NULL;
}

static void block_free(nn_kata_block *b)
{
    nn_kata_attention *a = &b->attn;
    rms_free(&a->norm);
    nn_matmul_free(&a->q);
    nn_matmul_free(&a->k);
    nn_matmul_free(&a->v);
    nn_matmul_free(&a->out);
    free(a->rope_freqs);
    a->rope_freqs = NULL;
    nn_kata_ffn *f = &b->ffn;
    rms_free(&f->norm);
    nn_matmul_free(&f->linear1);
    nn_matmul_free(&f->gate);
    nn_matmul_free(&f->linear2);
    nn_bn_free(&b->bn1);
    nn_conv_free(&b->conv1);
    nn_conv_free(&b->gpool_conv);
    nn_bn_free(&b->gpool_bn);
    nn_matmul_free(&b->gpool_to_bias);
    for (int i = 0; i < b->num_inner; i++)
        block_free(&b->inner[i]);
    free(b->inner);
    b->inner = NULL;
    nn_bn_free(&b->bn2);
    nn_conv_free(&b->conv2);
}

/* Defined here rather than in nn/: the loader is what fills these structs. */
void nn_kata_desc_free(struct nn_kata_desc *k)
{
    if (!k)
        return;
    nn_matmul_free(&k->meta.mul1);
    nn_matmul_free(&k->meta.mul2);
    nn_matmul_free(&k->meta.mul3);
    nn_kata_trunk *t = &k->trunk;
    nn_conv_free(&t->initial_conv);
    nn_matmul_free(&t->initial_matmul);
    for (int i = 0; t->blocks && i < t->num_blocks; i++)
        block_free(&t->blocks[i]);
    free(t->blocks);
    nn_bn_free(&t->tip_bn);
    free(t->tip_rms.gamma);
    free(t->tip_rms.beta);
    nn_kata_policy_head *p = &k->policy;
    nn_conv_free(&p->p1_conv);
    nn_conv_free(&p->g1_conv);
    nn_bn_free(&p->g1_bn);
    nn_matmul_free(&p->gpool_to_bias);
    nn_bn_free(&p->p1_bn);
    nn_conv_free(&p->p2_conv);
    nn_matmul_free(&p->gpool_to_pass);
    nn_matmul_free(&p->gpool_to_pass2);
    nn_kata_value_head *v = &k->value;
    nn_conv_free(&v->v1_conv);
    nn_bn_free(&v->v1_bn);
    nn_matmul_free(&v->v2);
    nn_matmul_free(&v->v3);
    nn_matmul_free(&v->sv3);
    nn_conv_free(&v->ownership_conv);
    free(k);
}

/* ---- errors and tokens -------------------------------------------------------------------- */

/* Records "file: layer: message" unless an earlier error was recorded. Returns false. */
static bool fail(kata_reader *r, const char *layer, const char *fmt, ...)
{
    if (r->failed)
        return false;
    r->failed = true;
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    snprintf(r->err, (size_t)r->err_len, "%s: %s: %s", r->path, layer, msg);
    return false;
}

/* The next whitespace-separated token (as istream >> string reads it). Longer tokens are cut to
 * KATA_TOKEN_LEN - 1 bytes (the cursor still moves past the whole token), and bytes that are not
 * printable ASCII become '?' so that messages stay readable. */
static bool next_token(kata_reader *r, const char *layer, const char *what, char *tok)
{
    if (r->failed)
        return false;
    while (r->pos < r->len && isspace(r->buf[r->pos]))
        r->pos++;
    if (r->pos >= r->len)
        return fail(r, layer, "expected %s, the data ends at byte %zu", what, r->len);
    size_t n = 0;
    while (r->pos < r->len && !isspace(r->buf[r->pos])) {
        unsigned char c = r->buf[r->pos];
        if (n < KATA_TOKEN_LEN - 1)
            tok[n++] = c > ' ' && c < 127 ? (char)c : '?';
        r->pos++;
    }
    tok[n] = '\0';
    return true;
}

static bool read_int(kata_reader *r, const char *layer, const char *what, int lo, int hi, int *out)
{
    char tok[KATA_TOKEN_LEN];
    if (!next_token(r, layer, what, tok))
        return false;
    char *end;
    errno = 0;
    long v = strtol(tok, &end, 10);
    if (end == tok || *end || errno || v < INT_MIN || v > INT_MAX)
        return fail(r, layer, "expected %s (an integer), got '%.40s'", what, tok);
    if (v < lo || v > hi)
        return fail(r, layer, "expected %s in %d..%d, got %ld", what, lo, hi, v);
    *out = (int)v;
    return true;
}

static bool parse_float(const char *tok, float *out)
{
    char *end;
    float v = strtof(tok, &end);
    if (end == tok || *end)
        return false;
    *out = v;
    return true;
}

static bool read_float(kata_reader *r, const char *layer, const char *what, float *out)
{
    char tok[KATA_TOKEN_LEN];
    if (!next_token(r, layer, what, tok))
        return false;
    if (!parse_float(tok, out))
        return fail(r, layer, "expected %s (a decimal float), got '%.40s'", what, tok);
    if (!isfinite(*out))
        return fail(r, layer, "%s is %s, expected a finite float", what, tok);
    return true;
}

/* dst (cap bytes) = a b c, cut to fit. */
static void join(char *dst, size_t cap, const char *a, const char *b, const char *c)
{
    const char *part[3] = {a, b, c};
    size_t n = 0;
    for (int i = 0; i < 3; i++) {
        size_t len = strnlen(part[i], cap - 1 - n);
        memcpy(dst + n, part[i], len);
        n += len;
    }
    dst[n] = '\0';
}

/* The layer's name token, copied into name (NN_NAME_LEN) and into label for messages:
 * "role 'name'". */
static bool read_name(kata_reader *r, const char *role, char *name, char *label)
{
    char tok[KATA_TOKEN_LEN];
    if (!next_token(r, role, "a layer name", tok))
        return false;
    join(name, NN_NAME_LEN, tok, "", "");
    char quoted[NN_NAME_LEN + 3];
    join(quoted, sizeof quoted, " '", name, "'");
    join(label, KATA_ROLE_LEN, role, quoted, "");
    return true;
}

static bool mul_size(size_t a, size_t b, size_t *out)
{
    if (a && b > SIZE_MAX / a)
        return false;
    *out = a * b;
    return true;
}

static float float_from_le(const unsigned char *p)
{
    uint32_t u = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
                 (uint32_t)p[3] << 24;
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* Reads n floats (binary "@BIN@" block or n text tokens) into a new array owned by the caller.
 * The size is checked against the bytes left before anything is allocated. */
static float *read_floats(kata_reader *r, const char *layer, size_t n)
{
    if (r->failed)
        return NULL;
    size_t left = r->len - r->pos;
    if (r->binary) {
        size_t skipped = 0;
        while (r->pos < r->len && r->buf[r->pos] != '@' && skipped <= KATA_BIN_SEARCH) {
            r->pos++;
            skipped++;
        }
        if (r->pos >= r->len || skipped > KATA_BIN_SEARCH) {
            fail(r, layer, "expected \"@BIN@\" and %zu floats, %s", n,
                 r->pos >= r->len ? "the data ends first" : "found other bytes");
            return NULL;
        }
        if (r->len - r->pos < 5 || memcmp(r->buf + r->pos, "@BIN@", 5)) {
            fail(r, layer, "expected \"@BIN@\" before %zu floats, got '%.5s'", n,
                 (const char *)r->buf + r->pos);
            return NULL;
        }
        r->pos += 5;
        left = r->len - r->pos;
        size_t bytes;
        if (!mul_size(n, 4, &bytes) || bytes > left) {
            fail(r, layer, "expected %zu floats after \"@BIN@\", the data holds %zu", n, left / 4);
            return NULL;
        }
    } else if (n > left) {
        fail(r, layer, "expected %zu decimal floats, only %zu bytes are left", n, left);
        return NULL;
    }
    float *v = malloc(n * sizeof *v);
    if (!v) {
        fail(r, layer, "out of memory for %zu floats", n);
        return NULL;
    }
    for (size_t i = 0; i < n; i++) {
        if (r->binary) {
            v[i] = float_from_le(r->buf + r->pos);
            r->pos += 4;
        } else {
            char tok[KATA_TOKEN_LEN];
            if (!next_token(r, layer, "a float", tok) || !parse_float(tok, &v[i])) {
                fail(r, layer, "expected %zu decimal floats, float %zu is '%.40s'", n, i, tok);
                free(v);
                return NULL;
            }
        }
        if (!isfinite(v[i])) {
            fail(r, layer, "float %zu of %zu is %s, expected a finite value", i, n,
                 isnan(v[i]) ? "NaN" : "infinite");
            free(v);
            return NULL;
        }
    }
    return v;
}

/* ---- layers ------------------------------------------------------------------------------- */

static bool read_conv(kata_reader *r, const char *role, nn_conv_desc *c)
{
    char label[KATA_ROLE_LEN];
    if (!read_name(r, role, c->name, label) ||
        !read_int(r, label, "kernel height", 1, KATA_MAX_KERNEL, &c->ky) ||
        !read_int(r, label, "kernel width", 1, KATA_MAX_KERNEL, &c->kx) ||
        !read_int(r, label, "input channels", 1, INT_MAX, &c->c_in) ||
        !read_int(r, label, "output channels", 1, INT_MAX, &c->c_out) ||
        !read_int(r, label, "dilation y", 1, KATA_MAX_DILATION, &c->dil_y) ||
        !read_int(r, label, "dilation x", 1, KATA_MAX_DILATION, &c->dil_x))
        return false;
    if (c->ky % 2 == 0 || c->kx % 2 == 0)
        return fail(r, label, "expected odd kernel sizes, got %dx%d", c->ky, c->kx);
    size_t n;
    if (!mul_size((size_t)c->ky * (size_t)c->kx, (size_t)c->c_in, &n) ||
        !mul_size(n, (size_t)c->c_out, &n))
        return fail(r, label, "%dx%dx%dx%d weights overflow", c->ky, c->kx, c->c_in, c->c_out);
    float *file = read_floats(r, label, n);
    if (!file)
        return false;
    c->w = malloc(n * sizeof *c->w);
    if (!c->w) {
        free(file);
        return fail(r, label, "out of memory for %zu weights", n);
    }
    /* file [y][x][c_in][c_out] -> desc [c_out][c_in][y][x] */
    size_t idx = 0;
    for (int y = 0; y < c->ky; y++)
        for (int x = 0; x < c->kx; x++)
            for (int i = 0; i < c->c_in; i++)
                for (int o = 0; o < c->c_out; o++)
                    c->w[(((size_t)o * c->c_in + i) * c->ky + y) * c->kx + x] = file[idx++];
    free(file);
    return true;
}

static bool read_bn(kata_reader *r, const char *role, nn_bn_desc *b)
{
    char label[KATA_ROLE_LEN];
    int has_scale, has_bias;
    if (!read_name(r, role, b->name, label) ||
        !read_int(r, label, "channels", 1, INT_MAX, &b->c) ||
        !read_float(r, label, "epsilon", &b->eps))
        return false;
    if (b->eps <= 0)
        return fail(r, label, "expected epsilon > 0, got %g", (double)b->eps);
    if (!read_int(r, label, "has-scale flag", 0, 1, &has_scale) ||
        !read_int(r, label, "has-bias flag", 0, 1, &has_bias))
        return false;
    if (!(b->mean = read_floats(r, label, (size_t)b->c)) ||
        !(b->var = read_floats(r, label, (size_t)b->c)))
        return false;
    if (has_scale && !(b->scale = read_floats(r, label, (size_t)b->c)))
        return false;
    if (has_bias && !(b->bias = read_floats(r, label, (size_t)b->c)))
        return false;
    for (int i = 0; i < b->c; i++)
        if (!(b->var[i] + b->eps > 0))
            return fail(r, label, "variance %d is %g: variance + epsilon must be > 0", i,
                        (double)b->var[i]);
    return true;
}

static bool read_act(kata_reader *r, const char *role, nn_activation *a)
{
    char name[NN_NAME_LEN], label[KATA_ROLE_LEN], tok[KATA_TOKEN_LEN];
    if (!read_name(r, role, name, label))
        return false;
    *a = NN_ACT_RELU;
    if (r->version < 11)
        return true;
    if (!next_token(r, label, "an activation kind", tok))
        return false;
    if (!strcmp(tok, "ACTIVATION_IDENTITY"))
        *a = NN_ACT_IDENTITY;
    else if (!strcmp(tok, "ACTIVATION_MISH"))
        *a = NN_ACT_MISH;
    else if (!strcmp(tok, "ACTIVATION_SILU"))
        *a = NN_ACT_SILU;
    else if (strcmp(tok, "ACTIVATION_RELU"))
        return fail(r, label,
                    "expected ACTIVATION_IDENTITY, ACTIVATION_RELU, ACTIVATION_MISH or "
                    "ACTIVATION_SILU, got '%.40s'",
                    tok);
    return true;
}

static bool read_matmul(kata_reader *r, const char *role, nn_matmul_desc *m)
{
    char label[KATA_ROLE_LEN];
    size_t n;
    if (!read_name(r, role, m->name, label) ||
        !read_int(r, label, "input channels", 1, INT_MAX, &m->c_in) ||
        !read_int(r, label, "output channels", 1, INT_MAX, &m->c_out))
        return false;
    if (!mul_size((size_t)m->c_in, (size_t)m->c_out, &n))
        return fail(r, label, "%dx%d weights overflow", m->c_in, m->c_out);
    return (m->w = read_floats(r, label, n)) != NULL;   /* [c_in][c_out] as in the file */
}

/* A "matbias" layer, stored as the bias of the matmul m that it follows. */
static bool read_matbias(kata_reader *r, const char *role, nn_matmul_desc *m)
{
    char name[NN_NAME_LEN], label[KATA_ROLE_LEN];
    int c;
    if (!read_name(r, role, name, label) ||
        !read_int(r, label, "channels", 1, INT_MAX, &c))
        return false;
    if (c != m->c_out)
        return fail(r, label, "expected %d channels (%s's outputs), got %d", m->c_out, m->name, c);
    return (m->bias = read_floats(r, label, (size_t)c)) != NULL;
}

/* KataGo's epsilon of an RMS norm: > 0 and <= 1. */
static bool read_rms_eps(kata_reader *r, const char *label, float *eps)
{
    if (!read_float(r, label, "epsilon", eps))
        return false;
    if (!(*eps > 0) || *eps > 1.0f)
        return fail(r, label, "expected epsilon in (0, 1], got %g", (double)*eps);
    return true;
}

/* A transformer block's RMS norm: name, channels, epsilon, weight[c]. */
static bool read_rms_norm(kata_reader *r, const char *role, nn_kata_rms_norm *n)
{
    char label[KATA_ROLE_LEN];
    return read_name(r, role, n->name, label) &&
           read_int(r, label, "channels", 1, INT_MAX, &n->c) && read_rms_eps(r, label, &n->eps) &&
           (n->weight = read_floats(r, label, (size_t)n->c)) != NULL;
}

/* The trunk tip of an RMS-norm trunk: name, channels, epsilon, spatial (0/1), channel group
 * size (KataGo takes only 0), gamma[c], beta[c]. */
static bool read_tip_rms(kata_reader *r, const char *role, nn_kata_tip_rms *n)
{
    char label[KATA_ROLE_LEN];
    int spatial, group;
    if (!read_name(r, role, n->name, label) ||
        !read_int(r, label, "channels", 1, INT_MAX, &n->c) || !read_rms_eps(r, label, &n->eps) ||
        !read_int(r, label, "spatial flag", INT_MIN, INT_MAX, &spatial) ||
        !read_int(r, label, "channel group size (0: grouped RMS norms are not supported)", 0, 0,
                  &group))
        return false;
    n->spatial = spatial != 0;
    return (n->gamma = read_floats(r, label, (size_t)n->c)) != NULL &&
           (n->beta = read_floats(r, label, (size_t)n->c)) != NULL;
}

/* Checks that a == b for two channel counts of one layer group. */
static bool same(kata_reader *r, const char *layer, const char *what_a, int a, const char *what_b,
                 int b)
{
    if (r->failed)
        return false;
    if (a != b)
        return fail(r, layer, "%s (%d) != %s (%d)", what_a, a, what_b, b);
    return true;
}

static char *role_of(char *buf, const char *parent, const char *part)
{
    join(buf, KATA_ROLE_LEN, parent, ".", part);
    return buf;
}

/* ---- blocks ------------------------------------------------------------------------------- */

static bool read_block_stack(kata_reader *r, const char *role, int depth, int channels, int num,
                             nn_kata_block **out, int *num_out);

/* A transformer attention block after its name (format in kata.h), on `channels` channels. */
static bool read_attention(kata_reader *r, const char *label, int channels, nn_kata_attention *a)
{
    char sub[KATA_ROLE_LEN];
    int rope, learnable;
    if (!read_int(r, label, "number of heads", 1, INT_MAX, &a->heads) ||
        !read_int(r, label, "number of key/value heads", 1, INT_MAX, &a->kv_heads) ||
        !read_int(r, label, "query/key head dimension", 1, INT_MAX, &a->q_dim) ||
        !read_int(r, label, "value head dimension", 1, INT_MAX, &a->v_dim) ||
        !read_int(r, label, "rotary encoding flag", INT_MIN, INT_MAX, &rope) ||
        !read_int(r, label, "learnable rotary encoding flag", INT_MIN, INT_MAX, &learnable))
        return false;
    a->rope = rope != 0;
    a->learnable_rope = learnable != 0;
    if (a->heads % a->kv_heads)
        return fail(r, label, "heads (%d) must be a multiple of key/value heads (%d)", a->heads,
                    a->kv_heads);
    if (a->rope && a->q_dim % 2)
        return fail(r, label, "query/key head dimension (%d) must be even with rotary encoding",
                    a->q_dim);
    if ((long long)a->heads * a->q_dim > INT_MAX || (long long)a->heads * a->v_dim > INT_MAX)
        return fail(r, label, "%d heads of %d and %d channels overflow", a->heads, a->q_dim,
                    a->v_dim);
    if (!read_rms_norm(r, role_of(sub, label, "norm"), &a->norm) ||
        !read_matmul(r, role_of(sub, label, "q_proj"), &a->q) ||
        !read_matmul(r, role_of(sub, label, "k_proj"), &a->k) ||
        !read_matmul(r, role_of(sub, label, "v_proj"), &a->v) ||
        !read_matmul(r, role_of(sub, label, "out_proj"), &a->out))
        return false;
    if (!same(r, label, "q_proj output channels", a->q.c_out, "heads * query head dimension",
              a->heads * a->q_dim) ||
        !same(r, label, "k_proj output channels", a->k.c_out,
              "key/value heads * query head dimension", a->kv_heads * a->q_dim) ||
        !same(r, label, "v_proj output channels", a->v.c_out,
              "key/value heads * value head dimension", a->kv_heads * a->v_dim) ||
        !same(r, label, "out_proj input channels", a->out.c_in, "heads * value head dimension",
              a->heads * a->v_dim) ||
        !same(r, label, "q_proj input channels", a->q.c_in, "trunk channels", channels) ||
        !same(r, label, "k_proj input channels", a->k.c_in, "trunk channels", channels) ||
        !same(r, label, "v_proj input channels", a->v.c_in, "trunk channels", channels) ||
        !same(r, label, "norm channels", a->norm.c, "trunk channels", channels) ||
        !same(r, label, "out_proj output channels", a->out.c_out, "trunk channels", channels))
        return false;
    if (!a->rope)
        return true;
    char name[NN_NAME_LEN], rlabel[KATA_ROLE_LEN];
    if (!read_name(r, role_of(sub, label, a->learnable_rope ? "rope_freqs" : "rope_theta"), name,
                   rlabel))
        return false;
    if (!a->learnable_rope) {
        if (!read_float(r, rlabel, "rotary encoding theta", &a->rope_theta))
            return false;
        if (!(a->rope_theta > 0))
            return fail(r, rlabel, "expected theta > 0, got %g", (double)a->rope_theta);
        return true;
    }
    int kv, pairs, two;
    if (!read_int(r, rlabel, "key/value heads", a->kv_heads, a->kv_heads, &kv) ||
        !read_int(r, rlabel, "frequency pairs (query/key head dimension / 2)", a->q_dim / 2,
                  a->q_dim / 2, &pairs) ||
        !read_int(r, rlabel, "frequencies per pair (x, y)", 2, 2, &two))
        return false;
    return (a->rope_freqs = read_floats(r, rlabel, (size_t)kv * (size_t)pairs * 2)) != NULL;
}

/* A transformer feed-forward block after its name, on `channels` channels. */
static bool read_ffn(kata_reader *r, const char *label, int channels, nn_kata_ffn *f)
{
    char sub[KATA_ROLE_LEN];
    int swiglu;
    if (!read_int(r, label, "channels", 1, INT_MAX, &f->c) ||
        !read_int(r, label, "feed-forward channels", 1, INT_MAX, &f->ffn_c) ||
        !read_int(r, label, "SwiGLU flag", INT_MIN, INT_MAX, &swiglu))
        return false;
    f->swiglu = swiglu != 0;
    if (!read_rms_norm(r, role_of(sub, label, "norm"), &f->norm) ||
        !read_matmul(r, role_of(sub, label, "linear1"), &f->linear1) ||
        (f->swiglu && !read_matmul(r, role_of(sub, label, "linear_gate"), &f->gate)) ||
        !read_matmul(r, role_of(sub, label, "linear2"), &f->linear2))
        return false;
    if (!same(r, label, "linear1 input channels", f->linear1.c_in, "channels", f->c) ||
        !same(r, label, "linear1 output channels", f->linear1.c_out, "feed-forward channels",
              f->ffn_c) ||
        (f->swiglu &&
         (!same(r, label, "linear_gate input channels", f->gate.c_in, "channels", f->c) ||
          !same(r, label, "linear_gate output channels", f->gate.c_out, "feed-forward channels",
                f->ffn_c))) ||
        !same(r, label, "linear2 input channels", f->linear2.c_in, "feed-forward channels",
              f->ffn_c) ||
        !same(r, label, "linear2 output channels", f->linear2.c_out, "channels", f->c) ||
        !same(r, label, "norm channels", f->norm.c, "channels", f->c) ||
        !same(r, label, "channels", f->c, "trunk channels", channels))
        return false;
    if (!f->swiglu)
        return fail(r, label, "a feed-forward block without SwiGLU (KataGo 1.17 does not run "
                              "it either)");
    return true;
}

static bool read_block(kata_reader *r, const char *role, int depth, int channels, nn_kata_block *b)
{
    char tok[KATA_TOKEN_LEN], label[KATA_ROLE_LEN], sub[KATA_ROLE_LEN];
    if (!next_token(r, role, "a block kind", tok))
        return false;
    if (!strcmp(tok, "ordinary_block"))
        b->kind = NN_KATA_BLOCK_ORDINARY;
    else if (!strcmp(tok, "gpool_block"))
        b->kind = NN_KATA_BLOCK_GPOOL;
    else if (!strcmp(tok, "nested_bottleneck_block"))
        b->kind = NN_KATA_BLOCK_NESTED;
    else if (!strcmp(tok, "transformer_attention_block"))
        b->kind = NN_KATA_BLOCK_ATTENTION;
    else if (!strcmp(tok, "transformer_ffn_block"))
        b->kind = NN_KATA_BLOCK_FFN;
    else
        return fail(r, role,
                    "expected ordinary_block, gpool_block, nested_bottleneck_block, "
                    "transformer_attention_block or transformer_ffn_block, got '%.40s'",
                    tok);
    if (!read_name(r, role, b->name, label))
        return false;
    if (b->kind == NN_KATA_BLOCK_ATTENTION)
        return read_attention(r, label, channels, &b->attn);
    if (b->kind == NN_KATA_BLOCK_FFN)
        return read_ffn(r, label, channels, &b->ffn);
    int inner = 0;
    if (b->kind == NN_KATA_BLOCK_NESTED) {
        if (depth >= KATA_MAX_NESTING)
            return fail(r, label, "nested bottleneck blocks deeper than %d", KATA_MAX_NESTING);
        if (!read_int(r, label, "number of inner blocks", 1, INT_MAX, &inner))
            return false;
    }
    if (!read_bn(r, role_of(sub, label, "bn1"), &b->bn1) ||
        !read_act(r, role_of(sub, label, "act1"), &b->act1) ||
        !read_conv(r, role_of(sub, label, "conv1"), &b->conv1))
        return false;
    if (b->kind == NN_KATA_BLOCK_GPOOL &&
        (!read_conv(r, role_of(sub, label, "gpool_conv"), &b->gpool_conv) ||
         !read_bn(r, role_of(sub, label, "gpool_bn"), &b->gpool_bn) ||
         !read_act(r, role_of(sub, label, "gpool_act"), &b->gpool_act) ||
         !read_matmul(r, role_of(sub, label, "gpool_to_bias"), &b->gpool_to_bias)))
        return false;
    if (b->kind == NN_KATA_BLOCK_NESTED &&
        !read_block_stack(r, label, depth + 1, b->conv1.c_out, inner, &b->inner, &b->num_inner))
        return false;
    if (!read_bn(r, role_of(sub, label, "bn2"), &b->bn2) ||
        !read_act(r, role_of(sub, label, "act2"), &b->act2) ||
        !read_conv(r, role_of(sub, label, "conv2"), &b->conv2))
        return false;
    if (!same(r, label, "bn1 channels", b->bn1.c, "conv1 input channels", b->conv1.c_in) ||
        !same(r, label, "bn2 channels", b->bn2.c, "conv1 output channels", b->conv1.c_out) ||
        !same(r, label, "bn2 channels", b->bn2.c, "conv2 input channels", b->conv2.c_in) ||
        !same(r, label, "bn1 channels", b->bn1.c, "trunk channels", channels) ||
        !same(r, label, "conv2 output channels", b->conv2.c_out, "trunk channels", channels))
        return false;
    if (b->kind == NN_KATA_BLOCK_GPOOL &&
        (!same(r, label, "gpool_conv input channels", b->gpool_conv.c_in, "bn1 channels",
               b->bn1.c) ||
         !same(r, label, "gpool_bn channels", b->gpool_bn.c, "gpool_conv output channels",
               b->gpool_conv.c_out) ||
         !same(r, label, "gpool_to_bias input channels", b->gpool_to_bias.c_in,
               "3 * gpool_bn channels", 3 * b->gpool_bn.c) ||
         !same(r, label, "gpool_to_bias output channels", b->gpool_to_bias.c_out,
               "bn2 channels", b->bn2.c)))
        return false;
    return true;
}

static bool read_block_stack(kata_reader *r, const char *role, int depth, int channels, int num,
                             nn_kata_block **out, int *num_out)
{
    /* A block takes well over KATA_MIN_BLOCK_BYTES (kind, name, two norms and convolutions),
     * which bounds the count by what is left before anything is allocated. */
    if ((size_t)num > (r->len - r->pos) / KATA_MIN_BLOCK_BYTES)
        return fail(r, role, "expected %d blocks, only %zu bytes are left", num, r->len - r->pos);
    *out = calloc((size_t)num, sizeof **out);
    if (!*out)
        return fail(r, role, "out of memory for %d blocks", num);
    *num_out = num;
    for (int i = 0; i < num; i++) {
        char sub[KATA_ROLE_LEN], index[24];
        snprintf(index, sizeof index, ".blocks[%d]", i);
        join(sub, sizeof sub, role, index, "");
        if (!read_block(r, sub, depth, channels, &(*out)[i]))
            return false;
    }
    return true;
}

/* ---- model parts -------------------------------------------------------------------------- */

static bool read_meta_encoder(kata_reader *r, int trunk_channels, nn_kata_meta_encoder *m)
{
    char label[KATA_ROLE_LEN], sub[KATA_ROLE_LEN];
    if (!read_name(r, "metadata encoder", m->name, label) ||
        !read_int(r, label, "metadata input channels", NN_KATA_META_INPUTS, NN_KATA_META_INPUTS,
                  &m->num_inputs) ||
        !read_matmul(r, role_of(sub, label, "mul1"), &m->mul1) ||
        !read_matbias(r, role_of(sub, label, "bias1"), &m->mul1) ||
        !read_act(r, role_of(sub, label, "act1"), &m->act1) ||
        !read_matmul(r, role_of(sub, label, "mul2"), &m->mul2) ||
        !read_matbias(r, role_of(sub, label, "bias2"), &m->mul2) ||
        !read_act(r, role_of(sub, label, "act2"), &m->act2) ||
        !read_matmul(r, role_of(sub, label, "mul3"), &m->mul3))
        return false;
    return same(r, label, "mul1 input channels", m->mul1.c_in, "metadata inputs", m->num_inputs) &&
           same(r, label, "mul2 input channels", m->mul2.c_in, "mul1 output channels",
                m->mul1.c_out) &&
           same(r, label, "mul3 input channels", m->mul3.c_in, "mul2 output channels",
                m->mul2.c_out) &&
           same(r, label, "mul3 output channels", m->mul3.c_out, "trunk channels", trunk_channels);
}

static bool read_trunk(kata_reader *r, nn_kata_desc *k)
{
    nn_kata_trunk *t = &k->trunk;
    char label[KATA_ROLE_LEN];
    int dilated, unused;
    if (!read_name(r, "trunk", t->name, label) ||
        !read_int(r, label, "number of blocks", 1, INT_MAX, &t->num_blocks) ||
        !read_int(r, label, "trunk channels", 1, INT_MAX, &t->trunk_channels) ||
        !read_int(r, label, "mid channels", 1, INT_MAX, &t->mid_channels) ||
        !read_int(r, label, "regular channels", 1, INT_MAX, &t->regular_channels) ||
        !read_int(r, label, "dilated channels", INT_MIN, INT_MAX, &dilated) ||
        !read_int(r, label, "gpool channels", 1, INT_MAX, &t->gpool_channels))
        return false;
    if (k->version >= 15) {
        if (!read_int(r, label, "trunk norm kind (0 batch norm, 1 RMS norm)", 0, 1,
                      &t->norm_kind))
            return false;
        for (int i = 0; i < 5; i++) {
            char what[48];
            snprintf(what, sizeof what, "unused trunk option %c (0)", 'B' + i);
            if (!read_int(r, label, what, 0, 0, &unused))
                return false;
        }
    }
    int num_blocks = t->num_blocks;
    t->num_blocks = 0;   /* counts allocated blocks from here on, for nn_kata_desc_free */
    if (!read_conv(r, "trunk.initial_conv", &t->initial_conv) ||
        !same(r, "trunk.initial_conv", "input channels", t->initial_conv.c_in,
              "spatial input channels", k->num_spatial) ||
        !same(r, "trunk.initial_conv", "output channels", t->initial_conv.c_out,
              "trunk channels", t->trunk_channels) ||
        !read_matmul(r, "trunk.initial_matmul", &t->initial_matmul) ||
        !same(r, "trunk.initial_matmul", "input channels", t->initial_matmul.c_in,
              "global input channels", k->num_global) ||
        !same(r, "trunk.initial_matmul", "output channels", t->initial_matmul.c_out,
              "trunk channels", t->trunk_channels))
        return false;
    if (k->meta_encoder_version > 0 && !read_meta_encoder(r, t->trunk_channels, &k->meta))
        return false;
    if (!read_block_stack(r, "trunk", 0, t->trunk_channels, num_blocks, &t->blocks,
                          &t->num_blocks))
        return false;
    if (t->norm_kind == 1)
        return read_tip_rms(r, "trunk.tip_rms", &t->tip_rms) &&
               read_act(r, "trunk.tip_act", &t->tip_act) &&
               same(r, "trunk.tip_rms", "channels", t->tip_rms.c, "trunk channels",
                    t->trunk_channels);
    return read_bn(r, "trunk.tip_bn", &t->tip_bn) && read_act(r, "trunk.tip_act", &t->tip_act) &&
           same(r, "trunk.tip_bn", "channels", t->tip_bn.c, "trunk channels", t->trunk_channels);
}

/* Version 17's three unused options A, B, C of a head, each 0. */
static bool read_unused(kata_reader *r, const char *label, const char *head)
{
    for (int i = 0; i < 3; i++) {
        char what[48];
        int unused;
        snprintf(what, sizeof what, "unused %s option %c (0)", head, 'A' + i);
        if (!read_int(r, label, what, 0, 0, &unused))
            return false;
    }
    return true;
}

static bool read_policy(kata_reader *r, nn_kata_desc *k)
{
    nn_kata_policy_head *p = &k->policy;
    char label[KATA_ROLE_LEN], sub[KATA_ROLE_LEN];
    p->out_channels = k->version == 16 ? 4 : k->version >= 12 ? 2 : 1;
    p->has_pass2 = k->version >= 15;
    if (!read_name(r, "policy head", p->name, label))
        return false;
    if (k->version >= 17) {
        if (!read_int(r, label, "policy output channels", 2, 4, &p->out_channels))
            return false;
        if (p->out_channels == 3)
            return fail(r, label, "expected 2 or 4 policy output channels, got 3");
        if (!read_unused(r, label, "policy"))
            return false;
    }
    if (!read_conv(r, role_of(sub, label, "p1_conv"), &p->p1_conv) ||
        !read_conv(r, role_of(sub, label, "g1_conv"), &p->g1_conv) ||
        !read_bn(r, role_of(sub, label, "g1_bn"), &p->g1_bn) ||
        !read_act(r, role_of(sub, label, "g1_act"), &p->g1_act) ||
        !read_matmul(r, role_of(sub, label, "gpool_to_bias"), &p->gpool_to_bias) ||
        !read_bn(r, role_of(sub, label, "p1_bn"), &p->p1_bn) ||
        !read_act(r, role_of(sub, label, "p1_act"), &p->p1_act) ||
        !read_conv(r, role_of(sub, label, "p2_conv"), &p->p2_conv) ||
        !read_matmul(r, role_of(sub, label, "gpool_to_pass"), &p->gpool_to_pass))
        return false;
    if (p->has_pass2 &&
        (!read_matbias(r, role_of(sub, label, "gpool_to_pass_bias"), &p->gpool_to_pass) ||
         !read_act(r, role_of(sub, label, "pass_act"), &p->pass_act) ||
         !read_matmul(r, role_of(sub, label, "gpool_to_pass2"), &p->gpool_to_pass2)))
        return false;
    int trunk = k->trunk.trunk_channels;
    if (!same(r, label, "p1_conv input channels", p->p1_conv.c_in, "trunk channels", trunk) ||
        !same(r, label, "g1_conv input channels", p->g1_conv.c_in, "trunk channels", trunk) ||
        !same(r, label, "p1_conv output channels", p->p1_conv.c_out, "p1_bn channels",
              p->p1_bn.c) ||
        !same(r, label, "g1_conv output channels", p->g1_conv.c_out, "g1_bn channels",
              p->g1_bn.c) ||
        !same(r, label, "gpool_to_bias input channels", p->gpool_to_bias.c_in,
              "3 * g1_bn channels", 3 * p->g1_bn.c) ||
        !same(r, label, "gpool_to_bias output channels", p->gpool_to_bias.c_out,
              "p1_bn channels", p->p1_bn.c) ||
        !same(r, label, "p2_conv input channels", p->p2_conv.c_in, "p1_bn channels", p->p1_bn.c) ||
        !same(r, label, "p2_conv output channels", p->p2_conv.c_out, "policy outputs",
              p->out_channels) ||
        !same(r, label, "gpool_to_pass input channels", p->gpool_to_pass.c_in,
              "3 * g1_bn channels", 3 * p->g1_bn.c))
        return false;
    if (!p->has_pass2)
        return same(r, label, "gpool_to_pass output channels", p->gpool_to_pass.c_out,
                    "policy outputs", p->out_channels);
    return same(r, label, "gpool_to_pass output channels", p->gpool_to_pass.c_out,
                "p1_conv output channels", p->p1_conv.c_out) &&
           same(r, label, "gpool_to_pass2 input channels", p->gpool_to_pass2.c_in,
                "gpool_to_pass output channels", p->gpool_to_pass.c_out) &&
           same(r, label, "gpool_to_pass2 output channels", p->gpool_to_pass2.c_out,
                "policy outputs", p->out_channels);
}

static bool read_value(kata_reader *r, nn_kata_desc *k)
{
    nn_kata_value_head *v = &k->value;
    char label[KATA_ROLE_LEN], sub[KATA_ROLE_LEN];
    if (!read_name(r, "value head", v->name, label) ||
        (k->version >= 17 && !read_unused(r, label, "value")) ||
        !read_conv(r, role_of(sub, label, "v1_conv"), &v->v1_conv) ||
        !read_bn(r, role_of(sub, label, "v1_bn"), &v->v1_bn) ||
        !read_act(r, role_of(sub, label, "v1_act"), &v->v1_act) ||
        !read_matmul(r, role_of(sub, label, "v2"), &v->v2) ||
        !read_matbias(r, role_of(sub, label, "v2_bias"), &v->v2) ||
        !read_act(r, role_of(sub, label, "v2_act"), &v->v2_act) ||
        !read_matmul(r, role_of(sub, label, "v3"), &v->v3) ||
        !read_matbias(r, role_of(sub, label, "v3_bias"), &v->v3) ||
        !read_matmul(r, role_of(sub, label, "sv3"), &v->sv3) ||
        !read_matbias(r, role_of(sub, label, "sv3_bias"), &v->sv3) ||
        !read_conv(r, role_of(sub, label, "ownership_conv"), &v->ownership_conv))
        return false;
    return same(r, label, "v1_conv input channels", v->v1_conv.c_in, "trunk channels",
                k->trunk.trunk_channels) &&
           same(r, label, "v1_conv output channels", v->v1_conv.c_out, "v1_bn channels",
                v->v1_bn.c) &&
           same(r, label, "v2 input channels", v->v2.c_in, "3 * v1_bn channels", 3 * v->v1_bn.c) &&
           same(r, label, "v3 input channels", v->v3.c_in, "v2 output channels", v->v2.c_out) &&
           same(r, label, "v3 output channels", v->v3.c_out, "win/loss/no-result outputs", 3) &&
           same(r, label, "sv3 input channels", v->sv3.c_in, "v2 output channels", v->v2.c_out) &&
           same(r, label, "sv3 output channels", v->sv3.c_out, "score outputs of this version",
                k->score_channels) &&
           same(r, label, "ownership_conv input channels", v->ownership_conv.c_in,
                "v1_conv output channels", v->v1_conv.c_out) &&
           same(r, label, "ownership_conv output channels", v->ownership_conv.c_out,
                "ownership outputs", 1);
}

/* KataGo's input-features version and channel counts for a model version. */
static void inputs_of_version(int version, int *inputs, int *spatial, int *global)
{
    if (version >= 8) {
        *inputs = 7, *spatial = 22, *global = 19;
    } else if (version == 7) {
        *inputs = 6, *spatial = 22, *global = 16;
    } else if (version == 6) {
        *inputs = 5, *spatial = 13, *global = 12;
    } else if (version == 5) {
        *inputs = 4, *spatial = 22, *global = 14;
    } else {
        *inputs = 3, *spatial = 22, *global = 14;
    }
}

static bool read_model(kata_reader *r, nn_kata_desc *k)
{
    char tok[KATA_TOKEN_LEN], label[KATA_ROLE_LEN];
    if (!read_name(r, "model", k->name, label))
        return false;
    if (!next_token(r, label, "the model version", tok))
        return false;
    char *end;
    errno = 0;
    long version = strtol(tok, &end, 10);
    if (end == tok || *end || errno)
        return fail(r, label, "expected the model version (an integer), got '%.40s'", tok);
    if (version < NN_KATA_MIN_VERSION || version > NN_KATA_MAX_VERSION)
        return fail(r, label, "unsupported model version %ld (shido reads %d..%d)", version,
                    NN_KATA_MIN_VERSION, NN_KATA_MAX_VERSION);
    k->version = r->version = (int)version;
    int spatial, global;
    inputs_of_version(k->version, &k->inputs_version, &spatial, &global);
    k->score_channels = k->version >= 9 ? 6 : k->version >= 8 ? 4 : k->version >= 4 ? 2 : 1;
    if (!read_int(r, label, "spatial input channels", spatial, spatial, &k->num_spatial) ||
        !read_int(r, label, "global input channels", global, global, &k->num_global))
        return false;
    nn_kata_postprocess *pp = &k->post;
    *pp = (nn_kata_postprocess){20, 20, 20, 20, 40, 0.25, 30};
    if (k->version >= 13) {
        static const char *what[7] = {"td score multiplier", "score mean multiplier",
                                      "score stdev multiplier", "lead multiplier",
                                      "variance time multiplier",
                                      "shortterm value error multiplier",
                                      "shortterm score error multiplier"};
        double *field[7] = {&pp->td_score, &pp->score_mean, &pp->score_stdev, &pp->lead,
                            &pp->variance_time, &pp->shortterm_value_error,
                            &pp->shortterm_score_error};
        for (int i = 0; i < 7; i++) {
            float f;
            if (!read_float(r, label, what[i], &f))
                return false;
            if (f <= 0)
                return fail(r, label, "expected %s > 0, got %g", what[i], (double)f);
            *field[i] = f;
        }
    }
    if (k->version >= 15) {
        int prefer, unused;
        if (!read_int(r, label, "metadata encoder version", 0, 1, &k->meta_encoder_version) ||
            !read_int(r, label, "pass-alive-under-suicide flag (0 or 1)", 0, 1, &prefer))
            return false;
        k->prefer_pass_alive_suicide = prefer == 1;
        for (int i = 0; i < 6; i++) {
            char what[48];
            snprintf(what, sizeof what, "unused model option %c (0)", 'C' + i);
            if (!read_int(r, label, what, 0, 0, &unused))
                return false;
        }
    }
    return read_trunk(r, k) && read_policy(r, k) && read_value(r, k);
}

/* ---- files -------------------------------------------------------------------------------- */

/* Reads the whole file (gunzipping when it is gzip) into a new buffer owned by the caller. */
static unsigned char *read_file(const char *path, size_t *len, char *err, int err_len)
{
    gzFile f = gzopen(path, "rb");
    if (!f) {
        snprintf(err, (size_t)err_len, "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    /* bigger reads than zlib's 8 KiB default: fewer system calls on 100 MB files */
    if (gzbuffer(f, 1u << 17) != 0) {
        snprintf(err, (size_t)err_len, "%s: file: out of memory", path);
        gzclose_r(f);
        return NULL;
    }
    size_t cap = 1 << 16, n = 0;
    unsigned char *buf = malloc(cap);
    while (buf) {
        if (n == cap) {
            unsigned char *grown = cap < KATA_MAX_FILE_BYTES ? realloc(buf, cap * 2) : NULL;
            if (!grown) {
                snprintf(err, (size_t)err_len, "%s: file: more than %zu bytes, or out of memory",
                         path, cap);
                free(buf);
                gzclose_r(f);
                return NULL;
            }
            buf = grown;
            cap *= 2;
        }
        unsigned want = cap - n > (1u << 30) ? (1u << 30) : (unsigned)(cap - n);
        int got = gzread(f, buf + n, want);
        if (got < 0) {
            int code;
            const char *msg = gzerror(f, &code);
            snprintf(err, (size_t)err_len, "%s: file: cannot decompress: %s", path, msg);
            free(buf);
            gzclose_r(f);
            return NULL;
        }
        if (got == 0)
            break;
        n += (size_t)got;
    }
    if (!buf) {
        snprintf(err, (size_t)err_len, "%s: file: out of memory", path);
        gzclose_r(f);
        return NULL;
    }
    int code;
    const char *msg = gzerror(f, &code);
    if (code != Z_OK) {
        snprintf(err, (size_t)err_len, "%s: file: gzip data truncated or corrupt: %s", path, msg);
        free(buf);
        gzclose_r(f);
        return NULL;
    }
    if (gzclose_r(f) != Z_OK) {
        snprintf(err, (size_t)err_len, "%s: file: error closing", path);
        free(buf);
        return NULL;
    }
    *len = n;
    return buf;
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && !strcasecmp(s + a - b, suffix);
}

static nn_kata_desc *parse(const char *path, const unsigned char *buf, size_t len, bool binary,
                           char *err, int err_len)
{
    nn_kata_desc *k = calloc(1, sizeof *k);
    if (!k) {
        snprintf(err, (size_t)err_len, "%s: model: out of memory", path);
        return NULL;
    }
    kata_reader r = {.path = path, .buf = buf, .len = len, .binary = binary, .err = err,
                     .err_len = err_len};
    if (!read_model(&r, k)) {
        nn_kata_desc_free(k);
        return NULL;
    }
    return k;
}

nn_desc *weights_load_kata(const char *path, char *err, int err_len)
{
    /* The name says binary or text where it can; any other name (".gz", none, a download's
     * own) is read as binary, then as text: the content decides, as weights_is_kata's sniff
     * already did. */
    bool text = ends_with(path, ".txt") || ends_with(path, ".txt.gz");
    bool either = !text && !ends_with(path, ".bin") && !ends_with(path, ".bin.gz");
    size_t len;
    unsigned char *buf = read_file(path, &len, err, err_len);
    if (!buf)
        return NULL;
    nn_kata_desc *k = parse(path, buf, len, !text, err, err_len);
    if (!k && either) {
        char binary_err[512];
        snprintf(binary_err, sizeof binary_err, "%s", err);
        k = parse(path, buf, len, false, err, err_len);
        if (!k) {
            char text_err[512];
            snprintf(text_err, sizeof text_err, "%s", err);
            snprintf(err, (size_t)err_len, "%s (read as binary); %s (read as text)", binary_err,
                     text_err);
        }
    }
    free(buf);
    if (!k)
        return NULL;
    nn_desc *d = calloc(1, sizeof *d);
    if (!d) {
        snprintf(err, (size_t)err_len, "%s: model: out of memory", path);
        nn_kata_desc_free(k);
        return NULL;
    }
    d->family = NN_FAMILY_KATA;
    snprintf(d->source, sizeof d->source, "%s", path);
    d->kata = k;
    return d;
}

static bool is_integer(const char *s)
{
    char *end;
    errno = 0;
    strtol(s, &end, 10);
    return end != s && !*end && !errno;
}

bool weights_is_kata(const char *path)
{
    gzFile f = gzopen(path, "rb");
    if (!f)
        return false;
    unsigned char head[4096];
    int n = gzread(f, head, sizeof head);
    gzclose_r(f);
    if (n <= 0)
        return false;
    char err[64];
    kata_reader r = {.path = path, .buf = head, .len = (size_t)n, .err = err,
                     .err_len = (int)sizeof err};
    char tok[5][KATA_TOKEN_LEN];
    for (int i = 0; i < 5; i++)
        if (!next_token(&r, "header", "a token", tok[i]))
            return false;
    float f5;
    return is_integer(tok[1]) && is_integer(tok[2]) && is_integer(tok[3]) &&
           (!strcmp(tok[4], "trunk") || parse_float(tok[4], &f5));
}
