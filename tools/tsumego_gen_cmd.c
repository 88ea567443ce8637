/* tools/tsumego_gen_cmd.c -- `shido tsumego-gen retro|concept|merge`: the tsumego generators of
 * teach/tsumego_gen.h on several threads, one SGF per problem and a JSON Lines record each in the
 * format of ../shared/tsumego (so `shido tsumego bench --jsonl` reads the output).
 *
 * Sources (retro: the problems of --jsonl files; concept: the seed SGF files, one tesuji each,
 * its first move the correct variation) are numbered in the order given; --shard K/N keeps those
 * whose number is K-1 modulo N. Each source's problems come out in the generator's order, sources
 * in their order whatever the number of threads, and a problem equal to an earlier one (up to
 * symmetry and colours, teach_tsgen_key) or to a problem of the sources or of --exclude is
 * dropped. Records carry the source number, their order within it and the key: `merge` sorts the
 * shards' records back into one run's order and drops the duplicates one run would have dropped,
 * so merging the shards equals one run. Output goes to DIR/problems.jsonl (with --shard:
 * DIR/shard-KKKK-of-NNNN.jsonl) and DIR/sgf/; the sources finished are listed in the same name with .done, and a
 * second run with the same options goes on where the first stopped. */
#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "go/clock.h"
#include "go/sgf.h"
#include "teach/disc.h"
#include "teach/engine.h"
#include "teach/tsumego_gen.h"
#include "tools/progress.h"
#include "tools/tsumego_gen_cmd.h"
#include "tools/tsumego_records.h"

#define GEN_MAX_FILES 64

/* ---- a set of keys ---------------------------------------------------------------------------- */

typedef struct keyset {
    uint64_t *slot;
    size_t cap, n;
} keyset;

/* Adds key; false when it was there already. Out of memory aborts the run's caller (checked). */
static bool keyset_add(keyset *s, uint64_t key, bool *oom)
{
    key = key ? key : 1; /* 0 marks an empty slot */
    if (2 * (s->n + 1) > s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 1024;
        uint64_t *slot = calloc(cap, sizeof *slot);
        if (!slot) {
            *oom = true;
            return false;
        }
        for (size_t i = 0; i < s->cap; i++)
            if (s->slot[i])
                for (size_t j = s->slot[i] & (cap - 1);; j = (j + 1) & (cap - 1))
                    if (!slot[j]) {
                        slot[j] = s->slot[i];
                        break;
                    }
        free(s->slot);
        s->slot = slot;
        s->cap = cap;
    }
    for (size_t j = key & (s->cap - 1);; j = (j + 1) & (s->cap - 1)) {
        if (s->slot[j] == key)
            return false;
        if (!s->slot[j]) {
            s->slot[j] = key;
            s->n++;
            return true;
        }
    }
}

/* ---- sources -------------------------------------------------------------------------------- */

typedef struct source {
    tsumego_record rec;
    int index;            /* its number before sharding */
} source;

typedef struct sources {
    source *s;
    int n, cap;
} sources;

static bool sources_add(sources *v, const tsumego_record *r)
{
    if (v->n == v->cap) {
        int cap = v->cap ? 2 * v->cap : 256;
        source *s = realloc(v->s, (size_t)cap * sizeof *s);
        if (!s)
            return false;
        v->s = s;
        v->cap = cap;
    }
    v->s[v->n].rec = *r;
    v->s[v->n].index = v->n;
    v->n++;
    return true;
}

static void file_stem(const char *path, char *out, size_t len)
{
    const char *base = strrchr(path, '/');
    snprintf(out, len, "%s", base ? base + 1 : path);
    char *dot = strrchr(out, '.');
    if (dot && dot != out)
        *dot = 0;
}

/* Every record of a JSON Lines file; false after printing the reason. */
static bool read_jsonl(const char *path, sources *v)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "shido tsumego-gen: %s: %s\n", path, strerror(errno));
        return false;
    }
    char stem[96];
    file_stem(path, stem, sizeof stem);
    static tsumego_record r; /* 4 KB; the reading is single-threaded */
    char *line = NULL, why[256];
    size_t cap = 0;
    int num = 0;
    bool ok = true;
    while (ok && getline(&line, &cap, f) > 0) {
        num++;
        if (line[strspn(line, " \t\r\n")] == 0)
            continue;
        if (!tsumego_record_from_json(line, &r, why, sizeof why)) {
            fprintf(stderr, "shido tsumego-gen: %s line %d: %s\n", path, num, why);
            ok = false;
        } else {
            if (!r.id[0])
                snprintf(r.id, sizeof r.id, "%.90s/%d", stem, num);
            ok = sources_add(v, &r);
        }
    }
    free(line);
    fclose(f);
    return ok;
}

static int name_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The seeds of an SGF file, or of every *.sgf of a folder (in name order): one per game tree. */
static bool read_seeds(const char *path, sources *v)
{
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        DIR *d = opendir(path);
        if (!d) {
            fprintf(stderr, "shido tsumego-gen: %s: %s\n", path, strerror(errno));
            return false;
        }
        char *names[512];
        int n = 0;
        struct dirent *e;
        while ((e = readdir(d)) && n < 512) {
            size_t len = strlen(e->d_name);
            if (len > 4 && !strcasecmp(e->d_name + len - 4, ".sgf") &&
                (names[n] = malloc(strlen(path) + len + 2)))
                sprintf(names[n++], "%s/%s", path, e->d_name);
        }
        closedir(d);
        qsort(names, (size_t)n, sizeof *names, name_cmp);
        bool ok = true;
        for (int i = 0; i < n; i++) {
            ok = ok && read_seeds(names[i], v);
            free(names[i]);
        }
        return ok;
    }
    char err[256], stem[96];
    go_sgf_collection *col = go_sgf_read_file(path, err, sizeof err);
    if (!col) {
        fprintf(stderr, "shido tsumego-gen: %s: %s\n", path, err);
        return false;
    }
    file_stem(path, stem, sizeof stem);
    static tsumego_record r;
    bool ok = true;
    for (int i = 0; ok && i < col->num_games; i++) {
        memset(&r, 0, sizeof r); /* the reader adds to the lists */
        if (!tsumego_record_from_sgf(col->games[i], &r, err, sizeof err) || r.nsol < 1) {
            fprintf(stderr, "shido tsumego-gen: %s game %d: %s\n", path, i + 1,
                    r.nsol < 1 ? "no tesuji (the first move of a correct variation)" : err);
            ok = false;
            break;
        }
        snprintf(r.id, sizeof r.id, col->num_games > 1 ? "%.90s-%d" : "%.90s", stem, i + 1);
        ok = sources_add(v, &r);
    }
    go_sgf_free(col);
    return ok;
}

/* ---- the run -------------------------------------------------------------------------------- */

typedef struct found {
    teach_tsgen_problem p;
    char how[200];
} found;

typedef struct result {
    found *f;
    int n, cap;
    bool oom;
    bool source_ok;
    teach_tsgen_stats st;
    bool ready;
} result;

typedef struct run {
    bool concept;
    teach_retro_params retro;
    teach_concept_params cp;
    sources src;
    int *todo;            /* indices into src of this shard's sources not done yet */
    int num_todo;
    result *res;          /* num_todo */
    int next, window, emitted;
    bool stop;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    keyset seen;
    FILE *jsonl, *done;
    const char *sgf_dir;
    /* totals */
    int problems, dups, sources_failed, candidates;
    int verdicts[TEACH_TSGEN_VERDICTS], by_rule[TEACH_RETRO_RULES];
    int difficulty[10];
    uint64_t nodes;
    progress bar;
    char what[160];
    teach_engine *engine;     /* -w: the policy's rank of each answer; NULL: none */
    long rank_sum;
    int ranked, rank_first;
} run;

static bool collect(void *ctx, teach_tsgen_problem *p, const char *how)
{
    result *r = ctx;
    if (r->n == r->cap) {
        int cap = r->cap ? 2 * r->cap : 16;
        found *f = realloc(r->f, (size_t)cap * sizeof *f);
        if (!f) {
            r->oom = true;
            return false;
        }
        r->f = f;
        r->cap = cap;
    }
    r->f[r->n].p = *p;
    snprintf(r->f[r->n].how, sizeof r->f[r->n].how, "%s", how);
    p->sgf = NULL; /* ours now */
    r->n++;
    return true;
}

static void generate(run *R, int t)
{
    const tsumego_record *rec = &R->src.s[R->todo[t]].rec;
    result *res = &R->res[t];
    go_board b;
    if (!tsumego_record_board(rec, &b)) {
        res->source_ok = false;
        return;
    }
    if (R->concept) {
        int tesuji = tsumego_record_point(rec->size, rec->sol[0]);
        res->source_ok = teach_concept_generate(&b, rec->to_play, rec->hint, tesuji, &R->cp,
                                                collect, res, &res->st);
    } else {
        res->source_ok = teach_retro_generate(&b, rec->to_play, rec->hint, &R->retro, collect,
                                              res, &res->st);
    }
}

static void *worker(void *arg)
{
    run *R = arg;
    pthread_mutex_lock(&R->mu);
    for (;;) {
        while (!R->stop && R->next < R->num_todo && R->next >= R->emitted + R->window)
            pthread_cond_wait(&R->cv, &R->mu);
        if (R->stop || R->next >= R->num_todo)
            break;
        int t = R->next++;
        pthread_mutex_unlock(&R->mu);
        generate(R, t);
        pthread_mutex_lock(&R->mu);
        R->res[t].ready = true;
        pthread_cond_broadcast(&R->cv);
    }
    pthread_mutex_unlock(&R->mu);
    return NULL;
}

static void sgf_point(int p, char out[3])
{
    out[0] = (char)('a' + go_point_x(p));
    out[1] = (char)('a' + go_point_y(p));
    out[2] = 0;
}

/* The JSON Lines record of a problem (cJSON_free it). */
static char *record_json(const run *R, const source *s, int seq, const found *f, const char *id,
                         int policy_rank)
{
    const teach_tsgen_problem *p = &f->p;
    cJSON *j = cJSON_CreateObject();
    char pt[3], text[64], key[24];
    cJSON_AddStringToObject(j, "id", id);
    cJSON_AddNumberToObject(j, "size", p->board.size);
    cJSON_AddStringToObject(j, "to_play", p->to_play == GO_BLACK ? "B" : "W");
    snprintf(text, sizeof text, "%s to %s", p->to_play == GO_BLACK ? "Black" : "White",
             p->goal == GO_TSUMEGO_GOAL_KILL ? "kill" : "live");
    cJSON_AddStringToObject(j, "comment", text);
    for (int c = GO_BLACK; c <= GO_WHITE; c++) {
        cJSON *a = cJSON_AddArrayToObject(j, c == GO_BLACK ? "AB" : "AW");
        for (int y = 0; y < p->board.size; y++)
            for (int x = 0; x < p->board.size; x++)
                if (p->board.color[go_point_at(x, y)] == c) {
                    sgf_point(go_point_at(x, y), pt);
                    cJSON_AddItemToArray(a, cJSON_CreateString(pt));
                }
    }
    cJSON *sol = cJSON_AddArrayToObject(j, "solutions");
    sgf_point(p->answer, pt);
    cJSON_AddItemToArray(sol, cJSON_CreateString(pt));
    cJSON *line = cJSON_AddArrayToObject(j, "main_line");
    for (int i = 0; i < p->line_len; i++) {
        if (p->line[i] == GO_PASS)
            snprintf(pt, sizeof pt, "tt");
        else
            sgf_point(p->line[i], pt);
        cJSON_AddItemToArray(line, cJSON_CreateString(pt));
    }
    cJSON_AddStringToObject(j, "method", R->concept ? "concept" : "retro");
    cJSON_AddStringToObject(j, "source", s->rec.id);
    cJSON_AddNumberToObject(j, "source_index", s->index);
    cJSON_AddNumberToObject(j, "seq", seq);
    cJSON_AddStringToObject(j, "how", f->how);
    cJSON_AddNumberToObject(j, "difficulty", p->difficulty);
    cJSON_AddNumberToObject(j, "nodes", (double)p->nodes);
    cJSON_AddNumberToObject(j, "depth", p->depth);
    if (policy_rank > 0)
        cJSON_AddNumberToObject(j, "policy_rank", policy_rank);
    snprintf(key, sizeof key, "%016llx", (unsigned long long)p->key);
    cJSON_AddStringToObject(j, "key", key);
    char *out = cJSON_PrintUnformatted(j);
    cJSON_Delete(j);
    return out;
}

/* Writes what source t found (on the main thread, in order). False on a write error. */
static bool emit_source(run *R, int t)
{
    result *res = &R->res[t];
    const source *s = &R->src.s[R->todo[t]];
    bool ok = !res->oom;
    if (!ok)
        fprintf(stderr, "shido tsumego-gen: %s: out of memory\n", s->rec.id);
    R->sources_failed += !res->source_ok;
    R->candidates += res->st.candidates;
    R->nodes += res->st.nodes;
    for (int v = 0; v < TEACH_TSGEN_VERDICTS; v++)
        R->verdicts[v] += res->st.verdicts[v];
    for (int k = 0; k < TEACH_RETRO_RULES; k++)
        R->by_rule[k] += res->st.by_rule[k];
    for (int i = 0; i < res->n; i++) {
        found *f = &res->f[i];
        bool oom = false;
        if (ok && !keyset_add(&R->seen, f->p.key, &oom)) {
            R->dups++;
        } else if (ok) {
            char id[200], name[256], path[1200];
            snprintf(id, sizeof id, "%s/%s/%d", R->concept ? "concept" : "retro", s->rec.id, i);
            snprintf(name, sizeof name, "%s", id);
            for (char *c = name; *c; c++)
                if (*c == '/' || *c == ' ')
                    *c = '_';
            snprintf(path, sizeof path, "%s/%s.sgf", R->sgf_dir, name);
            FILE *g = fopen(path, "w");
            ok = g && fputs(f->p.sgf, g) >= 0;
            if (g && fclose(g) != 0)
                ok = false;
            if (!ok)
                fprintf(stderr, "shido tsumego-gen: %s: %s\n", path, strerror(errno));
            int rank = 0;
            char why[256];
            if (ok && R->engine && !teach_tsgen_policy_rank(R->engine, 0, &f->p, &rank, why,
                                                            sizeof why)) {
                fprintf(stderr, "shido tsumego-gen: %s: the policy's rank: %s\n", id, why);
                rank = 0;
            }
            if (rank > 0) {
                R->rank_sum += rank;
                R->ranked++;
                R->rank_first += rank == 1;
            }
            char *line = ok ? record_json(R, s, i, f, id, rank) : NULL;
            ok = ok && line && fputs(line, R->jsonl) >= 0 && fputc('\n', R->jsonl) != EOF;
            cJSON_free(line);
            R->problems++;
            R->difficulty[f->p.difficulty]++;
        }
        ok = ok && !oom;
        teach_tsgen_problem_free(&f->p);
    }
    free(res->f);
    res->f = NULL;
    ok = ok && fflush(R->jsonl) == 0 && fprintf(R->done, "%d\n", s->index) > 0 &&
         fflush(R->done) == 0;
    return ok;
}

/* ---- options -------------------------------------------------------------------------------- */

static int usage(FILE *f)
{
    fprintf(f,
            "usage: shido tsumego-gen retro --jsonl FILE... --out DIR [options]\n"
            "       shido tsumego-gen concept SEEDS.sgf|DIR... --out DIR [options]\n"
            "       shido tsumego-gen merge SHARD.jsonl... --out FILE.jsonl\n"
            "  --out DIR          problems.jsonl (shard-K-of-N.jsonl), its .done list, sgf/\n"
            "  --threads T        sources generated at once [1]\n"
            "  --shard K/N        the K-th of N deterministic parts of the sources (merge joins)\n"
            "  --limit N          the first N sources only (before --shard)\n"
            "  --exclude FILE     a JSON Lines collection whose problems are not emitted again\n"
            "  --nodes N          solver positions per solve [300000]\n"
            "  --time S           seconds per solve [3]\n"
            "  --line-checks L    later mover turns of the main line checked unique [1; 0: none]\n"
            "  --no-prune         no static (Euler, eye shape) pruning before the solver\n"
            "  --progress|--quiet the progress bar always | never [on a terminal]\n"
            "  -w NET [--backend NAME]  the policy's rank of each answer (policy_rank)\n"
            " retro:\n"
            "  --max-removals R   removal steps from a line position [2]\n"
            "  --max-candidates C candidates verified per source problem [400]\n"
            "  --include-source   emit the source problem itself when strict\n"
            " concept:\n"
            "  --disc NET.dsc     rank the tree's nodes by this tsumego discriminator (seed 002;\n"
            "                     `shido train-discriminator`, teach/data/tsumego-disc.dsc) [the\n"
            "                     Bouzy difference to the parent]\n"
            "  --tree-nodes N     position-tree size [200]\n"
            "  --keep F           children kept: Bouzy difference >= F x the largest [0.8]\n"
            "  --window W         where stones go: region (the seed's solver region, widened by\n"
            "                     --margin M - 1 steps [1]) or box (the seed's stones widened by\n"
            "                     --margin M [2]) [region]\n"
            "  --dilations N --erosions M --stone-value V   the Bouzy map [5, 0, 128]\n"
            "  --verify-top K     best-ranked nodes verified [all]\n");
    return f == stdout ? 0 : 2;
}

/* ---- merge -------------------------------------------------------------------------------- */

typedef struct mline {
    char *text;
    int source, seq;
    uint64_t key;
} mline;

static int mline_cmp(const void *a, const void *b)
{
    const mline *x = a, *y = b;
    return x->source != y->source ? (x->source < y->source ? -1 : 1)
                                  : (x->seq > y->seq) - (x->seq < y->seq);
}

static int cmd_merge(int argc, char **argv)
{
    const char *out = NULL;
    mline *v = NULL;
    int n = 0, cap = 0, status = 0;
    for (int i = 1; i < argc && !status; i++) {
        if (!strcmp(argv[i], "--out") && i + 1 < argc) {
            out = argv[++i];
            continue;
        }
        FILE *f = fopen(argv[i], "r");
        if (!f) {
            fprintf(stderr, "shido tsumego-gen merge: %s: %s\n", argv[i], strerror(errno));
            status = 1;
            break;
        }
        char *line = NULL;
        size_t lcap = 0;
        int num = 0;
        while (getline(&line, &lcap, f) > 0 && !status) {
            num++;
            cJSON *j = cJSON_Parse(line);
            const cJSON *si = cJSON_GetObjectItemCaseSensitive(j, "source_index");
            const cJSON *sq = cJSON_GetObjectItemCaseSensitive(j, "seq");
            const cJSON *k = cJSON_GetObjectItemCaseSensitive(j, "key");
            if (!cJSON_IsNumber(si) || !cJSON_IsNumber(sq) || !cJSON_IsString(k)) {
                fprintf(stderr, "shido tsumego-gen merge: %s line %d: not a generator record "
                                "(source_index, seq, key)\n", argv[i], num);
                status = 1;
            } else if (n == cap && !(v = realloc(v, (size_t)(cap = cap ? 2 * cap : 256) *
                                                          sizeof *v))) {
                status = 1;
            } else {
                line[strcspn(line, "\r\n")] = 0;
                v[n] = (mline){strdup(line), si->valueint, sq->valueint,
                               strtoull(k->valuestring, NULL, 16)};
                status = v[n++].text ? 0 : 1;
            }
            cJSON_Delete(j);
        }
        free(line);
        fclose(f);
    }
    if (!status && !out) {
        fprintf(stderr, "shido tsumego-gen merge: --out FILE is required\n");
        status = 2;
    }
    FILE *o = status ? NULL : fopen(out, "w");
    if (!status && !o) {
        fprintf(stderr, "shido tsumego-gen merge: %s: %s\n", out, strerror(errno));
        status = 1;
    }
    int kept = 0;
    if (!status) {
        qsort(v, (size_t)n, sizeof *v, mline_cmp);
        keyset seen = {0};
        bool oom = false;
        for (int i = 0; i < n && !oom; i++)
            if (keyset_add(&seen, v[i].key, &oom)) {
                fprintf(o, "%s\n", v[i].text);
                kept++;
            }
        free(seen.slot);
        if (fclose(o) != 0 || oom) {
            fprintf(stderr, "shido tsumego-gen merge: %s: write failed\n", out);
            status = 1;
        } else {
            fprintf(stderr, "shido tsumego-gen merge: %d records, %d kept, %d duplicates "
                            "dropped\n", n, kept, n - kept);
        }
    }
    for (int i = 0; i < n; i++)
        free(v[i].text);
    free(v);
    return status;
}

/* ---- generate ------------------------------------------------------------------------------ */

/* Reads a previous run's output: its keys (not emitted again) and the sources it finished. */
static bool resume(run *R, const char *jsonl_path, const char *done_path, uint8_t *done,
                   int *lines)
{
    *lines = 0;
    bool oom = false;
    FILE *f = fopen(jsonl_path, "r");
    if (f) {
        char *line = NULL;
        size_t cap = 0;
        while (getline(&line, &cap, f) > 0) {
            cJSON *j = cJSON_Parse(line);
            const cJSON *k = cJSON_GetObjectItemCaseSensitive(j, "key");
            if (cJSON_IsString(k)) {
                keyset_add(&R->seen, strtoull(k->valuestring, NULL, 16), &oom);
                (*lines)++;
            }
            cJSON_Delete(j);
        }
        free(line);
        fclose(f);
    }
    f = fopen(done_path, "r");
    if (f) {
        int idx;
        while (fscanf(f, "%d", &idx) == 1)
            if (idx >= 0 && idx < R->src.n)
                done[idx] = 1;
        fclose(f);
    }
    return !oom;
}

static bool parse_int(const char *opt, const char *v, int lo, int hi, int *out)
{
    char *end;
    long x = strtol(v, &end, 10);
    if (*end || x < lo || x > hi) {
        fprintf(stderr, "shido tsumego-gen: %s %s: expected an integer in %d..%d\n", opt, v, lo,
                hi);
        return false;
    }
    *out = (int)x;
    return true;
}

static bool parse_double(const char *opt, const char *v, double lo, double hi, double *out)
{
    char *end;
    double x = strtod(v, &end);
    if (*end || !(x >= lo && x <= hi)) {
        fprintf(stderr, "shido tsumego-gen: %s %s: expected a number in %g..%g\n", opt, v, lo,
                hi);
        return false;
    }
    *out = x;
    return true;
}

int shido_cmd_tsumego_gen(int argc, char **argv)
{
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))
        return usage(argc < 2 ? stderr : stdout);
    if (!strcmp(argv[1], "merge"))
        return cmd_merge(argc - 1, argv + 1);
    static run R; /* large; one per process */
    memset(&R, 0, sizeof R);
    if (!strcmp(argv[1], "concept"))
        R.concept = true;
    else if (strcmp(argv[1], "retro")) {
        fprintf(stderr, "shido tsumego-gen: unknown method '%s' (retro, concept, merge)\n",
                argv[1]);
        return 2;
    }
    const char *out_dir = NULL, *inputs[GEN_MAX_FILES], *excludes[GEN_MAX_FILES];
    int num_in = 0, num_ex = 0, threads = 1, shard_k = 1, shard_n = 1, limit = 0, bar_mode = -1;
    const char *disc_path = NULL;
    teach_disc_scorer *disc = NULL;
    bool sharded = false;
    teach_tsgen_limits lim = {0};
    teach_options opts;
    teach_options_init(&opts);
    R.cp.bouzy = GO_BOUZY_CONCEPT;
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        int iv;
        bool ok = true, val = true;
        if (!strcmp(a, "--help") || !strcmp(a, "-h"))
            return usage(stdout);
        if (!strcmp(a, "-w") || !strcmp(a, "--weights") || !strcmp(a, "--backend")) {
            char err[256];
            if (teach_options_parse(&opts, argc, argv, &i, err, sizeof err) < 0) {
                fprintf(stderr, "shido tsumego-gen: %s\n", err);
                return 2;
            }
            continue;
        }
        if (!strcmp(a, "--progress") || !strcmp(a, "--quiet")) {
            bar_mode = a[2] == 'p';
            val = false;
        } else if (!strcmp(a, "--no-prune")) {
            lim.no_static_prune = true;
            val = false;
        } else if (!strcmp(a, "--include-source")) {
            R.retro.include_source = true;
            val = false;
        } else if (!v) {
            if (a[0] == '-') {
                fprintf(stderr, "shido tsumego-gen: %s needs a value\n", a);
                return 2;
            }
            val = false;
            ok = num_in < GEN_MAX_FILES;
            if (ok)
                inputs[num_in++] = a;
        } else if (!strcmp(a, "--jsonl") && !R.concept) {
            ok = num_in < GEN_MAX_FILES;
            if (ok)
                inputs[num_in++] = v;
        } else if (!strcmp(a, "--exclude")) {
            ok = num_ex < GEN_MAX_FILES;
            if (ok)
                excludes[num_ex++] = v;
        } else if (!strcmp(a, "--out")) {
            out_dir = v;
        } else if (!strcmp(a, "--threads")) {
            ok = parse_int(a, v, 1, 256, &threads);
        } else if (!strcmp(a, "--limit")) {
            ok = parse_int(a, v, 1, 1 << 30, &limit);
        } else if (!strcmp(a, "--shard")) {
            char tail;
            ok = sscanf(v, "%d/%d%c", &shard_k, &shard_n, &tail) == 2 && shard_n >= 1 &&
                 shard_k >= 1 && shard_k <= shard_n;
            sharded = true;
            if (!ok)
                fprintf(stderr, "shido tsumego-gen: --shard %s: expected K/N, 1 <= K <= N\n", v);
            if (!ok)
                return 2;
        } else if (!strcmp(a, "--nodes")) {
            ok = parse_int(a, v, 100, 1 << 30, &iv);
            lim.max_nodes = (uint64_t)iv;
        } else if (!strcmp(a, "--time")) {
            ok = parse_double(a, v, 0.01, 86400, &lim.time_s);
        } else if (!strcmp(a, "--line-checks")) {
            ok = parse_int(a, v, 0, 20, &iv);
            lim.line_checks = iv ? iv : -1;
        } else if (!strcmp(a, "--max-removals") && !R.concept) {
            ok = parse_int(a, v, 1, 8, &R.retro.max_removals);
        } else if (!strcmp(a, "--max-candidates") && !R.concept) {
            ok = parse_int(a, v, 1, 100000, &R.retro.max_candidates);
        } else if (!strcmp(a, "--disc") && R.concept) {
            disc_path = v;
        } else if (!strcmp(a, "--tree-nodes") && R.concept) {
            ok = parse_int(a, v, 2, 100000, &R.cp.max_nodes);
        } else if (!strcmp(a, "--keep") && R.concept) {
            ok = parse_double(a, v, 0.0001, 1, &R.cp.keep_fraction);
        } else if (!strcmp(a, "--margin") && R.concept) {
            ok = parse_int(a, v, 1, 19, &R.cp.margin);
        } else if (!strcmp(a, "--window") && R.concept) {
            ok = !strcmp(v, "region") || !strcmp(v, "box");
            R.cp.window = !strcmp(v, "box") ? TEACH_CONCEPT_WINDOW_BOX : TEACH_CONCEPT_WINDOW_REGION;
            if (!ok)
                fprintf(stderr, "shido tsumego-gen: --window %s: region or box\n", v);
        } else if (!strcmp(a, "--dilations") && R.concept) {
            ok = parse_int(a, v, 0, 50, &R.cp.bouzy.dilations);
        } else if (!strcmp(a, "--erosions") && R.concept) {
            ok = parse_int(a, v, 0, 50, &R.cp.bouzy.erosions);
        } else if (!strcmp(a, "--stone-value") && R.concept) {
            ok = parse_int(a, v, 1, 100000, &R.cp.bouzy.stone_value);
        } else if (!strcmp(a, "--verify-top") && R.concept) {
            ok = parse_int(a, v, 1, 100000, &R.cp.verify_top);
        } else if (a[0] != '-') {
            val = false;
            ok = num_in < GEN_MAX_FILES;
            if (ok)
                inputs[num_in++] = a;
        } else {
            fprintf(stderr, "shido tsumego-gen %s: unknown option %s\n", argv[1], a);
            return usage(stderr);
        }
        if (!ok) {
            if (num_in >= GEN_MAX_FILES || num_ex >= GEN_MAX_FILES)
                fprintf(stderr, "shido tsumego-gen: at most %d files\n", GEN_MAX_FILES);
            return 2;
        }
        i += val;
    }
    if (!num_in || !out_dir) {
        fprintf(stderr, "shido tsumego-gen %s: %s\n", argv[1],
                !num_in ? "no sources (--jsonl FILE, or seed SGF files)" : "--out DIR needed");
        return 2;
    }
    R.retro.limits = lim;
    R.cp.limits = lim;
    if (opts.num_weights > 1) {
        fprintf(stderr, "shido tsumego-gen: one network ranks the answers (-w NET)\n");
        return 2;
    }
    if (disc_path) {
        char err[512];
        disc = teach_disc_scorer_load(disc_path, NULL, threads, err, sizeof err);
        if (!disc) {
            fprintf(stderr, "shido tsumego-gen: %s\n", err);
            return 1;
        }
        R.cp.score = teach_disc_rank;
        R.cp.score_ctx = disc;
    }
    if (opts.num_weights) {
        char err[512];
        R.engine = teach_engine_new(&opts, err, sizeof err);
        if (!R.engine) {
            fprintf(stderr, "shido tsumego-gen: %s\n", err);
            return 1;
        }
    }
    for (int i = 0; i < num_in; i++)
        if (!(R.concept ? read_seeds(inputs[i], &R.src) : read_jsonl(inputs[i], &R.src)))
            return 1;
    if (limit && limit < R.src.n)
        R.src.n = limit;

    /* the sources and --exclude are never emitted again */
    bool oom = false;
    for (int i = 0; i < R.src.n && !oom; i++) {
        go_board b;
        if (tsumego_record_board(&R.src.s[i].rec, &b))
            keyset_add(&R.seen, teach_tsgen_key(&b, R.src.s[i].rec.to_play), &oom);
    }
    for (int e = 0; e < num_ex && !oom; e++) {
        sources ex = {0};
        if (!read_jsonl(excludes[e], &ex))
            return 1;
        for (int i = 0; i < ex.n && !oom; i++) {
            go_board b;
            if (tsumego_record_board(&ex.s[i].rec, &b))
                keyset_add(&R.seen, teach_tsgen_key(&b, ex.s[i].rec.to_play), &oom);
        }
        free(ex.s);
    }
    int excluded = (int)R.seen.n;

    char jsonl_path[1024], done_path[1100], sgf_dir[1100];
    if (mkdir(out_dir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "shido tsumego-gen: %s: %s\n", out_dir, strerror(errno));
        return 1;
    }
    if (sharded)
        snprintf(jsonl_path, sizeof jsonl_path, "%s/shard-%04d-of-%04d.jsonl", out_dir, shard_k,
                 shard_n);
    else
        snprintf(jsonl_path, sizeof jsonl_path, "%s/problems.jsonl", out_dir);
    snprintf(done_path, sizeof done_path, "%s.done", jsonl_path);
    snprintf(sgf_dir, sizeof sgf_dir, "%s/sgf", out_dir);
    if (mkdir(sgf_dir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "shido tsumego-gen: %s: %s\n", sgf_dir, strerror(errno));
        return 1;
    }
    R.sgf_dir = sgf_dir;
    uint8_t *done = calloc((size_t)R.src.n + 1, 1);
    int resumed = 0;
    R.todo = malloc(((size_t)R.src.n + 1) * sizeof *R.todo);
    R.res = calloc((size_t)R.src.n + 1, sizeof *R.res);
    if (!done || !R.todo || !R.res || oom || !resume(&R, jsonl_path, done_path, done, &resumed)) {
        fprintf(stderr, "shido tsumego-gen: out of memory\n");
        return 1;
    }
    int skipped = 0;
    for (int i = 0; i < R.src.n; i++)
        if (i % shard_n == shard_k - 1) {
            if (done[i])
                skipped++;
            else
                R.todo[R.num_todo++] = i;
        }
    free(done);
    R.jsonl = fopen(jsonl_path, "a");
    R.done = fopen(done_path, "a");
    if (!R.jsonl || !R.done) {
        fprintf(stderr, "shido tsumego-gen: %s: %s\n", jsonl_path, strerror(errno));
        return 1;
    }
    if (skipped)
        fprintf(stderr, "shido tsumego-gen: resuming: %d sources done, %d problems there\n",
                skipped, resumed);

    R.window = 4 * threads;
    pthread_mutex_init(&R.mu, NULL);
    pthread_cond_init(&R.cv, NULL);
    pthread_t tid[256];
    int started = 0;
    for (; started < threads; started++)
        if (pthread_create(&tid[started], NULL, worker, &R) != 0)
            break;
    double t0 = go_now_s();
    snprintf(R.what, sizeof R.what, "sources");
    progress_start(&R.bar, R.num_todo, R.what, started ? bar_mode : 0);
    bool ok = started > 0;
    if (!ok)
        fprintf(stderr, "shido tsumego-gen: cannot start threads\n");
    for (int t = 0; t < R.num_todo && ok; t++) {
        pthread_mutex_lock(&R.mu);
        while (!R.res[t].ready)
            pthread_cond_wait(&R.cv, &R.mu);
        pthread_mutex_unlock(&R.mu);
        ok = emit_source(&R, t);
        pthread_mutex_lock(&R.mu);
        R.emitted = t + 1;
        if (!ok)
            R.stop = true;
        pthread_cond_broadcast(&R.cv);
        pthread_mutex_unlock(&R.mu);
        snprintf(R.what, sizeof R.what, "sources, %d problems, %.1f per 100 candidates",
                 R.problems, R.candidates ? 100.0 * R.problems / R.candidates : 0.0);
        progress_update(&R.bar, t + 1);
    }
    if (!ok) {
        pthread_mutex_lock(&R.mu);
        R.stop = true;
        pthread_cond_broadcast(&R.cv);
        pthread_mutex_unlock(&R.mu);
    }
    for (int i = 0; i < started; i++)
        pthread_join(tid[i], NULL);
    progress_end(&R.bar, R.emitted);
    double el = go_now_s() - t0;
    ok = fclose(R.jsonl) == 0 && ok;
    ok = fclose(R.done) == 0 && ok;

    fprintf(stderr,
            "shido tsumego-gen %s: %d sources (shard %d/%d, %d excluded problems), %d without a "
            "proven outright solution; %d candidates verified, %d strict problems emitted "
            "(%.1f per 100 candidates), %d duplicates dropped; %.1f s on %d threads (%.0f "
            "problems/hour), %.1f M solver nodes\n",
            argv[1], R.num_todo, shard_k, shard_n, excluded, R.sources_failed, R.candidates,
            R.problems, R.candidates ? 100.0 * R.problems / R.candidates : 0.0, R.dups, el,
            threads, el > 0 ? 3600.0 * R.problems / el : 0.0, (double)R.nodes / 1e6);
    fprintf(stderr, "  verdicts:");
    for (int v = 0; v < TEACH_TSGEN_VERDICTS; v++)
        fprintf(stderr, " %s %d%s", teach_tsgen_verdict_name((teach_tsgen_verdict)v),
                R.verdicts[v], v + 1 < TEACH_TSGEN_VERDICTS ? "," : "\n");
    if (!R.concept) {
        fprintf(stderr, "  strict by rule:");
        for (int k = 0; k < TEACH_RETRO_RULES; k++)
            fprintf(stderr, " %s %d", teach_retro_rule_name((teach_retro_rule)k), R.by_rule[k]);
        fprintf(stderr, "\n");
    }
    fprintf(stderr, "  difficulty 1..9:");
    for (int d = 1; d <= 9; d++)
        fprintf(stderr, " %d", R.difficulty[d]);
    fprintf(stderr, "\n");
    if (R.ranked)
        fprintf(stderr, "  the policy's rank of the answer: mean %.2f, first in %d of %d\n",
                (double)R.rank_sum / R.ranked, R.rank_first, R.ranked);
    teach_engine_free(R.engine);
    teach_disc_scorer_free(disc);
    pthread_mutex_destroy(&R.mu);
    pthread_cond_destroy(&R.cv);
    free(R.src.s);
    free(R.todo);
    free(R.res);
    free(R.seen.slot);
    return ok ? 0 : 1;
}
