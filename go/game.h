/* go/game.h -- a game: a board plus rules, komi, handicap, move history, superko and undo.
 *
 * The history keeps a copy of the board before every move (a go_board is plain data), so undo is
 * exact and cheap to reason about. Superko compares the stone hashes of every earlier position
 * (positional) or the hash with the side to move (situational).
 */
#ifndef SHIDO_GO_GAME_H
#define SHIDO_GO_GAME_H

#include <stdbool.h>
#include <stddef.h>

#include "go/board.h"
#include "go/rules.h"

typedef struct go_move {
    go_color color;
    int point;        /* GO_PASS or an on-board point */
} go_move;

typedef struct go_game {
    go_board board;
    go_rules rules;
    float komi;
    int handicap;           /* handicap stones placed before the first move */
    go_board setup;         /* the position before the first move (setup and handicap stones) */
    int num_moves;
    int cap_moves;
    go_move *moves;         /* num_moves moves since setup */
    go_board *before;       /* before[i] = board before moves[i] */
    uint64_t *hashes;       /* stone hash of every position from setup on (num_moves + 1) */
    int consecutive_passes;
} go_game;

typedef enum {
    GO_MOVE_OK = 0,
    GO_MOVE_OCCUPIED,
    GO_MOVE_OFF_BOARD,
    GO_MOVE_SUICIDE,
    GO_MOVE_KO,
    GO_MOVE_SUPERKO,
} go_move_status;

/* Human-readable reason for a status ("illegal move: ko"). */
const char *go_move_status_text(go_move_status s);

/* Starts an empty game. Returns false on an absurd size or out of memory (g then holds nothing to
 * free). The default rules are tromp-taylor and komi 7.5. go_game_free releases the history. */
bool go_game_init(go_game *g, int size, const go_rules *rules, float komi);
/* The same on a width x height board (go_board_init_rect). */
bool go_game_init_rect(go_game *g, int width, int height, const go_rules *rules, float komi);
void go_game_free(go_game *g);

/* A deep copy of src (history included) into dst, which holds nothing before. Returns false when
 * out of memory (dst then holds nothing to free). */
bool go_game_copy(go_game *dst, const go_game *src);

/* Clears the board and history, keeping size, rules and komi. */
void go_game_clear(go_game *g);

/* Whether colour c may play p now (occupied, suicide, simple ko and superko per the rules).
 * Passing is always legal. */
go_move_status go_game_legal(const go_game *g, int p, go_color c);

/* Whether c playing p (legal by the game's rules) makes a whole-board position that the game has
 * had before with the same side to move: a cycle that simple ko allows (sending two, returning
 * one). False for a pass and for an illegal move. */
bool go_game_repeats(const go_game *g, int p, go_color c);

/* Plays c at p if legal; colour need not alternate. Returns the status (nothing changes unless OK).
 */
go_move_status go_game_play(go_game *g, int p, go_color c);

/* Takes back the last move. Returns false when there is none. */
bool go_game_undo(go_game *g);

/* Setup stones before the first move (SGF AB/AW, set_free_handicap). Only allowed while no move
 * has been played; returns false otherwise or if p is occupied or off the board. */
bool go_game_setup_stone(go_game *g, int p, go_color c);

/* Sets who is to move (SGF PL, KataGo's initialPlayer). */
void go_game_set_to_move(go_game *g, go_color c);

/* The GTP fixed handicap points for n stones on this board (n = 2..9 where the size allows; 2..4
 * on even sizes below 8 is refused, as GTP says). Writes them into pts and returns n, or 0 when
 * n is not valid for the size. */
int go_fixed_handicap_points(int size, int n, int *pts);

/* Places n fixed handicap stones (GTP fixed_handicap) and sets white to move. Returns the count
 * placed, 0 on refusal (board not empty or invalid n). */
int go_game_fixed_handicap(go_game *g, int n, int *pts);

/* The colour that made the previous move, or GO_EMPTY at the start. */
go_color go_game_last_color(const go_game *g);

#endif
