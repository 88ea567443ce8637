/* go/playout.c -- uniform random playouts. */
#include "go/playout.h"

uint64_t go_rand_next(uint64_t *state)
{
    uint64_t x = *state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *state = x;
    return x * 0x2545F4914F6CDD1Dull;
}

int go_playout_pick(const go_board *b, uint64_t *rng)
{
    int n = b->num_empty;
    if (n == 0)
        return GO_PASS;
    go_color c = b->to_move;
    /* Scanning cyclically from a random start tries each candidate at most once, so a position
     * with few legal moves costs one pass over the empty list. */
    int start = (int)((go_rand_next(rng) >> 32) % (uint64_t)n);
    for (int i = 0; i < n; i++) {
        int k = start + i;
        if (k >= n)
            k -= n;
        int p = b->empty[k];
        if (!go_board_is_eye(b, p, c) && go_board_is_legal(b, p, c, false))
            return p;
    }
    return GO_PASS;
}

int go_playout_run(go_board *b, uint64_t *rng, int max_moves)
{
    int played = 0, passes = 0;
    for (int i = 0; i < max_moves && passes < 2; i++) {
        int p = go_playout_pick(b, rng);
        go_board_play(b, p, b->to_move);
        if (p == GO_PASS) {
            passes++;
        } else {
            passes = 0;
            played++;
        }
    }
    return played;
}
