/* tests/shido_pipe.h -- the real `shido` binary (SHIDO_BINARY) run as a child process with its
 * stdin and stdout on pipes and its stderr in a temporary file, for the suites that test the
 * command-line protocols (GTP search commands, JSON analysis). Header-only: static functions. */
#ifndef SHIDO_TESTS_SHIDO_PIPE_H
#define SHIDO_TESTS_SHIDO_PIPE_H

#include <check.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

typedef struct engine {
    pid_t pid;
    FILE *in, *out;
    char err_path[64];
} engine;

static void engine_start(engine *e, const char *const *args)
{
    int to[2], from[2];
    snprintf(e->err_path, sizeof e->err_path, "/tmp/shido-test-pipe-XXXXXX");
    int err_fd = mkstemp(e->err_path);
    ck_assert_int_ge(err_fd, 0);
    ck_assert_int_eq(pipe(to), 0);
    ck_assert_int_eq(pipe(from), 0);
    e->pid = fork();
    ck_assert_int_ge(e->pid, 0);
    if (e->pid == 0) {
        if (dup2(to[0], 0) < 0 || dup2(from[1], 1) < 0 || dup2(err_fd, 2) < 0)
            _exit(127);
        close(to[1]);
        close(from[0]);
        char *argv[32];
        int n = 0;
        argv[n++] = SHIDO_BINARY;
        for (; args[n - 1] && n < 31; n++)
            argv[n] = (char *)args[n - 1];
        argv[n] = NULL;
        execv(SHIDO_BINARY, argv);
        _exit(127);
    }
    close(to[0]);
    close(from[1]);
    close(err_fd);
    signal(SIGPIPE, SIG_IGN);
    e->in = fdopen(to[1], "w");
    e->out = fdopen(from[0], "r");
    ck_assert(e->in && e->out);
}

static void send_line(engine *e, const char *line)
{
    fprintf(e->in, "%s\n", line);
    fflush(e->in);
}

#endif
