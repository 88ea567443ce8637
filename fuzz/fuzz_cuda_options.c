/* fuzz/fuzz_cuda_options.c -- libFuzzer target for the cuda backend's option text (the part after
 * "cuda:" in --backend). The parser is plain C, built here without CUDA.
 *
 * Checked: a refusal says why in a terminated message; an acceptance gives settings in range,
 * and writing them back as option text parses to the same settings (the text names each setting
 * at most once, so nothing was taken twice or half read).
 *
 * Run: fuzz_cuda_options -max_len=256 CORPUS tests/data/cuda_options
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nn/cuda/cuda_options.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = 0;
    nn_cuda_options o;
    char err[256];
    memset(err, 'x', sizeof err);
    bool ok = nn_cuda_options_parse(text, &o, err, sizeof err);
    free(text);
    if (!ok) {
        if (!memchr(err, 0, sizeof err) || !strncmp(err, "xxxx", 4))
            abort();
        return 0;
    }
    if (o.precision < NN_CUDA_PRECISION_AUTO || o.precision > NN_CUDA_PRECISION_FP16 ||
        (o.conv != NN_CUDA_CONV_CUDNN && o.conv != NN_CUDA_CONV_IGEMM) || o.device < 0 ||
        o.device > 255)
        abort();
    char again[128];
    snprintf(again, sizeof again, "%sconv=%s,graphs=%d,fuse=%d,device=%d",
             o.precision == NN_CUDA_PRECISION_FP32   ? "fp32,"
             : o.precision == NN_CUDA_PRECISION_FP16 ? "fp16,"
                                                     : "",
             o.conv == NN_CUDA_CONV_IGEMM ? "igemm" : "cudnn", o.graphs, o.fuse, o.device);
    nn_cuda_options back;
    if (!nn_cuda_options_parse(again, &back, err, sizeof err) || back.precision != o.precision ||
        back.conv != o.conv || back.graphs != o.graphs || back.fuse != o.fuse ||
        back.device != o.device)
        abort();
    return 0;
}
