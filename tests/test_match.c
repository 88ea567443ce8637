/* tests/test_match.c -- `shido match` and its GTP client: the Wilson interval and score reader in
 * process, the pipe client against scripted engines, and the real binary playing GNU Go and
 * small shell engines that pass, play illegal moves, answer garbage, hang or quit mid-game. */
#include <cjson/cJSON.h>
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "go/score.h"
#include "go/sgf.h"
#include "tools/gtp_client.h"
#include "tools/match.h"
#include "go/clock.h"

#include "tests/common.h"

#define GNUGO_1 TEST_GNUGO " --mode gtp --level 1"
#define Z_95 1.959963984540054

/* Scripted engines: one command per line, "read c a" takes the command name. */
#define ENGINE_LOOP(CASES) \
    "while read c a; do case $c in " CASES "*) printf '= \\n\\n';; esac; done"
#define GENMOVE_PASS "genmove) printf '= pass\\n\\n';; "
#define SCORE(S) "final_score) printf '= " S "\\n\\n';; "
/* Passes, and claims white won by 100. */
#define PASSER ENGINE_LOOP(GENMOVE_PASS SCORE("W+100"))
/* Passes, and claims black won by 1. */
#define PASSER_B ENGINE_LOOP(GENMOVE_PASS SCORE("B+1"))
/* PASSER that also places 2 handicap stones on 7x7. */
#define PASSER_HA \
    ENGINE_LOOP(GENMOVE_PASS SCORE("W+100") "fixed_handicap) printf '= E5 C3\\n\\n';; ")
/* Always answers A1. */
#define A1_PLAYER ENGINE_LOOP("genmove) printf '= A1\\n\\n';; ")
/* Passes but refuses every move it is told. */
#define REFUSER ENGINE_LOOP(GENMOVE_PASS "play) printf '? illegal move\\n\\n';; ")
/* Answers the set-up, then never answers genmove. */
#define SLEEPER ENGINE_LOOP("genmove) sleep 987;; ")
#define JUNK "while read l; do echo junk; done"

/* A scratch directory removed (one level of subdirectories deep) by scratch_free. */
typedef struct scratch {
    char dir[64];
    char sgf[96], jsonl[96], out[96], err[96];
} scratch;

static void scratch_init(scratch *s)
{
    snprintf(s->dir, sizeof s->dir, "/tmp/test_match-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(s->dir));
    snprintf(s->sgf, sizeof s->sgf, "%s/sgf", s->dir);
    snprintf(s->jsonl, sizeof s->jsonl, "%s/games.jsonl", s->dir);
    snprintf(s->out, sizeof s->out, "%s/stdout", s->dir);
    snprintf(s->err, sizeof s->err, "%s/stderr", s->dir);
}

static void remove_tree(const char *dir, int depth)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    for (struct dirent *e; (e = readdir(d));) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        char path[512];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        struct stat st;
        if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode) && depth > 0)
            remove_tree(path, depth - 1);
        else
            unlink(path);
    }
    closedir(d);
    rmdir(dir);
}

static void scratch_free(scratch *s) { remove_tree(s->dir, 1); }

typedef struct run_result {
    int status;   /* exit status, or -1 when killed */
    char *out, *err;
    double secs;
} run_result;

/* Runs `shido match ARGS...` (NULL-terminated) with stdout and stderr in s's files. */
static run_result run_match(const scratch *s, const char *const *args)
{
    const char *argv[64] = {SHIDO_BINARY, "match"};
    int n = 2;
    for (int i = 0; args[i]; i++) {
        ck_assert_int_lt(n, 62);
        argv[n++] = args[i];
    }
    argv[n] = NULL;
    double t0 = go_now_s();
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        int out = open(s->out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int err = open(s->err, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int in = open("/dev/null", O_RDONLY);
        if (out < 0 || err < 0 || in < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0 ||
            dup2(in, 0) < 0)
            _exit(126);
        execv(SHIDO_BINARY, (char *const *)argv);
        _exit(127);
    }
    int st;
    ck_assert_int_eq(waitpid(pid, &st, 0), pid);
    run_result r = {WIFEXITED(st) ? WEXITSTATUS(st) : -1, test_read_file(s->out, NULL),
                    test_read_file(s->err, NULL), go_now_s() - t0};
    return r;
}

static void run_free(run_result *r)
{
    free(r->out);
    free(r->err);
}

/* The JSON records of the --jsonl file, indexed by game number - 1 (each exactly once). */
static int read_records(const char *path, cJSON **rec, int max)
{
    char *text = test_read_file(path, NULL);
    int n = 0;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        cJSON *j = cJSON_Parse(line);
        ck_assert_msg(j != NULL, "bad JSON line: %s", line);
        int game = cJSON_GetObjectItem(j, "game")->valueint;
        ck_assert_msg(game >= 1 && game <= max && !rec[game - 1], "game %d twice or out of range",
                      game);
        rec[game - 1] = j;
        n++;
    }
    free(text);
    return n;
}

static const char *jstr(const cJSON *j, const char *key)
{
    const cJSON *v = cJSON_GetObjectItem(j, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

static int count_lines_starting(const char *text, const char *prefix)
{
    int n = 0;
    for (const char *l = text; *l; l += strcspn(l, "\n") + (l[strcspn(l, "\n")] == '\n'))
        n += !strncmp(l, prefix, strlen(prefix));
    return n;
}

static void free_records(cJSON **rec, int n)
{
    for (int i = 0; i < n; i++)
        cJSON_Delete(rec[i]);
}

/* --- in process --- */

/* Each Wilson bound solves (p - q)^2 = z^2 q (1 - q) / n, the bounds bracket p, and known values
 * hold. */
START_TEST(wilson_interval)
{
    double lo, hi;
    match_wilson_interval(3, 10, Z_95, &lo, &hi);
    ck_assert_double_eq_tol(lo, 0.107791, 1e-6);
    ck_assert_double_eq_tol(hi, 0.603222, 1e-6);
    match_wilson_interval(0, 10, Z_95, &lo, &hi);
    ck_assert_double_eq_tol(lo, 0, 1e-12);
    ck_assert_double_eq_tol(hi, 0.277533, 1e-6);
    match_wilson_interval(10, 10, Z_95, &lo, &hi);
    ck_assert_double_eq_tol(lo, 0.722467, 1e-6);
    ck_assert_double_eq_tol(hi, 1, 1e-12);
    match_wilson_interval(0, 0, Z_95, &lo, &hi);
    ck_assert(lo == 0 && hi == 1);
    for (int n = 1; n <= 200; n += 13)
        for (int k = 0; k <= n; k++) {
            double p = (double)k / n;
            match_wilson_interval(k, n, Z_95, &lo, &hi);
            ck_assert(lo >= 0 && lo <= p + 1e-12 && hi >= p - 1e-12 && hi <= 1);
            for (int b = 0; b < 2; b++) {
                double q = b ? hi : lo;
                if ((b == 0 && k == 0) || (b == 1 && k == n))
                    continue;
                double residual = (p - q) * (p - q) - Z_95 * Z_95 * q * (1 - q) / n;
                ck_assert_msg(fabs(residual) < 1e-12, "n %d k %d bound %d: %g", n, k, b,
                              residual);
            }
        }
}
END_TEST

START_TEST(parse_score)
{
    double v;
    ck_assert(match_parse_score("B+3.5", &v) && v == 3.5);
    ck_assert(match_parse_score(" W+12 \n", &v) && v == -12);
    ck_assert(match_parse_score("0", &v) && v == 0);
    ck_assert(match_parse_score("Draw", &v) && v == 0);
    ck_assert(match_parse_score("B+R", &v) && v > 1e8);
    ck_assert(match_parse_score("W+Resign", &v) && v < -1e8);
    ck_assert(match_parse_score("w+0.5", &v) && v == -0.5);
    const char *bad[] = {"", "junk", "B+", "B+-3", "B3", "X+1", "B+1x", "B+nan", "W+inf"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        ck_assert_msg(!match_parse_score(bad[i], &v), "accepted '%s'", bad[i]);
}
END_TEST

static bool process_gone(pid_t pid) { return waitpid(pid, NULL, WNOHANG) < 0 && errno == ECHILD; }

/* Replies with ids, CR LF, multiple lines and refusals; a reply that never completes times out
 * and the engine is killed and reaped. */
START_TEST(client_replies)
{
    signal(SIGPIPE, SIG_IGN);
    gtp_client c;
    ck_assert(gtp_client_start(
        &c, "printf '=7 hello\\r\\n\\r\\n? bad thing\\n\\n= a\\nb\\n\\n= x\\n'; sleep 30", false));
    char reply[64];
    ck_assert_int_eq(gtp_client_cmd(&c, 2000, "name", reply, sizeof reply), GTP_CLIENT_OK);
    ck_assert_str_eq(reply, "hello");
    ck_assert_int_eq(gtp_client_cmd(&c, 2000, "boardsize 99", reply, sizeof reply),
                     GTP_CLIENT_REFUSED);
    ck_assert_str_eq(reply, "bad thing");
    ck_assert_int_eq(gtp_client_cmd(&c, 2000, "list_commands", reply, sizeof reply),
                     GTP_CLIENT_OK);
    ck_assert_str_eq(reply, "a\nb");
    pid_t pid = c.pid;
    double t0 = go_now_s();
    ck_assert_int_eq(gtp_client_cmd(&c, 200, "genmove b", reply, sizeof reply),
                     GTP_CLIENT_BROKEN);
    ck_assert(go_now_s() - t0 < 2);
    ck_assert_msg(strstr(c.err, "no complete reply within 0.2 s"), "%s", c.err);
    ck_assert(c.dead && !c.exited);
    ck_assert(process_gone(pid));
    ck_assert_int_eq(gtp_client_cmd(&c, 200, "name", reply, sizeof reply), GTP_CLIENT_BROKEN);
    gtp_client_stop(&c, 100);
}
END_TEST

/* An engine that exits is described with its status and stderr; garbage is refused at once. */
START_TEST(client_failures)
{
    signal(SIGPIPE, SIG_IGN);
    gtp_client c;
    char reply[64];
    ck_assert(gtp_client_start(&c, "echo 'cannot load weights' >&2; exit 5", false));
    ck_assert_int_eq(gtp_client_cmd(&c, 5000, "name", reply, sizeof reply), GTP_CLIENT_BROKEN);
    ck_assert(c.exited && c.replies == 0);
    ck_assert_msg(strstr(c.err, "exited with status 5") && strstr(c.err, "cannot load weights"),
                  "%s", c.err);
    gtp_client_stop(&c, 100);

    ck_assert(gtp_client_start(&c, JUNK, false));
    pid_t pid = c.pid;
    ck_assert_int_eq(gtp_client_cmd(&c, 5000, "name", reply, sizeof reply), GTP_CLIENT_BROKEN);
    ck_assert_msg(strstr(c.err, "does not start with '=' or '?': \"junk\""), "%s", c.err);
    ck_assert(process_gone(pid));
    gtp_client_stop(&c, 100);

    /* A well-behaved engine quits when asked and is reaped. */
    ck_assert(gtp_client_start(&c, PASSER, false));
    pid = c.pid;
    ck_assert_int_eq(gtp_client_cmd(&c, 5000, "genmove b", reply, sizeof reply), GTP_CLIENT_OK);
    ck_assert_str_eq(reply, "pass");
    gtp_client_stop(&c, 2000);
    ck_assert(process_gone(pid));
}
END_TEST

/* --- the binary with scripted engines --- */

START_TEST(bad_options)
{
    scratch s;
    scratch_init(&s);
    const char *cases[][8] = {
        {"--engine1", PASSER, NULL},
        {"--engine1", PASSER, "--engine2", PASSER, "--games", "0", NULL},
        {"--engine1", PASSER, "--engine2", PASSER, "--size", "20", NULL},
        {"--engine1", PASSER, "--engine2", PASSER, "--komi", "7.25", NULL},
        {"--engine1", PASSER, "--engine2", PASSER, "--handicap", "1", NULL},
        {"--engine1", PASSER, "--engine2", PASSER, "--size", "7", "--handicap", "9"},
        {"--engine1", PASSER, "--engine2", PASSER, "--rules", "no-such-rules", NULL},
        {"--engine1", PASSER, "--engine2", PASSER, "--time-settings", "60,5", NULL},
        {"--engine1", PASSER, "--engine2", PASSER, "--timeout", "-1", NULL},
        {"--engine1", PASSER, "--engine2", PASSER, "--bogus", "1", NULL},
        {"--engine1", PASSER, "--engine2", PASSER, "--games", NULL},
        {"--engine1", PASSER, "--engine2", PASSER, "stray", NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const char *args[9] = {NULL};
        memcpy(args, cases[i], sizeof cases[i]);
        run_result r = run_match(&s, args);
        ck_assert_msg(r.status == 2, "case %zu: status %d", i, r.status);
        ck_assert_msg(strstr(r.err, "shido match: ") && strstr(r.err, "usage: shido match"),
                      "case %zu: %s", i, r.err);
        ck_assert_str_eq(r.out, "");
        run_free(&r);
    }
    const char *help[] = {"--help", NULL};
    run_result r = run_match(&s, help);
    ck_assert_int_eq(r.status, 0);
    ck_assert(strstr(r.out, "--engine1"));
    run_free(&r);
    scratch_free(&s);
}
END_TEST

START_TEST(engine_cannot_start)
{
    scratch s;
    scratch_init(&s);
    const char *args[] = {"--engine1", PASSER, "--engine2", "/nonexistent/engine --mode gtp",
                          "--games", "2", "--size", "5", NULL};
    run_result r = run_match(&s, args);
    ck_assert_int_eq(r.status, 1);
    ck_assert_msg(strstr(r.err, "engine2 cannot start (/nonexistent/engine --mode gtp)") &&
                      strstr(r.err, "status 127") && strstr(r.err, "not found"),
                  "%s", r.err);
    run_free(&r);
    scratch_free(&s);
}
END_TEST

/* An engine that stops starting after its first life (spent on the opening handshake) ends the
 * match with status 1 at its third failed start in a row (game 3); games 1 and 2, forfeited at
 * set-up, are reported. */
START_TEST(engine_stops_starting)
{
    scratch s;
    scratch_init(&s);
    char once[400];
    snprintf(once, sizeof once, "if [ -e %s/once ]; then exit 1; fi; touch %s/once; " JUNK, s.dir,
             s.dir);
    const char *args[] = {"--engine1", PASSER, "--engine2", once, "--games", "10", "--size", "5",
                          "--jsonl", s.jsonl, NULL};
    run_result r = run_match(&s, args);
    ck_assert_int_eq(r.status, 1);
    ck_assert_int_eq(count_lines_starting(r.out, "game "), 2);
    ck_assert(strstr(r.out, "match: 2 of 10 games played"));
    ck_assert_msg(strstr(r.err, "match stopped: engine2 could not start 3 times in a row") &&
                      strstr(r.err, "exited with status 1"),
                  "%s", r.err);
    cJSON *rec[10] = {NULL};
    ck_assert_int_eq(read_records(s.jsonl, rec, 10), 2);
    ck_assert_str_eq(jstr(rec[1], "reason"), "forfeit: engine2 failed at set-up");
    free_records(rec, 2);
    run_free(&r);
    scratch_free(&s);
}
END_TEST

/* Both engines pass at once and disagree: shido scores the empty board (white by komi). */
START_TEST(disagreement_scored_by_shido)
{
    scratch s;
    scratch_init(&s);
    const char *args[] = {"--engine1", PASSER_B, "--engine2", PASSER, "--games", "2", "--size",
                          "5", "--komi", "6.5", "--sgf-dir", s.sgf, "--jsonl", s.jsonl, NULL};
    run_result r = run_match(&s, args);
    ck_assert_msg(r.status == 0, "%s", r.err);
    cJSON *rec[2] = {NULL};
    ck_assert_int_eq(read_records(s.jsonl, rec, 2), 2);
    for (int i = 0; i < 2; i++) {
        ck_assert_str_eq(jstr(rec[i], "result"), "W+6.5");
        ck_assert_str_eq(jstr(rec[i], "winner"), i == 0 ? "engine2" : "engine1");
        ck_assert(cJSON_IsTrue(cJSON_GetObjectItem(rec[i], "adjudicated_by_shido")));
        ck_assert_str_eq(jstr(rec[i], "reason"), "adjudicated by shido: engines disagreed");
        ck_assert_double_eq(test_json_num(rec[i], "black_lead"), -6.5);
        char *sgf = test_read_file(jstr(rec[i], "sgf"), NULL);
        ck_assert_msg(strstr(sgf, "adjudicated by shido: engines disagreed"), "%s", sgf);
        ck_assert_msg(strstr(sgf, ";B[];W[])"), "%s", sgf);
        free(sgf);
    }
    ck_assert(strstr(r.out, "game   1/2: B engine1, W engine2: W+6.5, 2 moves, two passes; "
                            "adjudicated by shido: engines disagreed ["));
    /* each game's line counts the games done, with the time since the start and the ETA */
    ck_assert_msg(strstr(r.out, " [1 of 2 done in ") && strstr(r.out, " [2 of 2 done in ") &&
                      strstr(r.out, "s, ETA 0s]\n"),
                  "%s", r.out);
    ck_assert(strstr(r.out, "engine1 win rate 50.0% (95% CI 9.5% .. 90.5%"));
    free_records(rec, 2);
    run_free(&r);
    scratch_free(&s);
}
END_TEST

/* Illegal moves: one shido refuses (A1 twice), one the other engine refuses. */
START_TEST(illegal_moves_lose)
{
    scratch s;
    scratch_init(&s);
    const char *args[] = {"--engine1", PASSER, "--engine2", A1_PLAYER, "--games", "2", "--size",
                          "5", "--jsonl", s.jsonl, NULL};
    run_result r = run_match(&s, args);
    ck_assert_msg(r.status == 0, "%s", r.err);
    cJSON *rec[2] = {NULL};
    ck_assert_int_eq(read_records(s.jsonl, rec, 2), 2);
    ck_assert_str_eq(jstr(rec[0], "result"), "B+F");
    ck_assert_str_eq(jstr(rec[0], "end"), "illegal move");
    ck_assert_str_eq(jstr(rec[0], "reason"),
                     "illegal move: engine2 played W A1 at move 4 (illegal move: point occupied)");
    ck_assert_int_eq((int)test_json_num(rec[0], "moves"), 3);
    ck_assert_str_eq(jstr(rec[1], "result"), "W+F");
    ck_assert_str_eq(jstr(rec[1], "winner"), "engine1");
    ck_assert(strstr(r.out, "engine2 as black 0/1 wins, as white 0/1 wins; lost 0 by forfeit, "
                            "2 by illegal move"));
    free_records(rec, 2);
    run_free(&r);

    const char *refused[] = {"--engine1", REFUSER, "--engine2", PASSER, "--games", "1",
                             "--size", "5", "--jsonl", s.jsonl, NULL};
    r = run_match(&s, refused);
    ck_assert_msg(r.status == 0, "%s", r.err);
    cJSON *one[1] = {NULL};
    ck_assert_int_eq(read_records(s.jsonl, one, 1), 1);
    ck_assert_str_eq(jstr(one[0], "result"), "B+F");
    ck_assert_str_eq(jstr(one[0], "reason"),
                     "illegal move: engine2 played W pass at move 2, refused by engine1");
    ck_assert_int_eq((int)test_json_num(one[0], "moves"), 1);
    free_records(one, 1);
    run_free(&r);
    scratch_free(&s);
}
END_TEST

static void write_text(const char *path, const char *text)
{
    test_write_file(path, text, strlen(text), false);
}

/* Games from openings: two SGFs taken in turn, games 2k and 2k+1 from the k-th with colours
 * swapped; both engines get the moves as play commands (one that refuses them forfeits at
 * set-up), the SGF holds the whole game, the record names the opening; openings that do not fit
 * the match are refused. */
START_TEST(openings)
{
    scratch s;
    scratch_init(&s);
    char a[128], b[128], spec_a[136], sgf[160];
    snprintf(a, sizeof a, "%s/a.sgf", s.dir);
    snprintf(b, sizeof b, "%s/b.sgf", s.dir);
    snprintf(spec_a, sizeof spec_a, "%s:2", a);
    write_text(a, "(;GM[1]FF[4]SZ[5];B[cc];W[bb];B[dd])");
    write_text(b, "(;GM[1]FF[4]SZ[5];B[aa])");
    const char *args[] = {"--engine1", PASSER, "--engine2", PASSER, "--games", "4", "--size", "5",
                          "--opening", spec_a, "--opening", b, "--jsonl", s.jsonl, "--sgf-dir",
                          s.sgf, NULL};
    run_result r = run_match(&s, args);
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert(strstr(r.out, ", 2 openings\n"));
    cJSON *rec[4] = {NULL};
    ck_assert_int_eq(read_records(s.jsonl, rec, 4), 4);
    /* two moves of a, then both pass; one move of b (white to move), then both pass */
    static const char *first[] = {"C3", "A5"};
    for (int i = 0; i < 4; i++) {
        ck_assert_str_eq(jstr(rec[i], "opening"), i < 2 ? spec_a : b);
        ck_assert_int_eq((int)test_json_num(rec[i], "moves"), i < 2 ? 4 : 3);
        snprintf(sgf, sizeof sgf, "%s/game-%04d.sgf", s.sgf, i + 1);
        char err[256];
        go_sgf_collection *c = go_sgf_read_file(sgf, err, sizeof err);
        ck_assert_msg(c != NULL, "%s", err);
        go_game g;
        ck_assert_msg(go_sgf_to_game(c->games[0], -1, &g, err, sizeof err), "%s", err);
        ck_assert_int_eq(g.num_moves, i < 2 ? 4 : 3);
        ck_assert_int_eq(g.moves[0].point, go_point_from_gtp(5, first[i / 2]));
        ck_assert_int_eq(g.moves[1].point, i < 2 ? go_point_from_gtp(5, "B4") : GO_PASS);
        ck_assert_int_eq(g.moves[1].color, GO_WHITE);
        ck_assert(g.moves[g.num_moves - 1].point == GO_PASS);
        ck_assert(strstr(go_sgf_get(c->games[0], "C"), "From the opening"));
        go_game_free(&g);
        go_sgf_free(c);
    }
    free_records(rec, 4);
    run_free(&r);

    /* an engine that refuses the opening's moves forfeits at set-up */
    const char *refused[] = {"--engine1", PASSER, "--engine2", REFUSER, "--games", "1",
                             "--size", "5", "--opening", b, "--jsonl", s.jsonl, NULL};
    r = run_match(&s, refused);
    ck_assert_msg(r.status == 0, "%s", r.err);
    cJSON *one[1] = {NULL};
    ck_assert_int_eq(read_records(s.jsonl, one, 1), 1);
    ck_assert_str_eq(jstr(one[0], "reason"), "forfeit: engine2 failed at set-up");
    ck_assert_str_eq(jstr(one[0], "winner"), "engine1");
    free_records(one, 1);
    run_free(&r);

    /* openings that do not fit */
    char setup[128], illegal[128], spec_far[136];
    snprintf(setup, sizeof setup, "%s/setup.sgf", s.dir);
    snprintf(illegal, sizeof illegal, "%s/illegal.sgf", s.dir);
    snprintf(spec_far, sizeof spec_far, "%s:9", a);
    write_text(setup, "(;GM[1]FF[4]SZ[5]AB[aa];W[bb])");
    write_text(illegal, "(;GM[1]FF[4]SZ[5];B[aa];W[bb];B[ba];W[ab];B[aa])");
    const struct {
        const char *size, *spec, *why;
    } bad[] = {
        {"7", a, "a 5x5 game, the match is 7x7"},
        {"5", spec_far, "9 moves asked, the game has 3"},
        {"5", setup, "setup or handicap stones"},
        {"5", illegal, "move 5"},
        {"5", "/nonexistent.sgf", "/nonexistent.sgf"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        const char *bad_args[] = {"--engine1", PASSER, "--engine2", PASSER, "--size", bad[i].size,
                                  "--opening", bad[i].spec, NULL};
        r = run_match(&s, bad_args);
        ck_assert_msg(r.status == 2 && strstr(r.err, "--opening") && strstr(r.err, bad[i].why),
                      "case %zu: status %d: %s", i, r.status, r.err);
        ck_assert_str_eq(r.out, "");
        run_free(&r);
    }
    scratch_free(&s);
}
END_TEST

/* The clock shido keeps: time_left before every genmove (the mover's colour, seconds, stones
 * as GTP has them), and a genmove over the period loses on time. */
START_TEST(time_losses)
{
    scratch s;
    scratch_init(&s);
    char log[128], engine1[512];
    snprintf(log, sizeof log, "%s/time_left", s.dir);
    snprintf(engine1, sizeof engine1,
             ENGINE_LOOP(GENMOVE_PASS "time_left) echo \"$a\" >> %s; printf '= \\n\\n';; "), log);
    const char *args[] = {"--engine1", engine1, "--engine2",
                          ENGINE_LOOP("genmove) sleep 1.2; printf '= pass\\n\\n';; "),
                          "--games", "2", "--size", "5", "--time-settings", "0,1,1", "--jsonl",
                          s.jsonl, NULL};
    run_result r = run_match(&s, args);
    ck_assert_msg(r.status == 0, "%s", r.err);
    cJSON *rec[2] = {NULL};
    ck_assert_int_eq(read_records(s.jsonl, rec, 2), 2);
    ck_assert_str_eq(jstr(rec[0], "result"), "B+T");
    ck_assert_str_eq(jstr(rec[0], "end"), "time");
    const char *why = "time: engine2's flag fell at move 2 (1.";
    ck_assert_msg(!strncmp(jstr(rec[0], "reason"), why, strlen(why)), "%s",
                  jstr(rec[0], "reason"));
    ck_assert_str_eq(jstr(rec[1], "result"), "W+T");
    ck_assert_int_eq((int)test_json_num(rec[1], "genmoves_engine2"), 1);
    ck_assert(test_json_num(rec[1], "longest_s_engine2") >= 1.2);
    ck_assert_int_eq((int)test_json_num(rec[1], "genmoves_engine1"), 0);
    ck_assert(strstr(r.out, "engine2 as black 0/1 wins, as white 0/1 wins; lost 0 by forfeit, "
                            "0 by illegal move, 2 on time"));
    ck_assert(strstr(r.out, "engine1 thought 0.0"));
    /* engine1 moved once, as black in game 1, with the full period on its clock */
    char *sent = test_read_file(log, NULL);
    ck_assert_str_eq(sent, "b 1.000 1\n");
    free(sent);
    free_records(rec, 2);
    run_free(&r);

    /* with a grace of 30 s the same move is late, not lost: the game ends by two passes */
    const char *graced[] = {"--engine1", PASSER, "--engine2",
                            ENGINE_LOOP("genmove) sleep 1.2; printf '= pass\\n\\n';; "),
                            "--games", "1", "--size", "5", "--time-settings", "0,1,1",
                            "--time-grace", "30", "--jsonl", s.jsonl, NULL};
    r = run_match(&s, graced);
    ck_assert_msg(r.status == 0, "%s", r.err);
    cJSON *one[1] = {NULL};
    ck_assert_int_eq(read_records(s.jsonl, one, 1), 1);
    ck_assert_str_eq(jstr(one[0], "end"), "two passes");
    ck_assert_int_eq((int)test_json_num(one[0], "late_engine2"), 1);
    ck_assert_int_eq((int)test_json_num(one[0], "late_engine1"), 0);
    free_records(one, 1);
    run_free(&r);
    scratch_free(&s);
}
END_TEST

/* Whether any process is running `sleep 987` (the SLEEPER's genmove). */
static bool sleeper_alive(void)
{
    DIR *d = opendir("/proc");
    ck_assert_ptr_nonnull(d);
    bool found = false;
    for (struct dirent *e; !found && (e = readdir(d));) {
        char path[300], cmd[64] = {0};
        snprintf(path, sizeof path, "/proc/%s/cmdline", e->d_name);
        FILE *f = fopen(path, "rb");
        if (!f)
            continue;
        size_t n = fread(cmd, 1, sizeof cmd - 1, f);
        fclose(f);
        found = n == 10 && !memcmp(cmd, "sleep\0" "987", 10);
    }
    closedir(d);
    return found;
}

/* Garbage and silence lose by forfeit, the engine is restarted, and the match ends. */
START_TEST(broken_engines_forfeit)
{
    scratch s;
    scratch_init(&s);
    const char *junk[] = {"--engine1", PASSER, "--engine2", JUNK, "--games", "3", "--size", "5",
                          "--jsonl", s.jsonl, NULL};
    run_result r = run_match(&s, junk);
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_int_eq(count_lines_starting(r.out, "game "), 3);
    ck_assert(strstr(r.out, "game   2/3: B engine2, W engine1: W+F, 0 moves, forfeit: engine2 "
                            "failed at set-up ["));
    ck_assert(strstr(r.out, "engine1 win rate 100.0% (95% CI 43.9% .. 100.0%"));
    ck_assert_int_eq(count_lines_starting(r.err, "shido match: game "), 3);
    ck_assert_msg(strstr(r.err, "reply does not start with '=' or '?': \"junk\"") &&
                      strstr(r.err, "it will be restarted"),
                  "%s", r.err);
    run_free(&r);

    const char *silent[] = {"--engine1", SLEEPER, "--engine2", PASSER, "--games", "2",
                            "--size", "5", "--genmove-timeout", "0.3", "--jsonl", s.jsonl, NULL};
    r = run_match(&s, silent);
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert(r.secs < 20);
    cJSON *rec[2] = {NULL};
    ck_assert_int_eq(read_records(s.jsonl, rec, 2), 2);
    ck_assert_str_eq(jstr(rec[0], "result"), "W+F");
    ck_assert_str_eq(jstr(rec[0], "reason"), "forfeit: engine1 failed at move 1");
    ck_assert_msg(strstr(jstr(rec[0], "errors_engine1"), "no complete reply within 0.3 s"), "%s",
                  jstr(rec[0], "errors_engine1"));
    ck_assert_str_eq(jstr(rec[1], "result"), "B+F");
    ck_assert_str_eq(jstr(rec[1], "reason"), "forfeit: engine1 failed at move 2");
    /* a SIGKILL lands asynchronously: give a loaded machine up to 10 s to carry it out */
    bool alive = sleeper_alive();
    for (int k = 0; alive && k < 200; k++) {
        nanosleep(&(struct timespec){0, 50000000}, NULL);
        alive = sleeper_alive();
    }
    ck_assert_msg(!alive, "the engine's process group was not killed");
    free_records(rec, 2);
    run_free(&r);
    scratch_free(&s);
}
END_TEST

/* Four games on two workers, each game recorded once. */
START_TEST(parallel_games)
{
    scratch s;
    scratch_init(&s);
    const char *args[] = {"--engine1", PASSER, "--engine2", PASSER_B, "--games", "5",
                          "--size", "3", "--parallel", "2", "--sgf-dir", s.sgf, "--jsonl",
                          s.jsonl, NULL};
    run_result r = run_match(&s, args);
    ck_assert_msg(r.status == 0, "%s", r.err);
    cJSON *rec[5] = {NULL};
    ck_assert_int_eq(read_records(s.jsonl, rec, 5), 5);
    for (int i = 0; i < 5; i++) {
        char path[160];
        snprintf(path, sizeof path, "%s/game-%04d.sgf", s.sgf, i + 1);
        ck_assert_str_eq(jstr(rec[i], "sgf"), path);
        ck_assert_str_eq(jstr(rec[i], "black"), i % 2 == 0 ? "engine1" : "engine2");
        ck_assert(access(path, R_OK) == 0);
    }
    ck_assert(strstr(r.out, "5 at a time") == NULL && strstr(r.out, "2 at a time"));
    free_records(rec, 5);
    run_free(&r);
    scratch_free(&s);
}
END_TEST

/* --- the binary with GNU Go --- */

/* The score sign of a RE value: +1 black, -1 white, 0 draw. */
static int re_sign(const char *re)
{
    if (re[0] == 'B')
        return 1;
    if (re[0] == 'W')
        return -1;
    return 0;
}

/* GNU Go against itself: every game is recorded as SGF that shido reads back and replays to the
 * recorded length; results follow the engines' scores; the tally and its interval are right. */
START_TEST(gnugo_match)
{
    if (!test_gnugo_present(TEST_GNUGO, "test_match: gnugo_match not run"))
        return;
    scratch s;
    scratch_init(&s);
    const int games = 6;
    const char *args[] = {"--engine1", GNUGO_1, "--engine2", TEST_GNUGO " --mode gtp --level 2",
                          "--name2", "gnugo-2", "--games", "6", "--size", "7",
                          "--komi", "4.5", "--rules", "chinese", "--sgf-dir", s.sgf, "--jsonl",
                          s.jsonl, NULL};
    run_result r = run_match(&s, args);
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_int_eq(count_lines_starting(r.out, "game "), games);
    ck_assert_msg(strstr(r.out, "engine1: GNU Go 3.8 [" GNUGO_1 "]") &&
                      strstr(r.out, "engine2: gnugo-2 ["),
                  "%s", r.out);
    cJSON *rec[6] = {NULL};
    ck_assert_int_eq(read_records(s.jsonl, rec, games), games);
    int wins[2] = {0, 0}, draws = 0, black_wins[2] = {0, 0};
    for (int i = 0; i < games; i++) {
        const cJSON *j = rec[i];
        const char *re = jstr(j, "result"), *winner = jstr(j, "winner"), *end = jstr(j, "end");
        int black = i % 2;
        ck_assert_str_eq(jstr(j, "black"), black == 0 ? "engine1" : "engine2");
        ck_assert_str_eq(jstr(j, "white_name"), black == 0 ? "gnugo-2" : "GNU Go 3.8");
        ck_assert_msg(!strcmp(end, "two passes") || !strcmp(end, "resignation"),
                      "game %d ended by %s", i + 1, end);
        ck_assert_ptr_null(jstr(j, "errors_engine1"));
        ck_assert_ptr_null(jstr(j, "errors_engine2"));
        /* The winner is the engine of the colour RE names. */
        int sign = re_sign(re);
        if (sign == 0) {
            ck_assert_str_eq(winner, "draw");
            draws++;
        } else {
            int w = sign > 0 ? black : 1 - black;
            ck_assert_str_eq(winner, w == 0 ? "engine1" : "engine2");
            wins[w]++;
            black_wins[w] += w == black;
        }
        if (!strcmp(end, "resignation")) {
            ck_assert(re[1] == '+' && !strcmp(re + 2, "R"));
        } else if (!cJSON_IsTrue(cJSON_GetObjectItem(j, "adjudicated_by_shido"))) {
            double a, b;
            ck_assert(match_parse_score(jstr(j, "final_score_engine1"), &a));
            ck_assert(match_parse_score(jstr(j, "final_score_engine2"), &b));
            ck_assert_int_eq((a > 0) - (a < 0), sign);
            ck_assert_int_eq((b > 0) - (b < 0), sign);
            ck_assert_double_eq(test_json_num(j, "black_lead"), a);
        }
        /* The SGF reads back with the same players, result and moves. */
        char err[256];
        go_sgf_collection *c = go_sgf_read_file(jstr(j, "sgf"), err, sizeof err);
        ck_assert_msg(c != NULL, "%s", err);
        go_sgf_info info;
        ck_assert_msg(go_sgf_info_read(c->games[0], &info, err, sizeof err), "%s", err);
        ck_assert_int_eq(info.size, 7);
        ck_assert_float_eq(info.komi, 4.5f);
        ck_assert_str_eq(info.rules, "chinese");
        ck_assert_str_eq(info.black, jstr(j, "black_name"));
        ck_assert_str_eq(info.white, jstr(j, "white_name"));
        ck_assert_str_eq(info.result, re);
        ck_assert_ptr_nonnull(go_sgf_get(c->games[0], "DT"));
        ck_assert_msg(strstr(go_sgf_get(c->games[0], "C"), re), "comment without the result");
        go_game g;
        ck_assert_msg(go_sgf_to_game(c->games[0], -1, &g, err, sizeof err), "%s", err);
        ck_assert_int_eq(g.num_moves, (int)test_json_num(j, "moves"));
        if (!strcmp(end, "two passes"))
            ck_assert_int_eq(g.consecutive_passes, 2);
        go_game_free(&g);
        go_sgf_free(c);
    }
    /* The tally and its Wilson interval. */
    const char *line = strstr(r.out, "engine1 win rate ");
    ck_assert_ptr_nonnull(line);
    double rate, lo, hi;
    int decided;
    ck_assert_int_eq(sscanf(line, "engine1 win rate %lf%% (95%% CI %lf%% .. %lf%%, Wilson score "
                                  "interval, %d games",
                            &rate, &lo, &hi, &decided),
                     4);
    ck_assert_int_eq(decided, wins[0] + wins[1] + draws);
    double want_lo, want_hi, score = wins[0] + 0.5 * draws;
    match_wilson_interval(score, decided, Z_95, &want_lo, &want_hi);
    ck_assert_double_eq_tol(rate, 100 * score / decided, 0.051);
    ck_assert_double_eq_tol(lo, 100 * want_lo, 0.051);
    ck_assert_double_eq_tol(hi, 100 * want_hi, 0.051);
    char colours[96];
    snprintf(colours, sizeof colours, "engine1 as black %d/%d wins, as white %d/%d wins",
             black_wins[0], games / 2, wins[0] - black_wins[0], games / 2);
    ck_assert_msg(strstr(r.out, colours), "want '%s' in\n%s", colours, r.out);
    free_records(rec, games);
    run_free(&r);
    scratch_free(&s);
}
END_TEST

/* Against an engine that cannot score, shido's own score of the final board decides: with no dead
 * stones agreed it is the area score of the board as it stands. Handicap stones are placed. */
START_TEST(gnugo_shido_scores)
{
    if (!test_gnugo_present(TEST_GNUGO, "test_match: gnugo_shido_scores not run"))
        return;
    scratch s;
    scratch_init(&s);
    const char *args[] = {"--engine1", GNUGO_1, "--engine2", PASSER_HA, "--games", "2", "--size",
                          "7", "--handicap", "2", "--rules", "chinese", "--sgf-dir", s.sgf,
                          "--jsonl", s.jsonl, NULL};
    run_result r = run_match(&s, args);
    ck_assert_msg(r.status == 0, "%s", r.err);
    cJSON *rec[2] = {NULL};
    ck_assert_int_eq(read_records(s.jsonl, rec, 2), 2);
    int checked = 0;
    for (int i = 0; i < 2; i++) {
        char err[256];
        go_sgf_collection *c = go_sgf_read_file(jstr(rec[i], "sgf"), err, sizeof err);
        ck_assert_msg(c != NULL, "%s", err);
        go_sgf_info info;
        ck_assert(go_sgf_info_read(c->games[0], &info, err, sizeof err));
        ck_assert_int_eq(info.handicap, 2);
        ck_assert_float_eq(info.komi, 0.5f);
        go_game g;
        ck_assert_msg(go_sgf_to_game(c->games[0], -1, &g, err, sizeof err), "%s", err);
        ck_assert_int_gt(g.num_moves, 0);
        ck_assert_int_eq(g.moves[0].color, GO_WHITE);
        const char *detail = jstr(rec[i], "detail");
        if (cJSON_IsTrue(cJSON_GetObjectItem(rec[i], "adjudicated_by_shido")) &&
            (strstr(detail, "board as it stands") || strstr(detail, "with the 0 dead stones"))) {
            checked++;
            char want[32];
            go_score_to_text(go_score_final(&g, NULL, NULL), want, sizeof want);
            ck_assert_str_eq(jstr(rec[i], "result"), want);
        }
        go_game_free(&g);
        go_sgf_free(c);
    }
    /* GNU Go as black keeps its stones and the passer claims W+100: shido decides. */
    ck_assert_int_ge(checked, 1);
    ck_assert(cJSON_IsTrue(cJSON_GetObjectItem(rec[0], "adjudicated_by_shido")));
    ck_assert_str_eq(jstr(rec[0], "winner"), "engine1");
    free_records(rec, 2);
    run_free(&r);
    scratch_free(&s);
}
END_TEST

/* GNU Go behind a wrapper that stops forwarding after 12 lines: it exits mid-game, loses, is
 * restarted for every game, and the match ends normally. */
START_TEST(gnugo_quits_mid_game)
{
    if (!test_gnugo_present(TEST_GNUGO, "test_match: gnugo_quits_mid_game not run"))
        return;
    scratch s;
    scratch_init(&s);
    const char *args[] = {
        "--engine1", GNUGO_1, "--engine2",
        "i=0; while [ $i -lt 12 ] && read -r l; do echo \"$l\"; i=$((i+1)); done | " GNUGO_1,
        "--games", "3", "--size", "7", "--jsonl", s.jsonl, NULL};
    run_result r = run_match(&s, args);
    ck_assert_msg(r.status == 0, "%s", r.err);
    cJSON *rec[3] = {NULL};
    ck_assert_int_eq(read_records(s.jsonl, rec, 3), 3);
    for (int i = 0; i < 3; i++) {
        ck_assert_str_eq(jstr(rec[i], "winner"), "engine1");
        ck_assert_str_eq(jstr(rec[i], "end"), "forfeit");
        ck_assert_int_gt((int)test_json_num(rec[i], "moves"), 0);
        ck_assert_msg(strstr(jstr(rec[i], "errors_engine2"), "exited with status"), "%s",
                      jstr(rec[i], "errors_engine2"));
    }
    ck_assert_int_eq(count_lines_starting(r.err, "shido match: game "), 3);
    free_records(rec, 3);
    run_free(&r);
    scratch_free(&s);
}
END_TEST

Suite *match_suite(void)
{
    Suite *s = suite_create("match");
    TCase *unit = tcase_create("unit");
    tcase_add_test(unit, wilson_interval);
    tcase_add_test(unit, parse_score);
    suite_add_tcase(s, unit);

    TCase *client = tcase_create("client");
    tcase_set_timeout(client, 60);
    tcase_add_test(client, client_replies);
    tcase_add_test(client, client_failures);
    suite_add_tcase(s, client);

    TCase *scripted = tcase_create("scripted");
    tcase_set_timeout(scripted, 120);
    tcase_add_test(scripted, bad_options);
    tcase_add_test(scripted, engine_cannot_start);
    tcase_add_test(scripted, engine_stops_starting);
    tcase_add_test(scripted, disagreement_scored_by_shido);
    tcase_add_test(scripted, illegal_moves_lose);
    tcase_add_test(scripted, broken_engines_forfeit);
    tcase_add_test(scripted, parallel_games);
    tcase_add_test(scripted, time_losses);
    tcase_add_test(scripted, openings);
    suite_add_tcase(s, scripted);

    TCase *gnugo = tcase_create("gnugo");
    tcase_set_timeout(gnugo, 300);
    tcase_add_test(gnugo, gnugo_match);
    tcase_add_test(gnugo, gnugo_shido_scores);
    tcase_add_test(gnugo, gnugo_quits_mid_game);
    suite_add_tcase(s, gnugo);
    return s;
}

int main(void) { return test_run_suite(match_suite()); }
