/* nn/ref/ref_backend.c -- the reference as a backend (nn/backend.h): each position of a batch
 * goes through the plain-loop forward passes of kata_forward.c / lz_forward.c / disc_forward.c
 * in turn. */
#include <stdio.h>
#include <stdlib.h>

#include "nn/backend.h"
#include "weights/desc_disc.h"
#include "weights/desc_kata.h"
#include "weights/desc_lz.h"
#include "nn/ref/disc_forward.h"
#include "nn/ref/kata_forward.h"
#include "nn/ref/lz_forward.h"

/* The reference needs nothing beyond the description itself. */
static void *ref_load(const nn_desc *d, const char *options, char *err, int err_len)
{
    if (options) {
        snprintf(err, (size_t)err_len, "backend ref: unknown option \"%s\" (it takes none)",
                 options);
        return NULL;
    }
    return (void *)d;
}

static void ref_free(void *weights) {}

static void *ref_context_new(const nn_desc *d, const void *weights, int max_batch, char *err,
                             int err_len)
{
    return (void *)weights;
}

static void ref_context_free(void *ctx) {}

static bool ref_forward(void *ctx, const nn_backend_batch *b, char *err, int err_len)
{
    const nn_desc *d = ctx;
    size_t area = (size_t)b->width * b->height;
    bool ok = true;
    for (int i = 0; ok && i < b->n; i++) {
        if (d->family == NN_FAMILY_DISC) {
            ok = nn_disc_forward_ref(d->disc, b->spatial + (size_t)i * d->disc->planes * area,
                                     b->value + i);
            continue;
        }
        if (d->family == NN_FAMILY_LZ) {
            ok = nn_lz_forward_raw_ops(&nn_ref_ops, d->lz,
                                       b->spatial + (size_t)i * NN_LZ_INPUT_PLANES * area,
                                       b->policy + (size_t)i * NN_LZ_POLICY_OUTPUTS, b->value + i);
            continue;
        }
        const nn_kata_desc *k = d->kata;
        int oc = k->policy.out_channels;
        nn_kata_raw raw = {.policy = b->policy + (size_t)i * oc * area,
                           .pass = b->pass + (size_t)i * oc,
                           .value = b->value + (size_t)i * 3,
                           .score = b->score + (size_t)i * k->score_channels,
                           .ownership = b->ownership + (size_t)i * area};
        const float *meta = b->meta ? b->meta + (size_t)i * k->meta.num_inputs : NULL;
        ok = nn_kata_forward_ops(&nn_ref_ops, k, b->width, b->height,
                                 b->spatial + (size_t)i * k->num_spatial * area,
                                 b->global + (size_t)i * k->num_global, meta, &raw);
    }
    if (!ok)
        snprintf(err, (size_t)err_len, "%s: ref forward: out of memory", d->source);
    return ok;
}

const nn_backend_ops nn_ref_backend = {
    .name = "ref",
    .load = ref_load,
    .free = ref_free,
    .context_new = ref_context_new,
    .context_free = ref_context_free,
    .forward = ref_forward,
};
