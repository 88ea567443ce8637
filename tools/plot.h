/* tools/plot.h -- line plots as PNG through cairo (learning curves of
 * `shido train-discriminator`): panels side by side, each with its own y range, axes, ticks, a
 * title and a legend. */
#ifndef SHIDO_TOOLS_PLOT_H
#define SHIDO_TOOLS_PLOT_H

#include <stdbool.h>

#define PLOT_MAX_SERIES 4

typedef struct plot_series {
    const char *name;
    const double *y;          /* [n], over x = 1..n */
} plot_series;

typedef struct plot_panel {
    const char *title, *x_label;
    int n;                    /* points per series */
    int num_series;
    plot_series series[PLOT_MAX_SERIES];
    bool y_from_zero;         /* the y axis starts at 0 (else at the data's minimum) */
} plot_panel;

/* Writes the panels (1..4) side by side into a PNG file. False with a message in err. */
bool plot_png(const char *path, const plot_panel *panels, int num_panels, char *err,
              int err_len);

/* Releases the font caches plots leave behind (cairo's, and through them fontconfig's patterns):
 * call once no plot follows, so that leak checkers see only the program's own memory. */
void plot_release(void);

#endif
