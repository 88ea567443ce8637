/* tools/analysis_cmds.h -- `shido` subcommands of the static-analysis module (BW Graph Model,
 * tactical maps). Each takes the arguments after "shido" (argv[0] is the subcommand's name) and
 * returns the process exit status. */
#ifndef SHIDO_TOOLS_ANALYSIS_CMDS_H
#define SHIDO_TOOLS_ANALYSIS_CMDS_H

/* shido tactical-maps GAME.sgf [--max-depth D] [--tries N] [--threads T]
 *                             [--sampler grow|uniform] [--seed S] [--verbose]
 * Seed 004's experiment: for every position of the game's main line, the least depth of random
 * tactical maps whose intersection isolates the move played (up to the position's symmetries),
 * tabulated next to the paper's numbers.
 *
 * shido tactical-maps characterise FILE.sgf... [--moves all|black|white] [--max-depth D]
 *                             [--tries N] [--top K] [--threads T] [--seed S] [--refine R]
 *                             [--max-overlap F]
 * The maps that best characterise the moves of the games (go/tacmap_mine.h): for each, the score
 * in bits per move, depth, coverage, mean set size, lift, the map and a plain-words reading. */
int shido_cmd_tactical_maps(int argc, char **argv);

#endif
