/* tools/commands.h -- entry points of the `shido` subcommands. Each takes the arguments after
 * "shido" (argv[0] is the subcommand's name) and returns the process exit status. */
#ifndef SHIDO_TOOLS_COMMANDS_H
#define SHIDO_TOOLS_COMMANDS_H

#define SHIDO_VERSION_STRING "0.1.0"

int shido_cmd_gtp(int argc, char **argv);
int shido_cmd_demo(int argc, char **argv);
int shido_cmd_bench(int argc, char **argv);
int shido_cmd_match(int argc, char **argv);
int shido_cmd_analysis(int argc, char **argv);  /* tools/analysis_json.h */
int shido_cmd_teach_stats(int argc, char **argv);  /* tools/teach_stats.c */
int shido_cmd_features(int argc, char **argv);
int shido_cmd_fuseki_quiz(int argc, char **argv);
int shido_cmd_review(int argc, char **argv);
int shido_cmd_train_disc(int argc, char **argv);  /* tools/train_disc_cmd.c */
int shido_bench_train(int argc, char **argv);     /* tools/bench_train.c: `bench train` */
/* tools/bench_analysis.c: `bench analysis --sgf FILE [--games N] [--turns T] [--visits V] --
 * COMMAND...`: positions per second of a JSON analysis engine (any command line) reviewing the
 * first T turns of N games, one analyzeTurns query per game, after a warm-up query */
int shido_bench_analysis(int argc, char **argv);

#endif
