/* tools/features_cmd.c -- `shido features GAME.sgf [--move N] MOVE...`: seed 000's features of
 * candidate moves (teach/features.h) as a table or JSON. */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "go/sgf.h"
#include "teach/engine.h"
#include "teach/features.h"
#include "tools/commands.h"
#include "tools/features_json.h"
#include "tools/positions.h"

#define FEATURES_DEFAULT_VISITS 800   /* the paper's KataGo searches */
#define FEATURES_MAX_MOVES 361

static int usage(FILE *f, const char *err)
{
    if (err)
        fprintf(f, "shido features: %s\n", err);
    fprintf(f,
            "usage: shido features GAME.sgf [--game G] [--move N] [--ref MOVE] [--json] %s "
            "[MOVE]...\n"
            "Seed 000's features of candidate moves in one position of a game: Rémi distance to\n"
            "the reference move and to the last two moves, stone density within Rémi distance 8,\n"
            "score loss against the reference, Prior_KataGo (the first network's policy),\n"
            "Prior_StrongHuman (a second -w network's policy, else the first's), and the\n"
            "contributions to strengthening own and weakening the opponent's stones (ownership\n"
            "after the move against after a pass). Every move is searched --visits times\n"
            "(default %d, the paper's).\n"
            "  --game G     the G-th game of a collection (default 1)\n"
            "  --move N     the position where move N is to be played (N-1 moves on the board;\n"
            "               default: after the last move)\n"
            "  --ref MOVE   the reference move (default: the best move of a search)\n"
            "  --json       one JSON object instead of the table\n"
            "  MOVE...      GTP vertices; none: the game's move N\n%s",
            teach_options_synopsis(), FEATURES_DEFAULT_VISITS, teach_options_help());
    return f == stdout ? 0 : 2;
}

static void print_value(double v, const char *fmt)
{
    if (isfinite(v))
        printf(fmt, v);
    else
        printf(" %8s", "-");
}

static void print_int(int v)
{
    if (v >= 0)
        printf(" %5d", v);
    else
        printf(" %5s", "-");
}

static void print_row(const teach_move_features *m, int size, const char *what)
{
    char v[8];
    printf("%-5s %-4s", go_point_to_gtp(size, m->move, v), what);
    print_int(m->dist_ref);
    print_int(m->dist_last);
    print_int(m->dist_last2);
    printf(" %7.4f %9.6f %9.6f %5d", m->density, m->prior_katago, m->prior_human,
           m->policy_rank);
    print_value(m->score_lead, " %8.2f");
    print_value(m->score_loss, " %8.2f");
    print_value(m->strengthen_own, " %8.4f");
    print_value(m->weaken_opp, " %8.4f");
    printf(" %6lld\n", (long long)m->visits);
}

static int print_json(const char *path, int game, int move_number, const go_game *g,
                      const char *human, const teach_move_features *ref,
                      const teach_move_features *moves, int n)
{
    int size = g->board.size;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "file", path);
    cJSON_AddNumberToObject(o, "game", game);
    cJSON_AddNumberToObject(o, "moveNumber", move_number);
    cJSON_AddStringToObject(o, "toMove", g->board.to_move == GO_WHITE ? "W" : "B");
    cJSON_AddStringToObject(o, "humanNet", human);
    cJSON_AddItemToObject(o, "reference", fj_features(ref, size));
    cJSON *arr = cJSON_AddArrayToObject(o, "moves");
    for (int i = 0; i < n; i++)
        cJSON_AddItemToArray(arr, fj_features(&moves[i], size));
    char *text = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    if (!text) {
        fprintf(stderr, "shido features: out of memory\n");
        return 1;
    }
    puts(text);
    cJSON_free(text);
    return 0;
}

int shido_cmd_features(int argc, char **argv)
{
    teach_options o;
    teach_options_init(&o);
    const char *path = NULL, *ref_text = NULL, *move_text[FEATURES_MAX_MOVES];
    int num_moves = 0, game_no = 1, move_number = 0;
    bool json = false;
    char err[512];
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h"))
            return usage(stdout, NULL);
        int got = teach_options_parse(&o, argc, argv, &i, err, sizeof err);
        if (got < 0)
            return usage(stderr, err);
        if (got)
            continue;
        bool has_value = i + 1 < argc;
        if (!strcmp(a, "--json")) {
            json = true;
        } else if (!strcmp(a, "--game") || !strcmp(a, "--move") || !strcmp(a, "--ref")) {
            if (!has_value) {
                snprintf(err, sizeof err, "option '%s' needs a value", a);
                return usage(stderr, err);
            }
            const char *v = argv[++i];
            if (!strcmp(a, "--ref")) {
                ref_text = v;
                continue;
            }
            char *end;
            long n = strtol(v, &end, 10);
            if (end == v || *end || n < 1 || n > 100000) {
                snprintf(err, sizeof err, "%s %s: expected a number from 1", a, v);
                return usage(stderr, err);
            }
            *(!strcmp(a, "--game") ? &game_no : &move_number) = (int)n;
        } else if (a[0] == '-' && a[1]) {
            snprintf(err, sizeof err, "unknown option '%s'", a);
            return usage(stderr, err);
        } else if (!path) {
            path = a;
        } else if (num_moves < FEATURES_MAX_MOVES) {
            move_text[num_moves++] = a;
        } else {
            return usage(stderr, "too many moves");
        }
    }
    if (!path)
        return usage(stderr, "no SGF file given");
    if (o.num_weights < 1)
        return usage(stderr, "a network is needed (-w FILE; a second -w gives Prior_StrongHuman)");
    if (o.num_weights > 2)
        return usage(stderr, "at most two networks (the main one, Prior_StrongHuman's)");
    go_sgf_collection *col = go_sgf_read_file(path, err, sizeof err);
    if (!col) {
        fprintf(stderr, "shido features: %s\n", err);
        return 1;
    }
    go_game all, g;
    bool ok = positions_main_line(col, game_no - 1, -1, &all, err, sizeof err);
    go_sgf_free(col);
    if (!ok) {
        fprintf(stderr, "shido features: %s: %s\n", path, err);
        return 1;
    }
    if (!move_number)
        move_number = all.num_moves + 1;
    ok = positions_before_move(&all, move_number, &g, err, sizeof err);
    int size = all.board.size, moves[FEATURES_MAX_MOVES], ref = GO_NO_POINT;
    if (!ok) {
        fprintf(stderr, "shido features: %s: %s\n", path, err);
        go_game_free(&all);
        return 1;
    }
    for (int i = 0; ok && i < num_moves; i++) {
        moves[i] = go_point_from_gtp(size, move_text[i]);
        if (moves[i] == GO_NO_POINT)
            ok = !snprintf(err, sizeof err, "no such move '%s' on a %dx%d board", move_text[i],
                           size, size);
    }
    if (ok && num_moves == 0) {
        if (move_number <= all.num_moves)
            moves[num_moves++] = all.moves[move_number - 1].point;
        else
            ok = !snprintf(err, sizeof err, "no moves given, and the game has no move %d",
                           move_number);
    }
    if (ok && ref_text && (ref = go_point_from_gtp(size, ref_text)) == GO_NO_POINT)
        ok = !snprintf(err, sizeof err, "no such move '%s' (--ref) on a %dx%d board", ref_text,
                       size, size);
    go_game_free(&all);
    if (!ok) {
        fprintf(stderr, "shido features: %s\n", err);
        go_game_free(&g);
        return 1;
    }
    if (!o.params.max_visits)
        o.params.max_visits = FEATURES_DEFAULT_VISITS;
    teach_engine *e = teach_engine_new(&o, err, sizeof err);
    teach_features *f = e ? teach_features_new(e, o.params.num_threads, err, sizeof err) : NULL;
    teach_move_features *out = calloc((size_t)num_moves, sizeof *out), ref_f;
    ok = f && out && teach_features_set_position(f, &g, err, sizeof err);
    if (ok) {
        char why[384];
        ok = teach_features_compute(f, moves, num_moves, ref, (int)o.params.max_visits, out,
                                    &ref_f, why, sizeof why);
        if (!ok)
            snprintf(err, sizeof err, "move %d of %s: %s", move_number, path, why);
    }
    int rc = 1;
    if (!ok) {
        fprintf(stderr, "shido features: %s\n", out ? err : "out of memory");
    } else if (json) {
        rc = print_json(path, game_no, move_number, &g,
                        teach_engine_net_name(e, teach_features_human_net(f)), &ref_f, out,
                        num_moves);
    } else {
        printf("%s, game %d, move %d, %s to move; Prior_StrongHuman: %s; %lld visits a move\n",
               path, game_no, move_number, g.board.to_move == GO_WHITE ? "white" : "black",
               teach_engine_net_name(e, teach_features_human_net(f)),
               (long long)o.params.max_visits);
        printf("%-5s %-4s %5s %5s %5s %7s %9s %9s %5s %8s %8s %8s %8s %6s\n", "move", "", "dRef",
               "dLast", "dLst2", "density", "priorKG", "priorHum", "rank", "lead", "loss",
               "strOwn", "weakOpp", "visits");
        print_row(&ref_f, size, "ref");
        for (int i = 0; i < num_moves; i++)
            print_row(&out[i], size, "");
        rc = 0;
    }
    free(out);
    teach_features_free(f);
    teach_engine_free(e);
    go_game_free(&g);
    return rc;
}
