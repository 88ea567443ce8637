/* teach/explain.c -- explanations of moves from their features (explain.h). */
#include "teach/explain.h"

#include <math.h>
#include <stdio.h>

/* Rémi distance within which two moves are "near" and a move answers the last one (the paper's
 * radius). */
#define NEAR_DIST 8

typedef enum { DOES_BOTH, DOES_OWN, DOES_OPP, DOES_BIG, DOES_KEY } effect;

static effect what_it_does(const teach_move_features *f, double t)
{
    bool own = isfinite(f->strengthen_own) && f->strengthen_own >= t;
    bool opp = isfinite(f->weaken_opp) && f->weaken_opp >= t;
    if (own && opp)
        return DOES_BOTH;
    if (own)
        return DOES_OWN;
    if (opp)
        return DOES_OPP;
    return f->density <= 0 ? DOES_BIG : DOES_KEY;
}

/* The effect as an English predicate ("C10 settles ...") and a Japanese one ("C10は..."). */
static const char *effect_text(effect e, teach_lang lang)
{
    static const char *const en[] = {
        "settles both groups' bases",
        "strengthens its own stones where it matters",
        "presses the opponent's stones",
        "is the bigger point",
        "is the key point of the position",
    };
    static const char *const ja[] = {
        "双方の根拠に関わる急場です",
        "自分の石を強化する急場です",
        "相手の石を攻める急場です",
        "より大きい大場です",
        "この局面の要点です",
    };
    return lang == TEACH_LANG_JA ? ja[e] : en[e];
}

/* A loss for the text: never below 0 (a wrong choice is at least as bad as the answer). */
static double pts(double v) { return isfinite(v) && v > 0 ? v : 0; }

void teach_explain_choice(teach_quiz_kind kind, const teach_move_features *choice,
                          const teach_move_features *answer, double worst_loss, int size,
                          double min_contribution, teach_lang lang, char *buf, int len)
{
    char mv[8], ans[8];
    go_point_to_gtp(size, choice->move, mv);
    go_point_to_gtp(size, answer->move, ans);
    const char *does = effect_text(what_it_does(answer, min_contribution), lang);
    bool ja = lang == TEACH_LANG_JA;
    double loss = pts(choice->score_loss);
    switch (kind) {
    case TEACH_QUIZ_ANSWER:
        if (ja)
            snprintf(buf, (size_t)len, "正解は%s。%s。他の選択肢は最大で%.1f目損します。", ans,
                     does, pts(worst_loss));
        else
            snprintf(buf, (size_t)len,
                     "Correct: %s %s; the other choices lose up to %.1f points.", ans, does,
                     pts(worst_loss));
        break;
    case TEACH_QUIZ_BIG_POINT:
        if (answer->density <= 0 && ja)
            snprintf(buf, (size_t)len, "%sも大場ですが、%sのほうが%.1f目大きい大場です。", mv,
                     ans, loss);
        else if (answer->density <= 0)
            snprintf(buf, (size_t)len, "%s is a big point too, but %s is bigger: %.1f points "
                                       "more.", mv, ans, loss);
        else if (ja)
            snprintf(buf, (size_t)len, "%sは大場ですが、急場の%sのほうが%.1f目大きい。%sは%s。",
                     mv, ans, loss, ans, does);
        else
            snprintf(buf, (size_t)len, "%s is a big point, but the urgent point %s is worth "
                                       "%.1f points more: it %s.", mv, ans, loss, does);
        break;
    case TEACH_QUIZ_NEAR:
        if (ja)
            snprintf(buf, (size_t)len, "%sは%sの近くですが、形か方向が違い%.1f目損です。%sは%s。",
                     mv, ans, loss, ans, does);
        else
            snprintf(buf, (size_t)len, "%s is close to %s but the wrong shape or direction: it "
                                       "loses %.1f points, while %s %s.", mv, ans, loss, ans,
                     does);
        break;
    default:
        if (ja)
            snprintf(buf, (size_t)len, "%sはまだ守らなくてよい石を守る手です(自石の強化%+.2f)。"
                                       "%sのほうが%.1f目良く、%s。", mv,
                     isfinite(choice->strengthen_own) ? choice->strengthen_own : 0.0, ans, loss,
                     does);
        else
            snprintf(buf, (size_t)len, "%s defends stones that were not threatened (own stones "
                                       "%+.2f); %s %s and is worth %.1f points more.", mv,
                     isfinite(choice->strengthen_own) ? choice->strengthen_own : 0.0, ans, does,
                     loss);
        break;
    }
}

void teach_explain_mistake(const teach_move_features *played, const teach_move_features *best,
                           double loss, int size, double min_contribution, teach_lang lang,
                           char *buf, int len)
{
    char bm[8];
    go_point_to_gtp(size, best->move, bm);
    const char *does = effect_text(what_it_does(best, min_contribution), lang);
    bool ja = lang == TEACH_LANG_JA;
    loss = pts(loss);
    int dist = teach_remi_distance(played->move, best->move);
    /* the paper's over-strengthening threshold is twice the contribution worth naming */
    bool over = isfinite(played->strengthen_own) &&
                played->strengthen_own >= 2 * min_contribution &&
                !(isfinite(best->strengthen_own) &&
                  best->strengthen_own >= played->strengthen_own);
    bool tenuki = best->dist_last >= 0 && best->dist_last <= NEAR_DIST &&
                  (played->dist_last < 0 || played->dist_last > NEAR_DIST);
    if (played->move == GO_PASS && ja)
        snprintf(buf, (size_t)len, "パスで%.1f目損。%sは%s。", loss, bm, does);
    else if (played->move == GO_PASS)
        snprintf(buf, (size_t)len, "Passing loses %.1f points: %s %s.", loss, bm, does);
    else if (over && ja)
        snprintf(buf, (size_t)len, "まだ守らなくてよい石を守っています。%sのほうが%.1f目良く、%s。",
                 bm, loss, does);
    else if (over)
        snprintf(buf, (size_t)len, "Defends stones that were not threatened: %s %s and was "
                                   "worth %.1f points more.", bm, does, loss);
    else if (played->density <= 0 && best->density > 0 && ja)
        snprintf(buf, (size_t)len, "大場ですが、急場の%sのほうが%.1f目大きい。%sは%s。", bm,
                 loss, bm, does);
    else if (played->density <= 0 && best->density > 0)
        snprintf(buf, (size_t)len, "A big point, but the urgent point %s was worth %.1f points "
                                   "more: it %s.", bm, loss, does);
    else if (dist >= 0 && dist <= NEAR_DIST && ja)
        snprintf(buf, (size_t)len, "%sの近くですが、形か方向が違い%.1f目損です。", bm, loss);
    else if (dist >= 0 && dist <= NEAR_DIST)
        snprintf(buf, (size_t)len, "Close to %s, but the wrong shape or direction: %.1f "
                                   "points lost.", bm, loss);
    else if (tenuki && ja)
        snprintf(buf, (size_t)len, "直前の戦いから離れました。%sで応じるのが急務で、%.1f目の差です。",
                 bm, loss);
    else if (tenuki)
        snprintf(buf, (size_t)len, "Leaves the fight of the last move: answering at %s was "
                                   "urgent (%.1f points).", bm, loss);
    else if (ja)
        snprintf(buf, (size_t)len, "%sのほうが%.1f目良い。%sは%s。", bm, loss, bm, does);
    else
        snprintf(buf, (size_t)len, "%s was worth %.1f points more: it %s.", bm, loss, does);
}
