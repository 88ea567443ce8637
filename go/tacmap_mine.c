/* go/tacmap_mine.c -- mining tactical maps that characterise (position, move) pairs.
 *
 * Every candidate map is evaluated on every pair; its selected sets S_1..S_N are hashed into a
 * 64-bit signature, and a table keeps, per signature, the shallowest and smallest spelling (maps
 * that select the same moves everywhere are one characterisation, however written). Work is cut
 * into chunks with their own random streams, each worker keeps its own table, and the tables are
 * merged with an order-free rule, so the result does not depend on the number of threads. The
 * best maps are then intersected pairwise: two half-good maps often make a good one that random
 * generation would reach only at its full depth.
 */
#include "go/tacmap_mine.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "go/bwgraph.h"
#include "go/clock.h"
#include "go/hash.h"

#define CHUNK 256                 /* maps per unit of work */
#define REFINE_OVERLAP 0.9        /* near-duplicates left out of the pool of maps to intersect */
#define NUM_UNARY 31
#define NUM_LEVEL2 (GO_TM_NUM_LEAVES + NUM_UNARY * GO_TM_NUM_LEAVES + 3 * GO_TM_NUM_LEAVES * GO_TM_NUM_LEAVES)

typedef struct mine_pos {
    go_bw g;                      /* colours swapped when White moved */
    go_tm_leaves leaves;
    go_bb legal;
    int bit;                      /* the move */
    int num_legal;
} mine_pos;

struct go_tm_mine_set {
    int count, cap;
    mine_pos *pos;
};

/* ---- scoring ---- */

typedef struct acc {
    int n, hits;
    double sum_selected, sum_legal, sum_frac;
    double bits;                  /* sum of log2(|L|/|S|) over hits, log2(|L|/(|L|-|S|)) misses */
} acc;

static void acc_add(acc *a, bool hit, int selected, int legal)
{
    a->n++;
    a->sum_selected += selected;
    a->sum_legal += legal;
    if (legal > 0)
        a->sum_frac += (double)selected / legal;
    if (hit && selected > 0) {
        a->hits++;
        a->bits += log2((double)legal / selected);
    } else if (hit) {
        a->hits++;
    } else if (legal > selected) {
        a->bits += log2((double)legal / (legal - selected));
    }
}

static double xlog2x(double x) { return x > 0 ? x * log2(x) : 0; }

static go_tm_mine_stats acc_finish(const acc *a)
{
    go_tm_mine_stats st = {0};
    st.pairs = a->n;
    st.hits = a->hits;
    if (a->n == 0)
        return st;
    st.coverage = (double)a->hits / a->n;
    st.mean_selected = a->sum_selected / a->n;
    st.mean_legal = a->sum_legal / a->n;
    st.selectivity = a->sum_frac / a->n;
    st.lift = st.selectivity > 0 ? st.coverage / st.selectivity : 0;
    if (st.coverage > st.selectivity)
        st.score_bits = a->bits / a->n + xlog2x(st.coverage) + xlog2x(1 - st.coverage);
    if (st.score_bits < 0) /* rounding: the ML value is >= 0 */
        st.score_bits = 0;
    return st;
}

go_tm_mine_stats go_tm_mine_score(int n, const bool *hit, const int *selected, const int *legal)
{
    acc a = {0};
    for (int i = 0; i < n; i++)
        acc_add(&a, hit[i], selected[i], legal[i]);
    return acc_finish(&a);
}

/* ---- the set of pairs ---- */

go_tm_mine_set *go_tm_mine_set_new(void) { return calloc(1, sizeof(go_tm_mine_set)); }

void go_tm_mine_set_free(go_tm_mine_set *s)
{
    if (!s)
        return;
    free(s->pos);
    free(s);
}

int go_tm_mine_set_count(const go_tm_mine_set *s) { return s->count; }

bool go_tm_mine_set_add(go_tm_mine_set *s, const go_board *b, int move, go_color mover, char *err,
                        int err_len)
{
    if ((mover != GO_BLACK && mover != GO_WHITE) || move == GO_PASS || !go_board_on(b, move) ||
        !go_board_is_legal(b, move, mover, false)) {
        char v[8] = "pass";
        if (move != GO_PASS && go_board_on(b, move))
            go_point_to_gtp(b->size, move, v);
        snprintf(err, (size_t)err_len, "%s: move %s is not a legal move for %s", __func__, v,
                 mover == GO_WHITE ? "white" : "black");
        return false;
    }
    if (s->count == s->cap) {
        int cap = s->cap ? 2 * s->cap : 64;
        mine_pos *p = realloc(s->pos, (size_t)cap * sizeof *p);
        if (!p) {
            snprintf(err, (size_t)err_len, "%s: out of memory for %d positions", __func__, cap);
            return false;
        }
        s->pos = p;
        s->cap = cap;
    }
    mine_pos *p = &s->pos[s->count++];
    go_bw_from_board(&p->g, b);
    if (mover == GO_WHITE) {
        go_bb t = p->g.b;
        p->g.b = p->g.w;
        p->g.w = t;
    }
    go_tm_leaves_init(&p->leaves, &p->g);
    p->legal = go_bb_none();
    for (int y = 0; y < b->size; y++)
        for (int x = 0; x < b->size; x++)
            if (b->color[go_point_at(x, y)] == GO_EMPTY &&
                go_board_is_legal(b, go_point_at(x, y), mover, false))
                go_bb_set(&p->legal, go_bb_bit_at(x, y));
    p->num_legal = go_bb_count(p->legal);
    p->bit = go_bb_bit_of(move);
    return true;
}

/* Stafford's variant 14, not go/hash.h's variant 13: the signatures and the random maps drawn
 * from a seed are made with this one. */
static uint64_t mix64(uint64_t x)
{
    x ^= x >> 31;
    x *= 0x7fb5d329728ea185ull;
    x ^= x >> 27;
    x *= 0x81dadef4bc2dd44dull;
    return x ^ (x >> 33);
}

/* Evaluates m on every pair: the measures, and the signature of S_1..S_N. */
static go_tm_mine_stats eval_all(const go_tm_mine_set *s, const go_tmap *m, go_bb *sets,
                                 uint64_t *sig)
{
    acc a = {0};
    uint64_t h = 0x243f6a8885a308d3ull;
    for (int i = 0; i < s->count; i++) {
        const mine_pos *p = &s->pos[i];
        go_bb sel = go_bb_and(go_tm_eval(m, &p->g, &p->leaves), p->legal);
        if (sets)
            sets[i] = sel;
        for (int w = 0; w < GO_BB_WORDS; w++)
            h = mix64(h ^ sel.w[w]) + (uint64_t)w;
        acc_add(&a, go_bb_test(sel, p->bit), go_bb_count(sel), p->num_legal);
    }
    if (sig)
        *sig = h;
    return acc_finish(&a);
}

go_tm_mine_stats go_tm_mine_eval(const go_tm_mine_set *s, const go_tmap *m, go_bb *sets)
{
    return eval_all(s, m, sets, NULL);
}

/* ---- the table of candidates: signature -> best spelling ---- */

typedef struct cand {
    uint64_t sig;                 /* 0 = free slot (a real signature of 0 is bumped to 1) */
    go_tm_mine_stats stats;
    int depth;
    int num_nodes;
    go_tm_node *nodes;            /* malloc'd, num_nodes long */
} cand;

typedef struct table {
    cand *slot;
    size_t cap, used;
    bool oom;
} table;

static void cand_to_map(const cand *c, go_tmap *m)
{
    m->num_nodes = c->num_nodes;
    memcpy(m->node, c->nodes, (size_t)c->num_nodes * sizeof *c->nodes);
}

/* Order of preference between two spellings of one signature, or two candidates in the final
 * ranking: < 0 when a comes first. A total order, so merging is order-free. */
static int cand_cmp_spelling(const cand *a, const cand *b)
{
    if (a->depth != b->depth)
        return a->depth - b->depth;
    if (a->num_nodes != b->num_nodes)
        return a->num_nodes - b->num_nodes;
    static _Thread_local go_tmap ma, mb;
    static _Thread_local char ta[2048], tb[2048];
    cand_to_map(a, &ma);
    cand_to_map(b, &mb);
    go_tm_print(&ma, ta, sizeof ta);
    go_tm_print(&mb, tb, sizeof tb);
    int c = strcmp(ta, tb);
    return c ? c : memcmp(a->nodes, b->nodes, (size_t)a->num_nodes * sizeof *a->nodes);
}

static int cand_cmp_rank(const void *pa, const void *pb)
{
    const cand *a = pa, *b = pb;
    if (a->stats.score_bits != b->stats.score_bits)
        return a->stats.score_bits > b->stats.score_bits ? -1 : 1;
    int c = cand_cmp_spelling(a, b);
    if (c)
        return c;
    return a->sig < b->sig ? -1 : a->sig > b->sig;
}

static bool table_grow(table *t)
{
    size_t cap = t->cap ? 2 * t->cap : 1024;
    cand *slot = calloc(cap, sizeof *slot);
    if (!slot) {
        t->oom = true;
        return false;
    }
    for (size_t i = 0; i < t->cap; i++) {
        if (!t->slot[i].sig)
            continue;
        size_t k = t->slot[i].sig & (cap - 1);
        while (slot[k].sig)
            k = (k + 1) & (cap - 1);
        slot[k] = t->slot[i];
    }
    free(t->slot);
    t->slot = slot;
    t->cap = cap;
    return true;
}

/* Offers a candidate (nodes copied unless take_nodes, which hands c->nodes over). */
static void table_offer(table *t, cand *c, bool take_nodes)
{
    if (c->sig == 0)
        c->sig = 1;
    if ((t->used + 1) * 2 > t->cap && !table_grow(t)) {
        if (take_nodes)
            free(c->nodes);
        return;
    }
    size_t k = c->sig & (t->cap - 1);
    while (t->slot[k].sig && t->slot[k].sig != c->sig)
        k = (k + 1) & (t->cap - 1);
    cand *e = &t->slot[k];
    if (e->sig && cand_cmp_spelling(c, e) >= 0) {
        if (take_nodes)
            free(c->nodes);
        return;
    }
    go_tm_node *nodes = c->nodes;
    if (!take_nodes) {
        nodes = malloc((size_t)c->num_nodes * sizeof *nodes);
        if (!nodes) {
            t->oom = true;
            return;
        }
        memcpy(nodes, c->nodes, (size_t)c->num_nodes * sizeof *nodes);
    }
    if (e->sig)
        free(e->nodes);
    else
        t->used++;
    *e = *c;
    e->nodes = nodes;
}

static void table_free(table *t)
{
    for (size_t i = 0; i < t->cap; i++)
        if (t->slot[i].sig)
            free(t->slot[i].nodes);
    free(t->slot);
    memset(t, 0, sizeof *t);
}

/* ---- the maps tried ---- */

static void set_unary(go_tm_node *nd, int k, int child)
{
    nd->op = (uint8_t)(k == 0 ? GO_TM_NOT : GO_TM_PRE + (k - 1) / 5);
    nd->n = (uint8_t)(k == 0 ? 0 : (k - 1) % 5 + 1);
    nd->a = (int16_t)child;
    nd->b = -1;
}

static int push_leaf(go_tmap *m, int op)
{
    m->node[m->num_nodes] = (go_tm_node){(uint8_t)op, 0, -1, -1};
    return m->num_nodes++;
}

/* Map j of depth <= 2 (j < NUM_LEVEL2): leaves, unary(leaf), binary(leaf, leaf). */
static int push_level2(go_tmap *m, int j)
{
    if (j < GO_TM_NUM_LEAVES)
        return push_leaf(m, j);
    j -= GO_TM_NUM_LEAVES;
    if (j < NUM_UNARY * GO_TM_NUM_LEAVES) {
        int a = push_leaf(m, j % GO_TM_NUM_LEAVES);
        set_unary(&m->node[m->num_nodes], j / GO_TM_NUM_LEAVES, a);
        return m->num_nodes++;
    }
    j -= NUM_UNARY * GO_TM_NUM_LEAVES;
    int op = j / (GO_TM_NUM_LEAVES * GO_TM_NUM_LEAVES), r = j % (GO_TM_NUM_LEAVES * GO_TM_NUM_LEAVES);
    int a = push_leaf(m, r / GO_TM_NUM_LEAVES), b = push_leaf(m, r % GO_TM_NUM_LEAVES);
    m->node[m->num_nodes] = (go_tm_node){(uint8_t)(GO_TM_UNION + op), 0, (int16_t)a, (int16_t)b};
    return m->num_nodes++;
}

static long num_enumerated(int max_depth)
{
    return max_depth <= 1 ? GO_TM_NUM_LEAVES
           : max_depth == 2 ? NUM_LEVEL2 : (long)NUM_LEVEL2 * (1 + NUM_UNARY);
}

/* Map number e of the enumeration. */
static void enumerated_map(go_tmap *m, long e)
{
    m->num_nodes = 0;
    if (e < NUM_LEVEL2) {
        push_level2(m, (int)e);
        return;
    }
    e -= NUM_LEVEL2;
    int child = push_level2(m, (int)(e % NUM_LEVEL2));
    set_unary(&m->node[m->num_nodes], (int)(e / NUM_LEVEL2), child);
    m->num_nodes++;
}

/* Random map number t (its stream seeded by the chunk, so independent of the threads). */
static void random_map(go_tmap *m, long t, int max_depth, uint64_t *rng)
{
    int depth = max_depth < 2 ? 1 : 2 + (int)(t % (max_depth - 1));
    if ((t / (max_depth < 2 ? 1 : max_depth - 1)) % 4 == 3)
        go_tm_random(m, depth, rng);
    else
        go_tm_random_grow(m, depth, rng);
}

/* ---- workers ---- */

typedef struct job {
    const go_tm_mine_set *set;
    const go_tm_mine_params *params;
    long num_enum, total;
    atomic_long next_chunk;
    atomic_long done;
} job;

typedef struct worker {
    job *job;
    table table;
    long evaluated;
} worker;

static void offer_map(worker *w, const go_tmap *m)
{
    uint64_t sig;
    go_tm_mine_stats st = eval_all(w->job->set, m, NULL, &sig);
    w->evaluated++;
    if (st.score_bits <= 0)
        return;
    cand c = {sig, st, go_tm_depth(m), m->num_nodes, (go_tm_node *)m->node};
    table_offer(&w->table, &c, false);
}

static void *worker_main(void *arg)
{
    worker *w = arg;
    job *j = w->job;
    static _Thread_local go_tmap m;
    long num_chunks = (j->total + CHUNK - 1) / CHUNK;
    for (;;) {
        long k = atomic_fetch_add(&j->next_chunk, 1);
        if (k >= num_chunks)
            return NULL;
        uint64_t rng = mix64(j->params->seed * GO_HASH_GOLDEN + (uint64_t)k) | 1;
        long end = (k + 1) * CHUNK < j->total ? (k + 1) * CHUNK : j->total;
        for (long t = k * CHUNK; t < end; t++) {
            if (t < j->num_enum)
                enumerated_map(&m, t);
            else
                random_map(&m, t - j->num_enum, j->params->max_depth, &rng);
            offer_map(w, &m);
        }
        atomic_fetch_add(&j->done, end - k * CHUNK);
    }
}

go_tm_mine_params go_tm_mine_defaults(void)
{
    go_tm_mine_params p = {4, 200000, true, 200, 0.7, 1, 1, NULL, NULL};
    return p;
}

/* Intersects every pair of the candidates top[0..n), whose selected sets are sets[i * count..]. */
static void refine(const go_tm_mine_set *s, const go_tm_mine_params *pr, const cand *top, int n,
                   const go_bb *sets, table *t, long *evaluated)
{
    int count = s->count;
    static _Thread_local go_tmap ma, mb, mc;
    for (int i = 0; i < n; i++)
        for (int k = i + 1; k < n; k++) {
            int depth = 1 + (top[i].depth > top[k].depth ? top[i].depth : top[k].depth);
            if (depth > pr->max_depth || top[i].num_nodes + top[k].num_nodes + 1 > GO_TM_MAX_NODES)
                continue;
            acc a = {0};
            uint64_t h = 0x243f6a8885a308d3ull;
            for (int q = 0; q < count; q++) {
                const mine_pos *p = &s->pos[q];
                go_bb sel = go_bb_and(sets[(size_t)i * (size_t)count + (size_t)q],
                                      sets[(size_t)k * (size_t)count + (size_t)q]);
                for (int w = 0; w < GO_BB_WORDS; w++)
                    h = mix64(h ^ sel.w[w]) + (uint64_t)w;
                acc_add(&a, go_bb_test(sel, p->bit), go_bb_count(sel), p->num_legal);
            }
            (*evaluated)++;
            go_tm_mine_stats st = acc_finish(&a);
            if (st.score_bits <= 0)
                continue;
            /* The operands in spelling order, so A & B and B & A are one spelling. */
            const cand *x = &top[i], *y = &top[k];
            if (cand_cmp_spelling(x, y) > 0) {
                const cand *tmp = x;
                x = y;
                y = tmp;
            }
            cand_to_map(x, &ma);
            cand_to_map(y, &mb);
            mc = ma;
            for (int q = 0; q < mb.num_nodes; q++) {
                go_tm_node nd = mb.node[q];
                if (nd.a >= 0)
                    nd.a = (int16_t)(nd.a + ma.num_nodes);
                if (nd.b >= 0)
                    nd.b = (int16_t)(nd.b + ma.num_nodes);
                mc.node[mc.num_nodes++] = nd;
            }
            mc.node[mc.num_nodes] = (go_tm_node){GO_TM_INTER, 0, (int16_t)(ma.num_nodes - 1),
                                                 (int16_t)(mc.num_nodes - 1)};
            mc.num_nodes++;
            cand c = {h, st, depth, mc.num_nodes, mc.node};
            table_offer(t, &c, false);
        }
}

/* The table's candidates in rank order: a malloc'd array (nodes still owned by the table). */
static cand *ranked(const table *t)
{
    cand *list = malloc((t->used ? t->used : 1) * sizeof *list);
    if (!list)
        return NULL;
    size_t n = 0;
    for (size_t i = 0; i < t->cap; i++)
        if (t->slot[i].sig)
            list[n++] = t->slot[i];
    qsort(list, n, sizeof *list, cand_cmp_rank);
    return list;
}

/* Mean over the pairs of |S_i & S'_i| / |S_i | S'_i| (pairs where both are empty count 1). */
static double overlap(const go_bb *a, const go_bb *b, int count)
{
    double sum = 0;
    for (int i = 0; i < count; i++) {
        int u = go_bb_count(go_bb_or(a[i], b[i]));
        sum += u ? (double)go_bb_count(go_bb_and(a[i], b[i])) / u : 1;
    }
    return sum / count;
}

/* Picks from list[0..n) (in rank order) up to max_pick candidates whose sets overlap those of
 * every earlier pick by at most max_overlap (>= 1: the first max_pick). Writes their indices into
 * pick and their sets into sets (room for max_pick + 1 blocks of s->count); returns how many. */
static int pick_diverse(const go_tm_mine_set *s, const cand *list, size_t n, double max_overlap,
                        int max_pick, int *pick, go_bb *sets)
{
    static _Thread_local go_tmap m;
    int count = s->count, picked = 0;
    for (size_t i = 0; i < n && picked < max_pick; i++) {
        go_bb *mine = sets + (size_t)picked * (size_t)count;
        cand_to_map(&list[i], &m);
        eval_all(s, &m, mine, NULL);
        bool fresh = true;
        for (int k = 0; k < picked && fresh && max_overlap < 1; k++)
            fresh = overlap(mine, sets + (size_t)k * (size_t)count, count) <= max_overlap;
        if (fresh)
            pick[picked++] = (int)i;
    }
    return picked;
}

int go_tm_mine_run(const go_tm_mine_set *s, const go_tm_mine_params *pr, go_tm_mined *out,
                   int max_out, go_tm_mine_info *info, char *err, int err_len)
{
    if (!s || s->count == 0) {
        snprintf(err, (size_t)err_len, "%s: no (position, move) pairs to mine", __func__);
        return -1;
    }
    if (pr->max_depth < 1 || pr->max_depth > GO_TM_MAX_RANDOM_DEPTH || pr->tries < 0 ||
        pr->threads < 1 || pr->refine < 0 || max_out < 0 || !(pr->max_overlap >= 0)) {
        snprintf(err, (size_t)err_len,
                 "%s: bad parameters (max depth %d, tries %ld, threads %d, refine %d, out %d)",
                 __func__, pr->max_depth, pr->tries, pr->threads, pr->refine, max_out);
        return -1;
    }
    double t0 = go_now_s();
    job j = {s, pr, pr->enumerate ? num_enumerated(pr->max_depth) : 0, 0, 0, 0};
    j.total = j.num_enum + pr->tries;
    worker *w = calloc((size_t)pr->threads, sizeof *w);
    pthread_t *tid = calloc((size_t)pr->threads, sizeof *tid);
    int started = 0;
    for (int k = 0; w && tid && k < pr->threads; k++) {
        w[started].job = &j;
        started += pthread_create(&tid[started], NULL, worker_main, &w[started]) == 0;
    }
    if (started == 0) {
        snprintf(err, (size_t)err_len, "%s: cannot start worker threads", __func__);
        free(w);
        free(tid);
        return -1;
    }
    while (pr->progress && atomic_load(&j.done) < j.total) {
        pr->progress(atomic_load(&j.done), j.total, pr->progress_ctx);
        nanosleep(&(struct timespec){0, 250000000L}, NULL);
    }
    for (int k = 0; k < started; k++)
        pthread_join(tid[k], NULL);
    if (pr->progress)
        pr->progress(j.total, j.total, pr->progress_ctx);
    table all = w[0].table;
    long evaluated = w[0].evaluated;
    for (int k = 1; k < started; k++) {
        for (size_t i = 0; i < w[k].table.cap; i++)
            if (w[k].table.slot[i].sig)
                table_offer(&all, &w[k].table.slot[i], true);
        all.oom |= w[k].table.oom;
        free(w[k].table.slot);
        evaluated += w[k].evaluated;
    }
    free(w);
    free(tid);

    int written = -1, max_pick = pr->refine > max_out ? pr->refine : max_out;
    cand *list = ranked(&all);
    int *pick = malloc(((size_t)max_pick + 1) * sizeof *pick);
    go_bb *sets = malloc(((size_t)max_pick + 1) * (size_t)s->count * sizeof *sets);
    cand *top = malloc(((size_t)max_pick + 1) * sizeof *top);
    all.oom |= !list || !pick || !sets || !top;
    if (!all.oom && pr->refine > 0) {
        /* The pool: the best maps that are not near-duplicates of better ones, copied (nodes
         * included) because offering may replace and free a table entry's nodes. */
        int n = pick_diverse(s, list, all.used, REFINE_OVERLAP, pr->refine, pick, sets);
        int copied = 0;
        for (; copied < n && !all.oom; copied++) {
            const cand *c = &list[pick[copied]];
            top[copied] = *c;
            top[copied].nodes = malloc((size_t)c->num_nodes * sizeof *c->nodes);
            if (top[copied].nodes)
                memcpy(top[copied].nodes, c->nodes, (size_t)c->num_nodes * sizeof *c->nodes);
            else
                all.oom = true;
        }
        if (!all.oom)
            refine(s, pr, top, n, sets, &all, &evaluated);
        for (int i = 0; i < copied; i++)
            free(top[i].nodes);
        free(list);
        list = ranked(&all);
        all.oom |= !list;
    }
    if (all.oom) {
        snprintf(err, (size_t)err_len, "%s: out of memory for %zu candidate maps", __func__,
                 all.used);
    } else {
        written = pick_diverse(s, list, all.used, pr->max_overlap, max_out, pick, sets);
        for (int i = 0; i < written; i++) {
            cand_to_map(&list[pick[i]], &out[i].map);
            out[i].depth = list[pick[i]].depth;
            out[i].stats = list[pick[i]].stats;
        }
    }
    free(pick);
    free(sets);
    free(top);
    if (info) {
        info->evaluated = evaluated;
        info->distinct = (long)all.used;
        info->seconds = go_now_s() - t0;
    }
    free(list);
    table_free(&all);
    return written;
}

/* ---- plain words ---- */

typedef struct out {
    char *buf;
    int len, used;
} out;

static void put(out *o, const char *s)
{
    for (; *s; s++, o->used++)
        if (o->used + 1 < o->len)
            o->buf[o->used] = *s;
}

static void gloss_rec(const go_tmap *m, int i, out *o)
{
    static const char *leaf[GO_TM_NUM_LEAVES] = {
        "own stones or empty points", "enemy stones or empty points", "own stones",
        "enemy stones", "empty points", "atari points"};
    const go_tm_node *nd = &m->node[i];
    char num[80];
    int n = nd->n;
    switch (nd->op) {
    case GO_TM_NOT: put(o, "points not in ["); break;
    case GO_TM_ADJ:
    case GO_TM_NADJ:
        snprintf(num, sizeof num, "points with %s %d of [", nd->op == GO_TM_ADJ ? "at least" : "fewer than", n);
        put(o, n == 1 ? (nd->op == GO_TM_ADJ ? "points in or next to [" : "points not in or next to [") : num);
        break;
    case GO_TM_PRE:
    case GO_TM_NPRE:
        snprintf(num, sizeof num, "points whose chain touches %s %d of [",
                 nd->op == GO_TM_PRE ? "at least" : "fewer than", n);
        put(o, n == 1 ? (nd->op == GO_TM_PRE ? "points whose chain touches ["
                                            : "points whose chain touches none of [")
                      : num);
        break;
    case GO_TM_SUC:
    case GO_TM_NSUC:
        snprintf(num, sizeof num, "points touched by the chains of %s %d of [",
                 nd->op == GO_TM_SUC ? "at least" : "fewer than", n);
        put(o, n == 1 ? (nd->op == GO_TM_SUC ? "points touched by the chains of ["
                                            : "points touched by the chains of none of [")
                      : num);
        break;
    case GO_TM_UNION:
    case GO_TM_INTER:
    case GO_TM_DIFF:
        put(o, "[");
        gloss_rec(m, nd->a, o);
        put(o, nd->op == GO_TM_UNION ? "] or [" : nd->op == GO_TM_INTER ? "] that are [" : "] except [");
        gloss_rec(m, nd->b, o);
        put(o, "]");
        return;
    default: put(o, leaf[nd->op]); return;
    }
    gloss_rec(m, nd->a, o);
    put(o, "]");
}

int go_tm_mine_gloss(const go_tmap *m, char *buf, int len)
{
    out o = {buf, len, 0};
    if (m->num_nodes)
        gloss_rec(m, m->num_nodes - 1, &o);
    if (len > 0)
        buf[o.used < len ? o.used : len - 1] = 0;
    return o.used >= len ? -1 : o.used;
}

const char *go_tm_mine_op_legend(int op)
{
    static const char *legend[GO_TM_OP_COUNT] = {
        "b      own stones and empty points (the mover's side; White's moves are colour-swapped)",
        "w      enemy stones and empty points",
        "black  own stones (b - w)",
        "white  enemy stones (w - b)",
        "empty  empty points (b & w)",
        "H      atari points: stones whose chain has one liberty, empty points with no empty "
        "neighbour",
        "~X     the points not in X",
        "PreN(X)  points whose chain and its neighbours (the point and its neighbours, if empty) "
        "hold >= N points of X",
        "SucN(X)  points that the chains of >= N points of X are in or next to",
        "AdjN(X)  points with >= N points of X among themselves and their 4 neighbours",
        "nPreN(X) the complement of PreN(X)",
        "nSucN(X) the complement of SucN(X)",
        "nAdjN(X) the complement of AdjN(X)",
        "X | Y  union",
        "X & Y  intersection",
        "X - Y  the points of X not in Y",
    };
    return op >= 0 && op < GO_TM_OP_COUNT ? legend[op] : "";
}
