/* bench/board.c -- random legal moves per second on 19x19 (one core); the same workload as
 * `shido bench board`. Usage: bench_board [--size N] [--seconds S] */
#include <stdlib.h>

#include "tools/commands.h"

int main(int argc, char **argv)
{
    char **args = calloc((size_t)argc + 2, sizeof *args);
    if (!args)
        return 1;
    args[0] = "bench";
    args[1] = "board";
    for (int i = 1; i < argc; i++)
        args[i + 1] = argv[i];
    int rc = shido_cmd_bench(argc + 1, args);
    free(args);
    return rc;
}
