/* go/board.h -- the Go position: stones, chains, liberties, captures, simple ko.
 *
 * Points live in a padded one-dimensional array with a fixed stride of GO_STRIDE (21) for every
 * board size, so neighbours are p-1, p+1, p-GO_STRIDE, p+GO_STRIDE and the border is a colour of
 * its own. Column x (0 = left, GTP letter A) and row y (0 = TOP row, as in SGF and as the networks'
 * row-major planes) map to go_point_at(x, y) = (y + 1) * GO_STRIDE + x + 1. Index 0 is a border
 * point that is never on a board: it is used as GO_PASS.
 *
 * Chains are kept incrementally: every stone knows its chain head, stones of a chain form a
 * circular list, and the head holds the chain's exact liberty count and stone count.
 *
 * A go_board is plain data: copying it with = or memcpy copies the position (go_game uses this
 * for undo). It knows nothing of superko or rules beyond suicide; see go/game.h for those.
 */
#ifndef SHIDO_GO_BOARD_H
#define SHIDO_GO_BOARD_H

#include <stdbool.h>
#include <stdint.h>

#define GO_MIN_SIZE 2
#define GO_MAX_SIZE 19
#define GO_STRIDE (GO_MAX_SIZE + 2)
#define GO_POINTS (GO_STRIDE * GO_STRIDE)
#define GO_PASS 0
#define GO_NO_POINT (-1)

typedef enum { GO_EMPTY = 0, GO_BLACK = 1, GO_WHITE = 2, GO_BORDER = 3 } go_color;

static inline go_color go_opponent(go_color c) { return (go_color)(3 - c); }
static inline int go_point_at(int x, int y) { return (y + 1) * GO_STRIDE + x + 1; }
static inline int go_point_x(int p) { return p % GO_STRIDE - 1; }
static inline int go_point_y(int p) { return p / GO_STRIDE - 1; }

/* Where column x, row y of a size x size square goes under symmetry s (0..7): bit 0 mirrors x,
 * bit 1 mirrors y, bit 2 then transposes. shido's own numbering (the networks keep theirs). */
static inline void go_symmetry_xy(int s, int size, int *x, int *y)
{
    if (s & 1)
        *x = size - 1 - *x;
    if (s & 2)
        *y = size - 1 - *y;
    if (s & 4) {
        int t = *x;
        *x = *y;
        *y = t;
    }
}

/* The four orthogonal neighbour offsets. */
extern const int go_dir4[4];

typedef struct go_board {
    /* width columns (x) by height rows (y). size: the side of a square board; for a rectangular
     * one the longer side, so that loops over size x size stay inside the arrays; code written
     * for square boards only checks go_board_square() and refuses the others. */
    int size, width, height;
    int ko_point;             /* point ko_color may not play (simple ko), or 0 */
    go_color ko_color;        /* the colour banned from ko_point: the capturer's opponent */
    go_color to_move;
    int captures[3];          /* stones captured BY colour (index GO_BLACK / GO_WHITE) */
    int num_empty;
    int last_move;            /* last move played (GO_PASS for a pass), GO_NO_POINT at start */
    uint64_t hash;            /* Zobrist hash of the stones only (positional) */
    uint8_t color[GO_POINTS];
    uint16_t chain[GO_POINTS];   /* head stone of the chain holding this stone */
    uint16_t next[GO_POINTS];    /* next stone of the same chain (circular list) */
    uint16_t libs[GO_POINTS];    /* exact liberty count; valid at a chain head */
    uint16_t stones[GO_POINTS];  /* stone count; valid at a chain head */
    uint16_t empty[GO_POINTS];   /* list of empty points, num_empty long */
    uint16_t empty_pos[GO_POINTS]; /* index of an empty point in empty[] */
} go_board;

/* Zobrist keys: one per (colour, point) and one for "white to move". Deterministic. */
uint64_t go_zobrist_stone(go_color c, int p);
uint64_t go_zobrist_white_to_move(void);

/* Sets an empty board of size x size (GO_MIN_SIZE..GO_MAX_SIZE), black to move.
 * Returns false (board untouched) for an absurd size. */
bool go_board_init(go_board *b, int size);
/* The same for a width x height rectangle (each GO_MIN_SIZE..GO_MAX_SIZE), as KataGo's
 * rectangular_boardsize. */
bool go_board_init_rect(go_board *b, int width, int height);
static inline bool go_board_square(const go_board *b) { return b->width == b->height; }

static inline bool go_board_on(const go_board *b, int p)
{
    return p > 0 && p < GO_POINTS && b->color[p] != GO_BORDER;
}
static inline int go_board_libs(const go_board *b, int p) { return b->libs[b->chain[p]]; }
static inline int go_board_chain_size(const go_board *b, int p) { return b->stones[b->chain[p]]; }

/* True when colour c may put a stone on p under simple ko with the given suicide rule. The ko
 * ban belongs to a colour, not to the side to move, so a change of turn (SGF PL) keeps it.
 * multi_stone_suicide: a move that leaves its own chain of two or more stones without liberties
 * is legal and removes that chain (single-stone suicide is never legal, as in KataGo). */
bool go_board_is_legal(const go_board *b, int p, go_color c, bool multi_stone_suicide);

/* Plays colour c at p (or GO_PASS) without any legality check beyond what is needed to keep the
 * structure sound; call go_board_is_legal first. Returns the number of opponent stones captured;
 * a legal suicide returns minus the number of own stones removed. Sets to_move to the opponent. */
int go_board_play(go_board *b, int p, go_color c);

/* Puts a setup stone of colour c on an empty point (no captures are made; chains merge). Used for
 * handicap and SGF setup. Returns false if p is not empty. */
bool go_board_place(go_board *b, int p, go_color c);

/* Removes the chain holding p from the board (setup/AE). Returns stones removed. */
int go_board_remove_chain(go_board *b, int p);

/* Would playing c at p capture at least one opponent chain? */
bool go_board_captures(const go_board *b, int p, go_color c);

/* True when p is an empty point whose four neighbours are c or border and c's diagonal control
 * makes it a real eye (used by random playouts so that games end). */
bool go_board_is_eye(const go_board *b, int p, go_color c);

/* Liberties of the chain at p written into out (up to max); returns the count written. */
int go_board_chain_liberties(const go_board *b, int p, int *out, int max);

/* Checks every invariant (chain lists, heads, exact liberty and stone counts, empty list, hash,
 * no chain without liberties). Returns true when sound; otherwise writes a reason into why. */
bool go_board_check(const go_board *b, char *why, int why_len);

/* Point <-> GTP vertex text ("D4", "pass"). go_point_to_gtp writes into buf (>= 5 bytes) and
 * returns it. go_point_from_gtp returns GO_PASS, an on-board point, or GO_NO_POINT when the text
 * is not a vertex of this board size (case-insensitive, 'I' skipped). */
const char *go_point_to_gtp(int size, int p, char *buf);
int go_point_from_gtp(int size, const char *text);
/* The same on a width x height board (rows are numbered from the bottom, 1..height). */
const char *go_point_to_gtp_rect(int width, int height, int p, char *buf);
int go_point_from_gtp_rect(int width, int height, const char *text);
/* The same on b's board. */
static inline const char *go_board_vertex(const go_board *b, int p, char *buf)
{
    return go_point_to_gtp_rect(b->width, b->height, p, buf);
}
static inline int go_board_parse_vertex(const go_board *b, const char *text)
{
    return go_point_from_gtp_rect(b->width, b->height, text);
}

/* ASCII diagrams for tests and showboard: rows top to bottom, '.' empty, 'X' black, 'O' white,
 * whitespace ignored. go_board_from_ascii returns false on a malformed picture. */
bool go_board_from_ascii(go_board *b, int size, const char *pic);
/* Writes a diagram with coordinates into buf; returns bytes written (excluding NUL). */
int go_board_to_ascii(const go_board *b, char *buf, int len);

#endif
