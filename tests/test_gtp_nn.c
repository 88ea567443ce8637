/* tests/test_gtp_nn.c -- the GTP network commands (kata-raw-nn, heatmap) and `shido gtp
 * --weights`: the engine is driven in-process with three networks loaded, each vector record's
 * own gtp commands are replayed, and every number of the kata-raw-nn reply is compared with
 * KataGo's and Leela Zero's outputs in ../shared/vectors. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "tests/common.h"
#include "tests/vectors.h"
#include "tools/gtp.h"

#include "tests/shido_pipe.h"

static void expect_ok(gtp_engine *e, const char *command)
{
    char *got = test_gtp_feed(e, command, false);
    ck_assert_msg(got[0] == '=', "%s: %s", command, got);
    free(got);
}

static void expect_error(gtp_engine *e, const char *command, const char *reason)
{
    char *got = test_gtp_feed(e, command, false);
    ck_assert_msg(got[0] == '?' && strstr(got, reason), "%s: %s", command, got);
    free(got);
}

static void load_three(gtp_engine *e)
{
    /* the reference backend: the numbers are those of the plain-loop forward pass */
    char *argv[] = {"gtp", "--weights", TEST_G170, "-w", TEST_B2C16, "--weights", TEST_LZ_B4C32,
                    "--backend", "ref"};
    char err[1024];
    ck_assert(gtp_engine_init(e));
    ck_assert_msg(gtp_engine_configure(e, 9, argv, err, sizeof err) == 0, "%s", err);
    ck_assert_int_eq(teach_engine_num_nets(e->engine), 3);
}

/* One kata-raw-nn block as parsed back from the reply; has_* say which lines were there. */
typedef struct raw_reply {
    int symmetry;
    double scalar[9];
    bool has_scalar[9];
    double policy[361], pass, ownership[361];
    bool has_policy, has_pass, has_ownership;
} raw_reply;

static double parse_value(const char *tok)
{
    if (!strcmp(tok, "NAN"))
        return NAN;
    char *end;
    double v = strtod(tok, &end);
    ck_assert_msg(*end == 0 && end != tok, "not a number: '%s'", tok);
    return v;
}

/* Parses the first block of a "= symmetry ..." reply of a size x size board; returns where the
 * next block ("symmetry") starts, or NULL at the end. Modifies text. */
static char *parse_raw(char *text, int size, raw_reply *out)
{
    memset(out, 0, sizeof *out);
    char *save = NULL, *tok = strtok_r(text, " \n", &save);
    if (tok && !strcmp(tok, "="))
        tok = strtok_r(NULL, " \n", &save);
    ck_assert_msg(tok && !strcmp(tok, "symmetry"), "reply starts with '%s'", tok ? tok : "");
    out->symmetry = atoi(strtok_r(NULL, " \n", &save));
    while ((tok = strtok_r(NULL, " \n", &save))) {
        if (!strcmp(tok, "symmetry")) {
            tok[strlen(tok)] = ' ';  /* the next parse starts here */
            return tok;
        }
        int f;
        for (f = 0; f < 9 && strcmp(tok, vec_field_name[f]); f++)
            ;
        if (f < 9) {
            out->scalar[f] = parse_value(strtok_r(NULL, " \n", &save));
            out->has_scalar[f] = true;
        } else if (!strcmp(tok, "policy") || !strcmp(tok, "whiteOwnership")) {
            bool pol = tok[0] == 'p';
            double *grid = pol ? out->policy : out->ownership;
            for (int i = 0; i < size * size; i++) {
                char *v = strtok_r(NULL, " \n", &save);
                ck_assert_msg(v, "%s: grid too short", pol ? "policy" : "whiteOwnership");
                grid[i] = parse_value(v);
            }
            *(pol ? &out->has_policy : &out->has_ownership) = true;
        } else if (!strcmp(tok, "policyPass")) {
            out->pass = parse_value(strtok_r(NULL, " \n", &save));
            out->has_pass = true;
        } else {
            ck_abort_msg("unexpected token '%s'", tok);
        }
    }
    return NULL;
}

/* Board sizes other than 19, handicap and ko are always in the sample. */
static bool record_is_special(const cJSON *rec)
{
    const cJSON *h = cJSON_GetObjectItemCaseSensitive(rec, "handicap");
    const char *id = cJSON_GetObjectItemCaseSensitive(rec, "id")->valuestring;
    return cJSON_GetObjectItemCaseSensitive(rec, "size")->valueint != 19 ||
           cJSON_GetArraySize(h) > 0 || strstr(id, "ko") || strstr(id, "handicap");
}

static void check_close(const char *id, const char *what, double got, double want, double tol)
{
    ck_assert_msg(isfinite(got) && fabs(got - want) <= tol, "%s: %s is %.9g, KataGo/LZ %.9g", id,
                  what, got, want);
}

/* Replays a sample of the records of one vectors file into e and compares kata-raw-nn SYM
 * (with `suffix` appended: optimism and net=N) against each. lz: the file holds Leela Zero's
 * heatmap outputs. Returns the number of records checked. */
static int check_file(gtp_engine *e, const char *vectors, const char *suffix, bool lz)
{
    char err[1024];
    vec_file vf;
    ck_assert_msg(vec_file_read(vectors, &vf, err, sizeof err), "%s", err);
    int stride = vec_stride(), checked = 0;
    raw_reply *got = malloc(sizeof *got);
    for (int r = 0; r < vf.num_records; r += stride) {
        const cJSON *rec = vf.records[r];
        if (r % 3 != 0 && !record_is_special(rec))
            continue;
        const char *id = cJSON_GetObjectItemCaseSensitive(rec, "id")->valuestring;
        /* vec_setup_game starts from tromp-taylor, komi 7.5: so does the engine here. */
        expect_ok(e, "kata-set-rules tromp-taylor\nkomi 7.5");
        const cJSON *cmd;
        cJSON_ArrayForEach(cmd, cJSON_GetObjectItemCaseSensitive(rec, "gtp"))
        {
            expect_ok(e, cmd->valuestring);
        }
        go_game g;
        ck_assert_msg(vec_setup_game(rec, &g, err, sizeof err), "%s: %s", id, err);
        int size = g.board.size, sym = (int)test_json_num(rec, "symmetry");
        char line[128];
        snprintf(line, sizeof line, "kata-raw-nn %d%s", sym, suffix);
        char *reply = test_gtp_feed(e, line, false);
        ck_assert_msg(reply[0] == '=', "%s: %s: %s", id, line, reply);
        ck_assert_ptr_null(parse_raw(reply, size, got));
        free(reply);
        ck_assert_int_eq(got->symmetry, sym);
        const cJSON *o = cJSON_GetObjectItemCaseSensitive(rec, "outputs");
        const cJSON *pol = cJSON_GetObjectItemCaseSensitive(o, "policy");
        ck_assert_int_eq(cJSON_GetArraySize(pol), size * size);
        ck_assert(got->has_policy && got->has_pass);
        check_close(id, "policyPass", got->pass, test_json_num(o, "policyPass"), TEST_PROB_TOL);
        if (lz) {
            double w = test_json_num(o, "winrate");
            double white = g.board.to_move == GO_WHITE ? w : 1 - w;
            for (int f = 0; f < 9; f++)
                ck_assert_msg(got->has_scalar[f] == (f < 3), "%s: %s shown: %d", id,
                              vec_field_name[f], got->has_scalar[f]);
            ck_assert(!got->has_ownership);
            check_close(id, "whiteWin", got->scalar[0], white, TEST_PROB_TOL);
            check_close(id, "whiteLoss", got->scalar[1], 1 - white, TEST_PROB_TOL);
            ck_assert(got->scalar[2] == 0);
        } else {
            for (int f = 0; f < 9; f++) {
                ck_assert_msg(got->has_scalar[f], "%s: no %s", id, vec_field_name[f]);
                double want = test_json_num(o, vec_field_name[f]);
                double tol = f < 3    ? TEST_PROB_TOL
                             : f == 5 ? TEST_SCORE_SQ_REL_TOL * fmax(1, fabs(want))
                                      : TEST_SCORE_TOL;
                check_close(id, vec_field_name[f], got->scalar[f], want, tol);
            }
            ck_assert(got->has_ownership);
            const cJSON *own = cJSON_GetObjectItemCaseSensitive(o, "whiteOwnership");
            for (int i = 0; i < size * size; i++)
                check_close(id, "whiteOwnership", got->ownership[i],
                            cJSON_GetArrayItem(own, i)->valuedouble, TEST_PROB_TOL);
        }
        for (int i = 0; i < size * size; i++) {
            const cJSON *pv = cJSON_GetArrayItem(pol, i);
            /* KataGo marks illegal moves null; Leela Zero scores every point, shido NAN. */
            bool illegal = lz ? go_game_legal(&g, go_point_at(i % size, i / size),
                                              g.board.to_move) != GO_MOVE_OK
                              : cJSON_IsNull(pv);
            ck_assert_msg(illegal == isnan(got->policy[i]), "%s: point %d: NAN %d, illegal %d", id,
                          i, isnan(got->policy[i]), illegal);
            if (!illegal)
                check_close(id, "policy", got->policy[i], pv->valuedouble, TEST_PROB_TOL);
        }
        go_game_free(&g);
        checked++;
    }
    free(got);
    vec_file_free(&vf);
    printf("%s: %d records replayed through kata-raw-nn%s\n", strrchr(vectors, '/') + 1, checked,
           suffix);
    fflush(stdout);
    return checked;
}

START_TEST(test_vectors_g170_first_net)
{
    gtp_engine e;
    load_three(&e);
    /* KataGo's own syntax answers for the first net; the optimism is ignored by a v8 net. */
    int n = check_file(&e, TEST_VECTORS "katago-g170-b6c96.jsonl", "", false);
    ck_assert_int_ge(n, vec_stride() == 1 ? 8 : 1);
    gtp_engine_free(&e);
}
END_TEST

START_TEST(test_vectors_b2c16_second_net)
{
    gtp_engine e;
    load_three(&e);
    int n = check_file(&e, TEST_VECTORS "katago-rand-b2c16-v15.jsonl", " 0.2 net=2", false);
    ck_assert_int_ge(n, vec_stride() == 1 ? 8 : 1);
    gtp_engine_free(&e);
}
END_TEST

START_TEST(test_vectors_lz_third_net)
{
    gtp_engine e;
    load_three(&e);
    int n = check_file(&e, TEST_VECTORS "lz-rand-b4c32.jsonl", " net=3", true);
    ck_assert_int_ge(n, vec_stride() == 1 ? 8 : 1);
    gtp_engine_free(&e);
}
END_TEST

/* `all` prints the 8 symmetries in turn, each equal to its own `kata-raw-nn SYM`; `average` is
 * their mean. */
START_TEST(test_all_and_average)
{
    gtp_engine e;
    load_three(&e);
    expect_ok(&e, "boardsize 9\nplay B E5\nplay W C3");
    char *all = test_gtp_feed(&e, "kata-raw-nn all 0.2 net=2", false);
    raw_reply *block = malloc(sizeof *block), *one = malloc(sizeof *one);
    raw_reply *avg = malloc(sizeof *avg);
    char *next = all;
    double win_sum = 0, pol_sum = 0;
    for (int s = 0; s < 8; s++) {
        ck_assert_ptr_nonnull(next);
        next = parse_raw(next, 9, block);
        ck_assert_int_eq(block->symmetry, s);
        char line[64];
        snprintf(line, sizeof line, "kata-raw-nn %d 0.2 net=2", s);
        char *single = test_gtp_feed(&e, line, false);
        parse_raw(single, 9, one);
        free(single);
        ck_assert(block->scalar[0] == one->scalar[0] && block->policy[0] == one->policy[0]);
        ck_assert(isnan(block->policy[6 * 9 + 2]) && isnan(block->policy[4 * 9 + 4]));
        win_sum += block->scalar[0];
        pol_sum += block->policy[0];
    }
    ck_assert_ptr_null(next);
    free(all);
    char *average = test_gtp_feed(&e, "kata-raw-nn average 0.2 net=2", false);
    ck_assert_msg(!strncmp(average, "= symmetry average\n", 19), "%s", average);
    memcpy(average, "= symmetry 0      ", 18);
    parse_raw(average, 9, avg);
    free(average);
    ck_assert_double_eq_tol(avg->scalar[0], win_sum / 8, 1e-6);
    ck_assert_double_eq_tol(avg->policy[0], pol_sum / 8, 1e-6);
    free(block);
    free(one);
    free(avg);
    gtp_engine_free(&e);
}
END_TEST

/* heatmap against Leela Zero's own record: int(p * 1000) per point, 0 on stones, pass, winrate. */
START_TEST(test_heatmap_matches_lz)
{
    char err[1024];
    vec_file vf;
    ck_assert_msg(vec_file_read(TEST_VECTORS "lz-rand-b4c32.jsonl", &vf, err, sizeof err), "%s",
                  err);
    gtp_engine e;
    load_three(&e);
    const cJSON *rec = vf.records[2];  /* one-move-white, symmetry 0 */
    const cJSON *cmd;
    cJSON_ArrayForEach(cmd, cJSON_GetObjectItemCaseSensitive(rec, "gtp"))
    {
        expect_ok(&e, cmd->valuestring);
    }
    int sym = (int)test_json_num(rec, "symmetry");
    char line[64];
    snprintf(line, sizeof line, "heatmap %d", sym);
    char *got = test_gtp_feed(&e, line, false);
    ck_assert_msg(!strncmp(got, "= \n", 3), "%s", got);
    const cJSON *o = cJSON_GetObjectItemCaseSensitive(rec, "outputs");
    const cJSON *pol = cJSON_GetObjectItemCaseSensitive(o, "policy");
    char *s = got + 3;
    for (int i = 0; i < 361; i++) {
        char *end;
        long v = strtol(s, &end, 10);
        ck_assert_msg(end != s, "heatmap too short at %d", i);
        s = end;
        float p = (float)cJSON_GetArrayItem(pol, i)->valuedouble;
        bool stone = e.game.board.color[go_point_at(i % 19, i / 19)] != GO_EMPTY;
        long want = stone ? 0 : (long)(p * 1000.0f);
        /* A value a hair from a multiple of 1/1000 may truncate either way. */
        ck_assert_msg(labs(v - want) <= (fabsf(p * 1000.0f - roundf(p * 1000.0f)) < 1e-2f ? 1 : 0),
                      "point %d: %ld, LZ %ld", i, v, want);
    }
    int pass;
    float winrate;
    ck_assert_int_eq(sscanf(s, " pass: %d winrate: %f", &pass, &winrate), 2);
    ck_assert_int_eq(pass, (int)((float)test_json_num(o, "policyPass") * 1000.0f));
    ck_assert_double_eq_tol(winrate, test_json_num(o, "winrate"), 2e-6);
    free(got);
    got = test_gtp_feed(&e, "heatmap average", false);
    ck_assert_msg(strstr(got, "winrate: ") && got[0] == '=', "%s", got);
    free(got);
    expect_error(&e, "heatmap net=1", "heatmap needs a Leela Zero network");
    expect_error(&e, "heatmap 8", "symmetry");
    expect_ok(&e, "boardsize 9");
    expect_error(&e, "heatmap", "19");
    gtp_engine_free(&e);
    vec_file_free(&vf);
}
END_TEST

START_TEST(test_errors)
{
    gtp_engine e;
    ck_assert(gtp_engine_init(&e));
    expect_error(&e, "kata-raw-nn 0", "no network loaded (start with --weights FILE)");
    expect_error(&e, "heatmap", "no network loaded (start with --weights FILE)");
    /* Not advertised without a network. */
    char *list = test_gtp_feed(&e, "list_commands\nknown_command kata-raw-nn", false);
    ck_assert_ptr_null(strstr(list, "kata-raw-nn"));
    ck_assert_ptr_null(strstr(list, "heatmap"));
    ck_assert_ptr_nonnull(strstr(list, "= false"));
    free(list);
    gtp_engine_free(&e);

    load_three(&e);
    list = test_gtp_feed(&e, "list_commands\nknown_command kata-raw-nn\nknown_command heatmap",
                         false);
    ck_assert_ptr_nonnull(strstr(list, "\nkata-raw-nn\nheatmap\n"));
    ck_assert_ptr_null(strstr(list, "false"));
    free(list);
    expect_error(&e, "kata-raw-nn", "symmetry");
    expect_error(&e, "kata-raw-nn 8", "symmetry");
    expect_error(&e, "kata-raw-nn -1", "symmetry");
    expect_error(&e, "kata-raw-nn x", "symmetry");
    expect_error(&e, "kata-raw-nn 0 abc", "optimism");
    expect_error(&e, "kata-raw-nn 0 nan", "optimism");
    expect_error(&e, "kata-raw-nn 0 -0.5", "optimism");
    expect_error(&e, "kata-raw-nn 0 1.5", "optimism");
    expect_error(&e, "kata-raw-nn 0 0.2 net=4", "no network 4");
    expect_error(&e, "kata-raw-nn 0 0.2 net=0", "no network 0");
    expect_error(&e, "kata-raw-nn 0 0.2 0.3", "syntax error");
    /* The Leela Zero net refuses other board sizes; the reply holds only the reason. */
    char *got = test_gtp_feed(&e, "boardsize 13\nkata-raw-nn 0 net=3", false);
    ck_assert_msg(!strncmp(got, "=\n\n?", 4) && !strstr(got, "symmetry"), "%s", got);
    free(got);
    gtp_engine_free(&e);
}
END_TEST

START_TEST(test_configure)
{
    gtp_engine e;
    char err[1024];
    ck_assert(gtp_engine_init(&e));
    char *unknown[] = {"gtp", "--frobnicate"};
    ck_assert_int_eq(gtp_engine_configure(&e, 2, unknown, err, sizeof err), 2);
    char *missing[] = {"gtp", "-w"};
    ck_assert_int_eq(gtp_engine_configure(&e, 2, missing, err, sizeof err), 2);
    char *bad[] = {"gtp", "--weights", SHIDO_TEST_DATA "/gtp/session.gtp"};
    ck_assert_int_eq(gtp_engine_configure(&e, 3, bad, err, sizeof err), 1);
    ck_assert_msg(strstr(err, "unknown network format") && strstr(err, "session.gtp"), "%s", err);
    ck_assert_int_eq(teach_engine_num_nets(e.engine), 0);
    char *dir[] = {"gtp", "-w", SHIDO_TEST_DATA};
    ck_assert_int_eq(gtp_engine_configure(&e, 3, dir, err, sizeof err), 1);
    ck_assert_msg(strstr(err, "is a directory"), "%s", err);
    char *eq[] = {"gtp", "--weights=" TEST_LZ_B4C32};
    ck_assert_int_eq(gtp_engine_configure(&e, 2, eq, err, sizeof err), 0);
    ck_assert_int_eq(teach_engine_num_nets(e.engine), 1);
    ck_assert_int_eq(teach_engine_desc(e.engine, 0)->family, NN_FAMILY_LZ);
    gtp_engine_free(&e);
}
END_TEST

/* genmove under a clock runs on the time manager's plan and charges the clock it keeps: the
 * controller's report is the base, the move's time comes off it (in our own account with the
 * assumed lag too), and the next report can be compared. Without a clock nothing is charged. */
START_TEST(test_genmove_charges_the_clock)
{
    gtp_engine e;
    char *argv[] = {"gtp", "-w", TEST_G170, "--threads", "1", "--visits", "16"};
    test_gtp_start(&e, 7, argv);
    expect_ok(&e, "boardsize 9");
    expect_ok(&e, "genmove b");
    ck_assert(!e.time.expect_valid[GO_BLACK] && e.time.overhead_samples == 0);
    expect_ok(&e, "time_settings 30 0 0");
    expect_ok(&e, "time_left w 20 0");
    expect_ok(&e, "genmove w");
    const teach_timekeeper *tk = &e.time;
    ck_assert(tk->expect_valid[GO_WHITE] && !tk->reported[GO_WHITE]);
    ck_assert(tk->expected[GO_WHITE].time_left_s < 20 && tk->expected[GO_WHITE].time_left_s > 0);
    ck_assert(tk->clock[GO_WHITE].time_left_s < tk->expected[GO_WHITE].time_left_s);
    ck_assert(tk->clock[GO_BLACK].time_left_s == 30);   /* black's clock untouched */
    gtp_engine_free(&e);
}
END_TEST

/* Runs the real binary with args (without argv[0]) and stdin from /dev/null; returns its stderr
 * (malloc'd). */
static char *run_binary(const char *const *args, int *status)
{
    char *err;
    free(pipe_run(args, "/dev/null", NULL, &err, status));
    return err;
}

START_TEST(test_binary_bad_weights)
{
    int status;
    const char *bad[] = {"gtp", "--weights", "/nonexistent/shido/net.bin.gz", NULL};
    char *err = run_binary(bad, &status);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 1, "status %d", status);
    ck_assert_msg(strstr(err, "cannot load network") &&
                      strstr(err, "/nonexistent/shido/net.bin.gz"),
                  "%s", err);
    pipe_assert_no_protocol_lines(err);
    free(err);
    const char *foreign[] = {"gtp", "-w", TEST_LZ_B4C32, "-w", SHIDO_TEST_DATA "/gtp/session.gtp",
                             NULL};
    err = run_binary(foreign, &status);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 1, "status %d", status);
    ck_assert_msg(strstr(err, "unknown network format"), "%s", err);
    pipe_assert_no_protocol_lines(err);
    free(err);
    const char *usage[] = {"gtp", "--frobnicate", NULL};
    err = run_binary(usage, &status);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 2, "status %d", status);
    ck_assert_msg(strstr(err, "--frobnicate") && strstr(err, "usage"), "%s", err);
    pipe_assert_no_protocol_lines(err);
    free(err);
}
END_TEST

/* --tsumego with a network: the network guides the solver on a corner problem (white's
 * straight three, black's A9 answered by B9, which lives; genmove_analyze too), and a position
 * that is no corner or side problem gets the search's move instead. */
START_TEST(test_tsumego_genmove_with_network)
{
    gtp_engine e;
    char *argv[] = {"gtp", "-w", TEST_G170, "--visits", "8", "--threads", "1", "--tsumego=3"};
    test_gtp_start(&e, 8, argv);
    expect_ok(&e, "boardsize 9");
    expect_ok(&e, "set_position w D9 w A8 w B8 w C8 w D8 b E9 b E8 b E7 b A6 b B6 b C6 b D6 b E6");
    expect_ok(&e, "play b A9");
    char *got = test_gtp_feed(&e, "undo\nplay b A9\n4 lz-genmove_analyze w 10\nundo", false);
    ck_assert_str_eq(got, "=\n\n=\n\n=4\nplay B9\n\n=\n\n"); /* the solver's, no analysis */
    free(got);
    got = test_gtp_feed(&e, "genmove w\ntsumego_solve b 3", false);
    ck_assert_str_eq(got, "= B9\n\n? settled: no weak group: white (the defender) has no stones "
                          "in the region that are not already alive\n\n");
    free(got);
    /* the network's guide was made and used */
    ck_assert(e.tsumego && teach_tsumego_guided(e.tsumego));
    expect_ok(&e, "clear_board");
    got = test_gtp_feed(&e, "genmove b", false);
    ck_assert_msg(got[0] == '=' && got[2] >= 'A' && got[2] <= 'J', "%s", got);
    free(got);
    ck_assert_int_eq(e.game.num_moves, 1);
    ck_assert_int_eq(e.game.board.num_empty, 80);
    gtp_engine_free(&e);
}
END_TEST

/* --guess-weights NET: the tsumego solver's search for the guess runs on a second network. Cho
 * intermediate 35 (black kills with G18) stays open for 20 s even with g170 guiding: with a
 * network of random weights guiding alone the guess is not G18; with g170 as the guess network
 * tsumego_solve guesses G18 and genmove, the sparring partner, plays it (on a budget of
 * positions and visits, --tsumego-nodes and --visits: the same on any machine). Without -w the
 * option is a usage error, as a budget of 0 positions is; a file that is no network fails to
 * load, named, in the binary too. */
START_TEST(test_tsumego_guess_network)
{
    static const char pos[] =
        "set_position b J19 b D18 b D17 b F17 b J17 b K17 b B16 b D16 b E16 b J16 b H15 b E14 "
        "b G14 w D19 w A18 w B18 w C18 w E18 w F18 w E17 w H17 w F16 w G16";
    for (int k = 0; k < 2; k++) {
        gtp_engine e;
        /* a budget of positions and visits, not of time: the same answers however loaded the
         * machine (the clock is a minute, far from binding) */
        char *argv[] = {"gtp",     "-w", TEST_B2C16, "--tsumego=60", "--tsumego-nodes", "50000",
                        "--visits", "32", "--guess-weights", TEST_G170};
        test_gtp_start(&e, k ? 10 : 8, argv);
        expect_ok(&e, pos);
        char *got = test_gtp_feed(&e, "tsumego_solve b kill", false);
        ck_assert_msg(!strncmp(got, "= black kill unknown ", 21) &&
                          (k ? strstr(got, "G18") != NULL : strstr(got, "G18") == NULL),
                      "guess network %d: %s", k, got);
        free(got);
        if (k) {
            got = test_gtp_feed(&e, "genmove b", false);
            ck_assert_str_eq(got, "= G18\n\n");
            free(got);
        }
        gtp_engine_free(&e);
    }
    gtp_engine e;
    char err[1024];
    char *alone[] = {"gtp", "--tsumego", "--guess-weights", TEST_G170};
    ck_assert(gtp_engine_init(&e));
    ck_assert_int_eq(gtp_engine_configure(&e, 4, alone, err, sizeof err), 2);
    ck_assert_msg(strstr(err, "--guess-weights needs -w NET"), "%s", err);
    char *zero[] = {"gtp", "--tsumego-nodes", "0"};
    ck_assert_int_eq(gtp_engine_configure(&e, 3, zero, err, sizeof err), 2);
    ck_assert_msg(strstr(err, "--tsumego-nodes takes positions"), "%s", err);
    char *bad[] = {"gtp", "-w", TEST_B2C16, "--guess-weights", "/nonexistent/shido/guess.bin.gz"};
    ck_assert_int_eq(gtp_engine_configure(&e, 5, bad, err, sizeof err), 1);
    ck_assert_msg(strstr(err, "/nonexistent/shido/guess.bin.gz"), "%s", err);
    gtp_engine_free(&e);
    int status;
    const char *bad_run[] = {"gtp", "-w", TEST_B2C16, "--guess-weights",
                             "/nonexistent/shido/guess.bin.gz", NULL};
    char *out = run_binary(bad_run, &status);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 1, "status %d", status);
    ck_assert_msg(strstr(out, "/nonexistent/shido/guess.bin.gz"), "%s", out);
    free(out);
    const char *alone_run[] = {"gtp", "--guess-weights", TEST_G170, NULL};
    out = run_binary(alone_run, &status);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 2, "status %d", status);
    ck_assert_msg(strstr(out, "needs -w NET") && strstr(out, "usage"), "%s", out);
    free(out);
}
END_TEST

/* The search commands in-process (no input reader): an analysis runs to the params' visit
 * limit and ends its stream by itself; genmove plays; search options configure the params. */
START_TEST(test_search_in_process)
{
    gtp_engine e;
    char *argv[] = {"gtp", "-w", TEST_G170, "--visits", "8", "--set", "c_puct=1.5",
                    "--threads", "1"};
    test_gtp_start(&e, 9, argv);
    const mcts_params *params = teach_engine_params(e.engine);
    ck_assert(params->max_visits == 8 && params->c_puct == 1.5);
    expect_ok(&e, "boardsize 9");
    char *got = test_gtp_feed(&e, "7 kata-analyze 1 rootInfo true ownership true", false);
    ck_assert_msg(!strncmp(got, "=7\ninfo move ", 13), "%s", got);
    size_t n = strlen(got);
    ck_assert_msg(n > 2 && !strcmp(got + n - 2, "\n\n") && strstr(got, " rootInfo visits ") &&
                      strstr(got, " ownership "),
                  "%s", got);
    free(got);
    got = test_gtp_feed(&e, "lz-genmove_analyze b 1", false);
    ck_assert_msg(!strncmp(got, "=\ninfo move ", 12) && strstr(got, "\nplay "), "%s", got);
    free(got);
    got = test_gtp_feed(&e, "genmove w", false);
    ck_assert_msg(got[0] == '=' && got[2] >= 'A' && got[2] <= 'J', "%s", got);
    free(got);
    expect_error(&e, "kata-analyze 1 ownership maybe", "ownership");
    expect_error(&e, "genmove purple", "syntax error");
    gtp_engine_free(&e);
    /* Bad search options are usage errors naming the option. */
    ck_assert(gtp_engine_init(&e));
    char err[1024];
    char *bad[] = {"gtp", "--set", "no_such_param=1"};
    ck_assert_int_eq(gtp_engine_configure(&e, 3, bad, err, sizeof err), 2);
    ck_assert_msg(strstr(err, "no_such_param"), "%s", err);
    char *missing[] = {"gtp", "--threads"};
    ck_assert_int_eq(gtp_engine_configure(&e, 2, missing, err, sizeof err), 2);
    gtp_engine_free(&e);
}
END_TEST

/* KaTrain 1.20's own net (KataGo 1.17: RMS-norm trunk, transformer blocks) with the default
 * backend choice (cuda where there is a device, cpu elsewhere): kata-raw-nn
 * reproduces KataGo's numbers, kata-analyze streams, genmove plays. */
START_TEST(test_transformer_net_plays)
{
    gtp_engine e;
    char *argv[] = {"gtp", "-w", TEST_WEIGHTS "b10c384h6nbttflrs.bin.gz", "--visits", "8",
                    "--threads", "1"};
    test_gtp_start(&e, 7, argv);
    int n = check_file(&e, TEST_VECTORS "katago-b10c384h6nbttflrs.jsonl", "", false);
    ck_assert_int_ge(n, 1);
    expect_ok(&e, "boardsize 9\nclear_board\nkomi 7");
    char *got = test_gtp_feed(&e, "kata-analyze 1 rootInfo true ownership true", false);
    ck_assert_msg(!strncmp(got, "=\ninfo move ", 12) && strstr(got, " rootInfo visits ") &&
                      strstr(got, " ownership "),
                  "%s", got);
    free(got);
    got = test_gtp_feed(&e, "genmove b", false);
    ck_assert_msg(got[0] == '=' && got[2] >= 'A' && got[2] <= 'J', "%s", got);
    free(got);
    ck_assert_int_eq(e.game.num_moves, 1);
    gtp_engine_free(&e);
}
END_TEST

static Suite *gtp_nn_suite(void)
{
    Suite *s = suite_create("gtp_nn");
    TCase *tc = tcase_create("vectors");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, test_vectors_g170_first_net);
    tcase_add_test(tc, test_vectors_b2c16_second_net);
    tcase_add_test(tc, test_vectors_lz_third_net);
    tcase_add_test(tc, test_all_and_average);
    tcase_add_test(tc, test_heatmap_matches_lz);
    tcase_add_test(tc, test_genmove_charges_the_clock);
    suite_add_tcase(s, tc);
    tc = tcase_create("errors");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_errors);
    tcase_add_test(tc, test_configure);
    tcase_add_test(tc, test_binary_bad_weights);
    tcase_add_test(tc, test_search_in_process);
    tcase_add_test(tc, test_tsumego_genmove_with_network);
    tcase_add_test(tc, test_tsumego_guess_network);
    suite_add_tcase(s, tc);
    tc = tcase_create("transformer");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_transformer_net_plays);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return test_run_suite(gtp_nn_suite()); }
