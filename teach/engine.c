/* teach/engine.c -- the shared options, config files, and the engine's networks (engine.h). */
#include "teach/engine.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Positions one raw evaluation context takes: the eight symmetries of one position. */
#define EVAL_BATCH 8

struct teach_engine {
    int num_nets;
    nn_model *model[TEACH_MAX_NETS];
    char *name[TEACH_MAX_NETS];
    nn_context *ctx[TEACH_MAX_NETS];   /* teach_engine_eval's, made on first use */
    char backend[TEACH_BACKEND_LEN];
    mcts_params params;
    teach_play_params play;
    nn_kata_profile profile;           /* of params.human_sl_profile, when set */
    bool has_profile;
    /* --backend with a device list (cuda:device=all, cuda:device=0,2): the backend without it,
     * and the devices; the networks are loaded on the first (num_devices 0: as asked) */
    char base_backend[TEACH_BACKEND_LEN];
    int num_devices;
    int devices[TEACH_MAX_DEVICES];
    /* teach_engine_start_services: one service per device on network 0 (its copy on each
     * device after the first, owned here) and the cache the services' searches share */
    int num_services;
    nn_service *service[TEACH_MAX_DEVICES];
    nn_model *device_model[TEACH_MAX_DEVICES];
    mcts_cache *shared_cache;
};

/* ---- options ------------------------------------------------------------------------------ */

void teach_options_init(teach_options *o)
{
    memset(o, 0, sizeof *o);
    o->params = mcts_params_default();
    o->play = teach_play_params_default();
}

static char *trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    size_t n = strlen(s);
    while (n > 0 && isspace((unsigned char)s[n - 1]))
        s[--n] = 0;
    return s;
}

bool teach_set_param(mcts_params *p, teach_play_params *play, const char *name, const char *value,
                     char *err, int err_len)
{
    char probe[64];
    if (play && !mcts_params_get(p, name, probe, sizeof probe) &&
        teach_play_params_get(play, name, probe, sizeof probe))
        return teach_play_params_set(play, name, value, err, err_len);
    if (!strcasecmp(name, "maxTime")) {
        char *end;
        double s = strtod(value, &end);
        if (end == value || *end || !isfinite(s) || s < 0 || s > 1e9) {
            snprintf(err, (size_t)err_len, "bad value '%s' for maxTime (seconds)", value);
            return false;
        }
        char ms[32];
        snprintf(ms, sizeof ms, "%.0f", s * 1000.0);
        return mcts_params_set(p, "max_time_ms", ms, err, err_len);
    }
    return mcts_params_set(p, name, value, err, err_len);
}

bool teach_read_config(mcts_params *p, teach_play_params *play, const char *path, char *err,
                       int err_len)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, (size_t)err_len, "%s: cannot open the config file", path);
        return false;
    }
    char line[1024], why[256];
    bool ok = true;
    for (int num = 1; ok && fgets(line, sizeof line, f); num++) {
        char *hash = strchr(line, '#');
        if (hash)
            *hash = 0;
        char *s = trim(line);
        if (!*s)
            continue;
        char *eq = strchr(s, '=');
        if (!eq) {
            snprintf(err, (size_t)err_len, "%s:%d: expected 'name = value'", path, num);
            ok = false;
            break;
        }
        *eq = 0;
        char *name = trim(s), *value = trim(eq + 1);
        if (!teach_set_param(p, play, name, value, why, sizeof why)) {
            snprintf(err, (size_t)err_len, "%s:%d: %s", path, num, why);
            ok = false;
        }
    }
    if (ok && ferror(f)) {
        snprintf(err, (size_t)err_len, "%s: read error", path);
        ok = false;
    }
    fclose(f);
    return ok;
}

bool teach_backend_check(const char *name, char *err, int err_len)
{
    const char *const *names = nn_backend_names();
    char list[128] = "";
    size_t name_len = strcspn(name, ":");
    for (int i = 0; names[i]; i++) {
        if (strlen(names[i]) == name_len && !strncmp(names[i], name, name_len))
            return true;
        size_t n = strlen(list);
        snprintf(list + n, sizeof list - n, "%s%s", i ? " " : "", names[i]);
    }
    snprintf(err, (size_t)err_len, "unknown backend (this build has: %s)", list);
    return false;
}

/* The shared options that take a value; `alias` lists the old spellings of each. */
enum { OPT_WEIGHTS, OPT_BACKEND, OPT_THREADS, OPT_VISITS, OPT_CONFIG, OPT_SET };
static const struct {
    const char *name, *alias[3];
} options[] = {
    [OPT_WEIGHTS] = {"--weights", {"-w", "--model", "-model"}},
    [OPT_BACKEND] = {"--backend", {NULL}},
    [OPT_THREADS] = {"--threads", {NULL}},
    [OPT_VISITS] = {"--visits", {NULL}},
    [OPT_CONFIG] = {"--config", {"-config", NULL}},
    [OPT_SET] = {"--set", {NULL}},
};
#define NUM_OPTIONS ((int)(sizeof options / sizeof options[0]))

/* Which option arg names, and where its value is written with '=' (NULL when not). -1 for none. */
static int find_option(const char *arg, const char **inline_value)
{
    *inline_value = NULL;
    for (int k = 0; k < NUM_OPTIONS; k++) {
        size_t n = strlen(options[k].name);
        if (!strcmp(arg, options[k].name))
            return k;
        if (!strncmp(arg, options[k].name, n) && arg[n] == '=') {
            *inline_value = arg + n + 1;
            return k;
        }
        for (int a = 0; a < 3 && options[k].alias[a]; a++)
            if (!strcmp(arg, options[k].alias[a]))
                return k;
    }
    return -1;
}

int teach_options_parse(teach_options *o, int argc, char **argv, int *i, char *err, int err_len)
{
    const char *opt = argv[*i], *v;
    int k = find_option(opt, &v);
    if (k < 0)
        return 0;
    if (!v) {
        if (*i + 1 >= argc) {
            snprintf(err, (size_t)err_len, "option '%s' needs a value", opt);
            return -1;
        }
        v = argv[++*i];
    }
    char why[512] = "";
    bool ok = true;
    switch (k) {
    case OPT_WEIGHTS:
        if (!*v) {
            snprintf(why, sizeof why, "expected a file name");
            ok = false;
        } else if (o->num_weights == TEACH_MAX_NETS) {
            snprintf(why, sizeof why, "too many networks (at most %d)", TEACH_MAX_NETS);
            ok = false;
        } else {
            o->weights[o->num_weights++] = v;
        }
        break;
    case OPT_BACKEND:
        ok = teach_backend_check(v, why, sizeof why);
        if (ok && strlen(v) >= sizeof o->backend) {
            snprintf(why, sizeof why, "too long");
            ok = false;
        }
        if (ok)
            snprintf(o->backend, sizeof o->backend, "%s", v);
        break;
    case OPT_THREADS:
        ok = mcts_params_set(&o->params, "num_threads", v, why, sizeof why);
        if (ok)
            o->threads = o->params.num_threads;
        break;
    case OPT_VISITS:
        ok = mcts_params_set(&o->params, "max_visits", v, why, sizeof why);
        break;
    case OPT_CONFIG:
        if (!teach_read_config(&o->params, &o->play, v, err, err_len))
            return -1;
        break;
    default: {
        char buf[512];
        snprintf(buf, sizeof buf, "%s", v);
        char *eq = strchr(buf, '=');
        if (!eq) {
            snprintf(why, sizeof why, "expected NAME=VALUE");
            ok = false;
        } else {
            *eq = 0;
            ok = teach_set_param(&o->params, &o->play, trim(buf), trim(eq + 1), why, sizeof why);
        }
        break;
    }
    }
    if (!ok) {
        snprintf(err, (size_t)err_len, "%s %s: %s", opt, v, why);
        return -1;
    }
    return 1;
}

const char *teach_options_synopsis(void)
{
    return "[-w FILE]... [--backend NAME] [--threads T] [--visits N] [--config FILE] "
           "[--set NAME=VALUE]...";
}

const char *teach_options_help(void)
{
    return "  -w, --weights FILE  a network: Leela Zero or KataGo (.txt, .bin, gzipped or not)\n"
           "  --backend NAME      cpu, ref or cuda, with options after a colon (cuda:fp32)\n"
           "  --threads T         threads (search threads, or the command's workers)\n"
           "  --visits N          visits per search (max_visits)\n"
           "  --config FILE       `name = value` lines of search tunables ('#' comments)\n"
           "  --set NAME=VALUE    one tunable of the search or the move choice (kata-list-params\n"
           "                      lists them; e.g. play_policy=ABC25, style=center19)\n"
           "  (older spellings still read: --model and -model for -w, -config for --config)\n";
}

/* ---- the engine --------------------------------------------------------------------------- */

/* Parses the profile the tunables name, if any, into e->profile. */
static bool take_profile(teach_engine *e, char *err, int err_len)
{
    e->has_profile = e->params.human_sl_profile[0] != 0;
    return !e->has_profile ||
           nn_kata_profile_parse(e->params.human_sl_profile, &e->profile, err, err_len);
}

static bool add_model(teach_engine *e, nn_model *m, const char *name, char *err, int err_len)
{
    if (nn_model_family(m) == NN_FAMILY_DISC) {
        snprintf(err, (size_t)err_len, "%s: a tsumego discriminator judges problems, it does not "
                 "play or analyse: give a Leela Zero or KataGo network", name);
        nn_model_free(m);
        return false;
    }
    char *copy = strdup(name);
    if (!copy) {
        snprintf(err, (size_t)err_len, "%s: out of memory", name);
        nn_model_free(m);
        return false;
    }
    e->model[e->num_nets] = m;
    e->name[e->num_nets++] = copy;
    return true;
}

/* Splits a device list off backend ("cuda:fp16,device=all", "cuda:device=0,2"): base gets the
 * backend without it, devices the devices (all of those nn_backend_devices counts for "all",
 * none when there is no device). *n = -1: no list (no device option, or one device=N: backend
 * stands as given). False with a message on a bad list. */
static bool split_devices(const char *backend, char *base, size_t base_len, int *devices, int *n,
                          char *err, int err_len)
{
    *n = -1;
    snprintf(base, base_len, "%s", backend);
    const char *colon = strchr(backend, ':');
    if (!colon)
        return true;
    char opts[TEACH_BACKEND_LEN];
    snprintf(opts, sizeof opts, "%s", colon + 1);
    size_t at = (size_t)(colon - backend);
    base[at] = 0;
    int count = 0;
    bool in_list = false, all = false, first_opt = true;
    for (char *tok = strtok(opts, ","); tok; tok = strtok(NULL, ",")) {
        bool digits = tok[0] && strspn(tok, "0123456789") == strlen(tok);
        if (!strncmp(tok, "device=", 7) && !strcmp(tok + 7, "all")) {
            all = in_list = true;
            continue;
        }
        if (!strncmp(tok, "device=", 7) && strspn(tok + 7, "0123456789") == strlen(tok + 7) &&
            tok[7]) {
            in_list = true;
            tok += 7;
            digits = true;
        } else if (!digits || !in_list || all) {
            in_list = false;
            size_t len = strlen(base);
            snprintf(base + len, base_len - len, "%s%s", first_opt ? ":" : ",", tok);
            first_opt = false;
            continue;
        }
        if (count == TEACH_MAX_DEVICES || atoi(tok) > 255) {
            snprintf(err, (size_t)err_len, "backend %s: at most %d devices, numbered 0..255",
                     backend, TEACH_MAX_DEVICES);
            return false;
        }
        devices[count++] = atoi(tok);
    }
    if (all) {
        count = nn_backend_devices(base);
        count = count > TEACH_MAX_DEVICES ? TEACH_MAX_DEVICES : count;
        for (int i = 0; i < count; i++)
            devices[i] = i;
    } else if (count <= 1) {
        snprintf(base, base_len, "%s", backend);   /* device=N alone: the backend's own option */
        return true;
    }
    *n = count;
    return true;
}

/* The backend for device d: base plus device=d. */
static void device_backend(const teach_engine *e, int d, char *out, size_t len)
{
    snprintf(out, len, "%s%sdevice=%d", e->base_backend, strchr(e->base_backend, ':') ? "," : ":",
             d);
}

teach_engine *teach_engine_new(const teach_options *o, char *err, int err_len)
{
    teach_options defaults;
    if (!o) {
        teach_options_init(&defaults);
        o = &defaults;
    }
    teach_engine *e = calloc(1, sizeof *e);
    if (!e) {
        snprintf(err, (size_t)err_len, "out of memory");
        return NULL;
    }
    snprintf(e->backend, sizeof e->backend, "%s", o->backend);
    e->params = o->params;
    e->play = o->play;
    int n = -1;
    bool ok = take_profile(e, err, err_len) &&
              split_devices(e->backend, e->base_backend, sizeof e->base_backend, e->devices, &n,
                            err, err_len);
    e->num_devices = n > 0 ? n : 0;
    char load[TEACH_BACKEND_LEN + 16];
    snprintf(load, sizeof load, "%s", e->backend);
    if (ok && n == 0)   /* a device list, no device here: the backend's fallback says so */
        fprintf(stderr, "teach: backend %s: no device of %s here; one evaluation service\n",
                e->backend, e->base_backend);
    if (n >= 0)
        snprintf(load, sizeof load, "%s", e->base_backend);
    if (n > 0)
        device_backend(e, e->devices[0], load, sizeof load);
    for (int i = 0; ok && i < o->num_weights; i++) {
        nn_model *m = nn_model_load(o->weights[i], load[0] ? load : NULL, err, err_len);
        ok = m && add_model(e, m, o->weights[i], err, err_len);
    }
    if (!ok) {
        teach_engine_free(e);
        return NULL;
    }
    return e;
}

void teach_engine_free(teach_engine *e)
{
    if (!e)
        return;
    for (int i = 0; i < e->num_services; i++) {
        nn_service_free(e->service[i]);
        nn_model_free(e->device_model[i]);
    }
    mcts_cache_delete(e->shared_cache);
    for (int i = 0; i < e->num_nets; i++) {
        nn_context_free(e->ctx[i]);
        nn_model_free(e->model[i]);
        free(e->name[i]);
    }
    free(e);
}

bool teach_engine_add_desc(teach_engine *e, nn_desc *d, const char *name, char *err, int err_len)
{
    if (e->num_nets == TEACH_MAX_NETS) {
        snprintf(err, (size_t)err_len, "%s: too many networks (at most %d)", name,
                 TEACH_MAX_NETS);
        nn_desc_free(d);
        return false;
    }
    nn_model *m = nn_model_from_desc(d, e->backend[0] ? e->backend : NULL, err, err_len);
    return m && add_model(e, m, name, err, err_len);
}

int teach_engine_num_nets(const teach_engine *e) { return e->num_nets; }

bool teach_engine_start_services(teach_engine *e, int max_batch, int contexts, int wait_us,
                                 char *err, int err_len)
{
    if (e->num_services > 0)
        return true;
    if (e->num_nets == 0) {
        snprintf(err, (size_t)err_len, "no network loaded (start with --weights FILE)");
        return false;
    }
    if (!(e->shared_cache = mcts_cache_new(e->params.nn_cache_size, err, err_len)))
        return false;
    int n = e->num_devices > 0 ? e->num_devices : 1;
    for (int i = 0; i < n; i++) {
        nn_model *m = e->model[0];
        if (i > 0) {
            char backend[TEACH_BACKEND_LEN + 16];
            device_backend(e, e->devices[i], backend, sizeof backend);
            if (!(m = e->device_model[i] = nn_model_load(e->name[0], backend, err, err_len)))
                break;
        }
        if (!(e->service[i] = nn_service_new(m, max_batch, contexts, wait_us, err, err_len))) {
            nn_model_free(e->device_model[i]);
            e->device_model[i] = NULL;
            break;
        }
        e->num_services++;
    }
    if (e->num_services == n)
        return true;
    for (int i = 0; i < e->num_services; i++) {
        nn_service_free(e->service[i]);
        nn_model_free(e->device_model[i]);
        e->service[i] = NULL;
        e->device_model[i] = NULL;
    }
    e->num_services = 0;
    mcts_cache_delete(e->shared_cache);
    e->shared_cache = NULL;
    return false;
}

int teach_engine_num_services(const teach_engine *e) { return e->num_services; }

nn_service *teach_engine_service(teach_engine *e, int i)
{
    return e->num_services > 0 ? e->service[i % e->num_services] : NULL;
}

mcts_cache *teach_engine_shared_cache(teach_engine *e) { return e->shared_cache; }

int teach_engine_num_devices(const teach_engine *e) { return e->num_devices; }

nn_model *teach_engine_model(teach_engine *e, int i)
{
    return i >= 0 && i < e->num_nets ? e->model[i] : NULL;
}

const char *teach_engine_net_name(const teach_engine *e, int i)
{
    return i >= 0 && i < e->num_nets ? e->name[i] : NULL;
}

const nn_desc *teach_engine_desc(const teach_engine *e, int i)
{
    return i >= 0 && i < e->num_nets ? nn_model_desc(e->model[i]) : NULL;
}

const char *teach_engine_backend(const teach_engine *e) { return e->backend; }

const mcts_params *teach_engine_params(const teach_engine *e) { return &e->params; }

const teach_play_params *teach_engine_play_params(const teach_engine *e) { return &e->play; }


bool teach_engine_set_param(teach_engine *e, const char *name, const char *value, char *err,
                            int err_len)
{
    mcts_params p = e->params;
    teach_play_params play = e->play;
    if (!teach_set_param(&p, &play, name, value, err, err_len))
        return false;
    e->play = play;
    teach_engine_set_params(e, &p);
    return true;
}

void teach_engine_set_params(teach_engine *e, const mcts_params *p)
{
    e->params = *p;
    char ignore[256];
    /* mcts_params_set checked the name; a profile that no longer parses is reported by the
     * evaluations that need it */
    if (!take_profile(e, ignore, sizeof ignore))
        e->has_profile = false;
}

bool teach_engine_eval(teach_engine *e, int net, const go_game *g, int sym, double optimism,
                       nn_result *out, char *err, int err_len)
{
    if (net < 0 || net >= e->num_nets) {
        snprintf(err, (size_t)err_len, "no network %d (%d loaded)", net + 1, e->num_nets);
        return false;
    }
    if (sym != TEACH_SYM_AVERAGE && (sym < 0 || sym > 7)) {
        snprintf(err, (size_t)err_len, "symmetry %d out of range 0..7", sym);
        return false;
    }
    if (!e->ctx[net] && !(e->ctx[net] = nn_context_new(e->model[net], EVAL_BATCH, err, err_len)))
        return false;
    nn_context_set_profile(e->ctx[net], e->has_profile ? &e->profile : NULL);
    if (sym == TEACH_SYM_AVERAGE)
        return nn_eval_average(e->ctx[net], g, 0xff, optimism, out, err, err_len);
    nn_query q = {.game = g, .symmetry = sym, .policy_optimism = optimism};
    return nn_eval(e->ctx[net], 1, &q, out, err, err_len);
}
