/* nn/ref/disc_forward.h -- the tsumego discriminator (weights/desc_disc.h) in plain loops with
 * double accumulators: the reference the OpenBLAS and CUDA paths are checked against. */
#ifndef SHIDO_NN_REF_DISC_FORWARD_H
#define SHIDO_NN_REF_DISC_FORWARD_H

#include <stdbool.h>

#include "weights/desc_disc.h"

/* The logit of one position x [planes][size][size]. False when out of memory. */
bool nn_disc_forward_ref(const nn_disc_desc *d, const float *x, float *logit);

#endif
