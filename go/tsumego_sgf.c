/* go/tsumego_sgf.c -- the solution tree of a solve as SGF text: one branch per correct first
 * move (C[Correct], the main line, RIGHT at its end) and one per refuted first move (C[Wrong] and
 * the refutation), as problem collections mark them. Lines are read from the search's table. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "go/tsumego_internal.h"

#define MAX_LINE 40           /* moves shown after a first move */
#define REPROVE_NODES 20000   /* search allowed to recover one missing link of a line */

typedef struct sbuf {
    char *s;
    size_t len, cap;
    bool oom;
} sbuf;

static void put(sbuf *b, const char *fmt, ...)
{
    if (b->oom)
        return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(b->s ? b->s + b->len : NULL, b->cap - b->len, fmt, ap);
        va_end(ap);
        if (n < 0) {
            b->oom = true;
            return;
        }
        if ((size_t)n < b->cap - b->len) {
            b->len += (size_t)n;
            return;
        }
        size_t cap = (b->cap + (size_t)n + 1) * 2;
        char *s = realloc(b->s, cap);
        if (!s) {
            b->oom = true;
            return;
        }
        b->s = s;
        b->cap = cap;
    }
}

static const char *color_name(int c) { return c == GO_BLACK ? "Black" : "White"; }

static void put_move(sbuf *b, const ts_geom *g, int c, int i)
{
    if (i == TS_PASS) {
        put(b, ";%c[]", c == GO_BLACK ? 'B' : 'W');
        return;
    }
    int p = g->pt[i];
    put(b, ";%c[%c%c]", c == GO_BLACK ? 'B' : 'W', 'a' + go_point_x(p), 'a' + go_point_y(p));
}

/* Outcome of a child: the rules first, then the table. */
static ts_outcome child_outcome(ts_solver *sv, const ts_pos *c, uint32_t *work)
{
    *work = 0;
    if (c->target_left == 0)
        return TS_ATTACKER_WINS;
    return ts_search_lookup(sv->search, c, NULL, NULL, work);
}

/* The next move of a line where `winner` keeps winning: the winner's quickest win, the loser's
 * most stubborn defence. -1 when the table does not know. */
static int next_move(ts_solver *sv, const ts_pos *pos, int winner)
{
    int moves[TS_MAX_POINTS + 1];
    int n = ts_search_moves(sv->search, pos, moves);
    int best = -1;
    uint32_t best_work = 0;
    bool winner_moves = pos->to_move == winner;
    for (int i = 0; i < n; i++) {
        ts_pos c = *pos;
        ts_play_move(&sv->geom, &c, moves[i]);
        uint32_t work;
        if (!ts_wins(&sv->geom, child_outcome(sv, &c, &work), winner))
            continue;
        /* passes only when nothing else is known: a line of passes shows nothing */
        if (moves[i] == TS_PASS)
            work = winner_moves ? 0xfffffffeu : 0;
        if (best < 0 || (winner_moves ? work < best_work : work > best_work)) {
            best = moves[i];
            best_work = work;
        }
    }
    return best;
}

/* Writes the line from pos (its first move already written, its comment head still to come)
 * and closes it with a comment on how it ends; head joins the first node's comment. */
static void put_line(sbuf *b, ts_solver *sv, ts_pos pos, int winner, const char *head,
                     double deadline_s)
{
    const ts_geom *g = &sv->geom;
    /* problem collections mark the end of a right line with RIGHT */
    const char *tag = !strcmp(head, "Correct") ? "RIGHT: " : "";
    char end[128];
    snprintf(end, sizeof end, winner == (int)g->attacker ? "%s%s is dead"
                                                          : "%s%s lives or makes seki",
             tag, color_name(g->defender));
    for (int len = 0; len < MAX_LINE; len++) {
        ts_outcome t = ts_search_terminal(sv->search, &pos);
        if (t != TS_OPEN) {
            const char *how = t == TS_DEFENDER_WINS ? "%s%s lives"
                              : pos.target_left == 0 ? "%s%s's stones are captured"
                                                     : "%s%s is dead (no room for two eyes)";
            snprintf(end, sizeof end, how, tag, color_name(g->defender));
            break;
        }
        int m = next_move(sv, &pos, winner);
        if (m < 0 && go_now_s() < deadline_s) {
            /* a small budget: a line's end can be undecidable off the line it was proved on
             * (superko), and the tree must not eat the time of the answer */
            ts_search_limits(sv->search, deadline_s, ts_search_nodes(sv->search) + REPROVE_NODES);
            ts_search_prove(sv->search, &pos);
            m = next_move(sv, &pos, winner);
        }
        if (m < 0)
            break;
        if (head) {
            put(b, "C[%s]", head);
            head = NULL;
        }
        put_move(b, g, pos.to_move, m);
        ts_play_move(g, &pos, m);
    }
    if (head)
        put(b, "C[%s. %s]", head, end);
    else
        put(b, "C[%s]", end);
}

char *ts_solution_sgf(ts_solver *sv, const go_tsumego_solution *sol, double deadline_s)
{
    const go_tsumego_problem *p = sv->prob;
    const ts_geom *g = &sv->geom;
    const go_board *bd = &p->board;
    sbuf b = {0};
    put(&b, "(;FF[4]GM[1]CA[UTF-8]AP[shido]SZ[%d]PL[%c]", bd->size,
        p->to_play == GO_BLACK ? 'B' : 'W');
    for (int c = GO_BLACK; c <= GO_WHITE; c++) {
        bool any = false;
        for (int y = 0; y < bd->size; y++)
            for (int x = 0; x < bd->size; x++)
                if (bd->color[go_point_at(x, y)] == c) {
                    if (!any)
                        put(&b, "%s", c == GO_BLACK ? "AB" : "AW");
                    put(&b, "[%c%c]", 'a' + x, 'a' + y);
                    any = true;
                }
    }
    char st[128], rst[128];
    go_tsumego_status_text(&sol->status, p->to_play, st, sizeof st);
    go_tsumego_status_text(&sol->reply_status, go_opponent(p->to_play), rst, sizeof rst);
    put(&b, "C[%s to %s: %s, %s. If %s plays first: %s.]", color_name(p->to_play),
        p->goal == GO_TSUMEGO_GOAL_KILL ? "kill" : "live", st,
        go_tsumego_uniqueness_name(sol->uniqueness), color_name(go_opponent(p->to_play)), rst);

    int mover = p->to_play, other = go_opponent(p->to_play);
    ts_pos root;
    ts_solver_position(sv, sv->level, &root);
    int moves[TS_MAX_POINTS + 1];
    int n = ts_search_moves(sv->search, &root, moves);
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < n; i++) {
            if (moves[i] == TS_PASS)
                continue;
            ts_pos c = root;
            ts_play_move(g, &c, moves[i]);
            uint32_t work;
            ts_outcome o = child_outcome(sv, &c, &work);
            bool right = ts_wins(g, o, mover), wrong = ts_wins(g, o, other);
            /* correct branches first, then the refuted ones */
            if ((pass == 0 && !right) || (pass == 1 && !wrong))
                continue;
            /* a move that reaches the status level but not the better ko of the moves kept */
            bool listed = sol->num_correct == 0;
            for (int k = 0; k < sol->num_correct; k++)
                listed |= sol->correct[k] == g->pt[moves[i]];
            const char *head = !right ? "Wrong" : listed ? "Correct" : "Inferior: a worse ko";
            put(&b, "(");
            put_move(&b, g, mover, moves[i]);
            put_line(&b, sv, c, right ? mover : other, head, deadline_s);
            put(&b, ")");
        }
    put(&b, ")\n");
    if (b.oom) {
        free(b.s);
        return NULL;
    }
    return b.s;
}
