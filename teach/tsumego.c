/* tools/tsumego_net.c -- the tsumego solver guided by a network: policy prior, PUCT search for
 * the unproven, the solver again (see tsumego_net.h). */
#include "tools/tsumego_net.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "go/game.h"
#include "mcts/mcts.h"
#include "go/clock.h"

#define PHASE1_SHARE 0.45 /* of the time: the solver with the policy prior */
#define SEARCH_SHARE 0.25 /* the PUCT search, when phase 1 proved nothing */

struct tsumego_net {
    nn_context *ctx;
    mcts_search *search;
    go_tsumego_work *work; /* the solver's tables, kept from phase 1 to phase 3 */
    nn_result result;      /* scratch for the policy */
    bool stubborn;         /* a failure keeps the solver's most stubborn try */
    bool searched_answer;  /* the last solve's failure was answered with the search's move */
};

tsumego_net *tsumego_net_new(nn_model *model, char *err, int err_len)
{
    tsumego_net *t = calloc(1, sizeof *t);
    if (!t) {
        snprintf(err, (size_t)err_len, "out of memory");
        return NULL;
    }
    mcts_params mp = mcts_params_default();
    mp.num_threads = 1;
    mp.batch_size = 1;
    mp.seed = 1;
    mp.max_tree_mb = 256;
    t->ctx = nn_context_new(model, 8, err, err_len);
    t->search = t->ctx ? mcts_new(model, &mp, err, err_len) : NULL;
    t->work = t->search ? go_tsumego_work_new() : NULL;
    if (t->search && !t->work)
        snprintf(err, (size_t)err_len, "out of memory");
    if (!t->work) {
        tsumego_net_free(t);
        return NULL;
    }
    return t;
}

void tsumego_net_set_stubborn(tsumego_net *t, bool on) { t->stubborn = on; }

bool tsumego_net_failure_searched(const tsumego_net *t) { return t->searched_answer; }

void tsumego_net_free(tsumego_net *t)
{
    if (!t)
        return;
    go_tsumego_work_free(t->work);
    mcts_free(t->search);
    nn_context_free(t->ctx);
    free(t);
}

/* The komi (for white) that makes the problem decide the game. Outside the box each point of the
 * frame is its colour's (an empty one is an eye of the colour around it). Inside, the box points
 * off the region are the attacker's, and of the R region points a dead defender leaves it all,
 * while a living one holds its stones and eyes there, a part of them: the komi puts the balance
 * at a quarter of R for the defender, so that living wins the game and dying loses it by about
 * R / 2 points. Half a point is added for no draws. */
float tsumego_net_komi(const go_tsumego_problem *p)
{
    const go_board *f = &p->framed;
    int area[3] = {0, 0, 0}, box = 0;
    for (int y = 0; y < f->size; y++)
        for (int x = 0; x < f->size; x++) {
            int q = go_point_at(x, y), c = f->color[q];
            if (x >= p->x0 && x <= p->x1 && y >= p->y0 && y <= p->y1) {
                box += !p->region[q];
                continue;
            }
            for (int d = 0; d < 4 && c == GO_EMPTY; d++)
                if (f->color[q + go_dir4[d]] == GO_BLACK || f->color[q + go_dir4[d]] == GO_WHITE)
                    c = f->color[q + go_dir4[d]];
            if (c == GO_BLACK || c == GO_WHITE)
                area[c]++;
        }
    int r = p->region_points;
    float att = (float)area[p->attacker] + (float)box + 0.75f * (float)r;
    float def = (float)area[p->defender] + 0.25f * (float)r;
    float komi = p->defender == GO_WHITE ? att - def : def - att; /* white's area deficit */
    return floorf(komi) + 0.5f;
}

/* The framed board as a game with the side to play to move, its komi balancing the frame (see
 * tsumego_net_komi). */
static bool framed_game(const go_tsumego_problem *p, go_game *g, char *err, int err_len)
{
    int size = p->framed.size;
    if (!go_game_init(g, size, NULL, tsumego_net_komi(p))) {
        snprintf(err, (size_t)err_len, "out of memory");
        return false;
    }
    for (int y = 0; y < size; y++)
        for (int x = 0; x < size; x++) {
            int q = go_point_at(x, y);
            if (p->framed.color[q] != GO_EMPTY)
                go_game_setup_stone(g, q, p->framed.color[q]);
        }
    go_game_set_to_move(g, p->to_play);
    return true;
}

/* The policy of the side to play on the framed board, averaged over the eight symmetries, by
 * board point; 0 on occupied points. */
static bool policy_prior(tsumego_net *t, const go_game *g, float *prior, char *err, int err_len)
{
    if (!nn_eval_average(t->ctx, g, 0xff, 0.0, &t->result, err, err_len))
        return false;
    int size = g->board.size;
    for (int q = 0; q < GO_POINTS; q++)
        prior[q] = 0;
    for (int y = 0; y < size; y++)
        for (int x = 0; x < size; x++) {
            int q = go_point_at(x, y);
            float v = t->result.policy[y * size + x];
            prior[q] = g->board.color[q] == GO_EMPTY && v == v ? v : 0;
        }
    return true;
}

bool tsumego_net_search_decided(int64_t first, int64_t second, int64_t visits, double elapsed_s,
                                 double time_s)
{
    if (visits < 100 || !(elapsed_s > 0))
        return false;
    double left = (time_s - elapsed_s) * (double)visits / elapsed_s;
    return (double)(first - second) > left;
}

/* The search's progress callback, ctx the search's time (a double): false (stop) once
 * tsumego_net_search_decided. */
static bool search_goes_on(const mcts_analysis *a, void *ctx)
{
    int64_t first = 0, second = 0, total = 0;
    for (int i = 0; i < a->num_moves; i++) {
        int64_t v = a->moves[i].visits;
        total += v;
        if (v > first) {
            second = first;
            first = v;
        } else if (v > second) {
            second = v;
        }
    }
    return !tsumego_net_search_decided(first, second, total, a->elapsed_s, *(const double *)ctx);
}

/* Searches the framed board of p for time_s and puts the visit share of each of the region's
 * moves into visits (0 elsewhere; all 0 when nothing was visited). The first move is one of the
 * region's: the answer is one, and a search free to play elsewhere gave the region as little as
 * an eighth of its visits in some problems. Returns false on an error. */
static bool search_visits(tsumego_net *t, const go_game *g, const go_tsumego_problem *p,
                          double time_s, float *visits, char *err, int err_len)
{
    bool mask[GO_POINTS];
    for (int q = 0; q < GO_POINTS; q++)
        mask[q] = p->region[q] != 0;
    mcts_clear_tree(t->search);
    mcts_set_root_moves(t->search, mask);
    mcts_set_position(t->search, g);
    mcts_limits ml = {.max_visits = -1, .max_playouts = -1,
                      .max_time_ms = (int64_t)(time_s * 1000) > 1 ? (int64_t)(time_s * 1000) : 1,
                      .report_interval_cs = 5, .report = {.pv_len = 1}};
    bool ran = mcts_run(t->search, &ml, search_goes_on, &time_s, err, err_len);
    mcts_set_root_moves(t->search, NULL);
    if (!ran)
        return false;
    mcts_analysis a = {0};
    bool ok = mcts_analysis_get(t->search, NULL, &a);
    int64_t total = 0;
    for (int i = 0; ok && i < a.num_moves; i++)
        if (a.moves[i].move > 0 && p->region[a.moves[i].move])
            total += a.moves[i].visits;
    for (int q = 0; q < GO_POINTS; q++)
        visits[q] = 0;
    for (int i = 0; ok && total > 0 && i < a.num_moves; i++) {
        int q = a.moves[i].move;
        if (q > 0 && p->region[q])
            visits[q] = (float)a.moves[i].visits / (float)total;
    }
    mcts_analysis_free(&a);
    return true;
}

/* Phase 2: search_visits for the search's share of the time left in the solve. */
static bool phase2(tsumego_net *t, const go_game *g, const go_tsumego_problem *p, double left,
                   float *visits, char *err, int err_len)
{
    return search_visits(t, g, p, SEARCH_SHARE / (1 - PHASE1_SHARE) * left, visits, err, err_len);
}

/* The phases of tsumego_net_solve on g, the framed board of p. */
static bool solve_phases(tsumego_net *t, go_game *g, const go_tsumego_problem *p,
                         const go_tsumego_limits *lim, go_tsumego_solution *out, char *err,
                         int err_len)
{
    double start = go_now_s(), total = lim && lim->time_s > 0 ? lim->time_s : 10.0;
    go_tsumego_limits l = lim ? *lim : (go_tsumego_limits){0};
    float policy[GO_POINTS], visits[GO_POINTS], prior[GO_POINTS];
    if (!policy_prior(t, g, policy, err, err_len))
        return false;
    l.prior = policy;
    l.work = t->work;
    l.time_s = PHASE1_SHARE * total - (go_now_s() - start);
    l.time_s = l.time_s > 1e-3 ? l.time_s : 1e-3;
    if (!go_tsumego_solve(p, &l, out)) {
        snprintf(err, (size_t)err_len, "out of memory");
        return false;
    }
    uint64_t nodes = out->nodes;
    go_tsumego_result r = out->status.result;
    if (r == GO_TSUMEGO_FAILURE && !t->stubborn) {
        /* every first move fails in the framed problem, the other goal and the wide region
         * included: the frame or the region is wrong for this problem (one from a collection has
         * an answer), and the network's reading of the board is a better guess than the solver's
         * most stubborn try (its share of the time as when nothing is proven) */
        if (!phase2(t, g, p, total - (go_now_s() - start), visits, err, err_len)) {
            go_tsumego_solution_free(out);
            return false;
        }
        int best = GO_NO_POINT;
        for (int q = 0; q < GO_POINTS; q++)
            if (visits[q] > 0 && (best == GO_NO_POINT || visits[q] > visits[best]))
                best = q;
        if (best != GO_NO_POINT)
            out->best_move = best;
        t->searched_answer = best != GO_NO_POINT;
    }
    /* a ko gets the rest of the time: the solver then finds its tables filled and looks again
     * with the wide region, where a side may win outright (see go_tsumego_solve) */
    bool ko = r == GO_TSUMEGO_KO && !p->wide, settled_ko = ko && out->best_proven;
    if (r == GO_TSUMEGO_UNKNOWN || !out->best_proven || ko) {
        /* a status proven but its answer not chosen yet (a ko whose first moves were not all
         * compared in time) needs the solver's time, not a guess */
        bool known = r == GO_TSUMEGO_SUCCESS || r == GO_TSUMEGO_KO;
        if (!known && !phase2(t, g, p, total - (go_now_s() - start), visits, err, err_len)) {
            go_tsumego_solution_free(out);
            return false;
        }
        /* the visits, and the policy / 1000 to rank the moves the search did not visit */
        for (int q = 0; q < GO_POINTS; q++)
            prior[q] = known ? policy[q] : visits[q] + 1e-3f * policy[q];
        l.prior = prior;
        l.time_s = total - (go_now_s() - start);
        go_tsumego_solution again;
        if (l.time_s > 1e-3 && go_tsumego_solve(p, &l, &again)) {
            nodes += again.nodes;
            /* a settled ko gives way to an outright win only */
            bool keep = settled_ko && again.status.result != GO_TSUMEGO_SUCCESS;
            go_tsumego_solution_free(keep ? &again : out);
            if (!keep)
                *out = again;
        }
    }
    out->nodes = nodes;
    out->time_s = go_now_s() - start;
    return true;
}

bool tsumego_net_solve(tsumego_net *t, const go_tsumego_problem *p, const go_tsumego_limits *lim,
                       go_tsumego_solution *out, char *err, int err_len)
{
    go_game g;
    t->searched_answer = false;
    if (!framed_game(p, &g, err, err_len))
        return false;
    bool ok = solve_phases(t, &g, p, lim, out, err, err_len);
    go_game_free(&g);
    return ok;
}
