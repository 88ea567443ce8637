/* teach/naturalness.h -- how natural a player's moves were in finished games (seed 001's
 * measures, and the style measure of its chapter 7): the network's prior of every move played
 * (arithmetic and geometric mean, the share under 0.05), the distance to the opponent's previous
 * move in the opening, the moves a strong search judges to lose more than a few points (the
 * thesis's "unnatural" moves), and the moves on the fourth line or higher in the opening. */
#ifndef SHIDO_TEACH_NATURALNESS_H
#define SHIDO_TEACH_NATURALNESS_H

#include <stdbool.h>

#include "go/game.h"
#include "teach/engine.h"
#include "teach/player.h"

/* What is measured, and how. */
typedef struct teach_nat_opts {
    int opening_moves;     /* moves (of the game, both sides) counted for distance and lines:
                              0 for 60 on 19x19, 40 below */
    double low_prior;      /* a prior under this is unnatural by the policy (0: 0.05) */
    double loss_limit;     /* a move losing more points is unnatural by the search (0: 5) */
    int64_t judge_visits;  /* the judge's visits per position (0: no judging); a move its root
                              gave under a quarter of them is searched after it as deeply */
} teach_nat_opts;

/* Sums over the moves of one player (passes left out). */
typedef struct teach_nat_stats {
    int games;
    int moves;
    double sum_prior, sum_log_prior;   /* the network's prior of the move played (floor 1e-6) */
    int low_prior;
    double sum_dist;                   /* Euclidean distance to the opponent's previous move */
    int dist_moves;
    int high_line, line_moves;         /* opening moves on line >= 4, and all opening moves */
    double sum_sq_high_line;           /* the squares of each game's count of them */
    int judged, unnatural;             /* moves judged by the search, and those losing more */
    double sum_loss;                   /* points lost by the judged moves (0 for gains) */
} teach_nat_stats;

/* Adds the moves of player in the finished game g (setup and moves as played) to st: priors
 * from e's first network (the eight symmetries averaged), and with opts->judge_visits > 0 and a
 * judge (a search player on e) the judge's losses. False with a message in err when a position
 * cannot be evaluated. */
bool teach_naturalness_add(teach_engine *e, teach_player *judge, const go_game *g,
                           go_color player, const teach_nat_opts *opts, teach_nat_stats *st,
                           char *err, int err_len);

/* The 95% interval of the mean count of opening moves on line >= 4 a game (normal
 * approximation over the games); NAN for both with fewer than two games. */
void teach_nat_line_interval(const teach_nat_stats *st, double *lo, double *hi);

#endif
