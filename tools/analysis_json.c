/* tools/analysis_json.c -- `shido analysis`: KataGo's JSON analysis protocol (see the header).
 * Queries are parsed and responses written with cJSON. */
#include "tools/analysis_json.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "go/clock.h"
#include "teach/engine.h"
#include "teach/features.h"
#include "teach/play.h"
#include "teach/player.h"
#include "tools/commands.h"
#include "tools/line_reader.h"

/* Visits per turn when neither the query nor the settings give a limit (KataGo's example
 * analysis config). */
#define AJ_DEFAULT_VISITS 500
#define AJ_POLL_CS 5   /* how often a search looks at the input, centiseconds */
/* Nesting deeper than this is refused (a query never needs it); cJSON itself stops at
 * CJSON_NESTING_LIMIT (1000), lines at LINE_READER_MAX bytes. */
#define AJ_MAX_DEPTH 64

typedef enum { PERSP_BLACK, PERSP_WHITE, PERSP_SIDE } perspective;

/* A line read and parsed, waiting for its turn. */
typedef struct aj_item {
    cJSON *q;
    bool terminated;
} aj_item;

typedef struct aj_engine {
    mcts_params base;               /* the tunables every query starts from */
    teach_play_params base_play;    /* and the move choice's */
    teach_engine *engine;
    teach_player *search;           /* NULL: check queries only (shido_analysis_check) */
    line_reader in;
    FILE *out;
    bool eof;
    aj_item *queue;
    int head, tail, cap;
    const cJSON *running_id;        /* the query being searched, NULL between queries */
    bool stop_running;
} aj_engine;

/* ---- JSON helpers ------------------------------------------------------------------------ */

/* The member key of an object (the first, when repeated), or NULL (also when o is no object). */
static const cJSON *get(const cJSON *o, const char *key)
{
    return cJSON_IsObject(o) ? cJSON_GetObjectItemCaseSensitive(o, key) : NULL;
}

static bool is_id(const cJSON *v)
{
    return cJSON_IsString(v) || cJSON_IsNumber(v);
}

/* What the protocol refuses beyond cJSON's grammar: numbers that overflow to infinity and
 * nesting deeper than AJ_MAX_DEPTH. Returns the reason, NULL when v is fine. */
static const char *check_tree(const cJSON *v, int depth)
{
    if (depth > AJ_MAX_DEPTH)
        return "nested too deeply";
    if (cJSON_IsNumber(v) && !isfinite(v->valuedouble))
        return "bad number";
    for (const cJSON *c = v->child; c; c = c->next) {
        const char *why = check_tree(c, depth + 1);
        if (why)
            return why;
    }
    return NULL;
}

/* A response being built. Every add goes through add(), which on a failed allocation deletes
 * the item and marks the response, so that put_line answers "out of memory" instead. */
typedef struct aj_json {
    cJSON *root;
    bool oom;
} aj_json;

static cJSON *add(aj_json *j, cJSON *parent, const char *key, cJSON *item)
{
    if (item && parent &&
        (key ? cJSON_AddItemToObject(parent, key, item) : cJSON_AddItemToArray(parent, item)))
        return item;
    cJSON_Delete(item);
    j->oom = true;
    return NULL;
}

/* Non-integers rounded to 6 decimals, as KataGo's tools need and to keep lines short;
 * non-finite values as 0 (JSON has no NaN). */
static double round6(double v)
{
    if (!isfinite(v))
        return 0;
    return fabs(v) < 1e9 ? round(v * 1e6) / 1e6 : v;
}

static void add_num(aj_json *j, cJSON *parent, const char *key, double v)
{
    add(j, parent, key, cJSON_CreateNumber(round6(v)));
}

static void add_int(aj_json *j, cJSON *parent, const char *key, long long v)
{
    add(j, parent, key, cJSON_CreateNumber((double)v));
}

static void add_str(aj_json *j, cJSON *parent, const char *key, const char *s)
{
    add(j, parent, key, cJSON_CreateString(s));
}

/* A response object starting with "id" (null when id is NULL). */
static aj_json response(const cJSON *id)
{
    aj_json j = {cJSON_CreateObject(), false};
    add(&j, j.root, "id", id ? cJSON_Duplicate(id, false) : cJSON_CreateNull());
    return j;
}

static void put_line(aj_engine *a, aj_json *j)
{
    char *text = j->oom || !j->root ? NULL : cJSON_PrintUnformatted(j->root);
    fputs(text ? text : "{\"error\":\"out of memory\",\"id\":null}", a->out);
    fputc('\n', a->out);
    fflush(a->out);
    cJSON_free(text);
    cJSON_Delete(j->root);
    *j = (aj_json){0};
}

/* ---- output ------------------------------------------------------------------------------ */

/* {"id":..,"error"|"warning":msg[,"field":field]} */
static void report(aj_engine *a, const cJSON *id, bool error, const char *field, const char *msg)
{
    aj_json j = response(id);
    add_str(&j, j.root, error ? "error" : "warning", msg);
    if (field)
        add_str(&j, j.root, "field", field);
    put_line(a, &j);
}

/* ---- queue and input --------------------------------------------------------------------- */

static bool queue_push(aj_engine *a, cJSON *q)
{
    if (a->tail == a->cap) {
        if (a->head > 0) {
            memmove(a->queue, a->queue + a->head, sizeof *a->queue * (size_t)(a->tail - a->head));
            a->tail -= a->head;
            a->head = 0;
        } else {
            int cap = a->cap ? 2 * a->cap : 16;
            aj_item *n = realloc(a->queue, sizeof *n * (size_t)cap);
            if (!n)
                return false;
            a->queue = n;
            a->cap = cap;
        }
    }
    a->queue[a->tail++] = (aj_item){q, false};
    return true;
}

static bool same_id(const cJSON *x, const cJSON *y)
{
    if (cJSON_IsString(x) && cJSON_IsString(y))
        return !strcmp(x->valuestring, y->valuestring);
    return cJSON_IsNumber(x) && cJSON_IsNumber(y) && x->valuedouble == y->valuedouble;
}

/* Terminates the queries with id tid (every query when tid is NULL), queued or running. */
static void terminate(aj_engine *a, const cJSON *tid)
{
    for (int i = a->head; i < a->tail; i++)
        if (!tid || same_id(get(a->queue[i].q, "id"), tid))
            a->queue[i].terminated = true;
    if (a->running_id && (!tid || same_id(a->running_id, tid))) {
        a->stop_running = true;
        teach_player_stop(a->search);
    }
}

/* Echoes an action back: {"action":..,"id":..[,"terminateId":..][,"version","git_hash"]}. */
static void echo_action(aj_engine *a, const cJSON *q, const char *action, bool version)
{
    aj_json j = {cJSON_CreateObject(), false};
    add_str(&j, j.root, "action", action);
    const cJSON *id = get(q, "id"), *tid = get(q, "terminateId");
    add(&j, j.root, "id", id ? cJSON_Duplicate(id, true) : cJSON_CreateNull());
    if (tid)
        add(&j, j.root, "terminateId", cJSON_Duplicate(tid, true));
    if (version) {
        add_str(&j, j.root, "version", SHIDO_VERSION_STRING);
        add_str(&j, j.root, "git_hash", "shido");
    }
    put_line(a, &j);
}

/* A line just read: malformed lines and terminations are answered at once (so that terminate
 * reaches a running query); everything else waits in the queue. */
static void accept_line(aj_engine *a, const char *line, bool too_long)
{
    if (strspn(line, " \t\r") == strlen(line) && !too_long)
        return;
    const char *end = line;
    cJSON *q = too_long ? NULL : cJSON_ParseWithOpts(line, &end, true);
    const char *why = q ? check_tree(q, 0) : NULL;
    if (!q || why) {
        char msg[160];
        if (too_long)
            snprintf(msg, sizeof msg, "could not parse JSON: line too long");
        else if (why)
            snprintf(msg, sizeof msg, "could not parse JSON: %s", why);
        else
            snprintf(msg, sizeof msg, "could not parse JSON: error at byte %zu",
                     end && end >= line ? (size_t)(end - line) : (size_t)0);
        report(a, NULL, true, NULL, msg);
        cJSON_Delete(q);
        return;
    }
    const cJSON *id = get(q, "id");
    if (!cJSON_IsObject(q) || !is_id(id)) {
        report(a, is_id(id) ? id : NULL, true, "id", "request must be an object with a string id");
        cJSON_Delete(q);
        return;
    }
    const cJSON *action = get(q, "action");
    if (cJSON_IsString(action) && !strcmp(action->valuestring, "terminate")) {
        const cJSON *tid = get(q, "terminateId");
        if (!is_id(tid))
            report(a, id, true, "terminateId", "terminate needs a terminateId");
        else {
            terminate(a, tid);
            echo_action(a, q, "terminate", false);
        }
        cJSON_Delete(q);
        return;
    }
    if (cJSON_IsString(action) && !strcmp(action->valuestring, "terminate_all")) {
        terminate(a, NULL);
        echo_action(a, q, "terminate_all", false);
        cJSON_Delete(q);
        return;
    }
    if (!queue_push(a, q)) {
        report(a, id, true, NULL, "out of memory");
        cJSON_Delete(q);
    }
}
/* Reads what has arrived without blocking. */
static void poll_input(aj_engine *a)
{
    while (!a->eof && line_reader_pending(&a->in)) {
        bool too_long;
        const char *line = line_reader_next(&a->in, &too_long);
        if (!line) {
            a->eof = true;
            break;
        }
        accept_line(a, line, too_long);
    }
}

/* ---- a query ----------------------------------------------------------------------------- */

typedef struct aj_query {
    const cJSON *id;
    int size;
    go_rules rules;
    float komi;
    go_game setup;           /* initial stones and player, no moves */
    int num_moves;
    go_move *moves;
    int *turns;
    int num_turns;
    mcts_params p;
    teach_play_params play;  /* playPolicy and its tunables: the move it would play, reported */
    perspective persp;
    bool ownership, moves_ownership, policy, pv_visits;
    bool ownership_stdev, moves_ownership_stdev;   /* include[Moves]OwnershipStdev */
    bool move_features;      /* includeMoveFeatures (shido): seed 000's features per move */
    double report_every_s;
} aj_query;

static bool parse_player(const cJSON *v, go_color *c)
{
    if (!cJSON_IsString(v))
        return false;
    if (!strcasecmp(v->valuestring, "B") || !strcasecmp(v->valuestring, "black"))
        *c = GO_BLACK;
    else if (!strcasecmp(v->valuestring, "W") || !strcasecmp(v->valuestring, "white"))
        *c = GO_WHITE;
    else
        return false;
    return true;
}

static bool is_int(const cJSON *v)
{
    return cJSON_IsNumber(v) && v->valuedouble == floor(v->valuedouble) &&
           fabs(v->valuedouble) < 1e15;
}

/* A [["B","D4"],...] list: fills colours and points (GO_PASS for "pass"). */
static bool parse_move_list(const cJSON *v, int size, go_move *out, int *n, char *err,
                            int err_len)
{
    *n = 0;
    if (!cJSON_IsArray(v)) {
        snprintf(err, (size_t)err_len, "must be an array of [player, vertex] pairs");
        return false;
    }
    int i = 0;
    const cJSON *m;
    cJSON_ArrayForEach(m, v)
    {
        go_color c;
        int p = GO_NO_POINT;
        bool pair = cJSON_IsArray(m) && cJSON_GetArraySize(m) == 2;
        if (pair && cJSON_IsString(m->child->next))
            p = go_point_from_gtp(size, m->child->next->valuestring);
        if (!pair || !parse_player(m->child, &c) || p == GO_NO_POINT) {
            snprintf(err, (size_t)err_len, "entry %d is not a valid [player, vertex] pair", i);
            return false;
        }
        out[(*n)++] = (go_move){c, p};
        i++;
    }
    return true;
}

/* avoidMoves / allowMoves: [{"player":"B","moves":["C3",...],"untilDepth":N}, ...] */
static bool parse_filters(const cJSON *v, int size, bool allow, mcts_params *p, char *err,
                          int err_len)
{
    if (!cJSON_IsArray(v)) {
        snprintf(err, (size_t)err_len, "must be an array of objects");
        return false;
    }
    int i = 0;
    const cJSON *f;
    cJSON_ArrayForEach(f, v)
    {
        const cJSON *moves = get(f, "moves"), *depth = get(f, "untilDepth");
        go_color c;
        if (!parse_player(get(f, "player"), &c) || !cJSON_IsArray(moves) || !is_int(depth) ||
            depth->valuedouble < 1) {
            snprintf(err, (size_t)err_len, "entry %d needs player, moves and untilDepth >= 1", i);
            return false;
        }
        const cJSON *m;
        cJSON_ArrayForEach(m, moves)
        {
            int pt = cJSON_IsString(m) ? go_point_from_gtp(size, m->valuestring) : GO_NO_POINT;
            if (pt == GO_NO_POINT) {
                snprintf(err, (size_t)err_len, "entry %d: bad vertex", i);
                return false;
            }
            if (!mcts_params_add_move_filter(p, allow, c, pt,
                                             (int)fmin(depth->valuedouble, 1e6))) {
                snprintf(err, (size_t)err_len, "too many moves (at most %d)",
                         MCTS_MAX_MOVE_FILTERS);
                return false;
            }
        }
        i++;
    }
    return true;
}

/* overrideSettings: the limits, the report perspective, and any search tunable. */
static bool parse_overrides(aj_engine *a, const cJSON *o, aj_query *q, char *err, int err_len)
{
    if (!cJSON_IsObject(o)) {
        snprintf(err, (size_t)err_len, "must be an object");
        return false;
    }
    const cJSON *v;
    cJSON_ArrayForEach(v, o)
    {
        const char *key = v->string;
        if (!strcmp(key, "reportAnalysisWinratesAs")) {
            const char *s = cJSON_IsString(v) ? v->valuestring : "";
            if (!strcasecmp(s, "BLACK"))
                q->persp = PERSP_BLACK;
            else if (!strcasecmp(s, "WHITE"))
                q->persp = PERSP_WHITE;
            else if (!strcasecmp(s, "SIDETOMOVE"))
                q->persp = PERSP_SIDE;
            else {
                snprintf(err, (size_t)err_len, "reportAnalysisWinratesAs must be BLACK, WHITE "
                                               "or SIDETOMOVE");
                return false;
            }
            continue;
        }
        /* Root noise for variety is not part of shido's analysis; accepted, not applied. */
        if (!strcmp(key, "wideRootNoise") || !strcmp(key, "playoutDoublingAdvantage")) {
            if (!cJSON_IsNumber(v)) {
                snprintf(err, (size_t)err_len, "%s must be a number", key);
                return false;
            }
            if (v->valuedouble != 0)
                report(a, q->id, false, "overrideSettings",
                       !strcmp(key, "wideRootNoise") ? "wideRootNoise is not supported: ignored"
                                                     : "playoutDoublingAdvantage is not "
                                                       "supported: ignored");
            continue;
        }
        char value[64], why[256];
        if (cJSON_IsNumber(v))
            snprintf(value, sizeof value, "%.17g", v->valuedouble);
        else if (cJSON_IsBool(v))
            snprintf(value, sizeof value, "%s", cJSON_IsTrue(v) ? "true" : "false");
        else if (cJSON_IsString(v))
            snprintf(value, sizeof value, "%s", v->valuestring);
        else
            value[0] = 0;
        if (!teach_set_param(&q->p, &q->play, key, value, why, sizeof why)) {
            snprintf(err, (size_t)err_len, "%s", why);
            return false;
        }
    }
    return true;
}

static bool get_bool(aj_engine *a, const cJSON *q, const char *key, bool *out, const cJSON *id)
{
    const cJSON *v = get(q, key);
    if (!v)
        return true;
    if (!cJSON_IsBool(v)) {
        char msg[128];
        snprintf(msg, sizeof msg, "%s must be a boolean", key);
        report(a, id, true, key, msg);
        return false;
    }
    *out = cJSON_IsTrue(v);
    return true;
}

static int cmp_int(const void *x, const void *y)
{
    return (*(const int *)x > *(const int *)y) - (*(const int *)x < *(const int *)y);
}

static void query_free(aj_query *q)
{
    if (q->setup.moves)
        go_game_free(&q->setup);
    free(q->moves);
    free(q->turns);
}

/* The rules field: a preset name or an object of kata-set-rules fields. */
static bool parse_rules(const cJSON *rules, go_rules *r, char *err, int err_len)
{
    if (cJSON_IsString(rules))
        return go_rules_parse(r, rules->valuestring, err, err_len);
    if (!cJSON_IsObject(rules)) {
        snprintf(err, (size_t)err_len, "rules must be a string or an object");
        return false;
    }
    char *text = cJSON_PrintUnformatted(rules);
    if (!text) {
        snprintf(err, (size_t)err_len, "out of memory");
        return false;
    }
    bool ok = go_rules_parse(r, text, err, err_len);
    cJSON_free(text);
    return ok;
}

/* The query's fields, checked; reports the first error itself and returns false. */
static bool parse_query(aj_engine *a, const cJSON *j, aj_query *q)
{
    static const char *const known[] = {
        "id", "moves", "initialStones", "initialPlayer", "rules", "komi", "boardXSize",
        "boardYSize", "analyzeTurns", "maxVisits", "includeOwnership", "includeMovesOwnership",
        "includeOwnershipStdev", "includeMovesOwnershipStdev", "includePolicy",
        "includePVVisits", "includeMoveFeatures", "avoidMoves", "allowMoves",
        "reportDuringSearchEvery", "overrideSettings", "priority", "action"};
    memset(q, 0, sizeof *q);
    q->id = get(j, "id");
    q->p = a->base;
    q->play = a->base_play;
    q->p.num_avoid = q->p.num_allow = 0;
    q->persp = PERSP_BLACK;
    char err[256], msg[320];
    const cJSON *action = get(j, "action");
    if (action) {
        report(a, q->id, true, "action", "unknown action");
        return false;
    }
    const cJSON *f;
    cJSON_ArrayForEach(f, j)
    {
        size_t k;
        for (k = 0; k < sizeof known / sizeof known[0] && strcmp(f->string, known[k]); k++)
            ;
        if (k == sizeof known / sizeof known[0])
            report(a, q->id, false, f->string, "unexpected or unused field");
    }
    const cJSON *xs = get(j, "boardXSize"), *ys = get(j, "boardYSize");
    if (!is_int(xs) || !is_int(ys)) {
        report(a, q->id, true, xs ? "boardYSize" : "boardXSize",
               "boardXSize and boardYSize are required integers");
        return false;
    }
    if (xs->valuedouble != ys->valuedouble) {
        report(a, q->id, true, "boardYSize", "only square boards are supported");
        return false;
    }
    if (xs->valuedouble < GO_MIN_SIZE || xs->valuedouble > GO_MAX_SIZE) {
        snprintf(msg, sizeof msg, "board size must be from %d to %d", GO_MIN_SIZE, GO_MAX_SIZE);
        report(a, q->id, true, "boardXSize", msg);
        return false;
    }
    q->size = (int)xs->valuedouble;
    const cJSON *rules = get(j, "rules");
    go_rules_preset(&q->rules, "tromp-taylor");
    if (!rules) {
        report(a, q->id, true, "rules", "rules are required");
        return false;
    }
    if (!parse_rules(rules, &q->rules, err, sizeof err)) {
        report(a, q->id, true, "rules", err);
        return false;
    }
    /* KataGo's default komi: 6.5 under territory scoring, 7.5 otherwise. */
    q->komi = q->rules.scoring == GO_SCORING_TERRITORY ? 6.5f : 7.5f;
    const cJSON *komi = get(j, "komi");
    if (komi) {
        if (!cJSON_IsNumber(komi) || fabs(komi->valuedouble) > 150 ||
            komi->valuedouble * 2 != floor(komi->valuedouble * 2)) {
            report(a, q->id, true, "komi", "komi must be a multiple of 0.5 within [-150, 150]");
            return false;
        }
        q->komi = (float)komi->valuedouble;
    }
    if (!go_game_init(&q->setup, q->size, &q->rules, q->komi)) {
        report(a, q->id, true, NULL, "out of memory");
        return false;
    }
    const cJSON *stones = get(j, "initialStones");
    if (stones) {
        go_move *list = malloc(sizeof *list * (size_t)(cJSON_GetArraySize(stones) + 1));
        int n = 0;
        bool ok = list && parse_move_list(stones, q->size, list, &n, err, sizeof err);
        if (!list)
            snprintf(err, sizeof err, "out of memory");
        for (int i = 0; ok && i < n; i++)
            if (list[i].point == GO_PASS ||
                !go_game_setup_stone(&q->setup, list[i].point, list[i].color)) {
                snprintf(err, sizeof err, "entry %d: pass or an occupied point", i);
                ok = false;
            }
        free(list);
        if (!ok) {
            report(a, q->id, true, "initialStones", err);
            return false;
        }
    }
    go_color first = GO_BLACK;
    const cJSON *player = get(j, "initialPlayer");
    if (player && !parse_player(player, &first)) {
        report(a, q->id, true, "initialPlayer", "initialPlayer must be \"B\" or \"W\"");
        return false;
    }
    const cJSON *moves = get(j, "moves");
    if (!player && cJSON_IsArray(moves) && moves->child)
        parse_player(cJSON_IsArray(moves->child) ? moves->child->child : NULL, &first);
    go_game_set_to_move(&q->setup, first);
    if (moves) {
        q->moves = malloc(sizeof *q->moves * (size_t)(cJSON_GetArraySize(moves) + 1));
        if (!q->moves || !parse_move_list(moves, q->size, q->moves, &q->num_moves, err,
                                          sizeof err)) {
            report(a, q->id, true, "moves", q->moves ? err : "out of memory");
            return false;
        }
    }
    const cJSON *turns = get(j, "analyzeTurns");
    q->turns = malloc(sizeof *q->turns * (size_t)(cJSON_GetArraySize(turns) + 1));
    if (!q->turns) {
        report(a, q->id, true, NULL, "out of memory");
        return false;
    }
    if (turns) {
        if (!cJSON_IsArray(turns)) {
            report(a, q->id, true, "analyzeTurns", "analyzeTurns must be an array of integers");
            return false;
        }
        const cJSON *t;
        cJSON_ArrayForEach(t, turns)
        {
            if (!is_int(t) || t->valuedouble < 0 || t->valuedouble > q->num_moves) {
                snprintf(msg, sizeof msg, "turn numbers must be integers from 0 to %d",
                         q->num_moves);
                report(a, q->id, true, "analyzeTurns", msg);
                return false;
            }
            q->turns[q->num_turns++] = (int)t->valuedouble;
        }
        qsort(q->turns, (size_t)q->num_turns, sizeof *q->turns, cmp_int);
        int n = 0;
        for (int i = 0; i < q->num_turns; i++)
            if (n == 0 || q->turns[n - 1] != q->turns[i])
                q->turns[n++] = q->turns[i];
        q->num_turns = n;
    } else {
        q->turns[q->num_turns++] = q->num_moves;
    }
    if (!get_bool(a, j, "includeOwnership", &q->ownership, q->id) ||
        !get_bool(a, j, "includeMovesOwnership", &q->moves_ownership, q->id) ||
        !get_bool(a, j, "includeOwnershipStdev", &q->ownership_stdev, q->id) ||
        !get_bool(a, j, "includeMovesOwnershipStdev", &q->moves_ownership_stdev, q->id) ||
        !get_bool(a, j, "includePolicy", &q->policy, q->id) ||
        !get_bool(a, j, "includePVVisits", &q->pv_visits, q->id) ||
        !get_bool(a, j, "includeMoveFeatures", &q->move_features, q->id))
        return false;
    const cJSON *every = get(j, "reportDuringSearchEvery");
    if (every) {
        if (!cJSON_IsNumber(every) || every->valuedouble < 0.001 || every->valuedouble > 1e6) {
            report(a, q->id, true, "reportDuringSearchEvery",
                   "reportDuringSearchEvery must be a number of seconds >= 0.001");
            return false;
        }
        q->report_every_s = every->valuedouble;
    }
    static const char *const filter_keys[2] = {"avoidMoves", "allowMoves"};
    for (int k = 0; k < 2; k++) {
        const cJSON *fl = get(j, filter_keys[k]);
        if (fl && !parse_filters(fl, q->size, k == 1, &q->p, err, sizeof err)) {
            report(a, q->id, true, filter_keys[k], err);
            return false;
        }
    }
    const cJSON *visits = get(j, "maxVisits");
    if (visits) {
        if (!is_int(visits) || visits->valuedouble < 1) {
            report(a, q->id, true, "maxVisits", "maxVisits must be an integer >= 1");
            return false;
        }
        q->p.max_visits = (int64_t)visits->valuedouble;
    }
    const cJSON *over = get(j, "overrideSettings");
    if (over && !parse_overrides(a, over, q, err, sizeof err)) {
        report(a, q->id, true, "overrideSettings", err);
        return false;
    }
    if (!q->p.max_visits && !q->p.max_playouts && !q->p.max_time_ms)
        q->p.max_visits = AJ_DEFAULT_VISITS;
    return true;
}

/* The game at a turn: the setup plus the first `turn` moves. Returns false with a reason when a
 * move is illegal. */
static bool game_at(const aj_query *q, int turn, go_game *g, char *err, int err_len)
{
    if (!go_game_init(g, q->size, &q->rules, q->komi)) {
        snprintf(err, (size_t)err_len, "out of memory");
        return false;
    }
    for (int p = 0; p < GO_POINTS; p++) {
        go_color c = q->setup.board.color[p];
        if ((c == GO_BLACK || c == GO_WHITE) && p != GO_PASS)
            go_game_setup_stone(g, p, c);
    }
    go_game_set_to_move(g, q->setup.board.to_move);
    for (int i = 0; i < turn; i++) {
        go_move_status st = go_game_play(g, q->moves[i].point, q->moves[i].color);
        if (st != GO_MOVE_OK) {
            char v[8];
            snprintf(err, (size_t)err_len, "illegal move %d: %s %s (%s)", i,
                     q->moves[i].color == GO_BLACK ? "B" : "W",
                     go_point_to_gtp(q->size, q->moves[i].point, v), go_move_status_text(st));
            go_game_free(g);
            return false;
        }
    }
    if (turn < q->num_moves)
        go_game_set_to_move(g, q->moves[turn].color);
    return true;
}

/* Sign that turns a value from the side to move's view into the reported view. */
static double persp_sign(perspective p, go_color to_move)
{
    if (p == PERSP_SIDE)
        return 1;
    return (p == PERSP_WHITE) == (to_move == GO_WHITE) ? 1 : -1;
}

static double persp_rate(double sign, double w)
{
    return sign > 0 ? w : 1 - w;
}
/* Ownership (white's view from mcts) in the reported view, row-major from the top. */
static void add_ownership(aj_json *j, cJSON *parent, const float *white, int size,
                          perspective p, go_color to_move)
{
    double sign = p == PERSP_WHITE ? 1 : p == PERSP_BLACK ? -1 : (to_move == GO_WHITE ? 1 : -1);
    cJSON *own = add(j, parent, "ownership", cJSON_CreateArray());
    for (int i = 0; own && i < size * size; i++)
        add_num(j, own, NULL, sign * white[i]);
}

/* Its standard deviation per point (the same from either view), row-major from the top. */
static void add_ownership_stdev(aj_json *j, cJSON *parent, const float *stdev, int size)
{
    cJSON *sd = add(j, parent, "ownershipStdev", cJSON_CreateArray());
    for (int i = 0; sd && i < size * size; i++)
        add_num(j, sd, NULL, stdev[i]);
}

/* The raw policy of the position (KataGo's "policy": -1 on illegal moves, pass last). */
static bool add_policy(aj_engine *a, aj_json *j, const go_game *g)
{
    char err[256];
    nn_result *res = malloc(sizeof *res);
    if (!res || !teach_search_player_eval(a->search, g, res, err, sizeof err)) {
        free(res);
        return false;
    }
    int size = g->board.size, n = size * size;
    go_color c = g->board.to_move;
    double legal_sum = 0;
    bool legal[NN_MAX_MOVES];
    for (int i = 0; i <= n; i++) {
        int p = i == n ? GO_PASS : go_point_at(i % size, i / size);
        legal[i] = go_game_legal(g, p, c) == GO_MOVE_OK && isfinite(res->policy[i]);
        if (legal[i])
            legal_sum += res->policy[i];
    }
    cJSON *pol = add(j, j->root, "policy", cJSON_CreateArray());
    /* Leela Zero nets spread some mass over illegal moves: renormalise over legal ones. */
    for (int i = 0; pol && i <= n; i++)
        add_num(j, pol, NULL, legal[i] ? res->policy[i] / (legal_sum > 0 ? legal_sum : 1) : -1);
    free(res);
    return true;
}

typedef struct turn_ctx {
    aj_engine *a;
    const aj_query *q;
    const go_game *g;
    int turn;
    double next_s;
    const teach_analysis_base *base;   /* includeMoveFeatures: NULL otherwise */
} turn_ctx;

/* seed 000's features of a move (includeMoveFeatures), in the mover's view whatever the
 * reported perspective (a loss is a loss): remiDist and remiDist2 (to the last move and the one
 * before, null when none), density, scoreLoss (against the first move), humanPrior,
 * strengthenOwn and weakenOpp (null without ownership). */
static void add_features(aj_json *j, cJSON *o, const teach_move_features *f)
{
    if (f->dist_last >= 0)
        add_int(j, o, "remiDist", f->dist_last);
    else
        add(j, o, "remiDist", cJSON_CreateNull());
    if (f->dist_last2 >= 0)
        add_int(j, o, "remiDist2", f->dist_last2);
    else
        add(j, o, "remiDist2", cJSON_CreateNull());
    add_num(j, o, "density", f->density);
    add_num(j, o, "scoreLoss", f->score_loss);
    add_num(j, o, "humanPrior", f->prior_human);
    static const char *const keys[2] = {"strengthenOwn", "weakenOpp"};
    double v[2] = {f->strengthen_own, f->weaken_opp};
    for (int k = 0; k < 2; k++)
        add(j, o, keys[k], isfinite(v[k]) ? cJSON_CreateNumber(round6(v[k])) : cJSON_CreateNull());
}

/* One moveInfos entry. */
static void add_move_info(aj_json *j, cJSON *infos, const aj_query *q, const mcts_analysis *an,
                          const mcts_move_info *m, double sign, const teach_move_features *f)
{
    char v[8];
    int size = q->size;
    cJSON *o = add(j, infos, NULL, cJSON_CreateObject());
    if (!o)
        return;
    add_str(j, o, "move", go_point_to_gtp(size, m->move, v));
    add_int(j, o, "visits", (long long)m->visits);
    add_int(j, o, "edgeVisits", (long long)m->visits);
    add_num(j, o, "winrate", persp_rate(sign, m->winrate));
    add_num(j, o, "scoreLead", sign * m->score_lead);
    add_num(j, o, "scoreMean", sign * m->score_lead);
    add_num(j, o, "scoreSelfplay", sign * m->score_mean);
    add_num(j, o, "scoreStdev", m->score_stdev);
    add_num(j, o, "prior", m->prior);
    add_num(j, o, "lcb", persp_rate(sign, m->lcb));
    add_num(j, o, "utility", sign * m->utility);
    add_num(j, o, "utilityLcb", sign * m->utility_lcb);
    add_int(j, o, "order", m->order);
    cJSON *pv = add(j, o, "pv", cJSON_CreateArray());
    for (int k = 0; pv && k < m->pv_len; k++)
        add_str(j, pv, NULL, go_point_to_gtp(size, m->pv[k], v));
    if (q->pv_visits) {
        cJSON *pvv = add(j, o, "pvVisits", cJSON_CreateArray());
        for (int k = 0; pvv && k < m->pv_len; k++)
            add_int(j, pvv, NULL, (long long)m->pv_visits[k]);
    }
    if (q->moves_ownership && m->ownership)
        add_ownership(j, o, m->ownership, size, q->persp, an->to_move);
    if (q->moves_ownership_stdev && m->ownership_stdev)
        add_ownership_stdev(j, o, m->ownership_stdev, size);
    if (f)
        add_features(j, o, f);
}

static void write_result(aj_engine *a, const aj_query *q, const go_game *g, int turn,
                         const mcts_analysis *an, bool during, const teach_analysis_base *base,
                         const teach_choice *choice)
{
    aj_json j = response(q->id);
    double sign = persp_sign(q->persp, an->to_move);
    teach_move_features *f = base && an->num_moves ? malloc(sizeof *f * (size_t)an->num_moves)
                                                   : NULL;
    if (base && an->num_moves && !f)
        j.oom = true;
    if (f)
        teach_analysis_features(base, g, an, f);
    add(&j, j.root, "isDuringSearch", cJSON_CreateBool(during));
    cJSON *infos = add(&j, j.root, "moveInfos", cJSON_CreateArray());
    for (int k = 0; infos && k < an->num_moves; k++)
        add_move_info(&j, infos, q, an, &an->moves[k], sign, f ? &f[k] : NULL);
    free(f);
    cJSON *root = add(&j, j.root, "rootInfo", cJSON_CreateObject());
    if (root) {
        add_str(&j, root, "currentPlayer", an->to_move == GO_WHITE ? "W" : "B");
        add_num(&j, root, "scoreLead", sign * an->root_score_lead);
        add_num(&j, root, "scoreSelfplay", sign * an->root_score_mean);
        add_num(&j, root, "scoreStdev", an->root_score_stdev);
        add_num(&j, root, "utility", sign * an->root_utility);
        add_int(&j, root, "visits", (long long)an->root_visits);
        add_num(&j, root, "winrate", persp_rate(sign, an->root_winrate));
    }
    add_int(&j, j.root, "turnNumber", turn);
    if (q->ownership && an->ownership)
        add_ownership(&j, j.root, an->ownership, q->size, q->persp, an->to_move);
    if (q->ownership_stdev && an->ownership_stdev)
        add_ownership_stdev(&j, j.root, an->ownership_stdev, q->size);
    if (q->policy && !during && !j.oom && !add_policy(a, &j, g))
        add(&j, j.root, "policy", cJSON_CreateNull());
    cJSON *mc = choice ? add(&j, j.root, "moveChoice", cJSON_CreateObject()) : NULL;
    if (mc) {
        char v[8];
        add_str(&j, mc, "move", choice->move == MCTS_RESIGN
                                    ? "resign"
                                    : go_point_to_gtp(q->size, choice->move, v));
        add_str(&j, mc, "policy", teach_policy_name(q->play.policy));
        add_str(&j, mc, "why", choice->why);
    }
    put_line(a, &j);
}

static void write_no_results(aj_engine *a, const cJSON *id, int turn)
{
    aj_json j = response(id);
    add(&j, j.root, "isDuringSearch", cJSON_CreateFalse());
    add(&j, j.root, "noResults", cJSON_CreateTrue());
    add_int(&j, j.root, "turnNumber", turn);
    put_line(a, &j);
}

static bool on_progress(const mcts_analysis *an, void *ctx)
{
    turn_ctx *tc = ctx;
    aj_engine *a = tc->a;
    poll_input(a);
    if (a->stop_running)
        return false;
    if (tc->q->report_every_s > 0 && go_now_s() >= tc->next_s && an->num_moves > 0) {
        tc->next_s += tc->q->report_every_s;
        write_result(a, tc->q, tc->g, tc->turn, an, true, tc->base, NULL);
    }
    return true;
}

static mcts_analysis_opts report_opts(const aj_query *q)
{
    mcts_analysis_opts o = {0};
    o.ownership = q->ownership;
    o.ownership_stdev = q->ownership_stdev;
    /* the features' contributions compare each move's own ownership with the pass's */
    o.move_ownership = q->moves_ownership || q->move_features;
    o.move_ownership_stdev = q->moves_ownership_stdev;
    return o;
}

/* The move the query's playPolicy would play after the analysis an (its first move the
 * search's own choice); one query, no memory of earlier moves. */
static bool move_choice(aj_engine *a, const aj_query *q, const go_game *g, const mcts_analysis *an,
                        teach_choice *out, char *err, int err_len)
{
    teach_rng rng = {q->play.seed ? q->play.seed : 1};
    mcts_analysis choice_an = {0};
    nn_result *net = malloc(sizeof *net);
    bool have_an, have_net;
    bool ok = net && teach_play_decide(a->search, &q->play, g, true,
                                       an->num_moves > 0 ? an->moves[0].move : GO_PASS, NULL,
                                       &rng, &choice_an, &have_an, net, &have_net, out, err,
                                       err_len);
    if (!net)
        snprintf(err, (size_t)err_len, "out of memory");
    mcts_analysis_free(&choice_an);
    free(net);
    return ok;
}

/* Analyses one turn; returns false (after reporting) on an error. */
static bool analyse_turn(aj_engine *a, const aj_query *q, int turn)
{
    char err[512];
    go_game g;
    if (!game_at(q, turn, &g, err, sizeof err)) {
        report(a, q->id, true, "moves", err);
        return false;
    }
    mcts_limits lim = {0};
    lim.report_interval_cs = AJ_POLL_CS;
    if (q->report_every_s > 0 && q->report_every_s * 100 < AJ_POLL_CS)
        lim.report_interval_cs = (int)fmax(1, q->report_every_s * 100);
    lim.report = report_opts(q);
    teach_analysis_base *base = q->move_features ? malloc(sizeof *base) : NULL;
    turn_ctx tc = {a, q, &g, turn, go_now_s() + q->report_every_s, base};
    bool ok = !q->move_features || (base ? teach_analysis_base_eval(a->engine, &g, base, err,
                                                                   sizeof err)
                                         : !snprintf(err, sizeof err, "out of memory"));
    bool choose = q->play.policy != TEACH_POLICY_BEST;
    mcts_params params = choose ? teach_play_search_params(&q->play, &q->p, &g) : q->p;
    ok = ok && (!choose || teach_search_player_set_params(a->search, &params, err, sizeof err)) &&
         teach_player_set_position(a->search, &g, err, sizeof err) &&
         teach_player_analyze(a->search, &lim, on_progress, &tc, err, sizeof err);
    if (!ok) {
        report(a, q->id, true, NULL, err);
    } else {
        mcts_analysis an = {0};
        if (teach_player_report(a->search, &lim.report, &an)) {
            teach_choice choice;
            bool chosen = choose && move_choice(a, q, &g, &an, &choice, err, sizeof err);
            if (choose && !chosen)
                report(a, q->id, false, "overrideSettings", err);
            write_result(a, q, &g, turn, &an, false, base, chosen ? &choice : NULL);
        } else {
            write_no_results(a, q->id, turn);
        }
        mcts_analysis_free(&an);
    }
    free(base);
    go_game_free(&g);
    return ok;
}

/* Without a search (shido_analysis_check): each turn's position is set up, nothing analysed. */
static void check_turns(aj_engine *a, const aj_query *q)
{
    for (int i = 0; i < q->num_turns; i++) {
        char err[512];
        go_game g;
        if (!game_at(q, q->turns[i], &g, err, sizeof err)) {
            report(a, q->id, true, "moves", err);
            return;
        }
        go_game_free(&g);
    }
}

static void run_query(aj_engine *a, aj_item *item)
{
    const cJSON *j = item->q, *id = get(j, "id");
    const cJSON *action = get(j, "action");
    if (cJSON_IsString(action) && !strcmp(action->valuestring, "query_version")) {
        echo_action(a, j, "query_version", true);
        return;
    }
    if (cJSON_IsString(action) && !strcmp(action->valuestring, "clear_cache")) {
        if (a->search)
            teach_search_player_clear(a->search);
        echo_action(a, j, "clear_cache", false);
        return;
    }
    aj_query q;
    if (!parse_query(a, j, &q)) {
        query_free(&q);
        return;
    }
    if (!a->search) {
        check_turns(a, &q);
        query_free(&q);
        return;
    }
    char err[256];
    if (!teach_search_player_set_params(a->search, &q.p, err, sizeof err)) {
        report(a, id, true, "overrideSettings", err);
        query_free(&q);
        return;
    }
    a->running_id = id;
    a->stop_running = item->terminated;
    for (int i = 0; i < q.num_turns; i++) {
        if (a->stop_running) {
            write_no_results(a, id, q.turns[i]);
            continue;
        }
        if (!analyse_turn(a, &q, q.turns[i]))
            break;
    }
    a->running_id = NULL;
    a->stop_running = false;
    query_free(&q);
}

/* Reads and answers queries until the end of input (the input reader a->in is open); frees
 * the queue. Returns the exit status: 1 when the output could not be written. */
static int serve(aj_engine *a)
{
    for (;;) {
        if (a->head == a->tail) {
            if (a->eof)
                break;
            bool too_long;
            const char *line = line_reader_next(&a->in, &too_long);
            if (!line)
                a->eof = true;
            else
                accept_line(a, line, too_long);
            continue;
        }
        aj_item item = a->queue[a->head++];
        run_query(a, &item);
        cJSON_Delete(item.q);
        if (ferror(a->out))
            break;
    }
    int rc = ferror(a->out) ? 1 : 0;
    for (int i = a->head; i < a->tail; i++)
        cJSON_Delete(a->queue[i].q);
    free(a->queue);
    a->queue = NULL;
    a->head = a->tail = a->cap = 0;
    return rc;
}

int shido_analysis_check(FILE *in, FILE *out)
{
    aj_engine a = {0};
    a.base = mcts_params_default();
    a.base_play = teach_play_params_default();
    a.out = out;
    if (!line_reader_init(&a.in, in))
        return 1;
    int rc = serve(&a);
    line_reader_free(&a.in);
    return rc;
}

/* ---- the command ------------------------------------------------------------------------- */

static int usage(const char *err)
{
    fprintf(stderr, "shido analysis: %s\nusage: shido analysis %s\n%s", err,
            teach_options_synopsis(), teach_options_help());
    return 2;
}

int shido_cmd_analysis(int argc, char **argv)
{
    aj_engine a = {0};
    a.out = stdout;
    teach_options o;
    teach_options_init(&o);
    char err[512];
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            printf("usage: shido analysis %s\nKataGo's JSON analysis protocol on standard input "
                   "and output (one network)\n%s",
                   teach_options_synopsis(), teach_options_help());
            return 0;
        }
        int got = teach_options_parse(&o, argc, argv, &i, err, sizeof err);
        if (got < 0)
            return usage(err);
        if (got == 0) {
            snprintf(err, sizeof err, "unknown option '%s'", argv[i]);
            return usage(err);
        }
    }
    if (o.num_weights != 1)
        return usage("one network is needed (-w FILE)");
    a.base = o.params;
    a.base_play = o.play;
    a.engine = teach_engine_new(&o, err, sizeof err);
    if (!a.engine) {
        fprintf(stderr, "shido analysis: cannot load network: %s\n", err);
        return 1;
    }
    a.search = teach_search_player_new(a.engine, err, sizeof err);
    if (!a.search || !line_reader_init(&a.in, stdin)) {
        fprintf(stderr, "shido analysis: cannot start the search: %s\n",
                a.search ? "out of memory" : err);
        teach_player_free(a.search);
        teach_engine_free(a.engine);
        return 1;
    }
    int rc = serve(&a);
    line_reader_free(&a.in);
    teach_player_free(a.search);
    teach_engine_free(a.engine);
    return rc;
}
