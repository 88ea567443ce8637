/* mcts/tree.c -- tree nodes: making, expanding, adding visits, freeing; with the bytes they hold
 * counted so the search can keep within its memory bound. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mcts/internal.h"

static bool over_budget(struct mcts_search *s)
{
    return (double)atomic_load_explicit(&s->tree_bytes, memory_order_relaxed) >
           s->p.max_tree_mb * 1048576.0;
}

static void *tree_alloc(struct mcts_search *s, size_t bytes)
{
    void *m = calloc(1, bytes);
    if (m)
        atomic_fetch_add_explicit(&s->tree_bytes, (int64_t)bytes, memory_order_relaxed);
    return m;
}

static void tree_release(struct mcts_search *s, void *m, size_t bytes)
{
    if (!m)
        return;
    free(m);
    atomic_fetch_sub_explicit(&s->tree_bytes, (int64_t)bytes, memory_order_relaxed);
}

mcts_node *mcts_node_new(struct mcts_search *s)
{
    if (over_budget(s)) {
        atomic_store(&s->out_of_memory, true);
        return NULL;
    }
    mcts_node *n = tree_alloc(s, sizeof *n);
    if (!n)
        return NULL;
    atomic_flag_clear(&n->lock);
    atomic_fetch_add_explicit(&s->tree_nodes, 1, memory_order_relaxed);
    return n;
}

void mcts_node_free_tree(struct mcts_search *s, mcts_node *n)
{
    if (!n)
        return;
    mcts_child *ch = atomic_load(&n->children);
    if (ch) {
        for (int i = 0; i < n->num_children; i++)
            mcts_node_free_tree(s, atomic_load(&ch[i].node));
        tree_release(s, ch, sizeof *ch * (size_t)n->num_children);
    }
    tree_release(s, n->terminal, sizeof *n->terminal);
    tree_release(s, n->own_sum, sizeof(float) * 2 * (size_t)n->own_area);
    tree_release(s, n, sizeof *n);
    atomic_fetch_sub_explicit(&s->tree_nodes, 1, memory_order_relaxed);
}

static void add_double(_Atomic double *a, double v)
{
    atomic_store_explicit(a, atomic_load_explicit(a, memory_order_relaxed) + v,
                          memory_order_relaxed);
}

void mcts_node_add(mcts_node *n, const mcts_eval *e, const float *own_white, int own_len)
{
    while (atomic_flag_test_and_set_explicit(&n->lock, memory_order_acquire))
        ;
    add_double(&n->u_sum, e->utility);
    add_double(&n->u_sq_sum, e->utility * e->utility);
    add_double(&n->wl_sum, e->wl);
    add_double(&n->nr_sum, e->nr);
    add_double(&n->lead_sum, e->lead);
    add_double(&n->smean_sum, e->score_mean);
    add_double(&n->ssq_sum, e->score_sq);
    if (n->own_sum && own_white) {
        float *sq = n->own_sum + n->own_area;
        for (int i = 0; i < own_len && i < n->own_area; i++) {
            n->own_sum[i] += own_white[i];
            sq[i] += own_white[i] * own_white[i];
        }
        n->own_n++;
    }
    /* the visit is published last so that a reader seeing it also sees the sums */
    atomic_fetch_add_explicit(&n->visits, 1, memory_order_release);
    atomic_flag_clear_explicit(&n->lock, memory_order_release);
}

bool mcts_node_want_ownership(struct mcts_search *s, mcts_node *n)
{
    if (n->own_sum)
        return true;
    int area = s->root_game.board.width * s->root_game.board.height;
    float *own = tree_alloc(s, sizeof(float) * 2 * (size_t)area);
    if (!own)
        return false;
    while (atomic_flag_test_and_set_explicit(&n->lock, memory_order_acquire))
        ;
    n->own_sum = own;
    n->own_n = 0;
    n->own_area = area;
    atomic_flag_clear_explicit(&n->lock, memory_order_release);
    return true;
}

bool mcts_legal(const go_game *g, int p, go_color c)
{
    const go_board *b = &g->board;
    if (p == GO_PASS)
        return true;
    if (b->color[p] != GO_EMPTY)
        return false;
    if (g->rules.ko == GO_KO_SIMPLE)
        return go_board_is_legal(b, p, c, g->rules.multi_stone_suicide);
    if (go_board_captures(b, p, c))
        return go_game_legal(g, p, c) == GO_MOVE_OK;
    if (!go_board_is_legal(b, p, c, g->rules.multi_stone_suicide))
        return false;
    /* No capture: unless the move is a (legal) suicide, the new position is the old one plus a
     * stone, so its hash is known without copying and playing the board, which is what
     * go_game_legal costs, 361 times per expanded node. */
    bool suicide = true;
    for (int d = 0; d < 4 && suicide; d++) {
        int q = p + go_dir4[d];
        if (b->color[q] == GO_EMPTY || (b->color[q] == c && go_board_libs(b, q) >= 2))
            suicide = false;
    }
    if (suicide)
        return go_game_legal(g, p, c) == GO_MOVE_OK;
    uint64_t h = b->hash ^ go_zobrist_stone(c, p);
    go_color after = go_opponent(c);
    bool situational = g->rules.ko == GO_KO_SITUATIONAL;
    for (int i = 0; i <= g->num_moves; i++) {
        if (g->hashes[i] != h)
            continue;
        go_color to_move = i == 0 ? g->setup.to_move : go_opponent(g->moves[i - 1].color);
        if (!situational || to_move == after)
            return false;
    }
    return true;
}

bool mcts_node_expand(struct mcts_search *s, mcts_node *n, const go_game *g, const float *policy)
{
    const go_board *b = &g->board;
    int w = b->width, h = b->height, num = 0;
    go_color c = b->to_move;
    mcts_child tmp[NN_MAX_MOVES];
    double sum = 0;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            int p = go_point_at(x, y);
            if (b->color[p] != GO_EMPTY || !mcts_legal(g, p, c))
                continue;
            float pr = policy[y * w + x];
            if (!(pr >= 0))     /* NAN: KataGo's own illegal marker, kept out */
                pr = 0;
            tmp[num].prior = pr;
            tmp[num].move = (int16_t)p;
            sum += pr;
            num++;
        }
    float pp = policy[w * h];
    tmp[num].prior = pp >= 0 ? pp : 0;
    tmp[num].move = GO_PASS;
    sum += tmp[num].prior;
    num++;
    for (int i = 0; i < num; i++)
        tmp[i].prior = sum > 0 ? (float)(tmp[i].prior / sum) : 1.0f / (float)num;
    if (over_budget(s)) {
        atomic_store(&s->out_of_memory, true);
        return false;
    }
    mcts_child *ch = tree_alloc(s, sizeof *ch * (size_t)num);
    if (!ch)
        return false;
    for (int i = 0; i < num; i++) {
        atomic_init(&ch[i].node, NULL);
        ch[i].prior = tmp[i].prior;
        ch[i].move = tmp[i].move;
    }
    n->num_children = num;
    atomic_store_explicit(&n->children, ch, memory_order_release);
    return true;
}

mcts_node *mcts_child_node(struct mcts_search *s, mcts_child *c)
{
    mcts_node *n = atomic_load_explicit(&c->node, memory_order_acquire);
    if (n)
        return n;
    mcts_node *fresh = mcts_node_new(s);
    if (!fresh)
        return NULL;
    mcts_node *expected = NULL;
    if (atomic_compare_exchange_strong(&c->node, &expected, fresh))
        return fresh;
    mcts_node_free_tree(s, fresh);  /* another thread made it first */
    return expected;
}

