/* tools/args.h -- command-line values the subcommands share. */
#ifndef SHIDO_TOOLS_ARGS_H
#define SHIDO_TOOLS_ARGS_H

#include <stdbool.h>

/* A whole decimal integer in lo..hi into *out; false (out untouched) otherwise. */
bool tools_parse_long(const char *s, long lo, long hi, long *out);

#endif
