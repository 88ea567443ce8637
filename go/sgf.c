/* go/sgf.c -- SGF FF[4] parser, writer and go_game conversion (see go/sgf.h). */
#include "go/sgf.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ------------------------------------------------------------------------------------------ */
/* Small helpers                                                                               */

static void set_err(char *err, int err_len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void set_err(char *err, int err_len, const char *fmt, ...)
{
    if (!err || err_len <= 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, (size_t)err_len, fmt, ap);
    va_end(ap);
}

static bool is_upper(int c) { return c >= 'A' && c <= 'Z'; }
static bool is_lower(int c) { return c >= 'a' && c <= 'z'; }
static bool is_space(int c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

/* Arrays grow to the next power of two when their count reaches one, so no capacity field is
 * needed in the public structs. Returns arr with room for count + 1 elements, or NULL when out
 * of memory (arr is then still valid). */
static void *grow_for_append(void *arr, int count, size_t elem)
{
    if (count > 0 && (count & (count - 1)) != 0)
        return arr;
    if (count >= INT32_MAX / 2)
        return NULL;
    return realloc(arr, (count == 0 ? 1 : (size_t)count * 2) * elem);
}

/* ------------------------------------------------------------------------------------------ */
/* Tree building and freeing                                                                   */

/* A new node appended to parent's children (parent NULL: a detached root). */
static go_sgf_node *node_add(go_sgf_node *parent)
{
    go_sgf_node *n = calloc(1, sizeof *n);
    if (!n)
        return NULL;
    if (parent) {
        go_sgf_node **ch = grow_for_append(parent->children, parent->num_children, sizeof *ch);
        if (!ch) {
            free(n);
            return NULL;
        }
        parent->children = ch;
        ch[parent->num_children++] = n;
        n->parent = parent;
    }
    return n;
}

/* A new property with no values yet at the end of n's list. */
static go_sgf_prop *prop_add(go_sgf_node *n, const char *ident, size_t ident_len)
{
    go_sgf_prop *props = grow_for_append(n->props, n->num_props, sizeof *props);
    if (!props)
        return NULL;
    n->props = props;
    char *id = malloc(ident_len + 1);
    if (!id)
        return NULL;
    memcpy(id, ident, ident_len);
    id[ident_len] = '\0';
    go_sgf_prop *pr = &n->props[n->num_props++];
    *pr = (go_sgf_prop){id, 0, NULL};
    return pr;
}

static bool value_add(go_sgf_prop *pr, const char *v, size_t len)
{
    char **values = grow_for_append(pr->values, pr->num_values, sizeof *values);
    if (!values)
        return false;
    pr->values = values;
    char *s = malloc(len + 1);
    if (!s)
        return false;
    memcpy(s, v, len);
    s[len] = '\0';
    pr->values[pr->num_values++] = s;
    return true;
}

static bool prop_set(go_sgf_node *n, const char *ident, const char *value)
{
    go_sgf_prop *pr = prop_add(n, ident, strlen(ident));
    return pr && value_add(pr, value, strlen(value));
}

go_sgf_node *go_sgf_add_child(go_sgf_node *parent) { return node_add(parent); }

bool go_sgf_add_value(go_sgf_node *n, const char *ident, const char *value)
{
    for (int i = 0; i < n->num_props; i++)
        if (!strcmp(n->props[i].ident, ident))
            return value_add(&n->props[i], value, strlen(value));
    return prop_set(n, ident, value);
}

static void node_free_contents(go_sgf_node *n)
{
    for (int i = 0; i < n->num_props; i++) {
        for (int j = 0; j < n->props[i].num_values; j++)
            free(n->props[i].values[j]);
        free(n->props[i].values);
        free(n->props[i].ident);
    }
    free(n->props);
    free(n->children);
    free(n);
}

/* Frees the subtree at root without recursion: descend through the last child, detaching it from
 * its parent, free leaves, and climb back by the parent pointer. */
static void tree_free(go_sgf_node *root)
{
    go_sgf_node *stop = root ? root->parent : NULL, *n = root;
    while (n && n != stop) {
        if (n->num_children > 0) {
            n = n->children[--n->num_children];
            continue;
        }
        go_sgf_node *up = n->parent;
        node_free_contents(n);
        n = up;
    }
}

void go_sgf_free(go_sgf_collection *c)
{
    if (!c)
        return;
    for (int i = 0; i < c->num_games; i++)
        tree_free(c->games[i]);
    free(c->games);
    free(c);
}

static bool game_add(go_sgf_collection *c, go_sgf_node *root)
{
    go_sgf_node **games = grow_for_append(c->games, c->num_games, sizeof *games);
    if (!games)
        return false;
    c->games = games;
    games[c->num_games++] = root;
    return true;
}

const char *go_sgf_get(const go_sgf_node *n, const char *ident)
{
    for (int i = 0; n && i < n->num_props; i++)
        if (!strcmp(n->props[i].ident, ident) && n->props[i].num_values > 0)
            return n->props[i].values[0];
    return NULL;
}

/* ------------------------------------------------------------------------------------------ */
/* Parser                                                                                      */

/* One open '(' : where it was, the node the game tree hangs from (NULL for a game's root) and
 * whether a variation has been closed in it already (then only '(' or ')' may follow). */
typedef struct open_tree {
    size_t pos;
    go_sgf_node *parent;
    bool has_variations;
} open_tree;

typedef struct parser {
    const char *s;
    size_t len, pos;
    go_sgf_collection *c;
    unsigned long long mem;   /* estimated heap use of the tree so far */
    open_tree *stack;
    int depth, stack_cap;
    go_sgf_node *cur;         /* last node of the innermost open tree, NULL right after '(' */
    char *buf;                /* scratch for one unescaped value */
    size_t buf_len, buf_cap;
    char *err;
    int err_len;
} parser;

/* Writes "line L, column C: reason" for byte offset off (columns count bytes from 1). */
static bool parse_error(parser *p, size_t off, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static bool parse_error(parser *p, size_t off, const char *fmt, ...)
{
    long line = 1, col = 1;
    for (size_t i = 0; i < off && i < p->len; i++) {
        char ch = p->s[i];
        if (ch == '\n' || (ch == '\r' && (i + 1 >= p->len || p->s[i + 1] != '\n'))) {
            line++;
            col = 1;
        } else if (ch != '\r') {
            col++;
        }
    }
    char reason[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(reason, sizeof reason, fmt, ap);
    va_end(ap);
    set_err(p->err, p->err_len, "line %ld, column %ld: %s", line, col, reason);
    return false;
}

/* "'x'" for a printable byte, "byte 0xNN" otherwise, for messages about unexpected input. */
static const char *describe_byte(unsigned char ch, char *buf, size_t len)
{
    if (ch >= 0x20 && ch < 0x7f)
        snprintf(buf, len, "'%c'", ch);
    else
        snprintf(buf, len, "byte 0x%02x (binary data?)", ch);
    return buf;
}

/* Charges an allocation of bytes, plus a typical malloc chunk overhead, to the tree budget. */
static bool charge(parser *p, size_t bytes)
{
    p->mem += bytes + 32;
    if (p->mem > GO_SGF_MAX_TREE_BYTES)
        return parse_error(p, p->pos, "game tree too large (over %llu MiB in memory)",
                           GO_SGF_MAX_TREE_BYTES >> 20);
    return true;
}

static bool buf_put(parser *p, char ch)
{
    if (p->buf_len == p->buf_cap) {
        size_t cap = p->buf_cap ? p->buf_cap * 2 : 64;
        char *b = realloc(p->buf, cap);
        if (!b)
            return parse_error(p, p->pos, "out of memory");
        p->buf = b;
        p->buf_cap = cap;
    }
    p->buf[p->buf_len++] = ch;
    return true;
}

static void skip_space(parser *p)
{
    while (p->pos < p->len && is_space((unsigned char)p->s[p->pos]))
        p->pos++;
}

/* Reads one bracketed value at p->pos ('[') into pr, removing escapes and soft line breaks. */
static bool parse_value(parser *p, go_sgf_prop *pr)
{
    size_t open = p->pos++;
    p->buf_len = 0;
    for (;;) {
        if (p->pos >= p->len)
            return parse_error(p, open, "unterminated property value: missing ']'");
        char ch = p->s[p->pos];
        if (ch == ']')
            break;
        if (ch == '\\') {
            if (++p->pos >= p->len)
                return parse_error(p, open, "unterminated property value: missing ']'");
            ch = p->s[p->pos];
            if (ch == '\n' || ch == '\r') {
                /* Soft line break: backslash + one newline of any convention vanish. */
                char other = ch == '\n' ? '\r' : '\n';
                p->pos++;
                if (p->pos < p->len && p->s[p->pos] == other)
                    p->pos++;
                continue;
            }
        }
        if (ch == '\0')
            return parse_error(p, p->pos, "NUL byte inside a property value (binary data?)");
        if (!buf_put(p, ch))
            return false;
        p->pos++;
    }
    p->pos++;
    if (!charge(p, sizeof(char *) + p->buf_len + 1))
        return false;
    if (!value_add(pr, p->buf ? p->buf : "", p->buf_len))
        return parse_error(p, open, "out of memory");
    return true;
}

/* Reads an identifier and its values at p->pos into the current node. Lowercase letters are
 * dropped, as FF[1-3] spelled identifiers like "AddBlack". */
static bool parse_property(parser *p)
{
    size_t start = p->pos;
    char ident[GO_SGF_MAX_IDENT];
    size_t n = 0;
    while (p->pos < p->len && (is_upper((unsigned char)p->s[p->pos]) ||
                               is_lower((unsigned char)p->s[p->pos]))) {
        char ch = p->s[p->pos++];
        if (!is_upper((unsigned char)ch))
            continue;
        if (n == sizeof ident)
            return parse_error(p, start, "property identifier longer than %d letters",
                               GO_SGF_MAX_IDENT);
        ident[n++] = ch;
    }
    if (n == 0)
        return parse_error(p, start, "property identifier '%.*s' has no upper-case letter",
                           (int)(p->pos - start < 20 ? p->pos - start : 20), p->s + start);
    if (!charge(p, sizeof(go_sgf_prop) + n + 1))
        return false;
    go_sgf_prop *pr = prop_add(p->cur, ident, n);
    if (!pr)
        return parse_error(p, start, "out of memory");
    skip_space(p);
    if (p->pos >= p->len || p->s[p->pos] != '[')
        return parse_error(p, start, "property %s has no value (expected '[')", pr->ident);
    while (p->pos < p->len && p->s[p->pos] == '[') {
        if (!parse_value(p, pr))
            return false;
        skip_space(p);
    }
    return true;
}

static bool open_tree_push(parser *p)
{
    if (p->depth == GO_SGF_MAX_DEPTH)
        return parse_error(p, p->pos, "variations nested deeper than %d levels",
                           GO_SGF_MAX_DEPTH);
    if (p->depth == p->stack_cap) {
        int cap = p->stack_cap ? p->stack_cap * 2 : 16;
        open_tree *s = realloc(p->stack, sizeof *s * (size_t)cap);
        if (!s)
            return parse_error(p, p->pos, "out of memory");
        p->stack = s;
        p->stack_cap = cap;
    }
    p->stack[p->depth++] = (open_tree){p->pos, p->cur, false};
    p->cur = NULL;
    p->pos++;
    return true;
}

static bool open_tree_pop(parser *p)
{
    if (p->depth == 0)
        return parse_error(p, p->pos, "unbalanced ')': no game tree is open");
    if (!p->cur)
        return parse_error(p, p->pos, "empty game tree: expected ';' after '('");
    p->cur = p->stack[--p->depth].parent;
    if (p->depth > 0)
        p->stack[p->depth - 1].has_variations = true;
    p->pos++;
    return true;
}

static bool start_node(parser *p)
{
    go_sgf_node *parent = p->cur ? p->cur : p->stack[p->depth - 1].parent;
    if (!charge(p, sizeof(go_sgf_node) + sizeof(go_sgf_node *)))
        return false;
    go_sgf_node *n = node_add(parent);
    if (!n)
        return parse_error(p, p->pos, "out of memory");
    if (!parent && !game_add(p->c, n)) {
        tree_free(n);
        return parse_error(p, p->pos, "out of memory");
    }
    p->cur = n;
    p->pos++;
    return true;
}

/* One token at p->pos (whitespace already skipped). The grammar is FF[4]'s:
 * Collection = GameTree+, GameTree = "(" Node+ GameTree* ")", Node = ";" Property*. */
static bool parse_token(parser *p)
{
    unsigned char ch = (unsigned char)p->s[p->pos];
    char what[40];
    if (ch == ')')
        return open_tree_pop(p);
    if (p->depth == 0) {
        if (ch == '(')
            return open_tree_push(p);
        return parse_error(p, p->pos, "expected '(' to start a game tree, found %s",
                           describe_byte(ch, what, sizeof what));
    }
    if (!p->cur && ch != ';')
        return parse_error(p, p->pos, "expected ';' after '(', found %s",
                           describe_byte(ch, what, sizeof what));
    if (ch == '(')
        return open_tree_push(p);
    if (ch == '[')
        return parse_error(p, p->pos, "property value without identifier");
    if (ch != ';' && !is_upper(ch) && !is_lower(ch))
        return parse_error(p, p->pos, "unexpected %s", describe_byte(ch, what, sizeof what));
    if (p->stack[p->depth - 1].has_variations)
        return parse_error(p, p->pos, "%s after variations: expected '(' or ')'",
                           ch == ';' ? "node" : "property");
    return ch == ';' ? start_node(p) : parse_property(p);
}

go_sgf_collection *go_sgf_parse(const char *data, size_t len, char *err, int err_len)
{
    if (len > GO_SGF_MAX_BYTES) {
        set_err(err, err_len, "line 1, column 1: input of %zu bytes exceeds the %zu MiB limit",
                len, GO_SGF_MAX_BYTES >> 20);
        return NULL;
    }
    parser p = {.s = data, .len = data ? len : 0, .err = err, .err_len = err_len};
    p.c = calloc(1, sizeof *p.c);
    if (!p.c) {
        set_err(err, err_len, "line 1, column 1: out of memory");
        return NULL;
    }
    if (p.len >= 3 && !memcmp(p.s, "\xef\xbb\xbf", 3))
        p.pos = 3;
    bool ok = true;
    for (;;) {
        skip_space(&p);
        if (p.pos >= p.len)
            break;
        if (!(ok = parse_token(&p)))
            break;
    }
    if (ok && p.depth > 0)
        ok = parse_error(&p, p.stack[p.depth - 1].pos, "'(' is never closed: missing ')'");
    if (ok && p.c->num_games == 0)
        ok = parse_error(&p, p.pos, "no game tree found (empty input)");
    free(p.stack);
    free(p.buf);
    if (!ok) {
        go_sgf_free(p.c);
        return NULL;
    }
    return p.c;
}

go_sgf_collection *go_sgf_read_file(const char *path, char *err, int err_len)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        set_err(err, err_len, "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    /* A regular file's size is known up front; pipes and growing files are bounded by reading
     * in chunks up to one byte past the limit. */
    struct stat st;
    bool too_big = fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) &&
                   (unsigned long long)st.st_size > GO_SGF_MAX_BYTES;
    size_t len = 0, cap = 0;
    char *data = NULL;
    int read_errno = 0;
    while (!too_big) {
        if (len == cap) {
            if (cap > GO_SGF_MAX_BYTES) {
                too_big = true;
                break;
            }
            size_t ncap = cap ? cap * 2 : 65536;
            if (ncap > GO_SGF_MAX_BYTES + 1)
                ncap = GO_SGF_MAX_BYTES + 1;
            char *d = realloc(data, ncap);
            if (!d) {
                free(data);
                fclose(f);
                set_err(err, err_len, "%s: out of memory", path);
                return NULL;
            }
            data = d;
            cap = ncap;
        }
        size_t got = fread(data + len, 1, cap - len, f);
        len += got;
        if (got == 0) {
            read_errno = ferror(f) ? errno : 0;
            break;
        }
    }
    fclose(f);
    if (too_big || len > GO_SGF_MAX_BYTES || read_errno) {
        free(data);
        if (read_errno)
            set_err(err, err_len, "%s: cannot read: %s", path, strerror(read_errno));
        else
            set_err(err, err_len, "%s: file larger than the %zu MiB limit for SGF", path,
                    GO_SGF_MAX_BYTES >> 20);
        return NULL;
    }
    char msg[300];
    go_sgf_collection *c = go_sgf_parse(data, len, msg, sizeof msg);
    free(data);
    if (!c)
        set_err(err, err_len, "%s: %s", path, msg);
    return c;
}

/* ------------------------------------------------------------------------------------------ */
/* Writer                                                                                      */

typedef struct strbuf {
    char *s;
    size_t len, cap;
    size_t line_start;   /* offset of the current line, for wrapping */
    bool oom;
} strbuf;

static void sb_putn(strbuf *b, const char *s, size_t n)
{
    if (b->oom)
        return;
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (b->len + n + 1 > cap)
            cap *= 2;
        char *d = realloc(b->s, cap);
        if (!d) {
            b->oom = true;
            return;
        }
        b->s = d;
        b->cap = cap;
    }
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = '\0';
}

static void sb_puts(strbuf *b, const char *s) { sb_putn(b, s, strlen(s)); }

static void sb_newline(strbuf *b)
{
    sb_puts(b, "\n");
    b->line_start = b->len;
}

/* Wraps between nodes and before variations so that long lines stay readable in an editor. */
static void sb_wrap(strbuf *b)
{
    if (b->len - b->line_start > 72)
        sb_newline(b);
}

static void write_value(strbuf *b, const char *v)
{
    sb_puts(b, "[");
    for (const char *run = v;;) {
        size_t n = strcspn(run, "]\\");
        sb_putn(b, run, n);
        if (!run[n])
            break;
        char esc[2] = {'\\', run[n]};
        sb_putn(b, esc, 2);
        run += n + 1;
    }
    sb_puts(b, "]");
}

static void write_node(strbuf *b, const go_sgf_node *n)
{
    if (b->len > 0 && b->s[b->len - 1] != '(')
        sb_wrap(b);
    sb_puts(b, ";");
    for (int i = 0; i < n->num_props; i++) {
        sb_puts(b, n->props[i].ident);
        for (int j = 0; j < n->props[i].num_values; j++)
            write_value(b, n->props[i].values[j]);
    }
    if (!n->parent)
        sb_newline(b);
}

/* Writes one game tree in pre-order with an explicit stack of branching nodes, each with the
 * index of its next variation to write. */
static bool write_tree(strbuf *b, const go_sgf_node *root)
{
    typedef struct {
        const go_sgf_node *node;
        int next;
    } branch;
    branch *stack = NULL;
    int depth = 0, cap = 0;
    const go_sgf_node *n = root;
    sb_puts(b, "(");
    while (n) {
        write_node(b, n);
        if (n->num_children == 1) {
            n = n->children[0];
            continue;
        }
        if (n->num_children > 1) {
            if (depth == cap) {
                cap = cap ? cap * 2 : 16;
                branch *s = realloc(stack, sizeof *s * (size_t)cap);
                if (!s) {
                    free(stack);
                    return false;
                }
                stack = s;
            }
            stack[depth++] = (branch){n, 1};
            sb_wrap(b);
            sb_puts(b, "(");
            n = n->children[0];
            continue;
        }
        /* A leaf ends its variation; resume at the innermost branch with variations left. */
        sb_puts(b, ")");
        n = NULL;
        while (depth > 0 && !n) {
            branch *top = &stack[depth - 1];
            if (top->next < top->node->num_children) {
                sb_wrap(b);
                sb_puts(b, "(");
                n = top->node->children[top->next++];
            } else {
                depth--;
                sb_puts(b, ")");
            }
        }
    }
    free(stack);
    return true;
}

char *go_sgf_write(const go_sgf_collection *c)
{
    strbuf b = {0};
    sb_puts(&b, "");
    for (int i = 0; c && i < c->num_games && !b.oom; i++) {
        if (!write_tree(&b, c->games[i]))
            b.oom = true;
        sb_newline(&b);
    }
    if (b.oom) {
        free(b.s);
        return NULL;
    }
    return b.s;
}

/* ------------------------------------------------------------------------------------------ */
/* Game information and replay                                                                 */

/* Parses a whole decimal integer (surrounding spaces allowed) into *out. */
static bool parse_int(const char *s, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (end == s || errno)
        return false;
    while (is_space((unsigned char)*end))
        end++;
    if (*end || v < lo || v > hi)
        return false;
    *out = v;
    return true;
}

/* Copies src into dst of cap bytes, cutting at a UTF-8 character boundary when truncating. */
static void copy_text(char *dst, size_t cap, const char *src)
{
    size_t n = src ? strlen(src) : 0;
    if (n >= cap) {
        n = cap - 1;
        while (n > 0 && ((unsigned char)src[n] & 0xc0) == 0x80)
            n--;
    }
    if (n)
        memcpy(dst, src, n);
    dst[n] = '\0';
}

static bool is_blank(const char *s)
{
    while (is_space((unsigned char)*s))
        s++;
    return *s == '\0';
}

bool go_sgf_info_read(const go_sgf_node *root, go_sgf_info *info, char *err, int err_len)
{
    memset(info, 0, sizeof *info);
    info->size = info->width = info->height = 19;
    const char *v;
    long n;
    if ((v = go_sgf_get(root, "GM")) && !(parse_int(v, 1, 1, &n))) {
        set_err(err, err_len, "GM[%.20s]: not a game of Go (GM[1])", v);
        return false;
    }
    if ((v = go_sgf_get(root, "SZ"))) {
        char cols[24], *colon;
        copy_text(cols, sizeof cols, v);
        long w, h = 0;
        if ((colon = strchr(cols, ':')))
            *colon = '\0';
        if (strlen(v) >= sizeof cols || !parse_int(cols, -1000000, 1000000, &w) ||
            (colon && !parse_int(colon + 1, -1000000, 1000000, &h))) {
            set_err(err, err_len, "SZ[%.20s]: not a board size", v);
            return false;
        }
        if (!colon)
            h = w;
        if (w < GO_MIN_SIZE || w > GO_MAX_SIZE || h < GO_MIN_SIZE || h > GO_MAX_SIZE) {
            char dims[48];
            snprintf(dims, sizeof dims, colon ? "%ldx%ld" : "%ld", w, h);
            set_err(err, err_len, "SZ[%.20s]: board size %s is not supported (%d..%d)", v, dims,
                    GO_MIN_SIZE, GO_MAX_SIZE);
            return false;
        }
        info->width = (int)w;
        info->height = (int)h;
        info->size = (int)(w > h ? w : h);
    }
    if ((v = go_sgf_get(root, "KM")) && !is_blank(v)) {
        char *end;
        double km = strtod(v, &end);
        while (is_space((unsigned char)*end))
            end++;
        if (end == v || *end || !isfinite(km) || fabs(km) > 1000) {
            set_err(err, err_len, "KM[%.20s]: komi is not a number of points", v);
            return false;
        }
        info->komi = (float)km;
    }
    if ((v = go_sgf_get(root, "HA")) && !is_blank(v)) {
        if (!parse_int(v, 0, (long)info->width * info->height, &n)) {
            set_err(err, err_len, "HA[%.20s]: not a handicap for a %dx%d board", v, info->width,
                    info->height);
            return false;
        }
        info->handicap = (int)n;
    }
    copy_text(info->rules, sizeof info->rules, go_sgf_get(root, "RU"));
    copy_text(info->black, sizeof info->black, go_sgf_get(root, "PB"));
    copy_text(info->white, sizeof info->white, go_sgf_get(root, "PW"));
    copy_text(info->result, sizeof info->result, go_sgf_get(root, "RE"));
    return true;
}

/* KataGo writes custom rules as "koPOSITIONALscoreAREAtaxNONEsui1[button1]whbNfpok1": lowercase
 * keys each followed by an upper-case or numeric value. */
static bool rules_from_katago(const char *s, go_rules *out)
{
    static const struct {
        const char *sgf, *key;
    } keys[] = {{"ko", "ko"},         {"score", "scoring"},          {"tax", "tax"},
                {"sui", "suicide"},   {"button", "button"},          {"whb", "whiteHandicapBonus"},
                {"fpok", "friendlyPassOk"}};
    go_rules r;
    go_rules_preset(&r, "tromp-taylor");
    unsigned seen = 0;
    while (*s) {
        char key[16], val[16];
        size_t k = 0, v = 0;
        while (is_lower((unsigned char)*s) && k < sizeof key - 1)
            key[k++] = *s++;
        while (*s && !is_lower((unsigned char)*s) && v < sizeof val - 1)
            val[v++] = *s++;
        key[k] = val[v] = '\0';
        size_t i = 0;
        while (i < sizeof keys / sizeof keys[0] && strcmp(keys[i].sgf, key))
            i++;
        if (i == sizeof keys / sizeof keys[0] || !go_rules_set(&r, keys[i].key, val))
            return false;
        seen |= 1u << i;
    }
    /* KataGo always writes ko, score, tax and sui; anything less is not its format. */
    if ((seen & 0xf) != 0xf)
        return false;
    *out = r;
    return true;
}

static void rules_to_katago(const go_rules *r, char *buf, size_t len)
{
    snprintf(buf, len, "ko%sscore%stax%ssui%d%swhb%sfpok%d", go_ko_rule_name(r->ko),
             go_scoring_rule_name(r->scoring), go_tax_rule_name(r->tax),
             r->multi_stone_suicide ? 1 : 0, r->button ? "button1" : "",
             go_whb_rule_name(r->white_handicap_bonus), r->friendly_pass_ok ? 1 : 0);
}

/* Two lowercase letters inside the board -> point, else GO_NO_POINT. */
static int sgf_point(const char *v, size_t len, const go_sgf_info *info)
{
    if (len != 2 || !is_lower((unsigned char)v[0]) || !is_lower((unsigned char)v[1]))
        return GO_NO_POINT;
    int x = v[0] - 'a', y = v[1] - 'a';
    if (x >= info->width || y >= info->height)
        return GO_NO_POINT;
    return go_point_at(x, y);
}

static void point_text(int p, char out[3])
{
    out[0] = (char)('a' + go_point_x(p));
    out[1] = (char)('a' + go_point_y(p));
    out[2] = '\0';
}

const char *go_sgf_point_text(int p, char out[3])
{
    if (p == GO_PASS)
        out[0] = '\0';
    else
        point_text(p, out);
    return out;
}

/* The side to move a reader infers when PL is absent: white after handicap stones. Shared by the
 * reader and the writer so that PL is written exactly when it carries information. */
static go_color implied_to_move(int handicap, bool black_setup)
{
    return handicap >= 2 && black_setup ? GO_WHITE : GO_BLACK;
}

typedef struct replay {
    go_game *g;
    const go_sgf_info *info;
    uint8_t setup[GO_POINTS]; /* wanted colour of each point before the first move */
    go_color pl;              /* PL seen before the first move, GO_EMPTY if none */
    bool setup_done;
    int node, moves;
    char *err;
    int err_len;
} replay;

static bool replay_error(replay *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static bool replay_error(replay *r, const char *fmt, ...)
{
    char reason[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(reason, sizeof reason, fmt, ap);
    va_end(ap);
    set_err(r->err, r->err_len, "node %d: %s", r->node, reason);
    return false;
}

/* Applies AB/AW/AE values ("ab" or a compressed rectangle "aa:cc") to the wanted setup. */
static bool replay_setup_prop(replay *r, const go_sgf_prop *pr, go_color c)
{
    int w = r->info->width, h = r->info->height;
    for (int i = 0; i < pr->num_values; i++) {
        const char *v = pr->values[i];
        if (is_blank(v))
            continue;
        const char *colon = strchr(v, ':');
        int a = sgf_point(v, colon ? (size_t)(colon - v) : strlen(v), r->info);
        int b = colon ? sgf_point(colon + 1, strlen(colon + 1), r->info) : a;
        if (a == GO_NO_POINT || b == GO_NO_POINT)
            return replay_error(r, "%s[%.20s]: not a point or rectangle of the %dx%d board",
                                pr->ident, v, w, h);
        int x0 = go_point_x(a), x1 = go_point_x(b), y0 = go_point_y(a), y1 = go_point_y(b);
        if (x0 > x1) {
            int t = x0;
            x0 = x1;
            x1 = t;
        }
        if (y0 > y1) {
            int t = y0;
            y0 = y1;
            y1 = t;
        }
        for (int y = y0; y <= y1; y++)
            for (int x = x0; x <= x1; x++)
                r->setup[go_point_at(x, y)] = (uint8_t)c;
    }
    return true;
}

/* Puts the wanted setup on the board before the first move (or at the end of the line). */
static bool replay_apply_setup(replay *r)
{
    go_game *g = r->g;
    int w = r->info->width, h = r->info->height;
    bool black = false;
    r->setup_done = true;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            int p = go_point_at(x, y);
            if (r->setup[p] == GO_EMPTY)
                continue;
            black |= r->setup[p] == GO_BLACK;
            if (!go_game_setup_stone(g, p, (go_color)r->setup[p]))
                return replay_error(r, "cannot place a setup stone");
        }
    /* go_board_place makes no captures, so an impossible setup would leave a dead chain on the
     * board and break the liberty invariants the game relies on. */
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            int p = go_point_at(x, y);
            if (g->board.color[p] != GO_EMPTY && go_board_libs(&g->board, p) == 0) {
                char t[3];
                point_text(p, t);
                return replay_error(r, "setup stones at %s have no liberties", t);
            }
        }
    go_color to_move = r->pl ? r->pl : implied_to_move(r->info->handicap, black);
    if (to_move != g->board.to_move)
        go_game_set_to_move(g, to_move);
    return true;
}

/* Setup (AB, AW, AE) and PL of one node. */
static bool replay_node_setup(replay *r, const go_sgf_node *n)
{
    for (int i = 0; i < n->num_props; i++) {
        const go_sgf_prop *pr = &n->props[i];
        go_color c;
        if (!strcmp(pr->ident, "AB"))
            c = GO_BLACK;
        else if (!strcmp(pr->ident, "AW"))
            c = GO_WHITE;
        else if (!strcmp(pr->ident, "AE"))
            c = GO_EMPTY;
        else if (!strcmp(pr->ident, "PL")) {
            const char *v = pr->values[0];
            if (strcmp(v, "B") && strcmp(v, "W") && strcmp(v, "b") && strcmp(v, "w"))
                return replay_error(r, "PL[%.20s]: expected B or W", v);
            go_color pl = (v[0] == 'B' || v[0] == 'b') ? GO_BLACK : GO_WHITE;
            /* After the first move, only a real change is applied: go_game_set_to_move also
             * lifts the ko ban, which a redundant PL must not do. */
            if (!r->setup_done)
                r->pl = pl;
            else if (pl != r->g->board.to_move)
                go_game_set_to_move(r->g, pl);
            continue;
        } else {
            continue;
        }
        if (r->setup_done)
            return replay_error(r, "%s after the first move is not supported", pr->ident);
        if (!replay_setup_prop(r, pr, c))
            return false;
    }
    return true;
}

/* The B or W property of n (NULL if none); fails when a node has both. */
static bool find_move(replay *r, const go_sgf_node *n, const go_sgf_prop **move)
{
    *move = NULL;
    for (int i = 0; i < n->num_props; i++) {
        const go_sgf_prop *pr = &n->props[i];
        if (strcmp(pr->ident, "B") && strcmp(pr->ident, "W"))
            continue;
        if (*move)
            return replay_error(r, "more than one move (%s and %s) in one node", (*move)->ident,
                                pr->ident);
        *move = pr;
    }
    return true;
}

static bool replay_move(replay *r, const go_sgf_prop *mv)
{
    const char *v = mv->values[0];
    go_color c = mv->ident[0] == 'B' ? GO_BLACK : GO_WHITE;
    int p;
    if (mv->num_values != 1)
        return replay_error(r, "%s has %d values", mv->ident, mv->num_values);
    if (v[0] == '\0' || !strcmp(v, "tt")) /* "tt": a pass on boards up to 19x19 (FF[3]) */
        p = GO_PASS;
    else if ((p = sgf_point(v, strlen(v), r->info)) == GO_NO_POINT)
        return replay_error(r, "%s[%.20s]: not a point of the %dx%d board", mv->ident, v,
                            r->info->width, r->info->height);
    go_move_status st = go_game_play(r->g, p, c);
    if (st != GO_MOVE_OK)
        return replay_error(r, "move %d %s[%s]: %s", r->moves + 1, mv->ident, v,
                            go_move_status_text(st));
    r->moves++;
    return true;
}

static bool replay_line(replay *r, const go_sgf_node *root, int move_limit)
{
    for (const go_sgf_node *n = root; n; n = n->num_children ? n->children[0] : NULL) {
        const go_sgf_prop *mv;
        if (!find_move(r, n, &mv))
            return false;
        if (mv && move_limit >= 0 && r->moves >= move_limit)
            break;
        if (!replay_node_setup(r, n))
            return false;
        if (mv) {
            if (!r->setup_done && !replay_apply_setup(r))
                return false;
            if (!replay_move(r, mv))
                return false;
        }
        r->node++;
    }
    return r->setup_done || replay_apply_setup(r);
}

bool go_sgf_to_game(const go_sgf_node *root, int move_limit, go_game *g, char *err, int err_len)
{
    go_sgf_info info;
    if (!go_sgf_info_read(root, &info, err, err_len))
        return false;
    go_rules rules;
    const char *ru = go_sgf_get(root, "RU");
    bool known = ru && (go_rules_preset(&rules, ru) || rules_from_katago(ru, &rules));
    if (!go_game_init_rect(g, info.width, info.height, known ? &rules : NULL, info.komi)) {
        set_err(err, err_len, "out of memory");
        return false;
    }
    replay r = {.g = g, .info = &info, .err = err, .err_len = err_len};
    if (!replay_line(&r, root, move_limit)) {
        go_game_free(g);
        return false;
    }
    g->handicap = info.handicap;
    return true;
}

/* ------------------------------------------------------------------------------------------ */
/* Game -> tree                                                                                */

/* Shortest decimal form of komi that reads back as the same float. */
static void komi_text(float komi, char *buf, size_t len)
{
    for (int prec = 1; prec <= 9; prec++) {
        snprintf(buf, len, "%.*g", prec, (double)komi);
        if (strtof(buf, NULL) == komi)
            return;
    }
}

/* AB or AW listing every stone of colour c on the setup board (nothing if there are none). */
static bool setup_prop(go_sgf_node *root, const go_board *b, go_color c, bool *any)
{
    go_sgf_prop *pr = NULL;
    for (int y = 0; y < b->height; y++)
        for (int x = 0; x < b->width; x++) {
            int p = go_point_at(x, y);
            if (b->color[p] != c)
                continue;
            if (!pr && !(pr = prop_add(root, c == GO_BLACK ? "AB" : "AW", 2)))
                return false;
            char t[3];
            point_text(p, t);
            if (!value_add(pr, t, 2))
                return false;
        }
    *any = pr != NULL;
    return true;
}

static bool from_game_root(go_sgf_node *root, const go_game *g)
{
    char buf[96];
    bool ok = prop_set(root, "FF", "4") && prop_set(root, "GM", "1") &&
              prop_set(root, "CA", "UTF-8") && prop_set(root, "AP", "shido");
    if (go_board_square(&g->board))
        snprintf(buf, sizeof buf, "%d", g->board.size);
    else
        snprintf(buf, sizeof buf, "%d:%d", g->board.width, g->board.height);
    ok = ok && prop_set(root, "SZ", buf);
    komi_text(g->komi, buf, sizeof buf);
    ok = ok && prop_set(root, "KM", buf);
    const char *name = go_rules_name(&g->rules);
    if (name)
        snprintf(buf, sizeof buf, "%s", name);
    else
        rules_to_katago(&g->rules, buf, sizeof buf);
    ok = ok && prop_set(root, "RU", buf);
    if (ok && g->handicap > 0) {
        snprintf(buf, sizeof buf, "%d", g->handicap);
        ok = prop_set(root, "HA", buf);
    }
    bool black = false, white = false;
    ok = ok && setup_prop(root, &g->setup, GO_BLACK, &black) &&
         setup_prop(root, &g->setup, GO_WHITE, &white);
    if (ok && g->setup.to_move != implied_to_move(g->handicap, black))
        ok = prop_set(root, "PL", g->setup.to_move == GO_WHITE ? "W" : "B");
    return ok;
}

go_sgf_collection *go_sgf_from_game(const go_game *g)
{
    go_sgf_collection *c = calloc(1, sizeof *c);
    go_sgf_node *root = c ? node_add(NULL) : NULL;
    if (!root || !game_add(c, root)) {
        free(root);
        free(c);
        return NULL;
    }
    bool ok = from_game_root(root, g);
    go_sgf_node *n = root;
    for (int i = 0; ok && i < g->num_moves; i++) {
        char t[3] = "";
        if (g->moves[i].point != GO_PASS)
            point_text(g->moves[i].point, t);
        ok = (n = node_add(n)) && prop_set(n, g->moves[i].color == GO_BLACK ? "B" : "W", t);
    }
    /* A side to move set after the last move is not implied by the moves; FF[4] wants setup
     * properties such as PL in a node of their own. */
    if (ok && g->num_moves > 0 && g->board.to_move == g->moves[g->num_moves - 1].color)
        ok = (n = node_add(n)) && prop_set(n, "PL", g->board.to_move == GO_WHITE ? "W" : "B");
    if (!ok) {
        go_sgf_free(c);
        return NULL;
    }
    return c;
}
