/* bench/bwgraph.c -- whole-board timings of the BW Graph Model operators, in ns per call.
 *
 * Positions: random playouts on 19x19 stopped after 0, 120 and 240 moves and at the end of the
 * game (many small chains: the worst case for Pre_n and Suc_n, which correct Adj_n chain by chain).
 * Each operator runs over a ring of 64 different input sets so nothing is hoisted out of the
 * loop; the result is folded into a sink. Reported: the best of 5 repetitions.
 * Prediction (noted before the first run): set operations ~1-2 ns, Adj_n ~10-20 ns, Pre_n/Suc_n
 * 50-200 ns depending on the number of multi-stone chains.
 * Result (2026-11-22, shared 2-vCPU AMD EPYC VM, gcc 12.2 -O3, thread CPU time): union 3.8 ns,
 * complement 4.2, popcount 14, dilation 15, Adj_1 22, Adj_2..5 27; Pre_n and Suc_n 24-32 ns with
 * no chain of two stones, 36-81 ns at the end of a random game (3 chains), 89-160 ns at move 120
 * (24 chains), 148-298 ns at move 240 (42 chains): 4-6 ns per stored chain. H 32-241 ns, r_c
 * 60-264 ns, a move by the recurrences 563 ns against the board engine's 42 ns. Three fixes
 * got there: forcing the bitboard helpers inline (GCC left go_bb_neighbours out of line: Adj_1
 * 62 -> 53 ns), keeping the kernels scalar and passing sets by pointer (SSE stores of 8-byte
 * halves reloaded as 16-byte vectors stall store forwarding: 53 -> 22 ns), and an inline SWAR
 * popcount (without -mpopcnt, __builtin_popcountll is a libgcc call: count 22 -> 14 ns).
 *
 * Usage: bench_bwgraph [--iters N] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "go/bitboard.h"
#include "go/bwgraph.h"
#include "go/playout.h"

#define RING 64

/* Thread CPU time, not wall time: the development machine is shared, and time spent descheduled
 * would otherwise dominate nanosecond-scale loops. */
static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return 1e9 * (double)ts.tv_sec + (double)ts.tv_nsec;
}

static volatile uint64_t sink;

static void fold(go_bb r)
{
    uint64_t x = 0;
    for (int i = 0; i < GO_BB_WORDS; i++)
        x ^= r.w[i];
    sink ^= x;
}

typedef enum { OP_AND, OP_NOT, OP_COUNT, OP_DILATE, OP_ADJ, OP_PRE, OP_SUC, OP_ATARI, OP_LEGAL } op_kind;

static double time_op(const go_bw *g, const go_bb *ring, op_kind op, int n, long iters)
{
    double best = 1e30;
    for (int rep = 0; rep < 5; rep++) {
        double t0 = now_ns();
        for (long k = 0; k < iters; k++) {
            go_bb a = ring[k & (RING - 1)];
            go_bb r;
            switch (op) {
            case OP_AND: r = go_bb_and(a, ring[(k + 1) & (RING - 1)]); break;
            case OP_NOT: r = go_bb_not(a, g->all); break;
            case OP_COUNT: r = go_bb_single(go_bb_count(a)); break;
            case OP_DILATE: r = go_bb_dilate(a, g->all); break;
            case OP_ADJ: r = go_bw_adj(g, a, n); break;
            case OP_PRE: r = go_bw_pre(g, a, n); break;
            case OP_SUC: r = go_bw_suc(g, a, n); break;
            case OP_ATARI: r = go_bw_atari(g); r.w[0] ^= a.w[0]; break;
            default: r = go_bw_legal(g, (k & 1) ? GO_WHITE : GO_BLACK); r.w[0] ^= a.w[0]; break;
            }
            fold(r);
        }
        double ns = (now_ns() - t0) / (double)iters;
        if (ns < best)
            best = ns;
    }
    return best;
}

/* Model moves (legal set, then the recurrences) against the engine's, both replaying the same
 * game from a copy of the start position; ns per move. */
static void time_moves(const go_board *start, const int *moves, int num_moves, int reps)
{
    double best_model = 1e30, best_board = 1e30;
    for (int rep = 0; rep < reps; rep++) {
        go_bw g;
        double t0 = now_ns();
        go_bw_from_board(&g, start);
        for (int i = 0; i < num_moves; i++) {
            if (moves[i] == GO_PASS)
                continue;
            go_color c = (i & 1) ? GO_WHITE : GO_BLACK;
            go_bw_play(&g, go_bb_bit_of(moves[i]), c, NULL);
        }
        double t1 = now_ns();
        fold(g.b);
        go_board b = *start;
        for (int i = 0; i < num_moves; i++)
            go_board_play(&b, moves[i], (i & 1) ? GO_WHITE : GO_BLACK);
        double t2 = now_ns();
        sink ^= b.hash;
        if ((t1 - t0) / num_moves < best_model)
            best_model = (t1 - t0) / num_moves;
        if ((t2 - t1) / num_moves < best_board)
            best_board = (t2 - t1) / num_moves;
    }
    printf("move (recurrences a(i), d(i), b', w', F'): %.0f ns/move; board engine: %.0f ns/move\n",
           best_model, best_board);
}

int main(int argc, char **argv)
{
    long iters = 200000;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--iters") && i + 1 < argc) {
            iters = atol(argv[++i]);
        } else {
            fprintf(stderr, "usage: bench_bwgraph [--iters N]\n");
            return 2;
        }
    }
    if (iters < 1000) {
        fprintf(stderr, "bench_bwgraph: --iters must be at least 1000\n");
        return 2;
    }
    uint64_t rng = 0xfeedface12345678ull;
    static const int stops[4] = {0, 120, 240, 100000};
    printf("BW Graph Model operators on 19x19, ns per whole-board call (best of 5 x %ld)\n", iters);
    printf("%-10s %6s %6s %5s %5s %6s %6s %6s %6s %6s %6s %6s %6s %6s %6s %6s %6s %6s %6s %6s\n",
           "position", "stones", "chains", "and", "not", "count", "dilate", "Adj1", "Adj2", "Adj5",
           "Pre1", "Pre2", "Pre3", "Pre5", "Suc1", "Suc2", "Suc3", "Suc5", "H", "r_c");
    for (int s = 0; s < 4; s++) {
        go_board b;
        go_board_init(&b, 19);
        int passes = 0;
        for (int i = 0; i < stops[s] && i < 3 * 361 && passes < 2; i++) {
            int p = go_playout_pick(&b, &rng);
            passes = p == GO_PASS ? passes + 1 : 0;
            go_board_play(&b, p, b.to_move);
        }
        go_bw g;
        go_bw_from_board(&g, &b);
        go_bb ring[RING];
        for (int k = 0; k < RING; k++) {
            for (int i = 0; i < GO_BB_WORDS; i++)
                ring[k].w[i] = go_rand_next(&rng) & go_rand_next(&rng);
            ring[k] = go_bb_and(ring[k], g.all);
        }
        char name[16];
        snprintf(name, sizeof name, s == 3 ? "game end" : "move %d", stops[s]);
        printf("%-10s %6d %6d %5.1f %5.1f %6.1f %6.1f", name, 361 - b.num_empty, g.num_chains,
               time_op(&g, ring, OP_AND, 0, iters), time_op(&g, ring, OP_NOT, 0, iters),
               time_op(&g, ring, OP_COUNT, 0, iters), time_op(&g, ring, OP_DILATE, 0, iters));
        static const int adj_n[3] = {1, 2, 5}, pre_n[4] = {1, 2, 3, 5};
        for (int k = 0; k < 3; k++)
            printf(" %6.1f", time_op(&g, ring, OP_ADJ, adj_n[k], iters));
        for (int k = 0; k < 4; k++)
            printf(" %6.1f", time_op(&g, ring, OP_PRE, pre_n[k], iters));
        for (int k = 0; k < 4; k++)
            printf(" %6.1f", time_op(&g, ring, OP_SUC, pre_n[k], iters));
        printf(" %6.1f %6.1f\n", time_op(&g, ring, OP_ATARI, 0, iters),
               time_op(&g, ring, OP_LEGAL, 0, iters));
    }
    /* A whole random game replayed move by move. */
    go_board start, b;
    go_board_init(&start, 19);
    b = start;
    int moves[3 * 361], num_moves = 0, passes = 0;
    while (num_moves < 3 * 361 && passes < 2) {
        int p = go_playout_pick(&b, &rng);
        passes = p == GO_PASS ? passes + 1 : 0;
        go_board_play(&b, p, b.to_move);
        moves[num_moves++] = p;
    }
    printf("random 19x19 game of %d moves: ", num_moves);
    time_moves(&start, moves, num_moves, 20);
    return 0;
}
