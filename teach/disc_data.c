/* teach/disc_data.c -- the discriminator's samples: corner windows of problems, random
 * positions, the ends of the solver's main lines, and near misses the solver refutes (see
 * disc.h). */
#include "teach/disc.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "go/hash.h"
#include "go/sgf.h"
#include "nn/disc_inputs.h"

#define W TEACH_DISC_SIZE
#define CELLS (W * W)
#define NORMAL_SIZE 19

static const char *const kind_names[TEACH_DISC_KINDS] = {"problem", "random", "final", "near"};
static const char *const split_names[TEACH_DISC_SPLITS] = {"train", "val", "test"};

const char *teach_disc_kind_name(teach_disc_kind k)
{
    return (int)k >= 0 && k < TEACH_DISC_KINDS ? kind_names[k] : "?";
}

const char *teach_disc_split_name(teach_disc_split s)
{
    return (int)s >= 0 && s < TEACH_DISC_SPLITS ? split_names[s] : "?";
}

bool teach_disc_window(const go_board *b, uint8_t cell[CELLS])
{
    int size = b->size, x0 = size, y0 = size, x1 = -1, y1 = -1;
    if (size < W)
        return false;
    for (int y = 0; y < size; y++)
        for (int x = 0; x < size; x++)
            if (b->color[go_point_at(x, y)] != GO_EMPTY) {
                x0 = x < x0 ? x : x0, x1 = x > x1 ? x : x1;
                y0 = y < y0 ? y : y0, y1 = y > y1 ? y : y1;
            }
    if (x1 < 0)
        return false;
    bool fx, fy;
    if (x1 < W)
        fx = false;
    else if (x0 >= size - W)
        fx = true;
    else
        return false;
    if (y1 < W)
        fy = false;
    else if (y0 >= size - W)
        fy = true;
    else
        return false;
    for (int y = 0; y < W; y++)
        for (int x = 0; x < W; x++)
            cell[y * W + x] =
                b->color[go_point_at(fx ? size - 1 - x : x, fy ? size - 1 - y : y)];
    return true;
}

/* The normal-form board of a window (colours swapped when swap). */
static void board_of(const uint8_t cell[CELLS], bool swap, go_board *b)
{
    go_board_init(b, NORMAL_SIZE);
    for (int i = 0; i < CELLS; i++)
        if (cell[i] != GO_EMPTY) {
            go_color c = (go_color)cell[i];
            go_board_place(b, go_point_at(i % W, i / W), swap ? go_opponent(c) : c);
        }
}

void teach_disc_sample_planes(const teach_disc_sample *s, int symmetry, bool swap, float *planes)
{
    go_board b;
    board_of(s->cell, swap, &b);
    nn_disc_inputs(&b, 0, 0, W, symmetry, planes);
}

void teach_disc_data_free(teach_disc_data *d)
{
    free(d->s);
    memset(d, 0, sizeof *d);
}

static bool push(teach_disc_data *d, const teach_disc_sample *s)
{
    if (d->n == d->cap) {
        int cap = d->cap ? 2 * d->cap : 1024;
        teach_disc_sample *p = realloc(d->s, (size_t)cap * sizeof *p);
        if (!p)
            return false;
        d->s = p;
        d->cap = cap;
    }
    d->s[d->n++] = *s;
    return true;
}

/* Whether every chain of the board has a liberty. */
static bool all_chains_breathe(const go_board *b)
{
    for (int y = 0; y < b->size; y++)
        for (int x = 0; x < b->size; x++) {
            int p = go_point_at(x, y);
            if (b->color[p] != GO_EMPTY && go_board_libs(b, p) == 0)
                return false;
        }
    return true;
}

static uint64_t below(uint64_t *rng, uint64_t n) { return go_splitmix64(rng) % n; }

/* A random window: 3-15 stones of each colour, no chain without liberties. */
static void random_window(uint64_t *rng, uint8_t cell[CELLS])
{
    for (;;) {
        memset(cell, 0, CELLS);
        int want[3] = {0, 3 + (int)below(rng, 13), 3 + (int)below(rng, 13)};
        for (int c = GO_BLACK; c <= GO_WHITE; c++)
            for (int k = 0; k < want[c];) {
                int i = (int)below(rng, CELLS);
                if (cell[i] == GO_EMPTY) {
                    cell[i] = (uint8_t)c;
                    k++;
                }
            }
        go_board b;
        board_of(cell, false, &b);
        if (all_chains_breathe(&b))
            return;
    }
}

/* ---- the solver's negatives ------------------------------------------------------------------ */

typedef struct problem_out {
    bool kept;                  /* fits a corner window */
    uint8_t window[CELLS];
    bool has_final;
    int num_near;
    uint8_t final[CELLS], near[TEACH_DISC_MAX_NEAR][CELLS];
} problem_out;

typedef struct build_job {
    const teach_disc_source *src;
    int n;
    const teach_disc_data_opts *o;
    problem_out *out;
    pthread_mutex_t mu;
    int next, done;
    bool oom;
} build_job;

/* Solves the problem b (to_play, goal); true with the solution when it was set up and solved. */
static bool solve(const go_board *b, go_color to_play, go_tsumego_goal goal, uint64_t nodes,
                  bool tree, go_tsumego_solution *sol)
{
    go_tsumego_problem p;
    char err[256];
    if (!go_tsumego_setup(b, to_play, goal, &p, err, sizeof err))
        return false;
    go_tsumego_limits lim = {.time_s = 3600, .max_nodes = nodes, .tt_log2 = 20,
                             .first_move_only = !tree};
    memset(sol, 0, sizeof *sol);
    if (!go_tsumego_solve(&p, &lim, sol))
        return false;
    return true;
}

/* Plays the main line of a solution tree (children[0] from the root) on b. */
static bool play_main_line(const char *sgf, go_board *b)
{
    char err[256];
    go_sgf_collection *col = go_sgf_parse(sgf, strlen(sgf), err, sizeof err);
    if (!col || col->num_games < 1) {
        go_sgf_free(col);
        return false;
    }
    int moves = 0;
    for (const go_sgf_node *n = col->games[0]; n->num_children > 0;) {
        n = n->children[0];
        for (int c = GO_BLACK; c <= GO_WHITE; c++) {
            const char *v = go_sgf_get(n, c == GO_BLACK ? "B" : "W");
            if (!v || strlen(v) != 2 || !strcmp(v, "tt"))
                continue;
            int p = go_point_at(v[0] - 'a', v[1] - 'a');
            if (v[0] - 'a' >= b->size || v[1] - 'a' >= b->size || !go_board_on(b, p) ||
                !go_board_is_legal(b, p, (go_color)c, false))
                continue;
            go_board_play(b, p, (go_color)c);
            moves++;
        }
    }
    go_sgf_free(col);
    return moves > 0;
}

/* Changes one stone of b: takes away a stone of `weaker` or adds one of its opponent next to a
 * stone, without capturing; false when the change found nothing to do. */
static bool change_one(go_board *b, go_color weaker, uint64_t *rng)
{
    int pts[GO_POINTS], n = 0;
    bool take = below(rng, 2) == 0;
    for (int y = 0; y < b->size; y++)
        for (int x = 0; x < b->size; x++) {
            int p = go_point_at(x, y);
            if (take ? b->color[p] == weaker : b->color[p] == GO_EMPTY) {
                bool near = take;
                for (int d = 0; d < 4 && !near; d++)
                    near = b->color[p + go_dir4[d]] == GO_BLACK ||
                           b->color[p + go_dir4[d]] == GO_WHITE;
                if (near)
                    pts[n++] = p;
            }
        }
    if (n == 0)
        return false;
    int p = pts[below(rng, (uint64_t)n)];
    if (take) {
        /* take one stone: rebuild the board without it (a chain may split) */
        go_board c;
        go_board_init(&c, b->size);
        for (int y = 0; y < b->size; y++)
            for (int x = 0; x < b->size; x++) {
                int q = go_point_at(x, y);
                if (q != p && b->color[q] != GO_EMPTY)
                    go_board_place(&c, q, (go_color)b->color[q]);
            }
        *b = c;
        return true;
    }
    go_color add = go_opponent(weaker);
    if (!go_board_is_legal(b, p, add, false) || go_board_captures(b, p, add))
        return false;
    go_board_place(b, p, add);
    return all_chains_breathe(b);
}

/* Swaps the colours of a window's stones. */
static void swap_cells(uint8_t cell[CELLS])
{
    for (int i = 0; i < CELLS; i++)
        if (cell[i] != GO_EMPTY)
            cell[i] = (uint8_t)go_opponent((go_color)cell[i]);
}

static void build_one(build_job *J, int i, problem_out *out)
{
    const teach_disc_source *s = &J->src[i];
    out->kept = teach_disc_window(&s->board, out->window);
    if (!out->kept)
        return;
    go_tsumego_solution sol;
    if (!solve(&s->board, s->to_play, s->goal, J->o->solver_nodes, true, &sol))
        return;
    bool solved = (sol.status.result == GO_TSUMEGO_SUCCESS ||
                   sol.status.result == GO_TSUMEGO_KO) && sol.best_proven;
    go_tsumego_goal goal = sol.problem.goal;
    go_board end = s->board;
    if (solved && sol.sgf && play_main_line(sol.sgf, &end))
        out->has_final = teach_disc_window(&end, out->final);
    go_tsumego_solution_free(&sol);
    if (!solved)
        return;
    uint64_t rng = J->o->seed ^ (0x9e3779b97f4a7c15ULL * (uint64_t)(i + 1));
    for (int t = 0; t < J->o->near_tries && out->num_near < J->o->near_per_problem; t++) {
        go_board c = s->board;
        int changes = 1 + t % 2;
        bool ok = true;
        for (int k = 0; k < changes && ok; k++)
            ok = change_one(&c, s->to_play, &rng);
        uint8_t win[CELLS];
        if (!ok || !teach_disc_window(&c, win))
            continue;
        bool seen = false;
        for (int k = 0; k < out->num_near; k++)
            seen |= memcmp(win, out->near[k], CELLS) == 0;
        if (seen)
            continue;
        go_tsumego_solution ns;
        if (!solve(&c, s->to_play, goal, J->o->solver_nodes, false, &ns))
            continue;
        if (ns.status.result == GO_TSUMEGO_FAILURE) {
            memcpy(out->near[out->num_near++], win, CELLS);
        }
        go_tsumego_solution_free(&ns);
    }
}

/* build_one in the normal form, which has black to play. */
static void build_normal(build_job *J, int i, problem_out *out)
{
    build_one(J, i, out);
    if (J->src[i].to_play == GO_WHITE) {
        swap_cells(out->window);
        swap_cells(out->final);
        for (int k = 0; k < out->num_near; k++)
            swap_cells(out->near[k]);
    }
}

static void *build_worker(void *arg)
{
    build_job *J = arg;
    for (;;) {
        pthread_mutex_lock(&J->mu);
        int i = J->next++;
        pthread_mutex_unlock(&J->mu);
        if (i >= J->n)
            return NULL;
        build_normal(J, i, &J->out[i]);
        pthread_mutex_lock(&J->mu);
        J->done++;
        if (J->o->progress)
            J->o->progress(J->o->progress_ctx, J->done, J->n);
        pthread_mutex_unlock(&J->mu);
    }
}

static teach_disc_split split_of(uint64_t seed, int problem, const teach_disc_data_opts *o)
{
    uint64_t h = seed ^ (0xd1b54a32d192ed03ULL * (uint64_t)(problem + 1));
    double u = (double)(go_splitmix64(&h) >> 11) / 9007199254740992.0;
    return u < o->test_frac ? TEACH_DISC_TEST
           : u < o->test_frac + o->val_frac ? TEACH_DISC_VAL : TEACH_DISC_TRAIN;
}

bool teach_disc_data_build(const teach_disc_source *src, int n, const teach_disc_data_opts *opts,
                           teach_disc_data *out, char *err, int err_len)
{
    teach_disc_data_opts o = *opts;
    if (o.threads < 1)
        o.threads = 1;
    if (o.solver_nodes == 0)
        o.solver_nodes = 200000;
    if (o.near_per_problem <= 0)
        o.near_per_problem = 1;
    if (o.near_per_problem > TEACH_DISC_MAX_NEAR)
        o.near_per_problem = TEACH_DISC_MAX_NEAR;
    if (o.near_tries == 0)
        o.near_tries = 8 * o.near_per_problem;
    if (o.random_per_problem == 0)
        o.random_per_problem = 1;
    if (o.val_frac == 0 && o.test_frac == 0)
        o.val_frac = o.test_frac = 0.1;
    memset(out, 0, sizeof *out);
    out->problems = n;
    build_job J = {.src = src, .n = n, .o = &o, .out = calloc((size_t)n + 1, sizeof *J.out)};
    if (!J.out) {
        snprintf(err, (size_t)err_len, "discriminator data: out of memory");
        return false;
    }
    pthread_mutex_init(&J.mu, NULL);
    pthread_t th[64];
    int started = 0;
    for (int t = 1; t < o.threads && t < 64; t++)
        if (pthread_create(&th[started], NULL, build_worker, &J) == 0)
            started++;
    build_worker(&J);
    for (int t = 0; t < started; t++)
        pthread_join(th[t], NULL);
    pthread_mutex_destroy(&J.mu);
    bool ok = true;
    uint64_t rng = o.seed;
    double owed = 0;
    for (int i = 0; i < n && ok; i++) {
        problem_out *p = &J.out[i];
        if (!p->kept) {
            out->skipped_shape++;
            continue;
        }
        uint8_t split = (uint8_t)split_of(o.seed, i, &o);
        teach_disc_sample s = {.kind = TEACH_DISC_PROBLEM, .split = split, .problem = i};
        memcpy(s.cell, p->window, CELLS);
        ok = push(out, &s);
        if (p->has_final) {
            s.kind = TEACH_DISC_FINAL;
            memcpy(s.cell, p->final, CELLS);
            ok = ok && push(out, &s);
        } else {
            out->final_missing++;
        }
        for (int k = 0; k < p->num_near; k++) {
            s.kind = TEACH_DISC_NEAR;
            memcpy(s.cell, p->near[k], CELLS);
            ok = ok && push(out, &s);
        }
        if (p->num_near == 0)
            out->near_missing++;
        for (owed += o.random_per_problem; owed >= 1 && ok; owed -= 1) {
            teach_disc_sample r = {.kind = TEACH_DISC_RANDOM, .split = split, .problem = -1};
            random_window(&rng, r.cell);
            ok = push(out, &r);
        }
    }
    free(J.out);
    if (!ok) {
        teach_disc_data_free(out);
        snprintf(err, (size_t)err_len, "discriminator data: out of memory");
    }
    return ok;
}

/* ---- the data file ------------------------------------------------------------------------- */

bool teach_disc_data_write(const teach_disc_data *d, FILE *f)
{
    fprintf(f, "# shido discriminator data 1: problems %d skipped_shape %d final_missing %d "
            "near_missing %d\n", d->problems, d->skipped_shape, d->final_missing,
            d->near_missing);
    for (int i = 0; i < d->n; i++) {
        const teach_disc_sample *s = &d->s[i];
        char cells[CELLS + 1];
        for (int k = 0; k < CELLS; k++)
            cells[k] = ".XO"[s->cell[k] % 3];
        cells[CELLS] = 0;
        fprintf(f, "%s %s %d %s\n", kind_names[s->kind], split_names[s->split], s->problem,
                cells);
    }
    return !ferror(f);
}

static int name_index(const char *const *names, int n, const char *w)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(names[i], w))
            return i;
    return -1;
}

bool teach_disc_data_read(FILE *f, teach_disc_data *out, char *err, int err_len)
{
    memset(out, 0, sizeof *out);
    char line[512];
    int lineno = 0;
    bool header = false;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        if (line[0] == '#') {
            header |= sscanf(line, "# shido discriminator data 1: problems %d skipped_shape %d "
                             "final_missing %d near_missing %d", &out->problems,
                             &out->skipped_shape, &out->final_missing, &out->near_missing) == 4;
            continue;
        }
        char kind[16], split[16], cells[128];
        int problem, used = 0;
        teach_disc_sample s;
        int k, sp;
        bool ok = sscanf(line, "%15s %15s %d %127s %n", kind, split, &problem, cells, &used) == 4 &&
                  line[used] == 0 && (k = name_index(kind_names, TEACH_DISC_KINDS, kind)) >= 0 &&
                  (sp = name_index(split_names, TEACH_DISC_SPLITS, split)) >= 0 &&
                  strlen(cells) == CELLS && problem >= -1;
        for (int i = 0; ok && i < CELLS; i++) {
            const char *c = strchr(".XO", cells[i]);
            ok = c && *c;
            if (ok)
                s.cell[i] = (uint8_t)(c - ".XO");
        }
        if (!ok) {
            snprintf(err, (size_t)err_len, "line %d: expected \"kind split problem cells\" (kinds "
                     "problem random final near, splits train val test, 81 cells of . X O)",
                     lineno);
            teach_disc_data_free(out);
            return false;
        }
        s.kind = (uint8_t)k;
        s.split = (uint8_t)sp;
        s.problem = problem;
        if (!push(out, &s)) {
            snprintf(err, (size_t)err_len, "out of memory at line %d", lineno);
            teach_disc_data_free(out);
            return false;
        }
    }
    if (!header || ferror(f)) {
        snprintf(err, (size_t)err_len, ferror(f) ? "read error" : "no \"# shido discriminator "
                 "data 1\" header line");
        teach_disc_data_free(out);
        return false;
    }
    return true;
}
