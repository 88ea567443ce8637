/* fuzz/fuzz_kata.c -- libFuzzer target for the KataGo model loader (weights/kata.h).
 *
 * The input is written to temporary files and loaded three ways: as a binary model (.bin), as a
 * text model (.txt), and gzip-compressed under the ambiguous ".gz" name (binary first, then
 * text). Every load must either succeed or fail with a message that starts with the file's path;
 * whatever loads must evaluate on a small position through the reference forward pass.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "go/game.h"
#include "nn/ref/kata_forward.h"
#include "weights/kata.h"

static char dir[64];
static go_game game;
static nn_kata_output output;

static const char *const names[] = {"model.bin", "model.txt", "model.gz"};

/* The temporary files and their folder go when the fuzzer exits. */
static void cleanup(void)
{
    char path[128];
    for (int i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        remove(path);
    }
    remove(dir);
}

static void setup(void)
{
    snprintf(dir, sizeof dir, "/tmp/fuzz-kata-XXXXXX");
    go_rules rules;
    if (!mkdtemp(dir) || atexit(cleanup) || !go_rules_preset(&rules, "chinese") ||
        !go_game_init(&game, 9, &rules, 7.5f))
        abort();
    static const char *moves[] = {"E5", "C3", "G7", "pass"};
    for (int i = 0; i < 4; i++)
        if (go_game_play(&game, go_point_from_gtp(9, moves[i]), i % 2 ? GO_WHITE : GO_BLACK) !=
            GO_MOVE_OK)
            abort();
}

static void load_and_run(const char *path)
{
    char err[1024] = "";
    nn_desc *d = weights_load_kata(path, err, sizeof err);
    if (!d) {
        if (strncmp(err, path, strlen(path)))
            abort();
        return;
    }
    if (!nn_kata_ref_eval(d, &game, 5, NN_KATA_DEFAULT_OPTIMISM, &output, err, sizeof err) &&
        !strstr(err, "independent-life"))
        abort();
    nn_desc_free(d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!dir[0])
        setup();
    char path[128];
    for (int i = 0; i < 2; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        FILE *f = fopen(path, "wb");
        if (!f || fwrite(data, 1, size, f) != size || fclose(f))
            abort();
        load_and_run(path);
    }
    snprintf(path, sizeof path, "%s/%s", dir, names[2]);
    gzFile z = gzopen(path, "wb1");
    if (!z || (size && gzwrite(z, data, (unsigned)size) != (int)size) || gzclose_w(z) != Z_OK)
        abort();
    load_and_run(path);
    return 0;
}
