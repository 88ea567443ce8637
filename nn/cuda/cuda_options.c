/* nn/cuda/cuda_options.c -- parsing the cuda backend's options (see the header). */
#include "nn/cuda/cuda_options.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define OPTION_LEN 64

/* Which setting a word belongs to, so that "fp32,fp16" is refused as a repetition. */
enum { SET_PRECISION, SET_CONV, SET_GRAPHS, SET_FUSE, SET_DEVICE, SET_COUNT };

static bool parse_one(const char *opt, nn_cuda_options *o, bool seen[SET_COUNT], char *err,
                      int err_len)
{
    int which = -1;
    if (!strcmp(opt, "fp32") || !strcmp(opt, "fp16")) {
        which = SET_PRECISION;
        o->precision = opt[2] == '3' ? NN_CUDA_PRECISION_FP32 : NN_CUDA_PRECISION_FP16;
    } else if (!strcmp(opt, "conv=cudnn") || !strcmp(opt, "conv=igemm")) {
        which = SET_CONV;
        o->conv = opt[5] == 'c' ? NN_CUDA_CONV_CUDNN : NN_CUDA_CONV_IGEMM;
    } else if (!strcmp(opt, "graphs=0") || !strcmp(opt, "graphs=1")) {
        which = SET_GRAPHS;
        o->graphs = opt[7] == '1';
    } else if (!strcmp(opt, "fuse=0") || !strcmp(opt, "fuse=1")) {
        which = SET_FUSE;
        o->fuse = opt[5] == '1';
    } else if (!strncmp(opt, "device=", 7)) {
        const char *digits = opt + 7;
        char *end = NULL;
        long dev = strtol(digits, &end, 10);
        if (digits[0] < '0' || digits[0] > '9' || *end != '\0' || dev > 255) {
            snprintf(err, (size_t)err_len,
                     "backend cuda: option \"%s\": expected device=N with N from 0 to 255", opt);
            return false;
        }
        which = SET_DEVICE;
        o->device = (int)dev;
    }
    if (which < 0) {
        snprintf(err, (size_t)err_len,
                 "backend cuda: unknown option \"%s\" (it takes fp32, fp16, conv=cudnn, "
                 "conv=igemm, graphs=0, graphs=1, fuse=0, fuse=1, device=N)", opt);
        return false;
    }
    if (seen[which]) {
        snprintf(err, (size_t)err_len, "backend cuda: option \"%s\" repeats an earlier setting",
                 opt);
        return false;
    }
    seen[which] = true;
    return true;
}

bool nn_cuda_options_parse(const char *text, nn_cuda_options *o, char *err, int err_len)
{
    *o = (nn_cuda_options){.precision = NN_CUDA_PRECISION_AUTO, .conv = NN_CUDA_CONV_CUDNN,
                           .graphs = true, .fuse = true, .device = 0};
    bool seen[SET_COUNT] = {false};
    const char *p = text ? text : "";
    while (*p) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        char opt[OPTION_LEN];
        if (len == 0 || len >= sizeof opt) {
            snprintf(err, (size_t)err_len, "backend cuda: %s option in \"%s\"",
                     len ? "overlong" : "empty", text);
            return false;
        }
        memcpy(opt, p, len);
        opt[len] = '\0';
        if (!parse_one(opt, o, seen, err, err_len))
            return false;
        p += len;
        if (*p == ',' && *++p == '\0') {
            snprintf(err, (size_t)err_len, "backend cuda: empty option in \"%s\"", text);
            return false;
        }
    }
    return true;
}
