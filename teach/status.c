/* teach/status.c -- dead stones and seki from ownership (status.h). */
#include "teach/status.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "go/score.h"

bool teach_mark_status(teach_player *search, const go_game *g, bool *dead, bool *seki)
{
    if (!teach_player_is_search(search))
        return false;
    char err[256];
    nn_result *res = malloc(sizeof *res);
    bool ok = res && teach_search_player_eval(search, g, res, err, sizeof err) &&
              res->has_ownership;
    if (ok) {
        const go_board *b = &g->board;
        uint8_t area[GO_POINTS];
        go_benson_area(b, g->rules.multi_stone_suicide, area);
        int size = b->size;
        for (int y = 0; y < size; y++)
            for (int x = 0; x < size; x++) {
                int p = go_point_at(x, y);
                go_color c = b->color[p];
                if (c != GO_BLACK && c != GO_WHITE)
                    continue;
                double own = res->white_ownership[y * size + x] * (c == GO_WHITE ? 1 : -1);
                bool is_dead = area[p] != GO_EMPTY ? area[p] != c : own < TEACH_DEAD_OWNERSHIP;
                if (dead)
                    dead[p] = is_dead;
                if (seki)
                    seki[p] = !is_dead && area[p] == GO_EMPTY && fabs(own) < TEACH_SEKI_OWNERSHIP;
            }
    }
    free(res);
    return ok;
}
