/* weights/desc.h -- the model description: per-layer structs holding host weights, independent of
 * the file format they came from and of the backend that runs them. weights/ makes them: the
 * loaders of each format (lz.h, kata.h; weights.h picks one by content) and the synthetic nets of
 * standard shapes (synth.h). nn/ reads them: nn/nn.c makes a model of one, and every backend
 * (nn/ref, nn/cpu, nn/cuda) sees of weights/ only the description (desc.h, desc_lz.h,
 * desc_kata.h). Every array is owned by the description and freed by nn_desc_free. Weight
 * layouts are fixed here so that every backend agrees: convolution weights [c_out][c_in][ky][kx],
 * matmul weights [c_in][c_out]; the planes a backend is given and returns are NCHW
 * (nn/backend.h).
 *
 * Two families share the layer structs: Leela Zero (post-activation residual tower, 18 input
 * planes, policy + winrate heads; desc_lz.h) and KataGo (pre-activation tower with global pooling
 * and nested bottleneck blocks, spatial + global inputs, many heads, and the metadata encoder of
 * human-SL nets; desc_kata.h). A third family is shido's own: the tsumego discriminator (a
 * small CNN trained in the tree, desc_disc.h; its files: weights/disc.h). The names keep the nn_ prefix of the layer that runs them.
 */
#ifndef SHIDO_WEIGHTS_DESC_H
#define SHIDO_WEIGHTS_DESC_H

#include <stdbool.h>
#include <stddef.h>

#define NN_NAME_LEN 96

typedef enum {
    NN_ACT_IDENTITY = 0,
    NN_ACT_RELU,
    NN_ACT_MISH,
    NN_ACT_SILU,      /* x * sigmoid(x): KataGo 1.17's transformer-era nets */
} nn_activation;

/* A 2-D convolution, "same" padding, stride 1. bias may be NULL. */
typedef struct nn_conv_desc {
    char name[NN_NAME_LEN];
    int ky, kx, c_in, c_out, dil_y, dil_x;
    float *w;     /* [c_out][c_in][ky][kx] */
    float *bias;  /* [c_out] or NULL */
} nn_conv_desc;

/* Batch normalisation in inference form: y = (x - mean) / sqrt(var + eps) * scale + bias.
 * scale and bias may be NULL (1 and 0). */
typedef struct nn_bn_desc {
    char name[NN_NAME_LEN];
    int c;
    float eps;
    float *mean, *var, *scale, *bias;
} nn_bn_desc;

/* A fully connected layer y[c_out] = x[c_in] . w, plus an optional bias. */
typedef struct nn_matmul_desc {
    char name[NN_NAME_LEN];
    int c_in, c_out;
    float *w;     /* [c_in][c_out] */
    float *bias;  /* [c_out] or NULL */
} nn_matmul_desc;

typedef enum { NN_FAMILY_LZ = 1, NN_FAMILY_KATA = 2, NN_FAMILY_DISC = 3 } nn_family;

struct nn_lz_desc;
struct nn_kata_desc;
struct nn_disc_desc;

/* A whole network of either family. */
typedef struct nn_desc {
    nn_family family;
    char source[256];            /* the file it was loaded from, for messages */
    struct nn_lz_desc *lz;       /* family == NN_FAMILY_LZ */
    struct nn_kata_desc *kata;   /* family == NN_FAMILY_KATA */
    struct nn_disc_desc *disc;   /* family == NN_FAMILY_DISC (desc_disc.h) */
} nn_desc;

/* Frees everything a description owns, including d itself. NULL is fine. */
void nn_desc_free(nn_desc *d);

/* Family parts, defined with their structs in desc_lz.h / desc_kata.h. */
void nn_lz_desc_free(struct nn_lz_desc *lz);
void nn_kata_desc_free(struct nn_kata_desc *kata);
void nn_disc_desc_free(struct nn_disc_desc *disc);

/* Helpers for the layer structs (weights/desc.c). Each free releases the arrays, not the struct. */
void nn_conv_free(nn_conv_desc *c);
void nn_bn_free(nn_bn_desc *b);
void nn_matmul_free(nn_matmul_desc *m);

#endif
