/* teach/naturalness.c -- naturalness of the moves of finished games (naturalness.h). */
#include "teach/naturalness.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "teach/control.h"

/* The mover's score lead after its move m in g by the judge: the root's analysis when it gave m
 * at least a quarter of its visits, else a search of the position after m with the root's visits.
 * A move the root barely visited has the network's raw guess for a value, so without its own
 * search the judge would count the network's noise as the move's loss. */
static bool judged_lead(teach_player *judge, const go_game *g, int m, const mcts_analysis *an,
                        const mcts_limits *lim, double *lead, char *err, int err_len)
{
    for (int i = 0; i < an->num_moves; i++)
        if (an->moves[i].move == m && an->moves[i].visits * 4 >= lim->max_visits) {
            *lead = an->moves[i].score_lead;
            return true;
        }
    return teach_player_lead_after(judge, g, m, lim->max_visits, lead, err, err_len);
}

/* The judge's loss of m in g: the best move's score lead less m's (mover's view). */
static bool judged_loss(teach_player *judge, const go_game *g, int m, int64_t visits,
                        double *loss, char *err, int err_len)
{
    mcts_limits lim = {.max_visits = visits};
    mcts_analysis an = {0};
    bool ok = teach_player_set_position(judge, g, err, err_len) &&
              teach_player_analyze(judge, &lim, NULL, NULL, err, err_len) &&
              teach_player_report(judge, NULL, &an) && an.num_moves > 0;
    double lead = 0;
    ok = ok && judged_lead(judge, g, m, &an, &lim, &lead, err, err_len);
    if (ok)
        *loss = an.moves[0].score_lead - lead;
    mcts_analysis_free(&an);
    return ok;
}

bool teach_naturalness_add(teach_engine *e, teach_player *judge, const go_game *g,
                           go_color player, const teach_nat_opts *opts, teach_nat_stats *st,
                           char *err, int err_len)
{
    int size = g->board.size;
    int opening = opts->opening_moves > 0 ? opts->opening_moves : size >= 19 ? 60 : 40;
    double low = opts->low_prior > 0 ? opts->low_prior : 0.05;
    double limit = opts->loss_limit > 0 ? opts->loss_limit : 5.0;
    /* the game's start (setup, handicap and rules as they were), then its moves one by one */
    go_game pos;
    if (!go_game_copy(&pos, g)) {
        snprintf(err, (size_t)err_len, "out of memory");
        return false;
    }
    while (pos.num_moves > 0)
        go_game_undo(&pos);
    nn_result *r = malloc(sizeof *r);
    bool ok = r != NULL;
    int high = 0;   /* this game's opening moves on line >= 4 */
    if (!ok)
        snprintf(err, (size_t)err_len, "out of memory");
    for (int i = 0; ok && i < g->num_moves; i++) {
        const go_move *m = &g->moves[i];
        if (m->color == player && m->point != GO_PASS) {
            go_game_set_to_move(&pos, m->color);
            ok = teach_engine_eval(e, 0, &pos, TEACH_SYM_AVERAGE, NN_DEFAULT_POLICY_OPTIMISM, r,
                                   err, err_len);
            if (!ok)
                break;
            double p = r->policy[go_point_y(m->point) * size + go_point_x(m->point)];
            p = isfinite(p) && p > 1e-6 ? p : 1e-6;
            st->moves++;
            st->sum_prior += p;
            st->sum_log_prior += log(p);
            st->low_prior += p < low;
            if (i < opening) {
                st->line_moves++;
                high += teach_line_of(size, m->point) >= 4;
                const go_move *prev = i > 0 ? &g->moves[i - 1] : NULL;
                if (prev && prev->color != player && prev->point != GO_PASS) {
                    double dx = go_point_x(m->point) - go_point_x(prev->point);
                    double dy = go_point_y(m->point) - go_point_y(prev->point);
                    st->sum_dist += sqrt(dx * dx + dy * dy);
                    st->dist_moves++;
                }
            }
            double loss;
            if (judge && opts->judge_visits > 0) {
                ok = judged_loss(judge, &pos, m->point, opts->judge_visits, &loss, err, err_len);
                if (!ok)
                    break;
                st->judged++;
                st->unnatural += loss > limit;
                st->sum_loss += loss > 0 ? loss : 0;
            }
        }
        if (go_game_play(&pos, m->point, m->color) != GO_MOVE_OK) {
            snprintf(err, (size_t)err_len, "move %d is illegal in the replay", i + 1);
            ok = false;
        }
    }
    if (ok) {
        st->games++;
        st->high_line += high;
        st->sum_sq_high_line += (double)high * high;
    }
    free(r);
    go_game_free(&pos);
    return ok;
}

void teach_nat_line_interval(const teach_nat_stats *st, double *lo, double *hi)
{
    int n = st->games;
    if (n < 2) {
        *lo = *hi = NAN;
        return;
    }
    double mean = (double)st->high_line / n;
    double var = fmax(0.0, (st->sum_sq_high_line - n * mean * mean) / (n - 1));
    double half = 1.959964 * sqrt(var / n);
    *lo = mean - half;
    *hi = mean + half;
}
