/* nn/ref/disc_forward.c -- the discriminator's reference forward pass. */
#include "nn/ref/disc_forward.h"

#include <stdlib.h>

bool nn_disc_forward_ref(const nn_disc_desc *d, const float *x, float *logit)
{
    int size = d->size, area = size * size;
    size_t widest = (size_t)d->planes * area;
    for (int l = 0; l < d->num_layers; l++)
        if ((size_t)nn_disc_layer_outputs(d, l) > widest)
            widest = (size_t)nn_disc_layer_outputs(d, l);
    double *a = malloc(widest * sizeof *a), *b = malloc(widest * sizeof *b);
    if (!a || !b) {
        free(a);
        free(b);
        return false;
    }
    for (size_t i = 0; i < (size_t)d->planes * area; i++)
        a[i] = x[i];
    for (int l = 0; l < d->num_layers; l++) {
        const nn_disc_layer *L = &d->layer[l];
        if (L->kind == NN_DISC_CONV) {
            const nn_conv_desc *c = &L->conv;
            int k = c->ky, pad = k / 2;
            for (int o = 0; o < c->c_out; o++)
                for (int y = 0; y < size; y++)
                    for (int xx = 0; xx < size; xx++) {
                        double s = c->bias[o];
                        for (int i = 0; i < c->c_in; i++)
                            for (int ky = 0; ky < k; ky++)
                                for (int kx = 0; kx < k; kx++) {
                                    int sy = y + ky - pad, sx = xx + kx - pad;
                                    if (sy < 0 || sy >= size || sx < 0 || sx >= size)
                                        continue;
                                    s += (double)c->w[((o * c->c_in + i) * k + ky) * k + kx] *
                                         a[(i * size + sy) * size + sx];
                                }
                        b[(o * size + y) * size + xx] = s;
                    }
        } else {
            const nn_matmul_desc *m = &L->dense;
            for (int o = 0; o < m->c_out; o++) {
                double s = m->bias[o];
                for (int i = 0; i < m->c_in; i++)
                    s += (double)m->w[(size_t)i * m->c_out + o] * a[i];
                b[o] = s;
            }
        }
        size_t outs = (size_t)nn_disc_layer_outputs(d, l);
        for (size_t i = 0; i < outs; i++)
            a[i] = L->act == NN_ACT_RELU && b[i] < 0 ? 0.0 : b[i];
    }
    *logit = (float)a[0];
    free(a);
    free(b);
    return true;
}
