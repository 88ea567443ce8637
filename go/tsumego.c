/* go/tsumego.c -- tsumego set-up (region, roles, frame) and the solve driver: status with the ko
 * classification, every correct first move, uniqueness, the reply status. */
#include "go/tsumego.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "go/tsumego_internal.h"

#define SNAP_LINES 2  /* stones this close to an edge make the region reach that edge */
#define MARGIN_LINES 1 /* open lines kept between the defender's stones and the frame */
#define FRAME_WALL 4  /* the attacker's frame is at least this thick before defender stones */
#define WEAK_LIBERTIES 4 /* attacker chains with more liberties are taken as safe */
#define CAPTURE_LIBERTIES 1 /* weak chains this short of liberties: points next to them count */

/* --- set-up --- */

/* Distance of (x,y) to the nearest edge the region touches (any edge when it touches none). */
static int height(int x, int y, int size, const bool touch[4])
{
    int d[4] = {x, y, size - 1 - x, size - 1 - y};
    int best = size, any = size;
    for (int k = 0; k < 4; k++) {
        if (touch[k] && d[k] < best)
            best = d[k];
        if (d[k] < any)
            any = d[k];
    }
    return best < size ? best : any;
}

/* The framed board: outside the box, attacker stones near it and, when the board leaves room,
 * defender stones far from it so that a whole-board evaluator sees a balanced game; both with an
 * eye on every (even, even) point whose neighbours are all of the same colour. A frame too thin
 * to hold an eye could leave a chain without liberties: such stones are left out. */
static void build_frame(go_tsumego_problem *p)
{
    const go_board *b = &p->board;
    int size = b->size;
    uint8_t plan[GO_POINTS];
    int dist[GO_POINTS];
    int outside = 0;
    memset(plan, 0, sizeof plan);
    memset(dist, 0, sizeof dist);
    for (int y = 0; y < size; y++)
        for (int x = 0; x < size; x++) {
            int q = go_point_at(x, y);
            int dx = x < p->x0 ? p->x0 - x : x > p->x1 ? x - p->x1 : 0;
            int dy = y < p->y0 ? p->y0 - y : y > p->y1 ? y - p->y1 : 0;
            dist[q] = dx > dy ? dx : dy;
            outside += dist[q] > 0;
        }
    /* the defender part: the farthest points, about half the outside, and only when it is at
     * least three lines thick, so that it can hold eyes */
    int t = FRAME_WALL, deepest = 0;
    for (int q = 0; q < GO_POINTS; q++)
        deepest = b->color[q] != GO_BORDER && dist[q] > deepest ? dist[q] : deepest;
    for (;; t++) {
        int far = 0;
        for (int y = 0; y < size; y++)
            for (int x = 0; x < size; x++)
                far += dist[go_point_at(x, y)] >= t;
        if (far * 2 <= outside)
            break;
    }
    if (deepest < t + 2)
        t = size + 1;
    for (int y = 0; y < size; y++)
        for (int x = 0; x < size; x++) {
            int q = go_point_at(x, y);
            if (dist[q] > 0)
                plan[q] = (uint8_t)(dist[q] >= t ? p->defender : p->attacker);
        }
    p->framed = *b;
    for (int y = 0; y < size; y++)
        for (int x = 0; x < size; x++) {
            int q = go_point_at(x, y);
            if (!plan[q])
                continue;
            bool eye = x % 2 == 0 && y % 2 == 0;
            for (int d = 0; d < 4 && eye; d++) {
                int r = q + go_dir4[d];
                eye = b->color[r] == GO_BORDER || plan[r] == plan[q];
            }
            if (!eye)
                go_board_place(&p->framed, q, (go_color)plan[q]);
        }
    for (int q = 0; q < GO_POINTS; q++)
        if (plan[q] && p->framed.color[q] == plan[q] && go_board_libs(&p->framed, q) == 0)
            go_board_remove_chain(&p->framed, q);
    p->framed.to_move = p->to_play;
}

static bool in_box(const go_tsumego_problem *p, int q)
{
    int x = go_point_x(q), y = go_point_y(q);
    return p->board.color[q] != GO_BORDER && x >= p->x0 && x <= p->x1 && y >= p->y0 &&
           y <= p->y1;
}

/* Is the attacker chain at q weak (few liberties) and inside the box (no stone or liberty
 * beyond it)? */
static bool weak_inside(const go_tsumego_problem *p, int q)
{
    const go_board *b = &p->board;
    int h = b->chain[q], s = h;
    bool weak = b->libs[h] <= WEAK_LIBERTIES;
    do {
        for (int e = 0; e < 4; e++) {
            int l = s + go_dir4[e];
            weak &= in_box(p, l) || b->color[l] == GO_BORDER;
        }
        s = b->next[s];
    } while (s != h && weak);
    return weak;
}

/* The region inside the box (see tsumego.h): the defender's reach, flooding from its stones
 * over empty points but not beyond one that touches an attacker stone without touching a
 * defender stone; then the attacker chains touching the reach and, for the weak ones (few
 * liberties, not touching the frame), their liberties, so that capturing races are played out,
 * and for those in atari the points next to their liberty (without them the stone that captures
 * has no liberties beyond the captured ones and a ko appears where there is none). A strong
 * chain's outside liberties stay frame, which makes the chain safe. The wide region's flow
 * passes weak attacker chains and, where it stops, takes in the empty points one step beyond
 * (see tsumego.h). */
static void find_region(go_tsumego_problem *p)
{
    const go_board *b = &p->board;
    int def = p->defender, att = p->attacker;
    uint8_t reach[GO_POINTS];
    int16_t queue[2 * GO_POINTS]; /* a point comes twice at most: one step beyond, then flowing */
    int qn = 0;
    memset(reach, 0, sizeof reach);
    memset(p->region, 0, sizeof p->region);
    for (int q = 0; q < GO_POINTS; q++)
        if (in_box(p, q) && b->color[q] == def) {
            reach[q] = 1;
            queue[qn++] = (int16_t)q;
        }
    for (int k = 0; k < qn; k++) {
        int q = queue[k];
        bool flows = b->color[q] == def;
        if (!flows) {
            bool by_def = false, by_att = false;
            for (int d = 0; d < 4; d++) {
                int r = q + go_dir4[d];
                by_def |= b->color[r] == def;
                by_att |= b->color[r] == att && !(p->wide && weak_inside(p, r));
            }
            flows = by_def || !by_att;
        }
        /* the wide region: where the flow stops, the empty points one step beyond join it
         * and stop there (a defender stone played at the stop has its liberties there) */
        if (reach[q] == 2 || (!flows && !p->wide))
            continue;
        for (int d = 0; d < 4; d++) {
            int r = q + go_dir4[d];
            bool takes = !reach[r] || (reach[r] == 2 && flows);
            if (in_box(p, r) && b->color[r] == GO_EMPTY && takes) {
                reach[r] = flows ? 1 : 2;
                queue[qn++] = (int16_t)r;
            }
        }
    }
    /* reach now holds the flow and the empty points where it stopped; add the attacker chains
     * touching it, with their liberties */
    for (int q = 0; q < GO_POINTS; q++)
        if (reach[q])
            p->region[q] = 1;
    for (int q = 0; q < GO_POINTS; q++) {
        if (!reach[q])
            continue;
        for (int d = 0; d < 4; d++) {
            int r = q + go_dir4[d];
            if (!in_box(p, r) || b->color[r] != att || p->region[r])
                continue;
            int h = b->chain[r], s = h;
            bool weak = weak_inside(p, r);
            do {
                p->region[s] = 1;
                for (int e = 0; e < 4 && weak; e++) {
                    int l = s + go_dir4[e];
                    if (!in_box(p, l) || b->color[l] != GO_EMPTY)
                        continue;
                    p->region[l] = 1;
                    /* a chain in atari: the capturing stone's own liberties count */
                    for (int f = 0; f < 4 && b->libs[h] <= CAPTURE_LIBERTIES; f++) {
                        int m = l + go_dir4[f];
                        if (in_box(p, m) && b->color[m] == GO_EMPTY)
                            p->region[m] = 1;
                    }
                }
                s = b->next[s];
            } while (s != h);
        }
    }
    /* empty pockets the region closes around (behind a point where the flow stopped) belong to
     * it: they can only be reached from inside */
    uint8_t seen[GO_POINTS];
    memset(seen, 0, sizeof seen);
    for (int q = 0; q < GO_POINTS; q++) {
        if (!in_box(p, q) || p->region[q] || seen[q] || b->color[q] != GO_EMPTY)
            continue;
        int n = 0;
        bool closed = true;
        seen[q] = 1;
        queue[n++] = (int16_t)q;
        for (int k = 0; k < n; k++)
            for (int d = 0; d < 4; d++) {
                int r = queue[k] + go_dir4[d];
                if (b->color[r] == GO_BORDER || p->region[r])
                    continue;
                if (!in_box(p, r) || b->color[r] != GO_EMPTY)
                    closed = false;
                else if (!seen[r]) {
                    seen[r] = 1;
                    queue[n++] = (int16_t)r;
                }
            }
        for (int k = 0; k < n && closed; k++)
            p->region[queue[k]] = 1;
    }
    p->region_points = 0;
    for (int q = 0; q < GO_POINTS; q++)
        p->region_points += p->region[q];
}

/* go_tsumego_setup, with the wide region or not. */
static bool setup(const go_board *b, go_color to_play, go_tsumego_goal goal, bool wide,
                  go_tsumego_problem *p, go_tsumego_refusal *why, char *err, int err_len)
{
    go_tsumego_refusal unused;
    why = why ? why : &unused;
    *why = GO_TSUMEGO_REFUSED_SHAPE;
    memset(p, 0, sizeof *p);
    p->wide = wide;
    if (to_play != GO_BLACK && to_play != GO_WHITE) {
        *why = GO_TSUMEGO_REFUSED_OTHER;
        snprintf(err, (size_t)err_len, "the side to play must be black or white");
        return false;
    }
    int size = b->size, x0 = size, y0 = size, x1 = -1, y1 = -1, stones[3] = {0, 0, 0};
    for (int y = 0; y < size; y++)
        for (int x = 0; x < size; x++) {
            int c = b->color[go_point_at(x, y)];
            if (c != GO_BLACK && c != GO_WHITE)
                continue;
            stones[c]++;
            x0 = x < x0 ? x : x0;
            y0 = y < y0 ? y : y0;
            x1 = x > x1 ? x : x1;
            y1 = y > y1 ? y : y1;
        }
    if (x1 < 0) {
        snprintf(err, (size_t)err_len, "empty board: there is no problem to solve");
        return false;
    }
    x0 = x0 <= SNAP_LINES ? 0 : x0;
    y0 = y0 <= SNAP_LINES ? 0 : y0;
    x1 = x1 >= size - 1 - SNAP_LINES ? size - 1 : x1;
    y1 = y1 >= size - 1 - SNAP_LINES ? size - 1 : y1;
    bool touch[4] = {x0 == 0, y0 == 0, x1 == size - 1, y1 == size - 1};

    /* roles: the side whose stones stand further from the edges surrounds the other; a colour
     * without stones can only be the attacker (the frame is its wall) */
    go_color attacker;
    if (goal == GO_TSUMEGO_GOAL_KILL) {
        attacker = to_play;
    } else if (goal == GO_TSUMEGO_GOAL_LIVE) {
        attacker = go_opponent(to_play);
    } else if (!stones[GO_BLACK] || !stones[GO_WHITE]) {
        attacker = stones[GO_BLACK] ? GO_WHITE : GO_BLACK;
    } else {
        long h[3] = {0, 0, 0};
        for (int y = y0; y <= y1; y++)
            for (int x = x0; x <= x1; x++) {
                int c = b->color[go_point_at(x, y)];
                if (c == GO_BLACK || c == GO_WHITE)
                    h[c] += height(x, y, size, touch);
            }
        attacker = h[GO_BLACK] > h[GO_WHITE]   ? GO_BLACK
                   : h[GO_WHITE] > h[GO_BLACK] ? GO_WHITE
                                               : go_opponent(to_play);
    }
    p->board = *b;
    p->to_play = to_play;
    p->attacker = attacker;
    p->defender = go_opponent(attacker);
    p->goal = attacker == to_play ? GO_TSUMEGO_GOAL_KILL : GO_TSUMEGO_GOAL_LIVE;
    p->goal_inferred = goal == GO_TSUMEGO_GOAL_AUTO;

    /* an open side lined by attacker stones only is the wall itself: the frame may touch it */
    int lo[2] = {x0, y0}, hi[2] = {x1, y1};
    for (int side = 0; side < 4; side++) {
        int axis = side % 2, line = side < 2 ? lo[axis] : hi[axis];
        if (touch[side])
            continue;
        bool defender_seen = false;
        int other_lo = axis ? x0 : y0, other_hi = axis ? x1 : y1;
        for (int k = other_lo; k <= other_hi; k++) {
            int q = axis ? go_point_at(k, line) : go_point_at(line, k);
            defender_seen |= b->color[q] == p->defender;
        }
        if (!defender_seen && stones[attacker])
            continue;
        if (side < 2)
            lo[axis] = line - MARGIN_LINES < 0 ? 0 : line - MARGIN_LINES;
        else
            hi[axis] = line + MARGIN_LINES > size - 1 ? size - 1 : line + MARGIN_LINES;
    }
    p->x0 = lo[0];
    p->y0 = lo[1];
    p->x1 = hi[0];
    p->y1 = hi[1];
    int w = p->x1 - p->x0 + 1, hgt = p->y1 - p->y0 + 1;
    if (w == size && hgt == size) {
        snprintf(err, (size_t)err_len,
                 "the stones spread over the whole board: not a corner or side problem (no room "
                 "for a tsumego frame)");
        return false;
    }
    find_region(p);
    if (p->region_points > GO_TSUMEGO_MAX_REGION) {
        snprintf(err, (size_t)err_len,
                 "the problem spreads over %d points, more than the %d the solver handles: not a "
                 "corner or side problem",
                 p->region_points, GO_TSUMEGO_MAX_REGION);
        return false;
    }

    /* targets: defender stones in the region that are not already pass-alive */
    ts_geom *g = malloc(sizeof *g);
    ts_pos *s = malloc(sizeof *s);
    if (!g || !s) {
        free(g);
        free(s);
        *why = GO_TSUMEGO_REFUSED_OTHER;
        snprintf(err, (size_t)err_len, "out of memory");
        return false;
    }
    ts_geom_init(g, size, p->region, attacker);
    ts_pos_from_board(g, b, to_play, NULL, s);
    bool alive[TS_MAX_POINTS];
    ts_benson_defender(g, s, alive);
    for (int i = 0; i < g->n; i++)
        p->num_targets += s->p[i].color == p->defender && !alive[i];
    free(g);
    free(s);
    if (p->num_targets == 0) {
        *why = GO_TSUMEGO_REFUSED_SETTLED;
        snprintf(err, (size_t)err_len,
                 "no weak group: %s (the defender) has no stones in the region that are not "
                 "already alive",
                 p->defender == GO_BLACK ? "black" : "white");
        return false;
    }
    build_frame(p);
    return true;
}

bool go_tsumego_setup(const go_board *b, go_color to_play, go_tsumego_goal goal,
                      go_tsumego_problem *p, char *err, int err_len)
{
    return setup(b, to_play, goal, false, p, NULL, err, err_len);
}

bool go_tsumego_setup_why(const go_board *b, go_color to_play, go_tsumego_goal goal,
                          go_tsumego_problem *p, go_tsumego_refusal *why, char *err, int err_len)
{
    return setup(b, to_play, goal, false, p, why, err, err_len);
}

/* --- solving --- */

void ts_solver_position(const ts_solver *sv, ts_budgets lv, ts_pos *out)
{
    *out = sv->root;
    out->budget[out->to_move] = lv.mover;
    out->budget[3 - out->to_move] = lv.other;
}

static bool solver_init(ts_solver *sv, const go_tsumego_problem *p, int tt_log2)
{
    memset(sv, 0, sizeof *sv);
    sv->prob = p;
    ts_geom_init(&sv->geom, p->board.size, p->region, p->attacker);
    ts_pos_from_board(&sv->geom, &p->board, p->to_play, NULL, &sv->root);
    bool alive[TS_MAX_POINTS];
    ts_benson_defender(&sv->geom, &sv->root, alive);
    ts_pos_from_board(&sv->geom, &p->board, p->to_play, alive, &sv->root);
    sv->search = ts_search_new(&sv->geom, tt_log2);
    return sv->search != NULL;
}

/* Does the mover of pos win with these budgets? TS_OPEN when the limits cut the search. */
static ts_outcome ask(ts_solver *sv, const ts_pos *pos, ts_budgets lv)
{
    ts_pos q = *pos;
    q.budget[q.to_move] = lv.mover;
    q.budget[3 - q.to_move] = lv.other;
    return ts_search_prove(sv->search, &q);
}

/* The status of the side to move in pos: first whether it wins with the opponent holding every
 * ko threat, then whether it wins holding them itself, then (for a ko) with one or two threats
 * on either side to tell a direct ko from an approach ko. *level receives the budgets that define
 * the result (the loosest that still wins; the mover's unlimited ones for a failure). */
static go_tsumego_status status_of(ts_solver *sv, const ts_pos *pos, ts_budgets *level)
{
    const ts_geom *g = &sv->geom;
    int mover = pos->to_move;
    go_tsumego_status st = {GO_TSUMEGO_UNKNOWN, GO_TSUMEGO_KO_NONE, false};
    ts_budgets strict = {0, TS_UNLIMITED}, loose = {TS_UNLIMITED, 0};
    *level = strict;
    ts_outcome o = ask(sv, pos, strict);
    if (o == TS_OPEN)
        return st;
    if (ts_wins(g, o, mover)) {
        st.result = GO_TSUMEGO_SUCCESS;
        return st;
    }
    *level = loose;
    o = ask(sv, pos, loose);
    if (o == TS_OPEN)
        return st;
    if (!ts_wins(g, o, mover)) {
        st.result = GO_TSUMEGO_FAILURE;
        return st;
    }
    st.result = GO_TSUMEGO_KO;
    static const struct {
        ts_budgets lv;
        go_tsumego_ko kind;
        bool favourable;
    } steps[] = {
        {{0, 1}, GO_TSUMEGO_KO_APPROACH, true}, /* the opponent needs two or more threats */
        {{0, 0}, GO_TSUMEGO_KO_DIRECT, true},   /* the mover takes first */
        {{1, 0}, GO_TSUMEGO_KO_DIRECT, false},  /* the mover needs one threat */
    };
    for (size_t k = 0; k < sizeof steps / sizeof steps[0]; k++) {
        o = ask(sv, pos, steps[k].lv);
        if (o == TS_OPEN)
            return st; /* a ko, kind unknown */
        if (ts_wins(g, o, mover)) {
            st.ko = steps[k].kind;
            st.favourable = steps[k].favourable;
            *level = steps[k].lv;
            return st;
        }
    }
    st.ko = GO_TSUMEGO_KO_APPROACH;
    st.favourable = false;
    return st;
}

/* The move the table prefers at pos with these budgets, or -1: the smallest proof number of the
 * mover's goal, and among equals (all refuted, say) the one the search worked on most, which is
 * the most stubborn try. */
static int table_best(ts_solver *sv, const ts_pos *pos, ts_budgets lv)
{
    ts_pos q = *pos;
    q.budget[q.to_move] = lv.mover;
    q.budget[3 - q.to_move] = lv.other;
    int moves[TS_MAX_POINTS + 1];
    int n = ts_search_moves(sv->search, &q, moves);
    int best = -1;
    uint32_t best_pn = 0, best_work = 0;
    bool att = q.to_move == sv->geom.attacker;
    for (int i = 0; i < n; i++) {
        if (moves[i] == TS_PASS)
            continue;
        ts_pos c = q;
        ts_play_move(&sv->geom, &c, moves[i]);
        uint32_t pn, dn, work;
        ts_search_lookup(sv->search, &c, &pn, &dn, &work);
        uint32_t v = att ? pn : dn;
        if (best < 0 || v < best_pn || (v == best_pn && work > best_work)) {
            best_pn = v;
            best_work = work;
            best = moves[i];
        }
    }
    return best;
}

/* The first move of the highest prior among those the table has not refuted at lv, or -1 (no
 * prior, or every move refuted). */
static int prior_best(ts_solver *sv, const float *prior, ts_budgets lv)
{
    if (!prior)
        return -1;
    ts_pos q;
    ts_solver_position(sv, lv, &q);
    int moves[TS_MAX_POINTS + 1];
    int n = ts_search_moves(sv->search, &q, moves), best = -1;
    float best_p = -1;
    for (int i = 0; i < n; i++) {
        if (moves[i] == TS_PASS)
            continue;
        ts_pos c = q;
        ts_play_move(&sv->geom, &c, moves[i]);
        ts_outcome o = ts_search_lookup(sv->search, &c, NULL, NULL, NULL);
        float pr = prior[sv->geom.pt[moves[i]]];
        if (o != TS_OPEN && !ts_wins(&sv->geom, o, q.to_move))
            continue;
        if (pr > best_p) {
            best_p = pr;
            best = moves[i];
        }
    }
    return best;
}

/* Settles every first move at the status level: fills correct[] and the uniqueness verdict.
 * Starts with the table's favourite so that a good move is found before time runs out. Returns
 * false when the limits cut the scan short (with all set, before every move was settled). */
static bool scan_first_moves(ts_solver *sv, go_tsumego_solution *out, bool all)
{
    const ts_geom *g = &sv->geom;
    ts_pos root;
    ts_solver_position(sv, sv->level, &root);
    int moves[TS_MAX_POINTS + 1];
    int n = ts_search_moves(sv->search, &root, moves);
    int first = table_best(sv, &sv->root, sv->level);
    for (int i = 0; i < n; i++)
        if (moves[i] == first) {
            moves[i] = moves[0];
            moves[0] = first;
        }
    bool settled = true;
    out->num_correct = 0;
    for (int i = 0; i < n; i++) {
        if (moves[i] == TS_PASS)
            continue;
        ts_pos line[2] = {root, root};
        ts_play_move(g, &line[1], moves[i]);
        ts_outcome o = ts_search_prove_line(sv->search, line, 2);
        if (o == TS_OPEN) {
            settled = false;
            break;
        }
        if (ts_wins(g, o, root.to_move)) {
            out->correct[out->num_correct++] = g->pt[moves[i]];
            if (!all)
                break;
        }
    }
    if (out->num_correct > 1)
        out->uniqueness = GO_TSUMEGO_NOT_UNIQUE;
    else if (settled && all)
        out->uniqueness = out->num_correct ? GO_TSUMEGO_UNIQUE : GO_TSUMEGO_NO_SOLUTION;
    else
        out->uniqueness = GO_TSUMEGO_UNIQUE_UNKNOWN;
    return settled;
}

/* Does the mover of the root win after first move m (a region index) at budgets lv? TS_OPEN
 * when the limits cut the search. */
static ts_outcome first_move_outcome(ts_solver *sv, int m, ts_budgets lv)
{
    ts_pos line[2];
    ts_solver_position(sv, lv, &line[0]);
    line[1] = line[0];
    ts_play_move(&sv->geom, &line[1], m);
    return ts_search_prove_line(sv->search, line, 2);
}

/* For a ko, several first moves often reach the status level while one of them gives the better
 * ko: the opponent needs more threats, or the mover fewer, and that is the answer problem books
 * give. Keeps, among correct[], the moves that still win at stricter budgets (one more threat
 * for the opponent, or one fewer for the mover), as long as at least one does, and tightens
 * again from there. Stops with the set as it is at the limits, and then returns false. */
static bool refine_ko_moves(ts_solver *sv, go_tsumego_solution *out)
{
    const ts_geom *g = &sv->geom;
    int mover = sv->root.to_move;
    ts_budgets level = sv->level;
    for (bool narrowed = true; narrowed && out->num_correct > 1;) {
        narrowed = false;
        ts_budgets tries[2];
        int nt = 0;
        if (level.other < TS_MAX_THREATS)
            tries[nt++] = (ts_budgets){level.mover, (uint8_t)(level.other + 1)};
        if (level.mover > 0)
            tries[nt++] = (ts_budgets){
                (uint8_t)(level.mover == TS_UNLIMITED ? TS_MAX_THREATS : level.mover - 1),
                level.other};
        for (int t = 0; t < nt && !narrowed; t++) {
            int keep[GO_TSUMEGO_MAX_MOVES], nk = 0;
            for (int i = 0; i < out->num_correct; i++) {
                ts_outcome o = first_move_outcome(sv, g->idx[out->correct[i]], tries[t]);
                if (o == TS_OPEN)
                    return false;
                if (ts_wins(g, o, mover))
                    keep[nk++] = out->correct[i];
            }
            if (nk == 0)
                continue;
            memcpy(out->correct, keep, (size_t)nk * sizeof *keep);
            out->num_correct = nk;
            level = tries[t];
            narrowed = true;
        }
    }
    return true;
}

/* Puts the quietest correct move first: the one latest in the move order of the position
 * (captures, ataris and the target's liberties first). When several first moves reach the same
 * ko, the forcing ones start the ko at once, while the book answer is most often the quiet
 * vital point that leaves the opponent the burden of it: in the 65 such problems of the three
 * Cho books whose answers name some of the moves but not all, this rule picks a book move in
 * 44, the network's policy in 31, the first in that order in 19. The order is that of the
 * position alone, not the search's (which learns from what settled nodes): otherwise a prior,
 * a longer search or another thread count could change the answer. */
static void quietest_first(ts_solver *sv, go_tsumego_solution *out)
{
    ts_pos root;
    ts_solver_position(sv, sv->level, &root);
    int moves[TS_MAX_POINTS + 1];
    int n = ts_search_moves_by_shape(sv->search, &root, moves);
    int best = -1, best_rank = -1;
    for (int i = 0; i < out->num_correct; i++)
        for (int k = 0; k < n; k++)
            if (moves[k] != TS_PASS && sv->geom.pt[moves[k]] == out->correct[i] && k > best_rank) {
                best_rank = k;
                best = i;
            }
    if (best > 0) {
        int m = out->correct[best];
        memmove(out->correct + 1, out->correct, (size_t)best * sizeof *out->correct);
        out->correct[0] = m;
    }
}

/* Among first moves that win outright, the one the prior (a network's policy) likes best goes
 * first. A framed problem often has several winning first moves where the book's has one (the
 * frame holds attacker stones the real position would let the defender attack), and the policy
 * tells the tesuji from the slack move more often than the move order does. With all (every
 * first move settled) this only reorders correct[]; otherwise the moves the prior ranks above
 * the one found are tried in the prior's order, each with an even share of what is left of the
 * limits, and the first that wins is the answer. Every move it puts first is proven to win. */
static void prior_first(ts_solver *sv, const float *prior, go_tsumego_solution *out, bool all,
                        double deadline_s, uint64_t cap)
{
    if (!prior || out->num_correct < 1)
        return;
    const ts_geom *g = &sv->geom;
    int best = 0;
    for (int i = 1; i < out->num_correct; i++)
        if (prior[out->correct[i]] > prior[out->correct[best]])
            best = i;
    if (!all) {
        ts_pos root;
        ts_solver_position(sv, sv->level, &root);
        int moves[TS_MAX_POINTS + 1], cand[TS_MAX_POINTS + 1], nc = 0;
        int n = ts_search_moves(sv->search, &root, moves);
        float top = prior[out->correct[best]];
        for (int i = 0; i < n; i++)
            if (moves[i] != TS_PASS && prior[g->pt[moves[i]]] > top) {
                int j = nc++;
                for (; j > 0 && prior[g->pt[cand[j - 1]]] < prior[g->pt[moves[i]]]; j--)
                    cand[j] = cand[j - 1];
                cand[j] = moves[i];
            }
        for (int i = 0; i < nc; i++) {
            double now = go_now_s();
            uint64_t used = ts_search_nodes(sv->search);
            if (now >= deadline_s || (cap && used >= cap))
                break;
            ts_search_limits(sv->search, now + (deadline_s - now) / (nc - i),
                             cap ? used + (cap - used) / (uint64_t)(nc - i) : 0);
            if (ts_wins(g, first_move_outcome(sv, cand[i], sv->level), root.to_move)) {
                if (out->num_correct < GO_TSUMEGO_MAX_MOVES)
                    out->num_correct++;
                best = out->num_correct - 1;
                out->correct[best] = g->pt[cand[i]];
                out->uniqueness = GO_TSUMEGO_NOT_UNIQUE;
                break;
            }
        }
        ts_search_limits(sv->search, deadline_s, cap);
    }
    int m = out->correct[best];
    memmove(out->correct + 1, out->correct, (size_t)best * sizeof *out->correct);
    out->correct[0] = m;
}

/* Tables kept between solves: one solver for the goal as given, one for the other goal, one
 * for the wide region. */
enum { SLOT_GIVEN, SLOT_OTHER_GOAL, SLOT_WIDE, SLOTS };
struct go_tsumego_work {
    ts_solver *sv[SLOTS];
    go_tsumego_problem prob[SLOTS]; /* what sv[i] was made for (sv[i]->prob points here) */
    int tt_log2[SLOTS];
};

go_tsumego_work *go_tsumego_work_new(void) { return calloc(1, sizeof(go_tsumego_work)); }

static void solver_free(ts_solver *sv)
{
    if (sv)
        ts_search_free(sv->search);
    free(sv);
}

void go_tsumego_work_free(go_tsumego_work *w)
{
    if (!w)
        return;
    for (int i = 0; i < SLOTS; i++)
        solver_free(w->sv[i]);
    free(w);
}

static bool same_problem(const go_tsumego_problem *a, const go_tsumego_problem *b)
{
    return a->board.size == b->board.size && a->board.hash == b->board.hash &&
           a->board.ko_point == b->board.ko_point && a->to_play == b->to_play &&
           a->attacker == b->attacker && a->goal == b->goal &&
           !memcmp(a->board.color, b->board.color, sizeof a->board.color) &&
           !memcmp(a->region, b->region, sizeof a->region);
}

/* The solver for p: a new one (NULL when out of memory), or with work the one kept in its slot
 * when that was made for the same problem and table size. */
static ts_solver *solver_for(const go_tsumego_problem *p, int tt_log2, go_tsumego_work *work,
                             int slot)
{
    if (work && work->sv[slot] && work->tt_log2[slot] == tt_log2 &&
        same_problem(&work->prob[slot], p))
        return work->sv[slot];
    if (work) {
        solver_free(work->sv[slot]);
        work->sv[slot] = NULL;
        work->prob[slot] = *p;
        work->tt_log2[slot] = tt_log2;
        p = &work->prob[slot];
    }
    ts_solver *sv = malloc(sizeof *sv);
    if (!sv || !solver_init(sv, p, tt_log2)) {
        solver_free(sv);
        return NULL;
    }
    if (work)
        work->sv[slot] = sv;
    return sv;
}

/* One full solve of one framing of the problem (slot: which of work's solvers it uses). */
static bool solve_once(const go_tsumego_problem *p, const go_tsumego_limits *lim, int slot,
                       double start_s, double deadline_s, go_tsumego_solution *out)
{
    ts_solver *sv = solver_for(p, lim->tt_log2, lim->work, slot);
    if (!sv)
        return false;
    /* a kept search counts on from its earlier solves; the node limit is for this one */
    uint64_t nodes0 = ts_search_nodes(sv->search);
    uint64_t cap = lim->max_nodes ? nodes0 + lim->max_nodes : 0;
    memset(out, 0, sizeof *out);
    out->problem = *p;
    out->best_move = GO_PASS;
    ts_search_set_threads(sv->search, lim->threads);
    if (lim->prior) {
        float by_index[TS_MAX_POINTS];
        for (int i = 0; i < sv->geom.n; i++)
            by_index[i] = lim->prior[sv->geom.pt[i]];
        ts_search_set_prior(sv->search, p->to_play, by_index);
    } else {
        ts_search_set_prior(sv->search, p->to_play, NULL);
    }
    bool quick = lim->first_move_only;
    double total = deadline_s - start_s;
    /* the main question may use most of the time; the rest is for the scan and the tree */
    ts_search_limits(sv->search, quick ? deadline_s : start_s + 0.8 * total, cap);
    out->status = status_of(sv, &sv->root, &sv->level);
    go_tsumego_result r = out->status.result;
    if (r == GO_TSUMEGO_SUCCESS || r == GO_TSUMEGO_KO) {
        ts_search_limits(sv->search, quick ? deadline_s : start_s + 0.9 * total, cap);
        /* a ko needs every first move settled to choose the best one, even for a benchmark */
        bool chosen = scan_first_moves(sv, out, !quick || r == GO_TSUMEGO_KO);
        if (r == GO_TSUMEGO_KO) {
            chosen = refine_ko_moves(sv, out) && chosen;
            if (out->num_correct == 1 && out->uniqueness == GO_TSUMEGO_NOT_UNIQUE)
                out->uniqueness = GO_TSUMEGO_UNIQUE;
            quietest_first(sv, out);
        } else {
            chosen = true; /* any move that succeeds is an answer */
            prior_first(sv, lim->prior, out, !quick, quick ? deadline_s : start_s + 0.9 * total,
                        cap);
        }
        if (out->num_correct) {
            out->best_move = out->correct[0];
            /* a ko move cut short before the other first moves were compared may be a worse ko
             * than the best: proven to reach a ko, not proven to be the answer */
            out->best_proven = chosen;
        }
    } else if (r == GO_TSUMEGO_FAILURE) {
        out->uniqueness = GO_TSUMEGO_NO_SOLUTION;
    }
    if (out->best_move == GO_PASS) {
        /* no proven move: the prior's favourite among the moves not refuted, else the table's
         * (most promising, or most stubborn) */
        int m = r == GO_TSUMEGO_FAILURE ? -1 : prior_best(sv, lim->prior, sv->level);
        if (m < 0)
            m = table_best(sv, &sv->root, sv->level);
        if (m >= 0)
            out->best_move = sv->geom.pt[m];
        out->best_proven = r == GO_TSUMEGO_FAILURE;
    }
    if (!quick) {
        ts_search_limits(sv->search, start_s + 0.95 * total, cap);
        ts_pos reply = sv->root;
        reply.to_move = (uint8_t)go_opponent(p->to_play);
        reply.ko = TS_NONE;
        ts_budgets unused;
        out->reply_status = status_of(sv, &reply, &unused);
        out->sgf = ts_solution_sgf(sv, out, deadline_s);
    }
    out->nodes = ts_search_nodes(sv->search) - nodes0;
    out->time_s = go_now_s() - start_s;
    if (!lim->work)
        solver_free(sv);
    return quick || out->sgf != NULL;
}

/* A second solve (another region or goal) that found a better way (success, or a ko when
 * ko_will_do: the first failed) replaces the first; its nodes add up either way, and the time
 * counts from start. */
static void keep_found(go_tsumego_solution *out, go_tsumego_solution *second, double start,
                       bool ko_will_do)
{
    go_tsumego_result r = second->status.result;
    if (r == GO_TSUMEGO_SUCCESS || (ko_will_do && r == GO_TSUMEGO_KO)) {
        uint64_t nodes = out->nodes + second->nodes;
        go_tsumego_solution_free(out);
        *out = *second;
        out->nodes = nodes;
    } else {
        out->nodes += second->nodes;
        go_tsumego_solution_free(second);
    }
    out->time_s = go_now_s() - start;
}

bool go_tsumego_solve(const go_tsumego_problem *p, const go_tsumego_limits *lim_in,
                      go_tsumego_solution *out)
{
    go_tsumego_limits lim = lim_in ? *lim_in : (go_tsumego_limits){0};
    if (!(lim.time_s > 0))
        lim.time_s = 10.0;
    if (!lim.tt_log2)
        lim.tt_log2 = 21;
    double start = go_now_s(), deadline = start + lim.time_s;
    if (!solve_once(p, &lim, SLOT_GIVEN, start, deadline, out))
        return false;
    char err[256];
    bool failed = out->status.result == GO_TSUMEGO_FAILURE;
    if ((failed || out->status.result == GO_TSUMEGO_KO) && !p->wide) {
        /* the frame favours the attacker, and the region's flow stops next to attacker stones:
         * a failure, or a ko where a side might win outright, gets a second look with the wide
         * region, in the time left */
        go_tsumego_problem wide;
        if (go_now_s() < deadline &&
            setup(&p->board, p->to_play, p->goal, true, &wide, NULL, err, sizeof err) &&
            memcmp(wide.region, p->region, sizeof wide.region)) {
            wide.goal_inferred = p->goal_inferred;
            go_tsumego_solution again;
            if (solve_once(&wide, &lim, SLOT_WIDE, go_now_s(), deadline, &again))
                keep_found(out, &again, start, failed);
        }
    }
    if (!p->goal_inferred || out->status.result != GO_TSUMEGO_FAILURE)
        return true;
    /* the guessed roles may be the wrong way round: try the other goal with the time left */
    go_tsumego_problem other;
    go_tsumego_goal flip =
        p->goal == GO_TSUMEGO_GOAL_KILL ? GO_TSUMEGO_GOAL_LIVE : GO_TSUMEGO_GOAL_KILL;
    if (go_now_s() >= deadline || !go_tsumego_setup(&p->board, p->to_play, flip, &other, err,
                                                     sizeof err))
        return true;
    other.goal_inferred = true; /* still a guess, though no third one follows */
    go_tsumego_solution second;
    if (solve_once(&other, &lim, SLOT_OTHER_GOAL, go_now_s(), deadline, &second))
        keep_found(out, &second, start, true);
    return true;
}

void go_tsumego_solution_free(go_tsumego_solution *s)
{
    if (!s)
        return;
    free(s->sgf);
    s->sgf = NULL;
}

/* Words of a problem statement: English ones whole (any case), Chinese and Japanese ones as
 * they stand in the text. A word of one goal counts for the side to play ("Black to live",
 * "White to play and kill", "黑先活", "黑先白死": the one that dies is the other side). */
static const char *const live_words[] = {"live", "lives", "lived", "living", "alive", "life",
                                         "survive", "survives", "seki", NULL};
static const char *const kill_words[] = {"kill", "kills", "killed", "killing", "capture",
                                         "captures", "die", "dies", "dead", "death", NULL};
static const char *const live_cjk[] = {"\xe6\xb4\xbb" /* 活 */,
                                       "\xe7\x94\x9f\xe3\x81\x8d" /* 生き */, NULL};
static const char *const kill_cjk[] = {"\xe6\x9d\x80" /* 杀 */, "\xe6\xae\xba" /* 殺 */,
                                       "\xe6\xad\xbb" /* 死 */, NULL};

static bool word_in(const char *w, size_t n, const char *const *list)
{
    for (int i = 0; list[i]; i++)
        if (strlen(list[i]) == n && !strncmp(list[i], w, n))
            return true;
    return false;
}

static bool cjk_in(const char *text, const char *const *list)
{
    for (int i = 0; list[i]; i++)
        if (strstr(text, list[i]))
            return true;
    return false;
}

go_tsumego_goal go_tsumego_goal_from_text(const char *text)
{
    if (!text)
        return GO_TSUMEGO_GOAL_AUTO;
    bool live = cjk_in(text, live_cjk), kill = cjk_in(text, kill_cjk);
    char w[16];
    size_t n = 0;
    for (const char *c = text;; c++) {
        char ch = *c;
        if ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z')) {
            if (n < sizeof w)
                w[n] = (char)(ch | 0x20);
            n++;
            continue;
        }
        if (n > 0 && n <= sizeof w) {
            live |= word_in(w, n, live_words);
            kill |= word_in(w, n, kill_words);
        }
        n = 0;
        if (!ch)
            break;
    }
    if (live == kill)
        return GO_TSUMEGO_GOAL_AUTO; /* no word of either, or both ("life and death", "死活") */
    return live ? GO_TSUMEGO_GOAL_LIVE : GO_TSUMEGO_GOAL_KILL;
}

const char *go_tsumego_result_name(go_tsumego_result r)
{
    switch (r) {
    case GO_TSUMEGO_SUCCESS:
        return "success";
    case GO_TSUMEGO_KO:
        return "ko";
    case GO_TSUMEGO_FAILURE:
        return "failure";
    default:
        return "unknown";
    }
}

const char *go_tsumego_ko_name(go_tsumego_ko k)
{
    return k == GO_TSUMEGO_KO_DIRECT ? "direct" : k == GO_TSUMEGO_KO_APPROACH ? "approach" : "none";
}

const char *go_tsumego_uniqueness_name(go_tsumego_uniqueness u)
{
    switch (u) {
    case GO_TSUMEGO_UNIQUE:
        return "unique";
    case GO_TSUMEGO_NOT_UNIQUE:
        return "not unique";
    case GO_TSUMEGO_NO_SOLUTION:
        return "no solution";
    default:
        return "unknown";
    }
}

const char *go_tsumego_status_text(const go_tsumego_status *s, go_color mover, char *buf, int len)
{
    const char *me = mover == GO_BLACK ? "B" : "W", *them = mover == GO_BLACK ? "W" : "B";
    if (s->result != GO_TSUMEGO_KO || s->ko == GO_TSUMEGO_KO_NONE)
        snprintf(buf, (size_t)len, "%s", go_tsumego_result_name(s->result));
    else if (s->ko == GO_TSUMEGO_KO_DIRECT)
        snprintf(buf, (size_t)len, "ko (direct, %s needs the first threat)",
                 s->favourable ? them : me);
    else
        snprintf(buf, (size_t)len, "ko (approach, %s needs the extra moves)",
                 s->favourable ? them : me);
    return buf;
}
