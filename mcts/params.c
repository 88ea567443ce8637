/* mcts/params.c -- the tunables' defaults and the one name table that GTP, the command line and
 * config files set them through. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "mcts/mcts.h"

mcts_params mcts_params_default(void)
{
    return (mcts_params){
        .c_puct = 0.9,
        .c_puct_log = 0.0,
        .c_puct_base = 500.0,
        .fpu_reduction = 0.25,
        .root_fpu_reduction = 0.1,
        .virtual_loss = 1,
        .num_threads = 1,
        .batch_size = 1,
        .eval_threads = 1,
        .max_visits = 0,
        .max_playouts = 0,
        .max_time_ms = 0,
        .dirichlet_alpha = 0.03,
        .dirichlet_eps = 0.0,
        .root_policy_temperature = 1.0,
        .win_loss_utility_factor = 1.0,
        .temperature = 0.0,
        .temperature_moves = 0,
        .use_lcb_for_selection = true,
        .lcb_visit_fraction = 0.15,
        .lcb_stdevs = 5.0,
        .resign_threshold = -1.0,
        .resign_min_visits = 500,
        .pass_policy = MCTS_PASS_SAFE,
        .static_score_utility_factor = 0.1,
        .dynamic_score_utility_factor = 0.3,
        .dynamic_score_center_zero_weight = 0.2,
        .dynamic_score_center_scale = 0.75,
        .root_policy_optimism = NN_DEFAULT_POLICY_OPTIMISM,
        .policy_optimism = 0.0,
        .anti_mirror = false,
        .max_tree_mb = 2048.0,
        .nn_cache_size = 16384,
        .seed = 0,
    };
}

typedef enum { P_DOUBLE, P_INT, P_INT64, P_U64, P_BOOL, P_PASS, P_PROFILE, P_ACTION } param_kind;

typedef struct param_entry {
    mcts_param_info info;
    const char *alias;     /* KataGo's / Leela Zero's spelling, or NULL */
    param_kind kind;
    size_t offset;
    double lo, hi;         /* accepted range (in the field's units) */
} param_entry;

#define F(field) offsetof(mcts_params, field)

static const param_entry table[] = {
    {{"c_puct", "double", "exploration constant of PUCT, in winrate units (LZ 0.9)"},
     "cpuctExploration", P_DOUBLE, F(c_puct), 0, 1000},
    {{"c_puct_log", "double", "c_puct grows by c_puct_log ln((N + c_puct_base) / c_puct_base) "
                              "with the children's visits N (0; KataGo's 0.45 is 0.225 here)"},
     "cpuctExplorationLog", P_DOUBLE, F(c_puct_log), 0, 1000},
    {{"c_puct_base", "double", "visits scale of c_puct_log (KataGo 500)"},
     "cpuctExplorationBase", P_DOUBLE, F(c_puct_base), 1, 1e9},
    {{"fpu_reduction", "double", "first-play urgency reduction below the root"},
     "fpuReductionMax", P_DOUBLE, F(fpu_reduction), 0, 10},
    {{"root_fpu_reduction", "double", "first-play urgency reduction at the root"},
     "rootFpuReductionMax", P_DOUBLE, F(root_fpu_reduction), 0, 10},
    {{"virtual_loss", "int", "virtual losses per in-flight descent through a node"},
     NULL, P_INT, F(virtual_loss), 0, 1000},
    {{"num_threads", "int", "search threads (each with its own network context)"},
     "numSearchThreads", P_INT, F(num_threads), 1, 256},
    {{"batch_size", "int", "leaves each thread gathers per network call"},
     "nnMaxBatchSize", P_INT, F(batch_size), 1, 256},
    {{"eval_threads", "int", "threads sharing each network call's input features and output "
                             "conversion (for big batches on a GPU)"},
     NULL, P_INT, F(eval_threads), 1, 64},
    {{"max_visits", "int64", "stop at this many root visits (0: no limit)"},
     "maxVisits", P_INT64, F(max_visits), 0, 1e15},
    {{"max_playouts", "int64", "stop after this many playouts of one run (0: no limit)"},
     "maxPlayouts", P_INT64, F(max_playouts), 0, 1e15},
    {{"max_time_ms", "int64", "stop after this many milliseconds (0: no limit)"},
     NULL, P_INT64, F(max_time_ms), 0, 1e12},
    {{"dirichlet_alpha", "double", "root noise alpha, scaled by 361 / legal moves"},
     NULL, P_DOUBLE, F(dirichlet_alpha), 1e-6, 100},
    {{"dirichlet_eps", "double", "weight of root Dirichlet noise (0: off)"},
     NULL, P_DOUBLE, F(dirichlet_eps), 0, 1},
    {{"root_policy_temperature", "double", "root priors P^(1/T), renormalised (> 1: wider)"},
     "rootPolicyTemperature", P_DOUBLE, F(root_policy_temperature), 0.01, 100},
    {{"wide_root_noise", "double", "KataGo's wideRootNoise: flatter root priors and random "
                                   "utility bonuses at the root (0: off)"},
     "wideRootNoise", P_DOUBLE, F(wide_root_noise), 0, 5},
    {{"temperature", "double", "choose moves by visits^(1/T) (0: most visited)"},
     "chosenMoveTemperature", P_DOUBLE, F(temperature), 0, 100},
    {{"temperature_moves", "int", "apply the temperature for the game's first N moves"},
     NULL, P_INT, F(temperature_moves), 0, 100000},
    {{"use_lcb_for_selection", "bool", "play the best utility LCB among much visited moves"},
     "useLcbForSelection", P_BOOL, F(use_lcb_for_selection), 0, 1},
    {{"lcb_visit_fraction", "double", "share of the top visits a move needs to win on LCB"},
     "minVisitPropForLCB", P_DOUBLE, F(lcb_visit_fraction), 0, 1},
    {{"lcb_stdevs", "double", "standard errors below the mean utility of the LCB (KataGo 5)"},
     "lcbStdevs", P_DOUBLE, F(lcb_stdevs), 0, 100},
    {{"resign_threshold", "double", "resign below this winrate (negative: never)"},
     "resignThreshold", P_DOUBLE, F(resign_threshold), -1, 1},
    {{"resign_min_visits", "int64", "root visits needed before resigning"},
     NULL, P_INT64, F(resign_min_visits), 0, 1e15},
    {{"pass_policy", "enum: safe|free|last", "when the engine may pass (safe: no dead stones)"},
     NULL, P_PASS, F(pass_policy), 0, 2},
    {{"win_loss_utility_factor", "double", "weight of win minus loss in the utility (KataGo 1)"},
     "winLossUtilityFactor", P_DOUBLE, F(win_loss_utility_factor), 0, 10},
    {{"static_score_utility_factor", "double", "weight of the score term centred on 0"},
     NULL, P_DOUBLE, F(static_score_utility_factor), 0, 10},
    {{"dynamic_score_utility_factor", "double", "weight of the score term centred on the root"},
     NULL, P_DOUBLE, F(dynamic_score_utility_factor), 0, 10},
    {{"dynamic_score_center_zero_weight", "double", "pull of the dynamic centre towards 0"},
     NULL, P_DOUBLE, F(dynamic_score_center_zero_weight), 0, 1},
    {{"dynamic_score_center_scale", "double", "scale of the dynamic score term"},
     NULL, P_DOUBLE, F(dynamic_score_center_scale), 0.01, 100},
    {{"root_policy_optimism", "double", "policy optimism at the root (KataGo nets v12+)"},
     NULL, P_DOUBLE, F(root_policy_optimism), 0, 1},
    {{"policy_optimism", "double", "policy optimism below the root (KataGo nets v12+)"},
     NULL, P_DOUBLE, F(policy_optimism), 0, 1},
    {{"human_sl_profile", "text",
      "KataGo human-SL nets: whom to imitate (rank_9d .. rank_20k, preaz_<rank>, proyear_YYYY; "
      "none: no profile)"},
     "humanSLProfile", P_PROFILE, F(human_sl_profile), 0, 0},
    {{"playout_doubling_advantage", "double",
      "the root player searches as if with 2^x times its opponent's playouts (handicap play)"},
     "playoutDoublingAdvantage", P_DOUBLE, F(playout_doubling_advantage), -3, 3},
    {{"anti_mirror", "bool", "against a mirroring opponent, search the moves that break the "
                             "mirror (KataGo's antiMirror)"},
     "antiMirror", P_BOOL, F(anti_mirror), 0, 1},
    {{"max_tree_mb", "double", "tree memory bound in MiB; the search stops there"},
     NULL, P_DOUBLE, F(max_tree_mb), 0.01, 1e7},
    {{"nn_cache_size", "int", "network results cached (0: no cache)"},
     NULL, P_INT, F(nn_cache_size), 0, 1 << 26},
    {{"seed", "uint64", "random seed for noise, temperature, symmetries (0: time)"},
     NULL, P_U64, F(seed), 0, 0},
    {{"clear_moves", "action", "clears the avoid/allow move lists (any value)"},
     NULL, P_ACTION, 0, 0, 0},
};

#undef F

#define NUM_PARAMS ((int)(sizeof table / sizeof table[0]))

static const char *const pass_names[] = {"safe", "free", "last"};

const mcts_param_info *mcts_param_list(int *n)
{
    static mcts_param_info list[sizeof table / sizeof table[0]];
    for (int i = 0; i < NUM_PARAMS; i++)
        list[i] = table[i].info;
    *n = NUM_PARAMS;
    return list;
}

bool mcts_params_name_eq(const char *a, const char *b)
{
    for (;;) {
        while (*a == '_' || *a == '-')
            a++;
        while (*b == '_' || *b == '-')
            b++;
        if (!*a || !*b)
            return !*a && !*b;
        if (tolower((unsigned char)*a) != tolower((unsigned char)*b))
            return false;
        a++;
        b++;
    }
}

/* KataGo's exploration and first-play urgency are in utility units, twice the winrate units of
 * ours: under its names their values are halved. */
static double alias_scale(const param_entry *e)
{
    size_t o = e->offset;
    return o == offsetof(mcts_params, c_puct) || o == offsetof(mcts_params, c_puct_log) ||
                   o == offsetof(mcts_params, fpu_reduction) ||
                   o == offsetof(mcts_params, root_fpu_reduction)
               ? 0.5
               : 1.0;
}

/* The entry of name; *scale receives what a value in the name's units is multiplied by. */
static const param_entry *find(const char *name, double *scale)
{
    for (int i = 0; i < NUM_PARAMS; i++) {
        const param_entry *e = &table[i];
        bool by_alias = !mcts_params_name_eq(name, e->info.name);
        if (by_alias && !(e->alias && mcts_params_name_eq(name, e->alias)))
            continue;
        *scale = by_alias ? alias_scale(e) : 1.0;
        return e;
    }
    return NULL;
}

bool mcts_params_set(mcts_params *p, const char *name, const char *value, char *err, int err_len)
{
    double scale;
    const param_entry *e = find(name, &scale);
    if (!e) {
        snprintf(err, (size_t)err_len, "%s: unknown parameter '%s'", __func__, name);
        return false;
    }
    if (e->kind == P_ACTION) {
        p->num_avoid = p->num_allow = 0;
        return true;
    }
    char *field = (char *)p + e->offset;
    if (e->kind == P_PROFILE) {
        nn_kata_profile check;
        char why[200];
        if (!*value || !strcasecmp(value, "none")) {
            field[0] = '\0';
            return true;
        }
        if (strlen(value) >= MCTS_PROFILE_LEN) {
            snprintf(err, (size_t)err_len, "%s: %s: name too long", __func__, e->info.name);
            return false;
        }
        if (!nn_kata_profile_parse(value, &check, why, sizeof why)) {
            snprintf(err, (size_t)err_len, "%s: %s: %s", __func__, e->info.name, why);
            return false;
        }
        memcpy(field, value, strlen(value) + 1);
        return true;
    }
    if (e->kind == P_PASS) {
        for (int i = 0; i < 3; i++)
            if (strcasecmp(value, pass_names[i]) == 0) {
                *(mcts_pass_policy *)field = (mcts_pass_policy)i;
                return true;
            }
        snprintf(err, (size_t)err_len, "%s: %s: expected safe, free or last, got '%s'", __func__,
                 e->info.name, value);
        return false;
    }
    static const mcts_value_kind kinds[] = {
        [P_DOUBLE] = MCTS_VALUE_DOUBLE, [P_INT] = MCTS_VALUE_INT, [P_INT64] = MCTS_VALUE_INT64,
        [P_U64] = MCTS_VALUE_U64, [P_BOOL] = MCTS_VALUE_BOOL};
    if (scale != 1.0) {   /* a KataGo alias in KataGo's units (doubles only) */
        double v;
        if (!mcts_value_parse(MCTS_VALUE_DOUBLE, &v, value, e->lo / scale, e->hi / scale,
                              __func__, e->alias, err, err_len))
            return false;
        *(double *)field = v * scale;
        return true;
    }
    return mcts_value_parse(kinds[e->kind], field, value, e->lo, e->hi, __func__, e->info.name,
                            err, err_len);
}

bool mcts_value_parse(mcts_value_kind kind, void *field, const char *value, double lo, double hi,
                      const char *who, const char *name, char *err, int err_len)
{
    if (kind == MCTS_VALUE_BOOL) {
        bool on = !strcasecmp(value, "true") || !strcmp(value, "1");
        if (!on && strcasecmp(value, "false") && strcmp(value, "0")) {
            snprintf(err, (size_t)err_len, "%s: %s: expected true or false, got '%s'", who, name,
                     value);
            return false;
        }
        *(bool *)field = on;
        return true;
    }
    char *end;
    errno = 0;
    if (kind == MCTS_VALUE_U64) {
        unsigned long long u = strtoull(value, &end, 0);
        if (end == value || *end || errno || value[0] == '-') {
            snprintf(err, (size_t)err_len, "%s: %s: expected an unsigned integer, got '%s'", who,
                     name, value);
            return false;
        }
        *(uint64_t *)field = u;
        return true;
    }
    double v = strtod(value, &end);
    bool integral = kind != MCTS_VALUE_DOUBLE;
    if (end == value || *end || errno || !isfinite(v) || (integral && v != floor(v))) {
        snprintf(err, (size_t)err_len, "%s: %s: expected %s, got '%s'", who, name,
                 integral ? "an integer" : "a number", value);
        return false;
    }
    if (v < lo || v > hi) {
        snprintf(err, (size_t)err_len, "%s: %s: %s is outside [%g, %g]", who, name, value, lo, hi);
        return false;
    }
    if (kind == MCTS_VALUE_DOUBLE)
        *(double *)field = v;
    else if (kind == MCTS_VALUE_INT)
        *(int *)field = (int)v;
    else
        *(int64_t *)field = (int64_t)v;
    return true;
}

void mcts_value_format(mcts_value_kind kind, const void *field, char *buf, int len)
{
    switch (kind) {
    case MCTS_VALUE_DOUBLE: snprintf(buf, (size_t)len, "%.17g", *(const double *)field); break;
    case MCTS_VALUE_INT: snprintf(buf, (size_t)len, "%d", *(const int *)field); break;
    case MCTS_VALUE_INT64: snprintf(buf, (size_t)len, "%" PRId64, *(const int64_t *)field); break;
    case MCTS_VALUE_U64: snprintf(buf, (size_t)len, "%" PRIu64, *(const uint64_t *)field); break;
    case MCTS_VALUE_BOOL:
        snprintf(buf, (size_t)len, "%s", *(const bool *)field ? "true" : "false");
        break;
    }
}

bool mcts_params_get(const mcts_params *p, const char *name, char *buf, int len)
{
    double scale;
    const param_entry *e = find(name, &scale);
    if (!e || len <= 0)
        return false;
    const char *field = (const char *)p + e->offset;
    if (scale != 1.0) {
        double v = *(const double *)field / scale;
        mcts_value_format(MCTS_VALUE_DOUBLE, &v, buf, len);
        return true;
    }
    switch (e->kind) {
    case P_DOUBLE: mcts_value_format(MCTS_VALUE_DOUBLE, field, buf, len); break;
    case P_INT: mcts_value_format(MCTS_VALUE_INT, field, buf, len); break;
    case P_INT64: mcts_value_format(MCTS_VALUE_INT64, field, buf, len); break;
    case P_U64: mcts_value_format(MCTS_VALUE_U64, field, buf, len); break;
    case P_BOOL: mcts_value_format(MCTS_VALUE_BOOL, field, buf, len); break;
    case P_PROFILE: snprintf(buf, (size_t)len, "%s", *field ? field : "none"); break;
    case P_PASS: snprintf(buf, (size_t)len, "%s", pass_names[*(const mcts_pass_policy *)field]);
        break;
    case P_ACTION: snprintf(buf, (size_t)len, "%d", p->num_avoid + p->num_allow); break;
    }
    return true;
}

bool mcts_params_add_move_filter(mcts_params *p, bool allow, go_color c, int point,
                                 int until_depth)
{
    int *n = allow ? &p->num_allow : &p->num_avoid;
    if (*n >= MCTS_MAX_MOVE_FILTERS)
        return false;
    (allow ? p->allow : p->avoid)[(*n)++] = (mcts_move_filter){c, point, until_depth};
    return true;
}
