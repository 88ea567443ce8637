/* weights/disc.h -- shido's own checkpoint format for the tsumego discriminator (desc_disc.h),
 * with the optional training state that lets `shido train-discriminator` resume.
 *
 * File layout, every integer and float little-endian:
 *   magic      8 bytes  "SHIDODSC"
 *   version    u32      2 (1: as 2 without the colours field; such a net is colour-free)
 *   size       u32      window side, 3..19
 *   planes     u32      input planes, 1..1024
 *   layers     u32      1..NN_DISC_MAX_LAYERS
 *   per layer  u32 kind (1 conv, 2 dense), u32 kernel (conv: odd 1..7; dense: 0),
 *              u32 c_in, u32 c_out (1..1024; dense c_in up to 1024 * 19 * 19), u32 activation
 *              (0 identity, 1 ReLU)
 *   per layer  f32 weights (conv [c_out][c_in][k][k], dense [c_in][c_out]), then f32 bias[c_out]
 *   colours    u32      0: colour-free (trained with colours swapped at random); 1: black is the
 *                       side to play (desc_disc.h)
 *   train      u32      0: none; 1: the training state follows
 *     step u64, epoch u32 (epochs done), best_epoch u32, bad_epochs u32, rng u64 x 4 (the
 *     trainer's generator), best_val_loss f64, lr f32, beta1 f32, beta2 f32, eps f32, then the
 *     Adam moments: m[P], v[P] (P: every weight and bias in the order above)
 *   crc        u32      zlib's crc32 of every byte before it
 * Saving writes a temporary file and renames it, so a crash never leaves half a checkpoint. */
#ifndef SHIDO_WEIGHTS_DISC_H
#define SHIDO_WEIGHTS_DISC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "weights/desc.h"
#include "weights/desc_disc.h"

/* Adam's state and the trainer's bookkeeping, kept with the weights for resuming. */
typedef struct weights_disc_train_state {
    uint64_t step;
    int epoch, best_epoch, bad_epochs;
    uint64_t rng[4];
    double best_val_loss;
    float lr, beta1, beta2, eps;
    size_t num_params;
    float *m, *v;            /* [num_params] each, owned */
} weights_disc_train_state;

/* Whether the file starts with the checkpoint magic (false when it cannot be read). */
bool weights_is_disc(const char *path);

/* Loads a checkpoint: the description (owned by the caller, nn_desc_free) and, when ts is not
 * NULL, the training state (zeroed when the file has none; free with
 * weights_disc_train_state_free). NULL with a message naming the file and the field in err on a
 * short, corrupt or inconsistent file. */
nn_desc *weights_load_disc(const char *path, weights_disc_train_state *ts, char *err,
                           int err_len);

/* Writes d (and ts when not NULL) to path. False with a message in err. */
bool weights_save_disc(const char *path, const nn_disc_desc *d,
                       const weights_disc_train_state *ts, char *err, int err_len);

/* Every weight and bias of d in file order: fills ptr[i], len[i] for up to max tensors and
 * returns how many there are (2 per layer). */
int weights_disc_tensors(nn_disc_desc *d, float **ptr, size_t *len, int max);

/* The number of weights and biases of d. */
size_t weights_disc_num_params(const nn_disc_desc *d);

/* The paper's net (see desc_disc.h) for size x size windows of `planes` planes, its weights
 * drawn with He scaling from a generator seeded with seed (biases zero). NULL when out of
 * memory. Free with nn_desc_free. */
nn_desc *weights_disc_paper(int size, int planes, uint64_t seed);

/* A net of the given conv channels (3x3, ReLU; then a 1x1 conv to 1 plane) and dense hidden
 * sizes (ReLU; then a dense layer to 1 logit), drawn as weights_disc_paper does. NULL when out
 * of memory or the shape does not fit NN_DISC_MAX_LAYERS. */
nn_desc *weights_disc_make(int size, int planes, const int *conv, int num_conv,
                           const int *dense, int num_dense, uint64_t seed);

void weights_disc_train_state_free(weights_disc_train_state *ts);

#endif
