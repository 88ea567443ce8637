/* fuzz/fuzz_analysis_json.c -- libFuzzer target for `shido analysis` query lines.
 *
 * The input is a session of JSON lines: it goes through shido_analysis_check, the reader, cJSON
 * parser and query checks `shido analysis` uses, without a network or a search (valid queries
 * have their turns set up, nothing more). Checked: every output line is a JSON object with an
 * "id" member, and at most as many lines answer as the input could ask for.
 *
 * Run: fuzz_analysis_json -max_len=4096 -timeout=10 CORPUS
 */
#include <cjson/cJSON.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/analysis_json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    char *out = NULL;
    size_t out_len = 0;
    FILE *in = fmemopen((void *)data, size, "r");
    FILE *f = open_memstream(&out, &out_len);
    if (!in || !f)
        abort();
    if (shido_analysis_check(in, f) != 0)
        abort();
    fclose(in);
    fclose(f);
    /* A line answers with at most one error, or warnings (one per field, and a field takes at
     * least 4 bytes) followed by at most one error per turn: bounded by the input's size. */
    size_t lines = 0;
    for (char *line = out, *end; line < out + out_len; line = end + 1) {
        end = memchr(line, '\n', (size_t)(out + out_len - line));
        if (!end)
            abort();
        *end = 0;
        cJSON *j = cJSON_Parse(line);
        if (!cJSON_IsObject(j) || !cJSON_GetObjectItemCaseSensitive(j, "id")) {
            fprintf(stderr, "bad response: %s\n", line);
            abort();
        }
        cJSON_Delete(j);
        lines++;
    }
    if (lines > size + 1)
        abort();
    free(out);
    return 0;
}
