/* nn/cuda/cuda_choices.c -- the table of cuDNN algorithm choices (see cuda_choices.h). A model
 * has tens of shapes per batch and board size: a linear scan is enough. */
#include "nn/cuda/cuda_choices.h"

#include <stdlib.h>

nn_cuda_choices *nn_cuda_choices_new(void)
{
    nn_cuda_choices *t = calloc(1, sizeof *t);
    if (t && pthread_mutex_init(&t->mu, NULL) != 0) {
        free(t);
        return NULL;
    }
    return t;
}

void nn_cuda_choices_free(nn_cuda_choices *t)
{
    if (!t)
        return;
    pthread_mutex_destroy(&t->mu);
    free(t->c);
    free(t);
}

void nn_cuda_choices_lock(nn_cuda_choices *t)
{
    pthread_mutex_lock(&t->mu);
}

void nn_cuda_choices_unlock(nn_cuda_choices *t)
{
    pthread_mutex_unlock(&t->mu);
}

static bool same_shape(const nn_cuda_choice *a, const nn_cuda_choice *b)
{
    return a->n == b->n && a->height == b->height && a->width == b->width && a->k == b->k &&
           a->dil == b->dil && a->c_in == b->c_in && a->c_out == b->c_out;
}

bool nn_cuda_choices_find(const nn_cuda_choices *t, const nn_cuda_choice *key, size_t ws_limit,
                          nn_cuda_choice *out)
{
    for (int i = 0; i < t->num; i++)
        if (same_shape(&t->c[i], key) && t->c[i].ws_bytes <= ws_limit) {
            *out = t->c[i];
            return true;
        }
    return false;
}

bool nn_cuda_choices_add(nn_cuda_choices *t, const nn_cuda_choice *c)
{
    if (t->num == t->cap) {
        int cap = t->cap ? 2 * t->cap : 32;
        nn_cuda_choice *grown = realloc(t->c, sizeof *grown * (size_t)cap);
        if (!grown)
            return false;
        t->c = grown;
        t->cap = cap;
    }
    t->c[t->num++] = *c;
    return true;
}
