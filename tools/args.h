/* tools/args.h -- command-line values the subcommands share. */
#ifndef SHIDO_TOOLS_ARGS_H
#define SHIDO_TOOLS_ARGS_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

/* A whole decimal integer in lo..hi into *out; false (out untouched) otherwise. */
bool tools_parse_long(const char *s, long lo, long hi, long *out);

/* A comma-separated list of at most max whole decimal integers in lo..hi ("8,32,128") into out;
 * returns how many, 0 (out partly written) for anything else. */
int tools_parse_list(const char *s, long lo, long hi, int *out, int max);

/* A JSON scalar as the text a tunable is set from: numbers with every digit ("%.17g"), true /
 * false, strings as they are; anything else "" (which no tunable accepts). Returns out. */
const char *tools_json_scalar_text(const cJSON *v, char *out, size_t len);

#endif
