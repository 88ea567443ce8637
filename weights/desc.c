/* weights/desc.c -- freeing model descriptions, and the rotary-encoding tables of KataGo 1.17's
 * attention blocks that the backends share. */
#include "weights/desc.h"

#include <math.h>
#include <stdlib.h>

#include "weights/desc_kata.h"

void nn_conv_free(nn_conv_desc *c)
{
    free(c->w);
    free(c->bias);
    c->w = c->bias = NULL;
}

void nn_bn_free(nn_bn_desc *b)
{
    free(b->mean);
    free(b->var);
    free(b->scale);
    free(b->bias);
    b->mean = b->var = b->scale = b->bias = NULL;
}

void nn_matmul_free(nn_matmul_desc *m)
{
    free(m->w);
    free(m->bias);
    m->w = m->bias = NULL;
}

void nn_desc_free(nn_desc *d)
{
    if (!d)
        return;
    if (d->lz)
        nn_lz_desc_free(d->lz);
    if (d->kata)
        nn_kata_desc_free(d->kata);
    if (d->disc)
        nn_disc_desc_free(d->disc);
    free(d);
}

int nn_kata_rope_tables(const nn_kata_attention *a) { return a->learnable_rope ? a->kv_heads : 1; }

void nn_kata_rope_fill(const nn_kata_attention *a, float *cos_t, float *sin_t)
{
    int pairs = a->q_dim / 2, per_axis = pairs / 2, tables = nn_kata_rope_tables(a);
    int side = NN_KATA_ROPE_SIDE, points = side * side;
    for (int t = 0; t < tables; t++)
        for (int q = 0; q < pairs; q++)
            for (int at = 0; at < points; at++) {
                int y = at / side, x = at % side;
                double angle;
                if (a->learnable_rope) {
                    /* the learned frequencies per key/value head and pair, (x, y) */
                    const float *f = a->rope_freqs + ((size_t)t * pairs + q) * 2;
                    angle = x * (double)f[0] + y * (double)f[1];
                } else {
                    /* theta's: the first half of the pairs by y, the second by x */
                    int r = q < per_axis ? q : q - per_axis;
                    angle = (q < per_axis ? y : x) / pow(a->rope_theta, 2.0 * r / pairs);
                }
                size_t i = ((size_t)t * pairs + q) * points + at;
                cos_t[i] = (float)cos(angle);
                sin_t[i] = (float)sin(angle);
            }
}
