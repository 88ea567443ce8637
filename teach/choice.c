/* teach/choice.c -- the move-choice tunables, what each policy needs, and the dispatch to the
 * policy modules (choice.h). */
#include "teach/choice.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "go/hash.h"
#include "teach/control.h"
#include "teach/katrain.h"

static const char *const policy_names[TEACH_POLICY_COUNT] = {
    [TEACH_POLICY_BEST] = "best",
    [TEACH_POLICY_NET] = "net",
    [TEACH_POLICY_NAIVE] = "naive",
    [TEACH_POLICY_SOFTMAX] = "softmax",
    [TEACH_POLICY_IKEDA] = "ikeda",
    [TEACH_POLICY_SCORE] = "score",
    [TEACH_POLICY_TWO_PHASE] = "two-phase",
    [TEACH_POLICY_ADAPTIVE] = "adaptive",
    [TEACH_POLICY_AGGRESSIVE] = "aggressive",
    [TEACH_POLICY_PEACEFUL] = "peaceful",
    [TEACH_POLICY_KT_SCORELOSS] = "scoreloss",
    [TEACH_POLICY_KT_POLICY] = "policy",
    [TEACH_POLICY_KT_WEIGHTED] = "weighted",
    [TEACH_POLICY_KT_PICK] = "pick",
    [TEACH_POLICY_KT_LOCAL] = "local",
    [TEACH_POLICY_KT_TENUKI] = "tenuki",
    [TEACH_POLICY_KT_INFLUENCE] = "influence",
    [TEACH_POLICY_KT_TERRITORY] = "territory",
    [TEACH_POLICY_KT_RANK] = "rank",
    [TEACH_POLICY_KT_SIMPLE] = "simple",
    [TEACH_POLICY_KT_SETTLE] = "settle",
    [TEACH_POLICY_KT_JIGO] = "jigo",
    [TEACH_POLICY_KT_ANTIMIRROR] = "antimirror",
    [TEACH_POLICY_KT_HANDICAP] = "handicap",
};

const char *teach_policy_name(teach_policy p)
{
    return p >= 0 && p < TEACH_POLICY_COUNT ? policy_names[p] : "?";
}

/* The style presets (seed 001 table 7.1): weights for lines 1-2, 3, 4, 5, 6 and up. */
static const struct {
    const char *name;
    double w[5];
} styles[] = {
    {"none", {1, 1, 1, 1, 1}},
    {"center13", {0.50, 0.50, 2.00, 2.00, 2.00}},
    {"edge13", {2.00, 2.00, 0.50, 0.50, 0.50}},
    {"center19", {0.25, 0.50, 1.50, 1.75, 2.00}},
    {"edge19", {2.00, 1.50, 0.75, 0.50, 0.25}},
};
#define NUM_STYLES ((int)(sizeof styles / sizeof styles[0]))

teach_play_params teach_play_params_default(void)
{
    return (teach_play_params){
        .policy = TEACH_POLICY_BEST,
        .style_w = {1, 1, 1, 1, 1},
        .softmax_z = 1.0,
        .softmax_min_visits = 1,
        .softmax_adapt_step = 0.1,
        .left_winrate = 0.9,
        .ikeda_c = 1.5,
        .ikeda_t_min = 0.35,
        .ikeda_t_max = 0.55,
        .method_a_cpuct = 10.0,
        .method_a_min_frac = 0.02,
        .method_b_trigger = 3.0,
        .method_c_alpha = 0.25,
        .score_gamma = 3.0,
        .score_low = -10.0,
        .score_high = -4.0,
        .score_cap = 5.0,
        .score_top = 20,
        .endgame_stdev = 10.0,
        .saturation = 0.9,
        .cap_learn = 0.5,
        .cap_clip = 8,
        .behind_plain = true,
        .adaptive_rate = 0.1,
        .adaptive_horizon = 8,
        .adaptive_margin = -2.0,
        .adaptive_learn = 0.5,
        .adaptive_clip = 8,
        .adaptive_window = 1.0,
        .adaptive_min_visits = 1,
        .style_max_loss = 2.0,
        .prior_floor = 0.01,
        .pass_loss = 0.5,
        .threat_drop = 1.0,
        .threat_dist = 6,
        .kt_strength = 0.2,
        .kt_weaken_fac = 1.25,
        .kt_pick_override = NAN,
        .kt_lower_bound = 0.001,
        .kt_opening_moves = 22,
        .kt_pick_n = NAN,
        .kt_pick_frac = NAN,
        .kt_stddev = NAN,
        .kt_endgame = NAN,
        .kt_threshold = 3.5,
        .kt_line_weight = NAN,
        .kt_kyu_rank = 4,
        .kt_max_points_lost = 1.75,
        .kt_settled_weight = 1.0,
        .kt_opponent_fac = 0.5,
        .kt_min_visits = 3,
        .kt_attach_penalty = 1.0,
        .kt_tenuki_penalty = 0.5,
        .kt_target_score = 0.5,
        .kt_automatic = true,
        .kt_pda = 0.0,
    };
}

/* ---- the name table ----------------------------------------------------------------------- */

typedef enum { K_DOUBLE, K_MODE_DOUBLE, K_INT, K_INT64, K_U64, K_BOOL, K_POLICY, K_STYLE } kind;

typedef struct entry {
    mcts_param_info info;
    kind k;
    size_t offset;
    double lo, hi;
} entry;

/* The scalar kinds as mcts_value_parse reads them. */
static const mcts_value_kind kinds[] = {
    [K_DOUBLE] = MCTS_VALUE_DOUBLE, [K_MODE_DOUBLE] = MCTS_VALUE_DOUBLE, [K_INT] = MCTS_VALUE_INT,
    [K_INT64] = MCTS_VALUE_INT64, [K_U64] = MCTS_VALUE_U64, [K_BOOL] = MCTS_VALUE_BOOL};

#define F(field) offsetof(teach_play_params, field)

static const entry table[] = {
    {{"play_policy", "enum: best|net|naive|softmax|ikeda|A15|ABC25|score|two-phase|adaptive|"
                     "aggressive|peaceful|scoreloss|policy|weighted|pick|local|tenuki|influence|"
                     "territory|rank|simple|settle|jigo|antimirror|handicap",
      "how the move is chosen from the search (teach/choice.h)"}, K_POLICY, F(policy), 0, 0},
    {{"net_temperature", "double", "net: the policy's moves drawn by P^(1/T) early (0: the best)"},
     K_DOUBLE, F(net_temperature), 0, 100},
    {{"net_temperature_moves", "int", "net: the game's first N moves drawn by the temperature"},
     K_INT, F(net_temperature_moves), 0, 1000},
    {{"play_seed", "u64", "randomness of the move choice (0: from the search's seed)"}, K_U64,
     F(seed), 0, 0},
    {{"style", "none|center13|edge13|center19|edge19|w12,w3,w4,w5,w6",
      "prior weights by line of the move (seed 001 table 7.1)"}, K_STYLE, F(style_w), 0, 100},
    {{"weights_in_search", "bool",
      "style and method B weights also weight the root's priors before the search"},
     K_BOOL, F(weights_in_search), 0, 0},
    {{"softmax_z", "double", "softmax: the exponent z of N^z"}, K_DOUBLE, F(softmax_z), 0, 100},
    {{"softmax_min_visits", "int64", "softmax: moves with fewer visits are left out"}, K_INT64,
     F(softmax_min_visits), 0, 1e12},
    {{"softmax_adapt", "bool", "softmax: move z toward a 50% result after each game"}, K_BOOL,
     F(softmax_adapt), 0, 0},
    {{"softmax_adapt_step", "double", "softmax: z's step between games"}, K_DOUBLE,
     F(softmax_adapt_step), 0, 10},
    {{"left_winrate", "double",
      "learning between games: a game left after our move at this winrate is won (1: off)"},
     K_DOUBLE, F(left_winrate), 0.5, 1},
    {{"ikeda_c", "double", "ikeda: handicap degree c (T_uniq 0.08c, T_dif 0.03c, filter)"},
     K_DOUBLE, F(ikeda_c), 0, 20},
    {{"ikeda_t_min", "double", "ikeda: below this winrate the best move is played"}, K_DOUBLE,
     F(ikeda_t_min), 0, 1},
    {{"ikeda_t_max", "double", "ikeda: above this winrate the controller gives back"}, K_DOUBLE,
     F(ikeda_t_max), 0, 1},
    {{"method_a", "bool", "ikeda: method A (large c_puct, rarely visited moves dropped)"}, K_BOOL,
     F(method_a), 0, 0},
    {{"method_a_cpuct", "double", "method A: the search's c_puct"}, K_DOUBLE, F(method_a_cpuct),
     0, 1000},
    {{"method_a_min_frac", "double", "method A: moves under this share of the visits dropped"},
     K_DOUBLE, F(method_a_min_frac), 0, 1},
    {{"method_b", "bool", "ikeda: method B (priors by distance to the opponent's last move)"},
     K_BOOL, F(method_b), 0, 0},
    {{"method_b_trigger", "double", "method B: own stone within this distance of the last move"},
     K_DOUBLE, F(method_b_trigger), 0, 30},
    {{"method_c", "bool", "ikeda: method C (Gain = w_max - w_i + alpha p_i when ahead)"}, K_BOOL,
     F(method_c), 0, 0},
    {{"method_c_alpha", "double", "method C: alpha"}, K_DOUBLE, F(method_c_alpha), 0, 100},
    {{"score_gamma", "double", "score: divisor per point outside the band"}, K_DOUBLE,
     F(score_gamma), 1, 100},
    {{"score_low", "double", "score: lowest score lead of the band (mover's view)"}, K_DOUBLE,
     F(score_low), -1000, 1000},
    {{"score_high", "double", "score: highest score lead of the band"}, K_DOUBLE, F(score_high),
     -1000, 1000},
    {{"score_cap", "double", "score: most points a move may lose against the best"}, K_DOUBLE,
     F(score_cap), 0, 50},
    {{"score_top", "int", "score: the moves of highest prior considered"}, K_INT, F(score_top), 1,
     361},
    {{"endgame_lead", "double", "two-phase: |score lead| for the endgame (0: by board size)"},
     K_DOUBLE, F(endgame_lead), 0, 1000},
    {{"endgame_stdev", "double", "two-phase: score stdev for the endgame"}, K_DOUBLE,
     F(endgame_stdev), 0, 1000},
    {{"endgame_pass", "double", "two-phase: score change of a pass (0: by board size)"}, K_DOUBLE,
     F(endgame_pass), 0, 1000},
    {{"saturation", "double", "two-phase: the best winrate from which the score band plays"},
     K_DOUBLE, F(saturation), 0.5, 1},
    {{"cap_learn", "double", "two-phase: score_cap's correction by each game's final lead"},
     K_DOUBLE, F(cap_learn), 0, 2},
    {{"cap_clip", "double", "two-phase: the final lead's clip before learning"}, K_DOUBLE,
     F(cap_clip), 0, 1000},
    {{"behind_plain", "bool", "two-phase: behind, the move of a search at the engine's c_puct"},
     K_BOOL, F(behind_plain), 0, 0},
    {{"adaptive_rate", "double", "adaptive: weight of a new move in the opponent's mean loss"},
     K_DOUBLE, F(adaptive_rate), 0.001, 1},
    {{"adaptive_horizon", "double", "adaptive: moves over which the lead is given back"},
     K_DOUBLE, F(adaptive_horizon), 1, 1000},
    {{"adaptive_margin", "double", "adaptive: the score lead aimed at (own view)"}, K_DOUBLE,
     F(adaptive_margin), -50, 50},
    {{"adaptive_natural", "double", "adaptive: points a move may miss by per e-fold of prior"},
     K_DOUBLE, F(adaptive_natural), 0, 10},
    {{"adaptive_window", "double", "adaptive: the top prior within this many points of the aim"},
     K_DOUBLE, F(adaptive_window), 0, 100},
    {{"adaptive_learn", "double", "adaptive: the margin's correction by each game's final lead"},
     K_DOUBLE, F(adaptive_learn), 0, 2},
    {{"adaptive_clip", "double", "adaptive: the final lead's clip before learning"}, K_DOUBLE,
     F(adaptive_clip), 0, 1000},
    {{"adaptive_max_loss", "double", "adaptive: most points a move may lose (0: no cap)"},
     K_DOUBLE, F(adaptive_max_loss), 0, 100},
    {{"adaptive_min_visits", "int", "adaptive: fewest visits a candidate needs"}, K_INT,
     F(adaptive_min_visits), 1, 1000000},
    {{"adaptive_verify", "int", "adaptive: visits checking the chosen move's loss (0: off)"},
     K_INT, F(adaptive_verify), 0, 1000000},
    {{"style_max_loss", "double", "aggressive, peaceful: most points a move may lose"}, K_DOUBLE,
     F(style_max_loss), 0, 100},
    {{"prior_floor", "double", "safeguard: no move of lower prior unless forced"}, K_DOUBLE,
     F(prior_floor), 0, 1},
    {{"pass_loss", "double", "safeguard: after the opponent's pass, pass if it loses at most this"},
     K_DOUBLE, F(pass_loss), 0, 1000},
    {{"threat_drop", "double", "safeguard: our stones' ownership drop that is a threat"}, K_DOUBLE,
     F(threat_drop), 0, 1000},
    {{"threat_dist", "int", "safeguard: answers within this Remi distance of the threat"}, K_INT,
     F(threat_dist), 0, 60},
    {{"kt_strength", "double", "KaTrain scoreloss: strength"}, K_DOUBLE, F(kt_strength), 0, 100},
    {{"kt_weaken_fac", "double", "KaTrain weighted: weaken_fac"}, K_DOUBLE, F(kt_weaken_fac),
     0.01, 100},
    {{"kt_pick_override", "double", "KaTrain pick family: pick_override (default by mode)"},
     K_MODE_DOUBLE, F(kt_pick_override), 0, 1},
    {{"kt_lower_bound", "double", "KaTrain weighted: lower_bound"}, K_DOUBLE, F(kt_lower_bound),
     0, 1},
    {{"kt_opening_moves", "int", "KaTrain policy: opening_moves"}, K_INT, F(kt_opening_moves), 0,
     1000},
    {{"kt_pick_n", "double", "KaTrain pick family: pick_n (default by mode)"}, K_MODE_DOUBLE,
     F(kt_pick_n), 0, 1000},
    {{"kt_pick_frac", "double", "KaTrain pick family: pick_frac (default by mode)"},
     K_MODE_DOUBLE, F(kt_pick_frac), 0, 1},
    {{"kt_stddev", "double", "KaTrain local, tenuki: stddev (default by mode)"}, K_MODE_DOUBLE,
     F(kt_stddev), 0.01, 100},
    {{"kt_endgame", "double", "KaTrain local/tenuki/influence/territory: endgame"},
     K_MODE_DOUBLE, F(kt_endgame), 0, 10},
    {{"kt_threshold", "double", "KaTrain influence, territory: threshold line"}, K_DOUBLE,
     F(kt_threshold), 0, 20},
    {{"kt_line_weight", "double", "KaTrain influence, territory: line_weight"}, K_MODE_DOUBLE,
     F(kt_line_weight), 0.01, 1000},
    {{"kt_kyu_rank", "int", "KaTrain rank: kyu_rank (15..1 kyu, 0 1d, -1 2d, -2 3d)"}, K_INT,
     F(kt_kyu_rank), -2, 15},
    {{"kt_max_points_lost", "double", "KaTrain simple, settle: max_points_lost"}, K_DOUBLE,
     F(kt_max_points_lost), 0, 1000},
    {{"kt_settled_weight", "double", "KaTrain simple, settle: settled_weight"}, K_DOUBLE,
     F(kt_settled_weight), -100, 100},
    {{"kt_opponent_fac", "double", "KaTrain simple, settle: opponent_fac"}, K_DOUBLE,
     F(kt_opponent_fac), -100, 100},
    {{"kt_min_visits", "int", "KaTrain simple, settle: min_visits"}, K_INT, F(kt_min_visits), 0,
     1000000},
    {{"kt_attach_penalty", "double", "KaTrain simple, settle: attach_penalty"}, K_DOUBLE,
     F(kt_attach_penalty), -100, 100},
    {{"kt_tenuki_penalty", "double", "KaTrain simple, settle: tenuki_penalty"}, K_DOUBLE,
     F(kt_tenuki_penalty), -100, 100},
    {{"kt_target_score", "double", "KaTrain jigo: target_score"}, K_DOUBLE, F(kt_target_score),
     -1000, 1000},
    {{"kt_automatic", "bool", "KaTrain handicap: the advantage from handicap and komi"}, K_BOOL,
     F(kt_automatic), 0, 0},
    {{"kt_pda", "double", "KaTrain handicap: playout doubling advantage when not automatic"},
     K_DOUBLE, F(kt_pda), -3, 3},
};
#define NUM_ENTRIES ((int)(sizeof table / sizeof table[0]))

const mcts_param_info *teach_play_param_list(int *n)
{
    static mcts_param_info list[NUM_ENTRIES];
    for (int i = 0; i < NUM_ENTRIES; i++)
        list[i] = table[i].info;
    *n = NUM_ENTRIES;
    return list;
}

static const entry *find(const char *name)
{
    for (int i = 0; i < NUM_ENTRIES; i++)
        if (mcts_params_name_eq(name, table[i].info.name))
            return &table[i];
    return NULL;
}

/* play_policy's value: a policy name or a preset, applied to p. */
static bool set_policy(teach_play_params *p, const char *value)
{
    if (!strcasecmp(value, "A15") || !strcasecmp(value, "ABC25")) {
        bool abc = !strcasecmp(value, "ABC25");
        p->policy = TEACH_POLICY_IKEDA;
        p->ikeda_c = abc ? 2.5 : 1.5;
        p->method_a = true;
        p->method_b = p->method_c = abc;
        p->method_c_alpha = 0.25;
        return true;
    }
    for (int i = 0; i < TEACH_POLICY_COUNT; i++)
        if (mcts_params_name_eq(value, policy_names[i])) {
            p->policy = (teach_policy)i;
            if (p->policy == TEACH_POLICY_TWO_PHASE)
                p->method_a = true;   /* its score band needs a search spread wide (choice.h) */
            return true;
        }
    return false;
}

/* style's value: a preset name or five weights separated by commas. */
static bool set_style(double *w, const char *value)
{
    for (int i = 0; i < NUM_STYLES; i++)
        if (!strcasecmp(value, styles[i].name)) {
            memcpy(w, styles[i].w, sizeof styles[i].w);
            return true;
        }
    double v[5];
    const char *s = value;
    for (int i = 0; i < 5; i++) {
        char *end;
        errno = 0;
        v[i] = strtod(s, &end);
        if (end == s || errno || !isfinite(v[i]) || v[i] < 0 || v[i] > 100)
            return false;
        s = end;
        if (i < 4 && *s++ != ',')
            return false;
    }
    if (*s)
        return false;
    memcpy(w, v, sizeof v);
    return true;
}

bool teach_play_params_set(teach_play_params *p, const char *name, const char *value, char *err,
                           int err_len)
{
    const entry *e = find(name);
    if (!e) {
        snprintf(err, (size_t)err_len, "%s: unknown parameter '%s'", __func__, name);
        return false;
    }
    char *field = (char *)p + e->offset;
    switch (e->k) {
    case K_POLICY:
        if (set_policy(p, value))
            return true;
        snprintf(err, (size_t)err_len, "%s: %s: '%s' is none of %s", __func__, e->info.name,
                 value, e->info.type + strlen("enum: "));
        return false;
    case K_STYLE:
        if (set_style((double *)field, value))
            return true;
        snprintf(err, (size_t)err_len,
                 "%s: style: '%s' is no preset (none, center13, edge13, center19, edge19) and no "
                 "five weights in [0, 100] like 0.5,0.5,2,2,2", __func__, value);
        return false;
    default:
        break;
    }
    if (e->k == K_MODE_DOUBLE && !strcasecmp(value, "default")) {
        *(double *)field = NAN;
        return true;
    }
    return mcts_value_parse(kinds[e->k], field, value, e->lo, e->hi, __func__, e->info.name, err,
                            err_len);
}

bool teach_play_params_get(const teach_play_params *p, const char *name, char *buf, int len)
{
    const entry *e = find(name);
    if (!e || len <= 0)
        return false;
    const char *field = (const char *)p + e->offset;
    switch (e->k) {
    case K_POLICY: snprintf(buf, (size_t)len, "%s", teach_policy_name(p->policy)); break;
    case K_STYLE: {
        const double *w = (const double *)field;
        snprintf(buf, (size_t)len, "%g,%g,%g,%g,%g", w[0], w[1], w[2], w[3], w[4]);
        break;
    }
    case K_MODE_DOUBLE:
        if (isnan(*(const double *)field)) {
            snprintf(buf, (size_t)len, "default");
            break;
        }
        /* fall through */
    default: mcts_value_format(kinds[e->k], field, buf, len); break;
    }
    return true;
}

/* ---- needs, randomness, state ------------------------------------------------------------- */

teach_play_needs teach_play_needs_of(const teach_play_params *p, const go_game *g)
{
    teach_play_needs n = {.search = true, .root_ownership = true};
    switch (p->policy) {
    case TEACH_POLICY_BEST:
        n.root_ownership = false;
        break;
    case TEACH_POLICY_NET:
        n = (teach_play_needs){.raw_policy = true};
        break;
    case TEACH_POLICY_IKEDA:
        n.c_puct = p->method_a ? p->method_a_cpuct : 0;
        break;
    case TEACH_POLICY_TWO_PHASE:
        n.pass_lead = true;
        n.c_puct = p->method_a ? p->method_a_cpuct : 0;
        break;
    case TEACH_POLICY_ADAPTIVE:
        /* the moves that lose what the opponent loses must be searched to be candidates: the
         * search spreads as method A's does (a plain search leaves only the few best moves) */
        n.c_puct = p->method_a_cpuct;
        break;
    case TEACH_POLICY_AGGRESSIVE:
    case TEACH_POLICY_PEACEFUL:
        n.move_ownership = true;
        break;
    default:
        if (p->policy >= TEACH_POLICY_KT_SCORELOSS)
            n = teach_katrain_needs(p, g);
        break;
    }
    return n;
}

double teach_rng_uniform(teach_rng *r)
{
    return (double)(go_splitmix64(&r->state) >> 11) * 0x1.0p-53;
}

int teach_rng_pick(teach_rng *r, const double *w, int n)
{
    double total = 0;
    for (int i = 0; i < n; i++)
        total += w[i] > 0 ? w[i] : 0;
    if (!(total > 0))
        return -1;
    double u = teach_rng_uniform(r) * total;
    int last = -1;
    for (int i = 0; i < n; i++) {
        if (!(w[i] > 0))
            continue;
        if (u < w[i])
            return i;
        u -= w[i];
        last = i;
    }
    return last;   /* u rounded past the total */
}

void teach_play_state_reset(teach_play_state *s, const teach_play_params *p, bool keep_games)
{
    double z = s->softmax_z, shift = s->margin_shift, cap = s->cap_shift;
    int games = s->games_done;
    memset(s, 0, sizeof *s);
    s->softmax_z = keep_games && p->softmax_adapt && games > 0 ? z : p->softmax_z;
    s->games_done = keep_games ? games : 0;
    s->margin_shift = keep_games ? shift : 0;
    s->cap_shift = keep_games ? cap : 0;
}

/* value - learn * clip(final_lead), kept within [-50, 50]. */
static double learnt(double value, double learn, double clip, double final_lead)
{
    double lead = fmin(clip, fmax(-clip, final_lead));
    return fmin(50.0, fmax(-50.0, value - learn * lead));
}

void teach_adaptive_learn(teach_play_state *s, const teach_play_params *p, double final_lead)
{
    double margin = p->adaptive_margin + s->margin_shift;
    s->margin_shift = learnt(margin, p->adaptive_learn, p->adaptive_clip, final_lead) -
                      p->adaptive_margin;
}

void teach_two_phase_learn(teach_play_state *s, const teach_play_params *p, double final_lead)
{
    double cap = learnt(p->score_cap + s->cap_shift, p->cap_learn, p->cap_clip, -final_lead);
    s->cap_shift = fmin(50.0, fmax(0.0, cap)) - p->score_cap;
}

/* The network's favourite legal move (pass when nothing is legal). */
static int net_best(const teach_choice_in *in)
{
    const go_game *g = in->game;
    int size = g->board.size, best = GO_PASS;
    double best_p = -1;
    for (int i = 0; i <= size * size; i++) {
        int q = i == size * size ? GO_PASS : go_point_at(i % size, i / size);
        double v = in->net->policy[i];
        if (isfinite(v) && v > best_p && go_game_legal(g, q, g->board.to_move) == GO_MOVE_OK) {
            best_p = v;
            best = q;
        }
    }
    return best;
}

/* A legal move drawn with probability P^(1/t) (t > 0). */
static int net_draw(const teach_choice_in *in, double t, teach_rng *rng)
{
    const go_game *g = in->game;
    int size = g->board.size, n = size * size;
    double w[NN_MAX_MOVES];
    for (int i = 0; i <= n; i++) {
        int q = i == n ? GO_PASS : go_point_at(i % size, i / size);
        double v = in->net->policy[i];
        w[i] = isfinite(v) && v > 0 && go_game_legal(g, q, g->board.to_move) == GO_MOVE_OK
                   ? pow(v, 1.0 / t)
                   : 0;
    }
    int i = teach_rng_pick(rng, w, n + 1);
    return i < 0 ? net_best(in) : i == n ? GO_PASS : go_point_at(i % size, i / size);
}

bool teach_choose(const teach_play_params *p, const teach_choice_in *in, teach_rng *rng,
                  teach_choice *out, char *err, int err_len)
{
    out->why[0] = 0;
    out->strongest = false;
    switch (p->policy) {
    case TEACH_POLICY_BEST:
        out->move = in->search_choice;
        snprintf(out->why, sizeof out->why, "best: the search's choice");
        return true;
    case TEACH_POLICY_NET:
        if (!in->net) {
            snprintf(err, (size_t)err_len, "net: no network output");
            return false;
        }
        if (p->net_temperature > 0 && in->game->num_moves < p->net_temperature_moves) {
            out->move = net_draw(in, p->net_temperature, rng);
            snprintf(out->why, sizeof out->why, "net: drawn by P^(1/%g)", p->net_temperature);
        } else {
            out->move = net_best(in);
            snprintf(out->why, sizeof out->why, "net: the network's favourite");
        }
        return true;
    default:
        break;
    }
    if (p->policy >= TEACH_POLICY_KT_SCORELOSS)
        return teach_katrain_choose(p, in, rng, out, err, err_len);
    return teach_control_choose(p, in, rng, out, err, err_len);
}
