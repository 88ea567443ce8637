/* nn/disc_inputs.c -- the discriminator's input planes (see disc_inputs.h). */
#include "nn/disc_inputs.h"

#include <string.h>

/* The stones colour `by` captures by playing on the empty point p (0 when the move is illegal
 * or captures nothing). */
static int captured_by(const go_board *b, int p, go_color by)
{
    if (!go_board_is_legal(b, p, by, false))
        return 0;
    go_color victim = go_opponent(by);
    int heads[4], nh = 0, total = 0;
    for (int d = 0; d < 4; d++) {
        int q = p + go_dir4[d];
        if (b->color[q] != victim || go_board_libs(b, q) != 1)
            continue;
        int h = b->chain[q];
        bool seen = false;
        for (int i = 0; i < nh; i++)
            seen |= heads[i] == h;
        if (!seen) {
            heads[nh++] = h;
            total += b->stones[h];
        }
    }
    return total;
}

static int bucket(int v) { return v >= 5 ? 4 : v - 1; }

bool nn_disc_inputs(const go_board *b, int x0, int y0, int size, int symmetry, float *planes)
{
    if (symmetry < 0 || symmetry > 7 || size < 1 || x0 < 0 || y0 < 0 || x0 + size > b->width ||
        y0 + size > b->height)
        return false;
    int area = size * size;
    memset(planes, 0, (size_t)NN_DISC_PLANES * area * sizeof *planes);
    for (int y = 0; y < size; y++)
        for (int x = 0; x < size; x++) {
            int tx = x, ty = y;
            go_symmetry_xy(symmetry, size, &tx, &ty);
            float *at = planes + ty * size + tx;
            int p = go_point_at(x0 + x, y0 + y);
            go_color c = (go_color)b->color[p];
            at[23 * area] = 1.0f;
            if (c == GO_EMPTY) {
                at[2 * area] = 1.0f;
                int cb = captured_by(b, p, GO_WHITE), cw = captured_by(b, p, GO_BLACK);
                if (cb > 0)
                    at[(13 + bucket(cb)) * area] = 1.0f;
                if (cw > 0)
                    at[(18 + bucket(cw)) * area] = 1.0f;
                continue;
            }
            at[(c == GO_BLACK ? 0 : 1) * area] = 1.0f;
            at[(3 + bucket(go_board_libs(b, p))) * area] = 1.0f;
            at[(8 + bucket(go_board_chain_size(b, p))) * area] = 1.0f;
        }
    return true;
}
