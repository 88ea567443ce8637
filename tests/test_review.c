/* tests/test_review.c -- the game review (teach/review.h): KaTrain's classes and labels, the
 * summary (accuracy, mean loss, classes, biggest mistakes) and the moves assembled from
 * consecutive positions on hand-made numbers computed by hand; the review SGF of the whole
 * Meijin game (hand-made numbers) and `shido review` of its first 40 moves with a few visits,
 * read back with go/sgf.h (every move's comment present with its parts, the explanations of the
 * mistakes, the best lines as variations, the summary, the game information, the game itself
 * unchanged), and its JSON; bad input. */
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

/* Checks a reviewed game read back against the game g0 it reviews: the moves unchanged, the
 * game information kept from orig, the summary at the root, every move's comment with every
 * part, the explanations and the best lines; returns the explained moves and variations. */
static void check_review_sgf(const go_sgf_collection *c, const go_game *g0,
                             const go_sgf_node *orig, int *explained, int *variations)
{
    char why[256];
    const go_sgf_node *root = c->games[0];
    go_game g1;
    ck_assert_msg(go_sgf_to_game(root, -1, &g1, why, sizeof why), "%s", why);
    ck_assert_int_eq(g1.num_moves, g0->num_moves);
    for (int i = 0; i < g0->num_moves; i++)
        ck_assert(g1.moves[i].point == g0->moves[i].point &&
                  g1.moves[i].color == g0->moves[i].color);
    go_game_free(&g1);
    static const char *const info[] = {"PB", "PW", "RE", "DT", "EV"};
    for (size_t k = 0; k < sizeof info / sizeof *info; k++)
        if (go_sgf_get(orig, info[k]))
            ck_assert_str_eq(go_sgf_get(root, info[k]), go_sgf_get(orig, info[k]));
    ck_assert_ptr_nonnull(strstr(go_sgf_get(root, "C"), "accuracy"));
    const go_sgf_node *n = root;
    char head[32], v[8];
    *explained = *variations = 0;
    for (int i = 0; i < g0->num_moves; i++) {
        const go_sgf_node *parent = n;
        ck_assert_int_ge(parent->num_children, 1);
        n = parent->children[0];
        const char *cm = go_sgf_get(n, "C");
        ck_assert_msg(cm != NULL, "move %d has no comment", i + 1);
        snprintf(head, sizeof head, "Move %d: %s %s\n", i + 1,
                 g0->moves[i].color == GO_BLACK ? "B" : "W",
                 go_point_to_gtp(g0->board.size, g0->moves[i].point, v));
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
            (*explained)++;
        }
        if (parent->num_children > 1) {
            const go_sgf_node *var = parent->children[1];
            ck_assert_ptr_nonnull(strstr(go_sgf_get(var, "C"), "Best line"));
            ck_assert_ptr_nonnull(go_sgf_get(var, g0->moves[i].color == GO_BLACK ? "B" : "W"));
            (*variations)++;
        }
    }
}

START_TEST(test_review_sgf)
{
    /* the whole Meijin game with review numbers made up by hand: every one of its 210 moves
     * commented, the mistakes (every fifth move loses 4 points) explained with their best line */
    char why[256];
    go_sgf_collection *orig = go_sgf_read_file(TEST_MEIJIN, why, sizeof why);
    ck_assert_msg(orig != NULL, "%s", why);
    go_game g;
    ck_assert(go_sgf_to_game(orig->games[0], -1, &g, why, sizeof why));
    int n = g.num_moves;
    ck_assert_int_eq(n, 210);
    teach_review_params p = teach_review_params_default();
    teach_review_pos *pos = calloc((size_t)n + 1, sizeof *pos);
    for (int i = 0; i <= n; i++) {
        teach_review_pos *x = &pos[i];
        x->to_move = i < n ? g.moves[i].color : go_opponent(g.moves[n - 1].color);
        x->score_lead = i % 5 == 1 ? 4.5 : 0.5 * (i % 2 ? -1 : 1);
        x->winrate = 0.5;
        x->played = i < n ? g.moves[i].point : GO_NO_POINT;
        int other = go_point_at(i % 19, (i / 19) % 19);
        x->num_cands = 1;
        x->cands[0] = (teach_review_cand){i % 5 == 0 && i < n ? other : x->played, 0, 2,
                                          x->score_lead, 0.5};
        x->pv_len = 2;
        x->pv[0] = x->cands[0].move;
        x->pv[1] = go_point_at(18 - i % 19, 0);
        x->played_f.move = x->played;
        x->played_f.dist_last = x->played_f.dist_last2 = 5;
        x->played_f.density = 0.1;
        x->played_f.policy_rank = 3;
        x->best_f.move = x->cands[0].move;
        x->best_f.density = 0.2;
        x->has_ownership = x->has_pass_ownership = true;
    }
    teach_review_move *m = calloc((size_t)n, sizeof *m);
    teach_review_assemble(&g, pos, &p, m);
    teach_review_player pl[2];
    teach_review_summarise(m, n, &p, pl);
    go_sgf_collection *c = teach_review_sgf(orig->games[0], &g, m, n, &p, "summary: accuracy");
    ck_assert_ptr_nonnull(c);
    char *text = go_sgf_write(c);
    go_sgf_free(c);
    c = go_sgf_parse(text, strlen(text), why, sizeof why);
    ck_assert_msg(c != NULL, "%s", why);
    int explained, variations;
    check_review_sgf(c, &g, orig->games[0], &explained, &variations);
    int want = 0;
    for (int i = 0; i < n; i++)
        want += m[i].explained;
    ck_assert_int_eq(explained, want);
    ck_assert_int_gt(explained, 30);
    ck_assert_int_gt(variations, 30);
    go_sgf_free(c);
    free(text);
    free(m);
    free(pos);
    go_game_free(&g);
    go_sgf_free(orig);
}
END_TEST

START_TEST(test_review_command)
{
    /* the first 40 moves of the Meijin game with its game information (the sanitizer build
     * evaluates slowly; test_review_sgf covers the whole game's SGF) */
    char dir[] = "/tmp/shido-test-review-XXXXXX", in[512], sgf[512], js[512], why[256];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(in, sizeof in, "%s/game.sgf", dir);
    snprintf(sgf, sizeof sgf, "%s/review.sgf", dir);
    snprintf(js, sizeof js, "%s/review.json", dir);
    go_sgf_collection *orig = go_sgf_read_file(TEST_MEIJIN, why, sizeof why);
    ck_assert_msg(orig != NULL, "%s", why);
    go_game g0;
    ck_assert(go_sgf_to_game(orig->games[0], 40, &g0, why, sizeof why));
    go_sgf_collection *part = go_sgf_from_game(&g0);
    static const char *const info[] = {"PB", "PW", "RE", "DT", "EV"};
    for (size_t k = 0; k < sizeof info / sizeof *info; k++)
        ck_assert(go_sgf_add_value(part->games[0], info[k], go_sgf_get(orig->games[0], info[k])));
    char *text = go_sgf_write(part);
    test_write_file(in, text, strlen(text), false);
    free(text);
    go_sgf_free(part);

    const char *args[] = {"review", in, "-w", TEST_G170, "--visits", "2", "--threads", "2",
                          "--policy-symmetries", "1", "--out", sgf, "--json", js,
                          "--explain-min-loss", "0.5", NULL};
    int code;
    char *err, *out = run(args, &code, &err);
    ck_assert_msg(code == 0, "%s", err);
    ck_assert_ptr_nonnull(strstr(out, "accuracy"));
    ck_assert_ptr_nonnull(strstr(out, "biggest mistakes of black"));
    free(out);
    free(err);
    go_sgf_collection *c = go_sgf_read_file(sgf, why, sizeof why);
    ck_assert_msg(c != NULL, "%s", why);
    int explained, variations;
    check_review_sgf(c, &g0, orig->games[0], &explained, &variations);
    ck_assert_int_gt(explained, 0);
    ck_assert_int_gt(variations, 0);
    go_sgf_free(c);

    /* the JSON: both players, the classes add up to their moves, one record a move */
    text = test_read_file(js, NULL);
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
    }
    ck_assert_int_eq(total, g0.num_moves);
    ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(j, "moves")),
                     g0.num_moves);
    cJSON_Delete(j);
    free(text);
    go_game_free(&g0);
    go_sgf_free(orig);
    unlink(in);
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
    tcase_add_test(t, test_review_sgf);
    tcase_add_test(t, test_review_command);
    suite_add_tcase(s, t);
    return s;
}

int main(void) { return test_run_suite(review_suite()); }
