/* nn/ref/ref_ops.c -- reference layers: plain loops, double accumulation. */
#include "nn/ref/ref_ops.h"

#include <math.h>

void nn_ref_conv(const nn_conv_desc *c, int h, int w, const float *x, float *y)
{
    int py = (c->ky / 2) * c->dil_y, px = (c->kx / 2) * c->dil_x;
    for (int o = 0; o < c->c_out; o++)
        for (int r = 0; r < h; r++)
            for (int col = 0; col < w; col++) {
                double acc = c->bias ? c->bias[o] : 0.0;
                for (int i = 0; i < c->c_in; i++) {
                    const float *wk = c->w + ((size_t)o * c->c_in + i) * c->ky * c->kx;
                    const float *xi = x + (size_t)i * h * w;
                    for (int dy = 0; dy < c->ky; dy++) {
                        int rr = r + dy * c->dil_y - py;
                        if (rr < 0 || rr >= h)
                            continue;
                        for (int dx = 0; dx < c->kx; dx++) {
                            int cc = col + dx * c->dil_x - px;
                            if (cc < 0 || cc >= w)
                                continue;
                            acc += (double)wk[dy * c->kx + dx] * xi[rr * w + cc];
                        }
                    }
                }
                y[((size_t)o * h + r) * w + col] = (float)acc;
            }
}

double nn_ref_activate(nn_activation act, double v)
{
    switch (act) {
    case NN_ACT_RELU:
        return v > 0 ? v : 0;
    case NN_ACT_MISH: {
        /* mish(v) = v * tanh(softplus(v)); softplus written to stay finite for large |v| */
        double sp = v > 20 ? v : log1p(exp(v));
        return v * tanh(sp);
    }
    case NN_ACT_SILU:
        return v / (1.0 + exp(-v));
    case NN_ACT_IDENTITY:
        break;
    }
    return v;
}

void nn_ref_bn_act(const nn_bn_desc *b, nn_activation act, int h, int w, const float *mask,
                   float *x)
{
    for (int ch = 0; ch < b->c; ch++) {
        double inv = 1.0 / sqrt((double)b->var[ch] + (double)b->eps);
        double scale = b->scale ? b->scale[ch] : 1.0;
        double bias = b->bias ? b->bias[ch] : 0.0;
        float *xc = x + (size_t)ch * h * w;
        for (int i = 0; i < h * w; i++) {
            double v = ((double)xc[i] - b->mean[ch]) * inv * scale + bias;
            v = nn_ref_activate(act, v);
            xc[i] = mask && mask[i] == 0.0f ? 0.0f : (float)v;
        }
    }
}

void nn_ref_matmul(const nn_matmul_desc *m, const float *x, float *y)
{
    for (int o = 0; o < m->c_out; o++) {
        double acc = m->bias ? m->bias[o] : 0.0;
        for (int i = 0; i < m->c_in; i++)
            acc += (double)x[i] * m->w[(size_t)i * m->c_out + o];
        y[o] = (float)acc;
    }
}
