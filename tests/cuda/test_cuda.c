/* tests/cuda/test_cuda.c -- the CUDA toolchain pieces on a real device: our kernel, cuBLAS and
 * cuDNN against CPU results. Built only with -DSHIDO_CUDA=ON; without a device every test
 * prints why it is skipped. No CUDA call happens before Check forks. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nn/cuda/cuda_device.h"

static bool have_device(void)
{
    if (nn_cuda_device_count() > 0)
        return true;
    printf("SKIP: no CUDA device present; GPU tests did not run\n");
    return false;
}

START_TEST(describe_devices)
{
    if (!have_device())
        return;
    char buf[2048];
    ck_assert(nn_cuda_describe(buf, sizeof buf));
    printf("%s", buf);
    ck_assert_ptr_nonnull(strstr(buf, "device 0:"));
}
END_TEST

START_TEST(selftest_matches_cpu)
{
    if (!have_device())
        return;
    char err[512] = "";
    ck_assert_msg(nn_cuda_selftest(err, sizeof err), "self-test: %s", err);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("cuda");
    TCase *t = tcase_create("device");
    tcase_set_timeout(t, 120);
    tcase_add_test(t, describe_devices);
    tcase_add_test(t, selftest_matches_cpu);
    suite_add_tcase(s, t);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
