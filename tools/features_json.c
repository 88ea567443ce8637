/* tools/features_json.c -- move features as JSON (features_json.h). */
#include "tools/features_json.h"

#include <math.h>

cJSON *fj_number(double v)
{
    if (!isfinite(v))
        return cJSON_CreateNull();
    return cJSON_CreateNumber(fabs(v) < 1e9 ? round(v * 1e6) / 1e6 : v);
}

void fj_add_number(cJSON *o, const char *key, double v)
{
    if (o)
        cJSON_AddItemToObject(o, key, fj_number(v));
}

void fj_add_vertex(cJSON *o, const char *key, int size, int move)
{
    char v[8];
    if (!o)
        return;
    if (move == GO_NO_POINT)
        cJSON_AddNullToObject(o, key);
    else
        cJSON_AddStringToObject(o, key, go_point_to_gtp(size, move, v));
}

void fj_add_int(cJSON *o, const char *key, long long v, bool null_negative)
{
    if (!o)
        return;
    if (v < 0 && null_negative)
        cJSON_AddNullToObject(o, key);
    else
        cJSON_AddNumberToObject(o, key, (double)v);
}

cJSON *fj_features(const teach_move_features *f, int size)
{
    cJSON *o = cJSON_CreateObject();
    fj_add_vertex(o, "move", size, f->move);
    fj_add_int(o, "remiDistRef", f->dist_ref, true);
    fj_add_int(o, "remiDist", f->dist_last, true);
    fj_add_int(o, "remiDist2", f->dist_last2, true);
    fj_add_number(o, "density", f->density);
    fj_add_number(o, "priorKataGo", f->prior_katago);
    fj_add_number(o, "humanPrior", f->prior_human);
    fj_add_int(o, "policyRank", f->policy_rank, true);
    fj_add_number(o, "scoreLead", f->score_lead);
    fj_add_number(o, "winrate", f->winrate);
    fj_add_number(o, "scoreLoss", f->score_loss);
    fj_add_number(o, "strengthenOwn", f->strengthen_own);
    fj_add_number(o, "weakenOpp", f->weaken_opp);
    fj_add_int(o, "visits", (long long)f->visits, false);
    return o;
}
