/* bench/load.c -- load time of 100 MB-class network files (weights_load, best of 3).
 *
 * Writes synthetic networks of the real formats with random finite weights into a fresh
 * directory (mkdtemp under $TMPDIR, else /tmp), times weights_load on each, checks the loaded
 * description's shape and spot-checks weights against what was written, then deletes the files:
 *   lz40.txt, lz40.txt.gz   Leela Zero version 1, 40 blocks x 256 filters (as the 40b nets of the
 *                           Leela Zero project), values written as "-0.123456"
 *   b18c384nbt.bin.gz       KataGo model version 15, 18 nested bottleneck blocks of 384 trunk
 *                           channels (192 inside, two 3x3 blocks each, a gpool block in every
 *                           third), KataGo's kata1-b18c384nbt shape; float32 weights
 * Gzip is written at level 1 to keep the set-up short; decompression speed hardly depends on it.
 * Exits non-zero when a file fails to load or differs from what was written.
 *
 * Usage: bench_load [--reps N] [--keep]   (--keep leaves the files and prints the directory)
 *
 * Notes (2026-11-22, developer VM, 2 vCPU x86-64 shared with other jobs, gcc 12.2 -O2, zlib
 * 1.2.13; best of 3):
 *   file                        size      before            after
 *   LZ 40x256 text            452.6 MB   5.42 s  84 MB/s   1.31 s 345 MB/s
 *   LZ 40x256 text.gz         205.9 MB   8.14 s  25 MB/s   3.09 s  67 MB/s
 *   KataGo b18c384nbt .bin.gz  95.1 MB   0.69 s 137 MB/s   0.67 s 142 MB/s
 * Prediction: strtof (~80 ns a value, 47 M values) and inflating the gzipped text twice (two
 * passes) dominate the Leela Zero loader. Result: an exact fast decimal path (weights/lz.c) took
 * the plain text from 5.4 to 1.3 s; keeping the inflated text between the passes took the
 * gzipped one to 3.1 s, where inflating once (~1.7 s) now dominates. The KataGo binary loader
 * was already bound by inflate and page faults; bigger gzip reads gained ~3%.
 */
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "weights/desc.h"
#include "weights/desc_kata.h"
#include "weights/desc_lz.h"
#include "weights/weights.h"
#include "go/clock.h"
#include "go/hash.h"

#define LZ_BLOCKS 40
#define LZ_FILTERS 256
#define KATA_BLOCKS 18
#define KATA_TRUNK 384
#define KATA_MID 192
#define KATA_GPOOL 64
#define KATA_HEAD 32      /* policy p1 / g1 and value v1 channels */
#define KATA_VALUE_HIDDEN 128
#define SPOT_CHECKS 64    /* weights compared per checked layer */

/* ---- deterministic weights ----------------------------------------------------------------- */

/* The first word of the SplitMix64 stream in state x. */
static uint64_t mix(uint64_t x) { return go_splitmix64(&x); }

/* The random word for value i of layer (or line) id. */
static uint64_t word(uint32_t id, uint64_t i) { return mix(((uint64_t)id << 40) ^ i); }

/* ---- output: a plain file and/or a gzip stream ---------------------------------------------- */

typedef struct sink {
    FILE *plain;
    gzFile gz;
    char *buf;
    size_t len, cap;
    bool failed;
} sink;

static void sink_flush(sink *s)
{
    if (!s->len || s->failed)
        return;
    if (s->plain && fwrite(s->buf, 1, s->len, s->plain) != s->len)
        s->failed = true;
    if (s->gz && gzwrite(s->gz, s->buf, (unsigned)s->len) != (int)s->len)
        s->failed = true;
    s->len = 0;
}

static void sink_put(sink *s, const void *data, size_t n)
{
    if (s->len + n > s->cap)
        sink_flush(s);
    if (n > s->cap) {
        s->failed |= s->plain && fwrite(data, 1, n, s->plain) != n;
        s->failed |= s->gz && gzwrite(s->gz, data, (unsigned)n) != (int)n;
        return;
    }
    memcpy(s->buf + s->len, data, n);
    s->len += n;
}

static void sink_printf(sink *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sink_printf(sink *s, const char *fmt, ...)
{
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    sink_put(s, line, n > 0 ? (size_t)n : 0);
}

static bool sink_open(sink *s, const char *plain, const char *gz)
{
    memset(s, 0, sizeof *s);
    s->cap = (size_t)1 << 20;
    s->buf = malloc(s->cap);
    if (plain)
        s->plain = fopen(plain, "wb");
    if (gz)
        s->gz = gzopen(gz, "wb1");
    return s->buf && (!plain || s->plain) && (!gz || s->gz);
}

static bool sink_close(sink *s)
{
    sink_flush(s);
    bool ok = !s->failed;
    if (s->plain && fclose(s->plain))
        ok = false;
    if (s->gz && gzclose(s->gz) != Z_OK)
        ok = false;
    free(s->buf);
    return ok;
}

/* ---- Leela Zero text ------------------------------------------------------------------------ */

/* The text of value i of line id: "-0.123456" style; variances are positive. Returns length. */
static int lz_value_text(uint32_t id, uint64_t i, bool variance, char *out)
{
    uint64_t w = word(id, i);
    uint32_t frac = (uint32_t)(w % 1000000);
    int n = 0;
    if (!variance && (w >> 63))
        out[n++] = '-';
    out[n++] = variance ? '1' : '0';
    out[n++] = '.';
    for (int d = 5; d >= 0; d--) {
        out[n + d] = (char)('0' + frac % 10);
        frac /= 10;
    }
    return n + 6;
}

static float lz_value(uint32_t id, uint64_t i, bool variance)
{
    char t[16];
    t[lz_value_text(id, i, variance, t)] = 0;
    return strtof(t, NULL);
}

/* The lines of a Leela Zero file after the version: (count, is variance) in file order. */
typedef struct lz_line_spec {
    size_t count;
    bool variance;
} lz_line_spec;

static int lz_lines(lz_line_spec *t)
{
    int n = 0;
    size_t f = LZ_FILTERS;
    for (int conv = 0; conv < 1 + 2 * LZ_BLOCKS; conv++) {
        t[n++] = (lz_line_spec){conv == 0 ? f * NN_LZ_INPUT_PLANES * 9 : f * f * 9, false};
        t[n++] = (lz_line_spec){f, false};
        t[n++] = (lz_line_spec){f, false};
        t[n++] = (lz_line_spec){f, true};
    }
    static const size_t head[14] = {2 * LZ_FILTERS, 2, 2, 2, 362 * 722, 362,
                                    LZ_FILTERS, 1, 1, 1, 256 * 361, 256, 256, 1};
    for (int i = 0; i < 14; i++)
        t[n++] = (lz_line_spec){head[i], i == 3 || i == 9};
    return n;
}

static bool lz_write(const char *plain, const char *gz)
{
    sink s;
    if (!sink_open(&s, plain, gz)) {
        fprintf(stderr, "bench_load: cannot create %s / %s\n", plain, gz);
        return false;
    }
    static lz_line_spec t[4 + 8 * LZ_BLOCKS + 14];
    int lines = lz_lines(t);
    sink_put(&s, "1\n", 2);
    for (int l = 0; l < lines; l++) {
        char v[16];
        for (size_t i = 0; i < t[l].count; i++) {
            int n = lz_value_text((uint32_t)l, i, t[l].variance, v);
            v[n++] = i + 1 < t[l].count ? ' ' : '\n';
            sink_put(&s, v, (size_t)n);
        }
    }
    return sink_close(&s);
}

static bool same_float(float got, float want) { return got == want; }

/* Spot-checks a loaded Leela Zero description against lz_write's values. */
static bool lz_check(const nn_desc *d, const char *path)
{
    const struct nn_lz_desc *lz = d->lz;
    if (d->family != NN_FAMILY_LZ || !lz || lz->blocks != LZ_BLOCKS ||
        lz->filters != LZ_FILTERS || lz->version != 1) {
        fprintf(stderr, "bench_load: %s: shape differs (blocks %d filters %d)\n", path,
                lz ? lz->blocks : -1, lz ? lz->filters : -1);
        return false;
    }
    bool ok = true;
    for (int k = 0; k < SPOT_CHECKS && ok; k++) {
        uint64_t r = mix((uint64_t)k * 7919);
        int b = (int)(r % LZ_BLOCKS);
        /* block b conv 2 is line 4 + 8 b + 4 (0-based after the version): weights, biases,
         * means (minus the biases), variances */
        uint32_t line = (uint32_t)(4 + 8 * b + 4);
        size_t wi = (size_t)(r >> 20) % ((size_t)LZ_FILTERS * LZ_FILTERS * 9);
        size_t c = (size_t)(r >> 40) % LZ_FILTERS;
        const nn_lz_block *blk = &lz->block[b];
        ok &= same_float(blk->conv2.w[wi], lz_value(line, wi, false));
        ok &= same_float(blk->bn2.var[c], lz_value(line + 3, c, true));
        ok &= same_float(blk->bn2.mean[c], lz_value(line + 2, c, false) -
                                               lz_value(line + 1, c, false));
        /* policy fc (line 4 + 8 B + 4): [362][722] in the file, [722][362] loaded */
        uint32_t fc_line = 4 + 8 * LZ_BLOCKS + 4;
        size_t o = (size_t)(r >> 8) % 362, in = (size_t)(r >> 30) % 722;
        ok &= same_float(lz->policy_fc.w[in * 362 + o], lz_value(fc_line, o * 722 + in, false));
        if (!ok)
            fprintf(stderr, "bench_load: %s: block %d values differ from the file\n", path, b);
    }
    return ok;
}

/* ---- the decimal parser against strtof ------------------------------------------------------ */

/* A decimal float of a kind chosen by the random word w: the plain "-0.123456" of real files,
 * long mantissas, exponents down to the subnormals and up to FLT_MAX, exact and nearly exact
 * halfway points between two floats, odd spellings ("+007.", ".5", "-0.0", "12e+3"). Positive
 * when positive is set. Returns the length. */
static int tricky_text(uint64_t w, bool positive, char *out)
{
    uint64_t r = mix(w);
    const char *sign = positive ? "" : (r >> 63) ? "-" : "";
    int n = 0;
    switch (w % 8) {
    case 0:
        return lz_value_text((uint32_t)(w >> 32), w, positive, out);
    case 1: {   /* up to 25 digits with the point anywhere */
        int digits = 1 + (int)(r % 25), point = (int)((r >> 8) % (uint64_t)(digits + 1));
        n = sprintf(out, "%s", sign);
        for (int i = 0; i < digits; i++) {
            if (i == point)
                out[n++] = '.';
            out[n++] = (char)('0' + (mix(r + (uint64_t)i) % 10));
        }
        break;
    }
    case 2: {   /* scientific, 1e-45 .. 3.4e38 */
        int e = -45 + (int)(r % 83);
        double mant = 1.0 + (double)(r >> 11) / (double)(1ull << 53) * (e == 38 ? 2.4 : 8.99);
        n = sprintf(out, "%s%.*fe%d", sign, (int)((r >> 3) % 12), mant, e);
        break;
    }
    case 3:
    case 4: {   /* the halfway point between a random float and the next, exactly or to 17 digits */
        uint32_t bits = (uint32_t)(r >> 32) & 0x7effffffu;
        float f;
        memcpy(&f, &bits, sizeof f);
        double mid = ((double)f + (double)nextafterf(f, INFINITY)) / 2;
        n = sprintf(out, w % 8 == 3 ? "%s%.60g" : "%s%.17g", sign, mid);
        break;
    }
    case 5: {
        static const char *const odd[] = {"+007.", ".5", "-0.0", "12e+3", "5E-3", "0.000",
                                          "1e-50", "340282346638528859811704183484516925440",
                                          "1.17549435e-38", "9.999999e-39"};
        n = sprintf(out, "%s", odd[r % 10]);
        if (positive && out[0] == '-')
            memmove(out, out + 1, (size_t)n--);
        break;
    }
    default:    /* integers and short exponents */
        n = sprintf(out, "%s%llue%d", sign, (unsigned long long)(r % 100000000),
                    (int)((r >> 40) % 30) - 15);
        break;
    }
    return n;
}

/* Writes a small Leela Zero file (4 blocks x 64 filters) of tricky values, loads it and compares
 * every convolution weight and variance with strtof of its text. Returns the values compared, or
 * -1 on a mismatch or failure. */
static long parser_check(const char *path)
{
    enum { BLOCKS = 4, FILTERS = 64, LINES = 4 + 8 * BLOCKS + 14 };
    sink s;
    if (!sink_open(&s, path, NULL))
        return -1;
    size_t count[LINES];
    size_t f = FILTERS;
    int n = 0;
    for (int conv = 0; conv < 1 + 2 * BLOCKS; conv++) {
        count[n++] = conv == 0 ? f * NN_LZ_INPUT_PLANES * 9 : f * f * 9;
        count[n++] = f;
        count[n++] = f;
        count[n++] = f;
    }
    const size_t head[14] = {2 * FILTERS, 2, 2, 2, 362 * 722, 362, FILTERS, 1, 1, 1, 256 * 361,
                             256, 256, 1};
    for (int i = 0; i < 14; i++)
        count[n++] = head[i];
    sink_put(&s, "1\n", 2);
    for (int l = 0; l < LINES; l++)
        for (size_t i = 0; i < count[l]; i++) {
            char v[128];
            bool variance = l < 4 + 8 * BLOCKS ? l % 4 == 3 : l == 4 + 8 * BLOCKS + 3 ||
                                                                 l == 4 + 8 * BLOCKS + 9;
            int len = tricky_text(((uint64_t)l << 32) ^ i, variance, v);
            v[len++] = i + 1 < count[l] ? ' ' : '\n';
            sink_put(&s, v, (size_t)len);
        }
    if (!sink_close(&s))
        return -1;
    char err[1024];
    nn_desc *d = weights_load(path, err, sizeof err);
    remove(path);
    if (!d) {
        fprintf(stderr, "bench_load: parser check: %s\n", err);
        return -1;
    }
    long compared = 0;
    for (int conv = 0; conv < 1 + 2 * BLOCKS; conv++) {
        const nn_conv_desc *c = conv == 0 ? &d->lz->input_conv
                                : conv % 2 ? &d->lz->block[(conv - 1) / 2].conv1
                                           : &d->lz->block[(conv - 1) / 2].conv2;
        const nn_bn_desc *b = conv == 0 ? &d->lz->input_bn
                              : conv % 2 ? &d->lz->block[(conv - 1) / 2].bn1
                                         : &d->lz->block[(conv - 1) / 2].bn2;
        for (int part = 0; part < 2; part++) {
            int l = 4 * conv + (part ? 3 : 0);
            const float *got = part ? b->var : c->w;
            for (size_t i = 0; i < count[l]; i++, compared++) {
                char v[128];
                v[tricky_text(((uint64_t)l << 32) ^ i, part, v)] = 0;
                float want = strtof(v, NULL);
                if (memcmp(&got[i], &want, sizeof want)) {
                    fprintf(stderr, "bench_load: parser check: line %d value %zu \"%s\" gave %a, "
                            "strtof %a\n", l + 2, i + 1, v, (double)got[i], (double)want);
                    nn_desc_free(d);
                    return -1;
                }
            }
        }
    }
    nn_desc_free(d);
    return compared;
}

/* ---- KataGo binary -------------------------------------------------------------------------- */

typedef struct kata_writer {
    sink s;
    uint32_t layer;   /* running layer id: the seed of its floats */
} kata_writer;

/* Float i of layer id: symmetric in (-0.5, 0.5), or in [0.5, 1.5) for variances. */
static float kata_value(uint32_t id, uint64_t i, bool positive)
{
    uint64_t w = word(id | 0x800000u, i);
    float u = (float)(w >> 40) / (float)(1u << 24);
    return positive ? 0.5f + u : u - 0.5f;
}

static void kata_floats(kata_writer *k, size_t n, bool positive)
{
    uint32_t id = k->layer++;
    sink_put(&k->s, "\n@BIN@", 6);
    unsigned char chunk[4096];
    size_t used = 0;
    for (size_t i = 0; i < n; i++) {
        float f = kata_value(id, i, positive);
        uint32_t u;
        memcpy(&u, &f, sizeof u);
        for (int b = 0; b < 4; b++)
            chunk[used++] = (unsigned char)(u >> (8 * b));
        if (used == sizeof chunk) {
            sink_put(&k->s, chunk, used);
            used = 0;
        }
    }
    sink_put(&k->s, chunk, used);
    sink_put(&k->s, "\n", 1);
}

static void kata_conv(kata_writer *k, const char *name, int ksize, int c_in, int c_out)
{
    sink_printf(&k->s, "%s %d %d %d %d 1 1", name, ksize, ksize, c_in, c_out);
    kata_floats(k, (size_t)ksize * ksize * c_in * c_out, false);
}

static void kata_bn(kata_writer *k, const char *name, int c)
{
    sink_printf(&k->s, "%s %d 1e-05 1 1", name, c);
    kata_floats(k, (size_t)c, false);
    kata_floats(k, (size_t)c, true);
    kata_floats(k, (size_t)c, true);
    kata_floats(k, (size_t)c, false);
}

static void kata_act(kata_writer *k, const char *name)
{
    sink_printf(&k->s, "%s ACTIVATION_MISH\n", name);
}

static void kata_matmul(kata_writer *k, const char *name, int c_in, int c_out)
{
    sink_printf(&k->s, "%s %d %d", name, c_in, c_out);
    kata_floats(k, (size_t)c_in * c_out, false);
}

static void kata_matbias(kata_writer *k, const char *name, int c)
{
    sink_printf(&k->s, "%s %d", name, c);
    kata_floats(k, (size_t)c, false);
}

/* The layer id of the outer block b's conv1 weights, for the spot checks: the writer counts
 * layers in file order, so it is recorded as written. */
static uint32_t kata_conv1_layer[KATA_BLOCKS];

static void kata_inner(kata_writer *k, const char *name, bool gpool)
{
    sink_printf(&k->s, "%s %s\n", gpool ? "gpool_block" : "ordinary_block", name);
    int regular = gpool ? KATA_MID - KATA_GPOOL : KATA_MID;
    kata_bn(k, "bn1", KATA_MID);
    kata_act(k, "act1");
    kata_conv(k, "conv1", 3, KATA_MID, regular);
    if (gpool) {
        kata_conv(k, "gpool_conv", 3, KATA_MID, KATA_GPOOL);
        kata_bn(k, "gpool_bn", KATA_GPOOL);
        kata_act(k, "gpool_act");
        kata_matmul(k, "gpool_to_bias", 3 * KATA_GPOOL, regular);
    }
    kata_bn(k, "bn2", regular);
    kata_act(k, "act2");
    kata_conv(k, "conv2", 3, regular, KATA_MID);
}

static bool kata_write(const char *gz)
{
    kata_writer k = {.layer = 0};
    if (!sink_open(&k.s, NULL, gz)) {
        fprintf(stderr, "bench_load: cannot create %s\n", gz);
        return false;
    }
    sink_printf(&k.s, "b18c384nbt-synthetic\n15\n22\n19\n");
    sink_printf(&k.s, "20 20 20 20 40 0.25 30\n0 0 0 0 0 0 0 0\n");
    sink_printf(&k.s, "trunk %d %d %d %d 0 %d 0 0 0 0 0 0\n", KATA_BLOCKS, KATA_TRUNK, KATA_MID,
                KATA_MID - KATA_GPOOL, KATA_GPOOL);
    kata_conv(&k, "conv_spatial", 3, 22, KATA_TRUNK);
    kata_matmul(&k, "linear_global", 19, KATA_TRUNK);
    for (int b = 0; b < KATA_BLOCKS; b++) {
        sink_printf(&k.s, "nested_bottleneck_block rconv%d 2\n", b + 1);
        kata_bn(&k, "bn1", KATA_TRUNK);
        kata_act(&k, "act1");
        kata_conv1_layer[b] = k.layer;
        kata_conv(&k, "conv1", 1, KATA_TRUNK, KATA_MID);
        kata_inner(&k, "inner1", false);
        kata_inner(&k, "inner2", b % 3 == 2);
        kata_bn(&k, "bn2", KATA_MID);
        kata_act(&k, "act2");
        kata_conv(&k, "conv2", 1, KATA_MID, KATA_TRUNK);
    }
    kata_bn(&k, "norm_trunkfinal", KATA_TRUNK);
    kata_act(&k, "act_trunkfinal");

    sink_printf(&k.s, "policyhead\n");
    kata_conv(&k, "p1", 1, KATA_TRUNK, KATA_HEAD);
    kata_conv(&k, "g1", 1, KATA_TRUNK, KATA_HEAD);
    kata_bn(&k, "g1_bn", KATA_HEAD);
    kata_act(&k, "g1_act");
    kata_matmul(&k, "gpool_to_bias", 3 * KATA_HEAD, KATA_HEAD);
    kata_bn(&k, "p1_bn", KATA_HEAD);
    kata_act(&k, "p1_act");
    kata_conv(&k, "p2", 1, KATA_HEAD, 2);
    kata_matmul(&k, "gpool_to_pass", 3 * KATA_HEAD, KATA_HEAD);
    kata_matbias(&k, "gpool_to_pass_bias", KATA_HEAD);
    kata_act(&k, "pass_act");
    kata_matmul(&k, "gpool_to_pass2", KATA_HEAD, 2);

    sink_printf(&k.s, "valuehead\n");
    kata_conv(&k, "v1", 1, KATA_TRUNK, KATA_HEAD);
    kata_bn(&k, "v1_bn", KATA_HEAD);
    kata_act(&k, "v1_act");
    kata_matmul(&k, "v2", 3 * KATA_HEAD, KATA_VALUE_HIDDEN);
    kata_matbias(&k, "v2_bias", KATA_VALUE_HIDDEN);
    kata_act(&k, "v2_act");
    kata_matmul(&k, "v3", KATA_VALUE_HIDDEN, 3);
    kata_matbias(&k, "v3_bias", 3);
    kata_matmul(&k, "sv3", KATA_VALUE_HIDDEN, 6);
    kata_matbias(&k, "sv3_bias", 6);
    kata_conv(&k, "ownership", 1, KATA_HEAD, 1);
    return sink_close(&k.s);
}

static bool kata_check(const nn_desc *d, const char *path)
{
    const nn_kata_desc *k = d->kata;
    const nn_kata_trunk *t = k ? &k->trunk : NULL;
    if (d->family != NN_FAMILY_KATA || !k || k->version != 15 || t->num_blocks != KATA_BLOCKS ||
        t->trunk_channels != KATA_TRUNK || t->mid_channels != KATA_MID) {
        fprintf(stderr, "bench_load: %s: shape differs (blocks %d trunk %d)\n", path,
                t ? t->num_blocks : -1, t ? t->trunk_channels : -1);
        return false;
    }
    for (int b = 0; b < KATA_BLOCKS; b++) {
        const nn_kata_block *blk = &t->blocks[b];
        bool gpool = b % 3 == 2;
        nn_kata_block_kind inner2 = gpool ? NN_KATA_BLOCK_GPOOL : NN_KATA_BLOCK_ORDINARY;
        if (blk->kind != NN_KATA_BLOCK_NESTED || blk->num_inner != 2 ||
            blk->conv1.c_out != KATA_MID || blk->inner[1].kind != inner2) {
            fprintf(stderr, "bench_load: %s: block %d differs\n", path, b);
            return false;
        }
        /* conv1 is 1x1 [c_in 384][c_out 192] in the file, [c_out][c_in] loaded */
        for (int s = 0; s < SPOT_CHECKS; s++) {
            uint64_t r = mix((uint64_t)(b * SPOT_CHECKS + s));
            int i = (int)(r % KATA_TRUNK), o = (int)((r >> 20) % KATA_MID);
            float want = kata_value(kata_conv1_layer[b], (uint64_t)i * KATA_MID + o, false);
            if (blk->conv1.w[(size_t)o * KATA_TRUNK + i] != want) {
                fprintf(stderr, "bench_load: %s: block %d conv1 [%d][%d] is %g, wrote %g\n", path,
                        b, o, i, (double)blk->conv1.w[(size_t)o * KATA_TRUNK + i], (double)want);
                return false;
            }
        }
    }
    return true;
}

static double file_mb(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (double)st.st_size / 1e6 : -1;
}

/* Loads path reps times; prints the best time; checks the last description. */
static bool time_load(const char *label, const char *path, int reps,
                      bool (*check)(const nn_desc *, const char *))
{
    double best = INFINITY, mb = file_mb(path);
    bool ok = true;
    for (int i = 0; i < reps && ok; i++) {
        char err[1024];
        double t0 = go_now_s();
        nn_desc *d = weights_load(path, err, sizeof err);
        double dt = go_now_s() - t0;
        if (!d) {
            fprintf(stderr, "bench_load: %s\n", err);
            return false;
        }
        best = dt < best ? dt : best;
        if (i == reps - 1)
            ok = check(d, path);
        nn_desc_free(d);
    }
    printf("%-22s %9.1f MB %8.3f s %8.1f MB/s%s\n", label, mb, best, mb / best,
           ok ? "" : "  MISMATCH");
    fflush(stdout);
    return ok;
}

int main(int argc, char **argv)
{
    int reps = 3;
    bool keep = false;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--reps") && i + 1 < argc)
            reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--keep"))
            keep = true;
        else {
            fprintf(stderr, "usage: bench_load [--reps N] [--keep]\n");
            return 2;
        }
    }
    if (reps < 1)
        reps = 1;
    const char *tmp = getenv("TMPDIR");
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/shido-load-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        perror("bench_load: mkdtemp");
        return 1;
    }
    char lz_txt[4200], lz_gz[4200], kata_gz[4200];
    snprintf(lz_txt, sizeof lz_txt, "%s/lz40.txt", dir);
    snprintf(lz_gz, sizeof lz_gz, "%s/lz40.txt.gz", dir);
    snprintf(kata_gz, sizeof kata_gz, "%s/b18c384nbt.bin.gz", dir);

    char check_txt[4200];
    snprintf(check_txt, sizeof check_txt, "%s/parser-check.txt", dir);
    long compared = parser_check(check_txt);
    if (compared < 0) {
        rmdir(dir);
        return 1;
    }
    printf("decimal parser: %ld values identical to strtof\n", compared);

    double t0 = go_now_s();
    bool ok = lz_write(lz_txt, lz_gz) && kata_write(kata_gz);
    printf("wrote the files in %.1f s (%s)\n", go_now_s() - t0, dir);
    printf("%-22s %12s %10s %13s   (best of %d)\n", "file", "size", "load", "rate", reps);
    if (ok) {
        ok &= time_load("LZ 40x256 text", lz_txt, reps, lz_check);
        ok &= time_load("LZ 40x256 text.gz", lz_gz, reps, lz_check);
        ok &= time_load("KataGo b18c384nbt .bin.gz", kata_gz, reps, kata_check);
    }
    if (!keep) {
        remove(lz_txt);
        remove(lz_gz);
        remove(kata_gz);
        rmdir(dir);
    }
    printf("%s\n", ok ? "all files loaded and matched" : "FAILED");
    return ok ? 0 : 1;
}
