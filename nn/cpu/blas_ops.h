/* nn/cpu/blas_ops.h -- float32 layers on OpenBLAS, twins of nn/ref/ref_ops.h with the same
 * contracts: NCHW, h x w planes, "same" padding, outputs never alias inputs. Convolutions are one
 * cblas_sgemm each (1x1 directly on the planes, larger kernels through an im2col buffer), batch
 * norm and activation are fused in one pass over the planes, matmuls are cblas_sgemv.
 *
 * The im2col buffer is per thread and grows as needed (nn_cpu_scratch_free releases it); when it
 * cannot grow the process aborts with a message, as the ops return nothing. BLAS runs single
 * threaded (nn_cpu_init): the plan is one BLAS per search worker. */
#ifndef SHIDO_NN_CPU_BLAS_OPS_H
#define SHIDO_NN_CPU_BLAS_OPS_H

#include "nn/desc.h"
#include "nn/ref/kata_forward.h"  /* nn_ops */

/* nn_cpu_conv, nn_cpu_bn_act, nn_cpu_matmul; the forward passes call nn_cpu_init. */
extern const nn_ops nn_cpu_ops;

/* Sets OpenBLAS to one thread, once per process; safe to call from any thread, any number of
 * times. */
void nn_cpu_init(void);

/* y[c_out][h][w] = conv(x[c_in][h][w]) + bias, zero padding ("same"), float accumulation. */
void nn_cpu_conv(const nn_conv_desc *c, int h, int w, const float *x, float *y);

/* In place: x = act(bn(x)), zeroed where mask (h*w, may be NULL) is 0. */
void nn_cpu_bn_act(const nn_bn_desc *b, nn_activation act, int h, int w, const float *mask,
                   float *x);

/* y[c_out] = x[c_in] . w + bias */
void nn_cpu_matmul(const nn_matmul_desc *m, const float *x, float *y);

/* Frees the calling thread's im2col buffer (it is re-made on the next convolution). */
void nn_cpu_scratch_free(void);

#endif
