/* tools/fuseki_quiz_cmd.c -- `shido fuseki-quiz`: opening quizzes from game records
 * (teach/fuseki_quiz.h), one SGF per quiz and a JSON Lines summary; `merge` joins the summaries
 * of shards, `stats` tabulates a summary (the batch evaluation of bench/RESULTS.md).
 *
 * Positions: every file (an SGF game or collection) in order, every game of it (--games), every
 * move number of --moves that the game has (a position whose suggested move would be a pass is
 * skipped). They are numbered in that order; --shard K/N keeps those whose number is K-1 modulo
 * N, so shards split a collection the same way on any machine, and the records carry the
 * number: `merge` sorts the shards' records back into the order of one run. Quizzes are
 * deterministic (teach/fuseki_quiz.h), so the merged records equal one run's. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "go/clock.h"
#include "go/sgf.h"
#include "teach/batch.h"
#include "teach/engine.h"
#include "teach/fuseki_quiz.h"
#include "tools/commands.h"
#include "tools/features_json.h"
#include "tools/positions.h"
#include "tools/progress.h"

#define QUIZ_MAX_FILES 256
#define QUIZ_WINDOW_PER_THREAD 4

typedef enum { ANSWER_GAME, ANSWER_BEST, ANSWER_GIVEN } answer_source;

typedef struct source {
    const char *path;
    char stem[128];           /* the file name without folder and .sgf, for quiz names */
    go_sgf_collection *col;
} source;

typedef struct qpos {
    int src, game, move;      /* game 0-based; move as tools/positions.h */
    int index;                /* its number before sharding */
} qpos;

typedef struct slot {
    teach_quiz quiz;
    int answer;               /* as given to the generator (GO_NO_POINT: best) */
    char *sgf;                /* the quiz's SGF text, NULL when none */
    char name[192];           /* its file name */
    int64_t evals;            /* network evaluations it took */
} slot;

typedef struct run {
    teach_quiz_params qp;
    answer_source answer_from;
    const char *answer_text;
    source src[QUIZ_MAX_FILES];
    int num_src;
    qpos *pos;
    int num_pos;
    slot *slots;
    int window;
    const char *out_dir;
    FILE *jsonl;
    progress bar;
    int done, usable, errors, kinds[TEACH_QUIZ_KINDS], all_kinds;
    int64_t evals;
} run;

static int usage(FILE *f, const char *err)
{
    if (err)
        fprintf(f, "shido fuseki-quiz: %s\n", err);
    fprintf(f,
            "usage: shido fuseki-quiz FILE.sgf... [--moves N|A-B] [--games N|A-B]\n"
            "                         [--answer game|best|MOVE] [--out-dir DIR] [--jsonl FILE]\n"
            "                         [--shard K/N] [--quiz NAME=VALUE]... [--progress|--quiet]\n"
            "                         [--policy-symmetries 8|1]\n"
            "                         -w NET [-w HUMAN_NET] [--threads T] [--visits N] ...\n"
            "       shido fuseki-quiz merge SHARD.jsonl... [--out FILE]\n"
            "       shido fuseki-quiz stats QUIZZES.jsonl\n"
            "Multiple-choice opening quizzes (seed 000): for each position, the suggested move and\n"
            "up to three wrong answers (a big point elsewhere, a move near the answer, a move that\n"
            "over-strengthens own stones), with explanations in English and Japanese, difficulty\n"
            "and quality checks. One SGF per quiz in --out-dir (choices as labels A-D, answer and\n"
            "explanations in comments), one JSON line per position in --jsonl (default: standard\n"
            "output).\n"
            "  --moves N|A-B   positions where moves A to B are to be played (default 10-50)\n"
            "  --games N|A-B   games of each file (default all)\n"
            "  --answer        game: the game's move (default); best: the engine's best move;\n"
            "                  a vertex: that move (one position)\n"
            "  --shard K/N     the K-th of N deterministic parts (merge joins them)\n"
            "  --threads T     positions searched in parallel (one search thread each)\n"
            "  --visits N      the screening search (quiz parameter visits)\n"
            "  --policy-symmetries 8|1  the priors averaged over 8 symmetries (default) or 1\n"
            "  -w HUMAN_NET    a second network gives Prior_StrongHuman (default: the first)\n"
            "  --quiz NAME=VALUE  a generator parameter:\n%s%s",
            teach_quiz_params_help(), teach_options_help());
    return f == stdout ? 0 : 2;
}

/* ---- records -------------------------------------------------------------------------------- */

static const char *missing_name(teach_quiz_missing m)
{
    switch (m) {
    case TEACH_QUIZ_FOUND:
        return NULL;
    case TEACH_QUIZ_NONE_QUALIFIES:
        return "none_qualifies";
    case TEACH_QUIZ_SYMMETRIC:
        return "symmetric";
    default:
        return "failed_deep_check";
    }
}

/* The record of position i (a quiz, or err when it failed), without a newline (malloc'd). */
static char *record(const run *r, int i, const slot *s, const char *err)
{
    const qpos *p = &r->pos[i];
    const teach_quiz *q = &s->quiz;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "index", p->index);
    cJSON_AddStringToObject(o, "file", r->src[p->src].path);
    cJSON_AddNumberToObject(o, "game", p->game + 1);
    cJSON_AddNumberToObject(o, "moveNumber", p->move);
    if (err) {
        cJSON_AddStringToObject(o, "error", err);
    } else {
        char v[8];
        cJSON_AddStringToObject(o, "toMove", q->to_move == GO_WHITE ? "W" : "B");
        cJSON_AddStringToObject(o, "answer", go_point_to_gtp(q->size, q->answer, v));
        cJSON_AddStringToObject(o, "answerSource", r->answer_from == ANSWER_GAME   ? "game"
                                                   : r->answer_from == ANSWER_BEST ? "best"
                                                                                   : "given");
        cJSON_AddBoolToObject(o, "usable", teach_quiz_usable(q));
        cJSON_AddStringToObject(o, "grade", q->grade ? q->grade : "");
        cJSON_AddNumberToObject(o, "difficulty", q->difficulty);
        cJSON_AddNumberToObject(o, "searched", q->searched);
        cJSON_AddNumberToObject(o, "droppedDeep", q->dropped_shallow);
        cJSON_AddNumberToObject(o, "droppedSymmetric", q->dropped_symmetric);
        cJSON *miss = cJSON_AddObjectToObject(o, "missing");
        for (int k = 0; k < TEACH_QUIZ_KINDS; k++) {
            const char *m = missing_name(q->missing[k]);
            if (m)
                cJSON_AddStringToObject(miss, teach_quiz_kind_name((teach_quiz_kind)k), m);
        }
        cJSON_AddStringToObject(o, "questionEn", q->question_en);
        cJSON_AddStringToObject(o, "questionJa", q->question_ja);
        cJSON *arr = cJSON_AddArrayToObject(o, "choices");
        for (int c = 0; c < q->num_choices; c++) {
            const teach_quiz_choice *ch = &q->choices[c];
            cJSON *x = cJSON_CreateObject();
            char label[2] = {ch->label, 0};
            cJSON_AddStringToObject(x, "label", label);
            cJSON_AddStringToObject(x, "kind", teach_quiz_kind_name(ch->kind));
            cJSON_AddItemToObject(x, "features", fj_features(&ch->f, q->size));
            fj_add_number(x, "deepScoreLead", ch->deep_score_lead);
            fj_add_number(x, "deepScoreLoss", ch->deep_score_loss);
            if (ch->kind != TEACH_QUIZ_ANSWER) {
                cJSON_AddNumberToObject(x, "difficultyVisits", ch->difficulty_visits);
                cJSON_AddBoolToObject(x, "kataGoPrefersAnswer", ch->katago_prefers_answer);
                cJSON_AddBoolToObject(x, "humanPrefersAnswer", ch->human_prefers_answer);
            }
            cJSON_AddStringToObject(x, "explainEn", ch->explain_en);
            cJSON_AddStringToObject(x, "explainJa", ch->explain_ja);
            cJSON_AddItemToArray(arr, x);
        }
        if (s->sgf)
            cJSON_AddStringToObject(o, "sgf", s->name);
    }
    char *text = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    return text;
}

/* ---- the batch ------------------------------------------------------------------------------ */

static bool job(teach_features *f, int i, void *ctx, char *err, int err_len)
{
    run *r = ctx;
    const qpos *p = &r->pos[i];
    slot *s = &r->slots[i % r->window];
    free(s->sgf);
    memset(s, 0, sizeof *s);
    const source *src = &r->src[p->src];
    go_game all, g;
    char why[384];
    if (!positions_main_line(src->col, p->game, p->move, &all, why, sizeof why)) {
        snprintf(err, (size_t)err_len, "%s: %s", src->path, why);
        return false;
    }
    bool have_g = positions_before_move(&all, p->move, &g, why, sizeof why), ok = have_g;
    int size = all.board.size;
    s->answer = GO_NO_POINT;
    if (ok && r->answer_from == ANSWER_GAME)
        s->answer = all.moves[p->move - 1].point;
    else if (ok && r->answer_from == ANSWER_GIVEN &&
             (s->answer = go_point_from_gtp(size, r->answer_text)) == GO_NO_POINT)
        ok = !snprintf(why, sizeof why, "no such move '%s' (--answer) on a %dx%d board",
                       r->answer_text, size, size);
    go_game_free(&all);
    int64_t evals = teach_features_evals(f);
    if (ok)
        ok = teach_quiz_make(f, &r->qp, &g, s->answer, &s->quiz, why, sizeof why);
    s->evals = teach_features_evals(f) - evals;
    if (!ok) {
        snprintf(err, (size_t)err_len, "%s game %d move %d: %s", src->path, p->game + 1,
                 p->move, why);
    } else if (r->out_dir && teach_quiz_usable(&s->quiz)) {
        const go_sgf_node *root = src->col->games[p->game];
        char gn[256];
        snprintf(gn, sizeof gn, "Fuseki quiz: %s game %d move %d", src->stem, p->game + 1,
                 p->move);
        snprintf(s->name, sizeof s->name, "%s-g%04d-m%03d.sgf", src->stem, p->game + 1, p->move);
        go_sgf_collection *c = teach_quiz_sgf(&s->quiz, &g, gn, go_sgf_get(root, "PB"),
                                              go_sgf_get(root, "PW"));
        s->sgf = c ? go_sgf_write(c) : NULL;
        go_sgf_free(c);
        if (!s->sgf)
            ok = !snprintf(err, (size_t)err_len, "out of memory");
    }
    if (have_g)
        go_game_free(&g);
    return ok;
}

static bool write_file(const char *dir, const char *name, const char *text, char *err,
                       int err_len)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    bool ok = f && fputs(text, f) >= 0 && fputc('\n', f) != EOF;
    if (f && fclose(f) != 0)
        ok = false;
    if (!ok)
        snprintf(err, (size_t)err_len, "%s: %s", path, strerror(errno));
    return ok;
}

static bool on_done(int i, bool ok, const char *err, void *ctx)
{
    run *r = ctx;
    slot *s = &r->slots[i % r->window];
    char why[1200];
    if (ok && s->sgf && !write_file(r->out_dir, s->name, s->sgf, why, sizeof why)) {
        fprintf(stderr, "shido fuseki-quiz: cannot write %s\n", why);
        return false;
    }
    if (!ok) {
        if (r->bar.out && r->bar.tty)
            fputc('\n', stderr);
        fprintf(stderr, "shido fuseki-quiz: %s\n", err);
        r->errors++;
    } else if (teach_quiz_usable(&s->quiz)) {
        r->usable++;
        int found = 0;
        for (int k = 0; k < TEACH_QUIZ_KINDS; k++)
            if (s->quiz.missing[k] == TEACH_QUIZ_FOUND) {
                r->kinds[k]++;
                found++;
            }
        r->all_kinds += found == TEACH_QUIZ_KINDS;
    }
    r->evals += s->evals;
    char *line = record(r, i, s, ok ? NULL : err);
    if (!line || fputs(line, r->jsonl) < 0 || fputc('\n', r->jsonl) == EOF) {
        fprintf(stderr, "shido fuseki-quiz: cannot write the JSON Lines summary\n");
        free(line);
        return false;
    }
    fflush(r->jsonl);
    cJSON_free(line);
    free(s->sgf);
    s->sgf = NULL;
    progress_update(&r->bar, ++r->done);
    return true;
}

/* ---- positions ------------------------------------------------------------------------------ */

static void file_stem(const char *path, char *out, size_t len)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    snprintf(out, len, "%s", base);
    char *dot = strrchr(out, '.');
    if (dot && dot != out)
        *dot = 0;
}

/* Numbers every position of the sources, keeping shard k of n. False with a reason. */
static bool collect(run *r, int g_first, int g_last, int m_first, int m_last, int shard_k,
                    int shard_n, char *err, int err_len)
{
    int cap = 0, index = 0, max_moves = 0;
    for (int s = 0; s < r->num_src; s++) {
        const go_sgf_collection *col = r->src[s].col;
        int last = g_last < col->num_games ? g_last : col->num_games;
        for (int gi = g_first - 1; gi < last; gi++) {
            go_game all;
            char why[256];
            if (!positions_main_line(col, gi, m_last, &all, why, sizeof why)) {
                fprintf(stderr, "shido fuseki-quiz: %s: %s (skipped)\n", r->src[s].path, why);
                continue;
            }
            int moves = all.num_moves;   /* at most m_last */
            max_moves = moves > max_moves ? moves : max_moves;
            int top = r->answer_from == ANSWER_GAME ? moves : moves + 1;
            for (int m = m_first; m <= m_last && m <= top; m++) {
                if (r->answer_from == ANSWER_GAME && all.moves[m - 1].point == GO_PASS)
                    continue;
                int idx = index++;
                if (idx % shard_n != shard_k - 1)
                    continue;
                if (r->num_pos == cap) {
                    cap = cap ? 2 * cap : 256;
                    qpos *np = realloc(r->pos, sizeof *np * (size_t)cap);
                    if (!np) {
                        go_game_free(&all);
                        snprintf(err, (size_t)err_len, "out of memory");
                        return false;
                    }
                    r->pos = np;
                }
                r->pos[r->num_pos++] = (qpos){s, gi, m, idx};
            }
            go_game_free(&all);
        }
    }
    if (index == 0) {
        snprintf(err, (size_t)err_len,
                 "no positions: moves %d-%d are past the end of every game (the longest has %d "
                 "moves)",
                 m_first, m_last, max_moves);
        return false;
    }
    return true;
}

/* ---- merge and stats ------------------------------------------------------------------------ */

typedef struct line_rec {
    long long index;
    int order;
    char *text;
} line_rec;

static int cmp_line(const void *a, const void *b)
{
    const line_rec *x = a, *y = b;
    if (x->index != y->index)
        return x->index < y->index ? -1 : 1;
    return x->order - y->order;
}

/* Reads every line of the files named in argv[first..argc-1] except --out's value. */
static line_rec *read_lines(int argc, char **argv, int first, int *n, char *err, int err_len)
{
    line_rec *recs = NULL;
    int cap = 0;
    *n = 0;
    for (int a = first; a < argc; a++) {
        if (!strcmp(argv[a], "--out")) {
            a++;
            continue;
        }
        FILE *f = fopen(argv[a], "r");
        if (!f) {
            snprintf(err, (size_t)err_len, "%s: %s", argv[a], strerror(errno));
            goto fail;
        }
        char *buf = NULL;
        size_t bcap = 0;
        ssize_t got;
        for (int num = 1; (got = getline(&buf, &bcap, f)) > 0; num++) {
            while (got > 0 && (buf[got - 1] == '\n' || buf[got - 1] == '\r'))
                buf[--got] = 0;
            if (!got)
                continue;
            cJSON *o = cJSON_Parse(buf);
            const cJSON *idx = cJSON_GetObjectItemCaseSensitive(o, "index");
            if (!cJSON_IsNumber(idx)) {
                snprintf(err, (size_t)err_len, "%s:%d: not a quiz record (no index)", argv[a],
                         num);
                cJSON_Delete(o);
                free(buf);
                fclose(f);
                goto fail;
            }
            if (*n == cap) {
                cap = cap ? 2 * cap : 1024;
                line_rec *nr = realloc(recs, sizeof *nr * (size_t)cap);
                if (!nr) {
                    cJSON_Delete(o);
                    free(buf);
                    fclose(f);
                    snprintf(err, (size_t)err_len, "out of memory");
                    goto fail;
                }
                recs = nr;
            }
            recs[*n] = (line_rec){(long long)idx->valuedouble, *n, strdup(buf)};
            (*n)++;
            cJSON_Delete(o);
        }
        free(buf);
        fclose(f);
    }
    return recs ? recs : calloc(1, sizeof *recs);
fail:
    for (int i = 0; i < *n; i++)
        free(recs[i].text);
    free(recs);
    return NULL;
}

static int cmd_merge(int argc, char **argv)
{
    const char *out_path = NULL;
    for (int a = 2; a < argc; a++)
        if (!strcmp(argv[a], "--out") && a + 1 < argc)
            out_path = argv[++a];
    char err[512];
    int n;
    line_rec *recs = read_lines(argc, argv, 2, &n, err, sizeof err);
    if (!recs) {
        fprintf(stderr, "shido fuseki-quiz merge: %s\n", err);
        return 1;
    }
    qsort(recs, (size_t)n, sizeof *recs, cmp_line);
    FILE *out = out_path ? fopen(out_path, "w") : stdout;
    int rc = out ? 0 : 1;
    for (int i = 0; i < n; i++) {
        if (i > 0 && recs[i].index == recs[i - 1].index) {
            if (strcmp(recs[i].text, recs[i - 1].text)) {
                fprintf(stderr, "shido fuseki-quiz merge: two different records for position "
                                "%lld\n", recs[i].index);
                rc = 1;
            }
        } else if (out) {
            fprintf(out, "%s\n", recs[i].text);
        }
        free(recs[i].text);
    }
    if (out && out != stdout && fclose(out) != 0)
        rc = 1;
    if (!out)
        fprintf(stderr, "shido fuseki-quiz merge: %s: %s\n", out_path, strerror(errno));
    free(recs);
    return rc;
}

/* Histogram bins: [lo_k, lo_{k+1}) for k < n - 1, the last open. */
static int bin_of(double v, const double *lo, int n)
{
    int b = -1;
    for (int k = 0; k < n; k++)
        if (v >= lo[k])
            b = k;
    return b;
}

/* The number key of a choice record or of its features. */
static double feature_of(const cJSON *choice, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(choice, key);
    if (!v)
        v = cJSON_GetObjectItemCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(choice, "features"), key);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

static int cmd_stats(int argc, char **argv)
{
    char err[512];
    int n;
    line_rec *recs = read_lines(argc, argv, 2, &n, err, sizeof err);
    if (!recs) {
        fprintf(stderr, "shido fuseki-quiz stats: %s\n", err);
        return 1;
    }
    static const double loss_lo[] = {0.5, 1, 2, 3, 5, 10};
    static const double prior_lo[] = {0, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1};
    enum { NL = 6, NP = 6 };
    int positions = 0, errors = 0, usable = 0, all3 = 0, found[3] = {0}, loss_h[3][NL] = {{0}};
    int kg_h[3][NP] = {{0}}, hu_h[3][NP] = {{0}}, grade[3] = {0}, tempting = 0;
    double loss_sum[3] = {0}, str_sum[3] = {0};
    int str_n[3] = {0};
    for (int i = 0; i < n; i++) {
        cJSON *o = cJSON_Parse(recs[i].text);
        free(recs[i].text);
        positions++;
        if (cJSON_GetObjectItemCaseSensitive(o, "error")) {
            errors++;
            cJSON_Delete(o);
            continue;
        }
        const cJSON *g = cJSON_GetObjectItemCaseSensitive(o, "grade");
        const cJSON *choices = cJSON_GetObjectItemCaseSensitive(o, "choices"), *ch;
        int kinds = 0;
        bool tempt = false;
        cJSON_ArrayForEach(ch, choices)
        {
            const cJSON *kind = cJSON_GetObjectItemCaseSensitive(ch, "kind");
            int k = !cJSON_IsString(kind)                          ? -1
                    : !strcmp(kind->valuestring, "big_point")      ? 0
                    : !strcmp(kind->valuestring, "near")           ? 1
                    : !strcmp(kind->valuestring, "over_strengthen") ? 2
                                                                   : -1;
            if (k < 0)
                continue;
            kinds++;
            found[k]++;
            double loss = feature_of(ch, "deepScoreLoss");
            int b = bin_of(loss, loss_lo, NL);
            if (b >= 0)
                loss_h[k][b]++;
            loss_sum[k] += isfinite(loss) ? loss : 0;
            b = bin_of(feature_of(ch, "priorKataGo"), prior_lo, NP);
            if (b >= 0)
                kg_h[k][b]++;
            b = bin_of(feature_of(ch, "humanPrior"), prior_lo, NP);
            if (b >= 0)
                hu_h[k][b]++;
            double s = feature_of(ch, "strengthenOwn");
            if (isfinite(s)) {
                str_sum[k] += s;
                str_n[k]++;
            }
            tempt |= cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(ch, "humanPrefersAnswer"));
        }
        usable += kinds > 0;
        all3 += kinds == 3;
        tempting += tempt;
        if (kinds && cJSON_IsString(g))
            grade[!strcmp(g->valuestring, "easy") ? 0 : !strcmp(g->valuestring, "medium") ? 1
                                                                                           : 2]++;
        cJSON_Delete(o);
    }
    free(recs);
    int ok_pos = positions - errors;
    double d = ok_pos > 0 ? ok_pos : 1;
    printf("positions %d (errors %d); quizzes with a wrong answer %d (%.1f%%), with all three "
           "kinds %d (%.1f%%)\n\n",
           positions, errors, usable, 100 * usable / d, all3, 100 * all3 / d);
    static const char *const names[3] = {"big point", "near", "over-strengthening"};
    static const int paper_r[3] = {60, 51, 50};
    printf("| kind | found | share | paper (book R, 171) | mean deep loss | mean strengthen |\n"
           "|---|---|---|---|---|---|\n");
    for (int k = 0; k < 3; k++)
        printf("| %s | %d | %.1f%% | %d (%.1f%%) | %.2f | %.3f |\n", names[k], found[k],
               100 * found[k] / d, paper_r[k], 100 * paper_r[k] / 171.0,
               found[k] ? loss_sum[k] / found[k] : 0, str_n[k] ? str_sum[k] / str_n[k] : 0);
    printf("\n| deep score loss | [0.5,1) | [1,2) | [2,3) | [3,5) | [5,10) | >=10 |\n"
           "|---|---|---|---|---|---|---|\n");
    for (int k = 0; k < 3; k++) {
        printf("| %s |", names[k]);
        for (int b = 0; b < NL; b++)
            printf(" %.0f%% |", found[k] ? 100.0 * loss_h[k][b] / found[k] : 0);
        printf("\n");
    }
    printf("\n| prior (all kinds) | <1e-5 | [1e-5,1e-4) | [1e-4,1e-3) | [1e-3,1e-2) | [1e-2,0.1) "
           "| >=0.1 |\n|---|---|---|---|---|---|---|\n");
    for (int which = 0; which < 2; which++) {
        int tot = found[0] + found[1] + found[2];
        printf("| %s |", which ? "Prior_StrongHuman" : "Prior_KataGo");
        for (int b = 0; b < NP; b++) {
            int c = 0;
            for (int k = 0; k < 3; k++)
                c += which ? hu_h[k][b] : kg_h[k][b];
            printf(" %.0f%% |", tot ? 100.0 * c / tot : 0);
        }
        printf("\n");
    }
    printf("\ngrades: easy %d, medium %d, hard %d; quizzes where the human policy prefers a "
           "wrong answer: %d\n",
           grade[0], grade[1], grade[2], tempting);
    return 0;
}

/* ---- the command ---------------------------------------------------------------------------- */

static void run_free(run *r)
{
    for (int s = 0; s < r->num_src; s++)
        go_sgf_free(r->src[s].col);
    for (int i = 0; r->slots && i < r->window; i++)
        free(r->slots[i].sgf);
    free(r->slots);
    free(r->pos);
}

int shido_cmd_fuseki_quiz(int argc, char **argv)
{
    bool sub_help = argc > 2 && (!strcmp(argv[2], "--help") || !strcmp(argv[2], "-h"));
    if (sub_help && !strcmp(argv[1], "merge")) {
        printf("usage: shido fuseki-quiz merge FILE.jsonl... [--out FILE]\n"
               "The shards' records in position order, each position once\n");
        return 0;
    }
    if (sub_help && !strcmp(argv[1], "stats")) {
        printf("usage: shido fuseki-quiz stats FILE.jsonl...\n"
               "How often each kind of wrong answer was found, its loss and prior histograms\n");
        return 0;
    }
    if (argc > 1 && !strcmp(argv[1], "merge"))
        return cmd_merge(argc, argv);
    if (argc > 1 && !strcmp(argv[1], "stats"))
        return cmd_stats(argc, argv);
    teach_options o;
    teach_options_init(&o);
    run r = {0};
    r.qp = teach_quiz_params_default();
    int m_first = 10, m_last = 50, g_first = 1, g_last = 1 << 30, shard_k = 1, shard_n = 1;
    int bar_mode = -1, policy_syms = 8;
    const char *jsonl_path = "-";
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
            bar_mode = a[2] == 'p' ? 1 : 0;
            continue;
        }
        bool needs = !strcmp(a, "--moves") || !strcmp(a, "--games") || !strcmp(a, "--answer") ||
                     !strcmp(a, "--out-dir") || !strcmp(a, "--jsonl") || !strcmp(a, "--shard") ||
                     !strcmp(a, "--quiz") || !strcmp(a, "--policy-symmetries");
        if (needs && i + 1 >= argc) {
            snprintf(err, sizeof err, "option '%s' needs a value", a);
            return usage(stderr, err);
        }
        const char *v = needs ? argv[++i] : NULL;
        if (!strcmp(a, "--moves") || !strcmp(a, "--games")) {
            bool moves = a[2] == 'm';
            if (!positions_parse_range(v, moves ? &m_first : &g_first, moves ? &m_last : &g_last)) {
                snprintf(err, sizeof err, "%s %s: expected N or A-B (1 <= A <= B)", a, v);
                return usage(stderr, err);
            }
        } else if (!strcmp(a, "--answer")) {
            r.answer_from = !strcmp(v, "game")   ? ANSWER_GAME
                            : !strcmp(v, "best") ? ANSWER_BEST
                                                 : ANSWER_GIVEN;
            r.answer_text = v;
        } else if (!strcmp(a, "--policy-symmetries")) {
            policy_syms = atoi(v);
            if (policy_syms != 1 && policy_syms != 8)
                return usage(stderr, "--policy-symmetries takes 1 or 8");
        } else if (!strcmp(a, "--out-dir")) {
            r.out_dir = v;
        } else if (!strcmp(a, "--jsonl")) {
            jsonl_path = v;
        } else if (!strcmp(a, "--shard")) {
            char tail;
            if (sscanf(v, "%d/%d%c", &shard_k, &shard_n, &tail) != 2 || shard_n < 1 ||
                shard_k < 1 || shard_k > shard_n) {
                snprintf(err, sizeof err, "--shard %s: expected K/N with 1 <= K <= N", v);
                return usage(stderr, err);
            }
        } else if (!strcmp(a, "--quiz")) {
            char name[128];
            const char *eq = strchr(v, '=');
            snprintf(name, sizeof name, "%.*s", eq ? (int)(eq - v) : 0, v);
            if (!eq || !teach_quiz_params_set(&r.qp, name, eq + 1, err, sizeof err))
                return usage(stderr, eq ? err : "--quiz expects NAME=VALUE");
        } else if (a[0] == '-' && a[1]) {
            snprintf(err, sizeof err, "unknown option '%s'", a);
            return usage(stderr, err);
        } else if (r.num_src == QUIZ_MAX_FILES) {
            return usage(stderr, "too many files");
        } else {
            r.src[r.num_src++].path = a;
        }
    }
    if (!r.num_src)
        return usage(stderr, "no SGF file given");
    if (o.num_weights < 1 || o.num_weights > 2)
        return usage(stderr, "one network (-w NET), and optionally a second for "
                             "Prior_StrongHuman");
    if (o.params.max_visits > 0)
        r.qp.visits = (int)(o.params.max_visits < 1000000 ? o.params.max_visits : 1000000);
    int threads = o.threads > 0 ? o.threads : 1;
    o.params.num_threads = 1;
    int rc = 1;
    for (int s = 0; s < r.num_src; s++) {
        r.src[s].col = go_sgf_read_file(r.src[s].path, err, sizeof err);
        if (!r.src[s].col) {
            fprintf(stderr, "shido fuseki-quiz: %s\n", err);
            run_free(&r);
            return 1;
        }
        file_stem(r.src[s].path, r.src[s].stem, sizeof r.src[s].stem);
    }
    if (!collect(&r, g_first, g_last, m_first, m_last, shard_k, shard_n, err, sizeof err)) {
        fprintf(stderr, "shido fuseki-quiz: %s\n", err);
        run_free(&r);
        return 1;
    }
    if (r.out_dir && mkdir(r.out_dir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "shido fuseki-quiz: %s: %s\n", r.out_dir, strerror(errno));
        run_free(&r);
        return 1;
    }
    r.jsonl = strcmp(jsonl_path, "-") ? fopen(jsonl_path, "w") : stdout;
    if (!r.jsonl) {
        fprintf(stderr, "shido fuseki-quiz: %s: %s\n", jsonl_path, strerror(errno));
        run_free(&r);
        return 1;
    }
    r.window = threads * QUIZ_WINDOW_PER_THREAD;
    r.slots = calloc((size_t)r.window, sizeof *r.slots);
    teach_engine *e = r.slots ? teach_engine_new(&o, err, sizeof err) : NULL;
    if (!e) {
        fprintf(stderr, "shido fuseki-quiz: %s\n", r.slots ? err : "out of memory");
    } else {
        progress_start(&r.bar, r.num_pos, "quizzes", bar_mode);
        double t0 = go_now_s();
        bool ran = teach_batch_run(e, threads, policy_syms, r.num_pos, r.window, job, on_done,
                                   &r, err, sizeof err);
        double el = go_now_s() - t0;
        progress_end(&r.bar, r.done);
        if (!ran) {
            fprintf(stderr, "shido fuseki-quiz: %s\n", err);
        } else {
            char took[32];
            fprintf(stderr,
                    "shido fuseki-quiz: %d positions (shard %d/%d), %d quizzes (big point %d, "
                    "near %d, over-strengthening %d; all three %d), %d errors, %s on %d "
                    "thread%s: %.2f s a position per thread, %.0f network evaluations a "
                    "position\n",
                    r.done, shard_k, shard_n, r.usable, r.kinds[0], r.kinds[1], r.kinds[2],
                    r.all_kinds, r.errors, progress_duration(el, took, sizeof took), threads,
                    threads == 1 ? "" : "s", r.done ? el * threads / r.done : 0.0,
                    r.done ? (double)r.evals / r.done : 0.0);
            rc = r.done == r.num_pos && r.errors == 0 ? 0 : 1;
        }
    }
    if (r.jsonl != stdout && fclose(r.jsonl) != 0)
        rc = 1;
    teach_engine_free(e);
    run_free(&r);
    return rc;
}
