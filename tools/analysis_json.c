/* tools/analysis_json.c -- `shido analysis`: KataGo's JSON analysis protocol (see the header).
 * Queries are parsed and responses written with cJSON. */
#include "tools/analysis_json.h"

#include <cjson/cJSON.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
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
#include "teach/timing.h"
#include "tools/args.h"
#include "tools/commands.h"
#include "tools/line_reader.h"
#include "weights/desc_kata.h"

/* Visits per turn when neither the query nor the settings give a limit (KataGo's example
 * analysis config). */
#define AJ_DEFAULT_VISITS 500
#define AJ_POLL_CS 5   /* how often a search looks at the input, centiseconds */
/* Nesting deeper than this is refused (a query never needs it); cJSON itself stops at
 * CJSON_NESTING_LIMIT (1000), lines at LINE_READER_MAX bytes. */
#define AJ_MAX_DEPTH 64
#define AJ_MAX_PARALLEL 256   /* --parallel's bound */
/* A service's gathering bound with --parallel on a GPU: long enough for the other searches'
 * leaves to join a batch, short against a 100-visit search's time */
#define AJ_GPU_WAIT_US 2000

typedef enum { PERSP_BLACK, PERSP_WHITE, PERSP_SIDE } perspective;

typedef struct aj_query aj_query;

/* One unit of work waiting for its turn: a turn of a query, or a clear_cache action. The next
 * one taken is the one of highest priority, the earliest read among equals (KataGo's order). */
typedef struct aj_item {
    aj_query *query;     /* the turn's query; NULL for an action */
    cJSON *action;       /* clear_cache: the request, echoed once done */
    int turn;
    int priority;
    uint64_t seq;        /* read order */
    bool terminated;
} aj_item;

typedef struct aj_engine aj_engine;

/* One searcher: the main thread's (--parallel 1) or a worker thread's. Its running fields are
 * written under the engine's lock (with --parallel). */
typedef struct aj_worker {
    aj_engine *a;
    teach_player *search;
    pthread_t thread;
    const aj_query *running;        /* the query being searched, NULL between turns */
    int running_turn;
    atomic_bool stop_running;       /* terminate reached the running turn */
    double answer_s;                /* measured: from a search's end to its answer written */
    int answers;
} aj_worker;

struct aj_engine {
    mcts_params base;               /* the tunables every query starts from */
    teach_play_params base_play;    /* and the move choice's */
    teach_engine *engine;
    teach_player *search;           /* NULL: check queries only (shido_analysis_check) */
    line_reader in;
    FILE *out;
    bool eof;
    aj_item *queue;                 /* unordered; aj_queue_take picks by priority */
    int num_items, cap;
    uint64_t next_seq;
    /* --parallel N: N workers search turns at once, the main thread reads the input; lock
     * guards the queue, the queries' reference counts and the workers' running fields, `work`
     * wakes workers (an item, the end of input); out_lock keeps response lines whole; the
     * engine's own evaluations (move features) take engine_lock */
    int num_workers;
    aj_worker *workers;
    bool parallel;
    pthread_mutex_t lock, out_lock, engine_lock;
    pthread_cond_t work;
};

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

static bool is_int(const cJSON *v)
{
    return cJSON_IsNumber(v) && v->valuedouble == floor(v->valuedouble) &&
           fabs(v->valuedouble) < 1e15;
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
    pthread_mutex_lock(&a->out_lock);
    fputs(text ? text : "{\"error\":\"out of memory\",\"id\":null}", a->out);
    fputc('\n', a->out);
    fflush(a->out);
    pthread_mutex_unlock(&a->out_lock);
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

struct aj_query {
    cJSON *json;             /* the request as read: id points into it */
    const cJSON *id;
    int width, height;       /* boardXSize, boardYSize */
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
    int *priorities;         /* per turn of turns */
    int pv_len;              /* analysisPVLen (0: MCTS_MAX_PV) */
    bool no_result_value;    /* includeNoResultValue */
    int refs;                /* turns queued or running */
    atomic_bool failed;      /* a turn failed with an error: the later ones are dropped */
};

/* ---- queue and input --------------------------------------------------------------------- */

static bool parse_query(aj_engine *a, cJSON *j, aj_query *q);
static void query_free(aj_query *q);

static bool queue_push(aj_engine *a, aj_item item)
{
    if (a->num_items == a->cap) {
        int cap = a->cap ? 2 * a->cap : 16;
        aj_item *n = realloc(a->queue, sizeof *n * (size_t)cap);
        if (!n)
            return false;
        a->queue = n;
        a->cap = cap;
    }
    item.seq = a->next_seq++;
    a->queue[a->num_items++] = item;
    return true;
}

/* Takes the item of highest priority, the earliest among equals. The queue must not be empty. */
static aj_item queue_take(aj_engine *a)
{
    int best = 0;
    for (int i = 1; i < a->num_items; i++)
        if (a->queue[i].priority > a->queue[best].priority ||
            (a->queue[i].priority == a->queue[best].priority &&
             a->queue[i].seq < a->queue[best].seq))
            best = i;
    aj_item item = a->queue[best];
    a->queue[best] = a->queue[--a->num_items];
    return item;
}

/* A turn done (answered, terminated or dropped): the query goes with its last turn. */
static void query_release(aj_query *q)
{
    if (--q->refs == 0) {
        query_free(q);
        free(q);
    }
}

static bool same_id(const cJSON *x, const cJSON *y)
{
    if (cJSON_IsString(x) && cJSON_IsString(y))
        return !strcmp(x->valuestring, y->valuestring);
    return cJSON_IsNumber(x) && cJSON_IsNumber(y) && x->valuedouble == y->valuedouble;
}

/* Whether turn is listed in turns (a checked array of integers; NULL lists every turn). */
static bool turn_listed(const cJSON *turns, int turn)
{
    if (!turns)
        return true;
    const cJSON *t;
    cJSON_ArrayForEach(t, turns)
    {
        if (t->valuedouble == turn)
            return true;
    }
    return false;
}

/* Terminates the turns of the queries with id tid (every query when tid is NULL) that turns
 * lists (every turn when NULL), queued or running. */
static void terminate(aj_engine *a, const cJSON *tid, const cJSON *turns)
{
    for (int i = 0; i < a->num_items; i++) {
        const aj_query *q = a->queue[i].query;
        if (q && (!tid || same_id(q->id, tid)) && turn_listed(turns, a->queue[i].turn))
            a->queue[i].terminated = true;
    }
    for (int i = 0; i < a->num_workers; i++) {
        aj_worker *w = &a->workers[i];
        if (w->running && (!tid || same_id(w->running->id, tid)) &&
            turn_listed(turns, w->running_turn)) {
            atomic_store(&w->stop_running, true);
            teach_player_stop(w->search);
        }
    }
}

cJSON *shido_models_json(teach_engine *e)
{
    cJSON *models = cJSON_CreateArray();
    int n = teach_engine_num_nets(e);
    for (int i = 0; models && i < n; i++) {
        const nn_desc *d = teach_engine_desc(e, i);
        const char *file = teach_engine_net_name(e, i), *base = strrchr(file, '/');
        bool kata = d->family == NN_FAMILY_KATA;
        const char *backend = nn_model_backend(teach_engine_model(e, i));
        /* the CUDA backend picks fp16 by device unless told: KataGo's "auto" */
        const char *asked = teach_engine_backend(e);
        bool cuda = backend && !strcmp(backend, "cuda");
        cJSON *m = cJSON_CreateObject();
        if (!m || !cJSON_AddItemToArray(models, m)) {
            cJSON_Delete(m);
            cJSON_Delete(models);
            return NULL;
        }
        if (!cJSON_AddStringToObject(m, "name", base ? base + 1 : file) ||
            !cJSON_AddStringToObject(m, "internalName", kata ? d->kata->name : "leela-zero") ||
            !cJSON_AddNumberToObject(m, "maxBatchSize", teach_engine_params(e)->batch_size) ||
            !cJSON_AddBoolToObject(m, "usesHumanSLProfile",
                                   kata && d->kata->meta_encoder_version > 0) ||
            !cJSON_AddNumberToObject(m, "version", kata ? d->kata->version : 0) ||
            !cJSON_AddStringToObject(m, "usingFP16", !cuda                  ? "false"
                                                     : strstr(asked, "fp32") ? "false"
                                                     : strstr(asked, "fp16") ? "true"
                                                                             : "auto")) {
            cJSON_Delete(models);
            return NULL;
        }
    }
    return models;
}

/* Echoes an action back as KataGo does: the request's own fields, plus for query_version
 * "version" and "git_hash", for query_models "models". */
static void echo_action(aj_engine *a, const cJSON *q, const char *action)
{
    aj_json j = {cJSON_Duplicate(q, true), false};
    if (!strcmp(action, "query_version")) {
        add_str(&j, j.root, "version", SHIDO_VERSION_STRING);
        add_str(&j, j.root, "git_hash", "shido");
    } else if (!strcmp(action, "query_models")) {
        add(&j, j.root, "models", a->engine ? shido_models_json(a->engine) : cJSON_CreateArray());
    }
    put_line(a, &j);
}

/* A checked turnNumbers of a terminate (absent: NULL with true). */
static bool terminate_turns(aj_engine *a, const cJSON *q, const cJSON **turns)
{
    *turns = get(q, "turnNumbers");
    if (!*turns)
        return true;
    bool ok = cJSON_IsArray(*turns);
    const cJSON *t;
    cJSON_ArrayForEach(t, *turns)
    {
        ok = ok && is_int(t);
    }
    if (!ok)
        report(a, get(q, "id"), true, "turnNumbers", "turnNumbers must be an array of integers");
    return ok;
}

/* A query read: checked at once (errors and warnings answered now, as KataGo does), then one
 * item per turn queued. Without a search nothing is queued. */
static void accept_query(aj_engine *a, cJSON *j)
{
    aj_query *q = calloc(1, sizeof *q);
    if (!q) {
        report(a, get(j, "id"), true, NULL, "out of memory");
        cJSON_Delete(j);
        return;
    }
    if (!parse_query(a, j, q) || !a->search) {
        query_free(q);
        free(q);
        return;
    }
    for (int i = 0; i < q->num_turns; i++) {
        aj_item item = {q, NULL, q->turns[i], q->priorities[i], 0, false};
        if (!queue_push(a, item)) {
            report(a, q->id, true, NULL, "out of memory");
            break;
        }
        q->refs++;
    }
    if (q->refs == 0) {
        query_free(q);
        free(q);
    }
}

/* A line just read: malformed lines, terminations and the version and model questions are
 * answered at once (so that terminate reaches a running query); a query's turns and clear_cache
 * wait in the queue. */
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
    if (!action) {
        accept_query(a, q);
        return;
    }
    const char *name = cJSON_IsString(action) ? action->valuestring : "";
    const cJSON *turns;
    if (!strcmp(name, "terminate") || !strcmp(name, "terminate_all")) {
        const cJSON *tid = get(q, "terminateId");
        bool all = !strcmp(name, "terminate_all");
        if (!all && !is_id(tid))
            report(a, id, true, "terminateId", "terminate needs a terminateId");
        else if (terminate_turns(a, q, &turns)) {
            terminate(a, all ? NULL : tid, turns);
            echo_action(a, q, name);
        }
    } else if (!strcmp(name, "query_version") || !strcmp(name, "query_models")) {
        echo_action(a, q, name);
    } else if (!strcmp(name, "clear_cache")) {
        /* before every waiting turn, once the running one is done */
        aj_item item = {NULL, q, 0, INT_MAX, 0, false};
        if (queue_push(a, item))
            return;
        report(a, id, true, NULL, "out of memory");
    } else {
        report(a, id, true, "action", "unknown action");
    }
    cJSON_Delete(q);
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


/* A vertex: GTP's ("D4", "pass") or KataGo's "(x,y)" from the top left corner. GO_NO_POINT when
 * it is neither or off the board. */
static int parse_vertex(const go_board *b, const char *text)
{
    int x, y, end = 0;
    if (text[0] != '(')
        return go_board_parse_vertex(b, text);
    if (sscanf(text, "(%d ,%d )%n", &x, &y, &end) != 2 || text[end] || x < 0 || y < 0 ||
        x >= b->width || y >= b->height)
        return GO_NO_POINT;
    return go_point_at(x, y);
}

/* A [["B","D4"],...] list: fills colours and points (GO_PASS for "pass"). */
static bool parse_move_list(const cJSON *v, const go_board *b, go_move *out, int *n, char *err,
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
            p = parse_vertex(b, m->child->next->valuestring);
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
static bool parse_filters(const cJSON *v, const go_board *b, bool allow, mcts_params *p,
                          char *err, int err_len)
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
            int pt = cJSON_IsString(m) ? parse_vertex(b, m->valuestring) : GO_NO_POINT;
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
        char value[64], why[256];
        tools_json_scalar_text(v, value, sizeof value);
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

static void query_free(aj_query *q)
{
    if (q->setup.moves)
        go_game_free(&q->setup);
    free(q->moves);
    free(q->turns);
    free(q->priorities);
    cJSON_Delete(q->json);
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

static bool game_at(const aj_query *q, int turn, go_game *g, char *err, int err_len);

/* analyzeTurns with their priorities (priority, or priorities one per turn): sorted by turn,
 * each turn once (at the highest priority it was given). Reports the first error itself. */
static bool parse_turns(aj_engine *a, const cJSON *j, aj_query *q)
{
    const cJSON *turns = get(j, "analyzeTurns"), *prio = get(j, "priority"),
                *prios = get(j, "priorities");
    int n = turns ? cJSON_GetArraySize(turns) : 1;
    q->turns = malloc(sizeof *q->turns * (size_t)(n + 1));
    q->priorities = malloc(sizeof *q->priorities * (size_t)(n + 1));
    if (!q->turns || !q->priorities) {
        report(a, q->id, true, NULL, "out of memory");
        return false;
    }
    if (prio && (!is_int(prio) || fabs(prio->valuedouble) > INT_MAX / 2)) {
        report(a, q->id, true, "priority", "priority must be an integer");
        return false;
    }
    int base = prio ? (int)prio->valuedouble : 0;
    if (prios) {
        bool ok = turns && cJSON_IsArray(prios) && cJSON_GetArraySize(prios) == n;
        const cJSON *v;
        cJSON_ArrayForEach(v, prios)
        {
            ok = ok && is_int(v) && fabs(v->valuedouble) <= INT_MAX / 2;
        }
        if (!ok || prio) {
            report(a, q->id, true, "priorities",
                   prio ? "give priority or priorities, not both"
                        : "priorities must be an array of integers as long as analyzeTurns");
            return false;
        }
    }
    if (!turns) {
        q->turns[0] = q->num_moves;
        q->priorities[0] = base;
        q->num_turns = 1;
        return true;
    }
    if (!cJSON_IsArray(turns)) {
        report(a, q->id, true, "analyzeTurns", "analyzeTurns must be an array of integers");
        return false;
    }
    const cJSON *t, *pr = prios ? prios->child : NULL;
    cJSON_ArrayForEach(t, turns)
    {
        if (!is_int(t) || t->valuedouble < 0 || t->valuedouble > q->num_moves) {
            char msg[96];
            snprintf(msg, sizeof msg, "turn numbers must be integers from 0 to %d", q->num_moves);
            report(a, q->id, true, "analyzeTurns", msg);
            return false;
        }
        /* insertion by turn: analyzeTurns is short */
        int turn = (int)t->valuedouble, p = pr ? (int)pr->valuedouble : base, k = q->num_turns;
        pr = pr ? pr->next : NULL;
        while (k > 0 && q->turns[k - 1] > turn)
            k--;
        if (k > 0 && q->turns[k - 1] == turn) {
            q->priorities[k - 1] = p > q->priorities[k - 1] ? p : q->priorities[k - 1];
            continue;
        }
        memmove(q->turns + k + 1, q->turns + k, sizeof *q->turns * (size_t)(q->num_turns - k));
        memmove(q->priorities + k + 1, q->priorities + k,
                sizeof *q->priorities * (size_t)(q->num_turns - k));
        q->turns[k] = turn;
        q->priorities[k] = p;
        q->num_turns++;
    }
    return true;
}

/* The query's fields, checked; reports the first error itself and returns false. Takes j (freed
 * with the query). */
static bool parse_query(aj_engine *a, cJSON *j, aj_query *q)
{
    static const char *const known[] = {
        "id", "moves", "initialStones", "initialPlayer", "rules", "komi", "boardXSize",
        "boardYSize", "analyzeTurns", "maxVisits", "includeOwnership", "includeMovesOwnership",
        "includeOwnershipStdev", "includeMovesOwnershipStdev", "includePolicy",
        "includePVVisits", "includeMoveFeatures", "avoidMoves", "allowMoves",
        "reportDuringSearchEvery", "overrideSettings", "priority", "priorities",
        "includeNoResultValue", "analysisPVLen", "rootPolicyTemperature", "rootFpuReductionMax",
        "whiteHandicapBonus"};
    memset(q, 0, sizeof *q);
    q->json = j;
    q->id = get(j, "id");
    q->p = a->base;
    q->play = a->base_play;
    q->p.num_avoid = q->p.num_allow = 0;
    q->persp = PERSP_BLACK;
    char err[256], msg[320];
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
        report(a, q->id, true, is_int(xs) ? "boardYSize" : "boardXSize",
               "boardXSize and boardYSize are required integers");
        return false;
    }
    for (int k = 0; k < 2; k++) {
        double side = (k ? ys : xs)->valuedouble;
        if (side < GO_MIN_SIZE || side > GO_MAX_SIZE) {
            snprintf(msg, sizeof msg, "board size must be from %d to %d", GO_MIN_SIZE,
                     GO_MAX_SIZE);
            report(a, q->id, true, k ? "boardYSize" : "boardXSize", msg);
            return false;
        }
    }
    q->width = (int)xs->valuedouble;
    q->height = (int)ys->valuedouble;
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
    const cJSON *whb = get(j, "whiteHandicapBonus");
    if (whb && !(cJSON_IsString(whb) &&
                 go_rules_set(&q->rules, "whiteHandicapBonus", whb->valuestring)) &&
        !(cJSON_IsNumber(whb) && whb->valuedouble == 0 &&
          go_rules_set(&q->rules, "whiteHandicapBonus", "0"))) {
        report(a, q->id, true, "whiteHandicapBonus", "whiteHandicapBonus must be 0, N-1 or N");
        return false;
    }
    /* KataGo's default komi: 6.5 under territory scoring, 7.5 otherwise. */
    q->komi = q->rules.scoring == GO_SCORING_TERRITORY ? 6.5f : 7.5f;
    const cJSON *komi = get(j, "komi");
    if (komi) {
        if (!cJSON_IsNumber(komi) || !go_komi_check(komi->valuedouble, err, sizeof err)) {
            report(a, q->id, true, "komi", cJSON_IsNumber(komi) ? err : "komi must be a number");
            return false;
        }
        q->komi = (float)komi->valuedouble;
    }
    if (!go_game_init_rect(&q->setup, q->width, q->height, &q->rules, q->komi)) {
        report(a, q->id, true, NULL, "out of memory");
        return false;
    }
    const cJSON *stones = get(j, "initialStones");
    if (stones) {
        go_move *list = malloc(sizeof *list * (size_t)(cJSON_GetArraySize(stones) + 1));
        int n = 0;
        bool ok = list && parse_move_list(stones, &q->setup.board, list, &n, err,
                                             sizeof err);
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
        if (!q->moves || !parse_move_list(moves, &q->setup.board, q->moves, &q->num_moves, err,
                                          sizeof err)) {
            report(a, q->id, true, "moves", q->moves ? err : "out of memory");
            return false;
        }
    }
    go_game whole;
    if (!game_at(q, q->num_moves, &whole, err, sizeof err)) {
        report(a, q->id, true, "moves", err);
        return false;
    }
    go_game_free(&whole);
    if (!parse_turns(a, j, q))
        return false;
    if (!get_bool(a, j, "includeOwnership", &q->ownership, q->id) ||
        !get_bool(a, j, "includeMovesOwnership", &q->moves_ownership, q->id) ||
        !get_bool(a, j, "includeOwnershipStdev", &q->ownership_stdev, q->id) ||
        !get_bool(a, j, "includeMovesOwnershipStdev", &q->moves_ownership_stdev, q->id) ||
        !get_bool(a, j, "includePolicy", &q->policy, q->id) ||
        !get_bool(a, j, "includePVVisits", &q->pv_visits, q->id) ||
        !get_bool(a, j, "includeMoveFeatures", &q->move_features, q->id) ||
        !get_bool(a, j, "includeNoResultValue", &q->no_result_value, q->id))
        return false;
    const cJSON *pv_len = get(j, "analysisPVLen");
    if (pv_len) {
        if (!is_int(pv_len) || pv_len->valuedouble < 1 || pv_len->valuedouble > MCTS_MAX_PV) {
            snprintf(msg, sizeof msg, "analysisPVLen must be an integer from 1 to %d",
                     MCTS_MAX_PV);
            report(a, q->id, true, "analysisPVLen", msg);
            return false;
        }
        q->pv_len = (int)pv_len->valuedouble;
    }
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
        if (fl && !parse_filters(fl, &q->setup.board, k == 1, &q->p, err, sizeof err)) {
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
    /* search tunables KataGo takes beside overrideSettings too */
    static const char *const tunables[2] = {"rootPolicyTemperature", "rootFpuReductionMax"};
    for (int k = 0; k < 2; k++) {
        const cJSON *v = get(j, tunables[k]);
        char value[64];
        snprintf(value, sizeof value, "%.17g", cJSON_IsNumber(v) ? v->valuedouble : 0);
        if (v && (!cJSON_IsNumber(v) ||
                  !teach_set_param(&q->p, &q->play, tunables[k], value, err, sizeof err))) {
            report(a, q->id, true, tunables[k], cJSON_IsNumber(v) ? err : "must be a number");
            return false;
        }
    }
    const cJSON *over = get(j, "overrideSettings");
    if (over && !parse_overrides(a, over, q, err, sizeof err)) {
        report(a, q->id, true, "overrideSettings", err);
        return false;
    }
    /* the teaching layer measures square boards only */
    if (q->width != q->height && q->play.policy != TEACH_POLICY_BEST) {
        report(a, q->id, true, "overrideSettings",
               "playPolicy other than best takes square boards only");
        return false;
    }
    if (q->width != q->height && q->move_features) {
        report(a, q->id, true, "includeMoveFeatures", "move features take square boards only");
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
    if (!go_game_init_rect(g, q->width, q->height, &q->rules, q->komi)) {
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
            /* KataGo's wording: KaTrain recognises "Illegal move" */
            snprintf(err, (size_t)err_len, "Illegal move %d: %s %s (%s)", i,
                     q->moves[i].color == GO_BLACK ? "B" : "W",
                     go_point_to_gtp_rect(q->width, q->height, q->moves[i].point, v),
                     go_move_status_text(st));
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
static void add_ownership(aj_json *j, cJSON *parent, const float *white, int points,
                          perspective p, go_color to_move)
{
    double sign = p == PERSP_WHITE ? 1 : p == PERSP_BLACK ? -1 : (to_move == GO_WHITE ? 1 : -1);
    cJSON *own = add(j, parent, "ownership", cJSON_CreateArray());
    for (int i = 0; own && i < points; i++)
        add_num(j, own, NULL, sign * white[i]);
}

/* Its standard deviation per point (the same from either view), row-major from the top. */
static void add_ownership_stdev(aj_json *j, cJSON *parent, const float *stdev, int points)
{
    cJSON *sd = add(j, parent, "ownershipStdev", cJSON_CreateArray());
    for (int i = 0; sd && i < points; i++)
        add_num(j, sd, NULL, stdev[i]);
}

/* The raw policy of the position (KataGo's "policy": -1 on illegal moves, pass last) from the
 * network's result res. */
static void add_policy(aj_json *j, const go_game *g, const nn_result *res)
{
    int w = g->board.width, n = w * g->board.height;
    go_color c = g->board.to_move;
    double legal_sum = 0;
    bool legal[NN_MAX_MOVES];
    for (int i = 0; i <= n; i++) {
        int p = i == n ? GO_PASS : go_point_at(i % w, i / w);
        legal[i] = go_game_legal(g, p, c) == GO_MOVE_OK && isfinite(res->policy[i]);
        if (legal[i])
            legal_sum += res->policy[i];
    }
    cJSON *pol = add(j, j->root, "policy", cJSON_CreateArray());
    /* Leela Zero nets spread some mass over illegal moves: renormalise over legal ones. */
    for (int i = 0; pol && i <= n; i++)
        add_num(j, pol, NULL, legal[i] ? res->policy[i] / (legal_sum > 0 ? legal_sum : 1) : -1);
}

/* A 64-bit mix (splitmix64's finaliser). */
static uint64_t mix64(uint64_t x)
{
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

/* The hash of the stones, the side to move and the simple-ko ban of g seen through symmetry
 * sym (0: as it is; bit 0 flips x, bit 1 flips y, bit 2 swaps them: a w x h board becomes an
 * h x w one, hashed as such). */
static uint64_t position_hash(const go_board *b, int sym)
{
    int w = b->width, h = b->height, tw = sym & 4 ? h : w, th = sym & 4 ? w : h;
    uint64_t hash = mix64((uint64_t)(tw * 32 + th)) ^
                    (b->to_move == GO_WHITE ? go_zobrist_white_to_move() : 0);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            int p = go_point_at(x, y), c = b->color[p];
            bool ko = p == b->ko_point;
            if (c != GO_BLACK && c != GO_WHITE && !ko)
                continue;
            int tx = sym & 1 ? w - 1 - x : x, ty = sym & 2 ? h - 1 - y : y;
            int q = sym & 4 ? go_point_at(ty, tx) : go_point_at(tx, ty);
            hash ^= ko ? mix64(0x6b6fULL + (uint64_t)q) : go_zobrist_stone((go_color)c, q);
        }
    return hash;
}

/* rootInfo's thisHash and symHash (the least hash over the eight symmetries), as hex strings:
 * equal for the same stones, side to move and ko ban (symHash: up to symmetry). */
static void add_hashes(aj_json *j, cJSON *root, const go_board *b)
{
    char text[24];
    uint64_t sym = UINT64_MAX;
    for (int k = 0; k < 8; k++) {
        uint64_t h = position_hash(b, k);
        sym = h < sym ? h : sym;
    }
    snprintf(text, sizeof text, "%016llX", (unsigned long long)position_hash(b, 0));
    add_str(j, root, "thisHash", text);
    snprintf(text, sizeof text, "%016llX", (unsigned long long)sym);
    add_str(j, root, "symHash", text);
}

/* rootInfo's raw* fields: the network's own view of the root (the position as it stands, or the
 * mean over the eight symmetries when the policy is asked for too) in the reported perspective;
 * the error and time heads only where the net has them. */
static void add_raw(aj_json *j, cJSON *root, const nn_result *res, double sign, go_color to_move)
{
    /* nn.h's values are white's: to the mover's view, then to the reported one */
    double mover = to_move == GO_WHITE ? 1 : -1;
    double win = to_move == GO_WHITE ? res->white_win : res->white_loss;
    add_num(j, root, "rawWinrate", persp_rate(sign, win + 0.5 * res->no_result));
    add_num(j, root, "rawNoResultProb", res->no_result);
    if (res->has_score) {
        add_num(j, root, "rawLead", sign * mover * res->white_lead);
        add_num(j, root, "rawScoreSelfplay", sign * mover * res->white_score_selfplay);
        add_num(j, root, "rawScoreSelfplayStdev", res->white_score_stdev);
    }
    if (res->shortterm_winloss_error >= 0)
        add_num(j, root, "rawStWrError", res->shortterm_winloss_error);
    if (res->shortterm_score_error >= 0)
        add_num(j, root, "rawStScoreError", res->shortterm_score_error);
    if (res->var_time_left >= 0)
        add_num(j, root, "rawVarTimeLeft", res->var_time_left);
}

typedef struct turn_ctx {
    aj_engine *a;
    aj_worker *w;
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
                          const mcts_move_info *m, double sign, const teach_move_features *f,
                          int64_t most_visits)
{
    char v[8];
    int w = q->width, h = q->height;
    cJSON *o = add(j, infos, NULL, cJSON_CreateObject());
    if (!o)
        return;
    add_str(j, o, "move", go_point_to_gtp_rect(w, h, m->move, v));
    add_int(j, o, "visits", (long long)m->visits);
    /* a tree without transpositions or weighting: edge visits and weights are the visits */
    add_int(j, o, "edgeVisits", (long long)m->visits);
    add_num(j, o, "weight", (double)m->visits);
    add_num(j, o, "edgeWeight", (double)m->visits);
    /* KataGo's selection values are visits, the move chosen by its bound raised to the most */
    add_num(j, o, "playSelectionValue",
            m->order == 0 ? (double)most_visits : (double)m->visits);
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
    if (q->no_result_value)
        add_num(j, o, "noResultValue", m->no_result);
    cJSON *pv = add(j, o, "pv", cJSON_CreateArray());
    for (int k = 0; pv && k < m->pv_len; k++)
        add_str(j, pv, NULL, go_point_to_gtp_rect(w, h, m->pv[k], v));
    static const char *const pv_keys[2] = {"pvVisits", "pvEdgeVisits"};
    for (int key = 0; q->pv_visits && key < 2; key++) {
        cJSON *pvv = add(j, o, pv_keys[key], cJSON_CreateArray());
        for (int k = 0; pvv && k < m->pv_len; k++)
            add_int(j, pvv, NULL, (long long)m->pv_visits[k]);
    }
    if (q->moves_ownership && m->ownership)
        add_ownership(j, o, m->ownership, w * h, q->persp, an->to_move);
    if (q->moves_ownership_stdev && m->ownership_stdev)
        add_ownership_stdev(j, o, m->ownership_stdev, w * h);
    if (f)
        add_features(j, o, f);
}

/* One response. raw: the network's view of the root (rootInfo's raw* fields, the policy), NULL
 * during the search. */
static void write_result(aj_engine *a, const aj_query *q, const go_game *g, int turn,
                         const mcts_analysis *an, bool during, const teach_analysis_base *base,
                         const teach_choice *choice, const nn_result *raw)
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
    int64_t most = 0;
    for (int k = 0; k < an->num_moves; k++)
        most = an->moves[k].visits > most ? an->moves[k].visits : most;
    for (int k = 0; infos && k < an->num_moves; k++)
        add_move_info(&j, infos, q, an, &an->moves[k], sign, f ? &f[k] : NULL, most);
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
        /* the root's bound is its best move's, as the move played is chosen by it */
        if (an->num_moves > 0)
            add_num(&j, root, "lcb", persp_rate(sign, an->moves[0].lcb));
        add_hashes(&j, root, &g->board);
        if (raw)
            add_raw(&j, root, raw, sign, an->to_move);
        if (q->no_result_value)
            add_num(&j, root, "noResultValue", an->root_no_result);
    }
    add_int(&j, j.root, "turnNumber", turn);
    if (q->ownership && an->ownership)
        add_ownership(&j, j.root, an->ownership, q->width * q->height, q->persp, an->to_move);
    if (q->ownership_stdev && an->ownership_stdev)
        add_ownership_stdev(&j, j.root, an->ownership_stdev, q->width * q->height);
    if (q->policy && raw)
        add_policy(&j, g, raw);
    else if (q->policy && !during)
        add(&j, j.root, "policy", cJSON_CreateNull());
    cJSON *mc = choice ? add(&j, j.root, "moveChoice", cJSON_CreateObject()) : NULL;
    if (mc) {
        char v[8];
        add_str(&j, mc, "move", choice->move == MCTS_RESIGN
                                    ? "resign"
                                    : go_point_to_gtp_rect(q->width, q->height, choice->move,
                                                           v));
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
    if (!a->parallel)   /* else the main thread reads */
        poll_input(a);
    if (atomic_load(&tc->w->stop_running))
        return false;
    if (tc->q->report_every_s > 0 && go_now_s() >= tc->next_s && an->num_moves > 0) {
        tc->next_s += tc->q->report_every_s;
        write_result(a, tc->q, tc->g, tc->turn, an, true, tc->base, NULL, NULL);
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
    o.pv_len = q->pv_len;
    return o;
}

/* The move the query's playPolicy would play after the analysis an (its first move the
 * search's own choice); one query, no memory of earlier moves. */
static bool move_choice(aj_worker *w, const aj_query *q, const go_game *g,
                        const mcts_analysis *an, teach_choice *out, char *err, int err_len)
{
    teach_rng rng = {q->play.seed ? q->play.seed : 1};
    mcts_analysis choice_an = {0};
    nn_result *net = malloc(sizeof *net);
    bool have_an, have_net;
    bool ok = net && teach_play_decide(w->search, NULL, &q->play, g, true,
                                       an->num_moves > 0 ? an->moves[0].move : GO_PASS, NULL,
                                       &rng, &choice_an, &have_an, net, &have_net, out, err,
                                       err_len);
    if (!net)
        snprintf(err, (size_t)err_len, "out of memory");
    mcts_analysis_free(&choice_an);
    free(net);
    return ok;
}

/* maxTime bounds a turn's answer, not its search alone: the search gets what is left after
 * the time spent before it and what answering takes after it, as measured on this worker. */
static int64_t turn_search_ms(const aj_worker *w, int64_t max_time_ms, double before_s)
{
    double ms = (double)max_time_ms - 1000.0 * (before_s + w->answer_s);
    return ms < 1 ? 1 : (int64_t)ms;
}

/* Analyses one turn; returns false (after reporting) on an error. */
static bool analyse_turn(aj_worker *w, const aj_query *q, int turn)
{
    aj_engine *a = w->a;
    char err[512];
    go_game g;
    if (!game_at(q, turn, &g, err, sizeof err)) {
        report(a, q->id, true, "moves", err);
        return false;
    }
    double t0 = go_now_s();
    mcts_limits lim = {0};
    lim.report_interval_cs = AJ_POLL_CS;
    if (q->report_every_s > 0 && q->report_every_s * 100 < AJ_POLL_CS)
        lim.report_interval_cs = (int)fmax(1, q->report_every_s * 100);
    lim.report = report_opts(q);
    teach_analysis_base *base = q->move_features ? malloc(sizeof *base) : NULL;
    turn_ctx tc = {a, w, q, &g, turn, go_now_s() + q->report_every_s, base};
    bool ok = true;
    if (q->move_features) {
        pthread_mutex_lock(&a->engine_lock);   /* the engine evaluates on contexts of its own */
        ok = base ? teach_analysis_base_eval(a->engine, &g, base, err, sizeof err)
                  : !snprintf(err, sizeof err, "out of memory");
        pthread_mutex_unlock(&a->engine_lock);
    }
    bool choose = q->play.policy != TEACH_POLICY_BEST;
    mcts_params params = choose ? teach_play_search_params(&q->play, &q->p, &g) : q->p;
    ok = ok && (!choose || teach_search_player_set_params(w->search, &params, err, sizeof err));
    /* KataGo answers every query with a search of its own: a tree left by a query of other
     * settings (maxVisits, cpuct, ...) must not stand in for this one's */
    if (ok)
        teach_search_player_new_search(w->search);
    if (params.max_time_ms > 0)
        lim.max_time_ms = turn_search_ms(w, params.max_time_ms, go_now_s() - t0);
    ok = ok && teach_player_set_position(w->search, &g, err, sizeof err) &&
         teach_player_analyze(w->search, &lim, on_progress, &tc, err, sizeof err);
    double searched_s = go_now_s();
    if (!ok) {
        report(a, q->id, true, NULL, err);
    } else {
        mcts_analysis an = {0};
        if (teach_player_report(w->search, &lim.report, &an)) {
            teach_choice choice;
            bool chosen = choose && move_choice(w, q, &g, &an, &choice, err, sizeof err);
            if (choose && !chosen)
                report(a, q->id, false, "overrideSettings", err);
            /* the policy is the mean over the eight symmetries (as before); the raw values alone
             * need one evaluation, KataGo's too */
            nn_result *raw = malloc(sizeof *raw);
            if (raw && !teach_search_player_eval_syms(w->search, &g, q->policy ? 0xff : 1, raw,
                                                      err, sizeof err)) {
                free(raw);
                raw = NULL;
            }
            write_result(a, q, &g, turn, &an, false, base, chosen ? &choice : NULL, raw);
            free(raw);
            teach_time_smooth(&w->answer_s, go_now_s() - searched_s, &w->answers);
        } else {
            write_no_results(a, q->id, turn);
        }
        mcts_analysis_free(&an);
    }
    free(base);
    go_game_free(&g);
    return ok;
}

/* Marks w as searching turn of q (NULL: as idle); under the lock with --parallel. */
static void set_running(aj_worker *w, const aj_query *q, int turn)
{
    w->running = q;
    w->running_turn = turn;
    atomic_store(&w->stop_running, false);
}

/* Answers one item on w: a clear_cache (every search shares the cache with --parallel), or a
 * turn of a query under the query's own settings. The item's query is released by the caller;
 * with --parallel the item was taken and w marked running (set_running) under the lock. */
static void run_item(aj_worker *w, aj_item *item)
{
    aj_engine *a = w->a;
    if (!item->query) {
        if (w->search)   /* shido_analysis_check has none */
            teach_search_player_clear(w->search);
        echo_action(a, item->action, "clear_cache");
        cJSON_Delete(item->action);
        return;
    }
    aj_query *q = item->query;
    char err[256];
    if (item->terminated) {
        write_no_results(a, q->id, item->turn);
    } else if (!atomic_load(&q->failed) &&
               !teach_search_player_set_params(w->search, &q->p, err, sizeof err)) {
        report(a, q->id, true, "overrideSettings", err);
        atomic_store(&q->failed, true);
    } else if (!atomic_load(&q->failed)) {
        if (!a->parallel)
            set_running(w, q, item->turn);
        if (!analyse_turn(w, q, item->turn))
            atomic_store(&q->failed, true);
        if (!a->parallel)
            set_running(w, NULL, 0);
    }
}

/* Drops what is queued (the end of output). */
static void queue_free(aj_engine *a)
{
    for (int i = 0; i < a->num_items; i++) {
        if (a->queue[i].query)
            query_release(a->queue[i].query);
        cJSON_Delete(a->queue[i].action);
    }
    free(a->queue);
    a->queue = NULL;
    a->num_items = a->cap = 0;
}

/* Reads and answers queries until the end of input (the input reader a->in is open); frees
 * the queue. Before each item everything already arrived is read, so that priorities compare
 * every waiting turn. Returns the exit status: 1 when the output could not be written. */
static int serve(aj_engine *a)
{
    for (;;) {
        poll_input(a);
        if (a->num_items == 0) {
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
        aj_item item = queue_take(a);
        run_item(&a->workers[0], &item);
        if (item.query)
            query_release(item.query);
        if (ferror(a->out))
            break;
    }
    int rc = ferror(a->out) ? 1 : 0;
    queue_free(a);
    return rc;
}

/* A worker thread: takes the waiting item of highest priority until the input has ended and
 * nothing waits. */
static void *worker_main(void *arg)
{
    aj_worker *w = arg;
    aj_engine *a = w->a;
    pthread_mutex_lock(&a->lock);
    for (;;) {
        while (a->num_items == 0 && !a->eof)
            pthread_cond_wait(&a->work, &a->lock);
        if (a->num_items == 0)
            break;
        aj_item item = queue_take(a);
        if (item.query)
            set_running(w, item.query, item.turn);
        pthread_mutex_unlock(&a->lock);
        run_item(w, &item);
        pthread_mutex_lock(&a->lock);
        set_running(w, NULL, 0);
        if (item.query)
            query_release(item.query);
    }
    pthread_mutex_unlock(&a->lock);
    return NULL;
}

/* --parallel: the workers search while this thread reads the input (so terminate reaches a
 * running turn at once); at the end of input they answer what waits, then stop. */
static int serve_parallel(aj_engine *a)
{
    int started = 0;
    for (; started < a->num_workers; started++)
        if (pthread_create(&a->workers[started].thread, NULL, worker_main,
                           &a->workers[started]) != 0)
            break;
    if (started == 0) {
        fprintf(stderr, "shido analysis: cannot start a worker thread\n");
        return 1;
    }
    for (;;) {
        bool too_long;
        const char *line = line_reader_next(&a->in, &too_long);
        pthread_mutex_lock(&a->lock);
        if (line)
            accept_line(a, line, too_long);
        else
            a->eof = true;
        pthread_cond_broadcast(&a->work);
        pthread_mutex_unlock(&a->lock);
        if (!line)
            break;
    }
    for (int i = 0; i < started; i++)
        pthread_join(a->workers[i].thread, NULL);
    int rc = ferror(a->out) ? 1 : 0;
    queue_free(a);
    return rc;
}

/* The parts of an engine every mode has: locks, and worker 0 (the main thread's) on search. */
static void engine_init(aj_engine *a, aj_worker *first, teach_player *search)
{
    pthread_mutex_init(&a->lock, NULL);
    pthread_mutex_init(&a->out_lock, NULL);
    pthread_mutex_init(&a->engine_lock, NULL);
    pthread_cond_init(&a->work, NULL);
    *first = (aj_worker){.a = a, .search = search};
    a->workers = first;
    a->num_workers = 1;
    a->search = search;
}

static void engine_destroy(aj_engine *a)
{
    pthread_mutex_destroy(&a->lock);
    pthread_mutex_destroy(&a->out_lock);
    pthread_mutex_destroy(&a->engine_lock);
    pthread_cond_destroy(&a->work);
}

int shido_analysis_check(FILE *in, FILE *out)
{
    aj_engine a = {0};
    aj_worker w0;
    a.base = mcts_params_default();
    a.base_play = teach_play_params_default();
    a.out = out;
    engine_init(&a, &w0, NULL);
    int rc = 1;
    if (line_reader_init(&a.in, in)) {
        rc = serve(&a);
        line_reader_free(&a.in);
    }
    engine_destroy(&a);
    return rc;
}

/* ---- the command ------------------------------------------------------------------------- */

#define AJ_OPTIONS_HELP                                                                          \
    "  --parallel N      search N turns at once (KataGo's numAnalysisThreads), their network\n"  \
    "                    evaluations batched together on one service per device\n"            \
    "  --nn-contexts K   batches evaluated at once per device (network contexts; default\n"  \
    "                    min(N, 2))\n"

static int usage(const char *err)
{
    fprintf(stderr, "shido analysis: %s\nusage: shido analysis [--parallel N] [--nn-contexts K] "
            "%s\n%s" AJ_OPTIONS_HELP, err, teach_options_synopsis(), teach_options_help());
    return 2;
}

/* --parallel's workers: one client search each, spread over the engine's services (started
 * here: batches of every worker's leaves, per device). False with a message. */
static bool workers_start(aj_engine *a, int n, int nn_contexts, char *err, int err_len)
{
    const mcts_params *p = teach_engine_params(a->engine);
    long max_batch = (long)n * p->num_threads * p->batch_size;
    max_batch = max_batch < 16 ? 16 : max_batch > 4096 ? 4096 : max_batch;
    const char *backend = nn_model_backend(teach_engine_model(a->engine, 0));
    /* a GPU is worth waiting for a fuller batch; CPU threads are not */
    int wait_us = backend && !strcmp(backend, "cuda") ? AJ_GPU_WAIT_US : 0;
    if (!teach_engine_start_services(a->engine, (int)max_batch, nn_contexts, wait_us, err,
                                     err_len))
        return false;
    fprintf(stderr, "shido analysis: %d parallel searches on %d evaluation service(s) of %d "
            "context(s), batches up to %ld\n", n, teach_engine_num_services(a->engine),
            nn_contexts, max_batch);
    a->workers = calloc((size_t)n, sizeof *a->workers);
    if (!a->workers) {
        snprintf(err, (size_t)err_len, "out of memory");
        return false;
    }
    a->num_workers = n;
    for (int i = 0; i < n; i++) {
        a->workers[i].a = a;
        if (!(a->workers[i].search = teach_search_player_new_client(a->engine, i, err, err_len)))
            return false;
    }
    a->search = a->workers[0].search;
    a->parallel = true;
    return true;
}

static void workers_free(aj_engine *a)
{
    for (int i = 0; i < a->num_workers; i++)
        teach_player_free(a->workers[i].search);
    free(a->workers);
}

int shido_cmd_analysis(int argc, char **argv)
{
    aj_engine a = {0};
    aj_worker w0;
    a.out = stdout;
    teach_options o;
    teach_options_init(&o);
    char err[512];
    int parallel = 1, nn_contexts = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            printf("usage: shido analysis [--parallel N] [--nn-contexts K] %s\nKataGo's JSON "
                   "analysis protocol on standard input and output (one network)\n%s"
                   AJ_OPTIONS_HELP, teach_options_synopsis(), teach_options_help());
            return 0;
        }
        if (!strcmp(argv[i], "--parallel") || !strcmp(argv[i], "--nn-contexts")) {
            bool par = argv[i][2] == 'p';
            char *end = NULL;
            long v = i + 1 < argc ? strtol(argv[i + 1], &end, 10) : 0;
            if (!end || *end || v < 1 || v > (par ? AJ_MAX_PARALLEL : 64)) {
                snprintf(err, sizeof err, "%s needs a count from 1 to %d", argv[i],
                         par ? AJ_MAX_PARALLEL : 64);
                return usage(err);
            }
            *(par ? &parallel : &nn_contexts) = (int)v;
            i++;
            continue;
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
    teach_player *search = parallel > 1 ? NULL : teach_search_player_new(a.engine, err,
                                                                            sizeof err);
    engine_init(&a, &w0, search);
    bool ok = parallel > 1 ? workers_start(&a, parallel, nn_contexts ? nn_contexts
                                                         : parallel < 2 ? parallel : 2,
                                           err, sizeof err)
                           : search != NULL;
    if (!ok || !line_reader_init(&a.in, stdin)) {
        fprintf(stderr, "shido analysis: cannot start the search: %s\n",
                ok ? "out of memory" : err);
    } else {
        ok = (a.parallel ? serve_parallel(&a) : serve(&a)) == 0;
        line_reader_free(&a.in);
    }
    if (a.workers != &w0)
        workers_free(&a);
    else
        teach_player_free(search);
    engine_destroy(&a);
    teach_engine_free(a.engine);
    return ok ? 0 : 1;
}
