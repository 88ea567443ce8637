/* weights/lz.c -- the Leela Zero text loader (format in weights/lz.h).
 *
 * Two passes over the (possibly gzipped) text: the first counts the lines, which fixes the number
 * of blocks, and reads the version and the filter count; the second parses every line knowing
 * which layer it is, so every message can name the line and the layer. Lines are read with our
 * own buffer over gzread rather than gzgets, so that a NUL byte or an over-long line is seen and
 * reported instead of silently splitting a line. A gzipped file's text is kept in memory by the
 * first pass (up to LZ_MAX_KEPT bytes) so that it is inflated once. Values are converted by
 * lz_decimal_to_float, an exact fast path that gives the float strtof gives (bench/load.c checks
 * it against strtof on ~300,000 awkward values). On a 40-block net this loads plain text 4x and
 * gzipped text 2.6x faster than strtof and two inflations did.
 */
#include "weights/lz.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define LZ_HEAD_LINES 14
#define LZ_FIXED_LINES (1 + 4 + LZ_HEAD_LINES) /* version, input convolution, heads */
#define LZ_LINES_PER_BLOCK 8
/* A 512-filter residual convolution is about 25 MB of text; the cap keeps a corrupt or hostile
 * gzip stream from growing a single line without bound. */
#define LZ_MAX_LINE ((size_t)512 << 20)
#define LZ_CHUNK ((size_t)1 << 16)
/* Decompressed bytes kept in memory between the passes; a 40-block net is about 450 MB. */
#define LZ_MAX_KEPT ((size_t)1 << 30)
#define LZ_SHOW_TOKEN 24 /* characters of a bad value quoted in a message */

typedef struct lz_reader {
    gzFile gz;
    const char *path;
    unsigned char *chunk; /* LZ_CHUNK bytes of decompressed input */
    const unsigned char *data; /* the input being cut into lines: chunk, or all of kept */
    size_t chunk_len, chunk_pos;
    bool at_end;          /* gzread has nothing more to give */
    /* A gzipped file's text is kept while the first pass decompresses it (up to LZ_MAX_KEPT
     * bytes), so that the second pass reads it from memory instead of inflating it again. */
    unsigned char *kept;
    size_t kept_len, kept_cap;
    bool keeping, replay;
    char *line;           /* the current line, NUL-terminated, without its LF */
    size_t line_len, line_cap;
    long lineno;          /* 1-based number of the current line */
} lz_reader;

/* One line of the file after the version: which layer it is and where its values go. */
typedef struct lz_line {
    char what[NN_NAME_LEN];  /* "residual block 3, conv 2 weights", for messages */
    size_t expected;         /* number of floats */
    float **dst;             /* the description's array that receives them */
    int fc_in, fc_out;       /* > 0: a [fc_out][fc_in] matrix to store as [fc_in][fc_out] */
    bool is_variance;        /* var + eps must be positive for the normalisation to exist */
    float **fold_bias;       /* bn means: the conv biases to fold in (mean - bias), then free */
} lz_line;

static void lz_fail(char *err, int err_len, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Every message starts "weights_load_lz: <file>: " so that it names the layer of the code and the
 * file; the rest says where in the file and what was expected. */
static void lz_fail(char *err, int err_len, const char *path, const char *fmt, ...)
{
    if (!err || err_len <= 0)
        return;
    int n = snprintf(err, (size_t)err_len, "weights_load_lz: %s: ", path);
    if (n < 0 || n >= err_len)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err + n, (size_t)(err_len - n), fmt, ap);
    va_end(ap);
}

static bool lz_is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

static void lz_reader_close(lz_reader *r)
{
    /* gzclose on a read stream only repeats errors gzread already reported. */
    if (r->gz)
        gzclose(r->gz);
    free(r->chunk);
    free(r->kept);
    free(r->line);
    memset(r, 0, sizeof *r);
}

static bool lz_reader_open(lz_reader *r, const char *path, char *err, int err_len)
{
    memset(r, 0, sizeof *r);
    r->path = path;
    errno = 0;
    r->gz = gzopen(path, "rb");
    if (!r->gz) {
        lz_fail(err, err_len, path, "cannot open: %s", errno ? strerror(errno) : "out of memory");
        return false;
    }
    r->chunk = malloc(LZ_CHUNK);
    if (!r->chunk || gzbuffer(r->gz, (unsigned)LZ_CHUNK) != 0) {
        lz_fail(err, err_len, path, "out of memory for the read buffer");
        lz_reader_close(r);
        return false;
    }
    r->data = r->chunk;
    return true;
}

/* Appends n decompressed bytes to the kept text; past LZ_MAX_KEPT or out of memory, stops keeping
 * (the second pass then decompresses again). */
static void lz_keep(lz_reader *r, const unsigned char *p, size_t n)
{
    if (r->kept_len + n > r->kept_cap) {
        size_t cap = r->kept_cap ? r->kept_cap : (size_t)1 << 20;
        while (cap < r->kept_len + n)
            cap *= 2;
        unsigned char *grown = cap <= LZ_MAX_KEPT ? realloc(r->kept, cap) : NULL;
        if (!grown) {
            free(r->kept);
            r->kept = NULL;
            r->kept_len = r->kept_cap = 0;
            r->keeping = false;
            return;
        }
        r->kept = grown;
        r->kept_cap = cap;
    }
    memcpy(r->kept + r->kept_len, p, n);
    r->kept_len += n;
}

static bool lz_reader_rewind(lz_reader *r, char *err, int err_len)
{
    if (r->keeping) {
        /* the whole text is in memory: one chunk for the second pass */
        r->keeping = false;
        r->replay = true;
        r->data = r->kept;
        r->chunk_len = r->kept_len;
        r->chunk_pos = 0;
        r->at_end = true;
        r->lineno = 0;
        return true;
    }
    r->data = r->chunk;
    if (gzrewind(r->gz) != 0) {
        lz_fail(err, err_len, r->path, "cannot read the file a second time (not seekable?)");
        return false;
    }
    r->chunk_len = r->chunk_pos = 0;
    r->at_end = false;
    r->lineno = 0;
    return true;
}

/* Describes gzread's failure: corrupt or truncated gzip data, or an I/O error. */
static void lz_read_error(lz_reader *r, char *err, int err_len)
{
    int code = Z_OK;
    const char *msg = gzerror(r->gz, &code);
    if (code == Z_ERRNO)
        msg = strerror(errno);
    else if (code == Z_BUF_ERROR)
        msg = "the gzip stream is truncated";
    lz_fail(err, err_len, r->path, "line %ld: read error: %s", r->lineno + 1,
            msg && *msg ? msg : "unknown");
}

/* Makes room for n more bytes and the NUL after the current line. */
static bool lz_reserve(lz_reader *r, size_t n, char *err, int err_len)
{
    if (r->line_len + n + 1 > LZ_MAX_LINE) {
        lz_fail(err, err_len, r->path, "line %ld: longer than %zu bytes", r->lineno + 1,
                LZ_MAX_LINE);
        return false;
    }
    if (r->line_len + n + 1 <= r->line_cap)
        return true;
    size_t cap = r->line_cap ? r->line_cap : 4096;
    while (cap < r->line_len + n + 1)
        cap *= 2;
    char *grown = realloc(r->line, cap);
    if (!grown) {
        lz_fail(err, err_len, r->path, "line %ld: out of memory for %zu bytes", r->lineno + 1,
                cap);
        return false;
    }
    r->line = grown;
    r->line_cap = cap;
    return true;
}

/* Reads the next line. Returns 1 with the line in r->line, 0 at the end of the file, -1 on an
 * error (message in err). A last line without LF still counts; the LF ending the file does not
 * start another line, which is how Leela Zero's getline loop counts them. */
static int lz_next_line(lz_reader *r, char *err, int err_len)
{
    r->line_len = 0;
    if (!lz_reserve(r, 0, err, err_len))
        return -1;
    r->line[0] = '\0';
    bool any = false;
    for (;;) {
        if (r->chunk_pos == r->chunk_len) {
            if (r->at_end)
                break;
            /* A truncated gzip stream first gives what it has (flagging Z_BUF_ERROR), then 0:
             * the check at 0 reports it at the line where the data stopped. */
            int n = gzread(r->gz, r->chunk, (unsigned)LZ_CHUNK);
            int code = Z_OK;
            if (n <= 0)
                gzerror(r->gz, &code);
            if (n < 0 || code != Z_OK) {
                lz_read_error(r, err, err_len);
                return -1;
            }
            if (n == 0) {
                r->at_end = true;
                break;
            }
            r->chunk_len = (size_t)n;
            r->chunk_pos = 0;
            if (r->keeping)
                lz_keep(r, r->chunk, (size_t)n);
        }
        const unsigned char *start = r->data + r->chunk_pos;
        size_t avail = r->chunk_len - r->chunk_pos;
        const unsigned char *nl = memchr(start, '\n', avail);
        size_t take = nl ? (size_t)(nl - start) : avail;
        if (memchr(start, '\0', take)) {
            lz_fail(err, err_len, r->path, "line %ld: NUL byte: not a text file", r->lineno + 1);
            return -1;
        }
        if (!lz_reserve(r, take, err, err_len))
            return -1;
        memcpy(r->line + r->line_len, start, take);
        r->line_len += take;
        r->line[r->line_len] = '\0';
        any = true;
        r->chunk_pos += take + (nl ? 1 : 0);
        if (nl)
            break;
    }
    if (!any)
        return 0;
    r->lineno++;
    return 1;
}

static size_t lz_count_tokens(const char *s)
{
    size_t n = 0;
    while (*s) {
        while (lz_is_space(*s))
            s++;
        if (!*s)
            break;
        n++;
        while (*s && !lz_is_space(*s))
            s++;
    }
    return n;
}

/* The version line holds exactly "1" or "2" (spaces and a CR around it allowed). Returns the
 * version or 0. */
static int lz_parse_version(const char *s)
{
    while (lz_is_space(*s))
        s++;
    int v = (*s == '1' || *s == '2') ? *s - '0' : 0;
    if (!v)
        return 0;
    for (s++; *s; s++)
        if (!lz_is_space(*s))
            return 0;
    return v;
}

static size_t lz_digits(const char *s)
{
    size_t n = 0;
    while (s[n] >= '0' && s[n] <= '9')
        n++;
    return n;
}

/* Length of a plain decimal float at s: [+-] digits [. digits] [(e|E) [+-] digits], with at
 * least one mantissa digit; 0 when s does not start with one. strtof alone would also take
 * "nan", "inf" and hex floats, which Leela Zero's parser does not. */
static size_t lz_scan_float(const char *s)
{
    size_t i = (*s == '+' || *s == '-') ? 1 : 0;
    size_t int_digits = lz_digits(s + i), frac_digits = 0;
    i += int_digits;
    if (s[i] == '.') {
        frac_digits = lz_digits(s + i + 1);
        i += 1 + frac_digits;
    }
    if (int_digits + frac_digits == 0)
        return 0;
    if (s[i] == 'e' || s[i] == 'E') {
        size_t j = i + 1 + ((s[i + 1] == '+' || s[i + 1] == '-') ? 1 : 0);
        size_t exp_digits = lz_digits(s + j);
        if (exp_digits == 0)
            return 0;
        i = j + exp_digits;
    }
    return i;
}

/* Exact powers of ten in double (10^22 is the largest). */
static const double lz_pow10[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                    1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                    1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/* Parses the plain decimal float of len bytes at s (lz_scan_float's syntax, already checked)
 * into exactly the float strtof gives: round to nearest, ties to even.
 *
 * Fast path (Clinger's): with at most 19 significant digits m and a decimal exponent e with
 * |e| <= 22, m < 2^53 and 10^|e| are exact doubles, so d = m * 10^e (or m / 10^-e) is the double
 * nearest to the true value x. Rounding d to float gives the float nearest to x unless d is itself
 * a halfway point between two floats: a halfway point h strictly between x and d would be a
 * double nearer to x than d. So the fast path is taken unless d is a halfway point, subnormal or
 * out of float range, and strtof settles those (and the long or far-out tokens). */
static float lz_decimal_to_float(const char *s, size_t len)
{
    size_t i = 0;
    bool neg = s[0] == '-';
    if (s[0] == '+' || s[0] == '-')
        i++;
    uint64_t m = 0;
    int digits = 0, exp10 = 0;
    bool slow = false;
    for (bool frac = false; i < len && s[i] != 'e' && s[i] != 'E'; i++) {
        if (s[i] == '.') {
            frac = true;
            continue;
        }
        if (digits >= 19) {
            slow = true;
            break;
        }
        m = m * 10 + (uint64_t)(s[i] - '0');
        digits += m != 0;
        exp10 -= frac;
    }
    if (!slow && i < len) {
        size_t j = i + 1;
        bool eneg = s[j] == '-';
        if (s[j] == '+' || s[j] == '-')
            j++;
        int e = 0;
        for (; j < len && e < 1000; j++)
            e = e * 10 + (s[j] - '0');
        slow = j < len;
        exp10 += eneg ? -e : e;
    }
    if (!slow && m <= ((uint64_t)1 << 53) && exp10 >= -22 && exp10 <= 22) {
        double d = exp10 < 0 ? (double)m / lz_pow10[-exp10] : (double)m * lz_pow10[exp10];
        uint64_t bits;
        memcpy(&bits, &d, sizeof bits);
        /* a double's 29 lowest significand bits are what rounding to float drops */
        bool halfway = (bits & 0x1fffffffu) == 0x10000000u;
        if (m == 0 || (!halfway && d >= 0x1p-126 && d < 0x1p128)) {
            float f = (float)d;
            return neg ? -f : f;
        }
    }
    return strtof(s, NULL);
}

/* Copies the token at s into out (at most LZ_SHOW_TOKEN characters, non-printables as '?') so
 * that a message can quote it. */
static void lz_show_token(const char *s, char *out)
{
    size_t n = 0;
    while (s[n] && !lz_is_space(s[n]) && n < LZ_SHOW_TOKEN) {
        unsigned char c = (unsigned char)s[n];
        out[n] = (c >= 0x20 && c < 0x7f) ? (char)c : '?';
        n++;
    }
    strcpy(out + n, (s[n] && !lz_is_space(s[n])) ? "..." : "");
}

/* Reports a line whose number of values is not what the layer needs. */
static void lz_count_error(const lz_reader *r, const lz_line *ln, char *err, int err_len)
{
    lz_fail(err, err_len, r->path, "line %ld (%s): expected %zu floats, got %zu", r->lineno,
            ln->what, ln->expected, lz_count_tokens(r->line));
}

/* Parses the line's floats into out (ln->expected of them). A wrong count is reported before a
 * bad value, as if the tokens had been counted first. */
static bool lz_parse_floats(const lz_reader *r, const lz_line *ln, float *out, char *err,
                            int err_len)
{
    const char *s = r->line;
    size_t n = ln->expected;
    for (size_t i = 0; i < n; i++) {
        while (lz_is_space(*s))
            s++;
        if (!*s) {
            lz_count_error(r, ln, err, err_len);
            return false;
        }
        size_t len = lz_scan_float(s);
        char shown[LZ_SHOW_TOKEN + 4];
        if (len == 0 || (s[len] && !lz_is_space(s[len]))) {
            if (lz_count_tokens(r->line) != n) {
                lz_count_error(r, ln, err, err_len);
                return false;
            }
            lz_show_token(s, shown);
            lz_fail(err, err_len, r->path,
                    "line %ld (%s): value %zu \"%s\" is not a decimal number", r->lineno,
                    ln->what, i + 1, shown);
            return false;
        }
        float v = lz_decimal_to_float(s, len);
        if (!isfinite(v)) {
            if (lz_count_tokens(r->line) != n) {
                lz_count_error(r, ln, err, err_len);
                return false;
            }
            lz_show_token(s, shown);
            lz_fail(err, err_len, r->path,
                    "line %ld (%s): value %zu \"%s\" is not a finite float", r->lineno,
                    ln->what, i + 1, shown);
            return false;
        }
        out[i] = v;
        s += len;
    }
    while (lz_is_space(*s))
        s++;
    if (*s) {
        lz_count_error(r, ln, err, err_len);
        return false;
    }
    return true;
}

/* Reads the line's floats into the description, checking the count, the values, and what the
 * layer needs of them (positive variance, a finite folded mean). */
static bool lz_load_line(lz_reader *r, const lz_line *ln, char *err, int err_len)
{
    size_t got = ln->expected;
    /* a line of L bytes holds at most (L + 1) / 2 values: a count beyond that is wrong for sure,
     * and is reported before anything is allocated for it */
    if (got > (r->line_len + 1) / 2) {
        lz_count_error(r, ln, err, err_len);
        return false;
    }
    float *v = malloc(sizeof *v * (got ? got : 1));
    if (!v) {
        lz_fail(err, err_len, r->path, "line %ld (%s): out of memory for %zu floats", r->lineno,
                ln->what, got);
        return false;
    }
    if (!lz_parse_floats(r, ln, v, err, err_len)) {
        free(v);
        return false;
    }
    if (ln->fc_in > 0) {
        /* Leela Zero's innerproduct takes weights as [outputs][inputs]; ours are [in][out]. */
        float *t = malloc(sizeof *t * got);
        if (!t) {
            free(v);
            lz_fail(err, err_len, r->path, "line %ld (%s): out of memory", r->lineno, ln->what);
            return false;
        }
        for (int o = 0; o < ln->fc_out; o++)
            for (int i = 0; i < ln->fc_in; i++)
                t[(size_t)i * ln->fc_out + o] = v[(size_t)o * ln->fc_in + i];
        free(v);
        v = t;
    }
    *ln->dst = v;
    for (size_t i = 0; ln->is_variance && i < got; i++)
        if (!(v[i] + NN_LZ_BN_EPS > 0.0f)) {
            lz_fail(err, err_len, r->path,
                    "line %ld (%s): value %zu is %g; a variance must be more than -%g", r->lineno,
                    ln->what, i + 1, (double)v[i], (double)NN_LZ_BN_EPS);
            return false;
        }
    if (ln->fold_bias) {
        /* Leela Zero's conv biases are redundant with the batch norm that follows: it subtracts
         * them from the means (in float) at load and never adds them. So do we. */
        const float *bias = *ln->fold_bias;
        for (size_t i = 0; i < got; i++) {
            v[i] -= bias[i];
            if (!isfinite(v[i])) {
                lz_fail(err, err_len, r->path,
                        "line %ld (%s): value %zu minus the conv bias is not a finite float",
                        r->lineno, ln->what, i + 1);
                return false;
            }
        }
        free(*ln->fold_bias);
        *ln->fold_bias = NULL;
    }
    return true;
}

static void lz_conv_init(nn_conv_desc *c, const char *name, int k, int c_in, int c_out)
{
    snprintf(c->name, sizeof c->name, "%s", name);
    c->ky = c->kx = k;
    c->c_in = c_in;
    c->c_out = c_out;
    c->dil_y = c->dil_x = 1;
}

static void lz_bn_init(nn_bn_desc *b, const char *name, int c)
{
    snprintf(b->name, sizeof b->name, "%s", name);
    b->c = c;
    b->eps = NN_LZ_BN_EPS;
}

static void lz_fc_init(nn_matmul_desc *m, const char *name, int c_in, int c_out)
{
    snprintf(m->name, sizeof m->name, "%s", name);
    m->c_in = c_in;
    m->c_out = c_out;
}

/* Appends the four lines of a convolution + batch norm group (weights, biases, means,
 * variances) to the line table. */
static void lz_table_conv(lz_line *t, size_t *n, const char *what, nn_conv_desc *c, nn_bn_desc *b)
{
    static const char *const part[4] = {"weights", "biases", "bn means", "bn variances"};
    size_t conv_len = (size_t)c->c_out * c->c_in * c->ky * c->kx;
    for (int i = 0; i < 4; i++) {
        lz_line *ln = &t[*n + i];
        memset(ln, 0, sizeof *ln);
        snprintf(ln->what, sizeof ln->what, "%s %s", what, part[i]);
        ln->expected = i == 0 ? conv_len : (size_t)c->c_out;
    }
    t[*n].dst = &c->w;
    t[*n + 1].dst = &c->bias;
    t[*n + 2].dst = &b->mean;
    t[*n + 2].fold_bias = &c->bias;
    t[*n + 3].dst = &b->var;
    t[*n + 3].is_variance = true;
    *n += 4;
}

static void lz_table_fc(lz_line *t, size_t *n, const char *what, nn_matmul_desc *m)
{
    lz_line *w = &t[(*n)++], *b = &t[(*n)++];
    memset(w, 0, sizeof *w);
    memset(b, 0, sizeof *b);
    snprintf(w->what, sizeof w->what, "%s weights", what);
    w->expected = (size_t)m->c_in * m->c_out;
    w->dst = &m->w;
    w->fc_in = m->c_in;
    w->fc_out = m->c_out;
    snprintf(b->what, sizeof b->what, "%s biases", what);
    b->expected = (size_t)m->c_out;
    b->dst = &m->bias;
}

/* Sets every layer's shape and name and lists the lines in file order. Returns the table (owned
 * by the caller), or NULL when out of memory. */
static lz_line *lz_layout(struct nn_lz_desc *lz, size_t *num_lines)
{
    int f = lz->filters;
    size_t lines = LZ_FIXED_LINES - 1 + (size_t)LZ_LINES_PER_BLOCK * lz->blocks;
    lz_line *t = calloc(lines, sizeof *t);
    if (!t)
        return NULL;
    size_t n = 0;
    lz_conv_init(&lz->input_conv, "input conv", 3, NN_LZ_INPUT_PLANES, f);
    lz_bn_init(&lz->input_bn, "input bn", f);
    lz_table_conv(t, &n, "input conv", &lz->input_conv, &lz->input_bn);
    for (int i = 0; i < lz->blocks; i++) {
        nn_lz_block *b = &lz->block[i];
        char name[NN_NAME_LEN], what[NN_NAME_LEN];
        snprintf(name, sizeof name, "block %d conv 1", i + 1);
        lz_conv_init(&b->conv1, name, 3, f, f);
        snprintf(name, sizeof name, "block %d bn 1", i + 1);
        lz_bn_init(&b->bn1, name, f);
        snprintf(what, sizeof what, "residual block %d, conv 1", i + 1);
        lz_table_conv(t, &n, what, &b->conv1, &b->bn1);
        snprintf(name, sizeof name, "block %d conv 2", i + 1);
        lz_conv_init(&b->conv2, name, 3, f, f);
        snprintf(name, sizeof name, "block %d bn 2", i + 1);
        lz_bn_init(&b->bn2, name, f);
        snprintf(what, sizeof what, "residual block %d, conv 2", i + 1);
        lz_table_conv(t, &n, what, &b->conv2, &b->bn2);
    }
    lz_conv_init(&lz->policy_conv, "policy conv", 1, f, NN_LZ_POLICY_CHANNELS);
    lz_bn_init(&lz->policy_bn, "policy bn", NN_LZ_POLICY_CHANNELS);
    lz_table_conv(t, &n, "policy conv", &lz->policy_conv, &lz->policy_bn);
    lz_fc_init(&lz->policy_fc, "policy fc", NN_LZ_POLICY_CHANNELS * NN_LZ_POINTS,
               NN_LZ_POLICY_OUTPUTS);
    lz_table_fc(t, &n, "policy fc", &lz->policy_fc);
    lz_conv_init(&lz->value_conv, "value conv", 1, f, NN_LZ_VALUE_CHANNELS);
    lz_bn_init(&lz->value_bn, "value bn", NN_LZ_VALUE_CHANNELS);
    lz_table_conv(t, &n, "value conv", &lz->value_conv, &lz->value_bn);
    lz_fc_init(&lz->value_fc1, "value fc1", NN_LZ_VALUE_CHANNELS * NN_LZ_POINTS,
               NN_LZ_VALUE_HIDDEN);
    lz_table_fc(t, &n, "value fc1", &lz->value_fc1);
    lz_fc_init(&lz->value_fc2, "value fc2", NN_LZ_VALUE_HIDDEN, 1);
    lz_table_fc(t, &n, "value fc2", &lz->value_fc2);
    *num_lines = n;
    return t;
}

void nn_lz_desc_free(struct nn_lz_desc *lz)
{
    if (!lz)
        return;
    nn_conv_free(&lz->input_conv);
    nn_bn_free(&lz->input_bn);
    for (int i = 0; lz->block && i < lz->blocks; i++) {
        nn_conv_free(&lz->block[i].conv1);
        nn_bn_free(&lz->block[i].bn1);
        nn_conv_free(&lz->block[i].conv2);
        nn_bn_free(&lz->block[i].bn2);
    }
    free(lz->block);
    nn_conv_free(&lz->policy_conv);
    nn_bn_free(&lz->policy_bn);
    nn_matmul_free(&lz->policy_fc);
    nn_conv_free(&lz->value_conv);
    nn_bn_free(&lz->value_bn);
    nn_matmul_free(&lz->value_fc1);
    nn_matmul_free(&lz->value_fc2);
    free(lz);
}

/* Pass 1: the version, the filter count (length of line 3, the input conv biases) and the number
 * of lines. */
static bool lz_survey(lz_reader *r, int *version, int *filters, long *lines, char *err,
                      int err_len)
{
    int got;
    while ((got = lz_next_line(r, err, err_len)) == 1) {
        if (r->lineno == 1) {
            *version = lz_parse_version(r->line);
            if (!*version) {
                char shown[LZ_SHOW_TOKEN + 4];
                const char *s = r->line;
                while (lz_is_space(*s))
                    s++;
                lz_show_token(s, shown);
                lz_fail(err, err_len, r->path,
                        "line 1 (format version): expected \"1\" or \"2\", got \"%s\"", shown);
                return false;
            }
        } else if (r->lineno == 3) {
            size_t n = lz_count_tokens(r->line);
            if (n == 0 || n > INT_MAX / 64) {
                lz_fail(err, err_len, r->path,
                        "line 3 (input conv biases): expected one float per filter, got %zu", n);
                return false;
            }
            *filters = (int)n;
        }
    }
    if (got < 0)
        return false;
    *lines = r->lineno;
    if (*lines == 0) {
        lz_fail(err, err_len, r->path, "empty file: expected the format version on line 1");
        return false;
    }
    long rest = *lines - LZ_FIXED_LINES;
    if (rest < 0 || rest % LZ_LINES_PER_BLOCK != 0 || rest / LZ_LINES_PER_BLOCK > INT_MAX / 2) {
        lz_fail(err, err_len, r->path,
                "%ld line%s: expected %d + %d x blocks (version, 4 input conv lines, %d per "
                "residual block, %d head lines)",
                *lines, *lines == 1 ? "" : "s", LZ_FIXED_LINES, LZ_LINES_PER_BLOCK, LZ_LINES_PER_BLOCK, LZ_HEAD_LINES);
        return false;
    }
    return true;
}

nn_desc *weights_load_lz(const char *path, char *err, int err_len)
{
    if (err && err_len > 0)
        err[0] = '\0';
    if (!path) {
        lz_fail(err, err_len, "(null)", "no file name");
        return NULL;
    }
    lz_reader r;
    if (!lz_reader_open(&r, path, err, err_len))
        return NULL;
    int version = 0, filters = 0;
    long lines = 0;
    nn_desc *d = NULL;
    lz_line *table = NULL;
    size_t table_len = 0;
    r.keeping = !gzdirect(r.gz);
    if (!lz_survey(&r, &version, &filters, &lines, err, err_len) ||
        !lz_reader_rewind(&r, err, err_len))
        goto fail;

    d = calloc(1, sizeof *d);
    if (d)
        d->lz = calloc(1, sizeof *d->lz);
    int blocks = (int)((lines - LZ_FIXED_LINES) / LZ_LINES_PER_BLOCK);
    if (d && d->lz && blocks > 0)
        d->lz->block = calloc((size_t)blocks, sizeof *d->lz->block);
    if (!d || !d->lz || (blocks > 0 && !d->lz->block)) {
        lz_fail(err, err_len, path, "out of memory for %d blocks", blocks);
        goto fail;
    }
    d->family = NN_FAMILY_LZ;
    snprintf(d->source, sizeof d->source, "%s", path);
    struct nn_lz_desc *lz = d->lz;
    lz->version = version;
    lz->value_is_black = version == 2;
    lz->blocks = blocks;
    lz->filters = filters;
    table = lz_layout(lz, &table_len);
    if (!table) {
        lz_fail(err, err_len, path, "out of memory for the layer table");
        goto fail;
    }

    /* Pass 2: every line after the version is one layer's values. */
    int first = lz_next_line(&r, err, err_len);
    if (first < 0)
        goto fail;
    if (first == 0 || lz_parse_version(r.line) != version) {
        lz_fail(err, err_len, path, "line 1: the file changed while being read");
        goto fail;
    }
    for (size_t k = 0; k < table_len; k++) {
        int got = lz_next_line(&r, err, err_len);
        if (got < 0)
            goto fail;
        if (got == 0) {
            lz_fail(err, err_len, path, "line %zu (%s): unexpected end of file (the file "
                    "changed while being read?)", k + 2, table[k].what);
            goto fail;
        }
        if (!lz_load_line(&r, &table[k], err, err_len))
            goto fail;
    }
    int more = lz_next_line(&r, err, err_len);
    if (more != 0) {
        if (more > 0)
            lz_fail(err, err_len, path, "line %ld: more lines than the first pass counted (the "
                    "file changed while being read?)", r.lineno);
        goto fail;
    }
    free(table);
    lz_reader_close(&r);
    return d;

fail:
    free(table);
    lz_reader_close(&r);
    nn_desc_free(d);
    return NULL;
}

bool weights_is_lz(const char *path)
{
    if (!path)
        return false;
    gzFile gz = gzopen(path, "rb");
    if (!gz)
        return false;
    char head[128];
    int n = gzread(gz, head, sizeof head - 1);
    gzclose(gz);
    if (n <= 0)
        return false;
    head[n] = '\0';
    char *nl = memchr(head, '\n', (size_t)n);
    if (!nl)
        return false;
    *nl = '\0';
    if (!lz_parse_version(head))
        return false;
    const char *s = nl + 1;
    while (lz_is_space(*s))
        s++;
    return lz_scan_float(s) > 0;
}
