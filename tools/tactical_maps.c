/* tools/tactical_maps.c -- `shido tactical-maps`: seed 004's experiment on a game record.
 *
 * For each position before a move of the main line: draw random maps of depth <= d (d = 2, 3, ...
 * max depth), keep those whose set contains the move, and intersect them. The
 * move is isolated when the intersection is exactly the move's orbit under the board symmetries
 * that leave the position unchanged (tactical maps have no directions, so they cannot tell those
 * points apart: 8 points for a first move off the diagonals). The position's minimum depth is the
 * first d at which that happens; maps accepted at smaller depths count at larger ones too, since
 * every map of depth <= d - 1 is also one of depth <= d. --tries is the budget per position, like
 * the paper's 400,000, shared equally among the depths.
 *
 * Samplers: "grow" (the default: every node picks one of the 40 operators uniformly) and
 * "uniform" (uniform over all maps of depth <= d). Uniform maps of depth >= 4 are nearly all
 * complete binary trees of unions and differences whose sets rarely shrink the intersection;
 * with 400,000 tries they isolate only 2 moves at depths 4..6 against the paper's 37, while
 * grown maps give 20, 7, 2 and leave unresolved exactly six of the paper's eight positions
 * (2, 3, 9, 11, 17, 32), with 6 and 4 candidates left in positions 2 and 3 as the paper says:
 * evidence that the paper grew its maps this way. On meijin31-title-game2.sgf the grown table
 * (depth 2..6, >= 7: 60 115 20 7 2 6) is the same with 4e5, 4e6, 3e7 and 9e7 tries per position
 * (9e7: 418 s on two shared cores).
 *
 * Positions are independent: worker threads take them from a shared counter, and the main thread
 * draws a progress bar on stderr.
 *
 * `shido tactical-maps characterise FILE.sgf...` mines the maps that best characterise the moves
 * of a collection (go/tacmap_mine.h defines the measures and the score). */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "go/bwgraph.h"
#include "go/sgf.h"
#include "go/tacmap.h"
#include "go/tacmap_mine.h"
#include "tools/args.h"
#include "tools/analysis_cmds.h"
#include "tools/positions.h"
#include "tools/progress.h"
#include "go/clock.h"

#define MAX_REDUCERS 48      /* maps that shrank the intersection, kept for --verbose */
#define MAP_TEXT 1024

static const int paper_table[6] = {23, 142, 29, 7, 1, 8}; /* depth 2..6, >= 7 */

typedef struct job {
    const go_board *board;
    int move;                /* board point */
    int number;              /* 1 = the empty board before the first move */
    go_color color;
    /* results */
    int min_depth;           /* max_depth + 1 when not isolated */
    int orbit;               /* points the move cannot be told from */
    int left;                /* points of the final intersection */
    long tries, accepted;
    int num_reducers;
    go_bb reducer_set[MAX_REDUCERS];
    char reducer_text[MAX_REDUCERS][MAP_TEXT];
    bool broken;             /* the intersection lost part of the orbit: a bug, reported */
} job;

typedef struct shared {
    job *jobs;
    int num_jobs;
    int max_depth;
    long tries;
    uint64_t seed;
    bool verbose;
    bool grow;               /* go_tm_random_grow instead of uniform maps */
    atomic_int next;
    atomic_int done;
} shared;

/* The images of (x, y) under the 8 symmetries of the square. */
static void transform(int t, int size, int x, int y, int *ox, int *oy)
{
    int a = (t & 1) ? size - 1 - x : x, b = (t & 2) ? size - 1 - y : y;
    *ox = (t & 4) ? b : a;
    *oy = (t & 4) ? a : b;
}

/* The move's orbit under the symmetries that map the position onto itself. */
static go_bb orbit_of(const go_board *b, int move)
{
    go_bb orbit = go_bb_none();
    for (int t = 0; t < 8; t++) {
        bool same = true;
        for (int y = 0; y < b->size && same; y++)
            for (int x = 0; x < b->size && same; x++) {
                int tx, ty;
                transform(t, b->size, x, y, &tx, &ty);
                same = b->color[go_point_at(x, y)] == b->color[go_point_at(tx, ty)];
            }
        if (same) {
            int tx, ty;
            transform(t, b->size, go_point_x(move), go_point_y(move), &tx, &ty);
            go_bb_set(&orbit, go_bb_bit_at(tx, ty));
        }
    }
    return orbit;
}

/* Drops reducers that the others make redundant, so --verbose shows a short intersection. */
static void minimise_reducers(job *j, go_bb target, go_bb all)
{
    for (int k = j->num_reducers - 1; k >= 0; k--) {
        go_bb rest = all;
        for (int i = 0; i < j->num_reducers; i++)
            if (i != k)
                rest = go_bb_and(rest, j->reducer_set[i]);
        if (go_bb_eq(rest, target)) {
            for (int i = k; i + 1 < j->num_reducers; i++) {
                j->reducer_set[i] = j->reducer_set[i + 1];
                memcpy(j->reducer_text[i], j->reducer_text[i + 1], MAP_TEXT);
            }
            j->num_reducers--;
        }
    }
}

static void run_job(const shared *sh, job *j)
{
    static _Thread_local go_bw g;
    static _Thread_local go_tmap map;
    go_bw_from_board(&g, j->board);
    go_tm_leaves leaves;
    go_tm_leaves_init(&leaves, &g);
    go_bb target = orbit_of(j->board, j->move);
    int bit = go_bb_bit_of(j->move);
    uint64_t rng = (sh->seed ^ (0x9e3779b97f4a7c15ull * (uint64_t)(j->number + 1))) | 1;
    long per_depth = sh->tries / (sh->max_depth - 1);
    go_bb inter = g.all;
    j->orbit = go_bb_count(target);
    j->min_depth = sh->max_depth + 1;
    for (int d = 2; d <= sh->max_depth && j->min_depth > sh->max_depth; d++) {
        for (long t = 0; t < per_depth; t++) {
            if (sh->grow)
                go_tm_random_grow(&map, d, &rng);
            else
                go_tm_random(&map, d, &rng);
            go_bb s = go_tm_eval(&map, &g, &leaves);
            j->tries++;
            if (!go_bb_test(s, bit))
                continue;
            j->accepted++;
            go_bb next = go_bb_and(inter, s);
            if (go_bb_eq(next, inter))
                continue;
            inter = next;
            if (sh->verbose && j->num_reducers < MAX_REDUCERS) {
                /* Printed as one operand of '&': a top-level '|' or '-' needs parentheses. */
                int root = map.node[map.num_nodes - 1].op;
                bool paren = root == GO_TM_UNION || root == GO_TM_DIFF;
                char *text = j->reducer_text[j->num_reducers];
                text[0] = '(';
                if (go_tm_print(&map, text + paren, MAP_TEXT - 2) >= 0 && paren)
                    strcat(text, ")");
                j->reducer_set[j->num_reducers] = s;
                j->num_reducers++;
            }
            if (go_bb_eq(inter, target)) {
                j->min_depth = d;
                break;
            }
        }
    }
    j->left = go_bb_count(inter);
    j->broken = !go_bb_subset(target, inter);
    if (sh->verbose && j->min_depth <= sh->max_depth && j->num_reducers < MAX_REDUCERS)
        minimise_reducers(j, target, g.all);
}

static void *worker(void *arg)
{
    shared *sh = arg;
    for (;;) {
        int k = atomic_fetch_add(&sh->next, 1);
        if (k >= sh->num_jobs)
            return NULL;
        run_job(sh, &sh->jobs[k]);
        atomic_fetch_add(&sh->done, 1);
    }
}

static void usage(FILE *f)
{
    fprintf(f, "usage: shido tactical-maps GAME.sgf [--max-depth D] [--tries N] [--threads T]\n"
               "                            [--sampler grow|uniform] [--seed S] [--verbose]\n"
               "  --max-depth  deepest maps tried, 2..%d (default 6, as in the paper)\n"
               "  --tries      random maps per position, shared among the depths (default 400000)\n"
               "  --threads    worker threads (default: one per online CPU)\n"
               "  --sampler    grow: each node picks one of the 40 operators (default);\n"
               "               uniform: uniform over all maps of the depth\n"
               "  --seed       random seed (default 1)\n"
               "  --verbose    per position: the depth, the points left and a short intersection\n"
               "               of maps that isolates the move\n"
               "   or: shido tactical-maps characterise FILE.sgf... [options] (--help for them)\n",
            GO_TM_MAX_RANDOM_DEPTH);
}

static int characterise(int argc, char **argv);

int shido_cmd_tactical_maps(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "characterise"))
        return characterise(argc - 1, argv + 1);
    const char *path = NULL;
    long max_depth = 6, tries = 400000, threads = sysconf(_SC_NPROCESSORS_ONLN), seed = 1;
    bool verbose = false, grow = true;
    if (threads < 1)
        threads = 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        bool ok = true;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "--verbose")) {
            verbose = true;
        } else if (!strcmp(a, "--sampler") && i + 1 < argc) {
            i++;
            ok = !strcmp(argv[i], "uniform") || !strcmp(argv[i], "grow");
            grow = !strcmp(argv[i], "grow");
        } else if (!strcmp(a, "--max-depth") && i + 1 < argc) {
            ok = tools_parse_long(argv[++i], 2, GO_TM_MAX_RANDOM_DEPTH, &max_depth);
        } else if (!strcmp(a, "--tries") && i + 1 < argc) {
            ok = tools_parse_long(argv[++i], 1, 1000000000L, &tries);
        } else if (!strcmp(a, "--threads") && i + 1 < argc) {
            ok = tools_parse_long(argv[++i], 1, 1024, &threads);
        } else if (!strcmp(a, "--seed") && i + 1 < argc) {
            ok = tools_parse_long(argv[++i], 0, 0x7fffffffL, &seed);
        } else if (a[0] == '-' || path) {
            fprintf(stderr, "shido tactical-maps: unexpected argument '%s'\n", a);
            usage(stderr);
            return 2;
        } else {
            path = a;
        }
        if (!ok) {
            fprintf(stderr, "shido tactical-maps: bad value '%s' for %s\n", argv[i], a);
            return 2;
        }
    }
    if (!path) {
        usage(stderr);
        return 2;
    }
    if (tries < max_depth - 1) {
        fprintf(stderr, "shido tactical-maps: --tries must be at least %ld (one per depth)\n",
                max_depth - 1);
        return 2;
    }
    char err[512];
    go_sgf_collection *col = go_sgf_read_file(path, err, sizeof err);
    if (!col) {
        fprintf(stderr, "shido tactical-maps: %s\n", err);
        return 1;
    }
    go_game game;
    if (col->num_games < 1)
        snprintf(err, sizeof err, "no game in the file");
    bool loaded =
        col->num_games > 0 && positions_square_game(col->games[0], -1, &game, err, sizeof err);
    go_sgf_free(col);
    if (!loaded) {
        fprintf(stderr, "shido tactical-maps: %s: %s\n", path, err);
        return 1;
    }
    shared sh = {NULL, 0, (int)max_depth, tries, (uint64_t)seed, verbose, grow, 0, 0};
    sh.jobs = calloc((size_t)game.num_moves + 1, sizeof *sh.jobs);
    if (!sh.jobs) {
        fprintf(stderr, "shido tactical-maps: out of memory\n");
        go_game_free(&game);
        return 1;
    }
    for (int i = 0; i < game.num_moves; i++) {
        if (game.moves[i].point == GO_PASS)
            continue;
        job *j = &sh.jobs[sh.num_jobs++];
        j->board = &game.before[i];
        j->move = game.moves[i].point;
        j->color = game.moves[i].color;
        j->number = i + 1;
    }
    if (threads > sh.num_jobs && sh.num_jobs > 0)
        threads = sh.num_jobs;
    double t0 = go_now_s();
    pthread_t *tid = calloc((size_t)threads, sizeof *tid);
    int started = 0;
    for (long k = 0; tid && k < threads; k++)
        started += pthread_create(&tid[k], NULL, worker, &sh) == 0;
    if (started == 0) {
        fprintf(stderr, "shido tactical-maps: cannot start worker threads\n");
        free(tid);
        free(sh.jobs);
        go_game_free(&game);
        return 1;
    }
    progress bar;
    progress_start(&bar, sh.num_jobs, "positions", 1);
    while (atomic_load(&sh.done) < sh.num_jobs) {
        progress_update(&bar, atomic_load(&sh.done));
        nanosleep(&(struct timespec){0, 250000000L}, NULL);
    }
    for (int k = 0; k < started; k++)
        pthread_join(tid[k], NULL);
    double elapsed = go_now_s() - t0;
    progress_end(&bar, sh.num_jobs);
    free(tid);

    int table[GO_TM_MAX_RANDOM_DEPTH + 2] = {0};
    long total_tries = 0, broken = 0;
    for (int k = 0; k < sh.num_jobs; k++) {
        job *j = &sh.jobs[k];
        table[j->min_depth]++;
        total_tries += j->tries;
        broken += j->broken;
        if (verbose) {
            char v[8];
            go_point_to_gtp(j->board->size, j->move, v);
            printf("position %3d (%s %s): ", j->number, j->color == GO_BLACK ? "B" : "W", v);
            if (j->min_depth <= max_depth)
                printf("depth %d, orbit %d, %d maps:", j->min_depth, j->orbit, j->num_reducers);
            else
                printf("not isolated by depth %ld, %d points left (orbit %d)", max_depth, j->left,
                       j->orbit);
            for (int r = 0; j->min_depth <= max_depth && r < j->num_reducers; r++)
                printf("%s %s", r ? " &" : "", j->reducer_text[r]);
            printf("\n");
        }
    }
    printf("tactical maps: %s, %d positions, depth <= %ld, %s maps, %ld tries per position "
           "(%ld per depth), %ld threads, seed %ld\n",
           path, sh.num_jobs, max_depth, grow ? "grown" : "uniform", tries,
           tries / (max_depth - 1), (long)started, seed);
    printf("%-14s", "minimum depth");
    for (int d = 2; d <= max_depth; d++)
        printf(" %5d", d);
    printf("   >=%ld\n%-14s", max_depth + 1, "shido");
    for (int d = 2; d <= max_depth + 1; d++)
        printf(" %5d", table[d]);
    printf("\n");
    if (max_depth == 6) {
        printf("%-14s", "paper");
        for (int d = 0; d < 6; d++)
            printf(" %5d", paper_table[d]);
        printf("\n");
    }
    printf("not isolated:");
    for (int k = 0; k < sh.num_jobs; k++)
        if (sh.jobs[k].min_depth > max_depth)
            printf(" %d (%d left, orbit %d)", sh.jobs[k].number, sh.jobs[k].left,
                   sh.jobs[k].orbit);
    printf("\ntime: %.1f s, %.2f M maps evaluated (%.2f us per map per thread)\n", elapsed,
           (double)total_tries / 1e6, total_tries ? elapsed * (double)started * 1e6 / (double)total_tries : 0);
    if (broken)
        fprintf(stderr, "shido tactical-maps: internal error: %ld positions lost a symmetric "
                        "point of the move\n", broken);
    free(sh.jobs);
    go_game_free(&game);
    return broken ? 1 : 0;
}

/* ---- characterise ---- */

static void usage_characterise(FILE *f)
{
    fprintf(f, "usage: shido tactical-maps characterise FILE.sgf... [--moves all|black|white]\n"
               "           [--max-depth D] [--tries N] [--top K] [--threads T] [--seed S]\n"
               "           [--refine R] [--max-overlap F]\n"
               "Finds short tactical maps that contain the moves played in as many positions as\n"
               "possible while selecting few legal moves. Positions are seen from the mover's side:\n"
               "b/black are the mover's points, w/white the opponent's.\n"
               "  --moves      which moves of the games' main lines (default all)\n"
               "  --max-depth  deepest maps, 1..%d (default 4)\n"
               "  --tries      random maps besides the %ld enumerated ones (default 200000)\n"
               "  --top        maps reported (default 10)\n"
               "  --threads    worker threads (default: one per online CPU)\n"
               "  --seed       random seed (default 1)\n"
               "  --refine     intersect every pair of the best R distinct maps (default 200, 0 = off)\n"
               "  --max-overlap  skip maps whose sets overlap a better one's by more than this\n"
               "               (mean Jaccard index over the positions; default 0.7, 1 = off)\n"
               "score: bits per move the map saves against a uniformly random legal move (the\n"
               "log-likelihood ratio of go/tacmap_mine.h); coverage: moves inside the map's set;\n"
               "set: mean legal points selected; lift: coverage / (mean set / legal moves).\n",
            GO_TM_MAX_RANDOM_DEPTH, 9600L);
}

/* The miner's progress on the bar (its total known from the first call). */
static void progress_mine(long done, long total, void *ctx)
{
    progress *bar = ctx;
    bar->total = total < INT_MAX ? (int)total : INT_MAX;
    progress_update(bar, done < INT_MAX ? (int)done : INT_MAX);
}

/* Adds the main-line moves of every game of path; returns the games read or -1. */
static int add_games(go_tm_mine_set *set, const char *path, int which, char *err, int err_len)
{
    go_sgf_collection *col = go_sgf_read_file(path, err, err_len);
    if (!col)
        return -1;
    if (col->num_games < 1) {
        snprintf(err, (size_t)err_len, "%s: no game in the file", path);
        go_sgf_free(col);
        return -1;
    }
    int games = 0;
    for (int gi = 0; gi < col->num_games; gi++) {
        go_game game;
        char why[256];
        bool loaded = positions_square_game(col->games[gi], -1, &game, why, sizeof why);
        bool ok = loaded;
        for (int i = 0; ok && i < game.num_moves; i++) {
            const go_move *mv = &game.moves[i];
            if (mv->point == GO_PASS || (which && (int)mv->color != which))
                continue;
            ok = go_tm_mine_set_add(set, &game.before[i], mv->point, mv->color, why, sizeof why);
            if (!ok)
                snprintf(err, (size_t)err_len, "%s: game %d, move %d: %s", path, gi + 1, i + 1, why);
        }
        if (loaded)
            go_game_free(&game);
        else
            snprintf(err, (size_t)err_len, "%s: game %d: %s", path, gi + 1, why);
        if (!ok) {
            go_sgf_free(col);
            return -1;
        }
        games++;
    }
    go_sgf_free(col);
    return games;
}

static int characterise(int argc, char **argv)
{
    const char *name = "shido tactical-maps characterise";
    long max_depth = 4, tries = 200000, top = 10, refine = 200, seed = 1;
    double max_overlap = 0.7;
    long threads = sysconf(_SC_NPROCESSORS_ONLN);
    int which = 0, num_files = 0;
    if (threads < 1)
        threads = 1;
    const char **files = calloc((size_t)argc, sizeof *files);
    if (!files) {
        fprintf(stderr, "%s: out of memory\n", name);
        return 1;
    }
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        bool ok = true;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage_characterise(stdout);
            free(files);
            return 0;
        } else if (!strcmp(a, "--moves") && i + 1 < argc) {
            i++;
            ok = !strcmp(argv[i], "all") || !strcmp(argv[i], "black") || !strcmp(argv[i], "white");
            which = !strcmp(argv[i], "black") ? GO_BLACK : !strcmp(argv[i], "white") ? GO_WHITE : 0;
        } else if (!strcmp(a, "--max-depth") && i + 1 < argc) {
            ok = tools_parse_long(argv[++i], 1, GO_TM_MAX_RANDOM_DEPTH, &max_depth);
        } else if (!strcmp(a, "--tries") && i + 1 < argc) {
            ok = tools_parse_long(argv[++i], 0, 1000000000L, &tries);
        } else if (!strcmp(a, "--top") && i + 1 < argc) {
            ok = tools_parse_long(argv[++i], 1, 1000, &top);
        } else if (!strcmp(a, "--refine") && i + 1 < argc) {
            ok = tools_parse_long(argv[++i], 0, 1000, &refine);
        } else if (!strcmp(a, "--threads") && i + 1 < argc) {
            ok = tools_parse_long(argv[++i], 1, 1024, &threads);
        } else if (!strcmp(a, "--seed") && i + 1 < argc) {
            ok = tools_parse_long(argv[++i], 0, 0x7fffffffL, &seed);
        } else if (!strcmp(a, "--max-overlap") && i + 1 < argc) {
            char *end;
            max_overlap = strtod(argv[++i], &end);
            ok = end != argv[i] && !*end && max_overlap >= 0 && max_overlap <= 1;
        } else if (a[0] == '-') {
            fprintf(stderr, "%s: unexpected argument '%s'\n", name, a);
            usage_characterise(stderr);
            free(files);
            return 2;
        } else {
            files[num_files++] = a;
        }
        if (!ok) {
            fprintf(stderr, "%s: bad value '%s' for %s\n", name, argv[i], a);
            free(files);
            return 2;
        }
    }
    if (num_files == 0) {
        usage_characterise(stderr);
        free(files);
        return 2;
    }
    char err[512];
    go_tm_mine_set *set = go_tm_mine_set_new();
    go_tm_mined *best = calloc((size_t)top, sizeof *best);
    int games = 0, status = 1;
    for (int f = 0; set && best && f < num_files; f++) {
        int g = add_games(set, files[f], which, err, sizeof err);
        if (g < 0) {
            fprintf(stderr, "%s: %s\n", name, err);
            goto done;
        }
        games += g;
    }
    if (!set || !best) {
        fprintf(stderr, "%s: out of memory\n", name);
        goto done;
    }
    go_tm_mine_params p = go_tm_mine_defaults();
    p.max_depth = (int)max_depth;
    p.tries = tries;
    p.refine = (int)refine;
    p.max_overlap = max_overlap;
    p.threads = (int)threads;
    p.seed = (uint64_t)seed;
    progress bar;
    progress_start(&bar, 0, "maps", -1);
    p.progress = bar.out ? progress_mine : NULL;
    p.progress_ctx = &bar;
    go_tm_mine_info info;
    int n = go_tm_mine_run(set, &p, best, (int)top, &info, err, sizeof err);
    if (p.progress)
        progress_end(&bar, bar.total);
    if (n < 0) {
        fprintf(stderr, "%s: %s\n", name, err);
        goto done;
    }
    printf("characterise: %d moves (%s) from %d game%s in %d file%s; maps of depth <= %ld, "
           "%ld maps evaluated, %ld distinct with score > 0, %.1f s on %ld threads, seed %ld\n",
           go_tm_mine_set_count(set), which == GO_BLACK ? "black" : which == GO_WHITE ? "white" : "all",
           games, games == 1 ? "" : "s", num_files, num_files == 1 ? "" : "s", max_depth,
           info.evaluated, info.distinct, info.seconds, threads, seed);
    printf("positions are seen from the mover's side: b/black = the mover's points, "
           "w/white = the opponent's\n");
    printf("%4s %6s %5s %8s %6s %6s %5s  %s\n", "rank", "score", "depth", "coverage", "set",
           "legal", "lift", "map");
    bool used[GO_TM_OP_COUNT] = {false};
    for (int i = 0; i < n; i++) {
        char text[2048], words[4096];
        const go_tm_mine_stats *st = &best[i].stats;
        go_tm_print(&best[i].map, text, sizeof text);
        go_tm_mine_gloss(&best[i].map, words, sizeof words);
        printf("%4d %6.3f %5d %7.1f%% %6.1f %6.1f %5.2f  %s\n", i + 1, st->score_bits,
               best[i].depth, 100 * st->coverage, st->mean_selected, st->mean_legal, st->lift,
               text);
        printf("%38s reads: %s\n", "", words);
        for (int k = 0; k < best[i].map.num_nodes; k++)
            used[best[i].map.node[k].op] = true;
    }
    if (n == 0)
        printf("no map selects the moves more often than chance\n");
    printf("legend (score in bits per move; coverage = moves inside the set; set = legal points "
           "selected; lift = coverage / (set / legal)):\n");
    for (int op = 0; op < GO_TM_OP_COUNT; op++)
        if (used[op])
            printf("  %s\n", go_tm_mine_op_legend(op));
    status = 0;
done:
    go_tm_mine_set_free(set);
    free(best);
    free(files);
    return status;
}
