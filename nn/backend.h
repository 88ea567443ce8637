/* nn/backend.h -- the internal vtable every backend fills (nn/ref, nn/cpu, nn/cuda).
 *
 * A backend sees only the description and float planes: nn/nn.c computes the input planes (in
 * the net's orientation, the symmetry applied), calls forward on a batch of positions of one
 * tensor shape, and does every post-processing step (softmaxes, value and score conversion, the
 * symmetry undone) itself, so all backends share one definition of what the numbers mean.
 *
 * Layouts, per position i of a batch of n on a tensor of height rows of width points (area =
 * width * height; a width x height board, or a height x width one under a transposing
 * symmetry; every point on the board, so no mask):
 *   KataGo   in:  spatial[i][num_spatial][height][width], global[i][num_global]
 *            out: policy[i][out_channels][height][width] logits, pass[i][out_channels],
 *                 value[i][3] logits, score[i][score_channels], ownership[i][height][width]
 *                 (before tanh)
 *   LZ       in:  spatial[i][NN_LZ_INPUT_PLANES][361] (Leela Zero's order; 19x19 only)
 *            out: policy[i][NN_LZ_POLICY_OUTPUTS] logits, value[i] before tanh
 *   disc     in:  spatial[i][planes][size][size] (the net's square window), out: value[i]
 * These are exactly the quantities of nn_kata_raw / nn_lz_forward_raw_ops (nn/ref).
 */
#ifndef SHIDO_NN_BACKEND_H
#define SHIDO_NN_BACKEND_H

#include <stdbool.h>

#include "weights/desc.h"

typedef struct nn_backend_batch {
    int n, width, height;   /* the tensor: height rows of width points, each 1..19 */
    const float *spatial, *global;                    /* global: KataGo only */
    /* KataGo nets with a metadata encoder (meta_encoder_version 1): meta[i][meta.num_inputs],
     * the SGF-metadata features of a human-SL profile; NULL when the net has no encoder or the
     * caller gave no profile (the encoder's trunk bias is then left out). */
    const float *meta;
    float *policy, *pass, *value, *score, *ownership; /* pass, score, ownership: KataGo only */
} nn_backend_batch;

typedef struct nn_backend_ops {
    const char *name;
    /* NULL, or whether this machine can run the backend (false with the reason in err: no
     * device, driver too old). A model asked for an unavailable backend falls back to the next
     * one with a message on stderr; any other load failure is an error. */
    bool (*available)(char *err, int err_len);
    /* Prepares d's weights for this backend (the result may point into d, which outlives it).
     * options: NULL, or the text after ':' in a backend argument such as "cuda:fp32" (each
     * backend documents its own; unknown ones are an error). Returns NULL with a message naming
     * the layer (or the option) in err on failure. */
    void *(*load)(const nn_desc *d, const char *options, char *err, int err_len);
    void (*free)(void *weights);
    /* Scratch for batches of up to max_batch positions on tensors up to 19x19; NULL with a
     * message when out of memory. One context serves one thread at a time. */
    void *(*context_new)(const nn_desc *d, const void *weights, int max_batch, char *err,
                         int err_len);
    void (*context_free)(void *ctx);
    /* Runs the network on b (1 <= b->n <= max_batch). Returns false with a message in err. */
    bool (*forward)(void *ctx, const nn_backend_batch *b, char *err, int err_len);
} nn_backend_ops;

/* The backends of this build. nn/nn.c's registry (nn_backend_names) lists them cuda, cpu, ref:
 * the first one that runs here is the default, and a backend that cannot run falls back along
 * that order. */
extern const nn_backend_ops nn_ref_backend;  /* nn/ref/ref_backend.c */
extern const nn_backend_ops nn_cpu_backend;  /* nn/cpu/cpu_backend.c */
#ifdef SHIDO_HAVE_CUDA
extern const nn_backend_ops nn_cuda_backend; /* nn/cuda/cuda_backend.c */
#endif

/* The backend called name, or NULL when this build has none of that name. */
const nn_backend_ops *nn_backend_find(const char *name);

#endif
