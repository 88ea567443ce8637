/* tools/tsumego_records.c -- tsumego problems as the benchmark reads them (see the header). */
#include "tools/tsumego_records.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "go/game.h"
#include "tools/positions.h"

/* A JSON array of two-letter strings (SGF points) into list. */
static bool read_points(const cJSON *v, char (*list)[3], int *count)
{
    *count = 0;
    if (!cJSON_IsArray(v))
        return false;
    const cJSON *pt;
    cJSON_ArrayForEach(pt, v)
    {
        if (!cJSON_IsString(pt) || strlen(pt->valuestring) != 2 || *count >= TSUMEGO_MAX_LIST)
            return false;
        memcpy(list[(*count)++], pt->valuestring, 3);
    }
    return true;
}

/* One record {"id", "size", "to_play", "AB", "AW", "solutions", ...}; other keys are ignored.
 * Returns false with the reason in why. */
bool tsumego_record_from_json(const char *line, tsumego_record *r, char *why, size_t why_len)
{
    memset(r, 0, sizeof *r);
    r->size = 19;
    const char *end = line;
    cJSON *j = cJSON_ParseWithOpts(line, &end, true);
    if (!j) {
        snprintf(why, why_len, "not JSON (error at byte %zu)",
                 end && end >= line ? (size_t)(end - line) : (size_t)0);
        return false;
    }
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(j, "id");
    const cJSON *size = cJSON_GetObjectItemCaseSensitive(j, "size");
    const cJSON *to_play = cJSON_GetObjectItemCaseSensitive(j, "to_play");
    const cJSON *comment = cJSON_GetObjectItemCaseSensitive(j, "comment");
    static const char *const lists[3] = {"AB", "AW", "solutions"};
    char(*const dest[3])[3] = {r->ab, r->aw, r->sol};
    int *const count[3] = {&r->nab, &r->naw, &r->nsol};
    bool ok = cJSON_IsObject(j);
    if (!ok)
        snprintf(why, why_len, "not a JSON object");
    if (ok && id && !cJSON_IsString(id)) {
        snprintf(why, why_len, "id is not a string");
        ok = false;
    } else if (ok && id) {
        snprintf(r->id, sizeof r->id, "%s", id->valuestring);
    }
    if (ok && size) {
        ok = cJSON_IsNumber(size) && size->valuedouble >= 0 && size->valuedouble <= 1000;
        if (ok)
            r->size = (int)size->valuedouble;
        else
            snprintf(why, why_len, "size is not a board size");
    }
    if (ok) {
        const char *s = cJSON_IsString(to_play) ? to_play->valuestring : "";
        r->to_play = s[0] == 'W' ? GO_WHITE : s[0] == 'B' ? GO_BLACK : GO_EMPTY;
        ok = r->to_play != GO_EMPTY;
        if (!ok)
            snprintf(why, why_len, "to_play is not \"B\" or \"W\"");
    }
    if (cJSON_IsString(comment))
        r->hint = go_tsumego_goal_from_text(comment->valuestring);
    for (int k = 0; ok && k < 3; k++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, lists[k]);
        if (v && !read_points(v, dest[k], count[k])) {
            snprintf(why, why_len, "%s is not a list of at most %d SGF points", lists[k],
                     TSUMEGO_MAX_LIST);
            ok = false;
        }
    }
    cJSON_Delete(j);
    return ok;
}

int tsumego_record_point(int size, const char *t)
{
    int x = t[0] - 'a', y = t[1] - 'a';
    return x >= 0 && y >= 0 && x < size && y < size ? go_point_at(x, y) : GO_NO_POINT;
}

bool tsumego_record_board(const tsumego_record *r, go_board *b)
{
    if (!go_board_init(b, r->size))
        return false;
    for (int i = 0; i < r->nab + r->naw; i++) {
        bool black = i < r->nab;
        int p = tsumego_record_point(r->size, black ? r->ab[i] : r->aw[i - r->nab]);
        if (p == GO_NO_POINT || !go_board_place(b, p, black ? GO_BLACK : GO_WHITE))
            return false;
    }
    b->to_move = r->to_play;
    return true;
}

/* --- SGF problem collections ---
 *
 * One problem per game tree: the position is the setup before the first move (AB, AW, AE, PL),
 * the first moves are the variations at that node, and the correct ones are those whose line
 * marks success for the side to play: a comment with "RIGHT" (the convention of most
 * collections), one that begins with "Correct" (shido's own solution trees, and others), "正解",
 * "正确" or "정답"; SGF's own annotations: a node "good for" that side (GB, GW), or a move of
 * that side marked as a tesuji (TE). When no variation is marked, the first one not marked as
 * a failure (BM, or a comment that begins with "Wrong" or "Incorrect", or holds "WRONG", "失败",
 * "失敗", "错误") is the solution, as in collections that give the answer only. The side to
 * play is PL, else the colour of the first variation's move, else black. */

#define MARK_NODES 100000 /* nodes of one variation searched for a success mark */

/* Does c hold the word w (letters only around it)? */
static bool has_word(const char *c, const char *w)
{
    size_t n = strlen(w);
    for (const char *m = strstr(c, w); m; m = strstr(m + 1, w)) {
        bool start = m == c || !((m[-1] | 0x20) >= 'a' && (m[-1] | 0x20) <= 'z');
        bool end = !((m[n] | 0x20) >= 'a' && (m[n] | 0x20) <= 'z');
        if (start && end)
            return true;
    }
    return false;
}

/* Does c begin with word w, in any case? */
static bool begins_with(const char *c, const char *w)
{
    size_t n = strlen(w);
    while (*c == ' ' || *c == '\n' || *c == '\t')
        c++;
    for (size_t i = 0; i < n; i++)
        if ((c[i] | 0x20) != w[i])
            return false;
    return !((c[n] | 0x20) >= 'a' && (c[n] | 0x20) <= 'z');
}

static bool marks_success(const char *c)
{
    return c && (begins_with(c, "correct") || has_word(c, "RIGHT") ||
                 strstr(c, "\xe6\xad\xa3\xe8\xa7\xa3") /* 正解 */ ||
                 strstr(c, "\xe6\xad\xa3\xe7\xa1\xae") /* 正确 */ ||
                 strstr(c, "\xec\xa0\x95\xeb\x8b\xb5") /* 정답 */);
}

static bool marks_failure(const char *c)
{
    return c && (begins_with(c, "wrong") || begins_with(c, "incorrect") || has_word(c, "WRONG") ||
                 strstr(c, "\xe5\xa4\xb1\xe8\xb4\xa5") /* 失败 */ ||
                 strstr(c, "\xe5\xa4\xb1\xe6\x95\x97") /* 失敗 */ ||
                 strstr(c, "\xe9\x94\x99\xe8\xaf\xaf") /* 错误 */);
}

/* The move of a node (B or W), with its colour; NULL for none. */
static const char *node_move(const go_sgf_node *n, go_color *c)
{
    const char *v = go_sgf_get(n, "B");
    *c = GO_BLACK;
    if (!v) {
        v = go_sgf_get(n, "W");
        *c = GO_WHITE;
    }
    return v;
}

/* Does node x mark success for `side`: a comment, "good for" it, or its move a tesuji? */
static bool node_succeeds(const go_sgf_node *x, go_color side)
{
    go_color c;
    return marks_success(go_sgf_get(x, "C")) ||
           go_sgf_get(x, side == GO_BLACK ? "GB" : "GW") ||
           (go_sgf_get(x, "TE") && node_move(x, &c) && c == side);
}

/* Does the line from n reach a success mark for side? Iterative, within *budget nodes. */
static bool line_succeeds(const go_sgf_node *n, go_color side, int *budget)
{
    const go_sgf_node *stack[256];
    int top = 0;
    stack[top++] = n;
    while (top > 0 && (*budget)-- > 0) {
        const go_sgf_node *x = stack[--top];
        if (node_succeeds(x, side))
            return true;
        for (int i = x->num_children - 1; i >= 0 && top < 256; i--)
            stack[top++] = x->children[i];
    }
    return false;
}

static void add_point(char (*list)[3], int *count, int size, int p)
{
    char t[3] = {(char)('a' + go_point_x(p)), (char)('a' + go_point_y(p)), 0};
    for (int i = 0; i < *count; i++)
        if (!strcmp(list[i], t))
            return;
    if (*count < TSUMEGO_MAX_LIST && p != GO_NO_POINT && tsumego_record_point(size, t) == p)
        memcpy(list[(*count)++], t, 3);
}

/* One game tree as a problem record; false with the reason in why. */
bool tsumego_record_from_sgf(const go_sgf_node *root, tsumego_record *r, char *why,
                             size_t why_len)
{
    go_game g;
    char err[256];
    if (!positions_square_game(root, 0, &g, err, sizeof err)) {
        snprintf(why, why_len, "%s", err);
        return false;
    }
    go_board b = g.board;
    go_game_free(&g);
    r->size = b.size;
    for (int p = 0; p < GO_POINTS; p++) {
        if (b.color[p] != GO_BLACK && b.color[p] != GO_WHITE)
            continue;
        bool black = b.color[p] == GO_BLACK;
        if ((black ? r->nab : r->naw) >= TSUMEGO_MAX_LIST) {
            snprintf(why, why_len, "more than %d stones of a colour", TSUMEGO_MAX_LIST);
            return false;
        }
        add_point(black ? r->ab : r->aw, black ? &r->nab : &r->naw, b.size, p);
    }
    /* the problem node: the last one of the main line before its first move */
    const go_sgf_node *at = root;
    go_color c;
    while (at->num_children > 0 && !node_move(at->children[0], &c))
        at = at->children[0];
    const char *pl = go_sgf_get(root, "PL");
    if (!pl || at != root)
        pl = go_sgf_get(at, "PL") ? go_sgf_get(at, "PL") : pl;
    if (pl && (pl[0] == 'B' || pl[0] == 'b'))
        r->to_play = GO_BLACK;
    else if (pl && (pl[0] == 'W' || pl[0] == 'w'))
        r->to_play = GO_WHITE;
    else
        r->to_play = at->num_children > 0 && node_move(at->children[0], &c) ? c : GO_BLACK;
    r->hint = go_tsumego_goal_from_text(go_sgf_get(root, "C"));
    if (r->hint == GO_TSUMEGO_GOAL_AUTO)
        r->hint = go_tsumego_goal_from_text(go_sgf_get(root, "GN"));
    if (r->hint == GO_TSUMEGO_GOAL_AUTO && at != root)
        r->hint = go_tsumego_goal_from_text(go_sgf_get(at, "C"));
    /* the solutions: the marked variations, else the first one not marked as a failure */
    int budget = MARK_NODES;
    for (int pass = 0; pass < 2 && r->nsol == 0; pass++)
        for (int i = 0; i < at->num_children; i++) {
            const char *v = node_move(at->children[i], &c);
            if (!v || c != r->to_play || strlen(v) != 2)
                continue; /* no move, the other side's, or a pass */
            const go_sgf_node *first = at->children[i];
            if (pass == 0 ? line_succeeds(first, r->to_play, &budget)
                          : !go_sgf_get(first, "BM") && !marks_failure(go_sgf_get(first, "C"))) {
                add_point(r->sol, &r->nsol, b.size, tsumego_record_point(b.size, v));
                if (pass == 1)
                    break;
            }
        }
    return true;
}


tsumego_record *tsumego_records_read_jsonl(const char *path, int *count, char *err,
                                           size_t err_len)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, err_len, "cannot open %s: %s", path, strerror(errno));
        return NULL;
    }
    int cap = 256, n = 0, lineno = 0;
    tsumego_record *recs = malloc((size_t)cap * sizeof *recs);
    char *line = NULL;
    size_t line_cap = 0;
    bool ok = recs != NULL;
    if (!ok)
        snprintf(err, err_len, "%s: out of memory", path);
    while (ok && getline(&line, &line_cap, f) > 0) {
        lineno++;
        if (strspn(line, " \t\r\n") == strlen(line))
            continue;
        if (n == cap) {
            tsumego_record *r = realloc(recs, (size_t)(cap *= 2) * sizeof *recs);
            if (!(ok = r != NULL)) {
                snprintf(err, err_len, "%s: out of memory", path);
                break;
            }
            recs = r;
        }
        char why[128];
        if (!tsumego_record_from_json(line, &recs[n], why, sizeof why)) {
            snprintf(err, err_len, "%s:%d: not a problem record: %s", path, lineno, why);
            ok = false;
            break;
        }
        n++;
    }
    free(line);
    fclose(f);
    if (!ok) {
        free(recs);
        return NULL;
    }
    *count = n;
    return recs;
}
