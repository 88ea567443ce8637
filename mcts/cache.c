/* mcts/cache.c -- the network cache shared by the search threads, and the position keys it is
 * indexed by. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "go/hash.h"
#include "mcts/internal.h"

/* Everything the inputs of either net family read: both read the last 8 positions at most
 * (Leela Zero) or the last 5 moves (KataGo), the ko ban, komi and the rules. */
static uint64_t position_key(const go_game *g)
{
    const go_board *b = &g->board;
    /* the side of a square board, a code above 19 for a rectangle */
    uint64_t shape = (uint64_t)(b->width == b->height ? b->size : b->width * 32 + b->height);
    uint64_t h = go_hash_mix64(b->hash ^ shape * GO_HASH_GOLDEN);
    h = go_hash_mix64(h ^ ((uint64_t)b->to_move << 8) ^ ((uint64_t)b->ko_point << 16) ^
                      ((uint64_t)b->ko_color << 32) ^ ((uint64_t)g->consecutive_passes << 40));
    for (int i = 1; i <= 8 && i <= g->num_moves; i++) {
        const go_move *m = &g->moves[g->num_moves - i];
        h = go_hash_mix64(h ^ g->hashes[g->num_moves - i] ^
                          ((uint64_t)m->point << 2 | m->color));
    }
    uint64_t komi_bits;
    double komi = g->komi;
    memcpy(&komi_bits, &komi, sizeof komi_bits);
    const go_rules *r = &g->rules;
    uint64_t rules = (uint64_t)r->ko | (uint64_t)r->scoring << 4 | (uint64_t)r->tax << 8 |
                     (uint64_t)r->multi_stone_suicide << 12 | (uint64_t)r->button << 13 |
                     (uint64_t)r->white_handicap_bonus << 16 | (uint64_t)g->handicap << 24;
    return go_hash_mix64(h ^ komi_bits ^ go_hash_mix64(rules));
}

uint64_t mcts_position_key(const go_game *g, int symmetry)
{
    uint64_t k =
        go_hash_mix64(position_key(g) + (uint64_t)(symmetry + 1) * 0x632be59bd9b4e019ULL);
    return k ? k : 1;   /* 0 marks an empty slot */
}

int mcts_position_symmetry(const go_game *g, uint64_t seed)
{
    return (int)(go_hash_mix64(position_key(g) ^ go_hash_mix64(seed)) & 7);
}

bool mcts_cache_init(mcts_cache *c, int num_entries)
{
    c->num_entries = num_entries;
    c->entries = NULL;
    atomic_store(&c->stamp, 1);
    if (num_entries <= 0)
        return true;
    /* calloc: untouched slots cost no memory until first used */
    c->entries = calloc((size_t)num_entries, sizeof *c->entries);
    if (!c->entries)
        return false;
    for (int i = 0; i < num_entries; i++)
        atomic_flag_clear(&c->entries[i].lock);
    return true;
}

void mcts_cache_free(mcts_cache *c)
{
    free(c->entries);
    c->entries = NULL;
    c->num_entries = 0;
}

void mcts_cache_clear(mcts_cache *c)
{
    for (int i = 0; i < c->num_entries; i++) {
        mcts_cache_entry *e = &c->entries[i];
        while (atomic_flag_test_and_set_explicit(&e->lock, memory_order_acquire))
            ;
        e->key = 0;
        atomic_flag_clear_explicit(&e->lock, memory_order_release);
    }
}

/* Two-way buckets: a position may sit in either entry of its bucket, so two positions that hash
 * alike do not keep evicting each other. */
static mcts_cache_entry *bucket(mcts_cache *c, uint64_t key)
{
    uint64_t buckets = (uint64_t)c->num_entries / 2;
    if (buckets == 0)
        return &c->entries[0];
    return &c->entries[2 * ((key >> 1) % buckets)];
}

static void lock(mcts_cache_entry *e)
{
    while (atomic_flag_test_and_set_explicit(&e->lock, memory_order_acquire))
        ;
}

static void unlock(mcts_cache_entry *e) { atomic_flag_clear_explicit(&e->lock, memory_order_release); }

void mcts_result_canonical(nn_result *r)
{
    int n = r->width * r->height;
    float wl = (float)(r->white_win - r->white_loss), nr = (float)r->no_result;
    r->white_win = 0.5 * (1.0 - nr + wl);
    r->white_loss = 0.5 * (1.0 - nr - wl);
    r->no_result = nr;
    r->white_lead = (float)r->white_lead;
    r->white_score_selfplay = (float)r->white_score_selfplay;
    r->white_score_selfplay_sq = (float)r->white_score_selfplay_sq;
    r->white_score_stdev = sqrt(fmax(0.0, (double)(float)r->white_score_selfplay_sq -
                                              (double)(float)r->white_score_selfplay *
                                                  (float)r->white_score_selfplay));
    if (r->has_ownership)
        for (int i = 0; i < n; i++)
            r->white_ownership[i] =
                (float)lrintf(fmaxf(-1.0f, fminf(1.0f, r->white_ownership[i])) * 127) / 127.0f;
}

bool mcts_cache_lookup(mcts_cache *c, uint64_t key, nn_result *r)
{
    if (c->num_entries <= 0)
        return false;
    mcts_cache_entry *b = bucket(c, key);
    int ways = c->num_entries > 1 ? 2 : 1;
    for (int w = 0; w < ways; w++) {
        mcts_cache_entry *e = &b[w];
        lock(e);
        bool hit = e->key == key;
        if (hit) {
            int n = e->width * e->height;
            r->size = e->size;
            r->width = e->width;
            r->height = e->height;
            r->has_score = e->has_score;
            r->has_ownership = e->has_ownership;
            r->white_win = 0.5 * (1.0 - e->nr + e->wl);
            r->white_loss = 0.5 * (1.0 - e->nr - e->wl);
            r->no_result = e->nr;
            r->white_lead = e->lead;
            r->white_score_selfplay = e->score_mean;
            r->white_score_selfplay_sq = e->score_sq;
            r->white_score_stdev =
                sqrt(fmax(0.0, (double)e->score_sq - (double)e->score_mean * e->score_mean));
            memcpy(r->policy, e->policy, sizeof(float) * (size_t)(n + 1));
            if (e->has_ownership)
                for (int i = 0; i < n; i++)
                    r->white_ownership[i] = (float)e->ownership[i] / 127.0f;
        }
        unlock(e);
        if (hit)
            return true;
    }
    return false;
}

void mcts_cache_store(mcts_cache *c, uint64_t key, const nn_result *r)
{
    if (c->num_entries <= 0)
        return;
    /* the entry holding key already, else an empty one, else the older of the two */
    mcts_cache_entry *b = bucket(c, key), *e = &b[0];
    if (c->num_entries > 1) {
        lock(&b[0]);
        uint64_t k0 = b[0].key, s0 = b[0].stamp;
        unlock(&b[0]);
        lock(&b[1]);
        uint64_t k1 = b[1].key, s1 = b[1].stamp;
        unlock(&b[1]);
        if (k1 == key || (k0 != key && k0 != 0 && (k1 == 0 || s1 < s0)))
            e = &b[1];
    }
    int n = r->width * r->height;
    lock(e);
    e->key = key;
    e->stamp = atomic_fetch_add_explicit(&c->stamp, 1, memory_order_relaxed);
    e->size = r->size;
    e->width = r->width;
    e->height = r->height;
    e->has_score = r->has_score;
    e->has_ownership = r->has_ownership;
    e->wl = (float)(r->white_win - r->white_loss);
    e->nr = (float)r->no_result;
    e->lead = (float)r->white_lead;
    e->score_mean = (float)r->white_score_selfplay;
    e->score_sq = (float)r->white_score_selfplay_sq;
    memcpy(e->policy, r->policy, sizeof(float) * (size_t)(n + 1));
    if (r->has_ownership)
        for (int i = 0; i < n; i++)
            e->ownership[i] = (int8_t)lrintf(fmaxf(-1.0f, fminf(1.0f, r->white_ownership[i])) * 127);
    unlock(e);
}
