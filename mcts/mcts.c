/* mcts/mcts.c -- a search's life: making and freeing, positions and tree reuse, the root's
 * preparation before a run (priors, noise, which moves may be played), and mcts_run's control
 * loop (limits, progress reports, stop). */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "go/hash.h"
#include "go/score.h"
#include "mcts/internal.h"

static void workers_free(struct mcts_search *s)
{
    for (int i = 0; i < s->num_workers; i++) {
        mcts_worker *w = &s->workers[i];
        nn_context_free(w->ctx);
        for (int b = 0; b < s->p.batch_size; b++) {
            if (w->games)
                go_game_free(&w->games[b]);
            if (w->paths)
                free(w->paths[b]);
        }
        free(w->games);
        free(w->paths);
        free(w->queries);
        free(w->results);
        free(w->path_len);
        free(w->keys);
    }
    free(s->workers);
    s->workers = NULL;
    s->num_workers = 0;
}

static bool workers_make(struct mcts_search *s, char *err, int err_len)
{
    int n = s->p.num_threads, batch = s->p.batch_size;
    s->workers = calloc((size_t)n, sizeof *s->workers);
    if (!s->workers)
        goto oom;
    s->num_workers = n;
    for (int i = 0; i < n; i++) {
        mcts_worker *w = &s->workers[i];
        w->s = s;
        if (!s->service) {   /* a service's clients evaluate on its contexts */
            w->ctx = nn_context_new(s->model, batch, err, err_len);
            if (w->ctx && !nn_context_set_threads(w->ctx, s->p.eval_threads, err, err_len)) {
                nn_context_free(w->ctx);
                w->ctx = NULL;
            }
            if (!w->ctx) {
                workers_free(s);
                return false;
            }
        }
        w->games = calloc((size_t)batch, sizeof *w->games);
        w->paths = calloc((size_t)batch, sizeof *w->paths);
        w->queries = calloc((size_t)batch, sizeof *w->queries);
        w->results = malloc(sizeof *w->results * (size_t)batch);
        w->path_len = calloc((size_t)batch, sizeof *w->path_len);
        w->keys = calloc((size_t)batch, sizeof *w->keys);
        if (!w->games || !w->paths || !w->queries || !w->results || !w->path_len || !w->keys)
            goto oom;
        for (int b = 0; b < batch; b++)
            if (!(w->paths[b] = malloc(sizeof(mcts_node *) * MCTS_MAX_PATH)))
                goto oom;
    }
    return true;
oom:
    workers_free(s);
    snprintf(err, (size_t)err_len, "%s: out of memory", __func__);
    return false;
}

/* Checks p (for a client of service, when not NULL); fills *profile (and *has_profile) from
 * its human_sl_profile. */
static bool params_check(const nn_service *service, const mcts_params *p,
                         nn_kata_profile *profile, bool *has_profile, char *err, int err_len)
{
    if (service && p->batch_size > nn_service_max_batch(service)) {
        snprintf(err, (size_t)err_len, "%s: batch_size %d is over the service's max batch %d",
                 __func__, p->batch_size, nn_service_max_batch(service));
        return false;
    }
    if (p->num_threads < 1 || p->batch_size < 1 || p->max_tree_mb <= 0 || p->nn_cache_size < 0) {
        snprintf(err, (size_t)err_len,
                 "%s: num_threads and batch_size must be >= 1, max_tree_mb > 0, nn_cache_size >= 0",
                 __func__);
        return false;
    }
    *has_profile = p->human_sl_profile[0] != '\0';
    if (!memchr(p->human_sl_profile, '\0', MCTS_PROFILE_LEN)) {
        snprintf(err, (size_t)err_len, "%s: human_sl_profile is not terminated", __func__);
        return false;
    }
    char why[200];
    if (*has_profile && !nn_kata_profile_parse(p->human_sl_profile, profile, why, sizeof why)) {
        snprintf(err, (size_t)err_len, "%s: human_sl_profile: %s", __func__, why);
        return false;
    }
    return true;
}

/* Gives every worker's context the search's profile (or none). */
static void profile_apply(struct mcts_search *s)
{
    for (int i = 0; i < s->num_workers; i++)
        if (s->workers[i].ctx)
            nn_context_set_profile(s->workers[i].ctx, s->has_profile ? &s->profile : NULL);
    s->profile_key = 0;
    if (s->has_profile)
        for (const char *c = s->p.human_sl_profile; *c; c++)
            s->profile_key = go_hash_mix64(s->profile_key ^ (uint64_t)(unsigned char)*c);
}

const nn_kata_profile *mcts_profile(const mcts_search *s)
{
    return s->has_profile ? &s->profile : NULL;
}

/* mcts_new and mcts_new_client: evaluations on own contexts (service NULL) or the service's,
 * the cache own (shared NULL) or shared. */
static mcts_search *search_new(nn_model *model, nn_service *service, mcts_cache *shared,
                               const mcts_params *p, char *err, int err_len)
{
    nn_kata_profile profile;
    bool has_profile;
    if (!params_check(service, p, &profile, &has_profile, err, err_len))
        return NULL;
    struct mcts_search *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(err, (size_t)err_len, "%s: out of memory", __func__);
        return NULL;
    }
    s->model = model;
    s->service = service;
    s->cache = shared ? shared : &s->own_cache;
    s->profile = profile;
    s->has_profile = has_profile;
    s->p = *p;
    if (s->p.seed == 0)
        s->p.seed = (uint64_t)time(NULL) * GO_HASH_GOLDEN ^ (uint64_t)(uintptr_t)s;
    s->rng = s->p.seed;
    s->has_ownership = s->has_score = nn_model_family(model) == NN_FAMILY_KATA;
    if (!mcts_cache_init(&s->own_cache, shared ? 0 : p->nn_cache_size)) {
        snprintf(err, (size_t)err_len, "%s: out of memory for %d cache entries", __func__,
                 p->nn_cache_size);
        free(s);
        return NULL;
    }
    if (!workers_make(s, err, err_len)) {
        mcts_cache_free(&s->own_cache);
        free(s);
        return NULL;
    }
    profile_apply(s);
    return s;
}

mcts_search *mcts_new(nn_model *model, const mcts_params *p, char *err, int err_len)
{
    return search_new(model, NULL, NULL, p, err, err_len);
}

mcts_search *mcts_new_client(nn_service *service, mcts_cache *cache, const mcts_params *p,
                             char *err, int err_len)
{
    return search_new(nn_service_model(service), service, cache, p, err, err_len);
}

mcts_cache *mcts_cache_new(int num_entries, char *err, int err_len)
{
    mcts_cache *c = calloc(1, sizeof *c);
    if (num_entries < 0 || !c || !mcts_cache_init(c, num_entries)) {
        snprintf(err, (size_t)err_len, "%s: %s: %d cache entries", __func__,
                 num_entries < 0 ? "a negative size" : "out of memory", num_entries);
        free(c);
        return NULL;
    }
    return c;
}

void mcts_cache_delete(mcts_cache *c)
{
    if (c)
        mcts_cache_free(c);
    free(c);
}

void mcts_clear_tree(mcts_search *s)
{
    mcts_node_free_tree(s, s->root);
    s->root = NULL;
    s->root_prior_set = false;
}

void mcts_set_root_moves(mcts_search *s, const bool *mask)
{
    s->has_root_mask = mask != NULL;
    if (mask)
        memcpy(s->root_mask, mask, sizeof s->root_mask);
}

void mcts_set_root_weights(mcts_search *s, const float *w)
{
    s->has_root_weight = w != NULL;
    if (w)
        for (int i = 0; i < GO_POINTS; i++)
            s->root_weight[i] = w[i] > 0 ? w[i] : 0;   /* NaN and negatives: 0 */
}

void mcts_free(mcts_search *s)
{
    if (!s)
        return;
    mcts_clear_tree(s);
    workers_free(s);
    mcts_cache_free(&s->own_cache);
    if (s->root_game.moves)
        go_game_free(&s->root_game);
    free(s->root_prior);
    free(s->root_policy);
    free(s->root_allowed);
    free(s);
}

bool mcts_set_params(mcts_search *s, const mcts_params *p, char *err, int err_len)
{
    nn_kata_profile profile;
    bool has_profile;
    if (!params_check(s->service, p, &profile, &has_profile, err, err_len))
        return false;
    mcts_params old = s->p;
    if (p->num_threads != old.num_threads || p->batch_size != old.batch_size) {
        /* the new threads' contexts first, so a failure leaves the old ones working */
        mcts_worker *old_workers = s->workers;
        int old_n = s->num_workers;
        s->p = *p;
        bool made = workers_make(s, err, err_len);
        mcts_worker *new_workers = s->workers;
        int new_n = s->num_workers;
        s->workers = old_workers;
        s->num_workers = old_n;
        s->p = old;
        if (!made)
            return false;
        workers_free(s);
        s->workers = new_workers;
        s->num_workers = new_n;
    } else if (p->eval_threads != old.eval_threads) {
        for (int i = 0; i < s->num_workers && !s->service; i++)
            if (!nn_context_set_threads(s->workers[i].ctx, p->eval_threads, err, err_len)) {
                /* a context left without helpers still evaluates: the old count is kept */
                for (int j = 0; j <= i; j++)
                    nn_context_set_threads(s->workers[j].ctx, old.eval_threads, err, err_len);
                return false;
            }
    }
    uint64_t seed = s->p.seed;
    s->p = *p;
    if (s->p.seed == 0)
        s->p.seed = seed;
    s->profile = profile;
    s->has_profile = has_profile;
    profile_apply(s);
    if (strcmp(p->human_sl_profile, old.human_sl_profile)) {
        /* the tree's and the cache's values came from another player's network */
        mcts_clear_tree(s);
        if (s->cache == &s->own_cache)   /* a shared one keys by profile */
            mcts_cache_clear(s->cache);
    } else if (p->playout_doubling_advantage != old.playout_doubling_advantage) {
        mcts_clear_tree(s);   /* its values were for another advantage (the cache keys say it) */
    }
    if (p->nn_cache_size != old.nn_cache_size && s->cache == &s->own_cache) {
        mcts_cache_free(s->cache);
        if (!mcts_cache_init(s->cache, p->nn_cache_size)) {
            s->p.nn_cache_size = 0;
            snprintf(err, (size_t)err_len, "%s: out of memory for the cache (now off)", __func__);
            return false;
        }
    }
    s->root_prior_set = false;
    return true;
}

const mcts_params *mcts_get_params(const mcts_search *s) { return &s->p; }

void mcts_clear_cache(mcts_search *s) { mcts_cache_clear(s->cache); }

/* Whether g is the root's game with zero or more moves added (same setup, rules, komi). */
static bool extends_root(const struct mcts_search *s, const go_game *g)
{
    const go_game *r = &s->root_game;
    if (!s->root || !r->moves || r->board.width != g->board.width ||
        r->board.height != g->board.height || r->komi != g->komi ||
        r->handicap != g->handicap || memcmp(&r->rules, &g->rules, sizeof r->rules) != 0 ||
        r->setup.hash != g->setup.hash || r->setup.to_move != g->setup.to_move ||
        g->num_moves < r->num_moves)
        return false;
    for (int i = 0; i < r->num_moves; i++)
        if (r->moves[i].point != g->moves[i].point || r->moves[i].color != g->moves[i].color)
            return false;
    return r->num_moves < g->num_moves || r->board.to_move == g->board.to_move;
}

bool mcts_set_position(mcts_search *s, const go_game *g)
{
    mcts_node *node = NULL;
    /* under a playout doubling advantage the tree's values are the root player's: a search for
     * the other colour needs its own */
    bool other_side = s->p.playout_doubling_advantage != 0 && s->root_game.board.size &&
                      s->root_game.board.to_move != g->board.to_move;
    if (!other_side && extends_root(s, g)) {
        node = s->root;
        mcts_node *parent = NULL;
        mcts_child *link = NULL;
        go_color to_move = s->root_game.board.to_move;
        for (int i = s->root_game.num_moves; i < g->num_moves && node; i++) {
            const go_move *m = &g->moves[i];
            mcts_child *ch = atomic_load(&node->children);
            mcts_node *next = NULL;
            if (m->color == to_move && ch && atomic_load(&node->state) == MCTS_EXPANDED)
                for (int c = 0; c < node->num_children; c++)
                    if (ch[c].move == m->point) {
                        next = atomic_load(&ch[c].node);
                        link = &ch[c];
                    }
            parent = node;
            node = next;
            to_move = go_opponent(m->color);
        }
        if (node && to_move != g->board.to_move)
            node = NULL;
        if (node && parent)
            atomic_store(&link->node, NULL);   /* detach the kept subtree from the old tree */
        if (!node || parent) {
            mcts_node_free_tree(s, s->root);
            s->root = node;
        }
    } else {
        mcts_clear_tree(s);
    }
    if (s->root_game.moves)
        go_game_free(&s->root_game);
    if (!go_game_copy(&s->root_game, g)) {
        memset(&s->root_game, 0, sizeof s->root_game);
        mcts_clear_tree(s);
        return false;
    }
    s->root_prior_set = false;
    return node != NULL;
}

/* ---------------------------------------------------------------- the root before a run */

double mcts_rng_uniform(uint64_t *state)
{
    return ((double)(go_splitmix64(state) >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

/* Gamma(alpha, 1) by Marsaglia and Tsang, with the alpha < 1 boost. */
static double gamma_sample(uint64_t *rng, double alpha)
{
    if (alpha < 1.0)
        return gamma_sample(rng, alpha + 1.0) * pow(mcts_rng_uniform(rng), 1.0 / alpha);
    double d = alpha - 1.0 / 3.0, c = 1.0 / sqrt(9.0 * d);
    for (;;) {
        double x, v;
        do {
            /* Box-Muller normal */
            double u1 = mcts_rng_uniform(rng), u2 = mcts_rng_uniform(rng);
            x = sqrt(-2.0 * log(u1)) * cos(2.0 * MCTS_PI * u2);
            v = 1.0 + c * x;
        } while (v <= 0);
        v = v * v * v;
        double u = mcts_rng_uniform(rng);
        if (log(u) < 0.5 * x * x + d - d * v + d * log(v))
            return d * v;
    }
}

/* Whether the side to move may pass at the root under the pass policy (see mcts.h).
 * raw: the network's evaluation of the root. */
static bool pass_is_safe(const struct mcts_search *s, const nn_result *raw)
{
    const go_game *g = &s->root_game;
    const go_board *b = &g->board;
    go_color me = b->to_move, opp = go_opponent(me);
    int w = b->width, h = b->height;
    if (s->p.pass_policy == MCTS_PASS_FREE)
        return true;
    if (s->p.pass_policy == MCTS_PASS_LAST)
        return false;
    if (g->rules.scoring != GO_SCORING_AREA)
        return true;
    /* Dead opponent stones inside our area: the net owns them to us. */
    if (raw->has_ownership) {
        double sign = me == GO_WHITE ? 1.0 : -1.0;
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++)
                if (b->color[go_point_at(x, y)] == opp &&
                    sign * raw->white_ownership[y * w + x] > 0.6)
                    return false;
    }
    /* A neutral point we can fill without putting our own chain in atari is a free point under
     * area scoring (seki liberties are the neutral points that fail this test). */
    uint8_t owner[GO_POINTS];
    int tt = go_score_area_tromp_taylor(b, owner);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            int p = go_point_at(x, y);
            if (b->color[p] != GO_EMPTY || owner[p] != GO_EMPTY || !mcts_legal(g, p, me))
                continue;
            go_board after = *b;
            go_board_play(&after, p, me);
            if (after.color[p] == me && go_board_libs(&after, p) >= 2)
                return false;
        }
    if (!raw->has_ownership) {
        /* Without ownership, require the board counted as it stands to agree with the net on
         * who wins: dead stones left standing usually flip that count. */
        double black = (double)tt - g->komi;
        bool tt_me_wins = me == GO_BLACK ? black > 0 : black < 0;
        double my_win = me == GO_WHITE ? raw->white_win : raw->white_loss;
        if (tt_me_wins != (my_win > 0.5))
            return false;
    }
    return true;
}

/* Root preparation: expand the root if needed, priors with root optimism and noise, the allowed
 * moves. Returns false with a message when the evaluation failed. */
bool mcts_prepare_root(struct mcts_search *s, char *err, int err_len)
{
    nn_result *raw = malloc(sizeof *raw);
    if (!raw) {
        snprintf(err, (size_t)err_len, "%s: out of memory", __func__);
        return false;
    }
    const go_game *g = &s->root_game;
    if (mcts_mirror_update(s))
        mcts_clear_tree(s);   /* values made with or without the anti-mirror logic (KataGo) */
    if (!mcts_eval_one(s, s->workers[0].ctx, g, s->p.root_policy_optimism, raw, err, err_len)) {
        free(raw);
        return false;
    }
    s->has_score = raw->has_score;
    s->has_ownership = raw->has_ownership;
    if (!s->root && !(s->root = mcts_node_new(s))) {
        free(raw);
        snprintf(err, (size_t)err_len, "%s: tree memory bound reached", __func__);
        return false;
    }
    mcts_node *root = s->root;
    int visits = atomic_load(&root->visits);
    double mean = visits > 0 ? atomic_load(&root->smean_sum) / visits : raw->white_score_selfplay;
    s->score_center = s->has_score ? mean * (1.0 - s->p.dynamic_score_center_zero_weight) : 0;
    if (atomic_load(&root->state) == MCTS_UNEXPANDED && g->consecutive_passes < 2) {
        if (!mcts_node_expand(s, root, g, raw->policy)) {
            free(raw);
            snprintf(err, (size_t)err_len, "%s: tree memory bound reached", __func__);
            return false;
        }
        atomic_store(&root->state, MCTS_EXPANDED);
        if (s->has_ownership)
            mcts_node_want_ownership(s, root);
        mcts_eval e;
        mcts_eval_from_result(s, raw, &e);
        mcts_mirror_adjust_eval(s, g, raw, &e);
        mcts_node_add(root, &e, raw->white_ownership, g->board.width * g->board.height);
        atomic_fetch_add(&s->playouts, 1);
    }
    int n = root->num_children;
    mcts_child *ch = atomic_load(&root->children);
    free(s->root_prior);
    free(s->root_allowed);
    free(s->root_policy);
    s->root_policy = NULL;
    s->root_prior = malloc(sizeof *s->root_prior * (size_t)(n > 0 ? n : 1));
    s->root_allowed = malloc(sizeof *s->root_allowed * (size_t)(n > 0 ? n : 1));
    if (!s->root_prior || !s->root_allowed) {
        free(raw);
        snprintf(err, (size_t)err_len, "%s: out of memory", __func__);
        return false;
    }
    int w = g->board.width;
    double sum = 0;
    for (int i = 0; i < n; i++) {
        int m = ch[i].move;
        float pr = m == GO_PASS ? raw->policy[w * g->board.height]
                                : raw->policy[go_point_y(m) * w + go_point_x(m)];
        s->root_prior[i] = pr >= 0 ? pr : 0;
        sum += s->root_prior[i];
    }
    for (int i = 0; i < n; i++)
        s->root_prior[i] = sum > 0 ? (float)(s->root_prior[i] / sum) : 1.0f / (float)n;
    /* KataGo's rootPolicyTemperature and wideRootNoise's flattening: P^(1/T), renormalised */
    double inv_t = 1.0 / (s->p.root_policy_temperature * (4.0 * s->p.wide_root_noise + 1.0));
    if (inv_t != 1.0 && n > 0) {
        sum = 0;
        for (int i = 0; i < n; i++)
            sum += s->root_prior[i] = (float)pow(s->root_prior[i], inv_t);
        for (int i = 0; i < n; i++)
            s->root_prior[i] = sum > 0 ? (float)(s->root_prior[i] / sum) : 1.0f / (float)n;
    }
    if (s->p.dirichlet_eps > 0 && n > 1) {
        double alpha = s->p.dirichlet_alpha * 361.0 / n, gsum = 0;
        float *noise = malloc(sizeof *noise * (size_t)n);
        if (noise) {
            for (int i = 0; i < n; i++)
                gsum += noise[i] = (float)gamma_sample(&s->rng, alpha);
            for (int i = 0; i < n; i++)
                s->root_prior[i] = (float)((1 - s->p.dirichlet_eps) * s->root_prior[i] +
                                           s->p.dirichlet_eps * (gsum > 0 ? noise[i] / gsum : 0));
            free(noise);
        }
    }
    if (s->has_root_weight && n > 0) {
        /* the weights, kept apart from the priors analyses report */
        if (!(s->root_policy = malloc(sizeof *s->root_policy * (size_t)n))) {
            free(raw);
            snprintf(err, (size_t)err_len, "%s: out of memory", __func__);
            return false;
        }
        memcpy(s->root_policy, s->root_prior, sizeof *s->root_policy * (size_t)n);
        sum = 0;
        for (int i = 0; i < n; i++) {
            int m = ch[i].move;
            if (m != GO_PASS)
                s->root_prior[i] *= s->root_weight[m];
            sum += s->root_prior[i];
        }
        for (int i = 0; i < n; i++)
            s->root_prior[i] = sum > 0 ? (float)(s->root_prior[i] / sum) : 1.0f / (float)n;
    }
    /* Allowed moves: never inside pass-alive area (either colour's) unless the move touches a
     * stone of the other colour there (capturing stones left in one's own pass-alive area
     * matters under area scoring), nor off the root mask; pass under the pass policy. */
    uint8_t area[GO_POINTS];
    go_benson_area(&g->board, g->rules.multi_stone_suicide, area);
    s->pass_allowed = pass_is_safe(s, raw);
    int allowed = 0, pass_index = -1;
    for (int i = 0; i < n; i++) {
        int m = ch[i].move;
        bool ok = true;
        if (m == GO_PASS) {
            pass_index = i;
            ok = s->pass_allowed;
        } else if (s->has_root_mask && !s->root_mask[m]) {
            ok = false;
        } else if (area[m] != GO_EMPTY) {
            ok = false;
            for (int d = 0; d < 4; d++) {
                int c = g->board.color[m + go_dir4[d]];
                if ((c == GO_BLACK || c == GO_WHITE) && c != area[m])
                    ok = true;
            }
        }
        s->root_allowed[i] = ok;
        allowed += ok;
    }
    if (allowed == 0 && pass_index >= 0) {
        s->root_allowed[pass_index] = true;   /* nothing else worth playing */
        s->pass_allowed = true;
    }
    /* Root and root children gather ownership for analysis. */
    if (s->has_ownership) {
        mcts_node_want_ownership(s, root);
        for (int i = 0; i < n; i++) {
            mcts_node *c = mcts_child_node(s, &ch[i]);
            if (c)
                mcts_node_want_ownership(s, c);
        }
    }
    s->root_prior_set = true;
    free(raw);
    return true;
}

/* ---------------------------------------------------------------- running */

static int64_t limit_of(int64_t from_limits, int64_t from_params)
{
    if (from_limits < 0)
        return 0;
    return from_limits > 0 ? from_limits : from_params;
}

void mcts_stop(mcts_search *s) { atomic_store(&s->stop, true); }

static bool limits_reached(struct mcts_search *s, int64_t max_time_ms, double t0)
{
    return atomic_load(&s->stop) || atomic_load(&s->out_of_memory) ||
           (max_time_ms > 0 && (go_now_s() - t0) * 1000.0 >= (double)max_time_ms);
}

bool mcts_run(mcts_search *s, const mcts_limits *lim, mcts_progress_fn cb, void *ctx, char *err,
              int err_len)
{
    mcts_limits none = {0};
    if (!lim)
        lim = &none;
    double t0 = go_now_s();
    s->run_start_s = t0;
    s->running = true;
    atomic_store(&s->stop, false);
    atomic_store(&s->workers_stop, false);
    atomic_store(&s->out_of_memory, false);
    atomic_store(&s->playouts, 0);
    atomic_store(&s->claimed, 0);
    s->nn_s = 0;
    if (!s->root_game.moves) {
        snprintf(err, (size_t)err_len, "%s: no position set", __func__);
        s->running = false;
        return false;
    }
    if (!mcts_prepare_root(s, err, err_len)) {
        s->running = false;
        return false;
    }
    int64_t max_visits = limit_of(lim->max_visits, s->p.max_visits);
    int64_t max_playouts = limit_of(lim->max_playouts, s->p.max_playouts);
    int64_t max_time_ms = limit_of(lim->max_time_ms, s->p.max_time_ms);
    s->budget = INT64_MAX;
    if (max_visits > 0)
        s->budget = max_visits - atomic_load(&s->root->visits);
    if (max_playouts > 0 && max_playouts - atomic_load(&s->playouts) < s->budget)
        s->budget = max_playouts - atomic_load(&s->playouts);
    bool game_over = s->root_game.consecutive_passes >= 2 || s->root->num_children == 0;
    bool ok = true;
    if (s->budget > 0 && !game_over && !limits_reached(s, max_time_ms, t0)) {
        int started = 0;
        atomic_store(&s->active, s->num_workers);
        for (int i = 0; i < s->num_workers; i++) {
            mcts_worker *w = &s->workers[i];
            w->failed = false;
            w->nn_s = 0;
            bool games_ok = true;
            for (int b = 0; b < s->p.batch_size; b++) {
                if (w->games[b].moves)
                    go_game_free(&w->games[b]);
                if (!go_game_copy(&w->games[b], &s->root_game)) {
                    memset(&w->games[b], 0, sizeof w->games[b]);
                    games_ok = false;
                }
            }
            if (s->service)   /* the service may wait for this thread's leaves */
                nn_service_clients(s->service, 1);
            if (!games_ok || pthread_create(&w->thread, NULL, mcts_worker_main, w) != 0) {
                if (s->service)
                    nn_service_clients(s->service, -1);
                atomic_fetch_sub(&s->active, s->num_workers - started);
                break;
            }
            started++;
        }
        if (started == 0) {
            snprintf(err, (size_t)err_len, "%s: could not start a search thread", __func__);
            s->running = false;
            return false;
        }
        double next_report = t0 + lim->report_interval_cs / 100.0;
        mcts_analysis report = {0};
        for (;;) {
            struct timespec ts = {0, 1000000};
            nanosleep(&ts, NULL);
            if (limits_reached(s, max_time_ms, t0))
                atomic_store(&s->workers_stop, true);
            if (atomic_load(&s->workers_stop))
                break;
            if (atomic_load(&s->active) == 0)
                break;
            if (cb && lim->report_interval_cs > 0 && go_now_s() >= next_report) {
                mcts_analysis_get(s, &lim->report, &report);
                if (!cb(&report, ctx))
                    atomic_store(&s->workers_stop, true);
                next_report += lim->report_interval_cs / 100.0;
            }
        }
        atomic_store(&s->workers_stop, true);
        for (int i = 0; i < started; i++) {
            pthread_join(s->workers[i].thread, NULL);
            s->nn_s += s->workers[i].nn_s;
            if (s->workers[i].failed && ok) {
                ok = false;
                snprintf(err, (size_t)err_len, "%s", s->workers[i].err);
            }
        }
        mcts_analysis_free(&report);
    }
    s->run_s = go_now_s() - t0;
    s->running = false;
    return ok;
}

void mcts_get_stats(const mcts_search *s, mcts_stats *st)
{
    struct mcts_search *m = (struct mcts_search *)s;
    st->playouts = atomic_load(&m->playouts);
    st->nn_evals = atomic_load(&m->nn_evals);
    st->nn_batches = atomic_load(&m->nn_batches);
    st->cache_hits = atomic_load(&m->cache_hits);
    st->collisions = atomic_load(&m->collisions);
    st->run_s = s->run_s;
    st->nn_s = s->nn_s;
    st->tree_nodes = atomic_load(&m->tree_nodes);
    st->tree_mb = (double)atomic_load(&m->tree_bytes) / 1048576.0;
}
