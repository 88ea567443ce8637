/* teach/explain.h -- one-sentence explanations of moves from their features (teach/features.h),
 * templated in English and Japanese: the choices of a fuseki quiz and the mistakes of a game
 * review.
 *
 * What a move "does" is read from its features: a contribution (eqs. 2 and 3) of at least
 * min_contribution to strengthening own stones or weakening the opponent's names that effect
 * ("it settles both groups' bases" when it does both, "it strengthens own stones", "it presses
 * the opponent's stones"), a density of 0 makes it a big point, and otherwise it is "the key
 * point". Point differences are score leads in the mover's view, one decimal. */
#ifndef SHIDO_TEACH_EXPLAIN_H
#define SHIDO_TEACH_EXPLAIN_H

#include "teach/features.h"
#include "teach/fuseki_quiz.h"

typedef enum { TEACH_LANG_EN = 0, TEACH_LANG_JA = 1 } teach_lang;

/* The sentence for one choice of a quiz into buf (len bytes, always terminated): the answer's
 * (kind TEACH_QUIZ_ANSWER: what it does and by how much it leads, worst_loss the largest score
 * loss of a wrong choice) or a wrong answer's (why it is tempting and what the answer does
 * better). size is the board size (for vertices). */
void teach_explain_choice(teach_quiz_kind kind, const teach_move_features *choice,
                          const teach_move_features *answer, double worst_loss, int size,
                          double min_contribution, teach_lang lang, char *buf, int len);

/* The one-line explanation of a mistake in a game review: the move played, the better move best
 * (features against the same position), loss the points lost. Names the likely kind of mistake
 * (defending what was not threatened, a big point before an urgent one, the wrong shape near
 * the right point, leaving the fight of the last move, or simply the better point). */
void teach_explain_mistake(const teach_move_features *played, const teach_move_features *best,
                           double loss, int size, double min_contribution, teach_lang lang,
                           char *buf, int len);

#endif
