/* mcts/mcts.h -- PUCT tree search on the nn.h evaluator: the public face of mcts/.
 *
 * One mcts_search owns a tree rooted at the position last given to mcts_set_position, a pool of
 * search threads (each with its own nn_context), and a cache of network results shared by the
 * threads. mcts_run grows the tree until a limit is reached or mcts_stop is called, then
 * mcts_analysis_get reads a per-move report (what lz-analyze / kata-analyze / JSON analysis
 * print) and mcts_choose_move picks the move to play.
 *
 * Conventions: moves are go/board.h points (GO_PASS = 0), MCTS_RESIGN for resignation.
 * "To move" means the side to move at the root. Winrates are in [0, 1], score leads in points,
 * ownership in [-1, +1] with +1 = WHITE (as nn.h). Utilities follow KataGo: win/loss in
 * [-1, +1] plus a score term.
 *
 * Threading: every function except mcts_stop must be called from one thread at a time (the
 * caller's "control" thread). mcts_stop may be called from any thread at any time.
 *
 * Design, in short (details in the .c files):
 *  - Batching: each search thread descends up to batch_size times with virtual loss, evaluates
 *    the leaves it claimed with one nn_eval call on its own context, then backs them up. A leaf
 *    already claimed (by any thread) is a collision: that descent is undone, so no leaf is
 *    evaluated twice. Visit limits are exact: playouts are claimed from one atomic budget.
 *  - Values: every node sums leaf values in white's view (win-loss, KataGo utility = win-loss +
 *    static and dynamic score utility and its square, score lead, score mean and mean square);
 *    selection turns them to the mover's view, with Q in winrate units so c_puct means what it
 *    does in Leela Zero. Ownership and its square are summed only at the root and its
 *    children (mean and standard deviation per point, KataGo's ownership and ownershipStdev).
 *  - Move choice: KataGo's useLcbForSelection. A lower confidence bound on each root move's
 *    utility (mean - lcb_stdevs * standard error, the variance pulled towards the widest the
 *    utility range allows while there are few visits); among the moves with at least
 *    lcb_visit_fraction of the most visited move's visits, the best bound is played. The lcb
 *    and utility_lcb of an analysis are these bounds, so its first move is the one played.
 *  - Cache: network results keyed by position (stones, side, ko, last 8 moves, komi, rules) and
 *    symmetry; the symmetry is a pseudo-random function of position and seed, so a position is
 *    always looked up under the symmetry it was evaluated with. Two-way buckets, bounded.
 *  - Game ends: two passes end the game in the tree; under area scoring the board is counted
 *    as it stands (so leaving dead stones is seen to lose), under territory scoring the net's
 *    value of the final position stands.
 *  - Memory: tree bytes are counted; at max_tree_mb no node is added and the run ends.
 */
#ifndef SHIDO_MCTS_MCTS_H
#define SHIDO_MCTS_MCTS_H

#include <stdbool.h>
#include <stdint.h>

#include "go/board.h"
#include "go/game.h"
#include "nn/nn.h"

#define MCTS_RESIGN (-2)          /* mcts_choose_move's answer for "resign" */
#define MCTS_MAX_PV 64            /* longest principal variation reported per move */
#define MCTS_MAX_MOVE_FILTERS 64  /* avoid/allow entries in mcts_params */
#define MCTS_PROFILE_LEN 32       /* human_sl_profile's storage, terminator included */

/* When the engine may pass at the root (inside the tree every side may always pass, so the
 * search sees the opponent's passes). Independently of the policy, the root never plays inside
 * either side's pass-alive area (Benson) unless the move touches a stone of the other colour
 * there: such moves cannot change the result, and pruning them is what lets a finished game end.
 */
typedef enum {
    /* Default. Under area scoring, pass only when passing cannot throw points away: no neutral
     * point is left that we can fill without self-atari (Tromp-Taylor count; seki liberties
     * fail the self-atari test and do not block), and no opponent stone stands where the
     * network's ownership gives the point to us (> 0.6): dead stones must be captured first,
     * since a count after two passes takes every stone on the board as alive. Nets without
     * ownership (Leela Zero) instead need the board counted as it stands to agree with the net's
     * winrate on who wins. Under territory scoring dead stones are removed by agreement at the
     * end, so passing is left to the search. Pass is allowed when nothing else is. */
    MCTS_PASS_SAFE = 0,
    MCTS_PASS_FREE,      /* the search decides, as KataGo without conservative pass */
    MCTS_PASS_LAST,      /* only when no other legal move remains (self-play to the bitter end) */
} mcts_pass_policy;

/* One avoid/allow entry (KataGo's kata-analyze avoid/allow): moves of `color` at `point` are
 * avoided (or, for allow, are the only ones searched) for the first `until_depth` moves of the
 * colour from the root (1 = at the root only). */
typedef struct mcts_move_filter {
    go_color color;
    int point;
    int until_depth;
} mcts_move_filter;

/* Every search tunable, in one place. Set with mcts_params_set by name (the table behind
 * kata-set-param, lz-setoption, the command line and config files); the name of each field is
 * the name mcts_params_set takes, except the avoid/allow lists (mcts_params_add_move_filter). */
typedef struct mcts_params {
    /* Selection: Q + c * P * sqrt(N_parent) / (1 + N_child), c = c_puct + c_puct_log *
     * ln((N + c_puct_base) / c_puct_base) with N the children's visits. c_puct: Leela Zero's 0.9
     * (in units of winrate); position control lowers it, style play raises it (10 = nearly pure
     * policy). c_puct_log: 0 (KataGo grows its exploration so, 0.45 and 500 in its utility
     * units, i.e. 0.225 here; its aliases cpuctExploration, cpuctExplorationLog, fpuReductionMax
     * and rootFpuReductionMax take KataGo's values, halved into ours). */
    double c_puct;
    double c_puct_log;
    double c_puct_base;
    /* First-play urgency: an unvisited child's Q is the parent's Q minus
     * fpu_reduction * sqrt(policy mass of the visited children) (Leela Zero, KataGo). */
    double fpu_reduction;
    double root_fpu_reduction;     /* the same at the root (lower: the root explores wider) */
    /* Visits of virtual loss a descending thread puts on every node of its path so that other
     * descents (its own batch, other threads) spread out; removed at backup. */
    int virtual_loss;
    int num_threads;               /* search threads, each with its own nn_context */
    int batch_size;                /* leaves a thread gathers before one nn_eval call */
    int eval_threads;              /* threads sharing each nn_eval's CPU work (features, output
                                      conversion): nn_context_set_threads; 1 = the searcher's */
    /* Limits of a search (0: none). A run stops at the first one reached; mcts_limits may
     * override them per run. Visits count the root's whole tree (reused visits included),
     * playouts only those made by this run. */
    int64_t max_visits;
    int64_t max_playouts;
    int64_t max_time_ms;
    /* Root Dirichlet noise for variety (AlphaZero): P = (1 - eps) P + eps Dir(alpha * 19^2 /
     * legal moves); eps 0 turns it off (the default). */
    double dirichlet_alpha;
    double dirichlet_eps;
    /* KataGo's rootPolicyTemperature: root priors P^(1/T), renormalised (> 1 searches wider;
     * 1, the default, leaves them). */
    double root_policy_temperature;
    /* KataGo's wideRootNoise (0: off, the default): root priors flattened to P^(1/(4w+1)), and
     * at each root selection half the moves, drawn at random, get w |N(0,1)| of utility added:
     * analysis that looks at more moves, at the cost of a noisier best move. */
    double wide_root_noise;
    /* Move choice by visits^(1/temperature) while the game has fewer than temperature_moves
     * moves (temperature 0, the default: no randomness, see use_lcb_for_selection). */
    double temperature;
    int temperature_moves;
    /* Without temperature, KataGo's useLcbForSelection (on by default): the move played is the
     * one of best utility lower confidence bound among the moves with at least
     * lcb_visit_fraction of the most visited move's visits (KataGo's minVisitPropForLCB 0.15),
     * the most visited move unless another's bound is strictly better. Off: the most visited
     * move. The bound is utility - lcb_stdevs * stderr (KataGo's lcbStdevs 5): a barely visited
     * move cannot win on a lucky average, and a much visited move whose value collapsed late
     * does not win on visits alone. */
    bool use_lcb_for_selection;
    double lcb_visit_fraction;
    double lcb_stdevs;
    /* Resign when the side to move's winrate (root and best move) is below this; negative
     * (default -1) never resigns, which teaching modes rely on. */
    double resign_threshold;
    int64_t resign_min_visits;     /* the root visits needed before resigning is considered */
    mcts_pass_policy pass_policy;
    /* KataGo's score utility: static term centred on 0 and dynamic term centred on the root's
     * score mean, each factor * 2/pi * atan((score - centre) / (scale * sqrt(board area))),
     * averaged over the net's score distribution. Zero for nets without a score head. */
    double win_loss_utility_factor;          /* KataGo's winLossUtilityFactor: 1 */
    double static_score_utility_factor;      /* KataGo 0.1 */
    double dynamic_score_utility_factor;     /* KataGo 0.3 */
    double dynamic_score_center_zero_weight; /* KataGo 0.2: pull the centre towards 0 */
    double dynamic_score_center_scale;       /* KataGo 0.75: scale of the dynamic term */
    /* KataGo nets v12+: optimism of the policy at the root and below (KataGo's
     * rootPolicyOptimism 0.2, policyOptimism 0). */
    double root_policy_optimism;
    double policy_optimism;
    /* KataGo's humanSLProfile: the player a human-SL net (one with a metadata encoder) imitates,
     * a name nn_kata_profile_parse accepts ("rank_5k", "preaz_2d", "proyear_1990"); "" for none,
     * which such a net refuses (the search then fails with that error). Other nets ignore it.
     * Changing it clears the tree and the cache. */
    char human_sl_profile[MCTS_PROFILE_LEN];
    /* KataGo's playoutDoublingAdvantage: the root player searches as if it had 2^pda times its
     * opponent's playouts (negative: the weaker side, as a teacher giving handicap wants to
     * appear to the net). Every evaluation tells the net (nn_query.pda, +pda where the root
     * player moves, -pda where its opponent does); a search for the other colour starts a new
     * tree. 0 (the default): off. */
    double playout_doubling_advantage;
    /* KataGo's antiMirror: against an opponent that mirrors our moves through tengen, priors
     * and forced visits in the tree for its mirror replies and for our central moves, and in
     * the hard case (it holds tengen) values pulled toward tengen's owner; mcts/mirror.c.
     * Changing whether a mirroring opponent is seen drops the tree. Off by default. */
    bool anti_mirror;
    /* Memory bound of the tree in MiB: expansion stops when reached and the run ends. */
    double max_tree_mb;
    int nn_cache_size;             /* network results kept (entries; 0 disables the cache) */
    uint64_t seed;                 /* noise, temperature and symmetry choices (0: from time) */
    /* Analysis: avoid/allow lists (cleared with mcts_params_set(p, "clear-moves", ...)). */
    int num_avoid, num_allow;
    mcts_move_filter avoid[MCTS_MAX_MOVE_FILTERS];
    mcts_move_filter allow[MCTS_MAX_MOVE_FILTERS];
} mcts_params;

/* One tunable's name, type ("double", "int", "enum: safe|free|last", ...) and one-line doc. */
typedef struct mcts_param_info {
    const char *name;
    const char *type;
    const char *doc;
} mcts_param_info;

/* The defaults documented above (Leela Zero / KataGo values, one thread, batch 1). */
mcts_params mcts_params_default(void);

/* The table of settable names, in a stable order; *n receives its length. Static storage. */
const mcts_param_info *mcts_param_list(int *n);

/* Sets one tunable from text (numbers in C syntax, enum names). Names are case-insensitive and
 * '-' and '_' are ignored, so KataGo's camelCase spellings match (staticScoreUtilityFactor,
 * maxVisits), and a few KataGo names are aliases (cpuctExploration, cpuctExplorationLog,
 * cpuctExplorationBase, fpuReductionMax, rootFpuReductionMax, numSearchThreads, nnMaxBatchSize,
 * chosenMoveTemperature, resignThreshold; the exploration and first-play urgency ones in
 * KataGo's utility units: mcts_params_get of an alias answers in them too). Returns false
 * with a reason in err (and p untouched) for an unknown name or a value that does not parse or
 * is out of range. */
bool mcts_params_set(mcts_params *p, const char *name, const char *value, char *err, int err_len);

/* Whether two tunable names are the same, ignoring case, '-' and '_' (so "max-visits",
 * "max_visits" and KataGo's "maxVisits" match): the comparison of every tunable table. */
bool mcts_params_name_eq(const char *a, const char *b);

/* The scalar kinds of a tunable table: what mcts_value_parse writes into the field (a double,
 * int, int64_t, uint64_t or bool). */
typedef enum {
    MCTS_VALUE_DOUBLE,
    MCTS_VALUE_INT,
    MCTS_VALUE_INT64,
    MCTS_VALUE_U64,
    MCTS_VALUE_BOOL,
} mcts_value_kind;

/* Reads value as kind into *field: numbers in C syntax within [lo, hi] (integers whole),
 * booleans as true/false/1/0. False with "who: name: ..." in err (field untouched). The value
 * parser of every tunable table (mcts_params_set, teach_play_params_set). */
bool mcts_value_parse(mcts_value_kind kind, void *field, const char *value, double lo, double hi,
                      const char *who, const char *name, char *err, int err_len);

/* Writes *field of kind as text as mcts_value_parse reads it (doubles with 17 digits). */
void mcts_value_format(mcts_value_kind kind, const void *field, char *buf, int len);

/* Writes the value of name as text into buf (as mcts_params_set reads it). Returns false when
 * the name is unknown. */
bool mcts_params_get(const mcts_params *p, const char *name, char *buf, int len);

/* Adds an avoid (allow = false) or allow entry. Returns false when the list is full. */
bool mcts_params_add_move_filter(mcts_params *p, bool allow, go_color c, int point,
                                 int until_depth);

typedef struct mcts_search mcts_search;

/* Makes a search on model (not owned; it must outlive the search) with a copy of p. Starts the
 * search threads' contexts but no tree. Returns NULL with a message in err on failure. */
mcts_search *mcts_new(nn_model *model, const mcts_params *p, char *err, int err_len);

/* A network cache that several searches share (mcts_new_client): num_entries results (0: none).
 * Thread-safe; keys hold everything a result depends on (position, symmetry, optimism,
 * advantage, human-SL profile), so searches of any settings and seeds may share one. NULL with a
 * message in err when out of memory. Free with mcts_cache_delete after its searches. */
typedef struct mcts_cache mcts_cache;
mcts_cache *mcts_cache_new(int num_entries, char *err, int err_len);
void mcts_cache_delete(mcts_cache *c);

/* Makes a search that evaluates through service (not owned; it must outlive the search) instead
 * of contexts of its own, so that its leaves share batches with those of other searches; its
 * network cache is `cache` (not owned; NULL: its own of p->nn_cache_size entries, which
 * nn_cache_size changes then resize). batch_size may not exceed the service's max batch.
 * eval_threads does not apply (the service's threads do that work). With the same seed, no
 * cache shared and one search thread, the search makes the same tree as mcts_new's. NULL with a
 * message in err on failure. */
mcts_search *mcts_new_client(nn_service *service, mcts_cache *cache, const mcts_params *p,
                             char *err, int err_len);

/* Stops and frees everything the search owns. NULL is fine. */
void mcts_free(mcts_search *s);

/* Replaces the tunables (thread count and batch size changes rebuild the contexts; the tree and
 * cache are kept). Returns false with a message in err on failure: the old params are kept,
 * except when only a resized cache could not be allocated (the cache is then off). */
bool mcts_set_params(mcts_search *s, const mcts_params *p, char *err, int err_len);

/* The tunables in force (owned by the search; valid until the next mcts_set_params). */
const mcts_params *mcts_get_params(const mcts_search *s);
/* The profile of params.human_sl_profile, for contexts that evaluate beside the search; NULL when
 * none is set. Valid until the next mcts_set_params. */
const nn_kata_profile *mcts_profile(const mcts_search *s);

/* Sets the position to search: a copy of g is taken. When g is the previous root's game
 * extended by some moves (or the same game), the subtree of the reached node is kept (tree
 * reuse); otherwise the tree is dropped. Returns true when the tree was reused. */
bool mcts_set_position(mcts_search *s, const go_game *g);

/* Drops the tree (clear_board, changed rules or komi are detected by mcts_set_position too). */
void mcts_clear_tree(mcts_search *s);

/* Drops every cached network result. */
void mcts_clear_cache(mcts_search *s);

/* Restricts the root's moves in later runs to the points where mask is true (GO_POINTS values
 * by board point; a copy is kept); passing stays under the pass policy. NULL lifts it. For a
 * question about one part of the board (a life-and-death problem's region, say), so that no
 * visit goes elsewhere. */
void mcts_set_root_moves(mcts_search *s, const bool *mask);

/* Weights the root's priors in later runs: each move's prior times w at its point (GO_POINTS
 * values by board point, each >= 0; a copy is kept; the pass keeps its prior), renormalised, as
 * the search explores by them (after root temperature and noise). Analyses still report the
 * priors before the weights. NULL lifts them. For a player whose priors are corrected before it
 * searches (seed 001's method B and styles, as the thesis's Leela searched). */
void mcts_set_root_weights(mcts_search *s, const float *w);

/* What an analysis holds. */
typedef struct mcts_analysis_opts {
    int max_moves;          /* report at most this many moves (0: all visited moves); applied
                               after min_moves, so it wins when smaller */
    /* Report at least this many moves where the root has them (kata-analyze / lz-analyze
     * minmoves): after the visited moves come unvisited root moves the root may play, by
     * prior, with 0 visits and, as KataGo reports them, the root's values except utility (the
     * first-play urgency value) and winrate (the root's moved by the same amount). */
    int min_moves;
    int64_t min_visits;     /* report moves with at least this many visits (0 means 1) */
    bool ownership;         /* fill the root's ownership (KataGo nets) */
    bool ownership_stdev;   /* and its standard deviation per point (KataGo's ownershipStdev) */
    bool move_ownership;    /* and each reported move's ownership (KataGo's movesOwnership),
                               averaged over the move's subtree (an unvisited move: the root's) */
    bool move_ownership_stdev;   /* and its standard deviation (movesOwnershipStdev) */
    int pv_len;             /* longest pv (0: MCTS_MAX_PV) */
} mcts_analysis_opts;

/* Per-run limits overriding the params', and the progress reports of the run. */
typedef struct mcts_limits {
    int64_t max_visits;     /* > 0 overrides the params; 0 uses them; -1 means unlimited */
    int64_t max_playouts;
    int64_t max_time_ms;
    int report_interval_cs; /* progress callback period in centiseconds (0: never) */
    mcts_analysis_opts report;   /* what the progress callback's analysis holds */
} mcts_limits;

/* Per-move record of an analysis. Values are averages over the move's subtree. */
typedef struct mcts_move_info {
    int move;                /* point or GO_PASS */
    int64_t visits;
    double winrate;          /* to move's view, [0, 1]: win + no_result / 2 */
    double white_winrate;
    double no_result;        /* the net's no-result probability over the subtree (KataGo's
                                noResultValue; 0 for nets and rules without one) */
    double lcb;              /* to move's winrate lower confidence bound (may fall below 0):
                                winrate less the utility bound's radius in winrate units (as
                                KataGo reports it to lz-analyze); for Leela Zero nets exactly
                                utility_lcb as a winrate */
    double utility_lcb;      /* to move's utility lower bound, what the move choice compares */
    double prior;            /* policy prior after noise and legality masking */
    double score_lead;       /* to move's view, points (KataGo scoreLead) */
    double score_mean;       /* to move's view (KataGo scoreMean = selfplay score) */
    double score_stdev;      /* KataGo scoreStdev: sqrt(E[s^2] - E[s]^2) over the subtree */
    double utility;          /* to move's view */
    int order;               /* index in moves: 0 = the move the search would play */
    int pv_len;
    int pv[MCTS_MAX_PV];               /* pv[0] == move; alternating colours */
    int64_t pv_visits[MCTS_MAX_PV];    /* visits of each pv node */
    const float *ownership;  /* move_ownership: NN_MAX_POINTS values [y*width+x], white's view;
                                NULL otherwise or for nets without ownership */
    const float *ownership_stdev;   /* move_ownership_stdev: the same layout, NULL likewise */
} mcts_move_info;

typedef struct mcts_analysis {
    int size, width, height; /* the root's board (size: its longer side, as go_board's) */
    go_color to_move;
    int64_t root_visits;
    double root_winrate;     /* to move's view */
    double root_white_winrate;
    double root_no_result;
    double root_score_lead;  /* to move's view */
    double root_score_mean;
    double root_score_stdev;
    double root_utility;     /* to move's view */
    bool has_score, has_ownership;
    int num_moves;
    mcts_move_info *moves;   /* the move mcts_choose_move would play without temperature first,
                                then by visits, then lcb, then prior (min_moves' unvisited moves
                                last of the moves the root may play; moves it may not, such as a
                                pass the pass policy forbids, after all those) */
    float *ownership;        /* root's averaged ownership (opts.ownership), white's view */
    float *ownership_stdev;  /* its standard deviation per point (opts.ownership_stdev):
                                sqrt(E[o^2] - E[o]^2) over the backed-up evaluations */
    int64_t playouts;        /* made by the last / current run */
    double elapsed_s;        /* of the last / current run */
    /* storage, managed by mcts_analysis_get / mcts_analysis_free */
    int cap_moves;
    float *move_ownership_store;
    float *move_ownership_stdev_store;
} mcts_analysis;

/* Progress callback for interval output: called on the thread that called mcts_run, with an
 * analysis valid during the call only. Return false to stop the search. */
typedef bool (*mcts_progress_fn)(const mcts_analysis *a, void *ctx);

/* Searches the current position until a limit (lim may be NULL: the params' limits), the memory
 * bound, a false from cb, or mcts_stop. A run with no limit at all runs until stopped (pondering,
 * lz-analyze without a limit). The caller's thread waits (and runs cb). Returns false with a
 * message in err when an evaluation failed (the tree then holds what was done). */
bool mcts_run(mcts_search *s, const mcts_limits *lim, mcts_progress_fn cb, void *ctx,
              char *err, int err_len);

/* Asks a running mcts_run to return soon; safe from any thread (GTP `stop`, a new command
 * arriving, a signal-handling thread). A stop that arrives while no run is in progress is
 * forgotten when the next run starts. */
void mcts_stop(mcts_search *s);

/* Fills out with the tree's current report. out must start zeroed ({0}) or come from an earlier
 * call; it owns its storage until mcts_analysis_free. opts NULL: every visited move, no
 * ownership. Returns false when the root has not been evaluated yet (out then has no moves). */
bool mcts_analysis_get(mcts_search *s, const mcts_analysis_opts *opts, mcts_analysis *out);

/* Frees the storage of an analysis (the struct itself belongs to the caller). */
void mcts_analysis_free(mcts_analysis *a);

/* The move to play from the finished search, for the side to move at the root: the allowed
 * move of best lower confidence bound among the much visited ones (use_lcb_for_selection), or
 * one drawn by visits^(1/T) under temperature; GO_PASS when the pass policy allows it and the
 * search prefers it, when nothing else is allowed or the game is over; MCTS_RESIGN under the
 * resign policy. Searches nothing, except that with no search done it evaluates the root once
 * and returns the network's best allowed move. */
int mcts_choose_move(mcts_search *s);

/* Counters of the search's life (for benchmarks and `shido bench`). */
typedef struct mcts_stats {
    int64_t playouts;          /* last run */
    int64_t nn_evals;          /* positions sent to nn_eval, all runs */
    int64_t nn_batches;        /* nn_eval calls */
    int64_t cache_hits;
    int64_t collisions;        /* descents abandoned because their leaf was being evaluated */
    double run_s;              /* wall time of the last run */
    double nn_s;               /* time the search threads spent inside nn_eval, last run,
                                  summed over threads */
    int64_t tree_nodes;
    double tree_mb;
} mcts_stats;

/* Fills st; callable during a run (the counters are atomics). */
void mcts_get_stats(const mcts_search *s, mcts_stats *st);

#endif
