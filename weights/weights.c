/* weights/weights.c -- format sniffing in front of the KataGo and Leela Zero loaders. */
#include "weights/weights.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "weights/disc.h"
#include "weights/kata.h"
#include "weights/lz.h"

nn_desc *weights_load(const char *path, char *err, int err_len)
{
    if (!path || !*path) {
        snprintf(err, (size_t)err_len, "%s: no file name given", __func__);
        return NULL;
    }
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        snprintf(err, (size_t)err_len, "%s: is a directory, not a network file", path);
        return NULL;
    }
    if (weights_is_kata(path))
        return weights_load_kata(path, err, err_len);
    if (weights_is_lz(path))
        return weights_load_lz(path, err, err_len);
    if (weights_is_disc(path))
        return weights_load_disc(path, NULL, err, err_len);
    /* Neither sniffer says why it refused: tell an unreadable file from a foreign one. */
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, (size_t)err_len, "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    fclose(f);
    snprintf(err, (size_t)err_len,
             "%s: unknown network format (expected a KataGo model, .bin or .txt, optionally "
             "gzipped, Leela Zero text weights, or a shido discriminator checkpoint)",
             path);
    return NULL;
}
