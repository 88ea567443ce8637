/* tests/test_analysis_json.c -- `shido analysis` (KataGo's JSON analysis protocol) through the
 * real binary over pipes, as KaTrain drives it: several queries with analyzeTurns, ownership
 * and its standard deviation, policy, avoidMoves and overrideSettings; bad queries and a
 * malformed line answered with per-query errors while later queries still answer;
 * query_version; terminate stopping a running query; end of input ending the process with
 * status 0; malformed, deeply nested and over-long lines; the query checks without a network
 * (shido_analysis_check); a fresh search per query; a KaTrain-style session (priorities, terminate
 * with turnNumbers, "Illegal move"); KataGo's further query and response fields and
 * query_models; the values against kata-analyze on the same position; a load of queries with
 * terminates interleaved, also with --parallel 4; priorities kept with --parallel 2; KaTrain's
 * KataGo 1.17 transformer net in a session of its own. Responses are parsed with cJSON and their
 * fields, types and values checked. 9x9 (19x19 for the transformer net), a few visits, one
 * thread. */
#include <check.h>
#include <cjson/cJSON.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "go/playout.h"
#include "tools/analysis_json.h"

#include "tests/common.h"
#include "go/clock.h"
#include "tests/shido_pipe.h"

/* The next response, parsed (NULL at the end of output). */
static cJSON *next_response(engine *e)
{
    char *line = engine_read_line(e);
    if (!line)
        return NULL;
    cJSON *j = cJSON_Parse(line);
    ck_assert_msg(j && cJSON_IsObject(j), "not a JSON object: %s", line);
    free(line);
    return j;
}

static cJSON *must_next(engine *e)
{
    cJSON *j = next_response(e);
    ck_assert_msg(j != NULL, "end of output");
    return j;
}

static const cJSON *field(const cJSON *o, const char *name)
{
    return cJSON_GetObjectItemCaseSensitive(o, name);
}

static bool is_int_field(const cJSON *o, const char *name)
{
    double v = test_json_num(o, name);
    return v == floor(v);
}

static void expect_id(const cJSON *r, const char *id)
{
    const cJSON *v = field(r, "id");
    ck_assert_msg(cJSON_IsString(v) && !strcmp(v->valuestring, id), "id: want %s", id);
}

static void expect_error(engine *e, const char *id, const char *field_name)
{
    cJSON *r = must_next(e);
    char *text = cJSON_PrintUnformatted(r);
    ck_assert_msg(cJSON_IsString(field(r, "error")), "no error: %s", text);
    if (id)
        expect_id(r, id);
    else
        ck_assert_msg(cJSON_IsNull(field(r, "id")), "id should be null: %s", text);
    if (field_name)
        ck_assert_msg(cJSON_IsString(field(r, "field")) &&
                          !strcmp(field(r, "field")->valuestring, field_name),
                      "field: %s", text);
    free(text);
    cJSON_Delete(r);
}

static int index_of(const char *vertex, int w, int h)
{
    int col = vertex[0] - 'A' - (vertex[0] > 'I'), row = atoi(vertex + 1);
    return col >= 0 && col < w && row >= 1 && row <= h ? (h - row) * w + col : -1;
}

/* Checks one analysis response of a w x h board; returns the sum of move visits. */
static long long check_board(const cJSON *r, int w, int h, bool ownership, bool policy,
                             bool moves_ownership, const char *const *occupied, int n_occupied)
{
    char *text = cJSON_PrintUnformatted(r);
    ck_assert_msg(cJSON_IsBool(field(r, "isDuringSearch")), "%s", text);
    ck_assert_msg(is_int_field(r, "turnNumber"), "%s", text);
    const cJSON *infos = field(r, "moveInfos"), *root = field(r, "rootInfo");
    ck_assert_msg(cJSON_IsArray(infos) && cJSON_GetArraySize(infos) > 0, "%s", text);
    ck_assert_msg(cJSON_IsObject(root), "%s", text);
    long long sum = 0;
    int order = 0;
    const cJSON *m;
    cJSON_ArrayForEach(m, infos)
    {
        const cJSON *mv = field(m, "move"), *pv = field(m, "pv");
        ck_assert(cJSON_IsString(mv));
        ck_assert_msg(!strcmp(mv->valuestring, "pass") || index_of(mv->valuestring, w, h) >= 0,
                      "%s is not on the %dx%d board", mv->valuestring, w, h);
        ck_assert_msg(is_int_field(m, "visits") && test_json_num(m, "visits") >= 1, "%s", text);
        sum += (long long)test_json_num(m, "visits");
        double wr = test_json_num(m, "winrate"), p = test_json_num(m, "prior");
        ck_assert_msg(wr >= 0 && wr <= 1 && p >= 0 && p <= 1, "winrate %g prior %g", wr, p);
        static const char *const floats[] = {"scoreLead", "scoreMean", "scoreStdev", "lcb",
                                             "utility"};
        for (int k = 0; k < 5; k++)
            ck_assert(isfinite(test_json_num(m, floats[k])));
        ck_assert(test_json_num(m, "scoreStdev") >= 0);
        ck_assert_int_eq((int)test_json_num(m, "order"), order++);
        ck_assert_msg(cJSON_IsArray(pv) && cJSON_GetArraySize(pv) >= 1 &&
                          !strcmp(cJSON_GetArrayItem(pv, 0)->valuestring, mv->valuestring),
                      "pv of %s", mv->valuestring);
        for (int k = 0; k < n_occupied; k++)
            ck_assert_msg(strcmp(mv->valuestring, occupied[k]), "occupied %s", occupied[k]);
        const cJSON *own = field(m, "ownership");
        if (moves_ownership)
            ck_assert_int_eq(cJSON_GetArraySize(own), w * h);
        else
            ck_assert_ptr_null(own);
    }
    ck_assert_msg(is_int_field(root, "visits") && test_json_num(root, "visits") >= sum, "%s", text);
    double rw = test_json_num(root, "winrate");
    ck_assert(rw >= 0 && rw <= 1);
    ck_assert(isfinite(test_json_num(root, "scoreLead")) &&
              isfinite(test_json_num(root, "utility")));
    const cJSON *cp = field(root, "currentPlayer");
    ck_assert(cJSON_IsString(cp) && (!strcmp(cp->valuestring, "B") ||
                                     !strcmp(cp->valuestring, "W")));
    const cJSON *own = field(r, "ownership");
    if (ownership) {
        ck_assert_int_eq(cJSON_GetArraySize(own), w * h);
        const cJSON *v;
        cJSON_ArrayForEach(v, own)
        {
            ck_assert(cJSON_IsNumber(v) && fabs(v->valuedouble) <= 1.0001);
        }
    } else {
        ck_assert_ptr_null(own);
    }
    const cJSON *pol = field(r, "policy");
    if (policy) {
        ck_assert_int_eq(cJSON_GetArraySize(pol), w * h + 1);
        double total = 0;
        const cJSON *v;
        cJSON_ArrayForEach(v, pol)
        {
            ck_assert(cJSON_IsNumber(v));
            ck_assert(v->valuedouble == -1 || (v->valuedouble >= 0 && v->valuedouble <= 1));
            if (v->valuedouble >= 0)
                total += v->valuedouble;
        }
        ck_assert_msg(fabs(total - 1) < 1e-3, "policy sums to %g", total);
        for (int k = 0; k < n_occupied; k++)
            ck_assert(cJSON_GetArrayItem(pol, index_of(occupied[k], w, h))->valuedouble == -1);
    } else {
        ck_assert_ptr_null(pol);
    }
    free(text);
    return sum;
}

static long long check_result(const cJSON *r, int size, bool ownership, bool policy,
                              bool moves_ownership, const char *const *occupied, int n_occupied)
{
    return check_board(r, size, size, ownership, policy, moves_ownership, occupied, n_occupied);
}

static void start(engine *e)
{
    const char *args[] = {"analysis", "-w", TEST_G170, "--visits", "16", "--threads", "1", NULL};
    engine_start(e, args);
}

static void finish(engine *e)
{
    fclose(e->in);
    cJSON *r;
    while ((r = next_response(e)))
        cJSON_Delete(r);
    fclose(e->out);
    engine_wait(e, 0);
    unlink(e->err_path);
}

START_TEST(test_katrain_session)
{
    engine e;
    start(&e);
    /* A game of four moves, three turns asked for. */
    send_line(&e, "{\"id\":\"A\",\"moves\":[[\"B\",\"E5\"],[\"W\",\"C3\"],[\"B\",\"G7\"],"
                  "[\"W\",\"C7\"]],\"rules\":\"japanese\",\"komi\":6.5,\"boardXSize\":9,"
                  "\"boardYSize\":9,\"analyzeTurns\":[0,2,4],\"maxVisits\":16,"
                  "\"includeOwnership\":true,\"includePolicy\":true,\"priority\":3}");
    static const char *const stones[] = {"E5", "C3", "G7", "C7"};
    for (int t = 0; t < 3; t++) {
        cJSON *r = must_next(&e);
        expect_id(r, "A");
        ck_assert_int_eq((int)test_json_num(r, "turnNumber"), 2 * t);
        ck_assert(cJSON_IsFalse(field(r, "isDuringSearch")));
        long long sum = check_result(r, 9, true, true, false, stones, 2 * t);
        ck_assert_int_le(sum, 16);
        ck_assert_int_ge((long long)test_json_num(field(r, "rootInfo"), "visits"), 16);
        ck_assert_str_eq(field(field(r, "rootInfo"), "currentPlayer")->valuestring, "B");
        cJSON_Delete(r);
    }
    /* A bad query, a malformed line and an illegal move: errors, then a good query answers. */
    send_line(&e, "{\"id\":\"bad\",\"moves\":[],\"rules\":\"chinese\",\"boardXSize\":9,"
                  "\"boardYSize\":20}");
    expect_error(&e, "bad", "boardYSize");
    send_line(&e, "{\"id\": \"broken\", \"moves\": [");
    expect_error(&e, NULL, NULL);
    send_line(&e, "{\"id\":\"illegal\",\"moves\":[[\"B\",\"E5\"],[\"W\",\"E5\"]],"
                  "\"rules\":\"chinese\",\"boardXSize\":9,\"boardYSize\":9,\"analyzeTurns\":[0]}");
    cJSON *ill = must_next(&e);
    /* KataGo's wording, which KaTrain recognises; the move is checked even when only an earlier
     * turn is asked for */
    ck_assert_msg(cJSON_IsString(field(ill, "error")) &&
                      !strncmp(field(ill, "error")->valuestring, "Illegal move 1", 14),
                  "error: %s", cJSON_IsString(field(ill, "error")) ? field(ill, "error")->valuestring : "");
    ck_assert_str_eq(field(ill, "field")->valuestring, "moves");
    cJSON_Delete(ill);
    send_line(&e, "{\"id\":\"norules\",\"moves\":[],\"boardXSize\":9,\"boardYSize\":9}");
    expect_error(&e, "norules", "rules");
    send_line(&e, "{\"id\":\"turns\",\"moves\":[],\"rules\":\"chinese\",\"boardXSize\":9,"
                  "\"boardYSize\":9,\"analyzeTurns\":[3]}");
    expect_error(&e, "turns", "analyzeTurns");
    send_line(&e, "{\"id\":\"prof\",\"moves\":[],\"rules\":\"chinese\",\"boardXSize\":9,"
                  "\"boardYSize\":9,\"overrideSettings\":{\"humanSLProfile\":\"rank_99k\"}}");
    expect_error(&e, "prof", "overrideSettings");
    /* White to move, avoid moves, overrides, moves' ownership, a warning for a stray field. */
    send_line(&e, "{\"id\":\"C\",\"moves\":[[\"B\",\"E5\"]],\"rules\":{\"ko\":\"SIMPLE\","
                  "\"scoring\":\"AREA\",\"tax\":\"NONE\",\"suicide\":false},\"komi\":7,"
                  "\"boardXSize\":9,\"boardYSize\":9,\"includeMovesOwnership\":true,"
                  "\"avoidMoves\":[{\"player\":\"W\",\"moves\":[\"C3\",\"G3\",\"C7\",\"G7\","
                  "\"E3\",\"E7\",\"C5\",\"G5\"],\"untilDepth\":1}],"
                  "\"overrideSettings\":{\"maxVisits\":8,\"reportAnalysisWinratesAs\":\"WHITE\","
                  "\"wideRootNoise\":0.0,\"c_puct\":1.0},\"frobnicate\":1}");
    cJSON *r = must_next(&e);
    expect_id(r, "C");
    ck_assert_msg(cJSON_IsString(field(r, "warning")), "want a warning first");
    ck_assert_str_eq(field(r, "field")->valuestring, "frobnicate");
    cJSON_Delete(r);
    r = must_next(&e);
    expect_id(r, "C");
    ck_assert_int_eq((int)test_json_num(r, "turnNumber"), 1);
    static const char *const c_stones[] = {"E5", "C3", "G3", "C7", "G7", "E3", "E7", "C5", "G5"};
    check_result(r, 9, false, false, true, c_stones, 9);
    ck_assert_int_le((long long)test_json_num(field(r, "rootInfo"), "visits"), 8 + 1);
    ck_assert_str_eq(field(field(r, "rootInfo"), "currentPlayer")->valuestring, "W");
    cJSON_Delete(r);
    /* query_version */
    send_line(&e, "{\"id\":\"v\",\"action\":\"query_version\"}");
    r = must_next(&e);
    expect_id(r, "v");
    ck_assert_str_eq(field(r, "action")->valuestring, "query_version");
    ck_assert(cJSON_IsString(field(r, "version")));
    cJSON_Delete(r);
    /* An initial position with white to move. */
    send_line(&e, "{\"id\":\"D\",\"initialStones\":[[\"B\",\"D4\"],[\"W\",\"F6\"]],"
                  "\"initialPlayer\":\"W\",\"moves\":[],\"rules\":\"tromp-taylor\","
                  "\"boardXSize\":9,\"boardYSize\":9,\"maxVisits\":8,"
                  "\"overrideSettings\":{\"reportAnalysisWinratesAs\":\"SIDETOMOVE\"},"
                  "\"includePolicy\":true}");
    r = must_next(&e);
    expect_id(r, "D");
    ck_assert_int_eq((int)test_json_num(r, "turnNumber"), 0);
    static const char *const d_stones[] = {"D4", "F6"};
    check_result(r, 9, false, true, false, d_stones, 2);
    ck_assert_str_eq(field(field(r, "rootInfo"), "currentPlayer")->valuestring, "W");
    cJSON_Delete(r);
    finish(&e);
}
END_TEST

/* The final (isDuringSearch false) response of id, skipping others; NULL at the end of output. */
static cJSON *final_of(engine *e, const char *id)
{
    cJSON *r;
    while ((r = next_response(e))) {
        const cJSON *v = field(r, "id");
        if (cJSON_IsString(v) && !strcmp(v->valuestring, id) && !field(r, "error") &&
            !field(r, "warning") && cJSON_IsFalse(field(r, "isDuringSearch")))
            return r;
        cJSON_Delete(r);
    }
    return NULL;
}

/* Each query is answered by a search of its own settings: a 5-visit query for the position a
 * 120-visit query just searched reports 5 visits, not the old tree's 120 (KataGo clears the
 * search per query). */
START_TEST(test_fresh_search_per_query)
{
    engine e;
    start(&e);
    static const char pos[] = "\"moves\":[[\"B\",\"E5\"],[\"W\",\"C3\"]],\"rules\":\"chinese\","
                              "\"komi\":7,\"boardXSize\":9,\"boardYSize\":9";
    char line[512];
    snprintf(line, sizeof line, "{\"id\":\"big\",%s,\"maxVisits\":120,"
             "\"overrideSettings\":{\"cpuctExploration\":0.1}}", pos);
    send_line(&e, line);
    cJSON *r = final_of(&e, "big");
    ck_assert_ptr_nonnull(r);
    ck_assert_int_ge((long long)test_json_num(field(r, "rootInfo"), "visits"), 120);
    cJSON_Delete(r);
    snprintf(line, sizeof line, "{\"id\":\"small\",%s,\"maxVisits\":5,"
             "\"overrideSettings\":{\"cpuctExploration\":10}}", pos);
    send_line(&e, line);
    r = final_of(&e, "small");
    ck_assert_ptr_nonnull(r);
    long long v = (long long)test_json_num(field(r, "rootInfo"), "visits");
    ck_assert_msg(v >= 5 && v <= 6, "root visits %lld for maxVisits 5", v);
    cJSON_Delete(r);
    finish(&e);
}
END_TEST

/* A KaTrain-style session, as KaTrain 1.x writes it: query_version first; a background review of
 * a game's turns at low priority and the move on the board at high priority sent together (one
 * write), per-turn "priorities", the current move answered first; terminate with turnNumbers
 * stopping only those turns (its echo carries them); an illegal move answered with KataGo's
 * "Illegal move" wording; every turn answered exactly once with isDuringSearch false. */
START_TEST(test_katrain_script)
{
    engine e;
    start(&e);
    send_line(&e, "{\"id\":\"version\",\"action\":\"query_version\"}");
    cJSON *r = must_next(&e);
    expect_id(r, "version");
    ck_assert(cJSON_IsString(field(r, "version")) && cJSON_IsString(field(r, "git_hash")));
    cJSON_Delete(r);
    static const char game[] = "\"rules\":\"japanese\",\"komi\":6.5,\"boardXSize\":9,"
                               "\"boardYSize\":9,\"initialStones\":[],\"initialPlayer\":\"B\","
                               "\"moves\":[[\"B\",\"E5\"],[\"W\",\"C3\"],[\"B\",\"G7\"]],"
                               "\"includeOwnership\":true,\"includeMovesOwnership\":false,"
                               "\"includePolicy\":true,\"overrideSettings\":{"
                               "\"reportAnalysisWinratesAs\":\"BLACK\",\"wideRootNoise\":0.04}";
    char batch[2048];
    snprintf(batch, sizeof batch,
             "{\"id\":\"QUERY:review\",%s,\"analyzeTurns\":[0,1],\"maxVisits\":4,"
             "\"priority\":-100}\n"
             "{\"id\":\"QUERY:mixed\",%s,\"analyzeTurns\":[0,2],\"priorities\":[-200,50],"
             "\"maxVisits\":4}\n"
             "{\"id\":\"QUERY:current\",%s,\"analyzeTurns\":[3],\"maxVisits\":4,"
             "\"priority\":1000}",
             game, game, game);
    send_line(&e, batch);   /* one write: the engine sees every query before choosing */
    /* by priority, the earliest read among equals */
    static const char *const want_id[] = {"QUERY:current", "QUERY:mixed", "QUERY:review",
                                          "QUERY:review", "QUERY:mixed"};
    static const int want_turn[] = {3, 2, 0, 1, 0};
    for (int k = 0; k < 5; k++) {
        r = must_next(&e);
        char *text = cJSON_PrintUnformatted(r);
        ck_assert_msg(!field(r, "warning") && !field(r, "error"), "%s", text);
        expect_id(r, want_id[k]);
        ck_assert_msg((int)test_json_num(r, "turnNumber") == want_turn[k], "%d: %s", k, text);
        ck_assert(cJSON_IsFalse(field(r, "isDuringSearch")));
        free(text);
        cJSON_Delete(r);
    }
    /* terminate with turnNumbers: only turn 1 of a long query stops */
    snprintf(batch, sizeof batch,
             "{\"id\":\"QUERY:long\",%s,\"analyzeTurns\":[0,1,2],\"maxVisits\":1000000,"
             "\"reportDuringSearchEvery\":0.05}", game);
    send_line(&e, batch);
    r = must_next(&e);
    expect_id(r, "QUERY:long");
    ck_assert(cJSON_IsTrue(field(r, "isDuringSearch")));
    ck_assert_int_eq((int)test_json_num(r, "turnNumber"), 0);
    cJSON_Delete(r);
    send_line(&e, "{\"id\":\"t1\",\"action\":\"terminate\",\"terminateId\":\"QUERY:long\","
                  "\"turnNumbers\":[1]}");
    bool acked = false;
    int during_after = 0;
    while (!acked || during_after == 0) {
        r = must_next(&e);
        if (field(r, "action")) {
            expect_id(r, "t1");
            const cJSON *tn = field(r, "turnNumbers");
            ck_assert(cJSON_IsArray(tn) && cJSON_GetArraySize(tn) == 1 &&
                      cJSON_GetArrayItem(tn, 0)->valuedouble == 1);
            acked = true;
        } else {
            expect_id(r, "QUERY:long");
            /* turn 0 is not among those terminated: it goes on searching */
            ck_assert_msg(cJSON_IsTrue(field(r, "isDuringSearch")), "turn 0 was stopped");
            ck_assert_int_eq((int)test_json_num(r, "turnNumber"), 0);
            during_after += acked;
        }
        cJSON_Delete(r);
    }
    send_line(&e, "{\"id\":\"t2\",\"action\":\"terminate\",\"terminateId\":\"QUERY:long\","
                  "\"turnNumbers\":[0,2]}");
    int finals[3] = {0, 0, 0}, none[3] = {0, 0, 0};
    acked = false;
    while (!acked || finals[0] + none[1] + none[2] < 3) {
        r = must_next(&e);
        if (field(r, "action")) {
            expect_id(r, "t2");
            acked = true;
        } else if (cJSON_IsFalse(field(r, "isDuringSearch"))) {
            expect_id(r, "QUERY:long");
            int t = (int)test_json_num(r, "turnNumber");
            ck_assert(t >= 0 && t < 3);
            if (cJSON_IsTrue(field(r, "noResults")))
                none[t]++;
            else
                finals[t]++;
        }
        cJSON_Delete(r);
    }
    ck_assert_int_eq(finals[0], 1);
    ck_assert_int_eq(none[1] + none[2] + finals[1] + finals[2], 2);
    ck_assert_int_eq(finals[1] + finals[2], 0);
    /* KaTrain silences errors that say "Illegal move" */
    send_line(&e, "{\"id\":\"QUERY:bad\",\"rules\":\"japanese\",\"boardXSize\":9,"
                  "\"boardYSize\":9,\"moves\":[[\"B\",\"E5\"],[\"W\",\"E5\"]]}");
    r = must_next(&e);
    expect_id(r, "QUERY:bad");
    ck_assert(strstr(field(r, "error")->valuestring, "Illegal move") != NULL);
    cJSON_Delete(r);
    finish(&e);
}
END_TEST

/* KataGo's query fields beyond the basics and its response fields: analysisPVLen,
 * includeNoResultValue, rootPolicyTemperature, rootFpuReductionMax, whiteHandicapBonus and
 * "(x,y)" vertices accepted without warnings; weight, edgeWeight, playSelectionValue (the chosen
 * move's the largest), pvEdgeVisits; rootInfo lcb, raw values and hashes, symHash equal for
 * mirror-image positions and thisHash not; query_models. */
START_TEST(test_katago_fields)
{
    engine e;
    start(&e);
    send_line(&e, "{\"id\":\"F\",\"moves\":[[\"B\",\"(2,6)\"]],\"rules\":\"chinese\","
                  "\"komi\":7,\"boardXSize\":9,\"boardYSize\":9,\"maxVisits\":24,"
                  "\"analysisPVLen\":2,\"includeNoResultValue\":true,\"includePVVisits\":true,"
                  "\"rootPolicyTemperature\":1.5,\"rootFpuReductionMax\":0,"
                  "\"whiteHandicapBonus\":\"N\",\"includePolicy\":true,"
                  "\"overrideSettings\":{\"playoutDoublingAdvantage\":0.5}}");
    cJSON *r = must_next(&e);
    char *text = cJSON_PrintUnformatted(r);
    ck_assert_msg(!field(r, "warning") && !field(r, "error"), "%s", text);
    static const char *const stones[] = {"C3"};   /* (2,6) from the top left of 9x9 */
    check_result(r, 9, false, true, false, stones, 1);
    double most = 0, first_psv = -1;
    const cJSON *m;
    cJSON_ArrayForEach(m, field(r, "moveInfos"))
    {
        double v = test_json_num(m, "visits");
        ck_assert(test_json_num(m, "weight") == v && test_json_num(m, "edgeWeight") == v);
        ck_assert_int_le(cJSON_GetArraySize(field(m, "pv")), 2);
        ck_assert_int_eq(cJSON_GetArraySize(field(m, "pvEdgeVisits")),
                         cJSON_GetArraySize(field(m, "pv")));
        if (first_psv < 0)
            first_psv = test_json_num(m, "playSelectionValue");
        most = fmax(most, test_json_num(m, "playSelectionValue"));
    }
    ck_assert(first_psv == most);
    const cJSON *root = field(r, "rootInfo");
    double lcb = test_json_num(root, "lcb"), raw = test_json_num(root, "rawWinrate");
    ck_assert(isfinite(lcb) && raw >= 0 && raw <= 1);
    ck_assert(isfinite(test_json_num(root, "rawLead")));
    double nr = test_json_num(root, "noResultValue");
    ck_assert(nr >= 0 && nr <= 1);
    const cJSON *h1 = field(root, "thisHash"), *s1 = field(root, "symHash");
    ck_assert(cJSON_IsString(h1) && cJSON_IsString(s1));
    char this1[40], sym1[40];
    snprintf(this1, sizeof this1, "%s", h1->valuestring);
    snprintf(sym1, sizeof sym1, "%s", s1->valuestring);
    free(text);
    cJSON_Delete(r);
    /* the mirror image: G7 instead of C3 */
    send_line(&e, "{\"id\":\"G\",\"moves\":[[\"B\",\"G7\"]],\"rules\":\"chinese\","
                  "\"komi\":7,\"boardXSize\":9,\"boardYSize\":9,\"maxVisits\":2}");
    r = must_next(&e);
    root = field(r, "rootInfo");
    ck_assert_str_eq(field(root, "symHash")->valuestring, sym1);
    ck_assert_str_ne(field(root, "thisHash")->valuestring, this1);
    cJSON_Delete(r);
    send_line(&e, "{\"id\":\"bad\",\"moves\":[[\"B\",\"(9,0)\"]],\"rules\":\"chinese\","
                  "\"boardXSize\":9,\"boardYSize\":9}");
    expect_error(&e, "bad", "moves");
    send_line(&e, "{\"id\":\"m\",\"action\":\"query_models\"}");
    r = must_next(&e);
    expect_id(r, "m");
    ck_assert_str_eq(field(r, "action")->valuestring, "query_models");
    const cJSON *models = field(r, "models");
    ck_assert_int_eq(cJSON_GetArraySize(models), 1);
    const cJSON *m0 = cJSON_GetArrayItem(models, 0);
    ck_assert_str_eq(field(m0, "name")->valuestring, "g170-b6c96-s175395328-d26788732.bin.gz");
    ck_assert(cJSON_IsFalse(field(m0, "usesHumanSLProfile")));
    ck_assert_int_eq((int)test_json_num(m0, "version"), 8);
    ck_assert(cJSON_IsString(field(m0, "internalName")));
    cJSON_Delete(r);
    finish(&e);
}
END_TEST

/* `shido gtp` (2 visits) and `shido analysis` on G170, one thread each, seed 1: g first, as an
 * engine started later inherits the pipes of the earlier ones (e must see its end of input). */
static void start_pair(engine *g, engine *e)
{
    const char *gtp_args[] = {"gtp", "-w", TEST_G170, "--visits", "2", "--threads", "1",
                              "--set", "seed=1", NULL};
    const char *json_args[] = {"analysis", "-w", TEST_G170, "--threads", "1", "--set", "seed=1",
                               NULL};
    engine_start(g, gtp_args);
    engine_start(e, json_args);
}

static void stop_pair(engine *g, engine *e)
{
    finish(e);
    fclose(g->in);
    char *l;
    while ((l = engine_read_line(g)))
        free(l);
    fclose(g->out);
    engine_wait(g, 0);
    unlink(g->err_path);
}

/* The root's winrate and score lead that kata-analyze of the running `shido gtp` g reports
 * (the side to move's view) after the commands setup, capped at 2 visits, with a fixed seed. */
static void gtp_root(engine *g, const char *setup, double *winrate, double *lead)
{
    fprintf(g->in, "clear_cache\n%skata-analyze 1 rootInfo true\n", setup);
    fflush(g->in);
    char *l;
    bool found = false;
    while (!found && (l = engine_read_line(g))) {
        const char *root = strstr(l, "rootInfo visits 2 ");
        if (root) {
            const char *w = strstr(root, " winrate "), *s = strstr(root, " scoreLead ");
            ck_assert(w && s);
            *winrate = atof(w + 9);
            *lead = atof(s + 11);
            found = true;
        }
        free(l);
    }
    ck_assert_msg(found, "no rootInfo with 2 visits");
    send_line(g, "name");   /* ends the stream, held open at the cap */
    while ((l = engine_read_line(g)) && strcmp(l, "= shido"))
        free(l);
    free(l);
}

/* The same root from the running `shido analysis` e for query (id, position and perspective;
 * 2 visits added). */
static void json_root(engine *e, const char *query, double *winrate, double *lead)
{
    char line[1024];
    snprintf(line, sizeof line, "{\"id\":\"c\",\"action\":\"clear_cache\"}\n"
             "{%s,%s\"maxVisits\":2}", query,
             strstr(query, "boardXSize") ? "" : "\"boardXSize\":9,\"boardYSize\":9,");
    send_line(e, line);
    cJSON *r = must_next(e);
    ck_assert_str_eq(field(r, "action")->valuestring, "clear_cache");
    cJSON_Delete(r);
    r = must_next(e);
    const cJSON *root = field(r, "rootInfo");
    ck_assert_msg(root && test_json_num(root, "visits") == 2, "%s", line);
    *winrate = test_json_num(root, "winrate");
    *lead = test_json_num(root, "scoreLead");
    cJSON_Delete(r);
}

/* JSON analysis' values against kata-analyze on the same position (2 visits, one seed, caches
 * cleared): equal in the side to move's view; reportAnalysisWinratesAs BLACK and WHITE flip them
 * for the side not to move; komi and rules reach the search the same way in both (a komi higher
 * by 7 points moves the lead towards white). */
START_TEST(test_values_match_kata_analyze)
{
    engine g, e;
    start_pair(&g, &e);
    double gw, gl, jw, jl;
    /* white to move */
    gtp_root(&g, "boardsize 9\nkomi 7\nplay b E5\n", &gw, &gl);
    static const char pos[] = "\"moves\":[[\"B\",\"E5\"]],\"rules\":\"tromp-taylor\",\"komi\":7";
    static const char *const persp[3] = {"WHITE", "SIDETOMOVE", "BLACK"};
    for (int k = 0; k < 3; k++) {
        char q[512];
        snprintf(q, sizeof q, "\"id\":\"%s\",%s,\"overrideSettings\":"
                 "{\"reportAnalysisWinratesAs\":\"%s\"}", persp[k], pos, persp[k]);
        json_root(&e, q, &jw, &jl);
        bool flip = k == 2;
        ck_assert_msg(fabs(jw - (flip ? 1 - gw : gw)) < 1e-5 && fabs(jl - (flip ? -gl : gl)) < 1e-5,
                      "%s: JSON %g %g, kata-analyze %g %g", persp[k], jw, jl, gw, gl);
    }
    /* black to move, japanese rules, komi 0: BLACK is the mover's view */
    double gw0, gl0;
    gtp_root(&g, "clear_board\nkata-set-rules japanese\nkomi 0\n", &gw0, &gl0);
    json_root(&e, "\"id\":\"J\",\"moves\":[],\"rules\":\"japanese\",\"komi\":0", &jw, &jl);
    ck_assert_msg(fabs(jw - gw0) < 1e-5 && fabs(jl - gl0) < 1e-5, "japanese komi 0: %g %g, %g %g",
                  jw, jl, gw0, gl0);
    json_root(&e, "\"id\":\"K\",\"moves\":[],\"rules\":\"japanese\",\"komi\":7", &jw, &jl);
    ck_assert_msg(jl < gl0 - 3, "komi 7 should cost black about 7 points: lead %g, at komi 0 %g",
                  jl, gl0);
    stop_pair(&g, &e);
}
END_TEST

/* A 9 wide, 13 high board (KataGo's boardXSize x boardYSize): vertices, ownership and policy of
 * 117 points; the same values as kata-analyze after rectangular_boardsize 9 13; the teaching
 * options that measure square boards refused. */
START_TEST(test_rectangle)
{
    engine g, e;
    start_pair(&g, &e);
    send_line(&e, "{\"id\":\"R\",\"moves\":[[\"B\",\"J13\"],[\"W\",\"(0,12)\"]],"
                  "\"rules\":\"chinese\",\"komi\":7,\"boardXSize\":9,\"boardYSize\":13,"
                  "\"maxVisits\":24,\"includeOwnership\":true,\"includePolicy\":true,"
                  "\"includeMovesOwnership\":true}");
    cJSON *r = must_next(&e);
    expect_id(r, "R");
    static const char *const stones[] = {"J13", "A1"};
    check_board(r, 9, 13, true, true, true, stones, 2);
    cJSON_Delete(r);
    static const char *const refused[][2] = {
        {"\"overrideSettings\":{\"playPolicy\":\"ABC25\"}", "overrideSettings"},
        {"\"includeMoveFeatures\":true", "includeMoveFeatures"}};
    for (int k = 0; k < 2; k++) {
        char line[512];
        snprintf(line, sizeof line, "{\"id\":\"T\",\"moves\":[],\"rules\":\"chinese\","
                 "\"boardXSize\":13,\"boardYSize\":9,%s}", refused[k][0]);
        send_line(&e, line);
        expect_error(&e, "T", refused[k][1]);
    }
    /* the side at fault is named */
    static const char *const sides[][2] = {{"\"boardXSize\":9.5,\"boardYSize\":13", "boardXSize"},
                                           {"\"boardXSize\":9,\"boardYSize\":20", "boardYSize"},
                                           {"\"boardXSize\":1,\"boardYSize\":9", "boardXSize"}};
    for (int k = 0; k < 3; k++) {
        char line[256];
        snprintf(line, sizeof line, "{\"id\":\"Z\",\"moves\":[],\"rules\":\"chinese\",%s}",
                 sides[k][0]);
        send_line(&e, line);
        expect_error(&e, "Z", sides[k][1]);
    }
    double gw, gl, jw, jl;
    gtp_root(&g, "rectangular_boardsize 9 13\nkomi 7\nplay b J13\nplay w A1\n", &gw, &gl);
    json_root(&e, "\"id\":\"S\",\"moves\":[[\"B\",\"J13\"],[\"W\",\"A1\"]],"
              "\"rules\":\"tromp-taylor\",\"komi\":7,\"boardXSize\":9,\"boardYSize\":13", &jw, &jl);
    ck_assert_msg(fabs(jw - gw) < 1e-5 && fabs(jl - gl) < 1e-5, "JSON %g %g, kata-analyze %g %g",
                  jw, jl, gw, gl);
    stop_pair(&g, &e);
}
END_TEST

/* What the load test's reader thread tallied. */
typedef struct load_tally {
    engine *e;
    int n;
    unsigned char *finals;   /* per query and turn: final answers */
    int echoes;
    char bad[512];           /* the first response that should not be there */
} load_tally;

static void *load_reader(void *arg)
{
    load_tally *lt = arg;
    char *line;
    while ((line = engine_read_line(lt->e))) {
        cJSON *r = cJSON_Parse(line);
        const cJSON *id = field(r, "id");
        bool ok = cJSON_IsObject(r) && !field(r, "error") && !field(r, "warning") &&
                  cJSON_IsString(id);
        if (ok && field(r, "action")) {
            lt->echoes++;
        } else if (ok && cJSON_IsFalse(field(r, "isDuringSearch"))) {
            const cJSON *turn = field(r, "turnNumber");
            int q = atoi(id->valuestring + 1), t = cJSON_IsNumber(turn) ? turn->valueint : -1;
            ok = q >= 0 && q < lt->n && (t == 0 || t == 1) && lt->finals[2 * q + t]++ == 0;
        }
        if (!ok && !lt->bad[0])
            snprintf(lt->bad, sizeof lt->bad, "%s", line);
        cJSON_Delete(r);
        free(line);
    }
    return NULL;
}

/* Load: a stream of queries (SHIDO_LOAD_QUERIES, 150 by default, 30 under the sanitizers; the issue's 10,000 on request)
 * of two turns each at mixed priorities, written as fast as the pipe takes them, with
 * terminates of earlier queries (of one turn, or all), and terminate_all interleaved: every turn
 * of every query is answered exactly once with isDuringSearch false (results or noResults),
 * every action is echoed, nothing else comes back. Under LSan (the sanitizer build) the process
 * must also exit without a leak. */
static void load_run(int n, const char *parallel)
{
    engine e;
    const char *args[] = {"analysis", "-w", TEST_G170, "--visits", "16", "--threads", "1",
                          "--parallel", parallel, NULL};
    engine_start(&e, args);
    load_tally lt = {&e, n, calloc((size_t)n * 2, 1), 0, ""};
    ck_assert_ptr_nonnull(lt.finals);
    pthread_t reader;
    ck_assert_int_eq(pthread_create(&reader, NULL, load_reader, &lt), 0);
    int actions = 0;
    uint64_t rng = 7;
    for (int i = 0; i < n; i++) {
        char line[512];
        snprintf(line, sizeof line,
                 "{\"id\":\"L%d\",\"moves\":[[\"B\",\"E5\"]],\"rules\":\"chinese\","
                 "\"boardXSize\":9,\"boardYSize\":9,\"analyzeTurns\":[0,1],\"maxVisits\":2,"
                 "\"priority\":%d}", i, (int)(go_rand_next(&rng) % 3));
        send_line(&e, line);
        uint64_t r = go_rand_next(&rng) % 10;
        if (r < 3 && i > 0) {
            snprintf(line, sizeof line,
                     "{\"id\":\"T%d\",\"action\":\"terminate\",\"terminateId\":\"L%d\"%s}", i,
                     (int)(go_rand_next(&rng) % (uint64_t)i),
                     r == 0 ? ",\"turnNumbers\":[1]" : "");
            send_line(&e, line);
            actions++;
        } else if (r == 3 && i % 50 == 0) {
            snprintf(line, sizeof line, "{\"id\":\"A%d\",\"action\":\"terminate_all\"}", i);
            send_line(&e, line);
            actions++;
        }
    }
    fclose(e.in);
    pthread_join(reader, NULL);
    fclose(e.out);
    engine_wait(&e, 0);
    unlink(e.err_path);
    ck_assert_msg(!lt.bad[0], "unexpected response: %s", lt.bad);
    for (int q = 0; q < n; q++)
        for (int t = 0; t < 2; t++)
            ck_assert_msg(lt.finals[2 * q + t] == 1, "L%d turn %d answered %d times", q, t,
                          lt.finals[2 * q + t]);
    ck_assert_int_eq(lt.echoes, actions);
    free(lt.finals);
}

START_TEST(test_load_with_terminates)
{
    const char *env = getenv("SHIDO_LOAD_QUERIES");
    /* fewer where the build is slow (the sanitizers): the same mixture, a shorter stream */
    load_run(env && atoi(env) > 0 ? atoi(env) : (int)(150 / test_time_scale()), "1");
}
END_TEST

/* The same load with --parallel 4 (four searches at once on one evaluation service, terminates
 * reaching turns running on any of them, as KataGo's numAnalysisThreads): 1,000 queries (100
 * under the sanitizers), every turn answered exactly once. */
START_TEST(test_load_parallel)
{
    const char *env = getenv("SHIDO_LOAD_QUERIES");
    load_run(env && atoi(env) > 0 ? atoi(env) : (int)(1000 / test_time_scale()), "4");
}
END_TEST

/* Priorities with --parallel 2: two long queries of the highest priority hold both searches
 * while four low and two high queries wait; once both are terminated, the two searches take the
 * high ones first, so the first answer after theirs is a high query's (a low one can only start
 * when a high one is done), and every query is answered once. */
START_TEST(test_parallel_priority)
{
    engine e;
    const char *args[] = {"analysis", "-w", TEST_G170, "--threads", "1", "--parallel", "2",
                          NULL};
    engine_start(&e, args);
    const char *q = "\"moves\":[[\"B\",\"E5\"]],\"rules\":\"chinese\",\"boardXSize\":9,"
                    "\"boardYSize\":9,\"analyzeTurns\":[1]";
    char line[512];
    for (int i = 0; i < 2; i++) {
        snprintf(line, sizeof line, "{\"id\":\"B%d\",%s,\"maxVisits\":1000000,\"priority\":100}",
                 i, q);
        send_line(&e, line);
    }
    static const char *const ids[] = {"L0", "L1", "H0", "L2", "H1", "L3"};
    for (int i = 0; i < 6; i++) {
        snprintf(line, sizeof line, "{\"id\":\"%s\",%s,\"maxVisits\":6,\"priority\":%d}", ids[i],
                 q, ids[i][0] == 'H' ? 10 : 0);
        send_line(&e, line);
    }
    send_line(&e, "{\"id\":\"t\",\"action\":\"terminate\",\"terminateId\":\"B0\"}");
    send_line(&e, "{\"id\":\"u\",\"action\":\"terminate\",\"terminateId\":\"B1\"}");
    fclose(e.in);
    char order[16] = "";
    int answers = 0, echoes = 0;
    cJSON *r;
    while ((r = next_response(&e))) {
        const cJSON *id = field(r, "id");
        ck_assert(cJSON_IsString(id) && !field(r, "error"));
        if (field(r, "action"))
            echoes++;
        else if (id->valuestring[0] != 'B')
            order[answers++] = id->valuestring[0];
        cJSON_Delete(r);
    }
    fclose(e.out);
    engine_wait(&e, 0);
    unlink(e.err_path);
    ck_assert_int_eq(echoes, 2);
    ck_assert_int_eq(answers, 6);
    ck_assert_msg(order[0] == 'H', "answers in the order %s", order);
}
END_TEST

/* A size x size array of standard deviations in [0, 1]; returns the largest. */
static double check_stdev_grid(const cJSON *a, int size)
{
    ck_assert_msg(cJSON_IsArray(a) && cJSON_GetArraySize(a) == size * size, "ownershipStdev");
    double most = 0;
    const cJSON *v;
    cJSON_ArrayForEach(v, a)
    {
        ck_assert(cJSON_IsNumber(v) && v->valuedouble >= 0 && v->valuedouble <= 1.0001);
        most = fmax(most, v->valuedouble);
    }
    return most;
}

/* includeOwnershipStdev and includeMovesOwnershipStdev (KataGo's fields, no warning): the
 * root's "ownershipStdev" and each move's, per point in [0, 1], somewhere above 0 at the root
 * (the search's evaluations disagree somewhere); absent when not asked for. */
START_TEST(test_ownership_stdev)
{
    engine e;
    start(&e);
    send_line(&e, "{\"id\":\"S\",\"moves\":[[\"B\",\"E5\"]],\"rules\":\"chinese\",\"komi\":7,"
                  "\"boardXSize\":9,\"boardYSize\":9,\"maxVisits\":24,\"includeOwnership\":true,"
                  "\"includeOwnershipStdev\":true,\"includeMovesOwnership\":true,"
                  "\"includeMovesOwnershipStdev\":true}");
    cJSON *r = must_next(&e);
    expect_id(r, "S");
    ck_assert_msg(!field(r, "warning"), "a warning for a KataGo field");
    static const char *const stones[] = {"E5"};
    check_result(r, 9, true, false, true, stones, 1);
    ck_assert(check_stdev_grid(field(r, "ownershipStdev"), 9) > 0.001);
    const cJSON *m;
    cJSON_ArrayForEach(m, field(r, "moveInfos"))
    {
        check_stdev_grid(field(m, "ownershipStdev"), 9);
    }
    cJSON_Delete(r);
    send_line(&e, "{\"id\":\"T\",\"moves\":[],\"rules\":\"chinese\",\"boardXSize\":9,"
                  "\"boardYSize\":9,\"maxVisits\":8,\"includeMovesOwnership\":true}");
    r = must_next(&e);
    expect_id(r, "T");
    ck_assert_ptr_null(field(r, "ownershipStdev"));
    cJSON_ArrayForEach(m, field(r, "moveInfos"))
    {
        ck_assert_ptr_null(field(m, "ownershipStdev"));
    }
    cJSON_Delete(r);
    finish(&e);
}
END_TEST

/* reportDuringSearchEvery gives isDuringSearch responses; terminate stops the running query
 * (its last response comes with isDuringSearch false) and the queued turns report noResults;
 * a later query still answers; the end of input ends the process with status 0. */
START_TEST(test_terminate)
{
    engine e;
    start(&e);
    send_line(&e, "{\"id\":\"T\",\"moves\":[[\"B\",\"E5\"]],\"rules\":\"chinese\","
                  "\"boardXSize\":9,\"boardYSize\":9,\"maxVisits\":1000000,"
                  "\"analyzeTurns\":[0,1],\"reportDuringSearchEvery\":0.05}");
    cJSON *r = must_next(&e);
    expect_id(r, "T");
    ck_assert(cJSON_IsTrue(field(r, "isDuringSearch")));
    ck_assert_int_eq((int)test_json_num(r, "turnNumber"), 0);
    check_result(r, 9, false, false, false, NULL, 0);
    cJSON_Delete(r);
    send_line(&e, "{\"id\":\"stopper\",\"action\":\"terminate\",\"terminateId\":\"T\"}");
    bool echoed = false, final0 = false, none1 = false;
    while (!(echoed && final0 && none1)) {
        r = must_next(&e);
        const cJSON *action = field(r, "action");
        if (action) {
            ck_assert_str_eq(action->valuestring, "terminate");
            expect_id(r, "stopper");
            ck_assert_str_eq(field(r, "terminateId")->valuestring, "T");
            echoed = true;
        } else {
            expect_id(r, "T");
            if (cJSON_IsTrue(field(r, "isDuringSearch"))) {
                ck_assert(!final0);
            } else if ((int)test_json_num(r, "turnNumber") == 0) {
                check_result(r, 9, false, false, false, NULL, 0);
                final0 = true;
            } else {
                ck_assert_int_eq((int)test_json_num(r, "turnNumber"), 1);
                ck_assert(cJSON_IsTrue(field(r, "noResults")));
                none1 = true;
            }
        }
        cJSON_Delete(r);
    }
    send_line(&e, "{\"id\":\"after\",\"moves\":[],\"rules\":\"chinese\",\"boardXSize\":9,"
                  "\"boardYSize\":9,\"maxVisits\":8}");
    r = must_next(&e);
    expect_id(r, "after");
    check_result(r, 9, false, false, false, NULL, 0);
    cJSON_Delete(r);
    /* Queries read before the end of input are still answered. */
    send_line(&e, "{\"id\":\"last\",\"moves\":[],\"rules\":\"chinese\",\"boardXSize\":9,"
                  "\"boardYSize\":9,\"maxVisits\":4}");
    fclose(e.in);
    r = must_next(&e);
    expect_id(r, "last");
    cJSON_Delete(r);
    ck_assert_ptr_null(next_response(&e));
    fclose(e.out);
    engine_wait(&e, 0);
    unlink(e.err_path);
}
END_TEST

/* Lines that are not queries, each answered with an error while the process goes on: not JSON,
 * nested past cJSON's limit and past the protocol's, a number out of range, a line over the
 * line limit, a JSON value that is no object; ids with escapes and numeric ids come back as
 * sent. */
START_TEST(test_malformed_lines)
{
    engine e;
    start(&e);
    send_line(&e, "{\"id\":\"x\" \"moves\":[]}");
    expect_error(&e, NULL, NULL);
    static char deep[2 * 5000 + 1];
    for (int depth = 0; depth < 2; depth++) {
        int n = depth ? 5000 : 100;
        memset(deep, '[', (size_t)n);
        memset(deep + n, ']', (size_t)n);
        deep[2 * n] = 0;
        send_line(&e, deep);
        expect_error(&e, NULL, NULL);
    }
    send_line(&e, "{\"id\":\"inf\",\"komi\":1e999}");
    expect_error(&e, NULL, NULL);
    char *long_line = malloc(70 * 1024 + 1);
    ck_assert_ptr_nonnull(long_line);
    memset(long_line, ' ', 70 * 1024);
    static const char head[] = "{\"id\":\"long\",\"pad\":\"";
    memcpy(long_line, head, sizeof head - 1);
    long_line[70 * 1024 - 2] = '"';
    long_line[70 * 1024 - 1] = '}';
    long_line[70 * 1024] = 0;
    send_line(&e, long_line);
    free(long_line);
    expect_error(&e, NULL, NULL);
    send_line(&e, "[\"id\",\"not an object\"]");
    expect_error(&e, NULL, "id");
    send_line(&e, "{\"id\":[1],\"action\":\"query_version\"}");
    expect_error(&e, NULL, "id");
    send_line(&e, "{\"id\":\"q\\\"uo\\\\te\\u00e9\\n\",\"action\":\"query_version\"}");
    cJSON *r = must_next(&e);
    expect_id(r, "q\"uo\\te\xc3\xa9\n");
    cJSON_Delete(r);
    send_line(&e, "{\"id\":7,\"action\":\"clear_cache\"}");
    r = must_next(&e);
    ck_assert(cJSON_IsNumber(field(r, "id")) && field(r, "id")->valuedouble == 7);
    ck_assert_str_eq(field(r, "action")->valuestring, "clear_cache");
    cJSON_Delete(r);
    send_line(&e, "{\"id\":\"ok\",\"moves\":[],\"rules\":\"chinese\",\"boardXSize\":9,"
                  "\"boardYSize\":9,\"maxVisits\":4}");
    r = must_next(&e);
    expect_id(r, "ok");
    check_result(r, 9, false, false, false, NULL, 0);
    cJSON_Delete(r);
    finish(&e);
}
END_TEST

/* shido_analysis_check answers what needs no network: errors and warnings per query, echoes,
 * nothing for a valid query. */
START_TEST(test_check_without_network)
{
    static const char input[] =
        "{\"id\":\"good\",\"moves\":[[\"B\",\"E5\"]],\"rules\":\"japanese\","
        "\"boardXSize\":9,\"boardYSize\":9}\n"
        "{\"id\":\"illegal\",\"moves\":[[\"B\",\"E5\"],[\"W\",\"E5\"]],"
        "\"rules\":\"chinese\",\"boardXSize\":9,\"boardYSize\":9}\n"
        "not json\n"
        "\n"
        "{\"id\":\"w\",\"moves\":[],\"rules\":\"chinese\",\"boardXSize\":9,"
        "\"boardYSize\":9,\"zzz\":{\"a\":[1,2]},\"komi\":0.3}\n"
        "{\"id\":\"v\",\"action\":\"query_version\"}\n"
        "{\"id\":\"c\",\"action\":\"clear_cache\"}\n";
    FILE *in = fmemopen((void *)input, sizeof input - 1, "r");
    char *out = NULL;
    size_t out_len = 0;
    FILE *f = open_memstream(&out, &out_len);
    ck_assert(in && f);
    ck_assert_int_eq(shido_analysis_check(in, f), 0);
    fclose(in);
    fclose(f);
    static const char *const want[][3] = {{"illegal", "error", "moves"},
                                          {NULL, "error", NULL},
                                          {"w", "warning", "zzz"},
                                          {"w", "error", "komi"},
                                          {"v", "action", NULL},
                                          {"c", "action", NULL}};
    int n = 0;
    for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n"), n++) {
        ck_assert_int_lt(n, 6);
        cJSON *r = cJSON_Parse(line);
        ck_assert_msg(cJSON_IsObject(r), "%s", line);
        if (want[n][0])
            expect_id(r, want[n][0]);
        else
            ck_assert(cJSON_IsNull(field(r, "id")));
        ck_assert_msg(cJSON_IsString(field(r, want[n][1])), "%s", line);
        if (want[n][2])
            ck_assert_str_eq(field(r, "field")->valuestring, want[n][2]);
        cJSON_Delete(r);
    }
    ck_assert_int_eq(n, 6);
    free(out);
}
END_TEST

START_TEST(test_usage_errors)
{
    engine e;
    const char *no_net[] = {"analysis", "--visits", "8", NULL};
    engine_start(&e, no_net);
    fclose(e.in);
    fclose(e.out);
    engine_wait(&e, 2);
    unlink(e.err_path);
    const char *bad_net[] = {"analysis", "-w", "/nonexistent/net.bin.gz", NULL};
    engine_start(&e, bad_net);
    fclose(e.in);
    fclose(e.out);
    engine_wait(&e, 1);
    unlink(e.err_path);
}
END_TEST

/* KaTrain 1.20's own net (KataGo 1.17: RMS-norm trunk, transformer blocks) in a KaTrain-style
 * session on 19x19: query_models names it; two turns of a game with ownership and policy, their
 * boards complete and the values those of an even opening (a net read wrongly gives anything);
 * a second query on 9x9. */
START_TEST(test_transformer_session)
{
    engine e;
    const char *args[] = {"analysis", "-w", TEST_WEIGHTS "b10c384h6nbttflrs.bin.gz",
                          "--visits", "4", "--threads", "1", NULL};
    engine_start(&e, args);
    send_line(&e, "{\"id\":\"m\",\"action\":\"query_models\"}");
    cJSON *r = must_next(&e);
    const cJSON *m0 = cJSON_GetArrayItem(field(r, "models"), 0);
    ck_assert_str_eq(field(m0, "name")->valuestring, "b10c384h6nbttflrs.bin.gz");
    ck_assert_int_ge((int)test_json_num(m0, "version"), 15);
    cJSON_Delete(r);
    send_line(&e, "{\"id\":\"T\",\"moves\":[[\"B\",\"Q16\"],[\"W\",\"D4\"]],"
                  "\"rules\":\"japanese\",\"komi\":6.5,\"boardXSize\":19,\"boardYSize\":19,"
                  "\"analyzeTurns\":[0,2],\"maxVisits\":4,\"includeOwnership\":true,"
                  "\"includePolicy\":true}");
    static const char *const stones[] = {"Q16", "D4"};
    for (int t = 0; t < 2; t++) {
        r = must_next(&e);
        expect_id(r, "T");
        ck_assert_int_eq((int)test_json_num(r, "turnNumber"), 2 * t);
        check_result(r, 19, true, true, false, stones, 2 * t);
        const cJSON *root = field(r, "rootInfo");
        ck_assert_int_ge((long long)test_json_num(root, "visits"), 4);
        ck_assert_str_eq(field(root, "currentPlayer")->valuestring, "B");
        double w = test_json_num(root, "winrate"), lead = test_json_num(root, "scoreLead");
        ck_assert_msg(w > 0.25 && w < 0.75 && fabs(lead) < 5,
                      "turn %d of an even opening: winrate %g, lead %g", 2 * t, w, lead);
        cJSON_Delete(r);
    }
    send_line(&e, "{\"id\":\"N\",\"moves\":[[\"B\",\"E5\"]],\"rules\":\"chinese\","
                  "\"komi\":7,\"boardXSize\":9,\"boardYSize\":9,\"maxVisits\":4}");
    r = must_next(&e);
    expect_id(r, "N");
    static const char *const n_stones[] = {"E5"};
    check_result(r, 9, false, false, false, n_stones, 1);
    ck_assert_str_eq(field(field(r, "rootInfo"), "currentPlayer")->valuestring, "W");
    cJSON_Delete(r);
    finish(&e);
}
END_TEST

static Suite *analysis_json_suite(void)
{
    Suite *s = suite_create("analysis_json");
    TCase *tc = tcase_create("binary");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_katrain_session);
    tcase_add_test(tc, test_ownership_stdev);
    tcase_add_test(tc, test_terminate);
    tcase_add_test(tc, test_malformed_lines);
    tcase_add_test(tc, test_check_without_network);
    tcase_add_test(tc, test_usage_errors);
    tcase_add_test(tc, test_fresh_search_per_query);
    tcase_add_test(tc, test_katrain_script);
    tcase_add_test(tc, test_katago_fields);
    tcase_add_test(tc, test_load_with_terminates);
    tcase_add_test(tc, test_load_parallel);
    tcase_add_test(tc, test_parallel_priority);
    tcase_add_test(tc, test_values_match_kata_analyze);
    tcase_add_test(tc, test_rectangle);
    tcase_add_test(tc, test_transformer_session);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return test_run_suite(analysis_json_suite()); }
