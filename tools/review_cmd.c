/* tools/review_cmd.c -- `shido review GAME.sgf`: the game back as SGF with every move reviewed
 * (teach/review.h), a summary per player as text and JSON. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "go/sgf.h"
#include "teach/batch.h"
#include "teach/engine.h"
#include "teach/review.h"
#include "tools/commands.h"
#include "tools/features_json.h"
#include "tools/positions.h"
#include "tools/progress.h"

typedef struct review_run {
    const go_game *all;
    teach_review_params p;
    teach_review_pos *pos;
    progress bar;
    int done;
} review_run;

static int usage(FILE *f, const char *err)
{
    if (err)
        fprintf(f, "shido review: %s\n", err);
    fprintf(f,
            "usage: shido review GAME.sgf [--game G] [--out FILE.sgf] [--json FILE] "
            "[--explain-min-loss P] [--policy-symmetries 8|1] [--progress|--quiet] %s\n"
            "The game back as SGF: at every move its score, points lost and KaTrain's class,\n"
            "policy rank, the best move and its line (also as a variation), seed 000's\n"
            "features, and for a mistake (default: 3 points or more) a one-line explanation in\n"
            "English and Japanese; a summary per player (accuracy, mean loss, best-move and\n"
            "top-5 shares, mistakes by KaTrain's classes, the three biggest) on standard output\n"
            "and with --json as JSON. Every position is searched --visits times (default 500,\n"
            "KaTrain's), positions in parallel on --threads threads; --backend cpu or cuda.\n"
            "  --out FILE.sgf  the reviewed game (default: GAME-review.sgf in this folder)\n"
            "  --policy-symmetries 8|1  the policy averaged over 8 symmetries (default) or 1\n%s",
            teach_options_synopsis(), teach_options_help());
    return f == stdout ? 0 : 2;
}

static bool job(teach_features *f, int i, void *ctx, char *err, int err_len)
{
    review_run *r = ctx;
    go_game g;
    char why[256];
    if (!positions_before_move(r->all, i + 1, &g, why, sizeof why)) {
        snprintf(err, (size_t)err_len, "%s", why);
        return false;
    }
    int played = i < r->all->num_moves ? r->all->moves[i].point : GO_NO_POINT;
    bool ok = teach_review_analyse(f, &g, played, &r->p, &r->pos[i], why, sizeof why);
    if (!ok)
        snprintf(err, (size_t)err_len, "move %d: %s", i + 1, why);
    go_game_free(&g);
    return ok;
}

static bool on_done(int i, bool ok, const char *err, void *ctx)
{
    review_run *r = ctx;
    if (!ok) {
        if (r->bar.out && r->bar.tty)
            fputc('\n', stderr);
        fprintf(stderr, "shido review: %s\n", err);
        return false;
    }
    progress_update(&r->bar, ++r->done);
    return true;
}

/* The summary as text (malloc'd). */
static char *summary_text(const char *path, int game_no, const go_game *all,
                          const teach_review_move *moves, const teach_review_player pl[2],
                          const teach_review_params *p, const char *black, const char *white)
{
    size_t cap = 8192;
    char *buf = malloc(cap), v[8], w[8], lb[32];
    if (!buf)
        return NULL;
    FILE *f = fmemopen(buf, cap, "w");
    if (!f) {
        free(buf);
        return NULL;
    }
    int size = all->board.size;
    fprintf(f, "Review of %s, game %d: %d moves, %d visits a position\n", path, game_no,
            all->num_moves, p->visits);
    fprintf(f, "%-18s %-20.20s %-20.20s\n", "", black ? black : "Black", white ? white : "White");
    fprintf(f, "%-18s %-20.1f %-20.1f\n", "accuracy", pl[0].accuracy, pl[1].accuracy);
    fprintf(f, "%-18s %-20.2f %-20.2f\n", "mean loss", pl[0].mean_loss, pl[1].mean_loss);
    fprintf(f, "%-18s %-20.1f %-20.1f\n", "best move %", 100 * pl[0].top_move,
            100 * pl[1].top_move);
    fprintf(f, "%-18s %-20.1f %-20.1f\n", "top 5 %", 100 * pl[0].top5, 100 * pl[1].top5);
    for (int k = 0; k < TEACH_REVIEW_CLASSES; k++) {
        /* padded by characters: "≥" takes three bytes */
        const char *label = teach_review_class_label(p, k, lb, sizeof lb);
        int chars = 0;
        for (const char *c = label; *c; c++)
            chars += (*c & 0xc0) != 0x80;
        fprintf(f, "%s%*s %-20d %-20d\n", label, 18 - chars, "", pl[0].classes[k],
                pl[1].classes[k]);
    }
    for (int c = 0; c < 2; c++) {
        fprintf(f, "biggest mistakes of %s:", c ? "white" : "black");
        if (pl[c].biggest[0] < 0)
            fprintf(f, " none");
        fputc('\n', f);
        for (int k = 0; k < 3 && pl[c].biggest[k] >= 0; k++) {
            const teach_review_move *m = &moves[pl[c].biggest[k]];
            fprintf(f, "  move %d %s: %.1f points, best %s%s%s\n", m->number,
                    go_point_to_gtp(size, m->move, v), m->loss, go_point_to_gtp(size, m->best, w),
                    m->explained ? ": " : "", m->explained ? m->explain_en : "");
        }
    }
    fclose(f);
    buf[cap - 1] = 0;
    return buf;
}

static cJSON *player_json(const teach_review_player *pl, const teach_review_move *moves,
                          const teach_review_params *p, int size, const char *name)
{
    cJSON *o = cJSON_CreateObject();
    if (name)
        cJSON_AddStringToObject(o, "name", name);
    cJSON_AddNumberToObject(o, "moves", pl->moves);
    fj_add_number(o, "accuracy", pl->accuracy);
    fj_add_number(o, "meanLoss", pl->mean_loss);
    fj_add_number(o, "weightedLoss", pl->weighted_loss);
    fj_add_number(o, "complexity", pl->complexity);
    fj_add_number(o, "bestMove", pl->top_move);
    fj_add_number(o, "top5", pl->top5);
    cJSON *cl = cJSON_AddArrayToObject(o, "classes");
    char lb[32];
    for (int k = 0; k < TEACH_REVIEW_CLASSES; k++) {
        cJSON *x = cJSON_CreateObject();
        cJSON_AddStringToObject(x, "label", teach_review_class_label(p, k, lb, sizeof lb));
        cJSON_AddNumberToObject(x, "count", pl->classes[k]);
        cJSON_AddItemToArray(cl, x);
    }
    cJSON *big = cJSON_AddArrayToObject(o, "biggestMistakes");
    for (int k = 0; k < 3 && pl->biggest[k] >= 0; k++) {
        const teach_review_move *m = &moves[pl->biggest[k]];
        cJSON *x = cJSON_CreateObject();
        cJSON_AddNumberToObject(x, "moveNumber", m->number);
        fj_add_vertex(x, "move", size, m->move);
        fj_add_number(x, "loss", m->loss);
        fj_add_vertex(x, "best", size, m->best);
        if (m->explained)
            cJSON_AddStringToObject(x, "explainEn", m->explain_en);
        cJSON_AddItemToArray(big, x);
    }
    return o;
}

static cJSON *move_json(const teach_review_move *m, int size)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "moveNumber", m->number);
    cJSON_AddStringToObject(o, "color", m->color == GO_WHITE ? "W" : "B");
    fj_add_vertex(o, "move", size, m->move);
    fj_add_number(o, "scoreBefore", m->score_before);
    fj_add_number(o, "scoreAfter", m->score_after);
    fj_add_number(o, "winrateAfter", m->winrate_after);
    fj_add_number(o, "loss", m->loss);
    cJSON_AddNumberToObject(o, "class", m->klass);
    fj_add_number(o, "complexity", m->complexity);
    cJSON_AddBoolToObject(o, "bestMove", m->top_move);
    cJSON_AddBoolToObject(o, "top5", m->top5);
    fj_add_vertex(o, "best", size, m->best);
    cJSON *pv = cJSON_AddArrayToObject(o, "pv");
    char v[8];
    for (int k = 0; k < m->pv_len; k++)
        cJSON_AddItemToArray(pv, cJSON_CreateString(go_point_to_gtp(size, m->pv[k], v)));
    cJSON_AddItemToObject(o, "features", fj_features(&m->f, size));
    if (m->explained) {
        cJSON_AddStringToObject(o, "explainEn", m->explain_en);
        cJSON_AddStringToObject(o, "explainJa", m->explain_ja);
    }
    return o;
}

static bool write_text(const char *path, const char *text, char *err, int err_len)
{
    FILE *f = fopen(path, "w");
    bool ok = f && fputs(text, f) >= 0 && fputc('\n', f) != EOF;
    if (f && fclose(f) != 0)
        ok = false;
    if (!ok)
        snprintf(err, (size_t)err_len, "%s: %s", path, strerror(errno));
    return ok;
}

int shido_cmd_review(int argc, char **argv)
{
    teach_options o;
    teach_options_init(&o);
    review_run r = {0};
    r.p = teach_review_params_default();
    const char *path = NULL, *out_path = NULL, *json_path = NULL;
    int game_no = 1, bar_mode = -1, policy_syms = 8;
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
        if (!strcmp(a, "--progress") || !strcmp(a, "--quiet")) {
            bar_mode = a[2] == 'p';
            continue;
        }
        bool needs = !strcmp(a, "--game") || !strcmp(a, "--out") || !strcmp(a, "--json") ||
                     !strcmp(a, "--explain-min-loss") || !strcmp(a, "--policy-symmetries");
        if (needs && i + 1 >= argc) {
            snprintf(err, sizeof err, "option '%s' needs a value", a);
            return usage(stderr, err);
        }
        const char *v = needs ? argv[++i] : NULL;
        char *end;
        if (!strcmp(a, "--game")) {
            long n = strtol(v, &end, 10);
            if (end == v || *end || n < 1 || n > 1000000) {
                snprintf(err, sizeof err, "--game %s: expected a number from 1", v);
                return usage(stderr, err);
            }
            game_no = (int)n;
        } else if (!strcmp(a, "--explain-min-loss")) {
            r.p.explain_min_loss = strtod(v, &end);
            if (end == v || *end || !isfinite(r.p.explain_min_loss)) {
                snprintf(err, sizeof err, "--explain-min-loss %s: expected points", v);
                return usage(stderr, err);
            }
        } else if (!strcmp(a, "--policy-symmetries")) {
            policy_syms = atoi(v);
            if (policy_syms != 1 && policy_syms != 8)
                return usage(stderr, "--policy-symmetries takes 1 or 8");
        } else if (!strcmp(a, "--out")) {
            out_path = v;
        } else if (!strcmp(a, "--json")) {
            json_path = v;
        } else if (a[0] == '-' && a[1]) {
            snprintf(err, sizeof err, "unknown option '%s'", a);
            return usage(stderr, err);
        } else if (!path) {
            path = a;
        } else {
            return usage(stderr, "one game at a time");
        }
    }
    if (!path)
        return usage(stderr, "no SGF file given");
    if (o.num_weights < 1 || o.num_weights > 2)
        return usage(stderr, "one network (-w NET), and optionally a second for "
                             "Prior_StrongHuman");
    if (o.params.max_visits > 0)
        r.p.visits = (int)(o.params.max_visits < 1000000 ? o.params.max_visits : 1000000);
    int threads = o.threads > 0 ? o.threads : 1;
    o.params.num_threads = 1;
    char out_buf[1024];
    if (!out_path) {
        const char *base = strrchr(path, '/');
        snprintf(out_buf, sizeof out_buf, "%s", base ? base + 1 : path);
        char *dot = strrchr(out_buf, '.');
        if (dot && dot != out_buf)
            *dot = 0;
        strncat(out_buf, "-review.sgf", sizeof out_buf - strlen(out_buf) - 1);
        out_path = out_buf;
    }
    go_sgf_collection *col = go_sgf_read_file(path, err, sizeof err);
    if (!col) {
        fprintf(stderr, "shido review: %s\n", err);
        return 1;
    }
    go_game all;
    if (!positions_main_line(col, game_no - 1, -1, &all, err, sizeof err)) {
        fprintf(stderr, "shido review: %s: %s\n", path, err);
        go_sgf_free(col);
        return 1;
    }
    r.all = &all;
    int n = all.num_moves, rc = 1;
    r.pos = calloc((size_t)n + 1, sizeof *r.pos);
    teach_review_move *moves = calloc((size_t)n + 1, sizeof *moves);
    teach_engine *e = r.pos && moves ? teach_engine_new(&o, err, sizeof err) : NULL;
    if (!e) {
        fprintf(stderr, "shido review: %s\n", r.pos && moves ? err : "out of memory");
    } else {
        progress_start(&r.bar, n + 1, "positions", bar_mode);
        bool ran = teach_batch_run(e, threads, policy_syms, n + 1, n + 1, job, on_done, &r, err,
                                   sizeof err);
        progress_end(&r.bar, r.done);
        if (!ran)
            fprintf(stderr, "shido review: %s\n", err);
        else if (r.done == n + 1)
            rc = 0;
    }
    if (rc == 0) {
        const go_sgf_node *root = col->games[game_no - 1];
        const char *black = go_sgf_get(root, "PB"), *white = go_sgf_get(root, "PW");
        teach_review_assemble(&all, r.pos, &r.p, moves);
        teach_review_player pl[2];
        teach_review_summarise(moves, n, &r.p, pl);
        char *text = summary_text(path, game_no, &all, moves, pl, &r.p, black, white);
        go_sgf_collection *rev = text ? teach_review_sgf(root, &all, moves, n, &r.p, text) : NULL;
        char *sgf = rev ? go_sgf_write(rev) : NULL;
        go_sgf_free(rev);
        rc = sgf && write_text(out_path, sgf, err, sizeof err) ? 0 : 1;
        if (rc)
            fprintf(stderr, "shido review: %s\n", sgf ? err : "out of memory");
        else
            printf("%sreviewed game written to %s\n", text, out_path);
        if (!rc && json_path) {
            int size = all.board.size;
            cJSON *j = cJSON_CreateObject();
            cJSON_AddStringToObject(j, "file", path);
            cJSON_AddNumberToObject(j, "game", game_no);
            cJSON_AddNumberToObject(j, "visits", r.p.visits);
            cJSON_AddStringToObject(j, "sgf", out_path);
            cJSON *players = cJSON_AddObjectToObject(j, "players");
            cJSON_AddItemToObject(players, "B", player_json(&pl[0], moves, &r.p, size, black));
            cJSON_AddItemToObject(players, "W", player_json(&pl[1], moves, &r.p, size, white));
            cJSON *arr = cJSON_AddArrayToObject(j, "moves");
            for (int i = 0; i < n; i++)
                cJSON_AddItemToArray(arr, move_json(&moves[i], size));
            char *js = cJSON_PrintUnformatted(j);
            cJSON_Delete(j);
            rc = js && write_text(json_path, js, err, sizeof err) ? 0 : 1;
            if (rc)
                fprintf(stderr, "shido review: %s\n", js ? err : "out of memory");
            cJSON_free(js);
        }
        free(sgf);
        free(text);
    }
    teach_engine_free(e);
    free(moves);
    free(r.pos);
    go_game_free(&all);
    go_sgf_free(col);
    return rc;
}
