/* tools/bench.c -- `shido bench ...`: benchmarks that print measured numbers. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "go/playout.h"
#include "tools/bench_nn.h"
#include "tools/commands.h"
#include "go/clock.h"

/* Random legal playouts on one core: moves/s including legality, capture and ko handling. */
static int bench_board(int argc, char **argv)
{
    int size = 19;
    double seconds = 3.0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            printf("usage: shido bench board [--size N] [--seconds S]\n"
                   "Random legal playouts on one core (19x19 unless --size, 3 s unless "
                   "--seconds): moves per second\n");
            return 0;
        }
        if (!strcmp(argv[i], "--size") && i + 1 < argc)
            size = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--seconds") && i + 1 < argc)
            seconds = atof(argv[++i]);
        else {
            fprintf(stderr, "shido bench board: unknown option '%s'\n", argv[i]);
            return 2;
        }
    }
    go_board start;
    if (!go_board_init(&start, size)) {
        fprintf(stderr, "shido bench board: board size must be %d..%d\n", GO_MIN_SIZE,
                GO_MAX_SIZE);
        return 2;
    }
    if (!(seconds > 0 && seconds < 3600)) {
        fprintf(stderr, "shido bench board: --seconds must be in (0, 3600)\n");
        return 2;
    }
    uint64_t rng = 0x9E3779B97F4A7C15ull;
    long long moves = 0, games = 0;
    double t0 = go_now_s(), t;
    do {
        for (int i = 0; i < 64; i++) {
            go_board b = start;
            moves += go_playout_run(&b, &rng, 3 * size * size);
            games++;
        }
        t = go_now_s() - t0;
    } while (t < seconds);
    printf("board %dx%d: %lld random playouts, %lld moves in %.2f s: %.2f M moves/s, "
           "%.0f playouts/s (one core)\n",
           size, size, games, moves, t, (double)moves / t / 1e6, (double)games / t);
    return 0;
}

static void bench_usage(FILE *f)
{
    fprintf(f, "usage: shido bench board [--size N] [--seconds S]\n"
               "       shido bench nn [-w FILE]... [--backend NAME[:OPTIONS]] [--batch 1,8,16] "
               "[--threads T] [--seconds S] ...\n"
               "       shido bench train [--batch 8,32,128] [--threads T] [--seconds S] ...\n"
               "       shido bench analysis --sgf FILE [--games N] [--turns T] [--visits V] -- "
               "COMMAND...\n"
               "(shido bench board|nn|train|analysis --help: the options)\n");
}

int shido_cmd_bench(int argc, char **argv)
{
    if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        bench_usage(stdout);
        return 0;
    }
    if (argc < 2) {
        bench_usage(stderr);
        return 2;
    }
    if (!strcmp(argv[1], "board"))
        return bench_board(argc - 1, argv + 1);
    if (!strcmp(argv[1], "nn"))
        return shido_bench_nn(argc - 1, argv + 1);
    if (!strcmp(argv[1], "train"))
        return shido_bench_train(argc - 1, argv + 1);
    if (!strcmp(argv[1], "analysis"))
        return shido_bench_analysis(argc - 1, argv + 1);
    fprintf(stderr, "shido bench: unknown benchmark '%s'\n", argv[1]);
    return 2;
}
