/* tools/tsumego_oracle.h -- a second opinion on the solver's answers: another engine's
 * life-and-death reading over GTP (`shido tsumego bench --oracle CMD`).
 *
 * The engine (GNU Go: "/usr/games/gnugo --mode gtp") gets the framed board of a problem
 * (go_tsumego_problem.framed, so the outside cannot interfere for it either) and the mover's
 * first move, then reads each defender stone of the region that is still on the board: with
 * owl_defend for a kill (the defender to move; 0 = it cannot be saved) and owl_attack for a life
 * (the attacker to move; 0 = it cannot be killed). The move reaches the goal in its reading when
 * every such stone is dead (kill: the solver's attacker must capture every target) or one of
 * them lives (life: one surviving target is the solver's success). Owl reads heuristically, so a
 * disagreement is a question to look at, not a proof of a wrong answer. */
#ifndef SHIDO_TOOLS_TSUMEGO_ORACLE_H
#define SHIDO_TOOLS_TSUMEGO_ORACLE_H

#include "go/tsumego.h"

typedef struct tsumego_oracle tsumego_oracle;

/* Starts the engine (a shell command line); SIGPIPE is ignored from then on, so that a write to
 * an engine that has gone fails instead of ending the process. NULL with the reason in err when
 * it cannot be started or does not know owl_attack (known_command). */
tsumego_oracle *tsumego_oracle_start(const char *command, char *err, int err_len);
void tsumego_oracle_stop(tsumego_oracle *o);

/* Whether the engine reads first (a move of p->to_play, or GO_PASS) as reaching p->goal: 1 yes,
 * 0 no, -1 when the engine failed or refused the position (reason in err). */
int tsumego_oracle_check(tsumego_oracle *o, const go_tsumego_problem *p, int first, char *err,
                         int err_len);

#endif
