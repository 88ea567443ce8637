/* tools/positions.c -- positions of SGF games (positions.h). */
#include "tools/positions.h"

#include <stdio.h>
#include <stdlib.h>

bool positions_parse_range(const char *text, int *first, int *last)
{
    char *end;
    long a = strtol(text, &end, 10), b = a;
    if (end == text || a < 1 || a > 1000000)
        return false;
    if (*end == '-') {
        const char *s = end + 1;
        b = strtol(s, &end, 10);
        if (end == s || b < a || b > 1000000)
            return false;
    }
    if (*end)
        return false;
    *first = (int)a;
    *last = (int)b;
    return true;
}

bool positions_main_line(const go_sgf_collection *col, int index, int limit, go_game *all,
                         char *err, int err_len)
{
    char why[256];
    if (index < 0 || index >= col->num_games) {
        snprintf(err, (size_t)err_len, "game %d: the file holds %d game%s", index + 1,
                 col->num_games, col->num_games == 1 ? "" : "s");
        return false;
    }
    if (!positions_square_game(col->games[index], limit, all, why, sizeof why)) {
        snprintf(err, (size_t)err_len, "game %d: %s", index + 1, why);
        return false;
    }
    return true;
}

bool positions_square_game(const go_sgf_node *root, int limit, go_game *g, char *err,
                           int err_len)
{
    if (!go_sgf_to_game(root, limit, g, err, err_len))
        return false;
    if (go_board_square(&g->board))
        return true;
    snprintf(err, (size_t)err_len, "a %dx%d board: this command takes square boards only",
             g->board.width, g->board.height);
    go_game_free(g);
    return false;
}

bool positions_before_move(const go_game *all, int n, go_game *out, char *err, int err_len)
{
    if (n < 1 || n > all->num_moves + 1) {
        snprintf(err, (size_t)err_len, "move %d: the game has %d move%s (positions 1 to %d)", n,
                 all->num_moves, all->num_moves == 1 ? "" : "s", all->num_moves + 1);
        return false;
    }
    if (!go_game_copy(out, all)) {
        snprintf(err, (size_t)err_len, "out of memory");
        return false;
    }
    while (out->num_moves > n - 1)
        go_game_undo(out);
    if (n <= all->num_moves)
        go_game_set_to_move(out, all->moves[n - 1].color);
    else
        go_game_set_to_move(out, all->board.to_move);
    return true;
}
