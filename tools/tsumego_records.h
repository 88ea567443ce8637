/* tools/tsumego_records.h -- tsumego problems as the benchmark reads them: a JSON Lines record
 * ({"id", "size", "to_play", "AB", "AW", "solutions", "comment"}, SGF points) or an SGF game tree
 * (the set-up before the first move, the first moves as variations; see tsumego_record_from_sgf).
 */
#ifndef SHIDO_TOOLS_TSUMEGO_RECORDS_H
#define SHIDO_TOOLS_TSUMEGO_RECORDS_H

#include <stdbool.h>
#include <stddef.h>

#include "go/board.h"
#include "go/sgf.h"
#include "go/tsumego.h"

#define TSUMEGO_MAX_LIST 400 /* points in one AB / AW / solutions list */

typedef struct tsumego_record {
    char id[128];
    int size;
    go_color to_play;
    go_tsumego_goal hint; /* named by the problem's statement (AUTO when it names none) */
    bool unreadable;      /* an SGF problem that could not be read: counted as refused */
    int nab, naw, nsol;
    char ab[TSUMEGO_MAX_LIST][3], aw[TSUMEGO_MAX_LIST][3], sol[TSUMEGO_MAX_LIST][3];
} tsumego_record;

/* One JSON Lines record (other keys are ignored). False with the reason in why. */
bool tsumego_record_from_json(const char *line, tsumego_record *r, char *why, size_t why_len);

/* One SGF game tree (r->id is left to the caller). False with the reason in why. */
bool tsumego_record_from_sgf(const go_sgf_node *root, tsumego_record *r, char *why,
                             size_t why_len);

/* Every problem of a JSON Lines file (blank lines skipped), malloc'd (the caller frees it) with
 * their number in *count; NULL with "path:line: reason" in err. */
tsumego_record *tsumego_records_read_jsonl(const char *path, int *count, char *err,
                                           size_t err_len);

/* The board point of a two-letter SGF point on a size x size board, or GO_NO_POINT. */
int tsumego_record_point(int size, const char *t);

/* The record's position, to_play to move; false when a stone is off the board or doubled. */
bool tsumego_record_board(const tsumego_record *r, go_board *b);

#endif
