/* tests/test_features.c -- seed 000's move features (teach/features.h): Rémi distances and
 * stone densities on hand-built boards against values counted by hand, the symmetries of a
 * position, equations 2 and 3 on hand-made ownership, the contributions found by searches on
 * positions where a pass and a move differ in a known way (an atari saved, a stone captured),
 * score losses and priors from the searches, the features in kata-analyze and JSON analysis,
 * and `shido features` with its errors. The searches use the shared 6-block net with a few
 * visits on 9x9 and 19x19 boards. */
#include <check.h>
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "teach/engine.h"
#include "teach/features.h"
#include "teach/player.h"

#include "tests/common.h"
#include "tests/shido_pipe.h"

/* An engine on the shared 6-block net, CPU backend, default tunables. */
static teach_engine *engine_g170(void)
{
    teach_options o;
    teach_options_init(&o);
    o.weights[o.num_weights++] = TEST_G170;
    snprintf(o.backend, sizeof o.backend, "cpu");
    char err[512];
    teach_engine *e = teach_engine_new(&o, err, sizeof err);
    ck_assert_msg(e != NULL, "%s", err);
    return e;
}

/* ---- geometry --------------------------------------------------------------------------- */

START_TEST(test_remi_distance)
{
    /* the paper's examples: corner star point to tengen 18, upper-left to upper-right star 24 */
    ck_assert_int_eq(teach_remi_distance(test_point(19, "D4"), test_point(19, "K10")), 18);
    ck_assert_int_eq(teach_remi_distance(test_point(19, "D16"), test_point(19, "Q16")), 24);
    /* dx 1, dy 2: 1 + 2 + 2 */
    ck_assert_int_eq(teach_remi_distance(test_point(19, "C3"), test_point(19, "D5")), 5);
    ck_assert_int_eq(teach_remi_distance(test_point(19, "C3"), test_point(19, "C3")), 0);
    ck_assert_int_eq(teach_remi_distance(GO_PASS, test_point(19, "C3")), -1);
    ck_assert_int_eq(teach_remi_distance(test_point(19, "C3"), GO_NO_POINT), -1);
}
END_TEST

static void place(go_board *b, const char *vertex, go_color c)
{
    ck_assert(go_board_place(b, test_point(b->size, vertex), c));
}

START_TEST(test_density)
{
    go_board b;
    go_board_init(&b, 19);
    ck_assert_double_eq(teach_stone_density(&b, test_point(19, "K10"), 8), 0);
    /* around K10 (x 9, y 9): K11 d 2, L12 d 5, M13 d 8, K14 d 8, O10 d 8 inside; N14 d 11 and
     * P10 d 10 outside; 48 points within distance 8 (the point itself left out) */
    place(&b, "K11", GO_BLACK);
    place(&b, "L12", GO_WHITE);
    place(&b, "M13", GO_BLACK);
    place(&b, "K14", GO_WHITE);
    place(&b, "O10", GO_BLACK);
    place(&b, "N14", GO_WHITE);
    place(&b, "P10", GO_BLACK);
    ck_assert_double_eq_tol(teach_stone_density(&b, test_point(19, "K10"), 8), 5.0 / 48,
                            1e-12);
    /* B3: none of the stones above is within distance 8 */
    ck_assert_double_eq(teach_stone_density(&b, test_point(19, "B3"), 8), 0);
    /* B10 on the second line away from corners: 35 points; A10 d 2, C12 d 5, B14 d 8 inside,
     * B15 d 10 outside */
    place(&b, "A10", GO_BLACK);
    place(&b, "C12", GO_WHITE);
    place(&b, "B14", GO_BLACK);
    place(&b, "B15", GO_WHITE);
    ck_assert_double_eq_tol(teach_stone_density(&b, test_point(19, "B10"), 8), 3.0 / 35,
                            1e-12);
    /* the corner A1: 16 points; B2 at d 3 */
    place(&b, "B2", GO_WHITE);
    ck_assert_double_eq_tol(teach_stone_density(&b, test_point(19, "A1"), 8), 1.0 / 16, 1e-12);
    /* a smaller radius: around K10 within 2 only K11 (of the 8 neighbours within d 2: the four
     * orthogonal ones at d 2; diagonals are at d 3) */
    ck_assert_double_eq_tol(teach_stone_density(&b, test_point(19, "K10"), 2), 1.0 / 4, 1e-12);
    ck_assert_double_eq(teach_stone_density(&b, GO_PASS, 8), 0);
}
END_TEST

START_TEST(test_symmetries)
{
    go_board b;
    go_board_init(&b, 19);
    ck_assert_uint_eq(teach_board_symmetries(&b), 0xfe);
    /* D4 (x 3, y 15) maps to itself only under symmetry 7 (flip x, flip y, swap): (15, 3) then
     * back to (3, 15) */
    place(&b, "D4", GO_BLACK);
    ck_assert_uint_eq(teach_board_symmetries(&b), 0x80);
    /* C4 (2, 15) -> flips (16, 3) -> swap (3, 16) = D3 */
    ck_assert_int_eq(teach_symmetry_point(19, test_point(19, "C4"), 7), test_point(19, "D3"));
    ck_assert(teach_symmetric_copies(19, 0x80, test_point(19, "C4"), test_point(19, "D3")));
    ck_assert(!teach_symmetric_copies(19, 0x80, test_point(19, "C4"), test_point(19, "E4")));
    ck_assert(!teach_symmetric_copies(19, 0x80, test_point(19, "C4"), test_point(19, "C4")));
    ck_assert(!teach_symmetric_copies(19, 0, test_point(19, "C4"), test_point(19, "D3")));
    /* Q16 (15, 3) is its own image under symmetry 7 too; C4 is not (its image D3 is empty) */
    place(&b, "Q16", GO_WHITE);
    ck_assert_uint_eq(teach_board_symmetries(&b), 0x80);
    place(&b, "C4", GO_WHITE);
    ck_assert_uint_eq(teach_board_symmetries(&b), 0);
}
END_TEST

START_TEST(test_contributions_formula)
{
    go_board b;
    go_board_init(&b, 5);
    place(&b, "A5", GO_BLACK);   /* index 0 */
    place(&b, "B5", GO_BLACK);   /* index 1 */
    place(&b, "E1", GO_WHITE);   /* index 24 */
    float move[25] = {0}, pass[25] = {0};
    move[0] = -0.8f, move[1] = -0.6f, move[24] = 0.2f;   /* white's view */
    pass[0] = -0.2f, pass[1] = -0.4f, pass[24] = 0.6f;
    move[12] = 1.0f;   /* an empty point changes nothing */
    double s, w;
    /* black moves: own stones in black's view +0.6 and +0.2 -> 0.4; E1 in black's view goes
     * from -0.6 to -0.2 -> +0.4 */
    teach_contributions(&b, GO_BLACK, move, pass, &s, &w);
    ck_assert_double_eq_tol(s, 0.4, 1e-6);
    ck_assert_double_eq_tol(w, 0.4, 1e-6);
    /* white moves: E1 in white's view 0.2 - 0.6; the black stones -0.6 and -0.2 */
    teach_contributions(&b, GO_WHITE, move, pass, &s, &w);
    ck_assert_double_eq_tol(s, -0.4, 1e-6);
    ck_assert_double_eq_tol(w, -0.4, 1e-6);
    go_board_init(&b, 5);
    place(&b, "C3", GO_BLACK);
    teach_contributions(&b, GO_BLACK, move, pass, &s, &w);
    ck_assert(isnan(w));
    ck_assert(isfinite(s));
}
END_TEST

/* ---- features from searches ------------------------------------------------------------- */

/* A 9x9 game (japanese rules, komi 6.5) of the diagram, black to move. */
static void game9(go_game *g, const char *pic) { test_game_from(g, 9, pic, GO_BLACK, "japanese", 6.5f); }

/* Black's E5 is in atari (white D5, F5, E6); E4 connects it to the black wall on the third line.
 * After a black pass white captures it: the move and the pass differ by that stone. */
static const char *const atari_saved = ". . . . . . . . ."
                                       ". . . . . . . . ."
                                       ". . O . . . X . ."
                                       ". . . . O . . . ."
                                       ". . . O X O . . ."
                                       ". . . . . . . . ."
                                       ". . X . X . X . ."
                                       ". . . . . . . . ."
                                       ". . . . . . . . .";

/* White's E5 is in atari (black D5, F5, E6): black E4 captures it, after a pass white escapes. */
static const char *const atari_capture = ". . . . . . . . ."
                                         ". . . . . . . . ."
                                         ". . X . . . O . ."
                                         ". . . . X . . . ."
                                         ". . . X O X . . ."
                                         ". . . . . . . . ."
                                         ". . O . . . O . ."
                                         ". . . . . . . . ."
                                         ". . . . . . . . .";

START_TEST(test_contributions_search)
{
    teach_engine *e = engine_g170();
    char err[512];
    teach_features *f = teach_features_new(e, 1, err, sizeof err);
    ck_assert_msg(f != NULL, "%s", err);
    go_game g;
    game9(&g, atari_saved);
    ck_assert(teach_features_set_position(f, &g, err, sizeof err));
    int moves[2] = {test_point(9, "E4"), test_point(9, "J1")};
    teach_move_features out[2], ref;
    ck_assert_msg(teach_features_compute(f, moves, 2, moves[0], 16, out, &ref, err, sizeof err),
                  "%s", err);
    /* five black stones; E5 goes from captured (about -1 in black's view) to safe (about +1):
     * the mean over them rises by about 2/5 */
    ck_assert_msg(out[0].strengthen_own > 0.2, "strengthen %f", out[0].strengthen_own);
    ck_assert_msg(out[1].strengthen_own < out[0].strengthen_own - 0.15,
                  "J1 strengthens %f, E4 %f", out[1].strengthen_own, out[0].strengthen_own);
    /* the reference's own loss is 0; J1 (a first-line corner move while E5 hangs) loses */
    ck_assert_double_eq(ref.score_loss, 0);
    ck_assert_double_eq_tol(out[0].score_loss, 0, 1e-9);
    ck_assert_double_eq_tol(out[1].score_loss, ref.score_lead - out[1].score_lead, 1e-9);
    ck_assert_msg(out[1].score_loss > 2, "J1 loses %f", out[1].score_loss);
    ck_assert_int_eq(out[1].dist_ref, teach_remi_distance(moves[0], moves[1]));
    ck_assert_int_eq(out[0].dist_last, -1);   /* a setup position: no last move */
    ck_assert_int_eq(out[0].visits, 16);
    go_game_free(&g);

    game9(&g, atari_capture);
    ck_assert(teach_features_set_position(f, &g, err, sizeof err));
    ck_assert_msg(teach_features_compute(f, moves, 2, moves[0], 16, out, &ref, err, sizeof err),
                  "%s", err);
    /* four white stones; E5's ownership in black's view goes from white's (escaped after the
     * pass) to black's (captured) */
    ck_assert_msg(out[0].weaken_opp > 0.2, "weaken %f", out[0].weaken_opp);
    ck_assert_msg(out[1].weaken_opp < out[0].weaken_opp - 0.15, "J1 weakens %f",
                  out[1].weaken_opp);
    go_game_free(&g);
    teach_features_free(f);
    teach_engine_free(e);
}
END_TEST

START_TEST(test_priors_and_determinism)
{
    teach_engine *e = engine_g170();
    char err[512];
    teach_features *f = teach_features_new(e, 1, err, sizeof err);
    ck_assert_msg(f != NULL, "%s", err);
    go_game g;
    game9(&g, atari_saved);
    ck_assert(teach_features_set_position(f, &g, err, sizeof err));
    /* one network: Prior_StrongHuman is Prior_KataGo; the legal policy sums to 1 */
    ck_assert_int_eq(teach_features_human_net(f), 0);
    double sum = 0;
    for (int y = 0; y < 9; y++)
        for (int x = 0; x < 9; x++) {
            int p = go_point_at(x, y);
            sum += teach_features_prior(f, p, false);
            ck_assert_double_eq(teach_features_prior(f, p, false),
                                teach_features_prior(f, p, true));
        }
    sum += teach_features_prior(f, GO_PASS, false);
    ck_assert_double_eq_tol(sum, 1, 1e-5);
    ck_assert_double_eq(teach_features_prior(f, test_point(9, "E5"), false), 0);   /* occupied */
    int top[3];
    ck_assert_int_eq(teach_features_top_moves(f, false, 3, top), 3);
    ck_assert(teach_features_prior(f, top[0], false) >= teach_features_prior(f, top[1], false));
    ck_assert(teach_features_prior(f, top[1], false) >= teach_features_prior(f, top[2], false));
    /* the same search twice gives the same numbers: the tree is dropped and the seed fixed */
    teach_after *a = malloc(2 * sizeof *a);
    ck_assert(teach_features_search_after(f, top[0], 12, &a[0], err, sizeof err));
    ck_assert(teach_features_search_after(f, top[1], 12, &a[1], err, sizeof err));
    ck_assert(teach_features_search_after(f, top[0], 12, &a[1], err, sizeof err));
    ck_assert_double_eq(a[0].score_lead, a[1].score_lead);
    /* steps 1, 2, 4, 8 then 12 */
    ck_assert_int_eq(a[0].num_steps, 5);
    ck_assert_int_eq(a[0].step_visits[0], 1);
    ck_assert_int_eq(a[0].step_visits[3], 8);
    ck_assert_int_eq(a[0].step_visits[4], 12);
    ck_assert_double_eq(a[0].step_lead[4], a[0].score_lead);
    /* an occupied point and an off-board one are refused by name */
    ck_assert(!teach_features_search_after(f, test_point(9, "E5"), 4, &a[0], err, sizeof err));
    ck_assert_msg(strstr(err, "E5") && strstr(err, "occupied"), "%s", err);
    int bad[1] = {test_point(9, "C7")};
    teach_move_features out;
    ck_assert(!teach_features_compute(f, bad, 1, GO_NO_POINT, 4, &out, NULL, err, sizeof err));
    ck_assert_msg(strstr(err, "C7") && strstr(err, "occupied"), "%s", err);
    free(a);
    go_game_free(&g);
    teach_features_free(f);
    teach_engine_free(e);
}
END_TEST

/* ---- the analysis commands --------------------------------------------------------------- */

START_TEST(test_analysis_features)
{
    teach_engine *e = engine_g170();
    char err[512];
    teach_player *p = teach_search_player_new(e, err, sizeof err);
    ck_assert_msg(p != NULL, "%s", err);
    go_game g;
    game9(&g, atari_saved);
    go_game_play(&g, test_point(9, "H3"), GO_BLACK);
    go_game_play(&g, test_point(9, "B8"), GO_WHITE);
    teach_analysis_base *base = malloc(sizeof *base);
    ck_assert(teach_analysis_base_eval(e, &g, base, err, sizeof err));
    ck_assert(base->has_pass_ownership);
    mcts_limits lim = {0};
    lim.max_visits = 24;
    ck_assert(teach_player_set_position(p, &g, err, sizeof err));
    ck_assert(teach_player_analyze(p, &lim, NULL, NULL, err, sizeof err));
    mcts_analysis an = {0};
    mcts_analysis_opts o = {0};
    o.move_ownership = true;
    ck_assert(teach_player_report(p, &o, &an));
    ck_assert_int_ge(an.num_moves, 2);
    teach_move_features *f = malloc(sizeof *f * (size_t)an.num_moves);
    teach_analysis_features(base, &g, &an, f);
    for (int k = 0; k < an.num_moves; k++) {
        const mcts_move_info *m = &an.moves[k];
        ck_assert_int_eq(f[k].move, m->move);
        ck_assert_double_eq_tol(f[k].score_loss, an.moves[0].score_lead - m->score_lead, 1e-12);
        ck_assert_int_eq(f[k].dist_last, teach_remi_distance(m->move, test_point(9, "B8")));
        ck_assert_int_eq(f[k].dist_last2, teach_remi_distance(m->move, test_point(9, "H3")));
        ck_assert_double_eq(f[k].prior_human,
                            base->prior_human[teach_policy_index(9, m->move)]);
        ck_assert(isfinite(f[k].strengthen_own) && isfinite(f[k].weaken_opp));
    }
    ck_assert_double_eq(f[0].score_loss, 0);
    free(f);
    free(base);
    mcts_analysis_free(&an);
    go_game_free(&g);
    teach_player_free(p);
    teach_engine_free(e);
}
END_TEST

/* One kata-analyze candidate: its move and the values of the feature keys before its pv. */
typedef struct candidate {
    int move;
    double remi, remi2, density, loss, human, strengthen, weaken;
} candidate;

/* The candidates of a kata-analyze reply, parsed token by token into c (at most max); returns
 * how many. A key absent before pv stays NAN. */
static int parse_candidates(const char *reply, candidate *c, int max)
{
    static const char *const keys[7] = {"remiDist",   "remiDist2",     "density",  "scoreLoss",
                                        "humanPrior", "strengthenOwn", "weakenOpp"};
    char *copy = strdup(reply), *save = NULL;
    ck_assert_ptr_nonnull(copy);
    int n = -1;
    bool in_pv = false;
    for (char *t = strtok_r(copy, " \n", &save); t; t = strtok_r(NULL, " \n", &save)) {
        if (!strcmp(t, "info")) {
            t = strtok_r(NULL, " \n", &save);
            if (!t || strcmp(t, "move") || !(t = strtok_r(NULL, " \n", &save)) || n + 1 >= max)
                break;
            c[++n] = (candidate){go_point_from_gtp(9, t), NAN, NAN, NAN, NAN, NAN, NAN, NAN};
            in_pv = false;
            continue;
        }
        if (n < 0 || in_pv)
            continue;
        if (!strcmp(t, "pv")) {
            in_pv = true;
            continue;
        }
        double *field[7] = {&c[n].remi,  &c[n].remi2,      &c[n].density, &c[n].loss,
                            &c[n].human, &c[n].strengthen, &c[n].weaken};
        for (int k = 0; k < 7; k++)
            if (!strcmp(t, keys[k])) {
                char *v = strtok_r(NULL, " \n", &save);
                ck_assert_ptr_nonnull(v);
                *field[k] = strtod(v, NULL);
            }
    }
    free(copy);
    return n + 1;
}

START_TEST(test_kata_analyze_features)
{
    gtp_engine ge;
    char *argv[] = {"gtp", "-w", TEST_G170, "--visits", "20", "--backend", "cpu"};
    char err[1024];
    ck_assert(gtp_engine_init(&ge));
    ck_assert_msg(gtp_engine_configure(&ge, 7, argv, err, sizeof err) == 0, "%s", err);
    char *r = test_gtp_feed(&ge,
                            "boardsize 9\nplay b e5\nplay w c3\nkata-analyze 0 moveFeatures true "
                            "maxmoves 4",
                            false);
    candidate c[8];
    int n = parse_candidates(r, c, 8);
    ck_assert_msg(n >= 2, "%s", r);
    free(r);
    for (int i = 0; i < n; i++) {
        ck_assert_double_eq(c[i].remi, teach_remi_distance(c[i].move, test_point(9, "C3")));
        ck_assert_double_eq(c[i].remi2, teach_remi_distance(c[i].move, test_point(9, "E5")));
        ck_assert(isfinite(c[i].density) && c[i].density > 0 && c[i].density < 0.2);
        ck_assert(isfinite(c[i].loss) && isfinite(c[i].human));
        ck_assert(isfinite(c[i].strengthen) && isfinite(c[i].weaken));
    }
    ck_assert_double_eq(c[0].loss, 0);
    /* lz-analyze has no such key */
    r = test_gtp_feed(&ge, "lz-analyze 0 moveFeatures true", false);
    ck_assert_msg(r[0] == '?', "%s", r);
    free(r);
    gtp_engine_free(&ge);
}
END_TEST

START_TEST(test_json_analysis_features)
{
    char path[] = "/tmp/shido-test-features-XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    const char *q = "{\"id\":\"a\",\"moves\":[[\"B\",\"E5\"],[\"W\",\"C3\"]],\"rules\":\"japanese\","
                    "\"komi\":6.5,\"boardXSize\":9,\"boardYSize\":9,\"maxVisits\":16,"
                    "\"includeMoveFeatures\":true}\n"
                    "{\"id\":\"b\",\"moves\":[],\"rules\":\"japanese\",\"komi\":6.5,"
                    "\"boardXSize\":9,\"boardYSize\":9,"
                    "\"maxVisits\":4,\"includeMoveFeatures\":3}\n";
    ck_assert_int_eq(write(fd, q, strlen(q)), (int)strlen(q));
    close(fd);
    const char *args[] = {"analysis", "-w", TEST_G170, "--threads", "1", NULL};
    char *err;
    int status;
    char *out = pipe_run(args, path, NULL, &err, &status);
    unlink(path);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "%s", err);
    /* errors are answered when a query is read (KataGo's order): b's error may come first */
    char *second = strchr(out, '\n');
    ck_assert_ptr_nonnull(second);
    *second++ = 0;
    char *first = out;
    if (strstr(first, "\"error\"")) {
        char *t = first;
        first = second;
        second = t;
        first[strcspn(first, "\n")] = 0;
    }
    cJSON *j = cJSON_Parse(first);
    ck_assert_ptr_nonnull(j);
    const cJSON *infos = cJSON_GetObjectItemCaseSensitive(j, "moveInfos"), *m;
    ck_assert_int_ge(cJSON_GetArraySize(infos), 1);
    double lead0 = NAN;
    cJSON_ArrayForEach(m, infos)
    {
        const cJSON *mv = cJSON_GetObjectItemCaseSensitive(m, "move");
        int p = go_point_from_gtp(9, mv->valuestring);
        ck_assert_double_eq(test_json_num(m, "remiDist"),
                            teach_remi_distance(p, go_point_from_gtp(9, "C3")));
        ck_assert_double_eq(test_json_num(m, "remiDist2"),
                            teach_remi_distance(p, go_point_from_gtp(9, "E5")));
        /* scoreLead is black's view here (black to move): the loss is the difference */
        double lead = test_json_num(m, "scoreLead");
        if (isnan(lead0))
            lead0 = lead;
        ck_assert_double_eq_tol(test_json_num(m, "scoreLoss"), lead0 - lead, 2e-6);
        test_json_num(m, "density");
        test_json_num(m, "humanPrior");
        test_json_num(m, "strengthenOwn");
        test_json_num(m, "weakenOpp");
    }
    cJSON_Delete(j);
    ck_assert_msg(strstr(second, "includeMoveFeatures must be a boolean"), "%s", second);
    free(out);
    free(err);
}
END_TEST

/* ---- shido features ---------------------------------------------------------------------- */

static char *run_features(const char *const *args, int *code, char **err)
{
    int status;
    char *out = pipe_run(args, "/dev/null", NULL, err, &status);
    ck_assert(WIFEXITED(status));
    *code = WEXITSTATUS(status);
    return out;
}

START_TEST(test_features_command)
{
    const char *args[] = {"features", TEST_MEIJIN, "--move", "30", "--ref", "Q11", "--json",
                          "-w", TEST_G170, "--visits", "8", "D4", "Q3", NULL};
    int code;
    char *err, *out = run_features(args, &code, &err);
    ck_assert_msg(code == 0, "%s", err);
    cJSON *j = cJSON_Parse(out);
    ck_assert_msg(j != NULL, "%s", out);
    ck_assert_double_eq(test_json_num(j, "moveNumber"), 30);
    const cJSON *ref = cJSON_GetObjectItemCaseSensitive(j, "reference");
    ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(ref, "move")->valuestring, "Q11");
    ck_assert_double_eq(test_json_num(ref, "scoreLoss"), 0);
    const cJSON *moves = cJSON_GetObjectItemCaseSensitive(j, "moves");
    ck_assert_int_eq(cJSON_GetArraySize(moves), 2);
    const cJSON *d4 = cJSON_GetArrayItem(moves, 0);
    ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(d4, "move")->valuestring, "D4");
    /* D4 (3, 15) to Q11 (15, 8): 12 + 7 + 12 */
    ck_assert_double_eq(test_json_num(d4, "remiDistRef"), 31);
    ck_assert_double_eq_tol(test_json_num(d4, "scoreLoss"),
                            test_json_num(ref, "scoreLead") - test_json_num(d4, "scoreLead"),
                            2e-6);
    ck_assert_double_eq(test_json_num(d4, "visits"), 8);
    cJSON_Delete(j);
    free(out);
    free(err);

    /* bad input: each error names what is wrong */
    static const struct {
        const char *args[12];
        const char *want;
    } bad[] = {
        {{"features", TEST_MEIJIN, "--move", "30", "-w", TEST_G170, "Z99", NULL},
         "no such move 'Z99'"},
        {{"features", TEST_MEIJIN, "--move", "400", "-w", TEST_G170, "D4", NULL}, "move 400"},
        {{"features", TEST_MEIJIN, "--move", "30", "-w", TEST_G170, "R16", NULL}, "R16"},
        {{"features", "/nonexistent.sgf", "-w", TEST_G170, "D4", NULL}, "/nonexistent.sgf"},
        {{"features", TEST_MEIJIN, "--move", "30", "--ref", "D99", "-w", TEST_G170, "D4", NULL},
         "D99"},
        {{"features", TEST_MEIJIN, "D4", NULL}, "a network is needed"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        out = run_features(bad[i].args, &code, &err);
        ck_assert_msg(code != 0 && strstr(err, bad[i].want), "case %zu: %d %s", i, code, err);
        free(out);
        free(err);
    }
}
END_TEST

Suite *features_suite(void)
{
    Suite *s = suite_create("features");
    TCase *t = tcase_create("geometry");
    tcase_add_test(t, test_remi_distance);
    tcase_add_test(t, test_density);
    tcase_add_test(t, test_symmetries);
    tcase_add_test(t, test_contributions_formula);
    suite_add_tcase(s, t);
    t = tcase_create("search");
    tcase_set_timeout(t, 600);
    tcase_add_test(t, test_contributions_search);
    tcase_add_test(t, test_priors_and_determinism);
    tcase_add_test(t, test_analysis_features);
    tcase_add_test(t, test_kata_analyze_features);
    tcase_add_test(t, test_json_analysis_features);
    tcase_add_test(t, test_features_command);
    suite_add_tcase(s, t);
    return s;
}

int main(void) { return test_run_suite(features_suite()); }
