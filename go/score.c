/* go/score.c -- Benson's unconditional life (KataGo's pass-alive area), KataGo's area flags and
 * independent-life area, and final scoring.
 *
 * Pass-alive area: the semantics of KataGo's Board::calculateArea / calculateAreaForPla with
 * nonPassAliveStones, safeBigTerritories, unsafeBigTerritories (and recursivelyReachesSafe) all
 * false, so that the result can feed KataGo's input features unchanged. For one colour c:
 *
 *   Regions. A region is a maximal 4-connected set of points that do not hold c's stones (empty
 *   points and opponent stones). Regions are grown from empty points only; a region made of
 *   opponent stones alone would be an opponent chain without liberties, which a legal position
 *   lacks (a setup position may hold one: such stones belong to no region and are ignored).
 *
 *   Vital regions. A region is vital for a chain of c when the chain is adjacent to every point of
 *   the region that counts: its empty points when multi-stone suicide is illegal, all of its
 *   points (opponent stones too) when it is legal. The opponent can then never take the chain's
 *   last liberty there: filling the region's last empty point would be suicide as long as the
 *   chain keeps a liberty in another vital region. With suicide illegal an opponent stone inside
 *   leaves the board only when c captures it, which gives c liberties; with multi-stone suicide
 *   legal the opponent can remove its own stones and open points the chain does not touch, so
 *   those points must touch the chain as well.
 *
 *   Benson's pruning. Repeat to a fixed point: every chain of c with fewer than two vital regions
 *   that do not border a removed chain is removed, and every region adjacent to a removed chain is
 *   marked as bordering one (it no longer counts as vital for anybody). The chains left are
 *   pass-alive: c can pass forever and they cannot be captured.
 *
 *   Territory ("internal spaces" rule). A region that borders no removed chain and has at most one
 *   internal point -- a point (empty or an opponent stone) with no c stone next to it -- is c's
 *   pass-alive territory, opponent stones inside included: every point but one touches an
 *   unconditionally alive c chain, so the opponent can never own two separate eye points there
 *   and whatever it builds can be captured. This holds whether or not the region is vital for
 *   anything. (KataGo also requires c to have a stone on the board; without one the single region
 *   is the whole board, which has at least four internal points on the sizes go_board allows.)
 *
 *   Both colours. go_benson_area computes black, then white, each marking its chains and
 *   territory; white's marks overwrite black's (KataGo's order; the two never overlap).
 *
 *   Big territories (go_area_kata, KataGo's flags). A region of empty points only is bordered by
 *   c's chains alone. safeBigTerritories marks it when none of those chains was removed;
 *   unsafeBigTerritories marks it regardless, but only on points still unmarked, so that white's
 *   big territory never overwrites black's pass-alive territory (an empty point inside black's
 *   territory that only dead white stones touch). nonPassAliveStones finally gives every stone
 *   left unmarked to its colour.
 *
 * Independent life (go_area_independent_life, KataGo's Board::calculateIndependentLifeArea): the
 * basic area is go_area_kata with all three flags, so every stone and every one-colour empty
 * region has an owner. Its connected areas of one owner are in seki when one of the owner's stones
 * in it is in atari or one of its points touches dame (an empty point of no area); the others live
 * independently and are counted, white's minus black's, for the group tax. The result holds the
 * independent areas whole, plus the territory (points that are not the owner's stones: empty
 * points and dead stones) and/or the stones of the seki areas as the flags ask.
 *
 * Final scoring (go_score_final) works on the board with dead stones taken off. Regions there are
 * maximal empty regions, owned by the one colour whose living stones they reach. Under area scoring
 * with tax SEKI or ALL the count is KataGo's (BoardHistory::countAreaScoreWhiteMinusBlack): the
 * independent-life area with the stones of seki areas kept, and under tax ALL 2 points per
 * independent area. Under territory scoring with tax SEKI or ALL, a connected area of one
 * colour's stones and territory is "in seki" when one of its stones is in atari or touches a
 * shared liberty that neither side can fill: KataGo's rule is "touches dame", but KataGo fills
 * dame in its encore first, while a finished human game under Japanese rules leaves dame open;
 * the "cannot fill" test (the filling chain would be left with fewer than two liberties, for both
 * colours) separates a seki's shared liberties from ordinary dame. A seki area scores no
 * territory; under tax ALL every other area costs its owner 2 points.
 */
#include "go/score.h"

#include <stdio.h>
#include <string.h>

/* The regions of one colour for Benson's algorithm. Points of region r are
 * pts[start[r] .. start[r] + len[r]). */
typedef struct benson_regions {
    int num;
    int16_t region_of[GO_POINTS];    /* region index of an empty or opponent point, else -1 */
    uint16_t pts[GO_POINTS];
    int start[GO_POINTS];
    int len[GO_POINTS];
    uint16_t vital[GO_POINTS][4];    /* heads of the chains the region is vital for */
    uint8_t num_vital[GO_POINTS];
    int internal[GO_POINTS];         /* points with no c stone next to them */
    bool contains_opp[GO_POINTS];    /* holds an opponent stone (else: only empty points) */
    bool borders_removed[GO_POINTS]; /* adjacent to a chain Benson's pruning removed */
} benson_regions;

static bool adjacent_to_chain(const go_board *b, int p, go_color c, int head)
{
    for (int d = 0; d < 4; d++) {
        int q = p + go_dir4[d];
        if (b->color[q] == c && b->chain[q] == head)
            return true;
    }
    return false;
}

static bool adjacent_to_color(const go_board *b, int p, go_color c)
{
    for (int d = 0; d < 4; d++)
        if (b->color[p + go_dir4[d]] == c)
            return true;
    return false;
}

/* Grows the region of colour c that holds the empty point seed, as region index id. */
static void grow_region(const go_board *b, go_color c, bool multi_stone_suicide, int seed, int id,
                        int *used, benson_regions *r)
{
    go_color o = go_opponent(c);
    /* Only chains touching the seed can touch every empty point, so they are the candidates. */
    int nv = 0;
    for (int d = 0; d < 4; d++) {
        int q = seed + go_dir4[d];
        if (b->color[q] != c)
            continue;
        bool seen = false;
        for (int i = 0; i < nv; i++)
            seen |= r->vital[id][i] == b->chain[q];
        if (!seen)
            r->vital[id][nv++] = b->chain[q];
    }
    r->start[id] = *used;
    r->internal[id] = 0;
    r->contains_opp[id] = false;
    r->borders_removed[id] = false;
    r->region_of[seed] = (int16_t)id;
    r->pts[(*used)++] = (uint16_t)seed;
    for (int i = r->start[id]; i < *used; i++) {
        int p = r->pts[i];
        if (multi_stone_suicide || b->color[p] == GO_EMPTY) {
            int kept = 0;
            for (int k = 0; k < nv; k++)
                if (adjacent_to_chain(b, p, c, r->vital[id][k]))
                    r->vital[id][kept++] = r->vital[id][k];
            nv = kept;
        }
        if (!adjacent_to_color(b, p, c))
            r->internal[id]++;
        r->contains_opp[id] |= b->color[p] == o;
        for (int d = 0; d < 4; d++) {
            int q = p + go_dir4[d];
            if ((b->color[q] == GO_EMPTY || b->color[q] == o) && r->region_of[q] < 0) {
                r->region_of[q] = (int16_t)id;
                r->pts[(*used)++] = (uint16_t)q;
            }
        }
    }
    r->len[id] = *used - r->start[id];
    r->num_vital[id] = (uint8_t)nv;
}

/* Marks every region adjacent to the chain headed by h as bordering a removed chain. */
static void mark_removed(const go_board *b, int h, benson_regions *r)
{
    int s = h;
    do {
        for (int d = 0; d < 4; d++) {
            int reg = r->region_of[s + go_dir4[d]];
            if (reg >= 0)
                r->borders_removed[reg] = true;
        }
        s = b->next[s];
    } while (s != h);
}

/* KataGo's calculateAreaForPla: marks c's pass-alive stones and territory in area (other entries
 * untouched); with safe_big also the regions of empty points only whose bordering chains are all
 * pass-alive, and with unsafe_big every region of empty points only, on the entries still
 * GO_EMPTY (so that white never takes over black's pass-alive territory). */
static void benson_mark(const go_board *b, go_color c, bool multi_stone_suicide, bool safe_big,
                        bool unsafe_big, uint8_t *area)
{
    static _Thread_local benson_regions r;
    int heads[GO_POINTS];
    int num_heads = 0;
    int used = 0;
    r.num = 0;
    for (int p = 0; p < GO_POINTS; p++)
        r.region_of[p] = -1;
    for (int y = 0; y < b->height; y++)
        for (int x = 0; x < b->width; x++) {
            int p = go_point_at(x, y);
            if (b->color[p] == c && b->chain[p] == p)
                heads[num_heads++] = p;
            if (b->color[p] == GO_EMPTY && r.region_of[p] < 0) {
                grow_region(b, c, multi_stone_suicide, p, r.num, &used, &r);
                r.num++;
            }
        }

    static _Thread_local bool removed[GO_POINTS];
    static _Thread_local int vital_count[GO_POINTS];
    for (int i = 0; i < num_heads; i++)
        removed[heads[i]] = false;
    for (bool changed = true; changed;) {
        changed = false;
        for (int i = 0; i < num_heads; i++)
            vital_count[heads[i]] = 0;
        for (int k = 0; k < r.num; k++)
            if (!r.borders_removed[k])
                for (int v = 0; v < r.num_vital[k]; v++)
                    vital_count[r.vital[k][v]]++;
        /* Counts are taken before any removal of this round, as in KataGo; the fixed point is the
         * same either way since removal only ever lowers counts. */
        for (int i = 0; i < num_heads; i++) {
            int h = heads[i];
            if (removed[h] || vital_count[h] >= 2)
                continue;
            removed[h] = true;
            changed = true;
            mark_removed(b, h, &r);
        }
    }

    for (int i = 0; i < num_heads; i++) {
        int h = heads[i];
        if (removed[h])
            continue;
        int s = h;
        do {
            area[s] = (uint8_t)c;
            s = b->next[s];
        } while (s != h);
    }
    /* Without a stone of c the one region is the whole board: nothing to mark. */
    if (num_heads == 0)
        return;
    for (int k = 0; k < r.num; k++) {
        const uint16_t *pts = r.pts + r.start[k];
        bool safe = !r.borders_removed[k] &&
                    (r.internal[k] <= 1 || (safe_big && !r.contains_opp[k]));
        if (safe) {
            for (int i = 0; i < r.len[k]; i++)
                area[pts[i]] = (uint8_t)c;
        } else if (unsafe_big && !r.contains_opp[k]) {
            for (int i = 0; i < r.len[k]; i++)
                if (area[pts[i]] == GO_EMPTY)
                    area[pts[i]] = (uint8_t)c;
        }
    }
}

void go_area_kata(const go_board *b, bool multi_stone_suicide, bool non_pass_alive_stones,
                  bool safe_big, bool unsafe_big, uint8_t *area)
{
    memset(area, GO_EMPTY, GO_POINTS);
    benson_mark(b, GO_BLACK, multi_stone_suicide, safe_big, unsafe_big, area);
    benson_mark(b, GO_WHITE, multi_stone_suicide, safe_big, unsafe_big, area);
    if (!non_pass_alive_stones)
        return;
    for (int y = 0; y < b->height; y++)
        for (int x = 0; x < b->width; x++) {
            int p = go_point_at(x, y);
            if (area[p] == GO_EMPTY)
                area[p] = b->color[p];
        }
}

void go_benson_area(const go_board *b, bool multi_stone_suicide, uint8_t *area)
{
    go_area_kata(b, multi_stone_suicide, false, false, false, area);
}

void go_benson_area_for(const go_board *b, go_color c, bool multi_stone_suicide, uint8_t *area)
{
    memset(area, GO_EMPTY, GO_POINTS);
    benson_mark(b, c, multi_stone_suicide, false, false, area);
}

/* Collects into pts the 4-connected points whose map value equals that of seed (not GO_EMPTY)
 * and are not yet seen, marking them seen. Returns how many. Off-board entries of map are
 * GO_EMPTY, so the fill stays on the board. */
static int flood_same(const uint8_t *map, int seed, bool *seen, uint16_t *pts)
{
    int n = 0;
    seen[seed] = true;
    pts[n++] = (uint16_t)seed;
    for (int i = 0; i < n; i++)
        for (int d = 0; d < 4; d++) {
            int q = pts[i] + go_dir4[d];
            if (map[q] == map[seed] && !seen[q]) {
                seen[q] = true;
                pts[n++] = (uint16_t)q;
            }
        }
    return n;
}

int go_area_independent_life(const go_board *b, bool multi_stone_suicide, bool keep_territories,
                             bool keep_stones, uint8_t *area)
{
    static _Thread_local uint8_t basic[GO_POINTS];
    static _Thread_local bool seki[GO_POINTS], done[GO_POINTS];
    uint16_t pts[GO_POINTS];
    go_area_kata(b, multi_stone_suicide, true, true, true, basic);
    memset(area, GO_EMPTY, GO_POINTS);
    memset(seki, 0, sizeof seki);
    memset(done, 0, sizeof done);

    /* A connected area of one colour is in seki when one of its owner's stones is in atari or one
     * of its points touches dame (an empty point nobody's area holds). */
    for (int y = 0; y < b->height; y++)
        for (int x = 0; x < b->width; x++) {
            int p = go_point_at(x, y);
            if (basic[p] == GO_EMPTY || seki[p])
                continue;
            bool in_atari = b->color[p] == basic[p] && go_board_libs(b, p) == 1;
            bool touches_dame = false;
            for (int d = 0; d < 4; d++) {
                int q = p + go_dir4[d];
                touches_dame |= b->color[q] == GO_EMPTY && basic[q] == GO_EMPTY;
            }
            if (in_atari || touches_dame)
                flood_same(basic, p, seki, pts);
        }

    int white_minus_black = 0;
    for (int y = 0; y < b->height; y++)
        for (int x = 0; x < b->width; x++) {
            int p = go_point_at(x, y);
            if (basic[p] == GO_EMPTY || seki[p] || done[p])
                continue;
            int n = flood_same(basic, p, done, pts);
            for (int i = 0; i < n; i++)
                area[pts[i]] = basic[p];
            white_minus_black += basic[p] == GO_WHITE ? 1 : -1;
        }

    for (int y = 0; y < b->height; y++)
        for (int x = 0; x < b->width; x++) {
            int p = go_point_at(x, y);
            if (basic[p] == GO_EMPTY)
                continue;
            bool stone = basic[p] == b->color[p];
            if (stone ? keep_stones : keep_territories)
                area[p] = basic[p];
        }
    return white_minus_black;
}

/* Colours every empty region of b by the one colour its stones reach (GO_EMPTY when it reaches
 * none or both) and every stone by its colour; writes GO_POINTS entries. */
static void color_regions(const go_board *b, uint8_t *owner)
{
    static _Thread_local bool seen[GO_POINTS];
    uint16_t stack[GO_POINTS], region[GO_POINTS];
    memset(owner, GO_EMPTY, GO_POINTS);
    memset(seen, 0, sizeof seen);
    for (int y = 0; y < b->height; y++)
        for (int x = 0; x < b->width; x++) {
            int p = go_point_at(x, y);
            if (b->color[p] != GO_EMPTY) {
                owner[p] = b->color[p];
                continue;
            }
            if (seen[p])
                continue;
            int top = 0, n = 0, reach = 0;
            seen[p] = true;
            stack[top++] = (uint16_t)p;
            while (top) {
                int q = stack[--top];
                region[n++] = (uint16_t)q;
                for (int d = 0; d < 4; d++) {
                    int nb = q + go_dir4[d];
                    if (b->color[nb] == GO_BLACK || b->color[nb] == GO_WHITE)
                        reach |= b->color[nb];
                    else if (b->color[nb] == GO_EMPTY && !seen[nb]) {
                        seen[nb] = true;
                        stack[top++] = (uint16_t)nb;
                    }
                }
            }
            /* reach is a bit set: GO_BLACK = 1, GO_WHITE = 2, both = 3 */
            if (reach == GO_BLACK || reach == GO_WHITE)
                for (int i = 0; i < n; i++)
                    owner[region[i]] = (uint8_t)reach;
        }
}

int go_score_area_tromp_taylor(const go_board *b, uint8_t *owner)
{
    static _Thread_local uint8_t local[GO_POINTS];
    uint8_t *own = owner ? owner : local;
    color_regions(b, own);
    int score = 0;
    for (int y = 0; y < b->height; y++)
        for (int x = 0; x < b->width; x++) {
            int p = go_point_at(x, y);
            score += (own[p] == GO_BLACK) - (own[p] == GO_WHITE);
        }
    return score;
}

/* Whether c can fill the empty point p and keep at least two liberties on the chain it joins. */
static bool can_fill_safely(const go_board *b, int p, go_color c, bool multi_stone_suicide)
{
    go_board t = *b;
    t.ko_point = 0;
    if (!go_board_is_legal(&t, p, c, multi_stone_suicide))
        return false;
    go_board_play(&t, p, c);
    return t.color[p] == c && go_board_libs(&t, p) >= 2;
}

/* Under a seki tax: clears the territory of every connected area (stones plus territory of one
 * colour, 4-connected in owner) that is in seki, and returns white's minus black's number of
 * areas not in seki (the group count of tax ALL). */
static int apply_seki(const go_board *alive, bool multi_stone_suicide, uint8_t *owner)
{
    static _Thread_local bool seki_seed[GO_POINTS], in_area[GO_POINTS];
    memset(seki_seed, 0, sizeof seki_seed);
    for (int y = 0; y < alive->height; y++)
        for (int x = 0; x < alive->width; x++) {
            int p = go_point_at(x, y);
            go_color col = (go_color)alive->color[p];
            if (col == GO_BLACK || col == GO_WHITE) {
                if (go_board_libs(alive, p) == 1)
                    seki_seed[p] = true;
                continue;
            }
            /* a shared liberty: an empty point next to living stones of both colours */
            if (!adjacent_to_color(alive, p, GO_BLACK) || !adjacent_to_color(alive, p, GO_WHITE))
                continue;
            if (can_fill_safely(alive, p, GO_BLACK, multi_stone_suicide) ||
                can_fill_safely(alive, p, GO_WHITE, multi_stone_suicide))
                continue;
            for (int d = 0; d < 4; d++) {
                int q = p + go_dir4[d];
                if (alive->color[q] == GO_BLACK || alive->color[q] == GO_WHITE)
                    seki_seed[q] = true;
            }
        }

    memset(in_area, 0, sizeof in_area);
    uint16_t area[GO_POINTS];
    int white_minus_black = 0;
    for (int y = 0; y < alive->height; y++)
        for (int x = 0; x < alive->width; x++) {
            int p = go_point_at(x, y);
            go_color col = (go_color)owner[p];
            if (col == GO_EMPTY || in_area[p])
                continue;
            int n = 0;
            bool seki = false;
            in_area[p] = true;
            area[n++] = (uint16_t)p;
            for (int i = 0; i < n; i++) {
                int q = area[i];
                seki |= seki_seed[q];
                for (int d = 0; d < 4; d++) {
                    int nb = q + go_dir4[d];
                    if (owner[nb] == col && !in_area[nb]) {
                        in_area[nb] = true;
                        area[n++] = (uint16_t)nb;
                    }
                }
            }
            if (!seki) {
                white_minus_black += col == GO_WHITE ? 1 : -1;
                continue;
            }
            for (int i = 0; i < n; i++)
                if (alive->color[area[i]] == GO_EMPTY)
                    owner[area[i]] = GO_EMPTY;
        }
    return white_minus_black;
}

/* A run of two white moves after the opening run of black moves means a problem set up move by
 * move, not a handicap. */
int go_score_handicap_stones(const go_game *g)
{
    if (g->handicap > 0)
        return g->handicap;
    int black = 0;
    for (int y = 0; y < g->setup.height; y++)
        for (int x = 0; x < g->setup.width; x++) {
            go_color col = (go_color)g->setup.color[go_point_at(x, y)];
            if (col == GO_WHITE)
                return 0;
            black += col == GO_BLACK;
        }
    for (int i = 0; i < g->num_moves; i++) {
        if (g->moves[i].color != GO_BLACK) {
            if (i + 1 < g->num_moves && g->moves[i + 1].color != GO_BLACK)
                black = 0;
            break;
        }
        black += g->moves[i].point != GO_PASS;
    }
    return black > 1 ? black : 0;
}

static int white_handicap_bonus(const go_game *g)
{
    int n = go_score_handicap_stones(g);
    switch (g->rules.white_handicap_bonus) {
    case GO_WHB_N:
        return n;
    case GO_WHB_N_MINUS_ONE:
        return n > 1 ? n - 1 : 0;
    case GO_WHB_ZERO:
        break;
    }
    return 0;
}

/* The button (half a point) goes to the first player to pass; if nobody has passed, to the side to
 * move, as KataGo settles it when the game is scored. Returns black's share: +0.5 or -0.5. */
static double button_for_black(const go_game *g)
{
    for (int i = 0; i < g->num_moves; i++)
        if (g->moves[i].point == GO_PASS)
            return g->moves[i].color == GO_BLACK ? 0.5 : -0.5;
    return g->board.to_move == GO_BLACK ? 0.5 : -0.5;
}

double go_score_final(const go_game *g, const bool *dead, uint8_t *owner)
{
    const go_board *b = &g->board;
    static _Thread_local go_board alive;
    static _Thread_local uint8_t local[GO_POINTS];
    uint8_t *own = owner ? owner : local;
    int prisoners[3] = {0, b->captures[GO_BLACK], b->captures[GO_WHITE]};

    /* Rebuilding from the living stones alone gives exact chains and liberties; taking stones off
     * never leaves a chain without liberties, so the result is a sound position. */
    go_board_init_rect(&alive, b->width, b->height);
    for (int y = 0; y < b->height; y++)
        for (int x = 0; x < b->width; x++) {
            int p = go_point_at(x, y);
            go_color col = (go_color)b->color[p];
            if (col != GO_BLACK && col != GO_WHITE)
                continue;
            if (dead && dead[p])
                prisoners[go_opponent(col)]++;
            else
                go_board_place(&alive, p, col);
        }

    bool area = g->rules.scoring == GO_SCORING_AREA;
    int white_minus_black_groups = 0;
    if (area && g->rules.tax != GO_TAX_NONE) {
        white_minus_black_groups =
            go_area_independent_life(&alive, g->rules.multi_stone_suicide, false, true, own);
    } else {
        color_regions(&alive, own);
        if (g->rules.tax != GO_TAX_NONE)
            white_minus_black_groups = apply_seki(&alive, g->rules.multi_stone_suicide, own);
    }

    double lead = 0;
    for (int y = 0; y < b->height; y++)
        for (int x = 0; x < b->width; x++) {
            int p = go_point_at(x, y);
            if (!area && alive.color[p] != GO_EMPTY)
                continue;
            lead += (own[p] == GO_BLACK) - (own[p] == GO_WHITE);
        }
    if (!area)
        lead += prisoners[GO_BLACK] - prisoners[GO_WHITE];
    if (g->rules.tax == GO_TAX_ALL)
        lead += 2.0 * white_minus_black_groups;
    lead -= white_handicap_bonus(g);
    if (g->rules.button)
        lead += button_for_black(g);
    return lead - g->komi;
}

const char *go_score_to_text(double black_lead, char *buf, int len)
{
    if (black_lead == 0)
        snprintf(buf, (size_t)len, "0");
    else
        snprintf(buf, (size_t)len, "%c+%g", black_lead > 0 ? 'B' : 'W',
                 black_lead > 0 ? black_lead : -black_lead);
    return buf;
}
