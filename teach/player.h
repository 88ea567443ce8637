/* teach/player.h -- the player interface every front end drives (GTP, JSON analysis), and its
 * implementation by the PUCT search (mcts/) on an engine's first network.
 *
 * A player is given a position (a copy is taken) and then asked for a move for the side to move
 * there, or to analyse it; a finished run leaves a report (mcts_analysis) behind. Progress
 * callbacks run on the caller's thread, as mcts_run's. The tsumego solver is a player too
 * (teach/tsumego.h): it answers corner and side problems itself and hands every other position
 * to the player behind it. One player is used from one thread at a time, except
 * teach_player_stop, which any thread may call.
 */
#ifndef SHIDO_TEACH_PLAYER_H
#define SHIDO_TEACH_PLAYER_H

#include <stdbool.h>

#include "go/game.h"
#include "mcts/mcts.h"
#include "nn/nn.h"
#include "teach/engine.h"

/* What genmove did. */
typedef enum {
    TEACH_MOVE_FAILED = 0,     /* an error (the reason in err) */
    TEACH_MOVE_CHOSEN = 1,     /* *move holds a point, GO_PASS or MCTS_RESIGN (not played) */
    TEACH_MOVE_DECLINED = -1,  /* not a position this player answers: ask another one */
} teach_move_status;

typedef struct teach_player teach_player;

typedef struct teach_player_ops {
    const char *name;
    /* the position to play from or analyse (the game is copied) */
    bool (*set_position)(teach_player *p, const go_game *g, char *err, int err_len);
    teach_move_status (*genmove)(teach_player *p, const mcts_limits *lim, mcts_progress_fn cb,
                                 void *ctx, int *move, char *err, int err_len);
    bool (*analyze)(teach_player *p, const mcts_limits *lim, mcts_progress_fn cb, void *ctx,
                    char *err, int err_len);
    bool (*report)(teach_player *p, const mcts_analysis_opts *opts, mcts_analysis *out);
    void (*stop)(teach_player *p);
    void (*free)(teach_player *p);
} teach_player_ops;

/* Every player starts with this. */
struct teach_player {
    const teach_player_ops *ops;
};

/* Sets the position. False with a reason in err (out of memory). */
bool teach_player_set_position(teach_player *p, const go_game *g, char *err, int err_len);

/* Chooses a move for the side to move of the position set, within lim (NULL: the player's own
 * limits), calling cb every lim->report_interval_cs while it thinks (a false return stops the
 * thinking; the move is then chosen from what was done). */
teach_move_status teach_player_genmove(teach_player *p, const mcts_limits *lim,
                                       mcts_progress_fn cb, void *ctx, int *move, char *err,
                                       int err_len);

/* Analyses the position set within lim, as genmove thinks, choosing nothing. False with the
 * reason in err. */
bool teach_player_analyze(teach_player *p, const mcts_limits *lim, mcts_progress_fn cb, void *ctx,
                          char *err, int err_len);

/* The report of the last genmove or analysis (out as mcts_analysis_get: zeroed or from an earlier
 * call; free with mcts_analysis_free). False when there is none (nothing searched, or the last
 * move came from a player with nothing to show). */
bool teach_player_report(teach_player *p, const mcts_analysis_opts *opts, mcts_analysis *out);

/* The score lead of g's side to move after it plays m, by p's search of the position after m
 * with `visits` visits (the tree rooted there). False with the reason in err (m illegal, no
 * analysis). */
bool teach_player_lead_after(teach_player *p, const go_game *g, int m, int64_t visits,
                             double *lead, char *err, int err_len);

/* Asks a running genmove or analysis to end soon; any thread. */
void teach_player_stop(teach_player *p);

/* Frees the player. NULL is fine. */
void teach_player_free(teach_player *p);

/* ---- the PUCT search ---------------------------------------------------------------------- */

/* A search player on e's first network with e's tunables (the engine must outlive it). NULL with
 * the reason in err when e has no network or the search cannot start. */
teach_player *teach_search_player_new(teach_engine *e, char *err, int err_len);

/* The same as a client of e's evaluation service i (modulo their number; started with
 * teach_engine_start_services), sharing batches with the other clients and e's shared network
 * cache; used from one thread at a time, but any number of them at once. NULL with a reason in
 * err (no service started, batch_size over the service's max batch, ...). */
teach_player *teach_search_player_new_client(teach_engine *e, int i, char *err, int err_len);

/* Replaces the tunables of later searches (the avoid/allow lists included). The tree is kept,
 * except when p or the tunables before it carry avoid/allow lists: visits given to moves now
 * avoided would still show. False with a reason in err (the old tunables stay). */
bool teach_search_player_set_params(teach_player *p, const mcts_params *params, char *err,
                                    int err_len);

/* Weights the root's priors of p's later searches (mcts_set_root_weights; NULL lifts them). */
void teach_search_player_set_root_weights(teach_player *p, const float *w);

/* Drops the tree, keeping the cached network results: the next run searches afresh under the
 * tunables in force (each JSON analysis query is answered by a search of its own settings). */
void teach_search_player_new_search(teach_player *p);

/* Drops the tree and every cached network result (GTP's clear_cache). */
void teach_search_player_clear(teach_player *p);

/* The network's own view of g for its side to move, averaged over the eight symmetries, under
 * the human-SL profile of the player's tunables: what an analysis reports as the raw policy and
 * what dead stones are judged by. False with a reason in err. */
bool teach_search_player_eval(teach_player *p, const go_game *g, nn_result *out, char *err,
                              int err_len);

/* The same under the symmetries of sym_mask only (bit s = symmetry s; 1: the position as it
 * stands, one evaluation, as KataGo's raw values are). */
bool teach_search_player_eval_syms(teach_player *p, const go_game *g, unsigned sym_mask,
                                   nn_result *out, char *err, int err_len);

/* Whether p is a search player. */
bool teach_player_is_search(const teach_player *p);

#endif
