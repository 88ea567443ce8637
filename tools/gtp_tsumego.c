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
 * (teach/tsumego.h); without one the solver works alone. With --guess-weights NET the search for
 * the guess, when nothing is proven, runs on that second network. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "tools/gtp_internal.h"

#define TSUMEGO_DEFAULT_S 10.0

teach_tsumego *gtp_tsumego_get(gtp_engine *e, gtp_text *r)
{
    if (e->tsumego)
        return e->tsumego;
    char err[512];
    /* the engine's tunables at the solver's making: --visits caps the guess's search */
    e->tsumego = teach_tsumego_new(teach_engine_model(e->engine, 0),
                                   teach_engine_params(e->engine), err, sizeof err);
    if (e->tsumego && e->guess_engine &&
        !teach_tsumego_set_guess_model(e->tsumego, teach_engine_model(e->guess_engine, 0), err,
                                       sizeof err)) {
        teach_tsumego_free(e->tsumego);
        e->tsumego = NULL;
    }
    if (!e->tsumego) {
        gtp_text_printf(r, "cannot start the tsumego solver: %s", err);
        return NULL;
    }
    /* genmove resists a right move the hardest way it can; tsumego_solve names no move for a
     * failure */
    teach_tsumego_set_stubborn(e->tsumego, true);
    teach_tsumego_set_max_time(e->tsumego, e->tsumego_max_s);
    teach_tsumego_set_max_nodes(e->tsumego, e->tsumego_nodes);
    /* the engine's --threads: the proofs of a sparring problem use them all */
    teach_tsumego_set_threads(e->tsumego, teach_engine_params(e->engine)->num_threads);
    return e->tsumego;
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
    if (!go_board_square(&e->game.board))
        return gtp_fail(r, "the tsumego solver takes square boards only");
    teach_tsumego *t = gtp_tsumego_get(e, r);
    go_tsumego_problem *p = malloc(sizeof *p);
    go_tsumego_solution *s = malloc(sizeof *s);
    char err[256];
    go_tsumego_refusal why;
    bool ok = t && p && s;
    if (t && !ok)
        gtp_fail(r, "out of memory");
    else if (ok && !(ok = teach_tsumego_setup(&e->game.board, c, goal, GO_TSUMEGO_GOAL_AUTO, p,
                                              NULL, &why, err, sizeof err)))
        gtp_text_printf(r, "%s: %s",
                        why == GO_TSUMEGO_REFUSED_SETTLED ? "settled" : "not a tsumego", err);
    else if (ok) {
        go_tsumego_limits lim = {.time_s = secs, .tt_log2 = teach_tsumego_table_log2(secs)};
        if (!(ok = teach_tsumego_solve(t, p, &lim, s, err, sizeof err))) {
            gtp_text_printf(r, "the tsumego solver failed: %s", err);
        } else {
            gtp_text_printf(r, "%s %s %s", c == GO_BLACK ? "black" : "white",
                            s->problem.goal == GO_TSUMEGO_GOAL_KILL ? "kill" : "live",
                            go_tsumego_result_name(s->status.result));
            add_moves(r, s, e->game.board.size);
            go_tsumego_solution_free(s);
        }
    }
    free(p);
    free(s);
    return ok;
}
