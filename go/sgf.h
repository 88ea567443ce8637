/* go/sgf.h -- SGF FF[4] reader and writer, and conversion to and from a go_game.
 *
 * A collection is parsed into a tree of nodes per game; every property is kept generically
 * (identifier plus its list of values, escapes already removed), so comments, markup and
 * properties shido does not understand survive a parse -> write -> parse round trip.
 *
 * Accepted beyond strict FF[4]: whitespace between any tokens, a UTF-8 byte order mark, and the
 * lowercase letters of FF[1-3] identifiers ("AddBlack" reads as "AB"). Soft line breaks
 * (backslash + newline) are removed from every value, since the reader cannot know the type of
 * an unknown property. Refused with "line L, column C: reason": unbalanced '(' ')' or '[' ']',
 * a value without identifier, a game tree without a node, nodes after variations, junk bytes
 * outside values, NUL bytes, empty input, input over GO_SGF_MAX_BYTES, variations nested deeper
 * than GO_SGF_MAX_DEPTH and trees that would need more than GO_SGF_MAX_TREE_BYTES of memory.
 *
 * Nothing here recurses over the tree: parse, write and free use explicit stacks or parent
 * pointers, so a 100,000-move line or 10,000 nested variations cost no C stack.
 *
 * Ownership: every identifier, value, values array, props array, children array and node is
 * malloc'd on its own; go_sgf_free releases all of it. A hand-built tree must keep parent
 * pointers correct, since freeing walks them.
 */
#ifndef SHIDO_GO_SGF_H
#define SHIDO_GO_SGF_H

#include <stdbool.h>
#include <stddef.h>

#include "go/game.h"

#define GO_SGF_MAX_BYTES ((size_t)64 << 20) /* larger inputs are refused before parsing */
#define GO_SGF_MAX_DEPTH 10000              /* nesting of '(' allowed; deeper is refused */
/* Estimated heap use (allocation sizes plus malloc overhead) above which a parse is refused.
 * Game records cost about 30 bytes of tree per byte of text, so any real file under
 * GO_SGF_MAX_BYTES fits, while 64 MiB of bare ";" (several GiB of nodes) does not. */
#define GO_SGF_MAX_TREE_BYTES ((unsigned long long)2 << 30)
#define GO_SGF_MAX_IDENT 32                 /* upper-case letters in one property identifier */

typedef struct go_sgf_prop {
    char *ident;          /* upper-case identifier, e.g. "AB" */
    int num_values;       /* at least 1 */
    char **values;        /* raw text with SGF escapes removed */
} go_sgf_prop;

typedef struct go_sgf_node {
    int num_props;
    go_sgf_prop *props;
    int num_children;     /* children[0] is the main line */
    struct go_sgf_node **children;
    struct go_sgf_node *parent; /* NULL at a game's root */
} go_sgf_node;

typedef struct go_sgf_collection {
    int num_games;
    go_sgf_node **games;  /* roots */
} go_sgf_collection;

/* Parses a whole SGF collection (one or more games) from len bytes (no NUL needed). Returns a
 * collection the caller frees with go_sgf_free, or NULL with "line L, column C: reason" in err. */
go_sgf_collection *go_sgf_parse(const char *data, size_t len, char *err, int err_len);

/* Reads and parses a file. Files over GO_SGF_MAX_BYTES are refused unread. On error returns NULL
 * with "path: reason" in err. */
go_sgf_collection *go_sgf_read_file(const char *path, char *err, int err_len);

/* Frees a collection and all its trees (NULL is fine). */
void go_sgf_free(go_sgf_collection *c);

/* Serialises to SGF text, escaping ']' and '\' in values; one game tree per line group.
 * Returns a malloc'd NUL-terminated string the caller frees, or NULL when out of memory. */
char *go_sgf_write(const go_sgf_collection *c);

/* First value of the first property ident in n, or NULL. The string belongs to the tree. */
const char *go_sgf_get(const go_sgf_node *n, const char *ident);

/* Tree building for writers (reviews, quizzes): a new child appended after parent's children
 * (its last variation; parent must not be NULL), or NULL when out of memory. */
go_sgf_node *go_sgf_add_child(go_sgf_node *parent);

/* Appends value to n's property ident, making the property (at the end of n's list) when n has
 * none. False when out of memory (n keeps what it had). */
bool go_sgf_add_value(go_sgf_node *n, const char *ident, const char *value);

/* The SGF coordinate of a board point ("dd"; "" for GO_PASS) written into out; returns out. */
const char *go_sgf_point_text(int p, char out[3]);

/* Game information of a root. */
typedef struct go_sgf_info {
    int size;             /* SZ, default 19: the longer side of a rectangle (SZ[w:h]) */
    int width, height;    /* SZ's columns and rows (both size on a square board) */
    float komi;           /* KM, default 0 */
    int handicap;         /* HA, default 0 */
    char rules[64];       /* RU as written (truncated), "" when absent */
    char black[128];      /* PB */
    char white[128];      /* PW */
    char result[64];      /* RE */
} go_sgf_info;

/* Fills info from root. Returns false with a reason in err for GM other than 1, an unsupported
 * SZ (a side outside GO_MIN_SIZE..GO_MAX_SIZE; SZ[w:h] is a w x h rectangle), a KM that is not
 * a finite number or an HA that is not a count of stones the board can hold. */
bool go_sgf_info_read(const go_sgf_node *root, go_sgf_info *info, char *err, int err_len);

/* Replays the main line (children[0] each time) of a game into g, which must be uninitialised.
 * Size and komi from the root; RU is mapped to a shido preset ("Chinese", "Japanese", "Korean",
 * "AGA", "NZ"/"New Zealand", "Tromp-Taylor"/"TT", any preset name, or KataGo's
 * "koPOSITIONALscoreAREA..." form); an absent or unknown RU keeps go_game_init's default.
 * AB/AW/AE (compressed lists allowed) are applied only in nodes before the first move, PL
 * anywhere; B/W with an empty value or "tt" are passes. Stops after move_limit moves
 * (move_limit < 0: all). Returns true with g initialised (caller calls go_game_free), or false
 * with a reason naming the node and move in err and nothing to free. */
bool go_sgf_to_game(const go_sgf_node *root, int move_limit, go_game *g, char *err, int err_len);

/* Builds a one-game collection from g: a root with FF[4] GM[1] CA[UTF-8] AP[shido] SZ KM RU
 * (HA when g->handicap > 0), the setup stones of g->setup as AB/AW, PL when the side to move
 * would not be inferred, then one node per move (and a final PL node when the side to move is
 * not the opponent of the last mover). Rules without a preset name are written in KataGo's form. Returns NULL when out of memory; the caller frees with go_sgf_free. */
go_sgf_collection *go_sgf_from_game(const go_game *g);

#endif
