/* tools/positions.h -- positions of SGF games as the teaching commands (features, fuseki-quiz,
 * review) name them: a file (one game or a collection), a game of it, and a move number.
 *
 * "Move N" is GTP loadsgf's: the position where the game's move N is to be played (N - 1 moves
 * on the board), its side to move the colour of move N; N = the number of moves + 1 is the
 * position after the last move. */
#ifndef SHIDO_TOOLS_POSITIONS_H
#define SHIDO_TOOLS_POSITIONS_H

#include <stdbool.h>

#include "go/game.h"
#include "go/sgf.h"

/* A move number range "N" or "A-B" (1 <= A <= B). False when text is neither. */
bool positions_parse_range(const char *text, int *first, int *last);

/* The main line of game `index` (0-based) of col, its first `limit` moves (limit < 0: all), into
 * *all (initialised here; the caller frees it with go_game_free). A limit lets a game whose
 * record breaks the rules further on (a superko repetition under the default rules, say) serve
 * its opening. False with "game I: reason" in err. */
bool positions_main_line(const go_sgf_collection *col, int index, int limit, go_game *all,
                         char *err, int err_len);

/* go_sgf_to_game for the commands that measure square boards only (the teaching layer, the
 * static analysis, the tsumego solver): a rectangle (SZ[w:h]) is refused with its size in err.
 * positions_main_line loads games this way. */
bool positions_square_game(const go_sgf_node *root, int limit, go_game *g, char *err,
                           int err_len);

/* The position before move n (1-based) of the main line all into *out (initialised here; the
 * caller frees it): the setup and the first n - 1 moves, the side to move that of move n (or the
 * opponent of the last mover after the end). False with a message naming n and the game's
 * length in err when n is outside 1..moves + 1. */
bool positions_before_move(const go_game *all, int n, go_game *out, char *err, int err_len);

#endif
