/* go/tsumego_search.c -- depth-first proof-number search (df-pn, Nagai 2002) over the region
 * board, with a transposition table and the 1+epsilon trick (Pawlewicz & Lew 2007) against
 * thrashing, and leaves initialised from the defender's eye space and the move order (df-pn+),
 * raised near the search's first position (deep df-pn).
 * Proof and disproof numbers are always those of "the attacker wins", so one table serves
 * searches started for either side.
 *
 * Cycles: a move that repeats a position of the line being searched is lost for the side that
 * makes it (superko), except when ko threats were spent on the way round by a side with an
 * unlimited budget and the ko point is the same: that side could go round for ever, which counts
 * as the defender surviving, like a line longer than MAX_DEPTH. Table entries are keyed on the
 * position only, so a proof or disproof that rests on a repetition of a position above it (or
 * on the line's length) is passed up but not stored until the search is back at the repeated
 * position (the length: never): the same position reached along
 * another line, where the repetition is no repetition, must be searched again (the
 * graph-history interaction; without this, the move order could change a proven status). The
 * one exception is a repetition of the search's first position, which every line of that
 * search shares: such values are stored (not storing them made some proofs hundreds of times
 * dearer), tagged with the search (ts_search_prove call) they belong to and valid in it alone,
 * so a later search that starts elsewhere does not meet them. A search may start with a
 * history (ts_search_prove_line: a first move's search has the problem's start position
 * before it): its positions count as repetitions like those of the line, and values resting on
 * them are tagged the same way. A value of its own (untagged) is not checked against
 * repetitions of positions above it on a new line.
 *
 * Simulation (Kawano 1996): when a node needs every child settled the same way and one child
 * is, the others are first tried by replaying its proof (see simulate below). The table keeps
 * the winning move of each settled entry for that.
 *
 * Ko-threat budgets are part of the key; a settled value that no budget decided is kept under
 * the key without them too and serves every budget (see free_key).
 *
 * Threads (ts_search_set_threads): once a search has run SPAWN_NODES alone, helpers search the
 * same first position, each on a ts_search of its own (line, stacks, history), sharing the
 * table, whose buckets are then locked. Every thread counts the positions of its line in a
 * small table of busy positions, and a child another thread is in looks dearer to the others
 * (the mover's number half as high again: Kaneko's virtual proof numbers), so the threads
 * spread over the tree. Values pass between them through the table alone, so each is still
 * proven by one thread from settled values; the first to settle the first position ends the
 * search. */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS and madvise: the table asks for huge pages */
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "go/tsumego_internal.h"

#define INF 0x3fffffffu         /* a proven pn or dn; sums saturate just below */
#define MAX_DEPTH 200           /* deeper lines count as the defender surviving (a value of
                                   the line, never stored: DEP_LENGTH) */
#define BUCKET 3                /* table entries probed per key: one 64-byte cache line */
#define CHECK_EVERY 1024        /* nodes between clock reads */
#define HUGE_PAGE (2u << 20)    /* the table is aligned to this so the kernel can back it with
                                   huge pages: probes all over a table of tens of megabytes
                                   otherwise spend much of the search's time in TLB misses */
#define HISTORY_SHIFT 4         /* settled nodes per unit of ordering score */
#define HISTORY_MAX 4096        /* history counts stop here */
#define SPACE_LIVE 8            /* eye space from which a disproof is guessed to take one step */
#define NO_DEP 0x7fffffff       /* a value resting on no repetition of the line */
#define DEP_LENGTH (-1)         /* a value resting on the line's length (MAX_DEPTH) */
#define RANK_STEP 4             /* moves per step of the initial numbers along the move order */
#define DEEP_DEPTH 24           /* plies from a search's first position where the initial
                                   numbers stop being raised (deep df-pn) */
#define DEEP_STEP 2             /* plies per unit of that raise */
#define SPAWN_NODES 20000       /* nodes a search runs alone before its helpers start: most
                                   searches of a solve are small, and a thread costs more */
#define BUSY_BITS 16            /* slots of the table of positions threads are searching */
#define SPIN_YIELD 64           /* spins on a bucket lock before the thread yields */

/* The key in two halves keeps an entry at 20 bytes, so that a bucket fills one cache line: an
 * expansion probes the table for every child, and those fetches bound the search's speed. */
typedef struct tt_entry {
    uint32_t key_lo, key_hi;
    uint32_t pn, dn;
    uint32_t meta; /* bits 0-6: nodes spent below this entry as a bit length (the replacement
                      priority); 7-15: the winning move + 1 of a settled entry (0: none), which a
                      simulation follows; 16-30: the search (ts_search.root_id) whose first
                      position or history this value rests on a repetition of, 0 for a value
                      of its own; 31: a value that holds whatever the ko-threat budgets
                      (META_FREE, see free_key) */
} tt_entry;

#define META_FREE 0x80000000u
#define MAX_ROOT_ID 0x7fffu

static int tt_work_bits(const tt_entry *e) { return (int)(e->meta & 127u); }

/* The nodes spent below an entry, to within a factor of two. */
static uint64_t tt_work(const tt_entry *e)
{
    int b = tt_work_bits(e);
    return b ? 1ull << (b - 1) : 0;
}

/* The winning move stored with a settled entry (a region index or TS_PASS), or -1. */
static int tt_move(const tt_entry *e) { return (int)((e->meta >> 7) & 511u) - 1; }

static uint32_t tt_root(const tt_entry *e) { return (e->meta >> 16) & MAX_ROOT_ID; }

static bool tt_free(const tt_entry *e) { return (e->meta & META_FREE) != 0; }

typedef struct tt_bucket {
    tt_entry e[BUCKET];
    atomic_uint lock; /* held while a thread reads or writes the bucket (parallel search) */
} tt_bucket;

_Static_assert(sizeof(tt_bucket) == 64, "a bucket is one cache line");

typedef struct child {
    uint64_t key; /* 0 once the values are final */
    int move;
    uint32_t pn, dn;
    uint64_t fkey; /* the key without the budgets (free_key) */
    int dep;      /* its proof or disproof rests on a repetition of the position at this depth
                     of the line searched (NO_DEP: on none) */
    bool free;    /* its proof or disproof holds whatever the ko-threat budgets */
    bool simulated; /* a simulation was tried on it (see simulate) */
} child;

struct ts_search {
    const ts_geom *g;
    tt_bucket *tt; /* inside map */
    void *map;
    size_t map_bytes;
    uint64_t mask; /* buckets - 1 */
    double deadline_s;
    uint64_t max_nodes, nodes, next_check;
    bool aborted;
    uint64_t path[MAX_DEPTH + 2]; /* position_key of each position on the line */
    uint8_t path_threats[MAX_DEPTH + 2]; /* and the ko threats spent before it */
    uint8_t path_ko[MAX_DEPTH + 2];      /* and its ko point */
    ts_pos stack[MAX_DEPTH + 2];
    ts_pos tstack[MAX_DEPTH + 2]; /* the template line of a simulation */
    child kids[MAX_DEPTH + 1][TS_MAX_POINTS + 1];
    uint32_t history[3][TS_MAX_POINTS]; /* per colour and point: nodes it settled */
    bool no_simulation;                 /* simulation off (for tests) */
    bool no_eyeless;                    /* the eyeless-area terminal off (for tests) */
    bool no_sealed;                     /* the sealed-chain terminal off (for tests) */
    uint32_t root_id;                   /* of the search under way (ts_search_prove), 1 to
                                           MAX_ROOT_ID */
    int base;                           /* depth of the search's first position: the line
                                           before it (ts_search_prove_line) is its history */
    uint64_t simulated;                 /* children settled by simulation */
    int prior_color;                    /* 0: no prior */
    float prior[TS_MAX_POINTS];
    /* parallel search (ts_search_set_threads): helpers search the same first position at once,
     * each on a ts_search of its own sharing the table, and keep out of each other's way by
     * virtual numbers: a child another thread is searching looks dearer (Kaneko 2010) */
    int threads;                 /* threads a search may use (1: this one alone) */
    bool locked;                 /* the table is shared now: buckets are locked to be read */
    ts_search *lead;             /* a helper's lead search; NULL in the lead */
    ts_search **helpers;         /* lead: threads - 1 of them, made when first needed */
    pthread_t *tids;
    int running;                 /* lead: helpers started for the search under way */
    uint64_t started_at;         /* lead: nodes when the search under way began */
    atomic_bool stop;            /* lead: the search has ended, or a helper settled its root */
    atomic_ullong helper_nodes;  /* lead: the helpers' nodes so far, added up as they go */
    atomic_ushort *busy;         /* lead: threads in a position whose key hashes to a slot */
    uint64_t helped;             /* lead: nodes its helpers have searched, all searches */
    uint64_t reported;           /* helper: its nodes added to the lead's helper_nodes */
    ts_outcome result;           /* helper: what it found for the first position */
    bool marked[MAX_DEPTH + 2];  /* the position at this depth of the line counts in busy */
};

static void helpers_free(ts_search *s);

/* Zeroed memory for the table (lazily, by the kernel), aligned to HUGE_PAGE; NULL on failure. */
static void *tt_map(size_t bytes, void **map, size_t *map_bytes)
{
    *map_bytes = bytes + HUGE_PAGE;
    *map = mmap(NULL, *map_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (*map == MAP_FAILED)
        return NULL;
    uintptr_t a = ((uintptr_t)*map + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1);
#ifdef MADV_HUGEPAGE
    /* a hint: without it the table still works; a table smaller than a huge page would only
     * have a whole one cleared for it */
    if (bytes >= HUGE_PAGE)
        madvise((void *)a, bytes, MADV_HUGEPAGE);
#endif
    return (void *)a;
}

ts_search *ts_search_new(const ts_geom *g, int tt_log2)
{
    ts_search *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    if (tt_log2 < 10)
        tt_log2 = 10;
    if (tt_log2 > 30)
        tt_log2 = 30;
    size_t buckets = (size_t)1 << (tt_log2 - 2);
    s->tt = tt_map(buckets * sizeof *s->tt, &s->map, &s->map_bytes);
    if (!s->tt) {
        free(s);
        return NULL;
    }
    s->mask = buckets - 1;
    s->g = g;
    s->deadline_s = 1e300;
    s->threads = 1;
    return s;
}

void ts_search_free(ts_search *s)
{
    if (!s)
        return;
    helpers_free(s);
    munmap(s->map, s->map_bytes);
    free(s);
}

void ts_search_limits(ts_search *s, double deadline_s, uint64_t max_nodes)
{
    s->deadline_s = deadline_s;
    s->max_nodes = max_nodes;
    s->aborted = false;
    s->next_check = s->nodes + CHECK_EVERY;
}

uint64_t ts_search_nodes(const ts_search *s) { return s->nodes; }

bool ts_search_out_of_time(ts_search *s)
{
    if (s->aborted)
        return true;
    if (s->lead) { /* a helper stops when its lead says so */
        s->aborted = atomic_load_explicit(&s->lead->stop, memory_order_relaxed);
        return s->aborted;
    }
    uint64_t nodes = s->nodes + (s->running ? atomic_load(&s->helper_nodes) : 0);
    if ((s->max_nodes && nodes >= s->max_nodes) || go_now_s() >= s->deadline_s ||
        (s->running && atomic_load(&s->stop)))
        s->aborted = true;
    return s->aborted;
}

/* Bucket locks, taken only while the table is shared: a reader must not see half an entry. */
static tt_bucket *bucket_lock(ts_search *s, uint64_t home)
{
    tt_bucket *b = &s->tt[home & s->mask];
    if (!s->locked)
        return b;
    for (int spins = 0; atomic_exchange_explicit(&b->lock, 1u, memory_order_acquire); spins++) {
        while (atomic_load_explicit(&b->lock, memory_order_relaxed))
            if (++spins % SPIN_YIELD == 0)
                sched_yield(); /* the holder may be waiting for a core */
    }
    return b;
}

static void bucket_unlock(ts_search *s, tt_bucket *b)
{
    if (s->locked)
        atomic_store_explicit(&b->lock, 0u, memory_order_release);
}

static bool tt_match(const tt_entry *e, uint64_t key)
{
    return e->key_lo == (uint32_t)key && e->key_hi == (uint32_t)(key >> 32);
}

/* An entry valid in this search: a value of its own, or one resting on a repetition of this
 * search's first position or history (every line of this search goes through them; no other
 * search's). */
static bool tt_valid(const ts_search *s, const tt_entry *e)
{
    return tt_root(e) == 0 || tt_root(e) == s->root_id;
}

/* An entry lives in the bucket of its home key: the key without the budgets (free_key), so that
 * the budget variants of a position and its free value share one cache line. The entry found
 * is copied to *copy, which is returned (NULL: none). */
static const tt_entry *tt_find(ts_search *s, uint64_t key, uint64_t home, tt_entry *copy)
{
    tt_bucket *bk = bucket_lock(s, home);
    const tt_entry *b = bk->e, *found = NULL;
    for (int i = 0; i < BUCKET && !found; i++)
        if (tt_match(&b[i], key) && (b[i].pn | b[i].dn) && tt_valid(s, &b[i])) {
            *copy = b[i];
            found = copy;
        }
    bucket_unlock(s, bk);
    return found;
}

/* Proven entries are kept over open ones; among equals the one with less work goes. An entry
 * of another search's first position is of no use any more. */
static int tt_priority(const ts_search *s, const tt_entry *e)
{
    if (!(e->pn | e->dn) || !tt_valid(s, e))
        return 0;
    return 1 + tt_work_bits(e) + ((e->pn == 0 || e->dn == 0) ? 128 : 0);
}

/* Stores a value; rooted: it rests on a repetition of this search's first position or
 * history; free: a settled value that holds whatever the budgets. */
static void tt_store(ts_search *s, uint64_t key, uint64_t home, uint32_t pn, uint32_t dn,
                     uint64_t work, int move, bool rooted, bool free)
{
    tt_bucket *bk = bucket_lock(s, home);
    tt_entry *b = bk->e;
    tt_entry *e = NULL;
    for (int i = 0; i < BUCKET && !e; i++)
        if (tt_match(&b[i], key) && tt_valid(s, &b[i]))
            e = &b[i];
    if (e) {
        work += tt_work(e); /* a revisited node keeps what was spent on it before */
    } else {
        e = &b[0];
        for (int i = 1; i < BUCKET; i++)
            if (tt_priority(s, &b[i]) < tt_priority(s, e))
                e = &b[i];
    }
    e->key_lo = (uint32_t)key;
    e->key_hi = (uint32_t)(key >> 32);
    e->pn = pn;
    e->dn = dn;
    uint32_t bits = work ? (uint32_t)(64 - __builtin_clzll(work)) : 0;
    e->meta = bits | (uint32_t)(move + 1) << 7 | (rooted ? s->root_id << 16 : 0) |
              (free ? META_FREE : 0);
    bucket_unlock(s, bk);
}

/* --- values free of the ko-threat budgets ---
 *
 * The budgets are part of a position's key, so the searches of one problem at different budgets
 * (the status questions, the ko comparisons) would each prove the same positions again, though
 * most of them never meet a ko. A settled value that no budget decided (no ko retake among the
 * winner's moves that count, no move of the loser's left out for want of a threat, no attacker
 * pass that hung on the defender's threats, and the same for every value it rests on) holds at
 * every budget: it is stored under the key without the budgets as well, which every budget
 * variant of the position probes when its own key has no settled value. Values resting on a
 * repetition or the line's length are never free. */

#define FREE_SALT 0x5bd1e9955bd1e995ull

static uint64_t free_key(const ts_geom *g, uint64_t key, const uint8_t *budget)
{
    return key ^ g->zob_budget[GO_BLACK][budget[GO_BLACK]] ^
           g->zob_budget[GO_WHITE][budget[GO_WHITE]] ^ FREE_SALT;
}

/* Stores a value under its key and, when free, under the key without the budgets (fkey) too. */
static void tt_store2(ts_search *s, uint64_t key, uint64_t fkey, uint32_t pn, uint32_t dn,
                      uint64_t work, int move, bool rooted, bool free)
{
    tt_store(s, key, fkey, pn, dn, work, move, rooted, free);
    if (free)
        tt_store(s, fkey, fkey, pn, dn, work, move, false, true);
}

/* The table's value of a position (key, and fkey without the budgets): a settled one of its
 * own key, else a settled free one, else its own open one (NULL: none), copied to *copy.
 * *free tells whether the value found is free. */
static const tt_entry *tt_find2(ts_search *s, uint64_t key, uint64_t fkey, bool *free,
                                tt_entry *copy)
{
    const tt_entry *e = tt_find(s, key, fkey, copy);
    *free = false;
    if (e && (e->pn == 0 || e->dn == 0)) {
        *free = tt_free(e);
        return e;
    }
    tt_entry f;
    if (tt_find(s, fkey, fkey, &f) && (f.pn == 0 || f.dn == 0)) {
        *free = true;
        *copy = f;
        return copy;
    }
    return e;
}

/* The same for pos, whose key is given. */
static const tt_entry *tt_find_pos(ts_search *s, const ts_pos *pos, uint64_t key, tt_entry *copy)
{
    bool free;
    return tt_find2(s, key, free_key(s->g, key, pos->budget), &free, copy);
}

ts_outcome ts_search_lookup(ts_search *s, const ts_pos *pos, uint32_t *pn, uint32_t *dn,
                            uint32_t *work)
{
    tt_entry copy;
    const tt_entry *e = tt_find_pos(s, pos, ts_key(s->g, pos), &copy);
    if (e && tt_root(e))
        e = NULL; /* valid on the lines of the last search only */
    uint32_t p = e ? e->pn : 1, d = e ? e->dn : 1;
    if (pn)
        *pn = p;
    if (dn)
        *dn = d;
    if (work)
        *work = e ? (uint32_t)(tt_work(e) > 0xffffffffu ? 0xffffffffu : tt_work(e)) : 0;
    return p == 0 ? TS_ATTACKER_WINS : d == 0 ? TS_DEFENDER_WINS : TS_OPEN;
}

static bool dead_shape(const ts_search *s, const ts_pos *pos)
{
    bool dead;
    ts_defender_space(s->g, pos, !s->no_eyeless, &dead);
    return dead || (!s->no_sealed && ts_targets_sealed(s->g, pos));
}

ts_outcome ts_search_terminal(ts_search *s, const ts_pos *pos)
{
    if (pos->target_left == 0 || dead_shape(s, pos))
        return TS_ATTACKER_WINS;
    if (ts_benson_defender(s->g, pos, NULL))
        return TS_DEFENDER_WINS;
    return TS_OPEN;
}

/* The same inside the search, where Benson's test (the costly part) runs only after defender
 * moves: an attacker move that completes the defender's life is rare, and the defender's reply,
 * a pass at worst, finds it one ply later. *space receives the defender's eye space (see
 * ts_defender_space), which initialises the children's numbers. */
static ts_outcome terminal_in_search(ts_search *s, const ts_pos *pos, int *space)
{
    bool dead = true;
    *space = pos->target_left ? ts_defender_space(s->g, pos, !s->no_eyeless, &dead) : 0;
    if (dead || (!s->no_sealed && ts_targets_sealed(s->g, pos)))
        return TS_ATTACKER_WINS;
    if (pos->to_move == s->g->attacker && ts_benson_defender(s->g, pos, NULL))
        return TS_DEFENDER_WINS;
    return TS_OPEN;
}

/* --- move generation --- */

/* Whether the side to move, c, should consider the empty point i, and its ordering score, from
 * one look at the four neighbours. A move is left out when it is illegal (suicide), and:
 *  - for the attacker, when every neighbour is the edge, the frame or a safe attacker stone: a
 *    move there changes nothing that matters;
 *  - for the defender, when i is an eye of one defender chain that has other liberties (filling
 *    it is never better than passing), or when the stone would stand alone with one liberty,
 *    capturing nothing and touching no attacker chain it could be shortening the liberties of
 *    (a sacrifice that neither makes an eye nor wins a race: passing is as good).
 * The score puts captures, ataris and saving moves first, then points near the target. */
static bool consider(const ts_geom *g, const ts_pos *pos, int i, int c, int *score)
{
    bool att = c == (int)g->attacker;
    bool legal = false, wall = true, eye = true, lone = true;
    int eye_head = -1, libs = 0, sc = 0;
    for (int d = 0; d < 4; d++) {
        int q = g->nb[i][d];
        if (q == TS_EDGE)
            continue;
        if (q == TS_FRAME) {
            legal |= att;
            eye = false;
            continue;
        }
        const ts_point *n = &pos->p[q];
        if (n->color == GO_EMPTY) {
            legal = true;
            wall = eye = false;
            libs++;
            sc += 2;
            continue;
        }
        const ts_point *h = &pos->p[n->head];
        bool safe = h->flags & TS_SAFE;
        if (n->color == c) {
            legal |= safe || h->libs > 1;
            wall &= safe;
            eye &= eye_head < 0 || n->head == eye_head;
            eye_head = n->head;
            lone = false;
            if (!safe)
                sc += (h->libs == 1 ? 60 : 5) + (n->flags & TS_TARGET ? 8 : 0);
        } else {
            legal |= !safe && h->libs == 1;
            wall = eye = false;
            if (!safe) {
                lone = false;
                sc += (h->libs == 1 ? 100 + 10 * h->stones : h->libs == 2 ? 30 : 10) +
                      (n->flags & TS_TARGET ? 8 : 0);
            }
        }
    }
    *score = sc;
    if (!legal)
        return false;
    if (att)
        return !wall;
    return !(eye && eye_head >= 0 && pos->p[eye_head].libs >= 2) && !(lone && libs <= 1);
}

/* May the side to move pass? The defender always. The attacker after a move on the board (a
 * move elsewhere: the defender then plays twice), and right after a defender's pass that did not
 * answer a pass of its own while the defender still has ko threats: that pass removes them (see
 * ts_play_move). After two passes the attacker must play: waiting again changes nothing, so it
 * neither wins time nor takes the defender's threats away. */
static bool pass_allowed(const ts_geom *g, const ts_pos *pos)
{
    return pos->to_move == (int)g->defender || pos->passed == 0 ||
           (pos->passed == 1 && pos->budget[g->defender] > 0);
}

static int gen_moves(ts_search *s, const ts_pos *pos, int *moves, bool history)
{
    const ts_geom *g = s->g;
    int c = pos->to_move, n = 0;
    int scores[TS_MAX_POINTS + 1];
    for (int i = 0; i < g->n; i++) {
        int sc;
        if (pos->p[i].color != GO_EMPTY || !ts_ko_allows(pos, i) || !consider(g, pos, i, c, &sc))
            continue;
        if (history)
            sc += (int)(s->history[c][i] >> HISTORY_SHIFT);
        int j = n++;
        while (j > 0 && scores[j - 1] < sc) {
            scores[j] = scores[j - 1];
            moves[j] = moves[j - 1];
            j--;
        }
        scores[j] = sc;
        moves[j] = i;
    }
    if (pass_allowed(g, pos))
        moves[n++] = TS_PASS;
    return n;
}

int ts_search_moves(ts_search *s, const ts_pos *pos, int *moves)
{
    return gen_moves(s, pos, moves, true);
}

int ts_search_moves_by_shape(ts_search *s, const ts_pos *pos, int *moves)
{
    return gen_moves(s, pos, moves, false);
}

void ts_search_set_prior(ts_search *s, int c, const float *prior)
{
    s->prior_color = prior ? c : 0;
    for (int i = 0; prior && i < s->g->n; i++)
        s->prior[i] = prior[i];
}

/* Reorders moves by the prior, highest first (stable, a pass last). */
static void order_by_prior(const ts_search *s, int *moves, int n)
{
    for (int i = 1; i < n; i++) {
        int m = moves[i], j = i;
        float v = m == TS_PASS ? -1.0f : s->prior[m];
        while (j > 0 && (moves[j - 1] == TS_PASS ? -1.0f : s->prior[moves[j - 1]]) < v) {
            moves[j] = moves[j - 1];
            j--;
        }
        moves[j] = m;
    }
}

/* --- df-pn --- */

/* Repetition is judged on the whole state but ko (the budgets included, so that a side with a
 * limited budget that spent a threat since is in a new position). */
static uint64_t position_key(const ts_geom *g, const ts_pos *pos)
{
    uint64_t k = ts_key(g, pos);
    return pos->ko != TS_NONE ? k ^ g->zob_ko[pos->ko] : k;
}

static uint32_t sat_add(uint32_t a, uint32_t b)
{
    if (a >= INF || b >= INF)
        return INF;
    uint32_t r = a + b;
    return r >= INF ? INF - 1 : r;
}

/* Values of one child for the parent at depth d from the rules (capture of the last target,
 * superko); otherwise its table key goes into k->key, to be looked up once all keys are known so
 * that the memory fetches overlap. The child is played out only when it captures. */
static bool child_by_rules(ts_search *s, int d, int move, child *k)
{
    const ts_geom *g = s->g;
    const ts_pos *pos = &s->stack[d];
    s->nodes++;
    k->move = move;
    k->pn = 1;
    k->dn = 1;
    k->dep = NO_DEP;
    k->free = false;
    uint64_t key, pk;
    const uint8_t *budget = pos->budget; /* the child's: a quiet move keeps them */
    uint8_t threats = pos->threats, ko = TS_NONE;
    if (ts_quiet_key(g, pos, move, &key)) {
        pk = key; /* position_key: a quiet move leaves no ko */
    } else {
        ts_pos *cp = &s->stack[d + 1];
        ts_pos_copy(g, cp, pos);
        ts_play_move(g, cp, move);
        if (cp->target_left == 0) {
            k->pn = 0;
            k->dn = INF;
            k->free = true;
            return true;
        }
        key = ts_key(g, cp);
        budget = cp->budget;
        pk = position_key(g, cp);
        threats = cp->threats;
        ko = cp->ko;
    }
    /* superko on the line searched: the move that repeats a position loses (only positions
     * with the same side to move, every other one back, can match). When ko threats were spent
     * on the way round and the ko point is the same too, a side with unlimited threats (the only
     * kind whose budget does not show it) can go round forever: that counts as the defender
     * surviving, as a line longer than MAX_DEPTH does, and is found here at the first turn
     * instead of MAX_DEPTH plies down. */
    for (int i = d - 1; i >= 0; i -= 2)
        if (s->path[i] == pk && (s->path_threats[i] == threats || s->path_ko[i] == ko)) {
            bool def = s->path_threats[i] != threats || pos->to_move == g->attacker;
            k->pn = def ? INF : 0;
            k->dn = def ? 0 : INF;
            k->dep = i;
            return true;
        }
    k->key = key;
    k->fkey = free_key(g, key, budget);
    __builtin_prefetch(&s->tt[k->fkey & s->mask]);
    return false;
}

/* The shallowest position of the line that a settled node's value rests on a repetition of
 * (NO_DEP: none): a value that needs one winning child takes the least dependent of them, one
 * that needs every child the most dependent. */
static int settled_by_line(const child *kids, int nm, bool att, uint32_t pn)
{
    bool one_child = att ? pn == 0 : pn != 0; /* the mover found a winning child */
    int dep = one_child ? INT_MIN : NO_DEP;
    for (int i = 0; i < nm; i++) {
        if (!one_child)
            dep = kids[i].dep < dep ? kids[i].dep : dep;
        else if ((att ? kids[i].pn == 0 : kids[i].dn == 0) && kids[i].dep > dep)
            dep = kids[i].dep;
    }
    return dep == INT_MIN ? NO_DEP : dep;
}

/* --- simulation (Kawano 1996) ---
 *
 * A node whose value needs every child settled the same way (the defender's moves in a kill,
 * the attacker's in a life) often has children that fall to the same answers: when one sibling
 * is settled, the next one is first tried by following that sibling's proof. The winner plays
 * the move that won at the corresponding position of the template (found in the table), the
 * loser every move of its own, down to positions the rules or the table settle. It is a real
 * proof, checked move by move, with a small budget: any doubt (no template move, a repetition,
 * the depth limit) ends it without a value, and the search then expands the child as usual.
 * Every position it proves goes into the table. */

#define SIM_BUDGET 2000 /* positions one simulation may visit */

/* The move that won for the side to move at t, as the table keeps it with a settled entry
 * (want being that side's outcome), or -1. */
static int template_move(ts_search *s, const ts_pos *t, ts_outcome want)
{
    tt_entry copy;
    const tt_entry *e = tt_find_pos(s, t, ts_key(s->g, t), &copy);
    if (!e || !(want == TS_ATTACKER_WINS ? e->pn == 0 : e->dn == 0))
        return -1;
    return tt_move(e);
}

static bool sim_node(ts_search *s, int d, ts_outcome want, int *budget);

/* Plays m at depth d on the line and on the template, then simulates the child. */
static bool sim_child(ts_search *s, int d, int m, ts_outcome want, int *budget)
{
    const ts_geom *g = s->g;
    ts_pos *c = &s->stack[d + 1], *tc = &s->tstack[d + 1];
    const ts_pos *t = &s->tstack[d];
    if (m != TS_PASS && !(ts_ko_allows(t, m) && ts_legal(g, t, m, t->to_move)))
        return false; /* the template has no such line */
    ts_pos_copy(g, c, &s->stack[d]);
    ts_play_move(g, c, m);
    s->nodes++;
    if (c->target_left == 0)
        return want == TS_ATTACKER_WINS;
    uint64_t pk = position_key(g, c);
    for (int i = d - 1; i >= 0; i -= 2)
        if (s->path[i] == pk)
            return false; /* a value resting on the line: left to the search */
    ts_pos_copy(g, tc, t);
    ts_play_move(g, tc, m);
    return sim_node(s, d + 1, want, budget);
}

/* Is s->stack[d] settled as want by following the template s->tstack[d]? */
static bool sim_node(ts_search *s, int d, ts_outcome want, int *budget)
{
    const ts_geom *g = s->g;
    const ts_pos *pos = &s->stack[d];
    if (--*budget < 0 || d >= MAX_DEPTH || s->aborted)
        return false;
    uint64_t key = ts_key(g, pos), fkey = free_key(g, key, pos->budget);
    bool free;
    tt_entry copy;
    const tt_entry *e = tt_find2(s, key, fkey, &free, &copy);
    if (e && tt_root(e))
        return false; /* a value resting on the first position: not for a stored proof */
    if (e && (e->pn == 0 || e->dn == 0))
        return (e->pn == 0) == (want == TS_ATTACKER_WINS);
    int winner = want == TS_ATTACKER_WINS ? (int)g->attacker : (int)g->defender;
    int won_by = -1;
    if (pos->to_move == winner) {
        /* the template's winning move, if it is one of the moves the search allows here (checked
         * first: it is cheap, and a position the rules settle is settled by the search as fast) */
        won_by = template_move(s, &s->tstack[d], want);
        if (won_by < 0)
            return false;
        if (won_by == TS_PASS ? !pass_allowed(g, pos)
                              : pos->p[won_by].color != GO_EMPTY || !ts_ko_allows(pos, won_by) ||
                                    !ts_legal(g, pos, won_by, pos->to_move))
            return false;
    }
    int space;
    ts_outcome t = terminal_in_search(s, pos, &space);
    if (t != TS_OPEN)
        return t == want;
    s->path[d] = position_key(g, pos);
    s->path_threats[d] = pos->threats;
    s->path_ko[d] = pos->ko;
    bool ok = true;
    if (won_by >= 0) {
        ok = sim_child(s, d, won_by, want, budget);
    } else {
        int moves[TS_MAX_POINTS + 1];
        int nm = gen_moves(s, pos, moves, true);
        if (nm == 0)
            ok = want == TS_DEFENDER_WINS; /* the attacker has nothing left to try */
        for (int i = 0; i < nm && ok; i++)
            ok = sim_child(s, d, moves[i], want, budget);
    }
    if (ok)
        tt_store2(s, key, fkey, want == TS_ATTACKER_WINS ? 0 : INF,
                  want == TS_ATTACKER_WINS ? INF : 0, 1, won_by, false, false);
    return ok;
}

/* Tries to settle child k of the node at depth d the way its settled sibling tmpl is settled
 * (the way that needs every child). True when it did; k then holds the value. */
static bool simulate(ts_search *s, int d, child *k, const child *tmpl, ts_outcome want)
{
    const ts_geom *g = s->g;
    const ts_pos *pos = &s->stack[d];
    ts_pos_copy(g, &s->stack[d + 1], pos);
    ts_play_move(g, &s->stack[d + 1], k->move);
    ts_pos_copy(g, &s->tstack[d + 1], pos);
    ts_play_move(g, &s->tstack[d + 1], tmpl->move);
    int budget = SIM_BUDGET;
    if (!sim_node(s, d + 1, want, &budget))
        return false;
    k->pn = want == TS_ATTACKER_WINS ? 0 : INF;
    k->dn = want == TS_ATTACKER_WINS ? INF : 0;
    k->dep = NO_DEP;
    k->free = false; /* not followed move by move: held to the budgets it was proven at */
    s->simulated++;
    return true;
}

void ts_search_set_simulation(ts_search *s, bool on) { s->no_simulation = !on; }

void ts_search_set_eyeless(ts_search *s, bool on) { s->no_eyeless = !on; }

void ts_search_set_sealed(ts_search *s, bool on) { s->no_sealed = !on; }

uint64_t ts_search_simulated(const ts_search *s) { return s->simulated; }

/* Is the settled value of the node at pos, whose children are kids[0..nm), free of the
 * budgets? A win needs one winning child that is free, resting on no repetition, and played
 * without a ko threat (not the ko point) or a pass the defender's threats allowed; a loss needs
 * every child free, and no move of the loser's left out for the budgets (the ko point, the
 * attacker's pass). */
static bool settled_free(const ts_geom *g, const ts_pos *pos, const child *kids, int nm, bool att,
                         bool won)
{
    bool gated = att && pos->passed == 1; /* the attacker's pass hangs on the defender's budget */
    if (won) {
        for (int i = 0; i < nm; i++)
            if ((att ? kids[i].pn == 0 : kids[i].dn == 0) && kids[i].free &&
                kids[i].dep == NO_DEP && kids[i].move != pos->ko &&
                !(gated && kids[i].move == TS_PASS))
                return true;
        return false;
    }
    if ((pos->ko != TS_NONE && !ts_ko_allows(pos, pos->ko)) || (gated && !pass_allowed(g, pos)))
        return false;
    for (int i = 0; i < nm; i++)
        if (!kids[i].free)
            return false;
    return true;
}

/* --- threads in one search --- */

static atomic_ushort *busy_slot(ts_search *s, uint64_t key)
{
    ts_search *lead = s->lead ? s->lead : s;
    return &lead->busy[key >> (64 - BUSY_BITS)];
}

/* Counts the position at depth d, whose key is given, as searched by this thread. */
static void busy_mark(ts_search *s, int d, uint64_t key)
{
    atomic_fetch_add_explicit(busy_slot(s, key), 1, memory_order_relaxed);
    s->marked[d] = true;
}

static void busy_unmark(ts_search *s, int d, uint64_t key)
{
    atomic_fetch_sub_explicit(busy_slot(s, key), 1, memory_order_relaxed);
    s->marked[d] = false;
}

/* The mover's number v of child k as this thread sees it: higher while another thread is
 * searching the child (a settled number stays), so that the threads spread over the tree. */
static uint32_t virtual_number(ts_search *s, const child *k, uint32_t v)
{
    if (!s->locked || v == 0 || v >= INF || !k->key ||
        !atomic_load_explicit(busy_slot(s, k->key), memory_order_relaxed))
        return v;
    return sat_add(v, v / 2 + 1);
}

static void mid(ts_search *s, int d, uint32_t thpn, uint32_t thdn, uint32_t *out_pn,
                uint32_t *out_dn, int *out_dep, bool *out_free);

/* A helper's search: the lead's first position until it or another thread settles it or the
 * lead stops it. */
static void *helper_run(void *arg)
{
    ts_search *h = arg;
    uint32_t pn, dn;
    do {
        int dep;
        bool free;
        mid(h, h->base, INF, INF, &pn, &dn, &dep, &free);
    } while (pn && dn && !h->aborted);
    h->result = pn == 0 ? TS_ATTACKER_WINS : dn == 0 ? TS_DEFENDER_WINS : TS_OPEN;
    if (h->result != TS_OPEN)
        atomic_store(&h->lead->stop, true);
    return NULL;
}

/* Makes the helpers and the table of busy positions; false when out of memory. */
static bool helpers_alloc(ts_search *s)
{
    if (s->helpers)
        return true;
    int n = s->threads - 1;
    s->helpers = calloc((size_t)n, sizeof *s->helpers);
    s->tids = calloc((size_t)n, sizeof *s->tids);
    s->busy = calloc((size_t)1 << BUSY_BITS, sizeof *s->busy);
    bool ok = s->helpers && s->tids && s->busy;
    for (int t = 0; ok && t < n; t++)
        ok = (s->helpers[t] = calloc(1, sizeof(ts_search))) != NULL;
    return ok;
}

static void helpers_free(ts_search *s)
{
    for (int t = 0; s->helpers && t < s->threads - 1; t++)
        free(s->helpers[t]);
    free(s->helpers);
    free(s->tids);
    free(s->busy);
    s->helpers = NULL;
    s->tids = NULL;
    s->busy = NULL;
}

/* Starts the helpers of the lead search s, now at depth d of its line: each searches the same
 * first position, with the same history, prior and ordering knowledge so far. */
static void helpers_start(ts_search *s, int d)
{
    if (!helpers_alloc(s)) {
        helpers_free(s);
        s->threads = 1;
        return;
    }
    atomic_store(&s->stop, false);
    atomic_store(&s->helper_nodes, 0);
    s->locked = true;
    for (int i = s->base; i <= d; i++)
        busy_mark(s, i, ts_key(s->g, &s->stack[i]));
    for (int t = 0; t < s->threads - 1; t++) {
        ts_search *h = s->helpers[t];
        h->g = s->g;
        h->tt = s->tt;
        h->mask = s->mask;
        h->locked = true;
        h->lead = s;
        h->threads = 1;
        h->root_id = s->root_id;
        h->base = s->base;
        memcpy(h->path, s->path, (size_t)s->base * sizeof *s->path);
        memcpy(h->path_threats, s->path_threats, (size_t)s->base);
        memcpy(h->path_ko, s->path_ko, (size_t)s->base);
        ts_pos_copy(s->g, &h->stack[s->base], &s->stack[s->base]);
        memcpy(h->history, s->history, sizeof h->history);
        h->no_simulation = s->no_simulation;
        h->no_eyeless = s->no_eyeless;
        h->no_sealed = s->no_sealed;
        h->prior_color = s->prior_color;
        memcpy(h->prior, s->prior, sizeof h->prior);
        h->deadline_s = 1e300; /* the lead watches the limits and stops the helpers */
        h->max_nodes = 0;
        h->nodes = h->reported = h->simulated = 0;
        h->next_check = CHECK_EVERY;
        h->aborted = false;
        h->result = TS_OPEN;
        if (pthread_create(&s->tids[s->running], NULL, helper_run, h) == 0)
            s->running++;
    }
    if (s->running == 0) {
        for (int i = s->base; i <= d; i++)
            busy_unmark(s, i, ts_key(s->g, &s->stack[i]));
        s->locked = false;
    }
}

/* Stops and joins the helpers of the search that has just ended with root numbers *pn, *dn,
 * which take a helper's result when the lead's own is open; their nodes count as the lead's. */
static void helpers_stop(ts_search *s, uint32_t *pn, uint32_t *dn)
{
    if (!s->running)
        return;
    atomic_store(&s->stop, true);
    for (int t = 0; t < s->running; t++)
        pthread_join(s->tids[t], NULL);
    for (int t = 0; t < s->running; t++) {
        const ts_search *h = s->helpers[t];
        s->nodes += h->nodes;
        s->helped += h->nodes;
        s->simulated += h->simulated;
        if (*pn && *dn && h->result != TS_OPEN) {
            *pn = h->result == TS_ATTACKER_WINS ? 0 : INF;
            *dn = h->result == TS_ATTACKER_WINS ? INF : 0;
        }
    }
    s->running = 0;
    s->locked = false;
    s->aborted = false; /* a stop by a helper's proof is no limit: the limits are read again */
    ts_search_out_of_time(s);
}

uint64_t ts_search_helped(const ts_search *s) { return s->helped; }

void ts_search_set_threads(ts_search *s, int threads)
{
    if (threads < 1)
        threads = 1;
    if (threads > TS_MAX_THREADS)
        threads = TS_MAX_THREADS;
    if (threads != s->threads)
        helpers_free(s);
    s->threads = threads;
}

static void mid_node(ts_search *s, int d, uint32_t thpn, uint32_t thdn, uint32_t *out_pn,
                     uint32_t *out_dn, int *out_dep, bool *out_free)
{
    const ts_geom *g = s->g;
    ts_pos *pos = &s->stack[d];
    uint64_t key = ts_key(g, pos), start = s->nodes;
    s->path[d] = position_key(g, pos);
    s->path_threats[d] = pos->threats;
    s->path_ko[d] = pos->ko;
    /* A position the table holds open was found open by the rules before (settled values are
     * the only ones stored otherwise): df-pn comes back to a node many times, and Benson's
     * test and the eye space, a third of a visit, are then skipped. The eye space is still
     * wanted for children the table does not know (space < 0: not computed yet). */
    int space = -1;
    uint64_t fkey = free_key(g, key, pos->budget);
    tt_entry copy;
    const tt_entry *self = tt_find(s, key, fkey, &copy);
    ts_outcome t = self && self->pn && self->dn ? TS_OPEN : terminal_in_search(s, pos, &space);
    if (t == TS_OPEN && d >= MAX_DEPTH) {
        /* the defender survives a line this long: a value of this line only, never stored */
        *out_pn = INF;
        *out_dn = 0;
        *out_dep = DEP_LENGTH;
        *out_free = false;
        return;
    }
    int moves[TS_MAX_POINTS + 1];
    int nm = t == TS_OPEN ? ts_search_moves(s, pos, moves) : 0;
    /* a value of the rules holds at any budget, but the attacker's having nothing left to try
     * may come of its budgets */
    bool free = t != TS_OPEN || (pos->ko == TS_NONE && pos->passed != 1);
    if (t == TS_OPEN && nm == 0)
        t = TS_DEFENDER_WINS; /* the attacker has nothing left to try: it failed to kill */
    if (d == s->base && pos->to_move == s->prior_color)
        order_by_prior(s, moves, nm);
    if (t != TS_OPEN) {
        *out_pn = t == TS_ATTACKER_WINS ? 0 : INF;
        *out_dn = t == TS_ATTACKER_WINS ? INF : 0;
        *out_dep = NO_DEP;
        *out_free = free;
        tt_store2(s, key, fkey, *out_pn, *out_dn, 1, -1, false, free);
        return;
    }
    bool att = pos->to_move == g->attacker;
    child *kids = s->kids[d];
    /* deep df-pn (Zhang, Li and Wu 2017): a new child's numbers start higher the nearer it is to
     * the search's first position, so that the search follows a line down before it spreads
     * near the top (node-limited, seed-2 samples: intermediate 81 -> 82 proven, advanced 41 ->
     * 42, 7-13% fewer nodes on the problems proven both ways) */
    int depth = d - s->base;
    uint32_t shallow = depth < DEEP_DEPTH ? (uint32_t)((DEEP_DEPTH - depth) / DEEP_STEP) : 0;
    for (int i = 0; i < nm; i++) {
        kids[i].simulated = false;
        if (child_by_rules(s, d, moves[i], &kids[i]))
            kids[i].key = 0;
    }
    for (int i = 0; i < nm; i++) {
        const tt_entry *e =
            kids[i].key ? tt_find2(s, kids[i].key, kids[i].fkey, &kids[i].free, &copy) : NULL;
        if (e) {
            kids[i].pn = e->pn;
            kids[i].dn = e->dn;
            if (tt_root(e))
                kids[i].dep = 0; /* rests on a repetition of a position this search's lines
                                    share (its first one or its history): the first, to be safe */
            continue;
        }
        if (!kids[i].key)
            continue; /* settled by the rules */
        /* df-pn+ initialisation from the defender's eye space (one point less after a defender
         * stone): a large space takes the attacker many moves to reduce and the defender few to
         * divide into eyes, a small one the other way round */
        if (space < 0) {
            bool dead;
            space = pos->target_left ? ts_defender_space(g, pos, false, &dead) : 0;
        }
        int sp = space - (!att && moves[i] != TS_PASS);
        kids[i].pn = sp > 2 ? (uint32_t)(sp - 1) : 1;
        kids[i].dn = sp < SPACE_LIVE ? (uint32_t)(SPACE_LIVE - sp) : 1;
        /* the mover's own number grows along the move order, so that the search stays with the
         * likely moves (captures, ataris, the target's liberties) before it spreads out */
        uint32_t late = (uint32_t)(i / RANK_STEP);
        kids[i].pn += shallow;
        kids[i].dn += shallow;
        if (att)
            kids[i].pn += late;
        else
            kids[i].dn += late;
    }
    uint32_t pn = 0, dn = 0;
    int best = 0;
    for (;;) {
        /* the node's numbers; best = the child to expand, second = the runner-up's number */
        uint32_t second = INF;
        if (att) {
            pn = INF;
            dn = 0;
            for (int i = 0; i < nm; i++) {
                dn = sat_add(dn, kids[i].dn);
                uint32_t v = virtual_number(s, &kids[i], kids[i].pn);
                if (v < pn) {
                    second = pn;
                    pn = v;
                    best = i;
                } else if (v < second) {
                    second = v;
                }
            }
        } else {
            pn = 0;
            dn = INF;
            for (int i = 0; i < nm; i++) {
                pn = sat_add(pn, kids[i].pn);
                uint32_t v = virtual_number(s, &kids[i], kids[i].dn);
                if (v < dn) {
                    second = dn;
                    dn = v;
                    best = i;
                } else if (v < second) {
                    second = v;
                }
            }
        }
        if (pn >= thpn || dn >= thdn || s->aborted)
            break;
        child *k = &kids[best];
        if (!k->simulated && !s->no_simulation) {
            /* a sibling settled the way that needs every child: follow its proof first */
            k->simulated = true;
            int tmpl = -1;
            for (int i = 0; i < nm; i++)
                if ((att ? kids[i].dn == 0 : kids[i].pn == 0) && kids[i].dep == NO_DEP &&
                    kids[i].key && (tmpl < 0 || kids[i].move == TS_PASS))
                    tmpl = i;
            if (tmpl >= 0 &&
                simulate(s, d, k, &kids[tmpl], att ? TS_DEFENDER_WINS : TS_ATTACKER_WINS))
                continue;
        }
        uint32_t eps = second >= INF ? INF : second + second / 4 + 1;
        uint32_t cpn, cdn;
        if (att) {
            cpn = thpn < eps ? thpn : eps;
            cdn = thdn - dn + k->dn;
        } else {
            cdn = thdn < eps ? thdn : eps;
            cpn = thpn - pn + k->pn;
        }
        ts_pos_copy(g, &s->stack[d + 1], pos);
        ts_play_move(g, &s->stack[d + 1], k->move);
        mid(s, d + 1, cpn, cdn, &k->pn, &k->dn, &k->dep, &k->free);
    }
    *out_pn = pn;
    *out_dn = dn;
    /* history heuristic: a move that settled a node is tried early elsewhere */
    if ((pn == 0 || dn == 0) && kids[best].move != TS_PASS) {
        uint32_t *h = &s->history[pos->to_move][kids[best].move];
        *h += *h < HISTORY_MAX;
    }
    /* a value that rests on a repetition of a position above this one would be wrong for the
     * same position reached along another line (the graph-history interaction): it goes back
     * to the parent only, until the search is back at the repeated position (or when that is
     * the search's first position, on every line of this search) */
    int dep = pn == 0 || dn == 0 ? settled_by_line(kids, nm, att, pn) : NO_DEP;
    *out_dep = dep < d ? dep : NO_DEP;
    bool won = att ? pn == 0 : dn == 0; /* the mover's winning move is kids[best] */
    *out_free = (pn == 0 || dn == 0) && dep == NO_DEP && settled_free(g, pos, kids, nm, att, won);
    if (dep >= d || (dep >= 0 && dep <= s->base))
        tt_store2(s, key, fkey, pn, dn, s->nodes - start, won ? kids[best].move : -1, dep < d,
                  *out_free);
}

/* One node of df-pn: mid_node, with the clock read now and then, the helpers started once the
 * search has run SPAWN_NODES alone, and the position counted as searched by this thread while
 * the table is shared. */
static void mid(ts_search *s, int d, uint32_t thpn, uint32_t thdn, uint32_t *out_pn,
                uint32_t *out_dn, int *out_dep, bool *out_free)
{
    if (s->nodes >= s->next_check) {
        s->next_check = s->nodes + CHECK_EVERY;
        if (s->lead) {
            atomic_fetch_add(&s->lead->helper_nodes, s->nodes - s->reported);
            s->reported = s->nodes;
        } else if (s->threads > 1 && !s->running && s->nodes - s->started_at >= SPAWN_NODES &&
                   !s->aborted) {
            helpers_start(s, d);
        }
        ts_search_out_of_time(s);
    }
    if (s->locked && !s->marked[d])
        busy_mark(s, d, ts_key(s->g, &s->stack[d]));
    mid_node(s, d, thpn, thdn, out_pn, out_dn, out_dep, out_free);
    if (s->marked[d]) /* the position at d is unchanged below it */
        busy_unmark(s, d, ts_key(s->g, &s->stack[d]));
}

/* A new search: values resting on the last one's first position stop being valid. After 32767
 * searches the ids come round again, and the old ones' entries go. */
static void new_root(ts_search *s)
{
    if (++s->root_id <= MAX_ROOT_ID)
        return;
    s->root_id = 1;
    for (uint64_t i = 0; i <= s->mask; i++)
        for (int k = 0; k < BUCKET; k++)
            if (tt_root(&s->tt[i].e[k]))
                memset(&s->tt[i].e[k], 0, sizeof(tt_entry));
}

ts_outcome ts_search_prove_line(ts_search *s, const ts_pos *line, int n)
{
    if (n < 1 || n > MAX_DEPTH / 2)
        return TS_OPEN; /* no position, or a history that leaves the search no room */
    const ts_pos *root = &line[n - 1];
    new_root(s);
    s->base = n - 1;
    for (int i = 0; i < s->base; i++) {
        s->path[i] = position_key(s->g, &line[i]);
        s->path_threats[i] = line[i].threats;
        s->path_ko[i] = line[i].ko;
    }
    ts_pos_copy(s->g, &s->stack[s->base], root);
    uint32_t pn, dn;
    if (ts_search_out_of_time(s)) {
        ts_search_lookup(s, root, &pn, &dn, NULL);
        return pn == 0 ? TS_ATTACKER_WINS : dn == 0 ? TS_DEFENDER_WINS : TS_OPEN;
    }
    s->started_at = s->nodes;
    do {
        int dep;
        bool free;
        mid(s, s->base, INF, INF, &pn, &dn, &dep, &free);
    } while (pn && dn && !s->aborted);
    helpers_stop(s, &pn, &dn);
    return pn == 0 ? TS_ATTACKER_WINS : dn == 0 ? TS_DEFENDER_WINS : TS_OPEN;
}

ts_outcome ts_search_prove(ts_search *s, const ts_pos *root)
{
    return ts_search_prove_line(s, root, 1);
}
