/* tools/gtp_search.c -- the GTP commands that search with the first network: genmove, the
 * search's settings (kata-set-param, lz-setoption), clear_cache, stop, and final_score /
 * final_status_list from the net's ownership. The players and their settings are teach/'s. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <cjson/cJSON.h>

#include "go/clock.h"
#include "go/score.h"
#include "teach/status.h"
#include "tools/args.h"
#include "tools/analysis_json.h"
#include "tools/gtp_internal.h"

/* Progress checks while searching: how often a run looks for new input, in centiseconds. */
#define GTP_POLL_CS 5

/* ---- players ----------------------------------------------------------------------------- */

void gtp_players_free(gtp_engine *e)
{
    teach_player_free(e->tsumego_player);
    teach_player_free(e->play_player);
    teach_player_free(e->search);
    teach_tsumego_free(e->tsumego);
    e->tsumego_player = e->play_player = e->search = NULL;
    e->tsumego = NULL;
}

teach_player *gtp_search_get(gtp_engine *e, gtp_text *r)
{
    char err[512];
    if (teach_engine_num_nets(e->engine) == 0) {
        gtp_fail(r, "no network loaded (start with --weights FILE)");
        return NULL;
    }
    if (!e->search && !(e->search = teach_search_player_new(e->engine, err, sizeof err))) {
        gtp_text_printf(r, "cannot start the search: %s", err);
        return NULL;
    }
    if (!teach_search_player_set_params(e->search, teach_engine_params(e->engine), err,
                                        sizeof err)) {
        gtp_text_printf(r, "cannot apply the search settings: %s", err);
        return NULL;
    }
    return e->search;
}

/* The player that plays with the network: the search, or the teaching player on top of it when
 * play_policy is not "best". NULL with the reason in r. */
static teach_player *net_player_get(gtp_engine *e, gtp_text *r)
{
    teach_player *s = gtp_search_get(e, r);
    if (!s || teach_engine_play_params(e->engine)->policy == TEACH_POLICY_BEST)
        return s;
    char err[256];
    if (!e->play_player && !(e->play_player = teach_play_player_new(e->engine, s, err, sizeof err)))
        gtp_fail(r, err);
    return e->play_player;
}

teach_player *gtp_player_get(gtp_engine *e, gtp_text *r)
{
    if (e->tsumego_s <= 0)
        return net_player_get(e, r);
    teach_player *fallback = NULL;
    if (teach_engine_num_nets(e->engine) > 0 && !(fallback = net_player_get(e, r)))
        return NULL;
    teach_tsumego *t = gtp_tsumego_get(e, r);
    if (!t)
        return NULL;
    char err[256];
    if (e->tsumego_player && e->tsumego_fallback != fallback) {
        teach_player_free(e->tsumego_player);   /* play_policy changed the player behind it */
        e->tsumego_player = NULL;
    }
    e->tsumego_fallback = fallback;
    if (!e->tsumego_player &&
        !(e->tsumego_player = teach_tsumego_player_new(t, e->tsumego_s, fallback, err,
                                                       sizeof err)))
        gtp_fail(r, err);
    return e->tsumego_player;
}

/* ---- thinking ---------------------------------------------------------------------------- */

typedef struct think_ctx {
    gtp_engine *e;
    mcts_progress_fn cb;
    void *ctx;
    double interval_s, next_s;
    bool any_input;   /* new input or its end stops the run (analysis); else nothing does */
} think_ctx;

/* Move generation always runs to its limits (a script read from a file may well end while the
 * first genmove runs); analyses, which have none, end with new input or the end of it. */
static bool on_progress(const mcts_analysis *a, void *ctx)
{
    think_ctx *tc = ctx;
    if (tc->any_input && tc->e->input && line_reader_pending(tc->e->input))
        return false;
    if (!tc->cb || tc->interval_s <= 0 || go_now_s() < tc->next_s)
        return true;
    tc->next_s += tc->interval_s;
    return tc->cb(a, tc->ctx);
}

bool gtp_think(gtp_engine *e, teach_player *p, const mcts_limits *lim, mcts_progress_fn cb,
               void *ctx, bool any_input, int *move, gtp_text *r)
{
    char err[512];
    if (!teach_player_set_position(p, &e->game, err, sizeof err))
        return gtp_fail(r, err);
    mcts_limits l = *lim;
    think_ctx tc = {e, cb, ctx, lim->report_interval_cs / 100.0, 0, any_input};
    tc.next_s = go_now_s() + tc.interval_s;
    l.report_interval_cs = lim->report_interval_cs > 0 && lim->report_interval_cs < GTP_POLL_CS
                               ? lim->report_interval_cs
                               : GTP_POLL_CS;
    bool ok;
    if (move) {
        /* Under a clock the time manager decides when the search stops. */
        go_color c = e->game.board.to_move;
        /* a rectangle is planned as the square of its area */
        int side = (int)lround(sqrt((double)e->game.board.width * e->game.board.height));
        teach_time_plan plan = teach_timekeeper_plan(&e->time, c, side, e->game.num_moves);
        double stop_s;
        ok = teach_timed_genmove(p, &plan, &l, on_progress, &tc, e->command_s, move, &stop_s,
                                 err, sizeof err) == TEACH_MOVE_CHOSEN;
        e->moved_color = ok ? c : 0;
        e->moved_stop_s = stop_s;
    } else {
        ok = teach_player_analyze(p, &l, on_progress, &tc, err, sizeof err);
    }
    if (!ok)
        gtp_text_printf(r, "%s%s", teach_player_is_search(p) ? "search failed: " : "", err);
    return ok;
}

mcts_limits gtp_move_limits(gtp_engine *e)
{
    const mcts_params *p = teach_engine_params(e->engine);
    if (e->time.control.system == GO_TIME_NONE)
        return teach_move_limits(p, 0);
    /* the clock's plan takes the place of the default visits; a shorter maxTime still holds */
    return (mcts_limits){.max_time_ms = p->max_time_ms};
}

void gtp_ponder(gtp_engine *e)
{
    e->ponder_due = false;
    if (!e->search || !e->input)
        return;
    char err[512];
    if (!teach_player_set_position(e->search, &e->game, err, sizeof err))
        return;
    mcts_limits lim = {.max_visits = e->ponder_visits, .max_playouts = -1, .max_time_ms = -1,
                       .report_interval_cs = GTP_POLL_CS};
    lim.report.max_moves = 1;
    lim.report.pv_len = 1;
    think_ctx tc = {e, NULL, NULL, 0, 0, true};
    /* a failure leaves the tree as it was: the next genmove searches as without pondering */
    teach_player_analyze(e->search, &lim, on_progress, &tc, err, sizeof err);
}

bool gtp_play_chosen(gtp_engine *e, int move, go_color c, char *buf, int len)
{
    if (move == MCTS_RESIGN) {
        snprintf(buf, (size_t)len, "resign");
        return true;
    }
    if (go_game_play(&e->game, move, c) != GO_MOVE_OK)
        return false;
    char v[8];
    snprintf(buf, (size_t)len, "%s", go_board_vertex(&e->game.board, move, v));
    return true;
}

bool gtp_cmd_genmove(gtp_engine *e, const gtp_args *a, gtp_text *r)
{
    go_color c;
    if (!gtp_parse_color(a->argv[0], &c))
        return gtp_fail(r, "syntax error");
    teach_player *p = gtp_player_get(e, r);
    if (!p)
        return false;
    if (e->game.board.to_move != c)
        go_game_set_to_move(&e->game, c);
    mcts_limits lim = gtp_move_limits(e);
    int move;
    if (!gtp_think(e, p, &lim, NULL, NULL, false, &move, r))
        return false;
    char buf[16];
    if (!gtp_play_chosen(e, move, c, buf, sizeof buf))
        return gtp_fail(r, "the search chose an illegal move");
    gtp_text_add(r, buf);
    if (p == e->play_player || (e->tsumego_player == p && e->tsumego_fallback == e->play_player &&
                                e->play_player))
        fprintf(stderr, "shido: %s %s\n", buf, teach_play_player_why(e->play_player));
    return true;
}

bool gtp_cmd_clear_cache(gtp_engine *e, const gtp_args *a, gtp_text *r)
{
    if (e->search)
        teach_search_player_clear(e->search);
    return true;
}

/* An analysis is stopped by any new line before `stop` is read, so there is nothing left to do. */
bool gtp_cmd_stop(gtp_engine *e, const gtp_args *a, gtp_text *r)
{
    if (e->search)
        teach_player_stop(e->search);
    return true;
}

/* ---- parameters -------------------------------------------------------------------------- */

bool gtp_cmd_kata_list_params(gtp_engine *e, const gtp_args *a, gtp_text *r)
{
    int n;
    const mcts_param_info *list = mcts_param_list(&n);
    for (int i = 0; i < n; i++)
        gtp_text_printf(r, "%s%s", i ? " " : "", list[i].name);
    gtp_text_add(r, " maxTime analysisWideRootNoise");
    list = teach_play_param_list(&n);
    for (int i = 0; i < n; i++)
        gtp_text_printf(r, " %s", list[i].name);
    return true;
}

bool gtp_cmd_kata_get_param(gtp_engine *e, const gtp_args *a, gtp_text *r)
{
    char buf[64];
    const mcts_params *p = teach_engine_params(e->engine);
    if (!strcasecmp(a->argv[0], "maxTime")) {
        gtp_text_printf(r, "%g", p->max_time_ms / 1000.0);
        return true;
    }
    if (mcts_params_name_eq(a->argv[0], "analysisWideRootNoise")) {
        gtp_text_printf(r, "%g", e->analysis_wide_root_noise);
        return true;
    }
    if (!mcts_params_get(p, a->argv[0], buf, sizeof buf) &&
        !teach_play_params_get(teach_engine_play_params(e->engine), a->argv[0], buf, sizeof buf))
        return gtp_fail(r, "unknown parameter");
    /* Shortest text that reads back the same double ("0.05", not 0.050000000000000003). */
    char *end;
    double v = strtod(buf, &end);
    if (!*end && end != buf && strpbrk(buf, ".eE"))
        snprintf(buf, sizeof buf, "%.15g", v);
    gtp_text_add(r, buf);
    return true;
}

/* analysisWideRootNoise is the GTP front end's (the analysis commands apply it): checked as the
 * search's wide_root_noise. */
static bool set_analysis_noise(gtp_engine *e, const char *value, char *err, int err_len)
{
    mcts_params p = mcts_params_default();
    if (!mcts_params_set(&p, "wide_root_noise", value, err, err_len))
        return false;
    e->analysis_wide_root_noise = p.wide_root_noise;
    return true;
}

bool gtp_cmd_kata_set_param(gtp_engine *e, const gtp_args *a, gtp_text *r)
{
    char err[256];
    bool ok = mcts_params_name_eq(a->argv[0], "analysisWideRootNoise")
                  ? set_analysis_noise(e, a->argv[1], err, sizeof err)
                  : teach_engine_set_param(e->engine, a->argv[0], a->argv[1], err, sizeof err);
    return ok || gtp_fail(r, err);
}

/* One tunable's text as JSON: a number or boolean as itself, anything else a string. */
static cJSON *param_json(const char *text)
{
    char *end;
    double v = strtod(text, &end);
    if (!strcmp(text, "true") || !strcmp(text, "false"))
        return cJSON_CreateBool(text[0] == 't');
    if (*text && !*end && isfinite(v))
        return cJSON_CreateNumber(v);
    return cJSON_CreateString(text);
}

/* KataGo's kata-get-params: every tunable of kata-list-params as one JSON object. */
bool gtp_cmd_kata_get_params(gtp_engine *e, const gtp_args *a, gtp_text *r)
{
    cJSON *o = cJSON_CreateObject();
    bool ok = o != NULL;
    int n;
    char buf[64];
    const mcts_params *p = teach_engine_params(e->engine);
    const mcts_param_info *list = mcts_param_list(&n);
    for (int i = 0; ok && i < n; i++)
        if (mcts_params_get(p, list[i].name, buf, sizeof buf))
            ok = cJSON_AddItemToObject(o, list[i].name, param_json(buf));
    ok = ok && cJSON_AddNumberToObject(o, "maxTime", p->max_time_ms / 1000.0) &&
         cJSON_AddNumberToObject(o, "analysisWideRootNoise", e->analysis_wide_root_noise);
    const teach_play_params *play = teach_engine_play_params(e->engine);
    list = teach_play_param_list(&n);
    for (int i = 0; ok && i < n; i++)
        if (teach_play_params_get(play, list[i].name, buf, sizeof buf))
            ok = cJSON_AddItemToObject(o, list[i].name, param_json(buf));
    char *text = ok ? cJSON_PrintUnformatted(o) : NULL;
    cJSON_Delete(o);
    if (!text)
        return gtp_fail(r, "out of memory");
    gtp_text_add(r, text);
    cJSON_free(text);
    return true;
}

/* KataGo's kata-set-params {"name": value, ...}: all of them or, on any bad one, none. */
bool gtp_cmd_kata_set_params(gtp_engine *e, const gtp_args *a, gtp_text *r)
{
    cJSON *o = cJSON_Parse(a->raw);
    if (!cJSON_IsObject(o)) {
        cJSON_Delete(o);
        return gtp_fail(r, "expected a JSON object of parameter names and values");
    }
    mcts_params p = *teach_engine_params(e->engine);
    teach_play_params play = *teach_engine_play_params(e->engine);
    double noise = e->analysis_wide_root_noise;
    char err[256] = "", value[128];
    bool ok = true;
    const cJSON *v;
    cJSON_ArrayForEach(v, o)
    {
        tools_json_scalar_text(v, value, sizeof value);
        if (mcts_params_name_eq(v->string, "analysisWideRootNoise")) {
            mcts_params check = mcts_params_default();
            ok = mcts_params_set(&check, "wide_root_noise", value, err, sizeof err);
            noise = check.wide_root_noise;
        } else {
            ok = teach_set_param(&p, &play, v->string, value, err, sizeof err);
        }
        if (!ok)
            break;
    }
    /* checked on copies: now applied, each by name, so that the engine's own rules hold */
    for (v = o->child; ok && v; v = v->next) {
        tools_json_scalar_text(v, value, sizeof value);
        if (!mcts_params_name_eq(v->string, "analysisWideRootNoise"))
            ok = teach_engine_set_param(e->engine, v->string, value, err, sizeof err);
    }
    if (ok)
        e->analysis_wide_root_noise = noise;
    cJSON_Delete(o);
    return ok || gtp_fail(r, err);
}

/* KataGo's kata-get-models: the networks loaded, as query_models lists them. */
bool gtp_cmd_kata_get_models(gtp_engine *e, const gtp_args *a, gtp_text *r)
{
    cJSON *models = shido_models_json(e->engine);
    char *text = models ? cJSON_PrintUnformatted(models) : NULL;
    cJSON_Delete(models);
    if (!text)
        return gtp_fail(r, "out of memory");
    gtp_text_add(r, text);
    cJSON_free(text);
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
        if (!teach_engine_set_param(e->engine, lz_options[i].name, buf, err, sizeof err))
            return gtp_fail(r, err);
        return true;
    }
    gtp_text_printf(r, "unknown option: %s", name);
    return false;
}

/* ---- scoring ----------------------------------------------------------------------------- */

/* teach_mark_status on the first network, when it is KataGo's (Leela Zero nets have no
 * ownership head). */
static bool mark_status(gtp_engine *e, bool *dead, bool *seki)
{
    const nn_desc *d = teach_engine_desc(e->engine, 0);
    if (!d || d->family != NN_FAMILY_KATA)
        return false;
    gtp_text ignore = {0};
    teach_player *s = gtp_search_get(e, &ignore);
    free(ignore.data);
    return s && teach_mark_status(s, &e->game, dead, seki);
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
    bool done[GO_POINTS] = {false}, first_line = true;
    for (int y = 0; y < b->height; y++)
        for (int x = 0; x < b->width; x++) {
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
                                go_board_vertex(b, chain[k], v));
            }
            first_line = false;
        }
    return true;
}
