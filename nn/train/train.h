/* nn/train/train.h -- forward and backward passes and Adam for the small CNNs trained in the
 * tree (the tsumego discriminator, weights/desc_disc.h), on the CPU (gemm.h's SGEMM, Winograd's
 * transforms in winograd.h) or on CUDA.
 *
 * Activations of the convolution layers are kept channel-major across the batch, [c][y][x][n]
 * (the images of a point side by side): a 3x3 layer is 25 GEMMs a few images at a time in
 * Winograd's transform domain (winograd.h), any other kernel size one GEMM over its im2col
 * matrix [c_in k k][y x n]; dense layers work on [n][values]. A trainer splits each batch into
 * one contiguous share per thread, each with its own activations and gradients, and adds the
 * shares' gradients in thread order: a run is deterministic for a given seed and thread count.
 *
 * Loss: binary cross-entropy of sigmoid(logit) against labels in [0, 1], averaged over the
 * batch, computed from the logit directly (stable for large |logit|). */
#ifndef SHIDO_NN_TRAIN_TRAIN_H
#define SHIDO_NN_TRAIN_TRAIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "weights/desc_disc.h"

/* 3x3 convolutions run by Winograd's F(3x3, 3x3) (nn/train/winograd.h); tests can ask for the
 * im2col products instead (force true) for workspaces and trainers made afterwards. */
void nn_train_force_im2col(bool force);

/* Scratch for forward (and optionally backward) passes of up to max_batch positions. */
typedef struct nn_train_ws nn_train_ws;

/* NULL when out of memory or d does not check (nn_disc_desc_check). backward: also the buffers a
 * backward pass needs. */
nn_train_ws *nn_train_ws_new(const nn_disc_desc *d, int max_batch, bool backward);
void nn_train_ws_free(nn_train_ws *ws);

/* For a forward-only workspace whose net's weights will not change (inference): their Winograd
 * transforms are made once here instead of in every forward pass. False when out of memory. */
bool nn_train_ws_freeze(nn_train_ws *ws, const nn_disc_desc *d);

/* Logits of n positions: x is [n][planes][size][size] (NCHW, as backends are given), logits [n].
 * The activations stay in ws for nn_train_ws_backward. */
void nn_train_ws_forward(const nn_disc_desc *d, nn_train_ws *ws, int n, const float *x,
                         float *logits);

/* The backward pass of the last forward of ws, given the loss's gradient with respect to each
 * logit: every weight's and bias's gradient into grad (laid out as weights_disc_tensors orders
 * them, weights_disc_num_params long; what grad held is overwritten). ws must have been made
 * with backward. */
void nn_train_ws_backward(const nn_disc_desc *d, nn_train_ws *ws, const float *dlogits,
                          float *grad);

/* Mean binary cross-entropy of n logits against labels, and (dlogits not NULL) its gradient with
 * respect to each logit, scaled by 1 / scale_n (the whole batch's size when a share of it is
 * given). */
double nn_train_bce(int n, const float *logits, const float *labels, float *dlogits,
                    int scale_n);

typedef struct nn_adam {
    float lr, beta1, beta2, eps;
} nn_adam;

#define NN_ADAM_DEFAULTS {1e-3f, 0.9f, 0.999f, 1e-8f}

/* A trainer of d (not owned; its weights are updated in place): threads shares, batches up to
 * max_batch, Adam's moments. NULL when out of memory or d does not check. */
typedef struct nn_trainer nn_trainer;
nn_trainer *nn_trainer_new(nn_disc_desc *d, int max_batch, int threads);

/* The same on a backend: "cpu" (NULL) as above, or "cuda" (nn/cuda/cuda_train.h: weights,
 * gradients and moments on the device; threads unused). NULL with a message in err (no CUDA in
 * this build, no device, out of memory). */
nn_trainer *nn_trainer_new_on(nn_disc_desc *d, int max_batch, int threads, const char *backend,
                              char *err, int err_len);
void nn_trainer_free(nn_trainer *t);

/* Forward and backward on a batch of n (1..max_batch), leaving the batch's gradient in the
 * trainer (nn_trainer_grad); returns the mean loss (NAN for n out of range). logits (NULL: not
 * wanted) receives the n logits. */
double nn_trainer_gradient(nn_trainer *t, int n, const float *x, const float *labels,
                           float *logits);

/* One Adam step with the gradient of the last nn_trainer_gradient. */
void nn_trainer_adam(nn_trainer *t, const nn_adam *opt);

/* Logits only, for evaluation (threads shares, no gradient). */
void nn_trainer_predict(nn_trainer *t, int n, const float *x, float *logits);

/* The gradient of the last nn_trainer_gradient (copied from the device on a cuda trainer) and
 * Adam's state (step count, moments m and v, each nn_trainer_num_params long: on a cuda trainer
 * as of the last nn_trainer_sync), for tests and checkpoints. */
const float *nn_trainer_grad(nn_trainer *t);
size_t nn_trainer_num_params(const nn_trainer *t);
uint64_t nn_trainer_step(const nn_trainer *t);
float *nn_trainer_moment(nn_trainer *t, int which); /* 0: m, 1: v */
void nn_trainer_set_step(nn_trainer *t, uint64_t step);

/* A cuda trainer: copies the device's weights into the description and the moments into the
 * host arrays (sync), or the host's into the device (push, after changing them). No-ops on the
 * CPU. False on a device failure (nn_trainer_error). */
bool nn_trainer_sync(nn_trainer *t);
bool nn_trainer_push(nn_trainer *t);

/* The last failure of a cuda trainer's step (NAN from nn_trainer_gradient), "" if none. */
const char *nn_trainer_error(const nn_trainer *t);

#endif
