/* tests/test_gtp_search.c -- the search and analysis commands of `shido gtp` through the real
 * binary over pipes, as Sabaki, Lizzie and LizGoban drive it: their start-up probes, lz-analyze
 * and kata-analyze streams (every line parsed: keys in order, integers vs floats, pv last for
 * lz, ownership and ownership stdev counts, minmoves' unvisited moves, the blank line that ends a
 * stream when a new command arrives, then that command's answer), genmove and the
 * genmove_analyze variants, parameters, scoring, the clock, and a clean exit when stdin closes.
 * 9x9 with the KataGo net and a few visits; the Leela Zero net (19x19 only) with a few visits,
 * its passes at the end of a game included. */
#include <check.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "go/clock.h"
#include "tests/common.h"

/* ---- a running engine ------------------------------------------------------------------- */

#include "tests/shido_pipe.h"

/* A whole non-streaming reply: its lines up to the blank line, joined with '\n'. */
static char *read_reply(engine *e)
{
    size_t len = 0;
    char *all = calloc(1, 1);
    for (;;) {
        char *l = engine_read_line(e);
        ck_assert_msg(l != NULL, "end of output inside a reply: %s", all);
        if (!*l) {
            free(l);
            return all;
        }
        size_t n = strlen(l);
        all = realloc(all, len + n + 2);
        if (len)
            all[len++] = '\n';
        memcpy(all + len, l, n + 1);
        len += n;
        free(l);
    }
}

static char *ask(engine *e, const char *command)
{
    send_line(e, command);
    return read_reply(e);
}

static void expect_ok(engine *e, const char *command)
{
    char *r = ask(e, command);
    ck_assert_msg(r[0] == '=', "%s: %s", command, r);
    free(r);
}

static void expect_reply(engine *e, const char *command, const char *want)
{
    char *r = ask(e, command);
    ck_assert_msg(!strcmp(r, want), "%s: got '%s', want '%s'", command, r, want);
    free(r);
}

static void expect_fail(engine *e, const char *command)
{
    char *r = ask(e, command);
    ck_assert_msg(r[0] == '?', "%s: %s", command, r);
    free(r);
}

/* Closes stdin, checks that the engine exits by itself with status 0 and that stderr holds no
 * line a GUI could take for protocol. */
static void engine_finish(engine *e)
{
    fclose(e->in);
    char *rest;
    while ((rest = engine_read_line(e)))
        free(rest);
    fclose(e->out);
    engine_wait(e, 0);
    char *err = test_read_file(e->err_path, NULL);
    unlink(e->err_path);
    pipe_assert_no_protocol_lines(err);
    free(err);
}

static void start_kata(engine *e, const char *visits)
{
    const char *args[] = {"gtp", "-w", TEST_G170, "--visits", visits, "--threads", "1", NULL};
    engine_start(e, args);
    expect_ok(e, "boardsize 9");
    expect_ok(e, "komi 7");
}

/* ---- analysis lines ---------------------------------------------------------------------- */

static bool is_integer(const char *t)
{
    const char *s = *t == '-' ? t + 1 : t;
    return *s && strspn(s, "0123456789") == strlen(s);
}

static bool is_float(const char *t)
{
    char *end;
    strtod(t, &end);
    return *t && !*end && strchr(t, '.') && !strchr(t, 'n') && !strchr(t, 'N');
}

static bool is_vertex(const char *t, int size)
{
    if (!strcmp(t, "pass"))
        return true;
    if (t[0] < 'A' || t[0] > 'T' || t[0] == 'I' || !is_integer(t + 1))
        return false;
    int col = t[0] - 'A' - (t[0] > 'I'), row = atoi(t + 1);
    return col < size && row >= 1 && row <= size;
}

/* What a parsed analysis line held. */
typedef struct line_info {
    int moves, unvisited;   /* unvisited: minmoves' fill, 0 visits, after every visited move */
    long long visits_sum, root_visits;
    bool has_root, has_ownership, has_stdev;
    char first_move[8];
} line_info;

typedef struct kata_keys {
    bool pv_visits, pv_edge_visits, moves_ownership, root_info, ownership, ownership_stdev;
    bool moves_ownership_stdev;
} kata_keys;

static char **tokens(char *line, int *n)
{
    int cap = 64;
    char **t = malloc(sizeof *t * (size_t)cap), *save = NULL;
    *n = 0;
    for (char *w = strtok_r(line, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
        if (*n == cap)
            t = realloc(t, sizeof *t * (size_t)(cap *= 2));
        t[(*n)++] = w;
    }
    return t;
}

/* Checks n values of floats in [lo, 1] at t[*i], advancing *i (ownership from -1, its standard
 * deviation from 0). */
static void check_grid(char **t, int n_tok, int *i, int count, const char *what, double lo)
{
    for (int k = 0; k < count; k++, (*i)++) {
        ck_assert_msg(*i < n_tok, "%s: %d values, want %d", what, k, count);
        ck_assert_msg(is_float(t[*i]), "%s value '%s'", what, t[*i]);
        double v = atof(t[*i]);
        ck_assert_msg(v >= lo - 1e-4 && v <= 1.0001, "%s value %g", what, v);
    }
}

/* A candidate's visits: minmoves' unvisited moves (0) come after all visited ones. */
static void count_visits(line_info *li, long long v)
{
    ck_assert_int_ge(v, 0);
    if (v == 0)
        li->unvisited++;
    else
        ck_assert_msg(li->unvisited == 0, "visited move after an unvisited one");
    li->visits_sum += v;
}

/* An lz-analyze line: info move V visits N winrate W prior P lcb L order K pv V... repeated;
 * integers, winrate/prior/lcb in 0..10000, pv last. */
static line_info parse_lz_line(const char *text, int size)
{
    static const char *const keys[] = {"visits", "winrate", "prior", "lcb", "order"};
    char *copy = strdup(text);
    int n;
    char **t = tokens(copy, &n);
    line_info li = {0};
    int i = 0;
    while (i < n) {
        ck_assert_msg(!strcmp(t[i], "info") && i + 2 < n && !strcmp(t[i + 1], "move"),
                      "lz line: '%s' at %d", t[i], i);
        ck_assert_msg(is_vertex(t[i + 2], size), "move '%s'", t[i + 2]);
        if (li.moves == 0)
            snprintf(li.first_move, sizeof li.first_move, "%s", t[i + 2]);
        i += 3;
        for (int k = 0; k < 5; k++, i += 2) {
            ck_assert_msg(i + 1 < n && !strcmp(t[i], keys[k]), "want %s, got '%s'", keys[k],
                          i < n ? t[i] : "");
            ck_assert_msg(is_integer(t[i + 1]), "%s '%s' is not an integer", keys[k], t[i + 1]);
            long long v = atoll(t[i + 1]);
            if (k >= 1 && k <= 3)
                ck_assert_msg(v >= 0 && v <= 10000, "%s %lld", keys[k], v);
            if (k == 0)
                count_visits(&li, v);
            if (k == 4)
                ck_assert_int_eq(v, li.moves);
        }
        ck_assert_msg(i < n && !strcmp(t[i], "pv"), "pv expected, got '%s'", i < n ? t[i] : "");
        i++;
        int pv = 0;
        for (; i < n && strcmp(t[i], "info"); i++, pv++)
            ck_assert_msg(is_vertex(t[i], size), "pv move '%s'", t[i]);
        ck_assert_int_ge(pv, 1);
        li.moves++;
    }
    ck_assert_int_ge(li.moves, 1);
    free(t);
    free(copy);
    return li;
}

/* A kata-analyze line with the keys asked for, in KataGo's order. */
static line_info parse_kata_line(const char *text, int size, kata_keys want)
{
    static const char *const keys[] = {"visits", "edgeVisits", "utility", "winrate",
                                       "scoreMean", "scoreStdev", "scoreLead", "scoreSelfplay",
                                       "prior", "lcb", "utilityLcb", "weight", "order"};
    static const char *const root_keys[] = {"visits", "utility", "winrate", "scoreMean",
                                            "scoreStdev", "scoreLead", "scoreSelfplay", "weight",
                                            "currentPlayer"};
    char *copy = strdup(text);
    int n;
    char **t = tokens(copy, &n);
    line_info li = {0};
    int i = 0;
    while (i < n && !strcmp(t[i], "info")) {
        ck_assert_msg(i + 2 < n && !strcmp(t[i + 1], "move"), "info without move");
        ck_assert_msg(is_vertex(t[i + 2], size), "move '%s'", t[i + 2]);
        if (li.moves == 0)
            snprintf(li.first_move, sizeof li.first_move, "%s", t[i + 2]);
        i += 3;
        double score_mean = 0;
        for (int k = 0; k < 13; k++, i += 2) {
            ck_assert_msg(i + 1 < n && !strcmp(t[i], keys[k]), "want %s, got '%s'", keys[k],
                          i < n ? t[i] : "");
            bool integer = k == 0 || k == 1 || k == 12;
            ck_assert_msg(integer ? is_integer(t[i + 1]) : is_float(t[i + 1]), "%s '%s'",
                          keys[k], t[i + 1]);
            double v = atof(t[i + 1]);
            if (k == 3 || k == 8)
                ck_assert_msg(v >= 0 && v <= 1, "%s %g", keys[k], v);
            if (k == 0)
                count_visits(&li, (long long)v);
            if (k == 4)
                score_mean = v;
            if (k == 6)   /* KataGo's scoreMean is the lead */
                ck_assert_msg(fabs(v - score_mean) < 1e-9, "scoreMean %g, scoreLead %g",
                              score_mean, v);
            if (k == 12)
                ck_assert_int_eq((int)v, li.moves);
        }
        ck_assert_msg(i < n && !strcmp(t[i], "pv"), "pv expected");
        i++;
        int pv = 0;
        for (; i < n && is_vertex(t[i], size); i++)
            pv++;
        ck_assert_int_ge(pv, 1);
        const char *lists[2] = {"pvVisits", "pvEdgeVisits"};
        bool on[2] = {want.pv_visits, want.pv_edge_visits};
        for (int l = 0; l < 2; l++) {
            if (!on[l])
                continue;
            ck_assert_msg(i < n && !strcmp(t[i], lists[l]), "want %s", lists[l]);
            i++;
            for (int k = 0; k < pv; k++, i++)
                ck_assert_msg(i < n && is_integer(t[i]), "%s entry %d", lists[l], k);
        }
        if (want.moves_ownership) {
            ck_assert_msg(i < n && !strcmp(t[i], "movesOwnership"), "want movesOwnership");
            i++;
            check_grid(t, n, &i, size * size, "movesOwnership", -1);
        }
        if (want.moves_ownership_stdev) {
            ck_assert_msg(i < n && !strcmp(t[i], "movesOwnershipStdev"),
                          "want movesOwnershipStdev");
            i++;
            check_grid(t, n, &i, size * size, "movesOwnershipStdev", 0);
        }
        li.moves++;
    }
    if (want.root_info) {
        ck_assert_msg(i < n && !strcmp(t[i], "rootInfo"), "want rootInfo at '%s'",
                      i < n ? t[i] : "");
        i++;
        for (int k = 0; k < 9; k++, i += 2) {
            ck_assert_msg(i + 1 < n && !strcmp(t[i], root_keys[k]), "rootInfo: want %s",
                          root_keys[k]);
            if (k == 0) {
                ck_assert(is_integer(t[i + 1]));
                li.root_visits = atoll(t[i + 1]);
            } else if (k == 8) {
                ck_assert(!strcmp(t[i + 1], "B") || !strcmp(t[i + 1], "W"));
            } else {
                ck_assert_msg(is_float(t[i + 1]), "rootInfo %s '%s'", root_keys[k], t[i + 1]);
            }
        }
        li.has_root = true;
    }
    if (want.ownership) {
        ck_assert_msg(i < n && !strcmp(t[i], "ownership"), "want ownership");
        i++;
        check_grid(t, n, &i, size * size, "ownership", -1);
        li.has_ownership = true;
    }
    if (want.ownership_stdev) {
        ck_assert_msg(i < n && !strcmp(t[i], "ownershipStdev"), "want ownershipStdev");
        i++;
        check_grid(t, n, &i, size * size, "ownershipStdev", 0);
        li.has_stdev = true;
    }
    ck_assert_msg(i == n, "trailing '%s'", i < n ? t[i] : "");
    ck_assert_int_ge(li.moves, 1);
    free(t);
    free(copy);
    return li;
}

/* Starts an analysis command, reads `lines` info lines, interrupts it with `next` and checks
 * that the stream ends with a blank line followed by next's answer (returned, malloc'd).
 * parse: 0 lz, 1 kata (with want). */
static char *stream(engine *e, const char *command, int lines, const char *next, int size,
                    int parse, kata_keys want)
{
    send_line(e, command);
    char *first = engine_read_line(e);
    ck_assert_msg(first && !strcmp(first, "="), "%s: first line '%s'", command,
                  first ? first : "(eof)");
    free(first);
    for (int k = 0; k < lines; k++) {
        char *l = engine_read_line(e);
        ck_assert_msg(l && *l, "%s: stream ended early", command);
        line_info li = parse ? parse_kata_line(l, size, want) : parse_lz_line(l, size);
        if (li.has_root)
            ck_assert_msg(li.visits_sum <= li.root_visits, "children %lld > root %lld",
                          li.visits_sum, li.root_visits);
        free(l);
    }
    send_line(e, next);
    /* More info lines may have been on their way; then the blank line ends the stream. */
    for (;;) {
        char *l = engine_read_line(e);
        ck_assert_msg(l != NULL, "%s: no end of stream", command);
        bool blank = !*l;
        if (!blank) {
            ck_assert_msg(!strncmp(l, "info", 4), "%s: unexpected '%s'", command, l);
            if (parse)
                parse_kata_line(l, size, want);
            else
                parse_lz_line(l, size);
        }
        free(l);
        if (blank)
            break;
    }
    return read_reply(e);
}

static const kata_keys no_keys = {0};

/* Starts an analysis command, returns its first info line (malloc'd) and ends the stream with
 * `stop`. */
static char *one_line(engine *e, const char *command)
{
    send_line(e, command);
    char *l = engine_read_line(e);
    ck_assert_msg(l && !strcmp(l, "="), "%s: first line '%s'", command, l ? l : "(eof)");
    free(l);
    char *first = engine_read_line(e);
    ck_assert_msg(first && !strncmp(first, "info ", 5), "%s: '%s'", command,
                  first ? first : "(eof)");
    send_line(e, "stop");
    for (;;) {
        l = engine_read_line(e);
        ck_assert_ptr_nonnull(l);
        bool blank = !*l;
        free(l);
        if (blank)
            break;
    }
    char *r = read_reply(e);
    ck_assert_str_eq(r, "=");
    free(r);
    return first;
}

/* ---- tests -------------------------------------------------------------------------------- */

/* What Sabaki, Lizzie and LizGoban send first, and LizGoban's feature probes. */
START_TEST(test_startup_probes)
{
    engine e;
    start_kata(&e, "16");
    expect_reply(&e, "protocol_version", "= 2");
    expect_reply(&e, "name", "= shido");
    char *reply = ask(&e, "list_commands");
    char *list = malloc(strlen(reply) + 2);
    sprintf(list, "%s\n", reply);
    free(reply);
    static const char *const need[] = {"genmove", "lz-analyze", "kata-analyze",
                                       "lz-genmove_analyze", "kata-genmove_analyze", "stop",
                                       "clear_cache", "final_score", "final_status_list",
                                       "kata-set-param", "kata-get-param", "kata-list-params",
                                       "lz-setoption", "kata-raw-nn", "time_settings",
                                       "kata-get-rules", "kata-set-rules"};
    for (size_t i = 0; i < sizeof need / sizeof need[0]; i++) {
        char pat[64];
        snprintf(pat, sizeof pat, "\n%s\n", need[i]);
        ck_assert_msg(strstr(list, pat), "list_commands lacks %s", need[i]);
    }
    free(list);
    expect_reply(&e, "known_command lz-analyze", "= true");
    expect_reply(&e, "known_command kata-analyze", "= true");
    expect_reply(&e, "known_command analyze", "= true");
    expect_ok(&e, "kata-get-rules");
    /* LizGoban's probes: the streams start, the next command ends them. */
    char *r = stream(&e, "kata-analyze 1 pvVisits true", 0, "name", 9, 1,
                     (kata_keys){.pv_visits = true});
    ck_assert_str_eq(r, "= shido");
    free(r);
    r = stream(&e, "lz-analyze 1 allow B D4 1", 0, "version", 9, 0, no_keys);
    /* Lizzie reads the second number of the version's first word as Leela Zero's minor
     * version and wants 15 or more (Integer.parseInt: digits only) */
    char word[32] = "";
    sscanf(r, "= %31s", word);
    char *dot = strchr(word, '.');
    ck_assert_msg(dot && is_integer(dot + 1) && atoi(dot + 1) >= 15, "version %s", r);
    ck_assert_msg(strstr(r, "shido 0.1.0"), "version %s", r);
    free(r);
    /* Unsupported options answer '?' at once. */
    expect_fail(&e, "lz-analyze 1 ownership true");
    expect_fail(&e, "kata-analyze 1 frobnicate true");
    expect_fail(&e, "kata-analyze 1 avoid B D4");
    expect_fail(&e, "lz-setoption name Frobnication value 3");
    expect_fail(&e, "kata-set-param frobnication 1");
    engine_finish(&e);
}
END_TEST

START_TEST(test_kata_analyze_stream)
{
    engine e;
    start_kata(&e, "16");
    expect_ok(&e, "play b E5");
    expect_ok(&e, "kata-set-param maxVisits 0");   /* streams until interrupted */
    kata_keys all = {true, true, true, true, true, true, true};
    char *r = stream(&e,
                     "kata-analyze interval 10 ownership true ownershipStdev true movesOwnership "
                     "true movesOwnershipStdev true pvVisits true pvEdgeVisits true rootInfo true",
                     2, "play w C3", 9, 1, all);
    ck_assert_str_eq(r, "=");
    free(r);
    /* The interrupting command was processed: C3 is taken now. */
    expect_fail(&e, "play b C3");
    kata_keys some = {.root_info = true, .ownership = true};
    r = stream(&e, "kata-analyze B 5 ownership true rootInfo true maxmoves 3", 2, "12 name", 9,
               1, some);
    ck_assert_str_eq(r, "=12 shido");
    free(r);
    /* avoid: the avoided moves never show at the root. */
    send_line(&e, "kata-analyze b 5 avoid b D4,E4,F4,D6,E6,F6,C5,G5,D5,F5 1");
    char *l = engine_read_line(&e);
    ck_assert_str_eq(l, "=");
    free(l);
    l = engine_read_line(&e);
    parse_kata_line(l, 9, no_keys);
    static const char *const avoided[] = {"D4", "E4", "F4", "D6", "E6", "F6", "C5", "G5", "D5",
                                          "F5"};
    for (int k = 0; k < 10; k++) {
        char pat[16];
        snprintf(pat, sizeof pat, "move %s ", avoided[k]);
        ck_assert_msg(!strstr(l, pat), "avoided %s in %s", avoided[k], l);
    }
    free(l);
    send_line(&e, "stop");
    for (;;) {
        l = engine_read_line(&e);
        ck_assert_ptr_nonnull(l);
        bool blank = !*l;
        free(l);
        if (blank)
            break;
    }
    r = read_reply(&e);
    ck_assert_str_eq(r, "=");
    free(r);
    /* minmoves: every move black may play (79: E5 and C3 are taken, and passing is not allowed
     * while neutral points can be filled), the unvisited ones last with 0 visits; maxmoves cuts
     * after the fill; lz-analyze too. */
    kata_keys sd = {.moves_ownership = true, .moves_ownership_stdev = true,
                    .ownership_stdev = true};
    l = one_line(&e, "kata-analyze b 5 minmoves 100 movesOwnership true movesOwnershipStdev "
                     "true ownershipStdev true");
    line_info li = parse_kata_line(l, 9, sd);
    ck_assert_int_eq(li.moves, 79);
    ck_assert_int_ge(li.unvisited, 1);
    ck_assert_msg(strstr(l, " visits 0 edgeVisits 0 "), "%s", l);
    free(l);
    l = one_line(&e, "kata-analyze b 5 minmoves 100 maxmoves 5");
    ck_assert_int_eq(parse_kata_line(l, 9, no_keys).moves, 5);
    free(l);
    l = one_line(&e, "lz-analyze b 5 minmoves 100");
    li = parse_lz_line(l, 9);
    ck_assert_int_eq(li.moves, 79);
    ck_assert_int_ge(li.unvisited, 1);
    free(l);
    engine_finish(&e);
}
END_TEST

START_TEST(test_genmove_and_variants)
{
    engine e;
    start_kata(&e, "16");
    char *r = ask(&e, "genmove b");
    ck_assert_msg(r[0] == '=' && is_vertex(r + 2, 9) && strcmp(r + 2, "pass"), "%s", r);
    char play[32];
    snprintf(play, sizeof play, "play w %s", r + 2);
    expect_fail(&e, play);   /* the move was played: the point is taken */
    free(r);
    r = ask(&e, "7 genmove w");
    ck_assert_msg(!strncmp(r, "=7 ", 3) && is_vertex(r + 3, 9), "%s", r);
    free(r);
    /* lz-genmove_analyze: '=', info lines, 'play V', blank line. */
    send_line(&e, "lz-genmove_analyze b 2");
    char *l = engine_read_line(&e);
    ck_assert_str_eq(l, "=");
    free(l);
    int infos = 0;
    for (;;) {
        l = engine_read_line(&e);
        ck_assert_ptr_nonnull(l);
        if (!strncmp(l, "play ", 5)) {
            ck_assert_msg(is_vertex(l + 5, 9), "%s", l);
            free(l);
            break;
        }
        parse_lz_line(l, 9);
        infos++;
        free(l);
    }
    ck_assert_int_ge(infos, 1);
    l = engine_read_line(&e);
    ck_assert_str_eq(l, "");
    free(l);
    send_line(&e, "kata-genmove_analyze w 2 rootInfo true");
    l = engine_read_line(&e);
    ck_assert_str_eq(l, "=");
    free(l);
    for (;;) {
        l = engine_read_line(&e);
        ck_assert_ptr_nonnull(l);
        if (!strncmp(l, "play ", 5)) {
            ck_assert_msg(is_vertex(l + 5, 9), "%s", l);
            free(l);
            break;
        }
        parse_kata_line(l, 9, (kata_keys){.root_info = true});
        free(l);
    }
    l = engine_read_line(&e);
    ck_assert_str_eq(l, "");
    free(l);
    /* Four moves were played: it is black's turn, and showboard agrees. */
    r = ask(&e, "showboard");
    ck_assert_msg(strstr(r, "Black to move"), "%s", r);
    free(r);
    expect_ok(&e, "clear_cache");
    expect_ok(&e, "stop");
    engine_finish(&e);
}
END_TEST

START_TEST(test_params)
{
    engine e;
    start_kata(&e, "16");
    char *r = ask(&e, "kata-list-params");
    ck_assert_msg(strstr(r, "max_visits") && strstr(r, "num_threads") && strstr(r, "c_puct"),
                  "%s", r);
    free(r);
    expect_reply(&e, "kata-get-param max_visits", "= 16");
    expect_ok(&e, "kata-set-param maxVisits 8");
    expect_reply(&e, "kata-get-param maxVisits", "= 8");
    expect_ok(&e, "lz-setoption name Visits value 12");
    expect_reply(&e, "kata-get-param max_visits", "= 12");
    expect_ok(&e, "lz-setoption name Playouts value 0");
    expect_ok(&e, "lz-setoption name Threads value 1");
    expect_ok(&e, "lz-setoption name Resign Percentage value 5");
    expect_reply(&e, "kata-get-param resign_threshold", "= 0.05");
    expect_ok(&e, "lz-setoption name Pondering value false");
    expect_fail(&e, "lz-setoption name Visits value many");
    expect_fail(&e, "kata-set-param max_visits -3");
    expect_ok(&e, "kata-set-param c_puct 1.1");
    expect_reply(&e, "kata-get-param c_puct", "= 1.1");
    expect_ok(&e, "kata-set-param maxTime 2.5");
    expect_reply(&e, "kata-get-param maxTime", "= 2.5");
    expect_reply(&e, "kata-get-param useLcbForSelection", "= true");
    expect_ok(&e, "kata-set-param useLcbForSelection false");
    expect_reply(&e, "kata-get-param use_lcb_for_selection", "= false");
    expect_fail(&e, "kata-set-param useLcbForSelection sometimes");
    expect_ok(&e, "kata-set-param minVisitPropForLCB 0.2");
    expect_reply(&e, "kata-get-param lcb_visit_fraction", "= 0.2");
    r = ask(&e, "genmove b");
    ck_assert_msg(r[0] == '=', "%s", r);
    free(r);
    engine_finish(&e);
}
END_TEST

/* Command-line settings: --set, --config (errors name the line), bad values exit 2. */
START_TEST(test_command_line)
{
    char cfg[] = "/tmp/shido-test-gtp-cfg-XXXXXX";
    int fd = mkstemp(cfg);
    ck_assert_int_ge(fd, 0);
    const char good[] = "# search settings\nmax_visits = 9   # few\n\nc_puct=1.25\n";
    ck_assert(write(fd, good, sizeof good - 1) == (ssize_t)(sizeof good - 1));
    close(fd);
    engine e;
    const char *args[] = {"gtp", "-w", TEST_G170, "--config", cfg, "--set", "dirichlet_eps=0.1",
                          "--backend", "cpu", NULL};
    engine_start(&e, args);
    expect_reply(&e, "kata-get-param max_visits", "= 9");
    expect_reply(&e, "kata-get-param c_puct", "= 1.25");
    expect_reply(&e, "kata-get-param dirichlet_eps", "= 0.1");
    engine_finish(&e);
    FILE *f = fopen(cfg, "w");
    fputs("max_visits = 9\nfrobnication = 3\n", f);
    fclose(f);
    const char *bad[] = {"gtp", "-w", TEST_G170, "--config", cfg, NULL};
    engine_start(&e, bad);
    fclose(e.in);
    char *l = engine_read_line(&e);
    ck_assert_ptr_null(l);
    fclose(e.out);
    engine_wait(&e, 2);
    char *err = test_read_file(e.err_path, NULL);
    char want[128];
    snprintf(want, sizeof want, "%s:2:", cfg);
    ck_assert_msg(strstr(err, want), "%s", err);
    free(err);
    unlink(e.err_path);
    unlink(cfg);
    const char *bad_set[] = {"gtp", "-w", TEST_G170, "--visits", "lots", NULL};
    engine_start(&e, bad_set);
    fclose(e.in);
    fclose(e.out);
    engine_wait(&e, 2);
    unlink(e.err_path);
}
END_TEST

/* A finished 9x9 game: black owns columns A-E, white F-J, with a dead white stone at B5 and a
 * dead black stone at H5. */
static void setup_finished_game(engine *e)
{
    expect_ok(e, "clear_board");
    for (int y = 1; y <= 9; y++) {
        char cmd[32];
        snprintf(cmd, sizeof cmd, "play b E%d", y);
        expect_ok(e, cmd);
        snprintf(cmd, sizeof cmd, "play w F%d", y);
        expect_ok(e, cmd);
    }
    expect_ok(e, "play b H5");
    expect_ok(e, "play w B5");
}

START_TEST(test_final_score_and_status)
{
    engine e;
    start_kata(&e, "16");
    setup_finished_game(&e);
    expect_reply(&e, "final_status_list dead", "= B5\nH5");
    char *r = ask(&e, "final_status_list alive");
    ck_assert_msg(strstr(r, "E9") && strstr(r, "F9") && !strstr(r, "B5") && !strstr(r, "H5"),
                  "%s", r);
    ck_assert_int_eq((int)(strchr(r, '\n') != NULL), 1);   /* one chain per line */
    free(r);
    expect_reply(&e, "final_status_list seki", "=");
    /* Area: black 45 (B5 captured), white 36, komi 7. */
    expect_reply(&e, "final_score", "= B+2");
    expect_fail(&e, "final_status_list frobnicated");
    engine_finish(&e);
    /* The Leela Zero net has no ownership: Tromp-Taylor counts every stone alive. */
    const char *args[] = {"gtp", "-w", TEST_LZ_B4C32, "--visits", "4", NULL};
    engine_start(&e, args);
    expect_ok(&e, "boardsize 9");
    expect_ok(&e, "komi 7");
    setup_finished_game(&e);
    expect_reply(&e, "final_status_list dead", "=");
    expect_reply(&e, "final_score", "= W+7");
    engine_finish(&e);
}
END_TEST

/* Leela Zero net (19x19): lz-analyze integers, genmove. */
START_TEST(test_lz_net)
{
    engine e;
    const char *args[] = {"gtp", "-w", TEST_LZ_B4C32, "--visits", "12", NULL};
    engine_start(&e, args);
    expect_ok(&e, "kata-set-param maxVisits 0");
    char *r = stream(&e, "lz-analyze b 5", 2, "name", 19, 0, no_keys);
    ck_assert_str_eq(r, "= shido");
    free(r);
    expect_ok(&e, "kata-set-param maxVisits 12");
    r = ask(&e, "genmove b");
    ck_assert_msg(r[0] == '=' && is_vertex(r + 2, 19), "%s", r);
    free(r);
    /* The end of a game on 19x19 (Leela Zero nets know no other size): black and white walls,
     * each with two eyes, columns A and T empty, a dead white stone at A10. After white's
     * passes black captures it (A9, A11) instead of passing, then answers a pass with a pass. */
    char pos[19 * 19 * 8 + 16] = "set_position";
    for (int row = 1; row <= 19; row++)
        for (int col = 1; col < 18; col++) {
            bool eye = (row == 2 || row == 18) && (col == 2 || col == 16);
            if (!eye)
                sprintf(pos + strlen(pos), " %c %c%d", col <= 8 ? 'B' : 'W',
                        "ABCDEFGHJKLMNOPQRST"[col], row);
        }
    strcat(pos, " W A10");
    expect_ok(&e, pos);
    expect_ok(&e, "kata-set-rules chinese");
    for (int k = 0; k < 2; k++) {
        expect_ok(&e, "play w pass");
        r = ask(&e, "genmove b");
        ck_assert_msg(!strcmp(r, "= A9") || !strcmp(r, "= A11"), "dead stone left: %s", r);
        free(r);
    }
    expect_ok(&e, "play w pass");
    expect_reply(&e, "genmove b", "= pass");
    engine_finish(&e);
}
END_TEST

/* What kata-genmove_analyze COLOR 0 answers: "=", one info line (returned, parsed), "play
 * MOVE" and the empty line. */
static line_info read_genmove_analysis(engine *e, int size)
{
    char *l = engine_read_line(e);
    ck_assert_str_eq(l, "=");
    free(l);
    l = engine_read_line(e);
    line_info li = parse_kata_line(l, size, no_keys);
    free(l);
    l = engine_read_line(e);
    ck_assert_msg(!strncmp(l, "play ", 5), "%s", l);
    free(l);
    l = engine_read_line(e);
    ck_assert_str_eq(l, "");
    free(l);
    return li;
}

/* The root visits kata-genmove_analyze reports for white after black's genmove, a pause of
 * `pause_s`, with pondering or not. */
static int64_t visits_after_pause(bool ponder, double pause_s)
{
    engine e;
    const char *on[] = {"gtp", "-w", TEST_G170, "--visits", "8", "--ponder", NULL};
    const char *off[] = {"gtp", "-w", TEST_G170, "--visits", "8", NULL};
    engine_start(&e, ponder ? on : off);
    expect_ok(&e, "boardsize 9");
    char *r = ask(&e, "genmove b");
    ck_assert_msg(r[0] == '=' && is_vertex(r + 2, 9), "%s", r);
    free(r);
    struct timespec ts = {(time_t)pause_s, (long)((pause_s - (time_t)pause_s) * 1e9)};
    nanosleep(&ts, NULL);
    send_line(&e, "kata-genmove_analyze w 0");
    line_info li = read_genmove_analysis(&e, 9);
    engine_finish(&e);
    return li.visits_sum;
}

/* Pondering: after genmove the search goes on with the opponent to move, and the next genmove
 * starts from that tree, so its report holds more than its own 8 visits and what black's 8
 * left; without it the tree holds at most those. */
START_TEST(test_ponder_keeps_tree)
{
    int64_t with = visits_after_pause(true, 3.0), without = visits_after_pause(false, 3.0);
    ck_assert_msg(with > 16, "pondering left %lld visits", (long long)with);
    ck_assert_msg(without <= 16, "without pondering %lld visits", (long long)without);
}
END_TEST

/* stdin closing during an endless analysis ends the stream and the engine (status 0). */
START_TEST(test_eof_during_analysis)
{
    engine e;
    const char *args[] = {"gtp", "-w", TEST_G170, NULL};
    engine_start(&e, args);
    expect_ok(&e, "boardsize 9");
    send_line(&e, "lz-analyze 5");
    char *l = engine_read_line(&e);
    ck_assert_str_eq(l, "=");
    free(l);
    l = engine_read_line(&e);
    parse_lz_line(l, 9);
    free(l);
    engine_finish(&e);
}
END_TEST

/* A script whose input ends at once (a file, or `printf ... | shido gtp`): move generation still
 * runs to its visit limit before the engine exits. */
START_TEST(test_genmove_at_end_of_input)
{
    engine e;
    const char *args[] = {"gtp", "-w", TEST_G170, "--visits", "40", NULL};
    engine_start(&e, args);
    send_line(&e, "boardsize 9");
    send_line(&e, "kata-genmove_analyze b 0");
    fclose(e.in);
    char *l = read_reply(&e);
    ck_assert_str_eq(l, "=");
    free(l);
    line_info li = read_genmove_analysis(&e, 9);
    ck_assert_msg(li.visits_sum >= 30, "%lld visits", li.visits_sum);
    ck_assert_ptr_null(engine_read_line(&e));
    fclose(e.out);
    engine_wait(&e, 0);
    unlink(e.err_path);
}
END_TEST

/* Analysis stops at the visit limit set (--visits, KataGo's maxVisits) and keeps the stream open
 * until the next line, as KataGo does; noResultValue adds that key per move and to rootInfo. */
START_TEST(test_analysis_visit_cap)
{
    engine e;
    start_kata(&e, "24");
    send_line(&e, "kata-analyze 1 rootInfo true noResultValue true");
    char *l = engine_read_line(&e);
    ck_assert_str_eq(l, "=");
    free(l);
    long long most = 0;
    while (most < 24) {
        l = engine_read_line(&e);
        ck_assert_msg(l && *l, "the stream ended before the visit cap");
        const char *root = strstr(l, "rootInfo visits ");
        ck_assert_msg(root, "%s", l);
        most = atoll(root + 16);
        ck_assert_msg(most <= 25, "root visits %lld past --visits 24", most);
        ck_assert_msg(strstr(l, " noResultValue ") && strstr(root, " noResultValue "), "%s", l);
        free(l);
    }
    /* held open: the next command ends it with the blank line, then is answered */
    send_line(&e, "name");
    l = engine_read_line(&e);
    ck_assert_msg(l && !*l, "want the end of the stream, got '%s'", l ? l : "(eof)");
    free(l);
    char *r = read_reply(&e);
    ck_assert_str_eq(r, "= shido");
    free(r);
    engine_finish(&e);
}
END_TEST

/* Sabaki's start-up: it picks `analyze` (KataGo's name for Sabaki) from list_commands and reads
 * every float with a decimal point; genmove_analyze ends with play. Lizzie's: name, version,
 * then lz-analyze, checked in test_startup_probes. */
START_TEST(test_sabaki_startup)
{
    engine e;
    start_kata(&e, "16");
    expect_reply(&e, "name", "= shido");
    char *v = ask(&e, "version");
    ck_assert_msg(v[0] == '=', "%s", v);
    free(v);
    expect_reply(&e, "protocol_version", "= 2");
    char *list = ask(&e, "list_commands");
    ck_assert_msg(strstr(list, "\nanalyze\n") && strstr(list, "\ngenmove_analyze\n"), "%s", list);
    free(list);
    expect_ok(&e, "clear_board");
    expect_ok(&e, "komi 6.5");
    expect_ok(&e, "play B E5");
    char *l = one_line(&e, "analyze W 5");
    parse_kata_line(l, 9, no_keys);   /* floats with a decimal point, integers without */
    free(l);
    send_line(&e, "genmove_analyze W 5");
    l = engine_read_line(&e);
    ck_assert_str_eq(l, "=");
    free(l);
    bool played = false;
    while (!played) {
        l = engine_read_line(&e);
        ck_assert_msg(l && *l, "genmove_analyze ended without play");
        if (!strncmp(l, "play ", 5)) {
            ck_assert(is_vertex(l + 5, 9));
            played = true;
        } else {
            parse_kata_line(l, 9, no_keys);
        }
        free(l);
    }
    l = engine_read_line(&e);
    ck_assert_str_eq(l, "");
    free(l);
    engine_finish(&e);
}
END_TEST

/* KataGo's parameter commands: the names GUIs send (winLossUtilityFactor,
 * analysisWideRootNoise, playoutDoublingAdvantage), kata-get-params as one JSON object,
 * kata-set-params all or nothing, kata-get-models. */
START_TEST(test_kata_param_commands)
{
    engine e;
    start_kata(&e, "16");
    expect_ok(&e, "kata-set-param winLossUtilityFactor 0.8");
    expect_reply(&e, "kata-get-param winLossUtilityFactor", "= 0.8");
    expect_ok(&e, "kata-set-param analysisWideRootNoise 0.04");
    expect_reply(&e, "kata-get-param analysisWideRootNoise", "= 0.04");
    expect_fail(&e, "kata-set-param analysisWideRootNoise -1");
    expect_ok(&e, "kata-set-param playoutDoublingAdvantage 0.5");
    expect_reply(&e, "kata-get-param playoutDoublingAdvantage", "= 0.5");
    expect_ok(&e, "kata-set-param rootPolicyTemperature 1.5");
    expect_ok(&e, "kata-set-param wideRootNoise 0.02");
    char *r = ask(&e, "kata-get-params");
    cJSON *o = cJSON_Parse(r + 2);
    ck_assert_msg(cJSON_IsObject(o), "%s", r);
    ck_assert(cJSON_GetObjectItem(o, "max_visits")->valuedouble == 16);
    ck_assert(cJSON_GetObjectItem(o, "win_loss_utility_factor")->valuedouble == 0.8);
    ck_assert(cJSON_GetObjectItem(o, "analysisWideRootNoise")->valuedouble == 0.04);
    ck_assert(cJSON_IsBool(cJSON_GetObjectItem(o, "use_lcb_for_selection")));
    cJSON_Delete(o);
    free(r);
    expect_ok(&e, "kata-set-params {\"maxVisits\": 20, \"cpuctExploration\": 1.2, "
                  "\"analysisWideRootNoise\": 0}");
    expect_reply(&e, "kata-get-param max_visits", "= 20");
    expect_reply(&e, "kata-get-param c_puct", "= 0.6");   /* KataGo's 1.2, in its units */
    expect_reply(&e, "kata-get-param cpuctExploration", "= 1.2");
    expect_reply(&e, "kata-get-param analysisWideRootNoise", "= 0");
    expect_fail(&e, "kata-set-params {\"maxVisits\": 30, \"frobnication\": 1}");
    expect_fail(&e, "kata-set-params {\"maxVisits\": 30, \"c_puct\": \"high\"}");
    expect_fail(&e, "kata-set-params [1, 2]");
    expect_reply(&e, "kata-get-param max_visits", "= 20");
    r = ask(&e, "kata-get-models");
    o = cJSON_Parse(r + 2);
    ck_assert_msg(cJSON_IsArray(o) && cJSON_GetArraySize(o) == 1, "%s", r);
    ck_assert_str_eq(cJSON_GetObjectItem(cJSON_GetArrayItem(o, 0), "name")->valuestring,
                     "g170-b6c96-s175395328-d26788732.bin.gz");
    cJSON_Delete(o);
    free(r);
    r = ask(&e, "genmove b");
    ck_assert_msg(r[0] == '=', "%s", r);
    free(r);
    engine_finish(&e);
}
END_TEST

static Suite *gtp_search_suite(void)
{
    Suite *s = suite_create("gtp_search");
    TCase *tc = tcase_create("binary");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_startup_probes);
    tcase_add_test(tc, test_kata_analyze_stream);
    tcase_add_test(tc, test_genmove_and_variants);
    tcase_add_test(tc, test_params);
    tcase_add_test(tc, test_command_line);
    tcase_add_test(tc, test_final_score_and_status);
    tcase_add_test(tc, test_lz_net);
    tcase_add_test(tc, test_ponder_keeps_tree);
    tcase_add_test(tc, test_eof_during_analysis);
    tcase_add_test(tc, test_genmove_at_end_of_input);
    tcase_add_test(tc, test_analysis_visit_cap);
    tcase_add_test(tc, test_sabaki_startup);
    tcase_add_test(tc, test_kata_param_commands);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return test_run_suite(gtp_search_suite()); }
