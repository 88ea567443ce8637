/* nn/cuda/cuda_train.h -- training the tsumego discriminator (weights/desc_disc.h) on a GPU:
 * cuDNN's convolution forward, backward-data and backward-filter (fp32, FMA math: no TF32, so
 * the gradients match the CPU's within fp32 rounding), cuBLAS for the dense layers, our own
 * kernels (kernels/train.cu) for biases, ReLU, the loss and Adam. nn/train/train.c's trainer
 * hands its work here when asked for the cuda backend; the weights, gradients and Adam's moments
 * live on the device, in the order weights_disc_tensors gives, and are copied to and from the
 * host description on request. */
#ifndef SHIDO_NN_CUDA_CUDA_TRAIN_H
#define SHIDO_NN_CUDA_CUDA_TRAIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "weights/desc_disc.h"

typedef struct nn_cuda_trainer nn_cuda_trainer;

/* A trainer of d for batches up to max_batch on the current device, its weights copied from d.
 * NULL with a message in err (no device, out of memory, a cuDNN or cuBLAS failure). */
nn_cuda_trainer *nn_cuda_trainer_new(const nn_disc_desc *d, int max_batch, char *err,
                                     int err_len);
void nn_cuda_trainer_free(nn_cuda_trainer *t);

/* Forward (and with labels, the loss and backward pass) of n positions x [n][planes][size][size]
 * from host memory; logits (host, NULL: not wanted) gets the n logits. Returns the mean loss
 * (0 without labels), NAN on a device failure (nn_cuda_trainer_error says which). */
double nn_cuda_trainer_run(nn_cuda_trainer *t, int n, const float *x, const float *labels,
                           float *logits);

/* One Adam step with the last run's gradient (step counts from 1). False on a device failure. */
bool nn_cuda_trainer_adam(nn_cuda_trainer *t, uint64_t step, float lr, float beta1, float beta2,
                          float eps);

/* Copies to the host: the gradient, the moments (NULL: not wanted) and the weights into d.
 * False on a device failure. */
bool nn_cuda_trainer_pull(nn_cuda_trainer *t, float *grad, float *m, float *v, nn_disc_desc *d);

/* Copies the host's weights (d) and moments to the device. False on a device failure. */
bool nn_cuda_trainer_push(nn_cuda_trainer *t, const float *m, const float *v,
                          const nn_disc_desc *d);

const char *nn_cuda_trainer_error(const nn_cuda_trainer *t);

#endif
