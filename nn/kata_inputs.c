/* nn/kata_inputs.c -- KataGo's input features, legal moves and symmetries from a go_game (the
 * history rules are described in nn/kata_inputs.h). */
#include "nn/kata_inputs.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "go/score.h"

/* What KataGo's BoardHistory would hold for the game, as far as the features need it. */
typedef struct kata_history {
    int start;              /* moves[start .. num_moves) are KataGo's move history */
    int ko_start;           /* positions hashes[ko_start .. num_moves] its superko history */
    int valid_turns;        /* numApproxValidTurnsThisPhase: moves the net may see */
    bool finished;          /* the game (area) or the main phase (territory) has just ended */
    bool pass_ends_phase;   /* a pass by the side to move would end it */
    bool suppress_end;      /* ...but friendly passing means KataGo plays on: history hidden */
    bool has_button;
    float white_bonus;      /* territory chill and button, in points */
    int white_handicap_bonus;
} kata_history;

void nn_kata_supported_rules(int model_version, const go_rules *rules, go_rules *out)
{
    *out = *rules;
    if (model_version <= 6) {
        if (out->ko == GO_KO_SIMPLE)
            out->ko = GO_KO_SITUATIONAL;
        out->scoring = GO_SCORING_AREA;
        out->tax = GO_TAX_NONE;
        out->button = false;
    } else if (out->button && out->scoring != GO_SCORING_AREA) {
        out->button = false;
    }
}

/* ---- history ------------------------------------------------------------------------------ */

/* The first move of the last stretch of alternating moves that ends with the side to move. */
static int history_start(const go_game *g)
{
    int start = 0;
    go_color expect = (go_color)g->setup.to_move;
    for (int i = 0; i < g->num_moves; i++) {
        if (g->moves[i].color != expect)
            start = i;
        expect = go_opponent(g->moves[i].color);
    }
    if (g->num_moves > 0 && g->board.to_move != expect)
        start = g->num_moves;
    return start;
}

/* The board at the start of the history: a cleared history forgets the simple-ko point. */
static go_board history_board(const go_game *g, int index, int start)
{
    go_board b = index == 0 ? g->setup : index < g->num_moves ? g->before[index] : g->board;
    if (index == start && start > 0)
        b.ko_point = 0;
    return b;
}

/* KataGo's handicap count: black's setup stones plus its leading moves (isolated white passes
 * between them allowed), 0 when white has stones in the start position or black is only one
 * stone or move ahead. */
static int handicap_stones(const go_game *g, const go_board *b0, int start)
{
    int black = 0;
    for (int p = 0; p < GO_POINTS; p++) {
        if (b0->color[p] == GO_WHITE)
            return 0;
        black += b0->color[p] == GO_BLACK;
    }
    for (int i = start; i < g->num_moves; i++) {
        go_move m = g->moves[i];
        if (m.color == GO_BLACK) {
            black += m.point != GO_PASS;
            continue;
        }
        if (m.point != GO_PASS || (i + 1 < g->num_moves && g->moves[i + 1].color != GO_BLACK))
            break;
    }
    return black <= 1 ? 0 : black;
}

/* Whether c passed in the position with this hash among moves[from .. to) (KataGo's
 * hashesBefore{Black,White}Pass, which a button pass clears). */
static bool passed_before(const go_game *g, int from, int to, go_color c, uint64_t hash)
{
    for (int j = from; j < to; j++)
        if (g->moves[j].point == GO_PASS && g->moves[j].color == c && g->hashes[j] == hash)
            return true;
    return false;
}

/* The side to move in position k of the history (hashes[k]). */
static go_color to_move_at(const go_game *g, int start, int k)
{
    if (k > start)
        return go_opponent(g->moves[k - 1].color);
    return k < g->num_moves ? g->moves[k].color : (go_color)g->board.to_move;
}

/* Under simple ko KataGo ends the game without result when a position (with the side to move)
 * occurs a third time since the last pass. */
static bool third_repetition(const go_game *g, int start, int from, int k)
{
    int count = 0;
    for (int j = from; j <= k; j++)
        count += g->hashes[j] == g->hashes[k] && to_move_at(g, start, j) == to_move_at(g, start, k);
    return count >= 3;
}

static void history_replay(const go_game *g, const go_rules *r, kata_history *h)
{
    int n = g->num_moves;
    h->start = history_start(g);
    h->ko_start = h->start;
    h->has_button = r->button;
    go_board b0 = history_board(g, h->start, h->start);
    h->white_bonus = 0;
    if (r->scoring == GO_SCORING_TERRITORY) {
        int stones = 0;
        for (int p = 0; p < GO_POINTS; p++)
            stones += b0.color[p] == GO_BLACK ? 1 : b0.color[p] == GO_WHITE ? -1 : 0;
        /* captures[c] counts stones captured by c: net white captures are black's count */
        h->white_bonus = (float)stones - (float)(b0.captures[GO_BLACK] - b0.captures[GO_WHITE]);
    }
    int stones = handicap_stones(g, &b0, h->start);
    h->white_handicap_bonus = r->white_handicap_bonus == GO_WHB_N ? stones
                              : r->white_handicap_bonus == GO_WHB_N_MINUS_ONE && stones > 1
                                  ? stones - 1
                                  : 0;
    int consecutive = 0, since_pass = h->start;
    h->valid_turns = 0;
    h->finished = false;
    for (int i = h->start; i < n; i++) {
        go_move m = g->moves[i];
        bool spight_end = false;
        if (h->finished)
            h->valid_turns = h->valid_turns < 1 ? h->valid_turns : 1;
        h->finished = false;
        if (m.point != GO_PASS) {
            consecutive = 0;
        } else if (h->has_button) {
            h->has_button = false;
            h->white_bonus += m.color == GO_WHITE ? 0.5f : -0.5f;
            consecutive = 0;
            h->ko_start = since_pass = i + 1;   /* the pass records and ko history restart */
        } else {
            consecutive++;
            spight_end = r->ko == GO_KO_SIMPLE &&
                         passed_before(g, h->ko_start, i, m.color, g->hashes[i]);
            if (r->ko == GO_KO_SIMPLE)
                since_pass = i + 1;
        }
        h->valid_turns++;
        if (r->scoring == GO_SCORING_TERRITORY && m.point != GO_PASS)
            h->white_bonus += m.color == GO_BLACK ? 1.0f : -1.0f;
        if (consecutive >= 2 || spight_end) {
            /* area: the game is scored; territory: GTP prevents the cleanup phase */
            h->finished = true;
            if (r->scoring == GO_SCORING_TERRITORY)
                h->valid_turns = h->valid_turns < 1 ? h->valid_turns : 1;
        }
        if (m.point != GO_PASS && r->ko == GO_KO_SIMPLE &&
            third_repetition(g, h->start, since_pass, i + 1))
            h->finished = true;
    }
    go_color pla = (go_color)g->board.to_move;
    bool spight_end = r->ko == GO_KO_SIMPLE && passed_before(g, h->ko_start, n, pla, g->board.hash);
    h->pass_ends_phase = consecutive + 1 >= 2 || spight_end;
    /* a pass that would end an area-scored game is not taken as ending it where passing is
     * friendly (KataGo's shouldSuppressEndGameFromFriendlyPass) */
    h->suppress_end = h->pass_ends_phase && r->scoring == GO_SCORING_AREA &&
                      r->friendly_pass_ok && consecutive + 1 == 2 && !spight_end;
}

/* Whether c at the empty point p removes its own last liberty where the rules forbid it. */
static bool illegal_suicide(const go_board *b, int p, go_color c, bool multi_stone_suicide)
{
    go_color o = go_opponent(c);
    for (int d = 0; d < 4; d++) {
        int q = p + go_dir4[d];
        if (b->color[q] == GO_EMPTY ||
            (b->color[q] == c && (multi_stone_suicide || b->libs[b->chain[q]] > 1)) ||
            (b->color[q] == o && b->libs[b->chain[q]] == 1))
            return false;
    }
    return true;
}

/* The stones' hash after c plays at the empty point p, without playing it: p's key and the keys
 * of the stones of every opponent chain whose last liberty p is (their number in *captures).
 * False where the move removes its own chain (a suicide the rules allow), which the caller
 * plays out instead. */
static bool hash_after(const go_board *b, int p, go_color c, uint64_t *out, int *captures)
{
    go_color o = go_opponent(c);
    uint64_t h = b->hash ^ go_zobrist_stone(c, p);
    int captured[4], num_captured = 0;
    bool lives = false;
    for (int d = 0; d < 4; d++) {
        int q = p + go_dir4[d];
        if (b->color[q] == GO_EMPTY || (b->color[q] == c && b->libs[b->chain[q]] > 1)) {
            lives = true;
        } else if (b->color[q] == o && b->libs[b->chain[q]] == 1) {
            int head = b->chain[q];
            bool seen = false;
            for (int i = 0; i < num_captured; i++)
                seen = seen || captured[i] == head;
            if (seen)
                continue;
            captured[num_captured++] = head;
            lives = true;
            int s = head;
            do {
                h ^= go_zobrist_stone(o, s);
                s = b->next[s];
            } while (s != head);
        }
    }
    *out = h;
    *captures = num_captured;
    return lives;
}

/* KataGo's superKoBanned: moves of the side to move that repeat a position of the history. It is
 * only computed after a move of the history, so a fresh history bans nothing. */
static void superko_bans(const go_game *g, const go_rules *r, const kata_history *h, bool *banned)
{
    memset(banned, 0, sizeof(bool) * GO_POINTS);
    if (r->ko == GO_KO_SIMPLE || h->start == g->num_moves)
        return;
    const go_board *b = &g->board;
    go_color c = (go_color)b->to_move;
    /* a move that captures nothing adds a stone: it can only repeat a position of the history
     * that held one stone more than the board does now */
    int area = b->width * b->height, stones = area - b->num_empty, most = 0;
    for (int k = h->ko_start; k < g->num_moves; k++) {
        const go_board *then = k == 0 ? &g->setup : &g->before[k];
        int held = area - then->num_empty;
        most = held > most ? held : most;
    }
    for (int p = 0; p < GO_POINTS; p++) {
        if (!go_board_on(b, p) || b->color[p] != GO_EMPTY || p == b->ko_point ||
            illegal_suicide(b, p, c, r->multi_stone_suicide))
            continue;
        uint64_t after;
        int captures = 0;
        bool lives = hash_after(b, p, c, &after, &captures);
        if (lives && captures == 0 && most <= stones)
            continue;
        if (!lives) {
            go_board t = *b;
            go_board_play(&t, p, c);
            after = t.hash;
        }
        for (int k = h->ko_start; k <= g->num_moves && !banned[p]; k++)
            banned[p] = g->hashes[k] == after &&
                        (r->ko == GO_KO_POSITIONAL || to_move_at(g, h->start, k) == go_opponent(c));
    }
}

void nn_kata_legal_moves(const go_game *g, const go_rules *rules, bool *legal)
{
    kata_history h;
    bool banned[GO_POINTS];
    history_replay(g, rules, &h);
    superko_bans(g, rules, &h, banned);
    const go_board *b = &g->board;
    for (int y = 0; y < b->height; y++)
        for (int x = 0; x < b->width; x++) {
            int p = go_point_at(x, y);
            legal[y * b->width + x] =
                b->color[p] == GO_EMPTY && p != b->ko_point && !banned[p] &&
                !illegal_suicide(b, p, (go_color)b->to_move, rules->multi_stone_suicide);
        }
}

/* ---- features ----------------------------------------------------------------------------- */

typedef struct plane_writer {
    nn_kata_inputs *in;
    const go_board *b;
    int plane, working_plane;   /* ladder planes; working_plane < 0 for none */
    go_color opp;
} plane_writer;

static void set_plane(nn_kata_inputs *in, int c, int p)
{
    in->spatial[((size_t)c * in->height + go_point_y(p)) * in->width + go_point_x(p)] = 1.0f;
}

static void mark_ladder(void *ctx, int p, const int *working, int num_working)
{
    plane_writer *w = ctx;
    set_plane(w->in, w->plane, p);
    if (w->working_plane >= 0 && w->b->color[p] == w->opp && w->b->libs[w->b->chain[p]] > 1)
        for (int i = 0; i < num_working; i++)
            set_plane(w->in, w->working_plane, working[i]);
}

static bool ladder_planes(const go_game *g, const kata_history *h, int turns, nn_kata_inputs *in,
                          char *err, int err_len)
{
    const go_board *b = &g->board;
    go_board prev = turns >= 1 ? history_board(g, g->num_moves - 1, h->start) : *b;
    go_board prev2 = turns >= 2 ? history_board(g, g->num_moves - 2, h->start) : prev;
    go_color opp = go_opponent((go_color)b->to_move);
    plane_writer w[3] = {{in, b, 14, 17, opp}, {in, &prev, 15, -1, opp}, {in, &prev2, 16, -1, opp}};
    for (int i = 0; i < 3; i++)
        if (!nn_kata_ladders(w[i].b, mark_ladder, &w[i])) {
            snprintf(err, (size_t)err_len, "ladder features: out of memory");
            return false;
        }
    return true;
}

/* KataGo's komi parity wave: the komi's distance above the nearest komi that allows a draw
 * (draws need an even komi on a board of an even number of points, an odd one otherwise). */
static float komi_wave(float self_komi, int area)
{
    bool even = area % 2 == 0;
    float floor_komi = even ? floorf(self_komi / 2.0f) * 2.0f
                            : floorf((self_komi - 1.0f) / 2.0f) * 2.0f + 1.0f;
    float delta = self_komi - floor_komi;
    delta = delta < 0.0f ? 0.0f : delta > 2.0f ? 2.0f : delta;
    return delta < 0.5f ? delta : delta < 1.5f ? 1.0f - delta : delta - 2.0f;
}

bool nn_kata_inputs_fill(int v, const go_game *g, const go_rules *r, nn_kata_inputs *in,
                         char *err, int err_len)
{
    if (v < 3 || v > 7) {
        snprintf(err, (size_t)err_len, "inputs: unsupported KataGo inputs version %d", v);
        return false;
    }
    const go_board *b = &g->board;
    int width = b->width, height = b->height, area = width * height;
    in->size = b->size;
    in->width = width;
    in->height = height;
    in->num_spatial = v == 5 ? 13 : 22;
    in->num_global = v == 7 ? 19 : v == 6 ? 16 : v == 5 ? 12 : 14;
    memset(in->spatial, 0, sizeof(float) * (size_t)in->num_spatial * area);
    memset(in->global, 0, sizeof in->global);
    go_color pla = (go_color)b->to_move, opp = go_opponent(pla);
    kata_history h;
    bool banned[GO_POINTS];
    history_replay(g, r, &h);
    superko_bans(g, r, &h, banned);

    int ko_plane = v == 5 ? 3 : 6, history_plane = v == 5 ? 6 : 9;
    for (int y = 0; y < height; y++)
        for (int x = 0; x < width; x++) {
            int p = go_point_at(x, y);
            set_plane(in, 0, p);
            if (b->color[p] == GO_EMPTY)
                continue;
            set_plane(in, b->color[p] == pla ? 1 : 2, p);
            int libs = b->libs[b->chain[p]];
            if (v != 5 && libs <= 3)
                set_plane(in, 2 + libs, p);
        }
    if (b->ko_point)
        set_plane(in, ko_plane, b->ko_point);
    for (int p = 0; p < GO_POINTS; p++)
        if (banned[p] && p != b->ko_point)
            set_plane(in, ko_plane, p);

    /* The last moves while they alternate back from the opponent's. Up to inputs version 5 the
     * history is hidden once the game has ended; from 6 the ending pass stays visible. Either
     * way it is hidden where a friendly pass would not end the game. */
    int max_turns = 5;
    if (v <= 5)
        max_turns = h.finished || h.suppress_end ? 0 : g->num_moves - h.start;
    else
        max_turns = h.suppress_end ? 0 : h.finished ? 1 : h.valid_turns;
    max_turns = max_turns < 5 ? max_turns : 5;
    int turns = 0;
    go_color want = opp;
    for (int k = 1; k <= max_turns; k++) {
        go_move m = g->moves[g->num_moves - k];
        if (m.color != want)
            break;
        turns = k;
        if (m.point == GO_PASS)
            in->global[k - 1] = 1.0f;
        else
            set_plane(in, history_plane + k - 1, m.point);
        want = go_opponent(want);
    }
    if (v != 5 && !ladder_planes(g, &h, turns, in, err, err_len))
        return false;

    /* Planes 18, 19: the area KataGo scores by. From version 6 territory scoring shows it only in
     * the second encore, which GTP never reaches; area scoring with a group tax shows the
     * independent-life area with the stones of seki areas kept (fillRowV6 / fillRowV7). */
    bool area_scoring = r->scoring == GO_SCORING_AREA;
    if (v != 5 && (v <= 4 || area_scoring)) {
        uint8_t owner[GO_POINTS];
        bool all = v == 3 ? area_scoring : v >= 6;
        if (v >= 6 && r->tax != GO_TAX_NONE)
            go_area_independent_life(b, r->multi_stone_suicide, false, true, owner);
        else
            go_area_kata(b, r->multi_stone_suicide, all, true, all, owner);
        for (int y = 0; y < height; y++)
            for (int x = 0; x < width; x++) {
                int p = go_point_at(x, y);
                if (owner[p] == pla)
                    set_plane(in, 18, p);
                else if (owner[p] == opp)
                    set_plane(in, 19, p);
            }
    }

    float white_komi = h.white_bonus + (float)h.white_handicap_bonus + g->komi;
    float self_komi = pla == GO_WHITE ? white_komi : -white_komi;
    float limit = (float)area + (v == 7 ? 20.0f : 1.0f);
    self_komi = self_komi > limit ? limit : self_komi < -limit ? -limit : self_komi;
    in->global[5] = self_komi / (v >= 6 ? 20.0f : 15.0f);
    if (r->ko != GO_KO_SIMPLE) {
        in->global[6] = 1.0f;
        in->global[7] = r->ko == GO_KO_POSITIONAL ? 0.5f : -0.5f;
    }
    in->global[8] = r->multi_stone_suicide ? 1.0f : 0.0f;
    in->global[9] = r->scoring == GO_SCORING_TERRITORY ? 1.0f : 0.0f;
    if (v == 5)
        return true;
    float wave = r->scoring == GO_SCORING_AREA ? komi_wave(self_komi, area) : 0.0f;
    bool hidden = h.suppress_end || (v <= 4 && h.finished);
    float pass_ends = h.pass_ends_phase && !hidden ? 1.0f : 0.0f;
    if (v <= 4) {
        in->global[12] = pass_ends;
        in->global[13] = wave;
        return true;
    }
    in->global[10] = r->tax != GO_TAX_NONE ? 1.0f : 0.0f;
    in->global[11] = r->tax == GO_TAX_ALL ? 1.0f : 0.0f;
    in->global[14] = pass_ends;
    if (v == 6) {
        in->global[15] = wave;
        return true;
    }
    in->global[17] = h.has_button ? 1.0f : 0.0f;
    in->global[18] = wave;
    return true;
}

/* ---- symmetries --------------------------------------------------------------------------- */

void nn_kata_symmetry_apply(int s, bool outputs, int width, int height, int planes,
                            const float *src, float *dst)
{
    bool transpose = s & 4, flip_x = s & 2, flip_y = s & 1;
    if (transpose && !outputs) {
        bool t = flip_x;
        flip_x = flip_y;
        flip_y = t;
    }
    int area = width * height;
    if (!transpose && !flip_x && !flip_y) {
        if (dst != src)
            memmove(dst, src, sizeof *dst * (size_t)planes * (size_t)area);
        return;
    }
    /* src's and dst's sides: the board's for the inputs' src and the outputs' dst, swapped on
     * the net's side of a transposing symmetry */
    bool net_src = outputs && transpose, net_dst = !outputs && transpose;
    int src_w = net_src ? height : width, src_h = net_src ? width : height;
    int dst_w = net_dst ? height : width, dst_h = net_dst ? width : height;
    /* where each point goes, once, then every plane through the table */
    int to[NN_KATA_MAX_POINTS];
    for (int y = 0; y < src_h; y++)
        for (int x = 0; x < src_w; x++) {
            int a = transpose ? x : y, bcol = transpose ? y : x;
            int ny = flip_y ? dst_h - 1 - a : a, nx = flip_x ? dst_w - 1 - bcol : bcol;
            to[y * src_w + x] = ny * dst_w + nx;
        }
    for (int c = 0; c < planes; c++) {
        const float *sp = src + (size_t)c * area;
        float *dp = dst + (size_t)c * area;
        for (int i = 0; i < area; i++)
            dp[to[i]] = sp[i];
    }
}

/* ---- human-SL profiles --------------------------------------------------------------------- */

/* "9d" .. "1d" -> 1 .. 9, "1k" .. "20k" -> 10 .. 29 (KataGo's inverse ranks); -1 otherwise. */
static int inverse_rank_of(const char *s)
{
    char name[8];
    for (int r = 1; r <= 29; r++) {
        snprintf(name, sizeof name, r <= 9 ? "%dd" : "%dk", r <= 9 ? 10 - r : r - 9);
        if (!strcmp(s, name))
            return r;
    }
    return -1;
}

static void rank_profile(int inverse_black, int inverse_white, bool pre_az, nn_kata_profile *p)
{
    /* KataGo takes KGS as the source of its rank profiles: its ratings are consistent */
    *p = (nn_kata_profile){.black = {inverse_black, false, false, true},
                           .white = {inverse_white, false, false, true},
                           .ratedness_unknown = true,
                           .time_control = NN_KATA_TC_BYOYOMI,
                           .main_time_s = 1200,
                           .period_time_s = 30,
                           .byoyomi_periods = 5,
                           .year = pre_az ? 2016 : 2020,
                           .month = pre_az ? 9 : 3,
                           .day = 1,
                           .source = NN_KATA_SOURCE_KGS};
}

bool nn_kata_profile_parse(const char *name, nn_kata_profile *p, char *err, int err_len)
{
    const char *rest = NULL;
    bool pre_az = false;
    if (!strncmp(name, "proyear_", 8)) {
        const char *y = name + 8;
        int year = 0, digits = 0;
        while (y[digits] >= '0' && y[digits] <= '9' && digits < 5)
            year = 10 * year + (y[digits++] - '0');
        if (digits > 0 && y[digits] == '\0' && year >= 1800 && year <= 2023) {
            *p = (nn_kata_profile){.black = {1, false, false, true},
                                   .white = {1, false, false, true},
                                   .time_control = NN_KATA_TC_UNKNOWN,
                                   .year = year,
                                   .month = 6,
                                   .day = 1,
                                   .source = year <= 2020 ? NN_KATA_SOURCE_GOGOD
                                                          : NN_KATA_SOURCE_GO4GO};
            return true;
        }
    } else if (!strncmp(name, "rank_", 5)) {
        rest = name + 5;
    } else if (!strncmp(name, "preaz_", 6)) {
        rest = name + 6;
        pre_az = true;
    }
    if (rest) {
        int both = inverse_rank_of(rest);
        if (both > 0) {
            rank_profile(both, both, pre_az, p);
            return true;
        }
        const char *sep = strchr(rest, '_');
        char black[8];
        if (sep && sep - rest < (long)sizeof black) {
            snprintf(black, sizeof black, "%.*s", (int)(sep - rest), rest);
            int b = inverse_rank_of(black), w = inverse_rank_of(sep + 1);
            if (b > 0 && w > 0) {
                rank_profile(b, w, pre_az, p);
                return true;
            }
        }
    }
    snprintf(err, (size_t)err_len,
             "unknown human SL profile \"%s\" (expected rank_9d .. rank_20k, preaz_<rank>, "
             "proyear_1800 .. proyear_2023, or rank_<black>_<white>)", name);
    return false;
}

/* n / d rounded towards minus infinity, d > 0 */
static int floor_div(int n, int d) { return n >= 0 ? n / d : -1 - (-1 - n) / d; }

static int leap_years_through(int year)
{
    return floor_div(year, 4) - floor_div(year, 100) + floor_div(year, 400);
}

static bool is_leap(int y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

/* Days from 1970-01-01 to y-m-d (negative before), Gregorian calendar. */
static int days_since_1970(int y, int m, int d)
{
    static const int before_month[13] = {0, 0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334};
    int in_year = before_month[m < 1 ? 1 : m > 12 ? 12 : m] + (m > 2 && is_leap(y)) + d - 1;
    return 365 * (y - 1970) + leap_years_through(y - 1) - leap_years_through(1969) + in_year;
}

static double clamp(double v, double lo, double hi) { return v < lo ? lo : v > hi ? hi : v; }

void nn_kata_profile_features(const nn_kata_profile *p, go_color to_move, int board_area,
                              float *f)
{
    bool white = to_move == GO_WHITE;
    const nn_kata_player_meta *pla = white ? &p->white : &p->black;
    const nn_kata_player_meta *opp = white ? &p->black : &p->white;
    memset(f, 0, sizeof *f * NN_KATA_META_INPUTS);
    f[0] = pla->human;
    f[1] = opp->human;
    f[2] = pla->unranked;
    f[3] = opp->unranked;
    f[4] = pla->rank_unknown;
    f[5] = opp->rank_unknown;
    enum { RANK_LEN = 34 };   /* per player: inverse ranks beyond 34 (25k) all look alike */
    for (int i = 0; !pla->unranked && i < pla->inverse_rank && i < RANK_LEN; i++)
        f[6 + i] = 1.0f;
    for (int i = 0; !opp->unranked && i < opp->inverse_rank && i < RANK_LEN; i++)
        f[6 + RANK_LEN + i] = 1.0f;
    f[74] = p->ratedness_unknown ? 0.5f : p->game_unrated ? 1.0f : 0.0f;
    f[75 + (int)p->time_control] = 1.0f;
    double main_s = clamp(p->main_time_s, 0, 3.0 * 86400);
    double period_s = clamp(p->period_time_s, 0, 86400);
    double periods = clamp(p->byoyomi_periods, 0, 50), moves = clamp(p->canadian_moves, 0, 50);
    f[82] = (float)(0.4 * (log(main_s + 60.0) - 6.5));
    f[83] = (float)(0.3 * (log(period_s + 1.0) - 3.0));
    f[84] = (float)(0.5 * (log(periods + 2.0) - 1.5));
    f[85] = (float)(0.25 * (log(moves + 2.0) - 1.5));
    f[86] = (float)(0.5 * log(board_area / 361.0));
    /* the date as 32 clock hands, from a week (a day-of-the-week effect) to ~1500 years */
    double days = days_since_1970(p->year, p->month, p->day);
    double period = 7.0, growth = pow(80000.0, 1.0 / 31.0), two_pi = 6.283185307179586476925;
    for (int i = 0; i < 32; i++) {
        double turns = days / period;
        f[87 + 2 * i] = (float)cos(turns * two_pi);
        f[88 + 2 * i] = (float)sin(turns * two_pi);
        period *= growth;
    }
    f[151 + p->source] = 1.0f;
}
