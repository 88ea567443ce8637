/* teach/review.h -- a whole-game review that explains, with KaTrain 1.20's report as the anchor
 * (../shared/docs/katrain-ai-modes.md section 4).
 *
 * Every position of the main line (before each move, and after the last) is searched at the
 * review's visit count. From two consecutive positions, as KaTrain does:
 *   points lost = the mover's score lead before the move - after it (both root values of the
 *   searches, the second turned to the mover's view); it may be negative;
 *   class: the first i with loss >= thresholds[i] among 12, 6, 3, 1.5, 0.5 (else the last, 5);
 *   complexity w = min(1, sum of max(0, c.loss) * c.prior / sum of c.prior) over the candidates
 *   of the search before the move (c.loss: the root's lead less the candidate's);
 *   top move: the played move is the search's first; top 5: it is among the candidates with
 *   order 0, or with order < 5 and loss < 0.5;
 *   per player: accuracy 100 * 0.75^(sum(pl * a) / sum(a)) with pl = max(0, loss) and
 *   importance a = clamp(max(w, pl / 4), 0.05, 1); mean loss; top move and top 5 shares.
 * Beyond KaTrain every move carries seed 000's features (teach/features.h): distances to the
 * last two moves, density, priors and policy rank, the score loss against the search's best
 * move, and the contributions (ownership after the move: the next position's search; after a
 * pass: one network evaluation of the position with a pass), and a mistake of at least
 * explain_min_loss points gets a one-line explanation (teach/explain.h). */
#ifndef SHIDO_TEACH_REVIEW_H
#define SHIDO_TEACH_REVIEW_H

#include <stdbool.h>
#include <stdint.h>

#include "go/game.h"
#include "go/sgf.h"
#include "mcts/mcts.h"
#include "teach/features.h"

#define TEACH_REVIEW_CLASSES 6
#define TEACH_REVIEW_MAX_CANDIDATES 32   /* candidates kept per position for complexity, top 5 */
#define TEACH_REVIEW_PV 16
#define TEACH_REVIEW_TEXT 320

typedef struct teach_review_params {
    int visits;                /* per position: 500 (KaTrain's) */
    double thresholds[TEACH_REVIEW_CLASSES];   /* KaTrain's eval_thresholds: 12 6 3 1.5 0.5 0 */
    double explain_min_loss;   /* mistakes explained: 3 (KaTrain's "mistake") */
    double explain_min_contribution;   /* a contribution named in explanations: 0.05 */
} teach_review_params;

teach_review_params teach_review_params_default(void);

/* KaTrain's class of a loss (0: >= 12 ... 5: < 0.5). */
int teach_review_class(const teach_review_params *p, double loss);

/* KaTrain's label of class k: "≥ 12", ..., "≥ 0.5", "< 0.5" (into buf, returned). */
const char *teach_review_class_label(const teach_review_params *p, int k, char *buf, int len);

/* One candidate of a position's search. */
typedef struct teach_review_cand {
    int move, order;
    int64_t visits;
    double score_lead;         /* mover's view */
    double prior;
} teach_review_cand;

/* What the search of one position found (the job of one worker). */
typedef struct teach_review_pos {
    go_color to_move;
    int played;                /* the game's next move, GO_NO_POINT after the last */
    double score_lead, winrate;   /* root, the side to move's view */
    bool has_ownership;
    float ownership[NN_MAX_POINTS];       /* root, white's view */
    int num_cands;
    teach_review_cand cands[TEACH_REVIEW_MAX_CANDIDATES];   /* by the search's order */
    int pv_len;
    int pv[TEACH_REVIEW_PV];   /* the best move's line */
    teach_move_features played_f;   /* static features of the played move (no search values) */
    teach_move_features best_f;     /* the best move's, with its subtree's contributions */
    int top_policy;            /* the main policy's favourite */
    double top_policy_prior;
    bool has_pass_ownership;
    float pass_ownership[NN_MAX_POINTS];  /* after a pass, one network evaluation */
} teach_review_pos;

/* Searches position g (the game so far; played: its next move or GO_NO_POINT) on f at
 * p->visits. False with a reason in err. */
bool teach_review_analyse(teach_features *f, const go_game *g, int played,
                          const teach_review_params *p, teach_review_pos *out, char *err,
                          int err_len);

/* One reviewed move. */
typedef struct teach_review_move {
    int number;                /* 1-based */
    go_color color;
    int move;
    double score_before, score_after;      /* the mover's view */
    double winrate_before, winrate_after;  /* the mover's view */
    double loss;               /* KaTrain's points lost (may be negative) */
    int klass;
    double complexity;
    bool top_move, top5;
    int best;                  /* the search's first move before it */
    double best_loss;          /* the root lead less the best candidate's (0 when best) */
    int pv_len;
    int pv[TEACH_REVIEW_PV];
    int top_policy;
    double top_policy_prior;
    teach_move_features f;     /* the played move's (score_loss against the best candidate) */
    teach_move_features best_f;
    bool explained;
    char explain_en[TEACH_REVIEW_TEXT];
    char explain_ja[TEACH_REVIEW_TEXT];
} teach_review_move;

/* The moves of game from its n + 1 analysed positions (pos[i]: before move i + 1, pos[n]:
 * after the last), into moves[0..n-1]. */
void teach_review_assemble(const go_game *game, const teach_review_pos *pos,
                           const teach_review_params *p, teach_review_move *moves);

/* One player's summary. */
typedef struct teach_review_player {
    int moves;                 /* counted (every move of the colour) */
    int classes[TEACH_REVIEW_CLASSES];   /* of max(0, loss) */
    double accuracy;           /* NAN without moves */
    double mean_loss, weighted_loss, complexity;
    double top_move, top5;     /* shares */
    int biggest[3];            /* indices into the moves of the largest losses, -1 when fewer */
} teach_review_player;

/* Summaries of black ([0]) and white ([1]) over moves[0..n-1]. */
void teach_review_summarise(const teach_review_move *moves, int n, const teach_review_params *p,
                            teach_review_player out[2]);

/* The game back as SGF (a one-game collection; NULL when out of memory, the caller frees it
 * with go_sgf_free): root properties of the original (orig may be NULL) kept except the moves,
 * the summary in the root's comment (summary_text, may be NULL), at every move a comment with
 * its score, loss and class, policy rank, the best move and its line, the features and, for a
 * mistake, the explanation (English, then Japanese), and the best move's line as a variation
 * beside the played move when they differ. */
go_sgf_collection *teach_review_sgf(const go_sgf_node *orig, const go_game *game,
                                    const teach_review_move *moves, int n,
                                    const teach_review_params *p, const char *summary_text);

/* The comment of one move as teach_review_sgf writes it (into buf, returned). */
const char *teach_review_comment(const teach_review_move *m, int size,
                                 const teach_review_params *p, char *buf, int len);

#endif
