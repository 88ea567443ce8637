/* go/board.c -- stones, chains with exact incremental liberties, captures, simple ko. */
#include "go/board.h"

#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "go/hash.h"

const int go_dir4[4] = {-1, 1, -GO_STRIDE, GO_STRIDE};

static uint64_t zobrist[3][GO_POINTS];
static uint64_t zobrist_wtm;
static pthread_once_t zobrist_once = PTHREAD_ONCE_INIT;

/* The keys are a pure function of a fixed seed; pthread_once makes the table visible to every
 * thread (search threads create boards concurrently). */
static void zobrist_fill(void)
{
    uint64_t s = 0x5348494430303031ull; /* "SHID0001" */
    for (int c = 0; c < 3; c++)
        for (int p = 0; p < GO_POINTS; p++)
            zobrist[c][p] = go_splitmix64(&s);
    zobrist_wtm = go_splitmix64(&s);
}

static void zobrist_init(void)
{
    pthread_once(&zobrist_once, zobrist_fill);
}

uint64_t go_zobrist_stone(go_color c, int p)
{
    zobrist_init();
    return zobrist[c][p];
}

uint64_t go_zobrist_white_to_move(void)
{
    zobrist_init();
    return zobrist_wtm;
}

bool go_board_init(go_board *b, int size) { return go_board_init_rect(b, size, size); }

bool go_board_init_rect(go_board *b, int width, int height)
{
    if (width < GO_MIN_SIZE || width > GO_MAX_SIZE || height < GO_MIN_SIZE ||
        height > GO_MAX_SIZE)
        return false;
    zobrist_init();
    memset(b, 0, sizeof *b);
    b->size = width > height ? width : height;
    b->width = width;
    b->height = height;
    b->to_move = GO_BLACK;
    b->last_move = GO_NO_POINT;
    for (int p = 0; p < GO_POINTS; p++)
        b->color[p] = GO_BORDER;
    for (int y = 0; y < height; y++)
        for (int x = 0; x < width; x++) {
            int p = go_point_at(x, y);
            b->color[p] = GO_EMPTY;
            b->empty_pos[p] = (uint16_t)b->num_empty;
            b->empty[b->num_empty++] = (uint16_t)p;
        }
    return true;
}

static void empty_remove(go_board *b, int p)
{
    int i = b->empty_pos[p];
    int last = b->empty[--b->num_empty];
    b->empty[i] = (uint16_t)last;
    b->empty_pos[last] = (uint16_t)i;
}

static void empty_add(go_board *b, int p)
{
    b->empty_pos[p] = (uint16_t)b->num_empty;
    b->empty[b->num_empty++] = (uint16_t)p;
}

/* Distinct chain heads of colour c around p, written to heads; returns how many. */
static int neighbour_chains(const go_board *b, int p, go_color c, int heads[4])
{
    int n = 0;
    for (int d = 0; d < 4; d++) {
        int q = p + go_dir4[d];
        if (b->color[q] != c)
            continue;
        int h = b->chain[q];
        bool seen = false;
        for (int i = 0; i < n; i++)
            seen |= heads[i] == h;
        if (!seen)
            heads[n++] = h;
    }
    return n;
}

static bool adjacent_to_chain(const go_board *b, int p, int head)
{
    for (int d = 0; d < 4; d++) {
        int q = p + go_dir4[d];
        if (b->color[q] == GO_BLACK || b->color[q] == GO_WHITE)
            if (b->chain[q] == head)
                return true;
    }
    return false;
}

/* Merges chain `small` into chain `big`, counting the liberties of `small` that `big` lacks.
 * Stones are relabelled one by one, so a liberty shared by two stones of `small` is seen as
 * adjacent to `big` the second time and counted once. */
static void merge_chains(go_board *b, int big, int small)
{
    int s = small;
    do {
        for (int d = 0; d < 4; d++) {
            int q = s + go_dir4[d];
            if (b->color[q] == GO_EMPTY && !adjacent_to_chain(b, q, big))
                b->libs[big]++;
        }
        b->chain[s] = (uint16_t)big;
        s = b->next[s];
    } while (s != small);
    /* splice the two circular lists */
    int tmp = b->next[big];
    b->next[big] = b->next[small];
    b->next[small] = (uint16_t)tmp;
    b->stones[big] = (uint16_t)(b->stones[big] + b->stones[small]);
}

/* Removes the chain headed by h; every distinct neighbouring chain gains one liberty per removed
 * stone it touches. Returns the stones removed. */
static int remove_chain(go_board *b, int h)
{
    go_color c = (go_color)b->color[h];
    go_color o = go_opponent(c);
    int n = 0;
    int s = h;
    do {
        int nxt = b->next[s];
        b->color[s] = GO_EMPTY;
        b->hash ^= zobrist[c][s];
        empty_add(b, s);
        int heads[4];
        int k = neighbour_chains(b, s, o, heads);
        for (int i = 0; i < k; i++)
            b->libs[heads[i]]++;
        n++;
        s = nxt;
    } while (s != h);
    return n;
}

/* Puts a stone of c on empty p and updates chains and liberties; makes no capture. Returns the
 * head of the resulting chain. */
static int add_stone(go_board *b, int p, go_color c)
{
    b->color[p] = (uint8_t)c;
    b->hash ^= zobrist[c][p];
    empty_remove(b, p);
    b->chain[p] = (uint16_t)p;
    b->next[p] = (uint16_t)p;
    b->stones[p] = 1;
    int libs = 0;
    for (int d = 0; d < 4; d++)
        libs += b->color[p + go_dir4[d]] == GO_EMPTY;
    b->libs[p] = (uint16_t)libs;

    /* p was a liberty of every adjacent chain, once each */
    int heads[4];
    int k = neighbour_chains(b, p, go_opponent(c), heads);
    for (int i = 0; i < k; i++)
        b->libs[heads[i]]--;
    k = neighbour_chains(b, p, c, heads);
    int head = p;
    for (int i = 0; i < k; i++) {
        int h = heads[i];
        b->libs[h]--;
        if (b->stones[h] >= b->stones[head]) {
            merge_chains(b, h, head);
            head = h;
        } else {
            merge_chains(b, head, h);
        }
    }
    return head;
}

bool go_board_captures(const go_board *b, int p, go_color c)
{
    go_color o = go_opponent(c);
    for (int d = 0; d < 4; d++) {
        int q = p + go_dir4[d];
        if (b->color[q] == o && b->libs[b->chain[q]] == 1)
            return true;
    }
    return false;
}

bool go_board_is_legal(const go_board *b, int p, go_color c, bool multi_stone_suicide)
{
    if (p == GO_PASS)
        return true;
    if (!go_board_on(b, p) || b->color[p] != GO_EMPTY)
        return false;
    if (p == b->ko_point && c == b->ko_color)
        return false;
    go_color o = go_opponent(c);
    bool friend_adjacent = false;
    for (int d = 0; d < 4; d++) {
        int q = p + go_dir4[d];
        go_color col = (go_color)b->color[q];
        if (col == GO_EMPTY)
            return true;
        if (col == c) {
            if (b->libs[b->chain[q]] > 1)
                return true;
            friend_adjacent = true;
        } else if (col == o && b->libs[b->chain[q]] == 1) {
            return true;
        }
    }
    return multi_stone_suicide && friend_adjacent;
}

int go_board_play(go_board *b, int p, go_color c)
{
    b->ko_point = 0;
    b->last_move = p;
    b->to_move = go_opponent(c);
    if (p == GO_PASS)
        return 0;
    go_color o = go_opponent(c);
    int head = add_stone(b, p, c);
    int captured = 0;
    int last_captured = 0;
    for (int d = 0; d < 4; d++) {
        int q = p + go_dir4[d];
        if (b->color[q] == o && b->libs[b->chain[q]] == 0) {
            last_captured = q;
            captured += remove_chain(b, b->chain[q]);
        }
    }
    head = b->chain[p];
    if (captured == 0 && b->libs[head] == 0) {
        int lost = remove_chain(b, head);
        b->captures[o] += lost;
        return -lost;
    }
    b->captures[c] += captured;
    if (captured == 1 && b->stones[head] == 1 && b->libs[head] == 1) {
        b->ko_point = last_captured;
        b->ko_color = o;
    }
    return captured;
}

bool go_board_place(go_board *b, int p, go_color c)
{
    if (!go_board_on(b, p) || b->color[p] != GO_EMPTY || (c != GO_BLACK && c != GO_WHITE))
        return false;
    add_stone(b, p, c);
    b->ko_point = 0;
    return true;
}

/* Rebuilds every chain of the board from the colours alone (after a setup removal). */
static void rebuild_chains(go_board *b)
{
    go_board fresh;
    go_board_init_rect(&fresh, b->width, b->height);
    fresh.to_move = b->to_move;
    fresh.last_move = b->last_move;
    fresh.captures[1] = b->captures[1];
    fresh.captures[2] = b->captures[2];
    for (int p = 0; p < GO_POINTS; p++)
        if (b->color[p] == GO_BLACK || b->color[p] == GO_WHITE)
            add_stone(&fresh, p, (go_color)b->color[p]);
    *b = fresh;
}

int go_board_remove_chain(go_board *b, int p)
{
    if (!go_board_on(b, p) || b->color[p] == GO_EMPTY)
        return 0;
    int n = b->stones[b->chain[p]];
    int s = b->chain[p], h = s;
    do {
        int nxt = b->next[s];
        b->color[s] = GO_EMPTY;
        s = nxt;
    } while (s != h);
    rebuild_chains(b);
    return n;
}

bool go_board_is_eye(const go_board *b, int p, go_color c)
{
    if (b->color[p] != GO_EMPTY)
        return false;
    for (int d = 0; d < 4; d++) {
        go_color col = (go_color)b->color[p + go_dir4[d]];
        if (col != c && col != GO_BORDER)
            return false;
    }
    static const int diag[4] = {-GO_STRIDE - 1, -GO_STRIDE + 1, GO_STRIDE - 1, GO_STRIDE + 1};
    int enemy = 0, border = 0;
    go_color o = go_opponent(c);
    for (int d = 0; d < 4; d++) {
        go_color col = (go_color)b->color[p + diag[d]];
        enemy += col == o;
        border += col == GO_BORDER;
    }
    return enemy + (border > 0) < 2;
}

int go_board_chain_liberties(const go_board *b, int p, int *out, int max)
{
    if (!go_board_on(b, p) || b->color[p] == GO_EMPTY)
        return 0;
    static _Thread_local uint32_t mark[GO_POINTS];
    static _Thread_local uint32_t stamp;
    if (++stamp == 0) {
        memset(mark, 0, sizeof mark);
        stamp = 1;
    }
    int n = 0;
    int h = b->chain[p], s = h;
    do {
        for (int d = 0; d < 4; d++) {
            int q = s + go_dir4[d];
            if (b->color[q] == GO_EMPTY && mark[q] != stamp) {
                mark[q] = stamp;
                if (n < max)
                    out[n] = q;
                n++;
            }
        }
        s = b->next[s];
    } while (s != h);
    return n < max ? n : max;
}

bool go_board_check(const go_board *b, char *why, int why_len)
{
#define FAIL(...)                                                                                  \
    do {                                                                                           \
        snprintf(why, (size_t)why_len, __VA_ARGS__);                                               \
        return false;                                                                              \
    } while (0)
    if (b->width < GO_MIN_SIZE || b->width > GO_MAX_SIZE || b->height < GO_MIN_SIZE ||
        b->height > GO_MAX_SIZE ||
        b->size != (b->width > b->height ? b->width : b->height))
        FAIL("bad size %d (%dx%d)", b->size, b->width, b->height);
    uint64_t hash = 0;
    int empties = 0;
    for (int p = 0; p < GO_POINTS; p++) {
        int x = go_point_x(p), y = go_point_y(p);
        bool inside = p % GO_STRIDE != 0 && x < b->width && y >= 0 && y < b->height;
        int col = b->color[p];
        if (!inside && col != GO_BORDER)
            FAIL("point %d outside the board is not border", p);
        if (inside && col == GO_BORDER)
            FAIL("point %d inside the board is border", p);
        if (col == GO_EMPTY) {
            empties++;
            if (b->empty_pos[p] >= b->num_empty || b->empty[b->empty_pos[p]] != p)
                FAIL("empty point %d missing from the empty list", p);
        }
        if (col != GO_BLACK && col != GO_WHITE)
            continue;
        hash ^= zobrist[col][p];
        int h = b->chain[p];
        if (b->color[h] != col || b->chain[h] != h)
            FAIL("stone %d has a bad chain head %d", p, h);
        if (p != h)
            continue;
        /* walk the chain from its head: stones, liberties, no stray members */
        int count = 0, libs[GO_POINTS / 2];
        int nlibs = go_board_chain_liberties(b, p, libs, GO_POINTS / 2);
        int s = p;
        do {
            if (b->color[s] != col || b->chain[s] != h)
                FAIL("chain %d holds foreign stone %d", h, s);
            for (int d = 0; d < 4; d++) {
                int q = s + go_dir4[d];
                if (b->color[q] == col && b->chain[q] != h)
                    FAIL("adjacent stones %d and %d in different chains", s, q);
            }
            if (++count > GO_POINTS)
                FAIL("chain %d list does not close", h);
            s = b->next[s];
        } while (s != p);
        if (count != b->stones[h])
            FAIL("chain %d has %d stones, records %d", h, count, b->stones[h]);
        if (nlibs != b->libs[h])
            FAIL("chain %d has %d liberties, records %d", h, nlibs, b->libs[h]);
        if (nlibs == 0)
            FAIL("chain %d has no liberty", h);
    }
    /* every stone must be reachable from its head's list */
    for (int p = 0; p < GO_POINTS; p++) {
        if (b->color[p] != GO_BLACK && b->color[p] != GO_WHITE)
            continue;
        int h = b->chain[p], s = h, steps = 0;
        while (s != p && steps++ <= GO_POINTS)
            s = b->next[s];
        if (s != p)
            FAIL("stone %d not in its chain's list", p);
    }
    if (empties != b->num_empty)
        FAIL("%d empty points, list holds %d", empties, b->num_empty);
    if (hash != b->hash)
        FAIL("hash mismatch");
    if (b->ko_point && (!go_board_on(b, b->ko_point) || b->color[b->ko_point] != GO_EMPTY))
        FAIL("ko point %d is not empty", b->ko_point);
    return true;
#undef FAIL
}

const char *go_point_to_gtp(int size, int p, char *buf)
{
    return go_point_to_gtp_rect(size, size, p, buf);
}

int go_point_from_gtp(int size, const char *text)
{
    return go_point_from_gtp_rect(size, size, text);
}

const char *go_point_to_gtp_rect(int width, int height, int p, char *buf)
{
    if (p == GO_PASS) {
        strcpy(buf, "pass");
        return buf;
    }
    int x = go_point_x(p), y = go_point_y(p);
    if (x < 0 || y < 0 || x >= width || y >= height) {
        strcpy(buf, "??");
        return buf;
    }
    int row = height - y; /* 1..19 */
    buf[0] = (char)('A' + x + (x >= 8));
    if (row >= 10) {
        buf[1] = (char)('0' + row / 10);
        buf[2] = (char)('0' + row % 10);
        buf[3] = 0;
    } else {
        buf[1] = (char)('0' + row);
        buf[2] = 0;
    }
    return buf;
}

int go_point_from_gtp_rect(int width, int height, const char *text)
{
    if (!text || !*text)
        return GO_NO_POINT;
    if (!strcasecmp(text, "pass"))
        return GO_PASS;
    int letter = toupper((unsigned char)text[0]);
    if (letter < 'A' || letter > 'Z' || letter == 'I')
        return GO_NO_POINT;
    int x = letter - 'A' - (letter > 'I');
    const char *d = text + 1;
    if (!isdigit((unsigned char)*d) || *d == '0')
        return GO_NO_POINT;
    int row = 0;
    for (; isdigit((unsigned char)*d); d++) {
        row = row * 10 + (*d - '0');
        if (row > 99)
            return GO_NO_POINT;
    }
    if (*d || x >= width || row < 1 || row > height)
        return GO_NO_POINT;
    return go_point_at(x, height - row);
}

bool go_board_from_ascii(go_board *b, int size, const char *pic)
{
    go_board t;
    if (!go_board_init(&t, size))
        return false;
    int i = 0;
    for (const char *s = pic; *s; s++) {
        char ch = *s;
        if (isspace((unsigned char)ch))
            continue;
        if (i >= size * size)
            return false;
        int p = go_point_at(i % size, i / size);
        if (ch == 'X' || ch == 'x' || ch == '#')
            add_stone(&t, p, GO_BLACK);
        else if (ch == 'O' || ch == 'o')
            add_stone(&t, p, GO_WHITE);
        else if (ch != '.' && ch != '+')
            return false;
        i++;
    }
    if (i != size * size)
        return false;
    /* a picture with a chain lacking liberties is not a position */
    for (int p = 0; p < GO_POINTS; p++)
        if ((t.color[p] == GO_BLACK || t.color[p] == GO_WHITE) && t.libs[t.chain[p]] == 0)
            return false;
    *b = t;
    return true;
}

int go_board_to_ascii(const go_board *b, char *buf, int len)
{
    int n = 0;
#define PUT(...)                                                                                   \
    do {                                                                                           \
        int w_ = snprintf(buf + n, n < len ? (size_t)(len - n) : 0, __VA_ARGS__);                  \
        n += w_ > 0 ? w_ : 0;                                                                      \
    } while (0)
    PUT("   ");
    for (int x = 0; x < b->width; x++)
        PUT(" %c", 'A' + x + (x >= 8));
    PUT("\n");
    for (int y = 0; y < b->height; y++) {
        PUT("%2d ", b->height - y);
        for (int x = 0; x < b->width; x++) {
            int p = go_point_at(x, y);
            char ch = b->color[p] == GO_BLACK ? 'X' : b->color[p] == GO_WHITE ? 'O' : '.';
            PUT(p == b->last_move ? "(%c" : " %c", ch);
        }
        PUT(" %d\n", b->height - y);
    }
    PUT("   ");
    for (int x = 0; x < b->width; x++)
        PUT(" %c", 'A' + x + (x >= 8));
    PUT("\n");
#undef PUT
    return n < len ? n : len - 1;
}
