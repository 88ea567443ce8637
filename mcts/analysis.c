/* mcts/analysis.c -- reading a search: the per-move analysis record and the move to play. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mcts/internal.h"

/* The node's averages from the view of `me`. */
typedef struct node_view {
    int64_t visits;
    double winrate, lcb, lead, score_mean, score_stdev, utility, utility_lcb, no_result;
} node_view;

/* Half the width of the utility's range: win/loss in [-1, 1] plus the two score terms. */
static double utility_range(const struct mcts_search *s)
{
    double r = s->p.win_loss_utility_factor;
    if (s->has_score)
        r += s->p.static_score_utility_factor + s->p.dynamic_score_utility_factor;
    return fmax(r, 1e-6);   /* every factor may be 0 */
}

/* The radius of the utility lower confidence bound of a node with `visits` backups of mean u
 * and mean square u_sq: lcb_stdevs standard errors. While there are few visits the sample
 * variance says little (one visit has none), so one pseudo-backup of weight 1 / visits^2 at the
 * widest variance the range allows is mixed in: it dominates at 1 or 2 visits and vanishes
 * after a few dozen. KataGo bounds its utility the same way. */
static double lcb_radius(const struct mcts_search *s, int64_t visits, double u, double u_sq)
{
    double n = (double)visits, w0 = 1.0 / (n * n), range = utility_range(s);
    double var = fmax(u_sq - u * u, 1e-8) + range * range * w0 / (n + w0);
    double ess = (n + w0) * (n + w0) / (n + w0 * w0);
    return s->p.lcb_stdevs * sqrt(var / ess);
}

/* The bound of a move with no visits: below anything a visited move can have. */
static double zero_visit_radius(const struct mcts_search *s)
{
    return 2.0 * utility_range(s) * fmax(s->p.lcb_stdevs, 1.0);
}

static node_view view_of(const struct mcts_search *s, const mcts_node *n, go_color me)
{
    node_view v = {0};
    int visits = atomic_load_explicit(&((mcts_node *)n)->visits, memory_order_acquire);
    if (visits <= 0)
        return v;
    double sign = me == GO_WHITE ? 1.0 : -1.0, inv = 1.0 / visits;
    double wl = atomic_load(&((mcts_node *)n)->wl_sum) * inv;
    double smean = atomic_load(&((mcts_node *)n)->smean_sum) * inv;
    double ssq = atomic_load(&((mcts_node *)n)->ssq_sum) * inv;
    double u = atomic_load(&((mcts_node *)n)->u_sum) * inv;
    double u_sq = atomic_load(&((mcts_node *)n)->u_sq_sum) * inv;
    v.visits = visits;
    v.winrate = 0.5 * (1.0 + sign * wl);
    v.no_result = atomic_load(&((mcts_node *)n)->nr_sum) * inv;
    v.lead = sign * atomic_load(&((mcts_node *)n)->lead_sum) * inv;
    v.score_mean = sign * smean;
    v.score_stdev = sqrt(fmax(0.0, ssq - smean * smean));
    v.utility = sign * u;
    double radius = lcb_radius(s, visits, u, u_sq);
    v.utility_lcb = v.utility - radius;
    /* the same radius in winrate units (win/loss is 1 / range of the utility, and winrate
     * half of win/loss): for nets without a score, exactly the utility bound as a winrate */
    v.lcb = v.winrate - 0.5 * radius / utility_range(s);
    return v;
}

/* Copies n's ownership average (white's view) into mean and its standard deviation per point
 * into stdev (either may be NULL); false when n has none. */
static bool ownership_of(mcts_node *n, float *mean, float *stdev, int len)
{
    bool ok = false;
    while (atomic_flag_test_and_set_explicit(&n->lock, memory_order_acquire))
        ;
    if (n->own_sum && n->own_n > 0) {
        double inv = 1.0 / (double)n->own_n;
        const float *sq = n->own_sum + n->own_area;
        for (int i = 0; i < len && i < n->own_area; i++) {
            double m = n->own_sum[i] * inv;
            if (mean)
                mean[i] = (float)m;
            if (stdev)
                stdev[i] = (float)sqrt(fmax(0.0, sq[i] * inv - m * m));
        }
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

/* The root child the search plays without temperature (see use_lcb_for_selection): the most
 * visited allowed move, unless another allowed move with at least lcb_visit_fraction of its
 * visits has a strictly better utility lower bound. -1 when no allowed move has visits. */
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
    if (most < 0 || !s->p.use_lcb_for_selection)
        return most;
    int best = most;
    double best_lcb = view_of(s, atomic_load(&ch[most].node), me).utility_lcb;
    for (int i = 0; i < n; i++) {
        mcts_node *c = atomic_load(&ch[i].node);
        if (!s->root_allowed[i] || !c)
            continue;
        node_view v = view_of(s, c, me);
        if (v.visits > 0 && (double)v.visits >= s->p.lcb_visit_fraction * (double)most_visits &&
            v.utility_lcb > best_lcb) {
            best_lcb = v.utility_lcb;
            best = i;
        }
    }
    return best;
}

typedef struct ranked {
    mcts_move_info info;
    bool allowed, chosen;
    mcts_node *node;         /* NULL: an unvisited move filled in for min_moves */
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
    if (x->info.lcb != y->info.lcb)
        return x->info.lcb > y->info.lcb ? -1 : 1;
    if (x->info.prior != y->info.prior)
        return x->info.prior > y->info.prior ? -1 : 1;
    return (x->info.move > y->info.move) - (x->info.move < y->info.move);
}

static int cmp_prior(const void *a, const void *b)
{
    const ranked *x = a, *y = b;
    if (x->info.prior != y->info.prior)
        return x->info.prior > y->info.prior ? -1 : 1;
    return (x->info.move > y->info.move) - (x->info.move < y->info.move);
}

/* The prior an analysis reports for root child i: the root's (after temperature and noise),
 * before any root weights (mcts_set_root_weights). */
static float reported_prior(const struct mcts_search *s, const mcts_child *ch, int i,
                            bool prepared)
{
    if (!prepared)
        return ch[i].prior;
    return s->root_policy ? s->root_policy[i] : s->root_prior[i];
}

/* Appends to r (at *k) the unvisited root moves the root may play, best prior first, until
 * there are min_moves; their values are the root's as KataGo reports them: utility is the
 * first-play urgency value and win/loss moves with it. */
static void fill_unvisited(struct mcts_search *s, const node_view *rv, int min_moves, ranked *r,
                           int *k)
{
    mcts_node *root = s->root;
    mcts_child *ch = atomic_load_explicit(&root->children, memory_order_acquire);
    go_color me = s->root_game.board.to_move;
    bool prepared = s->root_prior_set && s->root_prior;
    int n = ch ? root->num_children : 0, c = *k;
    double visited_prior = 0;
    for (int i = 0; i < n; i++) {
        mcts_node *node = atomic_load_explicit(&ch[i].node, memory_order_acquire);
        float prior = prepared ? s->root_prior[i] : ch[i].prior;
        if (node && atomic_load(&node->visits) > 0) {
            visited_prior += prior;
            continue;
        }
        if ((prepared && !s->root_allowed[i]) ||
            mcts_move_filtered(&s->p, ch[i].move, me, 0))
            continue;
        mcts_move_info *m = &r[c].info;
        memset(m, 0, sizeof *m);
        m->move = ch[i].move;
        m->prior = reported_prior(s, ch, i, prepared);
        r[c].allowed = true;
        r[c].chosen = false;
        r[c].node = NULL;
        c++;
    }
    qsort(r + *k, (size_t)(c - *k), sizeof *r, cmp_prior);
    if (c > min_moves)
        c = min_moves;
    double fpu = rv->utility - 2.0 * s->p.root_fpu_reduction * sqrt(visited_prior);
    double wl = fmin(1.0, fmax(-1.0, 2.0 * rv->winrate - 1.0 + fpu - rv->utility));
    double radius = zero_visit_radius(s);
    for (int i = *k; i < c; i++) {
        mcts_move_info *m = &r[i].info;
        m->winrate = 0.5 * (1.0 + wl);
        m->white_winrate = me == GO_WHITE ? m->winrate : 1.0 - m->winrate;
        m->utility = fpu;
        m->utility_lcb = fpu - radius;
        m->lcb = m->winrate - 0.5 * radius / utility_range(s);
        m->score_lead = rv->lead;
        m->score_mean = rv->score_mean;
        m->no_result = rv->no_result;
        m->score_stdev = rv->score_stdev;
    }
    *k = c;
}

/* Makes sure the analysis has its storage for opts. */
static bool analysis_storage(struct mcts_search *s, const mcts_analysis_opts *opts,
                             mcts_analysis *out)
{
    bool own = s->has_ownership;
    if (opts->ownership && own && !out->ownership)
        out->ownership = calloc(NN_MAX_POINTS, sizeof *out->ownership);
    if (opts->ownership_stdev && own && !out->ownership_stdev)
        out->ownership_stdev = calloc(NN_MAX_POINTS, sizeof *out->ownership_stdev);
    if (!out->moves) {
        out->moves = calloc(NN_MAX_MOVES, sizeof *out->moves);
        out->cap_moves = out->moves ? NN_MAX_MOVES : 0;
    }
    size_t grid = sizeof(float) * NN_MAX_POINTS * NN_MAX_MOVES;
    if (opts->move_ownership && own && !out->move_ownership_store)
        out->move_ownership_store = malloc(grid);
    if (opts->move_ownership_stdev && own && !out->move_ownership_stdev_store)
        out->move_ownership_stdev_store = malloc(grid);
    return out->moves != NULL;
}

bool mcts_analysis_get(mcts_search *s, const mcts_analysis_opts *opts, mcts_analysis *out)
{
    mcts_analysis_opts none = {0};
    if (!opts)
        opts = &none;
    out->num_moves = 0;
    out->size = s->root_game.board.size;
    out->width = s->root_game.board.width;
    out->height = s->root_game.board.height;
    out->to_move = s->root_game.board.to_move;
    out->playouts = atomic_load(&s->playouts);
    out->elapsed_s = s->running ? go_now_s() - s->run_start_s : s->run_s;
    out->has_score = s->has_score;
    out->has_ownership = s->has_ownership;
    mcts_node *root = s->root;
    if (!root || atomic_load(&root->visits) == 0)
        return false;
    go_color me = out->to_move;
    node_view rv = view_of(s, root, me);
    out->root_visits = rv.visits;
    out->root_winrate = rv.winrate;
    out->root_white_winrate = me == GO_WHITE ? rv.winrate : 1.0 - rv.winrate;
    out->root_score_lead = rv.lead;
    out->root_score_mean = rv.score_mean;
    out->root_no_result = rv.no_result;
    out->root_score_stdev = rv.score_stdev;
    out->root_utility = rv.utility;
    if (!analysis_storage(s, opts, out))
        return false;
    int area = out->width * out->height;
    float *own = opts->ownership ? out->ownership : NULL;
    float *own_sd = opts->ownership_stdev ? out->ownership_stdev : NULL;
    if ((own || own_sd) && !ownership_of(root, own, own_sd, area)) {
        if (own)
            memset(own, 0, sizeof(float) * NN_MAX_POINTS);
        if (own_sd)
            memset(own_sd, 0, sizeof(float) * NN_MAX_POINTS);
    }
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
        node_view v = view_of(s, c, me);
        mcts_move_info *m = &r[k].info;
        memset(m, 0, sizeof *m);
        m->move = ch[i].move;
        m->visits = v.visits;
        m->winrate = v.winrate;
        m->white_winrate = me == GO_WHITE ? v.winrate : 1.0 - v.winrate;
        m->lcb = v.lcb;
        m->utility_lcb = v.utility_lcb;
        m->prior = reported_prior(s, ch, i, prepared);
        m->score_lead = v.lead;
        m->score_mean = v.score_mean;
        m->no_result = v.no_result;
        m->score_stdev = v.score_stdev;
        m->utility = v.utility;
        r[k].allowed = !prepared || s->root_allowed[i];
        r[k].chosen = i == choice;
        r[k].node = c;
        k++;
    }
    if (opts->min_moves > k)
        fill_unvisited(s, &rv, opts->min_moves, r, &k);
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
        while (node && m->pv_len < pv_cap && (node = most_visited_child(node, &move))) {
            m->pv[m->pv_len] = move;
            m->pv_visits[m->pv_len] = atomic_load(&node->visits);
            m->pv_len++;
        }
        /* an unvisited move shows the root's ownership, as it shows the root's scores */
        mcts_node *from = r[i].node ? r[i].node : root;
        float *mo = NULL, *msd = NULL;
        if (opts->move_ownership && out->move_ownership_store)
            mo = out->move_ownership_store + (size_t)i * NN_MAX_POINTS;
        if (opts->move_ownership_stdev && out->move_ownership_stdev_store)
            msd = out->move_ownership_stdev_store + (size_t)i * NN_MAX_POINTS;
        bool has = (mo || msd) && ownership_of(from, mo, msd, area);
        m->ownership = has ? mo : NULL;
        m->ownership_stdev = has ? msd : NULL;
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
    free(a->ownership_stdev);
    free(a->move_ownership_stdev_store);
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
        node_view rv = view_of(s, root, me), bv = view_of(s, atomic_load(&ch[best].node), me);
        if (rv.winrate < s->p.resign_threshold && bv.winrate < s->p.resign_threshold)
            return MCTS_RESIGN;
    }
    return ch[best].move;
}
