/* tests/test_kata_tax.c -- KataGo inputs under rules with a group tax: the area planes 18 / 19 of
 * inputs versions 6 and 7 under area scoring with tax SEKI or ALL hold KataGo's independent-life
 * area (fillRowV6 / fillRowV7), checked on small diagrams derived by hand; and a real KataGo net
 * (g170 b6c96, inputs version 7) evaluates positions under territory and area rules with tax SEKI
 * and ALL. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "go/board.h"
#include "go/game.h"
#include "go/rules.h"
#include "weights/desc.h"
#include "nn/kata_inputs.h"
#include "nn/ref/kata_forward.h"
#include "weights/weights.h"

#include "tests/common.h"

enum { PLANE_OWN_AREA = 18, PLANE_OPP_AREA = 19 };

/* A game on the diagram's setup stones, black to move, under the named preset with the tax set. */
static void game_from(go_game *g, int size, const char *pic, const char *preset, go_tax_rule tax)
{
    go_rules r;
    ck_assert(go_rules_preset(&r, preset));
    r.tax = tax;
    ck_assert(go_game_init(g, size, &r, 7.5f));
    test_game_setup_diagram(g, pic);
}

/* The planes 18 / 19 as a diagram: X where plane 18 (the side to move's area) is set, O for plane
 * 19, '.' for neither; '?' flags a point with both, or a value other than 0 and 1. */
static void area_planes_text(const nn_kata_inputs *in, char *out)
{
    int n = in->size;
    for (int i = 0; i < n * n; i++) {
        float own = in->spatial[PLANE_OWN_AREA * n * n + i];
        float opp = in->spatial[PLANE_OPP_AREA * n * n + i];
        bool ok = (own == 0.0f || own == 1.0f) && (opp == 0.0f || opp == 1.0f) && own + opp < 2;
        *out++ = !ok ? '?' : own == 1.0f ? 'X' : opp == 1.0f ? 'O' : '.';
    }
    *out = 0;
}

/* Fills the inputs of version v for g under its own rules and compares the area planes with want
 * (a diagram of X / O / . without spaces, top row first). */
static void expect_area_planes(const char *name, int v, const go_game *g, const char *want)
{
    static nn_kata_inputs in;
    char err[256], got[GO_MAX_SIZE * GO_MAX_SIZE + 1];
    ck_assert_msg(nn_kata_inputs_fill(v, g, &g->rules, &in, err, sizeof err), "%s: %s", name,
                  err);
    area_planes_text(&in, got);
    ck_assert_msg(strcmp(got, want) == 0, "%s (inputs v%d): planes 18/19\n%s\nwant\n%s", name, v,
                  got, want);
    ck_assert_float_eq(in.global[10], g->rules.tax != GO_TAX_NONE ? 1.0f : 0.0f);
    ck_assert_float_eq(in.global[11], g->rules.tax == GO_TAX_ALL ? 1.0f : 0.0f);
}

/* One eye each and a shared liberty between them (a seki). Basic area: black owns its stones and
 * A5, white its stones and E5, C5 is dame. Both one-colour areas touch the dame, so both are in
 * seki: with a tax only the stones are shown (their territory is not), without one the eyes are
 * shown too. */
static const char *const seki = ". X . O . "
                                "X X X O O "
                                "X X X O O "
                                "X X X O O "
                                "X X X O O ";
static const char *const seki_taxed = ".X.O."
                                      "XXXOO"
                                      "XXXOO"
                                      "XXXOO"
                                      "XXXOO";
static const char *const seki_untaxed = "XX.OO"
                                        "XXXOO"
                                        "XXXOO"
                                        "XXXOO"
                                        "XXXOO";

/* No dame anywhere: black's three eyes on the top edge and white's two on the bottom edge give
 * two independent areas, shown whole (stones and eyes) with or without a tax. */
static const char *const settled = ". X . X . "
                                   "X X X X X "
                                   "X X X X X "
                                   "O O O O O "
                                   ". O O . O ";
static const char *const settled_area = "XXXXX"
                                        "XXXXX"
                                        "XXXXX"
                                        "OOOOO"
                                        "OOOOO";

/* A black group in atari in white's corner, its one eye A5 included: the black stones lie in
 * white's pass-alive territory (one point not next to white), so the basic area gives the whole
 * board to white; that area touches no dame and holds no white stone in atari, so it is
 * independent and shown whole, the dead black stones as white's with or without a tax. */
static const char *const dead_in_corner = ". X O . O "
                                          "X X O O O "
                                          "O O O . O "
                                          ". O O O O "
                                          "O O . O . ";
static const char *const all_white = "OOOOOOOOOOOOOOOOOOOOOOOOO";

START_TEST(area_planes_under_tax)
{
    const struct {
        const char *name, *pic, *taxed, *untaxed;
    } cases[] = {{"seki", seki, seki_taxed, seki_untaxed},
                 {"settled", settled, settled_area, settled_area},
                 {"dead in corner", dead_in_corner, all_white, all_white}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        for (int v = 6; v <= 7; v++) {
            go_game g;
            game_from(&g, 5, cases[i].pic, "chinese", GO_TAX_SEKI);
            expect_area_planes(cases[i].name, v, &g, cases[i].taxed);
            g.rules.tax = GO_TAX_ALL;
            expect_area_planes(cases[i].name, v, &g, cases[i].taxed);
            g.rules.tax = GO_TAX_NONE;
            expect_area_planes(cases[i].name, v, &g, cases[i].untaxed);
            go_game_free(&g);
        }
}
END_TEST

/* With white to move the planes swap: plane 18 is white's area. */
START_TEST(area_planes_follow_side_to_move)
{
    go_game g;
    game_from(&g, 5, seki, "stone-scoring", GO_TAX_ALL);
    ck_assert_int_eq(go_game_play(&g, GO_PASS, GO_BLACK), GO_MOVE_OK);
    const char *want = ".O.X."
                       "OOOXX"
                       "OOOXX"
                       "OOOXX"
                       "OOOXX";
    expect_area_planes("seki, white to move", 7, &g, want);
    go_game_free(&g);
}
END_TEST

/* Territory scoring shows no area before KataGo's second encore, which GTP never reaches. */
START_TEST(territory_scoring_has_no_area_planes)
{
    go_game g;
    game_from(&g, 5, settled, "japanese", GO_TAX_SEKI);
    const char *none = "........................."; /* 25 points */
    expect_area_planes("japanese", 7, &g, none);
    g.rules.tax = GO_TAX_ALL;
    expect_area_planes("japanese, tax all", 7, &g, none);
    go_game_free(&g);
}
END_TEST

/* g170 (model version 8, inputs version 7) keeps the tax rule, so these go through the taxed
 * area planes and the tax globals; every output must be finite and the policy a distribution. */
START_TEST(g170_evaluates_under_tax)
{
    char err[1024];
    nn_desc *d = weights_load(TEST_G170, err, sizeof err);
    ck_assert_msg(d, "%s", err);
    static const struct {
        const char *preset;
        go_scoring_rule scoring;
        go_tax_rule tax;
    } rules[] = {{"japanese", GO_SCORING_TERRITORY, GO_TAX_SEKI},
                 {"japanese", GO_SCORING_TERRITORY, GO_TAX_ALL},
                 {"chinese", GO_SCORING_AREA, GO_TAX_SEKI},
                 {"stone-scoring", GO_SCORING_AREA, GO_TAX_ALL}};
    const char *pic = ". X . X . O . O . "
                      "X X X X X O O O O "
                      "X X . . X O . . O "
                      "X . X . X O . O O "
                      "X X X X X O O O . "
                      "X . . X O . O . . "
                      "X X X X O O O O O "
                      "X . X O . . . . . "
                      "X X X O . . . . . ";
    nn_kata_output *out = malloc(sizeof *out);
    ck_assert_ptr_nonnull(out);
    for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++) {
        go_game g;
        game_from(&g, 9, pic, rules[i].preset, rules[i].tax);
        g.rules.scoring = rules[i].scoring;
        ck_assert_msg(nn_kata_ref_eval(d, &g, 0, NN_KATA_DEFAULT_OPTIMISM, out, err, sizeof err),
                      "%s tax %s: %s", rules[i].preset, go_tax_rule_name(rules[i].tax), err);
        double win = out->white_win + out->white_loss + out->no_result, policy = out->policy_pass;
        for (int p = 0; p < 81; p++)
            if (!isnan(out->policy[p]))
                policy += out->policy[p];
        ck_assert_msg(fabs(win - 1) < 1e-4 && fabs(policy - 1) < 1e-4, "%s: win %g policy %g",
                      rules[i].preset, win, policy);
        ck_assert(isfinite(out->white_lead) && isfinite(out->white_score_selfplay));
        for (int p = 0; p < 81; p++)
            ck_assert(isfinite(out->white_ownership[p]));
        go_game_free(&g);
    }
    free(out);
    nn_desc_free(d);
}
END_TEST

Suite *kata_tax_suite(void)
{
    Suite *s = suite_create("kata_tax");
    TCase *planes = tcase_create("planes");
    tcase_add_test(planes, area_planes_under_tax);
    tcase_add_test(planes, area_planes_follow_side_to_move);
    tcase_add_test(planes, territory_scoring_has_no_area_planes);
    suite_add_tcase(s, planes);
    TCase *net = tcase_create("net");
    tcase_set_timeout(net, 120);
    tcase_add_test(net, g170_evaluates_under_tax);
    suite_add_tcase(s, net);
    return s;
}

int main(void) { return test_run_suite(kata_tax_suite()); }
