/* tests/gnugo_pipe.h -- a GTP engine (GNU Go) driven over two pipes, for differential tests.
 *
 * Header-only (the build turns only tests/test_*.c into binaries): test_gnugo.c and test_score.c
 * include it.
 * Commands may be pipelined: gnugo_pipe_send writes one or more lines, then gnugo_pipe_recv reads
 * the replies in order. Every read waits at most timeout_ms (poll), so a dead or stuck engine makes
 * the caller fail with a reason in e->err instead of hanging. SIGPIPE must be ignored by the
 * caller (a write to a dead engine then fails with EPIPE).
 *
 * gnugo_pipe_open must not race with other threads that fork: spawn every engine before starting
 * worker threads (the pipe ends are close-on-exec, so engines do not inherit each other's).
 */
#ifndef SHIDO_TESTS_GNUGO_PIPE_H
#define SHIDO_TESTS_GNUGO_PIPE_H

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define GNUGO_PIPE_BUF 65536

typedef struct gnugo_pipe {
    pid_t pid;      /* engine process, 0 when none */
    int to_fd;      /* our end of the engine's stdin */
    int from_fd;    /* our end of the engine's stdout */
    int timeout_ms; /* longest wait for any part of a reply */
    int nap_us;     /* pause after a partial reply so that more of it gathers (GNU Go writes
                        * its replies unbuffered, a syscall per word); 0 for none */
    bool dead;      /* the engine cannot be used any more; err says why */
    char err[256];
    int len; /* bytes in buf not yet handed out */
    char buf[GNUGO_PIPE_BUF];
} gnugo_pipe;

/* Sets e->err to why the engine is unusable (with its exit status when it has gone; after the
 * end of its output, wait up to 200 ms for it to go) and marks it dead. */
static void gnugo_pipe_fail(gnugo_pipe *e, const char *what, bool ended)
{
    int st = 0;
    char how[96] = "still running";
    if (e->pid > 0) {
        pid_t r = waitpid(e->pid, &st, WNOHANG);
        struct timespec nap = {0, 10 * 1000 * 1000};
        for (int i = 0; ended && r == 0 && i < 20; i++) {
            nanosleep(&nap, NULL);
            r = waitpid(e->pid, &st, WNOHANG);
        }
        if (r == e->pid) {
            if (WIFEXITED(st))
                snprintf(how, sizeof how, "exited with status %d", WEXITSTATUS(st));
            else if (WIFSIGNALED(st))
                snprintf(how, sizeof how, "killed by signal %d", WTERMSIG(st));
            e->pid = 0;
        }
    }
    snprintf(e->err, sizeof e->err, "GTP engine: %s (engine %s)", what, how);
    e->dead = true;
}

#define GNUGO_PIPE_MAX_ARGS 8

/* Starts `path --mode gtp --quiet ARGS...` (args: NULL-terminated, at most GNUGO_PIPE_MAX_ARGS,
 * or NULL) with its stdin and stdout on pipes. Returns false with a reason in e->err when the
 * pipes or the fork fail; an exec failure shows up as a dead engine on the first reply (the child
 * exits with status 127). */
static bool gnugo_pipe_open(gnugo_pipe *e, const char *path, const char *const *args,
                            int timeout_ms)
{
    memset(e, 0, sizeof *e);
    /* argv is built before the fork: the child may not allocate. */
    char *argv[GNUGO_PIPE_MAX_ARGS + 5] = {(char *)path, "--mode", "gtp", "--quiet"};
    for (int i = 0; args && args[i]; i++) {
        if (i == GNUGO_PIPE_MAX_ARGS) {
            snprintf(e->err, sizeof e->err, "more than %d engine arguments", GNUGO_PIPE_MAX_ARGS);
            e->dead = true;
            return false;
        }
        argv[4 + i] = (char *)args[i];
    }
    e->to_fd = e->from_fd = -1;
    e->timeout_ms = timeout_ms;
    int in[2], out[2];
    if (pipe(in) != 0) {
        snprintf(e->err, sizeof e->err, "pipe: %s", strerror(errno));
        e->dead = true;
        return false;
    }
    if (pipe(out) != 0) {
        snprintf(e->err, sizeof e->err, "pipe: %s", strerror(errno));
        close(in[0]);
        close(in[1]);
        e->dead = true;
        return false;
    }
    for (int i = 0; i < 2; i++) {
        fcntl(in[i], F_SETFD, FD_CLOEXEC);
        fcntl(out[i], F_SETFD, FD_CLOEXEC);
    }
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(e->err, sizeof e->err, "fork: %s", strerror(errno));
        close(in[0]);
        close(in[1]);
        close(out[0]);
        close(out[1]);
        e->dead = true;
        return false;
    }
    if (pid == 0) {
        /* Only async-signal-safe calls between fork and exec. dup2 clears close-on-exec. */
        if (dup2(in[0], 0) < 0 || dup2(out[1], 1) < 0)
            _exit(126);
        execv(path, argv);
        _exit(127);
    }
    close(in[0]);
    close(out[1]);
    e->pid = pid;
    e->to_fd = in[1];
    e->from_fd = out[0];
    return true;
}

/* Writes text (one or more newline-terminated commands). Returns false when the engine is dead. */
static bool gnugo_pipe_send(gnugo_pipe *e, const char *text)
{
    if (e->dead)
        return false;
    size_t n = strlen(text), done = 0;
    while (done < n) {
        ssize_t w = write(e->to_fd, text + done, n - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            char what[128];
            snprintf(what, sizeof what, "write failed: %s", w < 0 ? strerror(errno) : "short");
            gnugo_pipe_fail(e, what, false);
            return false;
        }
        done += (size_t)w;
    }
    return true;
}

/* Reads the next reply. Returns 1 for success ('='), 0 for failure ('?'), -1 when the engine is
 * dead, too slow or garbled (reason in e->err). reply gets the text after "= " or "? " without
 * the final newlines, cut to fit len. */
static int gnugo_pipe_recv(gnugo_pipe *e, char *reply, size_t len)
{
    if (e->dead)
        return -1;
    for (;;) {
        char *end = NULL;
        for (int i = 0; i + 1 < e->len; i++)
            if (e->buf[i] == '\n' && e->buf[i + 1] == '\n') {
                end = e->buf + i;
                break;
            }
        if (end) {
            int total = (int)(end - e->buf) + 2;
            if (e->buf[0] != '=' && e->buf[0] != '?') {
                char what[160];
                snprintf(what, sizeof what, "reply does not start with = or ?: \"%.80s\"", e->buf);
                gnugo_pipe_fail(e, what, false);
                return -1;
            }
            int ok = e->buf[0] == '=';
            const char *text = e->buf + 1;
            while (text < end && *text == ' ')
                text++;
            size_t n = (size_t)(end - text);
            if (len) {
                if (n >= len)
                    n = len - 1;
                memcpy(reply, text, n);
                reply[n] = 0;
            }
            memmove(e->buf, e->buf + total, (size_t)(e->len - total));
            e->len -= total;
            return ok;
        }
        if (e->len >= GNUGO_PIPE_BUF) {
            gnugo_pipe_fail(e, "reply longer than the buffer", false);
            return -1;
        }
        struct pollfd pfd = {.fd = e->from_fd, .events = POLLIN};
        int r = poll(&pfd, 1, e->timeout_ms);
        if (r < 0 && errno == EINTR)
            continue;
        if (r == 0) {
            char what[64];
            snprintf(what, sizeof what, "no reply within %d ms", e->timeout_ms);
            gnugo_pipe_fail(e, what, false);
            return -1;
        }
        ssize_t got =
            r < 0 ? -1 : read(e->from_fd, e->buf + e->len, (size_t)(GNUGO_PIPE_BUF - e->len));
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0) {
            gnugo_pipe_fail(e, got == 0 ? "end of output" : strerror(errno), got == 0);
            return -1;
        }
        e->len += (int)got;
        if (e->nap_us > 0) {
            struct timespec nap = {0, 1000L * e->nap_us};
            nanosleep(&nap, NULL);
        }
    }
}

/* Sends one command (printf format, newline added) and reads its reply, as gnugo_pipe_recv. */
static int gnugo_pipe_cmd(gnugo_pipe *e, char *reply, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int gnugo_pipe_cmd(gnugo_pipe *e, char *reply, size_t len, const char *fmt, ...)
{
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line - 1, fmt, ap);
    va_end(ap);
    if (n < 0 || n >= (int)sizeof line - 1)
        return -1;
    line[n] = '\n';
    line[n + 1] = 0;
    if (!gnugo_pipe_send(e, line))
        return -1;
    return gnugo_pipe_recv(e, reply, len);
}

/* Asks the engine to quit, closes the pipes and reaps it (killing it after about two seconds). */
static void gnugo_pipe_close(gnugo_pipe *e)
{
    if (e->pid > 0 && !e->dead) {
        char r[64];
        gnugo_pipe_cmd(e, r, sizeof r, "quit");
    }
    if (e->to_fd >= 0)
        close(e->to_fd);
    if (e->from_fd >= 0)
        close(e->from_fd);
    e->to_fd = e->from_fd = -1;
    if (e->pid > 0) {
        int st;
        struct timespec nap = {0, 10 * 1000 * 1000};
        for (int i = 0; i < 200 && waitpid(e->pid, &st, WNOHANG) == 0; i++)
            nanosleep(&nap, NULL);
        if (waitpid(e->pid, &st, WNOHANG) == 0) {
            kill(e->pid, SIGKILL);
            waitpid(e->pid, &st, 0);
        }
        e->pid = 0;
    }
    e->dead = true;
}

#endif
