/* tools/line_reader.h -- the line reader behind `shido gtp` and `shido analysis`: blocking reads
 * between commands, non-blocking looks while a search runs (any new line stops an analysis). */
#ifndef SHIDO_TOOLS_LINE_READER_H
#define SHIDO_TOOLS_LINE_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Longest line kept, newline excluded; longer ones are dropped to their newline. */
#define LINE_READER_MAX (64 * 1024)

/* Reads lines from a FILE. When the FILE has a file descriptor the reader reads it with read(2)
 * into its own buffer, so that a running search can ask, without blocking, whether another line
 * (or the end of input) has arrived. */
typedef struct line_reader {
    FILE *f;
    int fd;              /* -1: read f with getc, and nothing is ever "pending" */
    char *buf;
    size_t len, cap;
    bool eof;
    bool too_long;       /* the line being read passed LINE_READER_MAX: skipped to its newline */
} line_reader;

/* False when out of memory. */
bool line_reader_init(line_reader *in, FILE *f);
void line_reader_free(line_reader *in);

/* The next line without its newline (NUL-terminated, owned by in until the next call), or NULL
 * at the end of input. *too_long is set for a line over LINE_READER_MAX (its text is dropped). */
const char *line_reader_next(line_reader *in, bool *too_long);

/* Whether a whole line or the end of input is waiting, reading what is there without
 * blocking. Always false for a reader without a file descriptor. */
bool line_reader_pending(line_reader *in);

#endif
