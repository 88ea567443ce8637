/* teach/tsumego_concept.c -- the concept method of seed 002 (see teach/tsumego_gen.h): a
 * Bouzy-guided position tree grown from a tesuji seed, ranked, its best nodes verified. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "teach/tsumego_gen.h"

static const int DIRS[4] = {1, -1, GO_STRIDE, -GO_STRIDE};

static teach_concept_params defaults(const teach_concept_params *p)
{
    teach_concept_params d = p ? *p : (teach_concept_params){0};
    if (!d.bouzy.dilations && !d.bouzy.erosions && !d.bouzy.stone_value)
        d.bouzy = GO_BOUZY_CONCEPT;
    if (!d.bouzy.stone_value)
        d.bouzy.stone_value = GO_BOUZY_STONE_VALUE;
    if (!(d.keep_fraction > 0))
        d.keep_fraction = 0.8;
    if (d.max_nodes <= 0)
        d.max_nodes = 200;
    if (d.margin <= 0)
        d.margin = d.window == TEACH_CONCEPT_WINDOW_BOX ? 2 : 1;
    return d;
}

/* The box of the seed's stones widened by margin, clipped to the board. */
static void window_of(const go_board *b, int margin, int *x0, int *y0, int *x1, int *y1)
{
    *x0 = *y0 = b->size;
    *x1 = *y1 = -1;
    for (int y = 0; y < b->size; y++)
        for (int x = 0; x < b->size; x++) {
            go_color c = (go_color)b->color[go_point_at(x, y)];
            if (c != GO_BLACK && c != GO_WHITE)
                continue;
            *x0 = x < *x0 ? x : *x0;
            *y0 = y < *y0 ? y : *y0;
            *x1 = x > *x1 ? x : *x1;
            *y1 = y > *y1 ? y : *y1;
        }
    *x0 = *x0 - margin < 0 ? 0 : *x0 - margin;
    *y0 = *y0 - margin < 0 ? 0 : *y0 - margin;
    *x1 = *x1 + margin >= b->size ? b->size - 1 : *x1 + margin;
    *y1 = *y1 + margin >= b->size ? b->size - 1 : *y1 + margin;
}

/* Whether c may stand on the empty point p without capturing or being captured: the tree adds
 * shape, it does not play out fights. */
static bool quiet_stone(const go_board *b, int p, go_color c)
{
    bool libs = false;
    for (int d = 0; d < 4; d++) {
        int q = p + DIRS[d];
        if (b->color[q] == GO_EMPTY)
            libs = true;
        else if (b->color[q] == go_opponent(c) && go_board_libs(b, q) <= 1)
            return false;
        else if (b->color[q] == c && go_board_libs(b, q) >= 2)
            libs = true;
    }
    return libs;
}

typedef struct child {
    go_board board;
    int point;
    go_color color;
    long diff;
} child;

int teach_concept_tree(const go_board *seed, const teach_concept_params *params,
                       const uint8_t *allowed, teach_concept_node *out, int max)
{
    teach_concept_params pr = defaults(params);
    if (max > pr.max_nodes)
        max = pr.max_nodes;
    if (max < 1)
        return 0;
    int x0 = 0, y0 = 0, x1 = seed->size - 1, y1 = seed->size - 1;
    if (!allowed)
        window_of(seed, pr.margin, &x0, &y0, &x1, &y1);
    uint64_t *keys = malloc((size_t)max * sizeof *keys);
    child *kids = malloc((size_t)2 * GO_POINTS * sizeof *kids);
    if (!keys || !kids) {
        free(keys);
        free(kids);
        return 0;
    }
    out[0] = (teach_concept_node){.board = *seed, .parent = -1, .added = GO_NO_POINT};
    keys[0] = teach_tsgen_key(seed, seed->to_move);
    int n = 1;
    go_bouzy_map parent_map, child_map;
    for (int at = 0; at < n && n < max; at++) {
        const go_board *b = &out[at].board;
        go_bouzy_compute(&parent_map, b, pr.bouzy);
        int nk = 0;
        long best = 0;
        for (int y = y0; y <= y1; y++)
            for (int x = x0; x <= x1; x++) {
                int p = go_point_at(x, y);
                if (b->color[p] != GO_EMPTY || (allowed && !allowed[p]))
                    continue;
                bool next_to_stone = false;
                for (int d = 0; d < 4; d++)
                    next_to_stone |= b->color[p + DIRS[d]] == GO_BLACK ||
                                     b->color[p + DIRS[d]] == GO_WHITE;
                if (!next_to_stone)
                    continue;
                /* the paper's rule: the colour opposite to the point's influence, both at 0 */
                int s = parent_map.score[p];
                for (go_color c = GO_BLACK; c <= GO_WHITE; c++) {
                    if ((c == GO_BLACK && s > 0) || (c == GO_WHITE && s < 0))
                        continue;
                    if (!quiet_stone(b, p, c))
                        continue;
                    child *k = &kids[nk++];
                    k->board = *b;
                    go_board_place(&k->board, p, c);
                    k->point = p;
                    k->color = c;
                    go_bouzy_compute(&child_map, &k->board, pr.bouzy);
                    k->diff = go_bouzy_difference(&child_map, &parent_map);
                    if (k->diff > best)
                        best = k->diff;
                }
            }
        for (int i = 0; i < nk && n < max; i++) {
            if ((double)kids[i].diff < pr.keep_fraction * (double)best)
                continue;
            uint64_t key = teach_tsgen_key(&kids[i].board, seed->to_move);
            bool dup = false;
            for (int j = 0; j < n && !dup; j++)
                dup = keys[j] == key;
            if (dup)
                continue;
            keys[n] = key;
            out[n] = (teach_concept_node){.board = kids[i].board, .parent = at,
                                          .depth = out[at].depth + 1, .added = kids[i].point,
                                          .added_color = kids[i].color, .bouzy_diff = kids[i].diff};
            out[n].board.to_move = seed->to_move;
            n++;
        }
    }
    free(keys);
    free(kids);
    return n;
}

void teach_concept_score_bouzy(const teach_concept_node *nodes, int n, float *out)
{
    for (int i = 0; i < n; i++)
        out[i] = (float)nodes[i].bouzy_diff;
}

typedef struct ranked {
    float score;
    int index;
} ranked;

static int by_score(const void *a, const void *b)
{
    const ranked *x = a, *y = b;
    if (x->score != y->score)
        return x->score > y->score ? -1 : 1;
    return x->index - y->index; /* ties: tree order, so the ranking is deterministic */
}

bool teach_concept_generate(const go_board *seed, go_color to_play, go_tsumego_goal goal,
                            int tesuji, const teach_concept_params *params,
                            teach_tsgen_emit_fn emit, void *ctx, teach_tsgen_stats *stats)
{
    teach_concept_params pr = defaults(params);
    memset(stats, 0, sizeof *stats);
    teach_concept_node *nodes = malloc((size_t)pr.max_nodes * sizeof *nodes);
    if (!nodes)
        return false;
    go_board s = *seed;
    s.to_move = to_play;
    const uint8_t *allowed = NULL;
    uint8_t grown[GO_POINTS];
    go_tsumego_problem tp;
    char err[256];
    if (pr.window == TEACH_CONCEPT_WINDOW_REGION) {
        if (!go_tsumego_setup(&s, to_play, goal, &tp, err, sizeof err)) {
            stats->verdicts[TEACH_TSGEN_REFUSED]++;
            free(nodes);
            return true; /* no region, no tree */
        }
        /* widened by margin - 1 steps: the points next to the region shape it too */
        memcpy(grown, tp.region, sizeof grown);
        for (int step = 1; step < pr.margin; step++) {
            uint8_t next[GO_POINTS];
            memcpy(next, grown, sizeof next);
            for (int p = 0; p < GO_POINTS; p++)
                for (int d = 0; d < 4 && grown[p]; d++)
                    if (p + DIRS[d] >= 0 && p + DIRS[d] < GO_POINTS && go_board_on(&s, p + DIRS[d]))
                        next[p + DIRS[d]] = 1;
            memcpy(grown, next, sizeof grown);
        }
        allowed = grown;
    }
    int n = teach_concept_tree(&s, &pr, allowed, nodes, pr.max_nodes);
    int m = n - 1; /* the seed itself is not a candidate */
    float *scores = malloc((size_t)(m > 0 ? m : 1) * sizeof *scores);
    const go_board **boards = malloc((size_t)(m > 0 ? m : 1) * sizeof *boards);
    go_color *movers = malloc((size_t)(m > 0 ? m : 1) * sizeof *movers);
    ranked *rank = malloc((size_t)(m > 0 ? m : 1) * sizeof *rank);
    bool ok = n > 0 && scores && boards && movers && rank;
    if (ok && m > 0) {
        for (int i = 0; i < m; i++) {
            boards[i] = &nodes[i + 1].board;
            movers[i] = to_play;
        }
        if (!pr.score || !pr.score(pr.score_ctx, boards, movers, m, scores))
            teach_concept_score_bouzy(nodes + 1, m, scores);
        for (int i = 0; i < m; i++) {
            nodes[i + 1].score = scores[i];
            rank[i] = (ranked){scores[i], i + 1};
        }
        qsort(rank, (size_t)m, sizeof *rank, by_score);
        int top = pr.verify_top > 0 && pr.verify_top < m ? pr.verify_top : m;
        uint64_t seed_key = teach_tsgen_key(&s, to_play);
        for (int r = 0; r < top; r++) {
            const teach_concept_node *nd = &nodes[rank[r].index];
            teach_tsgen_problem p;
            char note[160], a[8];
            snprintf(note, sizeof note, "Concept: node %d (depth %d, %s %s added), score %.3g.",
                     rank[r].index, nd->depth, nd->added_color == GO_BLACK ? "B" : "W",
                     go_point_to_gtp(s.size, nd->added, a), (double)nd->score);
            teach_tsgen_verdict v = teach_tsgen_verify(&nd->board, to_play, goal, &pr.limits,
                                                       note, &p);
            stats->candidates++;
            stats->nodes += p.total_nodes;
            if (v == TEACH_TSGEN_STRICT && p.answer != tesuji)
                v = TEACH_TSGEN_WRONG_TESUJI;
            if (v == TEACH_TSGEN_STRICT && p.key == seed_key)
                v = TEACH_TSGEN_DUPLICATE;
            stats->verdicts[v]++;
            bool go_on = v != TEACH_TSGEN_STRICT || emit(ctx, &p, note);
            teach_tsgen_problem_free(&p);
            if (!go_on)
                break;
        }
    }
    free(scores);
    free(boards);
    free(movers);
    free(rank);
    free(nodes);
    return ok;
}
