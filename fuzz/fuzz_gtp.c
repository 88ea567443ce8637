/* fuzz/fuzz_gtp.c -- libFuzzer target for the GTP engine.
 *
 * The input is a GTP session: it goes through gtp_engine_run, the same reader `shido gtp` uses,
 * into one fresh engine. File access is off, so loadsgf / printsgf FILE cannot touch the disk;
 * the tsumego solver answers genmove and tsumego_solve with half a millisecond a solve.
 * Checked: the board stays sound, and the output is a sequence of well-formed replies (each
 * starting with '=' or '?', ended by one empty line, never more replies than input lines).
 *
 * Run: fuzz_gtp -max_len=4096 -timeout=10 -dict=tests/data/gtp/fuzz-gtp.dict CORPUS
 *      tests/data/gtp   (the scripts there are the seeds)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/gtp.h"

static void check_replies(const char *out, size_t len, size_t max_replies)
{
    size_t replies = 0;
    for (size_t i = 0; i < len;) {
        if (out[i] != '=' && out[i] != '?')
            abort();
        const char *end = strstr(out + i, "\n\n");
        if (!end)
            abort();
        i = (size_t)(end - out) + 2;
        replies++;
    }
    if (replies > max_replies)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    gtp_engine e;
    if (!gtp_engine_init(&e))
        abort();
    e.allow_files = false;
    e.tsumego_s = 0.0005; /* genmove and tsumego_solve run the solver, briefly */
    e.tsumego_max_s = 0.0005;
    char *out = NULL;
    size_t out_len = 0;
    FILE *in = fmemopen((void *)data, size, "r");
    FILE *f = open_memstream(&out, &out_len);
    if (!in || !f)
        abort();
    if (gtp_engine_run(&e, in, f) != 0)
        abort();
    fclose(in);
    fclose(f);
    char why[256];
    if (!go_board_check(&e.game.board, why, sizeof why)) {
        fprintf(stderr, "board check: %s\n", why);
        abort();
    }
    size_t lines = 1;
    for (size_t i = 0; i < size; i++)
        lines += data[i] == '\n';
    check_replies(out, out_len, lines);
    free(out);
    gtp_engine_free(&e);
    return 0;
}
