/* tests/vectors.h -- reading the JSON Lines files in ../shared/vectors (reference outputs of real KataGo and
 * Leela Zero) and setting up each record's position through shido's own board, by replaying
 * the record's `gtp` commands. Header-only: included by the network test suites. */
#ifndef SHIDO_TESTS_VECTORS_H
#define SHIDO_TESTS_VECTORS_H

#include <cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "go/game.h"
#include "go/rules.h"

typedef struct vec_file {
    int num_records;
    cJSON **records;   /* one parsed object per line */
} vec_file;

/* Reads every line of a JSONL file. Returns false with a message on any unreadable line. */
static inline bool vec_file_read(const char *path, vec_file *vf, char *err, int err_len)
{
    memset(vf, 0, sizeof *vf);
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, (size_t)err_len, "%s: cannot open", path);
        return false;
    }
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    int lineno = 0;
    bool ok = true;
    while ((n = getline(&line, &cap, f)) > 0) {
        lineno++;
        if (n <= 1)
            continue;
        cJSON *rec = cJSON_Parse(line);
        if (!rec) {
            snprintf(err, (size_t)err_len, "%s:%d: not JSON", path, lineno);
            ok = false;
            break;
        }
        cJSON **grown = realloc(vf->records, sizeof *grown * (size_t)(vf->num_records + 1));
        if (!grown) {
            cJSON_Delete(rec);
            ok = false;
            break;
        }
        vf->records = grown;
        vf->records[vf->num_records++] = rec;
    }
    free(line);
    fclose(f);
    return ok;
}

/* Every how many records a suite checks: 1 (all, the default) unless SHIDO_VECTORS_STRIDE asks
 * for fewer -- the sanitizer run uses it, where the reference pass is ~20 times slower. */
static inline int vec_stride(void)
{
    const char *s = getenv("SHIDO_VECTORS_STRIDE");
    int k = s ? atoi(s) : 1;
    return k >= 1 ? k : 1;
}

static inline void vec_file_free(vec_file *vf)
{
    for (int i = 0; i < vf->num_records; i++)
        cJSON_Delete(vf->records[i]);
    free(vf->records);
    memset(vf, 0, sizeof *vf);
}

static inline go_color vec_color(const char *s)
{
    return (s[0] == 'B' || s[0] == 'b') ? GO_BLACK : (s[0] == 'W' || s[0] == 'w') ? GO_WHITE
                                                                                    : GO_EMPTY;
}

/* Replays a record's "gtp" commands (boardsize, clear_board, komi, kata-set-rules, play,
 * set_free_handicap, set_position) into g, which is initialised here; the caller frees it.
 * Returns false with a message on any command it cannot apply. */
static inline bool vec_setup_game(const cJSON *rec, go_game *g, char *err, int err_len)
{
    const cJSON *gtp = cJSON_GetObjectItemCaseSensitive(rec, "gtp");
    if (!cJSON_IsArray(gtp)) {
        snprintf(err, (size_t)err_len, "record has no gtp array");
        return false;
    }
    go_rules rules;
    go_rules_preset(&rules, "tromp-taylor");
    if (!go_game_init(g, 19, &rules, 7.5f)) {
        snprintf(err, (size_t)err_len, "cannot start a game");
        return false;
    }
    const cJSON *cmd;
    cJSON_ArrayForEach(cmd, gtp)
    {
        char buf[4096], *save = NULL;
        snprintf(buf, sizeof buf, "%s", cmd->valuestring ? cmd->valuestring : "");
        char *name = strtok_r(buf, " ", &save);
        char *arg = strtok_r(NULL, " ", &save);
        int size = g->board.size;
        bool ok = name != NULL;
        if (!ok) {
        } else if (!strcmp(name, "boardsize")) {
            int s = arg ? atoi(arg) : 0;
            go_rules keep = g->rules;
            float komi = g->komi;
            go_game_free(g);
            ok = go_game_init(g, s, &keep, komi);
        } else if (!strcmp(name, "clear_board")) {
            go_game_clear(g);
        } else if (!strcmp(name, "komi")) {
            g->komi = arg ? strtof(arg, NULL) : 0;
        } else if (!strcmp(name, "kata-set-rules")) {
            char why[128];
            ok = arg && go_rules_parse(&g->rules, arg, why, sizeof why);
        } else if (!strcmp(name, "play")) {
            char *v = strtok_r(NULL, " ", &save);
            int p = v ? go_point_from_gtp(size, v) : GO_NO_POINT;
            ok = arg && p != GO_NO_POINT && go_game_play(g, p, vec_color(arg)) == GO_MOVE_OK;
        } else if (!strcmp(name, "set_free_handicap")) {
            int placed = 0;
            for (char *v = arg; v && ok; v = strtok_r(NULL, " ", &save)) {
                int p = go_point_from_gtp(size, v);
                ok = p > 0 && go_game_setup_stone(g, p, GO_BLACK);
                placed++;
            }
            g->handicap = placed;
            go_game_set_to_move(g, GO_WHITE);
        } else if (!strcmp(name, "set_position")) {
            go_game_clear(g);
            for (char *c = arg; c && ok; c = strtok_r(NULL, " ", &save)) {
                char *v = strtok_r(NULL, " ", &save);
                int p = v ? go_point_from_gtp(size, v) : GO_NO_POINT;
                ok = p > 0 && go_game_setup_stone(g, p, vec_color(c));
            }
        } else {
            ok = false;
        }
        if (!ok) {
            snprintf(err, (size_t)err_len, "cannot apply gtp command '%s'", cmd->valuestring);
            go_game_free(g);
            return false;
        }
    }
    return true;
}

#endif
