/* tools/features_json.h -- move features (teach/features.h) and small values as cJSON, the way
 * `shido features`, `shido fuseki-quiz` and `shido review` print them: numbers rounded to 6
 * decimals, unknown values (NAN, a distance of -1) as null. */
#ifndef SHIDO_TOOLS_FEATURES_JSON_H
#define SHIDO_TOOLS_FEATURES_JSON_H

#include <cjson/cJSON.h>
#include <stdbool.h>

#include "teach/features.h"

/* A number rounded to 6 decimals, null for NAN or infinity. NULL when out of memory. */
cJSON *fj_number(double v);

/* Adds key: fj_number(v) to o; adds nothing for a NULL o. */
void fj_add_number(cJSON *o, const char *key, double v);

/* Adds key: the GTP vertex of move ("D4", "pass") on a size x size board, null for GO_NO_POINT. */
void fj_add_vertex(cJSON *o, const char *key, int size, int move);

/* Adds key: an integer, null when v < 0 and null_negative. */
void fj_add_int(cJSON *o, const char *key, long long v, bool null_negative);

/* The features of one move as an object: move, remiDistRef, remiDist (to the last move),
 * remiDist2 (to the one before), density, priorKataGo, humanPrior, policyRank, scoreLead,
 * winrate, scoreLoss, strengthenOwn, weakenOpp, visits. NULL when out of memory; the caller
 * deletes it (or adds it to a tree). */
cJSON *fj_features(const teach_move_features *f, int size);

#endif
