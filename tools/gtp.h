/* tools/gtp.h -- the GTP v2 engine behind `shido gtp`, exposed so that tests and the fuzzer can
 * drive it in-process.
 *
 * One engine holds a game (board, rules, komi, history) and the clock settings a controller sent.
 * Input is processed line by line as GTP 2 section 2 says: control characters other than HT and
 * LF are removed, '#' starts a comment, HT becomes a space, empty lines are ignored. A command may
 * carry a numeric id that the reply repeats ("12 name" -> "=12 shido"). Replies are "=[id] text"
 * or "?[id] reason" followed by an empty line; a multi-line reply never contains an empty line.
 *
 * Commands: the standard GTP 2 set without the move generators (protocol_version, name, version,
 * known_command, list_commands, quit, boardsize, clear_board, komi, play, undo, fixed_handicap,
 * place_free_handicap, set_free_handicap, loadsgf, printsgf, showboard, final_score,
 * time_settings, time_left), kgs-time_settings, and KataGo's kata-get-rules, kata-set-rules,
 * kata-set-rule and set_position.
 *
 * With networks loaded (`shido gtp --weights FILE`, repeatable; the first drives play):
 *
 *   kata-raw-nn SYM|all|average [OPTIMISM] [net=N]
 *     KataGo's raw network output for the side to move, in KataGo's layout with %.9g numbers:
 *     "symmetry S", whiteWin, whiteLoss, noResult, whiteLead, whiteScoreSelfplay,
 *     whiteScoreSelfplaySq, varTimeLeft, shorttermWinlossError, shorttermScoreError (-1 where the
 *     model version lacks them, as KataGo), "policy" and size rows of size values (top row first,
 *     NAN on illegal moves), "policyPass P", "whiteOwnership" and size rows. SYM is 0..7; `all`
 *     prints the 8 symmetries one block after another as KataGo does; `average` (shido) prints
 *     one block, "symmetry average", with every value averaged over the 8. OPTIMISM (0..1,
 *     default 0.2) mixes in the optimistic policy of nets that have one. net=N (shido, 1-based)
 *     picks another loaded network. A Leela Zero net (19x19 only) prints whiteWin (its winrate
 *     turned to white's view), whiteLoss, noResult 0, policy (its raw softmax, NAN on illegal
 *     moves) and policyPass; it has no other heads.
 *   heatmap [SYM|all|average] [net=N]
 *     Leela Zero 0.17's heatmap of the first Leela Zero network loaded (or net N): 19 rows of
 *     int(policy * 1000) as "%3d " (0 on occupied points), "pass: N", "winrate: %f" (side to
 *     move). Leela Zero writes it to stderr and answers "="; shido puts it in the reply.
 *     Default symmetry 0; `all` prints the 8 maps in turn; `average` averages them.
 *
 * list_commands shows kata-raw-nn once any network is loaded and heatmap once a Leela Zero network
 * is; without one both answer "? no network loaded (start with --weights FILE)".
 */
#ifndef SHIDO_TOOLS_GTP_H
#define SHIDO_TOOLS_GTP_H

#include <stdbool.h>
#include <stdio.h>

#include "go/game.h"
#include "nn/desc.h"

/* Longest command line accepted, newline excluded. Longer lines are answered "? line too long"
 * and skipped without being held in memory. */
#define GTP_MAX_LINE (64 * 1024)

/* Most networks one engine holds. */
#define GTP_MAX_NETS 8

typedef enum {
    GTP_TIME_NONE,      /* no time limit */
    GTP_TIME_ABSOLUTE,  /* main time only, sudden death */
    GTP_TIME_CANADIAN,  /* main time, then period_stones moves in each period (GTP's byo yomi) */
    GTP_TIME_BYOYOMI,   /* main time, then `periods` Japanese byo-yomi periods (KGS) */
} gtp_time_system;

/* The clock as the controller described it (time_settings or kgs-time_settings). */
typedef struct gtp_time_control {
    gtp_time_system system;
    double main_time_s;
    double period_time_s;
    int period_stones;  /* Canadian: moves per period */
    int periods;        /* Japanese byo-yomi: number of periods */
} gtp_time_control;

/* What time_left last reported for one colour: seconds left in the current main time or period
 * and, in overtime, the stones (Canadian) or periods (byo-yomi) left; 0 stones means main time. */
typedef struct gtp_clock {
    bool known;
    double time_left_s;
    int stones_left;
} gtp_clock;

typedef struct gtp_engine {
    go_game game;
    gtp_time_control time;
    gtp_clock clock[3];   /* indexed by GO_BLACK / GO_WHITE */
    bool allow_files;     /* loadsgf / printsgf FILE may touch the file system (not when fuzzing) */
    int num_nets;
    nn_desc *nets[GTP_MAX_NETS];  /* owned; nets[0] drives play */
} gtp_engine;

/* Sets up an engine on an empty 19x19 board, tromp-taylor rules, komi 7.5, no time limit, file
 * access allowed. Returns false when out of memory (nothing to free then). */
bool gtp_engine_init(gtp_engine *e);

/* Releases what the engine holds, networks included. */
void gtp_engine_free(gtp_engine *e);

/* Loads a network file of any supported format (weights_load) and appends it to e->nets.
 * Returns false with a message naming the file in err (nothing added) when it cannot be loaded
 * or GTP_MAX_NETS are already held. */
bool gtp_engine_load_network(gtp_engine *e, const char *path, char *err, int err_len);

/* Applies `shido gtp` options (argv[0] is "gtp"): --weights FILE / -w FILE, repeatable, loaded
 * in order. Returns 0 on success, 1 when a network fails to load, 2 on a usage error (unknown
 * option, missing file name); err then holds the message. */
int gtp_engine_configure(gtp_engine *e, int argc, char **argv, char *err, int err_len);

/* Processes one command line (a trailing newline is allowed) and writes the reply, if any, to
 * out, flushing it. Returns false once the command was `quit`, true otherwise. */
bool gtp_engine_handle_line(gtp_engine *e, const char *line, FILE *out);

/* Reads commands from in until `quit` or end of input, answering on out; lines longer than
 * GTP_MAX_LINE are refused without buffering them. Returns 0, or 1 when out could not be written
 * (the controller went away). */
int gtp_engine_run(gtp_engine *e, FILE *in, FILE *out);

#endif
