/* tools/match.c -- `shido match`: options, the worker threads (one engine pair each), progress
 * lines, the JSON Lines records and the final tally with its Wilson interval. One game is played
 * by tools/match_game.c. */
#include "tools/args.h"
#include "tools/match.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "go/clock.h"
#include "go/game.h"
#include "go/sgf.h"
#include "tools/match_internal.h"
#include "tools/progress.h"

#define Z_95 1.959963984540054 /* two-sided 95% normal quantile */

typedef struct match_worker {
    match_state *st;
    match_engine eng[2];
    pthread_t thread;
    bool started;
} match_worker;

void match_wilson_interval(double successes, int n, double z, double *lo, double *hi)
{
    if (n <= 0) {
        *lo = 0;
        *hi = 1;
        return;
    }
    double p = successes / n, z2 = z * z, denom = 1 + z2 / n;
    double center = (p + z2 / (2.0 * n)) / denom;
    double half = z * sqrt(p * (1 - p) / n + z2 / (4.0 * n * n)) / denom;
    *lo = fmax(0, center - half);
    *hi = fmin(1, center + half);
}

/* --- options --- */

void match_openings_free(match_options *opt)
{
    for (int i = 0; i < opt->num_openings; i++)
        free(opt->openings[i].moves);
    free(opt->openings);
    opt->openings = NULL;
    opt->num_openings = 0;
}

/* Reads the opening SPEC (FILE or FILE:N) into o, checked against the match: the board size,
 * no setup or handicap stones, every move legal under the match's rules. */
static bool load_opening(const match_options *opt, const char *spec, match_opening *o,
                         char *err, int err_len)
{
    char path[1024];
    long limit = -1;
    const char *colon = strrchr(spec, ':');
    size_t len = strlen(spec);
    if (colon && colon[1] && strspn(colon + 1, "0123456789") == strlen(colon + 1)) {
        if (!tools_parse_long(colon + 1, 0, 100000, &limit)) {
            snprintf(err, (size_t)err_len, "move count '%s' out of range", colon + 1);
            return false;
        }
        len = (size_t)(colon - spec);
    }
    if (len == 0 || len >= sizeof path) {
        snprintf(err, (size_t)err_len, "no file named");
        return false;
    }
    memcpy(path, spec, len);
    path[len] = 0;
    char why[512];
    go_sgf_collection *c = go_sgf_read_file(path, why, sizeof why);
    if (!c) {
        snprintf(err, (size_t)err_len, "%s", why);
        return false;
    }
    go_game g;
    bool have = c->num_games > 0;
    bool ok = have && go_sgf_to_game(c->games[0], (int)limit, &g, why, sizeof why);
    go_sgf_free(c);
    if (!ok) {
        snprintf(err, (size_t)err_len, "%s", have ? why : "no game in the file");
        return false;
    }
    bool setup = g.handicap > 0;
    for (int q = 0; q < GO_POINTS && !setup; q++)
        setup = g.setup.color[q] == GO_BLACK || g.setup.color[q] == GO_WHITE;
    if (g.board.size != opt->size)
        snprintf(err, (size_t)err_len, "a %dx%d game, the match is %dx%d", g.board.size,
                 g.board.size, opt->size, opt->size);
    else if (setup)
        snprintf(err, (size_t)err_len, "setup or handicap stones (only moves can be replayed)");
    else if (limit > g.num_moves)
        snprintf(err, (size_t)err_len, "%ld moves asked, the game has %d", limit, g.num_moves);
    ok = g.board.size == opt->size && !setup && limit <= g.num_moves;
    go_game check;
    if (ok && !go_game_init(&check, opt->size, &opt->rules, opt->komi)) {
        snprintf(err, (size_t)err_len, "out of memory");
        ok = false;
    } else if (ok) {
        for (int i = 0; ok && i < g.num_moves; i++) {
            go_move_status st = go_game_play(&check, g.moves[i].point, g.moves[i].color);
            if (st != GO_MOVE_OK) {
                snprintf(err, (size_t)err_len, "move %d: %s under the match's rules", i + 1,
                         go_move_status_text(st));
                ok = false;
            }
        }
        go_game_free(&check);
    }
    o->spec = spec;
    o->num_moves = g.num_moves;
    o->moves = ok ? malloc(sizeof *o->moves * (size_t)(g.num_moves > 0 ? g.num_moves : 1)) : NULL;
    if (ok && !o->moves) {
        snprintf(err, (size_t)err_len, "out of memory");
        ok = false;
    }
    if (ok && g.num_moves > 0)
        memcpy(o->moves, g.moves, sizeof *o->moves * (size_t)g.num_moves);
    go_game_free(&g);
    return ok;
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: shido match --engine1 CMD --engine2 CMD [options]\n"
            "  --engine1 CMD, --engine2 CMD  GTP engines, each run as /bin/sh -c CMD\n"
            "  --name1 S, --name2 S          names in the output and SGF (default: GTP name "
            "and version)\n"
            "  --games N (2)                 game i (from 0) has engine1 black when i is even\n"
            "  --size N (19)  --komi K (7.5, 0.5 with handicap)  --handicap H (0; 2..9)\n"
            "  --rules NAME                  sent by kata-set-rules to engines that know it; also\n"
            "                                shido's rules for legality and scoring (default "
            "chinese)\n"
            "  --time-settings M,B,S         time_settings M B S (main s, byo-yomi s, stones);\n"
            "                                shido keeps the clocks and a fallen flag loses\n"
            "  --time-grace S (0)            a move over the clock by at most S does not lose\n"
            "                                (counted as late; for a loaded machine)\n"
            "  --setup1 GTP, --setup2 GTP    extra command sent at each game start (repeatable;\n"
            "                                {seed} becomes seed + game index)\n"
            "  --sgf-dir DIR                 one SGF per game: DIR/game-NNNN.sgf\n"
            "  --jsonl FILE                  one JSON record per game\n"
            "  --max-moves N (size*size*3)   then the game is scored as it stands\n"
            "  --opening SGF[:N]             games 2k and 2k+1 (colours swapped) start from the\n"
            "                                k-th opening (repeatable, taken in turn): the main\n"
            "                                line of the SGF's first game, or its first N moves\n"
            "  --seed S (1)  --parallel P (1) games at once, each with its own engines\n"
            "  --timeout S (30)  --genmove-timeout S (300)  deadline per command in seconds\n"
            "  --show-engine-stderr          pass the engines' stderr through (default: quoted "
            "on failure)\n");
}

static int bad_option(const char *fmt, const char *what)
{
    fprintf(stderr, "shido match: ");
    fprintf(stderr, fmt, what);
    fprintf(stderr, "\n");
    usage(stderr);
    return 2;
}

static bool parse_double(const char *s, double lo, double hi, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end || errno || !(v >= lo && v <= hi))
        return false;
    *out = v;
    return true;
}

/* Fills opt from argv. Returns 0, or 2 after printing what is wrong. */
static int parse_options(int argc, char **argv, match_options *opt)
{
    memset(opt, 0, sizeof *opt);
    opt->games = 2;
    opt->size = 19;
    opt->parallel = 1;
    opt->seed = 1;
    opt->timeout_ms = 30000;
    opt->genmove_timeout_ms = 300000;
    bool komi_given = false;
    long max_moves = 0;
    const char *opening[MATCH_MAX_OPENINGS];
    int num_openings = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return -1;
        }
        if (!strcmp(a, "--show-engine-stderr")) {
            opt->show_stderr = true;
            continue;
        }
        if (strncmp(a, "--", 2) != 0)
            return bad_option("unexpected argument '%s'", a);
        if (i + 1 >= argc)
            return bad_option("%s needs a value", a);
        const char *v = argv[++i];
        long n;
        double d;
        if (!strcmp(a, "--engine1") || !strcmp(a, "--engine2")) {
            opt->command[a[8] - '1'] = v;
        } else if (!strcmp(a, "--name1") || !strcmp(a, "--name2")) {
            int e = a[6] - '1';
            snprintf(opt->name[e], sizeof opt->name[e], "%s", v);
            opt->name_given[e] = true;
        } else if (!strcmp(a, "--setup1") || !strcmp(a, "--setup2")) {
            int e = a[7] - '1';
            if (opt->num_setup[e] == MATCH_MAX_SETUP)
                return bad_option("more than 32 %s commands", a);
            opt->setup[e][opt->num_setup[e]++] = v;
        } else if (!strcmp(a, "--games")) {
            if (!tools_parse_long(v, 1, 1000000, &n))
                return bad_option("--games must be 1..1000000, not '%s'", v);
            opt->games = (int)n;
        } else if (!strcmp(a, "--size")) {
            if (!tools_parse_long(v, GO_MIN_SIZE, GO_MAX_SIZE, &n))
                return bad_option("--size must be 2..19, not '%s'", v);
            opt->size = (int)n;
        } else if (!strcmp(a, "--komi")) {
            if (!parse_double(v, -1000, 1000, &d) || d * 2 != floor(d * 2))
                return bad_option("--komi must be a multiple of 0.5 in -1000..1000, not '%s'", v);
            opt->komi = (float)d;
            komi_given = true;
        } else if (!strcmp(a, "--handicap")) {
            if (!tools_parse_long(v, 0, 9, &n) || n == 1)
                return bad_option("--handicap must be 0 or 2..9, not '%s'", v);
            opt->handicap = (int)n;
        } else if (!strcmp(a, "--rules")) {
            char err[256];
            if (!go_rules_parse(&opt->rules, v, err, sizeof err))
                return bad_option("--rules: %s", err);
            opt->rules_text = v;
        } else if (!strcmp(a, "--time-settings")) {
            long m, b, s;
            char extra;
            if (sscanf(v, "%ld,%ld,%ld%c", &m, &b, &s, &extra) != 3 || m < 0 || b < 0 || s < 0 ||
                m > 1000000 || b > 1000000 || s > 1000000)
                return bad_option("--time-settings must be M,B,S (seconds, seconds, stones), "
                                  "not '%s'", v);
            opt->timed = true;
            opt->main_time_s = (int)m;
            opt->byoyomi_s = (int)b;
            opt->byoyomi_stones = (int)s;
            /* GTP's reading: stones 0 and a byo-yomi time is no limit, a byo-yomi time of 0
             * sudden death, else Canadian overtime (one stone: Japanese byo-yomi's one period) */
            if (b > 0 && s == 0)
                opt->clock = (go_time_control){.system = GO_TIME_NONE};
            else if (b == 0)
                opt->clock = (go_time_control){.system = GO_TIME_ABSOLUTE, .main_time_s = m};
            else
                opt->clock = (go_time_control){.system = GO_TIME_CANADIAN, .main_time_s = m,
                                               .period_time_s = b, .period_stones = (int)s};
        } else if (!strcmp(a, "--sgf-dir")) {
            opt->sgf_dir = v;
        } else if (!strcmp(a, "--jsonl")) {
            opt->jsonl_path = v;
        } else if (!strcmp(a, "--opening")) {
            if (num_openings == MATCH_MAX_OPENINGS)
                return bad_option("more than 1000 %s positions", a);
            opening[num_openings++] = v;
        } else if (!strcmp(a, "--max-moves")) {
            if (!tools_parse_long(v, 1, 100000, &max_moves))
                return bad_option("--max-moves must be 1..100000, not '%s'", v);
        } else if (!strcmp(a, "--seed")) {
            char *end;
            errno = 0;
            opt->seed = strtoull(v, &end, 10);
            if (end == v || *end || errno || v[0] == '-')
                return bad_option("--seed must be a non-negative integer, not '%s'", v);
        } else if (!strcmp(a, "--parallel")) {
            if (!tools_parse_long(v, 1, 64, &n))
                return bad_option("--parallel must be 1..64, not '%s'", v);
            opt->parallel = (int)n;
        } else if (!strcmp(a, "--time-grace")) {
            if (!parse_double(v, 0, 3600, &d))
                return bad_option("--time-grace must be 0..3600 seconds, not '%s'", v);
            opt->time_grace_s = d;
        } else if (!strcmp(a, "--timeout") || !strcmp(a, "--genmove-timeout")) {
            if (!parse_double(v, 0.001, 86400, &d))
                return bad_option("timeouts must be 0.001..86400 seconds, not '%s'", v);
            *(a[2] == 't' ? &opt->timeout_ms : &opt->genmove_timeout_ms) = (int)(d * 1000);
        } else {
            return bad_option("unknown option '%s'", a);
        }
    }
    for (int e = 0; e < 2; e++)
        if (!opt->command[e] || !opt->command[e][0])
            return bad_option("%s is required", e == 0 ? "--engine1" : "--engine2");
    int pts[9];
    if (opt->handicap > 0 && go_fixed_handicap_points(opt->size, opt->handicap, pts) == 0) {
        char text[16];
        snprintf(text, sizeof text, "%d", opt->handicap);
        return bad_option("no fixed handicap of %s stones on this board size", text);
    }
    if (!komi_given)
        opt->komi = opt->handicap > 0 ? 0.5f : 7.5f;
    if (!opt->rules_text)
        go_rules_preset(&opt->rules, "chinese");
    opt->max_moves = max_moves > 0 ? (int)max_moves : opt->size * opt->size * 3;
    if (num_openings > 0 && opt->handicap > 0)
        return bad_option("--opening and --handicap %s exclude each other", "together");
    if (num_openings > 0 && !(opt->openings = calloc((size_t)num_openings, sizeof *opt->openings)))
        return bad_option("out of memory%s", "");
    for (int i = 0; i < num_openings; i++) {
        char err[700];
        if (!load_opening(opt, opening[i], &opt->openings[opt->num_openings], err, sizeof err)) {
            fprintf(stderr, "shido match: --opening %s: %s\n", opening[i], err);
            match_openings_free(opt);
            return 2;
        }
        opt->num_openings++;
    }
    return 0;
}

/* --- output --- */

static const char *engine_label(int e) { return e == 0 ? "engine1" : "engine2"; }

static const char *end_text(match_end end)
{
    switch (end) {
    case MATCH_END_PASSES: return "two passes";
    case MATCH_END_MOVE_LIMIT: return "move limit";
    case MATCH_END_RESIGN: return "resignation";
    case MATCH_END_ILLEGAL: return "illegal move";
    case MATCH_END_FORFEIT: return "forfeit";
    case MATCH_END_TIME: return "time";
    case MATCH_END_VOID: return "void";
    }
    return "?";
}

/* Adds key: item to o; false (item deleted) when cJSON could not allocate. */
static bool json_add(cJSON *o, const char *key, cJSON *item)
{
    if (item && cJSON_AddItemToObject(o, key, item))
        return true;
    cJSON_Delete(item);
    return false;
}

/* A string, or null when value is NULL. */
static bool json_add_text(cJSON *o, const char *key, const char *value)
{
    return json_add(o, key, value ? cJSON_CreateString(value) : cJSON_CreateNull());
}

/* The JSON record of a game, NULL when out of memory. Keys in a fixed order; think times
 * rounded to milliseconds; the seed as an exact integer (it may pass 2^53). */
static cJSON *game_record(const match_options *opt, const match_result *r)
{
    int b = r->black, w = 1 - r->black;
    char seed[32];
    snprintf(seed, sizeof seed, "%llu", opt->seed + (unsigned long long)r->game);
    double think_s[2] = {round(r->think_s[0] * 1e3) / 1e3, round(r->think_s[1] * 1e3) / 1e3};
    cJSON *o = cJSON_CreateObject();
    bool ok = o && json_add(o, "game", cJSON_CreateNumber(r->game + 1)) &&
              json_add_text(o, "black", engine_label(b)) &&
              json_add_text(o, "white", engine_label(w)) &&
              json_add_text(o, "black_name", opt->name[b]) &&
              json_add_text(o, "white_name", opt->name[w]) &&
              json_add_text(o, "result", r->re) &&
              json_add_text(o, "winner", r->winner >= 0            ? engine_label(r->winner)
                                         : r->winner == MATCH_DRAW ? "draw"
                                                                   : NULL) &&
              json_add(o, "moves", cJSON_CreateNumber(r->moves)) &&
              json_add_text(o, "end", end_text(r->end)) &&
              json_add_text(o, "reason", r->reason) &&
              json_add(o, "adjudicated_by_shido", cJSON_CreateBool(r->by_shido)) &&
              json_add(o, "black_lead", r->have_lead && fabs(r->black_lead) < 1e8
                                            ? cJSON_CreateNumber(r->black_lead)
                                            : cJSON_CreateNull()) &&
              json_add_text(o, "final_score_engine1", r->final_score[0][0] ? r->final_score[0]
                                                                           : NULL) &&
              json_add_text(o, "final_score_engine2", r->final_score[1][0] ? r->final_score[1]
                                                                           : NULL) &&
              json_add_text(o, "errors_engine1", r->errors[0][0] ? r->errors[0] : NULL) &&
              json_add_text(o, "errors_engine2", r->errors[1][0] ? r->errors[1] : NULL) &&
              json_add(o, "think_s_engine1", cJSON_CreateNumber(think_s[0])) &&
              json_add(o, "think_s_engine2", cJSON_CreateNumber(think_s[1])) &&
              json_add(o, "genmoves_engine1", cJSON_CreateNumber(r->moves_by[0])) &&
              json_add(o, "late_engine1", cJSON_CreateNumber(r->late[0])) &&
              json_add(o, "late_engine2", cJSON_CreateNumber(r->late[1])) &&
              json_add(o, "genmoves_engine2", cJSON_CreateNumber(r->moves_by[1])) &&
              json_add(o, "longest_s_engine1", cJSON_CreateNumber(round(r->longest_s[0] * 1e3) / 1e3)) &&
              json_add(o, "longest_s_engine2", cJSON_CreateNumber(round(r->longest_s[1] * 1e3) / 1e3)) &&
              json_add(o, "seed", cJSON_CreateRaw(seed)) &&
              json_add_text(o, "opening", r->opening >= 0 ? opt->openings[r->opening].spec
                                                          : NULL) &&
              json_add_text(o, "sgf", r->sgf_path[0] ? r->sgf_path : NULL) &&
              json_add_text(o, "detail", r->detail);
    if (!ok) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

/* Writes the game's JSON line (a line with only "game" and "error" when out of memory). */
static void write_jsonl(match_state *st, const match_result *r)
{
    cJSON *o = game_record(st->opt, r);
    char *text = o ? cJSON_PrintUnformatted(o) : NULL;
    if (text)
        fprintf(st->jsonl, "%s\n", text);
    else
        fprintf(st->jsonl, "{\"game\":%d,\"error\":\"out of memory\"}\n", r->game + 1);
    fflush(st->jsonl);
    cJSON_free(text);
    cJSON_Delete(o);
}

/* Prints a finished game (progress line with the games done, the time since the start and the
 * ETA; engine failures on stderr; JSON record). Called with st->lock held. */
static void report_game(match_state *st, const match_result *r, const match_engine eng[2])
{
    const match_options *opt = st->opt;
    for (int e = 0; e < 2; e++)
        if (r->errors[e][0])
            fprintf(stderr, "shido match: game %d: %s (%s) failed: %s%s\n", r->game + 1,
                    engine_label(e), opt->name[e], r->errors[e],
                    eng[e].gtp.dead ? "; it will be restarted" : "");
    char why[300];
    if (r->end == MATCH_END_PASSES || r->end == MATCH_END_MOVE_LIMIT)
        snprintf(why, sizeof why, "%s; %s", end_text(r->end), r->reason);
    else
        snprintf(why, sizeof why, "%s", r->reason);
    double el = go_now_s() - st->start_s;
    int n = ++st->finished;
    char took[32], left[32];
    printf("game %3d/%d: B %s, W %s: %s, %d moves, %s [%d of %d done in %s, ETA %s]\n",
           r->game + 1, opt->games, engine_label(r->black), engine_label(1 - r->black), r->re,
           r->moves, why, n, opt->games, progress_duration(el, took, sizeof took),
           progress_duration(el * (opt->games - n) / n, left, sizeof left));
    fflush(stdout);
    fflush(stderr);
    if (st->jsonl)
        write_jsonl(st, r);
}

/* The tally of the games played: wins, win rate of engine1 with its interval, colours. */
static void report_match(const match_state *st)
{
    const match_options *opt = st->opt;
    int played = 0, wins[2] = {0, 0}, draws = 0, voids = 0, by_shido = 0;
    int black_games[2] = {0, 0}, black_wins[2] = {0, 0}, white_games[2] = {0, 0},
        white_wins[2] = {0, 0}, forfeits[2] = {0, 0}, illegal[2] = {0, 0}, on_time[2] = {0, 0};
    double think[2] = {0, 0}, longest[2] = {0, 0};
    int genmoves[2] = {0, 0}, late[2] = {0, 0};
    for (int i = 0; i < opt->games; i++) {
        if (!st->done[i])
            continue;
        const match_result *r = &st->results[i];
        played++;
        by_shido += r->by_shido;
        for (int e = 0; e < 2; e++) {
            think[e] += r->think_s[e];
            genmoves[e] += r->moves_by[e];
            late[e] += r->late[e];
            if (r->longest_s[e] > longest[e])
                longest[e] = r->longest_s[e];
        }
        if (r->winner == MATCH_NO_RESULT) {
            voids++;
            continue;
        }
        black_games[r->black]++;
        white_games[1 - r->black]++;
        if (r->winner == MATCH_DRAW) {
            draws++;
            continue;
        }
        wins[r->winner]++;
        if (r->winner == r->black)
            black_wins[r->winner]++;
        else
            white_wins[r->winner]++;
        int loser = 1 - r->winner;
        forfeits[loser] += r->end == MATCH_END_FORFEIT;
        illegal[loser] += r->end == MATCH_END_ILLEGAL;
        on_time[loser] += r->end == MATCH_END_TIME;
    }
    int decided = wins[0] + wins[1] + draws;
    double score = wins[0] + 0.5 * draws, lo, hi;
    match_wilson_interval(score, decided, Z_95, &lo, &hi);
    printf("\nmatch: %d of %d games played: engine1 %s %d wins, engine2 %s %d wins, %d draws, "
           "%d void\n",
           played, opt->games, opt->name[0], wins[0], opt->name[1], wins[1], draws, voids);
    printf("engine1 win rate %.1f%% (95%% CI %.1f%% .. %.1f%%, Wilson score interval, %d games "
           "with a result, draws count half)\n",
           decided ? 100.0 * score / decided : 0.0, 100 * lo, 100 * hi, decided);
    for (int e = 0; e < 2; e++)
        printf("%s as black %d/%d wins, as white %d/%d wins; lost %d by forfeit, %d by illegal "
               "move, %d on time\n",
               engine_label(e), black_wins[e], black_games[e], white_wins[e], white_games[e],
               forfeits[e], illegal[e], on_time[e]);
    for (int e = 0; e < 2; e++)
        printf("%s thought %.3f s a move on average (%d moves), %.3f s at most, %d moves late "
               "within the grace\n",
               engine_label(e), genmoves[e] ? think[e] / genmoves[e] : 0.0, genmoves[e],
               longest[e], late[e]);
    printf("scored by shido (engines disagreed or could not score): %d games\n", by_shido);
    fflush(stdout);
}

/* --- workers --- */

static void *worker_main(void *arg)
{
    match_worker *w = arg;
    match_state *st = w->st;
    for (;;) {
        pthread_mutex_lock(&st->lock);
        int i = st->abort || st->next_game >= st->opt->games ? -1 : st->next_game++;
        pthread_mutex_unlock(&st->lock);
        if (i < 0)
            break;
        match_result *r = &st->results[i];
        memset(r, 0, sizeof *r);
        r->game = i;
        r->opening = st->opt->num_openings > 0 ? i / 2 % st->opt->num_openings : -1;
        char why[700];
        bool ok = match_play_game(st, w->eng, r, why, sizeof why);
        pthread_mutex_lock(&st->lock);
        if (ok) {
            st->done[i] = true;
            report_game(st, r, w->eng);
        } else if (!st->abort) {
            st->abort = true;
            snprintf(st->abort_why, sizeof st->abort_why, "%s", why);
        }
        pthread_mutex_unlock(&st->lock);
        if (!ok)
            break;
    }
    match_engine_down(&w->eng[0]);
    match_engine_down(&w->eng[1]);
    return NULL;
}

/* First line of a reply, for names. */
static void first_line(char *s)
{
    s[strcspn(s, "\r\n")] = 0;
}

/* Starts the first worker's engines, reads their names, and says whether both could start. */
static bool first_engines(match_options *opt, match_engine eng[2])
{
    for (int e = 0; e < 2; e++) {
        char why[700];
        int up = match_engine_up(opt, &eng[e], e, why, sizeof why);
        if (up < 0) {
            fprintf(stderr, "shido match: %s cannot start (%s): %s\n", engine_label(e),
                    opt->command[e], why);
            return false;
        }
        if (up == 0)
            fprintf(stderr, "shido match: warning: %s misbehaves at start (%s): %s\n",
                    engine_label(e), opt->command[e], why);
        if (opt->name_given[e])
            continue;
        char name[MATCH_NAME_LEN], version[MATCH_NAME_LEN];
        if (up > 0 &&
            gtp_client_cmd(&eng[e].gtp, opt->timeout_ms, "name", name, sizeof name) ==
                GTP_CLIENT_OK &&
            gtp_client_cmd(&eng[e].gtp, opt->timeout_ms, "version", version, sizeof version) ==
                GTP_CLIENT_OK) {
            first_line(name);
            first_line(version);
            snprintf(opt->name[e], sizeof opt->name[e], "%.60s%s%.60s", name,
                     version[0] ? " " : "", version);
        }
        if (!opt->name[e][0])
            snprintf(opt->name[e], sizeof opt->name[e], "%s", engine_label(e));
    }
    if (!strcmp(opt->name[0], opt->name[1]))
        for (int e = 0; e < 2; e++)
            if (!opt->name_given[e]) {
                size_t n = strlen(opt->name[e]);
                snprintf(opt->name[e] + n, sizeof opt->name[e] - n, " #%d", e + 1);
            }
    return true;
}

int shido_cmd_match(int argc, char **argv)
{
    match_options opt;
    int rc = parse_options(argc, argv, &opt);
    if (rc)
        return rc < 0 ? 0 : rc;
    struct sigaction ign;
    memset(&ign, 0, sizeof ign);
    ign.sa_handler = SIG_IGN;
    sigaction(SIGPIPE, &ign, NULL);

    if (opt.sgf_dir && mkdir(opt.sgf_dir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "shido match: cannot create %s: %s\n", opt.sgf_dir, strerror(errno));
        return 1;
    }
    match_state st = {.opt = &opt, .lock = PTHREAD_MUTEX_INITIALIZER};
    int workers = opt.parallel < opt.games ? opt.parallel : opt.games;
    st.results = calloc((size_t)opt.games, sizeof *st.results);
    st.done = calloc((size_t)opt.games, sizeof *st.done);
    match_worker *w = calloc((size_t)workers, sizeof *w);
    if (!st.results || !st.done || !w) {
        fprintf(stderr, "shido match: out of memory\n");
        rc = 1;
        goto out;
    }
    if (opt.jsonl_path && !(st.jsonl = fopen(opt.jsonl_path, "w"))) {
        fprintf(stderr, "shido match: cannot write %s: %s\n", opt.jsonl_path, strerror(errno));
        rc = 1;
        goto out;
    }
    if (!first_engines(&opt, w[0].eng)) {
        rc = 1;
        goto out;
    }
    printf("shido match: %d games on %dx%d, komi %g, handicap %d, rules %s, max %d moves, "
           "%d at a time, seed %llu",
           opt.games, opt.size, opt.size, opt.komi, opt.handicap,
           opt.rules_text ? opt.rules_text : "(engine defaults; shido scores chinese)",
           opt.max_moves, workers, opt.seed);
    if (opt.num_openings > 0)
        printf(", %d openings", opt.num_openings);
    printf("\n");
    for (int e = 0; e < 2; e++)
        printf("  %s: %s [%s]\n", engine_label(e), opt.name[e], opt.command[e]);
    fflush(stdout);
    st.start_s = go_now_s();
    for (int i = 0; i < workers; i++) {
        w[i].st = &st;
        int err = pthread_create(&w[i].thread, NULL, worker_main, &w[i]);
        if (err) {
            fprintf(stderr, "shido match: cannot start a worker thread: %s\n", strerror(err));
            pthread_mutex_lock(&st.lock);
            st.abort = true;
            pthread_mutex_unlock(&st.lock);
            break;
        }
        w[i].started = true;
    }
    for (int i = 0; i < workers; i++)
        if (w[i].started)
            pthread_join(w[i].thread, NULL);
    report_match(&st);
    if (st.abort) {
        if (st.abort_why[0])
            fprintf(stderr, "shido match: match stopped: %s\n", st.abort_why);
        rc = 1;
    }
out:
    for (int i = 0; w && i < workers; i++) {
        match_engine_down(&w[i].eng[0]);
        match_engine_down(&w[i].eng[1]);
    }
    if (st.jsonl && fclose(st.jsonl) != 0) {
        fprintf(stderr, "shido match: error writing %s\n", opt.jsonl_path);
        rc = 1;
    }
    free(w);
    free(st.done);
    free(st.results);
    match_openings_free(&opt);
    return rc;
}
