/* teach/tsumego_gen.c -- what both generators share: the strictness check, the static pruning,
 * the canonical key and the problem's SGF (see teach/tsumego_gen.h). */
#include "teach/tsumego_gen.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "go/bitboard.h"
#include "go/eyes.h"
#include "go/game.h"
#include "go/sgf.h"
#include "teach/engine.h"
#include "teach/tsumego.h"

const char *teach_tsgen_verdict_name(teach_tsgen_verdict v)
{
    static const char *names[TEACH_TSGEN_VERDICTS] = {
        "strict", "refused", "pruned", "unproven", "fails", "ko", "not unique",
        "no move needed", "line not unique", "wrong tesuji", "duplicate"};
    return (unsigned)v < TEACH_TSGEN_VERDICTS ? names[v] : "?";
}

void teach_tsgen_problem_free(teach_tsgen_problem *p)
{
    free(p->sgf);
    p->sgf = NULL;
}

int teach_tsgen_difficulty(uint64_t nodes, int depth)
{
    int d = (int)lround(log10((double)nodes + 1.0)) + (depth + 1) / 2 - 2;
    return d < 1 ? 1 : d > 9 ? 9 : d;
}

/* ---- canonical key ------------------------------------------------------------------------ */

static void transform(int sym, int size, int x, int y, int *tx, int *ty)
{
    if (sym & 4) {
        int t = x;
        x = y;
        y = t;
    }
    if (sym & 1)
        x = size - 1 - x;
    if (sym & 2)
        y = size - 1 - y;
    *tx = x;
    *ty = y;
}

uint64_t teach_tsgen_key(const go_board *b, go_color to_play)
{
    uint64_t best = UINT64_MAX;
    for (int swap = 0; swap < 2; swap++)
        for (int sym = 0; sym < 8; sym++) {
            go_color tp = swap ? go_opponent(to_play) : to_play;
            uint64_t h = tp == GO_WHITE ? go_zobrist_white_to_move() : 0;
            for (int y = 0; y < b->size; y++)
                for (int x = 0; x < b->size; x++) {
                    go_color c = (go_color)b->color[go_point_at(x, y)];
                    if (c != GO_BLACK && c != GO_WHITE)
                        continue;
                    int tx, ty;
                    transform(sym, b->size, x, y, &tx, &ty);
                    h ^= go_zobrist_stone(swap ? go_opponent(c) : c, go_point_at(tx, ty));
                }
            if (h < best)
                best = h;
        }
    return best;
}

/* ---- static pruning ----------------------------------------------------------------------- */

bool teach_tsgen_static_settled(const go_board *b, go_color defender)
{
    go_bb all = go_bb_board(b->size);
    go_bb mine = go_bb_of_color(b, defender), theirs = go_bb_of_color(b, go_opponent(defender));
    go_bb alive = go_eyes_benson(b, defender);
    go_bb empty = go_bb_andnot(go_bb_andnot(all, mine), theirs);
    go_bb seen = go_bb_none();
    for (int bit = 0; bit < GO_BB_BITS; bit++) {
        if (!go_bb_test(mine, bit) || go_bb_test(seen, bit))
            continue;
        go_bb group = go_eyes_group(b, go_bb_point_of(bit));
        seen = go_bb_or(seen, group);
        if (go_bb_intersects(group, alive))
            continue;
        go_bb regions[8];
        int n = go_eyes_regions(group, b->size, regions, 8);
        int clean = 0;
        for (int i = 0; i < n && i < 8; i++)
            clean += !go_bb_intersects(regions[i], theirs);
        /* two closed regions free of attacker stones around one chain: two eyes by Euler's
         * count (a group of several chains may hang on a cuttable diagonal: a false eye) */
        if (clean >= 2 && go_board_chain_size(b, go_bb_point_of(bit)) == go_bb_count(group))
            return true;
        if (n != 1)
            continue;
        /* one closed region and no liberty outside it: its shape's status decides */
        go_bb libs = go_bb_and(go_bb_neighbours(group, all), empty);
        if (!go_bb_subset(libs, regions[0]))
            continue;
        go_life_pair s = go_eyes_static_status(b, group, regions[0]);
        if (s.defender_first == s.attacker_first && s.defender_first != GO_LIFE_KO)
            return true;
    }
    return false;
}

/* ---- the solution's SGF ------------------------------------------------------------------- */

static bool set_prop(go_sgf_node *n, const char *ident, const char *value)
{
    for (int i = 0; i < n->num_props; i++)
        if (!strcmp(n->props[i].ident, ident)) {
            char *v = strdup(value);
            if (!v)
                return false;
            free(n->props[i].values[0]);
            n->props[i].values[0] = v;
            return true;
        }
    return go_sgf_add_value(n, ident, value);
}

static int node_move(const go_sgf_node *n, int size, go_color *c)
{
    const char *v = go_sgf_get(n, "B");
    *c = GO_BLACK;
    if (!v) {
        v = go_sgf_get(n, "W");
        *c = GO_WHITE;
    }
    if (!v)
        return GO_NO_POINT;
    if (!v[0] || !v[1] || (size <= 19 && !strcmp(v, "tt")))
        return GO_PASS;
    int x = v[0] - 'a', y = v[1] - 'a';
    if (x < 0 || y < 0 || x >= size || y >= size)
        return GO_NO_POINT;
    return go_point_at(x, y);
}

/* Reads the main line of the solver's tree (the first branch marked Correct) into out; with
 * comment, also marks every first move's branch GB/GW, sets the root comment and returns the new
 * SGF text. NULL when out of memory, unreadable or the tree has no correct branch. */
static char *finish_sgf(const char *sgf, const go_board *b, go_color to_play,
                        const char *comment, teach_tsgen_problem *out)
{
    char err[128];
    go_sgf_collection *col = go_sgf_parse(sgf, strlen(sgf), err, sizeof err);
    if (!col || col->num_games < 1) {
        go_sgf_free(col);
        return NULL;
    }
    go_sgf_node *root = col->games[0];
    const char *good = to_play == GO_BLACK ? "GB" : "GW", *bad = to_play == GO_BLACK ? "GW" : "GB";
    out->line_len = 0;
    bool ok = true;
    for (int i = 0; i < root->num_children && ok; i++) {
        go_sgf_node *c = root->children[i];
        const char *cm = go_sgf_get(c, "C");
        bool right = cm && !strncmp(cm, "Correct", 7);
        if (comment)
            ok = go_sgf_add_value(c, right ? good : bad, "1");
        if (!right || out->line_len)
            continue;
        for (const go_sgf_node *n = c; n && out->line_len < TEACH_TSGEN_MAX_LINE;
             n = n->num_children ? n->children[0] : NULL) {
            go_color mc;
            int m = node_move(n, b->size, &mc);
            if (m == GO_NO_POINT)
                break;
            out->line[out->line_len++] = m;
        }
    }
    char *s = NULL;
    if (ok && out->line_len > 0 && !comment)
        s = strdup("");
    else if (ok && out->line_len > 0 && set_prop(root, "C", comment))
        s = go_sgf_write(col);
    go_sgf_free(col);
    return s;
}

/* ---- verification ------------------------------------------------------------------------- */

static go_tsumego_limits solver_limits(const teach_tsgen_limits *l)
{
    go_tsumego_limits g = {0};
    g.max_nodes = l && l->max_nodes ? l->max_nodes : 300000;
    g.time_s = l && l->time_s > 0 ? l->time_s : 3.0;
    g.tt_log2 = l && l->tt_log2 ? l->tt_log2 : 18;
    return g;
}

static teach_tsgen_verdict verdict_of(const go_tsumego_solution *s)
{
    if (s->status.result == GO_TSUMEGO_UNKNOWN || !s->best_proven)
        return TEACH_TSGEN_UNPROVEN;
    if (s->status.result == GO_TSUMEGO_FAILURE)
        return TEACH_TSGEN_FAILS;
    if (s->status.result == GO_TSUMEGO_KO)
        return TEACH_TSGEN_KO;
    if (s->uniqueness == GO_TSUMEGO_UNIQUE_UNKNOWN)
        return TEACH_TSGEN_UNPROVEN;
    if (s->uniqueness != GO_TSUMEGO_UNIQUE)
        return TEACH_TSGEN_NOT_UNIQUE;
    /* a tenuki must fail: the opponent, moving first, stops the goal (a ko will do) */
    if (s->reply_status.result != GO_TSUMEGO_SUCCESS && s->reply_status.result != GO_TSUMEGO_KO)
        return TEACH_TSGEN_NO_MOVE_NEEDED;
    return TEACH_TSGEN_STRICT;
}

/* Plays move m of colour c (a pass only hands over the turn). */
static void play_line_move(go_board *b, int m, go_color c)
{
    if (m != GO_PASS)
        go_board_play(b, m, c);
    b->to_move = go_opponent(c);
}

/* The mover's later turns on the main line: each must have the line's move as its only one. */
static teach_tsgen_verdict check_line(const teach_tsgen_problem *p, const teach_tsgen_limits *lim,
                                      uint64_t *nodes)
{
    int checks = lim && lim->line_checks ? lim->line_checks : 1;
    go_tsumego_limits gl = solver_limits(lim);
    go_board b = p->board;
    go_color c = p->to_play;
    for (int j = 1; j <= checks && 2 * j < p->line_len; j++) {
        play_line_move(&b, p->line[2 * j - 2], c);
        play_line_move(&b, p->line[2 * j - 1], go_opponent(c));
        go_tsumego_problem tp;
        char err[256];
        if (!go_tsumego_setup(&b, c, p->goal, &tp, err, sizeof err))
            return TEACH_TSGEN_STRICT; /* settled: the line has done its work */
        go_tsumego_solution s;
        if (!go_tsumego_solve(&tp, &gl, &s))
            return TEACH_TSGEN_UNPROVEN;
        *nodes += s.nodes;
        teach_tsgen_verdict v = verdict_of(&s);
        bool same = s.best_move == p->line[2 * j];
        go_tsumego_solution_free(&s);
        if (v == TEACH_TSGEN_UNPROVEN)
            return v;
        if (v != TEACH_TSGEN_STRICT || !same)
            return TEACH_TSGEN_LINE_NOT_UNIQUE;
    }
    return TEACH_TSGEN_STRICT;
}

teach_tsgen_verdict teach_tsgen_verify(const go_board *b, go_color to_play, go_tsumego_goal goal,
                                       const teach_tsgen_limits *lim, const char *note,
                                       teach_tsgen_problem *out)
{
    memset(out, 0, sizeof *out);
    out->board = *b;
    out->board.to_move = to_play;
    out->to_play = to_play;
    out->goal = goal;
    out->answer = GO_NO_POINT;
    go_tsumego_problem tp;
    char err[256];
    if (!go_tsumego_setup(&out->board, to_play, goal, &tp, err, sizeof err))
        return TEACH_TSGEN_REFUSED;
    out->goal = tp.goal;
    if (!(lim && lim->no_static_prune) && teach_tsgen_static_settled(&out->board, tp.defender))
        return TEACH_TSGEN_PRUNED;
    go_tsumego_limits gl = solver_limits(lim);
    go_tsumego_solution s;
    if (!go_tsumego_solve(&tp, &gl, &s))
        return TEACH_TSGEN_UNPROVEN;
    out->nodes = s.nodes;
    out->goal = s.problem.goal;
    out->answer = s.best_move;
    teach_tsgen_verdict v = verdict_of(&s);
    char *tree = s.sgf;
    s.sgf = NULL;
    go_tsumego_solution_free(&s);
    out->total_nodes = out->nodes;
    if (v == TEACH_TSGEN_STRICT) {
        char *none = tree ? finish_sgf(tree, &out->board, to_play, NULL, out) : NULL;
        if (!none || out->line[0] != out->answer)
            v = TEACH_TSGEN_UNPROVEN; /* no main line to show */
        free(none);
    }
    if (v == TEACH_TSGEN_STRICT && !(lim && lim->line_checks < 0))
        v = check_line(out, lim, &out->total_nodes);
    if (v == TEACH_TSGEN_STRICT) {
        out->depth = (out->line_len + 1) / 2;
        out->difficulty = teach_tsgen_difficulty(out->nodes, out->depth);
        out->key = teach_tsgen_key(&out->board, to_play);
        char text[512];
        snprintf(text, sizeof text, "%s to %s. Difficulty %d of 9 (%llu solver nodes, %d move%s "
                 "of the mover on the main line).%s%s", to_play == GO_BLACK ? "Black" : "White",
                 out->goal == GO_TSUMEGO_GOAL_KILL ? "kill" : "live", out->difficulty,
                 (unsigned long long)out->nodes, out->depth, out->depth == 1 ? "" : "s",
                 note ? " " : "", note ? note : "");
        out->sgf = finish_sgf(tree, &out->board, to_play, text, out);
        if (!out->sgf)
            v = TEACH_TSGEN_UNPROVEN;
    }
    free(tree);
    return v;
}

/* ---- the policy's rank of the answer ------------------------------------------------------ */

bool teach_tsgen_policy_rank(struct teach_engine *e, int net, const teach_tsgen_problem *p,
                             int *rank, char *err, int err_len)
{
    go_tsumego_problem tp;
    if (!go_tsumego_setup(&p->board, p->to_play, p->goal, &tp, err, err_len))
        return false;
    int size = tp.framed.size;
    go_game g;
    if (!go_game_init(&g, size, NULL, teach_tsumego_komi(&tp))) {
        snprintf(err, (size_t)err_len, "out of memory");
        return false;
    }
    for (int y = 0; y < size; y++)
        for (int x = 0; x < size; x++) {
            int q = go_point_at(x, y);
            if (tp.framed.color[q] != GO_EMPTY)
                go_game_setup_stone(&g, q, tp.framed.color[q]);
        }
    go_game_set_to_move(&g, p->to_play);
    nn_result *r = malloc(sizeof *r);
    bool ok = r && teach_engine_eval(e, net, &g, TEACH_SYM_AVERAGE, 0.0, r, err, err_len);
    if (!r)
        snprintf(err, (size_t)err_len, "out of memory");
    if (ok) {
        float mine = r->policy[go_point_y(p->answer) * size + go_point_x(p->answer)];
        *rank = 1;
        for (int y = 0; y < size; y++)
            for (int x = 0; x < size; x++) {
                int q = go_point_at(x, y);
                float v = r->policy[y * size + x];
                /* NAN (illegal) never counts; a NAN answer ranks last among the region */
                if (q != p->answer && tp.region[q] && tp.framed.color[q] == GO_EMPTY && v == v &&
                    !(v <= mine))
                    (*rank)++;
            }
    }
    free(r);
    go_game_free(&g);
    return ok;
}
