/* teach/player.c -- the player interface and the PUCT search player (player.h). */
#include "teach/player.h"

#include <stdio.h>
#include <stdlib.h>

#include "teach/timing.h"

bool teach_player_set_position(teach_player *p, const go_game *g, char *err, int err_len)
{
    return p->ops->set_position(p, g, err, err_len);
}

teach_move_status teach_player_genmove(teach_player *p, const mcts_limits *lim,
                                       mcts_progress_fn cb, void *ctx, int *move, char *err,
                                       int err_len)
{
    return p->ops->genmove(p, lim, cb, ctx, move, err, err_len);
}

bool teach_player_analyze(teach_player *p, const mcts_limits *lim, mcts_progress_fn cb, void *ctx,
                          char *err, int err_len)
{
    return p->ops->analyze(p, lim, cb, ctx, err, err_len);
}

bool teach_player_report(teach_player *p, const mcts_analysis_opts *opts, mcts_analysis *out)
{
    return p->ops->report(p, opts, out);
}

bool teach_player_lead_after(teach_player *p, const go_game *g, int m, int64_t visits,
                             double *lead, char *err, int err_len)
{
    go_game after;
    if (!go_game_copy(&after, g)) {
        snprintf(err, (size_t)err_len, "out of memory");
        return false;
    }
    mcts_limits lim = {.max_visits = visits};
    mcts_analysis a = {0};
    bool ok = go_game_play(&after, m, g->board.to_move) == GO_MOVE_OK;
    if (!ok)
        snprintf(err, (size_t)err_len, "the move to search after is illegal");
    ok = ok && teach_player_set_position(p, &after, err, err_len) &&
         teach_player_analyze(p, &lim, NULL, NULL, err, err_len);
    if (ok && !teach_player_report(p, NULL, &a)) {
        snprintf(err, (size_t)err_len, "no analysis of the search after the move");
        ok = false;
    }
    if (ok)
        *lead = -a.root_score_lead;
    mcts_analysis_free(&a);
    go_game_free(&after);
    return ok;
}

void teach_player_stop(teach_player *p) { p->ops->stop(p); }

void teach_player_free(teach_player *p)
{
    if (p)
        p->ops->free(p);
}

/* ---- the search player -------------------------------------------------------------------- */

typedef struct search_player {
    teach_player base;
    nn_model *model;
    mcts_search *search;
    nn_context *eval_ctx;  /* teach_search_player_eval's, made on first use */
    nn_result *eval_out;
    bool tree_filtered;    /* the tree was grown under avoid/allow lists */
    bool searched;         /* a run was made: there is a report */
} search_player;

static bool search_set_position(teach_player *p, const go_game *g, char *err, int err_len)
{
    mcts_set_position(((search_player *)p)->search, g);
    return true;
}

/* A run within lim; without limits, the move limits of the tunables. */
static bool search_run(search_player *s, const mcts_limits *lim, mcts_progress_fn cb, void *ctx,
                       char *err, int err_len)
{
    mcts_limits own;
    if (!lim) {
        own = teach_move_limits(mcts_get_params(s->search), 0);
        lim = &own;
    }
    s->searched = true;
    return mcts_run(s->search, lim, cb, ctx, err, err_len);
}

static teach_move_status search_genmove(teach_player *p, const mcts_limits *lim,
                                        mcts_progress_fn cb, void *ctx, int *move, char *err,
                                        int err_len)
{
    search_player *s = (search_player *)p;
    if (!search_run(s, lim, cb, ctx, err, err_len))
        return TEACH_MOVE_FAILED;
    *move = mcts_choose_move(s->search);
    return TEACH_MOVE_CHOSEN;
}

static bool search_analyze(teach_player *p, const mcts_limits *lim, mcts_progress_fn cb,
                           void *ctx, char *err, int err_len)
{
    return search_run((search_player *)p, lim, cb, ctx, err, err_len);
}

static bool search_report(teach_player *p, const mcts_analysis_opts *opts, mcts_analysis *out)
{
    search_player *s = (search_player *)p;
    return s->searched && mcts_analysis_get(s->search, opts, out);
}

static void search_stop(teach_player *p) { mcts_stop(((search_player *)p)->search); }

static void search_free(teach_player *p)
{
    search_player *s = (search_player *)p;
    nn_context_free(s->eval_ctx);
    free(s->eval_out);
    mcts_free(s->search);
    free(s);
}

static const teach_player_ops search_ops = {
    "search", search_set_position, search_genmove, search_analyze, search_report, search_stop,
    search_free,
};

/* A search player of e's network 0 on its own contexts (service NULL) or service's. */
static teach_player *search_player_make(teach_engine *e, nn_service *service, char *err,
                                        int err_len)
{
    nn_model *m = service ? nn_service_model(service) : teach_engine_model(e, 0);
    if (!m) {
        snprintf(err, (size_t)err_len, "no network loaded (start with --weights FILE)");
        return NULL;
    }
    search_player *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(err, (size_t)err_len, "out of memory");
        return NULL;
    }
    s->base.ops = &search_ops;
    s->model = m;
    s->search = service ? mcts_new_client(service, teach_engine_shared_cache(e),
                                          teach_engine_params(e), err, err_len)
                        : mcts_new(m, teach_engine_params(e), err, err_len);
    if (!s->search) {
        free(s);
        return NULL;
    }
    return &s->base;
}

teach_player *teach_search_player_new(teach_engine *e, char *err, int err_len)
{
    return search_player_make(e, NULL, err, err_len);
}

teach_player *teach_search_player_new_client(teach_engine *e, int i, char *err, int err_len)
{
    nn_service *service = teach_engine_service(e, i);
    if (!service) {
        snprintf(err, (size_t)err_len, "%s: no evaluation service started", __func__);
        return NULL;
    }
    return search_player_make(e, service, err, err_len);
}

bool teach_player_is_search(const teach_player *p) { return p && p->ops == &search_ops; }

bool teach_search_player_set_params(teach_player *p, const mcts_params *params, char *err,
                                    int err_len)
{
    search_player *s = (search_player *)p;
    if (!mcts_set_params(s->search, params, err, err_len))
        return false;
    bool filtered = params->num_avoid + params->num_allow > 0;
    if (filtered || s->tree_filtered)
        mcts_clear_tree(s->search);
    s->tree_filtered = filtered;
    return true;
}

void teach_search_player_set_root_weights(teach_player *p, const float *w)
{
    mcts_set_root_weights(((search_player *)p)->search, w);
}

void teach_search_player_new_search(teach_player *p)
{
    search_player *s = (search_player *)p;
    s->tree_filtered = false;
    mcts_clear_tree(s->search);
}

void teach_search_player_clear(teach_player *p)
{
    search_player *s = (search_player *)p;
    s->tree_filtered = false;
    s->searched = false;
    mcts_clear_tree(s->search);
    mcts_clear_cache(s->search);
}

bool teach_search_player_eval(teach_player *p, const go_game *g, nn_result *out, char *err,
                              int err_len)
{
    return teach_search_player_eval_syms(p, g, 0xff, out, err, err_len);
}

bool teach_search_player_eval_syms(teach_player *p, const go_game *g, unsigned sym_mask,
                                   nn_result *out, char *err, int err_len)
{
    search_player *s = (search_player *)p;
    if (!s->eval_ctx && !(s->eval_ctx = nn_context_new(s->model, 8, err, err_len)))
        return false;
    nn_context_set_profile(s->eval_ctx, mcts_profile(s->search));
    return nn_eval_average(s->eval_ctx, g, sym_mask, NN_DEFAULT_POLICY_OPTIMISM, out, err,
                           err_len);
}
