/* tools/line_reader.c -- the line reader (line_reader.h). */
#include "tools/line_reader.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Stands in the buffer for the dropped tail of a line over LINE_READER_MAX (control characters
 * never reach the buffer otherwise). */
#define TOO_LONG_MARK '\x01'

bool line_reader_init(line_reader *in, FILE *f)
{
    memset(in, 0, sizeof *in);
    in->f = f;
    in->fd = fileno(f);
    in->cap = 4096;
    in->buf = malloc(in->cap);
    return in->buf != NULL;
}

void line_reader_free(line_reader *in)
{
    free(in->buf);
    in->buf = NULL;
}

/* Length of the unfinished line at the end of the buffer. The line handed out last ends in a
 * NUL instead of its newline: it is no part of the next one. */
static size_t partial_len(const line_reader *in)
{
    size_t n = 0;
    while (n < in->len && in->buf[in->len - 1 - n] != '\n' && in->buf[in->len - 1 - n] != 0)
        n++;
    return n;
}

/* Appends bytes, dropping control characters other than HT and LF (a NUL would cut the line)
 * and the part of a line beyond LINE_READER_MAX. */
static bool append(line_reader *in, const char *bytes, size_t n)
{
    size_t cur = partial_len(in);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)bytes[i];
        if ((c < 32 && c != '\t' && c != '\n') || c == 127)
            continue;
        if (c != '\n' && cur >= LINE_READER_MAX) {
            if (!in->too_long) {
                c = TOO_LONG_MARK;
                in->too_long = true;
            } else {
                continue;
            }
        }
        if (in->len + 2 > in->cap) {
            char *b = realloc(in->buf, in->cap * 2);
            if (!b)
                return false;
            in->buf = b;
            in->cap *= 2;
        }
        in->buf[in->len++] = (char)c;
        if (c == '\n') {
            cur = 0;
            in->too_long = false;
        } else if (c != TOO_LONG_MARK) {
            cur++;
        }
    }
    return true;
}

/* Reads one chunk (blocking). Returns false at the end of input or on an error. */
static bool read_more(line_reader *in)
{
    char chunk[4096];
    size_t n = 0;
    if (in->fd >= 0) {
        ssize_t got;
        do
            got = read(in->fd, chunk, sizeof chunk);
        while (got < 0 && errno == EINTR);
        if (got <= 0)
            return false;
        n = (size_t)got;
    } else {
        int c;
        while (n < sizeof chunk && (c = getc(in->f)) != EOF) {
            chunk[n++] = (char)c;
            if (c == '\n')
                break;
        }
        if (n == 0)
            return false;
    }
    return append(in, chunk, n);
}

static bool has_line(const line_reader *in)
{
    return in->len > 0 && memchr(in->buf, '\n', in->len) != NULL;
}

const char *line_reader_next(line_reader *in, bool *too_long)
{
    /* The line handed out last time is still at the front: drop it. */
    char *nl = in->len ? memchr(in->buf, 0, in->len) : NULL;
    if (nl) {
        size_t used = (size_t)(nl - in->buf) + 1;
        memmove(in->buf, nl + 1, in->len - used);
        in->len -= used;
    }
    while (!has_line(in) && !in->eof)
        if (!read_more(in))
            in->eof = true;
    if (in->len == 0)
        return NULL;
    char *end = memchr(in->buf, '\n', in->len);
    if (!end) {
        /* The last line had no newline: end it here. */
        end = in->buf + in->len;
        in->buf[in->len++] = '\n';
    }
    *end = 0;
    *too_long = memchr(in->buf, TOO_LONG_MARK, (size_t)(end - in->buf)) != NULL;
    return in->buf;
}

bool line_reader_pending(line_reader *in)
{
    if (in->fd < 0)
        return false;
    /* Skip the line being processed (NUL-terminated at the front). */
    char *start = in->len ? memchr(in->buf, 0, in->len) : NULL;
    size_t from = start ? (size_t)(start - in->buf) + 1 : 0;
    for (;;) {
        if (in->eof || (in->len > from && memchr(in->buf + from, '\n', in->len - from)))
            return true;
        struct pollfd p = {.fd = in->fd, .events = POLLIN};
        if (poll(&p, 1, 0) <= 0)
            return false;
        if (!read_more(in))
            in->eof = true;
    }
}
