/* teach/review.c -- the whole-game review (review.h). */
#include "teach/review.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "teach/explain.h"

/* KaTrain's top-5 approval: a candidate of order below 5 losing less than this many points. */
#define TOP5_ORDER 5
#define TOP5_LOSS 0.5
/* KaTrain's accuracy: 100 * ACCURACY_BASE ^ weighted loss; importance clamped to these. */
#define ACCURACY_BASE 0.75
#define IMPORTANCE_MIN 0.05
#define IMPORTANCE_MAX 1.0

teach_review_params teach_review_params_default(void)
{
    return (teach_review_params){
        .visits = 500,
        .thresholds = {12, 6, 3, 1.5, 0.5, 0},
        .explain_min_loss = 3,
        .explain_min_contribution = 0.05,
    };
}

int teach_review_class(const teach_review_params *p, double loss)
{
    int i = 0;
    while (i < TEACH_REVIEW_CLASSES - 1 && !(loss >= p->thresholds[i]))
        i++;
    return i;
}

const char *teach_review_class_label(const teach_review_params *p, int k, char *buf, int len)
{
    if (p->thresholds[k] > 0)
        snprintf(buf, (size_t)len, "≥ %g", p->thresholds[k]);
    else
        snprintf(buf, (size_t)len, "< %g", p->thresholds[TEACH_REVIEW_CLASSES - 2]);
    return buf;
}

/* ---- one position ---------------------------------------------------------------------------- */

bool teach_review_analyse(teach_features *f, const go_game *g, int played,
                          const teach_review_params *p, teach_review_pos *out, char *err,
                          int err_len)
{
    memset(out, 0, sizeof *out);
    out->to_move = g->board.to_move;
    out->played = played;
    if (!teach_features_set_position(f, g, err, err_len))
        return false;
    mcts_analysis an = {0};
    mcts_analysis_opts o = {0};
    o.ownership = true;
    o.move_ownership = true;
    o.pv_len = TEACH_REVIEW_PV;
    o.max_moves = TEACH_REVIEW_MAX_CANDIDATES;
    teach_after *pass = malloc(sizeof *pass);
    bool ok = pass && teach_features_search_root(f, p->visits, NULL, false, &o, &an, err,
                                                 err_len);
    if (!pass)
        snprintf(err, (size_t)err_len, "out of memory");
    /* after a pass: one network evaluation (the review's cost stays one search a position) */
    ok = ok && teach_features_search_after(f, GO_PASS, 1, pass, err, err_len);
    if (ok) {
        int size = g->board.size;
        out->score_lead = an.root_score_lead;
        out->winrate = an.root_winrate;
        out->has_ownership = an.has_ownership && an.ownership;
        if (out->has_ownership)
            memcpy(out->ownership, an.ownership, sizeof(float) * (size_t)(size * size));
        out->has_pass_ownership = pass->has_ownership;
        if (pass->has_ownership)
            memcpy(out->pass_ownership, pass->ownership, sizeof(float) * (size_t)(size * size));
        for (int k = 0; k < an.num_moves && out->num_cands < TEACH_REVIEW_MAX_CANDIDATES; k++) {
            const mcts_move_info *m = &an.moves[k];
            if (m->visits > 0)
                out->cands[out->num_cands++] =
                    (teach_review_cand){m->move, m->order, m->visits, m->score_lead, m->prior};
        }
        int best = an.num_moves ? an.moves[0].move : GO_PASS;
        if (an.num_moves) {
            const mcts_move_info *m = &an.moves[0];
            out->pv_len = m->pv_len < TEACH_REVIEW_PV ? m->pv_len : TEACH_REVIEW_PV;
            memcpy(out->pv, m->pv, sizeof(int) * (size_t)out->pv_len);
        }
        teach_features_static(f, best, GO_NO_POINT, &out->best_f);
        out->best_f.score_lead = an.num_moves ? an.moves[0].score_lead : an.root_score_lead;
        out->best_f.winrate = an.num_moves ? an.moves[0].winrate : an.root_winrate;
        out->best_f.score_loss = 0;
        out->best_f.visits = an.num_moves ? an.moves[0].visits : 0;
        if (an.num_moves && an.moves[0].ownership && pass->has_ownership)
            teach_contributions(&g->board, g->board.to_move, an.moves[0].ownership,
                                pass->ownership, &out->best_f.strengthen_own,
                                &out->best_f.weaken_opp);
        if (played != GO_NO_POINT)
            teach_features_static(f, played, best, &out->played_f);
        if (teach_features_top_moves(f, false, 1, &out->top_policy) == 1)
            out->top_policy_prior = teach_features_prior(f, out->top_policy, false);
        else
            out->top_policy = GO_PASS;
    }
    mcts_analysis_free(&an);
    free(pass);
    return ok;
}

/* ---- the moves ----------------------------------------------------------------------------- */

void teach_review_assemble(const go_game *game, const teach_review_pos *pos,
                           const teach_review_params *p, teach_review_move *moves)
{
    int size = game->board.size;
    for (int i = 0; i < game->num_moves; i++) {
        const teach_review_pos *a = &pos[i], *b = &pos[i + 1];
        teach_review_move *m = &moves[i];
        memset(m, 0, sizeof *m);
        m->number = i + 1;
        m->color = game->moves[i].color;
        m->move = game->moves[i].point;
        /* both roots turned to the mover's view (a side may move twice in a row) */
        double sa = a->to_move == m->color ? 1 : -1, sb = b->to_move == m->color ? 1 : -1;
        m->score_before = sa * a->score_lead;
        m->winrate_before = sa > 0 ? a->winrate : 1 - a->winrate;
        m->score_after = sb * b->score_lead;
        m->winrate_after = sb > 0 ? b->winrate : 1 - b->winrate;
        m->loss = m->score_before - m->score_after;
        m->klass = teach_review_class(p, m->loss);
        /* KaTrain's complexity: the prior-weighted loss of the candidates before the move */
        double wsum = 0, psum = 0;
        for (int k = 0; k < a->num_cands; k++) {
            const teach_review_cand *c = &a->cands[k];
            double closs = a->score_lead - c->score_lead;
            wsum += fmax(0, closs) * c->prior;
            psum += c->prior;
            if (c->move == m->move &&
                (c->order == 0 || (closs < TOP5_LOSS && c->order < TOP5_ORDER)))
                m->top5 = true;
        }
        m->complexity = fmin(1, wsum / (psum > 0 ? psum : 1e-6));
        m->best = a->num_cands ? a->cands[0].move : GO_PASS;
        m->top_move = a->num_cands && m->best == m->move;
        m->best_loss = a->num_cands ? a->score_lead - a->cands[0].score_lead : 0;
        m->pv_len = a->pv_len;
        memcpy(m->pv, a->pv, sizeof m->pv);
        m->top_policy = a->top_policy;
        m->top_policy_prior = a->top_policy_prior;
        m->f = a->played_f;
        m->f.score_lead = m->score_after;
        m->f.winrate = m->winrate_after;
        m->f.score_loss = a->num_cands ? sa * a->cands[0].score_lead - m->score_after : NAN;
        m->f.visits = p->visits;
        m->f.strengthen_own = m->f.weaken_opp = NAN;
        if (b->has_ownership && a->has_pass_ownership)
            teach_contributions(&game->before[i], m->color, b->ownership, a->pass_ownership,
                                &m->f.strengthen_own, &m->f.weaken_opp);
        m->best_f = a->best_f;
        if (m->loss >= p->explain_min_loss && m->move != m->best) {
            m->explained = true;
            teach_explain_mistake(&m->f, &m->best_f, m->loss, size, p->explain_min_contribution,
                                  TEACH_LANG_EN, m->explain_en, sizeof m->explain_en);
            teach_explain_mistake(&m->f, &m->best_f, m->loss, size, p->explain_min_contribution,
                                  TEACH_LANG_JA, m->explain_ja, sizeof m->explain_ja);
        }
    }
}

void teach_review_summarise(const teach_review_move *moves, int n, const teach_review_params *p,
                            teach_review_player out[2])
{
    for (int c = 0; c < 2; c++) {
        teach_review_player *s = &out[c];
        memset(s, 0, sizeof *s);
        go_color color = c ? GO_WHITE : GO_BLACK;
        double wl = 0, wa = 0, sum = 0, cx = 0;
        int top = 0, top5 = 0;
        s->biggest[0] = s->biggest[1] = s->biggest[2] = -1;
        for (int i = 0; i < n; i++) {
            const teach_review_move *m = &moves[i];
            if (m->color != color)
                continue;
            double pl = fmax(0, m->loss);
            double a = fmin(IMPORTANCE_MAX, fmax(IMPORTANCE_MIN, fmax(m->complexity, pl / 4)));
            s->moves++;
            s->classes[teach_review_class(p, pl)]++;
            wl += pl * a;
            wa += a;
            sum += pl;
            cx += m->complexity;
            top += m->top_move;
            top5 += m->top5;
            if (!(m->loss > 0))
                continue;
            /* the three largest losses, largest first */
            for (int k = 0; k < 3; k++) {
                if (s->biggest[k] >= 0 && moves[s->biggest[k]].loss >= m->loss)
                    continue;
                for (int j = 2; j > k; j--)
                    s->biggest[j] = s->biggest[j - 1];
                s->biggest[k] = i;
                break;
            }
        }
        if (!s->moves) {
            s->accuracy = s->mean_loss = s->weighted_loss = s->complexity = NAN;
            continue;
        }
        s->weighted_loss = wl / (wa > 0 ? wa : 1e-6);
        s->accuracy = 100 * pow(ACCURACY_BASE, s->weighted_loss);
        s->mean_loss = sum / s->moves;
        s->complexity = cx / s->moves;
        s->top_move = (double)top / s->moves;
        s->top5 = (double)top5 / s->moves;
    }
}

/* ---- SGF ----------------------------------------------------------------------------------- */

/* "B+2.3" / "W+0.5" / "0" for a lead in black's view. */
static const char *score_text(double black_lead, char *buf, int len)
{
    if (fabs(black_lead) < 0.05)
        snprintf(buf, (size_t)len, "0");
    else
        snprintf(buf, (size_t)len, "%c+%.1f", black_lead > 0 ? 'B' : 'W', fabs(black_lead));
    return buf;
}

/* Appends printf output to buf at *n, never past len. */
static void add(char *buf, int len, int *n, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void add(char *buf, int len, int *n, const char *fmt, ...)
{
    if (*n >= len - 1)
        return;
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(buf + *n, (size_t)(len - *n), fmt, ap);
    va_end(ap);
    if (w > 0)
        *n = *n + w < len - 1 ? *n + w : len - 1;
}

const char *teach_review_comment(const teach_review_move *m, int size,
                                 const teach_review_params *p, char *buf, int len)
{
    char v[8], w[8], sc[32], cl[32];
    int n = 0;
    bool black = m->color == GO_BLACK;
    buf[0] = 0;
    add(buf, len, &n, "Move %d: %s %s\n", m->number, black ? "B" : "W",
        go_point_to_gtp(size, m->move, v));
    add(buf, len, &n, "Score: %s, winrate %.1f%% for %s\n",
        score_text(black ? m->score_after : -m->score_after, sc, sizeof sc),
        100 * m->winrate_after, black ? "black" : "white");
    add(buf, len, &n, "Loss: %.1f points (%s)\n", m->loss,
        teach_review_class_label(p, m->klass, cl, sizeof cl));
    if (m->top_move)
        add(buf, len, &n, "Best: %s, the move played", go_point_to_gtp(size, m->best, w));
    else
        add(buf, len, &n, "Best: %s", go_point_to_gtp(size, m->best, w));
    add(buf, len, &n, "; line:");
    for (int k = 0; k < m->pv_len; k++)
        add(buf, len, &n, " %s", go_point_to_gtp(size, m->pv[k], w));
    add(buf, len, &n, "\nPolicy: rank %d (%.1f%%)", m->f.policy_rank, 100 * m->f.prior_katago);
    if (m->f.policy_rank != 1)
        add(buf, len, &n, "; top %s (%.1f%%)", go_point_to_gtp(size, m->top_policy, w),
            100 * m->top_policy_prior);
    add(buf, len, &n, "\nFeatures: remiDist %d, remiDist2 %d, density %.3f, scoreLoss %.2f, "
                      "priorKataGo %.4f, humanPrior %.4f",
        m->f.dist_last, m->f.dist_last2, m->f.density, m->f.score_loss, m->f.prior_katago,
        m->f.prior_human);
    /* a side without stones on the board before the move has no contribution */
    if (isfinite(m->f.strengthen_own))
        add(buf, len, &n, ", strengthenOwn %.3f", m->f.strengthen_own);
    if (isfinite(m->f.weaken_opp))
        add(buf, len, &n, ", weakenOpp %.3f", m->f.weaken_opp);
    if (m->explained)
        add(buf, len, &n, "\nWhy: %s\n理由: %s", m->explain_en, m->explain_ja);
    return buf;
}

/* Game information kept from the original root. */
static const char *const kept_props[] = {"PB", "PW", "BR", "WR", "BT", "WT", "RE", "DT", "EV",
                                         "RO", "GN", "PC", "TM", "OT", "SO", "US", "AN", "GC"};

go_sgf_collection *teach_review_sgf(const go_sgf_node *orig, const go_game *game,
                                    const teach_review_move *moves, int n,
                                    const teach_review_params *p, const char *summary_text)
{
    go_sgf_collection *c = go_sgf_from_game(game);
    if (!c)
        return NULL;
    go_sgf_node *root = c->games[0];
    bool ok = true;
    for (size_t k = 0; ok && orig && k < sizeof kept_props / sizeof *kept_props; k++)
        for (int i = 0; ok && i < orig->num_props; i++)
            if (!strcmp(orig->props[i].ident, kept_props[k]))
                for (int j = 0; ok && j < orig->props[i].num_values; j++)
                    ok = go_sgf_add_value(root, kept_props[k], orig->props[i].values[j]);
    if (ok && summary_text)
        ok = go_sgf_add_value(root, "C", summary_text);
    enum { COMMENT = 2048 };
    char *text = malloc(COMMENT);
    ok = ok && text;
    go_sgf_node *parent = root;
    int size = game->board.size;
    for (int i = 0; ok && i < n && parent->num_children > 0; i++) {
        const teach_review_move *m = &moves[i];
        go_sgf_node *node = parent->children[0];
        ok = go_sgf_add_value(node, "C", teach_review_comment(m, size, p, text, COMMENT));
        /* the best line beside the played move */
        if (ok && !m->top_move && m->pv_len > 0) {
            go_sgf_node *v = parent;
            go_color col = m->color;
            char pt[3], sc[32];
            for (int k = 0; ok && k < m->pv_len; k++, col = go_opponent(col)) {
                ok = (v = go_sgf_add_child(v)) &&
                     go_sgf_add_value(v, col == GO_WHITE ? "W" : "B",
                                      go_sgf_point_text(m->pv[k], pt));
                if (ok && k == 0) {
                    double lead = m->score_before - m->best_loss;
                    snprintf(text, COMMENT, "Best line: %.1f points better than the move played "
                                            "(score %s)",
                             m->loss - m->best_loss,
                             score_text(m->color == GO_BLACK ? lead : -lead, sc, sizeof sc));
                    ok = go_sgf_add_value(v, "C", text);
                }
            }
        }
        parent = node;
    }
    free(text);
    if (!ok) {
        go_sgf_free(c);
        return NULL;
    }
    return c;
}
