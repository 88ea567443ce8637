/* fuzz/fuzz_lz.c -- libFuzzer target for the Leela Zero weights loader.
 *
 * The loader takes a path (it reads through zlib, plain or gzipped), so each input goes to a
 * fresh temporary file. Any input must load or fail with a message that names the file; whatever
 * loads must be a consistent description (shapes as the format fixes them, every value finite,
 * conv biases folded away) and must say it is Leela Zero's when sniffed.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "weights/desc_lz.h"
#include "weights/lz.h"

static void check_finite(const float *v, size_t n)
{
    if (!v)
        abort();
    for (size_t i = 0; i < n; i++)
        if (!isfinite(v[i]))
            abort();
}

static void check_conv_bn(const nn_conv_desc *c, const nn_bn_desc *b, int c_in, int c_out, int k)
{
    if (c->c_in != c_in || c->c_out != c_out || c->ky != k || c->kx != k || c->bias || b->c != c_out)
        abort();
    check_finite(c->w, (size_t)c_out * c_in * k * k);
    check_finite(b->mean, (size_t)c_out);
    check_finite(b->var, (size_t)c_out);
    for (int i = 0; i < c_out; i++)
        if (!(b->var[i] + b->eps > 0.0f))
            abort();
}

static void check_fc(const nn_matmul_desc *m, int c_in, int c_out)
{
    if (m->c_in != c_in || m->c_out != c_out)
        abort();
    check_finite(m->w, (size_t)c_in * c_out);
    check_finite(m->bias, (size_t)c_out);
}

static void check_desc(const nn_desc *d, const char *path)
{
    const struct nn_lz_desc *lz = d->lz;
    if (d->family != NN_FAMILY_LZ || !lz || strcmp(d->source, path) != 0)
        abort();
    if ((lz->version != 1 && lz->version != 2) || lz->value_is_black != (lz->version == 2) ||
        lz->blocks < 0 || lz->filters < 1)
        abort();
    int f = lz->filters;
    check_conv_bn(&lz->input_conv, &lz->input_bn, NN_LZ_INPUT_PLANES, f, 3);
    for (int i = 0; i < lz->blocks; i++) {
        check_conv_bn(&lz->block[i].conv1, &lz->block[i].bn1, f, f, 3);
        check_conv_bn(&lz->block[i].conv2, &lz->block[i].bn2, f, f, 3);
    }
    check_conv_bn(&lz->policy_conv, &lz->policy_bn, f, NN_LZ_POLICY_CHANNELS, 1);
    check_fc(&lz->policy_fc, NN_LZ_POLICY_CHANNELS * NN_LZ_POINTS, NN_LZ_POLICY_OUTPUTS);
    check_conv_bn(&lz->value_conv, &lz->value_bn, f, NN_LZ_VALUE_CHANNELS, 1);
    check_fc(&lz->value_fc1, NN_LZ_VALUE_CHANNELS * NN_LZ_POINTS, NN_LZ_VALUE_HIDDEN);
    check_fc(&lz->value_fc2, NN_LZ_VALUE_HIDDEN, 1);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[] = "/tmp/shido-fuzz-lz-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0)
        abort();
    for (size_t done = 0; done < size;) {
        ssize_t w = write(fd, data + done, size - done);
        if (w <= 0)
            abort();
        done += (size_t)w;
    }
    close(fd);

    char err[1024] = "";
    nn_desc *d = weights_load_lz(path, err, sizeof err);
    bool sniffed = weights_is_lz(path);
    if (d) {
        check_desc(d, path);
        if (!sniffed)
            abort();
        nn_desc_free(d);
    } else if (!strstr(err, path) || !strstr(err, "weights_load_lz: ")) {
        abort();
    }
    unlink(path);
    return 0;
}
