/* mcts/search.c -- the search threads: descent with PUCT and virtual loss, mini-batches of leaves
 * evaluated by one nn_eval call per thread, backup; and mcts_run's control loop.
 *
 * Batching: each thread descends up to batch_size times before evaluating. Every descent puts a
 * virtual loss on its path, so the next descent of the same batch (and those of other threads)
 * turns elsewhere. A leaf claimed by a descent is marked EXPANDING; a later descent reaching it
 * before its evaluation is backed up is a collision: its virtual loss is taken back and the
 * descent abandoned, which is how a leaf never appears twice in a batch. Leaves whose value
 * needs no network (cache hits, counted final positions) are backed up at once.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "go/score.h"
#include "go/hash.h"
#include "mcts/internal.h"

/* ---------------------------------------------------------------- values and utility */

/* KataGo's score value: 2/pi atan((score - centre) / (scale sqrt(area))), averaged over a normal
 * score distribution (mean, stdev) with a fixed 17-point rule on [-4, 4] stdevs. */
static double score_value(double mean, double stdev, double center, double scale, double sqrt_area)
{
    double k = 1.0 / (scale * sqrt_area);
    if (stdev < 1e-3)
        return atan((mean - center) * k) * (2.0 / MCTS_PI);
    double sum = 0, wsum = 0;
    for (int i = -8; i <= 8; i++) {
        double z = i * 0.5, w = exp(-0.5 * z * z);
        sum += w * atan((mean + z * stdev - center) * k);
        wsum += w;
    }
    return sum / wsum * (2.0 / MCTS_PI);
}

double mcts_score_utility(const struct mcts_search *s, double score_mean, double score_sq, int area)
{
    double stdev = sqrt(fmax(0.0, score_sq - score_mean * score_mean));
    double sqrt_area = sqrt((double)area);
    return s->p.static_score_utility_factor * score_value(score_mean, stdev, 0.0, 2.0, sqrt_area) +
           s->p.dynamic_score_utility_factor *
               score_value(score_mean, stdev, s->score_center, s->p.dynamic_score_center_scale,
                           sqrt_area);
}

void mcts_eval_from_result(const struct mcts_search *s, const nn_result *r, mcts_eval *e)
{
    e->wl = r->white_win - r->white_loss;
    e->nr = r->no_result;
    e->utility = s->p.win_loss_utility_factor * e->wl;
    e->lead = e->score_mean = e->score_sq = 0;
    if (r->has_score) {
        e->lead = r->white_lead;
        e->score_mean = r->white_score_selfplay;
        e->score_sq = r->white_score_selfplay_sq;
        e->utility += mcts_score_utility(s, e->score_mean, e->score_sq, r->width * r->height);
    }
}

/* The playout doubling advantage of g's side to move: the search's for the root player, its
 * negation for the opponent (KataGo's searchnnhelpers.cpp). */
static double node_pda(const struct mcts_search *s, const go_game *g)
{
    double pda = s->p.playout_doubling_advantage;
    return g->board.to_move == s->root_game.board.to_move ? pda : -pda;
}

/* The cache key of g evaluated under symmetry sym with a policy optimism and an advantage. */
static uint64_t eval_key(const struct mcts_search *s, const go_game *g, int sym, double optimism,
                         double pda)
{
    uint64_t key = mcts_position_key(g, sym) ^ (uint64_t)(optimism * 1e6) ^ s->profile_key;
    if (pda != 0)
        key ^= go_hash_mix64((uint64_t)(int64_t)(pda * 256.0) + GO_HASH_GOLDEN);
    return key;
}

bool mcts_nn_eval(struct mcts_search *s, nn_context *ctx, int n, nn_query *q, nn_result *out,
                  char *err, int err_len)
{
    if (!s->service)
        return nn_eval(ctx, n, q, out, err, err_len);
    for (int i = 0; i < n; i++)
        if (!q[i].profile)
            q[i].profile = mcts_profile(s);
    return nn_service_eval(s->service, n, q, out, err, err_len);
}

bool mcts_eval_one(struct mcts_search *s, nn_context *ctx, const go_game *g, double optimism,
                   nn_result *r, char *err, int err_len)
{
    int sym = mcts_position_symmetry(g, s->p.seed);
    double pda = node_pda(s, g);
    uint64_t key = eval_key(s, g, sym, optimism, pda);
    if (mcts_cache_lookup(s->cache, key, r)) {
        atomic_fetch_add(&s->cache_hits, 1);
        return true;
    }
    nn_query q = {.game = g, .symmetry = sym, .policy_optimism = optimism, .pda = pda};
    if (!mcts_nn_eval(s, ctx, 1, &q, r, err, err_len))
        return false;
    mcts_result_canonical(r);
    atomic_fetch_add(&s->nn_evals, 1);
    atomic_fetch_add(&s->nn_batches, 1);
    mcts_cache_store(s->cache, key, r);
    return true;
}

/* The value of a finished game: under area scoring the count of the board as it stands (every
 * stone alive, as after two passes under Tromp-Taylor), which is what makes passing with dead
 * stones inside one's area lose points in the search. own receives the owners (white's view). */
static void final_eval(const struct mcts_search *s, const go_game *g, mcts_eval *e, float *own)
{
    uint8_t owner[GO_POINTS];
    double black = go_score_final(g, NULL, owner);
    double white = -black;
    e->wl = white > 0 ? 1.0 : white < 0 ? -1.0 : 0.0;
    e->nr = 0;
    e->lead = e->score_mean = white;
    e->score_sq = white * white;
    e->utility = s->p.win_loss_utility_factor * e->wl;
    if (s->has_score)
        e->utility += mcts_score_utility(s, white, white * white, g->board.width * g->board.height);
    int w = g->board.width;
    for (int y = 0; y < g->board.height; y++)
        for (int x = 0; x < w; x++) {
            int o = owner[go_point_at(x, y)];
            own[y * w + x] = o == GO_WHITE ? 1.0f : o == GO_BLACK ? -1.0f : 0.0f;
        }
}

/* ---------------------------------------------------------------- selection */

bool mcts_move_filtered(const mcts_params *p, int move, go_color mover, int ply)
{
    int depth = ply / 2 + 1;   /* the mover's move number counted from the root */
    for (int i = 0; i < p->num_avoid; i++)
        if (p->avoid[i].point == move && p->avoid[i].color == mover &&
            depth <= p->avoid[i].until_depth)
            return true;
    bool any_allow = false;
    for (int i = 0; i < p->num_allow; i++)
        if (p->allow[i].color == mover && depth <= p->allow[i].until_depth) {
            any_allow = true;
            if (p->allow[i].point == move)
                return false;
        }
    return any_allow;
}

static uint64_t wide_mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

/* KataGo's wideRootNoise bonus for child i: with probability 1/2, w |N(0,1)| of utility, in the
 * winrate units of Q (half a utility). */
static double wide_root_bonus(double w, uint64_t draw, int i)
{
    uint64_t r = wide_mix(draw + (uint64_t)i);
    if (r & 1)
        return 0;
    double u1 = ((double)(r >> 11 & 0xfffffULL) + 1) / 1048577.0;
    double u2 = (double)(r >> 32) / 4294967296.0;
    double gauss = sqrt(-2 * log(u1)) * cos(2 * MCTS_PI * u2);
    return 0.5 * w * fabs(gauss);
}

/* The child to descend into: Q + c P sqrt(N) / (1 + n), with Q in winrate units (half the
 * utility) so c_puct means what it means in Leela Zero, c growing with the children's visits by
 * c_puct_log (KataGo's form), and virtual visits counted as losses. */
static int select_child(struct mcts_search *s, mcts_node *n, const go_game *g, int ply)
{
    const mcts_params *p = &s->p;
    mcts_child *ch = atomic_load_explicit(&n->children, memory_order_acquire);
    bool root = n == s->root;
    go_color mover = g->board.to_move;
    double sign = mover == GO_WHITE ? 1.0 : -1.0;
    int vl = p->virtual_loss;
    int pv = atomic_load_explicit(&n->visits, memory_order_acquire);
    double parent_q = pv > 0 ? sign * atomic_load_explicit(&n->u_sum, memory_order_relaxed) / pv : 0;
    double visited_prior = 0, child_visits = 0;
    for (int i = 0; i < n->num_children; i++) {
        mcts_node *c = atomic_load_explicit(&ch[i].node, memory_order_acquire);
        int cv = c ? atomic_load_explicit(&c->visits, memory_order_relaxed) : 0;
        child_visits += cv;
        if (cv > 0)
            visited_prior += root ? s->root_prior[i] : ch[i].prior;
    }
    mcts_mirror_node mn;
    bool mirror = s->mirror.pla != GO_EMPTY && mcts_mirror_node_begin(s, n, g, parent_q, &mn);
    double fpu = 0.5 * parent_q -
                 (root ? p->root_fpu_reduction : p->fpu_reduction) * sqrt(visited_prior);
    double sqrt_n = sqrt(fmax(1.0, (double)pv + (double)atomic_load(&n->vloss) * vl));
    double c_puct = p->c_puct;
    if (p->c_puct_log > 0)
        c_puct += p->c_puct_log * log((child_visits + p->c_puct_base) / p->c_puct_base);
    bool use_filters = p->num_avoid + p->num_allow > 0;
    /* wideRootNoise: one draw per root selection, split per child by hashing */
    uint64_t draw = root && p->wide_root_noise > 0
                        ? wide_mix(atomic_fetch_add(&s->root_draws, 1) ^ (p->seed + 0x9e37ULL))
                        : 0;
    int best = -1, fallback = -1;
    double best_v = -INFINITY, fallback_v = -INFINITY;
    for (int i = 0; i < n->num_children; i++) {
        if (root && !s->root_allowed[i])
            continue;
        double prior = root ? s->root_prior[i] : ch[i].prior;
        mcts_node *c = atomic_load_explicit(&ch[i].node, memory_order_acquire);
        int cv = c ? atomic_load_explicit(&c->visits, memory_order_acquire) : 0;
        int cvl = c ? atomic_load_explicit(&c->vloss, memory_order_relaxed) * vl : 0;
        double q = fpu;
        if (cv + cvl > 0)
            q = 0.5 * (sign * atomic_load_explicit(&c->u_sum, memory_order_relaxed) - cvl) /
                (cv + cvl);
        if (mirror) {
            /* KataGo's anti-mirror priors; its forced visits only on children already tried */
            int move = ch[i].move;
            prior = mcts_mirror_prior(s, &mn, g, move, prior);
            if (cv + cvl > 0)
                q += 0.5 * mcts_mirror_bonus(s, &mn, g, move, 2 * q, cv + cvl, child_visits);
        }
        double v = q + c_puct * prior * sqrt_n / (1.0 + cv + cvl);
        if (draw)
            v += wide_root_bonus(p->wide_root_noise, draw, i);
        if (use_filters && mcts_move_filtered(p, ch[i].move, mover, ply)) {
            if (v > fallback_v) {
                fallback_v = v;
                fallback = i;
            }
            continue;
        }
        if (v > best_v) {
            best_v = v;
            best = i;
        }
    }
    return best >= 0 ? best : fallback;
}

/* ---------------------------------------------------------------- descent and backup */

typedef enum { DESCENT_QUEUED, DESCENT_DONE, DESCENT_COLLISION, DESCENT_FAILED } descent_status;

static void unwind(mcts_worker *w, int slot, int root_moves)
{
    go_game *g = &w->games[slot];
    while (g->num_moves > root_moves)
        go_game_undo(g);
}

static void backup(mcts_worker *w, int slot, const mcts_eval *e, const float *own_white,
                   int own_len)
{
    mcts_node **path = w->paths[slot];
    for (int i = 0; i < w->path_len[slot]; i++) {
        mcts_node_add(path[i], e, i <= 1 ? own_white : NULL, own_len);
        atomic_fetch_sub_explicit(&path[i]->vloss, 1, memory_order_relaxed);
    }
    atomic_fetch_add(&w->s->playouts, 1);
}

static void abandon(mcts_worker *w, int slot)
{
    for (int i = 0; i < w->path_len[slot]; i++)
        atomic_fetch_sub_explicit(&w->paths[slot][i]->vloss, 1, memory_order_relaxed);
}

/* Publishes a leaf's expansion (or its final value) and backs it up. */
static bool finish_leaf(mcts_worker *w, int slot, const nn_result *r)
{
    struct mcts_search *s = w->s;
    mcts_node *leaf = w->paths[slot][w->path_len[slot] - 1];
    const go_game *g = &w->games[slot];
    mcts_eval e;
    mcts_eval_from_result(s, r, &e);
    mcts_mirror_adjust_eval(s, g, r, &e);
    bool ok = true;
    if (g->consecutive_passes >= 2) {
        /* Territory scoring's end cannot be counted without knowing the dead stones: the
         * network's judgement of the final position stands for every later visit. */
        mcts_eval *t = malloc(sizeof *t);
        if (t) {
            *t = e;
            atomic_fetch_add(&s->tree_bytes, (int64_t)sizeof *t);
        }
        leaf->terminal = t;
        ok = t != NULL;
    } else {
        ok = mcts_node_expand(s, leaf, g, r->policy);
    }
    /* A leaf that could not be expanded goes back to UNEXPANDED: its value still counts. */
    atomic_store_explicit(&leaf->state, ok ? MCTS_EXPANDED : MCTS_UNEXPANDED, memory_order_release);
    backup(w, slot, &e, r->has_ownership ? r->white_ownership : NULL, r->width * r->height);
    return ok;
}

static descent_status descend(mcts_worker *w, int slot, int root_moves)
{
    struct mcts_search *s = w->s;
    go_game *g = &w->games[slot];
    mcts_node **path = w->paths[slot];
    mcts_node *n = s->root;
    int len = 0, ply = 0;
    path[len++] = n;
    atomic_fetch_add_explicit(&n->vloss, 1, memory_order_relaxed);
    w->path_len[slot] = len;
    for (;;) {
        int st = atomic_load_explicit(&n->state, memory_order_acquire);
        if (st == MCTS_EXPANDED && n->terminal) {
            float own[NN_MAX_POINTS];
            int own_len = g->board.width * g->board.height;
            mcts_eval e = *n->terminal;
            /* the count's ownership is not stored (a node would carry 1.4 KB for it): count
             * again, which also refreshes the utility for this run's score centre */
            bool counted = g->rules.scoring == GO_SCORING_AREA;
            if (counted && s->has_ownership)
                final_eval(s, g, &e, own);
            backup(w, slot, &e, counted && s->has_ownership ? own : NULL, own_len);
            unwind(w, slot, root_moves);
            return DESCENT_DONE;
        }
        if (st == MCTS_UNEXPANDED) {
            int expected = MCTS_UNEXPANDED;
            if (!atomic_compare_exchange_strong(&n->state, &expected, MCTS_EXPANDING))
                st = expected;
        }
        if (st == MCTS_UNEXPANDED) {
            if (g->consecutive_passes >= 2 && g->rules.scoring == GO_SCORING_AREA) {
                float own[NN_MAX_POINTS];
                mcts_eval *t = malloc(sizeof *t);
                if (!t) {
                    atomic_store(&n->state, MCTS_UNEXPANDED);
                    abandon(w, slot);
                    unwind(w, slot, root_moves);
                    return DESCENT_FAILED;
                }
                atomic_fetch_add(&s->tree_bytes, (int64_t)sizeof *t);
                final_eval(s, g, t, own);
                n->terminal = t;
                atomic_store_explicit(&n->state, MCTS_EXPANDED, memory_order_release);
                backup(w, slot, t, s->has_ownership ? own : NULL,
                       g->board.width * g->board.height);
                unwind(w, slot, root_moves);
                return DESCENT_DONE;
            }
            double opt = n == s->root ? s->p.root_policy_optimism : s->p.policy_optimism;
            int sym = mcts_position_symmetry(g, s->p.seed);
            double pda = node_pda(s, g);
            uint64_t key = eval_key(s, g, sym, opt, pda);
            if (mcts_cache_lookup(s->cache, key, &w->results[slot])) {
                atomic_fetch_add(&s->cache_hits, 1);
                bool ok = finish_leaf(w, slot, &w->results[slot]);
                unwind(w, slot, root_moves);
                return ok ? DESCENT_DONE : DESCENT_FAILED;
            }
            w->keys[slot] = key;
            w->queries[slot] =
                (nn_query){.game = g, .symmetry = sym, .policy_optimism = opt, .pda = pda};
            return DESCENT_QUEUED;
        }
        if (st == MCTS_EXPANDING || len >= MCTS_MAX_PATH) {
            abandon(w, slot);
            unwind(w, slot, root_moves);
            atomic_fetch_add(&s->collisions, 1);
            return DESCENT_COLLISION;
        }
        int i = select_child(s, n, g, ply);
        mcts_child *ch = atomic_load_explicit(&n->children, memory_order_acquire);
        mcts_node *c = i >= 0 ? mcts_child_node(s, &ch[i]) : NULL;
        if (!c) {
            abandon(w, slot);
            unwind(w, slot, root_moves);
            return DESCENT_FAILED;
        }
        go_move_status ms = go_game_play(g, ch[i].move, g->board.to_move);
        if (ms != GO_MOVE_OK) {
            /* children are the legal moves of this very position: a broken invariant */
            fprintf(stderr, "%s: %s:%d: child move %d is illegal: %s\n", __func__, __FILE__,
                    __LINE__, ch[i].move, go_move_status_text(ms));
            abort();
        }
        atomic_fetch_add_explicit(&c->vloss, 1, memory_order_relaxed);
        path[len++] = c;
        w->path_len[slot] = len;
        n = c;
        ply++;
    }
}

/* Takes one playout from the run's budget; false when it is spent. */
static bool claim(struct mcts_search *s)
{
    if (atomic_fetch_add(&s->claimed, 1) < s->budget)
        return true;
    atomic_fetch_sub(&s->claimed, 1);
    return false;
}

void *mcts_worker_main(void *arg)
{
    mcts_worker *w = arg;
    struct mcts_search *s = w->s;
    int root_moves = s->root_game.num_moves;
    int batch = s->p.batch_size;
    while (!atomic_load_explicit(&s->workers_stop, memory_order_relaxed)) {
        /* Slot i of the batch is the i-th queued leaf; descents that needed no network reuse
         * their slot. */
        int nq = 0, misses = 0;
        bool spent = false;
        while (nq < batch && misses < batch) {
            if (atomic_load_explicit(&s->workers_stop, memory_order_relaxed))
                break;
            if (!claim(s)) {
                spent = true;
                break;
            }
            descent_status st = descend(w, nq, root_moves);
            if (st == DESCENT_QUEUED) {
                nq++;
                continue;
            }
            if (st != DESCENT_DONE)
                atomic_fetch_sub(&s->claimed, 1);
            if (st == DESCENT_FAILED) {
                atomic_store(&s->workers_stop, true);
                break;
            }
            misses++;
        }
        if (nq == 0) {
            if (spent)
                break;
            if (misses >= batch) {
                /* every leaf within reach is being evaluated by another thread */
                struct timespec ts = {0, 100000};
                nanosleep(&ts, NULL);
            }
            continue;
        }
        double t0 = go_now_s();
        bool ok = mcts_nn_eval(s, w->ctx, nq, w->queries, w->results, w->err, sizeof w->err);
        w->nn_s += go_now_s() - t0;
        atomic_fetch_add(&s->nn_evals, nq);
        atomic_fetch_add(&s->nn_batches, 1);
        for (int slot = 0; slot < nq; slot++) {
            if (!ok) {
                mcts_node *leaf = w->paths[slot][w->path_len[slot] - 1];
                atomic_store(&leaf->state, MCTS_UNEXPANDED);
                abandon(w, slot);
                atomic_fetch_sub(&s->claimed, 1);
            } else {
                mcts_result_canonical(&w->results[slot]);
                mcts_cache_store(s->cache, w->keys[slot], &w->results[slot]);
                if (!finish_leaf(w, slot, &w->results[slot]))
                    atomic_store(&s->workers_stop, true);
            }
            unwind(w, slot, root_moves);
        }
        if (!ok) {
            w->failed = true;
            atomic_store(&s->workers_stop, true);
        }
    }
    if (s->service)
        nn_service_clients(s->service, -1);   /* no more requests from this thread */
    atomic_fetch_sub(&s->active, 1);
    return NULL;
}
