/* fuzz/fuzz_sgf.c -- libFuzzer target for the SGF reader and writer.
 *
 * Any input must parse or fail with a "line L, column C" message; whatever parses must write
 * back to text that parses to the same number of games, and every game must replay into a
 * go_game or fail with a message. The replay is capped because each move keeps a board copy
 * for undo, and a 64 KiB input of passes would otherwise cost hundreds of MiB per execution.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "go/sgf.h"

#define FUZZ_MOVE_LIMIT 2000

/* go_game -> SGF text -> go_game must give the same final position. */
static void check_game_round_trip(const go_game *g)
{
    char err[512];
    go_sgf_collection *e = go_sgf_from_game(g);
    char *text = e ? go_sgf_write(e) : NULL;
    go_sgf_collection *f = text ? go_sgf_parse(text, strlen(text), err, sizeof err) : NULL;
    go_game h;
    if (!f || !go_sgf_to_game(f->games[0], -1, &h, err, sizeof err))
        abort();
    if (h.board.hash != g->board.hash || h.board.to_move != g->board.to_move ||
        h.num_moves != g->num_moves)
        abort();
    go_game_free(&h);
    go_sgf_free(f);
    free(text);
    go_sgf_free(e);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[512] = "";
    go_sgf_collection *c = go_sgf_parse((const char *)data, size, err, sizeof err);
    if (!c) {
        if (!strstr(err, "line ") || !strstr(err, "column "))
            abort();
        return 0;
    }
    char *text = go_sgf_write(c);
    if (!text)
        abort();
    go_sgf_collection *d = go_sgf_parse(text, strlen(text), err, sizeof err);
    if (!d || d->num_games != c->num_games)
        abort();
    char *again = go_sgf_write(d);
    /* Writing is deterministic, so text -> tree -> text is a fixed point. */
    if (!again || strcmp(text, again))
        abort();
    for (int i = 0; i < c->num_games; i++) {
        go_game g;
        err[0] = '\0';
        if (go_sgf_to_game(c->games[i], FUZZ_MOVE_LIMIT, &g, err, sizeof err)) {
            char why[256];
            if (!go_board_check(&g.board, why, sizeof why))
                abort();
            check_game_round_trip(&g);
            go_game_free(&g);
        } else if (!err[0]) {
            abort();
        }
    }
    free(again);
    free(text);
    go_sgf_free(d);
    go_sgf_free(c);
    return 0;
}
