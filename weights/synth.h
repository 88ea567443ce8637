/* weights/synth.h -- networks of standard shapes built in memory with random weights, for
 * benchmarks on a machine with no weight files and for whole-network tests of shapes no
 * shared file has (mish, large trunks). Weights are finite and scaled like a trained net's
 * (fan-in scaling, batch-norm variances near 1) so activations stay in a sane range through
 * deep residual trunks; the outputs mean nothing in Go terms. */
#ifndef SHIDO_WEIGHTS_SYNTH_H
#define SHIDO_WEIGHTS_SYNTH_H

#include <stdbool.h>

#include "weights/desc.h"

/* The shape of a synthetic KataGo net. Nested nets (version 14/15 "nbt" style) have `blocks`
 * nested bottleneck blocks of trunk -> mid -> trunk channels with two inner blocks each, the
 * first inner one a gpool block in every gpool_every-th; flat nets (version 8 style) have
 * `blocks` ordinary blocks, every gpool_every-th a gpool block of `regular` + `gpool` channels.
 * With heads > 0 (versions 15..17, KataGo 1.17's "nbttf" nets such as KaTrain's b10c384h6) the
 * nested blocks hold attention, feed-forward, attention, feed-forward on the mid channels
 * (heads heads of mid / heads channels, learned rotary encodings; SwiGLU of ffn channels) and
 * the trunk ends in an RMS norm over the board; gpool_every is then unused. */
typedef struct weights_synth_kata_shape {
    int version;            /* 8 or 15 */
    bool nested;
    int blocks, trunk, mid, regular, gpool, gpool_every;
    int initial_kernel;     /* 5 (v8) or 3 */
    int p1, g1, v1, v2;     /* head channels */
    nn_activation act;
    int heads, ffn;         /* transformer blocks (0: none) */
} weights_synth_kata_shape;

/* A Leela Zero net of `blocks` x `filters`; NULL when out of memory. Free with nn_desc_free. */
nn_desc *weights_synth_lz(int blocks, int filters, unsigned seed);

/* A KataGo net of shape s; NULL when out of memory. Free with nn_desc_free. */
nn_desc *weights_synth_kata(const weights_synth_kata_shape *s, unsigned seed);

/* Gives d (a version 15 weights_synth_kata net) the metadata encoder of a human-SL net: 192 features ->
 * hidden -> hidden (mish) -> trunk channels. False when d is not such a net or out of memory. */
bool weights_synth_kata_add_meta(nn_desc *d, int hidden, unsigned seed);

/* One of the standard shapes a benchmark runs on a machine with no weight files. */
typedef struct weights_synth_net {
    const char *name;       /* "synthetic kata-b18c384nbt (v15)" */
    bool lz;                /* a Leela Zero net of lz_blocks x lz_filters, else kata */
    int lz_blocks, lz_filters;
    weights_synth_kata_shape kata;
} weights_synth_net;

/* The standard shapes of each family, in a fixed order: Leela Zero 10x128 and 40x256, KataGo
 * b6c96 (v8), b18c384nbt and b28c512nbt (v15, mish), b10c384h6nbttf (v15, SiLU, transformer
 * blocks: KaTrain 1.20's net's shape). *n receives their number. Static storage. */
const weights_synth_net *weights_synth_standard(int *n);

/* The net of shape s; NULL when out of memory. Free with nn_desc_free. */
nn_desc *weights_synth_make(const weights_synth_net *s, unsigned seed);

#endif
