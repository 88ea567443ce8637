/* tools/gtp_client.c -- GTP engines over pipes: start, command with deadline, stop. */
#include "tools/gtp_client.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Held from pipe() to fork(): a child forked by another thread in between would inherit pipe
 * ends not yet marked close-on-exec, and the engine would then never see end of input. */
static pthread_mutex_t spawn_lock = PTHREAD_MUTEX_INITIALIZER;

static long long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void nap_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static void close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

static bool cloexec(int fd) { return fcntl(fd, F_SETFD, FD_CLOEXEC) == 0; }

/* An unlinked temporary file for the engine's stderr, or -1. */
static int stderr_file(void)
{
    const char *dir = getenv("TMPDIR");
    char path[512];
    snprintf(path, sizeof path, "%s/shido-engine-XXXXXX", dir && *dir ? dir : "/tmp");
    int fd = mkstemp(path);
    if (fd < 0)
        return -1;
    unlink(path);
    if (!cloexec(fd)) {
        close(fd);
        return -1;
    }
    return fd;
}

bool gtp_client_start(gtp_client *c, const char *command, bool show_stderr)
{
    memset(c, 0, sizeof *c);
    c->to_fd = c->from_fd = c->stderr_fd = -1;
    /* argv is built before the fork: the child may not allocate. */
    char *argv[] = {"sh", "-c", (char *)command, NULL};
    int in[2] = {-1, -1}, out[2] = {-1, -1};
    const char *failed = NULL;
    pthread_mutex_lock(&spawn_lock);
    if (pipe(in) != 0 || pipe(out) != 0)
        failed = "pipe";
    else if (!cloexec(in[0]) || !cloexec(in[1]) || !cloexec(out[0]) || !cloexec(out[1]))
        failed = "fcntl";
    else if (!show_stderr && (c->stderr_fd = stderr_file()) < 0)
        failed = "temporary file for the engine's stderr";
    pid_t pid = -1;
    if (!failed && (pid = fork()) < 0)
        failed = "fork";
    if (pid == 0) {
        /* Only async-signal-safe calls until exec. dup2 clears close-on-exec on the copies. The
         * engine gets SIGPIPE back (we ignore it, and an ignored signal survives exec). */
        struct sigaction dfl;
        memset(&dfl, 0, sizeof dfl);
        dfl.sa_handler = SIG_DFL;
        sigaction(SIGPIPE, &dfl, NULL);
        setpgid(0, 0);
        if (dup2(in[0], 0) < 0 || dup2(out[1], 1) < 0 ||
            (c->stderr_fd >= 0 && dup2(c->stderr_fd, 2) < 0))
            _exit(126);
        execv("/bin/sh", argv);
        _exit(127);
    }
    int saved = errno;
    pthread_mutex_unlock(&spawn_lock);
    if (pid > 0)
        setpgid(pid, pid); /* also in the parent, so that the group exists before any kill */
    close_fd(&in[0]);
    close_fd(&out[1]);
    c->to_fd = in[1];
    c->from_fd = out[0];
    if (failed) {
        snprintf(c->err, sizeof c->err, "cannot start the engine: %s: %s", failed,
                 strerror(saved));
        close_fd(&c->to_fd);
        close_fd(&c->from_fd);
        close_fd(&c->stderr_fd);
        c->dead = true;
        return false;
    }
    c->pid = pid;
    /* A non-blocking stdin lets poll() bound the wait of an engine that stops reading. */
    fcntl(c->to_fd, F_SETFL, fcntl(c->to_fd, F_GETFL) | O_NONBLOCK);
    return true;
}

/* Appends the last lines of the engine's stderr (as one line) to out. */
static void stderr_tail(const gtp_client *c, char *out, size_t len)
{
    struct stat st;
    if (c->stderr_fd < 0 || fstat(c->stderr_fd, &st) != 0 || st.st_size == 0)
        return;
    char tail[241];
    off_t from = st.st_size > 240 ? st.st_size - 240 : 0;
    ssize_t n = pread(c->stderr_fd, tail, (size_t)(st.st_size - from), from);
    if (n <= 0)
        return;
    tail[n] = 0;
    while (n > 0 && (tail[n - 1] == '\n' || tail[n - 1] == '\r' || tail[n - 1] == ' '))
        tail[--n] = 0;
    for (ssize_t i = 0; i < n; i++)
        if (tail[i] == '\n' || tail[i] == '\r' || tail[i] == '\t')
            tail[i] = ' ';
    size_t used = strlen(out);
    if (used + 1 < len)
        snprintf(out + used, len - used, "; its stderr ends: \"%s%s\"", from > 0 ? "..." : "",
                 tail);
}

/* Describes how the engine process ended, waiting up to wait_ms for it to end, without reaping
 * it (so that its process group ID stays reserved until we have killed the group). */
static void exit_text(const gtp_client *c, int wait_ms, char *buf, size_t len)
{
    snprintf(buf, len, "still running");
    if (c->pid <= 0)
        return;
    for (int waited = 0;; waited += 10) {
        siginfo_t info;
        memset(&info, 0, sizeof info);
        if (waitid(P_PID, (id_t)c->pid, &info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
            info.si_pid == c->pid) {
            if (info.si_code == CLD_EXITED)
                snprintf(buf, len, "exited with status %d%s", info.si_status,
                         info.si_status == 127 ? " (command not found?)" : "");
            else
                snprintf(buf, len, "killed by signal %d", info.si_status);
            return;
        }
        if (waited >= wait_ms)
            return;
        nap_ms(10);
    }
}

/* Kills the engine's process group and reaps the shell. */
static void kill_and_reap(gtp_client *c)
{
    if (c->pid <= 0)
        return;
    kill(-c->pid, SIGKILL);
    while (waitpid(c->pid, NULL, 0) < 0 && errno == EINTR)
        ;
    c->pid = 0;
}

static gtp_client_status fail(gtp_client *c, const char *line, const char *what, bool ended)
{
    char how[96];
    exit_text(c, ended ? 300 : 0, how, sizeof how);
    snprintf(c->err, sizeof c->err, "%s (to \"%.60s\"; engine %s)", what, line, how);
    stderr_tail(c, c->err, sizeof c->err);
    c->dead = true;
    c->exited = ended || strcmp(how, "still running") != 0;
    kill_and_reap(c);
    return GTP_CLIENT_BROKEN;
}

/* Writes n bytes by the deadline. On failure says why, and sets *ended when the engine has gone. */
static bool send_all(gtp_client *c, const char *text, size_t n, long long deadline, char *why,
                     size_t why_len, bool *ended)
{
    *ended = false;
    size_t done = 0;
    while (done < n) {
        ssize_t w = write(c->to_fd, text + done, n - done);
        if (w > 0) {
            done += (size_t)w;
            continue;
        }
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            long long left = deadline - now_ms();
            struct pollfd p = {.fd = c->to_fd, .events = POLLOUT};
            if (left > 0 && (poll(&p, 1, (int)left) >= 0 || errno == EINTR))
                continue;
            snprintf(why, why_len, "the engine stopped reading its input");
            return false;
        }
        *ended = w < 0 && errno == EPIPE;
        snprintf(why, why_len, "cannot write to the engine: %s",
                 w < 0 ? strerror(errno) : "short write");
        return false;
    }
    return true;
}

/* Looks for one complete reply at the start of buf. Returns 1 and its status and text when there
 * is one, 0 when more input is needed, -1 when the input cannot be a reply (reason in why). */
static int take_reply(gtp_client *c, gtp_client_status *st, char *reply, size_t len, char *why,
                      size_t why_len)
{
    int skip = 0;
    while (skip < c->len && c->buf[skip] == '\n')
        skip++;
    if (skip == c->len)
        return 0;
    char *start = c->buf + skip;
    if (*start != '=' && *start != '?') {
        int n = (int)strcspn(start, "\n");
        snprintf(why, why_len, "reply does not start with '=' or '?': \"%.*s\"",
                 n < 60 ? n : 60, start);
        return -1;
    }
    char *end = strstr(start, "\n\n");
    if (!end)
        return 0;
    *st = *start == '=' ? GTP_CLIENT_OK : GTP_CLIENT_REFUSED;
    char *text = start + 1;
    while (*text >= '0' && *text <= '9')
        text++;
    while (*text == ' ' || *text == '\t')
        text++;
    if (text > end)
        text = end;
    if (reply && len) {
        size_t n = (size_t)(end - text);
        if (n >= len)
            n = len - 1;
        memcpy(reply, text, n);
        reply[n] = 0;
    }
    int used = (int)(end + 2 - c->buf);
    memmove(c->buf, c->buf + used, (size_t)(c->len - used) + 1);
    c->len -= used;
    c->replies++;
    return 1;
}

gtp_client_status gtp_client_cmd(gtp_client *c, int timeout_ms, const char *line, char *reply,
                                 size_t len)
{
    if (reply && len)
        reply[0] = 0;
    if (c->dead)
        return GTP_CLIENT_BROKEN;
    long long deadline = now_ms() + timeout_ms;
    char why[160];
    size_t n = strlen(line);
    char *text = malloc(n + 2);
    if (!text)
        return fail(c, line, "out of memory", false);
    memcpy(text, line, n);
    text[n] = '\n';
    text[n + 1] = 0;
    bool ended;
    bool sent = send_all(c, text, n + 1, deadline, why, sizeof why, &ended);
    free(text);
    if (!sent)
        return fail(c, line, why, ended);
    for (;;) {
        gtp_client_status st = GTP_CLIENT_BROKEN;
        int got = take_reply(c, &st, reply, len, why, sizeof why);
        if (got > 0)
            return st;
        if (got < 0)
            return fail(c, line, why, false);
        if (c->len >= GTP_CLIENT_BUF - 1) {
            snprintf(why, sizeof why, "reply longer than %d bytes", GTP_CLIENT_BUF - 1);
            return fail(c, line, why, false);
        }
        long long left = deadline - now_ms();
        struct pollfd p = {.fd = c->from_fd, .events = POLLIN};
        int r = left > 0 ? poll(&p, 1, (int)left) : 0;
        if (r < 0 && errno == EINTR)
            continue;
        if (r == 0) {
            snprintf(why, sizeof why, "no complete reply within %.1f s", timeout_ms / 1000.0);
            return fail(c, line, why, false);
        }
        char chunk[4096];
        ssize_t k = r < 0 ? -1 : read(c->from_fd, chunk, sizeof chunk);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return fail(c, line, k == 0 ? "the engine closed its output" : strerror(errno),
                        k == 0);
        for (ssize_t i = 0; i < k && c->len < GTP_CLIENT_BUF - 1; i++)
            if (chunk[i] != '\r')
                c->buf[c->len++] = chunk[i] ? chunk[i] : ' ';
        c->buf[c->len] = 0;
    }
}

void gtp_client_stop(gtp_client *c, int grace_ms)
{
    if (c->pid > 0 && !c->dead)
        gtp_client_cmd(c, grace_ms, "quit", NULL, 0);
    close_fd(&c->to_fd);
    if (c->pid > 0) {
        char how[96];
        exit_text(c, grace_ms, how, sizeof how); /* only to give it time to quit */
        kill_and_reap(c);
    }
    close_fd(&c->from_fd);
    close_fd(&c->stderr_fd);
    c->dead = true;
}
