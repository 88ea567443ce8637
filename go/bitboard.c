/* go/bitboard.c -- the parts of the point-set type that are not worth inlining. */
#include "go/bitboard.h"

go_bb go_bb_board(int size)
{
    go_bb r = go_bb_none();
    if (size < GO_MIN_SIZE || size > GO_MAX_SIZE)
        return r;
    /* One row at a time; a row may straddle two words. */
    uint64_t row = ((uint64_t)1 << size) - 1;
    for (int y = 0; y < size; y++) {
        int bit = go_bb_bit_at(0, y);
        r.w[bit >> 6] |= row << (bit & 63);
        if ((bit & 63) + size > 64)
            r.w[(bit >> 6) + 1] |= row >> (64 - (bit & 63));
    }
    return r;
}

go_bb go_bb_of_color(const go_board *b, go_color c)
{
    go_bb r = go_bb_none();
    for (int y = 0; y < b->height; y++)
        for (int x = 0; x < b->width; x++)
            if (b->color[go_point_at(x, y)] == c)
                go_bb_set(&r, go_bb_bit_at(x, y));
    return r;
}

go_bb go_bb_flood(go_bb within, int seed, go_bb all)
{
    within = go_bb_and(within, all);
    if (seed < 0 || seed >= GO_BB_BITS || !go_bb_test(within, seed))
        return go_bb_none();
    go_bb r = go_bb_single(seed);
    for (;;) {
        go_bb grown = go_bb_and(go_bb_dilate(r, all), within);
        if (go_bb_eq(grown, r))
            return r;
        r = grown;
    }
}

int go_bb_to_ascii(go_bb a, int size, char *buf, int len)
{
    int n = 0;
    for (int y = 0; y < size; y++) {
        for (int x = 0; x < size; x++) {
            if (n + 1 >= len)
                return -1;
            buf[n++] = go_bb_test(a, go_bb_bit_at(x, y)) ? '#' : '.';
        }
        if (n + 1 >= len)
            return -1;
        buf[n++] = '\n';
    }
    if (n >= len)
        return -1;
    buf[n] = 0;
    return n;
}
