/* teach/features.c -- features of a candidate move (features.h). */
#include "teach/features.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Positions a policy context evaluates at once: the eight symmetries of one position. */
#define POLICY_BATCH 8

/* ---- geometry ------------------------------------------------------------------------------ */

int teach_remi_distance(int a, int b)
{
    if (a <= GO_PASS || b <= GO_PASS)
        return -1;
    int dx = abs(go_point_x(a) - go_point_x(b)), dy = abs(go_point_y(a) - go_point_y(b));
    return dx + dy + (dx > dy ? dx : dy);
}

double teach_stone_density(const go_board *b, int p, int radius)
{
    if (p <= GO_PASS)
        return 0;
    int px = go_point_x(p), py = go_point_y(p), stones = 0, points = 0;
    /* dx + dy + max(dx, dy) <= radius implies max(dx, dy) <= radius / 2 */
    int r = radius / 2;
    for (int y = py - r; y <= py + r; y++)
        for (int x = px - r; x <= px + r; x++) {
            if (x < 0 || y < 0 || x >= b->size || y >= b->size)
                continue;
            int q = go_point_at(x, y);
            if (q == p || teach_remi_distance(p, q) > radius)
                continue;
            points++;
            stones += b->color[q] == GO_BLACK || b->color[q] == GO_WHITE;
        }
    return points ? (double)stones / points : 0;
}

int teach_symmetry_point(int size, int p, int s)
{
    if (p <= GO_PASS)
        return p;
    int x = go_point_x(p), y = go_point_y(p);
    go_symmetry_xy(s, size, &x, &y);
    return go_point_at(x, y);
}

unsigned teach_board_symmetries(const go_board *b)
{
    unsigned mask = 0;
    for (int s = 1; s < 8; s++) {
        bool same = true;
        for (int y = 0; same && y < b->size; y++)
            for (int x = 0; same && x < b->size; x++) {
                int p = go_point_at(x, y);
                same = b->color[p] == b->color[teach_symmetry_point(b->size, p, s)];
            }
        if (same)
            mask |= 1u << s;
    }
    return mask;
}

bool teach_symmetric_copies(int size, unsigned mask, int a, int b)
{
    if (a == b || a <= GO_PASS || b <= GO_PASS)
        return false;
    for (int s = 1; s < 8; s++)
        if ((mask >> s & 1) && teach_symmetry_point(size, a, s) == b)
            return true;
    return false;
}

void teach_contributions(const go_board *before, go_color mover, const float *own_move,
                         const float *own_pass, double *strengthen, double *weaken)
{
    double sign = mover == GO_WHITE ? 1.0 : -1.0;   /* white's view -> the mover's */
    double sum[3] = {0, 0, 0};
    int count[3] = {0, 0, 0};
    int size = before->size;
    for (int y = 0; y < size; y++)
        for (int x = 0; x < size; x++) {
            go_color c = (go_color)before->color[go_point_at(x, y)];
            if (c != GO_BLACK && c != GO_WHITE)
                continue;
            int i = y * size + x;
            sum[c] += sign * ((double)own_move[i] - (double)own_pass[i]);
            count[c]++;
        }
    go_color opp = go_opponent(mover);
    *strengthen = count[mover] ? sum[mover] / count[mover] : NAN;
    *weaken = count[opp] ? sum[opp] / count[opp] : NAN;
}

int teach_policy_index(int size, int move)
{
    return move == GO_PASS ? size * size : go_point_y(move) * size + go_point_x(move);
}

void teach_policy_legal(const nn_result *r, const go_game *g, float *out)
{
    int size = g->board.size, n = size * size;
    go_color c = g->board.to_move;
    double sum = 0;
    for (int i = 0; i <= n; i++) {
        int p = i == n ? GO_PASS : go_point_at(i % size, i / size);
        bool legal = isfinite(r->policy[i]) && go_game_legal(g, p, c) == GO_MOVE_OK;
        out[i] = legal ? r->policy[i] : 0.0f;
        sum += out[i];
    }
    for (int i = 0; sum > 0 && i <= n; i++)
        out[i] = (float)(out[i] / sum);
}

/* ---- the evaluator ------------------------------------------------------------------------- */

struct teach_features {
    teach_engine *engine;
    int human_net;
    mcts_search *search;
    nn_context *ctx[2];          /* policies: [0] main, [1] human (NULL when the same net) */
    nn_kata_profile profile;     /* the tunables' human-SL profile, when set */
    bool has_profile;
    nn_result *res;              /* scratch of the policy evaluations */
    bool has_game;
    go_game game;
    float prior[2][NN_MAX_MOVES];   /* legal policies of the position: main, human */
    int policy_syms;             /* symmetries averaged: 8, or 1 (the position as it stands) */
    int64_t policy_evals;
};

bool teach_features_set_policy_symmetries(teach_features *f, int n)
{
    if (n != 1 && n != POLICY_BATCH)
        return false;
    f->policy_syms = n;
    return true;
}

int64_t teach_features_evals(const teach_features *f)
{
    mcts_stats st;
    mcts_get_stats(f->search, &st);
    return st.nn_evals + f->policy_evals;
}

teach_features *teach_features_new(teach_engine *e, int search_threads, char *err, int err_len)
{
    if (teach_engine_num_nets(e) < 1) {
        snprintf(err, (size_t)err_len, "no network loaded (start with --weights FILE)");
        return NULL;
    }
    teach_features *f = calloc(1, sizeof *f);
    if (!f || !(f->res = malloc(sizeof *f->res))) {
        free(f);
        snprintf(err, (size_t)err_len, "out of memory");
        return NULL;
    }
    f->engine = e;
    f->policy_syms = POLICY_BATCH;
    f->human_net = teach_engine_num_nets(e) > 1 ? 1 : 0;
    mcts_params p = *teach_engine_params(e);
    p.num_threads = search_threads > 0 ? search_threads : 1;
    p.dirichlet_eps = 0;
    p.temperature = 0;
    p.num_avoid = p.num_allow = 0;
    if (p.seed == 0)
        p.seed = TEACH_FEATURES_SEED;
    f->has_profile = p.human_sl_profile[0] != 0;
    bool ok = !f->has_profile ||
              nn_kata_profile_parse(p.human_sl_profile, &f->profile, err, err_len);
    ok = ok && (f->search = mcts_new(teach_engine_model(e, 0), &p, err, err_len));
    for (int k = 0; ok && k < 1 + (f->human_net != 0); k++) {
        f->ctx[k] = nn_context_new(teach_engine_model(e, k ? f->human_net : 0), POLICY_BATCH,
                                   err, err_len);
        ok = f->ctx[k] != NULL;
        if (ok)
            nn_context_set_profile(f->ctx[k], f->has_profile ? &f->profile : NULL);
    }
    if (!ok) {
        teach_features_free(f);
        return NULL;
    }
    return f;
}

void teach_features_free(teach_features *f)
{
    if (!f)
        return;
    for (int k = 0; k < 2; k++)
        nn_context_free(f->ctx[k]);
    mcts_free(f->search);
    if (f->has_game)
        go_game_free(&f->game);
    free(f->res);
    free(f);
}

int teach_features_human_net(const teach_features *f) { return f->human_net; }

const go_game *teach_features_game(const teach_features *f) { return &f->game; }

bool teach_features_set_position(teach_features *f, const go_game *g, char *err, int err_len)
{
    if (f->has_game)
        go_game_free(&f->game);
    f->has_game = go_game_copy(&f->game, g);
    if (!f->has_game) {
        snprintf(err, (size_t)err_len, "out of memory");
        return false;
    }
    for (int k = 0; k < 2; k++) {
        if (k == 1 && !f->ctx[1]) {   /* the main network stands for the strong human */
            memcpy(f->prior[1], f->prior[0], sizeof f->prior[0]);
            break;
        }
        f->policy_evals += f->policy_syms;
        nn_query q = {.game = g, .policy_optimism = NN_DEFAULT_POLICY_OPTIMISM};
        bool ok = f->policy_syms == 1 ? nn_eval(f->ctx[k], 1, &q, f->res, err, err_len)
                                      : nn_eval_average(f->ctx[k], g, 0xff,
                                                        NN_DEFAULT_POLICY_OPTIMISM, f->res, err,
                                                        err_len);
        if (!ok)
            return false;
        teach_policy_legal(f->res, g, f->prior[k]);
    }
    return true;
}

double teach_features_prior(const teach_features *f, int move, bool human)
{
    int size = f->game.board.size;
    if (move != GO_PASS && !go_board_on(&f->game.board, move))
        return 0;
    return f->prior[human][teach_policy_index(size, move)];
}

int teach_features_top_moves(const teach_features *f, bool human, int k, int *moves)
{
    int size = f->game.board.size, n = 0;
    const float *pr = f->prior[human];
    for (int i = 0; i < size * size; i++) {
        if (pr[i] <= 0)
            continue;
        /* insertion into the sorted prefix, stable for ties */
        int j = n < k ? n : k - 1;
        if (n >= k && pr[teach_policy_index(size, moves[k - 1])] >= pr[i])
            continue;
        while (j > 0 && pr[teach_policy_index(size, moves[j - 1])] < pr[i]) {
            moves[j] = moves[j - 1];
            j--;
        }
        moves[j] = go_point_at(i % size, i / size);
        if (n < k)
            n++;
    }
    return n;
}

bool teach_features_check_move(const teach_features *f, int move, char *err, int err_len)
{
    const go_board *b = &f->game.board;
    char v[8];
    if (move != GO_PASS && !go_board_on(b, move)) {
        snprintf(err, (size_t)err_len, "move is not on the %dx%d board", b->size, b->size);
        return false;
    }
    go_move_status st = go_game_legal(&f->game, move, b->to_move);
    if (st != GO_MOVE_OK) {
        snprintf(err, (size_t)err_len, "%s: %s for %s", go_point_to_gtp(b->size, move, v),
                 go_move_status_text(st), b->to_move == GO_WHITE ? "white" : "black");
        return false;
    }
    return true;
}

/* Runs the search on g for exactly visits visits from an empty tree (or the tree kept). */
static bool run_search(teach_features *f, const go_game *g, int visits, bool keep_tree, char *err,
                       int err_len)
{
    if (!keep_tree)
        mcts_clear_tree(f->search);
    mcts_set_position(f->search, g);
    mcts_limits lim = {0};
    lim.max_visits = visits > 0 ? visits : 1;
    lim.max_playouts = -1;
    lim.max_time_ms = -1;
    return mcts_run(f->search, &lim, NULL, NULL, err, err_len);
}

/* The root's values and ownership after a search of the position after out->move. */
static bool read_after(teach_features *f, teach_after *out, bool ownership, char *err,
                       int err_len)
{
    mcts_analysis an = {0};
    mcts_analysis_opts o = {0};
    o.max_moves = 1;
    o.ownership = ownership;
    bool ok = mcts_analysis_get(f->search, &o, &an);
    if (!ok) {
        snprintf(err, (size_t)err_len, "the search evaluated nothing");
    } else {
        /* the root is the opponent's turn: its values turned to the mover's view */
        out->score_lead = -an.root_score_lead;
        out->winrate = 1.0 - an.root_winrate;
        out->visits = an.root_visits;
        out->has_ownership = ownership && an.has_ownership && an.ownership;
        int area = f->game.board.size * f->game.board.size;
        if (out->has_ownership)
            memcpy(out->ownership, an.ownership, sizeof(float) * (size_t)area);
    }
    mcts_analysis_free(&an);
    return ok;
}

bool teach_features_search_after(teach_features *f, int move, int visits, teach_after *out,
                                 char *err, int err_len)
{
    if (!teach_features_check_move(f, move, err, err_len))
        return false;
    go_game g;
    if (!go_game_copy(&g, &f->game)) {
        snprintf(err, (size_t)err_len, "out of memory");
        return false;
    }
    go_game_play(&g, move, f->game.board.to_move);
    mcts_set_root_moves(f->search, NULL);
    if (visits < 1)
        visits = 1;
    out->move = move;
    out->num_steps = 0;
    bool ok = true;
    for (int step = 1; ok; step *= 2) {
        int v = step < visits && out->num_steps < TEACH_AFTER_STEPS - 1 ? step : visits;
        bool last = v == visits;
        ok = run_search(f, &g, v, out->num_steps > 0, err, err_len) &&
             read_after(f, out, last, err, err_len);
        if (ok) {
            out->step_visits[out->num_steps] = (int)out->visits;
            out->step_lead[out->num_steps++] = out->score_lead;
        }
        if (last)
            break;
    }
    go_game_free(&g);
    return ok;
}

bool teach_features_search_root(teach_features *f, int visits, const bool *mask, bool keep_tree,
                                const mcts_analysis_opts *opts, mcts_analysis *out, char *err,
                                int err_len)
{
    mcts_set_root_moves(f->search, mask);
    bool ok = run_search(f, &f->game, visits, keep_tree, err, err_len);
    if (ok && !mcts_analysis_get(f->search, opts, out)) {
        snprintf(err, (size_t)err_len, "the search evaluated nothing");
        ok = false;
    }
    mcts_set_root_moves(f->search, NULL);
    return ok;
}

bool teach_features_best_move(teach_features *f, int visits, int *move, char *err, int err_len)
{
    mcts_analysis an = {0};
    bool ok = teach_features_search_root(f, visits, NULL, false, NULL, &an, err, err_len);
    if (ok) {
        /* the first move the search reports, else its best move that is not a pass */
        *move = an.num_moves > 0 ? an.moves[0].move : GO_PASS;
        for (int k = 0; *move == GO_PASS && k < an.num_moves; k++)
            *move = an.moves[k].move;
        if (*move == GO_PASS) {
            int top;
            if (teach_features_top_moves(f, false, 1, &top) == 1)
                *move = top;
        }
    }
    mcts_analysis_free(&an);
    return ok;
}

/* Distances to the last move and the one before (-1 for none or a pass). */
static void last_moves(const go_game *g, int *last, int *last2)
{
    *last = g->num_moves >= 1 ? g->moves[g->num_moves - 1].point : GO_NO_POINT;
    *last2 = g->num_moves >= 2 ? g->moves[g->num_moves - 2].point : GO_NO_POINT;
}

/* Rank of move in a legal policy: 1 + the moves with a strictly larger value. */
static int policy_rank(const float *pr, int size, int move)
{
    float v = pr[teach_policy_index(size, move)];
    int rank = 1;
    for (int i = 0; i <= size * size; i++)
        rank += pr[i] > v;
    return rank;
}

/* The geometric and policy features of move on g. */
static void static_features(const go_game *g, const float *main, const float *human, int move,
                            int ref_move, teach_move_features *out)
{
    int size = g->board.size, last, last2;
    last_moves(g, &last, &last2);
    out->move = move;
    out->dist_ref = teach_remi_distance(move, ref_move);
    out->dist_last = teach_remi_distance(move, last);
    out->dist_last2 = teach_remi_distance(move, last2);
    out->density = teach_stone_density(&g->board, move, TEACH_DENSITY_RADIUS);
    out->prior_katago = main[teach_policy_index(size, move)];
    out->prior_human = human[teach_policy_index(size, move)];
    out->policy_rank = policy_rank(main, size, move);
}

void teach_features_static(const teach_features *f, int move, int ref_move,
                           teach_move_features *out)
{
    memset(out, 0, sizeof *out);
    static_features(&f->game, f->prior[0], f->prior[1], move, ref_move, out);
    out->score_lead = out->winrate = out->score_loss = NAN;
    out->strengthen_own = out->weaken_opp = NAN;
}

void teach_features_fill(const teach_features *f, const teach_after *after,
                         const teach_after *pass, const teach_after *ref,
                         teach_move_features *out)
{
    memset(out, 0, sizeof *out);
    static_features(&f->game, f->prior[0], f->prior[1], after->move,
                    ref ? ref->move : GO_NO_POINT, out);
    out->score_lead = after->score_lead;
    out->winrate = after->winrate;
    out->visits = after->visits;
    out->score_loss = ref ? ref->score_lead - after->score_lead : NAN;
    out->strengthen_own = out->weaken_opp = NAN;
    if (pass && pass->has_ownership && after->has_ownership)
        teach_contributions(&f->game.board, f->game.board.to_move, after->ownership,
                            pass->ownership, &out->strengthen_own, &out->weaken_opp);
}

bool teach_features_compute(teach_features *f, const int *moves, int n, int ref_move, int visits,
                            teach_move_features *out, teach_move_features *ref_out, char *err,
                            int err_len)
{
    char why[256];
    for (int i = 0; i < n; i++)
        if (!teach_features_check_move(f, moves[i], err, err_len))
            return false;
    if (ref_move != GO_NO_POINT && !teach_features_check_move(f, ref_move, why, sizeof why)) {
        snprintf(err, (size_t)err_len, "reference move %s", why);
        return false;
    }
    teach_after *a = malloc(sizeof *a * 3);
    if (!a) {
        snprintf(err, (size_t)err_len, "out of memory");
        return false;
    }
    teach_after *pass = &a[0], *ref = &a[1], *cur = &a[2];
    bool ok = (ref_move != GO_NO_POINT || teach_features_best_move(f, visits, &ref_move, err,
                                                                   err_len)) &&
              teach_features_search_after(f, GO_PASS, visits, pass, err, err_len) &&
              teach_features_search_after(f, ref_move, visits, ref, err, err_len);
    if (ok && ref_out)
        teach_features_fill(f, ref, pass, ref, ref_out);
    for (int i = 0; ok && i < n; i++) {
        ok = teach_features_search_after(f, moves[i], visits, cur, err, err_len);
        if (ok)
            teach_features_fill(f, cur, pass, ref, &out[i]);
    }
    free(a);
    return ok;
}

/* ---- analysis ------------------------------------------------------------------------------ */

bool teach_analysis_base_eval(teach_engine *e, const go_game *g, teach_analysis_base *b,
                              char *err, int err_len)
{
    nn_result *r = malloc(sizeof *r);
    go_game after;
    if (!r || !go_game_copy(&after, g)) {
        free(r);
        snprintf(err, (size_t)err_len, "out of memory");
        return false;
    }
    b->size = g->board.size;
    int human = teach_engine_num_nets(e) > 1 ? 1 : 0;
    bool ok = teach_engine_eval(e, 0, g, TEACH_SYM_AVERAGE, NN_DEFAULT_POLICY_OPTIMISM, r, err,
                                err_len);
    if (ok)
        teach_policy_legal(r, g, b->prior_katago);
    if (ok && human)
        ok = teach_engine_eval(e, human, g, TEACH_SYM_AVERAGE, NN_DEFAULT_POLICY_OPTIMISM, r,
                               err, err_len);
    if (ok && human)
        teach_policy_legal(r, g, b->prior_human);
    else if (ok)
        memcpy(b->prior_human, b->prior_katago, sizeof b->prior_human);
    go_game_play(&after, GO_PASS, g->board.to_move);
    if (ok)
        ok = teach_engine_eval(e, 0, &after, TEACH_SYM_AVERAGE, NN_DEFAULT_POLICY_OPTIMISM, r,
                               err, err_len);
    b->has_pass_ownership = ok && r->has_ownership;
    if (b->has_pass_ownership)
        memcpy(b->pass_ownership, r->white_ownership, sizeof b->pass_ownership);
    go_game_free(&after);
    free(r);
    return ok;
}

void teach_analysis_features(const teach_analysis_base *b, const go_game *g,
                             const mcts_analysis *an, teach_move_features *out)
{
    const float *pass_own = b->has_pass_ownership ? b->pass_ownership : NULL;
    for (int k = 0; k < an->num_moves; k++)
        if (an->moves[k].move == GO_PASS && an->moves[k].visits > 0 && an->moves[k].ownership)
            pass_own = an->moves[k].ownership;
    const mcts_move_info *best = an->num_moves ? &an->moves[0] : NULL;
    for (int k = 0; k < an->num_moves; k++) {
        const mcts_move_info *m = &an->moves[k];
        teach_move_features *o = &out[k];
        memset(o, 0, sizeof *o);
        static_features(g, b->prior_katago, b->prior_human, m->move, best->move, o);
        o->score_lead = m->score_lead;
        o->winrate = m->winrate;
        o->visits = m->visits;
        o->score_loss = best->score_lead - m->score_lead;
        o->strengthen_own = o->weaken_opp = NAN;
        if (pass_own && m->ownership)
            teach_contributions(&g->board, g->board.to_move, m->ownership, pass_own,
                                &o->strengthen_own, &o->weaken_opp);
    }
}
