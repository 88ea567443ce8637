/* go/eyes.h -- static eye counting and life and death (seed 003, Uenishi & Nakamura).
 *
 * Groups: chains of one colour linked by diagonal (kosumi) steps, i.e. the 8-connected components
 * of a colour: the group that seed 003 treats as "connected for sure" in the easy static cases.
 *
 * Euler's formula: the stones of a group are the vertices of a plane graph whose edges are the
 * links between adjacent stones: orthogonal neighbours, and diagonal neighbours unless the other
 * two points of their 2x2 square are both stones too (two crossing diagonals would not be plane).
 * When the group touches the edge, everything off the board is one more vertex, "earth", linked
 * once to every edge stone. Then the number of closed regions is
 *     N = E - V - C + 1      (V counting earth)
 * where C counts the faces that enclose no point: "triangle clusters" (three stones of a 2x2
 * square: an L with its diagonal link), full 2x2 squares of stones, and pairs of adjacent stones
 * along the edge (a triangle with earth). Seed 003's example (16 links, 10 stones, 5 triangles,
 * N = 16 - 10 - 5 + 1 = 2) fits this count when its 10 includes earth.
 *
 * Closed regions are the 4-connected components of the points not in the group except the largest
 * (the outside); their count equals N (tests/test_eyes.c checks both against each other).
 *
 * Shapes: a region is classified by numeric parameters as in seed 003 -- size, adjacencies between
 * its points, largest number of neighbours of one point, end points, 2x2 squares, turns, and how
 * many board edges it touches -- into the classical eye shapes up to seven points. Statuses use
 * seed 003's symbols: L alive, D dead, S seki, K ko; a pair gives the status when the defender
 * moves first and when the attacker does ("LD": alive if the defender moves first, dead if the
 * attacker does); equal halves print as one letter.
 */
#ifndef SHIDO_GO_EYES_H
#define SHIDO_GO_EYES_H

#include "go/bitboard.h"
#include "go/board.h"

/* The group holding the stone at p (empty when p holds no stone). */
go_bb go_eyes_group(const go_board *b, int p);

typedef struct go_euler {
    int stones;         /* group stones */
    int earth;          /* 1 when the group touches the edge */
    int links;          /* E */
    int triangles;      /* C */
    int regions;        /* N = E - (stones + earth) - C + 1 */
} go_euler;

/* Euler's count for an 8-connected set of points on a size x size board. */
go_euler go_eyes_euler(go_bb group, int size);

/* The closed regions of a group: writes up to max of them into out (largest first excluded, the
 * others in order of their lowest point) and returns how many there are. */
int go_eyes_regions(go_bb group, int size, go_bb *out, int max);

/* Benson's unconditional life: the stones of colour c whose chains stay on the board whatever
 * the opponent plays, even if c always passes. */
go_bb go_eyes_benson(const go_board *b, go_color c);

typedef enum go_shape {
    GO_SHAPE_ONE,
    GO_SHAPE_TWO,
    GO_SHAPE_STRAIGHT_THREE,
    GO_SHAPE_BENT_THREE,
    GO_SHAPE_STRAIGHT_FOUR,
    GO_SHAPE_BENT_FOUR,        /* L-shaped */
    GO_SHAPE_ZIGZAG_FOUR,      /* S-shaped */
    GO_SHAPE_PYRAMID_FOUR,     /* T-shaped */
    GO_SHAPE_SQUARE_FOUR,
    GO_SHAPE_BULKY_FIVE,       /* 2x2 square plus one */
    GO_SHAPE_CROSSED_FIVE,     /* plus sign; "flower five" */
    GO_SHAPE_OTHER_FIVE,
    GO_SHAPE_RABBITTY_SIX,     /* plus sign plus one in a 2x2 square; "flower six" */
    GO_SHAPE_RECTANGULAR_SIX,  /* 2x3 */
    GO_SHAPE_OTHER_SIX,
    GO_SHAPE_SEVEN,
    GO_SHAPE_LARGE,            /* eight points or more */
    GO_SHAPE_COUNT
} go_shape;

typedef enum go_place { GO_PLACE_CENTRE, GO_PLACE_EDGE, GO_PLACE_CORNER } go_place;

typedef struct go_shape_info {
    go_shape shape;
    go_place place;      /* board edges touched: none, one, two or more */
    int size;
    int adjacencies;     /* pairs of orthogonally adjacent region points */
    int max_degree;      /* most region neighbours of one region point */
    int ends;            /* region points with exactly one region neighbour */
    int squares;         /* 2x2 squares inside the region */
    int turns;           /* points with two region neighbours that are not opposite */
    int edge_points;     /* region points on the first line */
    int corner_degree;   /* region neighbours of a board corner the region holds, else -1 */
    int corner_rectangle; /* 0, or the region holds a 2x3 block with a board corner as one of
                           * its corners and any point beyond it is: 1 elsewhere, 2 on the edge
                           * continuing the block's long side, 3 touching the block's far corner */
    int vital;           /* bit of the vital point of a killing shape, else -1 */
} go_shape_info;

go_shape_info go_eyes_shape(go_bb region, int size);
const char *go_shape_name(go_shape s);
const char *go_place_name(go_place p);

typedef enum go_life { GO_LIFE_DEAD, GO_LIFE_SEKI, GO_LIFE_ALIVE, GO_LIFE_KO } go_life;

typedef struct go_life_pair {
    go_life defender_first;
    go_life attacker_first;
} go_life_pair;

/* "L", "LD", "KD", ... written into buf (>= 3 bytes); returns buf. */
const char *go_life_symbol(go_life_pair s, char *buf);

/* What seed 003's tables say about a group whose only eye space is region: the shape's status
 * with outside liberties (liberties of the group outside the region) taken into account for the
 * shapes that need them, and enemy stones inside, each an attacker's move already played:
 *   - on the vital point of a killing shape it has killed (D); on an inner point of a living
 *     four it has spent the defender's spare move (attacker first: D);
 *   - a space full but one point (nakade): the defender captures there and the stones' own shape
 *     is the eye space left, the attacker to move; with no outside liberty the attacker captures
 *     the group first (D);
 *   - an enemy chain in atari: the defender may capture it first, judged by the space left (two
 *     pieces free of enemy stones: two eyes);
 *   - one enemy chain touching every empty point: no eye point is left to the defender (D).
 * Otherwise the empty shape's status stands. tests/test_eyes.c tallies the agreement with an
 * exact search per shape class and enemy-stone count; seki made by enemy stones inside a living
 * shape is what these rules miss most. The group is the set of defender stones enclosing region. */
go_life_pair go_eyes_static_status(const go_board *b, go_bb group, go_bb region);

#endif
