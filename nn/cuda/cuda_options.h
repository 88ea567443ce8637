/* nn/cuda/cuda_options.h -- the options of the "cuda" backend, the text after the colon of a
 * backend argument ("cuda:fp32", "cuda:fp16,conv=igemm,graphs=0,device=1"). Pure C with no CUDA
 * call, so the parser is tested on machines without a device.
 *
 *   fp32 | fp16      precision of activations and convolution weights; default fp16 on devices
 *                    with tensor cores (compute capability 7.0 on), fp32 before
 *   conv=cudnn       every convolution by cuDNN (1x1 by cuBLAS), the default
 *   conv=igemm       fp16 3x3 and 1x1 convolutions by shido's implicit-GEMM kernel where it takes
 *                    the shape, cuDNN otherwise (fp32 always uses cuDNN)
 *   graphs=1 | 0     CUDA graphs captured per (batch size, board size), default 1
 *   fuse=1 | 0       fp16 on cuDNN: a 3x3 convolution followed by a batch norm, an optional
 *                    residual and ReLU runs as one cuDNN call (conv + bias + activation) on a
 *                    filter with the norm's scale folded in, where cuDNN takes it; default 1
 *   device=N         the CUDA device, default 0
 * Options are separated by commas; an unknown or repeated option is an error naming it. */
#ifndef SHIDO_NN_CUDA_OPTIONS_H
#define SHIDO_NN_CUDA_OPTIONS_H

#include <stdbool.h>

typedef enum {
    NN_CUDA_PRECISION_AUTO = 0,   /* fp16 where the device has tensor cores */
    NN_CUDA_PRECISION_FP32,
    NN_CUDA_PRECISION_FP16,
} nn_cuda_precision;

typedef enum { NN_CUDA_CONV_CUDNN = 0, NN_CUDA_CONV_IGEMM } nn_cuda_conv_path;

typedef struct nn_cuda_options {
    nn_cuda_precision precision;
    nn_cuda_conv_path conv;
    bool graphs;
    bool fuse;
    int device;
} nn_cuda_options;

/* Parses text (NULL or "" for the defaults) into o. Returns false with a message naming the
 * offending option in err; o is then unspecified. */
bool nn_cuda_options_parse(const char *text, nn_cuda_options *o, char *err, int err_len);

#endif
