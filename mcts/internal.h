/* mcts/internal.h -- what the files of mcts/ share: tree nodes, the network cache, the search
 * state. Not for use outside mcts/.
 *
 * Node statistics are sums over the leaf evaluations backed up through the node, all from
 * WHITE's point of view, so a node never needs to know whose turn it is; selection turns them
 * to the mover's view. Writers take the node's spinlock (several sums change together); readers
 * (selection, analysis) read the atomics without it and may see a sum one backup ahead of the
 * visit count, which PUCT tolerates.
 */
#ifndef SHIDO_MCTS_INTERNAL_H
#define SHIDO_MCTS_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "mcts/mcts.h"
#include "nn/nn.h"
#include "go/clock.h"

#define MCTS_PI 3.14159265358979323846   /* M_PI is not in strict C11 */

/* The longest descent; deeper paths (which only a near-endless game line could make) are
 * abandoned like collisions. */
#define MCTS_MAX_PATH 1024

enum { MCTS_UNEXPANDED = 0, MCTS_EXPANDING, MCTS_EXPANDED };

typedef struct mcts_node mcts_node;

/* A move out of a node; its node is made the first time a descent chooses it. */
typedef struct mcts_child {
    _Atomic(mcts_node *) node;
    float prior;
    int16_t move;
} mcts_child;

/* The leaf values of one evaluation (network, cache or final count), white's view. */
typedef struct mcts_eval {
    double wl;           /* win - loss */
    double nr;           /* no result (KataGo's noResult head; 0 for a counted game end) */
    double lead, score_mean, score_sq;
    double utility;      /* wl + score utility */
} mcts_eval;

struct mcts_node {
    atomic_flag lock;
    _Atomic int state;                 /* MCTS_UNEXPANDED / EXPANDING / EXPANDED */
    _Atomic int visits;
    _Atomic int vloss;                 /* descents in flight through this node */
    _Atomic double u_sum, u_sq_sum, wl_sum, nr_sum, lead_sum, smean_sum, ssq_sum;
    int num_children;
    _Atomic(mcts_child *) children;    /* legal moves in board order, then pass; set before
                                          state becomes EXPANDED */
    mcts_eval *terminal;               /* the game ended here: the value every visit backs up */
    /* Root and root children only: 2 * own_area floats, the ownership sums per point, then the
     * sums of their squares (for the standard deviation). A tree holds one board size. */
    float *own_sum;
    int own_n;                         /* backups counted in own_sum */
    int own_area;                      /* points per half of own_sum */
};

/* Network cache: a two-way set-associative table, each entry under its own spinlock. Ownership is kept as
 * int8 (1/127 steps, far below the net's own noise) to keep a slot under 2 KB. */
typedef struct mcts_cache_entry {
    atomic_flag lock;
    uint64_t key;                      /* 0: empty */
    uint64_t stamp;                    /* store order, for eviction */
    int size, width, height;           /* the board of the result (nn_result's) */
    bool has_score, has_ownership;
    float wl, nr, lead, score_mean, score_sq;
    float policy[NN_MAX_MOVES];
    int8_t ownership[NN_MAX_POINTS];
} mcts_cache_entry;

typedef struct mcts_cache {
    int num_entries;
    _Atomic uint64_t stamp;
    mcts_cache_entry *entries;
} mcts_cache;

bool mcts_cache_init(mcts_cache *c, int num_entries);
void mcts_cache_free(mcts_cache *c);
void mcts_cache_clear(mcts_cache *c);
/* Copies a hit into r (values, policy, ownership) and returns true. */
bool mcts_cache_lookup(mcts_cache *c, uint64_t key, nn_result *r);
void mcts_cache_store(mcts_cache *c, uint64_t key, const nn_result *r);
/* Rounds a fresh result to what the cache keeps, so that a search gives the same tree whether
 * its evaluations came from the network or the cache. */
void mcts_result_canonical(nn_result *r);

/* The key of g's position for the network: stones, side to move, ko, recent history, komi and
 * rules, with the symmetry folded in. */
uint64_t mcts_position_key(const go_game *g, int symmetry);
/* The symmetry to evaluate g under: a pseudo-random function of the position and the seed, so
 * that every visit of a position draws the same one and the cache hits (KataGo does the same). */
int mcts_position_symmetry(const go_game *g, uint64_t seed);

/* The anti-mirror state (mirror.c, KataGo's antiMirror), from the root's game before each run. */
typedef struct mcts_mirror {
    go_color pla;            /* the root mover's opponent when it mirrors, else GO_EMPTY */
    double advantage;        /* points mirroring to the end gains that side (komi, the last
                                move of an odd board, handicap) */
    double center_error;     /* how far the centre's 7x7 breaks the symmetry (0: not at all) */
} mcts_mirror;

/* One node's anti-mirror context while a descent selects among its children. */
typedef struct mcts_mirror_node {
    bool root;
    int ply;                 /* moves from the root to the node */
    go_color mover;
    int mirror_move;         /* the mirroring side's node: the reflection of our last move, or
                                pass when that is no legal move; GO_NO_POINT after a pass */
    bool difficult;          /* the mirroring side holds tengen, and komi does not favour us */
    double parent_u;         /* the node's mean utility, the mover's view */
} mcts_mirror_node;

/* A search thread's private state. */
typedef struct mcts_worker {
    struct mcts_search *s;
    pthread_t thread;
    nn_context *ctx;
    go_game *games;                    /* batch_size games, each at the root between batches */
    nn_query *queries;
    nn_result *results;
    mcts_node ***paths;                /* per batch slot: root..leaf */
    int *path_len;
    uint64_t *keys;
    double nn_s;
    bool failed;
    char err[256];
} mcts_worker;

struct mcts_search {
    nn_model *model;
    /* mcts_new_client: the evaluation service every leaf goes to (the workers have no context)
     * and, when given, the cache shared with other searches; else NULL and own_cache */
    nn_service *service;
    mcts_cache own_cache;
    mcts_cache *cache;                 /* &own_cache or the shared one */
    uint64_t profile_key;              /* folded into cache keys: a shared cache serves searches
                                          of several human-SL profiles */
    mcts_params p;
    nn_kata_profile profile;           /* p.human_sl_profile parsed, when has_profile */
    bool has_profile;
    bool has_score, has_ownership;
    int num_workers;
    mcts_worker *workers;

    go_game root_game;                 /* the position of root; root_game.board.size 0: none */
    mcts_node *root;
    _Atomic int64_t tree_bytes;
    _Atomic int64_t tree_nodes;

    /* Per run (written by the control thread before the workers start). */
    float *root_prior;                 /* root->num_children priors after root optimism + noise */
    bool *root_allowed;                /* per root child: pass policy, filters, pruning */
    bool root_prior_set;
    bool has_root_mask;                /* mcts_set_root_moves: root moves only where root_mask */
    bool root_mask[GO_POINTS];
    bool has_root_weight;              /* mcts_set_root_weights: root priors times root_weight */
    float root_weight[GO_POINTS];
    float *root_policy;                /* with weights: the priors before them, as reported */
    bool pass_allowed;
    double score_center;               /* dynamic score utility centre, white's view */
    mcts_mirror mirror;                /* p.anti_mirror: who mirrors (mirror.c) */
    int64_t budget;                    /* playouts this run may start (INT64_MAX: unlimited) */
    _Atomic int64_t claimed;           /* playouts started */
    _Atomic int64_t playouts;          /* playouts backed up this run */
    _Atomic bool stop;                 /* mcts_stop or a limit */
    _Atomic bool workers_stop;
    _Atomic bool out_of_memory;
    _Atomic int active;                /* search threads still running */
    _Atomic int64_t nn_evals, nn_batches, cache_hits, collisions;
    double run_start_s, run_s, nn_s;
    bool running;                      /* inside mcts_run (control thread only) */
    _Atomic uint64_t root_draws;       /* wide_root_noise: root selections so far */
    uint64_t rng;
};

/* tree.c */
mcts_node *mcts_node_new(struct mcts_search *s);
void mcts_node_free_tree(struct mcts_search *s, mcts_node *n);
/* Adds one visit's values to n. */
void mcts_node_add(mcts_node *n, const mcts_eval *e, const float *own_white, int own_len);
/* Expands n from the network's policy over the legal moves of g (Leela Zero's raw policy is
 * restricted and renormalised here). Returns false when out of memory budget. */
bool mcts_node_expand(struct mcts_search *s, mcts_node *n, const go_game *g, const float *policy);
/* The child node of c, made when missing (NULL when over the memory bound). */
mcts_node *mcts_child_node(struct mcts_search *s, mcts_child *c);
/* Ownership sums for n (root or root child) on the root's board, made when missing. */
bool mcts_node_want_ownership(struct mcts_search *s, mcts_node *n);

/* search.c */
/* The score utility of a leaf (white's view) with the search's centre, on a board of `area`
 * points (KataGo scales by its square root). */
double mcts_score_utility(const struct mcts_search *s, double score_mean, double score_sq,
                          int area);
/* Whether the avoid/allow lists keep `mover` from `move` at ply (0 = the root's move). */
bool mcts_move_filtered(const mcts_params *p, int move, go_color mover, int ply);
/* Fills e from a network (or cached) result. */
void mcts_eval_from_result(const struct mcts_search *s, const nn_result *r, mcts_eval *e);
/* nn_eval on the worker's context, or the search's service (queries get the search's profile
 * there, as the workers' contexts have it by default). */
bool mcts_nn_eval(struct mcts_search *s, nn_context *ctx, int n, nn_query *q, nn_result *out,
                  char *err, int err_len);
/* Evaluates g once (cache first) with context ctx. Returns false with a message on failure. */
bool mcts_eval_one(struct mcts_search *s, nn_context *ctx, const go_game *g,
                   double optimism, nn_result *r, char *err, int err_len);

/* mirror.c (KataGo's antiMirror) */
/* Recomputes s->mirror from the root's game (no mirroring side unless p.anti_mirror). True when
 * the mirroring side changed: the tree's values were made for the other case and must go. */
bool mcts_mirror_update(struct mcts_search *s);
/* Fills mn for selecting among n's children, n reached by g's moves, with n's mean utility
 * parent_u (mover's view). False when nothing applies: no mirroring side, or it stopped
 * mirroring on this line. */
bool mcts_mirror_node_begin(const struct mcts_search *s, const mcts_node *n, const go_game *g,
                            double parent_u, mcts_mirror_node *mn);
/* The prior a child's move gets in selection: raised for the mirror reply and central moves. */
double mcts_mirror_prior(const struct mcts_search *s, const mcts_mirror_node *mn,
                         const go_game *g, int move, double prior);
/* What a visited child's utility (mover's view, KataGo units) gains to force visits: +100 while
 * its weight child_w is below the share of total_w its move deserves, small biases besides. */
double mcts_mirror_bonus(const struct mcts_search *s, const mcts_mirror_node *mn,
                         const go_game *g, int move, double child_u, double child_w,
                         double total_w);
/* In the hard case (the mirroring side holds tengen), pulls e's win/loss toward the owner of
 * tengen in r's ownership, as KataGo does for every evaluation on a mirrored line. */
void mcts_mirror_adjust_eval(const struct mcts_search *s, const go_game *g, const nn_result *r,
                             mcts_eval *e);

/* A uniform draw in (0, 1) from a go_splitmix64 state (go/hash.h). */
double mcts_rng_uniform(uint64_t *state);

/* The root's priors and allowed moves for this position (mcts.c); evaluates the root. */
bool mcts_prepare_root(struct mcts_search *s, char *err, int err_len);

/* A search thread's body (arg: its mcts_worker). */
void *mcts_worker_main(void *arg);

/* Legality of c at p in g, exactly as go_game_legal but without copying the board for the
 * common non-capturing move under superko rules. */
bool mcts_legal(const go_game *g, int p, go_color c);

#endif
