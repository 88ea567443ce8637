/* go/tsumego.h -- an exact life-and-death (tsumego) solver: problem set-up, df-pn proof search,
 * every correct first move, a uniqueness verdict and an SGF solution tree.
 *
 * Set-up (go_tsumego_setup): the problem box is the bounding box of the stones, snapped to the
 * board edges it comes within two lines of, widened by a margin on each open side unless that
 * side is lined by the attacker's stones only. The attacker is the colour whose stones stand
 * further from the edges (the side that surrounds); the goal of the side to play follows from it
 * (kill when it attacks, live when it defends) unless the caller states it. Everything outside
 * the box is the "tsumego frame": a wall of attacker stones with eyes, pass-alive, so the
 * outside can neither help the defender nor be captured (defender stones far away balance the
 * area for whole-board evaluators). The defender's target is every defender stone in the box
 * that is not already pass-alive.
 *
 * Inside the box the solver plays only on the region: the defender's reach (its stones and the
 * empty points it can flow into without passing next to an attacker stone, plus the empty
 * pockets this encloses), the attacker chains bordering it and, for weak ones (at most four
 * liberties, not touching the frame), their liberties, so that capturing races are played out;
 * for those in atari also the empty points next to the liberty, since the stone that captures
 * needs liberties of its own there. The rest of the box counts as frame too, so a strong
 * chain's outside liberties make it safe and a loosely enclosed group is confined where a
 * player would see it confined. The flow also stops next to weak attacker chains; when the
 * problem then fails (no first move works) or comes out a ko, go_tsumego_solve looks again with
 * a "wide" region whose flow passes them and, where it stops, takes in the empty points one
 * step beyond: a stone of the attacker's inside the defender's area can otherwise wall off
 * points the defender needs, a stone the defender plays where the flow stopped has liberties
 * beyond it, and the frame favours the attacker.
 *
 * Rules of the local game: the attacker wins by capturing every target stone, or when the
 * defender's eye space is a known dead shape (two points or fewer, the nakade shapes with the
 * attacker to move or on the vital point), has room for one eye at most, or when the target
 * chains are sealed in with the chains they can connect to: no liberty to gain but by
 * capturing, one eye at most, and every attacker chain next to them safe or ahead in the
 * capturing race counted; the defender wins by making a target stone pass-alive (Benson), or
 * when the attacker has no legal move left. Seki is therefore life.
 * Suicide is illegal and a move that repeats a position of the line searched is lost for its
 * player (superko). Either side may pass (play elsewhere), the attacker not after two passes in
 * a row; the attacker's pass right after a defender pass removes the defender's ko threats:
 * when the defender has nothing better to do, the attacker can answer every threat before
 * starting a ko, which is why bent four in the corner is dead (Japanese rules). Since the
 * attacker may wait, a ko the defender can never resolve (its ko stone stays in atari) is one
 * in which the defender needs the extra moves. Ko is handled by a threat model: a side "with ko
 * threats" may retake a ko at once (the threat and its answer are elided), and the status of
 * the side moving first is found by searching with the threats given to one side or the other
 * (see go_tsumego_ko). Results are exact within this model; the model itself (the frame, the
 * targets) is the approximation.
 *
 * Threads: a solve keeps all its state in its own allocations (16 bytes per 2^tt_log2 of the
 * table, which holds three entries per 64 bytes, plus 2 MB, and 3 MB for each thread past the
 * first with go_tsumego_limits.threads), or in the go_tsumego_work it is given; any number of
 * solves may run at once in separate threads, each with its own work.
 */
#ifndef SHIDO_GO_TSUMEGO_H
#define SHIDO_GO_TSUMEGO_H

#include <stdbool.h>
#include <stdint.h>

#include "go/board.h"

typedef enum {
    GO_TSUMEGO_GOAL_AUTO = 0, /* infer from the position (see above) */
    GO_TSUMEGO_GOAL_KILL,     /* the side to play attacks */
    GO_TSUMEGO_GOAL_LIVE,     /* the side to play defends */
} go_tsumego_goal;

typedef enum {
    GO_TSUMEGO_UNKNOWN = 0, /* limits reached before a proof */
    GO_TSUMEGO_SUCCESS,     /* the mover reaches its goal whatever the ko threats */
    GO_TSUMEGO_KO,          /* the mover reaches its goal only by winning a ko */
    GO_TSUMEGO_FAILURE,     /* the mover fails even if it wins every ko */
} go_tsumego_result;

typedef enum {
    GO_TSUMEGO_KO_NONE = 0,
    GO_TSUMEGO_KO_DIRECT,   /* a direct ko: whoever wins the ko fight gets the result */
    GO_TSUMEGO_KO_APPROACH, /* an approach (or multi-step) ko: one side needs extra moves */
} go_tsumego_ko;

/* The status of one side moving first. For a ko, favourable says who must find ko threats first:
 * true when the opponent must (the mover takes the ko first, or the opponent must also approach),
 * false when the mover must (the opponent takes first, or the mover must approach). */
typedef struct go_tsumego_status {
    go_tsumego_result result;
    go_tsumego_ko ko;
    bool favourable;
} go_tsumego_status;

typedef enum {
    GO_TSUMEGO_UNIQUE_UNKNOWN = 0, /* some first move could not be settled within the limits */
    GO_TSUMEGO_UNIQUE,             /* exactly one first move reaches the best result */
    GO_TSUMEGO_NOT_UNIQUE,         /* two or more first moves reach it */
    GO_TSUMEGO_NO_SOLUTION,        /* no first move reaches the goal (status FAILURE) */
} go_tsumego_uniqueness;

#define GO_TSUMEGO_MAX_REGION 255 /* region points the solver handles */

/* A problem ready to solve. Plain data; the caller owns it (no heap inside). */
typedef struct go_tsumego_problem {
    go_board board;       /* the position as given */
    go_board framed;      /* the same with the frame filled in (for display and other engines) */
    go_color to_play;
    go_color attacker;
    go_color defender;
    go_tsumego_goal goal; /* KILL or LIVE for to_play, after inference */
    bool goal_inferred;   /* the goal was guessed, so go_tsumego_solve may try the other one */
    bool wide;            /* the region flows past weak attacker chains and one step beyond
                             where it stops (go_tsumego_solve's second look; see above) */
    int x0, y0, x1, y1;   /* inside the frame: columns x0..x1, rows y0..y1 (y = 0 on top) */
    uint8_t region[GO_POINTS]; /* 1 on the points the solver plays on (see go_tsumego_setup) */
    int region_points;
    int num_targets;      /* defender stones the attacker must capture */
} go_tsumego_problem;

/* A solve's tables kept for later solves of the same problem: a solve given the work of an
 * earlier one goes on from what that one proved and explored (with another prior, say) instead
 * of starting over. Not for two solves at once. */
typedef struct go_tsumego_work go_tsumego_work;

/* NULL when out of memory. The tables themselves come with the first solve. */
go_tsumego_work *go_tsumego_work_new(void);
void go_tsumego_work_free(go_tsumego_work *w);

/* Search limits. Zero values mean the defaults in brackets. */
typedef struct go_tsumego_limits {
    double time_s;       /* wall-clock seconds for the whole solve [10] */
    uint64_t max_nodes;  /* positions searched, 0 = no limit besides time */
    int tt_log2;         /* transposition table of 2^tt_log2 x 16 bytes [21, 32 MB] */
    bool first_move_only;/* stop after the first proven move: skips the other first moves, the
                            reply status and the tree (what a benchmark needs) */
    /* Optional: how likely each first move of the side to play is to be right, GO_POINTS values
     * by board point (a network's policy on problem.framed, say; NULL for none). It never
     * changes what is proven: it orders the first moves of the searches for the side to play,
     * among several first moves that win outright it chooses the answer (first_move_only: the
     * moves it ranks above the one found are tried too, and the first of them proven to win is
     * taken), and when nothing is proven it picks the guess among the moves not proven to fail. */
    const float *prior;
    /* Optional: tables to reuse and keep (see go_tsumego_work); NULL: a fresh table per solve. */
    go_tsumego_work *work;
    /* Threads searching at once [1]: a search that runs past a few thousand positions is
     * searched by this many threads sharing its table (a few milliseconds after it starts),
     * so a hard problem gets more positions in the same time. What is proven stays exact; with
     * more than one, which proof is found first, and so a guess, can vary from run to run. */
    int threads;
} go_tsumego_limits;

#define GO_TSUMEGO_MAX_MOVES GO_TSUMEGO_MAX_REGION

/* Everything a solve finds. Owns sgf (free with go_tsumego_solution_free). */
typedef struct go_tsumego_solution {
    go_tsumego_status status;       /* to_play moving first */
    go_tsumego_status reply_status; /* the opponent moving first (UNKNOWN if not searched) */
    int best_move;                  /* board point of the chosen first move, GO_PASS if none */
    bool best_proven;               /* best_move's result is proven, not a guess at the limit;
                                       for a ko, every first move was compared too, so no other
                                       reaches a better ko */
    int num_correct;                /* every first move proven to reach status; for a ko, only
                                       those that reach the best ko found (the opponent needing
                                       the most threats, the mover the fewest), quietest first;
                                       for an outright win, the prior's favourite first */
    int correct[GO_TSUMEGO_MAX_MOVES];
    go_tsumego_uniqueness uniqueness;
    uint64_t nodes;
    double time_s;
    go_tsumego_problem problem;     /* the problem as solved (the goal may have been revised) */
    char *sgf;                      /* the solution tree, NULL with first_move_only */
} go_tsumego_solution;

/* Builds a problem from a position with to_play moving first. Returns false with a reason in err
 * for an empty board, a position without a corner or side problem (the region would leave no
 * room for a frame), a region over GO_TSUMEGO_MAX_REGION points, or no weak defender group. */
bool go_tsumego_setup(const go_board *b, go_color to_play, go_tsumego_goal goal,
                      go_tsumego_problem *p, char *err, int err_len);

/* Why go_tsumego_setup_why refused a position. */
typedef enum {
    GO_TSUMEGO_REFUSED_OTHER = 1, /* no side to play, or out of memory */
    GO_TSUMEGO_REFUSED_SHAPE,     /* not a corner or side problem (an empty board, stones over
                                     the whole board, a region too large) */
    GO_TSUMEGO_REFUSED_SETTLED,   /* no weak defender group: it lives unconditionally or has
                                     no stones left, so the question is settled */
} go_tsumego_refusal;

/* go_tsumego_setup, saying in *why why it refused when it returns false. */
bool go_tsumego_setup_why(const go_board *b, go_color to_play, go_tsumego_goal goal,
                          go_tsumego_problem *p, go_tsumego_refusal *why, char *err, int err_len);

/* The goal a problem statement gives the side to play ("Black to live", "White to kill",
 * "Black to play and capture", "黑先活", "黒先白死", ...), or AUTO when it names none or both
 * ("Black to play", "life and death"). English words count whole and in any case. */
go_tsumego_goal go_tsumego_goal_from_text(const char *text);

/* Solves p within the limits (NULL = defaults) and fills out. Never runs past the time limit by
 * more than a few milliseconds. When the side to play fails or gets a ko, the wide region is
 * tried (see above), kept when it does better (success, or a ko after a failure); after a
 * failure, when the goal was inferred, the other goal is tried too, kept when it finds a way
 * (success or ko). out->problem is the problem solved. Returns false only when out of memory. */
bool go_tsumego_solve(const go_tsumego_problem *p, const go_tsumego_limits *lim,
                      go_tsumego_solution *out);

void go_tsumego_solution_free(go_tsumego_solution *s);

/* Short English names: "success", "ko", "direct", ... */
const char *go_tsumego_result_name(go_tsumego_result r);
const char *go_tsumego_ko_name(go_tsumego_ko k);
const char *go_tsumego_uniqueness_name(go_tsumego_uniqueness u);

/* Writes "ko (direct, B takes first)"-style text for a status into buf; returns buf. */
const char *go_tsumego_status_text(const go_tsumego_status *s, go_color mover, char *buf,
                                   int len);

#endif
