/* fuzz/fuzz_gtp_client.c -- libFuzzer target for the controller's side of GTP (`shido match`).
 *
 * The input is what an engine writes: it is put in a pipe that a gtp_client reads as its
 * engine's output (no process runs), and up to 64 commands are sent while the client still
 * works. Checked: every reply fits its buffer and is a C string; a broken exchange marks the
 * client dead with a reason and no later command succeeds; the match's readers of the answers
 * (scores, vertices) take any text. The end of the input ends the exchanges, so nothing waits.
 *
 * Run: fuzz_gtp_client -max_len=60000 CORPUS tests/data/gtp_client
 */
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "go/board.h"
#include "tools/gtp_client.h"
#include "tools/match.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 60000)   /* a pipe holds 64 KiB: larger inputs would block the write */
        return 0;
    signal(SIGPIPE, SIG_IGN);
    int out[2], in[2];
    if (pipe(out) != 0 || pipe(in) != 0)
        abort();
    if (size && write(out[1], data, size) != (ssize_t)size)
        abort();
    close(out[1]);
    gtp_client c;
    memset(&c, 0, sizeof c);
    c.to_fd = in[1];
    c.from_fd = out[0];
    c.stderr_fd = -1;
    static const char *const cmds[] = {"name", "genmove b", "final_score", "play w D4"};
    bool was_dead = false;
    for (int i = 0; i < 64; i++) {
        char reply[128];
        memset(reply, 'x', sizeof reply);
        gtp_client_status st = gtp_client_cmd(&c, 1000, cmds[i % 4], reply, sizeof reply);
        if (!memchr(reply, 0, sizeof reply))
            abort();
        if (was_dead && st != GTP_CLIENT_BROKEN)
            abort();
        if (st == GTP_CLIENT_BROKEN) {
            if (!c.dead || !c.err[0])
                abort();
            was_dead = true;
            continue;
        }
        double lead;
        match_parse_score(reply, &lead);
        int p = go_point_from_gtp(19, reply);
        if (p != GO_PASS && p != GO_NO_POINT && (p < 0 || p >= GO_POINTS))
            abort();
    }
    gtp_client_stop(&c, 0);
    close(in[0]);
    return 0;
}
