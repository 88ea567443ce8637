/* tools/gtp.h -- the GTP v2 engine behind `shido gtp`, exposed so that tests and the fuzzer can
 * drive it in-process.
 *
 * One engine holds a game (board, rules, komi, history) and the clock settings a controller sent.
 * Input is processed line by line as GTP 2 section 2 says: control characters other than HT and
 * LF are removed, '#' starts a comment, HT becomes a space, empty lines are ignored. A command may
 * carry a numeric id that the reply repeats ("12 name" -> "=12 shido"). Replies are "=[id] text"
 * or "?[id] reason" followed by an empty line; a multi-line reply never contains an empty line.
 *
 * Commands: the standard GTP 2 set (protocol_version, name, version, known_command,
 * list_commands, quit, boardsize, clear_board, komi, play, undo, fixed_handicap,
 * place_free_handicap, set_free_handicap, loadsgf, printsgf, showboard, final_score,
 * final_status_list, time_settings, time_left), kgs-time_settings, kgs-rules, and KataGo's
 * kata-get-rules, kata-set-rules, kata-set-rule, set_position, get_komi, kata-time_settings and
 * kata-list_time_settings (no Fischer clock). version answers "0.17 (Leela Zero GTP level; shido
 * X.Y.Z)" (Lizzie checks the first word as a Leela Zero version); komi takes multiples of 0.5
 * within [-150, 150] (go_komi_check, as JSON analysis); printsgf - answers the record;
 * set_free_handicap takes one stone or more. Without a network, final_score is Tromp-Taylor
 * and final_status_list counts every stone alive.
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
 *     picks another loaded network. The numbers come from the backend the networks run on
 *     (`--backend ref` for the plain-loop reference in double precision). A Leela Zero net
 *     (19x19 only) prints whiteWin (its winrate
 *     turned to white's view), whiteLoss, noResult 0, policy (its raw softmax, NAN on illegal
 *     moves) and policyPass; it has no other heads.
 *   heatmap [SYM|all|average] [net=N]
 *     Leela Zero 0.17's heatmap of the first Leela Zero network loaded (or net N): 19 rows of
 *     int(policy * 1000) as "%3d " (0 on occupied points), "pass: N", "winrate: %f" (side to
 *     move). Leela Zero writes it to stderr and answers "="; shido puts it in the reply.
 *     Default symmetry 0; `all` prints the 8 maps in turn; `average` averages them.
 *
 * Search commands (gtp_search.c, gtp_analyze.c), listed only once a network is loaded; the
 * search (teach/player.h) runs on the first network with the backend of --backend (default: the
 * best built):
 *
 *   genmove COLOR
 *     Searches within the limits of the params (max_visits, max_playouts, max_time_ms; 500 visits
 *     when none is set) and the clock (time_settings / kgs-time_settings / time_left: main time
 *     spread over the moves likely left plus half a byo-yomi period; in overtime 90% of the
 *     period over its stones, or 80% of a Japanese period), plays the move chosen by mcts
 *     (pass and resign policies are mcts's) and answers the vertex, "pass" or "resign".
 *   lz-analyze [COLOR] [INTERVAL] [interval N] [minmoves N] [maxmoves N]
 *              [avoid|allow COLOR V1,V2,.. UNTIL_DEPTH]...
 *     Answers "=" at once, then every INTERVAL centiseconds one line of all candidates
 *     "info move V visits N winrate W prior P lcb L order K pv V V ..." (winrate, prior, lcb as
 *     integers x10000 from the side to move's view, lcb clamped to 0..10000, pv last), until any
 *     new input line arrives; then an empty line ends the stream and the new line is processed
 *     as the next command. minmoves is accepted and has no effect (only visited moves exist).
 *   kata-analyze [COLOR] [INTERVAL] [keys as lz-analyze] [ownership B] [ownershipStdev B]
 *                [movesOwnership B] [pvVisits B] [pvEdgeVisits B] [rootInfo B]
 *                [noResultValue B]
 *   analyze / genmove_analyze: KataGo's names for Sabaki, the same as the kata- commands
 *     The same stream with KataGo's floats: "info move V visits N edgeVisits N utility U
 *     winrate W scoreMean S scoreStdev S scoreLead S scoreSelfplay S prior P lcb L utilityLcb U
 *     weight W order K pv V ..." then per move "pvVisits N..", "pvEdgeVisits N..",
 *     "movesOwnership F.." when asked; after all moves "rootInfo visits N utility U winrate W
 *     scoreMean S scoreStdev S scoreLead S scoreSelfplay S weight W currentPlayer B|W",
 *     "ownership" (size^2 values, top row first, side to move's view) and "ownershipStdev" (the
 *     visit-weighted spread of the root moves' ownership). All values from the side to move's
 *     view; scoreMean is the score lead, as in KataGo, and scoreSelfplay the self-play mean.
 *     Unknown keys or values answer "? ..." before any stream starts. noResultValue true adds
 *     "noResultValue F" to every move and to rootInfo (the search's mean no-result probability).
 *     A visit or playout limit of the params (--visits, maxVisits) ends the search there (its
 *     last line printed); the stream then stays open until the next line, as KataGo's.
 *     moveFeatures true (shido) adds seed 000's features to each move, before its pv
 *     (teach/features.h): "remiDist D remiDist2 D" (Rémi distance to the last move and to the
 *     one before, -1 when none), "density F" (stones within Rémi distance 8), "scoreLoss F"
 *     (the first move's scoreLead less this move's), "humanPrior F" (the second network's
 *     policy, else the first's, averaged over the symmetries), and with an ownership head
 *     "strengthenOwn F weakenOpp F" (eqs. 2 and 3: the move's subtree ownership against the
 *     pass move's when the search visited it, else one network evaluation after a pass). The
 *     policies and the pass are evaluated once, before the stream starts.
 *   lz-genmove_analyze / kata-genmove_analyze [COLOR] [INTERVAL] [keys]
 *     As genmove, with the analysis lines while it searches (new input does not stop it), a
 *     last analysis line, then "play VERTEX" and the empty line.
 *   stop, clear_cache (drops the tree and the network cache)
 *   kata-list-params, kata-get-param NAME, kata-set-param NAME VALUE
 *     mcts_params by name (mcts_param_list; KataGo's camelCase names too, maxTime in seconds),
 *     the move choice's, and analysisWideRootNoise (the analysis commands' wide_root_noise).
 *   kata-get-params, kata-set-params {"NAME": VALUE, ...}
 *     All of them as one JSON object; several set at once, none when any is refused.
 *   kata-get-models
 *     The networks as a JSON array (query_models' entries, tools/analysis_json.h).
 *   lz-setoption name NAME value V
 *     Leela Zero's options: Visits, Playouts, Threads, Batch Size, Resign Percentage,
 *     Maximum Memory Use (MiB), Time (seconds); Pondering and Lagbuffer accepted and ignored;
 *     others answer "? unknown option".
 *   final_score, final_status_list alive|dead|seki (KataGo nets)
 *     Dead stones: those in the other colour's Benson pass-alive area, and outside pass-alive
 *     areas those the net's ownership (8 symmetries) gives to the other colour (< -0.4); seki:
 *     other stones outside pass-alive areas with |ownership| < 0.25. final_score scores with
 *     go_score_final under the game's rules; final_status_list prints one chain per line.
 *
 * A running analysis ends when a new line or the end of input arrives (gtp_engine_run's reader
 * looks without blocking while it runs); move generation runs to its limits. The end of input
 * ends gtp_engine_run.
 *
 * list_commands shows kata-raw-nn once any network is loaded and heatmap once a Leela Zero network
 * is; without one both answer "? no network loaded (start with --weights FILE)". The search
 * commands are not listed (known_command false) until a network is loaded, and answer
 * "? NAME needs a network (start shido gtp with -w FILE)".
 *
 * GUIs: Sabaki finds analyze and LizGoban kata-analyze in list_commands (engine command
 * `shido gtp -w NET.bin.gz`; with --visits N analysis stops at N visits). Lizzie switches to kata-analyze only for engines whose
 * name starts with "KataGo"; with shido it runs lz-analyze (winrates, visits, pv) unless its
 * engine command is a wrapper that renames the engine.
 */
#ifndef SHIDO_TOOLS_GTP_H
#define SHIDO_TOOLS_GTP_H

#include <stdbool.h>
#include <stdio.h>

#include "go/game.h"
#include "teach/engine.h"
#include "teach/play.h"
#include "teach/player.h"
#include "teach/timing.h"
#include "teach/tsumego.h"
#include "tools/line_reader.h"

/* Longest command line accepted, newline excluded. Longer lines are answered "? line too long"
 * and skipped without being held in memory. */
#define GTP_MAX_LINE LINE_READER_MAX

/* The most visits a pondered tree holds by default (`--ponder` without a number). */
#define GTP_PONDER_VISITS 1000000

typedef struct gtp_engine {
    go_game game;
    /* The clock time_settings / kgs-time_settings / kata-time_settings described, time_left's
     * reports and the measured delays: the budget of every genmove. */
    teach_timekeeper time;
    double command_s;     /* go_now_s() when the command being handled arrived */
    int moved_color;      /* a genmove answered by the command being handled: its colour, */
    double moved_stop_s;  /* and when its search was asked to stop (after command_s; -1: none) */
    /* Pondering (`--ponder[=V]`): after a genmove's answer the search goes on with the
     * opponent to move until the next line arrives (at most ponder_visits visits in the tree),
     * and the next genmove starts from the subtree of the move played. */
    int64_t ponder_visits;    /* 0: no pondering */
    bool ponder_due;          /* the last command was a genmove that may be pondered on */
    bool allow_files;     /* loadsgf / printsgf FILE may touch the file system (not when fuzzing) */
    /* The networks (the first drives play) and the search tunables every search starts from. */
    teach_engine *engine;
    /* The players, made on first use: the search on the first network, the teaching player on
     * top of it (teach/play.h: genmove's choice under play_policy when it is not "best"), and
     * with tsumego_s > 0 (`--tsumego[=S]`) the tsumego solver in front of them, S seconds a
     * move. */
    teach_player *search;
    teach_player *play_player;   /* the search with the move choice of play_policy on top */
    teach_player *tsumego_player;
    teach_player *tsumego_fallback;   /* the player behind tsumego_player */
    double tsumego_s;
    double tsumego_max_s;  /* caps every solve, tsumego_solve's SECONDS too (0: no cap; the
                              fuzz target keeps it short) */
    uint64_t tsumego_nodes;  /* `--tsumego-nodes`: caps each solver phase (0: no cap) */
    teach_tsumego *tsumego;  /* the solver (guided by the first network when there is one) */
    teach_engine *guess_engine;  /* --guess-weights: the solver's search for the guess runs on
                                    its network (NULL: on the guide's) */
    line_reader *input;    /* set by gtp_engine_run: lets a running analysis see new input */
    double analysis_wide_root_noise;   /* KataGo's analysisWideRootNoise: the search's
                                          wide_root_noise while analysing (not in genmove) */
    bool replied;          /* a streaming command wrote its own answer */
} gtp_engine;

/* Sets up an engine on an empty 19x19 board, tromp-taylor rules, komi 7.5, no time limit, file
 * access allowed, no network, the default tunables. Returns false when out of memory (nothing to
 * free then). */
bool gtp_engine_init(gtp_engine *e);

/* Releases what the engine holds, networks included. */
void gtp_engine_free(gtp_engine *e);

/* Applies `shido gtp` options (argv[0] is "gtp"): the shared ones of teach/engine.h (-w FILE,
 * repeatable, loaded in order; --backend; --threads, --visits, --config, --set, applied in
 * order), --tsumego[=S] and --guess-weights NET (teach_tsumego_guess_engine_new). The networks
 * are loaded once every option is read, replacing the engine's. Returns 0 on success, 1 when a
 * network fails to load, 2 on a usage error (unknown option, missing or bad value); err then
 * holds the message. */
int gtp_engine_configure(gtp_engine *e, int argc, char **argv, char *err, int err_len);

/* Processes one command line (a trailing newline is allowed) and writes the reply, if any, to
 * out, flushing it. Returns false once the command was `quit`, true otherwise. */
bool gtp_engine_handle_line(gtp_engine *e, const char *line, FILE *out);

/* Reads commands from in until `quit` or end of input, answering on out; lines longer than
 * GTP_MAX_LINE are refused without buffering them. Returns 0, or 1 when out could not be written
 * (the controller went away). */
int gtp_engine_run(gtp_engine *e, FILE *in, FILE *out);

#endif
