/* go/bouzy.c -- Bouzy dilation/erosion maps. */
#include "go/bouzy.h"

#include <stdlib.h>
#include <string.h>

void go_bouzy_init(go_bouzy_map *m, const go_board *b, int stone_value)
{
    memset(m, 0, sizeof *m);
    m->size = b->size;
    for (int y = 0; y < b->size; y++)
        for (int x = 0; x < b->size; x++) {
            int p = go_point_at(x, y);
            m->score[p] = b->color[p] == GO_BLACK   ? stone_value
                          : b->color[p] == GO_WHITE ? -stone_value
                                                    : 0;
        }
}

/* Counts of neighbours of p (on the board) with score > 0, < 0, >= 0 and <= 0. */
typedef struct signs {
    int pos, neg, nonneg, nonpos;
} signs;

static signs neighbour_signs(const int *score, const go_board *b, int p)
{
    signs s = {0, 0, 0, 0};
    for (int d = 0; d < 4; d++) {
        int q = p + go_dir4[d];
        if (b->color[q] == GO_BORDER)
            continue;
        s.pos += score[q] > 0;
        s.neg += score[q] < 0;
        s.nonneg += score[q] >= 0;
        s.nonpos += score[q] <= 0;
    }
    return s;
}

void go_bouzy_dilate(go_bouzy_map *m, const go_board *b)
{
    int old[GO_POINTS];
    memcpy(old, m->score, sizeof old);
    for (int y = 0; y < b->size; y++)
        for (int x = 0; x < b->size; x++) {
            int p = go_point_at(x, y);
            if (b->color[p] != GO_EMPTY)
                continue;
            signs s = neighbour_signs(old, b, p);
            if (old[p] >= 0 && s.neg == 0)
                m->score[p] = old[p] + s.pos;
            else if (old[p] <= 0 && s.pos == 0)
                m->score[p] = old[p] - s.neg;
        }
}

void go_bouzy_erode(go_bouzy_map *m, const go_board *b)
{
    int old[GO_POINTS];
    memcpy(old, m->score, sizeof old);
    for (int y = 0; y < b->size; y++)
        for (int x = 0; x < b->size; x++) {
            int p = go_point_at(x, y);
            if (b->color[p] != GO_EMPTY || old[p] == 0)
                continue;
            signs s = neighbour_signs(old, b, p);
            if (old[p] > 0)
                m->score[p] = old[p] > s.nonpos ? old[p] - s.nonpos : 0;
            else
                m->score[p] = -old[p] > s.nonneg ? old[p] + s.nonneg : 0;
        }
}

void go_bouzy_compute(go_bouzy_map *m, const go_board *b, go_bouzy_params p)
{
    go_bouzy_init(m, b, p.stone_value);
    for (int i = 0; i < p.dilations; i++)
        go_bouzy_dilate(m, b);
    for (int i = 0; i < p.erosions; i++)
        go_bouzy_erode(m, b);
}

long go_bouzy_difference(const go_bouzy_map *a, const go_bouzy_map *b)
{
    long d = 0;
    for (int p = 0; p < GO_POINTS; p++)
        d += labs((long)a->score[p] - (long)b->score[p]);
    return d;
}
