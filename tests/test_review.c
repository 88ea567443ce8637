/* tests/test_review.c -- the game review (teach/review.h): KaTrain's classes and labels, the
 * summary (accuracy, mean loss, classes, biggest mistakes) and the moves assembled from
 * consecutive positions on hand-made numbers computed by hand; `shido review` of a professional
 * game with a few visits, its SGF read back with go/sgf.h (every move's comment present with
 * its parts, the explanations of the mistakes, the best lines as variations, the summary, the
 * game itself unchanged) and its JSON; bad input. */
#include <check.h>
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "go/sgf.h"
#include "teach/review.h"

#include "tests/common.h"
#include "tests/shido_pipe.h"

START_TEST(test_classes)
{
    teach_review_params p = teach_review_params_default();
    ck_assert_int_eq(p.visits, 500);
    ck_assert_double_eq(p.explain_min_loss, 3);
    static const struct {
        double loss;
        int klass;
    } cases[] = {{20, 0}, {12, 0}, {11.9, 1}, {6, 1}, {3, 2}, {2.99, 3}, {1.5, 3},
                 {0.5, 4}, {0.49, 5}, {0, 5}, {-3, 5}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        ck_assert_int_eq(teach_review_class(&p, cases[i].loss), cases[i].klass);
    char buf[32];
    ck_assert_str_eq(teach_review_class_label(&p, 0, buf, sizeof buf), "≥ 12");
    ck_assert_str_eq(teach_review_class_label(&p, 3, buf, sizeof buf), "≥ 1.5");
    ck_assert_str_eq(teach_review_class_label(&p, 5, buf, sizeof buf), "< 0.5");
}
END_TEST

START_TEST(test_summary)
{
    teach_review_params p = teach_review_params_default();
    teach_review_move m[5];
    memset(m, 0, sizeof m);
    /* black: losses 1, 0, 2 at complexity 0 (importance max(0.05, loss / 4)); white: -1, 7 at
     * complexity 0.5 */
    double loss[5] = {1, -1, 0, 7, 2};
    for (int i = 0; i < 5; i++) {
        m[i].number = i + 1;
        m[i].color = i % 2 ? GO_WHITE : GO_BLACK;
        m[i].loss = loss[i];
        m[i].complexity = i % 2 ? 0.5 : 0;
        m[i].top_move = i == 0;
        m[i].top5 = i <= 2;
    }
    teach_review_player s[2];
    teach_review_summarise(m, 5, &p, s);
    ck_assert_int_eq(s[0].moves, 3);
    /* (1 * 0.25 + 0 * 0.05 + 2 * 0.5) / (0.25 + 0.05 + 0.5) = 1.5625 */
    ck_assert_double_eq_tol(s[0].weighted_loss, 1.5625, 1e-12);
    ck_assert_double_eq_tol(s[0].accuracy, 100 * pow(0.75, 1.5625), 1e-9);
    ck_assert_double_eq_tol(s[0].mean_loss, 1, 1e-12);
    ck_assert_double_eq_tol(s[0].top_move, 1.0 / 3, 1e-12);
    ck_assert_double_eq_tol(s[0].top5, 2.0 / 3, 1e-12);
    ck_assert_int_eq(s[0].classes[3], 1);   /* 2: >= 1.5 */
    ck_assert_int_eq(s[0].classes[4], 1);   /* 1: >= 0.5 */
    ck_assert_int_eq(s[0].classes[5], 1);   /* 0 */
    ck_assert_int_eq(s[0].biggest[0], 4);
    ck_assert_int_eq(s[0].biggest[1], 0);
    ck_assert_int_eq(s[0].biggest[2], -1);
    /* white: -1 counts as 0 (importance 0.5), 7 with importance 1: 7 / 1.5 */
    ck_assert_int_eq(s[1].moves, 2);
    ck_assert_double_eq_tol(s[1].weighted_loss, 7 / 1.5, 1e-12);
    ck_assert_double_eq_tol(s[1].mean_loss, 3.5, 1e-12);
    ck_assert_int_eq(s[1].classes[1], 1);
    ck_assert_int_eq(s[1].classes[5], 1);
    ck_assert_int_eq(s[1].biggest[0], 3);
    ck_assert_int_eq(s[1].biggest[1], -1);
    /* nobody moved: no accuracy */
    teach_review_summarise(m, 0, &p, s);
    ck_assert(isnan(s[0].accuracy));
}
END_TEST

START_TEST(test_assemble)
{
    teach_review_params p = teach_review_params_default();
    p.visits = 7;
    go_game g;
    test_game_from(&g, 9, NULL, GO_BLACK, "japanese", 6.5f);
    int c3 = test_point(9, "C3"), g7 = test_point(9, "G7"), e5 = test_point(9, "E5");
    ck_assert_int_eq(go_game_play(&g, c3, GO_BLACK), GO_MOVE_OK);
    ck_assert_int_eq(go_game_play(&g, g7, GO_WHITE), GO_MOVE_OK);
    teach_review_pos *pos = calloc(3, sizeof *pos);
    /* before move 1, black to move: root lead +1; candidates E5 (order 0, lead 1, prior 0.6)
     * and C3 (order 1, lead 0, prior 0.4) */
    pos[0].to_move = GO_BLACK;
    pos[0].score_lead = 1.0;
    pos[0].winrate = 0.6;
    pos[0].num_cands = 2;
    pos[0].cands[0] = (teach_review_cand){e5, 0, 10, 1.0, 0.6};
    pos[0].cands[1] = (teach_review_cand){c3, 1, 5, 0.0, 0.4};
    pos[0].pv_len = 2;
    pos[0].pv[0] = e5;
    pos[0].pv[1] = g7;
    pos[0].played = c3;
    pos[0].played_f.move = c3;
    pos[0].best_f.move = e5;
    /* before move 2, white to move: white leads 0.5; after it black leads 0 */
    pos[1].to_move = GO_WHITE;
    pos[1].score_lead = 0.5;
    pos[1].winrate = 0.55;
    pos[1].num_cands = 1;
    pos[1].cands[0] = (teach_review_cand){g7, 0, 10, 0.5, 1.0};
    pos[1].played = g7;
    pos[1].played_f.move = g7;
    pos[2].to_move = GO_BLACK;
    pos[2].score_lead = 0.0;
    pos[2].winrate = 0.5;
    teach_review_move m[2];
    teach_review_assemble(&g, pos, &p, m);
    /* move 1: 1.0 before, -0.5 after (white's +0.5): loss 1.5 */
    ck_assert_int_eq(m[0].number, 1);
    ck_assert_double_eq_tol(m[0].score_before, 1.0, 1e-12);
    ck_assert_double_eq_tol(m[0].score_after, -0.5, 1e-12);
    ck_assert_double_eq_tol(m[0].winrate_after, 0.45, 1e-12);
    ck_assert_double_eq_tol(m[0].loss, 1.5, 1e-12);
    ck_assert_int_eq(m[0].klass, 3);
    /* complexity (0 * 0.6 + 1 * 0.4) / 1; C3 is order 1 but loses 1 >= 0.5: not top 5 */
    ck_assert_double_eq_tol(m[0].complexity, 0.4, 1e-12);
    ck_assert(!m[0].top_move && !m[0].top5);
    ck_assert_int_eq(m[0].best, e5);
    ck_assert_int_eq(m[0].pv_len, 2);
    /* the features' loss against the best candidate: 1.0 - (-0.5) */
    ck_assert_double_eq_tol(m[0].f.score_loss, 1.5, 1e-12);
    ck_assert_int_eq(m[0].f.visits, 7);
    ck_assert(!m[0].explained);   /* below 3 points */
    /* move 2: white 0.5 before, 0 after */
    ck_assert_double_eq_tol(m[1].loss, 0.5, 1e-12);
    ck_assert(m[1].top_move && m[1].top5);
    /* a 4-point mistake is explained */
    pos[2].score_lead = 3.5;
    teach_review_assemble(&g, pos, &p, m);
    ck_assert_double_eq_tol(m[1].loss, 4.0, 1e-12);
    ck_assert(!m[1].explained);   /* the best move itself: nothing to explain */
    pos[1].cands[0].move = e5;
    pos[1].best_f.move = e5;
    teach_review_assemble(&g, pos, &p, m);
    ck_assert(m[1].explained);
    ck_assert_ptr_nonnull(strstr(m[1].explain_en, "4.0 points"));
    ck_assert_ptr_nonnull(strstr(m[1].explain_ja, "4.0目"));
    free(pos);
    go_game_free(&g);
}
END_TEST

static char *run(const char *const *args, int *code, char **err)
{
    int status;
    char *out = pipe_run(args, "/dev/null", NULL, err, &status);
    ck_assert(WIFEXITED(status));
    *code = WEXITSTATUS(status);
    return out;
}

START_TEST(test_review_command)
{
    char dir[] = "/tmp/shido-test-review-XXXXXX", sgf[512], js[512];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(sgf, sizeof sgf, "%s/review.sgf", dir);
    snprintf(js, sizeof js, "%s/review.json", dir);
    const char *args[] = {"review", TEST_MEIJIN, "-w", TEST_G170, "--visits", "4", "--threads",
                          "2", "--out", sgf, "--json", js, "--explain-min-loss", "1.5", NULL};
    int code;
    char *err, *out = run(args, &code, &err);
    ck_assert_msg(code == 0, "%s", err);
    ck_assert_ptr_nonnull(strstr(out, "accuracy"));
    ck_assert_ptr_nonnull(strstr(out, "biggest mistakes of black"));
    free(out);
    free(err);

    /* the original game, and the review read back */
    char why[256];
    go_sgf_collection *orig = go_sgf_read_file(TEST_MEIJIN, why, sizeof why);
    ck_assert_msg(orig != NULL, "%s", why);
    go_game g0, g1;
    ck_assert(go_sgf_to_game(orig->games[0], -1, &g0, why, sizeof why));
    go_sgf_collection *c = go_sgf_read_file(sgf, why, sizeof why);
    ck_assert_msg(c != NULL, "%s", why);
    const go_sgf_node *root = c->games[0];
    ck_assert_msg(go_sgf_to_game(root, -1, &g1, why, sizeof why), "%s", why);
    ck_assert_int_eq(g1.num_moves, g0.num_moves);
    for (int i = 0; i < g0.num_moves; i++)
        ck_assert(g1.moves[i].point == g0.moves[i].point &&
                  g1.moves[i].color == g0.moves[i].color);
    ck_assert_str_eq(go_sgf_get(root, "PB"), go_sgf_get(orig->games[0], "PB"));
    ck_assert_str_eq(go_sgf_get(root, "PW"), go_sgf_get(orig->games[0], "PW"));
    ck_assert_str_eq(go_sgf_get(root, "RE"), go_sgf_get(orig->games[0], "RE"));
    ck_assert_ptr_nonnull(strstr(go_sgf_get(root, "C"), "accuracy"));
    /* every move's comment, with every part; mistakes explained; best lines beside */
    const go_sgf_node *n = root;
    int explained = 0, variations = 0;
    char head[32], v[8];
    for (int i = 0; i < g0.num_moves; i++) {
        const go_sgf_node *parent = n;
        ck_assert_int_ge(parent->num_children, 1);
        n = parent->children[0];
        const char *cm = go_sgf_get(n, "C");
        ck_assert_msg(cm != NULL, "move %d has no comment", i + 1);
        snprintf(head, sizeof head, "Move %d: %s %s\n", i + 1,
                 g0.moves[i].color == GO_BLACK ? "B" : "W",
                 go_point_to_gtp(19, g0.moves[i].point, v));
        ck_assert_msg(!strncmp(cm, head, strlen(head)), "move %d: %s", i + 1, cm);
        /* the contributions need stones of the side before the move: the mover's from move 3,
         * the opponent's from move 2 */
        static const char *const parts[] = {"\nScore: ", "\nLoss: ", "\nBest: ", "; line:",
                                            "\nPolicy: rank ", "\nFeatures: remiDist ",
                                            "density ", "priorKataGo ", "humanPrior ",
                                            "weakenOpp ", "strengthenOwn "};
        size_t nparts = sizeof parts / sizeof *parts - (i < 2) - (i < 1);
        for (size_t k = 0; k < nparts; k++)
            ck_assert_msg(strstr(cm, parts[k]), "move %d lacks '%s': %s", i + 1, parts[k], cm);
        if (strstr(cm, "\nWhy: ")) {
            ck_assert_ptr_nonnull(strstr(cm, "\n理由: "));
            explained++;
        }
        if (parent->num_children > 1) {
            const go_sgf_node *var = parent->children[1];
            ck_assert_ptr_nonnull(strstr(go_sgf_get(var, "C"), "Best line"));
            ck_assert_ptr_nonnull(go_sgf_get(var, g0.moves[i].color == GO_BLACK ? "B" : "W"));
            variations++;
        }
    }
    ck_assert_int_gt(explained, 0);
    ck_assert_int_gt(variations, 0);
    go_sgf_free(c);

    /* the JSON: both players, the classes add up to their moves, one record a move */
    char *text = test_read_file(js, NULL);
    cJSON *j = cJSON_Parse(text);
    ck_assert_ptr_nonnull(j);
    const cJSON *players = cJSON_GetObjectItemCaseSensitive(j, "players");
    int total = 0;
    for (int k = 0; k < 2; k++) {
        const cJSON *pl = cJSON_GetObjectItemCaseSensitive(players, k ? "W" : "B"), *cl;
        double acc = test_json_num(pl, "accuracy");
        ck_assert(acc > 0 && acc <= 100);
        int moves = (int)test_json_num(pl, "moves"), sum = 0;
        cJSON_ArrayForEach(cl, cJSON_GetObjectItemCaseSensitive(pl, "classes"))
            sum += (int)test_json_num(cl, "count");
        ck_assert_int_eq(sum, moves);
        total += moves;
        ck_assert_int_ge(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(pl,
                                                                             "biggestMistakes")),
                         1);
    }
    ck_assert_int_eq(total, g0.num_moves);
    ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(j, "moves")),
                     g0.num_moves);
    cJSON_Delete(j);
    free(text);
    go_game_free(&g0);
    go_game_free(&g1);
    go_sgf_free(orig);
    unlink(sgf);
    unlink(js);
    rmdir(dir);

    /* bad input */
    const char *nofile[] = {"review", "/nonexistent.sgf", "-w", TEST_G170, NULL};
    free(run(nofile, &code, &err));
    ck_assert_msg(code == 1 && strstr(err, "/nonexistent.sgf"), "%s", err);
    free(err);
    const char *nogame[] = {"review", TEST_MEIJIN, "--game", "5", "-w", TEST_G170, NULL};
    free(run(nogame, &code, &err));
    ck_assert_msg(code == 1 && strstr(err, "game 5"), "%s", err);
    free(err);
    const char *nonet[] = {"review", TEST_MEIJIN, NULL};
    free(run(nonet, &code, &err));
    ck_assert_msg(code == 2 && strstr(err, "one network"), "%s", err);
    free(err);
}
END_TEST

Suite *review_suite(void)
{
    Suite *s = suite_create("review");
    TCase *t = tcase_create("review");
    tcase_set_timeout(t, 600);
    tcase_add_test(t, test_classes);
    tcase_add_test(t, test_summary);
    tcase_add_test(t, test_assemble);
    tcase_add_test(t, test_review_command);
    suite_add_tcase(s, t);
    return s;
}

int main(void) { return test_run_suite(review_suite()); }
