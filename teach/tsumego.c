/* teach/tsumego.c -- problem set-up, the solver guided by a network (policy prior, PUCT search
 * for the unproven, the solver again) and the solver as a player (see tsumego.h). */
#include "teach/tsumego.h"

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
#define GUESS_SHARE 0.45  /* the search on a guess network instead: a slow network needs the
                             time for visits (its raw policy guesses no better than the guide) */

struct teach_tsumego {
    nn_context *ctx;       /* NULL without a network */
    mcts_search *search;
    mcts_search *guess;    /* on the guess network (teach_tsumego_set_guess_model); NULL: none */
    mcts_params params;    /* the searches' tunables */
    go_tsumego_work *work; /* the solver's tables, kept from phase 1 to phase 3 */
    nn_result result;      /* scratch for the policy */
    bool stubborn;         /* a failure keeps the solver's most stubborn try */
    bool searched_answer;  /* the last solve's failure was answered with the search's move */
    double max_s;          /* every solve's cap (0: none) */
    uint64_t max_nodes;    /* every solve phase's cap in positions (0: none) */
    int threads;           /* the solver's threads in every solve (0: the solve's own) */
};

teach_tsumego *teach_tsumego_new(nn_model *model, const mcts_params *params, char *err,
                                 int err_len)
{
    teach_tsumego *t = calloc(1, sizeof *t);
    if (!t) {
        snprintf(err, (size_t)err_len, "out of memory");
        return NULL;
    }
    if (!model)
        return t;
    t->params = params ? *params : mcts_params_default();
    t->params.num_threads = 1;
    t->params.batch_size = 1;
    t->params.seed = 1;
    t->params.max_tree_mb = 256;
    t->ctx = nn_context_new(model, 8, err, err_len);
    t->search = t->ctx ? mcts_new(model, &t->params, err, err_len) : NULL;
    t->work = t->search ? go_tsumego_work_new() : NULL;
    if (t->search && !t->work)
        snprintf(err, (size_t)err_len, "out of memory");
    if (!t->work) {
        teach_tsumego_free(t);
        return NULL;
    }
    return t;
}

bool teach_tsumego_guided(const teach_tsumego *t) { return t->ctx != NULL; }

bool teach_tsumego_set_guess_model(teach_tsumego *t, nn_model *model, char *err, int err_len)
{
    if (!t->ctx) {
        snprintf(err, (size_t)err_len, "a guess network needs a network to guide the solver");
        return false;
    }
    mcts_search *s = model ? mcts_new(model, &t->params, err, err_len) : NULL;
    if (model && !s)
        return false;
    mcts_free(t->guess);
    t->guess = s;
    return true;
}

int teach_tsumego_guess_engine_new(const teach_options *o, const char *path, teach_engine **out,
                                   char *err, int err_len)
{
    *out = NULL;
    if (!path)
        return 0;
    if (o->num_weights == 0) {
        snprintf(err, (size_t)err_len, "--guess-weights needs -w NET, the network that orders the "
                                       "solver's first moves");
        return 2;
    }
    teach_options go;
    teach_options_init(&go);
    snprintf(go.backend, sizeof go.backend, "%s", o->backend);
    go.params = o->params;
    go.num_weights = 1;
    go.weights[0] = path;
    char why[512];
    *out = teach_engine_new(&go, why, sizeof why);
    if (!*out)
        snprintf(err, (size_t)err_len, "--guess-weights: %s", why);
    return *out ? 0 : 1;
}

const char *teach_tsumego_guess_help(void)
{
    return "  --guess-weights NET  a stronger, slower network (b10c384 or larger) for the search "
           "for the guess, with -w's network ordering the solver's moves: the search then gets "
           "45% of the time\n";
}

void teach_tsumego_set_max_time(teach_tsumego *t, double max_s) { t->max_s = max_s; }

void teach_tsumego_set_max_nodes(teach_tsumego *t, uint64_t n) { t->max_nodes = n; }

void teach_tsumego_set_stubborn(teach_tsumego *t, bool on) { t->stubborn = on; }

void teach_tsumego_set_threads(teach_tsumego *t, int n) { t->threads = n > 0 ? n : 0; }

bool teach_tsumego_failure_searched(const teach_tsumego *t) { return t->searched_answer; }

void teach_tsumego_free(teach_tsumego *t)
{
    if (!t)
        return;
    go_tsumego_work_free(t->work);
    mcts_free(t->search);
    mcts_free(t->guess);
    nn_context_free(t->ctx);
    free(t);
}

/* The komi (for white) that makes the problem decide the game. Outside the box each point of the
 * frame is its colour's (an empty one is an eye of the colour around it). Inside, the box points
 * off the region are the attacker's, and of the R region points a dead defender leaves it all,
 * while a living one holds its stones and eyes there, a part of them: the komi puts the balance
 * at a quarter of R for the defender, so that living wins the game and dying loses it by about
 * R / 2 points. Half a point is added for no draws. */
float teach_tsumego_komi(const go_tsumego_problem *p)
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
 * teach_tsumego_komi). */
static bool framed_game(const go_tsumego_problem *p, go_game *g, char *err, int err_len)
{
    int size = p->framed.size;
    if (!go_game_init(g, size, NULL, teach_tsumego_komi(p))) {
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
static bool policy_prior(teach_tsumego *t, const go_game *g, float *prior, char *err, int err_len)
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

bool teach_tsumego_search_decided(int64_t first, int64_t second, int64_t visits, double elapsed_s,
                                   double time_s)
{
    if (visits < 100 || !(elapsed_s > 0))
        return false;
    double left = (time_s - elapsed_s) * (double)visits / elapsed_s;
    return (double)(first - second) > left;
}

/* The search's progress callback, ctx the search's time (a double): false (stop) once
 * teach_tsumego_search_decided. */
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
    return !teach_tsumego_search_decided(first, second, total, a->elapsed_s, *(const double *)ctx);
}

/* Searches the framed board of p for time_s (on the guess network when there is one) and puts
 * the visit share of each of the region's moves into visits (0 elsewhere; all 0 when nothing was
 * visited). The first move is one of the region's: the answer is one, and a search free to play
 * elsewhere gave the region as little as an eighth of its visits in some problems. Returns false
 * on an error. */
static bool search_visits(teach_tsumego *t, const go_game *g, const go_tsumego_problem *p,
                          double time_s, float *visits, char *err, int err_len)
{
    mcts_search *search = t->guess ? t->guess : t->search;
    bool mask[GO_POINTS];
    for (int q = 0; q < GO_POINTS; q++)
        mask[q] = p->region[q] != 0;
    mcts_clear_tree(search);
    mcts_set_root_moves(search, mask);
    mcts_set_position(search, g);
    /* a visit cap in the tunables: the search runs to it (or its time), with no early stop,
     * which would depend on the machine's speed */
    bool capped = t->params.max_visits > 0;
    mcts_limits ml = {.max_visits = capped ? 0 : -1, .max_playouts = -1,
                      .max_time_ms = (int64_t)(time_s * 1000) > 1 ? (int64_t)(time_s * 1000) : 1,
                      .report_interval_cs = capped ? 0 : 5, .report = {.pv_len = 1}};
    bool ran = mcts_run(search, &ml, capped ? NULL : search_goes_on, &time_s, err, err_len);
    mcts_set_root_moves(search, NULL);
    if (!ran)
        return false;
    mcts_analysis a = {0};
    bool ok = mcts_analysis_get(search, NULL, &a);
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

/* Phase 2: search_visits for the search's share of the time left in the solve (left of total),
 * on a guess network its share of the whole time, as far as the time left allows. */
static bool phase2(teach_tsumego *t, const go_game *g, const go_tsumego_problem *p, double total,
                   double left, float *visits, char *err, int err_len)
{
    double s = SEARCH_SHARE / (1 - PHASE1_SHARE) * left;
    if (t->guess)
        s = GUESS_SHARE * total < left ? GUESS_SHARE * total : left;
    return search_visits(t, g, p, s, visits, err, err_len);
}

/* The phases of teach_tsumego_solve on g, the framed board of p. */
static bool solve_phases(teach_tsumego *t, go_game *g, const go_tsumego_problem *p,
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
        if (!phase2(t, g, p, total, total - (go_now_s() - start), visits, err, err_len)) {
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
        if (!known && !phase2(t, g, p, total, total - (go_now_s() - start), visits, err, err_len)) {
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

bool teach_tsumego_solve(teach_tsumego *t, const go_tsumego_problem *p,
                         const go_tsumego_limits *lim, go_tsumego_solution *out, char *err,
                         int err_len)
{
    go_tsumego_limits capped = lim ? *lim : (go_tsumego_limits){0};
    if (t->max_s > 0 && (capped.time_s <= 0 || capped.time_s > t->max_s)) {
        /* the table shrinks with the time: a short solve need not clear a large one */
        int k = teach_tsumego_table_log2(t->max_s);
        capped.time_s = t->max_s;
        if (capped.tt_log2 <= 0 || capped.tt_log2 > k)
            capped.tt_log2 = k;
    }
    if (t->threads > capped.threads)
        capped.threads = t->threads;
    if (t->max_nodes > 0 && (capped.max_nodes == 0 || capped.max_nodes > t->max_nodes))
        capped.max_nodes = t->max_nodes;
    t->searched_answer = false;
    if (!t->ctx) {
        if (go_tsumego_solve(p, &capped, out))
            return true;
        snprintf(err, (size_t)err_len, "out of memory");
        return false;
    }
    go_game g;
    if (!framed_game(p, &g, err, err_len))
        return false;
    bool ok = solve_phases(t, &g, p, &capped, out, err, err_len);
    go_game_free(&g);
    return ok;
}

bool teach_tsumego_setup(const go_board *b, go_color to_play, go_tsumego_goal given,
                         go_tsumego_goal stated, go_tsumego_problem *p, teach_goal_source *from,
                         go_tsumego_refusal *why, char *err, int err_len)
{
    teach_goal_source src = TEACH_GOAL_INFERRED;
    go_tsumego_refusal ignore;
    why = why ? why : &ignore;
    bool ok;
    if (given != GO_TSUMEGO_GOAL_AUTO || stated == GO_TSUMEGO_GOAL_AUTO) {
        ok = go_tsumego_setup_why(b, to_play, given, p, why, err, err_len);
        src = given != GO_TSUMEGO_GOAL_AUTO ? TEACH_GOAL_GIVEN : TEACH_GOAL_INFERRED;
    } else if ((ok = go_tsumego_setup_why(b, to_play, stated, p, why, err, err_len))) {
        src = TEACH_GOAL_STATED;
    } else {
        ok = go_tsumego_setup_why(b, to_play, GO_TSUMEGO_GOAL_AUTO, p, why, err, err_len);
    }
    if (from)
        *from = src;
    return ok;
}

int teach_tsumego_table_log2(double secs)
{
    int k = 12;
    while (k < 21 && 0.75 * (double)(1u << k) < secs * 2e7)
        k++;
    return k;
}

/* ---- the solver as a player --------------------------------------------------------------- */

typedef struct tsumego_player {
    teach_player base;
    teach_tsumego *solver;
    double secs;
    teach_player *fallback;
    go_game game;          /* the position set */
    bool have_game;
    bool fallback_moved;   /* the last move was the fallback's: its report stands */
} tsumego_player;

static bool tp_set_position(teach_player *p, const go_game *g, char *err, int err_len)
{
    tsumego_player *tp = (tsumego_player *)p;
    if (!go_board_square(&g->board)) {
        snprintf(err, (size_t)err_len, "the tsumego solver plays on square boards only (this one "
                 "is %dx%d)", g->board.width, g->board.height);
        return false;
    }
    if (tp->have_game)
        go_game_free(&tp->game);
    tp->have_game = go_game_copy(&tp->game, g);
    if (!tp->have_game) {
        snprintf(err, (size_t)err_len, "out of memory");
        return false;
    }
    return !tp->fallback || teach_player_set_position(tp->fallback, g, err, err_len);
}

static teach_move_status tp_fallback(tsumego_player *tp, const mcts_limits *lim,
                                     mcts_progress_fn cb, void *ctx, int *move, char *err,
                                     int err_len)
{
    tp->fallback_moved = true;
    return teach_player_genmove(tp->fallback, lim, cb, ctx, move, err, err_len);
}

static teach_move_status tp_genmove(teach_player *p, const mcts_limits *lim, mcts_progress_fn cb,
                                    void *ctx, int *move, char *err, int err_len)
{
    tsumego_player *tp = (tsumego_player *)p;
    tp->fallback_moved = false;
    if (!tp->have_game) {
        snprintf(err, (size_t)err_len, "no position set");
        return TEACH_MOVE_FAILED;
    }
    const go_game *g = &tp->game;
    go_color c = g->board.to_move;
    double secs = tp->secs;
    if (lim && lim->max_time_ms > 0 && (double)lim->max_time_ms / 1000.0 < secs)
        secs = (double)lim->max_time_ms / 1000.0;
    go_tsumego_problem *prob = malloc(sizeof *prob);
    go_tsumego_solution *s = malloc(sizeof *s);
    go_tsumego_refusal why = GO_TSUMEGO_REFUSED_OTHER;
    char reason[256];
    teach_move_status got = TEACH_MOVE_CHOSEN;
    *move = GO_PASS;
    if (!prob || !s) {
        snprintf(err, (size_t)err_len, "out of memory");
        got = TEACH_MOVE_FAILED;
    } else if (!go_tsumego_setup_why(&g->board, c, GO_TSUMEGO_GOAL_AUTO, prob, &why, reason,
                                     sizeof reason)) {
        /* settled: nothing left to play for (a pass); no problem at all: the fallback's move */
        if (why == GO_TSUMEGO_REFUSED_SHAPE && tp->fallback) {
            got = TEACH_MOVE_DECLINED;
        } else if (why != GO_TSUMEGO_REFUSED_SETTLED) {
            snprintf(err, (size_t)err_len, "not a tsumego: %s%s", reason,
                     why == GO_TSUMEGO_REFUSED_SHAPE ? " (and no network to search with)" : "");
            got = TEACH_MOVE_FAILED;
        }
    } else {
        go_tsumego_limits sl = {.time_s = secs, .first_move_only = true,
                                .tt_log2 = teach_tsumego_table_log2(secs)};
        if (!teach_tsumego_solve(tp->solver, prob, &sl, s, reason, sizeof reason)) {
            snprintf(err, (size_t)err_len, "the tsumego solver failed: %s", reason);
            got = TEACH_MOVE_FAILED;
        } else {
            *move = s->best_move;
            go_tsumego_solution_free(s);
            /* the game's superko may forbid what the region's rules allow */
            if (go_game_legal(g, *move, c) != GO_MOVE_OK) {
                *move = GO_PASS;
                got = tp->fallback ? TEACH_MOVE_DECLINED : TEACH_MOVE_CHOSEN;
            }
        }
    }
    free(prob);
    free(s);
    if (got == TEACH_MOVE_DECLINED)
        return tp_fallback(tp, lim, cb, ctx, move, err, err_len);
    return got;
}

static bool tp_analyze(teach_player *p, const mcts_limits *lim, mcts_progress_fn cb, void *ctx,
                       char *err, int err_len)
{
    tsumego_player *tp = (tsumego_player *)p;
    if (!tp->fallback) {
        snprintf(err, (size_t)err_len, "the tsumego solver does not analyse (no network)");
        return false;
    }
    tp->fallback_moved = true;
    return teach_player_analyze(tp->fallback, lim, cb, ctx, err, err_len);
}

static bool tp_report(teach_player *p, const mcts_analysis_opts *opts, mcts_analysis *out)
{
    tsumego_player *tp = (tsumego_player *)p;
    return tp->fallback && tp->fallback_moved && teach_player_report(tp->fallback, opts, out);
}

static void tp_stop(teach_player *p)
{
    tsumego_player *tp = (tsumego_player *)p;
    if (tp->fallback)
        teach_player_stop(tp->fallback);
}

static void tp_free(teach_player *p)
{
    tsumego_player *tp = (tsumego_player *)p;
    if (tp->have_game)
        go_game_free(&tp->game);
    free(tp);
}

static const teach_player_ops tsumego_ops = {
    "tsumego", tp_set_position, tp_genmove, tp_analyze, tp_report, tp_stop, tp_free,
};

teach_player *teach_tsumego_player_new(teach_tsumego *t, double secs, teach_player *fallback,
                                       char *err, int err_len)
{
    tsumego_player *tp = calloc(1, sizeof *tp);
    if (!tp) {
        snprintf(err, (size_t)err_len, "out of memory");
        return NULL;
    }
    tp->base.ops = &tsumego_ops;
    tp->solver = t;
    tp->secs = secs;
    tp->fallback = fallback;
    return &tp->base;
}
