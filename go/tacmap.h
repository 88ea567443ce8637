/* go/tacmap.h -- tactical maps (seed 004, section 3): expressions over the BW Graph Model that map
 * a position to a set of points.
 *
 * Grammar (depth in brackets; the paper's F_1 = {b, w}, F_(n+1) = G1(F_n) | G2(F_n, F_n)):
 *   leaves [1]     b, w, and the paper's 0-ary shorthands black (b - w), white (w - b),
 *                  empty (b & w), H (complement of Pre2(empty))
 *   unary  [1 + d] ~X (complement), PreN(X), SucN(X), AdjN(X) with N = 1..5, and the shorthands
 *                  nPreN(X), nSucN(X), nAdjN(X) for the complement of PreN(X) etc.
 *   binary [1 + max] X | Y (union), X & Y (intersection), X - Y (difference)
 * '&' binds tighter than '|' and '-', which associate to the left; parentheses group. Names are
 * case-sensitive; whitespace is free. The printer writes the fewest parentheses that parse back to
 * the same tree, so print(parse(print(m))) == print(m).
 *
 * A map is stored as its nodes in post-order (children before parents, the root last), which is
 * also the order of evaluation. go_tmap is plain data.
 */
#ifndef SHIDO_GO_TACMAP_H
#define SHIDO_GO_TACMAP_H

#include <stdbool.h>
#include <stdint.h>

#include "go/bitboard.h"
#include "go/bwgraph.h"

#define GO_TM_MAX_NODES 512
#define GO_TM_MAX_DEPTH 32          /* deepest map the parser accepts */
#define GO_TM_MAX_RANDOM_DEPTH 8    /* the number of maps of depth 9 overflows a double */

typedef enum go_tm_op {
    GO_TM_B, GO_TM_W, GO_TM_BLACK, GO_TM_WHITE, GO_TM_EMPTY, GO_TM_ATARI, /* leaves */
    GO_TM_NOT, GO_TM_PRE, GO_TM_SUC, GO_TM_ADJ, GO_TM_NPRE, GO_TM_NSUC, GO_TM_NADJ, /* unary */
    GO_TM_UNION, GO_TM_INTER, GO_TM_DIFF, /* binary */
    GO_TM_OP_COUNT
} go_tm_op;

#define GO_TM_NUM_LEAVES 6

typedef struct go_tm_node {
    uint8_t op;         /* go_tm_op */
    uint8_t n;          /* 1..5 for the counting operators, else 0 */
    int16_t a, b;       /* children (node indices), -1 when absent */
} go_tm_node;

typedef struct go_tmap {
    int num_nodes;      /* the root is node[num_nodes - 1] */
    go_tm_node node[GO_TM_MAX_NODES];
} go_tmap;

/* Parses text into m. Returns false with "column C: reason" in err on any malformed input, a map
 * deeper than GO_TM_MAX_DEPTH or larger than GO_TM_MAX_NODES; m is then unspecified. */
bool go_tm_parse(const char *text, go_tmap *m, char *err, int err_len);

/* Writes the map (or the subtree at node) into buf; returns the length, or -1 when buf is too
 * small (buf then holds a truncated, NUL-terminated prefix). */
int go_tm_print(const go_tmap *m, char *buf, int len);
int go_tm_print_node(const go_tmap *m, int node, char *buf, int len);

/* Depth of the map (a leaf has depth 1) or of the subtree at node. */
int go_tm_depth(const go_tmap *m);
int go_tm_node_depth(const go_tmap *m, int node);

/* Structural equality. */
bool go_tm_equal(const go_tmap *a, const go_tmap *b);

/* Decomposition (section 3.2): the operands of the intersections at the top of the map, read
 * left to right through nested '&' nodes. Writes up to max node indices; returns how many there
 * are (1 for a map that is no intersection). */
int go_tm_components(const go_tmap *m, int *nodes, int max);

/* Copies the subtree at node into out as a map of its own. */
void go_tm_extract(const go_tmap *m, int node, go_tmap *out);

/* The leaves of one position, computed once and shared by every map evaluated on it. */
typedef struct go_tm_leaves {
    go_bb v[GO_TM_NUM_LEAVES];
} go_tm_leaves;

void go_tm_leaves_init(go_tm_leaves *l, const go_bw *g);

/* The set the map gives on the position. */
go_bb go_tm_eval(const go_tmap *m, const go_bw *g, const go_tm_leaves *l);

/* Number of distinct maps of depth <= depth (1..GO_TM_MAX_RANDOM_DEPTH) over this grammar. */
double go_tm_count(int depth);

/* Draws a map uniformly from all maps of depth <= max_depth (1..GO_TM_MAX_RANDOM_DEPTH): each
 * node chooses leaf, unary or binary in proportion to how many maps each choice leads to. */
void go_tm_random(go_tmap *m, int max_depth, uint64_t *rng);

/* Draws a map by "growing" it (as genetic programming does): every node picks one of the 40
 * operators uniformly (6 leaves, 31 unary, 3 binary), a leaf where the depth is used up. Unlike
 * go_tm_random, whose maps of depth >= 4 are almost all complete binary trees, this gives mostly
 * chains of counting operators: the features of points at a distance that seed 004 describes. */
void go_tm_random_grow(go_tmap *m, int max_depth, uint64_t *rng);

#endif
