/* tools/gtp_analyze.c -- the streaming analysis commands: lz-analyze, kata-analyze and their
 * genmove variants, in the formats Lizzie, Sabaki and LizGoban parse (see gtp.h). */
#include <math.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "teach/features.h"
#include "tools/gtp_internal.h"

typedef enum { DIALECT_LZ, DIALECT_KATA } dialect;

/* What one analysis command asked for. */
typedef struct analyze_req {
    dialect d;
    bool has_color;
    go_color color;
    int interval_cs;
    int min_moves, max_moves;
    bool ownership, ownership_stdev, moves_ownership, moves_ownership_stdev, pv_visits,
        pv_edge_visits, root_info, move_features, no_result_value;
    int num_filters;
    mcts_move_filter filters[MCTS_MAX_MOVE_FILTERS];
    bool filter_allow[MCTS_MAX_MOVE_FILTERS];
} analyze_req;

static bool parse_bool(const char *s, bool *out)
{
    if (!strcasecmp(s, "true") || !strcmp(s, "1"))
        *out = true;
    else if (!strcasecmp(s, "false") || !strcmp(s, "0"))
        *out = false;
    else
        return false;
    return true;
}

/* avoid|allow COLOR v1,v2,... UNTIL_DEPTH */
static bool parse_filter(gtp_engine *e, analyze_req *q, bool allow, char **argv, gtp_text *r)
{
    go_color c;
    int depth;
    if (!gtp_parse_color(argv[0], &c) || !gtp_parse_int(argv[2], &depth) || depth < 1)
        return gtp_fail(r, "syntax error: avoid/allow COLOR VERTICES UNTIL_DEPTH");
    char *list = strdup(argv[1]), *save = NULL;
    if (!list)
        return gtp_fail(r, "out of memory");
    bool ok = true;
    for (char *v = strtok_r(list, ",", &save); v && ok; v = strtok_r(NULL, ",", &save)) {
        int p = go_board_parse_vertex(&e->game.board, v);
        if (p == GO_NO_POINT) {
            ok = gtp_fail(r, "syntax error: bad vertex in avoid/allow");
        } else if (q->num_filters == MCTS_MAX_MOVE_FILTERS) {
            ok = gtp_fail(r, "too many avoid/allow moves");
        } else {
            q->filters[q->num_filters] = (mcts_move_filter){c, p, depth};
            q->filter_allow[q->num_filters++] = allow;
        }
    }
    free(list);
    return ok;
}

/* [color] [interval] then KEY VALUE pairs (lz: interval, minmoves, maxmoves, avoid, allow;
 * kata adds ownership, ownershipStdev, movesOwnership, movesOwnershipStdev, pvVisits,
 * pvEdgeVisits, rootInfo). */
static bool parse_request(gtp_engine *e, const gtp_args *a, dialect d, analyze_req *q,
                          gtp_text *r)
{
    memset(q, 0, sizeof *q);
    q->d = d;
    int i = 0;
    if (i < a->argc && gtp_parse_color(a->argv[i], &q->color)) {
        q->has_color = true;
        i++;
    }
    if (i < a->argc && gtp_parse_int(a->argv[i], &q->interval_cs)) {
        if (q->interval_cs < 0)
            return gtp_fail(r, "syntax error: negative interval");
        i++;
    }
    while (i < a->argc) {
        const char *key = a->argv[i];
        bool allow = !strcasecmp(key, "allow");
        if (allow || !strcasecmp(key, "avoid")) {
            if (i + 3 >= a->argc)
                return gtp_fail(r, "syntax error: avoid/allow COLOR VERTICES UNTIL_DEPTH");
            if (!parse_filter(e, q, allow, a->argv + i + 1, r))
                return false;
            i += 4;
            continue;
        }
        if (i + 1 >= a->argc) {
            gtp_text_printf(r, "syntax error: '%s' needs a value", key);
            return false;
        }
        const char *v = a->argv[i + 1];
        bool ok = true, *flag = NULL;
        int *num = NULL;
        if (!strcasecmp(key, "interval"))
            num = &q->interval_cs;
        else if (!strcasecmp(key, "minmoves"))
            num = &q->min_moves;
        else if (!strcasecmp(key, "maxmoves"))
            num = &q->max_moves;
        else if (d == DIALECT_KATA && !strcmp(key, "ownership"))
            flag = &q->ownership;
        else if (d == DIALECT_KATA && !strcmp(key, "ownershipStdev"))
            flag = &q->ownership_stdev;
        else if (d == DIALECT_KATA && !strcmp(key, "movesOwnership"))
            flag = &q->moves_ownership;
        else if (d == DIALECT_KATA && !strcmp(key, "movesOwnershipStdev"))
            flag = &q->moves_ownership_stdev;
        else if (d == DIALECT_KATA && !strcmp(key, "pvVisits"))
            flag = &q->pv_visits;
        else if (d == DIALECT_KATA && !strcmp(key, "pvEdgeVisits"))
            flag = &q->pv_edge_visits;
        else if (d == DIALECT_KATA && !strcmp(key, "rootInfo"))
            flag = &q->root_info;
        else if (d == DIALECT_KATA && !strcmp(key, "moveFeatures"))
            flag = &q->move_features;
        else if (d == DIALECT_KATA && !strcmp(key, "noResultValue"))
            flag = &q->no_result_value;
        if (num)
            ok = gtp_parse_int(v, num) && *num >= 0;
        else if (flag)
            ok = parse_bool(v, flag);
        else {
            gtp_text_printf(r, "unsupported analysis option '%s'", key);
            return false;
        }
        if (!ok) {
            gtp_text_printf(r, "syntax error: bad value '%s' for %s", v, key);
            return false;
        }
        i += 2;
    }
    return true;
}

/* ---- output ------------------------------------------------------------------------------ */

typedef struct stream {
    gtp_engine *e;
    const analyze_req *q;
    FILE *out;
    gtp_text line;
    int lines;
    const teach_analysis_base *base;   /* moveFeatures: the position's policies, pass */
    teach_move_features *features;     /* scratch, one per reported move */
    int cap_features;
} stream;

static int lz_int(double v)
{
    if (v < 0)
        v = 0;
    if (v > 1)
        v = 1;
    return (int)lround(v * 10000.0);
}

static void add_pv(gtp_text *t, const mcts_analysis *an, const mcts_move_info *m)
{
    char v[8];
    gtp_text_add(t, " pv");
    for (int k = 0; k < m->pv_len; k++)
        gtp_text_printf(t, " %s", go_point_to_gtp_rect(an->width, an->height, m->pv[k], v));
}

/* Ownership values from the side to move's view (mcts gives white's), top row first. */
static void add_grid(gtp_text *t, const char *key, const float *white, const mcts_analysis *an,
                     double sign)
{
    gtp_text_printf(t, " %s", key);
    for (int i = 0; i < an->width * an->height; i++)
        gtp_text_printf(t, " %.6f", sign * white[i]);
}

/* seed 000's features of move k (moveFeatures true), before its pv: remiDist and remiDist2 (to
 * the last move and the one before, -1 when none), density, scoreLoss (against the first move),
 * humanPrior, and strengthenOwn / weakenOpp where the net has ownership (teach/features.h). */
static void add_features(gtp_text *t, const teach_move_features *f)
{
    gtp_text_printf(t, " remiDist %d remiDist2 %d density %.6f scoreLoss %.6f humanPrior %.6f",
                    f->dist_last, f->dist_last2, f->density, f->score_loss, f->prior_human);
    if (isfinite(f->strengthen_own))
        gtp_text_printf(t, " strengthenOwn %.6f", f->strengthen_own);
    if (isfinite(f->weaken_opp))
        gtp_text_printf(t, " weakenOpp %.6f", f->weaken_opp);
}

/* The features of every move of an, into st->features; false when out of memory. */
static bool compute_features(stream *st, const mcts_analysis *an)
{
    if (an->num_moves > st->cap_features) {
        teach_move_features *n = realloc(st->features, sizeof *n * (size_t)an->num_moves);
        if (!n)
            return false;
        st->features = n;
        st->cap_features = an->num_moves;
    }
    teach_analysis_features(st->base, &st->e->game, an, st->features);
    return true;
}

/* KataGo's scoreMean is the score lead (kept under that name for older tools, Lizzie among
 * them); scoreSelfplay is the mean final score of self-play. */
static void format_line(stream *st, const mcts_analysis *an)
{
    gtp_text *t = &st->line;
    const analyze_req *q = st->q;
    double sign = an->to_move == GO_WHITE ? 1.0 : -1.0;
    char v[8];
    gtp_text_clear(t);
    /* the move features are measured on square boards only */
    bool features = q->d == DIALECT_KATA && st->base && an->width == an->height &&
                    compute_features(st, an);
    for (int k = 0; k < an->num_moves; k++) {
        const mcts_move_info *m = &an->moves[k];
        const char *mv = go_point_to_gtp_rect(an->width, an->height, m->move, v);
        if (k)
            gtp_text_add(t, " ");
        if (q->d == DIALECT_LZ) {
            gtp_text_printf(t, "info move %s visits %lld winrate %d prior %d lcb %d order %d", mv,
                            (long long)m->visits, lz_int(m->winrate), lz_int(m->prior),
                            lz_int(m->lcb), m->order);
            add_pv(t, an, m);
            continue;
        }
        gtp_text_printf(t,
                        "info move %s visits %lld edgeVisits %lld utility %.6f winrate %.6f "
                        "scoreMean %.6f scoreStdev %.6f scoreLead %.6f scoreSelfplay %.6f "
                        "prior %.6f lcb %.6f utilityLcb %.6f weight %.6f order %d",
                        mv, (long long)m->visits, (long long)m->visits, m->utility, m->winrate,
                        m->score_lead, m->score_stdev, m->score_lead, m->score_mean, m->prior,
                        m->lcb, m->utility_lcb, (double)m->visits, m->order);
        if (q->no_result_value)
            gtp_text_printf(t, " noResultValue %.6f", m->no_result);
        if (features)
            add_features(t, &st->features[k]);
        add_pv(t, an, m);
        if (q->pv_visits || q->pv_edge_visits) {
            for (int pass = 0; pass < 2; pass++) {
                if (!(pass ? q->pv_edge_visits : q->pv_visits))
                    continue;
                gtp_text_add(t, pass ? " pvEdgeVisits" : " pvVisits");
                for (int j = 0; j < m->pv_len; j++)
                    gtp_text_printf(t, " %lld", (long long)m->pv_visits[j]);
            }
        }
        if (q->moves_ownership && m->ownership)
            add_grid(t, "movesOwnership", m->ownership, an, sign);
        if (q->moves_ownership_stdev && m->ownership_stdev)
            add_grid(t, "movesOwnershipStdev", m->ownership_stdev, an, 1.0);
    }
    if (q->d == DIALECT_KATA && q->root_info)
        gtp_text_printf(t,
                        "%srootInfo visits %lld utility %.6f winrate %.6f scoreMean %.6f "
                        "scoreStdev %.6f scoreLead %.6f scoreSelfplay %.6f weight %.6f "
                        "currentPlayer %s",
                        t->len ? " " : "", (long long)an->root_visits, an->root_utility,
                        an->root_winrate, an->root_score_lead, an->root_score_stdev,
                        an->root_score_lead, an->root_score_mean, (double)an->root_visits,
                        an->to_move == GO_WHITE ? "W" : "B");
    if (q->d == DIALECT_KATA && q->root_info && q->no_result_value)
        gtp_text_printf(t, " noResultValue %.6f", an->root_no_result);
    bool own = q->d == DIALECT_KATA && q->ownership && an->ownership;
    bool own_sd = q->d == DIALECT_KATA && q->ownership_stdev && an->ownership_stdev;
    if ((own || own_sd) && !t->len)
        gtp_text_add(t, "info");   /* keeps the line's first word a key GUIs look for */
    if (own)
        add_grid(t, "ownership", an->ownership, an, sign);
    if (own_sd)   /* a spread: the same from either side's view */
        add_grid(t, "ownershipStdev", an->ownership_stdev, an, 1.0);
}

static void emit(stream *st, const mcts_analysis *an)
{
    if (an->num_moves == 0)
        return;
    format_line(st, an);
    if (st->line.oom || !st->line.len)
        return;
    fputs(st->line.data, st->out);
    fputc('\n', st->out);
    fflush(st->out);
    st->lines++;
}

static bool on_progress(const mcts_analysis *an, void *ctx)
{
    emit(ctx, an);
    return true;
}

static mcts_analysis_opts report_opts(const analyze_req *q)
{
    mcts_analysis_opts o = {0};
    o.max_moves = q->max_moves;
    o.min_moves = q->min_moves;
    o.ownership = q->ownership;
    o.ownership_stdev = q->ownership_stdev;
    /* the features' contributions compare each move's own ownership with the pass's */
    o.move_ownership = q->moves_ownership || q->move_features;
    o.move_ownership_stdev = q->moves_ownership_stdev;
    return o;
}

/* The analysis commands' common body; genmove: play the chosen move at the end and print
 * "play VERTEX". */
static bool analyze(gtp_engine *e, const gtp_args *a, dialect d, bool genmove, gtp_text *r)
{
    analyze_req q;
    if (!parse_request(e, a, d, &q, r))
        return false;
    teach_player *p = genmove ? gtp_player_get(e, r) : gtp_search_get(e, r);
    if (!p || !e->search)
        return p ? gtp_fail(r, "no network loaded (start with --weights FILE)") : false;
    /* The avoid/allow lists hold for this command only. */
    mcts_params params = *teach_engine_params(e->engine);
    params.num_avoid = params.num_allow = 0;
    if (!genmove)   /* KataGo's analysisWideRootNoise replaces wideRootNoise while analysing */
        params.wide_root_noise = e->analysis_wide_root_noise;
    for (int i = 0; i < q.num_filters; i++)
        mcts_params_add_move_filter(&params, q.filter_allow[i], q.filters[i].color,
                                    q.filters[i].point, q.filters[i].until_depth);
    char err[256];
    if (!teach_search_player_set_params(e->search, &params, err, sizeof err)) {
        gtp_text_printf(r, "cannot apply the search settings: %s", err);
        return false;
    }
    go_color c = q.has_color ? q.color : e->game.board.to_move;
    if (e->game.board.to_move != c)
        go_game_set_to_move(&e->game, c);

    /* The features' policies and the position after a pass, evaluated once for the stream. */
    teach_analysis_base *base = NULL;
    if (q.move_features) {
        base = malloc(sizeof *base);
        if (!base)
            return gtp_fail(r, "out of memory");
        if (!teach_analysis_base_eval(e->engine, &e->game, base, err, sizeof err)) {
            free(base);
            gtp_text_printf(r, "cannot evaluate the position: %s", err);
            return false;
        }
    }
    fprintf(a->out, "=%s\n", a->id);
    fflush(a->out);
    e->replied = true;
    mcts_limits lim;
    if (genmove) {
        lim = gtp_move_limits(e);
    } else {
        /* Until the next input line; driven in-process (no reader), the params' limits. */
        lim = (mcts_limits){0};
        if (e->input && e->input->fd >= 0) {
            /* KataGo caps analysis at the visit and playout limits set (--visits, maxVisits);
             * without one it runs until the next line. Time limits are for moves. */
            lim.max_visits = params.max_visits > 0 ? params.max_visits : -1;
            lim.max_playouts = params.max_playouts > 0 ? params.max_playouts : -1;
            lim.max_time_ms = -1;
        }
        else if (!params.max_visits && !params.max_playouts && !params.max_time_ms)
            lim.max_visits = TEACH_DEFAULT_VISITS;
    }
    lim.report_interval_cs = q.interval_cs;
    lim.report = report_opts(&q);
    stream st = {e, &q, a->out, {0}, 0, base, NULL, 0};
    gtp_text why = {0};
    int move = GO_PASS;
    bool ok = gtp_think(e, p, &lim, q.interval_cs > 0 ? on_progress : NULL, &st, !genmove,
                        genmove ? &move : NULL, &why);
    /* the search ended on its own (a visit cap), not on a new line */
    bool capped = ok && !genmove && e->input && e->input->fd >= 0 &&
                  !line_reader_pending(e->input);
    if (ok && (genmove || st.lines == 0 || capped)) {
        /* A last report: genmove shows what it chose from, a search shorter than one interval
         * still shows its candidates, a capped one its final state. A move the tsumego solver
         * chose has none. */
        mcts_analysis an = {0};
        if (teach_player_report(p, &lim.report, &an))
            emit(&st, &an);
        mcts_analysis_free(&an);
    }
    /* A search that reached its visit cap keeps the stream open, as KataGo's does, until the
     * next line arrives: GUIs end an analysis by sending something. */
    while (capped && !line_reader_pending(e->input)) {
        struct pollfd pf = {.fd = e->input->fd, .events = POLLIN};
        poll(&pf, 1, -1);
    }
    if (ok && genmove) {
        char buf[16];
        if (gtp_play_chosen(e, move, c, buf, sizeof buf))
            fprintf(a->out, "play %s\n", buf);
    }
    /* A failed search cannot answer "?" any more: the reason goes to stderr, worded so that
     * no GUI mistakes it for protocol. */
    if (!ok)
        fprintf(stderr, "shido: %s\n", why.data ? why.data : "search failed");
    fputs("\n", a->out);
    fflush(a->out);
    free(st.line.data);
    free(st.features);
    free(base);
    free(why.data);
    return true;
}

bool gtp_cmd_lz_analyze(gtp_engine *e, const gtp_args *a, gtp_text *r)
{
    return analyze(e, a, DIALECT_LZ, false, r);
}

bool gtp_cmd_kata_analyze(gtp_engine *e, const gtp_args *a, gtp_text *r)
{
    return analyze(e, a, DIALECT_KATA, false, r);
}

bool gtp_cmd_lz_genmove_analyze(gtp_engine *e, const gtp_args *a, gtp_text *r)
{
    return analyze(e, a, DIALECT_LZ, true, r);
}

bool gtp_cmd_kata_genmove_analyze(gtp_engine *e, const gtp_args *a, gtp_text *r)
{
    return analyze(e, a, DIALECT_KATA, true, r);
}
