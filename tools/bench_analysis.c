/* tools/bench_analysis.c -- `shido bench analysis`: positions per second of a JSON analysis
 * engine doing a KaTrain-like whole-game review (see tools/commands.h).
 *
 * The engine is any command line speaking KataGo's JSON analysis protocol (shido analysis, or
 * another engine given on the command line), so both are driven by the same client: one query
 * per game with every turn in analyzeTurns, written all at once by a writer thread (the engine
 * decides the order and the parallelism) while this thread counts the final answers. One warm-up
 * query is answered before the clock starts, so loading the network is not timed.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "go/clock.h"
#include "go/sgf.h"
#include "tools/commands.h"
#include "tools/positions.h"

typedef struct bench_writer {
    FILE *to;
    char **lines;
    int num_lines;
} bench_writer;

static void *writer_main(void *arg)
{
    bench_writer *w = arg;
    for (int i = 0; i < w->num_lines; i++)
        if (fprintf(w->to, "%s\n", w->lines[i]) < 0)
            break;
    fclose(w->to);
    return NULL;
}

/* The query of game g's first `turns` + 1 positions (turns 0..turns), id "g<index>". NULL when
 * out of memory; the caller frees it. */
static char *game_query(const go_game *g, int index, int turns, int visits, bool one_turn)
{
    int size = g->board.size;
    size_t cap = 256 + (size_t)g->num_moves * 16 + (size_t)turns * 6 + (size_t)size * size * 12;
    char *q = malloc(cap), v[8];
    if (!q)
        return NULL;
    size_t n = (size_t)snprintf(q, cap, "{\"id\":\"g%d\",\"boardXSize\":%d,\"boardYSize\":%d,"
                                "\"komi\":%g,\"rules\":\"japanese\",\"maxVisits\":%d,"
                                "\"initialStones\":[", index, size, size, g->komi, visits);
    bool first = true;
    for (int p = 0; p < GO_POINTS; p++) {
        go_color c = (go_color)g->setup.color[p];
        if (c != GO_BLACK && c != GO_WHITE)
            continue;
        n += (size_t)snprintf(q + n, cap - n, "%s[\"%c\",\"%s\"]", first ? "" : ",",
                              c == GO_BLACK ? 'B' : 'W', go_point_to_gtp(size, p, v));
        first = false;
    }
    n += (size_t)snprintf(q + n, cap - n, "],\"moves\":[");
    for (int i = 0; i < turns; i++)
        n += (size_t)snprintf(q + n, cap - n, "%s[\"%c\",\"%s\"]", i ? "," : "",
                              g->moves[i].color == GO_BLACK ? 'B' : 'W',
                              go_point_to_gtp(size, g->moves[i].point, v));
    n += (size_t)snprintf(q + n, cap - n, "],\"analyzeTurns\":[");
    for (int t = one_turn ? turns : 0; t <= turns; t++)
        n += (size_t)snprintf(q + n, cap - n, "%s%d", t > (one_turn ? turns : 0) ? "," : "", t);
    snprintf(q + n, cap - n, "]}");
    return q;
}

/* Starts `sh -c command` with pipes on its stdin and stdout. */
static pid_t spawn(const char *command, FILE **to, FILE **from)
{
    int in[2], out[2];
    if (pipe(in) != 0)
        return -1;
    if (pipe(out) != 0) {
        close(in[0]);
        close(in[1]);
        return -1;
    }
    pid_t pid = fork();
    if (pid == 0) {
        dup2(in[0], 0);
        dup2(out[1], 1);
        close(in[0]);
        close(in[1]);
        close(out[0]);
        close(out[1]);
        execl("/bin/sh", "sh", "-c", command, (char *)NULL);
        _exit(127);
    }
    close(in[0]);
    close(out[1]);
    if (pid < 0) {
        close(in[1]);
        close(out[0]);
        return -1;
    }
    *to = fdopen(in[1], "w");
    *from = fdopen(out[0], "r");
    return pid;
}

/* Reads answers until `want` final ones (isDuringSearch false, noResults, or an error) have come;
 * returns how many came (fewer when the output ended). */
static int read_finals(FILE *from, int want, char **line, size_t *cap, int *errors)
{
    int got = 0;
    while (got < want && getline(line, cap, from) >= 0) {
        if (strstr(*line, "\"error\"")) {
            if (++*errors <= 3)
                fprintf(stderr, "bench analysis: %s", *line);
            got++;
        } else if (strstr(*line, "\"isDuringSearch\":false")) {
            got++;
        }
    }
    return got;
}

static int usage(FILE *f)
{
    fprintf(f, "usage: shido bench analysis --sgf FILE [--games N] [--turns T] [--visits V] "
               "-- COMMAND...\n"
               "  every turn 0..T (default 50; 0: whole games) of the first N games (default 2) "
               "of FILE as\n"
               "  one analyzeTurns query per game at V visits (default 100), sent to COMMAND (a "
               "JSON\n"
               "  analysis engine: shido analysis ..., or another) after one warm-up query; "
               "prints\n"
               "  positions per second of the answers\n");
    return f == stdout ? 0 : 2;
}

int shido_bench_analysis(int argc, char **argv)
{
    const char *sgf = NULL;
    int games = 2, turns = 50, visits = 100, cmd_at = -1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
            return usage(stdout);
        if (!strcmp(argv[i], "--")) {
            cmd_at = i + 1;
            break;
        }
        if (i + 1 >= argc)
            return usage(stderr);
        if (!strcmp(argv[i], "--sgf"))
            sgf = argv[++i];
        else if (!strcmp(argv[i], "--games"))
            games = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--turns"))
            turns = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--visits"))
            visits = atoi(argv[++i]);
        else
            return usage(stderr);
    }
    if (!sgf || cmd_at < 0 || cmd_at >= argc || games < 1 || turns < 0 || visits < 1)
        return usage(stderr);
    char command[4096] = "";
    for (int i = cmd_at; i < argc; i++) {
        size_t n = strlen(command);
        snprintf(command + n, sizeof command - n, "%s'%s'", i > cmd_at ? " " : "", argv[i]);
    }
    char err[256];
    go_sgf_collection *col = go_sgf_read_file(sgf, err, sizeof err);
    if (!col) {
        fprintf(stderr, "bench analysis: %s\n", err);
        return 1;
    }
    char **lines = calloc((size_t)games + 1, sizeof *lines);
    int num_lines = 0, positions = 0;
    for (int i = 0; lines && i < col->num_games && num_lines < games; i++) {
        go_game g;
        if (!positions_main_line(col, i, -1, &g, err, sizeof err))
            continue;   /* a record this reader refuses: the next game */
        int t = turns == 0 || turns > g.num_moves ? g.num_moves : turns;
        if (num_lines == 0)   /* the warm-up: the first game's last position of those timed */
            lines[games] = game_query(&g, games, t, visits, true);
        lines[num_lines] = game_query(&g, num_lines, t, visits, false);
        num_lines++;
        positions += t + 1;
        go_game_free(&g);
    }
    go_sgf_free(col);
    int rc = 1;
    bool have = lines && num_lines > 0 && lines[games];
    for (int i = 0; have && i < num_lines; i++)
        have = lines[i] != NULL;
    FILE *to = NULL, *from = NULL;
    pid_t pid = have ? spawn(command, &to, &from) : -1;
    if (!have) {
        fprintf(stderr, "bench analysis: no game read from %s (or out of memory)\n", sgf);
    } else if (pid < 0 || !to || !from) {
        fprintf(stderr, "bench analysis: cannot start %s: %s\n", command, strerror(errno));
    } else {
        signal(SIGPIPE, SIG_IGN);
        char *line = NULL;
        size_t cap = 0;
        int errors = 0;
        fprintf(to, "%s\n", lines[games]);
        fflush(to);
        bool warm = read_finals(from, 1, &line, &cap, &errors) == 1 && errors == 0;
        double t0 = go_now_s();
        bench_writer w = {to, lines, num_lines};
        pthread_t writer;
        if (!warm) {
            fprintf(stderr, "bench analysis: no answer to the warm-up query\n");
            fclose(to);
        } else if (pthread_create(&writer, NULL, writer_main, &w) != 0) {
            fprintf(stderr, "bench analysis: cannot start the writer\n");
            fclose(to);
        } else {
            int got = read_finals(from, positions, &line, &cap, &errors);
            double s = go_now_s() - t0;
            pthread_join(writer, NULL);
            printf("%d games, %d positions at %d visits: %d answered (%d errors) in %.2f s, "
                   "%.2f positions/s\n", num_lines, positions, visits, got, errors, s,
                   got / s);
            fflush(stdout);
            rc = got == positions && errors == 0 ? 0 : 1;
        }
        free(line);
        fclose(from);
        int status;
        struct rusage ru;   /* of the reaped children: the engine (and its shell) */
        if (waitpid(pid, &status, 0) == pid && getrusage(RUSAGE_CHILDREN, &ru) == 0 && rc == 0) {
            double cpu = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
                         (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
            printf("engine CPU time %.2f s (its whole run, loading included): %.2f positions "
                   "per CPU second\n", cpu, positions / cpu);
        }
    }
    for (int i = 0; lines && i <= games; i++)
        free(lines[i]);
    free(lines);
    return rc;
}
