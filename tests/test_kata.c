/* tests/test_kata.c -- the KataGo family: loading model files (binary and text, versions 3..17,
 * corrupt files refused cleanly), input features, and the reference forward pass reproducing
 * KataGo 1.17's kata-raw-nn outputs in ../shared/vectors. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "go/game.h"
#include "weights/desc.h"
#include "weights/desc_kata.h"
#include "weights/weights.h"
#include "nn/kata_inputs.h"
#include "nn/ref/kata_forward.h"
#include "tests/common.h"
#include "tests/vectors.h"
#include "weights/kata.h"

#define B5C192 TEST_WEIGHTS "rand-b5c192nbt-v15.bin.gz"
#define B10C384H6 TEST_WEIGHTS "b10c384h6nbttflrs.bin.gz"

/* Records of the transformer net the reference checks by default (~5 s a 19x19 record in
 * Release): a 19x19 ko position and the first 9x9 one (off-board points masked in KataGo's 19x19
 * tensor); the sanitizer run checks the 9x9 one. SHIDO_TRANSFORMER_VECTORS=all checks all 52. */
static const int b10c384h6_records[] = {10, 46};

/* ---- vectors ------------------------------------------------------------------------------ */

/* The reference through nn_kata_ref_eval against every record (tolerances in vectors.h), or
 * only those of pick[num_pick] when pick is not NULL. */
static void check_vectors_of(const char *weights, const char *vectors, const int *pick,
                             int num_pick)
{
    char err[1024];
    nn_desc *d = weights_load_kata(weights, err, sizeof err);
    ck_assert_msg(d, "%s", err);
    vec_file vf;
    ck_assert_msg(vec_file_read(vectors, &vf, err, sizeof err), "%s", err);
    ck_assert_int_gt(vf.num_records, 0);
    vec_kata_stats st = {0};
    nn_kata_output *out = malloc(sizeof *out);
    ck_assert(out);
    int count = pick ? num_pick : (vf.num_records + vec_stride() - 1) / vec_stride();
    for (int ri = 0; ri < count; ri++) {
        int r = pick ? pick[ri] : ri * vec_stride();
        ck_assert_int_lt(r, vf.num_records);
        const cJSON *rec = vf.records[r];
        const char *id = cJSON_GetObjectItemCaseSensitive(rec, "id")->valuestring;
        int sym = (int)test_json_num(rec, "symmetry");
        go_game g;
        ck_assert_msg(vec_setup_game(rec, &g, err, sizeof err), "%s: %s", id, err);
        ck_assert_msg(nn_kata_ref_eval(d, &g, sym, NN_KATA_DEFAULT_OPTIMISM, out, err, sizeof err),
                      "%s: %s", id, err);
        vec_kata_got got = {{out->white_win, out->white_loss, out->no_result, out->white_lead,
                             out->white_score_selfplay, out->white_score_selfplay_sq,
                             out->var_time_left, out->shortterm_winloss_error,
                             out->shortterm_score_error},
                            out->policy, out->white_ownership, out->policy_pass};
        vec_kata_compare(rec, g.board.size, &got, &st);
        go_game_free(&g);
    }
    vec_kata_finish(strrchr(vectors, '/') + 1, vf.num_records, &st);
    free(out);
    vec_file_free(&vf);
    nn_desc_free(d);
}

static void check_vectors(const char *weights, const char *vectors)
{
    check_vectors_of(weights, vectors, NULL, 0);
}

START_TEST(vectors_g170) { check_vectors(TEST_G170, TEST_VECTORS "katago-g170-b6c96.jsonl"); }
END_TEST

START_TEST(vectors_b2c16_v15)
{
    check_vectors(TEST_B2C16, TEST_VECTORS "katago-rand-b2c16-v15.jsonl");
}
END_TEST

START_TEST(vectors_b5c192nbt_v15)
{
    check_vectors(B5C192, TEST_VECTORS "katago-rand-b5c192nbt-v15.jsonl");
}
END_TEST

/* KataGo 1.17's transformer net (RMS-norm trunk, attention and feed-forward blocks). Under the
 * sanitizer (SHIDO_VECTORS_STRIDE > 1) one record: the reference is ~4 times slower there. */
START_TEST(vectors_b10c384h6_transformer)
{
    const char *all = getenv("SHIDO_TRANSFORMER_VECTORS");
    int n = (int)(sizeof b10c384h6_records / sizeof b10c384h6_records[0]);
    if (all && !strcmp(all, "all"))
        check_vectors(B10C384H6, TEST_VECTORS "katago-b10c384h6nbttflrs.jsonl");
    else
        check_vectors_of(B10C384H6, TEST_VECTORS "katago-b10c384h6nbttflrs.jsonl",
                         vec_stride() > 1 ? b10c384h6_records + 1 : b10c384h6_records,
                         vec_stride() > 1 ? 1 : n);
}
END_TEST

/* ---- files -------------------------------------------------------------------------------- */

static char tmpdir[64];

static void tmpdir_setup(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/shido-kata-XXXXXX");
    ck_assert(mkdtemp(tmpdir));
}

static void tmpdir_teardown(void) { rmdir(tmpdir); }

/* Writes buf to tmpdir/name, gzip-compressed when the name ends in ".gz"; returns the path. */
static const char *write_tmp(const char *name, const unsigned char *buf, size_t len)
{
    static char path[128];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    size_t n = strlen(name);
    test_write_file(path, buf, len, n > 3 && !strcmp(name + n - 3, ".gz"));
    return path;
}

/* Loading buf must fail with a message naming the file, a layer, and containing want. */
static void expect_fail(const unsigned char *buf, size_t len, const char *name, const char *want)
{
    char err[1024] = "";
    const char *path = write_tmp(name, buf, len);
    nn_desc *d = weights_load_kata(path, err, sizeof err);
    ck_assert_msg(!d, "%s loaded although it should not (want '%s')", name, want ? want : "-");
    size_t n = strlen(path);
    ck_assert_msg(!strncmp(err, path, n) && !strncmp(err + n, ": ", 2) && strstr(err + n + 2, ": "),
                  "message does not name the file and a layer: %s", err);
    ck_assert_msg(!want || strstr(err, want), "message lacks '%s': %s", want, err);
    unlink(path);
}

/* The first occurrence of needle (n bytes) in buf, or NULL. */
static unsigned char *find_bytes(const void *buf, size_t len, const void *needle, size_t n)
{
    const unsigned char *b = buf;
    for (size_t i = 0; i + n <= len; i++)
        if (!memcmp(b + i, needle, n))
            return (unsigned char *)(b + i);
    return NULL;
}

/* buf with the first occurrence of from replaced by to (which must exist). */
static unsigned char *replaced(const unsigned char *buf, size_t len, const char *from,
                               const char *to, size_t *out_len)
{
    size_t a = strlen(from), b = strlen(to);
    const unsigned char *at = find_bytes(buf, len, from, a);
    ck_assert_msg(at, "'%s' not in the file", from);
    unsigned char *out = malloc(len - a + b);
    size_t off = (size_t)(at - buf);
    memcpy(out, buf, off);
    memcpy(out + off, to, b);
    memcpy(out + off + b, at + a, len - off - a);
    *out_len = len - a + b;
    return out;
}

/* ---- writing descriptions (the loader's inverse, for round trips and synthetic nets) --------- */

typedef struct writer {
    FILE *f;
    bool binary;
    int version;
} writer;

static void w_floats(writer *w, const float *v, size_t n)
{
    if (w->binary) {
        fputs("@BIN@", w->f);
        for (size_t i = 0; i < n; i++) {
            uint32_t u;
            memcpy(&u, &v[i], 4);
            unsigned char b[4] = {(unsigned char)u, (unsigned char)(u >> 8),
                                  (unsigned char)(u >> 16), (unsigned char)(u >> 24)};
            fwrite(b, 1, 4, w->f);
        }
        fputc('\n', w->f);
    } else {
        for (size_t i = 0; i < n; i++)
            fprintf(w->f, "%.9g%c", (double)v[i], i + 1 == n ? '\n' : ' ');
    }
}

static void w_conv(writer *w, const nn_conv_desc *c)
{
    fprintf(w->f, "%s\n%d\n%d\n%d\n%d\n%d\n%d\n", c->name, c->ky, c->kx, c->c_in, c->c_out,
            c->dil_y, c->dil_x);
    size_t n = (size_t)c->ky * c->kx * c->c_in * c->c_out, idx = 0;
    float *file = malloc(n * sizeof *file);
    for (int y = 0; y < c->ky; y++)
        for (int x = 0; x < c->kx; x++)
            for (int i = 0; i < c->c_in; i++)
                for (int o = 0; o < c->c_out; o++)
                    file[idx++] = c->w[(((size_t)o * c->c_in + i) * c->ky + y) * c->kx + x];
    w_floats(w, file, n);
    free(file);
}

static void w_bn(writer *w, const nn_bn_desc *b)
{
    fprintf(w->f, "%s\n%d\n%.9g\n%d\n%d\n", b->name, b->c, (double)b->eps, b->scale != NULL,
            b->bias != NULL);
    w_floats(w, b->mean, (size_t)b->c);
    w_floats(w, b->var, (size_t)b->c);
    if (b->scale)
        w_floats(w, b->scale, (size_t)b->c);
    if (b->bias)
        w_floats(w, b->bias, (size_t)b->c);
}

static void w_act(writer *w, nn_activation a)
{
    static const char *kind[] = {"ACTIVATION_IDENTITY", "ACTIVATION_RELU", "ACTIVATION_MISH",
                                 "ACTIVATION_SILU"};
    fprintf(w->f, "act\n");
    if (w->version >= 11)
        fprintf(w->f, "%s\n", kind[a]);
}

/* A matmul, then its bias as a matbias layer when it has one. */
static void w_matmul(writer *w, const nn_matmul_desc *m)
{
    fprintf(w->f, "%s\n%d\n%d\n", m->name, m->c_in, m->c_out);
    w_floats(w, m->w, (size_t)m->c_in * m->c_out);
    if (m->bias) {
        fprintf(w->f, "%s.bias\n%d\n", m->name, m->c_out);
        w_floats(w, m->bias, (size_t)m->c_out);
    }
}

static void w_rms(writer *w, const nn_kata_rms_norm *r)
{
    fprintf(w->f, "%s\n%d\n%.9g\n", r->name, r->c, (double)r->eps);
    w_floats(w, r->weight, (size_t)r->c);
}

static void w_attention(writer *w, const nn_kata_attention *a)
{
    fprintf(w->f, "%d\n%d\n%d\n%d\n%d\n%d\n", a->heads, a->kv_heads, a->q_dim, a->v_dim, a->rope,
            a->learnable_rope);
    w_rms(w, &a->norm);
    w_matmul(w, &a->q);
    w_matmul(w, &a->k);
    w_matmul(w, &a->v);
    w_matmul(w, &a->out);
    if (a->rope && a->learnable_rope) {
        fprintf(w->f, "rope_freqs\n%d\n%d\n2\n", a->kv_heads, a->q_dim / 2);
        w_floats(w, a->rope_freqs, (size_t)a->kv_heads * a->q_dim);
    } else if (a->rope) {
        fprintf(w->f, "rope_theta\n%.9g\n", (double)a->rope_theta);
    }
}

static void w_ffn(writer *w, const nn_kata_ffn *f)
{
    fprintf(w->f, "%d\n%d\n%d\n", f->c, f->ffn_c, f->swiglu);
    w_rms(w, &f->norm);
    w_matmul(w, &f->linear1);
    if (f->swiglu)
        w_matmul(w, &f->gate);
    w_matmul(w, &f->linear2);
}

static void w_block(writer *w, const nn_kata_block *b)
{
    static const char *kind[] = {"ordinary_block", "gpool_block", "nested_bottleneck_block",
                                 "transformer_attention_block", "transformer_ffn_block"};
    fprintf(w->f, "%s\n%s\n", kind[b->kind], b->name);
    if (b->kind == NN_KATA_BLOCK_ATTENTION) {
        w_attention(w, &b->attn);
        return;
    }
    if (b->kind == NN_KATA_BLOCK_FFN) {
        w_ffn(w, &b->ffn);
        return;
    }
    if (b->kind == NN_KATA_BLOCK_NESTED)
        fprintf(w->f, "%d\n", b->num_inner);
    w_bn(w, &b->bn1);
    w_act(w, b->act1);
    w_conv(w, &b->conv1);
    if (b->kind == NN_KATA_BLOCK_GPOOL) {
        w_conv(w, &b->gpool_conv);
        w_bn(w, &b->gpool_bn);
        w_act(w, b->gpool_act);
        w_matmul(w, &b->gpool_to_bias);
    }
    for (int i = 0; i < b->num_inner; i++)
        w_block(w, &b->inner[i]);
    w_bn(w, &b->bn2);
    w_act(w, b->act2);
    w_conv(w, &b->conv2);
}

static void write_desc(const char *path, const nn_kata_desc *k, bool binary)
{
    writer w = {fopen(path, "wb"), binary, k->version};
    ck_assert(w.f);
    fprintf(w.f, "%s\n%d\n%d\n%d\n", k->name, k->version, k->num_spatial, k->num_global);
    const nn_kata_postprocess *pp = &k->post;
    if (k->version >= 13)
        fprintf(w.f, "%.9g\n%.9g\n%.9g\n%.9g\n%.9g\n%.9g\n%.9g\n", pp->td_score, pp->score_mean,
                pp->score_stdev, pp->lead, pp->variance_time, pp->shortterm_value_error,
                pp->shortterm_score_error);
    if (k->version >= 15)
        fprintf(w.f, "%d\n%d\n0\n0\n0\n0\n0\n0\n", k->meta_encoder_version,
                k->prefer_pass_alive_suicide);
    const nn_kata_trunk *t = &k->trunk;
    fprintf(w.f, "%s\n%d\n%d\n%d\n%d\n%d\n%d\n", t->name, t->num_blocks, t->trunk_channels,
            t->mid_channels, t->regular_channels, t->gpool_channels, t->gpool_channels);
    if (k->version >= 15)
        fprintf(w.f, "%d\n0\n0\n0\n0\n0\n", t->norm_kind);
    w_conv(&w, &t->initial_conv);
    w_matmul(&w, &t->initial_matmul);
    if (k->meta_encoder_version) {
        fprintf(w.f, "%s\n%d\n", k->meta.name, k->meta.num_inputs);
        w_matmul(&w, &k->meta.mul1);
        w_act(&w, k->meta.act1);
        w_matmul(&w, &k->meta.mul2);
        w_act(&w, k->meta.act2);
        w_matmul(&w, &k->meta.mul3);
    }
    for (int i = 0; i < t->num_blocks; i++)
        w_block(&w, &t->blocks[i]);
    if (t->norm_kind == 1) {
        const nn_kata_tip_rms *r = &t->tip_rms;
        fprintf(w.f, "%s\n%d\n%.9g\n%d\n0\n", r->name, r->c, (double)r->eps, r->spatial);
        w_floats(&w, r->gamma, (size_t)r->c);
        w_floats(&w, r->beta, (size_t)r->c);
    } else {
        w_bn(&w, &t->tip_bn);
    }
    w_act(&w, t->tip_act);
    const nn_kata_policy_head *p = &k->policy;
    fprintf(w.f, "%s\n", p->name);
    if (k->version >= 17)
        fprintf(w.f, "%d\n0\n0\n0\n", p->out_channels);
    w_conv(&w, &p->p1_conv);
    w_conv(&w, &p->g1_conv);
    w_bn(&w, &p->g1_bn);
    w_act(&w, p->g1_act);
    w_matmul(&w, &p->gpool_to_bias);
    w_bn(&w, &p->p1_bn);
    w_act(&w, p->p1_act);
    w_conv(&w, &p->p2_conv);
    w_matmul(&w, &p->gpool_to_pass);
    if (p->has_pass2) {
        w_act(&w, p->pass_act);
        w_matmul(&w, &p->gpool_to_pass2);
    }
    const nn_kata_value_head *v = &k->value;
    fprintf(w.f, "%s\n", v->name);
    if (k->version >= 17)
        fprintf(w.f, "0\n0\n0\n");
    w_conv(&w, &v->v1_conv);
    w_bn(&w, &v->v1_bn);
    w_act(&w, v->v1_act);
    w_matmul(&w, &v->v2);
    w_act(&w, v->v2_act);
    w_matmul(&w, &v->v3);
    w_matmul(&w, &v->sv3);
    w_conv(&w, &v->ownership_conv);
    ck_assert_int_eq(fclose(w.f), 0);
}

/* ---- comparing descriptions --------------------------------------------------------------- */

static bool same_floats(const float *a, const float *b, size_t n)
{
    return (!a && !b) || (a && b && !memcmp(a, b, n * sizeof *a));
}

static bool same_conv(const nn_conv_desc *a, const nn_conv_desc *b)
{
    return a->ky == b->ky && a->kx == b->kx && a->c_in == b->c_in && a->c_out == b->c_out &&
           a->dil_y == b->dil_y && a->dil_x == b->dil_x &&
           same_floats(a->w, b->w, (size_t)a->ky * a->kx * a->c_in * a->c_out) &&
           same_floats(a->bias, b->bias, (size_t)a->c_out);
}

static bool same_bn(const nn_bn_desc *a, const nn_bn_desc *b)
{
    size_t c = (size_t)a->c;
    return a->c == b->c && a->eps == b->eps && same_floats(a->mean, b->mean, c) &&
           same_floats(a->var, b->var, c) && same_floats(a->scale, b->scale, c) &&
           same_floats(a->bias, b->bias, c);
}

static bool same_matmul(const nn_matmul_desc *a, const nn_matmul_desc *b)
{
    return a->c_in == b->c_in && a->c_out == b->c_out &&
           same_floats(a->w, b->w, (size_t)a->c_in * a->c_out) &&
           same_floats(a->bias, b->bias, (size_t)a->c_out);
}

static bool same_rms(const nn_kata_rms_norm *a, const nn_kata_rms_norm *b)
{
    return a->c == b->c && a->eps == b->eps && same_floats(a->weight, b->weight, (size_t)a->c);
}

static bool same_block(const nn_kata_block *a, const nn_kata_block *b)
{
    if (a->kind == NN_KATA_BLOCK_ATTENTION || b->kind == NN_KATA_BLOCK_ATTENTION) {
        const nn_kata_attention *x = &a->attn, *y = &b->attn;
        return a->kind == b->kind && x->heads == y->heads && x->kv_heads == y->kv_heads &&
               x->q_dim == y->q_dim && x->v_dim == y->v_dim && x->rope == y->rope &&
               x->learnable_rope == y->learnable_rope && same_rms(&x->norm, &y->norm) &&
               same_matmul(&x->q, &y->q) && same_matmul(&x->k, &y->k) &&
               same_matmul(&x->v, &y->v) && same_matmul(&x->out, &y->out) &&
               x->rope_theta == y->rope_theta &&
               same_floats(x->rope_freqs, y->rope_freqs, (size_t)x->kv_heads * x->q_dim);
    }
    if (a->kind == NN_KATA_BLOCK_FFN || b->kind == NN_KATA_BLOCK_FFN) {
        const nn_kata_ffn *x = &a->ffn, *y = &b->ffn;
        return a->kind == b->kind && x->c == y->c && x->ffn_c == y->ffn_c &&
               x->swiglu == y->swiglu && same_rms(&x->norm, &y->norm) &&
               same_matmul(&x->linear1, &y->linear1) && same_matmul(&x->gate, &y->gate) &&
               same_matmul(&x->linear2, &y->linear2);
    }
    bool ok = a->kind == b->kind && a->num_inner == b->num_inner && same_bn(&a->bn1, &b->bn1) &&
              a->act1 == b->act1 && same_conv(&a->conv1, &b->conv1) &&
              same_bn(&a->bn2, &b->bn2) && a->act2 == b->act2 && same_conv(&a->conv2, &b->conv2);
    if (ok && a->kind == NN_KATA_BLOCK_GPOOL)
        ok = same_conv(&a->gpool_conv, &b->gpool_conv) && same_bn(&a->gpool_bn, &b->gpool_bn) &&
             a->gpool_act == b->gpool_act && same_matmul(&a->gpool_to_bias, &b->gpool_to_bias);
    for (int i = 0; ok && i < a->num_inner; i++)
        ok = same_block(&a->inner[i], &b->inner[i]);
    return ok;
}

static void assert_same_desc(const nn_kata_desc *a, const nn_kata_desc *b)
{
    ck_assert_int_eq(a->version, b->version);
    ck_assert_int_eq(a->inputs_version, b->inputs_version);
    ck_assert_int_eq(a->score_channels, b->score_channels);
    ck_assert(!memcmp(&a->post, &b->post, sizeof a->post));
    ck_assert_int_eq(a->meta_encoder_version, b->meta_encoder_version);
    if (a->meta_encoder_version)
        ck_assert(same_matmul(&a->meta.mul1, &b->meta.mul1) &&
                  same_matmul(&a->meta.mul2, &b->meta.mul2) &&
                  same_matmul(&a->meta.mul3, &b->meta.mul3) && a->meta.act1 == b->meta.act1 &&
                  a->meta.act2 == b->meta.act2);
    const nn_kata_trunk *s = &a->trunk, *t = &b->trunk;
    ck_assert_int_eq(s->num_blocks, t->num_blocks);
    ck_assert(same_conv(&s->initial_conv, &t->initial_conv));
    ck_assert(same_matmul(&s->initial_matmul, &t->initial_matmul));
    for (int i = 0; i < s->num_blocks; i++)
        ck_assert_msg(same_block(&s->blocks[i], &t->blocks[i]), "block %d differs", i);
    ck_assert(s->norm_kind == t->norm_kind && same_bn(&s->tip_bn, &t->tip_bn) &&
              s->tip_act == t->tip_act);
    if (s->norm_kind == 1)
        ck_assert(s->tip_rms.c == t->tip_rms.c && s->tip_rms.eps == t->tip_rms.eps &&
                  s->tip_rms.spatial == t->tip_rms.spatial &&
                  same_floats(s->tip_rms.gamma, t->tip_rms.gamma, (size_t)s->tip_rms.c) &&
                  same_floats(s->tip_rms.beta, t->tip_rms.beta, (size_t)s->tip_rms.c));
    ck_assert(a->prefer_pass_alive_suicide == b->prefer_pass_alive_suicide);
    const nn_kata_policy_head *p = &a->policy, *q = &b->policy;
    ck_assert(p->out_channels == q->out_channels && p->has_pass2 == q->has_pass2);
    ck_assert(same_conv(&p->p1_conv, &q->p1_conv) && same_conv(&p->g1_conv, &q->g1_conv) &&
              same_bn(&p->g1_bn, &q->g1_bn) && same_matmul(&p->gpool_to_bias, &q->gpool_to_bias) &&
              same_bn(&p->p1_bn, &q->p1_bn) && same_conv(&p->p2_conv, &q->p2_conv) &&
              same_matmul(&p->gpool_to_pass, &q->gpool_to_pass));
    if (p->has_pass2)
        ck_assert(p->pass_act == q->pass_act &&
                  same_matmul(&p->gpool_to_pass2, &q->gpool_to_pass2));
    const nn_kata_value_head *v = &a->value, *u = &b->value;
    ck_assert(same_conv(&v->v1_conv, &u->v1_conv) && same_bn(&v->v1_bn, &u->v1_bn) &&
              same_matmul(&v->v2, &u->v2) && v->v2_act == u->v2_act &&
              same_matmul(&v->v3, &u->v3) && same_matmul(&v->sv3, &u->sv3) &&
              same_conv(&v->ownership_conv, &u->ownership_conv));
}

/* ---- synthetic nets of every version ------------------------------------------------------ */

static uint32_t rng_state;

static float rnd(float scale)
{
    rng_state = rng_state * 1664525u + 1013904223u;
    return scale * ((float)(rng_state >> 8) / (float)(1u << 24) * 2.0f - 1.0f);
}

static float *rnd_array(size_t n, float scale, float offset)
{
    float *v = malloc(n * sizeof *v);
    for (size_t i = 0; i < n; i++)
        v[i] = offset + rnd(scale);
    return v;
}

static void mk_conv(nn_conv_desc *c, const char *name, int k, int c_in, int c_out)
{
    snprintf(c->name, sizeof c->name, "%s", name);
    c->ky = c->kx = k;
    c->c_in = c_in;
    c->c_out = c_out;
    c->dil_y = c->dil_x = 1;
    c->w = rnd_array((size_t)k * k * c_in * c_out, 0.5f / k, 0);
}

static void mk_bn(nn_bn_desc *b, const char *name, int c, bool scale)
{
    snprintf(b->name, sizeof b->name, "%s", name);
    b->c = c;
    b->eps = 1e-5f;
    b->mean = rnd_array((size_t)c, 0.2f, 0);
    b->var = rnd_array((size_t)c, 0.3f, 1.0f);
    b->scale = scale ? rnd_array((size_t)c, 0.3f, 1.0f) : NULL;
    b->bias = rnd_array((size_t)c, 0.2f, 0);
}

static void mk_matmul(nn_matmul_desc *m, const char *name, int c_in, int c_out, bool bias)
{
    snprintf(m->name, sizeof m->name, "%s", name);
    m->c_in = c_in;
    m->c_out = c_out;
    m->w = rnd_array((size_t)c_in * c_out, 0.5f, 0);
    m->bias = bias ? rnd_array((size_t)c_out, 0.2f, 0) : NULL;
}

static bool mk_learned_rope;   /* make_net's attention block: learned frequencies, or theta's */

static void mk_rms(nn_kata_rms_norm *r, int c)
{
    snprintf(r->name, sizeof r->name, "norm");
    r->c = c;
    r->eps = 1e-6f;
    r->weight = rnd_array((size_t)c, 0.3f, 1.0f);
}

/* Attention on c channels: 2 heads over 1 key/value head of 2 channels each, rotary encodings
 * learned (learned) or from theta. */
static void mk_attention(nn_kata_block *b, int c, bool learned)
{
    b->kind = NN_KATA_BLOCK_ATTENTION;
    snprintf(b->name, sizeof b->name, "attention");
    nn_kata_attention *a = &b->attn;
    a->heads = 2;
    a->kv_heads = 1;
    a->q_dim = 4;
    a->v_dim = 2;
    a->rope = true;
    a->learnable_rope = learned;
    mk_rms(&a->norm, c);
    mk_matmul(&a->q, "q", c, 8, false);
    mk_matmul(&a->k, "k", c, 4, false);
    mk_matmul(&a->v, "v", c, 2, false);
    mk_matmul(&a->out, "out", 4, c, false);
    if (learned)
        a->rope_freqs = rnd_array(4, 1.0f, 0);
    else
        a->rope_theta = 100;
}

static void mk_ffn(nn_kata_block *b, int c)
{
    b->kind = NN_KATA_BLOCK_FFN;
    snprintf(b->name, sizeof b->name, "ffn");
    nn_kata_ffn *f = &b->ffn;
    f->c = c;
    f->ffn_c = 5;
    f->swiglu = true;
    mk_rms(&f->norm, c);
    mk_matmul(&f->linear1, "linear1", c, 5, false);
    mk_matmul(&f->gate, "gate", c, 5, false);
    mk_matmul(&f->linear2, "linear2", 5, c, false);
}

static void mk_block(nn_kata_block *b, nn_kata_block_kind kind, int channels, nn_activation act)
{
    static int count;
    b->kind = kind;
    snprintf(b->name, sizeof b->name, "block%d", count++);
    int mid = kind == NN_KATA_BLOCK_NESTED ? 3 : 4;
    mk_bn(&b->bn1, "bn1", channels, count % 2);
    b->act1 = act;
    mk_conv(&b->conv1, "conv1", kind == NN_KATA_BLOCK_NESTED ? 1 : 3, channels, mid);
    if (kind == NN_KATA_BLOCK_GPOOL) {
        mk_conv(&b->gpool_conv, "gpool", 3, channels, 2);
        mk_bn(&b->gpool_bn, "gpool_bn", 2, true);
        b->gpool_act = act;
        mk_matmul(&b->gpool_to_bias, "gpool_to_bias", 6, mid, false);
    }
    if (kind == NN_KATA_BLOCK_NESTED && act == NN_ACT_SILU) {
        /* KataGo 1.17's shape: attention and feed-forward inside the bottleneck */
        b->num_inner = 3;
        b->inner = calloc(3, sizeof *b->inner);
        mk_attention(&b->inner[0], mid, mk_learned_rope);
        mk_ffn(&b->inner[1], mid);
        mk_block(&b->inner[2], NN_KATA_BLOCK_GPOOL, mid, act);
    } else if (kind == NN_KATA_BLOCK_NESTED) {
        b->num_inner = 2;
        b->inner = calloc(2, sizeof *b->inner);
        mk_block(&b->inner[0], NN_KATA_BLOCK_ORDINARY, mid, act);
        mk_block(&b->inner[1], NN_KATA_BLOCK_GPOOL, mid, act);
    }
    mk_bn(&b->bn2, "bn2", mid, false);
    b->act2 = act;
    mk_conv(&b->conv2, "conv2", kind == NN_KATA_BLOCK_NESTED ? 1 : 3, mid, channels);
}

/* A tiny random net of the given model version, with every block kind and, from version 11,
 * mish and identity activations; version 15 optionally with a metadata encoder; versions 16 and
 * 17 KataGo 1.17's: SiLU, attention and feed-forward blocks in the nested one, an RMS-norm tip
 * (over the board in 16, per point in 17) and 4 (16) or 2 (17) policy channels. */
static nn_kata_desc *make_net(int version, bool meta)
{
    nn_kata_desc *k = calloc(1, sizeof *k);
    rng_state = 12345u + (uint32_t)version;
    snprintf(k->name, sizeof k->name, "synthetic-v%d", version);
    k->version = version;
    k->inputs_version = version >= 8   ? 7
                        : version >= 5 ? version - 1
                                       : 3;
    k->num_spatial = version == 6 ? 13 : 22;
    k->num_global = version >= 8 ? 19 : version == 7 ? 16 : version == 6 ? 12 : 14;
    k->score_channels = version >= 9 ? 6 : version == 8 ? 4 : version >= 4 ? 2 : 1;
    k->post = (nn_kata_postprocess){20, 20, 20, 20, 40, 0.25, 30};
    if (version >= 13)
        k->post.shortterm_score_error = 150;
    nn_activation act = version >= 16 ? NN_ACT_SILU : version >= 11 ? NN_ACT_MISH : NN_ACT_RELU;
    mk_learned_rope = version == 17;
    int c = 5;
    nn_kata_trunk *t = &k->trunk;
    snprintf(t->name, sizeof t->name, "trunk");
    t->trunk_channels = c;
    t->mid_channels = 4;
    t->regular_channels = 2;
    t->gpool_channels = 2;
    mk_conv(&t->initial_conv, "initial_conv", 3, k->num_spatial, c);
    mk_matmul(&t->initial_matmul, "initial_matmul", k->num_global, c, false);
    if (meta) {
        k->meta_encoder_version = 1;
        snprintf(k->meta.name, sizeof k->meta.name, "meta");
        k->meta.num_inputs = NN_KATA_META_INPUTS;
        mk_matmul(&k->meta.mul1, "mul1", NN_KATA_META_INPUTS, 4, true);
        k->meta.act1 = act;
        mk_matmul(&k->meta.mul2, "mul2", 4, 4, true);
        k->meta.act2 = act;
        mk_matmul(&k->meta.mul3, "mul3", 4, c, false);
    }
    t->num_blocks = 3;
    t->blocks = calloc(3, sizeof *t->blocks);
    mk_block(&t->blocks[0], NN_KATA_BLOCK_ORDINARY, c, act);
    mk_block(&t->blocks[1], NN_KATA_BLOCK_GPOOL, c, act);
    mk_block(&t->blocks[2], NN_KATA_BLOCK_NESTED, c, act);
    if (version >= 16) {
        t->norm_kind = 1;
        nn_kata_tip_rms *r = &t->tip_rms;
        snprintf(r->name, sizeof r->name, "tip");
        r->c = c;
        r->eps = 1e-6f;
        r->spatial = version == 16;
        r->gamma = rnd_array((size_t)c, 0.3f, 1.0f);
        r->beta = rnd_array((size_t)c, 0.2f, 0);
    } else {
        mk_bn(&t->tip_bn, "tip", c, true);
    }
    t->tip_act = act;
    nn_kata_policy_head *p = &k->policy;
    snprintf(p->name, sizeof p->name, "policy");
    p->out_channels = version == 16 ? 4 : version >= 12 ? 2 : 1;
    p->has_pass2 = version >= 15;
    mk_conv(&p->p1_conv, "p1", 1, c, 3);
    mk_conv(&p->g1_conv, "g1", 1, c, 2);
    mk_bn(&p->g1_bn, "g1_bn", 2, true);
    p->g1_act = act;
    mk_matmul(&p->gpool_to_bias, "gpool_to_bias", 6, 3, false);
    mk_bn(&p->p1_bn, "p1_bn", 3, false);
    p->p1_act = version >= 11 ? NN_ACT_IDENTITY : NN_ACT_RELU;
    mk_conv(&p->p2_conv, "p2", 1, 3, p->out_channels);
    mk_matmul(&p->gpool_to_pass, "pass", 6, p->has_pass2 ? 3 : p->out_channels, p->has_pass2);
    if (p->has_pass2) {
        p->pass_act = act;
        mk_matmul(&p->gpool_to_pass2, "pass2", 3, p->out_channels, false);
    }
    nn_kata_value_head *v = &k->value;
    snprintf(v->name, sizeof v->name, "value");
    mk_conv(&v->v1_conv, "v1", 1, c, 2);
    mk_bn(&v->v1_bn, "v1_bn", 2, true);
    v->v1_act = act;
    mk_matmul(&v->v2, "v2", 6, 4, true);
    v->v2_act = act;
    mk_matmul(&v->v3, "v3", 4, 3, true);
    mk_matmul(&v->sv3, "sv3", 4, k->score_channels, true);
    mk_conv(&v->ownership_conv, "ownership", 1, 2, 1);
    return k;
}

/* ---- games -------------------------------------------------------------------------------- */

/* A game from a diagram (top row first) with the side to move, then moves "B D4 W pass ...". */
static void game_from(go_game *g, int size, const char *rules, float komi, const char *pic,
                      go_color to_move, const char *moves)
{
    test_game_from(g, size, pic, to_move, rules, komi);
    char buf[1024], *save = NULL;
    snprintf(buf, sizeof buf, "%s", moves ? moves : "");
    for (char *c = strtok_r(buf, " ", &save); c; c = strtok_r(NULL, " ", &save)) {
        char *v = strtok_r(NULL, " ", &save);
        ck_assert(v);
        int p = go_point_from_gtp(size, v);
        ck_assert_msg(p >= 0, "bad vertex %s", v);
        ck_assert_int_eq(go_game_play(g, p, c[0] == 'B' ? GO_BLACK : GO_WHITE), GO_MOVE_OK);
    }
}

/* Output sanity for nets without reference outputs. */
static void assert_sane(const nn_kata_output *o, const go_game *g, int version)
{
    double sum = o->policy_pass;
    bool legal[NN_KATA_MAX_POINTS];
    go_rules r;
    nn_kata_supported_rules(version, &g->rules, &r);
    nn_kata_legal_moves(g, &r, legal);
    for (int i = 0; i < o->size * o->size; i++) {
        ck_assert(legal[i] == !isnan(o->policy[i]));
        if (legal[i]) {
            ck_assert(o->policy[i] >= 0);
            sum += o->policy[i];
        }
        ck_assert(fabsf(o->white_ownership[i]) <= 1.0f);
    }
    ck_assert_msg(fabs(sum - 1.0) < 1e-5, "policy sums to %g", sum);
    ck_assert(fabs(o->white_win + o->white_loss + o->no_result - 1.0) < 1e-9);
    ck_assert(isfinite(o->white_lead) && isfinite(o->white_score_selfplay) &&
              o->white_score_selfplay_sq >= 0);
    if (version < 9)
        ck_assert(o->var_time_left == -1 && o->shortterm_winloss_error == -1 &&
                  o->shortterm_score_error == -1);
    else
        ck_assert(o->var_time_left >= 0 && o->shortterm_winloss_error >= 0 &&
                  o->shortterm_score_error >= 0);
}

static void assert_same_output(const nn_kata_output *a, const nn_kata_output *b)
{
    ck_assert(a->size == b->size && a->white_win == b->white_win &&
              a->white_loss == b->white_loss && a->no_result == b->no_result &&
              a->white_lead == b->white_lead &&
              a->white_score_selfplay == b->white_score_selfplay &&
              a->white_score_selfplay_sq == b->white_score_selfplay_sq &&
              a->var_time_left == b->var_time_left && a->policy_pass == b->policy_pass);
    for (int i = 0; i < a->size * a->size; i++)
        ck_assert((a->policy[i] == b->policy[i] || (isnan(a->policy[i]) && isnan(b->policy[i]))) &&
                  a->white_ownership[i] == b->white_ownership[i]);
}

/* ---- tests: loading ----------------------------------------------------------------------- */

START_TEST(load_shared_nets)
{
    char err[1024];
    nn_desc *d = weights_load_kata(TEST_G170, err, sizeof err);
    ck_assert_msg(d, "%s", err);
    const nn_kata_desc *k = d->kata;
    ck_assert_int_eq(d->family, NN_FAMILY_KATA);
    ck_assert_int_eq(k->version, 8);
    ck_assert_int_eq(k->inputs_version, 7);
    ck_assert_int_eq(k->score_channels, 4);
    ck_assert_int_eq(k->trunk.num_blocks, 6);
    ck_assert_int_eq(k->trunk.trunk_channels, 96);
    ck_assert(k->trunk.initial_conv.ky == 5 && k->trunk.initial_conv.c_in == 22);
    ck_assert(k->trunk.blocks[2].kind == NN_KATA_BLOCK_GPOOL &&
              k->trunk.blocks[2].gpool_conv.c_out == 32 && k->trunk.blocks[2].conv1.c_out == 64);
    ck_assert(k->policy.out_channels == 1 && !k->policy.has_pass2);
    ck_assert_double_eq(k->post.shortterm_score_error, 30);
    nn_desc_free(d);

    ck_assert_msg(d = weights_load_kata(TEST_B2C16, err, sizeof err), "%s", err);
    k = d->kata;
    ck_assert(k->version == 15 && k->trunk.num_blocks == 2 && k->trunk.trunk_channels == 16);
    ck_assert(k->trunk.blocks[0].kind == NN_KATA_BLOCK_ORDINARY &&
              k->trunk.blocks[1].kind == NN_KATA_BLOCK_GPOOL);
    ck_assert(k->policy.out_channels == 2 && k->policy.has_pass2 &&
              k->policy.gpool_to_pass.bias && k->policy.gpool_to_pass2.c_out == 2);
    ck_assert(k->score_channels == 6 && k->meta_encoder_version == 0);
    ck_assert_double_eq(k->post.shortterm_score_error, 150);
    nn_desc_free(d);

    ck_assert_msg(d = weights_load_kata(B5C192, err, sizeof err), "%s", err);
    k = d->kata;
    ck_assert(k->version == 15 && k->trunk.num_blocks == 5 && k->trunk.trunk_channels == 192);
    for (int i = 0; i < 5; i++) {
        const nn_kata_block *b = &k->trunk.blocks[i];
        ck_assert(b->kind == NN_KATA_BLOCK_NESTED && b->num_inner == 2);
        ck_assert(b->conv1.ky == 1 && b->conv1.c_out == 96 && b->conv2.c_out == 192);
        ck_assert_int_eq(b->inner[0].kind, i % 2 ? NN_KATA_BLOCK_GPOOL : NN_KATA_BLOCK_ORDINARY);
    }
    nn_desc_free(d);
}
END_TEST

START_TEST(recognises_kata_files)
{
    ck_assert(weights_is_kata(TEST_G170));
    ck_assert(weights_is_kata(TEST_B2C16));
    ck_assert(weights_is_kata(B5C192));
    ck_assert(!weights_is_kata(TEST_WEIGHTS "lz-0k.txt"));
    ck_assert(!weights_is_kata(TEST_LZ_B4C32));
    ck_assert(!weights_is_kata(TEST_WEIGHTS "no-such-file.bin.gz"));
}
END_TEST

/* Binary and text files of the same net load to the same description and evaluate alike. */
START_TEST(text_and_binary_round_trip)
{
    char err[1024], path[160];
    nn_desc *orig = weights_load_kata(TEST_B2C16, err, sizeof err);
    ck_assert_msg(orig, "%s", err);
    static const char *names[] = {"net.txt", "net.bin", "net.txt.gz", "net.gz"};
    go_game g;
    game_from(&g, 19, "chinese", 7.5f, NULL, GO_BLACK, "B Q16 W D4 B C16 W pass");
    nn_kata_output *a = malloc(sizeof *a), *b = malloc(sizeof *b);
    ck_assert_msg(nn_kata_ref_eval(orig, &g, 3, 0.2, a, err, sizeof err), "%s", err);
    for (int i = 0; i < 4; i++) {
        bool binary = strstr(names[i], ".bin") != NULL;
        snprintf(path, sizeof path, "%s/%s", tmpdir, names[i]);
        if (strstr(names[i], ".gz")) {
            char raw[160];
            snprintf(raw, sizeof raw, "%s/raw", tmpdir);
            write_desc(raw, orig->kata, false);
            size_t len;
            unsigned char *buf = test_read_file(raw, &len);
            write_tmp(names[i], buf, len);
            free(buf);
            unlink(raw);
        } else {
            write_desc(path, orig->kata, binary);
        }
        ck_assert(weights_is_kata(path));
        nn_desc *d = weights_load_kata(path, err, sizeof err);
        ck_assert_msg(d, "%s: %s", names[i], err);
        assert_same_desc(orig->kata, d->kata);
        ck_assert_msg(nn_kata_ref_eval(d, &g, 3, 0.2, b, err, sizeof err), "%s", err);
        assert_same_output(a, b);
        nn_desc_free(d);
        unlink(path);
    }
    /* net.gz above is text, read after the binary attempt fails; binary named .txt is not */
    snprintf(path, sizeof path, "%s/wrong.txt", tmpdir);
    write_desc(path, orig->kata, true);
    ck_assert(!weights_load_kata(path, err, sizeof err));
    ck_assert_msg(strstr(err, "decimal float"), "%s", err);
    unlink(path);
    /* a name without a known extension: the content decides, binary or text */
    for (int binary = 0; binary <= 1; binary++) {
        snprintf(path, sizeof path, "%s/%s", tmpdir, binary ? "net.weights" : "net");
        write_desc(path, orig->kata, binary);
        nn_desc *d = weights_load(path, err, sizeof err);
        ck_assert_msg(d, "%s: %s", path, err);
        assert_same_desc(orig->kata, d->kata);
        nn_desc_free(d);
        unlink(path);
    }
    snprintf(path, sizeof path, "%s/net.weights", tmpdir);
    ck_assert(!weights_load_kata(path, err, sizeof err));
    ck_assert_msg(strstr(err, "cannot open"), "%s", err);
    /* a directory is named as one */
    ck_assert(!weights_load(tmpdir, err, sizeof err));
    ck_assert_msg(strstr(err, "is a directory"), "%s", err);
    free(a);
    free(b);
    go_game_free(&g);
    nn_desc_free(orig);
}
END_TEST

/* Synthetic nets of every supported version: written, read back identical, evaluated. */
START_TEST(every_version_loads_and_runs)
{
    int version = _i;
    char err[1024], path[160];
    for (int meta = 0; meta <= (version == 15); meta++) {
        nn_kata_desc *k = make_net(version, meta);
        for (int binary = 0; binary <= 1; binary++) {
            snprintf(path, sizeof path, "%s/v%d%s", tmpdir, version, binary ? ".bin" : ".txt");
            write_desc(path, k, binary);
            nn_desc *d = weights_load_kata(path, err, sizeof err);
            ck_assert_msg(d, "version %d: %s", version, err);
            assert_same_desc(k, d->kata);
            go_game g;
            game_from(&g, 9, version <= 6 ? "japanese" : "chinese", 6.5f, NULL, GO_BLACK,
                      "B E5 W C3 B G7 W pass");
            nn_kata_output *o = malloc(sizeof *o);
            for (int s = 0; s < NN_KATA_SYMMETRIES; s += 3) {
                ck_assert_msg(nn_kata_ref_eval(d, &g, s, 0.2, o, err, sizeof err), "%s", err);
                assert_sane(o, &g, version);
            }
            free(o);
            go_game_free(&g);
            nn_desc_free(d);
            unlink(path);
        }
        nn_kata_desc_free(k);
    }
}
END_TEST

START_TEST(unsupported_versions_refused)
{
    static const struct { const char *to, *want; } cases[] = {
        {"\n18\n", "unsupported model version 18"},
        {"\n99\n", "unsupported model version 99"}, {"\n2\n", "unsupported model version 2"},
        {"\n-1\n", "unsupported model version -1"}, {"\nv15\n", "expected the model version"},
    };
    size_t len, n;
    unsigned char *buf = test_read_file(TEST_B2C16, &len);
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        unsigned char *bad = replaced(buf, len, "\n15\n", cases[i].to, &n);
        expect_fail(bad, n, "version.bin.gz", cases[i].want);
        free(bad);
    }
    free(buf);
}
END_TEST

/* Every prefix of the file (and of the gzip stream) is refused with a message. */
START_TEST(truncated_files_refused)
{
    size_t len;
    unsigned char *buf = test_read_file(TEST_B2C16, &len);
    for (size_t cut = 0; cut < 400; cut++)
        expect_fail(buf, cut, "cut.bin.gz", NULL);
    for (size_t cut = 400; cut < len; cut += 97)
        expect_fail(buf, cut, "cut.bin.gz", NULL);
    expect_fail(buf, 400, "cut.bin", "trunk.initial_conv 'model.conv_spatial'");
    unsigned char *conv = find_bytes(buf, len, "model.conv_spatial", 18);
    expect_fail(buf, (size_t)(conv - buf) + 60, "cut.bin", "the data holds");
    free(buf);
}
END_TEST

/* Damaged shapes, flags, names and floats are refused with a message saying what was wrong. */
START_TEST(corrupt_headers_refused)
{
    static const struct { const char *from, *to, *want; } cases[] = {
        {"\n22\n19\n", "\n23\n19\n", "spatial input channels in 22..22, got 23"},
        {"\n22\n19\n", "\n22\n18\n", "global input channels in 19..19, got 18"},
        {"\n20.0\n", "\n-20.0\n", "td score multiplier > 0"},
        {"\n20.0\n", "\nnan\n", "td score multiplier is nan"},
        {"\n20.0\n", "\ntwenty\n", "a decimal float"},
        {"150.0\n0\n", "150.0\n2\n", "metadata encoder version in 0..1, got 2"},
        {"150.0\n0\n0\n", "150.0\n0\n7\n", "pass-alive-under-suicide flag (0 or 1) in 0..1, got 7"},
        {"150.0\n0\n0\n0\n", "150.0\n0\n0\n5\n", "unused model option C (0) in 0..0, got 5"},
        {"trunk\n2\n", "trunk\n0\n", "number of blocks in 1.."},
        {"trunk\n2\n", "trunk\n3\n", "'model.norm_trunkfinal'"},
        {"\n8\n8\n8\n0\n", "\n8\n8\n8\n2\n", "trunk norm kind (0 batch norm, 1 RMS norm) in 0..1"},
        {"\n8\n8\n8\n0\n0\n", "\n8\n8\n8\n0\n3\n", "unused trunk option B (0) in 0..0, got 3"},
        {"\n8\n8\n8\n0\n", "\n8\n8\n8\n1\n", "'model.norm_trunkfinal': expected channel group size"},
        {"spatial\n3\n3\n", "spatial\n2\n3\n", "odd kernel sizes"},
        {"spatial\n3\n3\n22\n16\n", "spatial\n3\n3\n22\n0\n", "output channels in 1.."},
        {"spatial\n3\n3\n22\n16\n", "spatial\n3\n3\n21\n16\n", "input channels (21) != spatial"},
        {"16\n1\n1\n@BIN@", "16\n0\n1\n@BIN@", "dilation y in 1.."},
        {"@BIN@", "@BIX@", "expected \"@BIN@\""},
        {"ordinary_block", "dilated_block", "expected ordinary_block, gpool_block"},
        {"ACTIVATION_RELU", "ACTIVATION_GELU", "expected ACTIVATION_IDENTITY"},
        {"norm\n16\n1e-20\n0\n1\n", "norm\n16\n1e-20\n2\n1\n", "has-scale flag in 0..1, got 2"},
        {"norm\n16\n1e-20\n", "norm\n16\n0\n", "epsilon > 0"},
        {"norm\n16\n1e-20\n", "norm\n16\n-1e-20\n", "epsilon > 0"},
        {"norm\n16\n", "norm\n-16\n", "channels in 1.."},
        {"linear_pass_bias\n8\n", "linear_pass_bias\n7\n", "expected 8 channels"},
    };
    size_t len, n;
    unsigned char *buf = test_read_file(TEST_B2C16, &len);
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        unsigned char *bad = replaced(buf, len, cases[i].from, cases[i].to, &n);
        expect_fail(bad, n, "header.bin", cases[i].want);
        free(bad);
    }
    /* the nested net: a block count that runs into the next layer */
    free(buf);
    buf = test_read_file(B5C192, &len);
    unsigned char *bad = replaced(buf, len, "nested_bottleneck_block\nmodel.blocks.0\n2\n",
                                  "nested_bottleneck_block\nmodel.blocks.0\n3\n", &n);
    expect_fail(bad, n, "nested.bin", "'model.blocks.0'.blocks[2]: expected ordinary_block");
    free(bad);
    bad = replaced(buf, len, "nested_bottleneck_block\nmodel.blocks.0\n2\n",
                   "nested_bottleneck_block\nmodel.blocks.0\n0\n", &n);
    expect_fail(bad, n, "nested.bin", "number of inner blocks in 1..");
    free(bad);
    free(buf);
}
END_TEST

/* The fields of KataGo 1.17's blocks, tip and heads, damaged in text files of the synthetic
 * version 16 and 17 nets. */
START_TEST(transformer_fields_refused)
{
    static const struct { int version; const char *from, *to, *want; } cases[] = {
        {17, "attention\n2\n1\n4\n", "attention\n3\n2\n4\n",
         "heads (3) must be a multiple of key/value heads (2)"},
        {17, "attention\n2\n1\n4\n", "attention\n0\n1\n4\n", "number of heads in 1.."},
        {17, "attention\n2\n1\n4\n", "attention\n2\n1\n3\n",
         "head dimension (3) must be even with rotary encoding"},
        {17, "attention\n2\n1\n4\n", "attention\n1\n1\n4\n",
         "q_proj output channels (8) != heads * query head dimension (4)"},
        {17, "attention\n2\n1\n4\n2\n", "attention\n2\n1\n4\n3\n",
         "v_proj output channels (2) != key/value heads * value head dimension (3)"},
        {17, "rope_freqs\n1\n2\n2\n", "rope_freqs\n2\n2\n2\n", "key/value heads in 1..1, got 2"},
        {17, "rope_freqs\n1\n2\n2\n", "rope_freqs\n1\n3\n2\n",
         "frequency pairs (query/key head dimension / 2) in 2..2, got 3"},
        {17, "rope_freqs\n1\n2\n2\n", "rope_freqs\n1\n2\n1\n", "per pair (x, y) in 2..2"},
        {16, "rope_theta\n100\n", "rope_theta\n-1\n", "expected theta > 0"},
        {16, "rope_theta\n100\n", "rope_theta\nnan\n", "rotary encoding theta is nan"},
        {17, "attention\n2\n1\n4\n2\n1\n1\nnorm\n3\n9.99999997e-07\n",
         "attention\n2\n1\n4\n2\n1\n1\nnorm\n3\n2\n", "expected epsilon in (0, 1], got 2"},
        {17, "attention\n2\n1\n4\n2\n1\n1\nnorm\n3\n",
         "attention\n2\n1\n4\n2\n1\n1\nnorm\n4\n", "'norm'"},
        {17, "ffn\n3\n5\n1\n", "ffn\n3\n6\n1\n",
         "linear1 output channels (5) != feed-forward channels (6)"},
        {17, "ffn\n3\n5\n1\n", "ffn\n4\n5\n1\n", "linear1 input channels (3) != channels (4)"},
        {17, "ffn\n3\n5\n1\n", "ffn\n3\n5\n0\n", "linear2 input channels (3)"},
        {17, "transformer_ffn_block", "transformer_moe_block", "transformer_attention_block or"},
        {17, "tip\n5\n9.99999997e-07\n0\n0\n", "tip\n5\n9.99999997e-07\n0\n4\n",
         "channel group size (0: grouped RMS norms are not supported) in 0..0, got 4"},
        {16, "tip\n5\n9.99999997e-07\n1\n0\n", "tip\n5\n0\n1\n0\n", "'tip': expected epsilon in (0, 1]"},
        {17, "policy\n2\n0\n0\n0\n", "policy\n3\n0\n0\n0\n",
         "expected 2 or 4 policy output channels, got 3"},
        {17, "policy\n2\n0\n0\n0\n", "policy\n5\n0\n0\n0\n", "policy output channels in 2..4"},
        {17, "policy\n2\n0\n0\n0\n", "policy\n4\n0\n0\n0\n",
         "p2_conv output channels (2) != policy outputs (4)"},
        {17, "policy\n2\n0\n0\n0\n", "policy\n2\n0\n1\n0\n", "unused policy option B (0)"},
        {17, "value\n0\n0\n0\n", "value\n0\n0\n9\n", "unused value option C (0) in 0..0, got 9"},
        {17, "ACTIVATION_SILU", "ACTIVATION_SWISH", "or ACTIVATION_SILU, got 'ACTIVATION_SWISH'"},
    };
    char path[160];
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        nn_kata_desc *k = make_net(cases[i].version, false);
        snprintf(path, sizeof path, "%s/net.txt", tmpdir);
        write_desc(path, k, false);
        nn_kata_desc_free(k);
        size_t len, n;
        unsigned char *buf = test_read_file(path, &len);
        unlink(path);
        unsigned char *bad = replaced(buf, len, cases[i].from, cases[i].to, &n);
        expect_fail(bad, n, "transformer.txt", cases[i].want);
        free(bad);
        free(buf);
    }
}
END_TEST

/* NaN and infinity anywhere in the floats, binary or text. */
START_TEST(non_finite_floats_refused)
{
    static const char *layers[] = {"model.conv_spatial", "model.blocks.1.normactconv1.norm",
                                   "model.policy_head.linear_pass2",
                                   "model.value_head.conv_ownership"};
    static const uint32_t bits[] = {0x7fc00000u, 0x7f800000u, 0xff800000u};
    size_t len;
    unsigned char *buf = test_read_file(TEST_B2C16, &len);
    for (int l = 0; l < 4; l++)
        for (int b = 0; b < 3; b++) {
            unsigned char *bad = malloc(len);
            memcpy(bad, buf, len);
            unsigned char *at = find_bytes(bad, len, layers[l], strlen(layers[l]));
            at = find_bytes(at, len - (size_t)(at - bad), "@BIN@", 5) + 5 + 4 * (b + l);
            for (int i = 0; i < 4; i++)
                at[i] = (unsigned char)(bits[b] >> (8 * i));
            char want[160];
            snprintf(want, sizeof want, "'%s': float %d of", layers[l], b + l);
            expect_fail(bad, len, "float.bin.gz", want);
            expect_fail(bad, len, "float.bin", b == 0 ? "NaN" : "infinite");
            free(bad);
        }
    free(buf);
    char path[160], err[1024];
    nn_desc *d = weights_load_kata(TEST_B2C16, err, sizeof err);
    snprintf(path, sizeof path, "%s/net.txt", tmpdir);
    write_desc(path, d->kata, false);
    nn_desc_free(d);
    buf = test_read_file(path, &len);
    unlink(path);
    unsigned char *at = find_bytes(buf, len, "model.value_head.linear2\n24\n12\n", 31);
    ck_assert(at);
    size_t n, off = (size_t)(at - buf) + 31;
    for (int k = 0; k < 3; k++) {
        static const char *tok[] = {"nan ", "inf ", "-inf "};
        unsigned char *bad = malloc(len + 8);
        memcpy(bad, buf, off);
        n = strlen(tok[k]);
        memcpy(bad + off, tok[k], n);
        memcpy(bad + off + n, buf + off, len - off);
        expect_fail(bad, len + n, "float.txt", "'model.value_head.linear2': float 0 of 288 is");
        free(bad);
    }
    free(buf);
}
END_TEST

/* Random damage never crashes or leaks; what still loads evaluates. */
START_TEST(random_damage_is_clean)
{
    size_t len;
    unsigned char *buf = test_read_file(TEST_B2C16, &len);
    unsigned char *bad = malloc(len);
    char err[1024];
    go_game g;
    game_from(&g, 9, "chinese", 7.5f, NULL, GO_BLACK, "B E5 W E3");
    nn_kata_output *o = malloc(sizeof *o);
    rng_state = 99;
    int loaded = 0;
    for (int trial = 0; trial < 300; trial++) {
        memcpy(bad, buf, len);
        int flips = 1 + trial % 4;
        for (int i = 0; i < flips; i++) {
            rng_state = rng_state * 1664525u + 1013904223u;
            size_t at = trial % 2 ? (rng_state >> 8) % 600 : (rng_state >> 8) % len;
            bad[at] ^= (unsigned char)(1u << (rng_state >> 29));
        }
        const char *path = write_tmp("damaged.bin", bad, len);
        nn_desc *d = weights_load_kata(path, err, sizeof err);
        if (d) {
            loaded++;
            ck_assert_msg(nn_kata_ref_eval(d, &g, trial % 8, 0.2, o, err, sizeof err), "%s", err);
            nn_desc_free(d);
        } else {
            ck_assert_msg(strstr(err, path) == err, "%s", err);
        }
        unlink(path);
    }
    printf("random damage: %d of 300 damaged files still loaded\n", loaded);
    fflush(stdout);
    free(o);
    go_game_free(&g);
    free(bad);
    free(buf);
}
END_TEST

/* A gzip stream cut short, and cuts through the real g170 net. */
START_TEST(truncated_gzip_and_g170_refused)
{
    FILE *f = fopen(TEST_B2C16, "rb");
    ck_assert(f);
    unsigned char raw[1 << 16];
    size_t n = fread(raw, 1, sizeof raw, f);
    fclose(f);
    char path[160], err[1024];
    snprintf(path, sizeof path, "%s/cut.bin.gz", tmpdir);
    f = fopen(path, "wb");
    fwrite(raw, 1, n / 2, f);
    fclose(f);
    ck_assert(!weights_load_kata(path, err, sizeof err));
    ck_assert_msg(strstr(err, "truncated or corrupt") || strstr(err, "cannot decompress"), "%s",
                  err);
    unlink(path);
    size_t len;
    unsigned char *buf = test_read_file(TEST_G170, &len);
    for (int i = 1; i < 16; i++)
        expect_fail(buf, len / 16 * i + (size_t)i * 7, "g170.bin", NULL);
    free(buf);
}
END_TEST

/* ---- tests: inputs ------------------------------------------------------------------------ */

static float plane_at(const nn_kata_inputs *in, int c, int size, const char *vertex)
{
    int p = test_point(size, vertex);
    return in->spatial[((size_t)c * size + go_point_y(p)) * size + go_point_x(p)];
}

static void fill(int version, const go_game *g, nn_kata_inputs *in)
{
    char err[256];
    go_rules r;
    nn_kata_supported_rules(version >= 8 ? 15 : version, &g->rules, &r);
    ck_assert_msg(nn_kata_inputs_fill(version, g, &r, in, err, sizeof err), "%s", err);
}

/* _i over boards 9x9, 19x19, 9 wide by 13 high, 19 wide by 2 high */
START_TEST(symmetries_invert)
{
    static const int shapes[][2] = {{9, 9}, {19, 19}, {9, 13}, {19, 2}};
    int width = shapes[_i][0], height = shapes[_i][1], area = width * height;
    float *src = malloc(sizeof(float) * 2 * area), *net = malloc(sizeof(float) * 2 * area);
    float *back = malloc(sizeof(float) * 2 * area);
    for (int i = 0; i < 2 * area; i++)
        src[i] = (float)i;
    for (int s = 0; s < NN_KATA_SYMMETRIES; s++) {
        for (int i = 0; i < 2 * area; i++)
            back[i] = -1.0f;
        nn_kata_symmetry_apply(s, false, width, height, 2, src, net);
        nn_kata_symmetry_apply(s, true, width, height, 2, net, back);
        ck_assert_msg(!memcmp(src, back, sizeof(float) * 2 * area), "symmetry %d", s);
    }
    /* KataGo's numbering: 1 flips rows, 2 flips columns, 4 transposes (the net's tensor then
     * has height columns) */
    nn_kata_symmetry_apply(1, false, width, height, 1, src, net);
    ck_assert_float_eq(net[0], src[(height - 1) * width]);
    nn_kata_symmetry_apply(2, false, width, height, 1, src, net);
    ck_assert_float_eq(net[0], src[width - 1]);
    nn_kata_symmetry_apply(4, false, width, height, 1, src, net);
    ck_assert_float_eq(net[1], src[width]);
    ck_assert_float_eq(net[height], src[1]);
    ck_assert_float_eq(net[area - 1], src[area - 1]);
    /* 6: transposed then the net's rows flipped: the net's top-left is the board's top-right */
    nn_kata_symmetry_apply(6, false, width, height, 1, src, net);
    ck_assert_float_eq(net[0], src[width - 1]);
    ck_assert_float_eq(net[height - 1], src[area - 1]);
    free(src);
    free(net);
    free(back);
}
END_TEST

START_TEST(stones_liberties_history)
{
    go_game g;
    game_from(&g, 9, "chinese", 7.5f, NULL, GO_BLACK, "B E5 W E6 B D6 W pass B F6");
    nn_kata_inputs *in = malloc(sizeof *in);
    fill(7, &g, in);
    ck_assert_int_eq(in->num_spatial, 22);
    ck_assert_int_eq(in->num_global, 19);
    ck_assert_float_eq(plane_at(in, 0, 9, "A1"), 1);
    ck_assert_float_eq(plane_at(in, 2, 9, "E5"), 1);   /* white to move: black stones are "opp" */
    ck_assert_float_eq(plane_at(in, 1, 9, "E6"), 1);
    ck_assert_float_eq(plane_at(in, 3, 9, "E6"), 1);   /* E6 in atari */
    ck_assert_float_eq(plane_at(in, 9, 9, "F6"), 1);   /* last move */
    ck_assert_float_eq(in->global[1], 1);              /* the move before was white's pass */
    ck_assert_float_eq(plane_at(in, 11, 9, "D6"), 1);
    ck_assert_float_eq(plane_at(in, 14, 9, "E6"), 0);  /* but it escapes by extending */
    ck_assert_float_eq(in->global[5], 7.5f / 20);
    ck_assert_float_eq(in->global[8], 0);
    ck_assert_float_eq(in->global[18], 0.5f);          /* komi wave */
    free(in);
    go_game_free(&g);
}
END_TEST

START_TEST(ko_and_superko_bans)
{
    static const char *ko = ". . . . .\n"
                            ". . X O .\n"
                            ". X . X O\n"
                            ". . X O .\n"
                            ". . . . .\n";
    go_game g;
    nn_kata_inputs *in = malloc(sizeof *in);
    bool legal[NN_KATA_MAX_POINTS];
    /* white captures D3 at C3: black may not retake at once */
    game_from(&g, 5, "japanese", 6.5f, ko, GO_WHITE, "W C3");
    ck_assert_int_eq(g.board.ko_point, test_point(5, "D3"));
    fill(7, &g, in);
    ck_assert_float_eq(plane_at(in, 6, 5, "D3"), 1);
    nn_kata_legal_moves(&g, &g.rules, legal);
    ck_assert(!legal[2 * 5 + 3]);
    go_game_free(&g);

    /* positional superko: after the capture both pass; retaking is no simple ko any more but
     * repeats the start position */
    game_from(&g, 5, "tromp-taylor", 7.5f, ko, GO_WHITE, "W C3 B pass W pass");
    ck_assert_int_eq(g.board.ko_point, 0);
    fill(7, &g, in);
    ck_assert_float_eq(plane_at(in, 6, 5, "D3"), 1);
    nn_kata_legal_moves(&g, &g.rules, legal);
    ck_assert(!legal[2 * 5 + 3]);
    ck_assert(legal[0]);
    go_game_free(&g);
    free(in);
}
END_TEST

/* Random games on small boards under positional superko with suicide allowed: at every position
 * the legal moves the net is told of are the game's own legal moves (go/game.c, which plays each
 * candidate out), through captures, superko repetitions and suicides. */
START_TEST(superko_bans_match_the_game)
{
    go_rules r;
    ck_assert(go_rules_preset(&r, "tromp-taylor"));
    uint64_t seed = 0x5eed;
    int bans = 0, suicides = 0, positions = 0;
    bool legal[NN_KATA_MAX_POINTS];
    for (int game = 0; game < 60; game++) {
        int size = 4 + game % 2;
        go_game g;
        ck_assert(go_game_init(&g, size, &r, 7.5f));
        for (int move = 0; move < 120; move++) {
            go_color c = (go_color)g.board.to_move;
            nn_kata_legal_moves(&g, &g.rules, legal);
            int cands[GO_POINTS], num = 0;
            for (int y = 0; y < size; y++)
                for (int x = 0; x < size; x++) {
                    int p = go_point_at(x, y);
                    go_move_status st = go_game_legal(&g, p, c);
                    ck_assert_msg(legal[y * size + x] == (st == GO_MOVE_OK),
                                  "game %d move %d: %c%d legal %d for the net, status %d", game,
                                  move, 'A' + x + (x >= 8), size - y, legal[y * size + x], st);
                    bans += st == GO_MOVE_SUPERKO;
                    if (st == GO_MOVE_OK)
                        cands[num++] = p;
                }
            positions++;
            if (num == 0)
                break;
            seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
            int p = cands[(seed >> 33) % (uint64_t)num];
            ck_assert_int_eq(go_game_play(&g, p, c), GO_MOVE_OK);
            suicides += g.board.color[p] == GO_EMPTY;
        }
        go_game_free(&g);
    }
    /* the games reach what the fast path must get right */
    ck_assert_int_gt(bans, 20);
    ck_assert_int_gt(suicides, 5);
    ck_assert_int_gt(positions, 3000);
}
END_TEST

START_TEST(ladder_planes)
{
    go_game g;
    nn_kata_inputs *in = malloc(sizeof *in);
    /* a lone white stone in the corner: black ladders it along either edge */
    game_from(&g, 5, "chinese", 7.5f, ". . . . .\n. . . . .\n. . . . .\n. . . . .\nO . . . .\n",
              GO_BLACK, NULL);
    fill(7, &g, in);
    ck_assert_float_eq(plane_at(in, 14, 5, "A1"), 1);
    ck_assert_float_eq(plane_at(in, 17, 5, "A2"), 1);
    ck_assert_float_eq(plane_at(in, 17, 5, "B1"), 1);
    go_game_free(&g);
    /* with a white stone on C1, A2 lets it connect out and B1 can be captured */
    game_from(&g, 5, "chinese", 7.5f, ". . . . .\n. . . . .\n. . . . .\n. . . . .\nO . O . .\n",
              GO_BLACK, NULL);
    fill(7, &g, in);
    ck_assert_float_eq(plane_at(in, 14, 5, "A1"), 0);
    ck_assert_float_eq(plane_at(in, 17, 5, "A2"), 0);
    ck_assert_float_eq(plane_at(in, 17, 5, "B1"), 0);
    go_game_free(&g);
    free(in);
}
END_TEST

START_TEST(komi_rules_and_area)
{
    go_game g;
    nn_kata_inputs *in = malloc(sizeof *in);
    /* territory scoring chills a point per stone: black played one more */
    game_from(&g, 9, "japanese", 6.5f, NULL, GO_BLACK, "B E5 W C3 B G7");
    fill(7, &g, in);
    ck_assert_float_eq(in->global[5], (6.5f + 1) / 20);
    ck_assert_float_eq(in->global[9], 1);
    ck_assert_float_eq(in->global[10], 1);   /* tax seki */
    ck_assert_float_eq(in->global[18], 0);   /* no komi wave under territory scoring */
    fill(3, &g, in);                         /* version 3 understands area scoring only */
    ck_assert_float_eq(in->global[5], 6.5f / 15);
    ck_assert_float_eq(in->global[9], 0);
    go_game_free(&g);
    /* white's handicap bonus N */
    game_from(&g, 9, "chinese", 0.5f, "X . . . . . . . X\n. . . . . . . . .\n. . . . . . . . .\n"
              ". . . . . . . . .\n. . . . . . . . .\n. . . . . . . . .\n. . . . . . . . .\n"
              ". . . . . . . . .\n. . . . . . . . .\n", GO_WHITE, NULL);
    fill(7, &g, in);
    ck_assert_float_eq(in->global[5], (0.5f + 2) / 20);
    go_game_free(&g);
    /* a black group with two eyes is pass-alive area, its territory too */
    game_from(&g, 5, "tromp-taylor", 7.5f,
              ". X . X .\nX X X X X\n. . . . .\n. . O . .\n. . . . .\n", GO_BLACK, NULL);
    fill(7, &g, in);
    ck_assert_float_eq(plane_at(in, 18, 5, "A5"), 1);
    ck_assert_float_eq(plane_at(in, 18, 5, "C5"), 1);
    ck_assert_float_eq(plane_at(in, 19, 5, "C2"), 1);
    ck_assert_float_eq(plane_at(in, 18, 5, "C3"), 0);
    ck_assert_float_eq(in->global[6], 1);
    ck_assert_float_eq(in->global[7], 0.5f);
    ck_assert_float_eq(in->global[8], 1);
    go_game_free(&g);
    /* area scoring with a group tax takes the independent-life area (its planes are checked
     * in tests/test_kata_tax.c) */
    game_from(&g, 9, "stone-scoring", 7.5f, NULL, GO_BLACK, NULL);
    char err[256];
    ck_assert_msg(nn_kata_inputs_fill(7, &g, &g.rules, in, err, sizeof err), "%s", err);
    go_game_free(&g);
    free(in);
}
END_TEST

Suite *kata_suite(void)
{
    Suite *s = suite_create("kata");
    TCase *load = tcase_create("load");
    tcase_add_checked_fixture(load, tmpdir_setup, tmpdir_teardown);
    tcase_set_timeout(load, 600);
    tcase_add_test(load, load_shared_nets);
    tcase_add_test(load, recognises_kata_files);
    tcase_add_test(load, text_and_binary_round_trip);
    tcase_add_loop_test(load, every_version_loads_and_runs, NN_KATA_MIN_VERSION,
                        NN_KATA_MAX_VERSION + 1);
    suite_add_tcase(s, load);

    TCase *bad = tcase_create("corrupt");
    tcase_add_checked_fixture(bad, tmpdir_setup, tmpdir_teardown);
    tcase_set_timeout(bad, 600);
    tcase_add_test(bad, unsupported_versions_refused);
    tcase_add_test(bad, truncated_files_refused);
    tcase_add_test(bad, corrupt_headers_refused);
    tcase_add_test(bad, transformer_fields_refused);
    tcase_add_test(bad, non_finite_floats_refused);
    tcase_add_test(bad, random_damage_is_clean);
    tcase_add_test(bad, truncated_gzip_and_g170_refused);
    suite_add_tcase(s, bad);

    TCase *inputs = tcase_create("inputs");
    tcase_add_loop_test(inputs, symmetries_invert, 0, 4);
    tcase_add_test(inputs, stones_liberties_history);
    tcase_add_test(inputs, ko_and_superko_bans);
    tcase_add_test(inputs, superko_bans_match_the_game);
    tcase_add_test(inputs, ladder_planes);
    tcase_add_test(inputs, komi_rules_and_area);
    suite_add_tcase(s, inputs);

    TCase *vec = tcase_create("vectors");
    tcase_set_timeout(vec, 3600);   /* the b5c192 net takes ~10 CPU minutes under ASan -O0 */
    tcase_add_test(vec, vectors_g170);
    tcase_add_test(vec, vectors_b2c16_v15);
    tcase_add_test(vec, vectors_b5c192nbt_v15);
    suite_add_tcase(s, vec);

    TCase *tf = tcase_create("transformer");
    tcase_set_timeout(tf, 600);
    tcase_add_test(tf, vectors_b10c384h6_transformer);
    suite_add_tcase(s, tf);
    return s;
}

int main(void) { return test_run_suite(kata_suite()); }
