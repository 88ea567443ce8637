/* tools/gtp_internal.h -- what gtp.c shares with the search and analysis commands
 * (gtp_search.c, gtp_analyze.c) and the input reader (gtp_input.c). Not a public interface. */
#ifndef SHIDO_TOOLS_GTP_INTERNAL_H
#define SHIDO_TOOLS_GTP_INTERNAL_H

#include <stdbool.h>
#include <stdio.h>

#include "go/board.h"
#include "mcts/mcts.h"
#include "tools/gtp.h"

/* A reply under construction. After an allocation failure it stops growing and remembers it,
 * so that handlers need not check every append. */
typedef struct gtp_text {
    char *data;
    size_t len, cap;
    bool oom;
} gtp_text;

void gtp_text_add(gtp_text *t, const char *s);
void gtp_text_printf(gtp_text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Empties t (keeping its storage). */
void gtp_text_clear(gtp_text *t);

/* A command's arguments: argv split at spaces, raw the same text unsplit (for JSON and
 * lz-setoption's names with spaces), id the command's numeric id ("" when none) and out the
 * stream, for commands that answer in several steps (analysis). */
typedef struct gtp_args {
    int argc;
    char **argv;
    const char *raw;
    const char *id;
    FILE *out;
} gtp_args;

/* A handler appends its answer (or, returning false, the reason for failing) to r. A streaming
 * handler writes its whole answer to a->out itself and sets e->replied. */
typedef bool (*gtp_handler)(gtp_engine *e, const gtp_args *a, gtp_text *r);

/* Appends reason to r and returns false. */
bool gtp_fail(gtp_text *r, const char *reason);
bool gtp_parse_int(const char *s, int *out);
bool gtp_parse_number(const char *s, double *out);
bool gtp_parse_color(const char *s, go_color *c);

/* Writes "=id body" or "?id body" and the terminating empty line, flushing out. */
void gtp_write_reply(FILE *out, bool ok, const char *id, const char *body);

/* ---- input (gtp_input.c) ------------------------------------------------------------------ */

/* Reads command lines from a FILE. When the FILE has a file descriptor the reader reads it
 * with read(2) into its own buffer, so that a running search can ask, without blocking,
 * whether another line (or the end of input) has arrived. */
struct gtp_input {
    FILE *f;
    int fd;              /* -1: read f with getc, and nothing is ever "pending" */
    char *buf;
    size_t len, cap;
    bool eof;
    bool too_long;       /* the line being read passed GTP_MAX_LINE: skipped to its newline */
};

bool gtp_input_init(gtp_input *in, FILE *f);
void gtp_input_free(gtp_input *in);

/* The next line without its newline (NUL-terminated, owned by in until the next call), or NULL
 * at the end of input. *too_long is set for a line over GTP_MAX_LINE (its text is dropped). */
const char *gtp_input_next(gtp_input *in, bool *too_long);

/* Whether a whole line or the end of input is waiting, reading what is there without
 * blocking. Always false for a reader without a file descriptor. */
bool gtp_input_pending(gtp_input *in);

/* ---- search and analysis commands (gtp_search.c, gtp_analyze.c) -------------------------- */

/* Visits per genmove when neither the params nor the clock set a limit, and per in-process
 * analysis (KataGo's example configs use 500 too). */
#define GTP_DEFAULT_VISITS 500

/* Applies one search option of `shido gtp` at argv[*i] (--visits, --threads, --set, --config,
 * --backend), advancing *i past its value. Returns 1 when applied, 0 when argv[*i] is not a
 * search option, -1 on a bad value (message in err). */
int gtp_search_option(gtp_engine *e, int argc, char **argv, int *i, char *err, int err_len);

/* Sets one tunable by name (mcts_params_set), accepting KataGo's maxTime in seconds too. */
bool gtp_set_param(mcts_params *p, const char *name, const char *value, char *err, int err_len);

/* Applies a config file of `name = value` lines ('#' starts a comment). Returns false with a
 * message naming the file and line in err. */
bool gtp_read_config(mcts_params *p, const char *path, char *err, int err_len);

/* Whether this build has the backend name; false with the list of those it has in err. */
bool gtp_backend_check(const char *name, char *err, int err_len);

/* Frees the search, its model and settings. */
void gtp_search_free(gtp_engine *e);

/* The model of the first network, loaded on first use for the backend chosen. NULL with the
 * reason in r when there is none or it cannot be loaded. */
nn_model *gtp_model_get(gtp_engine *e, gtp_text *r);

/* The search for the first network, made on first use (loading the model for the backend
 * chosen) with the engine's params applied. NULL with the reason in r when it cannot be made. */
mcts_search *gtp_search_get(gtp_engine *e, gtp_text *r);

/* Runs the search on the current game with lim (report interval and callback as mcts_run);
 * with any_input, while the engine reads from a gtp_input, a new line or the end of input stops
 * the run. Returns false with the reason in r when the search failed. */
bool gtp_search_run(gtp_engine *e, mcts_search *s, const mcts_limits *lim, mcts_progress_fn cb,
                    void *ctx, bool any_input, gtp_text *r);

/* Whether new input (or its end) is waiting: an analysis stream must end. */
bool gtp_search_interrupted(gtp_engine *e);

/* The limits genmove searches with: the params' limits, a default visit count when none is set,
 * and a time budget from the clock. */
mcts_limits gtp_search_move_limits(gtp_engine *e);

/* Plays the search's chosen move for c (after a run) and writes its vertex (or "resign") into
 * buf. Returns false when the move could not be played. */
bool gtp_search_play_chosen(gtp_engine *e, mcts_search *s, go_color c, char *buf, int len);

bool gtp_cmd_genmove(gtp_engine *e, const gtp_args *a, gtp_text *r);

/* ---- tsumego (gtp_tsumego.c) ------------------------------------------------------------- */

/* genmove's move for c from the tsumego solver, when e->tsumego_s > 0 and the position is a
 * corner or side problem: 1 when it played it (vertex or "pass" in r), 0 when it failed (the
 * reason in r), -1 when the position is not a problem and the search should choose. */
int gtp_tsumego_genmove(gtp_engine *e, go_color c, gtp_text *r);
bool gtp_cmd_tsumego_solve(gtp_engine *e, const gtp_args *a, gtp_text *r);
bool gtp_cmd_clear_cache(gtp_engine *e, const gtp_args *a, gtp_text *r);
bool gtp_cmd_stop(gtp_engine *e, const gtp_args *a, gtp_text *r);
bool gtp_cmd_kata_set_param(gtp_engine *e, const gtp_args *a, gtp_text *r);
bool gtp_cmd_kata_get_param(gtp_engine *e, const gtp_args *a, gtp_text *r);
bool gtp_cmd_kata_list_params(gtp_engine *e, const gtp_args *a, gtp_text *r);
bool gtp_cmd_lz_setoption(gtp_engine *e, const gtp_args *a, gtp_text *r);
bool gtp_cmd_final_score(gtp_engine *e, const gtp_args *a, gtp_text *r);
bool gtp_cmd_final_status_list(gtp_engine *e, const gtp_args *a, gtp_text *r);

bool gtp_cmd_lz_analyze(gtp_engine *e, const gtp_args *a, gtp_text *r);
bool gtp_cmd_kata_analyze(gtp_engine *e, const gtp_args *a, gtp_text *r);
bool gtp_cmd_lz_genmove_analyze(gtp_engine *e, const gtp_args *a, gtp_text *r);
bool gtp_cmd_kata_genmove_analyze(gtp_engine *e, const gtp_args *a, gtp_text *r);

#endif
