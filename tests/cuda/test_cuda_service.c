/* tests/cuda/test_cuda_service.c -- every GPU busy: one evaluation service (nn.h's nn_service)
 * per CUDA device with several searches on each, and the engine's device lists
 * (--backend cuda:device=all). Built only with -DSHIDO_CUDA=ON; without a device the GPU test
 * says it is skipped (the suite then exits with ctest's skip code), while the engine's fallback
 * (a device list with no device: one service on the CPU backend) is checked. No CUDA call
 * happens before Check forks. */
#include <check.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "go/game.h"
#include "mcts/mcts.h"
#include "nn/nn.h"
#include "teach/engine.h"
#include "teach/player.h"
#include "tests/common.h"

#define MAX_DEVICES 8
#define PER_DEVICE 2

typedef struct search_job {
    mcts_search *s;
    const go_game *g;
    mcts_analysis a;
    bool ok;
} search_job;

static void *search_job_run(void *arg)
{
    search_job *j = arg;
    char err[256];
    mcts_set_position(j->s, j->g);
    j->ok = mcts_run(j->s, NULL, NULL, NULL, err, sizeof err) &&
            mcts_analysis_get(j->s, NULL, &j->a);
    return NULL;
}

/* One service per device (cuda:device=i), two searches on each at once: every search makes its
 * visits and every device evaluates. */
START_TEST(service_every_device)
{
    int n = nn_backend_devices("cuda");
    if (n < 1) {
        test_skip("no CUDA device", "service_every_device");
        return;
    }
    n = n > MAX_DEVICES ? MAX_DEVICES : n;
    nn_model *m[MAX_DEVICES];
    nn_service *svc[MAX_DEVICES];
    search_job jobs[MAX_DEVICES * PER_DEVICE];
    pthread_t th[MAX_DEVICES * PER_DEVICE];
    go_game g;
    test_game_from(&g, 9, NULL, GO_BLACK, "tromp-taylor", 7.0f);
    mcts_params p = mcts_params_default();
    p.batch_size = 8;
    p.max_visits = 64;
    p.seed = 99;
    char err[512] = "";
    for (int d = 0; d < n; d++) {
        char backend[32];
        snprintf(backend, sizeof backend, "cuda:device=%d", d);
        m[d] = test_model_load(TEST_G170, backend);
        svc[d] = nn_service_new(m[d], 32, 1, 2000, err, sizeof err);
        ck_assert_msg(svc[d], "%s", err);
        for (int k = 0; k < PER_DEVICE; k++) {
            search_job *j = &jobs[d * PER_DEVICE + k];
            *j = (search_job){mcts_new_client(svc[d], NULL, &p, err, sizeof err), &g, {0}, false};
            ck_assert_msg(j->s, "%s", err);
        }
    }
    for (int i = 0; i < n * PER_DEVICE; i++)
        ck_assert(pthread_create(&th[i], NULL, search_job_run, &jobs[i]) == 0);
    for (int i = 0; i < n * PER_DEVICE; i++)
        pthread_join(th[i], NULL);
    for (int i = 0; i < n * PER_DEVICE; i++) {
        ck_assert(jobs[i].ok);
        ck_assert_int_eq(jobs[i].a.root_visits, 64);
        mcts_analysis_free(&jobs[i].a);
        mcts_free(jobs[i].s);
    }
    for (int d = 0; d < n; d++) {
        nn_service_stats st;
        nn_service_get_stats(svc[d], &st);
        ck_assert_msg(st.positions > 0, "device %d evaluated nothing", d);
        printf("service_every_device: device %d: %" PRId64 " positions in %" PRId64 " batches\n",
               d, st.positions, st.batches);
        nn_service_free(svc[d]);
        nn_model_free(m[d]);
    }
    go_game_free(&g);
}
END_TEST

/* --backend cuda:device=all: as many services as devices (one when there is none: the network
 * falls back to the CPU backend), and client search players on them search. */
START_TEST(engine_device_list)
{
    teach_options o;
    teach_options_init(&o);
    o.weights[o.num_weights++] = TEST_G170;
    snprintf(o.backend, sizeof o.backend, "cuda:device=all");
    o.params.max_visits = 16;
    char err[512] = "";
    teach_engine *e = teach_engine_new(&o, err, sizeof err);
    ck_assert_msg(e, "%s", err);
    int devices = nn_backend_devices("cuda");
    ck_assert_int_eq(teach_engine_num_devices(e), devices < 16 ? devices : 16);
    ck_assert_msg(teach_engine_start_services(e, 16, 1, 0, err, sizeof err), "%s", err);
    ck_assert_int_eq(teach_engine_num_services(e), devices > 0 ? teach_engine_num_devices(e) : 1);
    go_game g;
    test_game_from(&g, 9, NULL, GO_BLACK, "tromp-taylor", 7.0f);
    for (int i = 0; i < 2; i++) {
        teach_player *pl = teach_search_player_new_client(e, i, err, sizeof err);
        ck_assert_msg(pl, "%s", err);
        ck_assert(teach_player_set_position(pl, &g, err, sizeof err));
        ck_assert_msg(teach_player_analyze(pl, NULL, NULL, NULL, err, sizeof err), "%s", err);
        mcts_analysis a = {0};
        ck_assert(teach_player_report(pl, NULL, &a));
        ck_assert_int_eq(a.root_visits, 16);
        mcts_analysis_free(&a);
        teach_player_free(pl);
    }
    go_game_free(&g);
    teach_engine_free(e);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("cuda_service");
    TCase *tc = tcase_create("service");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, engine_device_list);
    tcase_add_test(tc, service_every_device);
    suite_add_tcase(s, tc);
    return test_run_suite(s);
}
