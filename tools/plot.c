/* tools/plot.c -- line plots as PNG through cairo (see plot.h). */
#include "tools/plot.h"

#include <cairo.h>
#include <fontconfig/fontconfig.h>
#include <math.h>
#include <stdio.h>

#define PANEL_W 560
#define PANEL_H 400
#define M_LEFT 64
#define M_RIGHT 20
#define M_TOP 40
#define M_BOTTOM 50

static const double colours[PLOT_MAX_SERIES][3] = {
    {0.12, 0.47, 0.71}, {0.84, 0.15, 0.16}, {0.17, 0.63, 0.17}, {0.58, 0.40, 0.74}};

/* A "nice" tick step for a range: 1, 2 or 5 times a power of ten, about 5 ticks. */
static double tick_step(double range)
{
    double raw = range / 5, p = pow(10, floor(log10(raw))), f = raw / p;
    return (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * p;
}

static void text(cairo_t *cr, double x, double y, const char *s, double align)
{
    cairo_text_extents_t e;
    cairo_text_extents(cr, s, &e);
    cairo_move_to(cr, x - align * e.width, y);
    cairo_show_text(cr, s);
}

static void draw_panel(cairo_t *cr, const plot_panel *p, double ox)
{
    double lo = INFINITY, hi = -INFINITY;
    for (int s = 0; s < p->num_series; s++)
        for (int i = 0; i < p->n; i++)
            if (isfinite(p->series[s].y[i])) {
                lo = fmin(lo, p->series[s].y[i]);
                hi = fmax(hi, p->series[s].y[i]);
            }
    if (!isfinite(lo))
        lo = 0, hi = 1;
    if (p->y_from_zero)
        lo = fmin(lo, 0);
    if (hi - lo < 1e-9)
        hi = lo + 1;
    double step = tick_step(hi - lo);
    lo = floor(lo / step) * step;
    hi = ceil(hi / step) * step;
    double x0 = ox + M_LEFT, x1 = ox + PANEL_W - M_RIGHT, y0 = PANEL_H - M_BOTTOM, y1 = M_TOP;
    int xmax = p->n > 1 ? p->n : 2;
#define PX(i) (x0 + (x1 - x0) * ((double)(i) - 1) / (xmax - 1))
#define PY(v) (y0 - (y0 - y1) * ((v) - lo) / (hi - lo))
    cairo_set_source_rgb(cr, 0, 0, 0);
    cairo_set_font_size(cr, 15);
    text(cr, (x0 + x1) / 2, 24, p->title, 0.5);
    cairo_set_font_size(cr, 11);
    text(cr, (x0 + x1) / 2, PANEL_H - 12, p->x_label, 0.5);
    /* grid and y ticks */
    char buf[32];
    for (double v = lo; v <= hi + step / 2; v += step) {
        cairo_set_source_rgb(cr, 0.88, 0.88, 0.88);
        cairo_set_line_width(cr, 1);
        cairo_move_to(cr, x0, PY(v));
        cairo_line_to(cr, x1, PY(v));
        cairo_stroke(cr);
        cairo_set_source_rgb(cr, 0, 0, 0);
        snprintf(buf, sizeof buf, "%g", fabs(v) < step / 1e6 ? 0.0 : v);
        text(cr, x0 - 6, PY(v) + 4, buf, 1.0);
    }
    int xstep = (int)ceil(tick_step(xmax - 1));
    for (int i = 1; i <= xmax; i += xstep > 0 ? xstep : 1) {
        snprintf(buf, sizeof buf, "%d", i);
        text(cr, PX(i), y0 + 16, buf, 0.5);
    }
    cairo_set_source_rgb(cr, 0, 0, 0);
    cairo_set_line_width(cr, 1.2);
    cairo_rectangle(cr, x0, y1, x1 - x0, y0 - y1);
    cairo_stroke(cr);
    /* the series, each with a legend entry */
    for (int s = 0; s < p->num_series; s++) {
        cairo_set_source_rgb(cr, colours[s][0], colours[s][1], colours[s][2]);
        cairo_set_line_width(cr, 2);
        bool pen = false;
        for (int i = 0; i < p->n; i++) {
            double v = p->series[s].y[i];
            if (!isfinite(v)) {
                pen = false;
                continue;
            }
            if (pen)
                cairo_line_to(cr, PX(i + 1), PY(v));
            else
                cairo_move_to(cr, PX(i + 1), PY(v));
            pen = true;
            if (p->n == 1)
                cairo_arc(cr, PX(1), PY(v), 3, 0, 6.2832);
        }
        cairo_stroke(cr);
        double ly = y1 + 16 + 16 * s;
        cairo_move_to(cr, x1 - 130, ly - 4);
        cairo_line_to(cr, x1 - 110, ly - 4);
        cairo_stroke(cr);
        cairo_set_source_rgb(cr, 0, 0, 0);
        text(cr, x1 - 104, ly, p->series[s].name, 0);
    }
#undef PX
#undef PY
}

bool plot_png(const char *path, const plot_panel *panels, int num_panels, char *err, int err_len)
{
    if (num_panels < 1 || num_panels > 4) {
        snprintf(err, (size_t)err_len, "%s: %d panels (1..4)", path, num_panels);
        return false;
    }
    cairo_surface_t *surf =
        cairo_image_surface_create(CAIRO_FORMAT_RGB24, PANEL_W * num_panels, PANEL_H);
    cairo_t *cr = cairo_create(surf);
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_paint(cr);
    cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
    for (int i = 0; i < num_panels; i++)
        draw_panel(cr, &panels[i], (double)i * PANEL_W);
    cairo_status_t st = cairo_status(cr);
    if (st == CAIRO_STATUS_SUCCESS)
        st = cairo_surface_write_to_png(surf, path);
    cairo_destroy(cr);
    cairo_surface_destroy(surf);
    if (st != CAIRO_STATUS_SUCCESS) {
        snprintf(err, (size_t)err_len, "%s: cannot write the plot: %s", path,
                 cairo_status_to_string(st));
        return false;
    }
    return true;
}

void plot_release(void)
{
    cairo_debug_reset_static_data();
    FcFini();
}
