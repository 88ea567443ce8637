/* nn/lz_inputs.c -- Leela Zero input planes, symmetries and output mapping (see lz_inputs.h). */
#include "nn/lz_inputs.h"

#include <string.h>

int nn_lz_symmetry_index(int symmetry, int idx)
{
    const int last = NN_LZ_BOARD_SIZE - 1;
    int x = idx % NN_LZ_BOARD_SIZE, y = idx / NN_LZ_BOARD_SIZE;
    if (symmetry & 4) {
        int t = x;
        x = y;
        y = t;
    }
    if (symmetry & 2)
        x = last - x;
    if (symmetry & 1)
        y = last - y;
    return y * NN_LZ_BOARD_SIZE + x;
}

int nn_lz_net_index_point(int symmetry, int idx)
{
    int v = nn_lz_symmetry_index(symmetry, idx);
    /* Leela Zero's y counts from the bottom, the board's from the top. */
    return go_point_at(v % NN_LZ_BOARD_SIZE, NN_LZ_BOARD_SIZE - 1 - v / NN_LZ_BOARD_SIZE);
}

bool nn_lz_inputs(const go_game *g, int symmetry, float *planes)
{
    if (!g || g->board.width != NN_LZ_BOARD_SIZE || g->board.height != NN_LZ_BOARD_SIZE ||
        symmetry < 0 || symmetry >= NN_LZ_SYMMETRIES)
        return false;
    memset(planes, 0, sizeof *planes * NN_LZ_INPUT_PLANES * NN_LZ_POINTS);
    go_color own = g->board.to_move, opp = go_opponent(own);
    int point[NN_LZ_POINTS];
    for (int i = 0; i < NN_LZ_POINTS; i++)
        point[i] = nn_lz_net_index_point(symmetry, i);
    /* Leela Zero fills min(movenum + 1, 8) boards: the current one and one per earlier move,
     * back to the anchored start; older planes stay zero. */
    int boards = g->num_moves + 1 < NN_LZ_HISTORY ? g->num_moves + 1 : NN_LZ_HISTORY;
    for (int h = 0; h < boards; h++) {
        const go_board *b = h == 0 ? &g->board : &g->before[g->num_moves - h];
        float *own_plane = planes + (size_t)h * NN_LZ_POINTS;
        float *opp_plane = planes + (size_t)(NN_LZ_HISTORY + h) * NN_LZ_POINTS;
        for (int i = 0; i < NN_LZ_POINTS; i++) {
            go_color c = (go_color)b->color[point[i]];
            if (c == own)
                own_plane[i] = 1.0f;
            else if (c == opp)
                opp_plane[i] = 1.0f;
        }
    }
    int side_plane = 2 * NN_LZ_HISTORY + (own == GO_BLACK ? 0 : 1);
    for (int i = 0; i < NN_LZ_POINTS; i++)
        planes[(size_t)side_plane * NN_LZ_POINTS + i] = 1.0f;
    return true;
}

void nn_lz_policy_to_board(int symmetry, const float *net_policy, float *policy)
{
    for (int i = 0; i < NN_LZ_POINTS; i++) {
        int p = nn_lz_net_index_point(symmetry, i);
        policy[go_point_y(p) * NN_LZ_BOARD_SIZE + go_point_x(p)] = net_policy[i];
    }
    policy[NN_LZ_POINTS] = net_policy[NN_LZ_POINTS];
}

float nn_lz_winrate_to_move(const struct nn_lz_desc *lz, go_color to_move, float head_winrate)
{
    if (lz->value_is_black && to_move == GO_WHITE)
        return 1.0f - head_winrate;
    return head_winrate;
}
