/* go/bouzy.h -- Bouzy's dilation/erosion influence maps (Zobrist's dilation, Bouzy's 5/21), as
 * seed 002 describes them for the concept method of tsumego generation.
 *
 * Black stones score +stone_value, white stones -stone_value, empty points 0. Then, over all
 * empty points at once:
 *   dilation (n times): a point with score >= 0 and no negative neighbour gains one per positive
 *     neighbour; otherwise a point with score <= 0 and no positive neighbour loses one per
 *     negative neighbour;
 *   erosion (m times): a positive point loses one per neighbour with score <= 0, a negative one
 *     gains one per neighbour with score >= 0, neither crossing 0.
 * Neighbours are the four orthogonal points on the board. The paper updates empty points only;
 * Bouzy's original also updated stones, which changes their values but never their signs (a stone
 * starts at +-128 and moves by at most 4 a step), so the empty points come out the same either way.
 */
#ifndef SHIDO_GO_BOUZY_H
#define SHIDO_GO_BOUZY_H

#include "go/board.h"

typedef struct go_bouzy_params {
    int dilations;      /* n */
    int erosions;       /* m */
    int stone_value;    /* the classic 128 */
} go_bouzy_params;

/* GNU Go 2.0's settings and the concept method's (seed 002, table 4.5). */
#define GO_BOUZY_STONE_VALUE 128
#define GO_BOUZY_GNUGO_TERRITORY ((go_bouzy_params){5, 21, GO_BOUZY_STONE_VALUE})
#define GO_BOUZY_GNUGO_MOYO ((go_bouzy_params){5, 10, GO_BOUZY_STONE_VALUE})
#define GO_BOUZY_GNUGO_AREA ((go_bouzy_params){4, 0, GO_BOUZY_STONE_VALUE})
#define GO_BOUZY_CONCEPT ((go_bouzy_params){5, 0, GO_BOUZY_STONE_VALUE})

/* Scores indexed by board point (go_point_at); off-board entries are left 0. */
typedef struct go_bouzy_map {
    int size;
    int score[GO_POINTS];
} go_bouzy_map;

/* The starting map: stones at +-stone_value, empty points 0. */
void go_bouzy_init(go_bouzy_map *m, const go_board *b, int stone_value);

/* One dilation or erosion step over the empty points of b (simultaneous update). */
void go_bouzy_dilate(go_bouzy_map *m, const go_board *b);
void go_bouzy_erode(go_bouzy_map *m, const go_board *b);

/* init, then p.dilations dilations, then p.erosions erosions. */
void go_bouzy_compute(go_bouzy_map *m, const go_board *b, go_bouzy_params p);

/* Sum over the board of |a - b|: the concept method's "score difference" between a parent
 * position and a child (absolute values, so black and white additions compare). */
long go_bouzy_difference(const go_bouzy_map *a, const go_bouzy_map *b);

#endif
