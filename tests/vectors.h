/* tests/vectors.h -- the reference outputs of real KataGo and Leela Zero in ../shared/vectors
 * (JSON Lines, one record a position) and the networks they belong to: reading the files, setting
 * up each record's position through shido's own board by replaying the record's `gtp` commands,
 * and comparing an evaluator's outputs with a record's within the tolerances of tests/common.h.
 * Header-only: included by the network test suites. */
#ifndef SHIDO_TESTS_VECTORS_H
#define SHIDO_TESTS_VECTORS_H

#include <cJSON.h>
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "go/game.h"
#include "go/rules.h"
#include "nn/nn.h"
#include "tests/common.h"

/* The networks of ../shared/weights with reference outputs in ../shared/vectors, and whether
 * each is a KataGo net (else Leela Zero). */
static const struct { const char *weights, *vectors; bool kata; } vec_cases[] = {
    {"g170-b6c96-s175395328-d26788732.bin.gz", "katago-g170-b6c96.jsonl", true},
    {"rand-b2c16-v15.bin.gz", "katago-rand-b2c16-v15.jsonl", true},
    {"rand-b5c192nbt-v15.bin.gz", "katago-rand-b5c192nbt-v15.jsonl", true},
    {"lz-0k.txt", "lz-0k.jsonl", false},
    {"lz-rand-b4c32.txt.gz", "lz-rand-b4c32.jsonl", false},
    {"lz-rand-b2c16-v2.txt.gz", "lz-rand-b2c16-v2.jsonl", false},
};
#define VEC_NUM_CASES ((int)(sizeof vec_cases / sizeof vec_cases[0]))

typedef struct vec_file {
    int num_records;
    cJSON **records;   /* one parsed object per line */
} vec_file;

/* Reads every line of a JSONL file. Returns false with a message on any unreadable line. */
static inline bool vec_file_read(const char *path, vec_file *vf, char *err, int err_len)
{
    memset(vf, 0, sizeof *vf);
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, (size_t)err_len, "%s: cannot open", path);
        return false;
    }
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    int lineno = 0;
    bool ok = true;
    while ((n = getline(&line, &cap, f)) > 0) {
        lineno++;
        if (n <= 1)
            continue;
        cJSON *rec = cJSON_Parse(line);
        if (!rec) {
            snprintf(err, (size_t)err_len, "%s:%d: not JSON", path, lineno);
            ok = false;
            break;
        }
        cJSON **grown = realloc(vf->records, sizeof *grown * (size_t)(vf->num_records + 1));
        if (!grown) {
            cJSON_Delete(rec);
            ok = false;
            break;
        }
        vf->records = grown;
        vf->records[vf->num_records++] = rec;
    }
    free(line);
    fclose(f);
    return ok;
}

/* Every how many records a suite checks: 1 (all, the default) unless SHIDO_VECTORS_STRIDE asks
 * for fewer -- the sanitizer run uses it, where the reference pass is ~4 times slower. */
static inline int vec_stride(void)
{
    const char *s = getenv("SHIDO_VECTORS_STRIDE");
    int k = s ? atoi(s) : 1;
    return k >= 1 ? k : 1;
}

static inline void vec_file_free(vec_file *vf)
{
    for (int i = 0; i < vf->num_records; i++)
        cJSON_Delete(vf->records[i]);
    free(vf->records);
    memset(vf, 0, sizeof *vf);
}

static inline go_color vec_color(const char *s)
{
    return (s[0] == 'B' || s[0] == 'b') ? GO_BLACK : (s[0] == 'W' || s[0] == 'w') ? GO_WHITE
                                                                                    : GO_EMPTY;
}

/* Replays a record's "gtp" commands (boardsize, clear_board, komi, kata-set-rules, play,
 * set_free_handicap, set_position) into g, which is initialised here; the caller frees it.
 * Returns false with a message on any command it cannot apply. */
static inline bool vec_setup_game(const cJSON *rec, go_game *g, char *err, int err_len)
{
    const cJSON *gtp = cJSON_GetObjectItemCaseSensitive(rec, "gtp");
    if (!cJSON_IsArray(gtp)) {
        snprintf(err, (size_t)err_len, "record has no gtp array");
        return false;
    }
    go_rules rules;
    go_rules_preset(&rules, "tromp-taylor");
    if (!go_game_init(g, 19, &rules, 7.5f)) {
        snprintf(err, (size_t)err_len, "cannot start a game");
        return false;
    }
    const cJSON *cmd;
    cJSON_ArrayForEach(cmd, gtp)
    {
        char buf[4096], *save = NULL;
        snprintf(buf, sizeof buf, "%s", cmd->valuestring ? cmd->valuestring : "");
        char *name = strtok_r(buf, " ", &save);
        char *arg = strtok_r(NULL, " ", &save);
        int size = g->board.size;
        bool ok = name != NULL;
        if (!ok) {
        } else if (!strcmp(name, "boardsize")) {
            int s = arg ? atoi(arg) : 0;
            go_rules keep = g->rules;
            float komi = g->komi;
            go_game_free(g);
            ok = go_game_init(g, s, &keep, komi);
        } else if (!strcmp(name, "clear_board")) {
            go_game_clear(g);
        } else if (!strcmp(name, "komi")) {
            g->komi = arg ? strtof(arg, NULL) : 0;
        } else if (!strcmp(name, "kata-set-rules")) {
            char why[128];
            ok = arg && go_rules_parse(&g->rules, arg, why, sizeof why);
        } else if (!strcmp(name, "play")) {
            char *v = strtok_r(NULL, " ", &save);
            int p = v ? go_point_from_gtp(size, v) : GO_NO_POINT;
            ok = arg && p != GO_NO_POINT && go_game_play(g, p, vec_color(arg)) == GO_MOVE_OK;
        } else if (!strcmp(name, "set_free_handicap")) {
            int placed = 0;
            for (char *v = arg; v && ok; v = strtok_r(NULL, " ", &save)) {
                int p = go_point_from_gtp(size, v);
                ok = p > 0 && go_game_setup_stone(g, p, GO_BLACK);
                placed++;
            }
            g->handicap = placed;
            go_game_set_to_move(g, GO_WHITE);
        } else if (!strcmp(name, "set_position")) {
            go_game_clear(g);
            for (char *c = arg; c && ok; c = strtok_r(NULL, " ", &save)) {
                char *v = strtok_r(NULL, " ", &save);
                int p = v ? go_point_from_gtp(size, v) : GO_NO_POINT;
                ok = p > 0 && go_game_setup_stone(g, p, vec_color(c));
            }
        } else {
            ok = false;
        }
        if (!ok) {
            snprintf(err, (size_t)err_len, "cannot apply gtp command '%s'", cmd->valuestring);
            go_game_free(g);
            return false;
        }
    }
    return true;
}

/* ---- comparing outputs with a record's --------------------------------------------------- */

enum { VEC_WIN, VEC_LOSS, VEC_NORESULT, VEC_LEAD, VEC_SCORE, VEC_SCORE_SQ, VEC_VARTIME,
       VEC_ST_WL, VEC_ST_SCORE, VEC_POLICY, VEC_PASS, VEC_OWNERSHIP, VEC_FIELDS };
static const char *const vec_field_name[VEC_FIELDS] = {
    "whiteWin", "whiteLoss", "noResult", "whiteLead", "whiteScoreSelfplay",
    "whiteScoreSelfplaySq", "varTimeLeft", "shorttermWinlossError", "shorttermScoreError",
    "policy", "policyPass", "whiteOwnership"};
/* The tolerances of tests/common.h; the squared score's is relative. */
static const double vec_field_tol[VEC_FIELDS] = {
    [VEC_WIN] = TEST_PROB_TOL,       [VEC_LOSS] = TEST_PROB_TOL,
    [VEC_NORESULT] = TEST_PROB_TOL,  [VEC_LEAD] = TEST_SCORE_TOL,
    [VEC_SCORE] = TEST_SCORE_TOL,    [VEC_SCORE_SQ] = TEST_SCORE_SQ_REL_TOL,
    [VEC_VARTIME] = TEST_SCORE_TOL,  [VEC_ST_WL] = TEST_SCORE_TOL,
    [VEC_ST_SCORE] = TEST_SCORE_TOL, [VEC_POLICY] = TEST_PROB_TOL,
    [VEC_PASS] = TEST_PROB_TOL,      [VEC_OWNERSHIP] = TEST_PROB_TOL};

/* The worst error per field over the records of one KataGo vector file. */
typedef struct vec_kata_stats {
    double worst[VEC_FIELDS];
    const char *worst_id[VEC_FIELDS];
    int checked;
} vec_kata_stats;

/* What an evaluator gave for one KataGo record: values in vec_field_name's order up to
 * VEC_ST_SCORE, policy (NAN on illegal points) and ownership [size * size], the pass. */
typedef struct vec_kata_got {
    double values[VEC_ST_SCORE + 1];
    const float *policy, *ownership;
    double pass;
} vec_kata_got;

/* What nn_eval gave for a KataGo record in o, with o's policy and ownership as read from policy
 * and ownership (o's own arrays, or copies of them). */
static inline vec_kata_got vec_kata_got_of(const nn_result *o, const float *policy,
                                           const float *ownership)
{
    return (vec_kata_got){{o->white_win, o->white_loss, o->no_result, o->white_lead,
                           o->white_score_selfplay, o->white_score_selfplay_sq, o->var_time_left,
                           o->shortterm_winloss_error, o->shortterm_score_error},
                          policy, ownership, policy[o->size * o->size]};
}

static inline void vec_note(vec_kata_stats *st, int f, double e, const char *id)
{
    e = isnan(e) ? INFINITY : e;
    if (e > st->worst[f]) {
        st->worst[f] = e;
        st->worst_id[f] = id;
    }
}

/* Adds the errors of got against record rec (a position of `size`) to st; the legality of every
 * point must agree exactly. */
static inline void vec_kata_compare(const cJSON *rec, int size, const vec_kata_got *got,
                                    vec_kata_stats *st)
{
    const char *id = cJSON_GetObjectItemCaseSensitive(rec, "id")->valuestring;
    int sym = (int)test_json_num(rec, "symmetry");
    const cJSON *o = cJSON_GetObjectItemCaseSensitive(rec, "outputs");
    for (int f = 0; f <= VEC_ST_SCORE; f++) {
        double want = test_json_num(o, vec_field_name[f]), e = fabs(got->values[f] - want);
        if (f == VEC_SCORE_SQ)
            e /= fmax(1.0, fabs(want));
        vec_note(st, f, e, id);
    }
    const cJSON *pol = cJSON_GetObjectItemCaseSensitive(o, "policy");
    const cJSON *own = cJSON_GetObjectItemCaseSensitive(o, "whiteOwnership");
    int area = size * size;
    ck_assert_int_eq(cJSON_GetArraySize(pol), area);
    ck_assert_int_eq(cJSON_GetArraySize(own), area);
    for (int i = 0; i < area; i++) {
        const cJSON *pv = cJSON_GetArrayItem(pol, i);
        if (cJSON_IsNull(pv)) {
            ck_assert_msg(isnan(got->policy[i]), "%s sym %d: point %d illegal in KataGo", id, sym,
                          i);
        } else {
            ck_assert_msg(isfinite(got->policy[i]), "%s sym %d: point %d legal in KataGo", id,
                          sym, i);
            vec_note(st, VEC_POLICY, fabs(got->policy[i] - pv->valuedouble), id);
        }
        vec_note(st, VEC_OWNERSHIP,
                 fabs(got->ownership[i] - cJSON_GetArrayItem(own, i)->valuedouble), id);
    }
    vec_note(st, VEC_PASS, fabs(got->pass - test_json_num(o, "policyPass")), id);
    st->checked++;
}

/* Prints the worst errors of st under label and asserts each is within its tolerance. */
static inline void vec_kata_finish(const char *label, int records, const vec_kata_stats *st)
{
    printf("%s: %d of %d records, max |error| per field:\n", label, st->checked, records);
    for (int f = 0; f < VEC_FIELDS; f++)
        printf("  %-22s %.3g%s  (%s)\n", vec_field_name[f], st->worst[f],
               f == VEC_SCORE_SQ ? " relative" : "", st->worst_id[f] ? st->worst_id[f] : "-");
    fflush(stdout);
    for (int f = 0; f < VEC_FIELDS; f++)
        ck_assert_msg(st->worst[f] <= vec_field_tol[f], "%s: %s off by %g at %s", label,
                      vec_field_name[f], st->worst[f], st->worst_id[f]);
}

/* Asserts that a Leela Zero evaluation of record rec (policy[362] top row first then pass, the
 * side to move's winrate) matches Leela Zero's; raises *max_policy / *max_winrate. */
static inline void vec_lz_compare(const cJSON *rec, const float *policy, double winrate,
                                  double *max_policy, double *max_winrate)
{
    const char *id = cJSON_GetObjectItemCaseSensitive(rec, "id")->valuestring;
    int sym = cJSON_GetObjectItemCaseSensitive(rec, "symmetry")->valueint;
    const cJSON *out = cJSON_GetObjectItemCaseSensitive(rec, "outputs");
    const cJSON *want_policy = cJSON_GetObjectItemCaseSensitive(out, "policy");
    ck_assert_int_eq(cJSON_GetArraySize(want_policy), 361);
    double worst = 0;
    int worst_at = -1;
    for (int i = 0; i <= 361; i++) {
        double want = i < 361 ? cJSON_GetArrayItem(want_policy, i)->valuedouble
                              : test_json_num(out, "policyPass");
        ck_assert_msg(isfinite(policy[i]), "%s: policy %d not finite", id, i);
        double e = fabs(policy[i] - want);
        if (e > worst) {
            worst = e;
            worst_at = i;
        }
    }
    double want_w = test_json_num(out, "winrate"), ew = fabs(winrate - want_w);
    ck_assert_msg(worst <= TEST_PROB_TOL, "%s sym %d: policy[%d] off by %.3g", id, sym,
                  worst_at, worst);
    ck_assert_msg(ew <= TEST_PROB_TOL, "%s sym %d: winrate %.9f, Leela Zero %.9f", id, sym,
                  winrate, want_w);
    *max_policy = worst > *max_policy ? worst : *max_policy;
    *max_winrate = ew > *max_winrate ? ew : *max_winrate;
}

#endif
