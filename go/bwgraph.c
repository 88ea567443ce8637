/* go/bwgraph.c -- BW Graph Model operators and move recurrences on bitboards.
 *
 * Adj_n counts, per point, how many of the five points of F0 are in A: the five shifted copies of
 * A go through two full adders per 64-bit word (bit-sliced counting), giving a 3-bit count per
 * point in three words. Pre_n and Suc_n start from the same count restricted to points whose F is
 * F0 and then correct it chain by chain, touching only the words a chain's reach spans. */
#include "go/bwgraph.h"

#include <string.h>

/* GCC's vectoriser turns the word loops below into SSE code that stores 8-byte halves and
 * reloads them as 16-byte vectors, stalling store forwarding at every step: Adj_1 took 53 ns
 * vectorised and 31 ns scalar in bench/bwgraph.c. The kernels are therefore kept scalar. */
#if defined(__GNUC__) && !defined(__clang__)
#define SCALAR __attribute__((optimize("no-tree-vectorize")))
#else
#define SCALAR
#endif

/* Bit-sliced 3-bit counters: point k holds c0.k + 2 c1.k + 4 c2.k. */
typedef struct counts3 {
    uint64_t c0[GO_BB_WORDS], c1[GO_BB_WORDS], c2[GO_BB_WORDS];
} counts3;

static inline int clamp_n(int n) { return n < 1 ? 1 : n > 5 ? 5 : n; }

/* The five words of F0 around word i of a: the word itself and its shifts towards the four
 * neighbours (a point's neighbours in the row above are GO_BB_STRIDE bits lower, and so on). */
#define F0_WORDS(a, i)                                                                             \
    uint64_t prev = (i) > 0 ? (a)[(i) - 1] : 0, next = (i) < GO_BB_WORDS - 1 ? (a)[(i) + 1] : 0;  \
    uint64_t x0 = (a)[i];                                                                          \
    uint64_t x1 = (x0 >> GO_BB_STRIDE) | (next << (64 - GO_BB_STRIDE));                           \
    uint64_t x2 = (x0 << GO_BB_STRIDE) | (prev >> (64 - GO_BB_STRIDE));                           \
    uint64_t x3 = (x0 >> 1) | (next << 63);                                                        \
    uint64_t x4 = (x0 << 1) | (prev >> 63)

/* Counts |F0(x) & a| for every x; a must lie on the board (the counts off it are junk). */
static SCALAR void count_f0(const uint64_t *a, counts3 *r)
{
    for (int i = 0; i < GO_BB_WORDS; i++) {
        F0_WORDS(a, i);
        uint64_t s1 = x0 ^ x1 ^ x2, k1 = (x0 & x1) | (x2 & (x0 ^ x1));
        uint64_t s2 = s1 ^ x3 ^ x4, k2 = (s1 & x3) | (x4 & (s1 ^ x3));
        r->c0[i] = s2;
        r->c1[i] = k1 ^ k2;
        r->c2[i] = k1 & k2;
    }
}

/* The points of all whose count is at least n (1..5). */
static SCALAR void at_least(const counts3 *c, int n, const uint64_t *all, uint64_t *out)
{
    for (int i = 0; i < GO_BB_WORDS; i++) {
        uint64_t c0 = c->c0[i], c1 = c->c1[i], c2 = c->c2[i], x;
        switch (n) {
        case 1: x = c0 | c1 | c2; break;
        case 2: x = c1 | c2; break;
        case 3: x = c2 | (c1 & c0); break;
        case 4: x = c2; break;
        default: x = c2 & (c1 | c0); break;
        }
        out[i] = x & all[i];
    }
}

/* Adds k (1..7) to the counters of the points of mask in words lo..hi, saturating at 7 (the
 * thresholds never exceed 5, so a saturated count answers every question correctly). */
static SCALAR void add_masked(counts3 *c, int k, const uint64_t *mask, int lo, int hi)
{
    for (int i = lo; i <= hi; i++) {
        uint64_t m = mask[i];
        uint64_t k0 = (k & 1) ? m : 0, k1 = (k & 2) ? m : 0, k2 = (k & 4) ? m : 0;
        uint64_t c0 = c->c0[i], c1 = c->c1[i], c2 = c->c2[i];
        uint64_t carry = c0 & k0;
        c0 ^= k0;
        uint64_t t = c1 ^ k1;
        uint64_t carry2 = (c1 & k1) | (carry & t);
        c1 = t ^ carry;
        t = c2 ^ k2;
        uint64_t sat = (c2 & k2) | (carry2 & t);
        c2 = t ^ carry2;
        c->c0[i] = c0 | sat;
        c->c1[i] = c1 | sat;
        c->c2[i] = c2 | sat;
    }
}

/* a dilated by F0, within all. */
static SCALAR void dilate_words(const uint64_t *a, const uint64_t *all, uint64_t *out)
{
    for (int i = 0; i < GO_BB_WORDS; i++) {
        F0_WORDS(a, i);
        out[i] = (x0 | x1 | x2 | x3 | x4) & all[i];
    }
}

static inline int count_words(const uint64_t *a, const uint64_t *b, int lo, int hi)
{
    int k = 0;
    for (int i = lo; i <= hi; i++)
        k += go_bb_popcount64(a[i] & b[i]);
    return k;
}

static inline bool meet_words(const uint64_t *a, const uint64_t *b, int lo, int hi)
{
    uint64_t x = 0;
    for (int i = lo; i <= hi; i++)
        x |= a[i] & b[i];
    return x != 0;
}

/* a & all, so that operands may hold points off the board. */
static inline void on_board(const go_bw *g, const go_bb *a, uint64_t *out)
{
    for (int i = 0; i < GO_BB_WORDS; i++)
        out[i] = a->w[i] & g->all.w[i];
}

bool go_bw_init(go_bw *g, int size)
{
    if (size < GO_MIN_SIZE || size > GO_MAX_SIZE)
        return false;
    g->size = size;
    g->all = go_bb_board(size);
    g->b = g->all;
    g->w = g->all;
    g->multi = go_bb_none();
    g->num_chains = 0;
    for (int i = 0; i < GO_BB_BITS; i++)
        g->chain_of[i] = -1;
    return true;
}

static void add_chain(go_bw *g, go_bb stones, go_bb reach)
{
    int idx = g->num_chains++;
    go_bw_chain *c = &g->chains[idx];
    c->stones = stones;
    c->reach = reach;
    int lo = 0, hi = GO_BB_WORDS - 1;
    while (lo < hi && !reach.w[lo])
        lo++;
    while (hi > lo && !reach.w[hi])
        hi--;
    c->lo = (uint8_t)lo;
    c->hi = (uint8_t)hi;
    g->multi = go_bb_or(g->multi, stones);
    for (int i = go_bb_next(stones, 0); i >= 0; i = go_bb_next(stones, i + 1))
        g->chain_of[i] = (int16_t)idx;
}

/* Removes chain idx (its points fall back to F = F0) by moving the last chain into its slot. */
static void remove_chain(go_bw *g, int idx)
{
    go_bb stones = g->chains[idx].stones;
    g->multi = go_bb_andnot(g->multi, stones);
    for (int i = go_bb_next(stones, 0); i >= 0; i = go_bb_next(stones, i + 1))
        g->chain_of[i] = -1;
    int last = --g->num_chains;
    if (idx != last) {
        g->chains[idx] = g->chains[last];
        go_bb moved = g->chains[idx].stones;
        for (int i = go_bb_next(moved, 0); i >= 0; i = go_bb_next(moved, i + 1))
            g->chain_of[i] = (int16_t)idx;
    }
}

void go_bw_from_board(go_bw *g, const go_board *b)
{
    go_bw_init(g, b->size);
    go_bb black = go_bb_of_color(b, GO_BLACK), white = go_bb_of_color(b, GO_WHITE);
    g->b = go_bb_andnot(g->all, white);
    g->w = go_bb_andnot(g->all, black);
    go_bb todo = go_bb_or(black, white);
    for (int i = go_bb_next(todo, 0); i >= 0; i = go_bb_next(todo, i + 1)) {
        go_bb chain = go_bb_flood(go_bb_test(black, i) ? black : white, i, g->all);
        todo = go_bb_andnot(todo, chain);
        if (go_bb_count(chain) >= 2)
            add_chain(g, chain, go_bb_dilate(chain, g->all));
    }
}

SCALAR void go_bw_adj_to(const go_bw *g, const go_bb *a, int n, go_bb *out)
{
    uint64_t x[GO_BB_WORDS];
    on_board(g, a, x);
    n = clamp_n(n);
    if (n == 1) {
        dilate_words(x, g->all.w, out->w);
        return;
    }
    counts3 c;
    count_f0(x, &c);
    at_least(&c, n, g->all.w, out->w);
}

SCALAR void go_bw_pre_to(const go_bw *g, const go_bb *a, int n, go_bb *out)
{
    uint64_t x[GO_BB_WORDS], r[GO_BB_WORDS];
    on_board(g, a, x);
    n = clamp_n(n);
    if (n == 1) {
        dilate_words(x, g->all.w, r);
    } else {
        counts3 c;
        count_f0(x, &c);
        at_least(&c, n, g->all.w, r);
    }
    for (int i = 0; i < GO_BB_WORDS; i++)
        r[i] &= ~g->multi.w[i];
    for (int k = 0; k < g->num_chains; k++) {
        const go_bw_chain *c = &g->chains[k];
        bool in = n == 1 ? meet_words(c->reach.w, x, c->lo, c->hi)
                         : count_words(c->reach.w, x, c->lo, c->hi) >= n;
        if (in)
            for (int i = c->lo; i <= c->hi; i++)
                r[i] |= c->stones.w[i];
    }
    memcpy(out->w, r, sizeof r);
}

SCALAR void go_bw_suc_to(const go_bw *g, const go_bb *a, int n, go_bb *out)
{
    uint64_t x[GO_BB_WORDS], single[GO_BB_WORDS];
    on_board(g, a, x);
    n = clamp_n(n);
    for (int i = 0; i < GO_BB_WORDS; i++)
        single[i] = x[i] & ~g->multi.w[i];
    if (n == 1) {
        uint64_t r[GO_BB_WORDS];
        dilate_words(single, g->all.w, r);
        for (int k = 0; k < g->num_chains; k++) {
            const go_bw_chain *c = &g->chains[k];
            if (meet_words(c->stones.w, x, c->lo, c->hi))
                for (int i = c->lo; i <= c->hi; i++)
                    r[i] |= c->reach.w[i];
        }
        memcpy(out->w, r, sizeof r);
        return;
    }
    counts3 cnt;
    count_f0(single, &cnt);
    for (int k = 0; k < g->num_chains; k++) {
        const go_bw_chain *c = &g->chains[k];
        int m = count_words(c->stones.w, x, c->lo, c->hi);
        if (m)
            add_masked(&cnt, m > 7 ? 7 : m, c->reach.w, c->lo, c->hi);
    }
    at_least(&cnt, n, g->all.w, out->w);
}

go_bb go_bw_reach(const go_bw *g, int bit)
{
    if (g->chain_of[bit] >= 0)
        return g->chains[g->chain_of[bit]].reach;
    return go_bb_dilate(go_bb_single(bit), g->all);
}

go_bb go_bw_reached_by(const go_bw *g, int bit)
{
    go_bb f0 = go_bb_dilate(go_bb_single(bit), g->all);
    go_bb r = go_bb_andnot(f0, g->multi);
    go_bb chained = go_bb_and(f0, g->multi);
    for (int i = go_bb_next(chained, 0); i >= 0; i = go_bb_next(chained, i + 1))
        r = go_bb_or(r, g->chains[g->chain_of[i]].stones);
    return r;
}

go_bb go_bw_atari(const go_bw *g)
{
    return go_bb_not(go_bw_pre(g, go_bw_empty(g), 2), g->all);
}

go_bb go_bw_legal(const go_bw *g, go_color c)
{
    go_bb own = c == GO_WHITE ? g->w : g->b;
    return go_bb_and(go_bw_empty(g), go_bw_adj(g, go_bb_xor(own, go_bw_atari(g)), 1));
}

void go_bw_play(go_bw *g, int bit, go_color c, go_bw_move *out)
{
    go_bb *own = c == GO_WHITE ? &g->w : &g->b;
    go_bb *opp = c == GO_WHITE ? &g->b : &g->w;
    go_bb pre = go_bw_reached_by(g, bit);
    go_bb h = go_bw_atari(g);
    go_bb a = go_bb_or(go_bb_andnot(pre, *opp), go_bb_single(bit));
    go_bb d = go_bb_andnot(go_bb_and(pre, h), *own);
    go_bb reach = go_bw_suc(g, a, 1); /* from F before the move, as the recurrence says */
    *own = go_bb_or(*own, d);
    *opp = go_bb_andnot(*opp, a);
    go_bb gone = go_bb_and(go_bb_or(a, d), g->multi);
    for (int k = g->num_chains - 1; k >= 0; k--)
        if (go_bb_intersects(g->chains[k].stones, gone))
            remove_chain(g, k);
    if (go_bb_count(a) >= 2)
        add_chain(g, a, reach);
    if (out) {
        out->chain = a;
        out->captured = d;
    }
}

go_color go_bw_color(const go_bw *g, int bit)
{
    if (bit < 0 || bit >= GO_BB_BITS || !go_bb_test(g->all, bit))
        return GO_BORDER;
    bool in_b = go_bb_test(g->b, bit), in_w = go_bb_test(g->w, bit);
    return in_b && in_w ? GO_EMPTY : in_b ? GO_BLACK : GO_WHITE;
}
