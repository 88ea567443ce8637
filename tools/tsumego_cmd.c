/* tools/tsumego_cmd.c -- `shido tsumego solve FILE.sgf` and `shido tsumego bench --jsonl FILE`
 * (or --sgf FILE_OR_DIR).
 *
 * The benchmark reads one problem per line ({"id", "size", "to_play", "AB", "AW", "solutions"},
 * SGF points), or one per SGF game tree (see read_sgf_source), and solves the problems on N
 * threads, one problem per thread at a time, each with its own time limit: all of a file's
 * problems, or those whose id contains a text given with --id, then a seeded sample and the
 * first few of them (see pick). It prints per file the share of problems whose chosen first
 * move is among the solutions, the share whose answer was proven, the wrong answers by kind
 * (proven; a guess after every first move failed in the framed problem, which then does not fit
 * the problem; a guess where nothing was proven in time), time and nodes (per problem too with
 * --list, or as JSON Lines with --results), and with --oracle how often another engine's
 * reading agrees (tools/tsumego_oracle.h). Records are parsed and written with cJSON. */
#include "tools/tsumego_cmd.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>

#include "go/clock.h"
#include "go/game.h"
#include "go/sgf.h"
#include "go/tsumego.h"
#include "teach/engine.h"
#include "teach/tsumego.h"
#include "tools/tsumego_oracle.h"
#include "tools/args.h"
#include "tools/positions.h"
#include "tools/progress.h"
#include "tools/tsumego_records.h"

static const char *vertex(int size, int p, char *buf) { return go_point_to_gtp(size, p, buf); }

/* --- the network --- */

/* The engine of the shared options: the network of -w (at most one) on --backend, the search
 * tunables of --set / --config for the guide's search. NULL after printing the reason. */
static teach_engine *load_engine(const char *cmd, const teach_options *o)
{
    char err[512];
    if (o->num_weights > 1) {
        fprintf(stderr, "shido tsumego %s: one network guides the solver (-w FILE)\n", cmd);
        return NULL;
    }
    teach_engine *e = teach_engine_new(o, err, sizeof err);
    if (!e)
        fprintf(stderr, "shido tsumego %s: %s\n", cmd, err);
    return e;
}

/* A solver for one thread: guided by the engine's network when it has one, its guess searched
 * on the guess engine's network when there is one (ge may be NULL). NULL after printing the
 * reason. */
static teach_tsumego *new_solver(const char *cmd, teach_engine *e, teach_engine *ge)
{
    char err[512];
    teach_tsumego *t = teach_tsumego_new(teach_engine_model(e, 0), teach_engine_params(e), err,
                                         sizeof err);
    if (!t) {
        fprintf(stderr, "shido tsumego %s: %s: %s\n", cmd, teach_engine_net_name(e, 0), err);
    } else if (ge && !teach_tsumego_set_guess_model(t, teach_engine_model(ge, 0), err,
                                                     sizeof err)) {
        fprintf(stderr, "shido tsumego %s: %s: %s\n", cmd, teach_engine_net_name(ge, 0), err);
        teach_tsumego_free(t);
        t = NULL;
    }
    return t;
}

/* --max-nodes N of command cmd: a whole number from 1 to 10^12 into *n; false (nothing changed,
 * the error printed) otherwise. */
static bool parse_max_nodes(const char *cmd, const char *text, uint64_t *n)
{
    char *end;
    unsigned long long v = text[0] >= '0' && text[0] <= '9' ? strtoull(text, &end, 10) : 0;
    if (v < 1 || *end || v > 1000000000000ULL) {
        fprintf(stderr, "shido tsumego %s: --max-nodes must be a whole number in 1..10^12, not "
                        "'%s'\n", cmd, text);
        return false;
    }
    *n = v;
    return true;
}

#define MAX_NODES_HELP                                                                          \
    "  --max-nodes N  at most N positions for each of the solver's phases; with --visits V "     \
    "(the guess's search stops at V), one solver thread and time to spare, the results are "  \
    "the same on every machine and under any load\n"

static const char *goal_source_text(teach_goal_source from)
{
    return from == TEACH_GOAL_GIVEN    ? "given"
           : from == TEACH_GOAL_STATED ? "from the problem's comment"
                                       : "inferred";
}

/* --- solve --- */

/* The usage on f: standard output for --help (status 0), else standard error (status 2). */
static int usage_solve(FILE *f)
{
    fprintf(f, "usage: shido tsumego solve FILE.sgf [--time S] [--goal kill|live] [--tt LOG2] "
               "[--max-nodes N] [--out TREE.sgf] [--frame] [-w NET] [--guess-weights NET] "
               "[--backend NAME] [--set NAME=VALUE]... [--config FILE]\n"
               "  -w NET   a network that orders the first moves and, when nothing is proven, "
               "searches for the guess (--set / --config: that search's tunables)\n"
               "  --threads N  threads searching the proofs at once (the guess's search keeps "
               "to one)\n"
               "%s" MAX_NODES_HELP "%s",
            teach_tsumego_guess_help(), teach_options_help());
    return f == stdout ? 0 : 2;
}

static void print_status(const char *who, const go_tsumego_status *s, go_color mover)
{
    char buf[128];
    printf("%s: %s\n", who, go_tsumego_status_text(s, mover, buf, sizeof buf));
}

static int cmd_solve(int argc, char **argv)
{
    const char *path = NULL, *out_path = NULL, *guess_path = NULL;
    teach_options opts;
    teach_options_init(&opts);
    char err[512];
    go_tsumego_limits lim = {0};
    go_tsumego_goal goal = GO_TSUMEGO_GOAL_AUTO;
    bool show_frame = false;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
            return usage_solve(stdout);
        int got = teach_options_parse(&opts, argc, argv, &i, err, sizeof err);
        if (got < 0) {
            fprintf(stderr, "shido tsumego solve: %s\n", err);
            return 2;
        }
        if (got > 0) {
            lim.threads = opts.threads; /* the solver's; the guess's search keeps to one */
            continue;
        }
        if (!strcmp(argv[i], "--time") && i + 1 < argc) {
            lim.time_s = atof(argv[++i]);
            if (!(lim.time_s > 0 && lim.time_s <= 86400)) {
                fprintf(stderr, "shido tsumego solve: --time must be in (0, 86400]\n");
                return 2;
            }
        } else if (!strcmp(argv[i], "--goal") && i + 1 < argc) {
            const char *g = argv[++i];
            if (!strcmp(g, "kill"))
                goal = GO_TSUMEGO_GOAL_KILL;
            else if (!strcmp(g, "live"))
                goal = GO_TSUMEGO_GOAL_LIVE;
            else
                return usage_solve(stderr);
        } else if (!strcmp(argv[i], "--tt") && i + 1 < argc) {
            lim.tt_log2 = atoi(argv[++i]);
            if (lim.tt_log2 < 10 || lim.tt_log2 > 30) {
                fprintf(stderr, "shido tsumego solve: --tt must be in 10..30\n");
                return 2;
            }
        } else if (!strcmp(argv[i], "--max-nodes") && i + 1 < argc) {
            if (!parse_max_nodes("solve", argv[++i], &lim.max_nodes))
                return 2;
        } else if (!strcmp(argv[i], "--out") && i + 1 < argc) {
            out_path = argv[++i];
        } else if (!strcmp(argv[i], "--frame")) {
            show_frame = true;
        } else if (!strcmp(argv[i], "--guess-weights") && i + 1 < argc && argv[i + 1][0]) {
            guess_path = argv[++i];
        } else if (argv[i][0] != '-' && !path) {
            path = argv[i];
        } else {
            return usage_solve(stderr);
        }
    }
    if (!path)
        return usage_solve(stderr);
    teach_engine *guess;
    int guess_rc = teach_tsumego_guess_engine_new(&opts, guess_path, &guess, err, sizeof err);
    if (guess_rc) {
        fprintf(stderr, "shido tsumego solve: %s\n", err);
        return guess_rc;
    }
    go_sgf_collection *col = go_sgf_read_file(path, err, sizeof err);
    if (!col) {
        fprintf(stderr, "shido tsumego solve: %s\n", err);
        teach_engine_free(guess);
        return 1;
    }
    go_game game;
    bool ok =
        col->num_games > 0 && positions_square_game(col->games[0], -1, &game, err, sizeof err);
    /* the goal the problem's statement names, in the root's comment or its game name */
    go_tsumego_goal hint = GO_TSUMEGO_GOAL_AUTO;
    for (int k = 0; ok && k < 2 && hint == GO_TSUMEGO_GOAL_AUTO; k++)
        hint = go_tsumego_goal_from_text(go_sgf_get(col->games[0], k ? "GN" : "C"));
    go_sgf_free(col);
    if (!ok) {
        fprintf(stderr, "shido tsumego solve: %s: %s\n", path,
                err[0] ? err : "no game in the file");
        teach_engine_free(guess);
        return 1;
    }
    go_board board = game.board;
    go_game_free(&game);
    go_tsumego_problem prob;
    teach_goal_source from;
    if (!teach_tsumego_setup(&board, board.to_move, goal, hint, &prob, &from, NULL, err,
                             sizeof err)) {
        fprintf(stderr, "shido tsumego solve: %s: %s\n", path, err);
        teach_engine_free(guess);
        return 1;
    }
    teach_engine *engine = load_engine("solve", &opts);
    teach_tsumego *solver = engine ? new_solver("solve", engine, guess) : NULL;
    go_tsumego_solution sol;
    bool got = solver && teach_tsumego_solve(solver, &prob, &lim, &sol, err, sizeof err);
    bool guided = got && teach_tsumego_guided(solver);
    bool searched = got && teach_tsumego_failure_searched(solver); /* a failure answered with
                                                                      the network's search */
    if (solver && !got)
        fprintf(stderr, "shido tsumego solve: %s\n", err);
    teach_tsumego_free(solver);
    if (!got) {
        teach_engine_free(engine);
        teach_engine_free(guess);
        return 1;
    }
    const go_tsumego_problem *p = &sol.problem;
    int size = p->board.size;
    char v0[8], v1[8];
    const char *me = p->to_play == GO_BLACK ? "Black" : "White";
    const char *them = p->to_play == GO_BLACK ? "White" : "Black";
    printf("problem: %s to %s (%s), region %s-%s, %d target stones\n", me,
           p->goal == GO_TSUMEGO_GOAL_KILL ? "kill" : "live",
           p->goal_inferred ? "inferred" : goal_source_text(from),
           vertex(size, go_point_at(p->x0, p->y0), v0), vertex(size, go_point_at(p->x1, p->y1), v1),
           p->num_targets);
    if (guided)
        printf("guided by the network %s (policy order; a search for the guess on %s when "
               "nothing is proven)\n", teach_engine_net_name(engine, 0),
               guess ? teach_engine_net_name(guess, 0) : "it");
    teach_engine_free(engine);
    teach_engine_free(guess);
    if (show_frame) {
        char pic[4096];
        go_board_to_ascii(&p->framed, pic, sizeof pic);
        fputs(pic, stdout);
        printf("region (%d points; '-' is frame to the solver):\n", p->region_points);
        for (int y = p->y0; y <= p->y1; y++) {
            for (int x = p->x0; x <= p->x1; x++) {
                int q = go_point_at(x, y), c = p->board.color[q];
                printf(" %c", !p->region[q] ? '-' : c == GO_BLACK ? 'X' : c == GO_WHITE ? 'O' : '.');
            }
            printf("\n");
        }
    }
    print_status(p->to_play == GO_BLACK ? "status, Black first" : "status, White first",
                 &sol.status, p->to_play);
    printf("correct first moves:");
    for (int i = 0; i < sol.num_correct; i++)
        printf(" %s", vertex(size, sol.correct[i], v0));
    printf("%s (%s)\n", sol.num_correct ? "" : " none", go_tsumego_uniqueness_name(sol.uniqueness));
    const char *how = sol.best_proven ? "proven" : "not proven";
    if (sol.status.result == GO_TSUMEGO_FAILURE)
        how = searched ? "every move fails in the framed problem: the network's choice"
                       : "every move fails in the framed problem: the most stubborn try";
    printf("best move: %s (%s)\n", sol.best_move ? vertex(size, sol.best_move, v0) : "none", how);
    char who[64];
    snprintf(who, sizeof who, "status, %s first", them);
    print_status(who, &sol.reply_status, go_opponent(p->to_play));
    printf("nodes %llu, time %.2f s, %.0f nodes/s\n", (unsigned long long)sol.nodes, sol.time_s,
           sol.time_s > 0 ? (double)sol.nodes / sol.time_s : 0.0);
    int rc = 0;
    if (out_path && sol.sgf) {
        FILE *f = fopen(out_path, "w");
        if (!f || fputs(sol.sgf, f) == EOF || fclose(f) != 0) {
            fprintf(stderr, "shido tsumego solve: cannot write %s\n", out_path);
            rc = 1;
        }
    } else if (sol.sgf) {
        fputs(sol.sgf, stdout);
    }
    go_tsumego_solution_free(&sol);
    return rc;
}

/* Appends the problems of one SGF file to *recs (*n of *cap). An unreadable file or game is
 * reported and kept as an unreadable record, so that it counts as refused. */
static bool read_sgf_file(const char *path, tsumego_record **recs, int *n, int *cap)
{
    char err[512];
    go_sgf_collection *col = go_sgf_read_file(path, err, sizeof err);
    int games = col ? col->num_games : 1;
    for (int i = 0; i < games; i++) {
        if (*n == *cap) {
            tsumego_record *r = realloc(*recs, (size_t)(*cap *= 2) * sizeof **recs);
            if (!r) {
                go_sgf_free(col);
                return false;
            }
            *recs = r;
        }
        tsumego_record *r = &(*recs)[(*n)++];
        memset(r, 0, sizeof *r);
        r->size = 19;
        r->to_play = GO_BLACK;
        const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
        if (games > 1)
            snprintf(r->id, sizeof r->id, "%s#%d", base, i + 1);
        else
            snprintf(r->id, sizeof r->id, "%s", base);
        char why[256];
        if (!col || !tsumego_record_from_sgf(col->games[i], r, why, sizeof why)) {
            if (col)
                fprintf(stderr, "shido tsumego bench: %s: %s\n", r->id, why);
            else
                fprintf(stderr, "shido tsumego bench: %s\n", err); /* names the file */
            r->unreadable = true;
        }
    }
    go_sgf_free(col);
    return true;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
    return strcmp((*a)->d_name, (*b)->d_name);
}

/* The problems of an SGF file, or of every *.sgf file of a directory (in name order). */
static tsumego_record *read_sgf_source(const char *path, int *count)
{
    int cap = 64, n = 0;
    tsumego_record *recs = malloc((size_t)cap * sizeof *recs);
    struct stat st;
    bool ok = recs != NULL;
    if (ok && stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        struct dirent **names;
        int k = scandir(path, &names, NULL, by_name);
        if (k < 0) {
            fprintf(stderr, "shido tsumego bench: cannot read the directory %s\n", path);
            free(recs);
            return NULL;
        }
        for (int i = 0; i < k; i++) {
            size_t len = strlen(names[i]->d_name);
            if (ok && len > 4 && !strcasecmp(names[i]->d_name + len - 4, ".sgf")) {
                char file[4096];
                snprintf(file, sizeof file, "%s/%s", path, names[i]->d_name);
                ok = read_sgf_file(file, &recs, &n, &cap);
            }
            free(names[i]);
        }
        free(names);
    } else if (ok) {
        ok = read_sgf_file(path, &recs, &n, &cap);
    }
    if (!ok) {
        fprintf(stderr, "shido tsumego bench: %s: out of memory\n", path);
        free(recs);
        return NULL;
    }
    *count = n;
    return recs;
}

/* --- bench --- */

typedef struct bench_result {
    bool correct, proven, setup_ok, failed; /* failed: the solve stopped on an error */
    bool framed_failure; /* every first move fails in the framed problem (the answer a guess) */
    double time_s;
    uint64_t nodes;
    int move;
    go_tsumego_goal goal; /* the goal answered, and whether the record's comment set it */
    bool goal_from_comment;
    /* --oracle, for an outright win proven: whether the other engine reads the answer as
     * reaching the goal, and passing instead as not (1 / 0; -1 the engine failed; -2 not
     * asked) */
    int oracle, oracle_pass;
} bench_result;

typedef struct bench_job {
    tsumego_record *recs;
    bench_result *res;
    int count, next, done, correct;
    go_tsumego_limits lim;
    teach_tsumego **solvers; /* one per thread */
    bool guided;             /* a network guides them */
    tsumego_oracle **oracles; /* one per thread with --oracle, NULL without */
    int next_net;
    pthread_mutex_t lock;
    progress bar;
} bench_job;

/* Asks the oracle about first for the solved problem p: 1, 0, or -1 after printing why. */
static int ask_oracle(tsumego_oracle *o, const tsumego_record *r, const go_tsumego_problem *p,
                      int first)
{
    char err[512];
    int got = tsumego_oracle_check(o, p, first, err, sizeof err);
    if (got < 0)
        fprintf(stderr, "\nshido tsumego bench: %s: oracle: %s\n", r->id, err);
    return got;
}

/* Solves one record with the thread's solver (network-guided or not: the network's time counts
 * in the problem's). With an oracle, an outright win proven is put to it (not timed). */
static void solve_record(const tsumego_record *r, const go_tsumego_limits *lim,
                         teach_tsumego *solver, tsumego_oracle *oracle, bench_result *out)
{
    memset(out, 0, sizeof *out);
    out->oracle = out->oracle_pass = -2;
    double t0 = go_now_s();
    go_board b;
    go_tsumego_problem prob;
    char err[256];
    teach_goal_source from;
    if (r->unreadable || !tsumego_record_board(r, &b) ||
        !teach_tsumego_setup(&b, r->to_play, GO_TSUMEGO_GOAL_AUTO, r->hint, &prob, &from, NULL,
                             err, sizeof err)) {
        out->time_s = go_now_s() - t0;
        return;
    }
    out->setup_ok = true;
    out->goal = prob.goal;
    out->goal_from_comment = !prob.goal_inferred && from == TEACH_GOAL_STATED;
    go_tsumego_solution sol;
    if (!teach_tsumego_solve(solver, &prob, lim, &sol, err, sizeof err)) {
        fprintf(stderr, "\nshido tsumego bench: %s: %s\n", r->id, err);
        out->failed = true;
        out->time_s = go_now_s() - t0;
        return;
    }
    out->move = sol.best_move;
    out->nodes = sol.nodes;
    out->goal = sol.problem.goal; /* an inferred goal that failed may have given way */
    for (int i = 0; i < r->nsol; i++)
        out->correct |=
            tsumego_record_point(r->size, r->sol[i]) == sol.best_move && sol.best_move > 0;
    out->proven = sol.best_proven && (sol.status.result == GO_TSUMEGO_SUCCESS ||
                                      sol.status.result == GO_TSUMEGO_KO);
    out->framed_failure = sol.status.result == GO_TSUMEGO_FAILURE;
    out->time_s = go_now_s() - t0;
    if (oracle && sol.best_proven && sol.status.result == GO_TSUMEGO_SUCCESS &&
        sol.best_move > 0) {
        out->oracle = ask_oracle(oracle, r, &sol.problem, sol.best_move);
        out->oracle_pass = out->oracle < 0 ? -1 : ask_oracle(oracle, r, &sol.problem, GO_PASS);
    }
    go_tsumego_solution_free(&sol);
}

static void *bench_worker(void *arg)
{
    bench_job *job = arg;
    pthread_mutex_lock(&job->lock);
    teach_tsumego *solver = job->solvers[job->next_net];
    tsumego_oracle *oracle = job->oracles ? job->oracles[job->next_net] : NULL;
    job->next_net++;
    pthread_mutex_unlock(&job->lock);
    for (;;) {
        pthread_mutex_lock(&job->lock);
        int i = job->next++;
        pthread_mutex_unlock(&job->lock);
        if (i >= job->count)
            break;
        solve_record(&job->recs[i], &job->lim, solver, oracle, &job->res[i]);
        pthread_mutex_lock(&job->lock);
        job->done++;
        job->correct += job->res[i].correct;
        char note[32];
        snprintf(note, sizeof note, "%d correct", job->correct);
        progress_note(&job->bar, note);
        progress_update(&job->bar, job->done);
        pthread_mutex_unlock(&job->lock);
    }
    return NULL;
}

static int usage_bench(FILE *f)
{
    fprintf(f, "usage: shido tsumego bench (--jsonl FILE | --sgf FILE_OR_DIR) ... "
               "[--time-per-problem S] [--threads N] [--solver-threads N] [--limit N] "
               "[--sample N] [--seed N] [--tt LOG2] [--max-nodes N] [-w NET] [--guess-weights NET] "
               "[--backend NAME] [--id TEXT]... [--list] [--results FILE] [--oracle CMD] "
               "[--progress|--quiet]\n"
               "  --jsonl  one problem per line: {\"id\", \"size\", \"to_play\", \"AB\", "
               "\"AW\", \"solutions\", \"comment\"}\n"
               "  --sgf    one problem per game tree (a file, or every *.sgf of a directory): "
               "the correct first moves are the variations marked RIGHT / Correct / 正解 in a "
               "comment, or GB / GW / TE, else the first one not marked wrong (BM, Wrong)\n"
               "  -w NET   a network that orders the first moves and, when nothing is proven, "
               "searches for the guess (--set / --config: that search's tunables)\n"
               "%s"
               "  --threads N  problems solved at once, each on its own thread\n"
               "  --solver-threads N  threads searching each problem's proofs at once [1]\n"
               MAX_NODES_HELP
               "  --id     only the problems whose id contains TEXT (repeatable, up to 16; "
               "before --sample and --limit)\n"
               "  --list   one line per problem: right or wrong, the move, time, nodes and the "
               "goal\n"
               "  --results FILE  the same per problem as JSON Lines (\"-\": standard "
               "output, the lines and the summary then going to standard error)\n"
               "  --oracle a GTP engine with owl_attack / owl_defend (\"/usr/games/gnugo --mode "
               "gtp\") that reads each answer proven to win outright on the framed board: "
               "does it reach the goal, and does passing instead fail\n"
               "  --progress|--quiet the progress bar (problems, rate, ETA, correct so far) "
               "always | never [on a terminal]\n%s",
            teach_tsumego_guess_help(), teach_options_help());
    return f == stdout ? 0 : 2;
}

/* Reads the problems of one JSON Lines file, saying why not on stderr. */
static tsumego_record *read_jsonl(const char *path, int *count)
{
    char why[512];
    tsumego_record *r = tsumego_records_read_jsonl(path, count, why, sizeof why);
    if (!r)
        fprintf(stderr, "shido tsumego bench: %s\n", why);
    return r;
}

/* Which problems of a file a benchmark runs: those whose id contains one of ids (all when nids is
 * 0), then a seeded sample of them, then the first limit. */
typedef struct bench_pick {
    const char *ids[16];
    int nids, limit, sample;
    unsigned seed;
} bench_pick;

static bool id_wanted(const tsumego_record *r, const bench_pick *bp)
{
    for (int k = 0; k < bp->nids; k++)
        if (strstr(r->id, bp->ids[k]))
            return true;
    return bp->nids == 0;
}

static void pick(tsumego_record *recs, int *count, const bench_pick *bp)
{
    int n = 0, limit = bp->limit, sample = bp->sample;
    unsigned seed = bp->seed;
    for (int i = 0; i < *count; i++)
        if (id_wanted(&recs[i], bp) && n++ != i)
            recs[n - 1] = recs[i];
    if (sample > 0 && sample < n) {
        /* a seeded partial Fisher-Yates shuffle, then file order for readable listings */
        for (int i = 0; i < sample; i++) {
            seed = seed * 1103515245u + 12345u;
            int j = i + (int)((seed >> 8) % (unsigned)(n - i));
            tsumego_record t = recs[i];
            recs[i] = recs[j];
            recs[j] = t;
        }
        n = sample;
    }
    if (limit > 0 && limit < n)
        n = limit;
    *count = n;
}

/* One source of problems: a JSON Lines file, or (sgf) an SGF file or directory. */
typedef struct bench_source {
    const char *path;
    bool sgf;
} bench_source;

/* What the benchmark prints per problem besides the summary: --list lines, --results records. */
typedef struct bench_report {
    bool list;
    FILE *results; /* NULL: none */
    FILE *text;    /* the lines and the summary: standard output, or standard error when the
                      records go there ("--results -"), so that it holds JSON Lines only */
    int bar_mode;  /* the progress bar: 1 always, 0 never, -1 on a terminal only */
} bench_report;

/* How an answer stands: "proven", "fails in the frame", "not proven", "error", "set-up
 * refused". */
static const char *answer_kind(const bench_result *r)
{
    return !r->setup_ok         ? "set-up refused"
           : r->failed          ? "error"
           : r->proven          ? "proven"
           : r->framed_failure  ? "fails in the frame"
                                : "not proven";
}

/* One --results record: a JSON object on one line. False when out of memory. */
static bool write_result(FILE *out, const char *path, const tsumego_record *rec,
                         const bench_result *r)
{
    char v[8];
    cJSON *o = cJSON_CreateObject(), *sol = NULL;
    bool ok = o && cJSON_AddStringToObject(o, "file", path) &&
              cJSON_AddStringToObject(o, "id", rec->id) &&
              (rec->unreadable ? cJSON_AddNullToObject(o, "to_play")
                               : cJSON_AddStringToObject(o, "to_play",
                                                         rec->to_play == GO_WHITE ? "W" : "B")) &&
              (r->move > 0 ? cJSON_AddStringToObject(o, "played", vertex(rec->size, r->move, v))
                           : cJSON_AddNullToObject(o, "played")) &&
              (sol = cJSON_AddArrayToObject(o, "solutions")) &&
              cJSON_AddBoolToObject(o, "correct", r->correct) &&
              cJSON_AddStringToObject(o, "answer", answer_kind(r)) &&
              cJSON_AddNumberToObject(o, "time_s", round(r->time_s * 1e6) / 1e6) &&
              cJSON_AddNumberToObject(o, "nodes", (double)r->nodes);
    for (int k = 0; ok && k < rec->nsol; k++) {
        cJSON *m = cJSON_CreateString(
            vertex(rec->size, tsumego_record_point(rec->size, rec->sol[k]), v));
        ok = m && cJSON_AddItemToArray(sol, m);
    }
    if (ok && r->setup_ok)
        ok = cJSON_AddStringToObject(o, "goal",
                                     r->goal == GO_TSUMEGO_GOAL_KILL ? "kill" : "live") &&
             cJSON_AddStringToObject(o, "goal_from",
                                     r->goal_from_comment ? "comment" : "inferred");
    if (ok && (r->oracle == -1 || r->oracle_pass == -1))
        ok = cJSON_AddBoolToObject(o, "oracle_failed", true);
    else if (ok && r->oracle >= 0)
        ok = cJSON_AddBoolToObject(o, "oracle_confirms", r->oracle == 1) &&
             cJSON_AddBoolToObject(o, "oracle_passing_fails", r->oracle_pass == 0);
    char *text = ok ? cJSON_PrintUnformatted(o) : NULL;
    if (text)
        fprintf(out, "%s\n", text);
    cJSON_free(text);
    cJSON_Delete(o);
    return text != NULL;
}

/* Runs the problems bp picks from one source; *ran counts them. A file none of whose ids
 * matches --id is skipped with a note (another file may hold the problems). guess_net names the
 * guess network in the summary (NULL: none). */
static int bench_file(const bench_source *src, const go_tsumego_limits *lim, bool guided,
                      const char *guess_net, teach_tsumego **solvers, tsumego_oracle **oracles,
                      int threads, const bench_pick *bp, const bench_report *rep, int *ran)
{
    int rc = 0;
    bench_job job = {0};
    const char *path = src->path;
    job.solvers = solvers;
    job.guided = guided;
    job.oracles = oracles;
    job.recs = src->sgf ? read_sgf_source(path, &job.count) : read_jsonl(path, &job.count);
    if (!job.recs)
        return 1;
    pick(job.recs, &job.count, bp);
    if (bp->nids && job.count == 0) {
        fprintf(stderr, "shido tsumego bench: %s: no problem's id contains", path);
        for (int k = 0; k < bp->nids; k++)
            fprintf(stderr, "%s \"%s\"", k ? " or" : "", bp->ids[k]);
        fprintf(stderr, "\n");
        free(job.recs);
        return 0;
    }
    *ran += job.count;
    job.res = calloc((size_t)(job.count ? job.count : 1), sizeof *job.res);
    if (!job.res) {
        free(job.recs);
        return 1;
    }
    job.lim = *lim;
    progress_start(&job.bar, job.count, "problems", rep->bar_mode);
    pthread_mutex_init(&job.lock, NULL);
    pthread_t tid[256];
    int started = 0;
    double t0 = go_now_s();
    for (int t = 0; t < threads; t++)
        started += pthread_create(&tid[started], NULL, bench_worker, &job) == 0;
    if (!started)
        bench_worker(&job);
    for (int t = 0; t < started; t++)
        pthread_join(tid[t], NULL);
    double wall = go_now_s() - t0;
    progress_end(&job.bar, job.done);
    pthread_mutex_destroy(&job.lock);

    int correct = 0, proven = 0, proven_correct = 0, bad_setup = 0, failed = 0;
    int wrong_proven = 0, wrong_framed = 0, wrong_open = 0; /* wrong answers of solved problems */
    int asked = 0, confirmed = 0, pass_fails = 0, oracle_errors = 0;
    double sum_t = 0, max_t = 0;
    uint64_t sum_n = 0, max_n = 0;
    for (int i = 0; i < job.count; i++) {
        const bench_result *r = &job.res[i];
        correct += r->correct;
        proven += r->proven;
        proven_correct += r->proven && r->correct;
        bad_setup += !r->setup_ok;
        failed += r->failed;
        if (r->setup_ok && !r->failed && !r->correct) {
            wrong_proven += r->proven;
            wrong_framed += !r->proven && r->framed_failure;
            wrong_open += !r->proven && !r->framed_failure;
        }
        sum_t += r->time_s;
        max_t = r->time_s > max_t ? r->time_s : max_t;
        sum_n += r->nodes;
        max_n = r->nodes > max_n ? r->nodes : max_n;
        asked += r->oracle >= 0 && r->oracle_pass >= 0;
        confirmed += r->oracle == 1 && r->oracle_pass >= 0;
        pass_fails += r->oracle >= 0 && r->oracle_pass == 0;
        oracle_errors += r->oracle == -1 || r->oracle_pass == -1;
        if (rep->results && !rc && !write_result(rep->results, path, &job.recs[i], r)) {
            fprintf(stderr, "shido tsumego bench: --results: out of memory\n");
            rc = 1;
        }
        if (rep->list) {
            const tsumego_record *rec = &job.recs[i];
            char v[8];
            fprintf(rep->text, "  %s: %s played %s%s, solutions",
                    r->correct ? "right" : "wrong", rec->id,
                    r->move > 0 ? vertex(rec->size, r->move, v) : "none",
                    r->setup_ok ? "" : " (set-up refused)");
            for (int k = 0; k < rec->nsol; k++)
                fprintf(rep->text, " %s",
                        vertex(rec->size, tsumego_record_point(rec->size, rec->sol[k]), v));
            if (r->setup_ok)
                fprintf(rep->text, ", %s, %.2f s, %llu nodes, to %s (%s)", answer_kind(r),
                        r->time_s, (unsigned long long)r->nodes,
                        r->goal == GO_TSUMEGO_GOAL_KILL ? "kill" : "live",
                        r->goal_from_comment ? "from the comment" : "inferred");
            if (r->oracle == -1 || r->oracle_pass == -1)
                fprintf(rep->text, ", oracle failed");
            else if (r->oracle >= 0)
                fprintf(rep->text, ", oracle %s, passing %s",
                        r->oracle ? "confirms" : "disagrees",
                        r->oracle_pass ? "wins too" : "fails");
            fprintf(rep->text, "\n");
        }
    }
    int n = job.count ? job.count : 1;
    char solver_threads[48] = "";
    if (lim->threads > 1)
        snprintf(solver_threads, sizeof solver_threads, ", %d solver threads each", lim->threads);
    fprintf(rep->text,
            "%s: %d problems, %.2f s/problem, %d threads%s%s%s%s%s: first move correct %.1f%%, "
            "proven "
            "%.1f%% (of correct %.1f%%), wrong %d (%d proven, %d failing in the frame, %d "
            "unproven), set-up refused %d, solve errors %d, time mean %.3f s max %.3f s, nodes "
            "mean %.0f max %llu, %.2f M nodes/s, wall %.1f s",
            path, job.count, lim->time_s, threads,
            solver_threads,
            guided ? ", network-guided" : "",
            guess_net ? " (the guess searched on " : "", guess_net ? guess_net : "",
            guess_net ? ")" : "",
            100.0 * correct / n, 100.0 * proven / n,
            correct ? 100.0 * proven_correct / correct : 0.0,
            wrong_proven + wrong_framed + wrong_open, wrong_proven, wrong_framed, wrong_open,
            bad_setup, failed, sum_t / n, max_t, (double)sum_n / n, (unsigned long long)max_n,
            sum_t > 0 ? (double)sum_n / sum_t / 1e6 : 0, wall);
    if (oracles)
        fprintf(rep->text,
                "; oracle confirms %d of %d answers proven to win outright, passing fails in %d, "
                "oracle errors %d",
                confirmed, asked, pass_fails, oracle_errors);
    fprintf(rep->text, "\n");
    fflush(rep->text);
    free(job.recs);
    free(job.res);
    return rc || oracle_errors ? 1 : 0; /* oracle errors: its numbers are incomplete */
}

static int cmd_bench(int argc, char **argv)
{
    bench_source files[16];
    int nfiles = 0, threads = 1;
    bench_pick bp = {.seed = 1};
    bench_report rep = {.text = stdout, .bar_mode = -1};
    const char *oracle_cmd = NULL, *results_path = NULL, *guess_path = NULL;
    teach_options opts;
    teach_options_init(&opts);
    char err[1024];
    go_tsumego_limits lim = {.time_s = 10.0, .first_move_only = true, .tt_log2 = 22};
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
            return usage_bench(stdout);
        int got = teach_options_parse(&opts, argc, argv, &i, err, sizeof err);
        if (got < 0) {
            fprintf(stderr, "shido tsumego bench: %s\n", err);
            return 2;
        }
        if (got > 0)
            continue;
        if ((!strcmp(argv[i], "--jsonl") || !strcmp(argv[i], "--sgf")) && i + 1 < argc &&
            nfiles < 16) {
            files[nfiles].sgf = !strcmp(argv[i], "--sgf");
            files[nfiles++].path = argv[++i];
        } else if (!strcmp(argv[i], "--time-per-problem") && i + 1 < argc)
            lim.time_s = atof(argv[++i]);
        else if (!strcmp(argv[i], "--limit") && i + 1 < argc)
            bp.limit = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--sample") && i + 1 < argc)
            bp.sample = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
            bp.seed = (unsigned)strtoul(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--id") && i + 1 < argc && argv[i + 1][0] && bp.nids < 16)
            bp.ids[bp.nids++] = argv[++i];
        else if (!strcmp(argv[i], "--tt") && i + 1 < argc)
            lim.tt_log2 = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--solver-threads") && i + 1 < argc) {
            long v;
            if (!tools_parse_long(argv[++i], 1, 64, &v)) {
                fprintf(stderr, "shido tsumego bench: --solver-threads must be a whole number in "
                                "1..64, not '%s'\n", argv[i]);
                return 2;
            }
            lim.threads = (int)v;
        }
        else if (!strcmp(argv[i], "--max-nodes") && i + 1 < argc) {
            if (!parse_max_nodes("bench", argv[++i], &lim.max_nodes))
                return 2;
        } else if (!strcmp(argv[i], "--oracle") && i + 1 < argc && argv[i + 1][0])
            oracle_cmd = argv[++i];
        else if (!strcmp(argv[i], "--guess-weights") && i + 1 < argc && argv[i + 1][0])
            guess_path = argv[++i];
        else if (!strcmp(argv[i], "--list"))
            rep.list = true;
        else if (!strcmp(argv[i], "--progress") || !strcmp(argv[i], "--quiet"))
            rep.bar_mode = argv[i][2] == 'p';
        else if (!strcmp(argv[i], "--results") && i + 1 < argc && argv[i + 1][0])
            results_path = argv[++i];
        else
            return usage_bench(stderr);
    }
    if (!nfiles)
        return usage_bench(stderr);
    if (opts.threads)
        threads = opts.threads;
    if (!(lim.time_s > 0 && lim.time_s <= 3600) || threads < 1 || threads > 256 || bp.limit < 0 ||
        bp.sample < 0 || lim.tt_log2 < 10 || lim.tt_log2 > 30) {
        fprintf(stderr, "shido tsumego bench: --time-per-problem in (0, 3600], --threads in "
                        "1..256, --tt in 10..30, counts >= 0\n");
        return 2;
    }
    teach_engine *guess;
    int guess_rc = teach_tsumego_guess_engine_new(&opts, guess_path, &guess, err, sizeof err);
    if (guess_rc) {
        fprintf(stderr, "shido tsumego bench: %s\n", err);
        return guess_rc;
    }
    if (results_path) {
        rep.results = strcmp(results_path, "-") ? fopen(results_path, "w") : stdout;
        rep.text = rep.results == stdout ? stderr : stdout;
        if (!rep.results) {
            fprintf(stderr, "shido tsumego bench: --results: cannot write %s\n", results_path);
            teach_engine_free(guess);
            return 1;
        }
    }
    teach_engine *engine = load_engine("bench", &opts);
    teach_tsumego **solvers = engine ? calloc((size_t)threads, sizeof *solvers) : NULL;
    int rc = !solvers;
    for (int t = 0; solvers && t < threads && !rc; t++)
        rc = !(solvers[t] = new_solver("bench", engine, guess));
    tsumego_oracle **oracles = oracle_cmd && !rc ? calloc((size_t)threads, sizeof *oracles) : NULL;
    rc |= oracle_cmd && !oracles;
    for (int t = 0; oracles && t < threads && !rc; t++) {
        oracles[t] = tsumego_oracle_start(oracle_cmd, err, sizeof err);
        if (!oracles[t]) {
            fprintf(stderr, "shido tsumego bench: --oracle %s\n", err);
            rc = 1;
        }
    }
    int ran = 0;
    for (int f = 0; f < nfiles && !rc; f++)
        rc |= bench_file(&files[f], &lim, teach_engine_num_nets(engine) > 0,
                         guess ? teach_engine_net_name(guess, 0) : NULL, solvers, oracles,
                         threads, &bp, &rep, &ran);
    if (!rc && bp.nids && ran == 0)
        rc = 1; /* no file held a problem asked for */
    for (int t = 0; solvers && t < threads; t++)
        teach_tsumego_free(solvers[t]);
    free(solvers);
    for (int t = 0; oracles && t < threads; t++)
        tsumego_oracle_stop(oracles[t]);
    free(oracles);
    teach_engine_free(engine);
    teach_engine_free(guess);
    if (rep.results) {
        /* a full disk shows at the flush: the records would be incomplete */
        bool bad = fflush(rep.results) != 0 || ferror(rep.results);
        bad |= rep.results != stdout && fclose(rep.results) != 0;
        if (bad) {
            fprintf(stderr, "shido tsumego bench: --results: cannot write %s\n", results_path);
            rc = 1;
        }
    }
    return rc;
}

int shido_cmd_tsumego(int argc, char **argv)
{
    if (argc >= 2 && !strcmp(argv[1], "solve"))
        return cmd_solve(argc - 1, argv + 1);
    if (argc >= 2 && !strcmp(argv[1], "bench"))
        return cmd_bench(argc - 1, argv + 1);
    bool help = argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"));
    fprintf(help ? stdout : stderr,
            "usage: shido tsumego solve FILE.sgf [--time S] [--goal kill|live] [-w NET] ...\n"
            "       shido tsumego bench (--jsonl FILE | --sgf FILE_OR_DIR) "
            "[--time-per-problem S] [--threads N] [--limit N] [--sample N] ...\n"
            "(shido tsumego solve --help, shido tsumego bench --help: the options)\n");
    return help ? 0 : 2;
}
