/* tools/bench_nn.h -- `shido bench nn`: network evaluations per second, reference against the
 * OpenBLAS CPU path, one thread. */
#ifndef SHIDO_TOOLS_BENCH_NN_H
#define SHIDO_TOOLS_BENCH_NN_H

/* `shido bench nn [--weights FILE]... [--batch 1,8,16] [--seconds S] [--path ref|cpu|both]`;
 * argv[0] is "nn". Prints one line per net, path and batch size; returns the exit status
 * (0, 1 when a net cannot be loaded or evaluated, 2 on bad options). */
int shido_bench_nn(int argc, char **argv);

#endif
