/* nn/kata_ladder.c -- KataGo's ladder search (Board::searchIsLadderCaptured and
 * searchIsLadderCapturedAttackerFirst2Libs) and the walk over a board that feeds the ladder
 * features (iterLadders in nninputs.cpp).
 *
 * The search is a depth-first AND-OR search over atari sequences: the attacker only plays on the
 * defender's two liberties, the defender extends on its liberty or captures an adjacent chain
 * in atari. Kos count as escapes for the defender, except KataGo's double-ko-death pattern.
 * Move generation and ordering follow KataGo, so the answers match it even where the search
 * runs into its depth limit (KataGo then calls the ladder working). Undo restores a saved copy
 * of the board, one per level.
 */
#include <stdlib.h>
#include <string.h>

#include "nn/kata_inputs.h"

/* KataGo's neighbour order: up, left, right, down. */
static const int ladder_dirs[4] = {-GO_STRIDE, -1, 1, GO_STRIDE};

typedef struct ladder_search {
    go_board b;             /* the board searched on */
    go_board *saved;        /* [levels]: b before the move made at that level */
    int *list;              /* the move lists of all levels, back to back */
    int *start, *len, *cur; /* [levels]: each level's list in list[], and the move tried */
    int levels;             /* width * height * 3 / 2 + 1, as KataGo */
} ladder_search;

static int chain_libs(const go_board *b, int p) { return b->libs[b->chain[p]]; }

/* Appends the liberties of p's chain that are not yet in buf[from .. at + found). */
static int find_liberties(const go_board *b, int p, int *buf, int from, int at)
{
    int found = 0;
    int s = p;
    do {
        for (int d = 0; d < 4; d++) {
            int q = s + ladder_dirs[d];
            if (b->color[q] != GO_EMPTY)
                continue;
            bool dup = false;
            for (int j = from; j < at + found && !dup; j++)
                dup = buf[j] == q;
            if (!dup)
                buf[at + found++] = q;
        }
        s = b->next[s];
    } while (s != p);
    return found;
}

/* Appends the points where p's owner captures an adjacent chain in atari. */
static int find_capture_liberties(const go_board *b, int p, int *buf, int from, int at)
{
    go_color o = go_opponent((go_color)b->color[p]);
    int heads[GO_POINTS], num_heads = 0, found = 0;
    int s = p;
    do {
        for (int d = 0; d < 4; d++) {
            int q = s + ladder_dirs[d];
            if (b->color[q] != o || chain_libs(b, q) != 1)
                continue;
            bool seen = false;
            for (int j = 0; j < num_heads && !seen; j++)
                seen = heads[j] == b->chain[q];
            if (!seen) {
                found += find_liberties(b, q, buf, from, at + found);
                heads[num_heads++] = b->chain[q];
            }
        }
        s = b->next[s];
    } while (s != p);
    return found;
}

static bool has_capture(const go_board *b, int p)
{
    go_color o = go_opponent((go_color)b->color[p]);
    int s = p;
    do {
        for (int d = 0; d < 4; d++) {
            int q = s + ladder_dirs[d];
            if (b->color[q] == o && chain_libs(b, q) == 1)
                return true;
        }
        s = b->next[s];
    } while (s != p);
    return false;
}

static int immediate_liberties(const go_board *b, int p)
{
    int n = 0;
    for (int d = 0; d < 4; d++)
        n += b->color[p + ladder_dirs[d]] == GO_EMPTY;
    return n;
}

/* KataGo's Board::isLegal with multi-stone suicide illegal: the simple-ko point is banned for
 * both colours. */
static bool ladder_legal(const go_board *b, int p, go_color c)
{
    if (b->color[p] != GO_EMPTY || p == b->ko_point)
        return false;
    go_color o = go_opponent(c);
    for (int d = 0; d < 4; d++) {
        int q = p + ladder_dirs[d];
        if (b->color[q] == GO_EMPTY || (b->color[q] == c && chain_libs(b, q) > 1) ||
            (b->color[q] == o && chain_libs(b, q) == 1))
            return true;
    }
    return false;
}

/* Whether c playing the empty point p captures exactly one single-stone chain, every neighbour
 * being c's opponent or the edge. */
static bool would_be_ko_capture(const go_board *b, int p, go_color c)
{
    if (b->color[p] != GO_EMPTY)
        return false;
    go_color o = go_opponent(c);
    int capturable = 0;
    for (int d = 0; d < 4; d++) {
        int q = p + ladder_dirs[d];
        if (b->color[q] != GO_BORDER && b->color[q] != o)
            return false;
        if (b->color[q] == o && chain_libs(b, q) == 1) {
            if (capturable)
                return false;
            capturable = q;
        }
    }
    return capturable && b->stones[b->chain[capturable]] == 1;
}

/* Liberties a stone of c at p would have (capturing what it captures), capped at max <= 4. */
static int liberties_after_play(const go_board *b, int p, go_color c, int max)
{
    go_color o = go_opponent(c);
    int libs[GO_POINTS], n = 0;
    int captured[4], num_captured = 0;
    for (int d = 0; d < 4; d++) {
        int q = p + ladder_dirs[d];
        if (b->color[q] == GO_EMPTY) {
            libs[n++] = q;
        } else if (b->color[q] == o && chain_libs(b, q) == 1) {
            libs[n++] = q;
            bool seen = false;
            for (int j = 0; j < num_captured && !seen; j++)
                seen = captured[j] == b->chain[q];
            if (!seen)
                captured[num_captured++] = b->chain[q];
        }
        if (n >= max)
            return max;
    }
    int joined[4], num_joined = 0;
    for (int d = 0; d < 4; d++) {
        int q = p + ladder_dirs[d];
        if (b->color[q] != c)
            continue;
        bool seen = false;
        for (int j = 0; j < num_joined && !seen; j++)
            seen = joined[j] == b->chain[q];
        if (seen)
            continue;
        joined[num_joined++] = b->chain[q];
        int s = q;
        do {
            for (int e = 0; e < 4; e++) {
                int r = s + ladder_dirs[e];
                if (r == p)
                    continue;
                bool empty_after = b->color[r] == GO_EMPTY;
                for (int j = 0; j < num_captured && !empty_after; j++)
                    empty_after = b->color[r] == o && b->chain[r] == captured[j];
                if (!empty_after)
                    continue;
                bool counted = false;
                for (int j = 0; j < n && !counted; j++)
                    counted = libs[j] == r;
                if (!counted) {
                    libs[n++] = r;
                    if (n >= max)
                        return max;
                }
            }
            s = b->next[s];
        } while (s != q);
    }
    return n;
}

/* KataGo's move-ordering heuristic: for each neighbouring chain of c with more than one
 * liberty, twice its liberties minus three. */
static int connection_liberties_x2(const go_board *b, int p, go_color c)
{
    int n = 0;
    for (int d = 0; d < 4; d++) {
        int q = p + ladder_dirs[d];
        if (b->color[q] == c && chain_libs(b, q) > 1)
            n += chain_libs(b, q) * 2 - 3;
    }
    return n;
}

static bool adjacent(int p, int q)
{
    return p == q - GO_STRIDE || p == q - 1 || p == q + 1 || p == q + GO_STRIDE;
}

/* Whether the chain at loc on L->b is captured in a ladder; the defender moves first or not.
 * L->b is left as it was found. */
static bool ladder_captured(ladder_search *L, int loc, bool defender_first)
{
    go_board *b = &L->b;
    if (b->color[loc] != GO_BLACK && b->color[loc] != GO_WHITE)
        return false;
    int libs = chain_libs(b, loc);
    if (libs > 2 || (defender_first && libs > 1))
        return false;
    go_color pla = (go_color)b->color[loc], opp = go_opponent(pla);
    int saved_ko = b->ko_point;
    if (defender_first)
        b->ko_point = 0;   /* every ko works for the defender at the root */

    int levels = L->levels;
    int *start = L->start, *len = L->len, *cur = L->cur, *buf = L->list;
    int top = 0;
    cur[0] = -1;
    start[0] = 0;
    len[0] = 0;
    bool result = false, from_deeper = false;

    for (;;) {
        if (top < 0)
            break;
        if (top >= levels - 1) {   /* too deep: KataGo calls the ladder working */
            result = true;
            from_deeper = true;
            top--;
            continue;
        }
        bool defender = (top % 2 == 0) == defender_first;
        if (cur[top] == -1) {
            libs = chain_libs(b, loc);
            if ((!defender && libs <= 1) || (!defender && libs >= 3) || (defender && libs >= 2) ||
                (defender && b->ko_point)) {
                /* the attacker has already won or lost; a ko left for the defender is an escape */
                result = !defender && libs <= 1;
                from_deeper = true;
                top--;
                continue;
            }
            int s0 = start[top];
            if (defender) {
                len[top] = find_capture_liberties(b, loc, buf, s0, s0);
                len[top] += find_liberties(b, loc, buf, s0, s0 + len[top]);
            } else {
                len[top] = find_liberties(b, loc, buf, s0, s0);
                int libs0 = immediate_liberties(b, buf[s0]);
                int libs1 = immediate_liberties(b, buf[s0 + 1]);
                /* double ko death: both liberties are ko mouths the defender cannot use */
                if (libs0 == 0 && libs1 == 0 && would_be_ko_capture(b, buf[s0], opp) &&
                    would_be_ko_capture(b, buf[s0 + 1], opp) &&
                    liberties_after_play(b, buf[s0], pla, 3) <= 2 &&
                    liberties_after_play(b, buf[s0 + 1], pla, 3) <= 2 && !has_capture(b, loc)) {
                    result = true;
                    from_deeper = true;
                    top--;
                    continue;
                }
                if (!adjacent(buf[s0], buf[s0 + 1])) {
                    if (libs0 >= 3 && libs1 >= 3) {
                        result = false;
                        from_deeper = true;
                        top--;
                        continue;
                    } else if (libs0 >= 3) {
                        len[top] = 1;
                    } else if (libs1 >= 3) {
                        buf[s0] = buf[s0 + 1];
                        len[top] = 1;
                    }
                }
                if (len[top] > 1) {
                    libs0 = libs0 * 2 + connection_liberties_x2(b, buf[s0], pla);
                    libs1 = libs1 * 2 + connection_liberties_x2(b, buf[s0 + 1], pla);
                    if (libs1 > libs0) {
                        int t = buf[s0];
                        buf[s0] = buf[s0 + 1];
                        buf[s0 + 1] = t;
                    }
                }
            }
            cur[top] = 0;
        } else {
            if (from_deeper)
                *b = L->saved[top];
            if ((defender && !result) || (!defender && result)) {
                from_deeper = true;
                top--;
                continue;
            }
            cur[top]++;
        }
        if (cur[top] >= len[top]) {
            result = defender;   /* no move left: the defender is caught, the attacker failed */
            from_deeper = true;
            top--;
            continue;
        }
        int move = buf[start[top] + cur[top]];
        go_color mover = defender ? pla : opp;
        if (!ladder_legal(b, move, mover)) {
            result = defender;
            from_deeper = false;
            continue;
        }
        L->saved[top] = *b;
        go_board_play(b, move, mover);
        top++;
        cur[top] = -1;
        start[top] = start[top - 1] + len[top - 1];
        len[top] = 0;
    }
    b->ko_point = saved_ko;
    return result;
}

/* The chain at loc has 2 liberties and the attacker moves first: which of the two liberties
 * capture it in a ladder (into working). */
static bool ladder_captured_attacker_first(ladder_search *L, int loc, int *working,
                                           int *num_working)
{
    go_board *b = &L->b;
    go_color opp = go_opponent((go_color)b->color[loc]);
    int libs[2 + GO_POINTS];
    find_liberties(b, loc, libs, 0, 0);
    int moves[2] = {libs[0], libs[1]};
    bool works[2] = {false, false};
    for (int i = 0; i < 2; i++) {
        if (!ladder_legal(b, moves[i], opp))
            continue;
        go_board before = *b;
        go_board_play(b, moves[i], opp);
        works[i] = ladder_captured(L, loc, true);
        *b = before;
    }
    *num_working = 0;
    for (int i = 0; i < 2; i++)
        if (works[i])
            working[(*num_working)++] = moves[i];
    return *num_working > 0;
}

bool nn_kata_ladders(const go_board *board, nn_kata_ladder_fn f, void *ctx)
{
    ladder_search *L = malloc(sizeof *L);
    if (!L)
        return false;
    L->levels = board->width * board->height * 3 / 2 + 1;
    L->saved = malloc(sizeof *L->saved * (size_t)L->levels);
    L->list = malloc(sizeof *L->list * (size_t)L->levels * GO_POINTS);
    L->start = malloc(sizeof *L->start * 3 * (size_t)L->levels);
    bool ok = L->saved && L->list && L->start;
    if (ok) {
        L->len = L->start + L->levels;
        L->cur = L->len + L->levels;
    }
    int solved_head[GO_POINTS], num_solved = 0;
    bool solved_value[GO_POINTS];
    for (int y = 0; ok && y < board->height; y++)
        for (int x = 0; x < board->width; x++) {
            int p = go_point_at(x, y);
            if (board->color[p] != GO_BLACK && board->color[p] != GO_WHITE)
                continue;
            int libs = chain_libs(board, p);
            if (libs != 1 && libs != 2)
                continue;
            int i = 0;
            while (i < num_solved && solved_head[i] != board->chain[p])
                i++;
            if (i < num_solved) {
                if (solved_value[i])
                    f(ctx, p, NULL, 0);
                continue;
            }
            int working[2], num_working = 0;
            L->b = *board;
            bool laddered = libs == 1 ? ladder_captured(L, p, true)
                                      : ladder_captured_attacker_first(L, p, working, &num_working);
            solved_head[num_solved] = board->chain[p];
            solved_value[num_solved++] = laddered;
            if (laddered)
                f(ctx, p, working, num_working);
        }
    free(L->saved);
    free(L->list);
    free(L->start);
    free(L);
    return ok;
}
