/* teach/tsumego_retro.c -- the retrograde method of seed 003 (see teach/tsumego_gen.h): the
 * positions of a solved problem's main line, stones removed by three rules, every candidate
 * verified by the solver. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "teach/tsumego_gen.h"

static const int DIRS[4] = {1, -1, GO_STRIDE, -GO_STRIDE};
static const int DIAGS[4] = {GO_STRIDE + 1, GO_STRIDE - 1, -GO_STRIDE + 1, -GO_STRIDE - 1};

const char *teach_retro_rule_name(teach_retro_rule r)
{
    static const char *names[TEACH_RETRO_RULES] = {"line", "forced", "connected", "connecting"};
    return (unsigned)r < TEACH_RETRO_RULES ? names[r] : "?";
}

/* Whether the chain holding s falls into two or more pieces without s. */
static bool splits_chain(const go_board *b, int s)
{
    int n = go_board_chain_size(b, s);
    if (n < 3)
        return false;
    uint8_t seen[GO_POINTS] = {0};
    int stack[GO_POINTS], top = 0, reached = 0;
    go_color c = (go_color)b->color[s];
    seen[s] = 1;
    for (int d = 0; d < 4 && !top; d++)
        if (b->color[s + DIRS[d]] == c) {
            stack[top++] = s + DIRS[d];
            seen[s + DIRS[d]] = 1;
        }
    while (top) {
        int p = stack[--top];
        reached++;
        for (int d = 0; d < 4; d++) {
            int q = p + DIRS[d];
            if (b->color[q] == c && !seen[q]) {
                seen[q] = 1;
                stack[top++] = q;
            }
        }
    }
    return reached < n - 1;
}

/* A lone stone with two or more chains of its colour among its diagonal neighbours. */
static bool links_diagonally(const go_board *b, int s)
{
    if (go_board_chain_size(b, s) != 1)
        return false;
    int heads[4], n = 0;
    for (int d = 0; d < 4; d++) {
        int q = s + DIAGS[d];
        if (b->color[q] != b->color[s])
            continue;
        int h = b->chain[q];
        bool dup = false;
        for (int k = 0; k < n; k++)
            dup |= heads[k] == h;
        if (!dup)
            heads[n++] = h;
    }
    return n >= 2;
}

static bool is_stone(const go_board *b, int p)
{
    return go_board_on(b, p) && (b->color[p] == GO_BLACK || b->color[p] == GO_WHITE);
}

static int add(teach_retro_removal *out, int n, int max, teach_retro_rule rule, int a, int b)
{
    int lo = b >= 0 && b < a ? b : a, hi = b >= 0 && b < a ? a : b;
    for (int i = 0; i < n; i++)
        if (out[i].points[0] == lo && (out[i].n == 1 ? hi < 0 : out[i].points[1] == hi))
            return n; /* the same stones by an earlier rule */
    if (n >= max)
        return n;
    out[n] = (teach_retro_removal){rule, hi < 0 ? 1 : 2, {lo, hi}};
    return n + 1;
}

int teach_retro_removals(const go_board *b, const int (*played)[2], int num_played,
                         teach_retro_removal *out, int max)
{
    int n = 0;
    /* forced exchanges: the line's moves with their replies, and peep-connect pairs */
    for (int i = 0; i < num_played; i++) {
        int m = played[i][0], r = played[i][1];
        if (is_stone(b, m) && is_stone(b, r) && b->color[m] != b->color[r])
            n = add(out, n, max, TEACH_RETRO_FORCED, m, r);
    }
    for (int y = 0; y < b->size; y++)
        for (int x = 0; x < b->size; x++) {
            int s = go_point_at(x, y);
            if (!is_stone(b, s) || !splits_chain(b, s))
                continue;
            for (int d = 0; d < 4; d++) {
                int q = s + DIRS[d];
                if (is_stone(b, q) && b->color[q] != b->color[s] && go_board_chain_size(b, q) == 1)
                    n = add(out, n, max, TEACH_RETRO_FORCED, q, s);
            }
        }
    for (int y = 0; y < b->size; y++)
        for (int x = 0; x < b->size; x++) {
            int s = go_point_at(x, y);
            if (is_stone(b, s) && go_board_chain_size(b, s) >= 2 && !splits_chain(b, s))
                n = add(out, n, max, TEACH_RETRO_CONNECTED, s, -1);
        }
    for (int y = 0; y < b->size; y++)
        for (int x = 0; x < b->size; x++) {
            int s = go_point_at(x, y);
            if (is_stone(b, s) && (splits_chain(b, s) || links_diagonally(b, s)))
                n = add(out, n, max, TEACH_RETRO_CONNECTING, s, -1);
        }
    return n;
}

void teach_retro_apply(const go_board *b, const teach_retro_removal *r, go_board *out)
{
    go_board_init(out, b->size);
    for (int y = 0; y < b->size; y++)
        for (int x = 0; x < b->size; x++) {
            int p = go_point_at(x, y);
            bool gone = false;
            for (int k = 0; k < r->n; k++)
                gone |= r->points[k] == p;
            if (!gone && is_stone(b, p))
                go_board_place(out, p, (go_color)b->color[p]);
        }
    out->to_move = b->to_move;
}

/* ---- generation ----------------------------------------------------------------------------- */

#define RETRO_MAX_PAIRS (TEACH_TSGEN_MAX_LINE / 2)

typedef struct item {
    go_board board;
    int pairs[RETRO_MAX_PAIRS][2]; /* the line's exchanges on the board */
    int num_pairs;
    int steps;                     /* removal steps from the line position */
    bool expand;                   /* its removals are worth trying */
    teach_retro_rule rule;
    char how[160];
} item;

typedef struct keyset {
    uint64_t *k;
    int n, cap;
} keyset;

/* Adds key; false when it was there already (or out of memory: treated as seen). */
static bool keyset_add(keyset *s, uint64_t key)
{
    for (int i = 0; i < s->n; i++)
        if (s->k[i] == key)
            return false;
    if (s->n == s->cap) {
        int cap = s->cap ? 2 * s->cap : 64;
        uint64_t *k = realloc(s->k, (size_t)cap * sizeof *k);
        if (!k)
            return false;
        s->k = k;
        s->cap = cap;
    }
    s->k[s->n++] = key;
    return true;
}

static void point_text(int size, int p, char *buf)
{
    char v[8];
    snprintf(buf, 8, "%s", go_point_to_gtp(size, p, v));
}

bool teach_retro_generate(const go_board *source, go_color to_play, go_tsumego_goal goal,
                          const teach_retro_params *params, teach_tsgen_emit_fn emit, void *ctx,
                          teach_tsgen_stats *stats)
{
    teach_retro_params pr = params ? *params : (teach_retro_params){0};
    int max_steps = pr.max_removals ? pr.max_removals : 2;
    int max_cand = pr.max_candidates ? pr.max_candidates : 400;
    memset(stats, 0, sizeof *stats);

    /* the source's own line: proven, one first move (its later moves need not be unique) */
    teach_tsgen_limits src_lim = pr.limits;
    src_lim.line_checks = -1;
    src_lim.no_static_prune = true;
    teach_tsgen_problem src;
    teach_tsgen_verdict v = teach_tsgen_verify(source, to_play, goal, &src_lim, NULL, &src);
    stats->nodes += src.total_nodes;
    if (v != TEACH_TSGEN_STRICT) {
        stats->verdicts[v]++;
        return false;
    }
    teach_tsgen_problem_free(&src);
    goal = src.goal;

    int cap = max_cand + RETRO_MAX_PAIRS + 2, head = 0, tail = 0;
    item *q = malloc((size_t)cap * sizeof *q);
    keyset seen = {0};
    if (!q)
        return false;
    keyset_add(&seen, teach_tsgen_key(source, to_play));

    /* the line positions, the mover to play: the source, then after each exchange */
    go_board b = *source;
    b.to_move = to_play;
    for (int k = 0; 2 * k < src.line_len && tail < cap; k++) {
        item *it = &q[tail++];
        it->board = b;
        it->num_pairs = k;
        for (int j = 0; j < k; j++) {
            it->pairs[j][0] = src.line[2 * j];
            it->pairs[j][1] = src.line[2 * j + 1];
        }
        it->steps = 0;
        it->expand = true;
        it->rule = TEACH_RETRO_LINE;
        snprintf(it->how, sizeof it->how, "line %d", 2 * k);
        if (2 * k + 1 >= src.line_len || k + 1 >= RETRO_MAX_PAIRS)
            break;
        for (int m = 0; m < 2; m++) {
            int mv = src.line[2 * k + m];
            go_color c = m == 0 ? to_play : go_opponent(to_play);
            if (mv != GO_PASS)
                go_board_play(&b, mv, c);
        }
        b.to_move = to_play;
    }

    bool go_on = true;
    teach_retro_removal rem[TEACH_RETRO_MAX_REMOVALS];
    while (head < tail && go_on) {
        item *it = &q[head++];
        /* verify (the source itself only when asked) */
        bool is_source = it->rule == TEACH_RETRO_LINE && it->num_pairs == 0;
        if (!is_source || pr.include_source) {
            if (!is_source && !keyset_add(&seen, teach_tsgen_key(&it->board, to_play))) {
                stats->verdicts[TEACH_TSGEN_DUPLICATE]++;
                continue;
            }
            if (stats->candidates >= max_cand)
                break;
            teach_tsgen_problem p;
            char note[200];
            snprintf(note, sizeof note, "Retrograde: %s.", it->how);
            v = teach_tsgen_verify(&it->board, to_play, goal, &pr.limits, note, &p);
            stats->candidates++;
            stats->verdicts[v]++;
            stats->nodes += p.total_nodes;
            if (v == TEACH_TSGEN_STRICT) {
                stats->by_rule[it->rule]++;
                go_on = emit(ctx, &p, it->how);
            } else if (it->rule != TEACH_RETRO_LINE) {
                it->expand = false;
            }
            teach_tsgen_problem_free(&p);
        }
        if (!it->expand || it->steps >= max_steps || !go_on)
            continue;
        int n = teach_retro_removals(&it->board, (const int(*)[2])it->pairs, it->num_pairs, rem,
                                     TEACH_RETRO_MAX_REMOVALS);
        char how[sizeof it->how];
        memcpy(how, it->how, sizeof how);
        for (int r = 0; r < n && tail < cap; r++) {
            item *c = &q[tail++];
            teach_retro_apply(&it->board, &rem[r], &c->board);
            c->num_pairs = 0;
            for (int j = 0; j < it->num_pairs; j++)
                if (it->pairs[j][0] != rem[r].points[0] && it->pairs[j][0] != rem[r].points[1]) {
                    c->pairs[c->num_pairs][0] = it->pairs[j][0];
                    c->pairs[c->num_pairs++][1] = it->pairs[j][1];
                }
            c->steps = it->steps + 1;
            c->expand = true;
            c->rule = rem[r].rule;
            char a[8], bb[8] = "";
            point_text(it->board.size, rem[r].points[0], a);
            if (rem[r].n == 2)
                point_text(it->board.size, rem[r].points[1], bb);
            snprintf(c->how, sizeof c->how, "%.100s, %s %s%s%s", how,
                     teach_retro_rule_name(rem[r].rule), a, rem[r].n == 2 ? "+" : "", bb);
        }
    }
    free(q);
    free(seen.k);
    return true;
}
