/* teach/disc.h -- the tsumego discriminator of seed 002 (section 4 of the algorithms digest):
 * its data, its training and the score the generators rank positions by.
 *
 * Samples are 9x9 corner windows. A window is kept in a normal form, the top-left corner of an
 * otherwise empty 19x19 board, so the planes (nn/disc_inputs.h) see two board edges and two open
 * sides whatever corner the problem came from, and with black as the problem's side to play
 * (its colours swapped when white is to play). Training turns each sample by a random one of the
 * 8 symmetries; the net then learns who is to play from the colours (black_to_play of
 * weights/desc_disc.h), unless it is trained as the paper's, colours swapped half the time, blind
 * to the side to play.
 *   problem  positives: every problem of a collection whose stones fit a 9x9 corner window;
 *   random   the paper's first negatives: 3-15 stones of each colour at random in the window
 *            (no chain without liberties);
 *   final    the paper's second: the position at the end of the solver's main line;
 *   near     harder ones: the problem with one or two stones added or taken away such that the
 *            solver proves the side to play can no longer reach the goal.
 * Splits are drawn per problem (a problem's negatives go with it), so no problem is in two
 * splits. Everything is deterministic for a seed and, for the solver's negatives, node limits. */
#ifndef SHIDO_TEACH_DISC_H
#define SHIDO_TEACH_DISC_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "go/board.h"
#include "go/tsumego.h"
#include "nn/nn.h"
#include "nn/train/train.h"
#include "weights/disc.h"

#define TEACH_DISC_SIZE 9
#define TEACH_DISC_MAX_NEAR 8

typedef enum {
    TEACH_DISC_PROBLEM = 0,
    TEACH_DISC_RANDOM,
    TEACH_DISC_FINAL,
    TEACH_DISC_NEAR,
    TEACH_DISC_KINDS
} teach_disc_kind;

typedef enum { TEACH_DISC_TRAIN = 0, TEACH_DISC_VAL, TEACH_DISC_TEST, TEACH_DISC_SPLITS } teach_disc_split;

/* "problem", "random", "final", "near"; "train", "val", "test". */
const char *teach_disc_kind_name(teach_disc_kind k);
const char *teach_disc_split_name(teach_disc_split s);

typedef struct teach_disc_sample {
    uint8_t cell[TEACH_DISC_SIZE * TEACH_DISC_SIZE]; /* [y][x]: GO_EMPTY, GO_BLACK, GO_WHITE */
    uint8_t kind, split;
    int32_t problem;            /* the source problem's index; random ones: -1 */
} teach_disc_sample;

typedef struct teach_disc_data {
    int n, cap;
    teach_disc_sample *s;       /* owned */
    int problems, skipped_shape; /* problems given; those that fit no 9x9 corner window */
    int final_missing, near_missing; /* problems the solver gave no such negative for */
} teach_disc_data;

/* A source problem: the position, the side to play, the goal its statement names (AUTO: the
 * solver infers it). */
typedef struct teach_disc_source {
    go_board board;
    go_color to_play;
    go_tsumego_goal goal;
} teach_disc_source;

typedef struct teach_disc_data_opts {
    uint64_t seed;
    int threads;                /* solver threads */
    uint64_t solver_nodes;      /* node limit of each solve [200000] */
    int near_per_problem;       /* near negatives wanted per problem, distinct [1] */
    int near_tries;             /* candidate changes tried per problem [8 per near wanted] */
    double random_per_problem;  /* random negatives per kept problem [1] */
    double val_frac, test_frac; /* [0.1, 0.1] */
    /* called after each problem (from the solver threads, serialised), NULL: silent */
    void (*progress)(void *ctx, int done, int total);
    void *progress_ctx;
} teach_disc_data_opts;

/* Builds the samples of n source problems. False with a message in err when out of memory. */
bool teach_disc_data_build(const teach_disc_source *src, int n, const teach_disc_data_opts *o,
                           teach_disc_data *out, char *err, int err_len);
void teach_disc_data_free(teach_disc_data *d);

/* The window of a problem's position in normal form: false when its stones fit no 9x9 corner
 * window. */
bool teach_disc_window(const go_board *b, uint8_t cell[TEACH_DISC_SIZE * TEACH_DISC_SIZE]);

/* One line per sample ("kind split problem 81-cells") and back; the data file of
 * `shido train-discriminator --data`. Read returns false with the line's fault in err. */
bool teach_disc_data_write(const teach_disc_data *d, FILE *f);
bool teach_disc_data_read(FILE *f, teach_disc_data *out, char *err, int err_len);

/* The input planes of sample s turned by symmetry (0..7), colours swapped when swap. */
void teach_disc_sample_planes(const teach_disc_sample *s, int symmetry, bool swap, float *planes);

/* ---- training ------------------------------------------------------------------------------- */

typedef struct teach_disc_epoch {
    int epoch;                  /* 1-based */
    double train_loss, train_acc, val_loss, val_acc;
    double samples_per_s, seconds;
    bool best;                  /* the best validation loss so far */
} teach_disc_epoch;

typedef struct teach_disc_train_opts {
    int epochs;                 /* at most [30] */
    int batch;                  /* [32] */
    int threads;                /* [1] */
    const char *backend;        /* "cpu" (NULL) or "cuda" (nn_trainer_new_on) */
    bool colour_swap;           /* the paper's colour swaps (a colour-free net); a resumed net
                                 * keeps its own form */
    int patience;               /* stop after this many epochs without a better val loss [5] */
    nn_adam adam;
    uint64_t seed;
    const char *checkpoint;     /* the last epoch's state, for resuming (NULL: none) */
    const char *best;           /* the best weights so far (NULL: none) */
    void (*on_step)(void *ctx, long done, long total);
    void (*on_epoch)(void *ctx, const teach_disc_epoch *e);
    void *ctx;
} teach_disc_train_opts;

/* Trains net (its weights updated in place; at the end they are the best epoch's) on the train
 * split, validating each epoch. resume: NULL, or the state of a checkpoint whose weights net
 * holds (the run then goes on from its epoch). best_weights_loaded: when resuming, the best
 * weights so far (NULL: the checkpoint's own count as best). False with a message in err. */
bool teach_disc_train(nn_desc *net, const teach_disc_data *data, const teach_disc_train_opts *o,
                      const weights_disc_train_state *resume, const nn_desc *best_so_far,
                      char *err, int err_len);

/* Accuracy per kind on a split, every sample under all 8 symmetries, and both colourings for a
 * colour-free net (n, right: variants); and per sample as the scorer judges it, by the mean
 * likeness of its 8 symmetries against 0.5 (samples, voted). */
typedef struct teach_disc_eval {
    long n[TEACH_DISC_KINDS], right[TEACH_DISC_KINDS];
    long samples[TEACH_DISC_KINDS], voted[TEACH_DISC_KINDS];
    double loss;
} teach_disc_eval;

bool teach_disc_evaluate(nn_disc_desc *net, const teach_disc_data *data, teach_disc_split split,
                         int threads, const char *backend, teach_disc_eval *out, char *err,
                         int err_len);

/* Training throughput of the paper's net on random binary planes: Adam steps of `batch` for
 * `seconds` after two warm-up steps, then the forward pass alone for half as long. False with a
 * message in err. */
typedef struct teach_disc_throughput {
    double train_samples_s, ms_per_step, forward_samples_s;
} teach_disc_throughput;

bool teach_disc_bench(int batch, int threads, double seconds, const char *backend,
                      teach_disc_throughput *out, char *err, int err_len);

/* ---- the score the generators use ---------------------------------------------------------- */

/* A loaded discriminator with evaluators for `threads` callers at once (more wait their turn);
 * every function below may be called from any thread. */
typedef struct teach_disc_scorer teach_disc_scorer;

/* From a checkpoint (backend NULL: the default). NULL with a message in err. */
teach_disc_scorer *teach_disc_scorer_load(const char *path, const char *backend, int threads,
                                          char *err, int err_len);
void teach_disc_scorer_free(teach_disc_scorer *s);

/* Tsumego-likeness (0..1) of n windows: boards[i] with its 9x9 window's top-left corner at
 * (x[i], y[i]) and to_play[i] to play (to_play NULL: black everywhere), averaged over the 8
 * symmetries. False with a message in err. */
bool teach_disc_score(teach_disc_scorer *s, int n, const go_board *const *boards, const int *x,
                      const int *y, const go_color *to_play, double *out, char *err, int err_len);

/* The likeness of a corner problem with to_play to play: its stones' window in normal form
 * (teach_disc_window); -1 when they fit no corner window. */
double teach_disc_score_problem(teach_disc_scorer *s, const go_board *b, go_color to_play,
                                char *err, int err_len);

/* The generators' ranking score (teach_tsgen_score_fn of teach/tsumego_gen.h, scorer a
 * teach_disc_scorer): the likeness of each board's stones in their corner window with
 * to_play[i] to play (NULL: black), 0 for a position that fits none. False when the evaluation
 * fails. */
bool teach_disc_rank(void *scorer, const go_board *const *boards, const go_color *to_play, int n,
                     float *out);

#endif
