/* tools/bench_nn.h -- `shido bench nn`: network evaluations per second through nn_eval, on weight
 * files or on synthetic networks of standard shapes, with several worker threads. */
#ifndef SHIDO_TOOLS_BENCH_NN_H
#define SHIDO_TOOLS_BENCH_NN_H

/* `shido bench nn [-w FILE]... [--batch 1,8,16] [--threads T] [--backend NAME[:OPTIONS]]
 * [--seconds S] [--profile NAME] [--only TEXT] [--forward-only] [--eval-threads K]`; argv[0] is
 * "nn". Without -w it builds synthetic networks (Leela Zero 10x128 and 40x256, KataGo b6c96,
 * b18c384nbt and b28c512nbt) in memory; --only keeps those whose name contains TEXT. The backend
 * is any of this build's (cpu, the default here, ref, cuda with options such as cuda:fp32).
 * --profile is the human-SL profile (default rank_1d) for nets with a metadata encoder. T worker
 * threads, each with its own context, evaluate batches concurrently for S seconds after their
 * warm-ups (teach/throughput.h). Prints one line per net and batch size: total evaluations per
 * second (the sum over the workers), the mean time of one batch, and evaluations per CPU second
 * of the workers (what one core gives, less sensitive to other load on a shared machine).
 * Returns the exit status (0, 1 when a net cannot be loaded or evaluated, 2 on bad options). */
int shido_bench_nn(int argc, char **argv);

#endif
