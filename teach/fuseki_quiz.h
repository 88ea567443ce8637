/* teach/fuseki_quiz.h -- multiple-choice opening (fuseki) quizzes: seed 000's generator of wrong
 * answers ("unsuggested moves", section 6), with explanations, difficulty and quality filters.
 *
 * Given a position and its suggested move (the answer), the paper's framework takes the top
 * `candidates` (25) moves by Prior_StrongHuman, searches each (paper: KataGo, 800 visits), and
 * for each of three kinds of wrong answer outputs, among the moves meeting every condition of
 * the kind, the one of largest Prior_StrongHuman. Conditions (every threshold a parameter, the
 * paper's value its default):
 *   all kinds     score loss against the answer >= 0.5 points; Prior_KataGo < 0.001;
 *   big point     stone density within Rémi distance 8 == 0; Rémi distance to the answer >= 8;
 *   near          Rémi distance to the answer <= 8; Prior_StrongHuman >= 0.01; score loss >= 1;
 *   over-strengthening   contribution to strengthening own stones (eq. 2) >= 0.1.
 * One network. When Prior_StrongHuman comes from the main network (no second network loaded),
 * the paper's conditions contradict each other: its top 25 moves are the ones it rates highly,
 * which Prior_KataGo < 0.001 then excludes (with the shared 6-block net, 20 to 50 moves of an
 * opening position have a policy of 0.001 or more), and no move has Prior_StrongHuman >= 0.01
 * with Prior_KataGo < 0.001. With one_net on (the default) the generator then takes the top 25
 * among the moves that meet Prior_KataGo < max_prior_katago (the most natural moves the network
 * still rates low) and asks near moves for Prior_StrongHuman >= one_net_near_min_prior (1e-4:
 * the upper half of the [1e-5, 1e-3) band where the paper's wrong answers lie). With a second
 * network the paper's framework stands as it is.
 * A quiz needs distinct choices, so a move that qualifies for two kinds is the wrong answer of
 * the scarcer one (over-strengthening before big point before near: in professional openings
 * 17%, 50% and 76% of positions have one) and the other kind takes its next candidate.
 *
 * Cost. Candidates are taken in order of Prior_StrongHuman and a candidate is searched only
 * when a kind still open could take it by its conditions that need no search (Prior_KataGo,
 * density, distances, Prior_StrongHuman); the scan stops once every kind has its wrong answer.
 * This gives exactly the framework's choice (the first qualifying candidate in prior order)
 * for a fraction of the searches. The screening searches run `visits` visits (default 1: the
 * network's own evaluation of the position after the move; the paper's 800 with visits=800);
 * the chosen moves are then confirmed by the deeper search below, which decides.
 *
 * Beyond the paper:
 *  - quality: the answer, the pass and every chosen wrong answer are searched again at
 *    deep_visits (32); every condition of the kind is checked again on the deep searches'
 *    features, and the answer must lead by deep_margin points; a wrong answer that fails is
 *    dropped and its kind takes its next candidate. A quiz's features are the deep ones. No two
 *    choices may be copies of each other under a symmetry of
 *    the position (a candidate that copies the answer or a chosen move is skipped);
 *  - difficulty: for each wrong answer, the fewest visits (1, 2, 4, ... up to deep_visits) at
 *    which a search of the position after the answer finds it better than the search after the
 *    wrong answer, for that count and every larger one (1 visit: the network's value alone), and
 *    whether each policy (the main network's, Prior_StrongHuman's) alone prefers the answer;
 *  - an explanation of every choice from its features (teach/explain.h), in English and
 *    Japanese.
 * Searches are deterministic (one search thread, a fixed seed: see teach/features.h), so a
 * position gives the same quiz on any thread and in any run. */
#ifndef SHIDO_TEACH_FUSEKI_QUIZ_H
#define SHIDO_TEACH_FUSEKI_QUIZ_H

#include <stdbool.h>
#include <stdint.h>

#include "go/game.h"
#include "go/sgf.h"
#include "teach/engine.h"
#include "teach/features.h"

typedef enum {
    TEACH_QUIZ_ANSWER = -1,
    TEACH_QUIZ_BIG_POINT = 0,        /* a big point elsewhere (oba) */
    TEACH_QUIZ_NEAR = 1,             /* near the answer: shape, direction */
    TEACH_QUIZ_OVER_STRENGTHEN = 2,  /* strengthens own stones that need no help yet */
    TEACH_QUIZ_KINDS = 3,
} teach_quiz_kind;

/* Short names of the kinds: "answer", "big_point", "near", "over_strengthen". */
const char *teach_quiz_kind_name(teach_quiz_kind k);

/* Conditions, as bits of teach_quiz_check's answer. */
enum {
    TEACH_QUIZ_FAIL_SCORE_LOSS = 1 << 0,    /* score loss < min_score_loss */
    TEACH_QUIZ_FAIL_PRIOR_KATAGO = 1 << 1,  /* Prior_KataGo >= max_prior_katago */
    TEACH_QUIZ_FAIL_DENSITY = 1 << 2,       /* big point: density > big_max_density */
    TEACH_QUIZ_FAIL_FAR = 1 << 3,           /* big point: distance < big_min_dist */
    TEACH_QUIZ_FAIL_NEAR = 1 << 4,          /* near: distance > near_max_dist */
    TEACH_QUIZ_FAIL_HUMAN_PRIOR = 1 << 5,   /* near: Prior_StrongHuman < near_min_human_prior */
    TEACH_QUIZ_FAIL_NEAR_LOSS = 1 << 6,     /* near: score loss < near_min_score_loss */
    TEACH_QUIZ_FAIL_STRENGTHEN = 1 << 7,    /* over: strengthening < over_min_strengthen */
};

typedef struct teach_quiz_params {
    /* the paper's framework */
    int candidates;                /* top moves by Prior_StrongHuman: 25 */
    int visits;                    /* screening search after each move: 1 (paper 800) */
    double min_score_loss;         /* every kind: 0.5 points */
    double max_prior_katago;       /* every kind: Prior_KataGo below 0.001 */
    double big_max_density;        /* big point: density <= 0 */
    int big_min_dist;              /* big point: Rémi distance to the answer >= 8 */
    int near_max_dist;             /* near: <= 8 */
    double near_min_human_prior;   /* near: >= 0.01 */
    double near_min_score_loss;    /* near: >= 1.0 points */
    double over_min_strengthen;    /* over-strengthening: >= 0.1 */
    /* beyond it */
    int deep_visits;               /* the confirming search and difficulty: 32 (<= visits:
                                      off) */
    double deep_margin;            /* answer ahead of every wrong answer by >= 0.5 points */
    bool drop_symmetric;           /* no two choices symmetric copies: true */
    double explain_min_contribution;   /* a contribution worth naming in a sentence: 0.05 */
    bool one_net;                  /* the one-network adaptation above: true */
    double one_net_near_min_prior; /* near, one network: Prior_StrongHuman >= 1e-4 */
} teach_quiz_params;

/* The defaults above. */
teach_quiz_params teach_quiz_params_default(void);

/* Sets one parameter by name (the field names above, '-' for '_' accepted). False with a reason
 * in err for an unknown name or a bad value. */
bool teach_quiz_params_set(teach_quiz_params *p, const char *name, const char *value, char *err,
                           int err_len);

/* The names, one a line with the default and a few words each (static text). */
const char *teach_quiz_params_help(void);

/* The conditions of kind k that f fails, as TEACH_QUIZ_FAIL_* bits (0: f qualifies). f's
 * score_loss, dist_ref and contributions are against the answer; a NAN value fails. With
 * searched false only the conditions needing no search are checked. one_net: Prior_StrongHuman
 * is the main network's and p->one_net is on (near then asks for one_net_near_min_prior). */
unsigned teach_quiz_check(const teach_quiz_params *p, teach_quiz_kind k,
                          const teach_move_features *f, bool searched, bool one_net);

#define TEACH_QUIZ_MAX_CHOICES 4
#define TEACH_QUIZ_CHECKPOINTS 16      /* visit counts 1, 2, 4, ... recorded per deep search */
#define TEACH_QUIZ_TEXT 512

typedef struct teach_quiz_choice {
    teach_quiz_kind kind;
    char label;                    /* 'A'.. in board order of the labels shown */
    teach_move_features f;         /* against the answer, screening search */
    double deep_score_lead;        /* mover's view, deep search (NAN when none) */
    double deep_score_loss;        /* answer's deep lead - this one's (0 for the answer) */
    int difficulty_visits;         /* wrong answers: see the header; -1 never; 0 unknown */
    bool katago_prefers_answer;    /* main policy: answer > this move */
    bool human_prefers_answer;     /* Prior_StrongHuman: answer > this move */
    char explain_en[TEACH_QUIZ_TEXT];
    char explain_ja[TEACH_QUIZ_TEXT];
} teach_quiz_choice;

/* Why a kind has no wrong answer. */
typedef enum {
    TEACH_QUIZ_FOUND = 0,
    TEACH_QUIZ_NONE_QUALIFIES,     /* no candidate met every condition */
    TEACH_QUIZ_SYMMETRIC,          /* the only ones were symmetric copies of other choices */
    TEACH_QUIZ_SHALLOW,            /* the only ones failed the deeper search */
} teach_quiz_missing;

typedef struct teach_quiz {
    int size;
    go_color to_move;
    int answer;                    /* the suggested move */
    int num_choices;               /* the answer and the wrong answers found (1..4) */
    teach_quiz_choice choices[TEACH_QUIZ_MAX_CHOICES];   /* by label: A, B, ... */
    int answer_index;              /* of the answer in choices */
    teach_quiz_missing missing[TEACH_QUIZ_KINDS];
    bool one_net;                  /* made under the one-network adaptation */
    int searched;                  /* candidates searched (screening) */
    int dropped_shallow;           /* wrong answers the deep search dropped */
    int dropped_symmetric;         /* candidates skipped as symmetric copies */
    int difficulty;                /* the largest difficulty_visits (-1 when one never) */
    const char *grade;             /* "easy", "medium", "hard" (static) */
    char question_en[TEACH_QUIZ_TEXT];
    char question_ja[TEACH_QUIZ_TEXT];
} teach_quiz;

/* Whether q has at least one wrong answer. */
static inline bool teach_quiz_usable(const teach_quiz *q) { return q->num_choices > 1; }

/* The choice of kind k in q, or NULL. */
const teach_quiz_choice *teach_quiz_find(const teach_quiz *q, teach_quiz_kind k);

/* Makes the quiz of the position g with suggested move answer (GO_NO_POINT: the best move of a
 * search at deep_visits, or at visits when the deep check is off) on f (whose position it sets).
 * False with a reason naming the move in err: an illegal or pass answer, a failed evaluation. */
bool teach_quiz_make(teach_features *f, const teach_quiz_params *p, const go_game *g, int answer,
                     teach_quiz *q, char *err, int err_len);

/* The quiz as a one-game SGF collection: root with the game information given (any may be
 * NULL), the moves of g (its setup as AB/AW), on the last node the choices as LB labels, the
 * question, answer and explanations (English, then Japanese) in C, and one variation per choice
 * (the answer first, its explanation starting "Correct", with TE; the others "Wrong (kind)" with
 * BM) with its explanation.
 * NULL when out of memory; the caller frees it with go_sgf_free. */
go_sgf_collection *teach_quiz_sgf(const teach_quiz *q, const go_game *g, const char *game_name,
                                  const char *black, const char *white);

#endif
