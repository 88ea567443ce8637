/* tests/test_gnugo.c -- differential test of the rules core (go/board, go/game) against GNU Go.
 *
 * Random legal games on 9x9, 13x13 and 19x19 are played in shido and, over GTP, in GNU Go 3.8,
 * under GNU Go's default rules (simple ko, no suicide) and, for a quarter as many games again,
 * with multi-stone suicide allowed (GNU Go's --allow-suicide). After every move or undo both
 * engines are compared: the whole position (list_stones), the captures, and the legality of every
 * point for the side to move (all_legal), and for the other colour too whenever a ko is on the
 * board and on a random 10% of moves, since the ko ban is colour-specific. go_board_check must
 * pass throughout.
 * Variety: 5% of moves are made by the colour that just moved, some moves are undone in both
 * engines (more often right after a capture, so captures and ko are restored across undo), and
 * illegal moves (occupied, suicide, ko) are tried in both engines: GNU Go must refuse them and
 * go_game_play must return the status an independent liberty count predicts.
 *
 * Environment: SHIDO_GNUGO_GAMES games per size under the default rules (default 250;
 * acceptance runs use 2000), SHIDO_GNUGO_SEED base seed, SHIDO_GNUGO_JOBS workers, each with its
 * own engines (default: online cores), SHIDO_GNUGO path to the engine (default /usr/games/gnugo;
 * the test passes with a SKIP message when it is missing). Each game's seed depends only on the
 * base seed, rules, size and game number, so a failure reruns alike with any number of workers.
 */
#include <check.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "go/board.h"
#include "go/game.h"
#include "go/hash.h"
#include "go/rules.h"
#include "go/clock.h"
#include "tests/common.h"
#include "tests/gnugo_pipe.h"

#define GNUGO_DEFAULT_GAMES 250
#define GNUGO_DEFAULT_SEED 0x5eed0f60u
#define GNUGO_REPLY_TIMEOUT_MS 60000
#define GNUGO_MAX_JOBS 16
#define GNUGO_NUM_SIZES 3
#define GNUGO_REPLY_LEN 8192
#define GNUGO_MAX_BATCH 8
/* GNU Go writes each word of a reply with its own syscall; pausing 100 us after a partial read
 * halves the system time of a run (measured: 17.9 -> 7.9 s sys, 17 -> 12 s wall, 30 games per
 * size on 2 loaded cores). */
#define GNUGO_NAP_US 100

static const int gnugo_sizes[GNUGO_NUM_SIZES] = {9, 13, 19};

/* Rules under test, each with its own engine per worker. GNU Go's --allow-suicide is shido's
 * multi_stone_suicide: suicide of two or more stones is legal, of a lone stone never. */
typedef struct rules_variant {
    const char *name;
    const char *const *args; /* GNU Go flags */
    bool multi_stone_suicide;
} rules_variant;

static const char *const gnugo_args_default[] = {"--simple-ko", "--forbid-suicide", NULL};
static const char *const gnugo_args_suicide[] = {"--simple-ko", "--allow-suicide", NULL};
static const rules_variant gnugo_variants[] = {
    {"simple ko, no suicide", gnugo_args_default, false},
    {"simple ko, multi-stone suicide", gnugo_args_suicide, true},
};
#define GNUGO_NUM_VARIANTS 2

/* Percent chances per turn. */
#define PCT_DOUBLE_MOVE 5
#define PCT_UNDO 3
#define PCT_UNDO_AFTER_CAPTURE 25
#define PCT_OTHER_COLOUR 10
#define PCT_PROBE_KO 50
#define PCT_PROBE_OCCUPIED 3
#define PCT_PROBE_EMPTY 4

enum { PROBE_OCCUPIED, PROBE_SUICIDE, PROBE_KO, NUM_PROBES };

typedef struct size_stats {
    long games, moves, passes, doubles, undos, captures, ko_captures, suicides, capped;
    long positions;          /* positions compared (after every move and undo) */
    long legal_points;       /* point x colour legality verdicts compared */
    long other_colour;       /* positions where the colour not to move was checked too */
    long probes[NUM_PROBES]; /* illegal moves refused by both engines */
    double engine_s;         /* time spent on this size, summed over workers */
} size_stats;

typedef struct worker {
    gnugo_pipe eng[GNUGO_NUM_VARIANTS];
    size_stats stats[GNUGO_NUM_VARIANTS][GNUGO_NUM_SIZES];
    pthread_t thread;
} worker;

static struct {
    int games[GNUGO_NUM_VARIANTS]; /* per size */
    uint64_t seed;
    atomic_int next_job;
    atomic_bool stop;
    pthread_mutex_t lock;
    char *failure; /* the first mismatch found, owned here */
} shared = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* One game in progress. */
typedef struct run {
    gnugo_pipe *eng;
    size_stats *st;
    go_game g;
    int variant, size, game_no;
    uint64_t game_seed, rng;
    int turns; /* moves and undos so far; a game ends at 3 * size^2 */
    char *log; /* move list in GTP form */
    size_t log_len, log_cap;
    bool last_captured;       /* the last move captured (the next turn undoes it more often) */
    bool legal[3][GO_POINTS]; /* shido's verdicts by colour; the side to move's are current */
    char reply[GNUGO_MAX_BATCH][GNUGO_REPLY_LEN];
    int status[GNUGO_MAX_BATCH];
    char *failure; /* set on the first mismatch */
} run;

static uint32_t rand_below(run *r, uint32_t n)
{
    r->rng ^= r->rng >> 12;
    r->rng ^= r->rng << 25;
    r->rng ^= r->rng >> 27;
    uint64_t x = r->rng * 0x2545F4914F6CDD1Dull;
    return (uint32_t)(((x >> 32) * (uint64_t)n) >> 32);
}

static bool chance(run *r, int pct) { return rand_below(r, 100) < (uint32_t)pct; }

static const char *color_word(go_color c) { return c == GO_BLACK ? "black" : "white"; }

/* The test's own vertex text, written from the documented mapping so that a wrong row or column
 * in go_point_to_gtp / go_point_from_gtp cannot hide behind the same mistake on both sides. */
static void vertex_text(int size, int p, char *buf)
{
    static const char letters[] = "ABCDEFGHJKLMNOPQRST";
    if (p == GO_PASS) {
        strcpy(buf, "pass");
        return;
    }
    int row = size - go_point_y(p), n = 0;
    buf[n++] = letters[go_point_x(p)];
    if (row >= 10)
        buf[n++] = (char)('0' + row / 10);
    buf[n++] = (char)('0' + row % 10);
    buf[n] = 0;
}

/* The point of a vertex as GNU Go writes it ("D4", upper case), GO_NO_POINT for anything else. */
static int vertex_point(int size, const char *t)
{
    static const char letters[] = "ABCDEFGHJKLMNOPQRST";
    const char *l = t[0] ? strchr(letters, t[0]) : NULL;
    char *end;
    long row = strtol(t + (t[0] != 0), &end, 10);
    if (!l || *end || row < 1 || row > size || l - letters >= size)
        return GO_NO_POINT;
    return go_point_at((int)(l - letters), size - (int)row);
}

static void log_add(run *r, const char *text)
{
    size_t n = strlen(text);
    if (r->log_len + n + 2 > r->log_cap) {
        r->log_cap = (r->log_cap + n + 2) * 2;
        r->log = realloc(r->log, r->log_cap);
        if (!r->log)
            abort();
    }
    if (r->log_len)
        r->log[r->log_len++] = ' ';
    memcpy(r->log + r->log_len, text, n + 1);
    r->log_len += n;
}

/* Records the first mismatch with everything needed to reproduce it: size, game, seeds, move
 * number, the moves in GTP form, shido's board and GNU Go's. Returns false for the caller. */
static bool mismatch(run *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static bool mismatch(run *r, const char *fmt, ...)
{
    if (r->failure)
        return false;
    char what[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    char mine[2048], theirs[GNUGO_REPLY_LEN];
    go_board_to_ascii(&r->g.board, mine, sizeof mine);
    if (gnugo_pipe_cmd(r->eng, theirs, sizeof theirs, "showboard") < 0)
        snprintf(theirs, sizeof theirs, "(no board: %s)", r->eng->err);
    size_t cap = strlen(what) + r->log_len + strlen(mine) + strlen(theirs) + 1024;
    r->failure = malloc(cap);
    if (!r->failure)
        abort();
    snprintf(
        r->failure, cap,
        "differential test failed: %s\n"
        "rules %s, size %d, game %d, game seed 0x%016llx (base seed 0x%llx), move %d (turn %d, "
        "%s to move)\n"
        "moves (GTP; 'undo' = undo in both): %s\n"
        "shido board:\n%s\nGNU Go board:\n%s\n"
        "rerun: SHIDO_GNUGO_SEED=0x%llx SHIDO_GNUGO_GAMES=%d (or more)\n",
        what, gnugo_variants[r->variant].name, r->size, r->game_no,
        (unsigned long long)r->game_seed, (unsigned long long)shared.seed, r->g.num_moves, r->turns,
        color_word(r->g.board.to_move), r->log_len ? r->log : "(none)", mine, theirs,
        (unsigned long long)shared.seed, r->variant ? 4 * r->game_no + 1 : r->game_no + 1);
    return false;
}

/* Reads n replies into r->reply / r->status. Returns false when the engine died. */
static bool recv_replies(run *r, int n)
{
    for (int i = 0; i < n; i++) {
        r->status[i] = gnugo_pipe_recv(r->eng, r->reply[i], GNUGO_REPLY_LEN);
        if (r->status[i] < 0)
            return mismatch(r, "%s", r->eng->err);
    }
    return true;
}

/* Sends the commands (each newline-terminated, at most GNUGO_MAX_BATCH) in one write and reads
 * their replies. */
static bool batch(run *r, const char *cmds, int n)
{
    if (!gnugo_pipe_send(r->eng, cmds))
        return mismatch(r, "%s", r->eng->err);
    return recv_replies(r, n);
}

static void compute_legal(run *r, go_color c)
{
    for (int y = 0; y < r->size; y++)
        for (int x = 0; x < r->size; x++) {
            int p = go_point_at(x, y);
            r->legal[c][p] = go_game_legal(&r->g, p, c) == GO_MOVE_OK;
        }
}

/* Parses a vertex list reply into a per-point mark. Returns false on a vertex that is no point. */
static bool parse_vertices(run *r, const char *text, bool *mark, const char *cmd)
{
    memset(mark, 0, sizeof(bool) * GO_POINTS);
    char tok[8];
    const char *s = text;
    while (*s) {
        while (*s == ' ' || *s == '\n')
            s++;
        int n = 0;
        while (*s && *s != ' ' && *s != '\n')
            if (n < 7)
                tok[n++] = *s++;
            else
                s++;
        tok[n] = 0;
        if (!n)
            break;
        int p = vertex_point(r->size, tok);
        if (p == GO_NO_POINT)
            return mismatch(r, "GNU Go's %s gave \"%s\", not a vertex", cmd, tok);
        mark[p] = true;
    }
    return true;
}

/* Compares the replies to compare_commands (from reply index k on) with shido's position, whose
 * legality verdicts compute_legal has already made. */
static bool compare_position(run *r, int k, bool both)
{
    static _Thread_local bool mark[GO_POINTS];
    const go_board *b = &r->g.board;
    char v[8];
    for (int ci = 0; ci < 2; ci++) {
        go_color c = ci ? GO_WHITE : GO_BLACK;
        if (r->status[k + ci] != 1)
            return mismatch(r, "list_stones %s failed: %s", color_word(c), r->reply[k + ci]);
        if (!parse_vertices(r, r->reply[k + ci], mark, "list_stones"))
            return false;
        for (int y = 0; y < r->size; y++)
            for (int x = 0; x < r->size; x++) {
                int p = go_point_at(x, y);
                if (mark[p] != (b->color[p] == c)) {
                    vertex_text(r->size, p, v);
                    return mismatch(r, "%s stone at %s: GNU Go %s, shido %s", color_word(c), v,
                                    mark[p] ? "yes" : "no", mark[p] ? "no" : "yes");
                }
            }
    }
    for (int ci = 0; ci < 2; ci++) {
        go_color c = ci ? GO_WHITE : GO_BLACK;
        int theirs = atoi(r->reply[k + 2 + ci]);
        if (r->status[k + 2 + ci] != 1 || theirs != b->captures[c])
            return mismatch(r, "captures %s: GNU Go \"%s\", shido %d", color_word(c),
                            r->reply[k + 2 + ci], b->captures[c]);
    }
    for (int ci = 0; ci < (both ? 2 : 1); ci++) {
        go_color c = ci ? go_opponent(b->to_move) : b->to_move;
        if (r->status[k + 4 + ci] != 1)
            return mismatch(r, "all_legal %s failed: %s", color_word(c), r->reply[k + 4 + ci]);
        if (!parse_vertices(r, r->reply[k + 4 + ci], mark, "all_legal"))
            return false;
        for (int y = 0; y < r->size; y++)
            for (int x = 0; x < r->size; x++) {
                int p = go_point_at(x, y);
                if (mark[p] != r->legal[c][p]) {
                    vertex_text(r->size, p, v);
                    return mismatch(r, "legality of %s %s: GNU Go %s, shido %s (%s; ko point %d)",
                                    color_word(c), v, mark[p] ? "legal" : "illegal",
                                    r->legal[c][p] ? "legal" : "illegal",
                                    go_move_status_text(go_game_legal(&r->g, p, c)), b->ko_point);
                }
            }
        r->st->legal_points += r->size * r->size;
    }
    r->st->positions++;
    r->st->other_colour += both;
    return true;
}

/* The comparison commands for the current position, appended to cmds; returns their count. */
static int compare_commands(run *r, char *cmds, bool both)
{
    go_color c = r->g.board.to_move;
    strcat(cmds, "list_stones black\nlist_stones white\ncaptures black\ncaptures white\n");
    char line[32];
    snprintf(line, sizeof line, "all_legal %s\n", color_word(c));
    strcat(cmds, line);
    if (both) {
        snprintf(line, sizeof line, "all_legal %s\n", color_word(go_opponent(c)));
        strcat(cmds, line);
    }
    return both ? 6 : 5;
}

/* Sends `first` (the play or undo just made in shido) with the comparison commands, checks the
 * board and works out shido's legality while GNU Go answers, then compares. */
static bool step(run *r, const char *first)
{
    const go_board *b = &r->g.board;
    bool both = b->ko_point != 0 || chance(r, PCT_OTHER_COLOUR);
    char cmds[512], why[256];
    snprintf(cmds, sizeof cmds, "%s\n", first);
    int n = 1 + compare_commands(r, cmds, both);
    if (!gnugo_pipe_send(r->eng, cmds))
        return mismatch(r, "%s", r->eng->err);
    bool sound = go_board_check(b, why, sizeof why);
    compute_legal(r, b->to_move);
    if (both)
        compute_legal(r, go_opponent(b->to_move));
    if (!recv_replies(r, n))
        return false;
    if (r->status[0] != 1)
        return mismatch(r, "GNU Go refused \"%s\": %s", first, r->reply[0]);
    if (!sound)
        return mismatch(r, "go_board_check: %s", why);
    return compare_position(r, 1, both);
}

/* Liberties of the chain at p, counted by flood fill on the colours alone (the reference for the
 * status of an illegal move; independent of shido's incremental liberty counts). */
static int ref_liberties(const go_board *b, int p)
{
    static _Thread_local int seen[GO_POINTS], stamp;
    int stack[GO_POINTS], n = 0, libs = 0;
    stamp++;
    go_color c = (go_color)b->color[p];
    stack[n++] = p;
    seen[p] = stamp;
    while (n) {
        int q = stack[--n];
        for (int d = 0; d < 4; d++) {
            int s = q + go_dir4[d];
            if (seen[s] == stamp)
                continue;
            if (b->color[s] == GO_EMPTY) {
                seen[s] = stamp;
                libs++;
            } else if (b->color[s] == c) {
                seen[s] = stamp;
                stack[n++] = s;
            }
        }
    }
    return libs;
}

/* Tries an illegal move of colour c at p in both engines: GNU Go must refuse it, and shido must
 * refuse it with the status the position implies (an empty point that would capture is a ko
 * violation, one that would not is suicide) and leave the game untouched. */
static bool probe_illegal(run *r, go_color c, int p)
{
    const go_board *b = &r->g.board;
    go_move_status want = GO_MOVE_OCCUPIED;
    int kind = PROBE_OCCUPIED;
    if (b->color[p] == GO_EMPTY) {
        want = GO_MOVE_SUICIDE;
        kind = PROBE_SUICIDE;
        for (int d = 0; d < 4; d++) {
            int q = p + go_dir4[d];
            if (b->color[q] == go_opponent(c) && ref_liberties(b, q) == 1) {
                want = GO_MOVE_KO;
                kind = PROBE_KO;
            }
        }
    }
    char v[8], cmd[64];
    vertex_text(r->size, p, v);
    snprintf(cmd, sizeof cmd, "play %s %s\n", color_word(c), v);
    if (!batch(r, cmd, 1))
        return false;
    if (r->status[0] != 0 || strcmp(r->reply[0], "illegal move") != 0)
        return mismatch(r, "GNU Go answered \"%c %s\" to the illegal move %s %s",
                        r->status[0] ? '=' : '?', r->reply[0], color_word(c), v);
    uint64_t hash = b->hash;
    int moves = r->g.num_moves, ko = b->ko_point;
    go_color to_move = b->to_move;
    go_move_status got = go_game_play(&r->g, p, c);
    if (got != want)
        return mismatch(r, "probe %s %s: shido says \"%s\", expected \"%s\"", color_word(c), v,
                        go_move_status_text(got), go_move_status_text(want));
    if (b->hash != hash || r->g.num_moves != moves || b->ko_point != ko || b->to_move != to_move)
        return mismatch(r, "refused probe %s %s changed the game", color_word(c), v);
    r->st->probes[kind]++;
    return true;
}

/* Before a turn: maybe try the ko point, an occupied point and an empty illegal point. */
static bool probes(run *r)
{
    const go_board *b = &r->g.board;
    go_color c = b->to_move;
    if (b->ko_point && chance(r, PCT_PROBE_KO) && !probe_illegal(r, c, b->ko_point))
        return false;
    int n = r->size * r->size;
    if (b->num_empty < n && chance(r, PCT_PROBE_OCCUPIED)) {
        int p;
        do
            p = go_point_at((int)rand_below(r, r->size), (int)rand_below(r, r->size));
        while (b->color[p] == GO_EMPTY);
        if (!probe_illegal(r, chance(r, 50) ? c : go_opponent(c), p))
            return false;
    }
    if (chance(r, PCT_PROBE_EMPTY)) {
        int cand[GO_POINTS], k = 0;
        for (int i = 0; i < b->num_empty; i++)
            if (!r->legal[c][b->empty[i]])
                cand[k++] = b->empty[i];
        if (k && !probe_illegal(r, c, cand[rand_below(r, (uint32_t)k)]))
            return false;
    }
    return true;
}

/* One turn: an undo, or a move (pass when no candidate) by the side to move or, sometimes, by the
 * colour that just moved; then the comparison. */
static bool turn(run *r)
{
    go_game *g = &r->g;
    char v[8], mine[8], cmd[32];
    r->turns++;
    if (g->num_moves > 0 && chance(r, r->last_captured ? PCT_UNDO_AFTER_CAPTURE : PCT_UNDO)) {
        if (!go_game_undo(g))
            return mismatch(r, "go_game_undo refused with %d moves", g->num_moves);
        log_add(r, "undo");
        r->st->undos++;
        r->last_captured = false;
        return step(r, "undo");
    }

    go_color mover = g->board.to_move;
    if (g->num_moves > 0 && chance(r, PCT_DOUBLE_MOVE)) {
        mover = go_game_last_color(g);
        compute_legal(r, mover);
        r->st->doubles++;
    }
    int cand[GO_POINTS], k = 0;
    for (int i = 0; i < g->board.num_empty; i++) {
        int p = g->board.empty[i];
        if (r->legal[mover][p] && !go_board_is_eye(&g->board, p, mover))
            cand[k++] = p;
    }
    int p = k ? cand[rand_below(r, (uint32_t)k)] : GO_PASS;
    vertex_text(r->size, p, v);
    if (strcmp(go_point_to_gtp(r->size, p, mine), v) != 0 || go_point_from_gtp(r->size, v) != p)
        return mismatch(r, "vertex %s: go_point_to_gtp gives %s, go_point_from_gtp %d (want %d)", v,
                        mine, go_point_from_gtp(r->size, v), p);
    int captured_before = g->board.captures[mover];
    int lost_before = g->board.captures[go_opponent(mover)];
    go_move_status s = go_game_play(g, p, mover);
    char move[16];
    snprintf(move, sizeof move, "%c %s", mover == GO_BLACK ? 'B' : 'W', v);
    log_add(r, move);
    if (s != GO_MOVE_OK)
        return mismatch(r, "go_game_play refused its own legal move %s: %s", move,
                        go_move_status_text(s));
    r->st->moves++;
    r->st->passes += p == GO_PASS;
    bool captured = g->board.captures[mover] > captured_before;
    bool suicide = g->board.captures[go_opponent(mover)] > lost_before;
    r->st->captures += captured;
    r->st->suicides += suicide;
    r->st->ko_captures += g->board.ko_point != 0;
    r->last_captured = captured || suicide;
    snprintf(cmd, sizeof cmd, "play %s %s", color_word(mover), v);
    return step(r, cmd);
}

static bool play_game(run *r)
{
    char cmd[64];
    snprintf(cmd, sizeof cmd, "boardsize %d\nclear_board\n", r->size);
    if (!batch(r, cmd, 2))
        return false;
    if (r->status[0] != 1 || r->status[1] != 1)
        return mismatch(r, "GNU Go refused boardsize %d: %s", r->size, r->reply[0]);
    compute_legal(r, GO_BLACK);
    int cap = 3 * r->size * r->size;
    while (r->g.consecutive_passes < 2) {
        if (r->turns >= cap) {
            r->st->capped++;
            break;
        }
        if (!probes(r) || !turn(r))
            return false;
        if (atomic_load(&shared.stop))
            return true;
    }
    return true;
}

/* Job j: variant 0 for its first games[0] * 3 jobs, then variant 1; sizes interleaved. */
static void job_game(int j, int *variant, int *size_index, int *game_no)
{
    *variant = 0;
    for (; *variant < GNUGO_NUM_VARIANTS - 1; (*variant)++) {
        if (j < shared.games[*variant] * GNUGO_NUM_SIZES)
            break;
        j -= shared.games[*variant] * GNUGO_NUM_SIZES;
    }
    *size_index = j % GNUGO_NUM_SIZES;
    *game_no = j / GNUGO_NUM_SIZES;
}

static void *worker_main(void *arg)
{
    worker *w = arg;
    int jobs = 0;
    for (int v = 0; v < GNUGO_NUM_VARIANTS; v++)
        jobs += shared.games[v] * GNUGO_NUM_SIZES;
    run *r = calloc(1, sizeof *r);
    if (!r)
        abort();
    for (;;) {
        int j = atomic_fetch_add(&shared.next_job, 1);
        if (j >= jobs || atomic_load(&shared.stop))
            break;
        int si;
        memset(r, 0, offsetof(run, legal));
        r->failure = NULL;
        job_game(j, &r->variant, &si, &r->game_no);
        r->eng = &w->eng[r->variant];
        r->st = &w->stats[r->variant][si];
        r->size = gnugo_sizes[si];
        uint64_t state = shared.seed ^ ((uint64_t)r->variant << 40) ^
                         ((uint64_t)r->size << 32) ^ (uint64_t)r->game_no;
        r->game_seed = go_splitmix64(&state);
        r->rng = r->game_seed | 1;
        /* Scoring plays no part here; ko and suicide are GNU Go's. */
        go_rules rules;
        go_rules_preset(&rules, "japanese");
        rules.ko = GO_KO_SIMPLE;
        rules.multi_stone_suicide = gnugo_variants[r->variant].multi_stone_suicide;
        if (!go_game_init(&r->g, r->size, &rules, 6.5f))
            abort();
        double t0 = go_now_s();
        bool ok = play_game(r);
        r->st->engine_s += go_now_s() - t0;
        r->st->games += ok;
        if (!ok) {
            pthread_mutex_lock(&shared.lock);
            if (!shared.failure) {
                shared.failure = r->failure;
                r->failure = NULL;
            }
            pthread_mutex_unlock(&shared.lock);
            atomic_store(&shared.stop, true);
        }
        free(r->failure);
        free(r->log);
        go_game_free(&r->g);
    }
    free(r);
    return NULL;
}

/* An integer from the environment, def when unset; *bad is set when it is not in lo..hi. */
static long env_long(const char *name, long def, long lo, long hi, bool *bad)
{
    const char *s = getenv(name);
    if (!s || !*s)
        return def;
    char *end;
    long v = strtol(s, &end, 0);
    if (*end || v < lo || v > hi) {
        fprintf(stderr, "test_gnugo: %s=%s: expected an integer in %ld..%ld\n", name, s, lo, hi);
        *bad = true;
        return def;
    }
    return v;
}

/* Games per size under GNU Go's default rules; a quarter as many again with suicide allowed. */
static int env_games(bool *bad)
{
    return (int)env_long("SHIDO_GNUGO_GAMES", GNUGO_DEFAULT_GAMES, 1, 1000000, bad);
}

static void print_stats(int v, int si, const worker *w, int jobs)
{
    size_stats t = {0};
    for (int i = 0; i < jobs; i++) {
        const size_stats *s = &w[i].stats[v][si];
        t.games += s->games;
        t.moves += s->moves;
        t.passes += s->passes;
        t.doubles += s->doubles;
        t.undos += s->undos;
        t.captures += s->captures;
        t.ko_captures += s->ko_captures;
        t.suicides += s->suicides;
        t.capped += s->capped;
        t.positions += s->positions;
        t.legal_points += s->legal_points;
        t.other_colour += s->other_colour;
        for (int k = 0; k < NUM_PROBES; k++)
            t.probes[k] += s->probes[k];
        t.engine_s += s->engine_s;
    }
    printf("test_gnugo: %dx%d, %s: %ld games, %ld moves (%ld passes, %ld double, %ld capturing, "
           "%ld ko captures, %ld suicides), %ld undos, %ld positions compared (%ld with both "
           "colours' legality), %ld point legality verdicts, illegal moves refused: %ld occupied "
           "/ %ld suicide / %ld ko, %ld games capped, %.1f s engine time\n",
           gnugo_sizes[si], gnugo_sizes[si], gnugo_variants[v].name, t.games, t.moves, t.passes,
           t.doubles, t.captures, t.ko_captures, t.suicides, t.undos, t.positions, t.other_colour,
           t.legal_points, t.probes[PROBE_OCCUPIED], t.probes[PROBE_SUICIDE], t.probes[PROBE_KO],
           t.capped, t.engine_s);
}

START_TEST(random_games_match_gnugo)
{
    const char *path = getenv("SHIDO_GNUGO");
    if (!path || !*path)
        path = TEST_GNUGO;
    if (!test_gnugo_present(path, "test_gnugo: nothing compared"))
        return;
    signal(SIGPIPE, SIG_IGN);
    bool bad = false;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    cores = cores < 1 ? 1 : cores > GNUGO_MAX_JOBS ? GNUGO_MAX_JOBS : cores;
    shared.games[0] = env_games(&bad);
    shared.games[1] = (shared.games[0] + 3) / 4;
    shared.seed = (uint64_t)env_long("SHIDO_GNUGO_SEED", GNUGO_DEFAULT_SEED, 0, 0x7fffffffL, &bad);
    int jobs = (int)env_long("SHIDO_GNUGO_JOBS", cores, 1, GNUGO_MAX_JOBS, &bad);
    ck_assert_msg(!bad, "bad SHIDO_GNUGO_* setting (see stderr)");

    worker *w = calloc((size_t)jobs, sizeof *w);
    ck_assert(w);
    /* Every engine is spawned before any thread starts (see gnugo_pipe.h). */
    for (int i = 0; i < jobs; i++)
        for (int v = 0; v < GNUGO_NUM_VARIANTS; v++) {
            gnugo_pipe *e = &w[i].eng[v];
            ck_assert_msg(gnugo_pipe_open(e, path, gnugo_variants[v].args, GNUGO_REPLY_TIMEOUT_MS),
                          "%s: %s", path, e->err);
            e->nap_us = GNUGO_NAP_US;
            char version[128];
            ck_assert_msg(gnugo_pipe_cmd(e, version, sizeof version, "version") == 1,
                          "%s does not answer GTP: %s", path, e->err);
            if (i == 0 && v == 0)
                printf("test_gnugo: %s (GNU Go %s), %d games per size (+%d with suicide "
                       "allowed), base seed 0x%llx, %d workers\n",
                       path, version, shared.games[0], shared.games[1],
                       (unsigned long long)shared.seed, jobs);
        }
    double t0 = go_now_s();
    for (int i = 0; i < jobs; i++)
        ck_assert(pthread_create(&w[i].thread, NULL, worker_main, &w[i]) == 0);
    for (int i = 0; i < jobs; i++)
        pthread_join(w[i].thread, NULL);
    double wall = go_now_s() - t0;

    for (int v = 0; v < GNUGO_NUM_VARIANTS; v++)
        for (int si = 0; si < GNUGO_NUM_SIZES; si++)
            print_stats(v, si, w, jobs);
    printf("test_gnugo: %.1f s wall\n", wall);
    fflush(stdout);
    for (int i = 0; i < jobs; i++)
        for (int v = 0; v < GNUGO_NUM_VARIANTS; v++)
            gnugo_pipe_close(&w[i].eng[v]);
    free(w);
    if (shared.failure)
        ck_abort_msg("%s", shared.failure);
}
END_TEST

Suite *gnugo_suite(void)
{
    Suite *s = suite_create("gnugo");
    TCase *tc = tcase_create("differential");
    /* About a second per game of each size on one slow core, plus slack. */
    bool bad = false;
    tcase_set_timeout(tc, 600.0 + 1.5 * 1.25 * env_games(&bad));
    tcase_add_test(tc, random_games_match_gnugo);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return test_run_suite(gnugo_suite()); }
