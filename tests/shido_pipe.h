/* tests/shido_pipe.h -- the real `shido` binary (SHIDO_BINARY) run as a child process, for the
 * suites that test the command line and its protocols (GTP, GTP search commands, JSON
 * analysis, usage errors): either kept running with its stdin and stdout on pipes
 * (engine_start, send_line, engine_read_line, engine_wait) or run to its end with stdin from a
 * file (pipe_run). Its stderr always goes to a temporary file, so that a chatty child never
 * blocks on a full pipe.
 * Header-only: static inline functions, so that a suite using only some of them gets no
 * warning about the others. */
#ifndef SHIDO_TESTS_SHIDO_PIPE_H
#define SHIDO_TESTS_SHIDO_PIPE_H

#include <check.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/common.h"

typedef struct engine {
    pid_t pid;
    FILE *in, *out;
    char err_path[64];
} engine;

/* A fresh temporary file for a child's stderr: its descriptor, its name in path. */
static inline int pipe_temp_file(char *path, size_t len)
{
    snprintf(path, len, "/tmp/shido-test-pipe-XXXXXX");
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    return fd;
}

/* In the child: stdin, stdout and stderr from in, out and err, the folder cwd (NULL: this one),
 * then SHIDO_BINARY with args (NULL-terminated, without argv[0]). Never returns. */
static inline void pipe_exec(const char *const *args, int in, int out, int err, const char *cwd)
{
    if (dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0 || (cwd && chdir(cwd) != 0))
        _exit(127);
    char *argv[32];
    int n = 0;
    argv[n++] = SHIDO_BINARY;
    for (; args[n - 1] && n < 31; n++)
        argv[n] = (char *)args[n - 1];
    argv[n] = NULL;
    execv(SHIDO_BINARY, argv);
    _exit(127);
}

/* Everything readable from fd until its end, NUL-terminated (malloc'd). */
static inline char *pipe_read_fd(int fd)
{
    size_t cap = 4096, len = 0;
    char *s = malloc(cap);
    ck_assert_ptr_nonnull(s);
    for (;;) {
        if (len + 1024 > cap) {
            s = realloc(s, cap *= 2);
            ck_assert_ptr_nonnull(s);
        }
        ssize_t r = read(fd, s + len, cap - len - 1);
        if (r <= 0)
            break;
        len += (size_t)r;
    }
    s[len] = 0;
    return s;
}

/* Runs SHIDO_BINARY with args (NULL-terminated, without argv[0]) to its end, with stdin from
 * in_path, in the folder cwd (NULL: this one). Returns its stdout (malloc'd); *err receives its
 * stderr (malloc'd) and *status its wait status. */
static inline char *pipe_run(const char *const *args, const char *in_path, const char *cwd,
                             char **err, int *status)
{
    char err_path[64];
    int err_fd = pipe_temp_file(err_path, sizeof err_path);
    int in = open(in_path, O_RDONLY), out[2];
    ck_assert_msg(in >= 0, "cannot open %s", in_path);
    ck_assert_int_eq(pipe(out), 0);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        close(out[0]);
        pipe_exec(args, in, out[1], err_fd, cwd);
    }
    close(in);
    close(out[1]);
    close(err_fd);
    char *text = pipe_read_fd(out[0]);
    close(out[0]);
    ck_assert_int_eq(waitpid(pid, status, 0), pid);
    *err = test_read_file(err_path, NULL);
    unlink(err_path);
    return text;
}

/* Starts SHIDO_BINARY with args (NULL-terminated, without argv[0]): e->in writes its stdin,
 * e->out reads its stdout, its stderr goes to the file e->err_path. */
static inline void engine_start(engine *e, const char *const *args)
{
    int to[2], from[2];
    int err_fd = pipe_temp_file(e->err_path, sizeof e->err_path);
    ck_assert_int_eq(pipe(to), 0);
    ck_assert_int_eq(pipe(from), 0);
    e->pid = fork();
    ck_assert_int_ge(e->pid, 0);
    if (e->pid == 0) {
        /* the child must not hold the parent's ends, or its stdin would never end */
        close(to[1]);
        close(from[0]);
        pipe_exec(args, to[0], from[1], err_fd, NULL);
    }
    close(to[0]);
    close(from[1]);
    close(err_fd);
    signal(SIGPIPE, SIG_IGN);
    e->in = fdopen(to[1], "w");
    e->out = fdopen(from[0], "r");
    ck_assert(e->in && e->out);
}

static inline void send_line(engine *e, const char *line)
{
    fprintf(e->in, "%s\n", line);
    fflush(e->in);
}

/* The engine's next line of output without its newline (malloc'd), NULL at the end of output. */
static inline char *engine_read_line(engine *e)
{
    char *line = NULL;
    size_t cap = 0;
    ssize_t n = getline(&line, &cap, e->out);
    if (n < 0) {
        free(line);
        return NULL;
    }
    if (n > 0 && line[n - 1] == '\n')
        line[n - 1] = 0;
    return line;
}

/* Waits for the engine to end and asserts that it exited with exit_status. */
static inline void engine_wait(engine *e, int exit_status)
{
    int status;
    ck_assert_int_eq(waitpid(e->pid, &status, 0), e->pid);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == exit_status, "status %d", status);
}

/* Asserts that no line of a child's stderr could be taken for protocol by a GUI: a GTP reply
 * ('=' or '?') or an analysis line ("info", "play"). */
static inline void pipe_assert_no_protocol_lines(const char *err)
{
    for (const char *l = err; *l; l += strcspn(l, "\n") + (l[strcspn(l, "\n")] == '\n'))
        ck_assert_msg(!strchr("=?", l[0]) && strncmp(l, "info", 4) && strncmp(l, "play", 4),
                      "stderr line: %s", l);
}

#endif
