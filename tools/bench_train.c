/* tools/bench_train.c -- `shido bench train`: training throughput of the tsumego
 * discriminator (seed 002's net on 9x9 windows of 25 planes): Adam steps on random binary
 * planes, in samples per second, per batch size; the peer is bench/train/torch_disc.py (PyTorch
 * on the same machine, the same net and batch). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nn/train/gemm.h"
#include "teach/disc.h"
#include "tools/args.h"
#include "tools/commands.h"

#define MAX_BATCHES 16

static int usage(FILE *f, const char *err)
{
    if (err)
        fprintf(f, "shido bench train: %s\n", err);
    fprintf(f, "usage: shido bench train [--batch 8,32,128] [--threads T] [--seconds S] "
               "[--gemm own|blas] [--backend cpu|cuda]\n"
               "Adam steps of seed 002's discriminator (conv 128/96/64 3x3, conv 1x1, dense 64,\n"
               "dense 1 on 9x9x25) on random binary planes: samples per second per batch size\n"
               "(after two warm-up steps), and the forward pass alone. --gemm blas: OpenBLAS's\n"
               "SGEMM instead of our AVX-512 kernel.\n");
    return f == stdout ? 0 : 2;
}

int shido_bench_train(int argc, char **argv)
{
    int batches[MAX_BATCHES] = {8, 32, 128}, nb = 3, threads = 2;
    double seconds = 5;
    const char *backend = "cpu";
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        char *end;
        if (!strcmp(a, "--help"))
            return usage(stdout, NULL);
        if (!v)
            return usage(stderr, "an option without its value");
        i++;
        if (!strcmp(a, "--batch")) {
            if (!(nb = tools_parse_list(v, 1, 4096, batches, MAX_BATCHES)))
                return usage(stderr, "--batch takes up to 16 sizes 1..4096, comma-separated");
        } else if (!strcmp(a, "--backend") && (!strcmp(v, "cpu") || !strcmp(v, "cuda"))) {
            backend = v;
        } else if (!strcmp(a, "--gemm") && (!strcmp(v, "own") || !strcmp(v, "blas"))) {
            nn_train_gemm_force_blas(!strcmp(v, "blas"));
        } else if (!strcmp(a, "--threads")) {
            threads = (int)strtol(v, &end, 10);
            if (*end || threads < 1 || threads > 64)
                return usage(stderr, "--threads takes 1..64");
        } else if (!strcmp(a, "--seconds")) {
            seconds = strtod(v, &end);
            if (*end || !(seconds > 0 && seconds < 3600))
                return usage(stderr, "--seconds takes a time in (0, 3600)");
        } else {
            return usage(stderr, "unknown option");
        }
    }
    printf("| batch | threads | train samples/s | ms per step | forward samples/s |\n"
           "|---|---|---|---|---|\n");
    for (int k = 0; k < nb; k++) {
        teach_disc_throughput r;
        char err[512];
        if (!teach_disc_bench(batches[k], threads, seconds, backend, &r, err, sizeof err)) {
            fprintf(stderr, "shido bench train: %s\n", err);
            return 1;
        }
        printf("| %d | %d | %.0f | %.2f | %.0f |\n", batches[k], threads, r.train_samples_s,
               r.ms_per_step, r.forward_samples_s);
        fflush(stdout);
    }
    return 0;
}
