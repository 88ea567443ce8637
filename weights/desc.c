/* weights/desc.c -- freeing model descriptions. */
#include "weights/desc.h"

#include <stdlib.h>

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
