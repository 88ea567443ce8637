/* go/tsumego_board.c -- the solver's region board: chains with exact liberties inside the region,
 * captures, simple ko, the attacker's uncapturable frame, and Benson's test for the defender. */
#include <stddef.h>
#include <string.h>

#include "go/hash.h"
#include "go/tsumego_internal.h"

void ts_geom_init(ts_geom *g, int size, const uint8_t *region, go_color attacker)
{
    memset(g, 0, sizeof *g);
    g->size = size;
    g->attacker = attacker;
    g->defender = go_opponent(attacker);
    for (int p = 0; p < GO_POINTS; p++) {
        int x = go_point_x(p), y = go_point_y(p);
        bool on = p % GO_STRIDE != 0 && x >= 0 && y >= 0 && x < size && y < size;
        g->idx[p] = on ? TS_FRAME : TS_EDGE;
    }
    for (int p = 0; p < GO_POINTS && g->n < TS_MAX_POINTS; p++)
        if (region[p] && g->idx[p] == TS_FRAME) {
            g->idx[p] = (int16_t)g->n;
            g->pt[g->n++] = (int16_t)p;
        }
    for (int i = 0; i < g->n; i++)
        for (int d = 0; d < 4; d++)
            g->nb[i][d] = g->idx[g->pt[i] + go_dir4[d]];
    uint64_t seed = 0x5453554D45474F31ull; /* "TSUMEGO1" */
    for (int c = 0; c < 3; c++)
        for (int i = 0; i < TS_MAX_POINTS; i++)
            g->zob[c][i] = go_splitmix64(&seed);
    for (int i = 0; i < TS_MAX_POINTS; i++)
        g->zob_ko[i] = go_splitmix64(&seed);
    g->zob_white = go_splitmix64(&seed);
    g->zob_passed[1] = go_splitmix64(&seed);
    g->zob_passed[2] = go_splitmix64(&seed);
    for (int c = 0; c < 3; c++)
        for (int k = 0; k <= TS_UNLIMITED; k++)
            g->zob_budget[c][k] = k ? go_splitmix64(&seed) : 0;
}

void ts_pos_copy(const ts_geom *g, ts_pos *dst, const ts_pos *src)
{
    memcpy(dst, src, offsetof(ts_pos, p) + (size_t)g->n * sizeof(ts_point));
}

static bool adjacent_to_chain(const ts_geom *g, const ts_pos *s, int i, int head)
{
    for (int d = 0; d < 4; d++) {
        int q = g->nb[i][d];
        if (q >= 0 && s->p[q].color != GO_EMPTY && s->p[q].head == head)
            return true;
    }
    return false;
}

/* Merges chain small into chain big (go_board's method: liberties of small that big lacks). */
static void merge_chains(const ts_geom *g, ts_pos *s, int big, int small)
{
    int k = small;
    do {
        for (int d = 0; d < 4; d++) {
            int q = g->nb[k][d];
            if (q >= 0 && s->p[q].color == GO_EMPTY && !adjacent_to_chain(g, s, q, big))
                s->p[big].libs++;
        }
        s->p[k].head = (uint8_t)big;
        k = s->p[k].next;
    } while (k != small);
    uint8_t tmp = s->p[big].next;
    s->p[big].next = s->p[small].next;
    s->p[small].next = tmp;
    s->p[big].stones = (uint8_t)(s->p[big].stones + s->p[small].stones);
    s->p[big].flags |= s->p[small].flags & TS_SAFE;
}

/* Distinct chain heads of colour c around i. */
static int neighbour_chains(const ts_geom *g, const ts_pos *s, int i, int c, int heads[4])
{
    int n = 0;
    for (int d = 0; d < 4; d++) {
        int q = g->nb[i][d];
        if (q < 0 || s->p[q].color != c)
            continue;
        int h = s->p[q].head;
        bool seen = false;
        for (int j = 0; j < n; j++)
            seen |= heads[j] == h;
        if (!seen)
            heads[n++] = h;
    }
    return n;
}

static int remove_chain(const ts_geom *g, ts_pos *s, int h)
{
    int c = s->p[h].color, o = 3 - c, n = 0, k = h;
    do {
        int nxt = s->p[k].next;
        s->p[k].color = GO_EMPTY;
        s->hash ^= g->zob[c][k];
        if (s->p[k].flags & TS_TARGET)
            s->target_left--;
        s->p[k].flags = 0;
        int heads[4];
        int m = neighbour_chains(g, s, k, o, heads);
        for (int j = 0; j < m; j++)
            s->p[heads[j]].libs++;
        n++;
        k = nxt;
    } while (k != h);
    return n;
}

/* Puts a stone without capturing; returns the head of its chain. */
static int add_stone(const ts_geom *g, ts_pos *s, int i, int c)
{
    ts_point *pt = &s->p[i];
    pt->color = (uint8_t)c;
    pt->head = (uint8_t)i;
    pt->next = (uint8_t)i;
    pt->stones = 1;
    pt->flags = 0;
    s->hash ^= g->zob[c][i];
    int libs = 0;
    bool frame = false;
    for (int d = 0; d < 4; d++) {
        int q = g->nb[i][d];
        if (q >= 0)
            libs += s->p[q].color == GO_EMPTY;
        else
            frame |= q == TS_FRAME;
    }
    pt->libs = (uint8_t)libs;
    if (frame && c == (int)g->attacker)
        pt->flags = TS_SAFE;
    int heads[4];
    int m = neighbour_chains(g, s, i, 3 - c, heads);
    for (int j = 0; j < m; j++)
        s->p[heads[j]].libs--;
    m = neighbour_chains(g, s, i, c, heads);
    int head = i;
    for (int j = 0; j < m; j++) {
        int h = heads[j];
        s->p[h].libs--;
        if (s->p[h].stones >= s->p[head].stones) {
            merge_chains(g, s, h, head);
            head = h;
        } else {
            merge_chains(g, s, head, h);
        }
    }
    return head;
}

void ts_pos_from_board(const ts_geom *g, const go_board *b, go_color to_move, const bool *not_target,
                       ts_pos *s)
{
    memset(s, 0, sizeof *s);
    s->ko = TS_NONE;
    s->to_move = (uint8_t)to_move;
    for (int i = 0; i < g->n; i++) {
        int c = b->color[g->pt[i]];
        if (c != GO_BLACK && c != GO_WHITE)
            continue;
        add_stone(g, s, i, c);
        if (c == (int)g->defender && !(not_target && not_target[i])) {
            s->p[i].flags |= TS_TARGET;
            s->target_left++;
        }
    }
    if (b->ko_point > 0 && b->ko_color == to_move) {
        int k = g->idx[b->ko_point];
        if (k >= 0)
            s->ko = (uint8_t)k;
    }
}

bool ts_legal(const ts_geom *g, const ts_pos *s, int i, int c)
{
    if (s->p[i].color != GO_EMPTY)
        return false;
    for (int d = 0; d < 4; d++) {
        int q = g->nb[i][d];
        if (q == TS_EDGE)
            continue;
        if (q == TS_FRAME) {
            if (c == (int)g->attacker)
                return true;
            continue;
        }
        const ts_point *n = &s->p[q];
        if (n->color == GO_EMPTY)
            return true;
        const ts_point *h = &s->p[n->head];
        if (n->color == c) {
            if ((h->flags & TS_SAFE) || h->libs > 1)
                return true;
        } else if (!(h->flags & TS_SAFE) && h->libs == 1) {
            return true;
        }
    }
    return false;
}

int ts_play(const ts_geom *g, ts_pos *s, int i, int c)
{
    s->ko = TS_NONE;
    s->to_move = (uint8_t)(3 - c);
    s->passed = i != TS_PASS ? 0 : s->passed ? 2 : 1;
    if (i == TS_PASS)
        return 0;
    add_stone(g, s, i, c);
    int captured = 0, last_captured = 0;
    for (int d = 0; d < 4; d++) {
        int q = g->nb[i][d];
        if (q < 0 || s->p[q].color != 3 - c)
            continue;
        const ts_point *h = &s->p[s->p[q].head];
        if (h->libs == 0 && !(h->flags & TS_SAFE)) {
            last_captured = q;
            captured += remove_chain(g, s, s->p[q].head);
        }
    }
    const ts_point *hp = &s->p[s->p[i].head];
    if (captured == 1 && hp->stones == 1 && hp->libs == 1 && !(hp->flags & TS_SAFE))
        s->ko = (uint8_t)last_captured;
    return captured;
}

bool ts_quiet_key(const ts_geom *g, const ts_pos *s, int i, uint64_t *key)
{
    if (i == TS_PASS)
        return false;
    int c = s->to_move;
    for (int d = 0; d < 4; d++) {
        int q = g->nb[i][d];
        if (q < 0 || s->p[q].color != 3 - c)
            continue;
        const ts_point *h = &s->p[s->p[q].head];
        if (h->libs == 1 && !(h->flags & TS_SAFE))
            return false;
    }
    *key = s->hash ^ g->zob[c][i] ^ g->zob_budget[GO_BLACK][s->budget[GO_BLACK]] ^
           g->zob_budget[GO_WHITE][s->budget[GO_WHITE]];
    if (c == GO_BLACK)
        *key ^= g->zob_white;
    return true;
}

int ts_play_move(const ts_geom *g, ts_pos *s, int i)
{
    int c = s->to_move;
    if (i != TS_PASS && i == s->ko) {
        s->threats++;
        if (s->budget[c] != TS_UNLIMITED)
            s->budget[c]--;
    }
    if (i == TS_PASS && c == (int)g->attacker && s->passed == 1)
        s->budget[g->defender] = 0;
    return ts_play(g, s, i, c);
}

/* Benson's algorithm on the defender's chains. A "region" is a connected set of non-defender
 * points; one touching the frame is never vital (it holds the frame's own eyes, which are no
 * defender liberties). A region is vital to a chain when every empty point of it is a liberty of
 * that chain. Chains with fewer than two vital regions are removed, and so are regions bordering
 * a removed chain, until nothing changes. */
bool ts_benson_defender(const ts_geom *g, const ts_pos *s, bool *alive)
{
    int n = g->n, def = g->defender;
    int16_t region[TS_MAX_POINTS];
    int16_t pts[TS_MAX_POINTS]; /* points grouped by region: pts[start[r] .. start[r+1]) */
    int16_t start[TS_MAX_POINTS + 1];
    bool reg_ok[TS_MAX_POINTS];
    int nreg = 0, npts = 0;
    for (int i = 0; i < n; i++)
        region[i] = -1;
    for (int i = 0; i < n; i++) {
        if (s->p[i].color == def || region[i] >= 0)
            continue;
        int r = nreg++, first = npts;
        bool ok = true;
        start[r] = (int16_t)first;
        region[i] = (int16_t)r;
        pts[npts++] = (int16_t)i;
        for (int j = first; j < npts; j++) {
            int k = pts[j];
            for (int d = 0; d < 4; d++) {
                int q = g->nb[k][d];
                if (q == TS_FRAME)
                    ok = false;
                if (q < 0 || s->p[q].color == def || region[q] >= 0)
                    continue;
                region[q] = (int16_t)r;
                pts[npts++] = (int16_t)q;
            }
        }
        reg_ok[r] = ok;
    }
    start[nreg] = (int16_t)npts;
    int enclosed = 0;
    for (int r = 0; r < nreg; r++)
        enclosed += reg_ok[r];
    if (enclosed < 2) {
        if (alive)
            memset(alive, 0, (size_t)n * sizeof *alive);
        return false;
    }
    bool chain_alive[TS_MAX_POINTS];
    for (int i = 0; i < n; i++)
        chain_alive[i] = s->p[i].color == def && s->p[i].head == i;
    for (;;) {
        bool changed = false;
        uint8_t vital_count[TS_MAX_POINTS];
        memset(vital_count, 0, (size_t)n);
        for (int r = 0; r < nreg; r++) {
            if (!reg_ok[r])
                continue;
            /* the chains around the region; one that died makes the region unhealthy */
            int cand[16], nc = 0;
            for (int j = start[r]; j < start[r + 1] && reg_ok[r]; j++)
                for (int d = 0; d < 4; d++) {
                    int q = g->nb[pts[j]][d];
                    if (q < 0 || s->p[q].color != def)
                        continue;
                    int h = s->p[q].head;
                    if (!chain_alive[h]) {
                        reg_ok[r] = false;
                        changed = true;
                        break;
                    }
                    bool seen = false;
                    for (int m = 0; m < nc; m++)
                        seen |= cand[m] == h;
                    if (!seen && nc < 16)
                        cand[nc++] = h;
                }
            if (!reg_ok[r])
                continue;
            for (int m = 0; m < nc; m++) {
                bool vital = true;
                for (int j = start[r]; j < start[r + 1] && vital; j++)
                    if (s->p[pts[j]].color == GO_EMPTY && !adjacent_to_chain(g, s, pts[j], cand[m]))
                        vital = false;
                vital_count[cand[m]] += vital;
            }
        }
        for (int i = 0; i < n; i++)
            if (chain_alive[i] && vital_count[i] < 2) {
                chain_alive[i] = false;
                changed = true;
            }
        if (!changed)
            break;
    }
    bool target = false;
    for (int i = 0; i < n; i++) {
        bool a = s->p[i].color == def && chain_alive[s->p[i].head];
        if (alive)
            alive[i] = a;
        target |= a && (s->p[i].flags & TS_TARGET);
    }
    return target;
}

/* Is one eye space (eyes[0..n), `stones` of them attacker stones) a dead shape? Dead: two
 * points or fewer; three if the attacker moves first; the square four holding at most one
 * attacker stone; the straight and bent three, pyramid four, bulky five, cross five and rabbity
 * six when the attacker moves first on an empty shape, or already holds the vital point with its
 * only stone there. */
static bool dead_shape(const ts_geom *g, const ts_pos *s, const int16_t *eyes, int n, int stones,
                       bool attacker_first)
{
    int edges = 0, max_degree = 0, vital = -1;
    for (int a = 0; a < n; a++) {
        int degree = 0;
        for (int b = 0; b < n; b++)
            for (int d = 0; d < 4; d++)
                degree += g->nb[eyes[a]][d] == eyes[b];
        edges += degree;
        if (degree > max_degree) {
            max_degree = degree;
            vital = eyes[a];
        }
    }
    edges /= 2;
    /* connected: a walk from the first point reaches them all */
    bool seen[TS_DEAD_MAX] = {true};
    int reached = 1;
    for (bool grew = true; grew;) {
        grew = false;
        for (int a = 0; a < n; a++)
            for (int b = 0; b < n && !seen[a]; b++)
                for (int d = 0; d < 4; d++)
                    if (seen[b] && g->nb[eyes[a]][d] == eyes[b]) {
                        seen[a] = true;
                        reached++;
                        grew = true;
                        break;
                    }
    }
    if (reached != n)
        return false;
    if (n <= 2 || (n == 3 && attacker_first))
        return true;
    if (n == 4 && edges == 4)
        return stones <= 1; /* square four */
    bool killable = (n == 3) ||                                   /* straight, bent three */
                    (n == 4 && max_degree == 3) ||                /* pyramid four */
                    (n == 5 && (edges == 5 || max_degree == 4)) || /* bulky five, cross five */
                    (n == 6 && edges == 6 && max_degree == 4);     /* rabbity six */
    if (!killable)
        return false;
    if (stones == 0)
        return attacker_first;
    return stones == 1 && s->p[vital].color == g->attacker;
}

#define MIAI_MAX 8 /* unsafe attacker chains one area's look keeps */

/* The unsafe attacker chains counted as safe (see miai_chain). */
typedef struct miai_list {
    int n;
    int head[MIAI_MAX];
} miai_list;

/* Is q a stone of an attacker chain that can never be captured: a safe one, or one of those
 * in miai (NULL: none)? */
static bool walls(const ts_pos *s, int q, int def, const miai_list *miai)
{
    const ts_point *pq = &s->p[q];
    if (pq->color == GO_EMPTY || pq->color == def)
        return false;
    if (s->p[pq->head].flags & TS_SAFE)
        return true;
    for (int m = 0; miai && m < miai->n; m++)
        if (miai->head[m] == pq->head)
            return true;
    return false;
}

/* An empty point next to the frame or a safe chain: the attacker's stone there is safe. */
static bool safe_for_attacker(const ts_geom *g, const ts_pos *s, int p)
{
    for (int d = 0; d < 4; d++) {
        int q = g->nb[p][d];
        if (q == TS_FRAME || (q >= 0 && walls(s, q, g->defender, NULL)))
            return true;
    }
    return false;
}

/* Is the unsafe attacker chain at head h as good as safe? It is when two of its liberties are
 * points where an attacker stone is safe and no other unsafe attacker chain has either as a
 * liberty: whenever the defender fills one the attacker connects at the other, and no
 * defender move threatens two such chains at once. */
static bool miai_chain(const ts_geom *g, const ts_pos *s, int h)
{
    int def = g->defender, first = -1, i = h;
    do {
        for (int d = 0; d < 4; d++) {
            int p = g->nb[i][d];
            if (p < 0 || p == first || s->p[p].color != GO_EMPTY || !safe_for_attacker(g, s, p))
                continue;
            bool shared = false;
            for (int e = 0; e < 4 && !shared; e++) {
                int q = g->nb[p][e];
                shared = q >= 0 && s->p[q].color != GO_EMPTY && s->p[q].color != def &&
                         s->p[q].head != h && !walls(s, q, def, NULL);
            }
            if (shared)
                continue;
            if (first >= 0)
                return true;
            first = p;
        }
        i = s->p[i].next;
    } while (i != h);
    return false;
}

/* The open points of the area flooded from target stone t (see eyeless_area), up to seven:
 * open[] receives the first six; *defender_open and *stones tell whether a defender stone is
 * among them and how many attacker stones; unsafe receives the heads of the first unsafe
 * attacker chains met. miai: chains to count as safe (NULL: only those that are). in[] marks
 * the points flooded (the caller clears it); the flood stops at the seventh open point unless
 * full. */
static int open_points(const ts_geom *g, const ts_pos *s, int t, const miai_list *miai,
                       bool full, bool *in, int16_t *open, bool *defender_open, int *stones,
                       miai_list *unsafe)
{
    int def = g->defender;
    int16_t queue[TS_MAX_POINTS];
    int qn = 0, no = 0;
    *defender_open = false;
    *stones = 0;
    unsafe->n = 0;
    in[t] = true;
    queue[qn++] = (int16_t)t;
    for (int k = 0; k < qn; k++) {
        int i = queue[k];
        bool walled = false;
        for (int d = 0; d < 4; d++) {
            int q = g->nb[i][d];
            if (q == TS_FRAME || (q >= 0 && walls(s, q, def, miai))) {
                walled = true;
                continue;
            }
            if (q >= 0 && !in[q]) {
                in[q] = true;
                queue[qn++] = (int16_t)q;
            }
        }
        bool attacker = s->p[i].color != GO_EMPTY && s->p[i].color != def;
        if (attacker) {
            bool seen = false;
            for (int m = 0; m < unsafe->n; m++)
                seen |= unsafe->head[m] == s->p[i].head;
            if (!seen && unsafe->n < MIAI_MAX)
                unsafe->head[unsafe->n++] = s->p[i].head;
        }
        if (walled)
            continue;
        if (no >= 6) {
            no = 7;
            if (!full)
                return no;
            continue;
        }
        *defender_open |= s->p[i].color == def;
        *stones += attacker;
        open[no++] = (int16_t)i;
    }
    return no;
}

/* The open points open[0..no) of one area (no = 7: more than six) leave room for one eye at
 * most, or make one eye space of a dead shape (see eyeless_area). */
static bool eyeless_verdict(const ts_geom *g, const ts_pos *s, const int16_t *open, int no,
                            bool defender_open, int stones, bool attacker_first)
{
    if (no < 2)
        return true;
    if (no == 2)
        for (int d = 0; d < 4; d++)
            if (g->nb[open[0]][d] == open[1])
                return true;
    return no <= 6 && !defender_open && dead_shape(g, s, open, no, stones, attacker_first);
}

/* Can the defender ever make two eyes in the area flooded from target stone t (as in
 * ts_defender_space)? An eye point must end with every neighbour a defender stone or the edge,
 * so no point next to the frame or a safe attacker stone can ever be one, and safe chains only
 * grow: the area's other points (the open ones, stones of either colour included) are all the
 * defender could ever make eyes of, and an unsafe attacker stone stands on one of them. Every
 * empty point that is not open is a move the attacker can make safely (it joins the frame or a
 * safe chain), and one that changes nothing else the defender could use, so the attacker can
 * fill them all, then play in what is left. The area dies when its open points are at most two,
 * and adjacent (one eye at most, no seki: the defender's capture of an attacker stone there
 * leaves a one-point eye), or when they hold no defender stone and make one eye space of a
 * dead shape (dead_shape) for the side to move. When that fails for an area holding unsafe
 * attacker chains, it is tried again with the chains miai_chain finds counted as safe: they may
 * cut the area in parts, each of which must die, and the attacker may have to answer a defender
 * move at one of them first, so a dead shape must be dead with the defender moving first. */
static bool eyeless_area(const ts_geom *g, const ts_pos *s, int t, bool attacker_first)
{
    int n = g->n, stones;
    int16_t open[TS_DEAD_MAX];
    bool defender_open, area[TS_MAX_POINTS], in[TS_MAX_POINTS];
    miai_list unsafe, miai = {0}, parts_unsafe;
    memset(area, 0, (size_t)n * sizeof *area);
    int no = open_points(g, s, t, NULL, false, area, open, &defender_open, &stones, &unsafe);
    if (eyeless_verdict(g, s, open, no, defender_open, stones, attacker_first))
        return true;
    for (int m = 0; m < unsafe.n; m++)
        if (miai_chain(g, s, unsafe.head[m]))
            miai.head[miai.n++] = unsafe.head[m];
    if (!miai.n)
        return false;
    if (no > 6) {
        memset(area, 0, (size_t)n * sizeof *area);
        open_points(g, s, t, NULL, true, area, open, &defender_open, &stones, &unsafe);
    }
    /* the chains counted as safe may cut the area in parts: each part with target stones must
     * die */
    memset(in, 0, (size_t)n * sizeof *in);
    for (int u = 0; u < n; u++) {
        if (!area[u] || in[u] || !(s->p[u].flags & TS_TARGET))
            continue;
        no = open_points(g, s, u, &miai, false, in, open, &defender_open, &stones, &parts_unsafe);
        if (!eyeless_verdict(g, s, open, no, defender_open, stones, false))
            return false;
    }
    return true;
}

/* The defender's areas: from each group of target stones, the points reachable through defender
 * stones, empty points and attacker stones that are not safe. An area's non-defender points are
 * its eye space. The defender cannot reach beyond an area, whose boundary is safe attacker
 * stones, the frame and the edge, so all its liberties are in the eye space. When an eye space
 * is one connected region of at most six points, the classical nakade results decide it (see
 * dead_shape). With eyeless, an area they leave open also dies when eyeless_area says so; that
 * look is taken on areas of at most TS_SPACE_CAP points of eye space only: bigger ones hardly
 * ever qualify, and on every node it cost 9-16% of the solver's speed.
 * Returns an eye-space size for move ordering (that of the first area not known to be dead,
 * counted up to TS_SPACE_CAP + 1); *dead tells whether every area is dead. */
int ts_defender_space(const ts_geom *g, const ts_pos *s, bool eyeless, bool *dead)
{
    int n = g->n, def = g->defender, largest = 0;
    bool in[TS_MAX_POINTS];
    int16_t queue[TS_MAX_POINTS];
    bool attacker_first = s->to_move == g->attacker;
    memset(in, 0, (size_t)n * sizeof *in);
    *dead = true;
    for (int t = 0; t < n; t++) {
        if (!(s->p[t].flags & TS_TARGET) || in[t])
            continue;
        int qn = 0, eye = 0, stones = 0;
        int16_t eyes[TS_DEAD_MAX];
        in[t] = true;
        queue[qn++] = (int16_t)t;
        for (int k = 0; k < qn && eye <= TS_SPACE_CAP; k++) {
            int i = queue[k];
            if (s->p[i].color != def) {
                if (eye < TS_DEAD_MAX)
                    eyes[eye] = (int16_t)i;
                eye++;
                stones += s->p[i].color != GO_EMPTY;
            }
            for (int d = 0; d < 4; d++) {
                int q = g->nb[i][d];
                if (q < 0 || in[q])
                    continue;
                if (walls(s, q, def, NULL))
                    continue;
                in[q] = true;
                queue[qn++] = (int16_t)q;
            }
        }
        largest = eye > largest ? eye : largest;
        if ((eye > 6 || !dead_shape(g, s, eyes, eye, stones, attacker_first)) &&
            !(eyeless && eye <= TS_SPACE_CAP && eyeless_area(g, s, t, attacker_first))) {
            *dead = false; /* one living area is enough; its size is the estimate */
            return eye;
        }
    }
    return largest;
}

/* The target chains are sealed when they can never gain a liberty except by capturing an
 * attacker chain, and no attacker chain can be captured in time. A target chain's group: it and
 * every defender chain it could connect to through a shared liberty, and so on. Sealed: no
 * liberty of the group has an empty neighbour (nothing to extend into), so the group's
 * liberties only ever go down while its attacker neighbours stand; at most one of them (an eye:
 * defender stones and the edge all round) has neither an attacker neighbour nor the frame. The
 * attacker fills the others first (a stone there joins the frame or an attacker chain; a chain
 * of the group whose last liberty it was is captured, and its points then touch only attacker
 * stones) and the eye last, capturing what is left: n moves for the group's n liberties. In
 * time: the defender gets at most n moves (n - 1 when the attacker moves first) and each takes
 * at most one liberty of a chain, and the attacker's fills take those of the chains next to the
 * liberties filled, so every unsafe attacker chain next to the group or to one of its liberties
 * must have more liberties than those moves and its liberties among the filled ones: the
 * capturing race counted. With no unsafe chain there, the group is dead whatever the defender
 * does. n, the defender's moves and the chains' counts are taken over all groups at once. */
#define SEALED_MAX_UNSAFE 16

bool ts_targets_sealed(const ts_geom *g, const ts_pos *s)
{
    int def = g->defender, n = g->n, libs = 0, num_unsafe = 0;
    uint8_t seen[TS_MAX_POINTS]; /* 1: a chain of a group (its head); 2: a liberty counted */
    int unsafe[SEALED_MAX_UNSAFE], shared[SEALED_MAX_UNSAFE];
    int16_t queue[TS_MAX_POINTS];
    memset(seen, 0, (size_t)n);
    bool any = false;
    for (int t = 0; t < n; t++) {
        if (!(s->p[t].flags & TS_TARGET) || seen[s->p[t].head] == 1)
            continue;
        /* one group: its chains by their heads, found through shared liberties */
        int qn = 0, eye = -1;
        queue[qn++] = (int16_t)s->p[t].head;
        seen[s->p[t].head] = 1;
        any = true;
        for (int k = 0; k < qn; k++) {
            int h = queue[k], i = h;
            do {
                for (int d = 0; d < 4; d++) {
                    int q = g->nb[i][d];
                    if (q < 0 || s->p[q].color == def || seen[q] == 2)
                        continue; /* the edge, the frame, the chain itself, a liberty counted */
                    /* an attacker neighbour of the chain, or a liberty and its neighbours r */
                    bool liberty = s->p[q].color == GO_EMPTY, walled = false;
                    for (int e = 0; e < (liberty ? 4 : 1); e++) {
                        int r = liberty ? g->nb[q][e] : q;
                        if (r == TS_EDGE)
                            continue;
                        if (r == TS_FRAME) {
                            walled = true;
                            continue;
                        }
                        const ts_point *pr = &s->p[r];
                        if (pr->color == GO_EMPTY)
                            return false;
                        if (pr->color == def) {
                            if (seen[pr->head] != 1) { /* a chain the group can connect to */
                                seen[pr->head] = 1;
                                queue[qn++] = (int16_t)pr->head;
                            }
                            continue;
                        }
                        walled = true;
                        int a = pr->head, u = 0;
                        if (s->p[a].flags & TS_SAFE)
                            continue;
                        while (u < num_unsafe && unsafe[u] != a)
                            u++;
                        if (u == num_unsafe) {
                            if (num_unsafe == SEALED_MAX_UNSAFE)
                                return false;
                            unsafe[num_unsafe] = a;
                            shared[num_unsafe++] = 0;
                        }
                        /* q a liberty of a: counted once, as a neighbour of it can be twice */
                        bool again = false;
                        for (int e2 = 0; liberty && e2 < e; e2++) {
                            int r2 = g->nb[q][e2];
                            again |= r2 >= 0 && s->p[r2].color == pr->color &&
                                     s->p[r2].head == a;
                        }
                        shared[u] += liberty && !again;
                    }
                    if (!liberty)
                        continue;
                    seen[q] = 2;
                    libs++;
                    if (!walled) {
                        if (eye >= 0)
                            return false; /* room for two eyes */
                        eye = q;
                    }
                }
                i = s->p[i].next;
            } while (i != h);
        }
    }
    int defender_moves = libs - (s->to_move == g->attacker ? 1 : 0);
    for (int u = 0; u < num_unsafe; u++)
        if (s->p[unsafe[u]].libs < defender_moves + shared[u] + 1)
            return false;
    return any;
}
