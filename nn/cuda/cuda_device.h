/* nn/cuda/cuda_device.h -- CUDA device discovery and a self-test of the toolchain's pieces
 * (runtime, one of our kernels, cuBLAS, cuDNN). The CUDA backend builds on this; without a
 * device every function reports so cleanly and no CUDA call aborts the process. */
#ifndef SHIDO_NN_CUDA_DEVICE_H
#define SHIDO_NN_CUDA_DEVICE_H

#include <stdbool.h>
#include <stddef.h>

/* Number of usable CUDA devices (0 when there is no driver or no device). */
int nn_cuda_device_count(void);

/* The same, telling a machine without a GPU from a failing driver: the device count (0 when
 * there is no device, or no driver installed at all), or -1 with the runtime's error in err
 * when a driver is installed but cannot report its devices. */
int nn_cuda_device_probe(char *err, size_t len);

/* Writes a human-readable description of the CUDA runtime, the devices, and the cuBLAS and
 * cuDNN library versions into buf. Returns false when no device can be used (buf then says why). */
bool nn_cuda_describe(char *buf, size_t len);

/* Runs a small check on device 0: our scale-add kernel, a cuBLAS SGEMM and a cuDNN 3x3
 * convolution, each compared with a CPU computation. Returns false with a reason in err when
 * there is no device or any result is wrong. */
bool nn_cuda_selftest(char *err, size_t len);

#endif
