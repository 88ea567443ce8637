/* teach/fuseki_quiz.c -- seed 000's wrong-answer generator for opening quizzes (fuseki_quiz.h). */
#include "teach/fuseki_quiz.h"

#include <ctype.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "go/hash.h"
#include "teach/explain.h"

/* Difficulty grades by the visits the answer needs to beat its hardest wrong answer. */
#define GRADE_EASY_VISITS 1
#define GRADE_MEDIUM_VISITS 8

/* ---- parameters ---------------------------------------------------------------------------- */

teach_quiz_params teach_quiz_params_default(void)
{
    return (teach_quiz_params){
        .candidates = 25,
        .visits = 1,
        .min_score_loss = 0.5,
        .max_prior_katago = 0.001,
        .big_max_density = 0.0,
        .big_min_dist = 8,
        .near_max_dist = 8,
        .near_min_human_prior = 0.01,
        .near_min_score_loss = 1.0,
        .over_min_strengthen = 0.1,
        .deep_visits = 32,
        .deep_margin = 0.5,
        .drop_symmetric = true,
        .explain_min_contribution = 0.05,
        .one_net = true,
        .one_net_near_min_prior = 1e-4,
    };
}

typedef enum { PT_INT, PT_DOUBLE, PT_BOOL } param_type;

static const struct {
    const char *name;
    param_type type;
    size_t offset;
    double lo, hi;
    const char *doc;
} params[] = {
#define F(field) offsetof(teach_quiz_params, field)
    {"candidates", PT_INT, F(candidates), 1, 361, "top moves by Prior_StrongHuman (25)"},
    {"visits", PT_INT, F(visits), 1, 1e6, "screening search after each move (1; paper 800)"},
    {"min_score_loss", PT_DOUBLE, F(min_score_loss), -1e3, 1e3, "every kind: loss >= (0.5)"},
    {"max_prior_katago", PT_DOUBLE, F(max_prior_katago), 0, 1, "every kind: prior < (0.001)"},
    {"big_max_density", PT_DOUBLE, F(big_max_density), 0, 1, "big point: density <= (0)"},
    {"big_min_dist", PT_INT, F(big_min_dist), 0, 100, "big point: distance >= (8)"},
    {"near_max_dist", PT_INT, F(near_max_dist), 0, 100, "near: distance <= (8)"},
    {"near_min_human_prior", PT_DOUBLE, F(near_min_human_prior), 0, 1,
     "near: Prior_StrongHuman >= (0.01)"},
    {"near_min_score_loss", PT_DOUBLE, F(near_min_score_loss), -1e3, 1e3, "near: loss >= (1.0)"},
    {"over_min_strengthen", PT_DOUBLE, F(over_min_strengthen), -2, 2,
     "over-strengthening: eq. 2 >= (0.1)"},
    {"deep_visits", PT_INT, F(deep_visits), 0, 1e6, "confirming search and difficulty (32; 0 off)"},
    {"deep_margin", PT_DOUBLE, F(deep_margin), -1e3, 1e3, "answer ahead by >= (0.5 points)"},
    {"drop_symmetric", PT_BOOL, F(drop_symmetric), 0, 1, "no symmetric copies (true)"},
    {"explain_min_contribution", PT_DOUBLE, F(explain_min_contribution), 0, 2,
     "a contribution named in explanations (0.05)"},
    {"one_net", PT_BOOL, F(one_net), 0, 1, "adapt the pool and near to one network (true)"},
    {"one_net_near_min_prior", PT_DOUBLE, F(one_net_near_min_prior), 0, 1,
     "near, one network: Prior_StrongHuman >= (1e-4)"},
#undef F
};
#define NUM_PARAMS ((int)(sizeof params / sizeof params[0]))

/* Whether a and b name the same parameter, '-' and '_' alike, case ignored. */
static bool same_name(const char *a, const char *b)
{
    for (; *a && *b; a++, b++) {
        char x = *a == '-' ? '_' : (char)tolower((unsigned char)*a);
        char y = *b == '-' ? '_' : (char)tolower((unsigned char)*b);
        if (x != y)
            return false;
    }
    return *a == *b;
}

bool teach_quiz_params_set(teach_quiz_params *p, const char *name, const char *value, char *err,
                           int err_len)
{
    for (int i = 0; i < NUM_PARAMS; i++) {
        if (!same_name(name, params[i].name))
            continue;
        char *field = (char *)p + params[i].offset, *end;
        if (params[i].type == PT_BOOL) {
            bool v;
            if (!strcasecmp(value, "true") || !strcmp(value, "1"))
                v = true;
            else if (!strcasecmp(value, "false") || !strcmp(value, "0"))
                v = false;
            else
                break;
            memcpy(field, &v, sizeof v);
            return true;
        }
        double v = strtod(value, &end);
        if (end == value || *end || !isfinite(v) || v < params[i].lo || v > params[i].hi ||
            (params[i].type == PT_INT && v != floor(v))) {
            snprintf(err, (size_t)err_len, "bad value '%s' for %s (%g to %g)", value,
                     params[i].name, params[i].lo, params[i].hi);
            return false;
        }
        if (params[i].type == PT_INT) {
            int n = (int)v;
            memcpy(field, &n, sizeof n);
        } else {
            memcpy(field, &v, sizeof v);
        }
        return true;
    }
    snprintf(err, (size_t)err_len, "unknown quiz parameter or bad value: %s=%s", name, value);
    return false;
}

const char *teach_quiz_params_help(void)
{
    static char text[2048];
    if (!text[0]) {
        size_t n = 0;
        for (int i = 0; i < NUM_PARAMS && n < sizeof text; i++)
            n += (size_t)snprintf(text + n, sizeof text - n, "  %-26s %s\n", params[i].name,
                                  params[i].doc);
    }
    return text;
}

const char *teach_quiz_kind_name(teach_quiz_kind k)
{
    switch (k) {
    case TEACH_QUIZ_ANSWER:
        return "answer";
    case TEACH_QUIZ_BIG_POINT:
        return "big_point";
    case TEACH_QUIZ_NEAR:
        return "near";
    default:
        return "over_strengthen";
    }
}

/* ---- conditions ---------------------------------------------------------------------------- */

/* v >= lo, NAN failing. */
static bool at_least(double v, double lo) { return isfinite(v) && v >= lo; }

unsigned teach_quiz_check(const teach_quiz_params *p, teach_quiz_kind k,
                          const teach_move_features *f, bool searched, bool one_net)
{
    unsigned fail = 0;
    if (!(f->prior_katago < p->max_prior_katago))
        fail |= TEACH_QUIZ_FAIL_PRIOR_KATAGO;
    if (searched && !at_least(f->score_loss, p->min_score_loss))
        fail |= TEACH_QUIZ_FAIL_SCORE_LOSS;
    switch (k) {
    case TEACH_QUIZ_BIG_POINT:
        if (!(f->density <= p->big_max_density))
            fail |= TEACH_QUIZ_FAIL_DENSITY;
        if (f->dist_ref < p->big_min_dist)
            fail |= TEACH_QUIZ_FAIL_FAR;
        break;
    case TEACH_QUIZ_NEAR:
        if (f->dist_ref < 0 || f->dist_ref > p->near_max_dist)
            fail |= TEACH_QUIZ_FAIL_NEAR;
        if (!at_least(f->prior_human,
                      one_net ? p->one_net_near_min_prior : p->near_min_human_prior))
            fail |= TEACH_QUIZ_FAIL_HUMAN_PRIOR;
        if (searched && !at_least(f->score_loss, p->near_min_score_loss))
            fail |= TEACH_QUIZ_FAIL_NEAR_LOSS;
        break;
    case TEACH_QUIZ_OVER_STRENGTHEN:
        if (searched && !at_least(f->strengthen_own, p->over_min_strengthen))
            fail |= TEACH_QUIZ_FAIL_STRENGTHEN;
        break;
    default:
        break;
    }
    return fail;
}

/* ---- the generator ------------------------------------------------------------------------- */

typedef struct cand {
    teach_move_features f;        /* against the answer, screening search */
    teach_move_features deep_f;   /* the same from the deep searches */
    bool searched;                /* screening search done: f complete */
    bool deep_done, rejected;     /* deep search done; it dropped the move */
    unsigned fails[TEACH_QUIZ_KINDS];   /* after the screening search */
    double deep_lead;
    int num_steps;                /* of the deep search (or the screening one) */
    int step_visits[TEACH_AFTER_STEPS];
    double step_lead[TEACH_AFTER_STEPS];
} cand;

typedef struct quiz_state {
    teach_features *f;
    const teach_quiz_params *p;
    int size;
    unsigned sym;                 /* symmetries of the position (drop_symmetric) */
    int answer;
    bool one_net;
    teach_after *after, *pass, *ans, *ans_deep, *pass_deep;   /* scratch and kept searches */
    bool ans_deep_done;
    teach_move_features ans_f, ans_deep_f;
    int num;
    cand c[361];
    int chosen[TEACH_QUIZ_KINDS];  /* candidate index per kind, -1 */
    int pending[TEACH_QUIZ_KINDS]; /* a candidate to search before the kind can be chosen */
} quiz_state;

/* The order in which the kinds take candidates: a move that qualifies for several kinds goes
 * to the scarcest (over-strengthening, then big points; near moves are the most common). */
static const teach_quiz_kind kind_order[TEACH_QUIZ_KINDS] = {
    TEACH_QUIZ_OVER_STRENGTHEN, TEACH_QUIZ_BIG_POINT, TEACH_QUIZ_NEAR};

/* Whether candidate i is a symmetric copy of the answer or of a candidate chosen by a kind
 * before the rank-th of kind_order. */
static bool is_copy(const quiz_state *s, int i, int rank)
{
    int m = s->c[i].f.move;
    if (teach_symmetric_copies(s->size, s->sym, m, s->answer))
        return true;
    for (int r = 0; r < rank; r++) {
        int j = s->chosen[kind_order[r]];
        if (j >= 0 && teach_symmetric_copies(s->size, s->sym, m, s->c[j].f.move))
            return true;
    }
    return false;
}

/* Each kind in turn (kind_order) takes the first candidate, in Prior_StrongHuman order, that
 * qualifies and no kind before it took; an unsearched candidate that could qualify by the
 * conditions needing no search stops the kind (pending) until it is searched. */
static void assign(quiz_state *s)
{
    for (int k = 0; k < TEACH_QUIZ_KINDS; k++)
        s->chosen[k] = s->pending[k] = -1;
    for (int rank = 0; rank < TEACH_QUIZ_KINDS; rank++) {
        teach_quiz_kind k = kind_order[rank];
        for (int i = 0; i < s->num; i++) {
            const cand *c = &s->c[i];
            bool taken = false;
            for (int r = 0; r < rank; r++)
                taken |= s->chosen[kind_order[r]] == i;
            if (taken || c->rejected || is_copy(s, i, rank))
                continue;
            if (!c->searched) {
                if (teach_quiz_check(s->p, k, &c->f, false, s->one_net) == 0) {
                    s->pending[k] = i;
                    break;
                }
                continue;
            }
            if (c->fails[k] == 0) {
                s->chosen[k] = i;
                break;
            }
        }
    }
}

static void keep_steps(cand *c, const teach_after *a)
{
    c->num_steps = a->num_steps;
    memcpy(c->step_visits, a->step_visits, sizeof c->step_visits);
    memcpy(c->step_lead, a->step_lead, sizeof c->step_lead);
}

static bool screen(quiz_state *s, int i, char *err, int err_len)
{
    cand *c = &s->c[i];
    if (!teach_features_search_after(s->f, c->f.move, s->p->visits, s->after, err, err_len))
        return false;
    teach_features_fill(s->f, s->after, s->pass, s->ans, &c->f);
    for (int k = 0; k < TEACH_QUIZ_KINDS; k++)
        c->fails[k] = teach_quiz_check(s->p, (teach_quiz_kind)k, &c->f, true, s->one_net);
    c->searched = true;
    c->deep_lead = c->f.score_lead;
    keep_steps(c, s->after);
    return true;
}

static bool deep_on(const teach_quiz_params *p) { return p->deep_visits > p->visits; }

/* The deep search of candidate i, chosen for kind k (and of the answer and the pass, once):
 * every condition of k is checked again on the deep search's features, and the answer must lead
 * by deep_margin; i is dropped otherwise. Returns false with a reason on a failed search. */
static bool deepen(quiz_state *s, int i, int k, teach_quiz *q, char *err, int err_len)
{
    cand *c = &s->c[i];
    int v = s->p->deep_visits;
    if (!s->ans_deep_done) {
        if (!teach_features_search_after(s->f, s->answer, v, s->ans_deep, err, err_len) ||
            !teach_features_search_after(s->f, GO_PASS, v, s->pass_deep, err, err_len))
            return false;
        teach_features_fill(s->f, s->ans_deep, s->pass_deep, s->ans_deep, &s->ans_deep_f);
        s->ans_deep_done = true;
    }
    if (!teach_features_search_after(s->f, c->f.move, v, s->after, err, err_len))
        return false;
    teach_features_fill(s->f, s->after, s->pass_deep, s->ans_deep, &c->deep_f);
    c->deep_done = true;
    c->deep_lead = s->after->score_lead;
    keep_steps(c, s->after);
    if (teach_quiz_check(s->p, (teach_quiz_kind)k, &c->deep_f, true, s->one_net) != 0 ||
        !(c->deep_f.score_loss >= s->p->deep_margin)) {
        c->rejected = true;
        q->dropped_shallow++;
    }
    return true;
}

/* The fewest visits from which on the answer's search leads the wrong answer's at every step
 * (both searches made with the same steps); -1 when it does not lead at the last one. */
static int difficulty(const teach_after *ans, const cand *c)
{
    int n = ans->num_steps < c->num_steps ? ans->num_steps : c->num_steps, d = -1;
    for (int i = n - 1; i >= 0 && ans->step_lead[i] > c->step_lead[i]; i--)
        d = ans->step_visits[i];
    return d;
}

/* Why kind k has no wrong answer. */
static teach_quiz_missing why_missing(const quiz_state *s, int k)
{
    teach_quiz_missing why = TEACH_QUIZ_NONE_QUALIFIES;
    for (int i = 0; i < s->num; i++) {
        const cand *c = &s->c[i];
        if (!c->searched || c->fails[k])
            continue;
        if (c->rejected)
            return TEACH_QUIZ_SHALLOW;
        if (is_copy(s, i, TEACH_QUIZ_KINDS))
            why = TEACH_QUIZ_SYMMETRIC;
    }
    return why;
}

/* The order of the choices: by a hash of the position and the move, so that the answer's label
 * varies from quiz to quiz but a position always gets the same labels. */
static uint64_t label_key(const go_game *g, int move)
{
    return go_hash_mix64(g->board.hash ^ ((uint64_t)move * GO_HASH_GOLDEN) ^
                         (uint64_t)g->num_moves);
}

static void finish(quiz_state *s, const go_game *g, teach_quiz *q)
{
    const teach_quiz_params *p = s->p;
    bool deep = deep_on(p) && s->ans_deep_done;
    const teach_after *ans_steps = deep ? s->ans_deep : s->ans;
    const teach_move_features *ans_f = deep ? &s->ans_deep_f : &s->ans_f;
    double ans_lead = ans_steps->score_lead;
    teach_quiz_choice tmp[TEACH_QUIZ_MAX_CHOICES];
    int n = 0;
    tmp[n] = (teach_quiz_choice){0};
    tmp[n].kind = TEACH_QUIZ_ANSWER;
    tmp[n].f = *ans_f;
    tmp[n].deep_score_lead = ans_lead;
    tmp[n].deep_score_loss = 0;
    n++;
    double worst = 0;
    q->difficulty = 0;
    for (int k = 0; k < TEACH_QUIZ_KINDS; k++) {
        q->missing[k] = s->chosen[k] >= 0 ? TEACH_QUIZ_FOUND : why_missing(s, k);
        if (s->chosen[k] < 0)
            continue;
        const cand *c = &s->c[s->chosen[k]];
        teach_quiz_choice *ch = &tmp[n++];
        *ch = (teach_quiz_choice){0};
        ch->kind = (teach_quiz_kind)k;
        ch->f = deep ? c->deep_f : c->f;
        ch->deep_score_lead = c->deep_lead;
        ch->deep_score_loss = ans_lead - c->deep_lead;
        ch->difficulty_visits = difficulty(ans_steps, c);
        ch->katago_prefers_answer = ans_f->prior_katago > c->f.prior_katago;
        ch->human_prefers_answer = ans_f->prior_human > c->f.prior_human;
        worst = fmax(worst, ch->deep_score_loss);
        if (q->difficulty >= 0)
            q->difficulty = ch->difficulty_visits < 0 ? -1
                                                      : (ch->difficulty_visits > q->difficulty
                                                             ? ch->difficulty_visits
                                                             : q->difficulty);
    }
    q->grade = q->difficulty < 0 || q->difficulty > GRADE_MEDIUM_VISITS ? "hard"
               : q->difficulty <= GRADE_EASY_VISITS                     ? "easy"
                                                                        : "medium";
    /* explanations, from the deep search's losses where there is one */
    for (int i = 0; i < n; i++) {
        teach_move_features fx = tmp[i].f;
        fx.score_loss = tmp[i].deep_score_loss;
        for (int lang = 0; lang < 2; lang++)
            teach_explain_choice(tmp[i].kind, &fx, ans_f, worst, s->size,
                                 p->explain_min_contribution, (teach_lang)lang,
                                 lang ? tmp[i].explain_ja : tmp[i].explain_en, TEACH_QUIZ_TEXT);
    }
    /* labels: a fixed shuffle */
    uint64_t key[TEACH_QUIZ_MAX_CHOICES];
    for (int i = 0; i < n; i++)
        key[i] = label_key(g, tmp[i].f.move);
    for (int i = 0; i < n; i++) {
        int best = i;
        for (int j = i + 1; j < n; j++)
            if (key[j] < key[best])
                best = j;
        teach_quiz_choice t = tmp[i];
        uint64_t tk = key[i];
        tmp[i] = tmp[best];
        key[i] = key[best];
        tmp[best] = t;
        key[best] = tk;
    }
    q->num_choices = n;
    for (int i = 0; i < n; i++) {
        q->choices[i] = tmp[i];
        q->choices[i].label = (char)('A' + i);
        if (tmp[i].kind == TEACH_QUIZ_ANSWER)
            q->answer_index = i;
    }
    char labels[32] = "", labels_ja[64] = "";
    for (int i = 0; i < n; i++) {
        size_t l = strlen(labels), lj = strlen(labels_ja);
        snprintf(labels + l, sizeof labels - l, "%s%c", i == 0 ? "" : i == n - 1 ? " or " : ", ",
                 'A' + i);
        snprintf(labels_ja + lj, sizeof labels_ja - lj, "%s%c", i ? "・" : "", 'A' + i);
    }
    bool white = q->to_move == GO_WHITE;
    snprintf(q->question_en, sizeof q->question_en, "%s to play. Which is the best move: %s?",
             white ? "White" : "Black", labels);
    snprintf(q->question_ja, sizeof q->question_ja, "%s番です。最善の手は%sのどれでしょう?",
             white ? "白" : "黒", labels_ja);
}

bool teach_quiz_make(teach_features *f, const teach_quiz_params *p, const go_game *g, int answer,
                     teach_quiz *q, char *err, int err_len)
{
    memset(q, 0, sizeof *q);
    quiz_state *s = calloc(1, sizeof *s);
    teach_after *a = calloc(5, sizeof *a);
    if (!s || !a) {
        free(s);
        free(a);
        snprintf(err, (size_t)err_len, "out of memory");
        return false;
    }
    s->f = f;
    s->p = p;
    s->size = g->board.size;
    s->after = &a[0];
    s->pass = &a[1];
    s->ans = &a[2];
    s->ans_deep = &a[3];
    s->pass_deep = &a[4];
    q->size = s->size;
    q->to_move = g->board.to_move;
    s->one_net = q->one_net = p->one_net && teach_features_human_net(f) == 0;
    char why[256];
    bool ok = teach_features_set_position(f, g, err, err_len);
    if (ok && answer == GO_NO_POINT)
        ok = teach_features_best_move(f, deep_on(p) ? p->deep_visits : p->visits, &answer, err,
                                      err_len);
    if (ok && answer == GO_PASS)
        ok = !snprintf(err, (size_t)err_len, "the suggested move is a pass");
    if (ok && !teach_features_check_move(f, answer, why, sizeof why))
        ok = !snprintf(err, (size_t)err_len, "suggested move %s", why);
    s->answer = q->answer = answer;
    ok = ok && teach_features_search_after(f, answer, p->visits, s->ans, err, err_len) &&
         teach_features_search_after(f, GO_PASS, p->visits, s->pass, err, err_len);
    if (ok) {
        teach_features_fill(f, s->ans, s->pass, s->ans, &s->ans_f);
        s->sym = p->drop_symmetric ? teach_board_symmetries(&g->board) : 0;
        /* the pool: the top moves by Prior_StrongHuman (one network: among those below the
         * Prior_KataGo bound) */
        int top[361];
        int n = teach_features_top_moves(f, true, 361, top);
        for (int i = 0, taken = 0; i < n && taken < p->candidates; i++) {
            if (s->one_net && !(teach_features_prior(f, top[i], false) < p->max_prior_katago))
                continue;
            taken++;
            if (top[i] != answer)
                teach_features_static(f, top[i], answer, &s->c[s->num++].f);
        }
    }
    while (ok) {
        assign(s);
        int next = -1;
        for (int k = 0; k < TEACH_QUIZ_KINDS; k++)
            if (s->pending[k] >= 0 && (next < 0 || s->pending[k] < next))
                next = s->pending[k];
        if (next >= 0) {
            ok = screen(s, next, err, err_len);
            q->searched++;
            continue;
        }
        bool dropped = false;
        for (int k = 0; ok && deep_on(p) && k < TEACH_QUIZ_KINDS; k++) {
            int i = s->chosen[k];
            if (i >= 0 && !s->c[i].deep_done) {
                ok = deepen(s, i, k, q, err, err_len);
                dropped |= s->c[i].rejected;
            }
        }
        if (!dropped)
            break;
    }
    if (ok) {
        /* candidates a kind passed over as copies, that it would otherwise have looked at */
        for (int i = 0; i < s->num; i++)
            for (int rank = 0; rank < TEACH_QUIZ_KINDS; rank++) {
                const cand *c = &s->c[i];
                teach_quiz_kind k = kind_order[rank];
                if ((s->chosen[k] < 0 || i < s->chosen[k]) && !c->rejected &&
                    teach_quiz_check(p, k, &c->f, c->searched, s->one_net) == 0 &&
                    is_copy(s, i, rank)) {
                    q->dropped_symmetric++;
                    break;
                }
            }
        finish(s, g, q);
    }
    free(a);
    free(s);
    return ok;
}

const teach_quiz_choice *teach_quiz_find(const teach_quiz *q, teach_quiz_kind k)
{
    for (int i = 0; i < q->num_choices; i++)
        if (q->choices[i].kind == k)
            return &q->choices[i];
    return NULL;
}

/* ---- SGF ----------------------------------------------------------------------------------- */

go_sgf_collection *teach_quiz_sgf(const teach_quiz *q, const go_game *g, const char *game_name,
                                  const char *black, const char *white)
{
    go_sgf_collection *c = go_sgf_from_game(g);
    if (!c)
        return NULL;
    go_sgf_node *root = c->games[0], *n = root;
    bool ok = (!game_name || go_sgf_add_value(root, "GN", game_name)) &&
              (!black || go_sgf_add_value(root, "PB", black)) &&
              (!white || go_sgf_add_value(root, "PW", white));
    while (n->num_children > 0)
        n = n->children[0];
    char text[4 * TEACH_QUIZ_TEXT], pt[3], v[8];
    for (int i = 0; ok && i < q->num_choices; i++) {
        char lb[8];
        snprintf(lb, sizeof lb, "%s:%c", go_sgf_point_text(q->choices[i].f.move, pt),
                 q->choices[i].label);
        ok = go_sgf_add_value(n, "LB", lb);
    }
    snprintf(text, sizeof text, "%s\n%s", q->question_en, q->question_ja);
    ok = ok && go_sgf_add_value(n, "C", text);
    /* the answer's variation first: readers take children[0] as the main line */
    for (int pass = 0; ok && pass < 2; pass++)
        for (int i = 0; ok && i < q->num_choices; i++) {
            const teach_quiz_choice *ch = &q->choices[i];
            bool is_answer = ch->kind == TEACH_QUIZ_ANSWER;
            if (is_answer != (pass == 0))
                continue;
            go_sgf_node *m = go_sgf_add_child(n);
            ok = m && go_sgf_add_value(m, q->to_move == GO_WHITE ? "W" : "B",
                                       go_sgf_point_text(ch->f.move, pt));
            if (is_answer)
                snprintf(text, sizeof text, "%c (%s)\n%s\n%s", ch->label,
                         go_point_to_gtp(q->size, ch->f.move, v), ch->explain_en, ch->explain_ja);
            else
                snprintf(text, sizeof text, "%c (%s): Wrong (%s).\n%s\n%s", ch->label,
                         go_point_to_gtp(q->size, ch->f.move, v), teach_quiz_kind_name(ch->kind),
                         ch->explain_en, ch->explain_ja);
            ok = ok && go_sgf_add_value(m, "C", text) &&
                 go_sgf_add_value(m, is_answer ? "TE" : "BM", "1");
        }
    if (!ok) {
        go_sgf_free(c);
        return NULL;
    }
    return c;
}
