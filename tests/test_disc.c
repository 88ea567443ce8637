/* tests/test_disc.c -- the tsumego discriminator's data and training driver (teach/disc.h):
 * corner windows, the four kinds of sample (a near miss re-solved by the solver must fail),
 * splits by problem, black to play in every window, the data file, a resumed run equal bit for
 * bit to an uninterrupted one, and the scorer the generators use (the side to play shown to a
 * net that knows it). */
#include "tests/common.h"

#include "nn/disc_inputs.h"
#include "teach/disc.h"
#include "tools/tsumego_records.h"
#include "weights/disc.h"

#define CHO_ELEMENTARY SHIDO_SHARED_DIR "/tsumego/cho-elementary.jsonl"

/* The samples of a and b are the same (field by field: the struct has padding). */
static void assert_same_samples(const teach_disc_data *a, const teach_disc_data *b)
{
    ck_assert_int_eq(a->n, b->n);
    for (int i = 0; i < a->n; i++)
        ck_assert_msg(memcmp(a->s[i].cell, b->s[i].cell, 81) == 0 &&
                      a->s[i].kind == b->s[i].kind && a->s[i].split == b->s[i].split &&
                      a->s[i].problem == b->s[i].problem, "sample %d (%s %s of problem %d; %s "
                      "%d) differs", i, teach_disc_kind_name((teach_disc_kind)a->s[i].kind),
                      teach_disc_split_name((teach_disc_split)a->s[i].split), a->s[i].problem,
                      teach_disc_kind_name((teach_disc_kind)b->s[i].kind), b->s[i].problem);
}

static int stones(const uint8_t *cell, int colour)
{
    int n = 0;
    for (int i = 0; i < 81; i++)
        n += cell[i] == colour;
    return n;
}

START_TEST(test_window)
{
    go_board b;
    /* a problem in the bottom-right corner of a 19x19 board: normal form puts it top-left */
    go_board_init(&b, 19);
    go_board_place(&b, go_point_at(18, 18), GO_WHITE);
    go_board_place(&b, go_point_at(17, 16), GO_BLACK);
    go_board_place(&b, go_point_at(12, 18), GO_BLACK);
    uint8_t cell[81];
    ck_assert(teach_disc_window(&b, cell));
    ck_assert_int_eq(cell[0], GO_WHITE);                 /* (18,18) -> (0,0) */
    ck_assert_int_eq(cell[2 * 9 + 1], GO_BLACK);         /* (17,16) -> (1,2) */
    ck_assert_int_eq(cell[0 * 9 + 6], GO_BLACK);         /* (12,18) -> (6,0) */
    ck_assert_int_eq(stones(cell, GO_BLACK) + stones(cell, GO_WHITE), 3);
    /* a stone on the tenth line from both sides fits no corner window */
    go_board_place(&b, go_point_at(9, 9), GO_BLACK);
    ck_assert(!teach_disc_window(&b, cell));
}
END_TEST

/* The first n problems of Cho Chikun's elementary book as sources. */
static teach_disc_source *cho_sources(int n)
{
    int count;
    char err[512];
    tsumego_record *r = tsumego_records_read_jsonl(CHO_ELEMENTARY, &count, err, sizeof err);
    ck_assert_msg(r != NULL, "%s", err);
    ck_assert_int_ge(count, n);
    teach_disc_source *s = calloc((size_t)n, sizeof *s);
    for (int i = 0; i < n; i++) {
        ck_assert(tsumego_record_board(&r[i], &s[i].board));
        s[i].to_play = r[i].to_play;
        s[i].goal = r[i].hint;
    }
    free(r);
    return s;
}

static teach_disc_data build(const teach_disc_source *src, int n, int threads)
{
    teach_disc_data_opts o = {.seed = 3, .threads = threads, .solver_nodes = 20000,
                              .near_tries = 6, .val_frac = 0.25, .test_frac = 0.25};
    teach_disc_data d;
    char err[256];
    ck_assert_msg(teach_disc_data_build(src, n, &o, &d, err, sizeof err), "%s", err);
    return d;
}

START_TEST(test_data_kinds)
{
    enum { N = 24 };
    teach_disc_source *src = cho_sources(N);
    teach_disc_data d = build(src, N, 2);
    int kinds[TEACH_DISC_KINDS] = {0}, split_of[N];
    for (int i = 0; i < N; i++)
        split_of[i] = -1;
    for (int i = 0; i < d.n; i++) {
        const teach_disc_sample *s = &d.s[i];
        kinds[s->kind]++;
        if (s->kind == TEACH_DISC_RANDOM) {
            int b = stones(s->cell, GO_BLACK), w = stones(s->cell, GO_WHITE);
            ck_assert_msg(b >= 3 && b <= 15 && w >= 3 && w <= 15, "random: %d black %d white", b,
                          w);
            ck_assert_int_eq(s->problem, -1);
            continue;
        }
        ck_assert(s->problem >= 0 && s->problem < N);
        /* every sample of a problem is in the problem's split */
        if (split_of[s->problem] < 0)
            split_of[s->problem] = s->split;
        ck_assert_int_eq(split_of[s->problem], s->split);
        uint8_t win[81];
        ck_assert(teach_disc_window(&src[s->problem].board, win));
        if (s->kind == TEACH_DISC_PROBLEM)
            ck_assert(memcmp(win, s->cell, 81) == 0);
        else
            ck_assert_msg(memcmp(win, s->cell, 81) != 0, "a %s sample equals its problem",
                          teach_disc_kind_name((teach_disc_kind)s->kind));
        if (s->kind == TEACH_DISC_FINAL) /* the main line adds stones (captures aside) */
            ck_assert(stones(s->cell, GO_BLACK) + stones(s->cell, GO_WHITE) !=
                      stones(win, GO_BLACK) + stones(win, GO_WHITE));
    }
    ck_assert_int_eq(kinds[TEACH_DISC_PROBLEM] + d.skipped_shape, N);
    ck_assert_int_eq(kinds[TEACH_DISC_RANDOM], kinds[TEACH_DISC_PROBLEM]);
    ck_assert_msg(kinds[TEACH_DISC_FINAL] >= N / 2 && kinds[TEACH_DISC_NEAR] >= N / 4,
                  "final %d near %d of %d problems", kinds[TEACH_DISC_FINAL],
                  kinds[TEACH_DISC_NEAR], N);
    ck_assert_int_eq(kinds[TEACH_DISC_FINAL] + d.final_missing, kinds[TEACH_DISC_PROBLEM]);
    /* the same seed with one thread gives the same samples */
    teach_disc_data e = build(src, N, 1);
    assert_same_samples(&e, &d);
    teach_disc_data_free(&e);
    teach_disc_data_free(&d);
    free(src);
}
END_TEST

/* The normal form has black to play: the same problems with their colours swapped and white to
 * play give the same samples (the solver is colour-blind, the near misses' draws too). */
START_TEST(test_white_to_play)
{
    enum { N = 12 };
    teach_disc_source *src = cho_sources(N), *white = calloc(N, sizeof *white);
    for (int i = 0; i < N; i++) {
        go_board_init(&white[i].board, 19);
        for (int p = 0; p < GO_POINTS; p++)
            if (go_board_on(&src[i].board, p) && src[i].board.color[p] != GO_EMPTY)
                go_board_place(&white[i].board, p, go_opponent((go_color)src[i].board.color[p]));
        ck_assert_int_eq(src[i].to_play, GO_BLACK);
        white[i].to_play = GO_WHITE;
        white[i].goal = src[i].goal;
    }
    teach_disc_data d = build(src, N, 2), w = build(white, N, 2);
    int near = 0;
    for (int i = 0; i < d.n; i++)
        near += d.s[i].kind == TEACH_DISC_NEAR;
    ck_assert_int_ge(near, 2);
    assert_same_samples(&w, &d);
    teach_disc_data_free(&d);
    teach_disc_data_free(&w);
    free(src);
    free(white);
}
END_TEST

/* A near miss is a problem with one or two stones changed where the solver proves the side to
 * play fails: solved again here from the sample itself, it must fail. */
START_TEST(test_near_misses_fail)
{
    enum { N = 16 };
    teach_disc_source *src = cho_sources(N);
    teach_disc_data d = build(src, N, 2);
    int checked = 0;
    for (int i = 0; i < d.n; i++) {
        const teach_disc_sample *s = &d.s[i];
        if (s->kind != TEACH_DISC_NEAR)
            continue;
        uint8_t win[81];
        ck_assert(teach_disc_window(&src[s->problem].board, win));
        int changed = 0;
        for (int k = 0; k < 81; k++)
            changed += win[k] != s->cell[k];
        ck_assert_msg(changed >= 1 && changed <= 2, "near miss %d changes %d points", i, changed);
        /* the window in normal form on a 19x19 board, the problem's side to play and goal */
        go_board b;
        go_board_init(&b, 19);
        for (int k = 0; k < 81; k++)
            if (s->cell[k])
                go_board_place(&b, go_point_at(k % 9, k / 9), (go_color)s->cell[k]);
        go_tsumego_problem p0, p;
        char err[256];
        go_board b0;
        go_board_init(&b0, 19);
        for (int k = 0; k < 81; k++)
            if (win[k])
                go_board_place(&b0, go_point_at(k % 9, k / 9), (go_color)win[k]);
        ck_assert(go_tsumego_setup(&b0, src[s->problem].to_play, src[s->problem].goal, &p0, err,
                                   sizeof err));
        go_tsumego_limits lim = {.time_s = 600, .max_nodes = 20000, .tt_log2 = 20,
                                 .first_move_only = true};
        go_tsumego_solution sol0, sol;
        ck_assert(go_tsumego_solve(&p0, &lim, &sol0));
        ck_assert(go_tsumego_setup(&b, src[s->problem].to_play, sol0.problem.goal, &p, err,
                                   sizeof err));
        ck_assert(go_tsumego_solve(&p, &lim, &sol));
        ck_assert_msg(sol.status.result == GO_TSUMEGO_FAILURE, "near miss of problem %d: %s",
                      s->problem, go_tsumego_result_name(sol.status.result));
        go_tsumego_solution_free(&sol0);
        go_tsumego_solution_free(&sol);
        checked++;
    }
    ck_assert_int_ge(checked, 3);
    teach_disc_data_free(&d);
    free(src);
}
END_TEST

START_TEST(test_data_file)
{
    enum { N = 8 };
    teach_disc_source *src = cho_sources(N);
    teach_disc_data d = build(src, N, 1), e;
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    ck_assert(teach_disc_data_write(&d, f));
    fclose(f);
    f = fmemopen(text, len, "r");
    char err[256];
    ck_assert_msg(teach_disc_data_read(f, &e, err, sizeof err), "%s", err);
    fclose(f);
    assert_same_samples(&e, &d);
    ck_assert_int_eq(e.final_missing, d.final_missing);
    teach_disc_data_free(&e);
    /* a damaged line is refused with its number */
    char *nl = strchr(strchr(text, '\n') + 1, '\n');
    nl[-3] = 'Z';
    f = fmemopen(text, len, "r");
    ck_assert(!teach_disc_data_read(f, &e, err, sizeof err));
    fclose(f);
    ck_assert_msg(strstr(err, "line 2"), "%s", err);
    f = fmemopen((char *)"problem train 0 ...\n", 20, "r");
    ck_assert(!teach_disc_data_read(f, &e, err, sizeof err));
    fclose(f);
    free(text);
    teach_disc_data_free(&d);
    free(src);
}
END_TEST

static char *tmp_path(const char *name)
{
    static char buf[6][256];
    static int next;
    char *p = buf[next++ % 6];
    snprintf(p, 256, "/tmp/shido-test-disc-%d-%s", (int)getpid(), name);
    return p;
}

static nn_desc *tiny_net(void)
{
    static const int conv[] = {8}, dense[] = {8};
    nn_desc *n = weights_disc_make(9, NN_DISC_PLANES, conv, 1, dense, 1, 5);
    ck_assert_ptr_nonnull(n);
    return n;
}

/* Two epochs straight and one epoch, then a resumed second, end on the same bits. */
START_TEST(test_resume_is_exact)
{
    enum { N = 24 };
    teach_disc_source *src = cho_sources(N);
    teach_disc_data d = build(src, N, 1);
    char err[512];
    char *full = tmp_path("full.dsc"), *part = tmp_path("part.dsc"),
         *state = tmp_path("part.state"), *fstate = tmp_path("full.state");
    teach_disc_train_opts o = {.epochs = 2, .batch = 8, .threads = 2, .patience = 10,
                               .adam = {3e-3f, 0.9f, 0.999f, 1e-8f}, .seed = 9,
                               .checkpoint = fstate, .best = full};
    nn_desc *a = tiny_net();
    ck_assert_msg(teach_disc_train(a, &d, &o, NULL, NULL, err, sizeof err), "%s", err);
    weights_disc_train_state sa;
    nn_desc *last_a = weights_load_disc(fstate, &sa, err, sizeof err);
    ck_assert_msg(last_a != NULL, "%s", err);
    ck_assert_int_eq(sa.epoch, 2);

    nn_desc *b = tiny_net();
    o.epochs = 1;
    o.checkpoint = state;
    o.best = part;
    ck_assert_msg(teach_disc_train(b, &d, &o, NULL, NULL, err, sizeof err), "%s", err);
    weights_disc_train_state sb;
    nn_desc *resumed = weights_load_disc(state, &sb, err, sizeof err);
    nn_desc *best = weights_load_disc(part, NULL, err, sizeof err);
    ck_assert_msg(resumed && best, "%s", err);
    ck_assert_int_eq(sb.epoch, 1);
    o.epochs = 2;
    ck_assert_msg(teach_disc_train(resumed, &d, &o, &sb, best, err, sizeof err), "%s", err);
    weights_disc_train_state sc;
    nn_desc *last_b = weights_load_disc(state, &sc, err, sizeof err);
    ck_assert_msg(last_b != NULL, "%s", err);
    ck_assert_int_eq(sc.epoch, 2);
    ck_assert_uint_eq(sc.step, sa.step);
    ck_assert_msg(sc.best_val_loss == sa.best_val_loss, "best val loss %.17g (best epoch %d) "
                  "resumed, %.17g (best epoch %d) straight; after epoch 1 %.17g",
                  sc.best_val_loss, sc.best_epoch, sa.best_val_loss, sa.best_epoch,
                  sb.best_val_loss);
    float *pa[2 * NN_DISC_MAX_LAYERS], *pb[2 * NN_DISC_MAX_LAYERS];
    size_t la[2 * NN_DISC_MAX_LAYERS], lb[2 * NN_DISC_MAX_LAYERS];
    int nt = weights_disc_tensors(last_a->disc, pa, la, 2 * NN_DISC_MAX_LAYERS);
    weights_disc_tensors(last_b->disc, pb, lb, 2 * NN_DISC_MAX_LAYERS);
    for (int i = 0; i < nt; i++)
        ck_assert_msg(memcmp(pa[i], pb[i], la[i] * sizeof(float)) == 0,
                      "tensor %d differs between the straight and the resumed run", i);
    ck_assert(memcmp(sa.m, sc.m, sa.num_params * sizeof(float)) == 0);
    /* the final weights (the best epoch's) are also what was saved as best */
    nn_desc *saved_best = weights_load_disc(full, NULL, err, sizeof err);
    ck_assert_msg(saved_best != NULL, "%s", err);
    weights_disc_tensors(a->disc, pa, la, 2 * NN_DISC_MAX_LAYERS);
    weights_disc_tensors(saved_best->disc, pb, lb, 2 * NN_DISC_MAX_LAYERS);
    for (int i = 0; i < nt; i++)
        ck_assert(memcmp(pa[i], pb[i], la[i] * sizeof(float)) == 0);
    /* trained by default with black to play (no colour swaps), kept in the checkpoints */
    ck_assert(a->disc->black_to_play && last_a->disc->black_to_play &&
              saved_best->disc->black_to_play && last_b->disc->black_to_play);
    /* the test split's evaluation counts every sample under 8 variants, 16 with the colours
     * swapped for a colour-free net */
    teach_disc_eval ev, ev16;
    ck_assert_msg(teach_disc_evaluate(a->disc, &d, TEACH_DISC_TEST, 2, NULL, &ev, err,
                                      sizeof err), "%s", err);
    a->disc->black_to_play = false;
    ck_assert_msg(teach_disc_evaluate(a->disc, &d, TEACH_DISC_TEST, 2, NULL, &ev16, err,
                                      sizeof err), "%s", err);
    long n_test = 0, counted = 0, counted16 = 0;
    for (int i = 0; i < d.n; i++)
        n_test += d.s[i].split == TEACH_DISC_TEST;
    for (int k = 0; k < TEACH_DISC_KINDS; k++) {
        counted += ev.n[k];
        counted16 += ev16.n[k];
        ck_assert(ev.right[k] >= 0 && ev.right[k] <= ev.n[k]);
    }
    ck_assert_int_eq(counted, 8 * n_test);
    ck_assert_int_eq(counted16, 16 * n_test);
    /* and each test sample once, judged as the scorer judges it: the scorer's likeness of the
     * window (the mean of its 8 symmetries) on the right side of 0.5 (a likeness within 1e-4 of
     * 0.5 may fall either way between the two forward passes) */
    teach_disc_scorer *sco = teach_disc_scorer_load(full, "cpu", 1, err, sizeof err);
    ck_assert_msg(sco != NULL, "%s", err);
    long samples = 0, voted = 0, by_scorer = 0, borderline = 0;
    for (int k = 0; k < TEACH_DISC_KINDS; k++) {
        ck_assert(ev.voted[k] >= 0 && ev.voted[k] <= ev.samples[k]);
        samples += ev.samples[k];
        voted += ev.voted[k];
    }
    ck_assert_int_eq(samples, n_test);
    for (int i = 0; i < d.n; i++) {
        if (d.s[i].split != TEACH_DISC_TEST)
            continue;
        go_board w;
        go_board_init(&w, 19);
        for (int c = 0; c < 81; c++)
            if (d.s[i].cell[c] != GO_EMPTY)
                go_board_place(&w, go_point_at(c % 9, c / 9), (go_color)d.s[i].cell[c]);
        const go_board *wb = &w;
        int zero = 0;
        double like;
        ck_assert_msg(teach_disc_score(sco, 1, &wb, &zero, &zero, NULL, &like, err, sizeof err),
                      "%s", err);
        by_scorer += (like > 0.5) == (d.s[i].kind == TEACH_DISC_PROBLEM);
        borderline += fabs(like - 0.5) < 1e-4;
    }
    ck_assert_msg(labs(by_scorer - voted) <= borderline, "the evaluation judged %ld of %ld "
                  "right by the mean of 8, the scorer %ld (%ld near 0.5)", voted, samples,
                  by_scorer, borderline);
    teach_disc_scorer_free(sco);
    weights_disc_train_state_free(&sa);
    weights_disc_train_state_free(&sb);
    weights_disc_train_state_free(&sc);
    nn_desc *all[] = {a, b, last_a, resumed, best, last_b, saved_best};
    for (int i = 0; i < 7; i++)
        nn_desc_free(all[i]);
    const char *paths[] = {full, part, state, fstate};
    for (int i = 0; i < 4; i++)
        remove(paths[i]);
    teach_disc_data_free(&d);
    free(src);
}
END_TEST

START_TEST(test_scorer)
{
    char err[512];
    char *path = tmp_path("score.dsc");
    nn_desc *n = weights_disc_paper(9, NN_DISC_PLANES, 2);
    ck_assert_msg(weights_save_disc(path, n->disc, NULL, err, sizeof err), "%s", err);
    teach_disc_scorer *s = teach_disc_scorer_load(path, "cpu", 2, err, sizeof err);
    ck_assert_msg(s != NULL, "%s", err);
    teach_disc_source *src = cho_sources(3);
    double v = teach_disc_score_problem(s, &src[0].board, GO_BLACK, err, sizeof err);
    ck_assert_msg(v > 0 && v < 1, "likeness %g: %s", v, err);
    /* the same window scored directly: the mean of the 8 symmetries through the trainer's
     * forward */
    uint8_t cell[81];
    ck_assert(teach_disc_window(&src[0].board, cell));
    teach_disc_sample smp = {.kind = TEACH_DISC_PROBLEM};
    memcpy(smp.cell, cell, 81);
    float planes[8 * NN_DISC_PLANES * 81], logits[8];
    for (int sym = 0; sym < 8; sym++)
        teach_disc_sample_planes(&smp, sym, false, planes + sym * NN_DISC_PLANES * 81);
    nn_trainer *t = nn_trainer_new(n->disc, 8, 1);
    nn_trainer_predict(t, 8, planes, logits);
    double mean = 0;
    for (int i = 0; i < 8; i++)
        mean += 1 / (1 + exp(-logits[i])) / 8;
    ck_assert_msg(fabs(mean - v) < 1e-5, "scorer %g, direct %g", v, mean);
    nn_trainer_free(t);
    /* the generators' ranking: the same likeness per board, 0 where no corner window fits */
    go_board centre;
    go_board_init(&centre, 19);
    go_board_place(&centre, go_point_at(9, 9), GO_BLACK);
    const go_board *boards[3] = {&src[0].board, &centre, &src[1].board};
    go_color movers[3] = {GO_BLACK, GO_BLACK, GO_BLACK};
    float ranks[3];
    ck_assert(teach_disc_rank(s, boards, movers, 3, ranks));
    ck_assert_msg(fabs(ranks[0] - v) < 1e-6 && ranks[1] == 0.0f, "%g %g", ranks[0], ranks[1]);
    ck_assert(fabs(ranks[2] - teach_disc_score_problem(s, &src[1].board, GO_BLACK, err,
                                                       sizeof err)) < 1e-6);
    /* a colour-free net (the paper's) does not know the side to play */
    ck_assert(teach_disc_score_problem(s, &src[0].board, GO_WHITE, err, sizeof err) == v);
    teach_disc_scorer_free(s);
    /* one trained with black to play sees a position with white to play with its colours
     * swapped, and the ranking passes each board's side to play */
    n->disc->black_to_play = true;
    ck_assert_msg(weights_save_disc(path, n->disc, NULL, err, sizeof err), "%s", err);
    s = teach_disc_scorer_load(path, "cpu", 2, err, sizeof err);
    ck_assert_msg(s != NULL, "%s", err);
    go_board swapped;
    go_board_init(&swapped, 19);
    for (int p = 0; p < GO_POINTS; p++)
        if (go_board_on(&src[0].board, p) && src[0].board.color[p] != GO_EMPTY)
            go_board_place(&swapped, p, go_opponent((go_color)src[0].board.color[p]));
    double vb = teach_disc_score_problem(s, &src[0].board, GO_BLACK, err, sizeof err);
    double vw = teach_disc_score_problem(s, &src[0].board, GO_WHITE, err, sizeof err);
    double vs = teach_disc_score_problem(s, &swapped, GO_BLACK, err, sizeof err);
    ck_assert_msg(vb == v && vw == vs && vw != vb, "black %g, white %g, swapped %g", vb, vw, vs);
    movers[0] = GO_WHITE;
    ck_assert(teach_disc_rank(s, boards, movers, 3, ranks));
    ck_assert_msg(fabs(ranks[0] - vw) < 1e-6, "%g %g", ranks[0], vw);
    teach_disc_scorer_free(s);
    /* a network that plays is not a discriminator */
    ck_assert(teach_disc_scorer_load(TEST_B2C16, "cpu", 1, err, sizeof err) == NULL);
    ck_assert_msg(strstr(err, "not a tsumego discriminator"), "%s", err);
    free(src);
    nn_desc_free(n);
    remove(path);
}
END_TEST

/* `shido train-discriminator --conv --dense` trains the net of those layers (one epoch on 24
 * problems' data from a file), refuses bad layer lists, and keeps the paper's net by default. */
START_TEST(test_command_layers)
{
    enum { N = 24 };
    teach_disc_source *src = cho_sources(N);
    teach_disc_data d = build(src, N, 1);
    char *data = tmp_path("cmd.data"), *out = tmp_path("cmd.dsc"), cmd[2048], text[4096], err[256];
    FILE *f = fopen(data, "w");
    ck_assert(f && teach_disc_data_write(&d, f));
    fclose(f);
    const char *layers[] = {"--conv 8,6 --dense 5,4", ""};
    for (int run = 0; run < 2; run++) {
        snprintf(cmd, sizeof cmd, "%s train-discriminator --problems "
                 "%s/tsumego/cho-elementary.jsonl --data %s --out %s --epochs 1 --quiet %s 2>&1",
                 SHIDO_BINARY, SHIDO_SHARED_DIR, data, out, layers[run]);
        ck_assert_msg(test_run_command(cmd, text, sizeof text) == 0, "%s", text);
        nn_desc *n = weights_load_disc(out, NULL, err, sizeof err);
        ck_assert_msg(n != NULL, "%s", err);
        const nn_disc_desc *dd = n->disc;
        /* 3x3 layers, the 1x1 to one plane, hidden dense layers, the logit */
        static const int want[2][6] = {{8, 6, 1, 5, 4, 1}, {128, 96, 64, 1, 64, 1}};
        ck_assert_int_eq(dd->num_layers, 6);
        for (int l = 0; l < dd->num_layers; l++) {
            const nn_disc_layer *L = &dd->layer[l];
            int outs = L->kind == NN_DISC_CONV ? L->conv.c_out : L->dense.c_out;
            ck_assert_msg(outs == want[run][l], "run %d layer %d: %d outputs, want %d", run, l,
                          outs, want[run][l]);
        }
        nn_desc_free(n);
    }
    /* --eval-only: the test split's table, each window counted once in the "all" row, with the
     * accuracy of each symmetry and as the scorer judges */
    snprintf(cmd, sizeof cmd, "%s train-discriminator --data %s --out %s --eval-only 2>&1",
             SHIDO_BINARY, data, out);
    ck_assert_msg(test_run_command(cmd, text, sizeof text) == 0, "%s", text);
    int n_test = 0;
    for (int i = 0; i < d.n; i++)
        n_test += d.s[i].split == TEACH_DISC_TEST;
    char row[64];
    snprintf(row, sizeof row, "| all | %d | ", n_test);
    ck_assert_msg(n_test > 0 && strstr(text, row) && strstr(text, "as the scorer") &&
                  strstr(text, "| near | "), "%d test windows: %s", n_test, text);
    /* data without a test split: said, and a failure of --eval-only (no table of zeros) */
    for (int i = 0; i < d.n; i++)
        if (d.s[i].split == TEACH_DISC_TEST)
            d.s[i].split = TEACH_DISC_VAL;
    f = fopen(data, "w");
    ck_assert(f && teach_disc_data_write(&d, f));
    fclose(f);
    ck_assert_int_eq(test_run_command(cmd, text, sizeof text), 1);
    ck_assert_msg(strstr(text, "no test split") && !strstr(text, "| all |"), "%s", text);
    static const char *bad[] = {"--conv 8,,6", "--conv 0", "--conv 1,2,3,4,5,6,7", "--dense x",
                                "--dense 1,2,3,4"};
    for (int i = 0; i < 5; i++) {
        snprintf(cmd, sizeof cmd, "%s train-discriminator --data %s --out %s %s 2>&1",
                 SHIDO_BINARY, data, out, bad[i]);
        ck_assert_int_eq(test_run_command(cmd, text, sizeof text), 2);
        ck_assert_msg(strstr(text, bad[i][2] == 'c' ? "--conv takes" : "--dense takes"), "%s: %s",
                      bad[i], text);
    }
    const char *paths[] = {data, out};
    for (int i = 0; i < 2; i++)
        remove(paths[i]);
    char extra[300];
    const char *suffix[] = {".dsc.state", ".csv", ".png"};
    for (int i = 0; i < 3; i++) {
        snprintf(extra, sizeof extra, "/tmp/shido-test-disc-%d-cmd%s", (int)getpid(), suffix[i]);
        remove(extra);
    }
    teach_disc_data_free(&d);
    free(src);
}
END_TEST

static Suite *disc_suite(void)
{
    Suite *s = suite_create("disc");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, test_window);
    tcase_add_test(tc, test_data_kinds);
    tcase_add_test(tc, test_near_misses_fail);
    tcase_add_test(tc, test_white_to_play);
    tcase_add_test(tc, test_data_file);
    tcase_add_test(tc, test_resume_is_exact);
    tcase_add_test(tc, test_scorer);
    tcase_add_test(tc, test_command_layers);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return test_run_suite(disc_suite()); }
