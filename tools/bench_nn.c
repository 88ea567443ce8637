/* tools/bench_nn.c -- `shido bench nn` (see bench_nn.h). Positions: the empty 19x19 board and the
 * same board after 1..4 moves, cycled, symmetry 0. There is no batched forward pass yet, so a
 * batch of N is N evaluations back to back on different positions: the per-batch latency is what
 * a search worker filling a batch of N would wait today. */
#include "tools/bench_nn.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "go/game.h"
#include "go/rules.h"
#include "nn/cpu/blas_ops.h"
#include "nn/cpu/cpu_forward.h"
#include "nn/desc.h"
#include "nn/desc_lz.h"
#include "weights/weights.h"

#define BENCH_MAX_NETS 16
#define BENCH_MAX_BATCHES 16
#define BENCH_POSITIONS 5

/* Relative to the repository root, where the command is meant to be run. */
static const char *default_nets[] = {
    "../shared/weights/g170-b6c96-s175395328-d26788732.bin.gz",
    "../shared/weights/lz-0k.txt",
    "../shared/weights/lz-rand-b4c32.txt.gz",
    "../shared/weights/lz-rand-b2c16-v2.txt.gz",
};

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Scratch outputs of one evaluation of either family. */
typedef struct bench_out {
    nn_kata_output kata;
    float policy[NN_LZ_POLICY_OUTPUTS], winrate;
} bench_out;

static bool eval_one(const nn_desc *d, bool cpu, const go_game *g, bench_out *o, char *err,
                     int err_len)
{
    if (d->family == NN_FAMILY_KATA)
        return cpu ? nn_kata_cpu_eval(d, g, 0, NN_KATA_DEFAULT_OPTIMISM, &o->kata, err, err_len)
                   : nn_kata_ref_eval(d, g, 0, NN_KATA_DEFAULT_OPTIMISM, &o->kata, err, err_len);
    return cpu ? nn_lz_cpu_eval(d, g, 0, o->policy, &o->winrate, err, err_len)
               : nn_lz_ref_eval(d, g, 0, o->policy, &o->winrate, err, err_len);
}

/* Times batches of `batch` evaluations for at least `seconds` (and at least one batch) after one
 * warm-up evaluation; prints one line. Returns false with a message on a failed evaluation. */
static bool bench_path(const char *name, const nn_desc *d, bool cpu, go_game *pos, int batch,
                       double seconds, char *err, int err_len)
{
    bench_out *o = malloc(sizeof *o);
    if (!o) {
        snprintf(err, (size_t)err_len, "out of memory");
        return false;
    }
    bool ok = eval_one(d, cpu, &pos[0], o, err, err_len);
    long evals = 0, batches = 0;
    double start = now_seconds(), elapsed = 0;
    while (ok && (batches == 0 || elapsed < seconds)) {
        for (int i = 0; ok && i < batch; i++, evals++)
            ok = eval_one(d, cpu, &pos[evals % BENCH_POSITIONS], o, err, err_len);
        batches++;
        elapsed = now_seconds() - start;
    }
    if (ok)
        printf("%-44s %-4s %5d %7ld %10.2f %11.3f %11.3f\n", name, cpu ? "cpu" : "ref", batch,
               evals, (double)evals / elapsed, 1e3 * elapsed / (double)evals,
               1e3 * elapsed / (double)batches);
    fflush(stdout);
    free(o);
    return ok;
}

/* Parses "1,8,16" into batches; returns the count, or 0 when malformed. */
static int parse_batches(const char *s, int *batches)
{
    int n = 0;
    while (*s && n < BENCH_MAX_BATCHES) {
        char *end;
        long v = strtol(s, &end, 10);
        if (end == s || v < 1 || v > 4096 || (*end && *end != ','))
            return 0;
        batches[n++] = (int)v;
        s = *end ? end + 1 : end;
    }
    return *s ? 0 : n;
}

static bool setup_positions(go_game *pos)
{
    static const char *moves[] = {"Q16", "D4", "Q3", "D16"};
    go_rules rules;
    go_rules_preset(&rules, "tromp-taylor");
    for (int p = 0; p < BENCH_POSITIONS; p++) {
        if (!go_game_init(&pos[p], 19, &rules, 7.5f))
            return false;
        for (int m = 0; m < p; m++) {
            go_color c = m % 2 ? GO_WHITE : GO_BLACK;
            if (go_game_play(&pos[p], go_point_from_gtp(19, moves[m]), c) != GO_MOVE_OK)
                return false;
        }
    }
    return true;
}

int shido_bench_nn(int argc, char **argv)
{
    const char *nets[BENCH_MAX_NETS];
    int num_nets = 0, batches[BENCH_MAX_BATCHES] = {1}, num_batches = 1;
    double seconds = 2.0;
    bool run_ref = true, run_cpu = true;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--weights") && i + 1 < argc && num_nets < BENCH_MAX_NETS) {
            nets[num_nets++] = argv[++i];
        } else if (!strcmp(argv[i], "--batch") && i + 1 < argc) {
            num_batches = parse_batches(argv[++i], batches);
            if (!num_batches) {
                fprintf(stderr, "shido bench nn: --batch wants sizes 1..4096 like 1,8,16\n");
                return 2;
            }
        } else if (!strcmp(argv[i], "--seconds") && i + 1 < argc) {
            seconds = atof(argv[++i]);
            if (!(seconds > 0 && seconds < 3600)) {
                fprintf(stderr, "shido bench nn: --seconds must be in (0, 3600)\n");
                return 2;
            }
        } else if (!strcmp(argv[i], "--path") && i + 1 < argc) {
            const char *p = argv[++i];
            run_ref = !strcmp(p, "ref") || !strcmp(p, "both");
            run_cpu = !strcmp(p, "cpu") || !strcmp(p, "both");
            if (!run_ref && !run_cpu) {
                fprintf(stderr, "shido bench nn: --path is ref, cpu or both\n");
                return 2;
            }
        } else {
            fprintf(stderr, "shido bench nn: unknown option '%s'\n", argv[i]);
            return 2;
        }
    }
    if (num_nets == 0) {
        num_nets = (int)(sizeof default_nets / sizeof default_nets[0]);
        memcpy(nets, default_nets, sizeof default_nets);
    }
    go_game pos[BENCH_POSITIONS];
    if (!setup_positions(pos)) {
        fprintf(stderr, "shido bench nn: cannot set up the positions\n");
        return 1;
    }
    nn_cpu_init();
    printf("%-44s %-4s %5s %7s %10s %11s %11s\n", "net (19x19, one thread)", "path", "batch",
           "evals", "evals/s", "ms/eval", "ms/batch");
    int status = 0;
    char err[2048];
    for (int n = 0; n < num_nets && status == 0; n++) {
        nn_desc *d = weights_load(nets[n], err, sizeof err);
        const char *name = strrchr(nets[n], '/') ? strrchr(nets[n], '/') + 1 : nets[n];
        for (int b = 0; d && b < num_batches && status == 0; b++)
            for (int path = 0; path < 2 && status == 0; path++) {
                bool cpu = path == 1;
                if ((cpu ? run_cpu : run_ref) &&
                    !bench_path(name, d, cpu, pos, batches[b], seconds, err, sizeof err))
                    status = 1;
            }
        if (!d)
            status = 1;
        nn_desc_free(d);
    }
    if (status)
        fprintf(stderr, "shido bench nn: %s\n", err);
    nn_cpu_scratch_free();
    for (int p = 0; p < BENCH_POSITIONS; p++)
        go_game_free(&pos[p]);
    return status;
}
