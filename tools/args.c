/* tools/args.c -- command-line values the subcommands share (see args.h). */
#include "tools/args.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

bool tools_parse_long(const char *s, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi)
        return false;
    *out = v;
    return true;
}

int tools_parse_list(const char *s, long lo, long hi, int *out, int max)
{
    int n = 0;
    for (const char *p = s;; n++) {
        char *end;
        errno = 0;
        long v = strtol(p, &end, 10);
        if (errno || end == p || v < lo || v > hi || n == max || (*end && *end != ','))
            return 0;
        out[n] = (int)v;
        if (!*end)
            return n + 1;
        p = end + 1;
    }
}

const char *tools_json_scalar_text(const cJSON *v, char *out, size_t len)
{
    if (cJSON_IsNumber(v))
        snprintf(out, len, "%.17g", v->valuedouble);
    else if (cJSON_IsBool(v))
        snprintf(out, len, "%s", cJSON_IsTrue(v) ? "true" : "false");
    else if (cJSON_IsString(v))
        snprintf(out, len, "%s", v->valuestring);
    else if (len > 0)
        out[0] = 0;
    return out;
}
