/* teach/play.c -- the teaching player (play.h). */
#include "teach/play.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "go/clock.h"
#include "go/score.h"
#include "teach/control.h"
#include "teach/status.h"

typedef struct play_player {
    teach_player base;
    teach_engine *engine;
    teach_player *search;
    teach_player *verifier;    /* adaptive_verify's and behind_plain's searches at the engine's
                                * own tunables (made when first needed) */
    go_game game;              /* the position set */
    bool have_game;
    teach_play_state state;
    bool state_ready;
    teach_rng rng;
    bool rng_ready;
    uint64_t rng_play_seed;    /* play_seed when the stream was seeded: a new one reseeds it */
    mcts_analysis an;          /* the last choice's analysis */
    bool have_an;
    nn_result *net;            /* the last choice's network output */
    bool have_net;
    bool have_last;            /* our last move's root winrate and lead: what new_game learns */
    double last_winrate;       /* from once the game is over (softmax adaptation, adaptive's */
    double last_lead;          /* margin, two-phase's cap) */
    bool last_ended;           /* that move was a pass or a resignation */
    bool last_passed;          /* a pass */
    go_color last_color;       /* our colour in it */
    char why[320];
} play_player;

/* Whether games a and b have the same board size and setup and the same first n moves. */
static bool same_start(const go_game *a, const go_game *b, int n)
{
    if (a->board.size != b->board.size || a->setup.hash != b->setup.hash || n > a->num_moves ||
        n > b->num_moves)
        return false;
    for (int i = 0; i < n; i++)
        if (a->moves[i].point != b->moves[i].point || a->moves[i].color != b->moves[i].color)
            return false;
    return true;
}

/* Whether g continues the game p holds (same setup, the moves so far as a prefix). */
static bool continues(const play_player *p, const go_game *g)
{
    return p->have_game && same_start(&p->game, g, p->game.num_moves);
}

/* How the last game ended for us, in points: after our pass the board as it stands, scored
 * with the dead stones the network sees (as final_score does); after a resignation (ours, or the
 * opponent's: a game left at a high winrate), or without an ownership head, the last search's
 * lead. */
static double final_lead(play_player *p)
{
    bool dead[GO_POINTS] = {false};
    if (!p->last_passed || !teach_mark_status(p->search, &p->game, dead, NULL))
        return p->last_lead;
    double black = go_score_final(&p->game, dead, NULL);
    return p->last_color == GO_BLACK ? black : -black;
}

/* Whether g, which does not continue p's game, takes moves of it back (an undo, not a new game):
 * the same setup and some of its moves. */
static bool undone(const play_player *p, const go_game *g)
{
    return p->have_game && g->num_moves > 0 && same_start(&p->game, g, g->num_moves);
}

/* Whether the game left for g taught something: it ended with our pass or resignation, or it is
 * left (not undone) after our move at a winrate the opponent resigns at. */
static bool game_over(const play_player *p, const teach_play_params *pp, const go_game *g)
{
    if (!p->have_last)
        return false;
    return p->last_ended || (p->last_winrate >= pp->left_winrate && !undone(p, g));
}

/* A new game (g): softmax's exponent, adaptive's margin and two-phase's cap move toward a close
 * result from the last game's end (we won with a last winrate above one half: play weaker; the
 * last lead corrects the margin and the cap) when that game is over (game_over), the rest of the
 * memory starts afresh. */
static void new_game(play_player *p, const go_game *g)
{
    const teach_play_params *pp = teach_engine_play_params(p->engine);
    if (!p->state_ready) {
        teach_play_state_reset(&p->state, pp, false);
        p->state_ready = true;
        return;
    }
    bool over = game_over(p, pp, g);
    if (pp->softmax_adapt && over) {
        double step = p->last_winrate > 0.5 ? -pp->softmax_adapt_step : pp->softmax_adapt_step;
        p->state.softmax_z = fmax(0.0, p->state.softmax_z + step);
        p->state.games_done++;
    }
    if (pp->policy == TEACH_POLICY_ADAPTIVE && over)
        teach_adaptive_learn(&p->state, pp, final_lead(p));
    if (pp->policy == TEACH_POLICY_TWO_PHASE && over)
        teach_two_phase_learn(&p->state, pp, final_lead(p));
    p->have_last = false;
    teach_play_state_reset(&p->state, pp, true);
}

static bool play_set_position(teach_player *tp, const go_game *g, char *err, int err_len)
{
    play_player *p = (play_player *)tp;
    if (!go_board_square(&g->board)) {
        snprintf(err, (size_t)err_len, "the teaching policies play on square boards only (this "
                 "one is %dx%d): set play_policy to best", g->board.width, g->board.height);
        return false;
    }
    if (!continues(p, g))
        new_game(p, g);
    if (p->have_game)
        go_game_free(&p->game);
    p->have_game = go_game_copy(&p->game, g);
    if (!p->have_game) {
        snprintf(err, (size_t)err_len, "out of memory");
        return false;
    }
    return teach_player_set_position(p->search, g, err, err_len);
}

/* The mover's score lead after it passes: the search's, when it visited the pass, else the
 * network's on the position after the pass. */
static bool pass_lead(teach_player *search, const go_game *g, const mcts_analysis *an,
                      double *lead)
{
    for (int i = 0; an && i < an->num_moves; i++)
        if (an->moves[i].move == GO_PASS && an->moves[i].visits > 0) {
            *lead = an->moves[i].score_lead;
            return true;
        }
    go_game after;
    char err[256];
    if (!go_game_copy(&after, g))
        return false;
    go_color mover = g->board.to_move;
    nn_result *r = malloc(sizeof *r);
    bool ok = r && go_game_play(&after, GO_PASS, mover) == GO_MOVE_OK &&
              teach_search_player_eval(search, &after, r, err, sizeof err) && r->has_score;
    if (ok)
        *lead = mover == GO_WHITE ? r->white_lead : -r->white_lead;
    free(r);
    go_game_free(&after);
    return ok;
}

mcts_params teach_play_search_params(const teach_play_params *pp, const mcts_params *base,
                                     const go_game *g)
{
    teach_play_needs needs = teach_play_needs_of(pp, g);
    mcts_params params = *base;
    if (needs.c_puct > 0)
        params.c_puct = needs.c_puct;
    params.playout_doubling_advantage = needs.pda;
    params.anti_mirror = needs.anti_mirror;
    return params;
}

/* adaptive_verify: out's move, when the root gave it fewer visits, searched on its own; one that
 * loses more than adaptive_max_loss against the search's choice is excluded and the choice made
 * again (VERIFY_TRIES in all, then only the search's choice is left). */
enum { VERIFY_TRIES = 3 };

static bool verify_choice(teach_player *verifier, const teach_play_params *pp,
                          teach_choice_in *in, teach_rng *rng, teach_choice *out, char *err,
                          int err_len)
{
    const mcts_analysis *an = in->an;
    double ref = an->moves[0].score_lead;
    for (int i = 0; i < an->num_moves; i++)
        if (an->moves[i].move == in->search_choice)
            ref = an->moves[i].score_lead;
    int *excluded = malloc(sizeof *excluded * (size_t)(an->num_moves + 1));
    if (!excluded) {
        snprintf(err, (size_t)err_len, "out of memory");
        return false;
    }
    in->excluded = excluded;
    in->num_excluded = 0;
    bool ok = true;
    int tries = 0;
    for (; ok; tries++) {
        int m = out->move;
        int64_t visits = 0;
        for (int i = 0; i < an->num_moves; i++)
            if (an->moves[i].move == m)
                visits = an->moves[i].visits;
        if (m == in->search_choice || m == GO_PASS || m == MCTS_RESIGN ||
            visits >= pp->adaptive_verify) {
            size_t len = strlen(out->why);
            if (tries > 0)
                snprintf(out->why + len, sizeof out->why - len, " (%d dropped by verifying)",
                         tries);
            break;
        }
        double lead;
        ok = teach_player_lead_after(verifier, in->game, m, pp->adaptive_verify, &lead, err,
                                     err_len);
        if (ok && ref - lead <= pp->adaptive_max_loss) {
            /* the opponent's next loss is measured against the deeper look */
            if (in->state)
                in->state->expected_lead = lead;
            size_t len = strlen(out->why);
            snprintf(out->why + len, sizeof out->why - len, " (verified: loses %.1f, %d dropped)",
                     ref - lead, tries);
            break;
        }
        if (!ok)
            break;
        excluded[in->num_excluded++] = m;
        if (tries + 1 == VERIFY_TRIES) {
            /* the search's own choice is all that is left */
            in->num_excluded = 0;
            for (int i = 0; i < an->num_moves; i++)
                if (an->moves[i].move != in->search_choice)
                    excluded[in->num_excluded++] = an->moves[i].move;
        }
        ok = teach_choose(pp, in, rng, out, err, err_len);
    }
    in->excluded = NULL;
    in->num_excluded = 0;
    free(excluded);
    return ok;
}

bool teach_play_decide(teach_player *search, teach_player *verifier, const teach_play_params *pp,
                       const go_game *g, bool searched, int search_choice,
                       teach_play_state *state, teach_rng *rng, mcts_analysis *an, bool *have_an,
                       nn_result *net, bool *have_net, teach_choice *out, char *err, int err_len)
{
    teach_play_needs needs = teach_play_needs_of(pp, g);
    teach_choice_in in = {.game = g, .search_choice = search_choice, .state = state};
    *have_an = *have_net = false;
    if (searched) {
        mcts_analysis_opts opts = {.ownership = needs.root_ownership,
                                   .move_ownership = needs.move_ownership,
                                   .min_moves = needs.min_moves};
        *have_an = teach_player_report(search, &opts, an);
        in.an = *have_an ? an : NULL;
    }
    if (needs.raw_policy) {
        if (!teach_search_player_eval(search, g, net, err, err_len))
            return false;
        *have_net = true;
        in.net = net;
    }
    if (needs.pass_lead)
        in.has_pass_lead = pass_lead(search, g, in.an, &in.pass_lead);
    if (!teach_choose(pp, &in, rng, out, err, err_len))
        return false;
    if (verifier && in.an && pp->policy == TEACH_POLICY_ADAPTIVE && pp->adaptive_verify > 0 &&
        pp->adaptive_max_loss > 0)
        return verify_choice(verifier, pp, &in, rng, out, err, err_len);
    return true;
}

static void seed_rng(play_player *p)
{
    const teach_play_params *pp = teach_engine_play_params(p->engine);
    uint64_t seed = pp->seed ? pp->seed : teach_engine_params(p->engine)->seed;
    if (!seed)
        seed = (uint64_t)time(NULL) ^ (uint64_t)(go_now_s() * 1e9);
    p->rng.state = seed;
    p->rng_ready = true;
    p->rng_play_seed = pp->seed;
}

/* behind_plain: the move of a second search of the position at the engine's own tunables (two-phase
 * plays for the best: method A's wide search reads too little for that); out->why says so. */
static teach_move_status plain_move(play_player *p, const mcts_limits *lim, mcts_progress_fn cb,
                                    void *ctx, teach_choice *out, char *err, int err_len)
{
    if (!p->verifier && !(p->verifier = teach_search_player_new(p->engine, err, err_len)))
        return TEACH_MOVE_FAILED;
    if (!teach_search_player_set_params(p->verifier, teach_engine_params(p->engine), err,
                                        err_len) ||
        !teach_player_set_position(p->verifier, &p->game, err, err_len))
        return TEACH_MOVE_FAILED;
    int move;
    teach_move_status got = teach_player_genmove(p->verifier, lim, cb, ctx, &move, err, err_len);
    if (got != TEACH_MOVE_CHOSEN)
        return got;
    char v[8];
    size_t len = strlen(out->why);
    snprintf(out->why + len, sizeof out->why - len, "; a plain search: %s",
             move == MCTS_RESIGN ? "resign" : go_board_vertex(&p->game.board, move, v));
    out->move = move;
    return TEACH_MOVE_CHOSEN;
}

static teach_move_status play_genmove(teach_player *tp, const mcts_limits *lim,
                                      mcts_progress_fn cb, void *ctx, int *move, char *err,
                                      int err_len)
{
    play_player *p = (play_player *)tp;
    if (!p->have_game) {
        snprintf(err, (size_t)err_len, "no position set");
        return TEACH_MOVE_FAILED;
    }
    const teach_play_params *pp = teach_engine_play_params(p->engine);
    if (!p->rng_ready || (pp->seed && pp->seed != p->rng_play_seed))
        seed_rng(p);
    teach_play_needs needs = teach_play_needs_of(pp, &p->game);
    int search_choice = GO_PASS;
    if (needs.search) {
        mcts_params params = teach_play_search_params(pp, teach_engine_params(p->engine),
                                                      &p->game);
        /* the position is the search's already (play_set_position); new tunables keep it */
        if (!teach_search_player_set_params(p->search, &params, err, err_len))
            return TEACH_MOVE_FAILED;
        float w[GO_POINTS];
        bool weighted = pp->weights_in_search && teach_prior_weights(pp, &p->game, w);
        teach_search_player_set_root_weights(p->search, weighted ? w : NULL);
        teach_move_status got =
            teach_player_genmove(p->search, lim, cb, ctx, &search_choice, err, err_len);
        /* analyses between moves search as the engine's tunables say */
        teach_search_player_set_root_weights(p->search, NULL);
        if (got != TEACH_MOVE_CHOSEN)
            return got;
    }
    if (!p->net && !(p->net = malloc(sizeof *p->net))) {
        snprintf(err, (size_t)err_len, "out of memory");
        return TEACH_MOVE_FAILED;
    }
    if (pp->adaptive_verify > 0 && !p->verifier &&
        !(p->verifier = teach_search_player_new(p->engine, err, err_len)))
        return TEACH_MOVE_FAILED;
    /* the verifier searches as the engine's tunables say (not with a policy's wider c_puct) */
    if (p->verifier && !teach_search_player_set_params(p->verifier, teach_engine_params(p->engine),
                                                       err, err_len))
        return TEACH_MOVE_FAILED;
    teach_choice choice;
    p->why[0] = 0;
    if (!teach_play_decide(p->search, p->verifier, pp, &p->game, needs.search, search_choice,
                           &p->state, &p->rng, &p->an, &p->have_an, p->net, &p->have_net,
                           &choice, err, err_len))
        return TEACH_MOVE_FAILED;
    /* under a time limit (the clock's or the tunables') the first search had the move's time: a
     * second would overrun it */
    bool timed = (lim && lim->max_time_ms > 0) || teach_engine_params(p->engine)->max_time_ms > 0;
    if (choice.strongest && pp->behind_plain && needs.c_puct > 0 && !timed) {
        teach_move_status got = plain_move(p, lim, cb, ctx, &choice, err, err_len);
        if (got != TEACH_MOVE_CHOSEN)
            return got;
    }
    p->have_last = p->have_an;
    if (p->have_last) {
        p->last_winrate = p->an.root_winrate;
        p->last_lead = p->an.root_score_lead;
        p->last_ended = choice.move == GO_PASS || choice.move == MCTS_RESIGN;
        p->last_passed = choice.move == GO_PASS;
        p->last_color = p->game.board.to_move;
    }
    *move = choice.move;
    snprintf(p->why, sizeof p->why, "%s", choice.why);
    return TEACH_MOVE_CHOSEN;
}

static bool play_analyze(teach_player *tp, const mcts_limits *lim, mcts_progress_fn cb, void *ctx,
                         char *err, int err_len)
{
    play_player *p = (play_player *)tp;
    return teach_player_analyze(p->search, lim, cb, ctx, err, err_len);
}

static bool play_report(teach_player *tp, const mcts_analysis_opts *opts, mcts_analysis *out)
{
    return teach_player_report(((play_player *)tp)->search, opts, out);
}

static void play_stop(teach_player *tp) { teach_player_stop(((play_player *)tp)->search); }

static void play_free(teach_player *tp)
{
    play_player *p = (play_player *)tp;
    if (p->have_game)
        go_game_free(&p->game);
    mcts_analysis_free(&p->an);
    teach_player_free(p->verifier);
    free(p->net);
    free(p);
}

static const teach_player_ops play_ops = {
    "play", play_set_position, play_genmove, play_analyze, play_report, play_stop, play_free,
};

teach_player *teach_play_player_new(teach_engine *e, teach_player *search, char *err, int err_len)
{
    play_player *p = calloc(1, sizeof *p);
    if (!p) {
        snprintf(err, (size_t)err_len, "out of memory");
        return NULL;
    }
    p->base.ops = &play_ops;
    p->engine = e;
    p->search = search;
    return &p->base;
}

bool teach_player_is_play(const teach_player *p) { return p && p->ops == &play_ops; }

const char *teach_play_player_why(const teach_player *p) { return ((const play_player *)p)->why; }

const mcts_analysis *teach_play_player_analysis(const teach_player *p)
{
    const play_player *pp = (const play_player *)p;
    return pp->have_an ? &pp->an : NULL;
}

const nn_result *teach_play_player_net(const teach_player *p)
{
    const play_player *pp = (const play_player *)p;
    return pp->have_net ? pp->net : NULL;
}

bool teach_endgame_test(teach_player *search, const teach_play_params *pp, const go_game *g,
                        int64_t visits, teach_endgame_check *out, char *err, int err_len)
{
    mcts_limits lim = {.max_visits = visits};
    mcts_analysis an = {0};
    bool ok = teach_player_set_position(search, g, err, err_len) &&
              teach_player_analyze(search, &lim, NULL, NULL, err, err_len);
    if (ok && !teach_player_report(search, NULL, &an)) {
        snprintf(err, (size_t)err_len, "no analysis of the search");
        ok = false;
    }
    if (ok && !pass_lead(search, g, &an, &out->pass_lead)) {
        snprintf(err, (size_t)err_len, "no score lead after a pass (a network without scores?)");
        ok = false;
    }
    if (ok) {
        out->lead = an.root_score_lead;
        out->stdev = an.root_score_stdev;
        out->endgame = teach_endgame_criteria(pp, g->board.size, out->lead, out->stdev,
                                              out->pass_lead);
    }
    mcts_analysis_free(&an);
    return ok;
}
