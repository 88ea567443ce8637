/* tools/gtp_internal.h -- what gtp.c shares with the search and analysis commands
 * (gtp_search.c, gtp_analyze.c) and the input reader (gtp_input.c). Not a public interface. */
#ifndef SHIDO_TOOLS_GTP_INTERNAL_H
#define SHIDO_TOOLS_GTP_INTERNAL_H

#include <stdbool.h>
#include <stdio.h>

#include "go/board.h"
#include "mcts/mcts.h"
#include "teach/player.h"
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

/* ---- search and analysis commands (gtp_search.c, gtp_analyze.c) -------------------------- */

/* The search player on the first network, made on first use, with the engine's tunables applied
 * (avoid/allow lists of an earlier analysis dropped). NULL with the reason in r when there is no
 * network or the search cannot start. */
teach_player *gtp_search_get(gtp_engine *e, gtp_text *r);

/* The player genmove asks: with --tsumego the solver (the search behind it when a network is
 * loaded), else the search. NULL with the reason in r. */
teach_player *gtp_player_get(gtp_engine *e, gtp_text *r);

/* Sets p's position to the game and thinks within lim: a move (genmove, into *move; under a
 * clock the time manager's plan stops it, and e->moved_color / moved_stop_s record it for the
 * clock) or an analysis. cb and ctx report progress as mcts_run's; with any_input, while the engine reads
 * from a gtp_input, a new line or the end of input stops the thinking. Returns false with the
 * reason in r. */
bool gtp_think(gtp_engine *e, teach_player *p, const mcts_limits *lim, mcts_progress_fn cb,
               void *ctx, bool any_input, int *move, gtp_text *r);

/* The limits a move is searched with: the tunables' limits and a default visit count when none
 * is set; under a clock the tunables' maxTime only, since gtp_think's time manager stops the
 * search (teach/timing.h). */
mcts_limits gtp_move_limits(gtp_engine *e);

/* Searches on with the opponent to move (pondering) until a new line or the end of input
 * arrives, or the tree holds e->ponder_visits visits. */
void gtp_ponder(gtp_engine *e);

/* Plays move for c (a point, GO_PASS or MCTS_RESIGN) and writes its vertex (or "resign") into
 * buf. Returns false when the move could not be played. */
bool gtp_play_chosen(gtp_engine *e, int move, go_color c, char *buf, int len);

/* Drops the players and the solver (the networks they run on are replaced or freed). */
void gtp_players_free(gtp_engine *e);

bool gtp_cmd_genmove(gtp_engine *e, const gtp_args *a, gtp_text *r);

/* ---- tsumego (gtp_tsumego.c) ------------------------------------------------------------- */

/* The solver, made on first use: guided by the first network when one is loaded, stubborn
 * (genmove resists a right move the hardest way it can), capped at tsumego_max_s. NULL with the
 * reason in r. */
teach_tsumego *gtp_tsumego_get(gtp_engine *e, gtp_text *r);

bool gtp_cmd_tsumego_solve(gtp_engine *e, const gtp_args *a, gtp_text *r);
bool gtp_cmd_clear_cache(gtp_engine *e, const gtp_args *a, gtp_text *r);
bool gtp_cmd_stop(gtp_engine *e, const gtp_args *a, gtp_text *r);
bool gtp_cmd_kata_set_param(gtp_engine *e, const gtp_args *a, gtp_text *r);
bool gtp_cmd_kata_get_param(gtp_engine *e, const gtp_args *a, gtp_text *r);
bool gtp_cmd_kata_list_params(gtp_engine *e, const gtp_args *a, gtp_text *r);
bool gtp_cmd_kata_get_params(gtp_engine *e, const gtp_args *a, gtp_text *r);
bool gtp_cmd_kata_set_params(gtp_engine *e, const gtp_args *a, gtp_text *r);
bool gtp_cmd_kata_get_models(gtp_engine *e, const gtp_args *a, gtp_text *r);
bool gtp_cmd_lz_setoption(gtp_engine *e, const gtp_args *a, gtp_text *r);
bool gtp_cmd_final_score(gtp_engine *e, const gtp_args *a, gtp_text *r);
bool gtp_cmd_final_status_list(gtp_engine *e, const gtp_args *a, gtp_text *r);

bool gtp_cmd_lz_analyze(gtp_engine *e, const gtp_args *a, gtp_text *r);
bool gtp_cmd_kata_analyze(gtp_engine *e, const gtp_args *a, gtp_text *r);
bool gtp_cmd_lz_genmove_analyze(gtp_engine *e, const gtp_args *a, gtp_text *r);
bool gtp_cmd_kata_genmove_analyze(gtp_engine *e, const gtp_args *a, gtp_text *r);

#endif
