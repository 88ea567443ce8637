/* mcts/mirror.c -- KataGo's antiMirror (the anti_mirror tunable): against an opponent that
 * answers every move with its point reflection through the centre, a plain search sees nothing
 * wrong (the mirrored game is balanced, and the net was never trained against it) and keeps
 * mirroring along. KataGo's answer, as its v1.17 search does it:
 *
 *  - detection, from the root's game: most of the opponent's moves, and many of its recent
 *    ones, mirrored the move before them, and the last one did;
 *  - inside the tree, on lines where the opponent kept mirroring since the root: the opponent's
 *    mirror reply gets a large prior (it will probably go on mirroring) and forced visits, so
 *    that lines where mirroring fails show up; our central moves (tengen, and contact with the
 *    opponent's tengen stone) get a small prior, and tengen forced visits, since a stone on
 *    tengen is what breaks a mirror;
 *  - when the opponent holds tengen and the komi does not favour us (the hard case), the value
 *    of every evaluation is pulled toward whoever owns the centre.
 *
 * Utilities here are KataGo's (win/loss in [-1, 1] plus the score terms) from the mover's view;
 * search.c adds half of a bonus to its Q, which is in winrate units.
 */
#include <math.h>

#include "go/score.h"
#include "mcts/internal.h"

/* The point reflection of move through the centre (pass stays pass). */
static int mirror_of(int size, int move)
{
    if (move == GO_PASS)
        return GO_PASS;
    return go_point_at(size - 1 - go_point_x(move), size - 1 - go_point_y(move));
}

/* Tengen, or GO_NO_POINT on an even board. */
static int center_of(int size)
{
    return size % 2 ? go_point_at(size / 2, size / 2) : GO_NO_POINT;
}

static int dist_sq(int a, int b)
{
    int dx = go_point_x(a) - go_point_x(b), dy = go_point_y(a) - go_point_y(b);
    return dx * dx + dy * dy;
}

/* The central point (points, on an even board) and the ring around it. */
static bool is_central(int size, int p, int ring)
{
    int x = go_point_x(p), y = go_point_y(p), lo = (size - 1) / 2 - ring, hi = size / 2 + ring;
    return x >= lo && x <= hi && y >= lo && y <= hi;
}

/* Whether move touches the chain standing on point chain. */
static bool touches_chain(const go_board *b, int move, int chain)
{
    if (b->color[chain] != GO_BLACK && b->color[chain] != GO_WHITE)
        return false;
    for (int d = 0; d < 4; d++) {
        int a = move + go_dir4[d];
        if (b->color[a] == b->color[chain] && b->chain[a] == b->chain[chain])
            return true;
    }
    return false;
}

/* Whether every opponent move on g's line since the root, but the last skip_recent plies,
 * mirrored the move before it. */
static bool mirroring_since_root(const struct mcts_search *s, const go_game *g, int skip_recent)
{
    int size = g->board.size;
    for (int i = s->root_game.num_moves + 1; i + skip_recent < g->num_moves; i += 2)
        if (g->moves[i].point != mirror_of(size, g->moves[i - 1].point))
            return false;
    return true;
}

/* Whether the hard case holds on b: the mirroring side has a stone on tengen, and mirroring to
 * the end would not lose it more than half a point. */
static bool difficult(const struct mcts_search *s, const go_board *b)
{
    int center = center_of(b->size);
    return center != GO_NO_POINT && b->color[center] == s->mirror.pla &&
           s->mirror.advantage >= -0.5;
}

bool mcts_mirror_update(struct mcts_search *s)
{
    const go_game *g = &s->root_game;
    const go_board *b = &g->board;
    int size = b->size;
    go_color root = b->to_move, was = s->mirror.pla;
    mcts_mirror m = {.pla = GO_EMPTY, .advantage = 0, .center_error = 1e10};
    /* square boards only: the centre and the rings around it below are measured by size */
    if (s->p.anti_mirror && go_board_square(b)) {
        /* mirrors among the opponent's moves, overall and in an exponential mean (0.75 a move) */
        int mirrors = 0, total = 0;
        double mirror_ewms = 0, total_ewms = 0;
        bool last = false;
        for (int i = 1; i < g->num_moves; i++) {
            if (g->moves[i].color == root)
                continue;
            last = g->moves[i].point == mirror_of(size, g->moves[i - 1].point);
            mirrors += last;
            mirror_ewms = (mirror_ewms + last) * 0.75;
            total++;
            total_ewms = (total_ewms + 1) * 0.75;
        }
        if (mirrors >= 7.0 + 0.5 * total && mirror_ewms >= 0.45 * total_ewms && last) {
            m.pla = go_opponent(root);
            /* what black gets from a mirrored game played out: the handicap stones beyond the
             * first and, on an odd board, the last move under area scoring; less the white
             * handicap bonus */
            int h = go_score_handicap_stones(g);
            double black_extra = 0;
            if (g->rules.scoring == GO_SCORING_AREA) {
                if (h > 0)
                    black_extra += h - 1;
                if ((size % 2 == 1) == (h == 0 || h % 2 == 1))
                    black_extra += 1;
            }
            if (h > 0 && g->rules.white_handicap_bonus == GO_WHB_N)
                black_extra -= h;
            if (h > 0 && g->rules.white_handicap_bonus == GO_WHB_N_MINUS_ONE)
                black_extra -= h - 1;
            m.advantage = m.pla == GO_BLACK ? black_extra - g->komi : g->komi - black_extra;
        }
        if (size >= 7) {
            /* our stones in the centre's 7x7 that the mirroring side has not answered (1 each),
             * and its own stones there that we have not (0.2 each, only once one of ours
             * counts), grown quadratically from 1 on */
            double err = 0;
            int unmatched = 0;
            for (int dy = -3; dy <= 3; dy++)
                for (int dx = -3; dx <= 3; dx++) {
                    int p = go_point_at(size / 2 + dx, size / 2 + dy), q = mirror_of(size, p);
                    if (p == q)
                        continue;
                    if (b->color[p] == go_opponent(m.pla) && b->color[q] != m.pla)
                        err += 1;
                    if (b->color[p] == m.pla && b->color[q] == GO_EMPTY)
                        unmatched++;
                }
            if (err > 0)
                err += 0.2 * unmatched;
            if (err >= 1)
                err = 0.5 * err * (1 + err);
            m.center_error = err;
        }
    }
    s->mirror = m;
    return m.pla != was;
}

bool mcts_mirror_node_begin(const struct mcts_search *s, const mcts_node *n, const go_game *g,
                            double parent_u, mcts_mirror_node *mn)
{
    if (s->mirror.pla == GO_EMPTY || !mirroring_since_root(s, g, 0))
        return false;
    int size = g->board.size;
    *mn = (mcts_mirror_node){.root = n == s->root, .ply = g->num_moves - s->root_game.num_moves,
                             .mover = g->board.to_move, .mirror_move = GO_NO_POINT,
                             .difficult = difficult(s, &g->board), .parent_u = parent_u};
    int last = g->num_moves > 0 ? g->moves[g->num_moves - 1].point : GO_PASS;
    if (mn->mover == s->mirror.pla && last != GO_PASS) {
        /* the reflection of our last move, or pass when it is no legal move here */
        int m = mirror_of(size, last);
        const mcts_child *ch = atomic_load_explicit(&((mcts_node *)n)->children,
                                                    memory_order_acquire);
        mn->mirror_move = GO_PASS;
        for (int i = 0; i < n->num_children; i++)
            if (ch[i].move == m)
                mn->mirror_move = m;
    }
    return true;
}

double mcts_mirror_prior(const struct mcts_search *s, const mcts_mirror_node *mn,
                         const go_game *g, int move, double prior)
{
    int size = g->board.size, center = center_of(size);
    double w = 0;
    if (mn->mover == s->mirror.pla) {
        /* the opponent probably goes on mirroring for a few moves yet */
        if (mn->mirror_move != GO_NO_POINT && move == mn->mirror_move)
            w = mn->difficult ? 3.0 : 1.0;
    } else if (move != GO_PASS) {
        if (is_central(size, move, 0)) {
            w = 0.3;
        } else {
            if (is_central(size, move, 1))
                w = 0.05;
            if (center != GO_NO_POINT &&
                s->root_game.board.color[center] == go_opponent(mn->mover)) {
                int d2 = dist_sq(move, center);
                if (touches_chain(&g->board, move, center) || d2 <= 2)
                    w = 0.05;
                else if (d2 <= 4)
                    w = 0.03;
            }
        }
    }
    if (w <= 0)
        return prior;
    w /= 1.0 + sqrt((double)mn->ply);
    return prior + (1.0 - prior) * w;
}

double mcts_mirror_bonus(const struct mcts_search *s, const mcts_mirror_node *mn,
                         const go_game *g, int move, double child_u, double child_w,
                         double total_w)
{
    const go_board *b = &g->board;
    int size = b->size, center = center_of(size);
    double err = s->mirror.center_error, adv = s->mirror.advantage;
    double damp = fmax(0.3, 1.0 - 0.7 * mn->parent_u * mn->parent_u);
    double bonus = 0;
    if (mn->mover == s->mirror.pla) {
        /* the mirroring side: force visits down its mirror reply */
        if (mn->mirror_move == GO_NO_POINT || move != mn->mirror_move)
            return 0;
        double dump, bias;
        if (mn->difficult) {
            dump = 0.20;
            if (move != GO_PASS)
                dump = fmax(dump, 1.0 / (0.75 + 0.5 * sqrt((double)dist_sq(center, move))) /
                                      fmax(1.0, err));
            bias = 0.75;
        } else if (adv >= 5.0) {
            dump = 0.15;
            bias = 0.50;
        } else if (adv >= -5.0) {
            dump = 0.10 + adv;
            bias = 0.30 + adv * 4;
        } else {
            dump = 0.05;
            bias = 0.10;
        }
        if (move == GO_PASS)
            dump *= 0.35 / fmax(1.0, sqrt(err));
        if (err >= 1.0) {
            dump /= err;
            bias /= err;
        }
        if (child_w < dump * total_w)
            bonus += 100;
        if (child_w < bias * total_w)
            bonus += 0.18 * damp;
        if (child_w < 0.5 * bias * total_w)
            bonus += 0.36 * damp;
        return bonus;
    }
    if (move == GO_PASS)
        return 0;
    /* our side: in the hard case, contact with the tengen chain (fewer liberties: more) */
    double dump = 0;
    if (mn->difficult) {
        if (touches_chain(b, move, center)) {
            int libs = go_board_libs(b, center);
            bonus += 0.75 / (1.0 + libs) / fmax(1.0, err) * damp;
            dump = 0.10 / libs;
        }
        int d2 = dist_sq(move, center);
        if (d2 <= 2)
            dump = fmax(dump, 0.010);
        else if (d2 <= 4)
            dump = fmax(dump, 0.005);
    }
    if (move == center)
        dump = mn->root ? 0.06 : 0.12;
    /* a share that would cost much utility is cut back toward 0.03 utility's worth */
    double loss = mn->parent_u - (child_u + bonus);
    if (loss > 0 && loss * dump > 0.03)
        dump += 0.5 * (0.03 / loss - dump);
    /* less forcing when the opponent's last move was already near the centre (KataGo measures
     * this from tengen; an even board has none and skips it) */
    int last = g->num_moves > 0 ? g->moves[g->num_moves - 1].point : GO_PASS;
    if (last != GO_PASS && center != GO_NO_POINT) {
        int d2 = dist_sq(center, last);
        if (d2 <= 16)
            dump *= 0.900;
        if (d2 <= 5)
            dump *= 0.825;
        if (d2 <= 2)
            dump *= 0.750;
    }
    if (child_w < dump * total_w)
        bonus += 100;
    return bonus;
}

void mcts_mirror_adjust_eval(const struct mcts_search *s, const go_game *g, const nn_result *r,
                             mcts_eval *e)
{
    if (s->mirror.pla == GO_EMPTY || !r->has_ownership || !difficult(s, &g->board) ||
        !mirroring_since_root(s, g, 4))   /* 4 plies of tolerance, as KataGo */
        return;
    int size = g->board.size;
    double total = r->white_win + r->white_loss;
    double scale = s->mirror.center_error <= 0 ? 0.7 : 0.3;
    double wl = (r->white_win - r->white_loss) / (total + 1e-10);
    wl = fmin(fmax(wl, -1.0 + 1e-15), 1.0 - 1e-15);
    /* whoever owns tengen is pulled up, in logit space */
    wl = tanh(atanh(wl) + scale * r->white_ownership[(size / 2) * size + size / 2]);
    e->utility += s->p.win_loss_utility_factor * (total * wl - e->wl);
    e->wl = total * wl;
}
