/* tools/gtp_client.h -- the controller's side of GTP: one engine process spoken to over pipes.
 *
 * The engine is any shell command line, run as `/bin/sh -c COMMAND` in a process group of its
 * own (so a pipeline or wrapper script is stopped as a whole). Its stdin and stdout are pipes; its
 * stderr goes to an unlinked temporary file whose tail is quoted when the engine fails, or is
 * passed through to ours when asked.
 *
 * Every command has a wall-clock deadline, enforced with poll() on both the write and the read,
 * so an engine that stops reading, stops answering or never ends its reply cannot hang the
 * controller. A reply must start with '=' or '?' (an optional id may follow) and ends at an empty
 * line; carriage returns are dropped. Anything else marks the engine broken: it is then "dead"
 * for every later command until it is stopped and started again.
 *
 * SIGPIPE must be ignored by the caller: a write to an engine that has gone then fails with EPIPE.
 * Starting engines from several threads at once is safe: the pipes are made close-on-exec under
 * one lock, so no engine inherits another's pipe ends.
 */
#ifndef SHIDO_TOOLS_GTP_CLIENT_H
#define SHIDO_TOOLS_GTP_CLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define GTP_CLIENT_BUF 65536 /* longest reply accepted */

typedef enum {
    GTP_CLIENT_OK = 1,      /* '=' reply */
    GTP_CLIENT_REFUSED = 0, /* '?' reply: the engine is fine, the command failed */
    GTP_CLIENT_BROKEN = -1, /* no usable reply: exited, timed out or garbled (reason in err) */
} gtp_client_status;

typedef struct gtp_client {
    pid_t pid;          /* the /bin/sh process (leader of the engine's process group), 0: none */
    int to_fd;          /* our end of the engine's stdin, -1 when closed */
    int from_fd;        /* our end of the engine's stdout, -1 when closed */
    int stderr_fd;      /* the temporary file holding the engine's stderr, -1 when passed on */
    bool dead;          /* no further command will be sent; err says why */
    bool exited;        /* the engine closed its output or its process was seen to end */
    int replies;        /* well-formed replies received since the start */
    char err[512];
    int len;            /* bytes in buf not yet consumed */
    char buf[GTP_CLIENT_BUF];
} gtp_client;

/* Starts `/bin/sh -c command`. show_stderr: the engine writes its stderr to ours instead of a
 * temporary file. Returns false with a reason in c->err when the pipes, the file or the fork
 * fail; a command that cannot run shows up as an engine that exits before its first reply. The
 * client must be stopped with gtp_client_stop in either case. */
bool gtp_client_start(gtp_client *c, const char *command, bool show_stderr);

/* Sends one command line (no newline) and waits at most timeout_ms for the whole exchange. reply
 * (may be NULL) receives the text after "=" or "?" and the id, without the leading space and the
 * final empty line, cut to fit len. On GTP_CLIENT_BROKEN the engine is marked dead, killed when it
 * still runs, and c->err explains (with the end of its stderr when captured). */
gtp_client_status gtp_client_cmd(gtp_client *c, int timeout_ms, const char *line, char *reply,
                                 size_t len);

/* Sends "quit", closes the pipes and reaps the engine, killing its process group when it has
 * not gone after grace_ms. Safe on a client that never started or is already stopped. */
void gtp_client_stop(gtp_client *c, int grace_ms);

#endif
