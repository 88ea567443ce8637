/* tools/demo.c -- `shido demo`: a short deterministic game on 9x9, the placeholder for real play
 * until a network exists. Random legal moves that fill no own eye, from a fixed seed, so every
 * run prints the same board and Tromp-Taylor score. */
#include <stdio.h>
#include <string.h>

#include "go/playout.h"
#include "go/score.h"
#include "tools/commands.h"

#define DEMO_SIZE 9
#define DEMO_MOVES 60
#define DEMO_KOMI 7.5

int shido_cmd_demo(int argc, char **argv)
{
    if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        printf("usage: shido demo\nA short game of random moves on 9x9 from a fixed seed: the "
               "board and its Tromp-Taylor score\n");
        return 0;
    }
    if (argc > 1) {
        fprintf(stderr, "shido demo: unexpected argument '%s'\n", argv[1]);
        return 2;
    }
    go_board b;
    go_board_init(&b, DEMO_SIZE);
    uint64_t rng = 0x5348494430444D4Full; /* fixed: the demonstration must not change between runs */
    int moves = 0, passes = 0;
    while (moves < DEMO_MOVES && passes < 2) {
        int p = go_playout_pick(&b, &rng);
        go_board_play(&b, p, b.to_move);
        passes = p == GO_PASS ? passes + 1 : 0;
        moves++;
    }
    char diagram[2048], score[32];
    go_board_to_ascii(&b, diagram, sizeof diagram);
    double lead = go_score_area_tromp_taylor(&b, NULL) - DEMO_KOMI;
    printf("shido demo: %d random moves on %dx%d (no network yet)\n\n%s\n", moves, DEMO_SIZE,
           DEMO_SIZE, diagram);
    printf("captures: black %d, white %d\n", b.captures[GO_BLACK], b.captures[GO_WHITE]);
    printf("Tromp-Taylor score, komi %.1f: %s\n", DEMO_KOMI,
           go_score_to_text(lead, score, sizeof score));
    return 0;
}
