/* tools/tsumego_oracle.c -- another engine's owl reading of the solver's answers (see
 * tsumego_oracle.h). */
#include "tools/tsumego_oracle.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/gtp_client.h"

#define ORACLE_TIMEOUT_MS 120000 /* one command; owl reading of a problem takes well under */

struct tsumego_oracle {
    gtp_client client;
};

tsumego_oracle *tsumego_oracle_start(const char *command, char *err, int err_len)
{
    tsumego_oracle *o = calloc(1, sizeof *o);
    if (!o) {
        snprintf(err, (size_t)err_len, "out of memory");
        return NULL;
    }
    /* a write to an engine that has gone must fail, not end this process */
    struct sigaction ign;
    memset(&ign, 0, sizeof ign);
    ign.sa_handler = SIG_IGN;
    sigaction(SIGPIPE, &ign, NULL);
    char reply[64];
    if (!gtp_client_start(&o->client, command, false)) {
        snprintf(err, (size_t)err_len, "%s: %s", command, o->client.err);
    } else {
        gtp_client_status st = gtp_client_cmd(&o->client, ORACLE_TIMEOUT_MS,
                                              "known_command owl_attack", reply, sizeof reply);
        if (st == GTP_CLIENT_OK && !strcmp(reply, "true"))
            return o;
        if (st == GTP_CLIENT_BROKEN)
            snprintf(err, (size_t)err_len, "%s: %s", command, o->client.err);
        else
            snprintf(err, (size_t)err_len, "%s: the engine has no owl_attack / owl_defend",
                     command);
    }
    tsumego_oracle_stop(o);
    return NULL;
}

void tsumego_oracle_stop(tsumego_oracle *o)
{
    if (!o)
        return;
    gtp_client_stop(&o->client, 2000);
    free(o);
}

/* One command that must succeed; false with the reason in err. */
static bool must(tsumego_oracle *o, const char *line, char *reply, size_t len, char *err,
                 int err_len)
{
    gtp_client_status st = gtp_client_cmd(&o->client, ORACLE_TIMEOUT_MS, line, reply, len);
    if (st == GTP_CLIENT_OK)
        return true;
    snprintf(err, (size_t)err_len, "%s: %s", line,
             st == GTP_CLIENT_BROKEN ? o->client.err : reply);
    return false;
}

int tsumego_oracle_check(tsumego_oracle *o, const go_tsumego_problem *p, int first, char *err,
                         int err_len)
{
    const go_board *f = &p->framed;
    char line[64], reply[256], v[8];
    snprintf(line, sizeof line, "boardsize %d", f->size);
    if (!must(o, line, reply, sizeof reply, err, err_len) ||
        !must(o, "clear_board", reply, sizeof reply, err, err_len))
        return -1;
    for (int q = 0; q < GO_POINTS; q++) {
        int c = f->color[q];
        if (c != GO_BLACK && c != GO_WHITE)
            continue;
        snprintf(line, sizeof line, "play %s %s", c == GO_BLACK ? "black" : "white",
                 go_point_to_gtp(f->size, q, v));
        if (!must(o, line, reply, sizeof reply, err, err_len))
            return -1;
    }
    snprintf(line, sizeof line, "play %s %s", p->to_play == GO_BLACK ? "black" : "white",
             go_point_to_gtp(f->size, first, v));
    if (!must(o, line, reply, sizeof reply, err, err_len))
        return -1;
    bool kill = p->goal == GO_TSUMEGO_GOAL_KILL, all_dead = true, any_lives = false;
    for (int q = 0; q < GO_POINTS; q++) {
        if (!p->region[q] || p->board.color[q] != p->defender)
            continue;
        snprintf(line, sizeof line, "%s %s", kill ? "owl_defend" : "owl_attack",
                 go_point_to_gtp(f->size, q, v));
        gtp_client_status st = gtp_client_cmd(&o->client, ORACLE_TIMEOUT_MS, line, reply,
                                              sizeof reply);
        if (st == GTP_CLIENT_BROKEN) {
            snprintf(err, (size_t)err_len, "%s: %s", line, o->client.err);
            return -1;
        }
        if (st == GTP_CLIENT_REFUSED)
            continue; /* the stone was captured: no dragon there */
        bool zero = !strcmp(reply, "0");
        all_dead &= zero;
        any_lives |= zero;
    }
    return kill ? all_dead : any_lives;
}
