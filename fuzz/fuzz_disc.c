/* fuzz/fuzz_disc.c -- libFuzzer target for the tsumego discriminator's files: the checkpoint
 * loader (weights/disc.h) and the data file reader (teach/disc.h).
 *
 * The input is loaded as a checkpoint twice: as given (almost always stopped by a header field
 * or the crc) and with a valid crc appended, so the fuzzer reaches every field behind the crc.
 * A load must succeed or fail with a message that starts with the file's path; a net that loads
 * must check (nn_disc_desc_check) and run through the reference forward pass, and save again.
 * The input is also read as a data file, which must succeed or fail with a message. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "nn/ref/disc_forward.h"
#include "teach/disc.h"
#include "weights/disc.h"

static char dir[64];

static void load_and_run(const char *path)
{
    char err[1024] = "";
    weights_disc_train_state ts;
    nn_desc *d = weights_load_disc(path, &ts, err, sizeof err);
    if (!d) {
        if (strncmp(err, path, strlen(path)))
            abort();
        return;
    }
    if (!nn_disc_desc_check(d->disc, err, sizeof err))
        abort();
    size_t in = (size_t)d->disc->planes * d->disc->size * d->disc->size;
    float *x = calloc(in, sizeof *x), logit;
    if (!x || !nn_disc_forward_ref(d->disc, x, &logit))
        abort();
    char again[128];
    snprintf(again, sizeof again, "%s/again.dsc", dir);
    if (!weights_save_disc(again, d->disc, ts.m ? &ts : NULL, err, sizeof err))
        abort();
    free(x);
    weights_disc_train_state_free(&ts);
    nn_desc_free(d);
}

/* The temporary files and their folder go when the fuzzer exits. */
static void cleanup(void)
{
    static const char *const names[] = {"net.dsc", "again.dsc"};
    char path[128];
    for (int i = 0; i < 2; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        remove(path);
    }
    remove(dir);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!dir[0]) {
        snprintf(dir, sizeof dir, "/tmp/fuzz-disc-XXXXXX");
        if (!mkdtemp(dir) || atexit(cleanup))
            abort();
    }
    char path[128];
    snprintf(path, sizeof path, "%s/net.dsc", dir);
    for (int crc = 0; crc < 2; crc++) {
        FILE *f = fopen(path, "wb");
        if (!f || fwrite(data, 1, size, f) != size)
            abort();
        if (crc) {
            uint32_t c = (uint32_t)crc32(0L, data, (uInt)size);
            unsigned char le[4] = {(unsigned char)c, (unsigned char)(c >> 8),
                                   (unsigned char)(c >> 16), (unsigned char)(c >> 24)};
            if (fwrite(le, 1, 4, f) != 4)
                abort();
        }
        if (fclose(f))
            abort();
        load_and_run(path);
    }
    FILE *m = fmemopen((void *)data, size ? size : 1, "r");
    if (!m)
        abort();
    teach_disc_data d;
    char err[256] = "";
    if (size && teach_disc_data_read(m, &d, err, sizeof err))
        teach_disc_data_free(&d);
    else if (size && !err[0])
        abort();
    fclose(m);
    return 0;
}
