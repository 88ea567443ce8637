/* teach/control.c -- seed 001's position control and styles, and the controllers built beyond it
 * (control.h). Every policy here works on the candidates of the analysis (the root's visited
 * moves), with priors corrected by method B and the style weights where the policy compares
 * priors, and keeps the naturalness safeguards. */
#include "teach/control.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "teach/features.h"
/* One candidate, from the mover's view. */
typedef struct cand {
    int move;
    int64_t visits;
    double winrate, lead, prior, raw_prior;
    const float *ownership;   /* white's view, NULL when the analysis has none */
    bool keep;
} cand;

typedef struct ctx {
    const teach_play_params *p;
    const teach_choice_in *in;
    const mcts_analysis *an;
    int size;
    go_color mover;
    cand c[NN_MAX_MOVES];
    int n;
    int best;                 /* index of the search's own choice among c, or -1 */
    double best_lead;         /* the highest score lead of the candidates */
    bool strongest;           /* the choice plays for the best (behind) */
} ctx;

int teach_line_of(int size, int point)
{
    int x = go_point_x(point), y = go_point_y(point);
    int dx = x < size - 1 - x ? x : size - 1 - x, dy = y < size - 1 - y ? y : size - 1 - y;
    return 1 + (dx < dy ? dx : dy);
}

double teach_style_weight(const teach_play_params *p, int size, int point)
{
    if (point == GO_PASS)
        return 1.0;
    int line = teach_line_of(size, point);
    return p->style_w[line <= 2 ? 0 : line >= 6 ? 4 : line - 2];
}

double teach_method_b_factor(double d)
{
    static const double factor[] = {1.50, 1.25, 1.00, 0.75, 0.50, 0.25};
    if (d <= 2)
        return factor[0];
    for (int k = 3; k <= 7; k++)
        if (d <= k)
            return factor[k - 2];
    return 0.10;
}

bool teach_ikeda_natural(double gap, double p, double c)
{
    return (gap < 0.03 * c && p > 0.05) || (gap < 0.04 * c && p > 0.10) ||
           (gap < 0.06 * c && p > 0.20) || (gap < 0.08 * c && p > 0.40);
}

double teach_score_weight(const teach_play_params *p, double prior, double delta)
{
    if (delta < p->score_low)
        return prior / pow(p->score_gamma, p->score_low - delta);
    if (delta > p->score_high)
        return prior / pow(p->score_gamma, delta - p->score_high);
    return prior;
}

static double euclid(int a, int b)
{
    double dx = go_point_x(a) - go_point_x(b), dy = go_point_y(a) - go_point_y(b);
    return sqrt(dx * dx + dy * dy);
}

/* The opponent's last move, GO_NO_POINT when there is none (or it was a pass). */
static int last_opponent_move(const go_game *g)
{
    if (g->num_moves == 0)
        return GO_NO_POINT;
    const go_move *m = &g->moves[g->num_moves - 1];
    return m->color != g->board.to_move && m->point != GO_PASS ? m->point : GO_NO_POINT;
}

/* Method B: whether one of the mover's stones stands within the trigger distance of the
 * opponent's last move. */
static bool method_b_applies(const teach_play_params *p, const go_game *g, int last)
{
    const go_board *b = &g->board;
    for (int y = 0; y < b->height; y++)
        for (int xx = 0; xx < b->width; xx++) {
            int q = go_point_at(xx, y);
            if (b->color[q] == b->to_move && euclid(q, last) <= p->method_b_trigger)
                return true;
        }
    return false;
}

/* The opponent's last move when method B corrects the priors of p's policy on g, else
 * GO_NO_POINT. */
static int method_b_move(const teach_play_params *p, const go_game *g)
{
    bool ikeda = p->policy == TEACH_POLICY_IKEDA || p->policy == TEACH_POLICY_TWO_PHASE;
    int last = last_opponent_move(g);
    return p->method_b && ikeda && last != GO_NO_POINT && method_b_applies(p, g, last)
               ? last
               : GO_NO_POINT;
}

bool teach_prior_weights(const teach_play_params *p, const go_game *g, float *w)
{
    int last = method_b_move(p, g), size = g->board.width;
    bool any = false;
    for (int q = 0; q < GO_POINTS; q++)
        w[q] = 1.0f;
    for (int y = 0; y < g->board.height; y++)
        for (int x = 0; x < size; x++) {
            int q = go_point_at(x, y);
            double f = teach_style_weight(p, size, q);
            if (last != GO_NO_POINT)
                f *= teach_method_b_factor(euclid(q, last));
            w[q] = (float)f;
            any |= f != 1.0;
        }
    return any;
}

static bool excluded(const teach_choice_in *in, int move)
{
    for (int i = 0; i < in->num_excluded; i++)
        if (in->excluded[i] == move)
            return true;
    return false;
}

/* Fills x->c with the analysis's visited moves not excluded, priors corrected by method B (when
 * on) and the style weights. */
static bool gather(ctx *x, char *err, int err_len)
{
    const mcts_analysis *an = x->an;
    int last = method_b_move(x->p, x->in->game);
    bool b = last != GO_NO_POINT;
    x->n = 0;
    x->best = -1;
    x->best_lead = -INFINITY;
    for (int i = 0; i < an->num_moves; i++) {
        const mcts_move_info *m = &an->moves[i];
        if (m->visits <= 0 || excluded(x->in, m->move))
            continue;
        cand *c = &x->c[x->n];
        *c = (cand){m->move, m->visits, m->winrate, m->score_lead, m->prior, m->prior,
                    m->ownership, true};
        if (b && m->move != GO_PASS)
            c->prior *= teach_method_b_factor(euclid(m->move, last));
        c->prior *= teach_style_weight(x->p, x->size, m->move);
        if (m->move == x->in->search_choice)
            x->best = x->n;
        if (c->lead > x->best_lead)
            x->best_lead = c->lead;
        x->n++;
    }
    if (x->n == 0) {
        snprintf(err, (size_t)err_len, "%s: the search visited no move",
                 teach_policy_name(x->p->policy));
        return false;
    }
    return true;
}

/* The mover's ownership at q (+1 its own) from a white's-view grid. */
static double own_mover(const ctx *x, const float *white, int q)
{
    double v = white[go_point_y(q) * x->size + go_point_x(q)];
    return x->mover == GO_WHITE ? v : -v;
}

/* The threat test: our stones whose ownership dropped since our last search (the opponent's
 * last move in between) by more than threat_drop in sum. Marks the threatened stones. */
static bool threatened(const ctx *x, bool *stone)
{
    const teach_play_state *s = x->in->state;
    const go_game *g = x->in->game;
    if (!s || !s->have_ownership || s->ownership_move_number != g->num_moves - 2 ||
        !x->an->ownership)
        return false;
    double drop = 0;
    memset(stone, 0, sizeof(bool) * GO_POINTS);
    for (int y = 0; y < x->size; y++)
        for (int xx = 0; xx < x->size; xx++) {
            int q = go_point_at(xx, y);
            if (g->board.color[q] != x->mover)
                continue;
            double d = own_mover(x, s->ownership, q) - own_mover(x, x->an->ownership, q);
            if (d > 0.2) {
                drop += d;
                stone[q] = true;
            }
        }
    return drop > x->p->threat_drop;
}

/* The safeguards: passes only when the search passes, no move below the prior floor, no move
 * that makes a position the game has had (a cycle: throw-ins that simple ko allows, where area
 * scoring loses nothing, could go on to the move limit), and after a threat only answers near
 * it; the search's own choice stays unless it makes a cycle. */
static void safeguard(ctx *x, char *note, int note_len)
{
    const teach_play_params *p = x->p;
    bool cycle[NN_MAX_MOVES];
    int kept = 0, fresh = 0;
    for (int i = 0; i < x->n; i++) {
        cand *c = &x->c[i];
        bool own = i == x->best;
        cycle[i] = go_game_repeats(x->in->game, c->move, x->mover);
        c->keep = !cycle[i] && (own || (c->move != GO_PASS && c->raw_prior >= p->prior_floor));
        kept += c->keep;
        fresh += !cycle[i];
    }
    if (kept == 0)
        for (int i = 0; i < x->n; i++)
            x->c[i].keep = !cycle[i] || fresh == 0;
    if (fresh < x->n)
        snprintf(note, (size_t)note_len, " (%d moves that repeat a position left out)",
                 x->n - fresh);
    bool stone[GO_POINTS];
    int last = last_opponent_move(x->in->game);
    if (last == GO_NO_POINT || !threatened(x, stone))
        return;
    int near = 0;
    for (int i = 0; i < x->n; i++) {
        cand *c = &x->c[i];
        bool close = c->move != GO_PASS && teach_remi_distance(c->move, last) <= p->threat_dist;
        for (int q = 0; q < GO_POINTS && !close && c->move != GO_PASS; q++)
            close = stone[q] && teach_remi_distance(c->move, q) <= p->threat_dist;
        if (c->keep && !close && i != x->best)
            c->keep = false;
        near += c->keep;
    }
    snprintf(note, (size_t)note_len, " (answering the threat: %d moves near it)", near);
}

/* The kept candidate of highest score by f, or -1. */
typedef double (*score_fn)(const ctx *x, const cand *c, const void *arg);

static int argmax(const ctx *x, score_fn f, const void *arg)
{
    int best = -1;
    double best_v = -INFINITY;
    for (int i = 0; i < x->n; i++) {
        if (!x->c[i].keep)
            continue;
        double v = f(x, &x->c[i], arg);
        if (v > best_v) {
            best_v = v;
            best = i;
        }
    }
    return best;
}

static double by_prior(const ctx *x, const cand *c, const void *arg) { return c->prior; }

static double by_winrate(const ctx *x, const cand *c, const void *arg) { return c->winrate; }

static double closest_to_half(const ctx *x, const cand *c, const void *arg)
{
    return -fabs(c->winrate - 0.5);
}

/* ---- the policies ------------------------------------------------------------------------- */

static int choose_softmax(ctx *x, teach_rng *rng)
{
    double z = x->in->state && x->in->state->softmax_z > 0 ? x->in->state->softmax_z
                                                            : x->p->softmax_z;
    double w[NN_MAX_MOVES];
    for (int i = 0; i < x->n; i++) {
        bool ok = x->c[i].keep && x->c[i].visits >= x->p->softmax_min_visits;
        w[i] = ok ? pow((double)x->c[i].visits, z) : 0;
    }
    int pick = teach_rng_pick(rng, w, x->n);
    return pick >= 0 ? pick : x->best;
}

/* Ikeda's controller (seed 001 section 3 and 5): the candidates by winrate, the four cases. */
static int choose_ikeda(ctx *x, char *why, int why_len)
{
    const teach_play_params *p = x->p;
    double c = p->ikeda_c;
    if (p->method_a) {
        double floor = p->method_a_min_frac * (double)x->an->root_visits;
        for (int i = 0; i < x->n; i++)
            if (i != x->best && (double)x->c[i].visits < floor)
                x->c[i].keep = false;
    }
    int first = argmax(x, by_winrate, NULL);
    double w1 = x->c[first].winrate, w2 = -1;
    for (int i = 0; i < x->n; i++)
        if (x->c[i].keep && i != first && x->c[i].winrate > w2)
            w2 = x->c[i].winrate;
    if (w2 < 0 || w1 - w2 >= 0.08 * c) {
        snprintf(why, (size_t)why_len, "the only move (%.1f%% ahead of the next)",
                 100 * (w1 - (w2 < 0 ? w1 : w2)));
        return first;
    }
    if (w1 < p->ikeda_t_min) {
        snprintf(why, (size_t)why_len, "behind (%.1f%%): the best move", 100 * w1);
        x->strongest = true;
        return first;
    }
    if (w1 < p->ikeda_t_max) {
        for (int i = 0; i < x->n; i++)
            if (x->c[i].keep && w1 - x->c[i].winrate > 0.03 * c)
                x->c[i].keep = false;
        snprintf(why, (size_t)why_len, "even (%.1f%%): the most natural of the close moves",
                 100 * w1);
        return argmax(x, by_prior, NULL);
    }
    int pick = -1;
    double best_v = INFINITY;
    for (int i = 0; i < x->n; i++) {
        const cand *k = &x->c[i];
        if (!k->keep || !teach_ikeda_natural(w1 - k->winrate, k->prior, c))
            continue;
        /* method C: the largest Gain; else the lowest winrate (as the smallest -Gain) */
        double v = p->method_c ? -((w1 - k->winrate) + p->method_c_alpha * k->prior) : k->winrate;
        if (v < best_v) {
            best_v = v;
            pick = i;
        }
    }
    snprintf(why, (size_t)why_len, "ahead (%.1f%%): %s", 100 * w1,
             pick < 0 ? "no natural move gives back, the best"
             : p->method_c ? "the natural move of most gain (method C)"
                           : "the natural move that gives back most");
    return pick < 0 ? first : pick;
}

/* The KataGo+ score band (seed 001 section 6). */
static int choose_score(ctx *x, char *why, int why_len)
{
    const teach_play_params *p = x->p;
    /* two-phase below the band: the band's weights would pick among the leads of moves searched
     * a few times (method A's wide search), noisy enough to throw a game away; catching up is
     * the search's job */
    if (p->policy == TEACH_POLICY_TWO_PHASE && x->best >= 0 && x->c[x->best].lead < p->score_low) {
        snprintf(why, (size_t)why_len, "below the band (%+.1f < %g): the search's move",
                 x->c[x->best].lead, p->score_low);
        x->strongest = true;
        return x->best;
    }
    /* the top score_top by prior */
    int order[NN_MAX_MOVES], m = 0;
    for (int i = 0; i < x->n; i++)
        if (x->c[i].keep)
            order[m++] = i;
    for (int i = 1; i < m; i++)
        for (int j = i; j > 0 && x->c[order[j]].prior > x->c[order[j - 1]].prior; j--) {
            int t = order[j];
            order[j] = order[j - 1];
            order[j - 1] = t;
        }
    if (m > p->score_top)
        m = p->score_top;
    if (m > 0 && x->c[order[0]].raw_prior >= 0.9) {
        snprintf(why, (size_t)why_len, "the obvious move (prior %.2f)", x->c[order[0]].raw_prior);
        return order[0];
    }
    double top = -INFINITY;
    int left = 0;
    for (int k = 0; k < m; k++)
        if (x->c[order[k]].raw_prior > 0.01) {
            order[left++] = order[k];
            top = fmax(top, x->c[order[k]].lead);
        }
    /* two-phase: the cap as learnt between games */
    double cap = p->score_cap;
    if (p->policy == TEACH_POLICY_TWO_PHASE && x->in->state)
        cap = fmin(50.0, fmax(0.0, cap + x->in->state->cap_shift));
    int pick = -1;
    double best_s = -INFINITY;
    for (int k = 0; k < left; k++) {
        const cand *c = &x->c[order[k]];
        if (c->lead < top - cap)
            continue;
        double s = teach_score_weight(p, c->prior, c->lead);
        if (s > best_s) {
            best_s = s;
            pick = order[k];
        }
    }
    if (pick < 0) {
        snprintf(why, (size_t)why_len, "no move of prior above 0.01: the best");
        return x->best >= 0 ? x->best : argmax(x, by_winrate, NULL);
    }
    snprintf(why, (size_t)why_len, "score band [%g, %g], cap %g: %+.1f points, prior %.3f",
             p->score_low, p->score_high, cap, x->c[pick].lead, x->c[pick].prior);
    return pick;
}

bool teach_endgame_criteria(const teach_play_params *p, int size, double lead, double stdev,
                            double pass_lead)
{
    bool big = size > 15;
    double lead_max = p->endgame_lead > 0 ? p->endgame_lead : big ? 12 : 5;
    double pass_max = p->endgame_pass > 0 ? p->endgame_pass : big ? 5 : 7;
    return fabs(lead) <= lead_max && stdev <= p->endgame_stdev &&
           fabs(lead - pass_lead) <= pass_max;
}

static bool is_endgame(const ctx *x)
{
    return x->in->has_pass_lead &&
           teach_endgame_criteria(x->p, x->size, x->an->root_score_lead,
                                  x->an->root_score_stdev, x->in->pass_lead);
}

/* The adaptive controller: our loss per move aims at the opponent's measured loss, plus the lead
 * spread over the moves left. */
static int choose_adaptive(ctx *x, char *why, int why_len)
{
    teach_play_state *s = x->in->state;
    const go_game *g = x->in->game;
    double root = x->an->root_score_lead;
    if (s && s->have_expected && g->num_moves == s->expected_move_number + 1) {
        /* the opponent's one move since: what it cost it against our search's expectation */
        double loss = fmax(0.0, root - s->expected_lead);
        s->opp_moves++;
        double rate = fmax(x->p->adaptive_rate, 1.0 / s->opp_moves);
        s->opp_loss_mean += rate * (loss - s->opp_loss_mean);
    }
    /* the lead is given back over the next adaptive_horizon moves (fewer when the game ends
     * sooner): spread over the whole game the search's optimism about rarely visited moves
     * leaves too much of it in place */
    double moves_left = (0.6 * x->size * x->size - g->num_moves) / 2;
    double horizon = fmax(3.0, fmin(x->p->adaptive_horizon, moves_left));
    double margin = x->p->adaptive_margin + (s ? s->margin_shift : 0);
    double target = (s ? s->opp_loss_mean : 0) + (root - margin) / horizon;
    /* losses against the search's own choice: the highest lead among moves of a few visits
     * each is mostly their noise, and a loss against it is often none */
    double ref = x->best >= 0 ? x->c[x->best].lead : x->best_lead;
    double closest = INFINITY, cost[NN_MAX_MOVES];
    for (int i = 0; i < x->n; i++)
        if (x->c[i].keep && i != x->best &&
            ((x->p->adaptive_max_loss > 0 && ref - x->c[i].lead > x->p->adaptive_max_loss) ||
             x->c[i].visits < x->p->adaptive_min_visits))
            x->c[i].keep = false;
    for (int i = 0; i < x->n; i++)
        if (x->c[i].keep) {
            cost[i] = fabs(ref - x->c[i].lead - target) +
                      x->p->adaptive_natural * -log(fmax(x->c[i].prior, 1e-6));
            closest = fmin(closest, cost[i]);
        }
    for (int i = 0; i < x->n; i++)
        if (x->c[i].keep && cost[i] > closest + x->p->adaptive_window)
            x->c[i].keep = false;
    int pick = argmax(x, by_prior, NULL);
    if (s && pick >= 0) {
        s->have_expected = true;
        s->expected_lead = x->c[pick].lead;
        s->expected_move_number = g->num_moves + 1;
    }
    snprintf(why, (size_t)why_len, "opponent loses %.2f a move (%d measured), lead %+.1f, "
             "margin %+.1f: losing %.2f", s ? s->opp_loss_mean : 0, s ? s->opp_moves : 0, root,
             margin, target);
    return pick;
}

/* Aggressive / peaceful: the ownership the move gains in the opponent's area (aggressive) or in
 * our own (peaceful) against the root's, among moves within the loss cap. */
static double area_gain(const ctx *x, const cand *c, const void *arg)
{
    bool aggressive = *(const bool *)arg;
    if (!c->ownership || !x->an->ownership)
        return -INFINITY;
    double gain = 0;
    for (int y = 0; y < x->size; y++)
        for (int xx = 0; xx < x->size; xx++) {
            int q = go_point_at(xx, y);
            double before = own_mover(x, x->an->ownership, q);
            if ((before < 0) == aggressive && before != 0)
                gain += own_mover(x, c->ownership, q) - before;
        }
    return gain + 1e-3 * c->prior;
}

static int choose_area_style(ctx *x, char *why, int why_len)
{
    bool aggressive = x->p->policy == TEACH_POLICY_AGGRESSIVE;
    for (int i = 0; i < x->n; i++)
        if (x->c[i].keep && i != x->best && x->best_lead - x->c[i].lead > x->p->style_max_loss)
            x->c[i].keep = false;
    int pick = argmax(x, area_gain, &aggressive);
    double g = pick >= 0 ? area_gain(x, &x->c[pick], &aggressive) : 0;
    snprintf(why, (size_t)why_len, "%s: %+.2f ownership %s", aggressive ? "aggressive" : "peaceful",
             isfinite(g) ? g : 0.0, aggressive ? "taken from the opponent's area" : "in our area");
    return pick;
}

/* After the opponent's pass: whether passing (which ends the game) loses at most pass_loss
 * points against the search's choice; *loss receives what it loses. */
static bool opponent_passed_pass(const ctx *x, double *loss)
{
    const go_game *g = x->in->game;
    if (g->num_moves == 0 || g->moves[g->num_moves - 1].point != GO_PASS ||
        g->moves[g->num_moves - 1].color == x->mover)
        return false;
    double ref = x->best >= 0 ? x->c[x->best].lead : x->best_lead;
    for (int i = 0; i < x->n; i++)
        if (x->c[i].move == GO_PASS) {
            *loss = fmax(0.0, ref - x->c[i].lead);
            return ref - x->c[i].lead <= x->p->pass_loss;
        }
    return false;
}

/* Remembers the root's ownership for the next move's threat test. */
static void remember(const ctx *x)
{
    teach_play_state *s = x->in->state;
    if (!s || !x->an->ownership)
        return;
    s->have_ownership = true;
    s->ownership_move_number = x->in->game->num_moves;
    memcpy(s->ownership, x->an->ownership, sizeof(float) * (size_t)(x->size * x->size));
}

bool teach_control_choose(const teach_play_params *p, const teach_choice_in *in, teach_rng *rng,
                          teach_choice *out, char *err, int err_len)
{
    if (!in->an) {
        snprintf(err, (size_t)err_len, "%s: needs a search", teach_policy_name(p->policy));
        return false;
    }
    ctx *x = malloc(sizeof *x);
    if (!x) {
        snprintf(err, (size_t)err_len, "out of memory");
        return false;
    }
    x->p = p;
    x->in = in;
    x->an = in->an;
    x->size = in->game->board.size;
    x->mover = in->game->board.to_move;
    x->strongest = false;
    bool ok = gather(x, err, err_len);
    if (ok && (in->search_choice == GO_PASS || in->search_choice == MCTS_RESIGN)) {
        /* the end of a game is the search's: a teaching game ends as a strong player ends it */
        out->move = in->search_choice;
        snprintf(out->why, sizeof out->why, "%s: the search %s", teach_policy_name(p->policy),
                 in->search_choice == GO_PASS ? "passes" : "resigns");
        remember(x);
        free(x);
        return true;
    }
    char note[96] = "", why[160] = "";
    int pick = -1;
    bool saturated = false;   /* two-phase: the score band for a saturated winrate */
    double pass_loss;
    if (ok && opponent_passed_pass(x, &pass_loss)) {
        /* nothing is left to play for: a teaching game ends when the board is settled */
        out->move = GO_PASS;
        snprintf(out->why, sizeof out->why, "%s: the opponent passed and passing loses %.1f",
                 teach_policy_name(p->policy), pass_loss);
        remember(x);
        free(x);
        return true;
    }
    if (ok) {
        safeguard(x, note, sizeof note);
        teach_policy policy = p->policy;
        if (policy == TEACH_POLICY_TWO_PHASE) {
            if (in->state && !in->state->in_endgame && is_endgame(x))
                in->state->in_endgame = true;
            bool end = in->state ? in->state->in_endgame : is_endgame(x);
            int top = argmax(x, by_winrate, NULL);
            saturated = !end && top >= 0 && x->c[top].winrate >= p->saturation;
            policy = end || saturated ? TEACH_POLICY_SCORE : TEACH_POLICY_IKEDA;
        }
        switch (policy) {
        case TEACH_POLICY_NAIVE:
            pick = argmax(x, closest_to_half, NULL);
            snprintf(why, sizeof why, "winrate closest to 50%%");
            break;
        case TEACH_POLICY_SOFTMAX:
            pick = choose_softmax(x, rng);
            snprintf(why, sizeof why, "drawn by visits^z");
            break;
        case TEACH_POLICY_IKEDA:
            pick = choose_ikeda(x, why, sizeof why);
            break;
        case TEACH_POLICY_SCORE:
            pick = choose_score(x, why, sizeof why);
            break;
        case TEACH_POLICY_ADAPTIVE:
            pick = choose_adaptive(x, why, sizeof why);
            break;
        case TEACH_POLICY_AGGRESSIVE:
        case TEACH_POLICY_PEACEFUL:
            pick = choose_area_style(x, why, sizeof why);
            break;
        default:
            snprintf(err, (size_t)err_len, "%s is no seed 001 policy",
                     teach_policy_name(p->policy));
            ok = false;
        }
    }
    if (ok && pick < 0)
        pick = x->best >= 0 ? x->best : 0;
    if (ok) {
        out->move = x->c[pick].move;
        out->strongest = p->policy == TEACH_POLICY_TWO_PHASE && x->strongest;
        snprintf(out->why, sizeof out->why, "%s%s: %s%s", teach_policy_name(p->policy),
                 p->policy == TEACH_POLICY_TWO_PHASE
                     ? (in->state && in->state->in_endgame ? " (endgame)"
                        : saturated                        ? " (saturated)"
                                                           : " (open)")
                     : "",
                 why, note);
        remember(x);
    }
    free(x);
    return ok;
}
