/* tools/train_disc_cmd.c -- `shido train-discriminator`: builds (or reads) the data, trains the
 * tsumego discriminator with a progress bar, writes the learning curves as CSV and PNG after
 * every epoch, resumes from its checkpoint, and reports the test split's accuracy per kind
 * (teach/disc.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nn/disc_inputs.h"
#include "teach/disc.h"
#include "tools/args.h"
#include "tools/commands.h"
#include "tools/plot.h"
#include "tools/progress.h"
#include "tools/tsumego_records.h"
#include "weights/disc.h"

#define MAX_FILES 32
#define MAX_EPOCHS 1000

typedef struct train_run {
    progress bar;
    const char *csv, *plot;
    int n;                              /* epochs recorded */
    double tl[MAX_EPOCHS], vl[MAX_EPOCHS], ta[MAX_EPOCHS], va[MAX_EPOCHS];
    bool quiet;
} train_run;

#define MAX_CONV 6  /* 3x3 layers: with the 1x1, the dense layers and the logit within */
#define MAX_DENSE 3 /* NN_DISC_MAX_LAYERS */

static int usage(FILE *f, const char *err)
{
    if (err)
        fprintf(f, "shido train-discriminator: %s\n", err);
    fprintf(f,
            "usage: shido train-discriminator --problems FILE.jsonl... --out NET.dsc\n"
            "           [--data FILE] [--epochs N] [--batch N] [--threads N] [--lr X]\n"
            "           [--patience N] [--seed N] [--solver-nodes N] [--near N] [--near-tries N]\n"
            "           [--conv C,C..] [--dense D,..] [--backend cpu|cuda] [--resume]\n"
            "           [--colour-swap] [--eval-only] [--quiet]\n"
            "Trains seed 002's tsumego-likeness CNN (conv 128/96/64, conv 1x1, dense 64, dense 1)\n"
            "on 9x9 corner windows: positives are the problems of the files, negatives random\n"
            "positions, the ends of the solver's main lines and near misses the solver refutes.\n"
            "  --problems FILE  problems as JSON Lines (../shared/tsumego format); repeatable\n"
            "  --out NET.dsc    the best weights (by validation loss); NET.dsc.state holds the\n"
            "                   last epoch's state for --resume; NET.csv and NET.png the curves\n"
            "  --data FILE      the samples: read when it exists, else built and written there\n"
            "  --epochs N       at most N epochs (default 50); --patience N: stop after N epochs\n"
            "                   without a better validation loss (default 10)\n"
            "  --batch N        mini-batch (default 32); --lr X Adam's step (default 0.001)\n"
            "  --threads N      threads for the solver and the training (default 2)\n"
            "  --backend B      cpu (default: AVX-512 or OpenBLAS GEMMs) or cuda (cuDNN, cuBLAS)\n"
            "  --seed N         data split, augmentation and initial weights (default 1)\n"
            "  --solver-nodes N node limit of each solve (default 200000)\n"
            "  --near N         near misses wanted per problem, 1..8 (default 3), found among\n"
            "                   --near-tries changed positions (default 8 per near miss)\n"
            "  --conv C,C..     the 3x3 layers' channels (default the paper's 128,96,64; up to\n"
            "                   6 layers); --dense D,..: the hidden dense sizes (default 64, up\n"
            "                   to 3); a --resume'd or --eval-only net keeps its own\n"
            "  --colour-swap    the paper's augmentation: colours swapped at random, a net blind\n"
            "                   to the side to play (default: black is always to play, the\n"
            "                   window's colours swapped where white is; a --resume'd net keeps\n"
            "                   its own form)\n"
            "  --eval-only      only report the test split's accuracy of NET.dsc\n");
    return f == stdout ? 0 : 2;
}

static void on_step(void *ctx, long done, long total)
{
    train_run *r = ctx;
    if (done == 1)
        progress_start(&r->bar, (int)total, "steps", r->quiet ? 0 : -1);
    progress_update(&r->bar, (int)done);
}

static void write_curves(train_run *r)
{
    FILE *f = fopen(r->csv, "w");
    if (f) {
        fprintf(f, "epoch,train_loss,train_acc,val_loss,val_acc\n");
        for (int i = 0; i < r->n; i++)
            fprintf(f, "%d,%.6f,%.6f,%.6f,%.6f\n", i + 1, r->tl[i], r->ta[i], r->vl[i],
                    r->va[i]);
        if (fclose(f) != 0)
            fprintf(stderr, "shido train-discriminator: %s: write error\n", r->csv);
    } else {
        fprintf(stderr, "shido train-discriminator: cannot write %s: %s\n", r->csv,
                strerror(errno));
    }
    plot_panel p[2] = {
        {.title = "loss (binary cross-entropy)", .x_label = "epoch", .n = r->n, .num_series = 2,
         .series = {{"train", r->tl}, {"validation", r->vl}}, .y_from_zero = true},
        {.title = "accuracy", .x_label = "epoch", .n = r->n, .num_series = 2,
         .series = {{"train", r->ta}, {"validation", r->va}}, .y_from_zero = true}};
    char err[512];
    if (!plot_png(r->plot, p, 2, err, sizeof err))
        fprintf(stderr, "shido train-discriminator: %s\n", err);
}

static void on_epoch(void *ctx, const teach_disc_epoch *e)
{
    train_run *r = ctx;
    if (r->n < MAX_EPOCHS) {
        r->tl[r->n] = e->train_loss;
        r->ta[r->n] = e->train_acc;
        r->vl[r->n] = e->val_loss;
        r->va[r->n] = e->val_acc;
        r->n++;
    }
    write_curves(r);
    if (!r->quiet)
        fprintf(stderr, "\repoch %d: train loss %.4f acc %.2f%%, val loss %.4f acc %.2f%%%s, "
                "%.0f samples/s, %.1f s\n", e->epoch, e->train_loss, 100 * e->train_acc,
                e->val_loss, 100 * e->val_acc, e->best ? " (best)" : "", e->samples_per_s,
                e->seconds);
}

static void on_problem(void *ctx, int done, int total)
{
    progress *bar = ctx;
    if (done == 1)
        progress_start(bar, total, "problems", bar->out ? -1 : 0);
    progress_update(bar, done);
    if (done == total)
        progress_end(bar, done);
}

/* Reads the CSV curves of an earlier run (for --resume), up to `epochs` rows. */
static void read_curves(train_run *r, int epochs)
{
    FILE *f = fopen(r->csv, "r");
    char line[256];
    if (!f)
        return;
    while (r->n < epochs && r->n < MAX_EPOCHS && fgets(line, sizeof line, f)) {
        int e;
        if (sscanf(line, "%d,%lf,%lf,%lf,%lf", &e, &r->tl[r->n], &r->ta[r->n], &r->vl[r->n],
                   &r->va[r->n]) == 5 && e == r->n + 1)
            r->n++;
    }
    fclose(f);
}

/* The data: read from path when it exists, else built from the problem files (and written to
 * path when given). */
static bool get_data(const char *path, char **files, int nfiles, teach_disc_data_opts *o,
                     bool quiet, teach_disc_data *data)
{
    char err[512];
    FILE *f = path ? fopen(path, "r") : NULL;
    if (f) {
        bool ok = teach_disc_data_read(f, data, err, sizeof err);
        fclose(f);
        if (!ok)
            fprintf(stderr, "shido train-discriminator: %s: %s\n", path, err);
        else if (!quiet)
            fprintf(stderr, "data: %d samples from %s\n", data->n, path);
        return ok;
    }
    if (nfiles == 0) {
        fprintf(stderr, "shido train-discriminator: no --problems file%s\n",
                path ? " and the --data file does not exist" : "");
        return false;
    }
    teach_disc_source *src = NULL;
    int n = 0;
    for (int i = 0; i < nfiles; i++) {
        int cnt;
        tsumego_record *recs = tsumego_records_read_jsonl(files[i], &cnt, err, sizeof err);
        if (!recs) {
            fprintf(stderr, "shido train-discriminator: %s\n", err);
            free(src);
            return false;
        }
        teach_disc_source *grown = realloc(src, (size_t)(n + cnt + 1) * sizeof *src);
        if (!grown) {
            free(recs);
            free(src);
            fprintf(stderr, "shido train-discriminator: out of memory\n");
            return false;
        }
        src = grown;
        for (int k = 0; k < cnt; k++) {
            if (!tsumego_record_board(&recs[k], &src[n].board)) {
                fprintf(stderr, "shido train-discriminator: %s: %s: a stone off the board or "
                        "doubled; skipped\n", files[i], recs[k].id);
                continue;
            }
            src[n].to_play = recs[k].to_play;
            src[n].goal = recs[k].hint;
            n++;
        }
        free(recs);
    }
    progress bar = {.out = quiet ? NULL : stderr};
    o->progress = on_problem;
    o->progress_ctx = &bar;
    bool ok = teach_disc_data_build(src, n, o, data, err, sizeof err);
    free(src);
    if (!ok) {
        fprintf(stderr, "shido train-discriminator: %s\n", err);
        return false;
    }
    if (!quiet)
        fprintf(stderr, "data: %d problems, %d fit no 9x9 corner window; %d samples; no final "
                "position for %d, no near miss for %d\n", data->problems, data->skipped_shape,
                data->n, data->final_missing, data->near_missing);
    if (path) {
        FILE *w = fopen(path, "w");
        bool wrote = w && teach_disc_data_write(data, w);
        if (w && fclose(w) != 0)
            wrote = false;
        if (!wrote) {
            fprintf(stderr, "shido train-discriminator: cannot write %s\n", path);
            return false;
        }
    }
    return true;
}

/* A kind's accuracy as a table cell: "-" where it has no windows. */
static const char *percent(long right, long n, char *buf, size_t len)
{
    if (n)
        snprintf(buf, len, "%.2f%%", 100.0 * (double)right / (double)n);
    else
        snprintf(buf, len, "-");
    return buf;
}

/* The test split's accuracy per kind, as a Markdown table on stdout. Data without a test
 * split has no such table: said on stderr, and a failure when the table is all that was
 * asked (--eval-only). */
static bool report(nn_disc_desc *net, const teach_disc_data *data, int threads,
                   const char *backend, bool asked)
{
    teach_disc_eval ev;
    char err[512];
    int n_test = 0;
    for (int i = 0; i < data->n; i++)
        n_test += data->s[i].split == TEACH_DISC_TEST;
    if (n_test == 0) {
        fprintf(stderr, "shido train-discriminator: the data has no test split: no test "
                        "accuracy\n");
        return !asked;
    }
    if (!teach_disc_evaluate(net, data, TEACH_DISC_TEST, threads, backend, &ev, err,
                             sizeof err)) {
        fprintf(stderr, "shido train-discriminator: %s\n", err);
        return false;
    }
    long n = 0, right = 0, samples = 0, voted = 0, per = net->black_to_play ? 8 : 16;
    printf("| kind | test windows | accuracy (each of %ld variants) | accuracy (mean of the 8 "
           "symmetries, as the scorer) |\n|---|---|---|---|\n", per);
    for (int k = 0; k < TEACH_DISC_KINDS; k++) {
        n += ev.n[k];
        right += ev.right[k];
        samples += ev.samples[k];
        voted += ev.voted[k];
        char a[16], b[16];
        printf("| %s | %ld | %s | %s |\n", teach_disc_kind_name((teach_disc_kind)k),
               ev.samples[k], percent(ev.right[k], ev.n[k], a, sizeof a),
               percent(ev.voted[k], ev.samples[k], b, sizeof b));
    }
    char a[16], b[16];
    printf("| all | %ld | %s | %s |\ntest loss %.4f\n", samples, percent(right, n, a, sizeof a),
           percent(voted, samples, b, sizeof b), ev.loss);
    return true;
}

int shido_cmd_train_disc(int argc, char **argv)
{
    char *files[MAX_FILES];
    int nfiles = 0;
    const char *out = NULL, *data_path = NULL;
    teach_disc_train_opts to = {.epochs = 50, .batch = 32, .threads = 2, .patience = 10,
                                .adam = NN_ADAM_DEFAULTS, .seed = 1};
    teach_disc_data_opts dopt = {.seed = 1, .threads = 2, .near_per_problem = 3};
    bool resume = false, eval_only = false, quiet = false;
    int conv[MAX_CONV] = {128, 96, 64}, dense[MAX_DENSE] = {64}, nconv = 3, ndense = 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        long n;
        if (!strcmp(a, "--help") || !strcmp(a, "-h"))
            return usage(stdout, NULL);
        if (!strcmp(a, "--resume")) {
            resume = true;
            continue;
        }
        if (!strcmp(a, "--eval-only")) {
            eval_only = true;
            continue;
        }
        if (!strcmp(a, "--quiet")) {
            quiet = true;
            continue;
        }
        if (!strcmp(a, "--colour-swap")) {
            to.colour_swap = true;
            continue;
        }
        if (!v)
            return usage(stderr, "an option without its value (see --help)");
        i++;
        if (!strcmp(a, "--problems")) {
            if (nfiles == MAX_FILES)
                return usage(stderr, "too many --problems files");
            files[nfiles++] = argv[i];
        } else if (!strcmp(a, "--out")) {
            out = v;
        } else if (!strcmp(a, "--backend") && (!strcmp(v, "cpu") || !strcmp(v, "cuda"))) {
            to.backend = v;
        } else if (!strcmp(a, "--data")) {
            data_path = v;
        } else if (!strcmp(a, "--epochs") && tools_parse_long(v, 1, MAX_EPOCHS, &n)) {
            to.epochs = (int)n;
        } else if (!strcmp(a, "--batch") && tools_parse_long(v, 1, 4096, &n)) {
            to.batch = (int)n;
        } else if (!strcmp(a, "--threads") && tools_parse_long(v, 1, 64, &n)) {
            to.threads = dopt.threads = (int)n;
        } else if (!strcmp(a, "--patience") && tools_parse_long(v, 1, MAX_EPOCHS, &n)) {
            to.patience = (int)n;
        } else if (!strcmp(a, "--seed") && tools_parse_long(v, 0, 1L << 62, &n)) {
            to.seed = dopt.seed = (uint64_t)n;
        } else if (!strcmp(a, "--solver-nodes") && tools_parse_long(v, 1000, 1L << 40, &n)) {
            dopt.solver_nodes = (uint64_t)n;
        } else if (!strcmp(a, "--near-tries") && tools_parse_long(v, 1, 100, &n)) {
            dopt.near_tries = (int)n;
        } else if (!strcmp(a, "--near") && tools_parse_long(v, 1, TEACH_DISC_MAX_NEAR, &n)) {
            dopt.near_per_problem = (int)n;
        } else if (!strcmp(a, "--conv")) {
            if (!(nconv = tools_parse_list(v, 1, 1024, conv, MAX_CONV)))
                return usage(stderr, "--conv takes 1 to 6 channel counts 1..1024, "
                                     "comma-separated");
        } else if (!strcmp(a, "--dense")) {
            if (!(ndense = tools_parse_list(v, 1, 4096, dense, MAX_DENSE)))
                return usage(stderr, "--dense takes 1 to 3 sizes 1..4096, comma-separated");
        } else if (!strcmp(a, "--lr")) {
            char *end;
            double lr = strtod(v, &end);
            if (*end || !(lr > 0 && lr < 1))
                return usage(stderr, "--lr takes a step size in (0, 1)");
            to.adam.lr = (float)lr;
        } else {
            char msg[300];
            snprintf(msg, sizeof msg, "bad option or value: %s %s", a, v);
            return usage(stderr, msg);
        }
    }
    if (!out)
        return usage(stderr, "--out NET.dsc is required");
    size_t olen = strlen(out);
    char *state = malloc(olen + 8), *csv = malloc(olen + 8), *png = malloc(olen + 8);
    if (!state || !csv || !png)
        return 1;
    snprintf(state, olen + 8, "%s.state", out);
    const char *dot = strrchr(out, '.');
    size_t stem = dot && !strchr(dot, '/') ? (size_t)(dot - out) : olen;
    snprintf(csv, olen + 8, "%.*s.csv", (int)stem, out);
    snprintf(png, olen + 8, "%.*s.png", (int)stem, out);
    int rc = 1;
    teach_disc_data data = {0};
    nn_desc *net = NULL, *best = NULL;
    weights_disc_train_state ts = {0};
    char err[512];
    if (!get_data(data_path, files, nfiles, &dopt, quiet, &data))
        goto done;
    if (eval_only) {
        net = weights_load_disc(out, NULL, err, sizeof err);
        if (!net) {
            fprintf(stderr, "shido train-discriminator: %s\n", err);
            goto done;
        }
        rc = report(net->disc, &data, to.threads, to.backend, true) ? 0 : 1;
        goto done;
    }
    train_run run = {.csv = csv, .plot = png, .quiet = quiet, .bar = {.out = NULL}};
    if (resume) {
        net = weights_load_disc(state, &ts, err, sizeof err);
        best = net ? weights_load_disc(out, NULL, err, sizeof err) : NULL;
        if (!net || !best || !ts.m) {
            fprintf(stderr, "shido train-discriminator: --resume: %s\n",
                    net && best ? "the state file holds no training state" : err);
            goto done;
        }
        read_curves(&run, ts.epoch);
        if (!quiet)
            fprintf(stderr, "resuming after epoch %d (best %d, val loss %.4f)\n", ts.epoch,
                    ts.best_epoch, ts.best_val_loss);
    } else {
        net = weights_disc_make(TEACH_DISC_SIZE, NN_DISC_PLANES, conv, nconv, dense, ndense,
                                to.seed);
        if (!net) {
            fprintf(stderr, "shido train-discriminator: out of memory\n");
            goto done;
        }
    }
    to.checkpoint = state;
    to.best = out;
    to.on_step = on_step;
    to.on_epoch = on_epoch;
    to.ctx = &run;
    bool ok = teach_disc_train(net, &data, &to, resume ? &ts : NULL, best, err, sizeof err);
    progress_end(&run.bar, run.bar.total);
    if (!ok) {
        fprintf(stderr, "shido train-discriminator: %s\n", err);
        goto done;
    }
    if (!quiet)
        fprintf(stderr, "best weights in %s; curves in %s and %s\n", out, csv, png);
    rc = report(net->disc, &data, to.threads, to.backend, false) ? 0 : 1;
done:
    plot_release();
    teach_disc_data_free(&data);
    weights_disc_train_state_free(&ts);
    nn_desc_free(net);
    nn_desc_free(best);
    free(state);
    free(csv);
    free(png);
    return rc;
}
