/* go/tacmap_mine.h -- mining tactical maps that characterise a set of (position, move) pairs
 * (seed 004, the BW Graph Model paper: short maps that characterise a collection's moves are its
 * proposed way to extract style or tesuji).
 *
 * Every position is seen from the side that moved: a pair whose move was White's is stored with
 * the colours swapped, so in a mined map b / black are always the mover's points ("own") and
 * w / white the opponent's ("enemy"), and one map can describe the moves of both colours.
 *
 * Measures of a map M on N pairs (position i, move m_i), with L_i the legal moves of position i
 * and S_i = M(position i) & L_i the moves the map selects (points off L_i never count):
 *   coverage    p = #{i : m_i in S_i} / N
 *   selectivity s = mean_i |S_i| / |L_i|   (the coverage a uniformly random legal move would get)
 *   lift          = p / s
 *   score         = the mean log-likelihood ratio, in bits per move, of the model "the move is in
 *                   S_i with probability p, uniform within S_i or within L_i - S_i" against "the
 *                   move is uniform on L_i":
 *                   score = (1/N) sum_i (m_i in S_i ? log2(p |L_i| / |S_i|)
 *                                                  : log2((1 - p) |L_i| / (|L_i| - |S_i|)))
 *                   It is the number of bits per move the map saves when coding the moves (p is
 *                   the maximum-likelihood estimate). When |S_i| / |L_i| is about constant,
 *                   2 N ln(2) score is the G statistic, about chi-squared with one degree of
 *                   freedom for a map unrelated to the moves. Scores below 0 (possible when set
 *                   sizes vary a lot) are reported as 0, and so is a map that selects the move no
 *                   more often than chance (p <= s): it could only characterise by exclusion, and
 *                   we want maps that contain the moves.
 * The ideal map (always the move, one point) scores mean log2 |L_i|; a map selecting everything
 * or nothing scores 0.
 */
#ifndef SHIDO_GO_TACMAP_MINE_H
#define SHIDO_GO_TACMAP_MINE_H

#include <stdbool.h>
#include <stdint.h>

#include "go/board.h"
#include "go/tacmap.h"

typedef struct go_tm_mine_stats {
    int pairs;
    int hits;               /* pairs whose move is in S_i */
    double coverage;        /* hits / pairs */
    double mean_selected;   /* mean |S_i| */
    double mean_legal;      /* mean |L_i| */
    double selectivity;     /* mean |S_i| / |L_i| */
    double lift;            /* coverage / selectivity; 0 when selectivity is 0 */
    double score_bits;      /* the log-likelihood ratio above; 0 when coverage <= selectivity */
} go_tm_mine_stats;

/* The measures from per-pair numbers: hit[i] (move in S_i), selected[i] = |S_i|, legal[i] = |L_i|
 * (hit[i] implies selected[i] >= 1; legal[i] >= 1 and > selected[i] when !hit[i]). n = 0 gives
 * all zeros. */
go_tm_mine_stats go_tm_mine_score(int n, const bool *hit, const int *selected, const int *legal);

/* A set of pairs, positions already converted to the BW Graph Model. Opaque; owned by the caller
 * through new / free. */
typedef struct go_tm_mine_set go_tm_mine_set;

/* Returns an empty set, or NULL when out of memory. */
go_tm_mine_set *go_tm_mine_set_new(void);
void go_tm_mine_set_free(go_tm_mine_set *s);

/* Adds the position b with mover's move (a board point). Returns false with the reason in err
 * when the move is a pass, off the board or illegal, or when out of memory. */
bool go_tm_mine_set_add(go_tm_mine_set *s, const go_board *b, int move, go_color mover, char *err,
                        int err_len);

int go_tm_mine_set_count(const go_tm_mine_set *s);

/* The measures of one map on the set; S_i is written to sets[i] when sets is not NULL (count
 * entries). */
go_tm_mine_stats go_tm_mine_eval(const go_tm_mine_set *s, const go_tmap *m, go_bb *sets);

typedef struct go_tm_mine_params {
    int max_depth;          /* deepest map, 1..GO_TM_MAX_RANDOM_DEPTH (default 4) */
    long tries;             /* random maps: 3 in 4 grown, 1 in 4 uniform, depths 2..max cycled */
    bool enumerate;         /* also every map of depth <= 2 and every unary operator applied to
                             * one (9,600 maps at max_depth >= 3) */
    int refine;             /* intersect every pair of the best `refine` maps that overlap no
                             * better one by more than 0.9 (0 = none) */
    double max_overlap;     /* a map is reported only if its sets overlap those of every better
                             * reported map by at most this much (mean over the pairs of
                             * |S & S'| / |S | S'|); >= 1 reports near-duplicates too */
    int threads;            /* worker threads, >= 1 */
    uint64_t seed;
    /* Called from the calling thread about 4 times a second while workers run; may be NULL. */
    void (*progress)(long done, long total, void *ctx);
    void *progress_ctx;
} go_tm_mine_params;

/* max_depth 4, 200,000 tries, enumerate, refine 200, max_overlap 0.7, 1 thread, seed 1, no
 * progress. */
go_tm_mine_params go_tm_mine_defaults(void);

typedef struct go_tm_mined {
    go_tmap map;
    int depth;
    go_tm_mine_stats stats;
} go_tm_mined;

typedef struct go_tm_mine_info {
    long evaluated;         /* maps evaluated on the whole set */
    long distinct;          /* of those with score > 0: distinct selected sets */
    double seconds;
} go_tm_mine_info;

/* Searches maps and writes the best max_out into out, by score (ties: shallower, fewer nodes, then
 * the printed form), at most one map per distinct family of selected sets (S_1..S_N): the
 * shallowest, smallest spelling of it; maps too close to a better one (max_overlap) are skipped. The result does not depend on params->threads. Returns how
 * many were written (maps scoring 0 are not), or -1 with the reason in err (empty set, bad
 * parameters, out of memory, no thread could start). info may be NULL. */
int go_tm_mine_run(const go_tm_mine_set *s, const go_tm_mine_params *params, go_tm_mined *out,
                   int max_out, go_tm_mine_info *info, char *err, int err_len);

/* A plain-words reading of the map from the mover's side ("points in or next to [enemy stones]"),
 * written into buf. Returns the length, or -1 when buf was too small (truncated, terminated). */
int go_tm_mine_gloss(const go_tmap *m, char *buf, int len);

/* One line defining operator op (a go_tm_op) in plain words, for a legend; a static string. */
const char *go_tm_mine_op_legend(int op);

#endif
