/* tools/teach_stats.c -- `shido teach-stats`: a player's results and the naturalness of its
 * moves over a collection of finished games (the SGFs `shido match` writes), for the teaching
 * experiments of bench/teach/experiment.sh.
 *
 *   shido teach-stats --player NAME -w NET [--judge-visits N] [--opening N] [--json]
 *                     [--row LABEL] [shared options] GAME.sgf|DIR...
 *
 * The player is the one whose PB or PW contains NAME. Per collection: games, the player's wins,
 * the opponent's win rate with its 95% Wilson interval (draws half, void games left out), and the
 * naturalness of teach/naturalness.h. --json prints one JSON object instead of the text, --row
 * one row of a Markdown table (teach_stats_header's columns) that starts with LABEL. */
#include <cjson/cJSON.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "go/sgf.h"
#include "teach/engine.h"
#include "teach/naturalness.h"
#include "teach/player.h"
#include "tools/commands.h"
#include "tools/match.h"

typedef struct tally {
    int games, wins, losses, draws, voids;
    teach_nat_stats nat;
} tally;

static int usage(FILE *f)
{
    fprintf(f, "usage: shido teach-stats --player NAME %s [--judge-visits N] [--opening N] "
               "[--json] [--row LABEL] GAME.sgf|DIR...\n"
               "  a player's results and the naturalness of its moves in finished games\n%s",
            teach_options_synopsis(), teach_options_help());
    return f == stdout ? 0 : 2;
}

/* One SGF file's games into t. False after printing why. */
static bool add_file(const char *path, const char *player, teach_engine *e, teach_player *judge,
                     const teach_nat_opts *opts, tally *t)
{
    char err[512];
    go_sgf_collection *col = go_sgf_read_file(path, err, sizeof err);
    if (!col) {
        fprintf(stderr, "shido teach-stats: %s\n", err);
        return false;
    }
    bool ok = true;
    for (int i = 0; ok && i < col->num_games; i++) {
        const go_sgf_node *root = col->games[i];
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
        if (!go_sgf_to_game(root, -1, &g, err, sizeof err)) {
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
        ok = teach_naturalness_add(e, judge, &g, who, opts, &t->nat, err, sizeof err);
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

/* A file, or every *.sgf of a directory in name order. */
static bool add_path(const char *path, const char *player, teach_engine *e, teach_player *judge,
                     const teach_nat_opts *opts, tally *t)
{
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode))
        return add_file(path, player, e, judge, opts, t);
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
            ok = add_file(file, player, e, judge, opts, t);
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
    if (row) {
        /* | label | games | opponent wins (95%) | prior mean / geometric | prior < 0.05 |
         * opening distance | line >= 4 a game | judged > 5 points a game | */
        printf("| %s | %d | %.1f%% (%.1f-%.1f) | %.3f / %.4f | %.1f%% | %.2f | %.2f | ", row,
               decided, decided ? 100 * opp / decided : NAN, 100 * lo, 100 * hi, mean, geo,
               100 * ratio(s->low_prior, s->moves), ratio(s->sum_dist, s->dist_moves),
               ratio(s->high_line, s->games));
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
               "distance to the last move %.2f, line >= 4 %.2f a game; judged %d: %.2f a game "
               "lose > 5 points, mean loss %.2f\n", s->moves, mean, geo,
               100 * ratio(s->low_prior, s->moves), ratio(s->sum_dist, s->dist_moves),
               ratio(s->high_line, s->games), s->judged, ratio(s->unnatural, s->games),
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
    const char *player = NULL, *row = NULL;
    const char *paths[256];
    int npaths = 0;
    bool json = false;
    char err[1024];
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
        if (!strcmp(argv[i], "--player") && more) {
            player = argv[++i];
        } else if (!strcmp(argv[i], "--judge-visits") && more) {
            nopts.judge_visits = atoll(argv[++i]);
            if (nopts.judge_visits < 0 || nopts.judge_visits > 1000000) {
                fprintf(stderr, "shido teach-stats: --judge-visits must be 0..1000000\n");
                return 2;
            }
        } else if (!strcmp(argv[i], "--opening") && more) {
            nopts.opening_moves = atoi(argv[++i]);
            if (nopts.opening_moves < 1 || nopts.opening_moves > 1000) {
                fprintf(stderr, "shido teach-stats: --opening must be 1..1000\n");
                return 2;
            }
        } else if (!strcmp(argv[i], "--json")) {
            json = true;
        } else if (!strcmp(argv[i], "--row") && more) {
            row = argv[++i];
        } else if (argv[i][0] != '-' && npaths < 256) {
            paths[npaths++] = argv[i];
        } else {
            return usage(stderr);
        }
    }
    if (!player || !npaths || o.num_weights != 1)
        return usage(stderr);
    teach_engine *e = teach_engine_new(&o, err, sizeof err);
    if (!e) {
        fprintf(stderr, "shido teach-stats: %s\n", err);
        return 1;
    }
    teach_player *judge = NULL;
    if (nopts.judge_visits > 0 && !(judge = teach_search_player_new(e, err, sizeof err))) {
        fprintf(stderr, "shido teach-stats: %s\n", err);
        teach_engine_free(e);
        return 1;
    }
    tally t = {0};
    bool ok = true;
    for (int i = 0; ok && i < npaths; i++)
        ok = add_path(paths[i], player, e, judge, &nopts, &t);
    if (ok)
        print(&t, player, json, row);
    teach_player_free(judge);
    teach_engine_free(e);
    return ok ? 0 : 1;
}
