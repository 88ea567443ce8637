/* go/tacmap.c -- tactical maps: parser, printer, depth, decomposition, evaluation, uniform
 * random generation. */
#include "go/tacmap.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "go/playout.h"

static const char *leaf_names[GO_TM_NUM_LEAVES] = {"b", "w", "black", "white", "empty", "H"};
/* Counting operators in the order of go_tm_op from GO_TM_PRE. */
static const char *count_names[6] = {"Pre", "Suc", "Adj", "nPre", "nSuc", "nAdj"};

#define NUM_UNARY 31  /* complement + 6 counting operators x 5 thresholds */
#define NUM_BINARY 3

static bool is_leaf(int op) { return op < GO_TM_NOT; }
static bool is_binary(int op) { return op >= GO_TM_UNION; }

/* ---- parsing ---- */

typedef struct parser {
    const char *text;
    int pos;
    int nesting;
    go_tmap *m;
    char *err;
    int err_len;
    bool failed;
} parser;

static int fail(parser *p, const char *fmt, ...)
{
    if (!p->failed && p->err_len > 0) {
        int k = snprintf(p->err, (size_t)p->err_len, "column %d: ", p->pos + 1);
        va_list ap;
        va_start(ap, fmt);
        if (k >= 0 && k < p->err_len)
            vsnprintf(p->err + k, (size_t)(p->err_len - k), fmt, ap);
        va_end(ap);
    }
    p->failed = true;
    return -1;
}

static void skip_space(parser *p)
{
    while (isspace((unsigned char)p->text[p->pos]))
        p->pos++;
}

static int push(parser *p, int op, int n, int a, int b)
{
    if (p->m->num_nodes >= GO_TM_MAX_NODES)
        return fail(p, "map has more than %d nodes", GO_TM_MAX_NODES);
    go_tm_node *nd = &p->m->node[p->m->num_nodes];
    nd->op = (uint8_t)op;
    nd->n = (uint8_t)n;
    nd->a = (int16_t)a;
    nd->b = (int16_t)b;
    return p->m->num_nodes++;
}

static int parse_expr(parser *p);

static int parse_factor(parser *p)
{
    skip_space(p);
    /* Each level of nesting costs a few C stack frames; the depth check after parsing cannot
     * protect the stack from "((((((...", so nesting is bounded here. */
    if (++p->nesting > 4 * GO_TM_MAX_DEPTH)
        return fail(p, "nested deeper than %d", 4 * GO_TM_MAX_DEPTH);
    int r;
    char c = p->text[p->pos];
    if (c == '~') {
        p->pos++;
        int a = parse_factor(p);
        r = a < 0 ? -1 : push(p, GO_TM_NOT, 0, a, -1);
    } else if (c == '(') {
        p->pos++;
        r = parse_expr(p);
        skip_space(p);
        if (r >= 0 && p->text[p->pos] != ')')
            r = fail(p, "expected ')'");
        else if (r >= 0)
            p->pos++;
    } else if (isalpha((unsigned char)c)) {
        int start = p->pos;
        while (isalnum((unsigned char)p->text[p->pos]))
            p->pos++;
        int len = p->pos - start;
        const char *name = p->text + start;
        r = -2;
        for (int k = 0; k < GO_TM_NUM_LEAVES && r == -2; k++)
            if ((int)strlen(leaf_names[k]) == len && !strncmp(name, leaf_names[k], (size_t)len))
                r = push(p, k, 0, -1, -1);
        for (int k = 0; k < 6 && r == -2; k++) {
            int nl = (int)strlen(count_names[k]);
            if (len < nl || strncmp(name, count_names[k], (size_t)nl))
                continue;
            if (len != nl + 1 || name[nl] < '1' || name[nl] > '5') {
                p->pos = start + nl;
                char got = p->text[p->pos];
                r = isgraph((unsigned char)got)
                        ? fail(p, "%s needs a threshold 1..5, got '%c'", count_names[k], got)
                        : fail(p, "%s needs a threshold 1..5", count_names[k]);
                break;
            }
            skip_space(p);
            if (p->text[p->pos] != '(') {
                r = fail(p, "expected '(' after %.*s", len, name);
                break;
            }
            p->pos++;
            int a = parse_expr(p);
            skip_space(p);
            if (a >= 0 && p->text[p->pos] != ')') {
                r = fail(p, "expected ')' to close %.*s(", len, name);
            } else if (a < 0) {
                r = -1;
            } else {
                p->pos++;
                r = push(p, GO_TM_PRE + k, name[nl] - '0', a, -1);
            }
        }
        if (r == -2) {
            p->pos = start;
            r = fail(p, "unknown name '%.*s'", len > 40 ? 40 : len, name);
        }
    } else if (c == 0) {
        r = fail(p, "unexpected end of map");
    } else {
        r = fail(p, "expected a map, got '%c'", c);
    }
    p->nesting--;
    return r;
}

static int parse_term(parser *p)
{
    int a = parse_factor(p);
    for (;;) {
        skip_space(p);
        if (a < 0 || p->text[p->pos] != '&')
            return a;
        p->pos++;
        int b = parse_factor(p);
        a = b < 0 ? -1 : push(p, GO_TM_INTER, 0, a, b);
    }
}

static int parse_expr(parser *p)
{
    int a = parse_term(p);
    for (;;) {
        skip_space(p);
        char c = p->text[p->pos];
        if (a < 0 || (c != '|' && c != '-'))
            return a;
        p->pos++;
        int b = parse_term(p);
        a = b < 0 ? -1 : push(p, c == '|' ? GO_TM_UNION : GO_TM_DIFF, 0, a, b);
    }
}

bool go_tm_parse(const char *text, go_tmap *m, char *err, int err_len)
{
    parser p = {text, 0, 0, m, err, err_len, false};
    m->num_nodes = 0;
    if (err_len > 0)
        err[0] = 0;
    int root = parse_expr(&p);
    skip_space(&p);
    if (root >= 0 && text[p.pos] != 0)
        fail(&p, "unexpected '%c' after the map", text[p.pos]);
    if (p.failed)
        return false;
    if (go_tm_depth(m) > GO_TM_MAX_DEPTH) {
        p.pos = 0;
        fail(&p, "map is deeper than %d", GO_TM_MAX_DEPTH);
        return false;
    }
    return true;
}

/* ---- printing ---- */

typedef struct out {
    char *buf;
    int len, used;
    bool overflow;
} out;

static void put(out *o, const char *s)
{
    for (; *s; s++) {
        if (o->used + 1 < o->len)
            o->buf[o->used] = *s;
        else
            o->overflow = true;
        o->used++;
    }
}

static int prec(int op) { return op == GO_TM_INTER ? 2 : is_binary(op) ? 1 : 3; }

static void print_rec(const go_tmap *m, int i, int parent_prec, bool right, out *o)
{
    const go_tm_node *nd = &m->node[i];
    if (is_leaf(nd->op)) {
        put(o, leaf_names[nd->op]);
    } else if (nd->op == GO_TM_NOT) {
        put(o, "~");
        print_rec(m, nd->a, 3, false, o);
    } else if (!is_binary(nd->op)) {
        char name[8];
        snprintf(name, sizeof name, "%s%d(", count_names[nd->op - GO_TM_PRE], nd->n);
        put(o, name);
        print_rec(m, nd->a, 0, false, o);
        put(o, ")");
    } else {
        int p = prec(nd->op);
        bool paren = p < parent_prec || (p == parent_prec && right);
        if (paren)
            put(o, "(");
        print_rec(m, nd->a, p, false, o);
        put(o, nd->op == GO_TM_UNION ? " | " : nd->op == GO_TM_INTER ? " & " : " - ");
        print_rec(m, nd->b, p, true, o);
        if (paren)
            put(o, ")");
    }
}

int go_tm_print_node(const go_tmap *m, int node, char *buf, int len)
{
    out o = {buf, len, 0, false};
    print_rec(m, node, 0, false, &o);
    if (len > 0)
        buf[o.used < len ? o.used : len - 1] = 0;
    return o.overflow || o.used >= len ? -1 : o.used;
}

int go_tm_print(const go_tmap *m, char *buf, int len)
{
    return go_tm_print_node(m, m->num_nodes - 1, buf, len);
}

/* ---- structure ---- */

int go_tm_node_depth(const go_tmap *m, int node)
{
    /* Post-order: one pass computes every node's depth without recursion. */
    int depth[GO_TM_MAX_NODES];
    for (int i = 0; i <= node; i++) {
        const go_tm_node *nd = &m->node[i];
        int d = nd->a >= 0 ? depth[nd->a] : 0;
        if (nd->b >= 0 && depth[nd->b] > d)
            d = depth[nd->b];
        depth[i] = d + 1;
    }
    return depth[node];
}

int go_tm_depth(const go_tmap *m) { return m->num_nodes ? go_tm_node_depth(m, m->num_nodes - 1) : 0; }

static bool equal_rec(const go_tmap *x, int i, const go_tmap *y, int j)
{
    const go_tm_node *a = &x->node[i], *b = &y->node[j];
    if (a->op != b->op || a->n != b->n)
        return false;
    if (is_leaf(a->op))
        return true;
    if (!equal_rec(x, a->a, y, b->a))
        return false;
    return !is_binary(a->op) || equal_rec(x, a->b, y, b->b);
}

bool go_tm_equal(const go_tmap *a, const go_tmap *b)
{
    if (a->num_nodes != b->num_nodes)
        return false;
    return a->num_nodes == 0 || equal_rec(a, a->num_nodes - 1, b, b->num_nodes - 1);
}

static void components_rec(const go_tmap *m, int i, int *nodes, int max, int *count)
{
    if (m->node[i].op == GO_TM_INTER) {
        components_rec(m, m->node[i].a, nodes, max, count);
        components_rec(m, m->node[i].b, nodes, max, count);
        return;
    }
    if (*count < max)
        nodes[*count] = i;
    (*count)++;
}

int go_tm_components(const go_tmap *m, int *nodes, int max)
{
    int count = 0;
    if (m->num_nodes)
        components_rec(m, m->num_nodes - 1, nodes, max, &count);
    return count;
}

static int extract_rec(const go_tmap *m, int i, go_tmap *o)
{
    go_tm_node nd = m->node[i];
    if (nd.a >= 0)
        nd.a = (int16_t)extract_rec(m, nd.a, o);
    if (nd.b >= 0)
        nd.b = (int16_t)extract_rec(m, nd.b, o);
    o->node[o->num_nodes] = nd;
    return o->num_nodes++;
}

void go_tm_extract(const go_tmap *m, int node, go_tmap *out_map)
{
    out_map->num_nodes = 0;
    extract_rec(m, node, out_map);
}

/* ---- evaluation ---- */

void go_tm_leaves_init(go_tm_leaves *l, const go_bw *g)
{
    l->v[GO_TM_B] = g->b;
    l->v[GO_TM_W] = g->w;
    l->v[GO_TM_BLACK] = go_bw_black(g);
    l->v[GO_TM_WHITE] = go_bw_white(g);
    l->v[GO_TM_EMPTY] = go_bw_empty(g);
    l->v[GO_TM_ATARI] = go_bw_atari(g);
}

go_bb go_tm_eval(const go_tmap *m, const go_bw *g, const go_tm_leaves *l)
{
    go_bb v[GO_TM_MAX_NODES];
    for (int i = 0; i < m->num_nodes; i++) {
        const go_tm_node *nd = &m->node[i];
        switch (nd->op) {
        case GO_TM_NOT: v[i] = go_bb_not(v[nd->a], g->all); break;
        case GO_TM_PRE:
        case GO_TM_NPRE: go_bw_pre_to(g, &v[nd->a], nd->n, &v[i]); break;
        case GO_TM_SUC:
        case GO_TM_NSUC: go_bw_suc_to(g, &v[nd->a], nd->n, &v[i]); break;
        case GO_TM_ADJ:
        case GO_TM_NADJ: go_bw_adj_to(g, &v[nd->a], nd->n, &v[i]); break;
        case GO_TM_UNION: v[i] = go_bb_or(v[nd->a], v[nd->b]); break;
        case GO_TM_INTER: v[i] = go_bb_and(v[nd->a], v[nd->b]); break;
        case GO_TM_DIFF: v[i] = go_bb_andnot(v[nd->a], v[nd->b]); break;
        default: v[i] = l->v[nd->op]; break;
        }
        if (nd->op >= GO_TM_NPRE && nd->op <= GO_TM_NADJ)
            v[i] = go_bb_not(v[i], g->all);
    }
    return m->num_nodes ? v[m->num_nodes - 1] : go_bb_none();
}

/* ---- uniform random maps ---- */

double go_tm_count(int depth)
{
    double n = GO_TM_NUM_LEAVES;
    for (int d = 2; d <= depth; d++)
        n = GO_TM_NUM_LEAVES + NUM_UNARY * n + NUM_BINARY * n * n;
    return n;
}

static int random_rec(go_tmap *m, int depth, const double *count, uint64_t *rng)
{
    double u = (double)(go_rand_next(rng) >> 11) * 0x1.0p-53 * count[depth];
    uint64_t pick = go_rand_next(rng) >> 16;
    go_tm_node nd = {0, 0, -1, -1};
    if (depth == 1 || u < GO_TM_NUM_LEAVES) {
        nd.op = (uint8_t)(pick % GO_TM_NUM_LEAVES);
    } else if (u < GO_TM_NUM_LEAVES + NUM_UNARY * count[depth - 1]) {
        int k = (int)(pick % NUM_UNARY);
        nd.op = (uint8_t)(k == 0 ? GO_TM_NOT : GO_TM_PRE + (k - 1) / 5);
        nd.n = (uint8_t)(k == 0 ? 0 : (k - 1) % 5 + 1);
        nd.a = (int16_t)random_rec(m, depth - 1, count, rng);
    } else {
        nd.op = (uint8_t)(GO_TM_UNION + pick % NUM_BINARY);
        nd.a = (int16_t)random_rec(m, depth - 1, count, rng);
        nd.b = (int16_t)random_rec(m, depth - 1, count, rng);
    }
    m->node[m->num_nodes] = nd;
    return m->num_nodes++;
}

void go_tm_random(go_tmap *m, int max_depth, uint64_t *rng)
{
    double count[GO_TM_MAX_RANDOM_DEPTH + 1];
    if (max_depth < 1)
        max_depth = 1;
    if (max_depth > GO_TM_MAX_RANDOM_DEPTH)
        max_depth = GO_TM_MAX_RANDOM_DEPTH;
    for (int d = 1; d <= max_depth; d++)
        count[d] = go_tm_count(d);
    m->num_nodes = 0;
    random_rec(m, max_depth, count, rng);
}

static int grow_rec(go_tmap *m, int depth, uint64_t *rng)
{
    int k = (int)((go_rand_next(rng) >> 16) % (GO_TM_NUM_LEAVES + NUM_UNARY + NUM_BINARY));
    go_tm_node nd = {0, 0, -1, -1};
    if (depth == 1 || k < GO_TM_NUM_LEAVES) {
        nd.op = (uint8_t)(depth == 1 ? k % GO_TM_NUM_LEAVES : k);
    } else if (k < GO_TM_NUM_LEAVES + NUM_UNARY) {
        k -= GO_TM_NUM_LEAVES;
        nd.op = (uint8_t)(k == 0 ? GO_TM_NOT : GO_TM_PRE + (k - 1) / 5);
        nd.n = (uint8_t)(k == 0 ? 0 : (k - 1) % 5 + 1);
        nd.a = (int16_t)grow_rec(m, depth - 1, rng);
    } else {
        nd.op = (uint8_t)(GO_TM_UNION + k - GO_TM_NUM_LEAVES - NUM_UNARY);
        nd.a = (int16_t)grow_rec(m, depth - 1, rng);
        nd.b = (int16_t)grow_rec(m, depth - 1, rng);
    }
    m->node[m->num_nodes] = nd;
    return m->num_nodes++;
}

void go_tm_random_grow(go_tmap *m, int max_depth, uint64_t *rng)
{
    if (max_depth < 1)
        max_depth = 1;
    if (max_depth > GO_TM_MAX_RANDOM_DEPTH)
        max_depth = GO_TM_MAX_RANDOM_DEPTH;
    m->num_nodes = 0;
    grow_rec(m, max_depth, rng);
}
