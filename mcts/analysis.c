/* mcts/analysis.c -- reading a search: the per-move analysis record and the move to play. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mcts/internal.h"

/* The node's averages from the view of `me`. */
typedef struct node_view {
    int64_t visits;
    double winrate, lcb, lead, score_mean, score_stdev, utility;
} node_view;

static node_view view_of(const mcts_node *n, go_color me)
{
    node_view v = {0};
    int visits = atomic_load_explicit(&((mcts_node *)n)->visits, memory_order_acquire);
    if (visits <= 0)
        return v;
    double sign = me == GO_WHITE ? 1.0 : -1.0, inv = 1.0 / visits;
    double wl = atomic_load(&((mcts_node *)n)->wl_sum) * inv;
    double wl_sq = atomic_load(&((mcts_node *)n)->wl_sq_sum) * inv;
    double smean = atomic_load(&((mcts_node *)n)->smean_sum) * inv;
    double ssq = atomic_load(&((mcts_node *)n)->ssq_sum) * inv;
    v.visits = visits;
    v.winrate = 0.5 * (1.0 + sign * wl);
    /* Winrate variance from the backed-up win/loss values, pulled towards the widest (0.25)
     * by one pseudo-visit so that few visits give a wide bound. */
    double var = fmax(0.0, wl_sq - wl * wl) / 4.0;
    var = (var * visits + 0.25) / (visits + 1.0);
    v.lcb = v.winrate - 1.96 * sqrt(var / visits);
    v.lead = sign * atomic_load(&((mcts_node *)n)->lead_sum) * inv;
    v.score_mean = sign * smean;
    v.score_stdev = sqrt(fmax(0.0, ssq - smean * smean));
    v.utility = sign * atomic_load(&((mcts_node *)n)->u_sum) * inv;
    return v;
}

/* Copies n's ownership average (white's view) into out; false when n has none. */
static bool ownership_of(mcts_node *n, float *out, int len)
{
    bool ok = false;
    while (atomic_flag_test_and_set_explicit(&n->lock, memory_order_acquire))
        ;
    if (n->own_sum && n->own_n > 0) {
        float inv = 1.0f / (float)n->own_n;
        for (int i = 0; i < len; i++)
            out[i] = n->own_sum[i] * inv;
        ok = true;
    }
    atomic_flag_clear_explicit(&n->lock, memory_order_release);
    return ok;
}

static mcts_node *most_visited_child(mcts_node *n, int *move)
{
    if (atomic_load_explicit(&n->state, memory_order_acquire) != MCTS_EXPANDED)
        return NULL;
    mcts_child *ch = atomic_load_explicit(&n->children, memory_order_acquire);
    mcts_node *best = NULL;
    int best_v = 0;
    for (int i = 0; ch && i < n->num_children; i++) {
        mcts_node *c = atomic_load_explicit(&ch[i].node, memory_order_acquire);
        int v = c ? atomic_load_explicit(&c->visits, memory_order_relaxed) : 0;
        if (v > best_v) {
            best_v = v;
            best = c;
            *move = ch[i].move;
        }
    }
    return best;
}

/* The root child the search plays without temperature: among the allowed moves with at least
 * lcb_visit_fraction of the most visited one's visits, the highest winrate lower confidence
 * bound (Leela Zero's rule: a move the search barely visited cannot win on a lucky average, and
 * a much visited move whose value collapsed does not win on visits alone); ties and
 * lcb_visit_fraction <= 0 fall back to visits. -1 when no allowed move has visits. */
static int play_choice(struct mcts_search *s)
{
    mcts_node *root = s->root;
    mcts_child *ch = atomic_load(&root->children);
    go_color me = s->root_game.board.to_move;
    int n = ch ? root->num_children : 0, most = -1;
    int64_t most_visits = 0;
    for (int i = 0; i < n; i++) {
        mcts_node *c = atomic_load(&ch[i].node);
        int64_t v = c ? atomic_load(&c->visits) : 0;
        if (s->root_allowed[i] && v > most_visits) {
            most_visits = v;
            most = i;
        }
    }
    if (most < 0 || s->p.lcb_visit_fraction <= 0)
        return most;
    int best = most;
    double best_lcb = view_of(atomic_load(&ch[most].node), me).lcb;
    for (int i = 0; i < n; i++) {
        mcts_node *c = atomic_load(&ch[i].node);
        if (!s->root_allowed[i] || !c)
            continue;
        node_view v = view_of(c, me);
        if ((double)v.visits >= s->p.lcb_visit_fraction * (double)most_visits && v.lcb > best_lcb) {
            best_lcb = v.lcb;
            best = i;
        }
    }
    return best;
}

typedef struct ranked {
    mcts_move_info info;
    bool allowed, chosen;
    mcts_node *node;
} ranked;

static int cmp_ranked(const void *a, const void *b)
{
    const ranked *x = a, *y = b;
    if (x->chosen != y->chosen)
        return x->chosen ? -1 : 1;
    if (x->allowed != y->allowed)
        return x->allowed ? -1 : 1;
    if (x->info.visits != y->info.visits)
        return x->info.visits > y->info.visits ? -1 : 1;
    return (x->info.lcb < y->info.lcb) - (x->info.lcb > y->info.lcb);
}

bool mcts_analysis_get(mcts_search *s, const mcts_analysis_opts *opts, mcts_analysis *out)
{
    mcts_analysis_opts none = {0};
    if (!opts)
        opts = &none;
    out->num_moves = 0;
    out->size = s->root_game.board.size;
    out->to_move = s->root_game.board.to_move;
    out->playouts = atomic_load(&s->playouts);
    out->elapsed_s = s->running ? mcts_now_s() - s->run_start_s : s->run_s;
    out->has_score = s->has_score;
    out->has_ownership = s->has_ownership;
    mcts_node *root = s->root;
    if (!root || atomic_load(&root->visits) == 0)
        return false;
    go_color me = out->to_move;
    node_view rv = view_of(root, me);
    out->root_visits = rv.visits;
    out->root_winrate = rv.winrate;
    out->root_white_winrate = me == GO_WHITE ? rv.winrate : 1.0 - rv.winrate;
    out->root_score_lead = rv.lead;
    out->root_score_mean = rv.score_mean;
    out->root_score_stdev = rv.score_stdev;
    out->root_utility = rv.utility;
    int area = out->size * out->size;
    if (opts->ownership && s->has_ownership) {
        if (!out->ownership)
            out->ownership = calloc(NN_MAX_POINTS, sizeof *out->ownership);
        if (out->ownership && !ownership_of(root, out->ownership, area))
            memset(out->ownership, 0, sizeof(float) * NN_MAX_POINTS);
    }
    if (!out->moves) {
        out->moves = calloc(NN_MAX_MOVES, sizeof *out->moves);
        if (!out->moves)
            return false;
        out->cap_moves = NN_MAX_MOVES;
    }
    if (opts->move_ownership && s->has_ownership && !out->move_ownership_store)
        out->move_ownership_store = malloc(sizeof(float) * NN_MAX_POINTS * NN_MAX_MOVES);
    mcts_child *ch = atomic_load_explicit(&root->children, memory_order_acquire);
    int n = ch ? root->num_children : 0;
    ranked *r = malloc(sizeof *r * (size_t)(n > 0 ? n : 1));
    if (!r)
        return false;
    int64_t min_visits = opts->min_visits > 0 ? opts->min_visits : 1;
    int pv_cap = opts->pv_len > 0 && opts->pv_len < MCTS_MAX_PV ? opts->pv_len : MCTS_MAX_PV;
    bool prepared = s->root_prior_set && s->root_prior;
    int k = 0, choice = prepared ? play_choice(s) : -1;
    for (int i = 0; i < n; i++) {
        mcts_node *c = atomic_load_explicit(&ch[i].node, memory_order_acquire);
        if (!c || atomic_load(&c->visits) < min_visits)
            continue;
        node_view v = view_of(c, me);
        mcts_move_info *m = &r[k].info;
        memset(m, 0, sizeof *m);
        m->move = ch[i].move;
        m->visits = v.visits;
        m->winrate = v.winrate;
        m->white_winrate = me == GO_WHITE ? v.winrate : 1.0 - v.winrate;
        m->lcb = v.lcb;
        m->prior = prepared ? s->root_prior[i] : ch[i].prior;
        m->score_lead = v.lead;
        m->score_mean = v.score_mean;
        m->score_stdev = v.score_stdev;
        m->utility = v.utility;
        r[k].allowed = !prepared || s->root_allowed[i];
        r[k].chosen = i == choice;
        r[k].node = c;
        k++;
    }
    qsort(r, (size_t)k, sizeof *r, cmp_ranked);
    if (opts->max_moves > 0 && k > opts->max_moves)
        k = opts->max_moves;
    for (int i = 0; i < k; i++) {
        mcts_move_info *m = &out->moves[i];
        *m = r[i].info;
        m->order = i;
        m->pv[0] = m->move;
        m->pv_visits[0] = m->visits;
        m->pv_len = 1;
        mcts_node *node = r[i].node;
        int move;
        while (m->pv_len < pv_cap && (node = most_visited_child(node, &move))) {
            m->pv[m->pv_len] = move;
            m->pv_visits[m->pv_len] = atomic_load(&node->visits);
            m->pv_len++;
        }
        m->ownership = NULL;
        if (opts->move_ownership && out->move_ownership_store) {
            float *own = out->move_ownership_store + (size_t)i * NN_MAX_POINTS;
            if (ownership_of(r[i].node, own, area))
                m->ownership = own;
        }
    }
    out->num_moves = k;
    free(r);
    return true;
}

void mcts_analysis_free(mcts_analysis *a)
{
    free(a->moves);
    free(a->ownership);
    free(a->move_ownership_store);
    memset(a, 0, sizeof *a);
}

int mcts_choose_move(mcts_search *s)
{
    if (!s->root_game.moves || s->root_game.consecutive_passes >= 2)
        return GO_PASS;
    char err[256];
    if (!s->root || atomic_load(&s->root->visits) == 0) {
        mcts_limits one = {.max_visits = -1, .max_playouts = 1, .max_time_ms = -1};
        if (!mcts_run(s, &one, NULL, NULL, err, sizeof err))
            return GO_PASS;
    } else if (!s->root_prior_set && !mcts_prepare_root(s, err, sizeof err)) {
        return GO_PASS;
    }
    mcts_node *root = s->root;
    mcts_child *ch = atomic_load(&root->children);
    int n = ch ? root->num_children : 0;
    if (n == 0)
        return GO_PASS;
    go_color me = s->root_game.board.to_move;
    int best = play_choice(s);
    if (best < 0) {
        /* nothing allowed was visited: the allowed move of highest prior */
        for (int i = 0; i < n; i++)
            if (s->root_allowed[i] && (best < 0 || s->root_prior[i] > s->root_prior[best]))
                best = i;
        return best < 0 ? GO_PASS : ch[best].move;
    }
    if (s->p.temperature > 0 && s->root_game.num_moves < s->p.temperature_moves) {
        /* visits^(1/T), scaled by the most visited move's to stay finite */
        double max_log = 0;
        for (int i = 0; i < n; i++) {
            mcts_node *c = atomic_load(&ch[i].node);
            if (s->root_allowed[i] && c && atomic_load(&c->visits) > 0)
                max_log = fmax(max_log, log((double)atomic_load(&c->visits)));
        }
        double total = 0;
        for (int i = 0; i < n; i++) {
            mcts_node *c = atomic_load(&ch[i].node);
            if (s->root_allowed[i] && c && atomic_load(&c->visits) > 0)
                total += exp((log((double)atomic_load(&c->visits)) - max_log) / s->p.temperature);
        }
        double x = mcts_rng_uniform(&s->rng) * total;
        for (int i = 0; i < n; i++) {
            mcts_node *c = atomic_load(&ch[i].node);
            if (!s->root_allowed[i] || !c || atomic_load(&c->visits) == 0)
                continue;
            x -= exp((log((double)atomic_load(&c->visits)) - max_log) / s->p.temperature);
            best = i;
            if (x <= 0)
                break;
        }
    }
    if (s->p.resign_threshold >= 0 && atomic_load(&root->visits) >= s->p.resign_min_visits) {
        node_view rv = view_of(root, me), bv = view_of(atomic_load(&ch[best].node), me);
        if (rv.winrate < s->p.resign_threshold && bv.winrate < s->p.resign_threshold)
            return MCTS_RESIGN;
    }
    return ch[best].move;
}
