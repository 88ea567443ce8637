/* tools/tsumego_cmd.h -- `shido tsumego ...`: solve one SGF problem, or benchmark the solver on
 * problem collections in JSON Lines. */
#ifndef SHIDO_TOOLS_TSUMEGO_CMD_H
#define SHIDO_TOOLS_TSUMEGO_CMD_H

/* argv[0] is "tsumego"; argv[1] the subcommand ("solve" or "bench"). Returns the exit status:
 * 0 done, 1 the input could not be solved or read, 2 a usage error. */
int shido_cmd_tsumego(int argc, char **argv);

#endif
