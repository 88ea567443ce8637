/* tools/teach_stats.c -- `shido teach-stats`: a player's results and the naturalness of its
 * moves over a collection of finished games (the SGFs `shido match` writes), for the teaching
 * experiments of bench/teach/experiment.sh.
 *
 *   shido teach-stats --player NAME -w NET [--judge-visits N] [--opening N] [--json]
 *                     [--row LABEL] [shared options] GAME.sgf|DIR...
 *   shido teach-stats --find-endgames K --out-dir DIR -w NET [--endgame-visits N]
 *                     [--from-move M] [--step S] [shared options] GAME.sgf|DIR...
 *
 * The player is the one whose PB or PW contains NAME. Per collection: games, the player's wins,
 * the opponent's win rate with its 95% Wilson interval (draws half, void games left out), and the
 * naturalness of teach/naturalness.h. --json prints one JSON object instead of the text, --row
 * one row of a Markdown table (teach_stats_header's columns) that starts with LABEL.
 *
 * --find-endgames: the endgame positions of the thesis's experiment (seed 001, section 6): in
 * each game (files in order), the first position from move M on (every S-th; M 0: half the
 * board's points) where a search of N visits (200) finds the thesis's endgame criteria met
 * (teach_endgame_criteria, the endgame_* tunables of --set), written as DIR/endgame-NN.sgf (the
 * game up to there) for `shido match --opening`, one line each on standard output; K positions
 * at most, one a game, none twice (a game that reaches a position found before gives none). */
#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "go/sgf.h"
#include "teach/engine.h"
#include "teach/naturalness.h"
#include "teach/play.h"
#include "teach/player.h"
#include "tools/args.h"
#include "tools/commands.h"
#include "tools/match.h"
#include "tools/positions.h"
#include "tools/progress.h"

typedef struct tally {
    int games, wins, losses, draws, voids;
    teach_nat_stats nat;
} tally;

/* What one run does with each game. */
typedef struct job {
    teach_engine *e;
    /* the statistics */
    const char *player;
    teach_player *judge;
    const teach_nat_opts *opts;
    tally t;
    /* --find-endgames */
    int find, found;
    uint64_t found_key[100];     /* the positions found (stones and the side to move) */
    const char *out_dir;
    int64_t visits;
    int from_move, step;
    teach_player *search;
    /* the progress bar over the files (when moves are searched) */
    progress bar;
    int files, files_done;
} job;

static int usage(FILE *f)
{
    fprintf(f, "usage: shido teach-stats --player NAME %s [--judge-visits N] [--opening N] "
               "[--json] [--row LABEL] [--progress|--quiet] GAME.sgf|DIR...\n"
               "       shido teach-stats --find-endgames K --out-dir DIR %s [--endgame-visits N]\n"
               "                         [--from-move M] [--step S] [--progress|--quiet] "
               "GAME.sgf|DIR...\n"
               "  a player's results and the naturalness of its moves in finished games; or\n"
               "  the first position of each game that meets the thesis's endgame criteria\n"
               "  (seed 001; a search of N visits, 200), from move M (0: half the board's\n"
               "  points) every S moves (2), K at most, written as DIR/endgame-NN.sgf for\n"
               "  shido match --opening\n"
               "  --progress|--quiet the progress bar over the files while moves are searched "
               "(--judge-visits, --find-endgames) always | never [on a terminal]\n%s",
            teach_options_synopsis(), teach_options_synopsis(), teach_options_help());
    return f == stdout ? 0 : 2;
}

/* The first endgame position of the game g (game i of path), written when found. */
static bool find_endgame(job *j, const char *path, int i, const go_sgf_node *root,
                         const go_game *g)
{
    char err[512];
    int size = g->board.size;
    int from = j->from_move > 0 ? j->from_move : size * size / 2;
    const teach_play_params *pp = teach_engine_play_params(j->e);
    for (int m = from; m < g->num_moves && j->found < j->find; m += j->step) {
        if (g->moves[m - 1].point == GO_PASS)
            break;   /* the game is over: passes end the search for a position */
        go_game at;
        if (!positions_square_game(root, m, &at, err, sizeof err)) {
            fprintf(stderr, "shido teach-stats: %s: game %d: %s\n", path, i + 1, err);
            return false;
        }
        teach_endgame_check c;
        bool ok = teach_endgame_test(j->search, pp, &at, j->visits, &c, err, sizeof err);
        uint64_t key = at.hashes[at.num_moves] ^ (at.board.to_move == GO_WHITE ? 1 : 0);
        bool again = false;
        for (int k = 0; k < j->found; k++)
            again = again || j->found_key[k] == key;
        if (ok && c.endgame && again) {
            /* the same position as a game before (deterministic players): no new one here */
            go_game_free(&at);
            break;
        }
        if (ok && c.endgame) {
            char file[4096];
            snprintf(file, sizeof file, "%s/endgame-%02d.sgf", j->out_dir, j->found + 1);
            go_sgf_collection *col = go_sgf_from_game(&at);
            char *text = col ? go_sgf_write(col) : NULL;
            FILE *f = text ? fopen(file, "w") : NULL;
            ok = f && fputs(text, f) >= 0;
            ok = f && fclose(f) == 0 && ok;
            if (!ok)
                snprintf(err, sizeof err, "cannot write %.400s", file);
            free(text);
            go_sgf_free(col);
            if (ok) {
                j->found_key[j->found++] = key;
                printf("%s  %s game %d move %d: lead %+.1f, stdev %.1f, after a pass %+.1f "
                       "(%s to play)\n",
                       file, path, i + 1, m, c.lead, c.stdev, c.pass_lead,
                       at.board.to_move == GO_BLACK ? "black" : "white");
                fflush(stdout);
            }
        }
        go_game_free(&at);
        if (!ok) {
            fprintf(stderr, "shido teach-stats: %s: game %d, move %d: %s\n", path, i + 1, m, err);
            return false;
        }
        if (c.endgame)
            break;
    }
    return true;
}

/* One SGF file's games into the job. False after printing why. */
static bool add_file(const char *path, job *j)
{
    char err[512];
    go_sgf_collection *col = go_sgf_read_file(path, err, sizeof err);
    if (!col) {
        fprintf(stderr, "shido teach-stats: %s\n", err);
        return false;
    }
    bool ok = true;
    const char *player = j->player;
    tally *t = &j->t;
    for (int i = 0; ok && i < col->num_games && (j->find == 0 || j->found < j->find); i++) {
        const go_sgf_node *root = col->games[i];
        if (j->find > 0) {
            go_game g;
            if (!positions_square_game(root, -1, &g, err, sizeof err)) {
                fprintf(stderr, "shido teach-stats: %s: game %d: %s\n", path, i + 1, err);
                ok = false;
                break;
            }
            ok = find_endgame(j, path, i, root, &g);
            go_game_free(&g);
            continue;
        }
        const char *pb = go_sgf_get(root, "PB"), *pw = go_sgf_get(root, "PW");
        const char *re = go_sgf_get(root, "RE");
        go_color who = pb && strstr(pb, player) ? GO_BLACK
                       : pw && strstr(pw, player) ? GO_WHITE
                                                  : GO_EMPTY;
        if (who == GO_EMPTY) {
            fprintf(stderr, "shido teach-stats: %s: game %d: no player named \"%s\" (PB %s, "
                            "PW %s)\n", path, i + 1, player, pb ? pb : "-", pw ? pw : "-");
            ok = false;
            break;
        }
        go_game g;
        if (!positions_square_game(root, -1, &g, err, sizeof err)) {
            fprintf(stderr, "shido teach-stats: %s: game %d: %s\n", path, i + 1, err);
            ok = false;
            break;
        }
        t->games++;
        if (!re || !strcasecmp(re, "Void") || !*re)
            t->voids++;
        else if (!strcmp(re, "0") || !strcasecmp(re, "Draw"))
            t->draws++;
        else if ((re[0] == 'B' && who == GO_BLACK) || (re[0] == 'W' && who == GO_WHITE))
            t->wins++;
        else
            t->losses++;
        ok = teach_naturalness_add(j->e, j->judge, &g, who, j->opts, &t->nat, err, sizeof err);
        if (!ok)
            fprintf(stderr, "shido teach-stats: %s: game %d: %s\n", path, i + 1, err);
        go_game_free(&g);
    }
    go_sgf_free(col);
    return ok;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
    return strcmp((*a)->d_name, (*b)->d_name);
}

/* One file into the job (count: only counted, for the progress bar). */
static bool take_file(const char *path, job *j, bool count)
{
    if (count) {
        j->files++;
        return true;
    }
    bool ok = add_file(path, j);
    progress_update(&j->bar, ++j->files_done);
    return ok;
}

/* A file, or every *.sgf of a directory in name order. */
static bool add_path(const char *path, job *j, bool count)
{
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode))
        return take_file(path, j, count);
    struct dirent **names;
    int n = scandir(path, &names, NULL, by_name);
    if (n < 0) {
        fprintf(stderr, "shido teach-stats: cannot read the directory %s\n", path);
        return false;
    }
    bool ok = true;
    for (int i = 0; i < n; i++) {
        size_t len = strlen(names[i]->d_name);
        if (ok && len > 4 && !strcasecmp(names[i]->d_name + len - 4, ".sgf")) {
            char file[4096];
            snprintf(file, sizeof file, "%s/%s", path, names[i]->d_name);
            ok = take_file(file, j, count);
        }
        free(names[i]);
    }
    free(names);
    return ok;
}

static double ratio(double a, int n) { return n ? a / n : NAN; }

static void print(const tally *t, const char *player, bool json, const char *row)
{
    const teach_nat_stats *s = &t->nat;
    int decided = t->wins + t->losses + t->draws;
    double opp = t->losses + 0.5 * t->draws, lo, hi;
    match_wilson_interval(opp, decided, 1.959964, &lo, &hi);
    double mean = ratio(s->sum_prior, s->moves), geo = exp(ratio(s->sum_log_prior, s->moves));
    double line_lo, line_hi;
    teach_nat_line_interval(s, &line_lo, &line_hi);
    if (row) {
        /* | label | games | opponent wins (95%) | prior mean / geometric | prior < 0.05 |
         * opening distance | line >= 4 a game (95%) | judged > 5 points a game | */
        printf("| %s | %d | %.1f%% (%.1f-%.1f) | %.3f / %.4f | %.1f%% | %.2f | %.2f (%.2f-%.2f) "
               "| ", row, decided, decided ? 100 * opp / decided : NAN, 100 * lo, 100 * hi, mean,
               geo, 100 * ratio(s->low_prior, s->moves), ratio(s->sum_dist, s->dist_moves),
               ratio(s->high_line, s->games), line_lo, line_hi);
        if (s->judged)
            printf("%.2f |\n", ratio(s->unnatural, s->games));
        else
            printf("- |\n");
        return;
    }
    if (!json) {
        printf("%s: %d games (%d void), won %d, lost %d, drawn %d: opponent %.1f%% "
               "(95%% %.1f-%.1f%%)\n", player, t->games, t->voids, t->wins, t->losses, t->draws,
               decided ? 100 * opp / decided : NAN, 100 * lo, 100 * hi);
        printf("  %d moves: prior mean %.3f, geometric %.4f, under 0.05 %.1f%%; opening: "
               "distance to the last move %.2f, line >= 4 %.2f a game (95%% %.2f-%.2f); judged "
               "%d: %.2f a game lose > 5 points, mean loss %.2f\n", s->moves, mean, geo,
               100 * ratio(s->low_prior, s->moves), ratio(s->sum_dist, s->dist_moves),
               ratio(s->high_line, s->games), line_lo, line_hi, s->judged,
               ratio(s->unnatural, s->games),
               ratio(s->sum_loss, s->judged));
        return;
    }
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "player", player);
    cJSON_AddNumberToObject(o, "games", t->games);
    cJSON_AddNumberToObject(o, "void", t->voids);
    cJSON_AddNumberToObject(o, "wins", t->wins);
    cJSON_AddNumberToObject(o, "losses", t->losses);
    cJSON_AddNumberToObject(o, "draws", t->draws);
    cJSON_AddNumberToObject(o, "opponent_rate", decided ? opp / decided : -1);
    cJSON_AddNumberToObject(o, "opponent_lo", lo);
    cJSON_AddNumberToObject(o, "opponent_hi", hi);
    cJSON_AddNumberToObject(o, "moves", s->moves);
    cJSON_AddNumberToObject(o, "prior_mean", s->moves ? mean : -1);
    cJSON_AddNumberToObject(o, "prior_geo", s->moves ? geo : -1);
    cJSON_AddNumberToObject(o, "prior_low_share", s->moves ? ratio(s->low_prior, s->moves) : -1);
    cJSON_AddNumberToObject(o, "opening_dist",
                            s->dist_moves ? ratio(s->sum_dist, s->dist_moves) : -1);
    cJSON_AddNumberToObject(o, "high_line_per_game",
                            s->games ? ratio(s->high_line, s->games) : -1);
    cJSON_AddNumberToObject(o, "high_line_lo", isfinite(line_lo) ? line_lo : -1);
    cJSON_AddNumberToObject(o, "high_line_hi", isfinite(line_hi) ? line_hi : -1);
    cJSON_AddNumberToObject(o, "judged", s->judged);
    cJSON_AddNumberToObject(o, "unnatural_per_game", s->games ? ratio(s->unnatural, s->games) : -1);
    cJSON_AddNumberToObject(o, "mean_loss", s->judged ? ratio(s->sum_loss, s->judged) : -1);
    char *text = cJSON_PrintUnformatted(o);
    if (text)
        printf("%s\n", text);
    cJSON_free(text);
    cJSON_Delete(o);
}

int shido_cmd_teach_stats(int argc, char **argv)
{
    teach_options o;
    teach_options_init(&o);
    teach_nat_opts nopts = {0};
    job j = {.opts = &nopts};
    const char *row = NULL;
    const char *paths[256];
    int npaths = 0;
    bool json = false;
    int bar_mode = -1;
    char err[1024];
    long judge_visits = 0, opening = 0, find = 0, endgame_visits = 200, from_move = 0, step = 2;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
            return usage(stdout);
        int got = teach_options_parse(&o, argc, argv, &i, err, sizeof err);
        if (got < 0) {
            fprintf(stderr, "shido teach-stats: %s\n", err);
            return 2;
        }
        if (got > 0)
            continue;
        bool more = i + 1 < argc;
        /* the count options: name, range, value */
        const struct {
            const char *name;
            long lo, hi, *value;
        } counts[] = {{"--judge-visits", 0, 1000000, &judge_visits},
                      {"--opening", 1, 1000, &opening},
                      {"--find-endgames", 1, 99, &find},
                      {"--endgame-visits", 1, 1000000, &endgame_visits},
                      {"--from-move", 0, 100000, &from_move},
                      {"--step", 1, 1000, &step}};
        int c = 0, nc = (int)(sizeof counts / sizeof counts[0]);
        while (c < nc && strcmp(argv[i], counts[c].name))
            c++;
        if (c < nc && more) {
            if (!tools_parse_long(argv[i + 1], counts[c].lo, counts[c].hi, counts[c].value)) {
                fprintf(stderr, "shido teach-stats: %s must be %ld..%ld, not '%s'\n",
                        counts[c].name, counts[c].lo, counts[c].hi, argv[i + 1]);
                return 2;
            }
            i++;
        } else if (!strcmp(argv[i], "--player") && more) {
            j.player = argv[++i];
        } else if (!strcmp(argv[i], "--out-dir") && more) {
            j.out_dir = argv[++i];
        } else if (!strcmp(argv[i], "--json")) {
            json = true;
        } else if (!strcmp(argv[i], "--progress") || !strcmp(argv[i], "--quiet")) {
            bar_mode = argv[i][2] == 'p';
        } else if (!strcmp(argv[i], "--row") && more) {
            row = argv[++i];
        } else if (argv[i][0] != '-' && npaths < 256) {
            paths[npaths++] = argv[i];
        } else {
            return usage(stderr);
        }
    }
    nopts.judge_visits = judge_visits;
    nopts.opening_moves = (int)opening;
    j.find = (int)find;
    j.visits = endgame_visits;
    j.from_move = (int)from_move;
    j.step = (int)step;
    const char *missing = !npaths                          ? "no games given (GAME.sgf|DIR)"
                          : o.num_weights != 1             ? "one network is needed (-w FILE)"
                          : j.find > 0 && !j.out_dir       ? "--find-endgames needs --out-dir DIR"
                          : j.find == 0 && !j.player       ? "--player NAME is needed"
                                                           : NULL;
    if (missing) {
        fprintf(stderr, "shido teach-stats: %s\n", missing);
        return usage(stderr);
    }
    if (j.out_dir && mkdir(j.out_dir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "shido teach-stats: cannot create %s: %s\n", j.out_dir, strerror(errno));
        return 1;
    }
    j.e = teach_engine_new(&o, err, sizeof err);
    if (!j.e) {
        fprintf(stderr, "shido teach-stats: %s\n", err);
        return 1;
    }
    bool need_search = j.find > 0 || nopts.judge_visits > 0;
    teach_player *search = need_search ? teach_search_player_new(j.e, err, sizeof err) : NULL;
    if (need_search && !search) {
        fprintf(stderr, "shido teach-stats: %s\n", err);
        teach_engine_free(j.e);
        return 1;
    }
    if (j.find > 0)
        j.search = search;
    else
        j.judge = search;
    bool ok = true;
    for (int i = 0; ok && i < npaths; i++)
        ok = add_path(paths[i], &j, true);
    progress_start(&j.bar, j.files, "files", need_search ? bar_mode : 0);
    for (int i = 0; ok && i < npaths && (j.find == 0 || j.found < j.find); i++)
        ok = add_path(paths[i], &j, false);
    if (!ok)
        progress_note(&j.bar, "stopped at the error above");
    progress_end(&j.bar, j.files_done);
    if (ok && j.find == 0)
        print(&j.t, j.player, json, row);
    if (ok && j.find > 0)
        fprintf(stderr, "shido teach-stats: %d endgame positions of %d asked in %s\n", j.found,
                j.find, j.out_dir);
    teach_player_free(search);
    teach_engine_free(j.e);
    return ok ? 0 : 1;
}
