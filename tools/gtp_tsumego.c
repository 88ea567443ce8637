/* tools/gtp_tsumego.c -- the tsumego solver over GTP.
 *
 * `tsumego_solve [COLOR] [kill|live] [SECONDS]` answers a life-and-death question about the
 * current position (a corner or side problem, as `shido tsumego solve` takes): COLOR moves first
 * (default: the side to move), the goal is inferred unless given, the solve takes at most
 * SECONDS (default: --tsumego's, else 10). The answer is one line: the side moving first, its
 * goal, the result, and moves:
 *   black kill success C19 B18   every first move proven to reach the goal
 *   white live ko A18            the first moves that reach the best ko
 *   black kill failure           no first move reaches the goal (proven)
 *   black live unknown A18       nothing proven within the limits: the solver's guess
 * With `shido gtp --tsumego[=S]` genmove (lz-/kata-genmove_analyze too, answering with the
 * "play" line alone) plays the solver's move on corner and side problems
 * (S seconds a move, default 10, less when the clock says so): a GUI then becomes a sparring
 * partner for practising problems, answering every move with the proven best resistance or
 * refutation. When the problem is settled (no weak defender group left: it lives
 * unconditionally or was captured) genmove passes; on a position that is no corner or side
 * problem it plays the network's search as usual. A loaded network guides the solver
 * (tools/tsumego_net.h); without one the solver works alone. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "go/tsumego.h"
#include "tools/gtp_internal.h"
#include "tools/tsumego_net.h"

#define TSUMEGO_DEFAULT_S 10.0

/* A table (go_tsumego_limits.tt_log2: 2^k x 16 bytes, three positions in 64) for what a solve
 * of secs can fill at about 20 M positions a second, from 64 KB up to the solver's default of
 * 32 MB: a short solve (the fuzz target makes many) need not map and clear the whole default. */
static int table_log2(double secs)
{
    int k = 12;
    while (k < 21 && 0.75 * (double)(1u << k) < secs * 2e7)
        k++;
    return k;
}

/* Solves p within secs: full (every first move, as tsumego_solve reports) or the first move
 * only (genmove). Guided by the first network when one is loaded. False with the reason in r. */
static bool solve(gtp_engine *e, const go_tsumego_problem *p, double secs, bool full,
                  go_tsumego_solution *out, gtp_text *r)
{
    if (e->tsumego_max_s > 0 && secs > e->tsumego_max_s)
        secs = e->tsumego_max_s;
    go_tsumego_limits lim = {.time_s = secs, .first_move_only = !full,
                             .tt_log2 = table_log2(secs)};
    if (e->num_nets == 0) {
        if (go_tsumego_solve(p, &lim, out))
            return true;
        return gtp_fail(r, "out of memory");
    }
    char err[512];
    if (!e->tsumego) {
        nn_model *m = gtp_model_get(e, r);
        if (!m)
            return false;
        e->tsumego = tsumego_net_new(m, err, sizeof err);
        if (!e->tsumego) {
            gtp_text_printf(r, "cannot start the tsumego solver: %s", err);
            return false;
        }
        /* genmove resists a right move the hardest way it can; tsumego_solve names no move
         * for a failure */
        tsumego_net_set_stubborn(e->tsumego, true);
    }
    if (tsumego_net_solve(e->tsumego, p, &lim, out, err, sizeof err))
        return true;
    gtp_text_printf(r, "the tsumego solver failed: %s", err);
    return false;
}

/* The moves of a solution for its answer: the proven correct ones, or the guess. */
static void add_moves(gtp_text *r, const go_tsumego_solution *s, int size)
{
    char v[8];
    go_tsumego_result res = s->status.result;
    if (res == GO_TSUMEGO_SUCCESS || res == GO_TSUMEGO_KO) {
        for (int i = 0; i < s->num_correct; i++)
            gtp_text_printf(r, " %s", go_point_to_gtp(size, s->correct[i], v));
    } else if (res != GO_TSUMEGO_FAILURE && s->best_move != GO_PASS) {
        gtp_text_printf(r, " %s", go_point_to_gtp(size, s->best_move, v));
    }
}

bool gtp_cmd_tsumego_solve(gtp_engine *e, const gtp_args *a, gtp_text *r)
{
    go_color c = e->game.board.to_move;
    go_tsumego_goal goal = GO_TSUMEGO_GOAL_AUTO;
    double secs = e->tsumego_s > 0 ? e->tsumego_s : TSUMEGO_DEFAULT_S;
    bool seen_color = false, seen_goal = false, seen_time = false;
    for (int i = 0; i < a->argc; i++) {
        const char *w = a->argv[i];
        go_color wc;
        double t;
        if (!seen_color && gtp_parse_color(w, &wc)) {
            c = wc;
            seen_color = true;
        } else if (!seen_goal && (!strcasecmp(w, "kill") || !strcasecmp(w, "live"))) {
            goal = !strcasecmp(w, "kill") ? GO_TSUMEGO_GOAL_KILL : GO_TSUMEGO_GOAL_LIVE;
            seen_goal = true;
        } else if (!seen_time && gtp_parse_number(w, &t) && t > 0 && t <= 86400) {
            secs = t;
            seen_time = true;
        } else {
            return gtp_fail(r, "syntax error (tsumego_solve [black|white] [kill|live] "
                               "[seconds, up to 86400])");
        }
    }
    go_tsumego_problem *p = malloc(sizeof *p);
    go_tsumego_solution *s = malloc(sizeof *s);
    char err[256];
    go_tsumego_refusal why;
    bool ok = p && s;
    if (!ok)
        gtp_fail(r, "out of memory");
    else if (!(ok = go_tsumego_setup_why(&e->game.board, c, goal, p, &why, err, sizeof err)))
        gtp_text_printf(r, "%s: %s",
                        why == GO_TSUMEGO_REFUSED_SETTLED ? "settled" : "not a tsumego", err);
    else if ((ok = solve(e, p, secs, true, s, r))) {
        gtp_text_printf(r, "%s %s %s", c == GO_BLACK ? "black" : "white",
                        s->problem.goal == GO_TSUMEGO_GOAL_KILL ? "kill" : "live",
                        go_tsumego_result_name(s->status.result));
        add_moves(r, s, e->game.board.size);
        go_tsumego_solution_free(s);
    }
    free(p);
    free(s);
    return ok;
}

int gtp_tsumego_genmove(gtp_engine *e, go_color c, gtp_text *r)
{
    if (e->game.board.to_move != c)
        go_game_set_to_move(&e->game, c);
    double secs = e->tsumego_s;
    mcts_limits clock = gtp_search_move_limits(e);
    if (clock.max_time_ms > 0 && (double)clock.max_time_ms / 1000.0 < secs)
        secs = (double)clock.max_time_ms / 1000.0;
    go_tsumego_problem *p = malloc(sizeof *p);
    go_tsumego_solution *s = malloc(sizeof *s);
    go_tsumego_refusal why = GO_TSUMEGO_REFUSED_OTHER;
    char err[256];
    int move = GO_PASS, got = 1;
    if (!p || !s) {
        got = 0;
        gtp_fail(r, "out of memory");
    } else if (!go_tsumego_setup_why(&e->game.board, c, GO_TSUMEGO_GOAL_AUTO, p, &why, err,
                                     sizeof err)) {
        /* settled: nothing left to play for; no problem at all: the search's move */
        bool search = why == GO_TSUMEGO_REFUSED_SHAPE && e->num_nets > 0;
        got = why == GO_TSUMEGO_REFUSED_SETTLED ? 1 : search ? -1 : 0;
        if (got == 0)
            gtp_text_printf(r, "not a tsumego: %s%s", err,
                            why == GO_TSUMEGO_REFUSED_SHAPE ? " (and no network to search with)"
                                                            : "");
    } else if (!solve(e, p, secs, false, s, r)) {
        got = 0;
    } else {
        move = s->best_move;
        go_tsumego_solution_free(s);
    }
    free(p);
    free(s);
    if (got != 1)
        return got;
    if (go_game_play(&e->game, move, c) != GO_MOVE_OK) {
        /* the game's superko forbids what the region's rules allow: the search chooses, or
         * without a network the solver's side passes */
        if (e->num_nets > 0)
            return -1;
        move = GO_PASS;
        go_game_play(&e->game, move, c);
    }
    char v[8];
    gtp_text_add(r, go_point_to_gtp(e->game.board.size, move, v));
    return 1;
}
