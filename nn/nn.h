/* nn/nn.h -- the public face of the network evaluator: what mcts/ and tools/ see.
 *
 * A model is a loaded network (Leela Zero or KataGo, any supported file format version) bound to
 * one backend ("ref": the plain-loop reference; "cpu": OpenBLAS; "cuda" in CUDA builds). A model
 * is immutable once made and may be shared by any number of threads. A context holds the
 * scratch memory of one evaluator: each search thread owns its own context (a context must not
 * be used by two threads at once). nn_eval evaluates a batch of positions in one forward pass.
 *
 * Tsumego discriminator checkpoints (shido's own, weights/disc.h) load and evaluate the same
 * way: each query names a window of its board and gets nn_result.likeness.
 *
 * Results are in the board's own orientation (the symmetry is undone) and from WHITE's point of
 * view for values, as KataGo's kata-raw-nn prints them. Leela Zero nets fill the win/loss
 * values (their winrate turned to white's view) and the policy; the rest is absent (has_score and
 * has_ownership false, the fields -1 / 0).
 */
#ifndef SHIDO_NN_NN_H
#define SHIDO_NN_NN_H

#include <stdbool.h>
#include <stdint.h>

#include "go/board.h"
#include "go/game.h"
#include "weights/desc.h"
#include "nn/kata_inputs.h"

#define NN_MAX_POINTS (GO_MAX_SIZE * GO_MAX_SIZE)
#define NN_MAX_MOVES (NN_MAX_POINTS + 1)   /* every point, then pass */

/* KataGo's default policy optimism for kata-raw-nn and the search root */
#define NN_DEFAULT_POLICY_OPTIMISM 0.2

typedef struct nn_model nn_model;
typedef struct nn_context nn_context;

/* One position to evaluate. */
typedef struct nn_query {
    const go_game *game;      /* evaluated for its side to move; only read, during nn_eval */
    int symmetry;             /* 0..7: KataGo's numbering for KataGo nets, Leela Zero's for its */
    double policy_optimism;   /* KataGo nets with an optimistic policy channel (version 12 on);
                                 ignored by the others */
    /* The human-SL profile for KataGo nets with a metadata encoder (nn_kata_profile_parse makes
     * one from a name such as "rank_5k"); NULL: the context's (nn_context_set_profile). Other
     * nets ignore it. Only read, during nn_eval. */
    const nn_kata_profile *profile;
    /* KataGo's playout doubling advantage of the side to move (0: none): the net is told that
     * the mover searches 2^pda times as many playouts as its opponent, which handicap play uses
     * (negative: the mover is the weaker side). Nets of inputs version 7 (KataGo model 8 on)
     * take it as global inputs 15 and 16; the others ignore it. */
    double pda;
    /* Tsumego discriminator nets (NN_FAMILY_DISC): the top-left corner of the window they judge,
     * the net's size square (0, 0 with a board of the net's size). Other nets ignore them. */
    int window_x, window_y;
} nn_query;

typedef struct nn_result {
    /* The board: width x height (size: the longer side, as go_board's). Moves are indexed
     * [y * width + x], pass = width * height. */
    int size, width, height;
    nn_family family;
    bool has_score;            /* KataGo nets (model version 4 on): the score fields are valid */
    bool has_ownership;        /* KataGo nets: white_ownership is valid */
    double white_win, white_loss, no_result;
    double white_lead;                 /* points; KataGo's whiteLead */
    double white_score_selfplay;       /* points; KataGo's whiteScoreSelfplay (score mean) */
    double white_score_selfplay_sq;    /* KataGo's whiteScoreSelfplaySq */
    double white_score_stdev;          /* sqrt(max(0, sq - mean^2)) */
    double var_time_left, shortterm_winloss_error, shortterm_score_error;  /* -1 when absent */
    /* Policy over moves then pass (index width * height). KataGo nets: KataGo's softmax over the
     * legal moves with NAN on illegal ones. Leela Zero nets: the raw softmax over all 362
     * outputs as `heatmap` prints it (occupied points included); callers that search must
     * keep only legal moves and renormalise. */
    float policy[NN_MAX_MOVES];
    float white_ownership[NN_MAX_POINTS];   /* [y * width + x], +1 white, -1 black; KataGo nets
                                               only */
    /* Tsumego discriminator nets: how much the window looks like a tsumego problem, 0..1 (the
     * sigmoid of the net's logit); their other fields are 0 (size: the window's). */
    double likeness;
} nn_result;

/* The backends this build has, in order of preference ("cuda" when built and a device works,
 * then "cpu", then "ref"); a NULL-terminated static array. */
const char *const *nn_backend_names(void);

/* Loads a weight file (any format weights/ reads) and prepares it for backend (NULL: the first
 * of nn_backend_names that this machine can run and that accepts it). backend may carry options
 * after a colon ("cuda:fp32"). A named backend this machine cannot run (no GPU) falls back to
 * the next one, saying so on stderr. Returns NULL with a message naming the file in err on
 * failure. The caller frees the model with nn_model_free. */
nn_model *nn_model_load(const char *path, const char *backend, char *err, int err_len);

/* Makes a model of a description already loaded. Takes ownership of d in every case (it is
 * freed on failure). Returns NULL with a message in err on failure. */
nn_model *nn_model_from_desc(nn_desc *d, const char *backend, char *err, int err_len);

/* Frees the model. Every context made from it must be freed first. NULL is fine. */
void nn_model_free(nn_model *m);

/* The description the model runs (owned by the model), its backend's name, its family. */
const nn_desc *nn_model_desc(const nn_model *m);
const char *nn_model_backend(const nn_model *m);
nn_family nn_model_family(const nn_model *m);

/* Scratch for evaluating up to max_batch positions at once. Returns NULL with a message in err
 * when out of memory. Free with nn_context_free. */
nn_context *nn_context_new(nn_model *m, int max_batch, char *err, int err_len);
void nn_context_free(nn_context *c);

/* Shares the CPU work of each nn_eval of c (input features before the forward pass, output
 * conversion after it) among `threads` threads: the caller's and threads - 1 helpers that c
 * keeps until it is freed or set again (1: none, the default). Worth it where one thread feeds
 * a fast backend big batches (a GPU at batch 64 and up); a batch smaller than twice the threads
 * runs on the caller's alone. Results do not depend on it. False with a message for threads
 * outside 1..64 or when a thread cannot be started (c then has none). */
bool nn_context_set_threads(nn_context *c, int threads, char *err, int err_len);

/* The profile for queries that give none (NULL: no default; the caller keeps p alive while the
 * context uses it). A net with a metadata encoder (KataGo's human-SL nets) needs a profile for
 * every query: as KataGo refuses to evaluate one without humanSLProfile, nn_eval refuses a
 * query that has none. */
void nn_context_set_profile(nn_context *c, const nn_kata_profile *p);

/* Evaluates n (1..max_batch) positions: out[i] gets the result of q[i]. Positions may differ in
 * board size and shape (one forward per tensor shape). Returns false with a message in err on a
 * bad query (board size the net cannot take, symmetry out of range, rules the inputs cannot
 * express, no profile for a net with a metadata encoder, a Leela Zero net off 19x19, a
 * discriminator net on a board that is not square) or when out of memory; out is then
 * unspecified. */
bool nn_eval(nn_context *c, int n, const nn_query *q, nn_result *out, char *err, int err_len);

/* Runs the backend's forward pass again on the inputs of the last forward of c (the last tensor
 * shape nn_eval met), leaving out the input features and the conversion of the outputs: what
 * `shido bench nn --forward-only` times. The raw outputs stay in c; nothing is returned. False
 * with a message before any nn_eval or when the backend fails. */
bool nn_forward_again(nn_context *c, char *err, int err_len);

/* Evaluates g (with the context's profile) under every symmetry set in sym_mask (bit s =
 * symmetry s; 0xff all eight) in one batch and averages the results (policy, values, scores,
 * ownership) into out, as KataGo does for several symmetries. Needs a context with max_batch >=
 * the number of bits set. */
bool nn_eval_average(nn_context *c, const go_game *g, unsigned sym_mask, double policy_optimism,
                     nn_result *out, char *err, int err_len);

/* ---- the evaluation service: many searches, one batching queue per device ----------------
 *
 * A service owns `contexts` contexts on one model (one device) and a queue. Any number of
 * threads submit small batches with nn_service_eval and wait; what is queued from every
 * submitter goes as one batch of up to max_batch positions (a request is never split),
 * evaluated on the thread of one of its submitters (the service has no threads: a lone search
 * pays no thread switch), up to `contexts` batches at once. A batch goes as soon as it is full,
 * or every active submitter is waiting (none can add more), or wait_us after a context was free
 * for it: many searches fill big batches (KataGo's NN server threads). Results are nn_eval's for
 * the same queries, up to the float rounding a backend's batch size may change (OpenBLAS's
 * blocking, the CUDA kernels' choices by batch): bit-identical only with the reference backend. */
typedef struct nn_service nn_service;

/* Makes a service on m (not owned; it must outlive the service) with `contexts` contexts
 * (1..64) of max_batch (1..4096) positions. NULL with a message in err on failure. */
nn_service *nn_service_new(nn_model *m, int max_batch, int contexts, int wait_us, char *err,
                           int err_len);
/* Frees the service; no request may be waiting. NULL is fine. */
void nn_service_free(nn_service *s);
nn_model *nn_service_model(const nn_service *s);
int nn_service_max_batch(const nn_service *s);

/* Evaluates n (1..max_batch) positions in some batch of the service, waiting for them: out[i]
 * gets q[i]'s result. Queries without a profile get none (there is no context default here).
 * Safe from any number of threads. False with nn_eval's message when the positions (not the
 * others of their batch) could not be evaluated. */
bool nn_service_eval(nn_service *s, int n, const nn_query *q, nn_result *out, char *err,
                     int err_len);

/* Counts delta (+k / -k) submitters that are about to submit again soon (a search's threads
 * while it runs): while some of them are not waiting, a partial batch waits for them up to
 * wait_us. Requests from uncounted threads go at once when nobody counted is busy. */
void nn_service_clients(nn_service *s, int delta);

typedef struct nn_service_stats {
    int64_t batches, positions;   /* forward passes made, positions evaluated */
    int64_t full_batches;         /* batches that went full */
} nn_service_stats;
void nn_service_get_stats(nn_service *s, nn_service_stats *st);

/* How many devices the backend named (options after ':' ignored) can use on this machine: the
 * CUDA devices for "cuda" (0 without one or in a build without CUDA), 1 for the CPU backends,
 * 0 for a name this build does not have. */
int nn_backend_devices(const char *backend);

#endif
