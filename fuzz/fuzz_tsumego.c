/* fuzz/fuzz_tsumego.c -- libFuzzer target for the tsumego set-up and solver on any SGF.
 *
 * The input is an SGF problem: it must parse or be refused, replay or be refused, and its
 * position must then be set up (with the goal its statement names, and inferred) or refused
 * with a reason. A problem that is set up is solved within a few thousand nodes, and what comes
 * back must hold together: a known result, correct first moves that are empty region points,
 * a chosen move on the board or a pass, and a solution tree that parses as SGF.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "go/sgf.h"
#include "go/tsumego.h"

#define FUZZ_MOVE_LIMIT 400

static void check_solution(const go_tsumego_problem *p, const go_tsumego_solution *s)
{
    const go_board *b = &s->problem.board;
    if (s->status.result < GO_TSUMEGO_UNKNOWN || s->status.result > GO_TSUMEGO_FAILURE)
        abort();
    if (s->num_correct < 0 || s->num_correct > s->problem.region_points)
        abort();
    if (s->status.result == GO_TSUMEGO_FAILURE && s->num_correct != 0)
        abort();
    for (int i = 0; i < s->num_correct; i++)
        if (!s->problem.region[s->correct[i]] || b->color[s->correct[i]] != GO_EMPTY)
            abort();
    if (s->best_move != GO_PASS &&
        (s->best_move <= 0 || s->best_move >= GO_POINTS || b->color[s->best_move] != GO_EMPTY))
        abort();
    if (p->to_play != s->problem.to_play)
        abort();
    char err[256];
    go_sgf_collection *t = s->sgf ? go_sgf_parse(s->sgf, strlen(s->sgf), err, sizeof err) : NULL;
    if (!t)
        abort();
    go_sgf_free(t);
}

static void try_goal(const go_board *b, go_tsumego_goal goal)
{
    go_tsumego_problem p;
    char err[256] = "";
    if (!go_tsumego_setup(b, b->to_move, goal, &p, err, sizeof err)) {
        if (!err[0])
            abort(); /* a refusal always says why */
        return;
    }
    if (p.region_points < 1 || p.region_points > GO_TSUMEGO_MAX_REGION || p.num_targets < 1 ||
        p.attacker == p.defender || (goal != GO_TSUMEGO_GOAL_AUTO && p.goal != goal))
        abort();
    go_tsumego_limits lim = {.time_s = 0.5, .max_nodes = 4000, .tt_log2 = 12};
    go_tsumego_solution s;
    if (!go_tsumego_solve(&p, &lim, &s))
        abort();
    check_solution(&p, &s);
    go_tsumego_solution_free(&s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[512];
    go_sgf_collection *c = go_sgf_parse((const char *)data, size, err, sizeof err);
    if (!c)
        return 0;
    go_game g;
    bool ok = c->num_games > 0 && go_sgf_to_game(c->games[0], FUZZ_MOVE_LIMIT, &g, err, sizeof err);
    go_tsumego_goal hint = GO_TSUMEGO_GOAL_AUTO;
    if (ok)
        hint = go_tsumego_goal_from_text(go_sgf_get(c->games[0], "C"));
    go_sgf_free(c);
    if (!ok)
        return 0;
    go_board b = g.board;
    go_game_free(&g);
    try_goal(&b, GO_TSUMEGO_GOAL_AUTO);
    if (hint != GO_TSUMEGO_GOAL_AUTO)
        try_goal(&b, hint);
    return 0;
}
