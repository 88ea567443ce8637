/* fuzz/fuzz_tsumego_records.c -- libFuzzer target for the problem readers of `shido tsumego
 * bench`: a JSON Lines record and the game trees of an SGF collection.
 *
 * The input is read both ways. A JSON record is parsed or refused with a reason; one that is
 * parsed keeps its lists within bounds, and its position is built or refused. Every game tree of
 * an SGF collection becomes a record or is refused with a reason; a record read from SGF comes
 * from a real position, so its board must build again with the same stones, its side to play
 * must be a colour and its solutions must be points of the board. Either kind of record is then
 * set up as a problem (goal from its statement, else inferred) or refused with a reason.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "go/sgf.h"
#include "go/tsumego.h"
#include "tools/tsumego_records.h"

#define FUZZ_GAMES 8

static void set_up(const tsumego_record *r, const go_board *b)
{
    go_tsumego_problem p;
    char err[256] = "";
    if (!go_tsumego_setup(b, r->to_play, r->hint, &p, err, sizeof err) && !err[0])
        abort();
}

static void check_lists(const tsumego_record *r)
{
    if (r->nab < 0 || r->naw < 0 || r->nsol < 0 || r->nab > TSUMEGO_MAX_LIST ||
        r->naw > TSUMEGO_MAX_LIST || r->nsol > TSUMEGO_MAX_LIST)
        abort();
}

static void from_sgf(const go_sgf_node *root)
{
    static tsumego_record r;
    char why[256] = "";
    memset(&r, 0, sizeof r);
    if (!tsumego_record_from_sgf(root, &r, why, sizeof why)) {
        if (!why[0])
            abort();
        return;
    }
    check_lists(&r);
    go_board b;
    if ((r.to_play != GO_BLACK && r.to_play != GO_WHITE) || !tsumego_record_board(&r, &b))
        abort();
    int stones = 0;
    for (int p = 0; p < GO_POINTS; p++)
        stones += b.color[p] == GO_BLACK || b.color[p] == GO_WHITE;
    if (stones != r.nab + r.naw)
        abort();
    for (int i = 0; i < r.nsol; i++)
        if (tsumego_record_point(r.size, r.sol[i]) == GO_NO_POINT)
            abort();
    set_up(&r, &b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static tsumego_record r;
    char *line = malloc(size + 1);
    if (!line)
        return 0;
    memcpy(line, data, size);
    line[size] = 0;
    char why[256] = "";
    if (tsumego_record_from_json(line, &r, why, sizeof why)) {
        check_lists(&r);
        go_board b;
        if (tsumego_record_board(&r, &b))
            set_up(&r, &b);
    } else if (!why[0]) {
        abort();
    }
    free(line);
    char err[512];
    go_sgf_collection *c = go_sgf_parse((const char *)data, size, err, sizeof err);
    for (int i = 0; c && i < c->num_games && i < FUZZ_GAMES; i++)
        from_sgf(c->games[i]);
    go_sgf_free(c);
    return 0;
}
