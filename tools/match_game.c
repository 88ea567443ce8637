/* tools/match_game.c -- one game of `shido match`: engine set-up, the move loop refereed on
 * shido's own board, scoring by agreement or by shido, and the SGF record. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "go/game.h"
#include "go/score.h"
#include "go/sgf.h"
#include "tools/match.h"
#include "tools/match_internal.h"
#include "go/clock.h"

#define REPLY_LEN 4096

/* Case-blind comparison of ASCII text (strcasecmp is not in C11). */
static int strcasecmp_ascii(const char *a, const char *b)
{
    for (;; a++, b++) {
        int d = tolower((unsigned char)*a) - tolower((unsigned char)*b);
        if (d || !*a)
            return d;
    }
}

static char color_letter(go_color c) { return c == GO_BLACK ? 'B' : 'W'; }

/* Appends printf text to a fixed buffer, cutting what does not fit. */
static void appendf(char *buf, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void appendf(char *buf, size_t len, const char *fmt, ...)
{
    size_t used = strlen(buf);
    if (used + 1 >= len)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + used, len - used, fmt, ap);
    va_end(ap);
}

bool match_parse_score(const char *text, double *black_lead)
{
    while (isspace((unsigned char)*text))
        text++;
    size_t n = strlen(text);
    while (n > 0 && isspace((unsigned char)text[n - 1]))
        n--;
    char s[64];
    if (n == 0 || n >= sizeof s)
        return false;
    memcpy(s, text, n);
    s[n] = 0;
    if (!strcmp(s, "0") || !strcmp(s, "Draw") || !strcmp(s, "draw") || !strcmp(s, "Jigo")) {
        *black_lead = 0;
        return true;
    }
    char who = (char)toupper((unsigned char)s[0]);
    if ((who != 'B' && who != 'W') || s[1] != '+')
        return false;
    double sign = who == 'B' ? 1 : -1;
    const char *v = s + 2;
    if (!strcmp(v, "R") || !strcmp(v, "Resign") || !strcmp(v, "resign")) {
        *black_lead = sign * 1e9;
        return true;
    }
    char *end;
    errno = 0;
    double pts = strtod(v, &end);
    if (end == v || *end || errno || !(pts >= 0 && pts < 1e6))
        return false;
    *black_lead = sign * pts;
    return true;
}

int match_engine_up(const match_options *opt, match_engine *eng, int e, char *why, int why_len)
{
    if (eng->running && !eng->gtp.dead)
        return 1;
    match_engine_down(eng);
    eng->running = true;
    if (!gtp_client_start(&eng->gtp, opt->command[e], opt->show_stderr)) {
        snprintf(why, (size_t)why_len, "%s", eng->gtp.err);
        eng->start_failures++;
        return -1;
    }
    /* The probe doubles as the question whether --rules can be sent. It gets the genmove
     * deadline: an engine may take long to load (or tune for) its network. */
    char reply[64];
    int ms = opt->genmove_timeout_ms > opt->timeout_ms ? opt->genmove_timeout_ms : opt->timeout_ms;
    gtp_client_status s =
        gtp_client_cmd(&eng->gtp, ms, "known_command kata-set-rules", reply, sizeof reply);
    if (s == GTP_CLIENT_BROKEN) {
        snprintf(why, (size_t)why_len, "%s", eng->gtp.err);
        if (eng->gtp.exited && eng->gtp.replies == 0) {
            eng->start_failures++;
            return -1;
        }
        return 0;
    }
    eng->start_failures = 0;
    eng->knows_rules = s == GTP_CLIENT_OK && !strcmp(reply, "true");
    return 1;
}

void match_engine_down(match_engine *eng)
{
    if (eng->running)
        gtp_client_stop(&eng->gtp, 2000);
    eng->running = false;
}

/* Copies text to out with every "{seed}" replaced by seed. */
static void with_seed(const char *text, unsigned long long seed, char *out, size_t len)
{
    out[0] = 0;
    for (const char *s = text; *s;) {
        const char *hit = strstr(s, "{seed}");
        size_t n = hit ? (size_t)(hit - s) : strlen(s);
        appendf(out, len, "%.*s", (int)n, s);
        if (!hit)
            break;
        appendf(out, len, "%llu", seed);
        s = hit + 6;
    }
}

/* Records an engine failure in the game's result. */
static void engine_error(match_result *r, int e, const char *what, const char *err)
{
    appendf(r->errors[e], sizeof r->errors[e], "%s%s: %s", r->errors[e][0] ? "; " : "", what,
            err);
}

/* Sends one set-up command; a refusal or a broken engine is recorded and returns false. */
static bool setup_cmd(const match_options *opt, match_engine *eng, int e, match_result *r,
                      const char *line, char *reply, size_t len)
{
    gtp_client_status s = gtp_client_cmd(&eng->gtp, opt->timeout_ms, line, reply, len);
    if (s == GTP_CLIENT_OK)
        return true;
    if (s == GTP_CLIENT_REFUSED) {
        char why[REPLY_LEN + 16];
        snprintf(why, sizeof why, "refused: %s", reply);
        engine_error(r, e, line, why);
    } else {
        engine_error(r, e, line, eng->gtp.err);
    }
    return false;
}

/* Whether a fixed_handicap answer lists exactly shido's handicap points. */
static bool same_points(int size, const char *reply, const int *pts, int n)
{
    bool want[GO_POINTS] = {false};
    for (int i = 0; i < n; i++)
        want[pts[i]] = true;
    int seen = 0;
    char tok[16];
    for (const char *s = reply; sscanf(s, "%15s", tok) == 1;) {
        int p = go_point_from_gtp(size, tok);
        if (p <= 0 || !want[p])
            return false;
        want[p] = false;
        seen++;
        s = strstr(s, tok) + strlen(tok);
    }
    return seen == n;
}

/* Readies engine e for a new game. Returns 1 when set, 0 when it failed (recorded), -1 when it
 * could not even start (recorded). */
static int setup_engine(match_state *st, match_engine *eng, int e, match_result *r)
{
    const match_options *opt = st->opt;
    char why[700], line[600], reply[REPLY_LEN];
    int up = match_engine_up(opt, eng, e, why, sizeof why);
    if (up <= 0) {
        engine_error(r, e, up < 0 ? "start" : "known_command", why);
        return up;
    }
    snprintf(line, sizeof line, "boardsize %d", opt->size);
    if (!setup_cmd(opt, eng, e, r, line, reply, sizeof reply) ||
        !setup_cmd(opt, eng, e, r, "clear_board", reply, sizeof reply))
        return 0;
    snprintf(line, sizeof line, "komi %g", opt->komi);
    if (!setup_cmd(opt, eng, e, r, line, reply, sizeof reply))
        return 0;
    if (opt->rules_text && eng->knows_rules) {
        snprintf(line, sizeof line, "kata-set-rules %s", opt->rules_text);
        if (!setup_cmd(opt, eng, e, r, line, reply, sizeof reply))
            return 0;
    }
    if (opt->timed) {
        snprintf(line, sizeof line, "time_settings %d %d %d", opt->main_time_s, opt->byoyomi_s,
                 opt->byoyomi_stones);
        if (!setup_cmd(opt, eng, e, r, line, reply, sizeof reply))
            return 0;
    }
    for (int i = 0; i < opt->num_setup[e]; i++) {
        with_seed(opt->setup[e][i], opt->seed + (unsigned long long)r->game, line, sizeof line);
        if (!setup_cmd(opt, eng, e, r, line, reply, sizeof reply))
            return 0;
    }
    if (opt->handicap > 0) {
        int pts[9];
        int n = go_fixed_handicap_points(opt->size, opt->handicap, pts);
        snprintf(line, sizeof line, "fixed_handicap %d", opt->handicap);
        if (!setup_cmd(opt, eng, e, r, line, reply, sizeof reply))
            return 0;
        if (!same_points(opt->size, reply, pts, n)) {
            engine_error(r, e, line, "placed the stones elsewhere than GTP's fixed points");
            return 0;
        }
    }
    if (r->opening >= 0) {
        const match_opening *o = &opt->openings[r->opening];
        char vertex[8];
        for (int i = 0; i < o->num_moves; i++) {
            snprintf(line, sizeof line, "play %c %s", color_letter(o->moves[i].color),
                     go_point_to_gtp(opt->size, o->moves[i].point, vertex));
            if (!setup_cmd(opt, eng, e, r, line, reply, sizeof reply))
                return 0;
        }
    }
    return 1;
}

static void set_winner(match_result *r, int winner, const char *how)
{
    r->winner = winner;
    go_color c = winner == r->black ? GO_BLACK : GO_WHITE;
    snprintf(r->re, sizeof r->re, "%c+%s", color_letter(c), how);
}

/* The mover lost without the game reaching its end. */
static void lose(match_result *r, int loser, match_end end, const char *how)
{
    r->end = end;
    set_winner(r, 1 - loser, how);
}

/* Parses a final_status_list answer into dead[]; false when a vertex is not a stone here. */
static bool read_dead(const go_board *b, const char *reply, bool *dead, int *count)
{
    memset(dead, 0, GO_POINTS * sizeof *dead);
    *count = 0;
    char tok[16];
    int used;
    for (const char *s = reply; sscanf(s, " %15s%n", tok, &used) == 1; s += used) {
        int p = go_point_from_gtp(b->size, tok);
        if (p <= 0 || b->color[p] == GO_EMPTY)
            return false;
        if (!dead[p])
            (*count)++;
        dead[p] = true;
    }
    return true;
}

static const char *engine_label(int e) { return e == 0 ? "engine1" : "engine2"; }

/* Scores a finished game: both engines' final_score when they name the same winner, otherwise
 * shido's own score with the dead stones both engines agree on, else of the board as it is. */
static void score_game(match_state *st, match_engine eng[2], const go_game *g, match_result *r)
{
    const match_options *opt = st->opt;
    char reply[REPLY_LEN];
    double lead[2];
    bool have[2];
    for (int e = 0; e < 2; e++) {
        have[e] = false;
        gtp_client_status s =
            gtp_client_cmd(&eng[e].gtp, opt->timeout_ms, "final_score", reply, sizeof reply);
        if (s == GTP_CLIENT_BROKEN) {
            engine_error(r, e, "final_score", eng[e].gtp.err);
            continue;
        }
        snprintf(r->final_score[e], sizeof r->final_score[e], "%.63s", reply);
        have[e] = s == GTP_CLIENT_OK && match_parse_score(reply, &lead[e]);
    }
    int sign0 = have[0] ? (lead[0] > 0) - (lead[0] < 0) : 2;
    int sign1 = have[1] ? (lead[1] > 0) - (lead[1] < 0) : 3;
    if (sign0 == sign1) {
        r->have_lead = true;
        r->black_lead = lead[0];
        snprintf(r->reason, sizeof r->reason, "both engines' final_score agree");
        appendf(r->detail, sizeof r->detail,
                "; both engines' final_score agree (engine1 %s, engine2 %s)", r->final_score[0],
                r->final_score[1]);
    } else {
        r->by_shido = true;
        if (have[0] && have[1])
            snprintf(r->reason, sizeof r->reason, "adjudicated by shido: engines disagreed");
        else
            snprintf(r->reason, sizeof r->reason,
                     "adjudicated by shido: %s gave no usable final_score",
                     !have[0] ? engine_label(0) : engine_label(1));
        if (have[0] && have[1])
            appendf(r->detail, sizeof r->detail,
                    "; adjudicated by shido: engines disagreed (engine1 %s, engine2 %s)",
                    r->final_score[0], r->final_score[1]);
        else
            appendf(r->detail, sizeof r->detail,
                    "; adjudicated by shido: %s gave no usable final_score (engine1 \"%s\", "
                    "engine2 \"%s\")",
                    !have[0] ? engine_label(0) : engine_label(1), r->final_score[0],
                    r->final_score[1]);
        bool dead[2][GO_POINTS];
        bool listed[2];
        int count[2] = {0, 0};
        for (int e = 0; e < 2; e++) {
            bool was_dead = eng[e].gtp.dead;
            gtp_client_status s = gtp_client_cmd(&eng[e].gtp, opt->timeout_ms,
                                                 "final_status_list dead", reply, sizeof reply);
            if (s == GTP_CLIENT_BROKEN && !was_dead)
                engine_error(r, e, "final_status_list dead", eng[e].gtp.err);
            listed[e] = s == GTP_CLIENT_OK && read_dead(&g->board, reply, dead[e], &count[e]);
        }
        bool agree = listed[0] && listed[1] && !memcmp(dead[0], dead[1], sizeof dead[0]);
        const char *rules = go_rules_name(&g->rules);
        if (!rules)
            rules = "custom";
        r->have_lead = true;
        r->black_lead = go_score_final(g, agree ? dead[0] : NULL, NULL);
        if (agree)
            appendf(r->detail, sizeof r->detail,
                    "; shido's %s-rules score with the %d dead stones both engines list", rules,
                    count[0]);
        else
            appendf(r->detail, sizeof r->detail,
                    "; shido's %s-rules score of the board as it stands (the engines' dead "
                    "stones differ or are missing)",
                    rules);
    }
    char text[32];
    go_score_to_text(r->black_lead, text, sizeof text);
    if (r->black_lead >= 1e8 || r->black_lead <= -1e8)
        snprintf(text, sizeof text, "%c+R", r->black_lead > 0 ? 'B' : 'W');
    snprintf(r->re, sizeof r->re, "%s", text);
    r->winner = r->black_lead > 0 ? r->black : r->black_lead < 0 ? 1 - r->black : MATCH_DRAW;
}

/* Engine `loser` lost by forfeit at move move_no after the failure recorded in its errors. */
static void forfeit(match_result *r, int loser, int move_no)
{
    lose(r, loser, MATCH_END_FORFEIT, "F");
    snprintf(r->reason, sizeof r->reason, "forfeit: %s failed at move %d", engine_label(loser),
             move_no);
    snprintf(r->detail, sizeof r->detail, "%s lost by forfeit at move %d: %s",
             engine_label(loser), move_no, r->errors[loser]);
}

/* The move loop from the first move to the end of the game. */
static void play_moves(match_state *st, match_engine eng[2], go_game *g, match_result *r)
{
    const match_options *opt = st->opt;
    char reply[REPLY_LEN], line[64], why[REPLY_LEN + 128], vertex[8];
    go_color to_move = g->board.to_move;   /* white after handicap stones; after an opening */
    /* each engine's clock, kept here: time_left before each genmove, the flag after it */
    go_clock clock[2] = {go_clock_start(&opt->clock), go_clock_start(&opt->clock)};
    bool clocked = opt->timed && opt->clock.system != GO_TIME_NONE;
    for (;;) {
        int move_no = g->num_moves + 1;
        if (g->num_moves >= opt->max_moves) {
            r->end = MATCH_END_MOVE_LIMIT;
            snprintf(r->detail, sizeof r->detail, "move limit %d reached", opt->max_moves);
            score_game(st, eng, g, r);
            return;
        }
        int mover = to_move == GO_BLACK ? r->black : 1 - r->black, other = 1 - mover;
        char c = color_letter(to_move);
        gtp_client_status s;
        if (clocked) {
            double left;
            int stones;
            go_clock_to_gtp(&opt->clock, &clock[mover], &left, &stones);
            snprintf(line, sizeof line, "time_left %c %.3f %d", (char)tolower(c), left, stones);
            /* an engine that does not take time_left keeps its own account */
            s = gtp_client_cmd(&eng[mover].gtp, opt->timeout_ms, line, reply, sizeof reply);
            if (s == GTP_CLIENT_BROKEN) {
                engine_error(r, mover, line, eng[mover].gtp.err);
                forfeit(r, mover, move_no);
                return;
            }
        }
        snprintf(line, sizeof line, "genmove %c", (char)tolower(c));
        double t0 = go_now_s();
        s = gtp_client_cmd(&eng[mover].gtp, opt->genmove_timeout_ms, line, reply, sizeof reply);
        double spent = go_now_s() - t0;
        r->think_s[mover] += spent;
        r->moves_by[mover]++;
        if (spent > r->longest_s[mover])
            r->longest_s[mover] = spent;
        go_clock charged = clock[mover];
        bool in_time = !clocked || go_clock_charge(&opt->clock, &charged, spent);
        if (!in_time && opt->time_grace_s > 0) {
            /* late, but within the grace: charged as if the grace had not been used */
            charged = clock[mover];
            double within = spent > opt->time_grace_s ? spent - opt->time_grace_s : 0;
            in_time = go_clock_charge(&opt->clock, &charged, within);
            r->late[mover] += in_time;
        }
        clock[mover] = charged;
        if (s == GTP_CLIENT_OK && !in_time) {
            lose(r, mover, MATCH_END_TIME, "T");
            snprintf(r->reason, sizeof r->reason, "time: %s's flag fell at move %d (%.3f s)",
                     engine_label(mover), move_no, spent);
            snprintf(r->detail, sizeof r->detail, "%s", r->reason);
            return;
        }
        if (s != GTP_CLIENT_OK) {
            snprintf(why, sizeof why, "refused: %s", reply);
            engine_error(r, mover, line, s == GTP_CLIENT_REFUSED ? why : eng[mover].gtp.err);
            forfeit(r, mover, move_no);
            return;
        }
        if (!strcasecmp_ascii(reply, "resign")) {
            lose(r, mover, MATCH_END_RESIGN, "R");
            snprintf(r->reason, sizeof r->reason, "resignation");
            snprintf(r->detail, sizeof r->detail, "%c (%s) resigned at move %d", c,
                     engine_label(mover), move_no);
            return;
        }
        int p = go_point_from_gtp(opt->size, reply);
        if (p == GO_NO_POINT) {
            snprintf(why, sizeof why, "answered \"%.40s\", which is no move", reply);
            engine_error(r, mover, line, why);
            forfeit(r, mover, move_no);
            return;
        }
        go_point_to_gtp(opt->size, p, vertex);
        go_move_status legal = go_game_play(g, p, to_move);
        if (legal != GO_MOVE_OK) {
            lose(r, mover, MATCH_END_ILLEGAL, "F");
            snprintf(r->reason, sizeof r->reason, "illegal move: %s played %c %s at move %d (%s)",
                     engine_label(mover), c, vertex, move_no, go_move_status_text(legal));
            snprintf(r->detail, sizeof r->detail, "%s", r->reason);
            return;
        }
        snprintf(line, sizeof line, "play %c %s", c, vertex);
        s = gtp_client_cmd(&eng[other].gtp, opt->timeout_ms, line, reply, sizeof reply);
        if (s == GTP_CLIENT_REFUSED) {
            go_game_undo(g);
            lose(r, mover, MATCH_END_ILLEGAL, "F");
            snprintf(r->reason, sizeof r->reason,
                     "illegal move: %s played %c %s at move %d, refused by %s", engine_label(mover),
                     c, vertex, move_no, engine_label(other));
            snprintf(r->detail, sizeof r->detail, "%s (\"%.200s\")", r->reason, reply);
            return;
        }
        if (s == GTP_CLIENT_BROKEN) {
            engine_error(r, other, line, eng[other].gtp.err);
            forfeit(r, other, move_no);
            return;
        }
        if (g->consecutive_passes >= 2) {
            r->end = MATCH_END_PASSES;
            snprintf(r->detail, sizeof r->detail, "two passes");
            score_game(st, eng, g, r);
            return;
        }
        to_move = go_opponent(to_move);
    }
}

/* Adds a property with one value to an SGF node. */
static bool sgf_add(go_sgf_node *n, const char *ident, const char *value)
{
    go_sgf_prop *props = realloc(n->props, (size_t)(n->num_props + 1) * sizeof *props);
    if (!props)
        return false;
    n->props = props;
    char *id = strdup(ident), *v = strdup(value);
    char **values = malloc(sizeof *values);
    if (!id || !v || !values) {
        free(id);
        free(v);
        free(values);
        return false;
    }
    values[0] = v;
    n->props[n->num_props++] = (go_sgf_prop){id, 1, values};
    return true;
}

/* Removes every property ident from an SGF node. */
static void sgf_remove(go_sgf_node *n, const char *ident)
{
    for (int i = 0; i < n->num_props;) {
        go_sgf_prop *pr = &n->props[i];
        if (strcmp(pr->ident, ident)) {
            i++;
            continue;
        }
        for (int j = 0; j < pr->num_values; j++)
            free(pr->values[j]);
        free(pr->values);
        free(pr->ident);
        memmove(pr, pr + 1, (size_t)(n->num_props - i - 1) * sizeof *pr);
        n->num_props--;
    }
}

/* Writes the game record to opt->sgf_dir; on failure says why in why and returns false. */
static bool write_sgf(const match_options *opt, const go_game *g, match_result *r,
                      const char *date, char *why, size_t why_len)
{
    snprintf(r->sgf_path, sizeof r->sgf_path, "%s/game-%04d.sgf", opt->sgf_dir,
             r->game + 1);
    go_sgf_collection *c = go_sgf_from_game(g);
    char num[32], comment[sizeof r->detail + 2 * MATCH_NAME_LEN + 428];
    snprintf(num, sizeof num, "%d", r->game + 1);
    int b = r->black, w = 1 - r->black;
    char from[300] = "";
    if (r->opening >= 0)
        snprintf(from, sizeof from, " From the opening %.200s (%d moves).",
                 opt->openings[r->opening].spec, opt->openings[r->opening].num_moves);
    snprintf(comment, sizeof comment,
             "shido match game %d: Black %s (%s), White %s (%s).%s %s: %s.", r->game + 1,
             opt->name[b], engine_label(b), opt->name[w], engine_label(w), from, r->re,
             r->detail);
    bool ok = c != NULL;
    if (ok && !opt->rules_text)
        sgf_remove(c->games[0], "RU");
    go_sgf_node *root = ok ? c->games[0] : NULL;
    ok = ok && sgf_add(root, "PB", opt->name[b]) && sgf_add(root, "PW", opt->name[w]) &&
         sgf_add(root, "RE", r->re) && sgf_add(root, "DT", date) && sgf_add(root, "GN", num) &&
         sgf_add(root, "C", comment);
    if (ok && opt->timed) {
        char tm[32], ot[64];
        snprintf(tm, sizeof tm, "%d", opt->main_time_s);
        snprintf(ot, sizeof ot, "%d/%d Canadian", opt->byoyomi_stones, opt->byoyomi_s);
        ok = sgf_add(root, "TM", tm) && (opt->byoyomi_stones == 0 || sgf_add(root, "OT", ot));
    }
    char *text = ok ? go_sgf_write(c) : NULL;
    go_sgf_free(c);
    if (!text) {
        snprintf(why, why_len, "out of memory");
        return false;
    }
    FILE *f = fopen(r->sgf_path, "w");
    bool written = f && fputs(text, f) >= 0 && fputc('\n', f) != EOF;
    if (f && fclose(f) != 0)
        written = false;
    free(text);
    if (!written)
        snprintf(why, why_len, "%s: %s", r->sgf_path, strerror(errno));
    return written;
}

bool match_play_game(match_state *st, match_engine eng[2], match_result *r, char *why,
                     int why_len)
{
    const match_options *opt = st->opt;
    r->black = r->game % 2 == 0 ? 0 : 1;
    r->winner = MATCH_NO_RESULT;
    char date[16];
    time_t t = time(NULL);
    struct tm tm;
    strftime(date, sizeof date, "%Y-%m-%d", gmtime_r(&t, &tm));

    int ready[2];
    for (int e = 0; e < 2; e++)
        ready[e] = setup_engine(st, &eng[e], e, r);
    for (int e = 0; e < 2; e++)
        if (ready[e] < 0 && eng[e].start_failures >= MATCH_START_FAILURES) {
            snprintf(why, (size_t)why_len, "%s could not start %d times in a row: %s",
                     engine_label(e), eng[e].start_failures, r->errors[e]);
            return false;
        }
    go_game g;
    if (!go_game_init(&g, opt->size, &opt->rules, opt->komi)) {
        snprintf(why, (size_t)why_len, "out of memory");
        return false;
    }
    if (opt->handicap > 0) {
        int pts[9];
        go_game_fixed_handicap(&g, opt->handicap, pts);
    }
    if (r->opening >= 0) {
        /* legal under the match's rules: load_opening replayed it */
        const match_opening *o = &opt->openings[r->opening];
        for (int i = 0; i < o->num_moves; i++)
            go_game_play(&g, o->moves[i].point, o->moves[i].color);
    }
    if (ready[0] <= 0 && ready[1] <= 0) {
        r->end = MATCH_END_VOID;
        r->winner = MATCH_NO_RESULT;
        snprintf(r->re, sizeof r->re, "Void");
        snprintf(r->reason, sizeof r->reason, "void: both engines failed at set-up");
        snprintf(r->detail, sizeof r->detail, "both engines failed at set-up: engine1: %.300s; "
                 "engine2: %.300s", r->errors[0], r->errors[1]);
    } else if (ready[0] <= 0 || ready[1] <= 0) {
        int loser = ready[0] <= 0 ? 0 : 1;
        lose(r, loser, MATCH_END_FORFEIT, "F");
        snprintf(r->reason, sizeof r->reason, "forfeit: %s failed at set-up", engine_label(loser));
        snprintf(r->detail, sizeof r->detail, "%s lost by forfeit at set-up: %s",
                 engine_label(loser), r->errors[loser]);
    } else {
        play_moves(st, eng, &g, r);
    }
    r->moves = g.num_moves;
    bool ok = true;
    if (opt->sgf_dir) {
        char err[600];
        if (!write_sgf(opt, &g, r, date, err, sizeof err)) {
            r->sgf_path[0] = 0;
            snprintf(why, (size_t)why_len, "cannot write the SGF: %s", err);
            ok = false;
        }
    }
    go_game_free(&g);
    return ok;
}
