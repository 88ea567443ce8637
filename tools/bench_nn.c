/* tools/bench_nn.c -- `shido bench nn` (see bench_nn.h): the options, the nets, one line per
 * measurement. The measurement itself is teach/throughput.h's. More options: --profile NAME,
 * the human-SL profile a net with a metadata encoder is evaluated under (default rank_1d), and
 * --only TEXT, which runs only the synthetic nets whose name contains TEXT ("lz-b10c128"), and
 * --forward-only, which times the backend's forward pass alone (nn_forward_again: upload, net,
 * download, after one nn_eval of the batch) where the default times whole nn_eval calls, input
 * features and output conversion on the CPU included; its rows name the backend "NAME/fwd".
 * --eval-threads K gives each worker's context K threads for that CPU work
 * (nn_context_set_threads; rows "NAME/eK"). */
#include "tools/bench_nn.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "teach/engine.h"
#include "teach/throughput.h"
#include "weights/synth.h"

#define BENCH_MAX_BATCHES 16

/* Prints one measurement's line. */
static void print_line(const char *name, const char *backend, const teach_throughput_opts *o,
                       const teach_throughput *t)
{
    char back[32];
    if (o->eval_threads > 1)
        snprintf(back, sizeof back, "%s/e%d%s", backend, o->eval_threads,
                 o->forward_only ? "/fwd" : "");
    else
        snprintf(back, sizeof back, "%s%s", backend, o->forward_only ? "/fwd" : "");
    printf("%-34s %-4s %7d %5d %7ld %10.1f %12.2f %10.1f\n", name, back, o->threads, o->batch,
           t->evals, t->evals_per_s, t->ms_per_batch, t->evals_per_cpu_s);
    fflush(stdout);
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

static const char usage_text[] =
    "usage: shido bench nn [-w FILE]... [--batch 1,8,16] [--threads T] [--backend NAME[:OPTIONS]] "
    "[--seconds S] [--profile NAME] [--only TEXT] [--forward-only] [--eval-threads K]\n";

static int usage(const char *why)
{
    fprintf(stderr, "shido bench nn: %s\n%s", why, usage_text);
    return 2;
}

/* An engine holding net n of the run: the n-th --weights file, or the n-th synthetic shape
 * (NULL *name when --only leaves it out). NULL with the reason in err. */
static teach_engine *load_net(const teach_options *o, int n, const char *only, const char **name,
                              char *err, int err_len)
{
    teach_options one = *o;
    one.num_weights = 0;
    if (o->num_weights) {
        one.weights[one.num_weights++] = o->weights[n];
        *name = strrchr(o->weights[n], '/') ? strrchr(o->weights[n], '/') + 1 : o->weights[n];
        return teach_engine_new(&one, err, err_len);
    }
    int count;
    const weights_synth_net *s = &weights_synth_standard(&count)[n];
    *name = s->name;
    if (only && !strstr(s->name, only)) {
        *name = NULL;
        return NULL;
    }
    teach_engine *e = teach_engine_new(&one, err, err_len);
    nn_desc *d = e ? weights_synth_make(s, (unsigned)n) : NULL;
    if (e && !d)
        snprintf(err, (size_t)err_len, "%s: out of memory", s->name);
    if (!d || !teach_engine_add_desc(e, d, s->name, err, err_len)) {
        teach_engine_free(e);
        return NULL;
    }
    return e;
}

int shido_bench_nn(int argc, char **argv)
{
    teach_options opts;
    teach_options_init(&opts);
    int batches[BENCH_MAX_BATCHES] = {1}, num_batches = 1;
    teach_throughput_opts t = {.threads = 1, .seconds = 2.0, .eval_threads = 1};
    const char *profile_name = "rank_1d", *only = NULL;
    char err[2048];
    for (int i = 1; i < argc; i++) {
        bool more = i + 1 < argc;
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            printf("%s%s", usage_text, teach_options_help());
            return 0;
        }
        int got = teach_options_parse(&opts, argc, argv, &i, err, sizeof err);
        if (got < 0)
            return usage(err);
        if (got > 0)
            continue;
        if (!strcmp(argv[i], "--batch") && more) {
            num_batches = parse_batches(argv[++i], batches);
            if (!num_batches)
                return usage("--batch wants sizes 1..4096 like 1,8,16");
        } else if (!strcmp(argv[i], "--seconds") && more) {
            t.seconds = atof(argv[++i]);
            if (!(t.seconds > 0 && t.seconds < 3600))
                return usage("--seconds must be in (0, 3600)");
        } else if (!strcmp(argv[i], "--profile") && more) {
            profile_name = argv[++i];
        } else if (!strcmp(argv[i], "--only") && more) {
            only = argv[++i];
        } else if (!strcmp(argv[i], "--forward-only")) {
            t.forward_only = true;
        } else if (!strcmp(argv[i], "--eval-threads") && more) {
            t.eval_threads = atoi(argv[++i]);
            if (t.eval_threads < 1 || t.eval_threads > 64)
                return usage("--eval-threads must be 1..64");
        } else {
            char why[256];
            snprintf(why, sizeof why, "unknown option '%s'", argv[i]);
            return usage(why);
        }
    }
    if (opts.threads) {
        if (opts.threads > TEACH_THROUGHPUT_MAX_THREADS)
            return usage("--threads must be 1..64");
        t.threads = opts.threads;
    }
    if (!opts.backend[0])
        snprintf(opts.backend, sizeof opts.backend, "cpu");
    nn_kata_profile profile;
    if (!nn_kata_profile_parse(profile_name, &profile, err, sizeof err))
        return usage(err);
    t.profile = &profile;
    go_game pos[TEACH_THROUGHPUT_POSITIONS];
    if (!teach_throughput_positions(pos)) {
        fprintf(stderr, "shido bench nn: cannot set up the positions\n");
        return 1;
    }
    printf("%-34s %-4s %7s %5s %7s %10s %12s %10s\n", "net (19x19)", "back", "threads", "batch",
           "evals", "evals/s", "ms/batch", "evals/cpu-s");
    int status = 0, total;
    if (opts.num_weights)
        total = opts.num_weights;
    else
        weights_synth_standard(&total);
    for (int n = 0; n < total && status == 0; n++) {
        const char *name;
        teach_engine *e = load_net(&opts, n, only, &name, err, sizeof err);
        if (!e) {
            status = name ? 1 : 0;
            continue;
        }
        nn_model *m = teach_engine_model(e, 0);
        for (int b = 0; b < num_batches && status == 0; b++) {
            teach_throughput got;
            t.batch = batches[b];
            if (teach_throughput_run(m, pos, &t, &got, err, sizeof err))
                print_line(name, nn_model_backend(m), &t, &got);
            else
                status = 1;
        }
        teach_engine_free(e);
    }
    if (status)
        fprintf(stderr, "shido bench nn: %s\n", err);
    for (int p = 0; p < TEACH_THROUGHPUT_POSITIONS; p++)
        go_game_free(&pos[p]);
    return status;
}
