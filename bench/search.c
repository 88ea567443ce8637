/* bench/search.c -- PUCT search speed: visits per second and search overhead (the share of the
 * search threads' time spent outside nn_eval) on the 19x19 empty board and a midgame position.
 *
 * Usage: bench_search [-w PATH] [--backend NAME] [--visits N] [--threads T] [--batch B]
 *                     [--repeat R] [--set NAME=VALUE]...
 * (the spellings of `shido`'s shared options; --net and --param are read too)
 * Defaults: the shared g170 b6c96 net, backend "cpu", 1000 visits, 2 threads, batch 8, 1 repeat.
 * Each run starts from an empty tree and an empty cache, so every visit is a network
 * evaluation (or a counted final position).
 *
 * Targets (issue 4): >= 214 visits/s (KataGo's Eigen backend on this machine), stretch 1.5x;
 * overhead < 10%. Numbers and their load conditions go to bench/RESULTS.md.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "go/game.h"
#include "mcts/mcts.h"
#include "nn/nn.h"

/* An opening of 40 moves, alternating from black (a plausible pro-like sequence). */
static const char *const midgame[] = {
    "Q16", "D4",  "Q3",  "D16", "R5",  "C14", "F17", "C17", "K4",  "F3",  "O17", "R14", "Q13",
    "R17", "R16", "Q17", "P16", "P17", "O16", "S16", "S15", "S17", "R13", "C6",  "E6",  "C9",
    "J16", "L17", "C3",  "D3",  "C4",  "D5",  "B5",  "C7",  "H3",  "K17", "G5",  "M16", "N4",
    "Q10",
};

static bool setup(go_game *g, bool mid)
{
    go_rules r;
    go_rules_preset(&r, "chinese");
    if (!go_game_init(g, 19, &r, 7.5f))
        return false;
    if (!mid)
        return true;
    for (size_t i = 0; i < sizeof midgame / sizeof midgame[0]; i++) {
        int p = go_point_from_gtp(19, midgame[i]);
        go_color c = i % 2 ? GO_WHITE : GO_BLACK;
        if (p <= 0 || go_game_play(g, p, c) != GO_MOVE_OK) {
            fprintf(stderr, "bench_search: midgame move %zu (%s) refused\n", i, midgame[i]);
            return false;
        }
    }
    return true;
}

/* The shared g170 net, found from this file's path (bench/ sits next to ../shared). */
static const char *default_net(char *buf, size_t len)
{
    const char *here = __FILE__, *tail = strstr(here, "bench/search.c");
    int dir_len = tail ? (int)(tail - here) : 0;
    snprintf(buf, len, "%.*s../shared/weights/g170-b6c96-s175395328-d26788732.bin.gz", dir_len,
             here);
    return buf;
}

int main(int argc, char **argv)
{
    char net_buf[4096];
    const char *net = default_net(net_buf, sizeof net_buf), *backend = "cpu";
    int64_t visits = 1000;
    int threads = 2, batch = 8, repeat = 1;
    char err[512];
    mcts_params p = mcts_params_default();
    for (int i = 1; i < argc; i += 2) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v) {
            fprintf(stderr, "bench_search: %s needs a value\n", a);
            return 2;
        }
        if (!strcmp(a, "-w") || !strcmp(a, "--weights") || !strcmp(a, "--net")) net = v;
        else if (!strcmp(a, "--backend")) backend = v;
        else if (!strcmp(a, "--visits")) visits = strtoll(v, NULL, 10);
        else if (!strcmp(a, "--threads")) threads = atoi(v);
        else if (!strcmp(a, "--batch")) batch = atoi(v);
        else if (!strcmp(a, "--repeat")) repeat = atoi(v);
        else if (!strcmp(a, "--set") || !strcmp(a, "--param")) {
            char name[128];
            const char *eq = strchr(v, '=');
            if (!eq || eq - v >= (int)sizeof name) {
                fprintf(stderr, "bench_search: --set wants NAME=VALUE, got %s\n", v);
                return 2;
            }
            snprintf(name, sizeof name, "%.*s", (int)(eq - v), v);
            if (!mcts_params_set(&p, name, eq + 1, err, sizeof err)) {
                fprintf(stderr, "bench_search: %s\n", err);
                return 2;
            }
        } else {
            fprintf(stderr, "bench_search: unknown option %s\n", a);
            return 2;
        }
    }
    nn_model *m = nn_model_load(net, backend, err, sizeof err);
    if (!m) {
        fprintf(stderr, "bench_search: %s\n", err);
        return 1;
    }
    p.num_threads = threads;
    p.batch_size = batch;
    p.max_visits = visits;
    p.seed = 1;
    mcts_search *s = mcts_new(m, &p, err, sizeof err);
    if (!s) {
        fprintf(stderr, "bench_search: %s\n", err);
        nn_model_free(m);
        return 1;
    }
    printf("net %s, backend %s, %d threads, batch %d, %" PRId64 " visits\n", net,
           nn_model_backend(m), threads, batch, visits);
    printf("%-8s %8s %8s %10s %9s %9s %10s %10s %8s\n", "position", "visits", "time_s",
           "visits/s", "nn_evals", "batches", "collisions", "overhead%", "tree_MB");
    int rc = 0;
    for (int mid = 0; mid <= 1 && rc == 0; mid++)
        for (int r = 0; r < repeat && rc == 0; r++) {
            go_game g;
            if (!setup(&g, mid)) {
                rc = 1;
                break;
            }
            mcts_clear_tree(s);
            mcts_clear_cache(s);
            mcts_set_position(s, &g);
            mcts_stats before, after;
            mcts_get_stats(s, &before);
            if (!mcts_run(s, NULL, NULL, NULL, err, sizeof err)) {
                fprintf(stderr, "bench_search: %s\n", err);
                rc = 1;
            }
            mcts_get_stats(s, &after);
            mcts_analysis a = {0};
            mcts_analysis_get(s, NULL, &a);
            /* time outside nn_eval, over all search threads' time */
            double thread_s = after.run_s * threads;
            double overhead = thread_s > 0 ? 100.0 * (thread_s - after.nn_s) / thread_s : 0;
            printf("%-8s %8" PRId64 " %8.2f %10.1f %9" PRId64 " %9" PRId64 " %10" PRId64
                   " %10.1f %8.1f\n",
                   mid ? "midgame" : "empty", a.root_visits, after.run_s,
                   after.run_s > 0 ? (double)a.root_visits / after.run_s : 0,
                   after.nn_evals - before.nn_evals, after.nn_batches - before.nn_batches,
                   after.collisions - before.collisions, overhead, after.tree_mb);
            mcts_analysis_free(&a);
            go_game_free(&g);
        }
    mcts_free(s);
    nn_model_free(m);
    return rc;
}
