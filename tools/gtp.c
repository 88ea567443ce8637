/* tools/gtp.c -- the GTP v2 engine: line cleaning, the command table and the commands. */
#include "tools/gtp.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "go/clock.h"
#include "go/score.h"
#include "go/sgf.h"
#include "weights/desc_lz.h"
#include "tools/commands.h"
#include "tools/gtp_internal.h"

/* ---- reply text ------------------------------------------------------------------------- */

static void text_reserve(gtp_text *t, size_t extra)
{
    if (t->oom || t->len + extra + 1 <= t->cap)
        return;
    size_t cap = t->cap ? t->cap : 256;
    while (cap < t->len + extra + 1)
        cap *= 2;
    char *d = realloc(t->data, cap);
    if (!d) {
        t->oom = true;
        return;
    }
    t->data = d;
    t->cap = cap;
}

void gtp_text_add(gtp_text *t, const char *s)
{
    size_t n = strlen(s);
    text_reserve(t, n);
    if (t->oom)
        return;
    memcpy(t->data + t->len, s, n + 1);
    t->len += n;
}

void gtp_text_clear(gtp_text *t)
{
    t->len = 0;
    if (t->data)
        t->data[0] = 0;
}

void gtp_text_printf(gtp_text *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    text_reserve(t, (size_t)n);
    if (t->oom)
        return;
    va_start(ap, fmt);
    vsnprintf(t->data + t->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    t->len += (size_t)n;
}

/* Writes "=id body" or "?id body" and the terminating empty line. The body's first line shares
 * the status line (so showboard's diagram, which starts with a newline, begins on a line of its
 * own); later empty or blank lines are dropped, since an empty line ends a GTP reply. */
void gtp_write_reply(FILE *out, bool ok, const char *id, const char *body)
{
    fprintf(out, "%c%s", ok ? '=' : '?', id);
    if (body && *body) {
        fputc(' ', out);
        const char *s = body;
        bool first = true;
        while (*s) {
            const char *eol = strchr(s, '\n');
            size_t n = eol ? (size_t)(eol - s) : strlen(s);
            bool blank = strspn(s, " \t\r") >= n;
            if (first || !blank) {
                if (!first)
                    fputc('\n', out);
                fwrite(s, 1, n, out);
            }
            first = false;
            s += n;
            if (*s == '\n')
                s++;
        }
    }
    fputs("\n\n", out);
    fflush(out);
}

/* ---- argument parsing ------------------------------------------------------------------- */

/* A decimal integer that fits an int, nothing else (GTP's "int"). */
bool gtp_parse_int(const char *s, int *out)
{
    const char *digits = *s == '-' ? s + 1 : s;
    if (*digits < '0' || *digits > '9')
        return false;
    errno = 0;
    char *end;
    long v = strtol(s, &end, 10);
    if (*end || errno == ERANGE || v < INT_MIN || v > INT_MAX)
        return false;
    *out = (int)v;
    return true;
}

/* A finite number that also stays finite as a float (komi and clocks are floats elsewhere). */
bool gtp_parse_number(const char *s, double *out)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s || *end || !isfinite(v) || !isfinite((float)v))
        return false;
    *out = v;
    return true;
}

bool gtp_parse_color(const char *s, go_color *c)
{
    if (!strcasecmp(s, "b") || !strcasecmp(s, "black"))
        *c = GO_BLACK;
    else if (!strcasecmp(s, "w") || !strcasecmp(s, "white"))
        *c = GO_WHITE;
    else
        return false;
    return true;
}

typedef enum { VERTEX_OK, VERTEX_SYNTAX, VERTEX_OFF_BOARD } vertex_status;

/* A vertex of the current board or pass. A well-formed vertex of a larger board is told apart
 * from garbage: the first is an illegal move, the second a syntax error. */
static vertex_status parse_vertex(const gtp_engine *e, const char *s, int *p)
{
    *p = go_board_parse_vertex(&e->game.board, s);
    if (*p != GO_NO_POINT)
        return VERTEX_OK;
    return go_point_from_gtp(GO_MAX_SIZE, s) != GO_NO_POINT ? VERTEX_OFF_BOARD : VERTEX_SYNTAX;
}

static bool board_is_empty(const go_game *g)
{
    return g->num_moves == 0 && g->board.num_empty == g->board.width * g->board.height;
}

/* Every chain has a liberty: setup stones make no captures, so a set of them can be unsound. */
static bool board_is_sound(const go_board *b)
{
    for (int p = 0; p < GO_POINTS; p++)
        if ((b->color[p] == GO_BLACK || b->color[p] == GO_WHITE) && go_board_libs(b, p) == 0)
            return false;
    return true;
}

static void add_vertices(gtp_text *r, const go_board *b, const int *pts, int n)
{
    char v[8];
    for (int i = 0; i < n; i++)
        gtp_text_printf(r, "%s%s", i ? " " : "", go_board_vertex(b, pts[i], v));
}

/* ---- commands ----------------------------------------------------------------------------- */

typedef struct gtp_command {
    const char *name;
    gtp_handler run;
    int min_args, max_args;   /* max_args -1: any number */
    bool needs_net;           /* listed (and known) only once a network is loaded */
} gtp_command;

static const gtp_command *find_command(const char *name);
static bool command_listed(const gtp_engine *e, const gtp_command *cmd);
static void add_command_names(const gtp_engine *e, gtp_text *r);

bool gtp_fail(gtp_text *r, const char *reason)
{
    gtp_text_add(r, reason);
    return false;
}

static bool cmd_protocol_version(gtp_engine *e, const gtp_args *a, gtp_text *r)
{
    gtp_text_add(r, "2");
    return true;
}

static bool cmd_name(gtp_engine *e, const gtp_args *a, gtp_text *r)
{
    gtp_text_add(r, "shido");
    return true;
}

/* Lizzie takes any engine not named KataGo for Leela Zero and reads the second number of the
 * version's first word as Leela Zero's minor version, refusing analysis below 0.15 with a dialog
 * at every start. The first word is therefore the Leela Zero GTP level shido speaks (lz-analyze,
 * lz-genmove_analyze, lz-setoption, heatmap: all of 0.15's and later's), and the rest says which
 * program it is. */
static bool cmd_version(gtp_engine *e, const gtp_args *a, gtp_text *r)
{
    gtp_text_printf(r, "0.17 (Leela Zero GTP level; shido %s)", SHIDO_VERSION_STRING);
    return true;
}

static bool cmd_known_command(gtp_engine *e, const gtp_args *a, gtp_text *r)
{
    const gtp_command *cmd = find_command(a->argv[0]);
    gtp_text_add(r, cmd && command_listed(e, cmd) ? "true" : "false");
    return true;
}

static bool cmd_list_commands(gtp_engine *e, const gtp_args *a, gtp_text *r)
{
    add_command_names(e, r);
    return true;
}

/* Answered like any other command; gtp_engine_handle_line recognises it and stops. */
static bool cmd_quit(gtp_engine *e, const gtp_args *a, gtp_text *r)
{
    return true;
}

/* boardsize N, and KataGo's rectangles: boardsize W H, boardsize W:H, rectangular_boardsize W H
 * (W columns, H rows). */
static bool cmd_boardsize(gtp_engine *e, const gtp_args *a, gtp_text *r)
{
    char first[32];
    int w, h;
    const char *colon = strchr(a->argv[0], ':');
    if (colon && a->argc == 1 && (size_t)(colon - a->argv[0]) < sizeof first) {
        memcpy(first, a->argv[0], (size_t)(colon - a->argv[0]));
        first[colon - a->argv[0]] = '\0';
        if (!gtp_parse_int(first, &w) || !gtp_parse_int(colon + 1, &h))
            return gtp_fail(r, "syntax error");
    } else if (!gtp_parse_int(a->argv[0], &w) ||
               (a->argc == 2 ? !gtp_parse_int(a->argv[1], &h) : (h = w, false))) {
        return gtp_fail(r, "syntax error");
    }
    if (w < GO_MIN_SIZE || w > GO_MAX_SIZE || h < GO_MIN_SIZE || h > GO_MAX_SIZE)
        return gtp_fail(r, "unacceptable size");
    go_game g;
    if (!go_game_init_rect(&g, w, h, &e->game.rules, e->game.komi))
        return gtp_fail(r, "out of memory");
    go_game_free(&e->game);
    e->game = g;
    return true;
}

static bool cmd_clear_board(gtp_engine *e, const gtp_args *a, gtp_text *r)
{
    go_game_clear(&e->game);
    return true;
}

static bool cmd_komi(gtp_engine *e, const gtp_args *a, gtp_text *r)
{
    double komi;
    char err[128];
    if (!gtp_parse_number(a->argv[0], &komi))
        return gtp_fail(r, "syntax error");
    if (!go_komi_check(komi, err, sizeof err))   /* the JSON analysis' check too */
        return gtp_fail(r, err);
    e->game.komi = (float)komi;
    return true;
}

static bool cmd_get_komi(gtp_engine *e, const gtp_args *a, gtp_text *r)
{
    gtp_text_printf(r, "%g", e->game.komi);
    return true;
}

static bool cmd_play(gtp_engine *e, const gtp_args *a, gtp_text *r)
{
    go_color c;
    int p;
    if (!gtp_parse_color(a->argv[0], &c))
        return gtp_fail(r, "syntax error");
    vertex_status vs = parse_vertex(e, a->argv[1], &p);
    if (vs == VERTEX_SYNTAX)
        return gtp_fail(r, "syntax error");
    if (vs == VERTEX_OFF_BOARD || go_game_play(&e->game, p, c) != GO_MOVE_OK)
        return gtp_fail(r, "illegal move");
    return true;
}

static bool cmd_undo(gtp_engine *e, const gtp_args *a, gtp_text *r)
{
    return go_game_undo(&e->game) ? true : gtp_fail(r, "cannot undo");
}

static bool cmd_fixed_handicap(gtp_engine *e, const gtp_args *a, gtp_text *r)
{
    int n, pts[9];
    if (!gtp_parse_int(a->argv[0], &n))
        return gtp_fail(r, "syntax error");
    if (!board_is_empty(&e->game))
        return gtp_fail(r, "board not empty");
    int k = go_game_fixed_handicap(&e->game, n, pts);
    if (k == 0)
        return gtp_fail(r, "invalid handicap");
    add_vertices(r, &e->game.board, pts, k);
    return true;
}

/* The free point farthest from the stones placed: largest squared distance to the nearest stone
 * (near2, -1 where taken), then to all of them (sum2, which spreads stones to opposite sides),
 * then nearest the centre, then the lower index, so the choice is deterministic. The lines the
 * fixed points use (3rd, or 4th from 13x13 up) come first; nearer the edge only when those are
 * full. */
static int farthest_point(int w, int h, const int *near2, const int *sum2)
{
    int side = w < h ? w : h;
    for (int lo = side >= 13 ? 3 : side >= 7 ? 2 : 1; lo >= 0; lo--) {
        int best = GO_NO_POINT, best_centre2 = 0;
        for (int y = lo; y < h - lo; y++)
            for (int x = lo; x < w - lo; x++) {
                int p = go_point_at(x, y);
                /* Doubled offsets from the centre keep even sizes in integers. */
                int dx = 2 * x - (w - 1), dy = 2 * y - (h - 1), centre2 = dx * dx + dy * dy;
                if (near2[p] < 0)
                    continue;
                if (best == GO_NO_POINT || near2[p] > near2[best] ||
                    (near2[p] == near2[best] &&
                     (sum2[p] > sum2[best] || (sum2[p] == sum2[best] && centre2 < best_centre2)))) {
                    best = p;
                    best_centre2 = centre2;
                }
            }
        if (best != GO_NO_POINT)
            return best;
    }
    return GO_NO_POINT;
}

/* Free handicap points for 2 <= n < w * h stones: on a square board the fixed points while GTP
 * defines them, beyond that the most fixed points the board has; on a rectangle (shorter side 7
 * or more) the four corner points of the fixed points' line; then one farthest point after
 * another. */
static void free_handicap_points(int w, int h, int n, int *pts)
{
    if (w == h && go_fixed_handicap_points(w, n, pts) == n)
        return;
    int k = 0;
    for (int m = n < 9 ? n : 9; w == h && m >= 2 && k == 0; m--)
        k = go_fixed_handicap_points(w, m, pts);
    int side = w < h ? w : h, lo = side >= 13 ? 3 : 2;
    if (w != h && side >= 7) {   /* a rectangle's corner points first, in GTP's corner order */
        const int xs[4] = {lo, w - 1 - lo, lo, w - 1 - lo};
        const int ys[4] = {h - 1 - lo, lo, lo, h - 1 - lo};
        for (k = 0; k < n && k < 4; k++)
            pts[k] = go_point_at(xs[k], ys[k]);
    }
    int near2[GO_POINTS], sum2[GO_POINTS] = {0};
    for (int p = 0; p < GO_POINTS; p++)
        near2[p] = INT_MAX;
    for (int i = 0; i < n; i++) {
        if (i >= k)
            pts[i] = farthest_point(w, h, near2, sum2);
        int px = go_point_x(pts[i]), py = go_point_y(pts[i]);
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) {
                int p = go_point_at(x, y), d = (x - px) * (x - px) + (y - py) * (y - py);
                if (near2[p] > d)
                    near2[p] = d;
                sum2[p] += d;
            }
        near2[pts[i]] = -1;
    }
}

static bool cmd_place_free_handicap(gtp_engine *e, const gtp_args *a, gtp_text *r)
{
    int n, w = e->game.board.width, h = e->game.board.height;
    if (!gtp_parse_int(a->argv[0], &n))
        return gtp_fail(r, "syntax error");
    if (!board_is_empty(&e->game))
        return gtp_fail(r, "board not empty");
    if (n < 2 || n > w * h - 1)
        return gtp_fail(r, "invalid handicap");
    int pts[GO_MAX_SIZE * GO_MAX_SIZE];
    free_handicap_points(w, h, n, pts);
    for (int i = 0; i < n; i++)
        go_game_setup_stone(&e->game, pts[i], GO_BLACK);
    e->game.handicap = n;
    go_game_set_to_move(&e->game, GO_WHITE);
    add_vertices(r, &e->game.board, pts, n);
    return true;
}

static bool cmd_set_free_handicap(gtp_engine *e, const gtp_args *a, gtp_text *r)
{
    int area = e->game.board.width * e->game.board.height, pts[GO_MAX_SIZE * GO_MAX_SIZE];
    if (!board_is_empty(&e->game))
        return gtp_fail(r, "board not empty");
    /* one stone too: Leela Zero and KataGo accept it, and tools set up SGF records with a
     * single AB stone this way */
    if (a->argc < 1 || a->argc > area - 1)
        return gtp_fail(r, "bad vertex list");
    bool taken[GO_POINTS] = {false};
    for (int i = 0; i < a->argc; i++) {
        vertex_status vs = parse_vertex(e, a->argv[i], &pts[i]);
        if (vs == VERTEX_SYNTAX)
            return gtp_fail(r, "syntax error");
        if (vs != VERTEX_OK || pts[i] == GO_PASS || taken[pts[i]])
            return gtp_fail(r, "bad vertex list");
        taken[pts[i]] = true;
    }
    for (int i = 0; i < a->argc; i++)
        go_game_setup_stone(&e->game, pts[i], GO_BLACK);
    e->game.handicap = a->argc;
    go_game_set_to_move(&e->game, GO_WHITE);
    return true;
}

static bool cmd_loadsgf(gtp_engine *e, const gtp_args *a, gtp_text *r)
{
    int move_number = 0;
    if (a->argc == 2 && (!gtp_parse_int(a->argv[1], &move_number) || move_number < 1))
        return gtp_fail(r, "syntax error");
    if (!e->allow_files)
        return gtp_fail(r, "cannot load file: file access is disabled");
    char err[256];
    go_sgf_collection *c = go_sgf_read_file(a->argv[0], err, sizeof err);
    if (!c) {
        gtp_text_printf(r, "cannot load file: %s", err);
        return false;
    }
    go_game g;
    bool ok = false;
    if (c->num_games == 0) {
        snprintf(err, sizeof err, "%s: no game in the file", a->argv[0]);
    } else {
        /* GTP's move_number names the move about to be played: the moves before it are played. */
        ok = go_sgf_to_game(c->games[0], move_number ? move_number - 1 : -1, &g, err, sizeof err);
        /* Controllers set rules and komi with commands of their own: a file that names neither
         * keeps the engine's rather than go_sgf_to_game's defaults. */
        if (ok && !go_sgf_get(c->games[0], "RU"))
            g.rules = e->game.rules;
        if (ok && !go_sgf_get(c->games[0], "KM"))
            g.komi = e->game.komi;
    }
    go_sgf_free(c);
    if (!ok) {
        gtp_text_printf(r, "cannot load file: %s", err);
        return false;
    }
    go_game_free(&e->game);
    e->game = g;
    return true;
}

static bool cmd_printsgf(gtp_engine *e, const gtp_args *a, gtp_text *r)
{
    if (a->argc == 1 && strcmp(a->argv[0], "-") && !e->allow_files)
        return gtp_fail(r, "cannot save file: file access is disabled");
    go_sgf_collection *c = go_sgf_from_game(&e->game);
    char *sgf = c ? go_sgf_write(c) : NULL;
    go_sgf_free(c);
    if (!sgf)
        return gtp_fail(r, "out of memory");
    bool ok = true;
    if (a->argc == 0 || !strcmp(a->argv[0], "-")) {   /* "-": standard output (KataGo) */
        gtp_text_add(r, sgf);
    } else {
        FILE *f = fopen(a->argv[0], "w");
        ok = f && fputs(sgf, f) >= 0;
        ok = (f && fclose(f) == 0) && ok;
        if (!ok)
            gtp_text_printf(r, "cannot save file: %s: %s", a->argv[0], strerror(errno));
    }
    free(sgf);
    return ok;
}

static bool cmd_showboard(gtp_engine *e, const gtp_args *a, gtp_text *r)
{
    const go_board *b = &e->game.board;
    char diagram[2048];
    go_board_to_ascii(b, diagram, sizeof diagram);
    gtp_text_printf(r, "\n%sBlack (X) captures: %d\nWhite (O) captures: %d\n%s to move", diagram,
                b->captures[GO_BLACK], b->captures[GO_WHITE],
                b->to_move == GO_WHITE ? "White" : "Black");
    return true;
}

static bool cmd_kata_get_rules(gtp_engine *e, const gtp_args *a, gtp_text *r)
{
    char json[256];
    go_rules_to_json(&e->game.rules, json, sizeof json);
    gtp_text_add(r, json);
    return true;
}

static bool cmd_kata_set_rules(gtp_engine *e, const gtp_args *a, gtp_text *r)
{
    char err[256];
    if (!go_rules_parse(&e->game.rules, a->raw, err, sizeof err))
        return gtp_fail(r, err);
    return true;
}

/* KGS's kgs-rules japanese|chinese|aga|new_zealand. */
static bool cmd_kgs_rules(gtp_engine *e, const gtp_args *a, gtp_text *r)
{
    static const char *const kgs[] = {"japanese", "chinese", "aga", "new_zealand"};
    for (int i = 0; i < 4; i++)
        if (!strcasecmp(a->argv[0], kgs[i])) {
            go_rules_preset(&e->game.rules, kgs[i]);
            return true;
        }
    return gtp_fail(r, "unknown rules (japanese, chinese, aga or new_zealand)");
}

static bool cmd_kata_set_rule(gtp_engine *e, const gtp_args *a, gtp_text *r)
{
    if (!go_rules_set(&e->game.rules, a->argv[0], a->argv[1]))
        return gtp_fail(r, "unknown rules field or value");
    return true;
}

/* KataGo's set_position: the stones become the setup of a fresh game with no history. On any
 * error the current game stays as it was. */
static bool cmd_set_position(gtp_engine *e, const gtp_args *a, gtp_text *r)
{
    if (a->argc % 2)
        return gtp_fail(r, "syntax error");
    go_game g;
    if (!go_game_init_rect(&g, e->game.board.width, e->game.board.height, &e->game.rules,
                           e->game.komi))
        return gtp_fail(r, "out of memory");
    const char *error = NULL;
    for (int i = 0; i < a->argc && !error; i += 2) {
        go_color c;
        int p;
        if (!gtp_parse_color(a->argv[i], &c))
            error = "syntax error";
        else if (parse_vertex(e, a->argv[i + 1], &p) == VERTEX_SYNTAX)
            error = "syntax error";
        else if (p == GO_NO_POINT || p == GO_PASS || !go_game_setup_stone(&g, p, c))
            error = "illegal stone placement";
    }
    if (!error && !board_is_sound(&g.board))
        error = "illegal stone placement";
    if (error) {
        go_game_free(&g);
        return gtp_fail(r, error);
    }
    go_game_free(&e->game);
    e->game = g;
    return true;
}

static bool parse_seconds(const char *s, double *out)
{
    return gtp_parse_number(s, out) && *out >= 0;
}

/* GTP time_settings: byo-yomi stones 0 with a positive byo-yomi time means no limit; a byo-yomi
 * time of 0 means sudden death; otherwise Canadian overtime. */
static bool cmd_time_settings(gtp_engine *e, const gtp_args *a, gtp_text *r)
{
    go_time_control t = {0};
    if (!parse_seconds(a->argv[0], &t.main_time_s) || !parse_seconds(a->argv[1], &t.period_time_s) ||
        !gtp_parse_int(a->argv[2], &t.period_stones) || t.period_stones < 0)
        return gtp_fail(r, "syntax error");
    if (t.period_time_s > 0 && t.period_stones == 0)
        t = (go_time_control){.system = GO_TIME_NONE};
    else if (t.period_time_s == 0)
        t = (go_time_control){.system = GO_TIME_ABSOLUTE, .main_time_s = t.main_time_s};
    else
        t.system = GO_TIME_CANADIAN;
    teach_timekeeper_set_control(&e->time, &t);
    return true;
}

/* kgs-time_settings, and with fischer kata-time_settings: the system's name, then its numbers. */
static bool set_named_time(gtp_engine *e, const gtp_args *a, bool fischer, gtp_text *r)
{
    go_time_control t = {0};
    const char *sys = a->argv[0];
    bool ok;
    if (!strcmp(sys, "none")) {
        ok = a->argc == 1;
    } else if (!strcmp(sys, "absolute")) {
        t.system = GO_TIME_ABSOLUTE;
        ok = a->argc == 2 && parse_seconds(a->argv[1], &t.main_time_s);
    } else if (!strcmp(sys, "byoyomi") || !strcmp(sys, "canadian")) {
        bool byoyomi = sys[0] == 'b';
        int count;
        t.system = byoyomi ? GO_TIME_BYOYOMI : GO_TIME_CANADIAN;
        ok = a->argc == 4 && parse_seconds(a->argv[1], &t.main_time_s) &&
             parse_seconds(a->argv[2], &t.period_time_s) && gtp_parse_int(a->argv[3], &count) &&
             count >= 0;
        if (byoyomi)
            t.periods = ok ? count : 0;
        else
            t.period_stones = ok ? count : 0;
    } else if (fischer && (!strcmp(sys, "fischer") || !strcmp(sys, "fischer-capped"))) {
        /* KataGo's caps: negative means none; a main time cap is at least the main time. */
        bool capped = sys[7] == '-';
        t.system = GO_TIME_FISCHER;
        ok = a->argc == (capped ? 5 : 3) && parse_seconds(a->argv[1], &t.main_time_s) &&
             parse_seconds(a->argv[2], &t.increment_s) &&
             (!capped || (gtp_parse_number(a->argv[3], &t.main_cap_s) &&
                          gtp_parse_number(a->argv[4], &t.move_cap_s)));
        if (ok && t.main_cap_s >= 0 && t.main_cap_s < t.main_time_s && capped)
            return gtp_fail(r, "the main time limit must be at least the main time");
        if (ok && capped && t.move_cap_s == 0)
            return gtp_fail(r, "the time a move may take must be positive (negative: no limit)");
    } else {
        ok = false;
    }
    if (!ok)
        return gtp_fail(r, "syntax error");
    teach_timekeeper_set_control(&e->time, &t);
    return true;
}

static bool cmd_kgs_time_settings(gtp_engine *e, const gtp_args *a, gtp_text *r)
{
    return set_named_time(e, a, false, r);
}

/* KataGo's kata-time_settings: kgs-time_settings' systems, fischer and fischer-capped. */
static bool cmd_kata_time_settings(gtp_engine *e, const gtp_args *a, gtp_text *r)
{
    return set_named_time(e, a, true, r);
}

static bool cmd_kata_list_time_settings(gtp_engine *e, const gtp_args *a, gtp_text *r)
{
    gtp_text_add(r, "none\nabsolute\nbyoyomi\ncanadian\nfischer\nfischer-capped");
    return true;
}

static bool cmd_time_left(gtp_engine *e, const gtp_args *a, gtp_text *r)
{
    go_color c;
    double seconds;
    int stones;
    /* Some servers report a slightly negative time once the clock has run out. */
    if (!gtp_parse_color(a->argv[0], &c) || !gtp_parse_number(a->argv[1], &seconds) ||
        !gtp_parse_int(a->argv[2], &stones) || stones < 0)
        return gtp_fail(r, "syntax error");
    teach_timekeeper_time_left(&e->time, c, seconds, stones);
    return true;
}

/* ---- raw network output ------------------------------------------------------------------ */

#define SYM_ALL (-1)       /* every symmetry in turn */
#define SYM_AVERAGE (-2)   /* the mean over the 8 symmetries */

static bool fail_no_network(gtp_text *r)
{
    return gtp_fail(r, "no network loaded (start with --weights FILE)");
}

static bool parse_symmetry(const char *s, int *sym)
{
    if (!strcasecmp(s, "all"))
        *sym = SYM_ALL;
    else if (!strcasecmp(s, "average") || !strcasecmp(s, "avg"))
        *sym = SYM_AVERAGE;
    else if (!gtp_parse_int(s, sym) || *sym < 0 || *sym > 7)
        return false;
    return true;
}

/* Splits the arguments of a network command into positional ones (at most max_pos) and the
 * shido extension net=N (1-based; *net stays as it was when absent). */
static bool split_net_args(const gtp_engine *e, const gtp_args *a, const char **pos, int max_pos,
                           int *num_pos, int *net, gtp_text *r)
{
    *num_pos = 0;
    for (int i = 0; i < a->argc; i++) {
        if (!strncmp(a->argv[i], "net=", 4)) {
            int n;
            int loaded = teach_engine_num_nets(e->engine);
            if (!gtp_parse_int(a->argv[i] + 4, &n) || n < 1 || n > loaded) {
                gtp_text_printf(r, "no network %s (%d loaded)", a->argv[i] + 4, loaded);
                return false;
            }
            *net = n - 1;
        } else if (*num_pos == max_pos) {
            return gtp_fail(r, "syntax error");
        } else {
            pos[(*num_pos)++] = a->argv[i];
        }
    }
    return true;
}

/* teach_engine_eval of the game, with a plain reason when a Leela Zero net meets another board
 * size than its own. */
static bool eval_net(gtp_engine *e, int net, int sym, double optimism, nn_result *o, char *err,
                     int err_len)
{
    const nn_desc *d = teach_engine_desc(e->engine, net);
    if (d && d->family == NN_FAMILY_LZ &&
        (e->game.board.width != NN_LZ_BOARD_SIZE || e->game.board.height != NN_LZ_BOARD_SIZE)) {
        snprintf(err, (size_t)err_len, "%s: Leela Zero networks take 19x19 boards only",
                 teach_engine_net_name(e->engine, net));
        return false;
    }
    return teach_engine_eval(e->engine, net, &e->game, sym, optimism, o, err, err_len);
}

/* One evaluation of network net in kata-raw-nn's terms (sym 0..7 or TEACH_SYM_AVERAGE): a Leela
 * Zero net's policy is its raw softmax with NAN where the move is illegal. */
static bool eval_raw(gtp_engine *e, int net, int sym, double optimism, nn_result *o, char *err,
                     int err_len)
{
    const go_game *g = &e->game;
    if (!eval_net(e, net, sym, optimism, o, err, err_len))
        return false;
    if (o->family == NN_FAMILY_LZ) {
        int w = g->board.width;
        for (int y = 0; y < g->board.height; y++)
            for (int x = 0; x < w; x++)
                if (go_game_legal(g, go_point_at(x, y), g->board.to_move) != GO_MOVE_OK)
                    o->policy[y * w + x] = NAN;
    }
    return true;
}

static void add_grid(gtp_text *r, const char *title, const float *v, int w, int h)
{
    gtp_text_printf(r, "%s\n", title);
    for (int y = 0; y < h; y++) {
        for (int x = 0; x < w; x++) {
            float f = v[y * w + x];
            if (isnan(f))
                gtp_text_add(r, "NAN ");
            else
                gtp_text_printf(r, "%.9g ", f);
        }
        gtp_text_add(r, "\n");
    }
}

/* One kata-raw-nn block in KataGo's layout (KataGo prints %.6f / %.3f / %8.6f; shido %.9g). */
static void add_raw_block(gtp_text *r, const char *symmetry, const nn_result *o)
{
    int n = o->width * o->height;
    gtp_text_printf(r, "symmetry %s\n", symmetry);
    gtp_text_printf(r, "whiteWin %.9g\nwhiteLoss %.9g\nnoResult %.9g\n", o->white_win,
                    o->white_loss, o->no_result);
    if (o->family == NN_FAMILY_KATA) {
        gtp_text_printf(r, "whiteLead %.9g\nwhiteScoreSelfplay %.9g\nwhiteScoreSelfplaySq %.9g\n",
                        o->white_lead, o->white_score_selfplay, o->white_score_selfplay_sq);
        gtp_text_printf(r,
                        "varTimeLeft %.9g\nshorttermWinlossError %.9g\nshorttermScoreError %.9g\n",
                        o->var_time_left, o->shortterm_winloss_error, o->shortterm_score_error);
    }
    add_grid(r, "policy", o->policy, o->width, o->height);
    if (isnan(o->policy[n]))
        gtp_text_add(r, "policyPass NAN \n");
    else
        gtp_text_printf(r, "policyPass %.9g \n", o->policy[n]);
    if (o->family == NN_FAMILY_KATA)
        add_grid(r, "whiteOwnership", o->white_ownership, o->width, o->height);
}

static bool cmd_kata_raw_nn(gtp_engine *e, const gtp_args *a, gtp_text *r)
{
    const char *pos[2];
    int num_pos, net = 0, sym;
    double optimism = NN_DEFAULT_POLICY_OPTIMISM;
    if (!split_net_args(e, a, pos, 2, &num_pos, &net, r))
        return false;
    if (num_pos == 0 || !parse_symmetry(pos[0], &sym)) {
        gtp_text_printf(r,
                        "expected a symmetry 0-7, 'all' or 'average' for kata-raw-nn but got '%s'",
                        a->raw);
        return false;
    }
    if (num_pos == 2 && (!gtp_parse_number(pos[1], &optimism) || optimism < 0 || optimism > 1))
        return gtp_fail(r, "policy optimism must be a number from 0 to 1");
    if (teach_engine_num_nets(e->engine) == 0)
        return fail_no_network(r);
    nn_result *o = malloc(sizeof *o);
    if (!o)
        return gtp_fail(r, "out of memory");
    char err[256];
    bool ok = true;
    if (sym == SYM_AVERAGE) {
        ok = eval_raw(e, net, TEACH_SYM_AVERAGE, optimism, o, err, sizeof err);
        if (ok)
            add_raw_block(r, "average", o);
    }
    for (int s = 0; s < 8 && ok && sym != SYM_AVERAGE; s++) {
        if (sym >= 0 && s != sym)
            continue;
        ok = eval_raw(e, net, s, optimism, o, err, sizeof err);
        char label[12];
        snprintf(label, sizeof label, "%d", s);
        if (ok)
            add_raw_block(r, label, o);
    }
    free(o);
    if (!ok) {
        gtp_text_clear(r);
        return gtp_fail(r, err);
    }
    return true;
}

/* Leela Zero 0.17's Network::show_heatmap: int(p * 1000) in float arithmetic, 0 where a stone
 * stands, top row first. It starts on a line of its own, not on the "=" line. */
static void add_heatmap(gtp_text *r, const go_board *b, const float *policy, float winrate)
{
    gtp_text_add(r, "\n");
    for (int y = 0; y < 19; y++) {
        for (int x = 0; x < 19; x++) {
            int v = b->color[go_point_at(x, y)] == GO_EMPTY ? (int)(policy[y * 19 + x] * 1000.0f)
                                                            : 0;
            gtp_text_printf(r, "%3d ", v);
        }
        gtp_text_add(r, "\n");
    }
    gtp_text_printf(r, "pass: %d\nwinrate: %f\n", (int)(policy[361] * 1000.0f), winrate);
}

static bool cmd_heatmap(gtp_engine *e, const gtp_args *a, gtp_text *r)
{
    const char *pos[1];
    int num_pos, net = -1, sym = 0;
    if (!split_net_args(e, a, pos, 1, &num_pos, &net, r))
        return false;
    if (num_pos == 1 && !parse_symmetry(pos[0], &sym))
        return gtp_fail(r, "expected a symmetry 0-7, 'all' or 'average' for heatmap");
    int loaded = teach_engine_num_nets(e->engine);
    if (loaded == 0)
        return fail_no_network(r);
    for (int i = 0; i < loaded && net < 0; i++)
        if (teach_engine_desc(e->engine, i)->family == NN_FAMILY_LZ)
            net = i;
    if (net < 0 || teach_engine_desc(e->engine, net)->family != NN_FAMILY_LZ)
        return gtp_fail(r, "heatmap needs a Leela Zero network");
    nn_result *o = malloc(sizeof *o);
    if (!o)
        return gtp_fail(r, "out of memory");
    char err[256];
    bool ok = true;
    go_color mover = e->game.board.to_move;
    for (int s = 0; s < 8 && ok; s++) {
        if (sym >= 0 && s != sym)
            continue;
        if (sym == SYM_AVERAGE && s > 0)
            break;
        ok = eval_net(e, net, sym == SYM_AVERAGE ? TEACH_SYM_AVERAGE : s, 0.0, o, err,
                      sizeof err);
        if (ok)
            add_heatmap(r, &e->game.board, o->policy,
                        (float)(mover == GO_WHITE ? o->white_win : o->white_loss));
    }
    free(o);
    if (!ok) {
        gtp_text_clear(r);
        return gtp_fail(r, err);
    }
    return true;
}

/* list_commands prints them in this order. */
static const gtp_command commands[] = {
    {"protocol_version", cmd_protocol_version, 0, 0, false},
    {"name", cmd_name, 0, 0, false},
    {"version", cmd_version, 0, 0, false},
    {"known_command", cmd_known_command, 1, 1, false},
    {"list_commands", cmd_list_commands, 0, 0, false},
    {"quit", cmd_quit, 0, 0, false},
    {"boardsize", cmd_boardsize, 1, 2, false},
    {"rectangular_boardsize", cmd_boardsize, 1, 2, false},
    {"clear_board", cmd_clear_board, 0, 0, false},
    {"komi", cmd_komi, 1, 1, false},
    {"get_komi", cmd_get_komi, 0, 0, false},
    {"play", cmd_play, 2, 2, false},
    {"undo", cmd_undo, 0, 0, false},
    {"fixed_handicap", cmd_fixed_handicap, 1, 1, false},
    {"place_free_handicap", cmd_place_free_handicap, 1, 1, false},
    {"set_free_handicap", cmd_set_free_handicap, 0, -1, false},
    {"loadsgf", cmd_loadsgf, 1, 2, false},
    {"printsgf", cmd_printsgf, 0, 1, false},
    {"showboard", cmd_showboard, 0, 0, false},
    {"final_score", gtp_cmd_final_score, 0, 0, false},
    {"final_status_list", gtp_cmd_final_status_list, 1, 1, false},
    {"time_settings", cmd_time_settings, 3, 3, false},
    {"time_left", cmd_time_left, 3, 3, false},
    {"kgs-time_settings", cmd_kgs_time_settings, 1, 4, false},
    {"kata-time_settings", cmd_kata_time_settings, 1, 5, false},
    {"kata-list_time_settings", cmd_kata_list_time_settings, 0, 0, false},
    {"kata-get-rules", cmd_kata_get_rules, 0, 0, false},
    {"kata-set-rules", cmd_kata_set_rules, 1, -1, false},
    {"kata-set-rule", cmd_kata_set_rule, 2, 2, false},
    {"kgs-rules", cmd_kgs_rules, 1, 1, false},
    {"set_position", cmd_set_position, 0, -1, false},
    {"kata-raw-nn", cmd_kata_raw_nn, 0, 3, false},
    {"heatmap", cmd_heatmap, 0, 2, false},
    {"genmove", gtp_cmd_genmove, 1, 1, true},
    {"lz-genmove_analyze", gtp_cmd_lz_genmove_analyze, 0, -1, true},
    {"kata-genmove_analyze", gtp_cmd_kata_genmove_analyze, 0, -1, true},
    {"lz-analyze", gtp_cmd_lz_analyze, 0, -1, true},
    {"kata-analyze", gtp_cmd_kata_analyze, 0, -1, true},
    {"analyze", gtp_cmd_kata_analyze, 0, -1, true},
    {"genmove_analyze", gtp_cmd_kata_genmove_analyze, 0, -1, true},
    {"stop", gtp_cmd_stop, 0, 0, true},
    {"clear_cache", gtp_cmd_clear_cache, 0, 0, true},
    {"kata-list-params", gtp_cmd_kata_list_params, 0, 0, true},
    {"kata-get-param", gtp_cmd_kata_get_param, 1, 1, true},
    {"kata-set-param", gtp_cmd_kata_set_param, 2, 2, true},
    {"kata-get-params", gtp_cmd_kata_get_params, 0, 0, true},
    {"kata-set-params", gtp_cmd_kata_set_params, 1, -1, true},
    {"kata-get-models", gtp_cmd_kata_get_models, 0, 0, true},
    {"lz-setoption", gtp_cmd_lz_setoption, 4, -1, true},
    {"tsumego_solve", gtp_cmd_tsumego_solve, 0, 3, false},
};
static const int num_commands = (int)(sizeof commands / sizeof commands[0]);

static const gtp_command *find_command(const char *name)
{
    for (int i = 0; i < num_commands; i++)
        if (!strcmp(commands[i].name, name))
            return &commands[i];
    return NULL;
}

/* The network commands are advertised only when they can answer: GUIs (LizGoban, Lizzie) probe
 * list_commands and known_command to learn what kind of engine they talk to. */
static bool command_listed(const gtp_engine *e, const gtp_command *cmd)
{
    if (cmd->run == gtp_cmd_genmove && e->tsumego_s > 0)
        return true; /* the tsumego solver plays without a network */
    if (cmd->run == cmd_kata_raw_nn || cmd->needs_net)
        return teach_engine_num_nets(e->engine) > 0;
    if (cmd->run == cmd_heatmap) {
        for (int i = 0; i < teach_engine_num_nets(e->engine); i++)
            if (teach_engine_desc(e->engine, i)->family == NN_FAMILY_LZ)
                return true;
        return false;
    }
    return true;
}

static void add_command_names(const gtp_engine *e, gtp_text *r)
{
    bool first = true;
    for (int i = 0; i < num_commands; i++)
        if (command_listed(e, &commands[i])) {
            gtp_text_printf(r, "%s%s", first ? "" : "\n", commands[i].name);
            first = false;
        }
}

/* ---- engine ------------------------------------------------------------------------------ */

bool gtp_engine_init(gtp_engine *e)
{
    memset(e, 0, sizeof *e);
    e->allow_files = true;
    teach_timekeeper_init(&e->time);
    char err[256];
    if (!(e->engine = teach_engine_new(NULL, err, sizeof err)))
        return false;
    if (!go_game_init(&e->game, 19, NULL, 7.5f)) {
        teach_engine_free(e->engine);
        return false;
    }
    return true;
}

void gtp_engine_free(gtp_engine *e)
{
    gtp_players_free(e);
    teach_engine_free(e->engine);
    teach_engine_free(e->guess_engine);
    e->engine = e->guess_engine = NULL;
    go_game_free(&e->game);
}

int gtp_engine_configure(gtp_engine *e, int argc, char **argv, char *err, int err_len)
{
    teach_options o;
    teach_options_init(&o);
    o.params = *teach_engine_params(e->engine);
    const char *guess_path = NULL;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (!strcmp(arg, "--guess-weights") && i + 1 < argc && argv[i + 1][0]) {
            guess_path = argv[++i];
            continue;
        }
        if (!strcmp(arg, "--tsumego") || !strncmp(arg, "--tsumego=", 10)) {
            char *end = NULL;
            double t = arg[9] ? strtod(arg + 10, &end) : 10.0;
            if (arg[9] && (end == arg + 10 || *end || !(t > 0) || t > 86400)) {
                snprintf(err, (size_t)err_len,
                         "--tsumego=S takes seconds a move (0 < S <= 86400)");
                return 2;
            }
            e->tsumego_s = t;
            continue;
        }
        if (!strcmp(arg, "--tsumego-nodes") && i + 1 < argc) {
            char *end = NULL;
            double v = strtod(argv[++i], &end);
            if (end == argv[i] || *end || !(v >= 1) || v > 1e15) {
                snprintf(err, (size_t)err_len,
                         "--tsumego-nodes takes positions a solver phase (1 <= N <= 1e15)");
                return 2;
            }
            e->tsumego_nodes = (uint64_t)v;
            continue;
        }
        if (!strcmp(arg, "--lag") && i + 1 < argc) {
            char *end = NULL;
            double v = strtod(argv[++i], &end);
            if (end == argv[i] || *end || !(v >= 0) || v > 60) {
                snprintf(err, (size_t)err_len, "--lag takes seconds (0 <= S <= 60)");
                return 2;
            }
            teach_timekeeper_set_lag_floor(&e->time, v);
            continue;
        }
        if (!strcmp(arg, "--ponder") || !strncmp(arg, "--ponder=", 9)) {
            char *end = NULL;
            double v = arg[8] ? strtod(arg + 9, &end) : (double)GTP_PONDER_VISITS;
            if (arg[8] && (end == arg + 9 || *end || !(v >= 1) || v > 1e9)) {
                snprintf(err, (size_t)err_len,
                         "--ponder=V takes the most visits a pondered tree may hold "
                         "(1 <= V <= 1e9)");
                return 2;
            }
            e->ponder_visits = (int64_t)v;
            continue;
        }
        int got = teach_options_parse(&o, argc, argv, &i, err, err_len);
        if (got < 0)
            return 2;
        if (got == 0) {
            snprintf(err, (size_t)err_len, "unknown option '%s'", arg);
            return 2;
        }
    }
    teach_engine *guess;
    int rc = teach_tsumego_guess_engine_new(&o, guess_path, &guess, err, err_len);
    if (rc)
        return rc;
    teach_engine *fresh = teach_engine_new(&o, err, err_len);
    if (!fresh) {
        teach_engine_free(guess);
        return 1;
    }
    gtp_players_free(e);
    teach_engine_free(e->engine);
    teach_engine_free(e->guess_engine);
    e->engine = fresh;
    e->guess_engine = guess;
    return 0;
}

/* GTP 2.2-2.5: drops control characters other than HT (LF ends the line anyway), cuts the
 * comment, turns HT into a space. Writes into out (as long as line) and returns its length. */
static size_t clean_line(const char *line, char *out)
{
    size_t n = 0;
    for (const unsigned char *s = (const unsigned char *)line; *s && *s != '#'; s++) {
        if (*s == '\t')
            out[n++] = ' ';
        else if (*s >= 32 && *s != 127)
            out[n++] = (char)*s;
    }
    out[n] = 0;
    return n;
}

/* Splits s at spaces in place; argv must hold one slot per two characters plus one. */
static int split_words(char *s, char **argv)
{
    int argc = 0;
    for (;;) {
        while (*s == ' ')
            s++;
        if (!*s)
            return argc;
        argv[argc++] = s;
        while (*s && *s != ' ')
            s++;
        if (*s)
            *s++ = 0;
    }
}

static bool all_digits(const char *s)
{
    return *s && strspn(s, "0123456789") == strlen(s);
}

bool gtp_engine_handle_line(gtp_engine *e, const char *line, FILE *out)
{
    size_t len = strlen(line);
    if (len > 0 && line[len - 1] == '\n')
        len--;
    e->command_s = go_now_s();
    e->moved_color = 0;
    e->ponder_due = false;
    if (len > GTP_MAX_LINE) {
        gtp_write_reply(out, false, "", "line too long");
        return true;
    }
    char *buf = malloc(2 * (len + 1));
    char **argv = malloc(sizeof *argv * (len / 2 + 2));
    if (!buf || !argv) {
        free(buf);
        free(argv);
        gtp_write_reply(out, false, "", "out of memory");
        return true;
    }
    size_t n = clean_line(line, buf);
    /* raw keeps the unsplit words for arguments that are JSON; split_words puts NULs only where
     * spaces were, so a word's offset in buf is its offset in raw. */
    char *raw = buf + len + 1;
    memcpy(raw, buf, n + 1);
    int argc = split_words(buf, argv);
    bool go_on = true;
    if (argc > 0) {
        const char *id = all_digits(argv[0]) ? argv[0] : "";
        int first = *id ? 1 : 0;
        const gtp_command *cmd = first < argc ? find_command(argv[first]) : NULL;
        gtp_text reply = {0};
        bool ok = false;
        /* Without a network the search commands are not listed (known_command says false;
         * genmove is in tsumego mode), but a user who sends one learns what is missing. */
        if (cmd && cmd->needs_net && !command_listed(e, cmd)) {
            gtp_text_printf(&reply, "%s needs a network (start shido gtp with -w FILE)",
                            cmd->name);
        } else if (!cmd) {
            gtp_text_add(&reply, "unknown command");
        } else {
            gtp_args a = {argc - first - 1, argv + first + 1, "", id, out};
            if (a.argc > 0) {
                char *args = raw + (a.argv[0] - buf);
                char *end = raw + (a.argv[a.argc - 1] - buf) + strlen(a.argv[a.argc - 1]);
                *end = 0;
                a.raw = args;
            }
            e->replied = false;
            if (a.argc < cmd->min_args || (cmd->max_args >= 0 && a.argc > cmd->max_args))
                gtp_text_add(&reply, "syntax error");
            else
                ok = cmd->run(e, &a, &reply);
            go_on = !(ok && cmd->run == cmd_quit);
        }
        if (!e->replied)
            gtp_write_reply(out, ok && !reply.oom, id, reply.oom ? "out of memory" : reply.data);
        e->replied = false;
        if (e->moved_color) {
            /* what the controller's clock saw: from the command to its answer */
            teach_timekeeper_moved(&e->time, e->moved_color, go_now_s() - e->command_s,
                                   e->moved_stop_s);
            e->ponder_due = e->ponder_visits > 0;
        }
        free(reply.data);
    }
    free(buf);
    free(argv);
    return go_on;
}

int gtp_engine_run(gtp_engine *e, FILE *in, FILE *out)
{
    line_reader input;
    if (!line_reader_init(&input, in))
        return 1;
    e->input = &input;
    const char *line;
    bool too_long;
    while ((line = line_reader_next(&input, &too_long))) {
        bool go_on = true;
        if (too_long)
            gtp_write_reply(out, false, "", "line too long");
        else
            go_on = gtp_engine_handle_line(e, line, out);
        if (!go_on || ferror(out))
            break;
        if (e->ponder_due && !line_reader_pending(&input))
            gtp_ponder(e);
    }
    e->input = NULL;
    line_reader_free(&input);
    return ferror(out) ? 1 : 0;
}

int shido_cmd_gtp(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            printf("usage: shido gtp %s [--tsumego[=S]] [--tsumego-nodes N] [--guess-weights NET] "
                   "[--ponder[=V]] [--lag S]\n"
                   "GTP v2 on standard input and output (see README.md for the commands)\n%s"
                   "  --tsumego[=S]       genmove plays the tsumego solver's move on corner and "
                   "side problems (S seconds, default 10)\n"
                   "  --tsumego-nodes N   at most N positions for each of a solve's solver "
                   "phases; with --visits V (the guess's search) and time to spare, the same "
                   "answers on every machine\n%s"
                   "  --ponder[=V]        search on the opponent's time after each genmove, "
                   "keeping the tree (at most V visits, default %d)\n"
                   "  --lag S             seconds a controller or server adds to every move: the "
                   "time manager never assumes less (default: measured, from 0.05)\n",
                   teach_options_synopsis(), teach_options_help(), teach_tsumego_guess_help(),
                   GTP_PONDER_VISITS);
            return 0;
        }
    gtp_engine e;
    if (!gtp_engine_init(&e)) {
        fprintf(stderr, "shido gtp: out of memory\n");
        return 1;
    }
    char err[512];
    int rc = gtp_engine_configure(&e, argc, argv, err, sizeof err);
    if (rc == 2)
        fprintf(stderr,
                "shido gtp: %s\nusage: shido gtp %s [--tsumego[=S]] [--tsumego-nodes N] "
                "[--guess-weights NET] [--ponder[=V]] [--lag S]\n%s",
                err,
                teach_options_synopsis(), teach_options_help());
    else if (rc != 0)
        fprintf(stderr, "shido gtp: cannot load network: %s\n", err);
    if (rc != 0) {
        gtp_engine_free(&e);
        return rc;
    }
    rc = gtp_engine_run(&e, stdin, stdout);
    gtp_engine_free(&e);
    return rc;
}
