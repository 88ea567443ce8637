/* teach/katrain.c -- KaTrain 1.20's AI play modes (katrain.h), from the behaviour stated in
 * ../shared/docs/katrain-ai-modes.md; section numbers below are that document's.
 *
 * Coordinates. shido's points have x the column and y = 0 the TOP row (go/board.h); KaTrain's
 * moves have x the column and y = 0 the BOTTOM row. Distances, edge lines and the Gaussian of
 * the local style are the same either way, but three things are not and are converted here:
 * the order of the policy list (x-major, then KaTrain's y, then pass), the pick family's
 * tie-break (larger x, then larger KaTrain y) and the attach offsets of the ownership styles.
 *
 * Views. shido's analysis gives score leads from the mover's view, so KaTrain's
 * pointsLost = s * (rootScoreLead - scoreLead) with Black-view scores is simply the mover's
 * root lead less the move's; shido's ownership is white's view, turned into the mover's here.
 */
#include "teach/katrain.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- rank and Elo calibration (section 3) ---------------------------------------------------- */

/* A 1-D table of ascending x. */
typedef struct table1 {
    int n;
    const double *x, *y;
} table1;

/* CALIBRATED_RANK_ELO, Elo -> kyu: linear from 18k to 3d, then (1700, -4). */
static const double rank_elo[] = {
    -21.679482223451032, 42.60243194422105, 106.88434611189314, 171.16626027956522,
    235.44817444723742, 299.7300886149095, 364.0120027825817, 428.2939169502538,
    492.5758311179259, 556.8577452855981, 621.1396594532702, 685.4215736209424,
    749.7034877886144, 813.9854019562865, 878.2673161239586, 942.5492302916308,
    1006.8311444593029, 1071.113058626975, 1135.3949727946472, 1199.6768869623193,
    1263.9588011299913, 1700};
static const double rank_kyu[] = {18, 17, 16, 15, 14, 13, 12, 11, 10, 9, 8,
                                  7, 6, 5, 4, 3, 2, 1, 0, -1, -2, -4};
static const table1 calibrated_rank = {22, rank_elo, rank_kyu};

/* AI_WEIGHTED_ELO, weaken_fac -> Elo. */
static const double weighted_x[] = {0.5, 1.0, 1.25, 1.5, 1.75, 2, 2.5, 3.0};
static const double weighted_y[] = {1591.5718897531551, 1269.9896556526198, 1042.25179764667,
                                    848.9410084463602,  630.1483212024823,  575.3637091858013,
                                    410.9747543504796,  219.8667371799533};
static const table1 weighted_elo = {8, weighted_x, weighted_y};

/* AI_SCORELOSS_ELO, strength -> Elo. */
static const double scoreloss_x[] = {0.0, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0};
static const double scoreloss_y[] = {539, 625, 859, 1035, 1201, 1299, 1346, 1374, 1386};
static const table1 scoreloss_elo = {9, scoreloss_x, scoreloss_y};

/* The pick family's grids: Elo by pick_n (rows) and pick_frac (columns). */
static const double grid_frac[8] = {0.0, 0.05, 0.1, 0.2, 0.3, 0.5, 0.75, 1.0};
static const double grid_n[6] = {0, 5, 10, 15, 25, 50};
typedef double elo_grid[6][8];
static const elo_grid pick_grid = {
    {-533, -515, -355, 234, 650, 1147, 1546, 1700},
    {-531, -450, -69, 347, 670, 1182, 1550, 1700},
    {-450, -311, 140, 459, 693, 1252, 1555, 1700},
    {-365, -82, 265, 508, 864, 1301, 1619, 1700},
    {-113, 273, 363, 641, 983, 1486, 1700, 1700},
    {514, 670, 870, 1128, 1305, 1550, 1700, 1700},
};
static const elo_grid local_grid = {
    {-204, 791, 1154, 1372, 1402, 1473, 1700, 1700},
    {174, 1094, 1191, 1384, 1435, 1522, 1700, 1700},
    {619, 1155, 1323, 1390, 1450, 1558, 1700, 1700},
    {975, 1289, 1332, 1401, 1461, 1575, 1700, 1700},
    {1344, 1348, 1358, 1467, 1477, 1616, 1700, 1700},
    {1425, 1474, 1489, 1524, 1571, 1700, 1700, 1700},
};
static const elo_grid tenuki_grid = {
    {47, 335, 530, 678, 830, 1070, 1376, 1700},
    {99, 469, 546, 707, 855, 1090, 1413, 1700},
    {327, 513, 605, 745, 875, 1110, 1424, 1700},
    {429, 519, 620, 754, 900, 1130, 1435, 1700},
    {492, 607, 682, 797, 1000, 1208, 1454, 1700},
    {778, 830, 909, 949, 1169, 1461, 1483, 1700},
};
static const elo_grid territory_grid = {
    {34, 383, 566, 748, 980, 1264, 1527, 1700},
    {131, 450, 586, 826, 995, 1280, 1537, 1700},
    {291, 517, 627, 850, 1010, 1310, 1547, 1700},
    {454, 526, 696, 870, 1038, 1340, 1590, 1700},
    {491, 603, 747, 890, 1050, 1390, 1635, 1700},
    {718, 841, 1039, 1076, 1332, 1523, 1700, 1700},
};
static const elo_grid influence_grid = {
    {217, 439, 572, 768, 960, 1227, 1449, 1521},
    {302, 551, 580, 800, 1028, 1257, 1470, 1529},
    {388, 572, 619, 839, 1077, 1305, 1490, 1561},
    {467, 591, 764, 878, 1097, 1390, 1530, 1591},
    {539, 622, 815, 953, 1120, 1420, 1560, 1601},
    {772, 912, 958, 1145, 1318, 1511, 1577, 1623},
};

/* KaTrain's segment: the largest i in 0..n-2 with x[i] < q (0 if none), and the fraction of the
 * way to x[i+1], clamped, so nothing is extrapolated. */
static int segment(const double *x, int n, double q, double *t)
{
    int i = 0;
    for (int k = 0; k <= n - 2; k++)
        if (x[k] < q)
            i = k;
    *t = fmin(1.0, fmax(0.0, (q - x[i]) / (x[i + 1] - x[i])));
    return i;
}

static double interp1(const table1 *tb, double q)
{
    double t;
    int i = segment(tb->x, tb->n, q, &t);
    return (1 - t) * tb->y[i] + t * tb->y[i + 1];
}

static double interp2(const elo_grid m, double frac, double n)
{
    double t, s;
    int i = segment(grid_frac, 8, frac, &t), j = segment(grid_n, 6, n, &s);
    return m[j][i] * (1 - t) * (1 - s) + m[j][i + 1] * t * (1 - s) + m[j + 1][i] * (1 - t) * s +
           m[j + 1][i + 1] * t * s;
}

/* ---- per-mode defaults (section 1's table) --------------------------------------------------- */

typedef struct mode_settings {
    double pick_override, pick_n, pick_frac, stddev, endgame, line_weight;
} mode_settings;

/* p's settings for its mode: a NAN tunable takes the mode's config default. */
static mode_settings settings_of(const teach_play_params *p)
{
    mode_settings d = {.pick_override = 0.95, .pick_n = 5, .pick_frac = 0.35, .stddev = 1.5,
                       .endgame = 0.75, .line_weight = 10};
    switch (p->policy) {
    case TEACH_POLICY_KT_WEIGHTED: d.pick_override = 1.0; break;
    case TEACH_POLICY_KT_LOCAL:
        d.pick_n = 15;
        d.pick_frac = 0.0;
        d.endgame = 0.5;
        break;
    case TEACH_POLICY_KT_TENUKI:
        d.pick_override = 0.85;
        d.stddev = 7.5;
        d.pick_frac = 0.4;
        d.endgame = 0.45;
        break;
    case TEACH_POLICY_KT_INFLUENCE:
    case TEACH_POLICY_KT_TERRITORY:
        d.pick_frac = 0.3;
        d.endgame = 0.4;
        d.line_weight = p->policy == TEACH_POLICY_KT_TERRITORY ? 2 : 10;
        break;
    default: break;
    }
#define OR(field) (isnan(p->kt_##field) ? d.field : p->kt_##field)
    return (mode_settings){OR(pick_override), OR(pick_n), OR(pick_frac), OR(stddev), OR(endgame),
                           OR(line_weight)};
#undef OR
}

/* KaTrain's label of a rank in dan: "9d", or "1 - r" kyu below half a dan. rint rounds half to
 * even, as Python's round. */
static void rank_label(double r, char *buf, int len)
{
    if (r >= 0.5)
        snprintf(buf, (size_t)len, "%.0fd", rint(r));
    else
        snprintf(buf, (size_t)len, "%.0fk", rint(1 - r));
}

double teach_katrain_rank(const teach_play_params *p, char *buf, int len)
{
    mode_settings m = settings_of(p);
    double elo = NAN, r = NAN;
    switch (p->policy) {
    case TEACH_POLICY_KT_SCORELOSS: elo = interp1(&scoreloss_elo, p->kt_strength); break;
    case TEACH_POLICY_KT_WEIGHTED: elo = interp1(&weighted_elo, p->kt_weaken_fac); break;
    case TEACH_POLICY_KT_PICK: elo = interp2(pick_grid, m.pick_frac, m.pick_n); break;
    case TEACH_POLICY_KT_LOCAL: elo = interp2(local_grid, m.pick_frac, m.pick_n); break;
    case TEACH_POLICY_KT_TENUKI: elo = interp2(tenuki_grid, m.pick_frac, m.pick_n); break;
    case TEACH_POLICY_KT_TERRITORY: elo = interp2(territory_grid, m.pick_frac, m.pick_n); break;
    case TEACH_POLICY_KT_INFLUENCE: elo = interp2(influence_grid, m.pick_frac, m.pick_n); break;
    case TEACH_POLICY_KT_RANK: r = 1 - p->kt_kyu_rank; break;
    /* the fallback table AI_STRENGTH */
    case TEACH_POLICY_KT_POLICY: r = 5; break;
    case TEACH_POLICY_KT_SIMPLE:
    case TEACH_POLICY_KT_SETTLE: r = 2; break;
    /* fixed: ai:default (the search's own move), handicap, jigo; antimirror from AI_STRENGTH */
    case TEACH_POLICY_BEST:
    case TEACH_POLICY_KT_JIGO:
    case TEACH_POLICY_KT_ANTIMIRROR:
    case TEACH_POLICY_KT_HANDICAP: r = 9; break;
    default: break;   /* not a KaTrain mode: KaTrain shows no rank for it */
    }
    if (!isnan(elo))
        r = 1 - interp1(&calibrated_rank, elo);
    if (isnan(r))
        snprintf(buf, (size_t)len, "?");
    else
        rank_label(r, buf, len);
    return r;
}

/* ---- needs ----------------------------------------------------------------------------------- */

double teach_katrain_auto_pda(int handicap, double komi)
{
    /* 14 points: the assumed value of a move; 3/8: the full -3 at 8 stones of advantage */
    double adv = fmax(handicap - 1, 0) - (komi - 7) / 14;
    return fmin(3.0, fmax(-3.0, -adv * 3 / 8));
}

/* KaTrain's H: the black stones set up before the first move (its root's AB, handicap stones
 * included). */
static int setup_black_stones(const go_game *g)
{
    int n = 0;
    for (int y = 0; y < g->setup.size; y++)
        for (int x = 0; x < g->setup.size; x++)
            n += g->setup.color[go_point_at(x, y)] == GO_BLACK;
    return n;
}

teach_play_needs teach_katrain_needs(const teach_play_params *p, const go_game *g)
{
    teach_play_needs n = {.search = true};
    switch (p->policy) {
    case TEACH_POLICY_KT_POLICY:
    case TEACH_POLICY_KT_WEIGHTED:
    case TEACH_POLICY_KT_PICK:
    case TEACH_POLICY_KT_LOCAL:
    case TEACH_POLICY_KT_TENUKI:
    case TEACH_POLICY_KT_INFLUENCE:
    case TEACH_POLICY_KT_TERRITORY:
    case TEACH_POLICY_KT_RANK:
        /* KaTrain searches first anyway, but these modes read only the root's raw policy */
        n = (teach_play_needs){.raw_policy = true};
        break;
    case TEACH_POLICY_KT_SIMPLE:
    case TEACH_POLICY_KT_SETTLE: n.move_ownership = true; break;
    case TEACH_POLICY_KT_ANTIMIRROR: n.anti_mirror = true; break;
    case TEACH_POLICY_KT_HANDICAP: {
        /* KaTrain gives the advantage to BLACK whatever colour the AI plays */
        double black = p->kt_automatic ? teach_katrain_auto_pda(setup_black_stones(g), g->komi)
                                       : p->kt_pda;
        n.pda = g->board.to_move == GO_BLACK ? black : -black;
        break;
    }
    default: break;
    }
    return n;
}

/* ---- shared machinery (section 0) ------------------------------------------------------------ */

/* What every mode reads: the position, and the root's policy as KaTrain sees it. */
typedef struct kt_ctx {
    const teach_play_params *p;
    const teach_choice_in *in;
    const go_game *g;
    const char *name;           /* KaTrain's name of the mode, for why */
    int size, area;             /* area: KaTrain's N = X*Y, and the pass index */
    go_color mover;
    int depth;                  /* moves since the setup: KaTrain's node depth */
    double pol[NN_MAX_MOVES];   /* [y*size+x] (shido rows), pass at area; -1 where illegal */
    int rank[NN_MAX_MOVES];     /* indices of pol, best first (the policy ranking) */
} kt_ctx;

static int move_of(const kt_ctx *c, int idx)
{
    return idx == c->area ? GO_PASS : go_point_at(idx % c->size, idx / c->size);
}

/* KaTrain's y of a shido index (0 = the bottom row). */
static int kt_y(const kt_ctx *c, int idx) { return c->size - 1 - idx / c->size; }

static const char *vertex(const kt_ctx *c, int move, char *buf)
{
    return go_point_to_gtp(c->size, move, buf);
}

/* An entry being sorted: value descending, ties by pos ascending (qsort is not stable). */
typedef struct sort_item {
    double v;
    int pos, i;
} sort_item;

static int sort_item_cmp(const void *a, const void *b)
{
    const sort_item *x = a, *y = b;
    if (x->v != y->v)
        return x->v > y->v ? -1 : 1;
    return x->pos - y->pos;
}

/* Reads the network's root policy: illegal moves get -1 as KataGo reports them (NAN from KataGo
 * nets; Leela Zero's raw softmax also covers occupied points), and a Leela Zero policy is
 * renormalised over the legal moves, which is what KataGo's softmax over legal moves gives. */
static void policy_load(kt_ctx *c, const nn_result *net)
{
    double legal_sum = 0;
    for (int i = 0; i <= c->area; i++) {
        double v = net->policy[i];
        bool legal = i == c->area || go_game_legal(c->g, move_of(c, i), c->mover) == GO_MOVE_OK;
        c->pol[i] = legal && isfinite(v) && v >= 0 ? v : -1;
        legal_sum += c->pol[i] >= 0 ? c->pol[i] : 0;
    }
    if (net->family == NN_FAMILY_LZ && legal_sum > 0)
        for (int i = 0; i <= c->area; i++)
            if (c->pol[i] >= 0)
                c->pol[i] /= legal_sum;
    /* the ranking: ties in KaTrain's list order, x-major, then its y from the bottom, pass last */
    sort_item it[NN_MAX_MOVES];
    for (int i = 0; i <= c->area; i++) {
        int pos = i == c->area ? c->area : (i % c->size) * c->size + kt_y(c, i);
        it[i] = (sort_item){c->pol[i], pos, i};
    }
    qsort(it, (size_t)c->area + 1, sizeof it[0], sort_item_cmp);
    for (int i = 0; i <= c->area; i++)
        c->rank[i] = it[i].i;
}

/* Weighted sampling without replacement (Efraimidis-Spirakis): one u ~ U[0,1) per item in order,
 * key ln(u) / (w + 1e-18), the n largest keys kept (marked in chosen). All items when n covers
 * them (no draws then). Returns the number chosen. */
static int sample(teach_rng *rng, const double *w, int count, int n, bool *chosen)
{
    if (n >= count) {
        for (int i = 0; i < count; i++)
            chosen[i] = true;
        return count;
    }
    sort_item *k = malloc(sizeof *k * (size_t)count);
    if (!k)
        return 0;
    for (int i = 0; i < count; i++) {
        k[i] = (sort_item){log(teach_rng_uniform(rng)) / (w[i] + 1e-18), i, i};
        chosen[i] = false;
    }
    qsort(k, (size_t)count, sizeof *k, sort_item_cmp);
    for (int i = 0; i < n; i++)
        chosen[k[i].i] = true;
    free(k);
    return n;
}

/* One item drawn with probability proportional to its weight (-1 when there is none). */
static int sample_one(teach_rng *rng, const double *w, int count)
{
    bool chosen[NN_MAX_MOVES + 1];
    if (count <= 0 || count > NN_MAX_MOVES + 1 || sample(rng, w, count, 1, chosen) != 1)
        return -1;
    for (int i = 0; i < count; i++)
        if (chosen[i])
            return i;
    return -1;
}

/* The top policy move (the ranking's first entry, pass included). */
static int top_move(const kt_ctx *c) { return move_of(c, c->rank[0]); }

/* The override test: the top policy move is played when pass is among the 5 highest entries,
 * when top1 > p1, or when top1 + top2 > p2 (strict). True with out filled when it fires. */
static bool override_fires(const kt_ctx *c, double p1, double p2, teach_choice *out)
{
    char v[8];
    double top1 = c->pol[c->rank[0]], top2 = c->area > 0 ? c->pol[c->rank[1]] : 0;
    for (int i = 0; i < 5 && i <= c->area; i++)
        if (c->rank[i] == c->area) {
            out->move = top_move(c);
            snprintf(out->why, sizeof out->why, "%s: pass is among the 5 best policy moves: the "
                     "top one, %s", c->name, vertex(c, out->move, v));
            return true;
        }
    if (top1 > p1 || top1 + top2 > p2) {
        out->move = top_move(c);
        if (top1 > p1)
            snprintf(out->why, sizeof out->why, "%s: %s is obvious (policy %.3f > %.3f)", c->name,
                     vertex(c, out->move, v), top1, p1);
        else
            snprintf(out->why, sizeof out->why, "%s: %s is obvious (two best policies %.3f > "
                     "%.3f)", c->name, vertex(c, out->move, v), top1 + top2, p2);
        return true;
    }
    return false;
}

/* ai:default: the search's first candidate, pass when it has none. */
static bool choose_default(const kt_ctx *c, const char *reason, teach_choice *out, char *err,
                           int err_len)
{
    const mcts_analysis *an = c->in->an;
    if (!an) {
        snprintf(err, (size_t)err_len, "%s: %s, and no search to fall back on", c->name, reason);
        return false;
    }
    char v[8];
    out->move = an->num_moves > 0 ? an->moves[0].move : GO_PASS;
    snprintf(out->why, sizeof out->why, "%s: %s: the search's move %s", c->name, reason,
             vertex(c, out->move, v));
    return true;
}

/* The points lost by candidate m: the mover's root score lead less the move's. */
static double points_lost(const mcts_analysis *an, const mcts_move_info *m)
{
    return an->root_score_lead - m->score_lead;
}

/* ---- policy-based modes (2.7, 2.8, 2.9, 2.10) ----------------------------------------------- */

/* ai:p:weighted with explicit settings: the override test, then one non-pass move of policy
 * above lower_bound drawn by policy^(1/weaken_fac); the top policy move when there is none. */
static bool choose_weighted(const kt_ctx *c, double pick_override, double weaken_fac,
                            double lower_bound, teach_rng *rng, teach_choice *out)
{
    if (override_fires(c, pick_override, 1.0, out))
        return true;
    double w[NN_MAX_MOVES];
    int idx[NN_MAX_MOVES], n = 0;
    for (int r = 0; r <= c->area; r++) {
        int i = c->rank[r];
        if (i != c->area && c->pol[i] > lower_bound) {
            idx[n] = i;
            w[n++] = pow(c->pol[i], 1.0 / weaken_fac);
        }
    }
    char v[8];
    int k = sample_one(rng, w, n);
    if (k < 0) {
        out->move = top_move(c);
        snprintf(out->why, sizeof out->why, "%s: no move above policy %g: the top policy move %s",
                 c->name, lower_bound, vertex(c, out->move, v));
        return true;
    }
    out->move = move_of(c, idx[k]);
    snprintf(out->why, sizeof out->why, "%s: %s drawn by policy^(1/%g) among %d moves (policy "
             "%.3f)", c->name, vertex(c, out->move, v), weaken_fac, n, c->pol[idx[k]]);
    return true;
}

/* The fixed settings of ai:policy's opening and of local/tenuki without a last move. */
static bool choose_weighted_fixed(const kt_ctx *c, teach_rng *rng, teach_choice *out)
{
    return choose_weighted(c, 0.9, 1.0, 0.02, rng, out);
}

/* ai:p:rank's number of moves sampled (2.10) for n_legal of N points and kyu rank k. */
static int rank_sample_count(int n_legal, int area, int k)
{
    double f = (double)n_legal / area;
    double a = 0.063015 + 0.7624 * area / pow(10, 1.9482 - 0.05737 * k);
    double e = 3.002 * f * f - f - 0.034889 * k - 0.5097;
    double b = a * (0.3931 + 0.6559 * f * exp(-e * e) - 0.01093 * k);
    double n = rint(n_legal / (1.31165 * (b + 1) - 0.082653));
    return n > 1 ? (int)n : 1;
}

/* Whether the pick family's mode has switched to its endgame at depth (local, tenuki, influence
 * and territory do; pick and rank never). */
static bool pick_endgame(const teach_play_params *p, int points, int depth)
{
    teach_policy m = p->policy;
    bool switches = m == TEACH_POLICY_KT_LOCAL || m == TEACH_POLICY_KT_TENUKI ||
                    m == TEACH_POLICY_KT_INFLUENCE || m == TEACH_POLICY_KT_TERRITORY;
    return switches && depth > settings_of(p).endgame * points;
}

int teach_katrain_pick_count(const teach_play_params *p, int n_legal, int points, int depth)
{
    mode_settings m = settings_of(p);
    int n_normal = (int)fmax(1, floor(m.pick_frac * n_legal + m.pick_n));
    if (pick_endgame(p, points, depth))
        return n_normal > n_legal / 2 ? n_normal : n_legal / 2;
    if (p->policy == TEACH_POLICY_KT_RANK)
        return rank_sample_count(n_legal, points, p->kt_kyu_rank);
    return n_normal;
}

double teach_katrain_line_weight(const teach_play_params *p, int size, int point)
{
    bool territory = p->policy == TEACH_POLICY_KT_TERRITORY;
    if (!territory && p->policy != TEACH_POLICY_KT_INFLUENCE)
        return 1;
    double t = p->kt_threshold - 1, b = 1.0 / settings_of(p).line_weight;
    int x = go_point_x(point), y = go_point_y(point);
    int dx = x < size - 1 - x ? x : size - 1 - x;
    int dy = y < size - 1 - y ? y : size - 1 - y;
    if (territory)
        return pow(b, fmax(0.0, (dx < dy ? dx : dy) - t));
    return pow(b, fmax(0.0, t - dx) + fmax(0.0, t - dy));
}

/* Whether sampled item j beats item best: the larger rank key; ties to the larger weight, then
 * the larger x, then the larger KaTrain y (the upper row). */
static bool pick_better(const kt_ctx *c, const double *key, const double *w, const int *idx, int j,
                        int best)
{
    if (key[j] != key[best])
        return key[j] > key[best];
    if (w[j] != w[best])
        return w[j] > w[best];
    int xj = idx[j] % c->size, xb = idx[best] % c->size;
    if (xj != xb)
        return xj > xb;
    return kt_y(c, idx[j]) > kt_y(c, idx[best]);
}

/* The pick family (2.9): the override test, then n moves sampled by the mode's weight, the best
 * by the mode's rank key played unless it is below the pass policy. */
static bool choose_pick(const kt_ctx *c, teach_rng *rng, teach_choice *out)
{
    const teach_play_params *p = c->p;
    mode_settings m = settings_of(p);
    teach_policy mode = p->policy;
    bool rank_mode = mode == TEACH_POLICY_KT_RANK;
    int n_legal = 0;
    for (int i = 0; i < c->area; i++)
        n_legal += c->pol[i] > 0;
    double p1 = m.pick_override, p2 = 1.0;   /* pick_override_two: KaTrain's code default */
    if (rank_mode) {
        p1 = 0.8 * (1 - 0.5 * (c->area - n_legal) / c->area);
        p2 = 0.85 + fmax(0, 0.02 * (p->kt_kyu_rank - 8));
    }
    if (override_fires(c, p1, p2, out))
        return true;
    bool local = mode == TEACH_POLICY_KT_LOCAL, tenuki = mode == TEACH_POLICY_KT_TENUKI;
    int last = c->g->num_moves > 0 ? c->g->moves[c->g->num_moves - 1].point : GO_PASS;
    if ((local || tenuki) && last == GO_PASS) {
        char name[64];
        kt_ctx w = *c;
        snprintf(name, sizeof name, "%s (no last move: Policy Weighted)", c->name);
        w.name = name;
        return choose_weighted_fixed(&w, rng, out);
    }
    bool endgame = pick_endgame(p, c->area, c->depth);
    int n = teach_katrain_pick_count(p, n_legal, c->area, c->depth);
    /* the items: legal non-pass points of positive policy, in ranking order */
    double key[NN_MAX_MOVES], w[NN_MAX_MOVES];
    int idx[NN_MAX_MOVES], count = 0;
    for (int r = 0; r <= c->area; r++) {
        int i = c->rank[r];
        if (i == c->area || c->pol[i] <= 0)
            continue;
        int x = i % c->size, y = i / c->size;
        double pol = c->pol[i], wt = 1, k = pol;
        if (!endgame && (local || tenuki)) {
            double s = m.stddev, dx = x - go_point_x(last), dy = y - go_point_y(last);
            double gauss = exp(-(dx * dx + dy * dy) / (2 * s * s));
            wt = local ? gauss : 1 - gauss;
        } else if (!endgame) {
            wt = teach_katrain_line_weight(p, c->size, move_of(c, i));   /* 1 but for styles */
            k = pol * wt;
        }
        idx[count] = i;
        key[count] = k;
        w[count++] = wt;
    }
    bool chosen[NN_MAX_MOVES];
    int got = sample(rng, w, count, n, chosen);
    int best = -1;
    for (int j = 0; j < count; j++)
        if (chosen[j] && (best < 0 || pick_better(c, key, w, idx, j, best)))
            best = j;
    char v[8];
    double pass_policy = c->pol[c->area];
    if (best < 0 || key[best] < pass_policy) {
        out->move = top_move(c);
        snprintf(out->why, sizeof out->why, "%s: %s: the top policy move %s", c->name,
                 best < 0 ? "nothing to sample" : "the best sampled move is below pass",
                 vertex(c, out->move, v));
        return true;
    }
    out->move = move_of(c, idx[best]);
    snprintf(out->why, sizeof out->why, "%s: %s best of %d sampled of %d moves%s (policy %.3f)",
             c->name, vertex(c, out->move, v), got, count, endgame ? ", endgame" : "",
             c->pol[idx[best]]);
    return true;
}

/* ---- search-based modes (2.1-2.6) ------------------------------------------------------------ */

/* ai:scoreloss (2.5): a candidate drawn by exp(-strength * max(0, pointsLost)). */
static bool choose_scoreloss(const kt_ctx *c, teach_rng *rng, teach_choice *out)
{
    const mcts_analysis *an = c->in->an;
    char v[8];
    if (an->num_moves == 0 || an->moves[0].move == GO_PASS) {
        out->move = GO_PASS;
        snprintf(out->why, sizeof out->why, "%s: %s", c->name,
                 an->num_moves ? "the best move is to pass" : "no candidate: pass");
        return true;
    }
    double *w = malloc(sizeof *w * (size_t)an->num_moves);
    if (!w) {
        out->move = an->moves[0].move;
        snprintf(out->why, sizeof out->why, "%s: out of memory: the search's move", c->name);
        return true;
    }
    for (int i = 0; i < an->num_moves; i++)
        w[i] = exp(fmin(200, -c->p->kt_strength * fmax(0, points_lost(an, &an->moves[i]))));
    int k = sample_one(rng, w, an->num_moves);
    free(w);
    if (k < 0)
        k = 0;
    out->move = an->moves[k].move;
    snprintf(out->why, sizeof out->why, "%s: %s drawn among %d candidates (loses %.1f points)",
             c->name, vertex(c, out->move, v), an->num_moves, points_lost(an, &an->moves[k]));
    return true;
}

/* ai:jigo (2.4): the candidate whose lead for the mover is closest to target_score. */
static bool choose_jigo(const kt_ctx *c, teach_choice *out)
{
    const mcts_analysis *an = c->in->an;
    char v[8];
    int best = -1;
    double best_d = INFINITY;
    for (int i = 0; i < an->num_moves; i++) {
        double d = fabs(an->moves[i].score_lead - c->p->kt_target_score);
        if (d < best_d) {
            best_d = d;
            best = i;
        }
    }
    if (best < 0) {
        out->move = GO_PASS;
        snprintf(out->why, sizeof out->why, "%s: no candidate: pass", c->name);
        return true;
    }
    out->move = an->moves[best].move;
    snprintf(out->why, sizeof out->why, "%s: %s ends closest to %+g (lead %+.1f)", c->name,
             vertex(c, out->move, v), c->p->kt_target_score, an->moves[best].score_lead);
    return true;
}

/* Chebyshev distance between two points. */
static int chebyshev(int a, int b)
{
    int dx = abs(go_point_x(a) - go_point_x(b)), dy = abs(go_point_y(a) - go_point_y(b));
    return dx > dy ? dx : dy;
}

/* The attach test of 1.20.0: an orthogonal opponent neighbour and no own stone at the offsets
 * that KaTrain's typos left, (-2,0), (0,1), (0,2), (1,0), (1,1), (2,0) with its y pointing up,
 * i.e. the row offsets negated in shido's rows. Off-board offsets hold no stone. */
static bool attaches(const go_board *b, int move, go_color me)
{
    static const int off[6][2] = {{-2, 0}, {0, -1}, {0, -2}, {1, 0}, {1, -1}, {2, 0}};
    if (move == GO_PASS)
        return false;
    bool touches = false;
    for (int d = 0; d < 4; d++)
        touches |= b->color[move + go_dir4[d]] == go_opponent(me);
    if (!touches)
        return false;
    int x = go_point_x(move), y = go_point_y(move);
    for (int k = 0; k < 6; k++) {
        int ox = x + off[k][0], oy = y + off[k][1];
        if (ox >= 0 && oy >= 0 && ox < b->size && oy < b->size &&
            b->color[go_point_at(ox, oy)] == me)
            return false;
    }
    return true;
}

/* The tenuki test: the last two moves exist, are on the board and are both at Chebyshev distance
 * >= 5 from the candidate. A pass candidate is no tenuki: it has no distance. */
static bool is_tenuki(const go_game *g, int move)
{
    if (move == GO_PASS || g->num_moves < 2)
        return false;
    int a = g->moves[g->num_moves - 1].point, b = g->moves[g->num_moves - 2].point;
    return a != GO_PASS && b != GO_PASS && chebyshev(a, move) >= 5 && chebyshev(b, move) >= 5;
}

/* ai:simple and ai:settle (2.6): the candidate of lowest cost among those that lose little and
 * carry their ownership. */
static bool choose_ownership_style(const kt_ctx *c, teach_choice *out, char *err, int err_len)
{
    const mcts_analysis *an = c->in->an;
    const teach_play_params *p = c->p;
    const go_board *b = &c->g->board;
    bool settle = p->policy == TEACH_POLICY_KT_SETTLE;
    char v[8];
    if (an->num_moves == 0 || an->moves[0].move == GO_PASS) {
        out->move = GO_PASS;
        snprintf(out->why, sizeof out->why, "%s: %s", c->name,
                 an->num_moves ? "the best move is to pass" : "no candidate: pass");
        return true;
    }
    double own_sign = c->mover == GO_WHITE ? 1.0 : -1.0;   /* white's view -> the mover's */
    int best = -1, survivors = 0;
    double best_cost = INFINITY, best_own = 0, best_opp = 0;
    for (int i = 0; i < an->num_moves; i++) {
        const mcts_move_info *m = &an->moves[i];
        double pl = points_lost(an, m);
        if (!an->has_score || !(pl < p->kt_max_points_lost) || !m->ownership ||
            !(m->order <= 1 || m->visits >= p->kt_min_visits) || (m->move == GO_PASS && pl > 0.75))
            continue;
        survivors++;
        double s_own = 0, s_opp = 0;
        for (int y = 0; y < c->size; y++)
            for (int x = 0; x < c->size; x++) {
                double o = own_sign * m->ownership[y * c->size + x];
                if (!settle) {
                    s_own += o > 0 ? o : 0;
                    s_opp += o < 0 ? -o : 0;
                    continue;
                }
                /* settle: the stone's own point (KaTrain 1.20.0 reads the grid transposed, the
                 * value at (y, x) for a stone at (x, y); shido does not copy that slip) */
                go_color col = (go_color)b->color[go_point_at(x, y)];
                if (col == c->mover)
                    s_own += fabs(o);
                else if (col == go_opponent(c->mover))
                    s_opp += fabs(o);
            }
        double cost = pl + p->kt_attach_penalty * attaches(b, m->move, c->mover) +
                      p->kt_tenuki_penalty * is_tenuki(c->g, m->move) -
                      p->kt_settled_weight * (s_own + p->kt_opponent_fac * s_opp);
        if (cost < best_cost) {
            best_cost = cost;
            best = i;
            best_own = s_own;
            best_opp = s_opp;
        }
    }
    if (best < 0) {
        snprintf(err, (size_t)err_len, "%s: no candidate loses less than %g points with %s",
                 c->name, p->kt_max_points_lost,
                 an->has_score ? "its ownership and enough visits" : "a score lead");
        return false;
    }
    out->move = an->moves[best].move;
    snprintf(out->why, sizeof out->why, "%s: %s settles most (cost %.2f, own %.1f, opponent's "
             "%.1f; %d candidates)", c->name, vertex(c, out->move, v), best_cost, best_own,
             best_opp, survivors);
    return true;
}

/* antimirror and handicap: the first move of their own search. */
static bool choose_searched(const kt_ctx *c, const char *what, teach_choice *out)
{
    const mcts_analysis *an = c->in->an;
    char v[8];
    out->move = an->num_moves > 0 ? an->moves[0].move : c->in->search_choice;
    snprintf(out->why, sizeof out->why, "%s: %s, the best move of the search %s", c->name,
             vertex(c, out->move, v), what);
    return true;
}

/* ---- dispatch -------------------------------------------------------------------------------- */

static const char *mode_name(teach_policy m)
{
    switch (m) {
    case TEACH_POLICY_KT_SCORELOSS: return "Score Loss";
    case TEACH_POLICY_KT_POLICY: return "Policy";
    case TEACH_POLICY_KT_WEIGHTED: return "Policy Weighted";
    case TEACH_POLICY_KT_PICK: return "Blinded Policy";
    case TEACH_POLICY_KT_LOCAL: return "Local Style";
    case TEACH_POLICY_KT_TENUKI: return "Tenuki Style";
    case TEACH_POLICY_KT_INFLUENCE: return "Influential Style";
    case TEACH_POLICY_KT_TERRITORY: return "Territorial Style";
    case TEACH_POLICY_KT_RANK: return "Calibrated Rank";
    case TEACH_POLICY_KT_SIMPLE: return "Simple Style";
    case TEACH_POLICY_KT_SETTLE: return "Settle Stones";
    case TEACH_POLICY_KT_JIGO: return "KataJigo";
    case TEACH_POLICY_KT_ANTIMIRROR: return "KataAntiMirror";
    case TEACH_POLICY_KT_HANDICAP: return "KataHandicap";
    default: return NULL;
    }
}

bool teach_katrain_choose(const teach_play_params *p, const teach_choice_in *in, teach_rng *rng,
                          teach_choice *out, char *err, int err_len)
{
    kt_ctx c;
    const char *name = mode_name(p->policy);
    if (!name) {
        snprintf(err, (size_t)err_len, "%s: %s is no KaTrain mode", __func__,
                 teach_policy_name(p->policy));
        return false;
    }
    const go_game *g = in->game;
    c = (kt_ctx){.p = p, .in = in, .g = g, .name = name, .size = g->board.size,
                 .area = g->board.size * g->board.size, .mover = g->board.to_move,
                 .depth = g->num_moves};
    out->why[0] = 0;
    switch (p->policy) {
    case TEACH_POLICY_KT_POLICY:
    case TEACH_POLICY_KT_WEIGHTED:
    case TEACH_POLICY_KT_PICK:
    case TEACH_POLICY_KT_LOCAL:
    case TEACH_POLICY_KT_TENUKI:
    case TEACH_POLICY_KT_INFLUENCE:
    case TEACH_POLICY_KT_TERRITORY:
    case TEACH_POLICY_KT_RANK:
        if (!in->net || in->net->size != c.size)
            return choose_default(&c, "no policy", out, err, err_len);
        policy_load(&c, in->net);
        if (p->policy == TEACH_POLICY_KT_WEIGHTED)
            return choose_weighted(&c, settings_of(p).pick_override, p->kt_weaken_fac,
                                   p->kt_lower_bound, rng, out);
        if (p->policy != TEACH_POLICY_KT_POLICY)
            return choose_pick(&c, rng, out);
        if (c.depth <= p->kt_opening_moves) {
            kt_ctx w = c;
            w.name = "Policy (opening: Policy Weighted)";
            return choose_weighted_fixed(&w, rng, out);
        }
        out->move = top_move(&c);
        char v[8];
        snprintf(out->why, sizeof out->why, "%s: the top policy move %s (policy %.3f)", name,
                 vertex(&c, out->move, v), c.pol[c.rank[0]]);
        return true;
    default:
        break;
    }
    if (!in->an) {
        snprintf(err, (size_t)err_len, "%s: no search analysis", name);
        return false;
    }
    switch (p->policy) {
    case TEACH_POLICY_KT_SCORELOSS:
        if (!in->an->has_score)
            return choose_default(&c, "no score lead (Leela Zero net)", out, err, err_len);
        return choose_scoreloss(&c, rng, out);
    case TEACH_POLICY_KT_JIGO:
        if (!in->an->has_score)
            return choose_default(&c, "no score lead (Leela Zero net)", out, err, err_len);
        return choose_jigo(&c, out);
    case TEACH_POLICY_KT_SIMPLE:
    case TEACH_POLICY_KT_SETTLE: return choose_ownership_style(&c, out, err, err_len);
    case TEACH_POLICY_KT_ANTIMIRROR: return choose_searched(&c, "with anti-mirror", out);
    default: {
        char what[64];
        teach_play_needs n = teach_katrain_needs(p, g);
        snprintf(what, sizeof what, "with playout doubling advantage %+.2f", n.pda);
        return choose_searched(&c, what, out);
    }
    }
}
