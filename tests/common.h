/* tests/common.h -- what the Check suites share: the files of ../shared they read, reading and
 * writing whole files, loading a model, the tolerances, boards, sets and games from ASCII
 * diagrams, the GTP feed into the in-process engine, skipping what this machine lacks (GNU Go, a
 * CUDA device), and a suite's main().
 *
 * Header-only (the build turns only tests/test_*.c into binaries): static inline functions, so
 * that a suite using only some of them gets no warning about the others. Topics with more to
 * them have their own headers, which include this one: vectors.h (the golden network outputs),
 * shido_pipe.h (the `shido` binary as a child process), gnugo_pipe.h (GNU Go over pipes). */
#ifndef SHIDO_TESTS_COMMON_H
#define SHIDO_TESTS_COMMON_H

#include <check.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include <cjson/cJSON.h>

#include "go/bitboard.h"
#include "go/board.h"
#include "go/game.h"
#include "go/rules.h"
#include "nn/nn.h"
#include "tools/gtp.h"
#ifdef SHIDO_HAVE_CUDA
#include "nn/cuda/cuda_device.h"
#endif

/* ---- files, models, JSON -------------------------------------------------------------------- */

#define TEST_WEIGHTS SHIDO_SHARED_DIR "/weights/"
#define TEST_VECTORS SHIDO_SHARED_DIR "/vectors/"
#define TEST_G170 TEST_WEIGHTS "g170-b6c96-s175395328-d26788732.bin.gz"  /* KataGo, trained */
#define TEST_B2C16 TEST_WEIGHTS "rand-b2c16-v15.bin.gz"                 /* KataGo v15, random */
#define TEST_LZ_B4C32 TEST_WEIGHTS "lz-rand-b4c32.txt.gz"               /* Leela Zero, random */
#define TEST_MEIJIN SHIDO_SHARED_DIR "/games/meijin31-title-game2.sgf"
#define TEST_GNUGO "/usr/games/gnugo"

/* The whole file at path, gunzipped when it is gzip, with a NUL after it (malloc'd; the caller
 * frees it). len: NULL, or receives the length without the NUL. Fails the test when the file
 * cannot be read. */
static inline void *test_read_file(const char *path, size_t *len)
{
    gzFile gz = gzopen(path, "rb");
    ck_assert_msg(gz != NULL, "cannot open %s", path);
    size_t cap = 1 << 20, n = 0;
    char *buf = malloc(cap + 1);
    ck_assert_ptr_nonnull(buf);
    int got;
    while ((got = gzread(gz, buf + n, (unsigned)(cap - n))) > 0) {
        n += (size_t)got;
        if (n == cap) {
            cap *= 2;
            buf = realloc(buf, cap + 1);
            ck_assert_ptr_nonnull(buf);
        }
    }
    ck_assert_msg(got == 0, "cannot read %s", path);
    ck_assert_int_eq(gzclose(gz), Z_OK);
    buf[n] = '\0';
    if (len)
        *len = n;
    return buf;
}

/* Writes len bytes of data to the file at path, gzipped (at level 1) when gz; fails the test when
 * it cannot. */
static inline void test_write_file(const char *path, const void *data, size_t len, bool gz)
{
    if (gz) {
        gzFile f = gzopen(path, "wb1");
        ck_assert_msg(f != NULL, "cannot create %s", path);
        ck_assert_int_eq(len == 0 ? 0 : gzwrite(f, data, (unsigned)len), (int)len);
        ck_assert_int_eq(gzclose(f), Z_OK);
    } else {
        FILE *f = fopen(path, "wb");
        ck_assert_msg(f != NULL, "cannot create %s", path);
        ck_assert_uint_eq(fwrite(data, 1, len, f), len);
        ck_assert_int_eq(fclose(f), 0);
    }
}

/* A model of the weight file at path on backend; fails the test when it cannot be loaded. */
/* Runs a shell command; returns its exit status with its output (what it redirects there) in
 * out. */
static inline int test_run_command(const char *cmd, char *out, size_t len)
{
    FILE *p = popen(cmd, "r");
    ck_assert_ptr_nonnull(p);
    size_t n = fread(out, 1, len - 1, p);
    out[n] = 0;
    int status = pclose(p);
    ck_assert(WIFEXITED(status));
    return WEXITSTATUS(status);
}

static inline nn_model *test_model_load(const char *path, const char *backend)
{
    char err[512];
    nn_model *m = nn_model_load(path, backend, err, sizeof err);
    ck_assert_msg(m != NULL, "%s", err);
    return m;
}

/* The number of o's field key; fails the test when there is none. */
static inline double test_json_num(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    ck_assert_msg(cJSON_IsNumber(v), "no number %s", key);
    return v->valuedouble;
}

/* ---- tolerances ----------------------------------------------------------------------------- */

/* Network outputs against KataGo's and Leela Zero's own (../shared/vectors): probabilities,
 * policy and ownership within TEST_PROB_TOL, score values within TEST_SCORE_TOL points, the
 * squared score (~1000 points^2, carried in float32 by KataGo) within TEST_SCORE_SQ_REL_TOL
 * relative. */
#define TEST_PROB_TOL 2e-5
#define TEST_SCORE_TOL 2e-3
#define TEST_SCORE_SQ_REL_TOL 2e-5

/* A float32 path (cpu, cuda:fp32) agrees with the reference or another float32 path within
 * TEST_FP32_TOL relative, most checks allowing as much again absolute (TEST_FP32_TOL * (1 +
 * |want|)); half precision, with 11 significant bits, within TEST_FP16_RTOL relative. */
#define TEST_FP32_TOL 1e-4
#define TEST_FP16_RTOL 3e-2

/* Check records every passing assertion with a file write; hot loops assert with TEST_REQUIRE,
 * which calls into Check only on failure. */
#define TEST_REQUIRE(cond, ...)                                                                    \
    do {                                                                                           \
        if (!(cond))                                                                               \
            ck_abort_msg(__VA_ARGS__);                                                             \
    } while (0)

/* ---- boards, sets and games from diagrams --------------------------------------------------- */

/* The on-board point of a GTP vertex ("D4") on a size x size board; fails the test otherwise
 * (pass included). */
static inline int test_point(int size, const char *vertex)
{
    int p = go_point_from_gtp(size, vertex);
    ck_assert_msg(p > 0, "bad vertex %s", vertex);
    return p;
}

/* The point of an SGF coordinate pair ("dd"). */
static inline int test_sgf_point(const char *xy) { return go_point_at(xy[0] - 'a', xy[1] - 'a'); }

/* Fails the test when b breaks an invariant (go_board_check). */
static inline void test_assert_sound(const go_board *b)
{
    char why[256];
    ck_assert_msg(go_board_check(b, why, sizeof why), "board check: %s", why);
}

/* b := the diagram pic of a size x size board (go_board_from_ascii: top row first, '.' empty,
 * 'X' black, 'O' white, whitespace ignored); fails the test on a malformed diagram. */
static inline void test_board_from(go_board *b, int size, const char *pic)
{
    ck_assert_msg(go_board_from_ascii(b, size, pic), "bad diagram:\n%s", pic);
}

/* The set of a diagram of a size x size board: '#' in the set, '.' not, whitespace ignored. Fails
 * the test on any other character or a diagram of the wrong size. */
static inline go_bb test_bb_from(int size, const char *pic)
{
    go_bb r = go_bb_none();
    int k = 0;
    for (const char *s = pic; *s; s++) {
        if (*s == ' ' || *s == '\n')
            continue;
        ck_assert_msg(*s == '#' || *s == '.', "bad set diagram char '%c'", *s);
        ck_assert_int_lt(k, size * size);
        if (*s == '#')
            go_bb_set(&r, go_bb_bit_at(k % size, k / size));
        k++;
    }
    ck_assert_int_eq(k, size * size);
    return r;
}

/* Places the stones of the diagram pic as setup stones of g, a game with no moves yet. */
static inline void test_game_setup_diagram(go_game *g, const char *pic)
{
    go_board b;
    test_board_from(&b, g->board.size, pic);
    for (int p = 0; p < GO_POINTS; p++)
        if (b.color[p] == GO_BLACK || b.color[p] == GO_WHITE)
            ck_assert(go_game_setup_stone(g, p, (go_color)b.color[p]));
}

/* g := a game of size x size under the rules preset named rules with komi, the diagram pic (NULL
 * or "": an empty board) as its setup position and to_move to move. The caller frees g. */
static inline void test_game_from(go_game *g, int size, const char *pic, go_color to_move,
                                  const char *rules, float komi)
{
    go_rules r;
    ck_assert(go_rules_preset(&r, rules));
    ck_assert(go_game_init(g, size, &r, komi));
    if (pic && *pic)
        test_game_setup_diagram(g, pic);
    go_game_set_to_move(g, to_move);
}

/* g := a Tromp-Taylor game of width x height (komi 7.5) after `moves` pseudo-random legal
 * moves drawn from seed (the same game for the same arguments). The caller frees g. */
static inline void test_game_random_rect(go_game *g, int width, int height, int moves,
                                         unsigned seed)
{
    go_rules rules;
    go_rules_preset(&rules, "tromp-taylor");
    ck_assert(go_game_init_rect(g, width, height, &rules, 7.5f));
    unsigned s = seed * 2654435761u + 12345u;
    for (int played = 0, tries = 0; played < moves && tries < 10 * moves + 10; tries++) {
        s = s * 1103515245u + 12345u;
        int x = (int)((s >> 8) % (unsigned)width), y = (int)((s >> 20) % (unsigned)height);
        if (go_game_play(g, go_point_at(x, y), g->board.to_move) == GO_MOVE_OK)
            played++;
    }
}

/* The same on a size x size board. */
static inline void test_game_random(go_game *g, int size, int moves, unsigned seed)
{
    test_game_random_rect(g, size, size, moves, seed);
}

/* The largest difference between two results of one position in the policy, whose illegal moves
 * (NAN) must agree, and in the ownership; fails the test on another board size or legality. */
static inline double test_result_diff(const nn_result *a, const nn_result *b)
{
    ck_assert_int_eq(a->width, b->width);
    ck_assert_int_eq(a->height, b->height);
    int area = a->width * a->height;
    double d = 0;
    for (int i = 0; i <= area; i++) {
        ck_assert_msg(isnan(a->policy[i]) == isnan(b->policy[i]), "legality differs at %d", i);
        if (!isnan(a->policy[i]))
            d = fmax(d, fabs(a->policy[i] - b->policy[i]));
    }
    for (int i = 0; i < area; i++)
        d = fmax(d, fabs(a->white_ownership[i] - b->white_ownership[i]));
    return d;
}

/* test_result_diff and the probabilities, the score values and the time left / 100. */
static inline double test_result_full_diff(const nn_result *a, const nn_result *b)
{
    double d = test_result_diff(a, b);
    const double va[] = {a->white_win, a->white_loss, a->no_result, a->white_lead * 1e-2,
                         a->white_score_selfplay * 1e-2, a->var_time_left * 1e-2};
    const double vb[] = {b->white_win, b->white_loss, b->no_result, b->white_lead * 1e-2,
                         b->white_score_selfplay * 1e-2, b->var_time_left * 1e-2};
    for (int i = 0; i < 6; i++)
        d = fmax(d, fabs(va[i] - vb[i]));
    return d;
}

/* ---- the GTP feed --------------------------------------------------------------------------- */

/* Feeds the lines of script (one or more commands, '\n' between them) to e one by one through
 * gtp_engine_handle_line and returns every reply, as the engine wrote them (malloc'd).
 * check_board: fail the test when the board breaks an invariant after any command. */
/* A GTP engine configured by the command line argv (argv[0] "gtp"), or the test fails. */
static inline void test_gtp_start(gtp_engine *e, int argc, char **argv)
{
    char err[1024];
    ck_assert(gtp_engine_init(e));
    ck_assert_msg(gtp_engine_configure(e, argc, argv, err, sizeof err) == 0, "%s", err);
}

static inline char *test_gtp_feed(gtp_engine *e, const char *script, bool check_board)
{
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    ck_assert_ptr_nonnull(f);
    for (const char *s = script; *s;) {
        size_t n = strcspn(s, "\n");
        char *line = strndup(s, n);
        ck_assert_ptr_nonnull(line);
        gtp_engine_handle_line(e, line, f);
        free(line);
        if (check_board)
            test_assert_sound(&e->game.board);
        s += n + (s[n] == '\n');
    }
    fclose(f);
    return out;
}

/* ---- time ----------------------------------------------------------------------------------- */

/* How much longer than asked a run with a time limit may take here: the build's factor
 * (SHIDO_TEST_TIME_SCALE, 5 under the sanitizers), times SHIDO_TEST_TIME_SCALE from the
 * environment on a loaded machine. Only tests of a time limit itself use wall-clock bounds;
 * everything else is bounded by nodes or visits. */
static inline double test_time_scale(void)
{
#ifndef SHIDO_TEST_TIME_SCALE
#define SHIDO_TEST_TIME_SCALE 1
#endif
    const char *env = getenv("SHIDO_TEST_TIME_SCALE");
    double extra = env ? atof(env) : 1;
    return SHIDO_TEST_TIME_SCALE * (extra >= 1 ? extra : 1);
}

/* How many of its problems a long test runs: all (full) in the Release build, fewer (light)
 * under the sanitizers, which run the solver several times slower; the Release run checks the
 * behaviour on every problem, the sanitizer run the memory and arithmetic on the same code.
 * SHIDO_TEST_LIGHT=1 in the environment asks for the light counts in any build. */
static inline int test_count(int full, int light)
{
#if defined(__SANITIZE_ADDRESS__)
    return light;
#else
    const char *env = getenv("SHIDO_TEST_LIGHT");
    return env && atoi(env) == 1 ? light : full;
#endif
}

/* ---- what this machine may lack ------------------------------------------------------------- */

/* ctest's SKIP_RETURN_CODE (CMakeLists.txt): a suite whose tests passed but some could not run
 * here exits with it, so that ctest reports the suite as skipped, not passed. */
#define TEST_SKIP_CODE 77

/* Records that the running test skipped what it checks, for a reason (the same text for the
 * same cause: test_run_suite prints each reason once, with what it left out). Tests run in
 * forked children: the record goes to the file test_run_suite names in SHIDO_TEST_SKIP_FILE. */
static inline void test_skip(const char *reason, const char *what)
{
    const char *path = getenv("SHIDO_TEST_SKIP_FILE");
    FILE *f = path ? fopen(path, "a") : NULL;
    if (f) {
        fprintf(f, "%s\t%s\n", reason, what);
        fclose(f);
    } else {
        printf("SKIP: %s; %s did not run\n", reason, what);
    }
}

/* Whether path is an executable (GNU Go); when it is not, prints a SKIP line that ends in what
 * (what the test leaves out). */
static inline bool test_gnugo_present(const char *path, const char *what)
{
    if (access(path, X_OK) == 0)
        return true;
    char reason[256];
    snprintf(reason, sizeof reason, "%s is not an executable GNU Go", path);
    test_skip(reason, what);
    return false;
}

#ifdef SHIDO_HAVE_CUDA
/* Whether a CUDA device is present; when none is, records a skip of what (test_skip), or with
 * SHIDO_REQUIRE_GPU=1 fails the test. A driver that cannot count its devices fails the test:
 * that is a broken machine, not one without a GPU. Call it inside a test, never before Check
 * forks. */
static inline bool test_cuda_device_present(const char *what)
{
    char err[256] = "";
    int n = nn_cuda_device_probe(err, sizeof err);
    ck_assert_msg(n >= 0, "CUDA driver error: %s (%s did not run)", err, what);
    if (n > 0)
        return true;
    const char *require = getenv("SHIDO_REQUIRE_GPU");
    ck_assert_msg(!require || strcmp(require, "1"),
                  "SHIDO_REQUIRE_GPU=1 but no CUDA device is present: %s did not run", what);
    test_skip("no CUDA device present", what);
    return false;
}
#endif

/* The float of an IEEE half-precision bit pattern. */
static inline float test_half_to_float(uint16_t h)
{
    int e = (h >> 10) & 0x1f, m = h & 0x3ff;
    float v;
    if (e == 0)
        v = ldexpf((float)m, -24);
    else if (e == 31)
        v = m ? NAN : INFINITY;
    else
        v = ldexpf((float)(m | 0x400), e - 25);
    return (h & 0x8000u) ? -v : v;
}

/* ---- main ----------------------------------------------------------------------------------- */

/* Prints the skips recorded in the file at path, each reason once with the tests that skipped
 * and what they left out, each once ("SKIP: reason; N did not run: a, b, ..."). Returns how
 * many were recorded. */
static inline int test_report_skips(const char *path)
{
    size_t len = 0;
    FILE *f = fopen(path, "r");
    char *text = NULL;
    if (f) {
        fseek(f, 0, SEEK_END);
        long size = ftell(f);
        fseek(f, 0, SEEK_SET);
        text = size > 0 ? calloc(1, (size_t)size + 1) : NULL;
        len = text ? fread(text, 1, (size_t)size, f) : 0;
        fclose(f);
    }
    if (!text)
        return 0;
    /* lines "reason\twhat": cut into reasons and whats in place */
    int n = 0;
    char *reason[256], *what[256], *cause[256];   /* cause: reason, kept once reported */
    for (char *l = text; l < text + len && n < 256;) {
        char *end = strchr(l, '\n'), *tab = strchr(l, '\t');
        if (end)
            *end = 0;
        if (tab && (!end || tab < end)) {
            *tab = 0;
            reason[n] = cause[n] = l;
            what[n++] = tab + 1;
        }
        l = end ? end + 1 : text + len;
    }
    for (int i = 0; i < n; i++) {
        if (!reason[i])
            continue;
        int count = 0;
        for (int k = i; k < n; k++)
            count += reason[k] && !strcmp(reason[k], reason[i]);
        printf("SKIP: %s; %d did not run: %s", reason[i], count, what[i]);
        for (int k = i + 1; k < n; k++)
            if (reason[k] && !strcmp(reason[k], reason[i])) {
                bool seen = !strcmp(what[k], what[i]);   /* each what once */
                for (int m = i + 1; m < k && !seen; m++)
                    seen = !strcmp(cause[m], cause[i]) && !strcmp(what[m], what[k]);
                if (!seen)
                    printf(", %s", what[k]);
                reason[k] = NULL;
            }
        printf("\n");
    }
    free(text);
    return n;
}

/* Runs every test of s (CK_NORMAL output); returns the process exit status: failure when a test
 * failed, else TEST_SKIP_CODE when a test skipped (the reasons printed once each), else
 * success. */
static inline int test_run_suite(Suite *s)
{
    char skip_path[] = "/tmp/shido-test-skips-XXXXXX";
    int fd = mkstemp(skip_path);
    if (fd >= 0) {
        close(fd);
        setenv("SHIDO_TEST_SKIP_FILE", skip_path, 1);
    }
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    int skipped = fd >= 0 ? test_report_skips(skip_path) : 0;
    if (fd >= 0)
        unlink(skip_path);
    return failed ? EXIT_FAILURE : skipped ? TEST_SKIP_CODE : EXIT_SUCCESS;
}

#endif
