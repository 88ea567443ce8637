/* teach/tsumego_gen.h -- tsumego generators whose every problem is proven strict by the solver
 * (go/tsumego.h): the retrograde method of seed 003 and the concept method of seed 002.
 *
 * Strict (teach_tsgen_verify): the side to play reaches its goal outright (no ko), proven within
 * the limits; exactly one first move does (the solver's uniqueness verdict, every other first move
 * proven to fail); the move is needed (the opponent moving first is proven to stop it, outright
 * or by a ko); and the main line is unique: at each of the mover's next line_checks turns on
 * the solver's main line, the line's move is again the only one that works (a turn where the
 * position is settled -- the defender captured or pass-alive -- ends the check). Before the solver,
 * static analysis (go/eyes.h) prunes positions settled whoever moves first: a weak defender group,
 * one chain, with two closed regions free of attacker stones (Euler's count), or one fully enclosed region
 * whose static status (seed 003's tables) is the same with either side to move.
 *
 * Retrograde method (seed 003, section 5): from a solved problem, go forward along the solver's
 * main line to each position where the mover is to play again (stepping back from the line's end
 * to its first move), and from each of those positions remove stones of three kinds: a forced
 * exchange (a move of the line with its reply, or a peeping stone with the stone that connects
 * against it), a connected stone (one whose chain stays connected without it) and a connecting
 * stone (one whose chain falls apart without it, or a lone stone linking two chains diagonally).
 * Every candidate is verified; strict ones are kept and have stones removed in turn, up to
 * max_removals removal steps from a line position.
 *
 * Concept method (seed 002, section 4 of algorithms.md): from a seed position showing a tesuji,
 * grow a tree: a node's children add one stone on an empty point next to a stone, inside the
 * window (the seed's solver region by default -- where the problem is fought; widened by margin
 * - 1 steps on request, which lets stones reach the attacker's wall -- or the
 * box of the seed's stones widened by `margin` lines, the paper's choice, which mostly adds stones
 * around the attacker's wall and turns the problem into an open fight that no limit proves):
 * black where the node's Bouzy map is negative, white where it is
 * positive, both where it is 0; the children kept are those whose Bouzy difference to the node is
 * at least keep_fraction of the largest among its children; breadth first until max_nodes nodes.
 * The nodes (the seed excluded) are ranked by a score -- the tsumego-likeness discriminator when
 * one is plugged in, else the Bouzy difference to the parent -- and the best verify_top are
 * verified: strict, and the first move is the seed's tesuji.
 *
 * Everything is deterministic: the same input gives the same problems in the same order.
 */
#ifndef SHIDO_TEACH_TSUMEGO_GEN_H
#define SHIDO_TEACH_TSUMEGO_GEN_H

#include <stdbool.h>
#include <stdint.h>

#include "go/board.h"
#include "go/bouzy.h"
#include "go/tsumego.h"

/* Limits of one verification. Zero values mean the defaults in brackets. */
typedef struct teach_tsgen_limits {
    uint64_t max_nodes;  /* solver positions per solve [300000] */
    double time_s;       /* seconds per solve [3] */
    int tt_log2;         /* solver table [18, 4 MB] */
    int line_checks;     /* mover turns after the first checked for a unique move [1]; -1: none */
    bool no_static_prune;/* skip the static pruning */
} teach_tsgen_limits;

typedef enum {
    TEACH_TSGEN_STRICT = 0,
    TEACH_TSGEN_REFUSED,         /* the solver's set-up refused it (no corner or side problem,
                                    settled, region too large) */
    TEACH_TSGEN_PRUNED,          /* static analysis: settled whoever moves first */
    TEACH_TSGEN_UNPROVEN,        /* limits reached */
    TEACH_TSGEN_FAILS,           /* the goal cannot be reached */
    TEACH_TSGEN_KO,              /* only by a ko */
    TEACH_TSGEN_NOT_UNIQUE,      /* two or more first moves reach it */
    TEACH_TSGEN_NO_MOVE_NEEDED,  /* the opponent moving first cannot stop it (or that is not
                                    proven): playing elsewhere works too */
    TEACH_TSGEN_LINE_NOT_UNIQUE, /* a later move of the main line is not unique */
    TEACH_TSGEN_WRONG_TESUJI,    /* concept method: the first move is not the seed's tesuji */
    TEACH_TSGEN_DUPLICATE,       /* the same as an earlier candidate up to symmetry and colours */
    TEACH_TSGEN_VERDICTS
} teach_tsgen_verdict;

/* "strict", "refused", ... */
const char *teach_tsgen_verdict_name(teach_tsgen_verdict v);

#define TEACH_TSGEN_MAX_LINE 40

/* A strict problem. Owns sgf (teach_tsgen_problem_free). */
typedef struct teach_tsgen_problem {
    go_board board;            /* the position (its to_move is to_play) */
    go_color to_play;
    go_tsumego_goal goal;      /* KILL or LIVE for to_play */
    int answer;                /* the unique first move */
    int line[TEACH_TSGEN_MAX_LINE]; /* the main line, answer first, alternating colours */
    int line_len;
    uint64_t nodes;            /* solver positions of the proof (the first solve) */
    uint64_t total_nodes;      /* every solve of the verification, the line check included */
    int depth;                 /* the mover's moves on the main line */
    int difficulty;            /* 1 (easy) .. 9, see teach_tsgen_difficulty */
    uint64_t key;              /* teach_tsgen_key */
    char *sgf;                 /* the solution tree: root comment "Black to kill", every first
                                  move's branch marked C[Correct]/C[Wrong] with GB/GW */
} teach_tsgen_problem;

void teach_tsgen_problem_free(teach_tsgen_problem *p);

/* Whether b (to_play to move, goal for to_play; AUTO: inferred) is a strict problem within lim
 * (NULL: the defaults). On STRICT fills out (sgf allocated; its root comment gets `note` after
 * the goal when not NULL); otherwise out->sgf is NULL and out holds what was found. */
teach_tsgen_verdict teach_tsgen_verify(const go_board *b, go_color to_play, go_tsumego_goal goal,
                                       const teach_tsgen_limits *lim, const char *note,
                                       teach_tsgen_problem *out);

/* The static pruning above: true when a weak group of the defender is settled whoever moves. */
bool teach_tsgen_static_settled(const go_board *b, go_color defender);

/* A key equal for positions that are the same up to the board's eight symmetries and a swap of
 * the colours (to_play swapped with them). */
uint64_t teach_tsgen_key(const go_board *b, go_color to_play);

/* The difficulty estimate, 1..9: the decimal digits of the proof's node count (rounded) plus
 * half the mover's moves on the main line, less 2 (a one-move problem proven in a few hundred
 * nodes is 1, three moves and 5,000 nodes 4, six moves and 100,000 nodes 6). */
int teach_tsgen_difficulty(uint64_t nodes, int depth);

/* The policy network's rank of the answer (1: its favourite), one part of the difficulty
 * estimate: the policy of network `net` of e (averaged over the eight symmetries) on the framed
 * board with teach_tsumego_komi, among the empty points of the problem's region. False with a
 * message in err when the position cannot be set up or the network cannot evaluate it. */
struct teach_engine;
bool teach_tsgen_policy_rank(struct teach_engine *e, int net, const teach_tsgen_problem *p,
                             int *rank, char *err, int err_len);

/* ---- the retrograde method ---------------------------------------------------------------- */

typedef enum {
    TEACH_RETRO_LINE = 0,     /* a position of the main line itself, nothing removed */
    TEACH_RETRO_FORCED,       /* a forced exchange removed (two stones) */
    TEACH_RETRO_CONNECTED,    /* a connected stone removed */
    TEACH_RETRO_CONNECTING,   /* a connecting stone removed */
    TEACH_RETRO_RULES
} teach_retro_rule;

const char *teach_retro_rule_name(teach_retro_rule r);

#define TEACH_RETRO_MAX_REMOVALS 256

/* One removal: the stones taken off (one or two) and the rule. */
typedef struct teach_retro_removal {
    teach_retro_rule rule;
    int n;
    int points[2];
} teach_retro_removal;

/* The removals the rules allow on b. played[] lists moves of the main line already on the board
 * as (move, reply) pairs, num_played pairs (the forced exchanges of the line; may be 0). Writes up
 * to max removals (each stone set once, in board order: forced, then connected, then connecting)
 * and returns how many. */
int teach_retro_removals(const go_board *b, const int (*played)[2], int num_played,
                         teach_retro_removal *out, int max);

/* b without the stones of r (chains rebuilt, to_move kept). */
void teach_retro_apply(const go_board *b, const teach_retro_removal *r, go_board *out);

typedef struct teach_retro_params {
    int max_removals;    /* removal steps from a line position [2] */
    int max_candidates;  /* candidates verified per source problem [400] */
    bool include_source; /* emit the source problem itself when strict [false] */
    teach_tsgen_limits limits;
} teach_retro_params;

/* Counts of what one generation verified. */
typedef struct teach_tsgen_stats {
    int candidates;                        /* positions verified (duplicates not counted) */
    int verdicts[TEACH_TSGEN_VERDICTS];
    int by_rule[TEACH_RETRO_RULES];        /* strict problems by the rule of the last step */
    uint64_t nodes;                        /* solver positions in all */
} teach_tsgen_stats;

/* Receives each strict problem (ownership of p->sgf passes to the callee). Returns false to stop. */
typedef bool (*teach_tsgen_emit_fn)(void *ctx, teach_tsgen_problem *p, const char *how);

/* Runs the retrograde method on one source position (to_play to move, goal as given or AUTO),
 * calling emit for each distinct strict problem found (source excluded unless include_source;
 * `how` says which line position and rules made it, "line 2 + connected B3"). Fills stats.
 * Returns false when the source itself has no proven outright solution (stats say why). */
bool teach_retro_generate(const go_board *source, go_color to_play, go_tsumego_goal goal,
                          const teach_retro_params *params, teach_tsgen_emit_fn emit, void *ctx,
                          teach_tsgen_stats *stats);

/* ---- the concept method ------------------------------------------------------------------- */

/* Scores n positions (to_play[i] to move in boards[i]): higher is more tsumego-like. Writes
 * out[0..n-1]; returns false on failure (the generator then uses the fallback). The
 * discriminator of seed 002 plugs in here; it may cut its own window around the stones. */
typedef bool (*teach_tsgen_score_fn)(void *ctx, const go_board *const *boards,
                                     const go_color *to_play, int n, float *out);

typedef enum {
    TEACH_CONCEPT_WINDOW_REGION = 0, /* the seed's solver region (go_tsumego_problem.region)
                                        widened by margin - 1 steps */
    TEACH_CONCEPT_WINDOW_BOX,        /* the seed's stones' box widened by margin */
} teach_concept_window;

typedef struct teach_concept_params {
    go_bouzy_params bouzy;   /* [GO_BOUZY_CONCEPT: 5 dilations, 0 erosions, 128] */
    double keep_fraction;    /* children kept: difference >= this x the largest [0.8] */
    int max_nodes;           /* tree size, the seed included [200] */
    teach_concept_window window; /* where stones are added [REGION] */
    int margin;              /* lines around the seed's stones (BOX) [2] or region (REGION) [1] */
    int verify_top;          /* best-ranked nodes verified [0: all] */
    teach_tsgen_score_fn score; /* NULL: teach_concept_score_bouzy */
    void *score_ctx;
    teach_tsgen_limits limits;
} teach_concept_params;

/* A node of the position tree. */
typedef struct teach_concept_node {
    go_board board;
    int parent;              /* index of the parent, -1 for the seed */
    int depth;
    int added;               /* the point of the stone added to the parent */
    go_color added_color;
    long bouzy_diff;         /* Bouzy difference to the parent */
    float score;             /* the ranking score */
} teach_concept_node;

/* Grows the tree from seed (params as above; NULL: defaults), stones added only where
 * allowed[point] is non-zero (NULL: the WINDOW_BOX window): writes up to max nodes (the seed
 * first) and returns how many. Scores are left 0. */
int teach_concept_tree(const go_board *seed, const teach_concept_params *params,
                       const uint8_t *allowed, teach_concept_node *out, int max);

/* The static fallback ranking: the node's Bouzy difference to its parent (the paper's criterion
 * for keeping children), for nodes[0..n-1] into out. */
void teach_concept_score_bouzy(const teach_concept_node *nodes, int n, float *out);

/* Grows the tree from seed, ranks it, and verifies the best verify_top nodes (to_play to move,
 * goal for to_play; the first move must be tesuji), calling emit for each distinct strict one,
 * best-ranked first. Fills stats (by_rule unused). False when out of memory. */
bool teach_concept_generate(const go_board *seed, go_color to_play, go_tsumego_goal goal,
                            int tesuji, const teach_concept_params *params,
                            teach_tsgen_emit_fn emit, void *ctx, teach_tsgen_stats *stats);

#endif
