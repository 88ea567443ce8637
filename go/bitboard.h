/* go/bitboard.h -- sets of board points as fixed-size bitsets, for any board size up to 19.
 *
 * Layout: bit y * GO_BB_STRIDE + x (x = column from the left, y = row from the TOP, as in
 * go_point_at) of six 64-bit words. A row takes 20 bits: 19 columns plus one guard column that is
 * never on a board, so a shift by one column moves the last column into the guard column instead
 * of into the next row, and masking with the board's point set (go_bb_board) cleans it up. The
 * four bits above 380 are never on a board either.
 *
 * Every operation takes and returns values (a go_bb is 48 bytes of plain data); the ones that can
 * leave the board (complement, shifts, dilation) take the board's point set as `all`. Everything
 * here is forced inline: the BW graph operators are built from dozens of these per call, and GCC
 * left go_bb_neighbours out of line, which made a 10 ns dilation cost 60 ns in bench/bwgraph.c.
 */
#ifndef SHIDO_GO_BITBOARD_H
#define SHIDO_GO_BITBOARD_H

#include <stdbool.h>
#include <stdint.h>

#include "go/board.h"

#define GO_BB_STRIDE 20
#define GO_BB_WORDS 6
#define GO_BB_BITS (GO_BB_WORDS * 64)

#define GO_BB_FN static inline __attribute__((always_inline))

typedef struct go_bb {
    uint64_t w[GO_BB_WORDS];
} go_bb;

/* Bit index of a board point and back (p must be on a board of some size). */
GO_BB_FN int go_bb_bit_of(int p) { return go_point_y(p) * GO_BB_STRIDE + go_point_x(p); }
GO_BB_FN int go_bb_point_of(int bit) { return go_point_at(bit % GO_BB_STRIDE, bit / GO_BB_STRIDE); }
GO_BB_FN int go_bb_bit_at(int x, int y) { return y * GO_BB_STRIDE + x; }

GO_BB_FN go_bb go_bb_none(void)
{
    go_bb r = {{0}};
    return r;
}

/* All points of a size x size board (size GO_MIN_SIZE..GO_MAX_SIZE). */
go_bb go_bb_board(int size);

GO_BB_FN go_bb go_bb_single(int bit)
{
    go_bb r = go_bb_none();
    r.w[bit >> 6] = (uint64_t)1 << (bit & 63);
    return r;
}
GO_BB_FN bool go_bb_test(go_bb a, int bit) { return (a.w[bit >> 6] >> (bit & 63)) & 1; }
GO_BB_FN void go_bb_set(go_bb *a, int bit) { a->w[bit >> 6] |= (uint64_t)1 << (bit & 63); }
GO_BB_FN void go_bb_clear(go_bb *a, int bit) { a->w[bit >> 6] &= ~((uint64_t)1 << (bit & 63)); }

GO_BB_FN go_bb go_bb_or(go_bb a, go_bb b)
{
    for (int i = 0; i < GO_BB_WORDS; i++)
        a.w[i] |= b.w[i];
    return a;
}
GO_BB_FN go_bb go_bb_and(go_bb a, go_bb b)
{
    for (int i = 0; i < GO_BB_WORDS; i++)
        a.w[i] &= b.w[i];
    return a;
}
/* a - b */
GO_BB_FN go_bb go_bb_andnot(go_bb a, go_bb b)
{
    for (int i = 0; i < GO_BB_WORDS; i++)
        a.w[i] &= ~b.w[i];
    return a;
}
GO_BB_FN go_bb go_bb_xor(go_bb a, go_bb b)
{
    for (int i = 0; i < GO_BB_WORDS; i++)
        a.w[i] ^= b.w[i];
    return a;
}
/* The points of the board `all` that are not in a. */
GO_BB_FN go_bb go_bb_not(go_bb a, go_bb all) { return go_bb_andnot(all, a); }

GO_BB_FN bool go_bb_is_empty(go_bb a)
{
    uint64_t x = 0;
    for (int i = 0; i < GO_BB_WORDS; i++)
        x |= a.w[i];
    return x == 0;
}
GO_BB_FN bool go_bb_eq(go_bb a, go_bb b) { return go_bb_is_empty(go_bb_xor(a, b)); }
GO_BB_FN bool go_bb_intersects(go_bb a, go_bb b) { return !go_bb_is_empty(go_bb_and(a, b)); }
GO_BB_FN bool go_bb_subset(go_bb a, go_bb b) { return go_bb_is_empty(go_bb_andnot(a, b)); }

/* Bits set in one word. Without -mpopcnt GCC compiles __builtin_popcountll into a call to
 * libgcc's table-driven __popcountdi2, which made go_bb_count 22 ns; the inline SWAR form is
 * branch-free and a few times faster. */
GO_BB_FN int go_bb_popcount64(uint64_t x)
{
#ifdef __POPCNT__
    return __builtin_popcountll(x);
#else
    x = x - ((x >> 1) & 0x5555555555555555ull);
    x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
    x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0full;
    return (int)((x * 0x0101010101010101ull) >> 56);
#endif
}

GO_BB_FN int go_bb_count(go_bb a)
{
    int n = 0;
    for (int i = 0; i < GO_BB_WORDS; i++)
        n += go_bb_popcount64(a.w[i]);
    return n;
}

/* Shifts by one row or column; bits leaving the word array are dropped. The result can hold
 * guard-column or off-board bits: mask with the board before using it as a point set. */
GO_BB_FN go_bb go_bb_shift_down(go_bb a) /* (x, y) -> (x, y + 1) */
{
    go_bb r;
    r.w[0] = a.w[0] << GO_BB_STRIDE;
    for (int i = 1; i < GO_BB_WORDS; i++)
        r.w[i] = (a.w[i] << GO_BB_STRIDE) | (a.w[i - 1] >> (64 - GO_BB_STRIDE));
    return r;
}
GO_BB_FN go_bb go_bb_shift_up(go_bb a) /* (x, y) -> (x, y - 1) */
{
    go_bb r;
    for (int i = 0; i < GO_BB_WORDS - 1; i++)
        r.w[i] = (a.w[i] >> GO_BB_STRIDE) | (a.w[i + 1] << (64 - GO_BB_STRIDE));
    r.w[GO_BB_WORDS - 1] = a.w[GO_BB_WORDS - 1] >> GO_BB_STRIDE;
    return r;
}
GO_BB_FN go_bb go_bb_shift_right(go_bb a) /* (x, y) -> (x + 1, y) */
{
    go_bb r;
    r.w[0] = a.w[0] << 1;
    for (int i = 1; i < GO_BB_WORDS; i++)
        r.w[i] = (a.w[i] << 1) | (a.w[i - 1] >> 63);
    return r;
}
GO_BB_FN go_bb go_bb_shift_left(go_bb a) /* (x, y) -> (x - 1, y) */
{
    go_bb r;
    for (int i = 0; i < GO_BB_WORDS - 1; i++)
        r.w[i] = (a.w[i] >> 1) | (a.w[i + 1] << 63);
    r.w[GO_BB_WORDS - 1] = a.w[GO_BB_WORDS - 1] >> 1;
    return r;
}

/* Points of `all` 4-adjacent to a point of a (a itself excluded unless adjacent to a). */
GO_BB_FN go_bb go_bb_neighbours(go_bb a, go_bb all)
{
    go_bb r = go_bb_or(go_bb_or(go_bb_shift_up(a), go_bb_shift_down(a)),
                       go_bb_or(go_bb_shift_left(a), go_bb_shift_right(a)));
    return go_bb_and(r, all);
}
/* a and its 4-neighbours within `all` (one step of dilation). */
GO_BB_FN go_bb go_bb_dilate(go_bb a, go_bb all) { return go_bb_or(go_bb_and(a, all), go_bb_neighbours(a, all)); }

/* Iteration: the lowest set bit at or above `from`, or -1. Typical loop:
 *   for (int i = go_bb_next(a, 0); i >= 0; i = go_bb_next(a, i + 1)) ... */
GO_BB_FN int go_bb_next(go_bb a, int from)
{
    if (from >= GO_BB_BITS)
        return -1;
    int k = from >> 6;
    uint64_t x = a.w[k] & (~(uint64_t)0 << (from & 63));
    for (;;) {
        if (x)
            return (k << 6) + __builtin_ctzll(x);
        if (++k == GO_BB_WORDS)
            return -1;
        x = a.w[k];
    }
}

/* The set of points of colour c (GO_EMPTY, GO_BLACK or GO_WHITE) on a board. */
go_bb go_bb_of_color(const go_board *b, go_color c);

/* The 4-connected component of `within` that holds bit `seed` (empty when seed is not in it). */
go_bb go_bb_flood(go_bb within, int seed, go_bb all);

/* Writes the set as a size x size diagram ('#' in the set, '.' not), rows top to bottom, one line
 * each; returns bytes written (excluding NUL), or -1 when len is too small. For test messages. */
int go_bb_to_ascii(go_bb a, int size, char *buf, int len);

#endif
