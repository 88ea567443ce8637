/* nn/ref/kata_forward.c -- KataGo reference forward pass and post-processing (see the header and
 * weights/desc_kata.h). Runs on a width x height tensor, every point on the board, so no mask is
 * needed; layers come from an nn_ops table (nn_ref_ops: ref_ops.h, double accumulation). */
#include "nn/ref/kata_forward.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "weights/desc_kata.h"
#include "nn/ref/ref_ops.h"

const nn_ops nn_ref_ops = {"ref", nn_ref_conv, nn_ref_bn_act, nn_ref_matmul};

typedef struct kata_pass {
    const nn_ops *ops;
    int w, h, area;       /* the tensor's width, height and points */
    double sqrt_area;
    bool oom;             /* an allocation failed; everything after it is skipped */
} kata_pass;

static float *planes(kata_pass *P, int channels)
{
    float *x = P->oom ? NULL : calloc((size_t)channels * (size_t)P->area, sizeof *x);
    P->oom |= x == NULL;
    return x;
}

static float *values(kata_pass *P, int count)
{
    float *x = P->oom ? NULL : calloc((size_t)count, sizeof *x);
    P->oom |= x == NULL;
    return x;
}

/* KataGo's global pooling of c planes into 3c values: mean, mean * (sqrt(area) - 14) / 10, and
 * the maximum (gpool) or mean * ((sqrt(area) - 14)^2 / 100 - 0.1) (value head). */
static void global_pool(const kata_pass *P, int c, const float *x, bool value_head, float *out)
{
    double scale = (P->sqrt_area - 14.0) * 0.1;
    for (int ch = 0; ch < c; ch++) {
        const float *xc = x + (size_t)ch * P->area;
        double sum = 0, max = xc[0];
        for (int i = 0; i < P->area; i++) {
            sum += xc[i];
            max = xc[i] > max ? xc[i] : max;
        }
        double mean = sum / P->area;
        out[ch] = (float)mean;
        out[c + ch] = (float)(mean * scale);
        out[2 * c + ch] = (float)(value_head ? mean * (scale * scale - 0.1) : max);
    }
}

/* x[ch][i] += bias[ch] */
static void add_channel_bias(const kata_pass *P, int c, const float *bias, float *x)
{
    for (int ch = 0; ch < c; ch++)
        for (int i = 0; i < P->area; i++)
            x[(size_t)ch * P->area + i] += bias[ch];
}

/* The gpool branch of a gpool block or the policy head: pools act(bn(conv(a))) into pooled. */
static void pooled_branch(kata_pass *P, const nn_conv_desc *conv, const nn_bn_desc *bn,
                          nn_activation act, const float *a, float *pooled)
{
    float *g = planes(P, conv->c_out);
    if (g) {
        P->ops->conv(conv, P->h, P->w, a, g);
        P->ops->bn_act(bn, act, P->h, P->w, NULL, g);
        global_pool(P, conv->c_out, g, false, pooled);
    }
    free(g);
}

/* ---- transformer blocks (KataGo 1.17) --------------------------------------------------------
 * Plain loops in double like ref_ops.c, on planes [c][area]; every point is on the board, so
 * the attention's key mask and the blocks' output mask have nothing to remove. */

/* u[c][i] = x[c][i] / sqrt(mean over c of x[.][i]^2 + eps) * weight[c] */
static void rms_norm(const kata_pass *P, const nn_kata_rms_norm *r, const float *x, float *u)
{
    for (int i = 0; i < P->area; i++) {
        double ss = 0;
        for (int c = 0; c < r->c; c++) {
            double v = x[(size_t)c * P->area + i];
            ss += v * v;
        }
        double inv = 1.0 / sqrt(ss / r->c + r->eps);
        for (int c = 0; c < r->c; c++)
            u[(size_t)c * P->area + i] = (float)(x[(size_t)c * P->area + i] * inv * r->weight[c]);
    }
}

/* y[i][o] = u[.][i] . m (per point, no bias: KataGo's transformer matmuls have none);
 * u planes [c_in][area], y point-major [area][c_out]. */
static void point_matmul(const kata_pass *P, const nn_matmul_desc *m, const float *u, float *y)
{
    for (int i = 0; i < P->area; i++)
        for (int o = 0; o < m->c_out; o++) {
            double acc = 0;
            for (int c = 0; c < m->c_in; c++)
                acc += (double)u[(size_t)c * P->area + i] * m->w[(size_t)c * m->c_out + o];
            y[(size_t)i * m->c_out + o] = (float)acc;
        }
}

/* x[c][i] += h[i][.] . m (point-major h [area][c_in]) */
static void point_matmul_add(const kata_pass *P, const nn_matmul_desc *m, const float *h, float *x)
{
    for (int i = 0; i < P->area; i++)
        for (int o = 0; o < m->c_out; o++) {
            double acc = 0;
            for (int c = 0; c < m->c_in; c++)
                acc += (double)h[(size_t)i * m->c_in + c] * m->w[(size_t)c * m->c_out + o];
            x[(size_t)o * P->area + i] += (float)acc;
        }
}

/* Rotates the channel pairs of `heads` heads of t[area][heads * a->q_dim] by each point's
 * angles (weights/desc_kata.h): learned frequencies per key/value head, or theta's. */
static void rope_rotate(const kata_pass *P, const nn_kata_attention *a, int heads, float *t)
{
    int pairs = a->q_dim / 2, per_axis = pairs / 2;
    for (int i = 0; i < P->area; i++) {
        int y = i / P->w, x = i % P->w;
        for (int h = 0; h < heads; h++) {
            int kvh = h * a->kv_heads / heads;
            for (int p = 0; p < pairs; p++) {
                double angle;
                if (a->learnable_rope) {
                    const float *f = a->rope_freqs + ((size_t)kvh * pairs + p) * 2;
                    angle = x * (double)f[0] + y * (double)f[1];
                } else {
                    int q = p < per_axis ? p : p - per_axis;
                    double freq = 1.0 / pow(a->rope_theta, 2.0 * q / pairs);
                    angle = (p < per_axis ? y : x) * freq;
                }
                float *v = t + (size_t)i * heads * a->q_dim + (size_t)h * a->q_dim + 2 * p;
                double c = cos(angle), s = sin(angle), v0 = v[0], v1 = v[1];
                v[0] = (float)(v0 * c - v1 * s);
                v[1] = (float)(v0 * s + v1 * c);
            }
        }
    }
}

static void run_attention(kata_pass *P, const nn_kata_attention *a, float *x)
{
    int area = P->area, qd = a->q_dim, vd = a->v_dim, group = a->heads / a->kv_heads;
    float *u = planes(P, a->norm.c), *q = planes(P, a->q.c_out), *k = planes(P, a->k.c_out);
    float *v = planes(P, a->v.c_out), *o = planes(P, a->out.c_in);
    double *w = P->oom ? NULL : malloc(sizeof *w * (size_t)area);
    P->oom |= w == NULL;
    if (!P->oom) {
        rms_norm(P, &a->norm, x, u);
        point_matmul(P, &a->q, u, q);
        point_matmul(P, &a->k, u, k);
        point_matmul(P, &a->v, u, v);
        if (a->rope) {
            rope_rotate(P, a, a->heads, q);
            rope_rotate(P, a, a->kv_heads, k);
        }
        double scale = 1.0 / sqrt((double)qd);
        for (int h = 0; h < a->heads; h++) {
            int kvh = h / group;
            for (int i = 0; i < area; i++) {
                const float *qi = q + (size_t)i * a->q.c_out + (size_t)h * qd;
                double max = -INFINITY, sum = 0;
                for (int j = 0; j < area; j++) {
                    const float *kj = k + (size_t)j * a->k.c_out + (size_t)kvh * qd;
                    double dot = 0;
                    for (int d = 0; d < qd; d++)
                        dot += (double)qi[d] * kj[d];
                    w[j] = dot * scale;
                    max = w[j] > max ? w[j] : max;
                }
                for (int j = 0; j < area; j++)
                    sum += w[j] = exp(w[j] - max);
                for (int d = 0; d < vd; d++) {
                    double acc = 0;
                    for (int j = 0; j < area; j++)
                        acc += w[j] * v[(size_t)j * a->v.c_out + (size_t)kvh * vd + d];
                    o[(size_t)i * a->out.c_in + (size_t)h * vd + d] = (float)(acc / sum);
                }
            }
        }
        point_matmul_add(P, &a->out, o, x);
    }
    free(u);
    free(q);
    free(k);
    free(v);
    free(o);
    free(w);
}

static double silu(double v) { return v / (1.0 + exp(-v)); }

static void run_ffn(kata_pass *P, const nn_kata_ffn *f, float *x)
{
    float *u = planes(P, f->c), *a = planes(P, f->ffn_c), *g = planes(P, f->ffn_c);
    if (!P->oom) {
        rms_norm(P, &f->norm, x, u);
        point_matmul(P, &f->linear1, u, a);
        point_matmul(P, &f->gate, u, g);
        for (size_t i = 0; i < (size_t)P->area * f->ffn_c; i++)
            a[i] = (float)(silu(a[i]) * g[i]);
        point_matmul_add(P, &f->linear2, a, x);
    }
    free(u);
    free(a);
    free(g);
}

/* In place: x = act(x / rms * gamma + beta), the trunk tip of an RMS-norm trunk. The one sum
 * the reference takes in float, not double: over the whole board (~138,000 squares at 384
 * channels) KataGo's float sum in point-then-channel order rounds the normaliser by ~1e-5,
 * which moves its score outputs by more than the vectors' tolerances; summing as it does
 * reproduces it (the cpu backend does the same). */
static void run_tip_rms(const kata_pass *P, const nn_kata_tip_rms *r, nn_activation act, float *x)
{
    float ss = 0;
    for (int i = 0; i < P->area; i++)
        for (int c = 0; c < r->c; c++)
            ss += x[(size_t)c * P->area + i] * x[(size_t)c * P->area + i];
    double inv_all = 1.0 / sqrt(ss / ((double)r->c * P->area) + r->eps);
    for (int i = 0; i < P->area; i++) {
        double inv = inv_all;
        if (!r->spatial) {
            double sp = 0;
            for (int c = 0; c < r->c; c++)
                sp += (double)x[(size_t)c * P->area + i] * x[(size_t)c * P->area + i];
            inv = 1.0 / sqrt(sp / r->c + r->eps);
        }
        for (int c = 0; c < r->c; c++) {
            float *v = &x[(size_t)c * P->area + i];
            *v = (float)nn_ref_activate(act, *v * inv * r->gamma[c] + r->beta[c]);
        }
    }
}

static void run_block(kata_pass *P, const nn_kata_block *b, float *x)
{
    if (b->kind == NN_KATA_BLOCK_ATTENTION) {
        run_attention(P, &b->attn, x);
        return;
    }
    if (b->kind == NN_KATA_BLOCK_FFN) {
        run_ffn(P, &b->ffn, x);
        return;
    }
    int h = P->h, w = P->w;
    float *a = planes(P, b->bn1.c), *t = planes(P, b->conv1.c_out);
    float *y = planes(P, b->conv2.c_out);
    float *pooled = b->kind == NN_KATA_BLOCK_GPOOL ? values(P, 3 * b->gpool_conv.c_out) : NULL;
    float *bias = b->kind == NN_KATA_BLOCK_GPOOL ? values(P, b->gpool_to_bias.c_out) : NULL;
    if (!P->oom) {
        memcpy(a, x, sizeof *a * (size_t)b->bn1.c * P->area);
        P->ops->bn_act(&b->bn1, b->act1, h, w, NULL, a);
        P->ops->conv(&b->conv1, h, w, a, t);
        if (b->kind == NN_KATA_BLOCK_GPOOL) {
            pooled_branch(P, &b->gpool_conv, &b->gpool_bn, b->gpool_act, a, pooled);
            P->ops->matmul(&b->gpool_to_bias, pooled, bias);
            add_channel_bias(P, b->gpool_to_bias.c_out, bias, t);
        }
        for (int i = 0; i < b->num_inner; i++)
            run_block(P, &b->inner[i], t);
        P->ops->bn_act(&b->bn2, b->act2, h, w, NULL, t);
        P->ops->conv(&b->conv2, h, w, t, y);
        for (size_t i = 0; i < (size_t)b->conv2.c_out * P->area; i++)
            x[i] += y[i];
    }
    free(a);
    free(t);
    free(y);
    free(pooled);
    free(bias);
}

/* The metadata encoder: act2(mul2(act1(mul1(meta)))) . mul3, a bias per trunk channel. */
static void run_meta_encoder(kata_pass *P, const nn_kata_meta_encoder *m, const float *meta,
                             float *bias)
{
    float *h1 = values(P, m->mul1.c_out), *h2 = values(P, m->mul2.c_out);
    if (!P->oom) {
        P->ops->matmul(&m->mul1, meta, h1);
        for (int i = 0; i < m->mul1.c_out; i++)
            h1[i] = (float)nn_ref_activate(m->act1, h1[i]);
        P->ops->matmul(&m->mul2, h1, h2);
        for (int i = 0; i < m->mul2.c_out; i++)
            h2[i] = (float)nn_ref_activate(m->act2, h2[i]);
        P->ops->matmul(&m->mul3, h2, bias);
    }
    free(h1);
    free(h2);
}

/* The trunk's output planes [trunk channels][area], or NULL when out of memory. */
static float *run_trunk(kata_pass *P, const nn_kata_desc *k, const float *spatial,
                        const float *global, const float *meta)
{
    const nn_kata_trunk *t = &k->trunk;
    float *x = planes(P, t->trunk_channels), *bias = values(P, t->trunk_channels);
    if (!P->oom) {
        P->ops->conv(&t->initial_conv, P->h, P->w, spatial, x);
        P->ops->matmul(&t->initial_matmul, global, bias);
        add_channel_bias(P, t->trunk_channels, bias, x);
        if (meta && k->meta_encoder_version > 0) {
            run_meta_encoder(P, &k->meta, meta, bias);
            if (!P->oom)
                add_channel_bias(P, t->trunk_channels, bias, x);
        }
        for (int i = 0; i < t->num_blocks; i++)
            run_block(P, &t->blocks[i], x);
        if (t->norm_kind == 1)
            run_tip_rms(P, &t->tip_rms, t->tip_act, x);
        else
            P->ops->bn_act(&t->tip_bn, t->tip_act, P->h, P->w, NULL, x);
    }
    free(bias);
    if (P->oom) {
        free(x);
        return NULL;
    }
    return x;
}

/* Policy logits [out_channels][area] and pass logits [out_channels]. */
static void run_policy(kata_pass *P, const nn_kata_policy_head *h, const float *trunk,
                       float *logits, float *pass)
{
    int ht = P->h, w = P->w;
    float *p1 = planes(P, h->p1_conv.c_out), *pooled = values(P, 3 * h->g1_conv.c_out);
    float *bias = values(P, h->gpool_to_bias.c_out), *hidden = values(P, h->gpool_to_pass.c_out);
    if (!P->oom) {
        P->ops->conv(&h->p1_conv, ht, w, trunk, p1);
        pooled_branch(P, &h->g1_conv, &h->g1_bn, h->g1_act, trunk, pooled);
        P->ops->matmul(&h->gpool_to_bias, pooled, bias);
        add_channel_bias(P, h->gpool_to_bias.c_out, bias, p1);
        P->ops->bn_act(&h->p1_bn, h->p1_act, ht, w, NULL, p1);
        P->ops->conv(&h->p2_conv, ht, w, p1, logits);
        if (h->has_pass2) {
            P->ops->matmul(&h->gpool_to_pass, pooled, hidden);
            for (int i = 0; i < h->gpool_to_pass.c_out; i++)
                hidden[i] = (float)nn_ref_activate(h->pass_act, hidden[i]);
            P->ops->matmul(&h->gpool_to_pass2, hidden, pass);
        } else {
            P->ops->matmul(&h->gpool_to_pass, pooled, pass);
        }
    }
    free(p1);
    free(pooled);
    free(bias);
    free(hidden);
}

/* Value logits [3], score values [score channels], ownership [area]. */
static void run_value(kata_pass *P, const nn_kata_value_head *h, const float *trunk, float *value,
                      float *score, float *ownership)
{
    int ht = P->h, w = P->w;
    float *v1 = planes(P, h->v1_conv.c_out), *pooled = values(P, 3 * h->v1_conv.c_out);
    float *hidden = values(P, h->v2.c_out);
    if (!P->oom) {
        P->ops->conv(&h->v1_conv, ht, w, trunk, v1);
        P->ops->bn_act(&h->v1_bn, h->v1_act, ht, w, NULL, v1);
        global_pool(P, h->v1_conv.c_out, v1, true, pooled);
        P->ops->matmul(&h->v2, pooled, hidden);
        for (int i = 0; i < h->v2.c_out; i++)
            hidden[i] = (float)nn_ref_activate(h->v2_act, hidden[i]);
        P->ops->matmul(&h->v3, hidden, value);
        P->ops->matmul(&h->sv3, hidden, score);
        P->ops->conv(&h->ownership_conv, ht, w, v1, ownership);
    }
    free(v1);
    free(pooled);
    free(hidden);
}

static double soft_plus(double x) { return x > 40.0 ? x : log1p(exp(x)); }

/* KataGo's value post-processing, from the side to move's view (white's view is taken later). */
static void post_values(const nn_kata_desc *k, const go_rules *rules, int area,
                        const float *value, const float *score, nn_kata_output *out)
{
    double logit[3] = {value[0], value[1], value[2]};
    bool no_result_possible = k->version == 3 || rules->ko == GO_KO_SIMPLE ||
                              rules->scoring == GO_SCORING_TERRITORY;
    if (!no_result_possible)
        logit[2] -= 100000.0;
    double max = fmax(fmax(logit[0], logit[1]), logit[2]), prob[3], sum = 0;
    for (int i = 0; i < 3; i++)
        sum += prob[i] = exp(logit[i] - max);
    if (!no_result_possible) {
        sum -= prob[2];
        prob[2] = 0;
    }
    out->white_win = prob[0] / sum;
    out->white_loss = prob[1] / sum;
    out->no_result = prob[2] / sum;
    out->var_time_left = out->shortterm_winloss_error = out->shortterm_score_error = -1;
    if (k->version == 3) {
        /* the net's one score output is an atan-squashed score value in units of twice the
         * board's side, sqrt(area); map it back to points */
        double half_pi = 1.57079632679489661923;
        double sv = atan(score[0]) / half_pi, x = sv * half_pi;
        double unscaled = x >= half_pi - 1e-6 ? 1e6 : x <= -half_pi + 1e-6 ? -1e6 : tan(x);
        out->white_score_selfplay = out->white_lead = unscaled * 2.0 * sqrt((double)area);
        out->white_score_selfplay_sq = out->white_score_selfplay * out->white_score_selfplay;
        return;
    }
    const nn_kata_postprocess *s = &k->post;
    double result = 1.0 - out->no_result;
    double mean = score[0] * s->score_mean, stdev = soft_plus(score[1]) * s->score_stdev;
    out->white_score_selfplay = mean * result;
    out->white_score_selfplay_sq = (mean * mean + stdev * stdev) * result;
    out->white_lead = (k->version >= 8 ? score[2] : score[0]) * s->lead * result;
    if (k->version < 9)
        return;
    out->var_time_left = soft_plus(score[3]) * s->variance_time;
    if (k->version >= 14) {
        double w = soft_plus(score[4] * 0.5), e = soft_plus(score[5] * 0.5);
        out->shortterm_winloss_error = sqrt(w * w * s->shortterm_value_error);
        out->shortterm_score_error = sqrt(e * e * s->shortterm_score_error);
    } else if (k->version >= 10) {
        out->shortterm_winloss_error = sqrt(soft_plus(score[4]) * s->shortterm_value_error);
        out->shortterm_score_error = sqrt(soft_plus(score[5]) * s->shortterm_score_error);
    } else {
        out->shortterm_winloss_error = soft_plus(score[4]);
        out->shortterm_score_error = soft_plus(score[5]) * 10.0;
    }
}

/* Optimism mixing, symmetry undone, softmax over the legal moves and pass. */
static void post_policy(const nn_kata_policy_head *h, const go_game *g, const go_rules *rules,
                        int symmetry, double optimism, const float *logits, const float *pass,
                        float *mixed, nn_kata_output *out)
{
    int width = g->board.width, height = g->board.height, area = width * height;
    float opt = (float)optimism, pass_logit = pass[0];
    for (int i = 0; i < area; i++)
        mixed[i] = logits[i];
    if (h->out_channels >= 2) {   /* channel 1 the optimistic policy; 2 and 3 q values */
        for (int i = 0; i < area; i++)
            mixed[i] = logits[i] + (logits[area + i] - logits[i]) * opt;
        pass_logit = pass[0] + (pass[1] - pass[0]) * opt;
    }
    nn_kata_symmetry_apply(symmetry, true, width, height, 1, mixed, out->policy);
    bool legal[NN_KATA_MAX_POINTS];
    nn_kata_legal_moves(g, rules, legal);
    double max = pass_logit, sum = 0;
    for (int i = 0; i < area; i++)
        if (legal[i] && out->policy[i] > max)
            max = out->policy[i];
    for (int i = 0; i < area; i++)
        if (legal[i])
            sum += exp(out->policy[i] - max);
    sum += exp(pass_logit - max);
    for (int i = 0; i < area; i++)
        out->policy[i] = legal[i] ? (float)(exp(out->policy[i] - max) / sum) : NAN;
    out->policy_pass = (float)(exp(pass_logit - max) / sum);
}

bool nn_kata_forward_ops(const nn_ops *ops, const nn_kata_desc *k, int width, int height,
                         const float *spatial, const float *global, const float *meta,
                         const nn_kata_raw *raw)
{
    kata_pass P = {.ops = ops, .w = width, .h = height, .area = width * height,
                   .sqrt_area = sqrt((double)(width * height))};
    float *trunk = run_trunk(&P, k, spatial, global, meta);
    if (trunk) {
        run_policy(&P, &k->policy, trunk, raw->policy, raw->pass);
        run_value(&P, &k->value, trunk, raw->value, raw->score, raw->ownership);
    }
    free(trunk);
    return !P.oom;
}

bool nn_kata_eval_inputs(const nn_desc *d, const go_game *g, int symmetry,
                         double policy_optimism, nn_kata_inputs *scratch, float *spatial,
                         float *global, char *err, int err_len)
{
    if (!d || d->family != NN_FAMILY_KATA || !d->kata) {
        snprintf(err, (size_t)err_len, "kata eval: not a KataGo description");
        return false;
    }
    if (symmetry < 0 || symmetry >= NN_KATA_SYMMETRIES || !isfinite(policy_optimism)) {
        snprintf(err, (size_t)err_len, "%s: eval: expected symmetry 0..7 and a finite optimism",
                 d->source);
        return false;
    }
    const nn_kata_desc *k = d->kata;
    go_rules rules;
    nn_kata_supported_rules(k->version, &g->rules, &rules);
    if (!nn_kata_inputs_fill(k->inputs_version, g, &rules, scratch, err, err_len))
        return false;
    nn_kata_symmetry_apply(symmetry, false, g->board.width, g->board.height, scratch->num_spatial,
                           scratch->spatial, spatial);
    memcpy(global, scratch->global, sizeof *global * (size_t)scratch->num_global);
    return true;
}

void nn_kata_post_outputs(const nn_kata_desc *k, const go_game *g, int symmetry,
                         double policy_optimism, const nn_kata_raw *raw, nn_kata_output *out)
{
    go_rules rules;
    nn_kata_supported_rules(k->version, &g->rules, &rules);
    int width = g->board.width, height = g->board.height, area = width * height;
    float mixed[NN_KATA_MAX_POINTS];
    out->size = g->board.size;
    out->width = width;
    out->height = height;
    post_policy(&k->policy, g, &rules, symmetry, policy_optimism, raw->policy, raw->pass, mixed,
                out);
    post_values(k, &rules, area, raw->value, raw->score, out);
    nn_kata_symmetry_apply(symmetry, true, width, height, 1, raw->ownership,
                           out->white_ownership);
    bool white = g->board.to_move == GO_WHITE;
    for (int i = 0; i < area; i++)
        out->white_ownership[i] = (float)(white ? tanh(out->white_ownership[i])
                                                : -tanh(out->white_ownership[i]));
    if (!white) {
        double t = out->white_win;
        out->white_win = out->white_loss;
        out->white_loss = t;
        out->white_score_selfplay = -out->white_score_selfplay;
        out->white_lead = -out->white_lead;
    }
}

bool nn_kata_ref_eval(const nn_desc *d, const go_game *g, int symmetry, double policy_optimism,
                      nn_kata_output *out, char *err, int err_len)
{
    return nn_kata_eval_ops(&nn_ref_ops, d, g, symmetry, policy_optimism, out, err, err_len);
}

bool nn_kata_eval_ops(const nn_ops *ops, const nn_desc *d, const go_game *g, int symmetry,
                      double policy_optimism, nn_kata_output *out, char *err, int err_len)
{
    int width = g->board.width, height = g->board.height;
    int area = width * height;
    nn_kata_inputs *in = malloc(sizeof *in);
    float *spatial = malloc(sizeof *spatial * NN_KATA_MAX_SPATIAL * (size_t)area);
    float global[NN_KATA_MAX_GLOBAL];
    if (!in || !spatial) {
        snprintf(err, (size_t)err_len, "%s: eval: out of memory", d ? d->source : "kata eval");
        free(in);
        free(spatial);
        return false;
    }
    bool ok = nn_kata_eval_inputs(d, g, symmetry, policy_optimism, in, spatial, global, err,
                                  err_len);
    float *mem = NULL;
    if (ok) {
        const nn_kata_desc *k = d->kata;
        int oc = k->policy.out_channels;
        mem = calloc((size_t)(oc + 1) * area + (size_t)oc + 3 + (size_t)k->score_channels,
                     sizeof *mem);
        nn_kata_raw raw = {.policy = mem};
        if (mem) {
            raw.ownership = mem + (size_t)oc * area;
            raw.pass = raw.ownership + area;
            raw.value = raw.pass + oc;
            raw.score = raw.value + 3;
        }
        int tw, th;
        nn_kata_tensor_dims(symmetry, width, height, &tw, &th);
        ok = mem && nn_kata_forward_ops(ops, k, tw, th, spatial, global, NULL, &raw);
        if (ok)
            nn_kata_post_outputs(k, g, symmetry, policy_optimism, &raw, out);
        else
            snprintf(err, (size_t)err_len, "%s: eval: out of memory", d->source);
    }
    free(in);
    free(spatial);
    free(mem);
    return ok;
}
