/* teach/engine.h -- engine set-up: the one option vocabulary every front end (gtp, analysis,
 * tsumego, bench) understands, turned into loaded networks on a backend and the search tunables.
 *
 * Options (teach_options_parse; every subcommand spells them the same):
 *   -w FILE, --weights FILE, --weights=FILE   a network (Leela Zero or KataGo, any format
 *                                             weights/ reads); repeatable where two nets make
 *                                             sense, the first drives play
 *   --backend NAME[:OPTIONS]                  cpu, ref or cuda (nn_backend_names); a device
 *                                             list (cuda:device=all, cuda:device=0,1) loads
 *                                             the networks on the first device, and the
 *                                             evaluation services (below) take one each
 *   --threads T                               search threads (a command with threads of its
 *                                             own, such as a benchmark, reads opts->threads)
 *   --visits N                                the search's max_visits
 *   --config FILE                             `name = value` lines of search tunables
 *   --set NAME=VALUE                          one tunable (mcts_params names, KataGo's too)
 * Older spellings keep working: -model and --model (for -w), -config (for --config).
 *
 * An engine holds every network it was given, each parsed once (nn_model_load) and bound to the
 * backend asked for, and the search tunables in force. It evaluates positions for the raw-output
 * commands (kata-raw-nn, heatmap, the policy of an analysis) on small contexts of its own; the
 * searches and solvers that play run on its models through teach/player.h and teach/tsumego.h.
 * One engine is used from one thread at a time.
 */
#ifndef SHIDO_TEACH_ENGINE_H
#define SHIDO_TEACH_ENGINE_H

#include <stdbool.h>

#include "go/game.h"
#include "mcts/mcts.h"
#include "nn/nn.h"
#include "teach/choice.h"

#define TEACH_MAX_NETS 16
#define TEACH_BACKEND_LEN 64
#define TEACH_MAX_DEVICES 16   /* devices one engine spreads its searches over */

/* Visits per move or analysis when neither the tunables nor a clock set a limit (KataGo's
 * example configs use 500 too). */
#define TEACH_DEFAULT_VISITS 500

/* What the shared options asked for. Plain data; weights point into the caller's argv. */
typedef struct teach_options {
    int num_weights;
    const char *weights[TEACH_MAX_NETS];
    char backend[TEACH_BACKEND_LEN];   /* "" for the best one built */
    mcts_params params;                /* --visits, --threads, --config and --set applied */
    teach_play_params play;            /* the move choice's tunables (--set, --config) */
    int threads;                       /* --threads as given, 0 when absent */
} teach_options;

/* Default tunables (mcts_params_default), no network, no backend. */
void teach_options_init(teach_options *o);

/* Applies the shared option at argv[*i], advancing *i past its value. Returns 1 when applied, 0
 * when argv[*i] is not a shared option, -1 on a missing or bad value (a message naming the
 * option in err). */
int teach_options_parse(teach_options *o, int argc, char **argv, int *i, char *err, int err_len);

/* The shared options for a usage line, and their explanation for --help (ends in a newline,
 * mentions the old spellings). Static strings. */
const char *teach_options_synopsis(void);
const char *teach_options_help(void);

/* Sets one tunable by name: the search's (mcts_params_set, KataGo's maxTime in seconds too), or
 * else the move choice's (teach_play_params_set; play may be NULL where no move is chosen). False
 * with a reason in err (both untouched). */
bool teach_set_param(mcts_params *p, teach_play_params *play, const char *name, const char *value,
                     char *err, int err_len);

/* Applies a config file of `name = value` lines ('#' starts a comment). False with a message
 * naming the file and the line in err. */
bool teach_read_config(mcts_params *p, teach_play_params *play, const char *path, char *err,
                       int err_len);

/* Whether this build has the backend name ("cuda:fp32": the options go to the backend); false
 * with the list of those it has in err. */
bool teach_backend_check(const char *name, char *err, int err_len);

typedef struct teach_engine teach_engine;

/* Makes an engine of o (NULL: defaults, no network): loads every network of o->weights on
 * o->backend. NULL with a message naming the file in err when one cannot be loaded or memory
 * runs out. Free with teach_engine_free. */
teach_engine *teach_engine_new(const teach_options *o, char *err, int err_len);
void teach_engine_free(teach_engine *e);

/* Adds a network described in memory (a synthetic net, say) under name; takes d in every case.
 * False with a message in err when it cannot be made or TEACH_MAX_NETS are held. */
bool teach_engine_add_desc(teach_engine *e, nn_desc *d, const char *name, char *err, int err_len);

int teach_engine_num_nets(const teach_engine *e);
/* Network i (0 <= i < num_nets): its model (owned by the engine), the file it came from (or its
 * name), its description. */
nn_model *teach_engine_model(teach_engine *e, int i);
const char *teach_engine_net_name(const teach_engine *e, int i);
const nn_desc *teach_engine_desc(const teach_engine *e, int i);
/* The backend asked for ("" for the best one built). */
const char *teach_engine_backend(const teach_engine *e);

/* The tunables in force: the search's and the move choice's. The players made on the engine take
 * them up at their next move. */
const mcts_params *teach_engine_params(const teach_engine *e);
const teach_play_params *teach_engine_play_params(const teach_engine *e);
/* Sets one tunable of either kind (teach_set_param), or replaces the search's. False with a
 * reason in err. */
bool teach_engine_set_param(teach_engine *e, const char *name, const char *value, char *err,
                            int err_len);
void teach_engine_set_params(teach_engine *e, const mcts_params *p);

/* Evaluation services for many searches at once (the analysis engine's --parallel): one per
 * device of the backend's device list (one when it has none, or no device is here), each on its
 * own copy of network 0 with `contexts` contexts of max_batch positions (nn_service_new; wait_us
 * its gathering bound), and one network cache of the tunables' nn_cache_size that the
 * services' searches share. Idempotent; false with a message in err (nothing started). */
bool teach_engine_start_services(teach_engine *e, int max_batch, int contexts, int wait_us,
                                 char *err, int err_len);
int teach_engine_num_services(const teach_engine *e);
/* Service i modulo their number (NULL before teach_engine_start_services), owned by e; the
 * shared cache (NULL likewise). */
nn_service *teach_engine_service(teach_engine *e, int i);
mcts_cache *teach_engine_shared_cache(teach_engine *e);
/* The devices of --backend's device list found here (0: no list, or none of its devices). */
int teach_engine_num_devices(const teach_engine *e);

/* Symmetry choices of teach_engine_eval besides 0..7. */
#define TEACH_SYM_AVERAGE (-1)   /* the mean over the eight symmetries (nn_eval_average) */

/* Evaluates g on network `net` under symmetry sym (0..7 or TEACH_SYM_AVERAGE) with the policy
 * optimism given, for the human-SL profile of the tunables (none when unset). out is in nn.h's
 * terms. False with a message in err (no such network, a board size or rules the net cannot
 * take, a human-SL net without a profile, out of memory). */
bool teach_engine_eval(teach_engine *e, int net, const go_game *g, int sym, double optimism,
                       nn_result *out, char *err, int err_len);

#endif
