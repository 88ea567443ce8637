/* tools/match_internal.h -- what tools/match.c (options, workers, report) and
 * tools/match_game.c (one game: set-up, moves, scoring, SGF) share. */
#ifndef SHIDO_TOOLS_MATCH_INTERNAL_H
#define SHIDO_TOOLS_MATCH_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>

#include "go/game.h"
#include "go/rules.h"
#include "go/time_control.h"
#include "tools/gtp_client.h"

#define MATCH_MAX_SETUP 32    /* --setupN lines per engine */
#define MATCH_NAME_LEN 128
#define MATCH_START_FAILURES 3 /* engine starts in a row that die unanswered before we give up */
#define MATCH_MAX_OPENINGS 1000 /* --opening positions */

/* A position games start from (--opening): the main line of an SGF game, or its first N moves. */
typedef struct match_opening {
    const char *spec;     /* as given: FILE or FILE:N */
    int num_moves;
    go_move *moves;
} match_opening;

typedef struct match_options {
    const char *command[2];             /* engine command lines */
    char name[2][MATCH_NAME_LEN];       /* --nameN, or filled from the engines' name/version */
    bool name_given[2];
    const char *setup[2][MATCH_MAX_SETUP];
    int num_setup[2];
    int games, size, handicap, max_moves, parallel;
    float komi;
    const char *rules_text;             /* --rules as given, NULL: engines' own defaults */
    go_rules rules;                     /* shido's rules: --rules, else Chinese */
    bool timed;                         /* --time-settings given */
    int main_time_s, byoyomi_s, byoyomi_stones;
    go_time_control clock;              /* the clock time_settings describes, kept by shido */
    double time_grace_s;                /* --time-grace: lateness that does not lose */
    const char *sgf_dir, *jsonl_path;
    unsigned long long seed;
    int timeout_ms, genmove_timeout_ms;
    bool show_stderr;
    match_opening *openings;            /* games 2k and 2k+1 start from opening k mod count */
    int num_openings;
} match_options;

/* Frees the openings the options hold. */
void match_openings_free(match_options *opt);

/* One engine as a worker holds it between games. */
typedef struct match_engine {
    gtp_client gtp;
    bool running;         /* started and not yet stopped */
    bool knows_rules;     /* answered known_command kata-set-rules with true */
    int start_failures;   /* starts in a row that exited before any reply */
} match_engine;

/* Why a game ended. */
typedef enum {
    MATCH_END_PASSES,     /* two passes in a row */
    MATCH_END_MOVE_LIMIT, /* --max-moves reached */
    MATCH_END_RESIGN,
    MATCH_END_ILLEGAL,    /* the mover played a move shido or the other engine refused */
    MATCH_END_FORFEIT,    /* an engine exited, timed out, answered garbage or refused set-up */
    MATCH_END_TIME,       /* the mover's flag fell on shido's clock */
    MATCH_END_VOID,       /* both engines failed at set-up: no result */
} match_end;

#define MATCH_DRAW (-1)
#define MATCH_NO_RESULT (-2)

typedef struct match_result {
    int game;                   /* 0-based */
    int opening;                /* index into the options' openings, -1 for the empty board */
    int black;                  /* engine (0 or 1) playing black */
    int winner;                 /* engine 0 or 1, MATCH_DRAW or MATCH_NO_RESULT */
    char re[32];                /* SGF RE: "B+3.5", "W+R", "B+F", "0", "Void" */
    int moves;                  /* moves played (passes included) */
    match_end end;
    bool by_shido;              /* scored by shido because the engines disagreed or failed */
    bool have_lead;
    double black_lead;          /* the score used, black's view, when have_lead */
    char final_score[2][64];    /* each engine's final_score answer, "" when none */
    char reason[200];           /* how the game was decided, one short phrase */
    char detail[768];           /* the full story, for SGF C[] and the JSON line */
    char errors[2][600];        /* engine failures in this game, "" when none */
    double think_s[2];          /* time each engine spent in genmove */
    int moves_by[2];            /* genmoves each engine answered */
    int late[2];                /* moves over the clock within --time-grace */
    double longest_s[2];        /* each engine's longest genmove */
    char sgf_path[512];         /* "" when not written */
} match_result;

/* Shared by the workers. */
typedef struct match_state {
    const match_options *opt;
    pthread_mutex_t lock;       /* next_game, abort, output */
    int next_game;
    bool abort;                 /* an engine keeps failing to start: stop handing out games */
    char abort_why[700];
    match_result *results;      /* opt->games entries */
    bool *done;                 /* which results are filled */
    int finished;               /* games reported so far */
    double start_s;             /* when the games began (go_now_s) */
    FILE *jsonl;
} match_state;

/* Starts engine e (0 or 1) of a worker if it is not running and checks it answers. Returns 1 when
 * it runs and answered, 0 when it runs but misbehaves (why says how), -1 when it could not start
 * or exited before answering anything (why says how). */
int match_engine_up(const match_options *opt, match_engine *eng, int e, char *why, int why_len);

/* Stops a worker's engine (asks it to quit, then kills it). */
void match_engine_down(match_engine *eng);

/* Plays game r->game (r zeroed by the caller apart from game) between the worker's engines and
 * writes its SGF when asked. Engine failures are recorded in r->errors and leave the engine
 * stopped, to be restarted by the next game. Returns false, with the reason in why, when the
 * match cannot go on: an engine could not start MATCH_START_FAILURES times in a row, or the SGF
 * could not be written. */
bool match_play_game(match_state *st, match_engine eng[2], match_result *r, char *why,
                     int why_len);

#endif
