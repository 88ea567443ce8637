/* tools/main.c -- the `shido` command line: dispatches subcommands. */
#include <stdio.h>
#include <string.h>

#include "tools/analysis_cmds.h"
#include "tools/commands.h"
#include "tools/tsumego_cmd.h"
#include "tools/tsumego_gen_cmd.h"
#ifdef SHIDO_HAVE_CUDA
#include "nn/cuda/cuda_device.h"
#endif

static void usage(FILE *f)
{
    fprintf(f,
            "usage: shido COMMAND [options]\n"
            "\n"
            "commands:\n"
            "  gtp [-w FILE]... [--visits N] [--threads T] [--config FILE] [--set K=V] ...\n"
            "               speak GTP v2 on stdin/stdout (for GUIs: Sabaki, Lizzie, GoGui, ...);\n"
            "               with networks loaded: genmove, lz-/kata-analyze, kata-raw-nn, ...;\n"
            "               --tsumego[=S]: genmove plays the tsumego solver's move on corner and\n"
            "               side problems (S seconds, default 10); tsumego_solve asks it;\n"
            "               --set play_policy=ABC25 (ikeda, two-phase, scoreloss, ...): teaching play\n"
            "  analysis -w NET [--visits N] [--threads T] [--config FILE] ...\n"
            "               KataGo's JSON analysis protocol on stdin/stdout (KaTrain, Ogatak)\n"
            "  demo         a short game of random moves on 9x9 from a fixed seed: the board and\n"
            "               its Tromp-Taylor score\n"
            "  bench board [--size N] [--seconds S]\n"
            "               random playouts on one core (19x19 unless --size): moves per second\n"
            "  bench nn [-w FILE]... [--backend NAME[:OPTIONS]] [--batch 1,8,16] ...\n"
            "               network evaluations per second on weight files or synthetic standard\n"
            "               nets, on any backend of this build (cpu, ref; cuda, cuda:fp32, ...)\n"
            "  match --engine1 CMD --engine2 CMD [--games N] [--size N] ...\n"
            "               play games between two GTP engines: SGF, results, 95%% CI\n"
            "  tsumego solve FILE.sgf [--time S] [--goal kill|live] [-w NET] ...\n"
            "               prove a life-and-death problem (df-pn); -w: network-guided\n"
            "  tsumego bench (--jsonl FILE | --sgf FILE_OR_DIR) [--time-per-problem S] ...\n"
            "               the solver on a problem set: right or wrong, time and nodes\n"
            "  tsumego-gen retro --jsonl FILE... --out DIR [--threads T] [--shard K/N] ...\n"
            "  tsumego-gen concept SEEDS.sgf|DIR... --out DIR [--tree-nodes 200] ...\n"
            "               strict problems (the solver proves each) by seed 003's retrograde\n"
            "               method and seed 002's concept method; merge joins shards\n"
            "  tactical-maps GAME.sgf [--max-depth D] [--tries N] [--threads T] ...\n"
            "               the least BW-graph tactical-map depth isolating each played move\n"
            "  tactical-maps characterise FILE.sgf... [--moves all|black|white] [--top K] ...\n"
            "               short tactical maps that characterise the games' moves\n"
            "  teach-stats --player NAME -w NET [--judge-visits N] GAME.sgf|DIR...\n"
            "               a player's results and how natural its moves were (teaching play)\n"
            "  teach-stats --find-endgames K --out-dir DIR -w NET GAME.sgf|DIR...\n"
            "               the thesis's endgame positions in finished games, as SGF\n"
            "  features GAME.sgf [--move N] [--ref MOVE] [--json] -w NET [-w HUMAN_NET] MOVE...\n"
            "               seed 000's move features: Rémi distances, density, score loss,\n"
            "               priors, contributions to strengthening and weakening stones\n"
            "  fuseki-quiz FILE.sgf... [--moves 10-50] [--answer game|best|MOVE] [--out-dir DIR]\n"
            "               [--jsonl FILE] [--shard K/N] [--threads T] -w NET [-w HUMAN_NET] ...\n"
            "               multiple-choice opening quizzes (seed 000): the answer and three\n"
            "               kinds of wrong answer, explained; `merge` and `stats` for summaries\n"
            "  review GAME.sgf [--out FILE.sgf] [--json FILE] [--visits N] -w NET ...\n"
            "               the game back as SGF with score loss, policy rank, the best move and\n"
            "               its line, the features and explanations; a summary per player\n"
            "  train-discriminator --problems FILE.jsonl... --out NET.dsc [--data FILE] ...\n"
            "               train seed 002's tsumego-likeness CNN in the tree (CPU), with\n"
            "               learning curves as CSV and PNG; --resume, --eval-only\n"
            "  cuda-info    describe the CUDA devices and self-test a kernel, cuBLAS and cuDNN\n"
            "               against the CPU (in builds with -DSHIDO_CUDA=ON)\n"
            "  --help       this text\n"
            "  --version    print the version\n");
}

/* Describes the CUDA devices and runs the device self-test; exit status 1 when no device works. */
static int cuda_info(void)
{
#ifdef SHIDO_HAVE_CUDA
    char buf[4096], err[512];
    bool have = nn_cuda_describe(buf, sizeof buf);
    fputs(buf, stdout);
    if (!have)
        return 1;
    if (!nn_cuda_selftest(err, sizeof err)) {
        fprintf(stderr, "shido cuda-info: self-test failed: %s\n", err);
        return 1;
    }
    printf("self-test passed: axpy kernel, cuBLAS SGEMM, cuDNN 3x3 convolution match the CPU\n");
    return 0;
#else
    fprintf(stderr, "shido cuda-info: this build has no CUDA backend (configure with "
                    "-DSHIDO_CUDA=ON)\n");
    return 1;
#endif
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
        usage(stdout);
        return 0;
    }
    if (!strcmp(cmd, "--version") || !strcmp(cmd, "version")) {
        printf("shido %s\n", SHIDO_VERSION_STRING);
        return 0;
    }
    if (!strcmp(cmd, "gtp"))
        return shido_cmd_gtp(argc - 1, argv + 1);
    if (!strcmp(cmd, "analysis"))
        return shido_cmd_analysis(argc - 1, argv + 1);
    if (!strcmp(cmd, "demo"))
        return shido_cmd_demo(argc - 1, argv + 1);
    if (!strcmp(cmd, "bench"))
        return shido_cmd_bench(argc - 1, argv + 1);
    if (!strcmp(cmd, "match"))
        return shido_cmd_match(argc - 1, argv + 1);
    if (!strcmp(cmd, "tsumego"))
        return shido_cmd_tsumego(argc - 1, argv + 1);
    if (!strcmp(cmd, "tsumego-gen"))
        return shido_cmd_tsumego_gen(argc - 1, argv + 1);
    if (!strcmp(cmd, "tactical-maps"))
        return shido_cmd_tactical_maps(argc - 1, argv + 1);
    if (!strcmp(cmd, "teach-stats"))
        return shido_cmd_teach_stats(argc - 1, argv + 1);
    if (!strcmp(cmd, "features"))
        return shido_cmd_features(argc - 1, argv + 1);
    if (!strcmp(cmd, "fuseki-quiz"))
        return shido_cmd_fuseki_quiz(argc - 1, argv + 1);
    if (!strcmp(cmd, "review"))
        return shido_cmd_review(argc - 1, argv + 1);
    if (!strcmp(cmd, "train-discriminator"))
        return shido_cmd_train_disc(argc - 1, argv + 1);
    if (!strcmp(cmd, "cuda-info")) {
        if (argc > 2 && (!strcmp(argv[2], "--help") || !strcmp(argv[2], "-h"))) {
            printf("usage: shido cuda-info\nDescribes the CUDA devices and self-tests a kernel, "
                   "cuBLAS and cuDNN against the CPU (builds with -DSHIDO_CUDA=ON)\n");
            return 0;
        }
        return cuda_info();
    }
    fprintf(stderr, "shido: unknown command '%s' (try shido --help)\n", cmd);
    return 2;
}
