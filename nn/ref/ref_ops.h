/* nn/ref/ref_ops.h -- the boring reference: every layer as plain loops with double
 * accumulators, one image at a time, NCHW with h x w planes. Nobody optimises these; every fast
 * path is tested against them. Outputs never alias inputs. */
#ifndef SHIDO_NN_REF_OPS_H
#define SHIDO_NN_REF_OPS_H

#include "weights/desc.h"

/* y[c_out][h][w] = conv(x[c_in][h][w]) + bias, zero padding ("same"). */
void nn_ref_conv(const nn_conv_desc *c, int h, int w, const float *x, float *y);

/* In place: x = bn(x), then the activation; mask (h*w, 1 on board / 0 off, may be NULL) zeroes
 * points off the board as KataGo does for boards smaller than the tensor. */
void nn_ref_bn_act(const nn_bn_desc *b, nn_activation act, int h, int w, const float *mask,
                   float *x);

/* y[c_out] = x[c_in] . w + bias */
void nn_ref_matmul(const nn_matmul_desc *m, const float *x, float *y);

/* The activation of one value (double precision, as the reference uses). */
double nn_ref_activate(nn_activation act, double v);

#endif
