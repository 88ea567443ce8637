/* tools/bench_nn.c -- `shido bench nn` (see bench_nn.h). Positions: the empty 19x19 board and
 * the same board after 1..4 moves, cycled through the batch with symmetries 0..7. Each worker
 * thread owns a context and evaluates whole batches through nn_eval, as a search worker would;
 * all of them share one model. More options: --profile NAME, the human-SL profile a net
 * with a metadata encoder is evaluated under (default rank_1d), and --only TEXT, which runs only
 * the synthetic nets whose name contains TEXT ("lz-b10c128"), and --forward-only, which times
 * the backend's forward pass alone (nn_forward_again: upload, net, download, after one nn_eval
 * of the batch) where the default times whole nn_eval calls, input features and output
 * conversion on the CPU included; its rows name the backend "NAME/fwd". --eval-threads K gives
 * each worker's context K threads for that CPU work (nn_context_set_threads; rows "NAME/eK"). */
#include "tools/bench_nn.h"

#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "go/game.h"
#include "go/rules.h"
#include "weights/desc.h"
#include "nn/nn.h"
#include "weights/synth.h"
#include "go/clock.h"

#define BENCH_MAX_NETS 16
#define BENCH_MAX_BATCHES 16
#define BENCH_MAX_THREADS 64
#define BENCH_POSITIONS 5

/* The synthetic nets run when no --weights is given: the standard shapes of each family. */
typedef struct bench_synth {
    const char *name;
    bool lz;
    int lz_blocks, lz_filters;
    weights_synth_kata_shape kata;
} bench_synth;

static const bench_synth synth_nets[] = {
    {"synthetic lz-b10c128", true, 10, 128, {0}},
    {"synthetic lz-b40c256", true, 40, 256, {0}},
    {"synthetic kata-b6c96 (v8)", false, 0, 0,
     {8, false, 6, 96, 96, 64, 32, 3, 5, 32, 32, 32, 64, NN_ACT_RELU}},
    {"synthetic kata-b18c384nbt (v15)", false, 0, 0,
     {15, true, 18, 384, 192, 128, 64, 3, 3, 48, 48, 96, 128, NN_ACT_MISH}},
    {"synthetic kata-b28c512nbt (v15)", false, 0, 0,
     {15, true, 28, 512, 256, 192, 64, 3, 3, 64, 64, 128, 144, NN_ACT_MISH}},
};
#define NUM_SYNTH ((int)(sizeof synth_nets / sizeof synth_nets[0]))

/* The start line: the workers warm up one at a time, and none times anything before all have
 * warmed up. A GPU worker's warm-up searches its convolution algorithms by timing them, which a
 * concurrent worker disturbs (then a slow algorithm may stay for the whole run), and captures
 * its graphs, which stalls the others. On an H100 two workers of b18c384nbt at batch 256 came to
 * 4,204 evals/s against 14,165 for one with both warming up together; with a common start
 * after concurrent warm-ups, still 3,816 against 14,792. */
typedef struct bench_start {
    pthread_mutex_t warm;   /* held by the worker warming up */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int ready;      /* workers past their warm-up */
    int expected;   /* workers started; INT_MAX until the main thread knows */
} bench_start;

static void start_line_wait(bench_start *s)
{
    pthread_mutex_lock(&s->mu);
    s->ready++;
    pthread_cond_broadcast(&s->cv);
    while (s->ready < s->expected)
        pthread_cond_wait(&s->cv, &s->mu);
    pthread_mutex_unlock(&s->mu);
}

/* One worker: its context, and what it measured. */
typedef struct bench_worker {
    pthread_t thread;
    bench_start *start;
    nn_model *model;
    const go_game *positions;
    const nn_kata_profile *profile;   /* for human SL nets; ignored by the others */
    int batch;
    double seconds;
    bool forward_only;      /* time nn_forward_again: the backend's forward pass alone */
    int eval_threads;       /* nn_context_set_threads of the worker's context */
    long evals, batches;
    double busy;            /* seconds spent inside nn_eval, warm-up excluded */
    double cpu;             /* CPU seconds the worker used meanwhile */
    bool ok;
    char err[512];
} bench_worker;

static double thread_cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void *worker_run(void *arg)
{
    bench_worker *w = arg;
    nn_context *c = nn_context_new(w->model, w->batch, w->err, sizeof w->err);
    nn_query *q = malloc(sizeof *q * (size_t)w->batch);
    nn_result *out = malloc(sizeof *out * (size_t)w->batch);
    w->ok = c != NULL && nn_context_set_threads(c, w->eval_threads, w->err, sizeof w->err);
    if (w->ok && (!q || !out)) {
        snprintf(w->err, sizeof w->err, "out of memory");
        w->ok = false;
    }
    for (int i = 0; w->ok && i < w->batch; i++)
        q[i] = (nn_query){&w->positions[i % BENCH_POSITIONS], i % 8, NN_DEFAULT_POLICY_OPTIMISM,
                          w->profile};
    /* two warm-up batches: first-touch page faults and BLAS buffers, and on a GPU the first
     * batch's algorithm search and the second's CUDA graph capture, are not what is measured */
    pthread_mutex_lock(&w->start->warm);
    for (int i = 0; i < 2; i++)
        w->ok = w->ok && nn_eval(c, w->batch, q, out, w->err, sizeof w->err);
    pthread_mutex_unlock(&w->start->warm);
    start_line_wait(w->start);   /* also after a failure: the others wait for this worker */
    double start = go_now_s(), cpu_start = thread_cpu_seconds();
    while (w->ok && (w->batches == 0 || w->busy < w->seconds)) {
        w->ok = w->forward_only ? nn_forward_again(c, w->err, sizeof w->err)
                                : nn_eval(c, w->batch, q, out, w->err, sizeof w->err);
        w->batches++;
        w->evals += w->batch;
        w->busy = go_now_s() - start;
    }
    w->cpu = thread_cpu_seconds() - cpu_start;
    nn_context_free(c);
    free(q);
    free(out);
    return NULL;
}

/* Runs `threads` workers of batch `batch` on m for `seconds`; prints one line. */
static bool bench_model(const char *name, nn_model *m, const go_game *pos,
                        const nn_kata_profile *profile, int threads, int batch, double seconds,
                        bool forward_only, int eval_threads, char *err, int err_len)
{
    bench_worker *w = calloc((size_t)threads, sizeof *w);
    if (!w) {
        snprintf(err, (size_t)err_len, "out of memory");
        return false;
    }
    bench_start line = {.ready = 0, .expected = INT_MAX};
    if (pthread_mutex_init(&line.warm, NULL) != 0 || pthread_mutex_init(&line.mu, NULL) != 0 ||
        pthread_cond_init(&line.cv, NULL) != 0) {
        snprintf(err, (size_t)err_len, "cannot make the workers' start line");
        free(w);
        return false;
    }
    int started = 0;
    for (int t = 0; t < threads; t++) {
        w[t] = (bench_worker){.start = &line, .model = m, .positions = pos, .profile = profile,
                              .batch = batch, .seconds = seconds, .forward_only = forward_only,
                              .eval_threads = eval_threads};
        if (pthread_create(&w[t].thread, NULL, worker_run, &w[t]) != 0)
            break;
        started++;
    }
    pthread_mutex_lock(&line.mu);
    line.expected = started;
    pthread_cond_broadcast(&line.cv);
    pthread_mutex_unlock(&line.mu);
    bool ok = started == threads;
    if (!ok)
        snprintf(err, (size_t)err_len, "cannot start %d threads", threads);
    long evals = 0, batches = 0;
    double latency = 0, cpu = 0;
    for (int t = 0; t < started; t++) {
        pthread_join(w[t].thread, NULL);
        if (ok && !w[t].ok) {
            snprintf(err, (size_t)err_len, "%s", w[t].err);
            ok = false;
        }
        evals += w[t].evals;
        batches += w[t].batches;
        latency += w[t].busy;
        cpu += w[t].cpu;
    }
    if (ok) {
        /* every worker ran for about `seconds` after its warm-up: throughput is the sum of the
         * workers' rates, latency the mean time of one nn_eval call; evaluations per CPU second
         * show what a core gives when the machine is shared */
        double rate = 0;
        for (int t = 0; t < threads; t++)
            rate += (double)w[t].evals / w[t].busy;
        char back[32];
        if (eval_threads > 1)
            snprintf(back, sizeof back, "%s/e%d%s", nn_model_backend(m), eval_threads,
                     forward_only ? "/fwd" : "");
        else
            snprintf(back, sizeof back, "%s%s", nn_model_backend(m), forward_only ? "/fwd" : "");
        printf("%-34s %-4s %7d %5d %7ld %10.1f %12.2f %10.1f\n", name, back, threads, batch,
               evals, rate, 1e3 * latency / (double)batches,
               (double)evals / cpu);
        fflush(stdout);
    }
    pthread_cond_destroy(&line.cv);
    pthread_mutex_destroy(&line.mu);
    pthread_mutex_destroy(&line.warm);
    free(w);
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

static int usage(const char *why)
{
    fprintf(stderr, "shido bench nn: %s\nusage: shido bench nn [--weights FILE]... [--batch 1,8,16] "
                    "[--threads T] [--backend NAME[:OPTIONS]] [--seconds S] [--profile NAME] "
                    "[--only TEXT] [--forward-only] [--eval-threads K]\n", why);
    return 2;
}

int shido_bench_nn(int argc, char **argv)
{
    const char *nets[BENCH_MAX_NETS];
    int num_nets = 0, batches[BENCH_MAX_BATCHES] = {1}, num_batches = 1, threads = 1;
    double seconds = 2.0;
    const char *backend = "cpu", *profile_name = "rank_1d", *only = NULL;
    bool forward_only = false;
    int eval_threads = 1;
    for (int i = 1; i < argc; i++) {
        bool more = i + 1 < argc;
        if (!strcmp(argv[i], "--weights") && more) {
            if (num_nets == BENCH_MAX_NETS)
                return usage("too many --weights");
            nets[num_nets++] = argv[++i];
        } else if (!strcmp(argv[i], "--batch") && more) {
            num_batches = parse_batches(argv[++i], batches);
            if (!num_batches)
                return usage("--batch wants sizes 1..4096 like 1,8,16");
        } else if (!strcmp(argv[i], "--seconds") && more) {
            seconds = atof(argv[++i]);
            if (!(seconds > 0 && seconds < 3600))
                return usage("--seconds must be in (0, 3600)");
        } else if (!strcmp(argv[i], "--threads") && more) {
            threads = atoi(argv[++i]);
            if (threads < 1 || threads > BENCH_MAX_THREADS)
                return usage("--threads must be 1..64");
        } else if (!strcmp(argv[i], "--backend") && more) {
            backend = argv[++i];
        } else if (!strcmp(argv[i], "--profile") && more) {
            profile_name = argv[++i];
        } else if (!strcmp(argv[i], "--only") && more) {
            only = argv[++i];
        } else if (!strcmp(argv[i], "--forward-only")) {
            forward_only = true;
        } else if (!strcmp(argv[i], "--eval-threads") && more) {
            eval_threads = atoi(argv[++i]);
            if (eval_threads < 1 || eval_threads > 64)
                return usage("--eval-threads must be 1..64");
        } else {
            char why[256];
            snprintf(why, sizeof why, "unknown option '%s'", argv[i]);
            return usage(why);
        }
    }
    nn_kata_profile profile;
    char err[2048];
    if (!nn_kata_profile_parse(profile_name, &profile, err, sizeof err))
        return usage(err);
    go_game pos[BENCH_POSITIONS];
    if (!setup_positions(pos)) {
        fprintf(stderr, "shido bench nn: cannot set up the positions\n");
        return 1;
    }
    printf("%-34s %-4s %7s %5s %7s %10s %12s %10s\n", "net (19x19)", "back", "threads", "batch",
           "evals", "evals/s", "ms/batch", "evals/cpu-s");
    int status = 0, total = num_nets ? num_nets : NUM_SYNTH;
    for (int n = 0; n < total && status == 0; n++) {
        nn_model *m = NULL;
        const char *name;
        if (num_nets) {
            name = strrchr(nets[n], '/') ? strrchr(nets[n], '/') + 1 : nets[n];
            m = nn_model_load(nets[n], backend, err, sizeof err);
        } else {
            const bench_synth *s = &synth_nets[n];
            name = s->name;
            if (only && !strstr(name, only))
                continue;
            nn_desc *d = s->lz ? weights_synth_lz(s->lz_blocks, s->lz_filters, (unsigned)n)
                               : weights_synth_kata(&s->kata, (unsigned)n);
            if (d)
                m = nn_model_from_desc(d, backend, err, sizeof err);
            else
                snprintf(err, sizeof err, "%s: out of memory", name);
        }
        for (int b = 0; m && b < num_batches && status == 0; b++)
            if (!bench_model(name, m, pos, &profile, threads, batches[b], seconds, forward_only,
                             eval_threads, err, sizeof err))
                status = 1;
        if (!m)
            status = 1;
        nn_model_free(m);
    }
    if (status)
        fprintf(stderr, "shido bench nn: %s\n", err);
    for (int p = 0; p < BENCH_POSITIONS; p++)
        go_game_free(&pos[p]);
    return status;
}
