/* tools/match.h -- `shido match`: games between two GTP engines, the instrument for strength and
 * position-control experiments.
 *
 *   shido match --engine1 CMD --engine2 CMD [--games N] [--size N] [--komi K] [--handicap H]
 *               [--rules NAME] [--time-settings M,B,S] [--time-grace S] [--setup1 GTP]...
 *               [--setup2 GTP]...
 *               [--name1 S] [--name2 S] [--sgf-dir DIR] [--jsonl FILE] [--max-moves N]
 *               [--opening SGF[:N]]...
 *               [--seed S] [--parallel P] [--timeout S] [--genmove-timeout S]
 *               [--show-engine-stderr]
 *
 * Each engine is a shell command speaking GTP on stdin/stdout. Game i (from 0) has engine1 as
 * black when i is even. Every game: boardsize, clear_board, komi, kata-set-rules (only for an
 * engine that knows it), time_settings, the --setupN lines ("{seed}" replaced by seed + game
 * index), fixed_handicap, the opening's moves as play commands (--opening: games 2k and 2k+1
 * start from the k-th opening, in turn; the main line of an SGF game or its first N moves,
 * checked at start: the board size, no setup stones, every move legal under the match's rules);
 * then genmove for the side to move and play of the answer on the other engine. With --time-settings shido keeps both clocks (go/time_control.h): time_left goes to the
 * mover before each genmove, and a genmove over the clock by more than --time-grace loses on time
 * (RE B+T / W+T). shido replays every move on its own board: a move illegal there, or refused by
 * the other engine, loses for the mover. Two passes or the move limit end a game, which is then
 * scored by both engines' final_score when they agree on the winner, otherwise by shido (dead
 * stones as both engines' final_status_list agree, else the board as it stands, under --rules or
 * Chinese rules). An engine that exits, answers garbage or misses its deadline loses the game and
 * is restarted for the next; the match stops when an engine exits unanswered three starts in a
 * row. The first command after a start (known_command) gets the genmove deadline, since loading a
 * network can take long. Engines' stderr goes to a temporary file quoted on failure.
 *
 * Names default to the engines' GTP name and version, with " #1" / " #2" when they coincide.
 * Output: one progress line per game as it ends, engine failures on stderr, then wins per engine,
 * engine1's win rate with its 95% Wilson interval (draws count half), wins by colour, losses by
 * kind (forfeit, illegal move, time) and each engine's seconds a move, longest move and late
 * moves. Each SGF
 * has FF GM SZ KM HA/AB PB PW RE DT GN (RU only with --rules, TM/OT with time settings) and a root
 * comment saying how the result came about ("adjudicated by shido: ..." when so).
 *
 * Exit status: 0 when every game was played, 1 when the match could not be run (an engine that
 * cannot start, an unwritable output), 2 for bad options.
 */
#ifndef SHIDO_TOOLS_MATCH_H
#define SHIDO_TOOLS_MATCH_H

#include <stdbool.h>

/* argv[0] is "match". Returns the exit status above. */
int shido_cmd_match(int argc, char **argv);

/* Wilson score interval for `successes` out of n trials (a draw counts half) at normal quantile
 * z (1.959964 for 95%): writes the bounds, in [0, 1], to lo and hi. n = 0 gives [0, 1]. */
void match_wilson_interval(double successes, int n, double z, double *lo, double *hi);

/* Reads a GTP final_score answer ("B+3.5", "W+12", "0", "Draw", "B+R", "W+Resign") as black's
 * lead in points: resignation reads as +-1e9 with the winner's sign. Returns false for text that
 * is none of those. */
bool match_parse_score(const char *text, double *black_lead);

#endif
