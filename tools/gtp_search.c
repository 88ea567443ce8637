/* tools/gtp_search.c -- the GTP commands that search with the first network: genmove, the
 * search's settings (command line, config file, kata-set-param, lz-setoption), clear_cache,
 * stop, time management, and final_score / final_status_list from the net's ownership. */
#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "go/score.h"
#include "tools/gtp_internal.h"
#include "tools/tsumego_net.h"
#include "go/clock.h"

/* Progress checks while searching: how often a run looks for new input, in centiseconds. */
#define GTP_POLL_CS 5

/* Ownership (from the stone's owner's view) below which a stone is dead, and whose magnitude
 * below which an alive stone is reported in seki. */
#define GTP_DEAD_OWNERSHIP (-0.4)
#define GTP_SEKI_OWNERSHIP 0.25

/* ---- settings ---------------------------------------------------------------------------- */

bool gtp_set_param(mcts_params *p, const char *name, const char *value, char *err, int len)
{
    if (!strcasecmp(name, "maxTime")) {
        char *end;
        double s = strtod(value, &end);
        if (end == value || *end || !isfinite(s) || s < 0 || s > 1e9) {
            snprintf(err, (size_t)len, "bad value '%s' for maxTime (seconds)", value);
            return false;
        }
        char ms[32];
        snprintf(ms, sizeof ms, "%.0f", s * 1000.0);
        return mcts_params_set(p, "max_time_ms", ms, err, len);
    }
    return mcts_params_set(p, name, value, err, len);
}

static char *trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    size_t n = strlen(s);
    while (n > 0 && isspace((unsigned char)s[n - 1]))
        s[--n] = 0;
    return s;
}

bool gtp_read_config(mcts_params *p, const char *path, char *err, int err_len)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, (size_t)err_len, "%s: cannot open the config file", path);
        return false;
    }
    char line[1024], why[256];
    bool ok = true;
    for (int num = 1; ok && fgets(line, sizeof line, f); num++) {
        char *hash = strchr(line, '#');
        if (hash)
            *hash = 0;
        char *s = trim(line);
        if (!*s)
            continue;
        char *eq = strchr(s, '=');
        if (!eq) {
            snprintf(err, (size_t)err_len, "%s:%d: expected 'name = value'", path, num);
            ok = false;
            break;
        }
        *eq = 0;
        char *name = trim(s), *value = trim(eq + 1);
        if (!gtp_set_param(p, name, value, why, sizeof why)) {
            snprintf(err, (size_t)err_len, "%s:%d: %s", path, num, why);
            ok = false;
        }
    }
    if (ok && ferror(f)) {
        snprintf(err, (size_t)err_len, "%s: read error", path);
        ok = false;
    }
    fclose(f);
    return ok;
}

bool gtp_backend_check(const char *name, char *err, int err_len)
{
    const char *const *names = nn_backend_names();
    char list[128] = "";
    size_t name_len = strcspn(name, ":");   /* "cuda:fp32": options go to the backend */
    for (int i = 0; names[i]; i++) {
        if (strlen(names[i]) == name_len && !strncmp(names[i], name, name_len))
            return true;
        size_t n = strlen(list);
        snprintf(list + n, sizeof list - n, "%s%s", i ? " " : "", names[i]);
    }
    snprintf(err, (size_t)err_len, "unknown backend (this build has: %s)", list);
    return false;
}

int gtp_search_option(gtp_engine *e, int argc, char **argv, int *i, char *err, int err_len)
{
    const char *opt = argv[*i];
    static const char *const with_value[] = {"--visits", "--threads", "--set", "--config",
                                             "--backend"};
    int k;
    for (k = 0; k < 5 && strcmp(opt, with_value[k]); k++)
        ;
    if (k == 5)
        return 0;
    if (*i + 1 == argc) {
        snprintf(err, (size_t)err_len, "option '%s' needs a value", opt);
        return -1;
    }
    const char *v = argv[++*i];
    char why[256];
    bool ok = true;
    switch (k) {
    case 0:
        ok = mcts_params_set(&e->params, "max_visits", v, why, sizeof why);
        break;
    case 1:
        ok = mcts_params_set(&e->params, "num_threads", v, why, sizeof why);
        break;
    case 2: {
        char buf[512];
        snprintf(buf, sizeof buf, "%s", v);
        char *eq = strchr(buf, '=');
        if (!eq) {
            snprintf(why, sizeof why, "expected NAME=VALUE");
            ok = false;
        } else {
            *eq = 0;
            ok = gtp_set_param(&e->params, trim(buf), trim(eq + 1), why, sizeof why);
        }
        break;
    }
    case 3:
        return gtp_read_config(&e->params, v, err, err_len) ? 1 : -1;
    default:
        ok = gtp_backend_check(v, why, sizeof why) && strlen(v) < sizeof e->backend;
        if (ok)
            snprintf(e->backend, sizeof e->backend, "%s", v);
        break;
    }
    if (!ok) {
        snprintf(err, (size_t)err_len, "%s %s: %s", opt, v, why);
        return -1;
    }
    return 1;
}

void gtp_search_free(gtp_engine *e)
{
    tsumego_net_free(e->tsumego);
    e->tsumego = NULL;
    mcts_free(e->search);
    nn_model_free(e->model);
    e->search = NULL;
    e->model = NULL;
}

nn_model *gtp_model_get(gtp_engine *e, gtp_text *r)
{
    char err[512];
    if (e->num_nets == 0) {
        gtp_fail(r, "no network loaded (start with --weights FILE)");
        return NULL;
    }
    if (!e->model) {
        e->model = nn_model_load(e->net_paths[0], e->backend[0] ? e->backend : NULL, err,
                                 sizeof err);
        if (!e->model)
            gtp_text_printf(r, "cannot load the network for search: %s", err);
    }
    return e->model;
}

mcts_search *gtp_search_get(gtp_engine *e, gtp_text *r)
{
    char err[512];
    if (!gtp_model_get(e, r))
        return NULL;
    if (!e->search) {
        e->search = mcts_new(e->model, &e->params, err, sizeof err);
        if (!e->search) {
            gtp_text_printf(r, "cannot start the search: %s", err);
            return NULL;
        }
        e->params_changed = false;
    }
    if (e->params_changed) {
        if (!mcts_set_params(e->search, &e->params, err, sizeof err)) {
            gtp_text_printf(r, "cannot apply the search settings: %s", err);
            return NULL;
        }
        e->params_changed = false;
    }
    return e->search;
}

/* ---- running ----------------------------------------------------------------------------- */

typedef struct run_ctx {
    gtp_engine *e;
    mcts_progress_fn cb;
    void *ctx;
    double interval_s, next_s;
    bool any_input;   /* new input or its end stops the run (analysis); else nothing does */
} run_ctx;

/* Move generation always runs to its limits (a script read from a file may well end while the
 * first genmove runs); analyses, which have none, end with new input or the end of it. */
static bool input_stops(gtp_engine *e, bool any_input)
{
    return any_input && e->input && gtp_input_pending(e->input);
}

static bool run_progress(const mcts_analysis *a, void *ctx)
{
    run_ctx *rc = ctx;
    if (input_stops(rc->e, rc->any_input))
        return false;
    if (!rc->cb || rc->interval_s <= 0 || go_now_s() < rc->next_s)
        return true;
    rc->next_s += rc->interval_s;
    return rc->cb(a, rc->ctx);
}

bool gtp_search_interrupted(gtp_engine *e)
{
    return input_stops(e, true);
}

static bool search_run(gtp_engine *e, mcts_search *s, const mcts_limits *lim,
                       mcts_progress_fn cb, void *ctx, bool any_input, gtp_text *r)
{
    mcts_set_position(s, &e->game);
    mcts_limits l = *lim;
    run_ctx rc = {e, cb, ctx, lim->report_interval_cs / 100.0, 0, any_input};
    rc.next_s = go_now_s() + rc.interval_s;
    l.report_interval_cs = lim->report_interval_cs > 0 && lim->report_interval_cs < GTP_POLL_CS
                               ? lim->report_interval_cs
                               : GTP_POLL_CS;
    char err[512];
    if (!mcts_run(s, &l, run_progress, &rc, err, sizeof err)) {
        gtp_text_printf(r, "search failed: %s", err);
        return false;
    }
    return true;
}

bool gtp_search_run(gtp_engine *e, mcts_search *s, const mcts_limits *lim, mcts_progress_fn cb,
                    void *ctx, bool any_input, gtp_text *r)
{
    return search_run(e, s, lim, cb, ctx, any_input, r);
}

/* Seconds to spend on this move from the clock the controller described, 0 for no limit.
 * Main time is spread over the moves likely left (at least 20), with a share of the overtime
 * added; in overtime a period is spread over its stones (Canadian) or mostly used (byo-yomi). */
static double move_budget_s(const gtp_engine *e, go_color c)
{
    const gtp_time_control *t = &e->time;
    if (t->system == GTP_TIME_NONE)
        return 0;
    const gtp_clock *k = &e->clock[c];
    int size = e->game.board.size;
    double lag = 0.3;
    double budget;
    if (k->known && k->stones_left > 0) {
        if (t->system == GTP_TIME_BYOYOMI)
            budget = 0.8 * k->time_left_s - lag;
        else
            budget = 0.9 * k->time_left_s / k->stones_left - lag;
    } else {
        double left = k->known ? k->time_left_s : t->main_time_s;
        double moves_left = 0.5 * (0.6 * size * size - e->game.num_moves);
        if (moves_left < 20)
            moves_left = 20;
        budget = left / moves_left;
        if (t->system == GTP_TIME_BYOYOMI && t->periods > 0)
            budget += 0.5 * t->period_time_s;
        else if (t->system == GTP_TIME_CANADIAN && t->period_stones > 0)
            budget += 0.5 * t->period_time_s / t->period_stones;
        if (t->system == GTP_TIME_ABSOLUTE && budget > left - 2 * lag)
            budget = left - 2 * lag;
        budget -= lag;
    }
    return budget < 0.05 ? 0.05 : budget;
}

mcts_limits gtp_search_move_limits(gtp_engine *e)
{
    mcts_limits lim = {0};
    const mcts_params *p = &e->params;
    double budget = move_budget_s(e, e->game.board.to_move);
    if (budget > 0) {
        int64_t ms = (int64_t)(budget * 1000.0);
        if (p->max_time_ms <= 0 || ms < p->max_time_ms)
            lim.max_time_ms = ms > 0 ? ms : 1;
    }
    if (p->max_visits <= 0 && p->max_playouts <= 0 && p->max_time_ms <= 0 && budget <= 0)
        lim.max_visits = GTP_DEFAULT_VISITS;
    return lim;
}

bool gtp_search_play_chosen(gtp_engine *e, mcts_search *s, go_color c, char *buf, int len)
{
    int move = mcts_choose_move(s);
    if (move == MCTS_RESIGN) {
        snprintf(buf, (size_t)len, "resign");
        return true;
    }
    if (go_game_play(&e->game, move, c) != GO_MOVE_OK)
        return false;
    char v[8];
    snprintf(buf, (size_t)len, "%s", go_point_to_gtp(e->game.board.size, move, v));
    return true;
}

bool gtp_cmd_genmove(gtp_engine *e, const gtp_args *a, gtp_text *r)
{
    go_color c;
    if (!gtp_parse_color(a->argv[0], &c))
        return gtp_fail(r, "syntax error");
    if (e->tsumego_s > 0) {
        int got = gtp_tsumego_genmove(e, c, r);
        if (got >= 0)
            return got == 1;
    }
    mcts_search *s = gtp_search_get(e, r);
    if (!s)
        return false;
    if (e->game.board.to_move != c)
        go_game_set_to_move(&e->game, c);
    if (e->tree_filtered) {
        mcts_clear_tree(s);   /* grown under an analysis' avoid/allow lists */
        e->tree_filtered = false;
    }
    mcts_limits lim = gtp_search_move_limits(e);
    if (!search_run(e, s, &lim, NULL, NULL, false, r))
        return false;
    char move[16];
    if (!gtp_search_play_chosen(e, s, c, move, sizeof move))
        return gtp_fail(r, "the search chose an illegal move");
    gtp_text_add(r, move);
    return true;
}

bool gtp_cmd_clear_cache(gtp_engine *e, const gtp_args *a, gtp_text *r)
{
    if (e->search) {
        e->tree_filtered = false;
        mcts_clear_tree(e->search);
        mcts_clear_cache(e->search);
    }
    return true;
}

/* An analysis is stopped by any new line before `stop` is read, so there is nothing left to do. */
bool gtp_cmd_stop(gtp_engine *e, const gtp_args *a, gtp_text *r)
{
    if (e->search)
        mcts_stop(e->search);
    return true;
}

/* ---- parameters -------------------------------------------------------------------------- */

bool gtp_cmd_kata_list_params(gtp_engine *e, const gtp_args *a, gtp_text *r)
{
    int n;
    const mcts_param_info *list = mcts_param_list(&n);
    for (int i = 0; i < n; i++)
        gtp_text_printf(r, "%s%s", i ? " " : "", list[i].name);
    gtp_text_add(r, " maxTime");
    return true;
}

bool gtp_cmd_kata_get_param(gtp_engine *e, const gtp_args *a, gtp_text *r)
{
    char buf[64];
    if (!strcasecmp(a->argv[0], "maxTime")) {
        gtp_text_printf(r, "%g", e->params.max_time_ms / 1000.0);
        return true;
    }
    if (!mcts_params_get(&e->params, a->argv[0], buf, sizeof buf))
        return gtp_fail(r, "unknown parameter");
    /* Shortest text that reads back the same double ("0.05", not 0.050000000000000003). */
    char *end;
    double v = strtod(buf, &end);
    if (!*end && end != buf && strpbrk(buf, ".eE"))
        snprintf(buf, sizeof buf, "%.15g", v);
    gtp_text_add(r, buf);
    return true;
}

bool gtp_cmd_kata_set_param(gtp_engine *e, const gtp_args *a, gtp_text *r)
{
    char err[256];
    if (!gtp_set_param(&e->params, a->argv[0], a->argv[1], err, sizeof err))
        return gtp_fail(r, err);
    e->params_changed = true;
    return true;
}

/* Leela Zero's option names (case-insensitive) and the tunables they set; scale multiplies. */
static const struct {
    const char *lz, *name;
    double scale;
} lz_options[] = {
    {"visits", "max_visits", 1},
    {"playouts", "max_playouts", 1},
    {"threads", "num_threads", 1},
    {"batch size", "batch_size", 1},
    {"resign percentage", "resign_threshold", 0.01},
    {"maximum memory use (mib)", "max_tree_mb", 1},
    {"time", "max_time_ms", 1000},
};

/* lz-setoption name NAME value V (NAME may hold spaces). Pondering and Lagbuffer are accepted
 * and ignored, as there is nothing for them to change here. */
bool gtp_cmd_lz_setoption(gtp_engine *e, const gtp_args *a, gtp_text *r)
{
    const char *raw = a->raw;
    const char *val = strstr(raw, " value ");
    if (strncasecmp(raw, "name ", 5) || !val)
        return gtp_fail(r, "syntax error");
    char name[128];
    int n = (int)(val - (raw + 5));
    if (n <= 0 || n >= (int)sizeof name)
        return gtp_fail(r, "syntax error");
    snprintf(name, sizeof name, "%.*s", n, raw + 5);
    const char *value = val + 7;
    if (!strcasecmp(name, "pondering") || !strcasecmp(name, "lagbuffer"))
        return true;
    for (size_t i = 0; i < sizeof lz_options / sizeof lz_options[0]; i++) {
        if (strcasecmp(name, lz_options[i].lz))
            continue;
        char buf[64], err[256];
        double v;
        if (!gtp_parse_number(value, &v))
            return gtp_fail(r, "syntax error");
        double scale = lz_options[i].scale;
        if (scale == 0.01 && v < 0)
            snprintf(buf, sizeof buf, "-1");   /* Leela Zero's -1: never resign */
        else if (scale == 1000)
            snprintf(buf, sizeof buf, "%.0f", v * scale);
        else if (scale != 1)
            snprintf(buf, sizeof buf, "%.17g", v * scale);
        else
            snprintf(buf, sizeof buf, "%s", value);
        if (!mcts_params_set(&e->params, lz_options[i].name, buf, err, sizeof err))
            return gtp_fail(r, err);
        e->params_changed = true;
        return true;
    }
    gtp_text_printf(r, "unknown option: %s", name);
    return false;
}

/* ---- scoring ----------------------------------------------------------------------------- */

/* Marks dead stones (dead[p]) and stones in seki (seki[p], either may be NULL) from the first
 * network's ownership averaged over the 8 symmetries, Benson's pass-alive areas overriding it.
 * Returns false (nothing marked) when the first net has no ownership head or cannot run. */
static bool mark_status(gtp_engine *e, bool *dead, bool *seki)
{
    if (e->num_nets == 0 || e->nets[0]->family != NN_FAMILY_KATA)
        return false;
    gtp_text ignore = {0};
    mcts_search *s = gtp_search_get(e, &ignore);
    free(ignore.data);
    if (!s)
        return false;
    char err[256];
    nn_context *ctx = nn_context_new(e->model, 8, err, sizeof err);
    if (ctx)
        nn_context_set_profile(ctx, mcts_profile(s));
    nn_result *res = malloc(sizeof *res);
    bool ok = ctx && res &&
              nn_eval_average(ctx, &e->game, 0xff, NN_DEFAULT_POLICY_OPTIMISM, res, err,
                              sizeof err) &&
              res->has_ownership;
    if (ok) {
        const go_board *b = &e->game.board;
        uint8_t area[GO_POINTS];
        go_benson_area(b, e->game.rules.multi_stone_suicide, area);
        int size = b->size;
        for (int y = 0; y < size; y++)
            for (int x = 0; x < size; x++) {
                int p = go_point_at(x, y);
                go_color c = b->color[p];
                if (c != GO_BLACK && c != GO_WHITE)
                    continue;
                double own = res->white_ownership[y * size + x] * (c == GO_WHITE ? 1 : -1);
                bool is_dead = area[p] != GO_EMPTY ? area[p] != c : own < GTP_DEAD_OWNERSHIP;
                if (dead)
                    dead[p] = is_dead;
                if (seki)
                    seki[p] = !is_dead && area[p] == GO_EMPTY && fabs(own) < GTP_SEKI_OWNERSHIP;
            }
    }
    free(res);
    nn_context_free(ctx);
    return ok;
}

bool gtp_cmd_final_score(gtp_engine *e, const gtp_args *a, gtp_text *r)
{
    bool dead[GO_POINTS] = {false};
    double lead;
    if (mark_status(e, dead, NULL))
        lead = go_score_final(&e->game, dead, NULL);
    else
        lead = go_score_area_tromp_taylor(&e->game.board, NULL) - (double)e->game.komi;
    char buf[64];
    gtp_text_add(r, go_score_to_text(lead, buf, sizeof buf));
    return true;
}

static int cmp_point(const void *x, const void *y)
{
    return *(const int *)x - *(const int *)y;
}

/* final_status_list alive|dead|seki: the stones of that status, one chain per line as GTP asks
 * (without a KataGo net every stone is alive, as Tromp-Taylor scores). */
bool gtp_cmd_final_status_list(gtp_engine *e, const gtp_args *a, gtp_text *r)
{
    const char *want = a->argv[0];
    if (strcasecmp(want, "alive") && strcasecmp(want, "dead") && strcasecmp(want, "seki"))
        return gtp_fail(r, "syntax error");
    bool dead[GO_POINTS] = {false}, seki[GO_POINTS] = {false};
    mark_status(e, dead, seki);
    const go_board *b = &e->game.board;
    int size = b->size;
    bool done[GO_POINTS] = {false}, first_line = true;
    for (int y = 0; y < size; y++)
        for (int x = 0; x < size; x++) {
            int p = go_point_at(x, y);
            go_color c = b->color[p];
            if ((c != GO_BLACK && c != GO_WHITE) || done[p])
                continue;
            bool match = !strcasecmp(want, "dead")   ? dead[p]
                         : !strcasecmp(want, "seki") ? seki[p]
                                                     : !dead[p] && !seki[p];
            /* One line per chain, its stones in board order: flood the chain from p. */
            int chain[GO_POINTS], n = 0, len = 0;
            chain[n++] = p;
            done[p] = true;
            while (len < n) {
                int q = chain[len++];
                const int nb[4] = {q - 1, q + 1, q - GO_STRIDE, q + GO_STRIDE};
                for (int k = 0; k < 4; k++)
                    if (b->color[nb[k]] == c && !done[nb[k]]) {
                        done[nb[k]] = true;
                        chain[n++] = nb[k];
                    }
            }
            if (!match)
                continue;
            qsort(chain, (size_t)n, sizeof *chain, cmp_point);
            for (int k = 0; k < n; k++) {
                char v[8];
                gtp_text_printf(r, "%s%s", k ? " " : first_line ? "" : "\n",
                                go_point_to_gtp(size, chain[k], v));
            }
            first_line = false;
        }
    return true;
}
