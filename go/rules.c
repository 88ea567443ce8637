/* go/rules.c -- KataGo-equivalent rules record, presets, text and JSON forms. */
#include "go/rules.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

typedef struct {
    const char *name;
    go_rules rules;
} rules_preset;

/* The first name of each distinct rule set is the one go_rules_name reports. */
static const rules_preset presets[] = {
    {"tromp-taylor", {GO_KO_POSITIONAL, GO_SCORING_AREA, GO_TAX_NONE, true, false, GO_WHB_ZERO, false}},
    {"chinese", {GO_KO_SIMPLE, GO_SCORING_AREA, GO_TAX_NONE, false, false, GO_WHB_N, true}},
    {"chinese-ogs", {GO_KO_POSITIONAL, GO_SCORING_AREA, GO_TAX_NONE, false, false, GO_WHB_N, true}},
    {"chinese-kgs", {GO_KO_POSITIONAL, GO_SCORING_AREA, GO_TAX_NONE, false, false, GO_WHB_N, true}},
    {"japanese", {GO_KO_SIMPLE, GO_SCORING_TERRITORY, GO_TAX_SEKI, false, false, GO_WHB_ZERO, false}},
    {"korean", {GO_KO_SIMPLE, GO_SCORING_TERRITORY, GO_TAX_SEKI, false, false, GO_WHB_ZERO, false}},
    {"aga", {GO_KO_SITUATIONAL, GO_SCORING_AREA, GO_TAX_NONE, false, false, GO_WHB_N_MINUS_ONE, true}},
    {"bga", {GO_KO_SITUATIONAL, GO_SCORING_AREA, GO_TAX_NONE, false, false, GO_WHB_N_MINUS_ONE, true}},
    {"french", {GO_KO_SITUATIONAL, GO_SCORING_AREA, GO_TAX_NONE, false, false, GO_WHB_N_MINUS_ONE, true}},
    {"aga-button", {GO_KO_SITUATIONAL, GO_SCORING_AREA, GO_TAX_NONE, false, true, GO_WHB_N_MINUS_ONE, true}},
    {"new-zealand", {GO_KO_SITUATIONAL, GO_SCORING_AREA, GO_TAX_NONE, true, false, GO_WHB_ZERO, true}},
    {"stone-scoring", {GO_KO_SIMPLE, GO_SCORING_AREA, GO_TAX_ALL, false, false, GO_WHB_ZERO, true}},
};
#define NUM_PRESETS (int)(sizeof presets / sizeof presets[0])

/* Compares names ignoring case and treating '_', '-' and ' ' alike. */
static bool name_equal(const char *a, const char *b)
{
    for (;; a++, b++) {
        int ca = tolower((unsigned char)*a), cb = tolower((unsigned char)*b);
        if (ca == '_' || ca == ' ')
            ca = '-';
        if (cb == '_' || cb == ' ')
            cb = '-';
        if (ca != cb)
            return false;
        if (!ca)
            return true;
    }
}

bool go_rules_preset(go_rules *r, const char *name)
{
    static const struct {
        const char *alias, *name;
    } aliases[] = {{"tromptaylor", "tromp-taylor"}, {"tt", "tromp-taylor"},
                   {"newzealand", "new-zealand"}, {"nz", "new-zealand"},
                   {"stonescoring", "stone-scoring"}, {"agabutton", "aga-button"}};
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
        if (name_equal(name, aliases[i].alias))
            name = aliases[i].name;
    for (int i = 0; i < NUM_PRESETS; i++)
        if (name_equal(name, presets[i].name)) {
            *r = presets[i].rules;
            return true;
        }
    return false;
}

static bool rules_equal(const go_rules *a, const go_rules *b)
{
    return a->ko == b->ko && a->scoring == b->scoring && a->tax == b->tax &&
           a->multi_stone_suicide == b->multi_stone_suicide && a->button == b->button &&
           a->white_handicap_bonus == b->white_handicap_bonus &&
           a->friendly_pass_ok == b->friendly_pass_ok;
}

const char *go_rules_name(const go_rules *r)
{
    for (int i = 0; i < NUM_PRESETS; i++)
        if (rules_equal(r, &presets[i].rules))
            return presets[i].name;
    return NULL;
}

const char *go_ko_rule_name(go_ko_rule k)
{
    return k == GO_KO_SIMPLE ? "SIMPLE" : k == GO_KO_POSITIONAL ? "POSITIONAL" : "SITUATIONAL";
}
const char *go_scoring_rule_name(go_scoring_rule s)
{
    return s == GO_SCORING_AREA ? "AREA" : "TERRITORY";
}
const char *go_tax_rule_name(go_tax_rule t)
{
    return t == GO_TAX_NONE ? "NONE" : t == GO_TAX_SEKI ? "SEKI" : "ALL";
}
const char *go_whb_rule_name(go_whb_rule w)
{
    return w == GO_WHB_ZERO ? "0" : w == GO_WHB_N_MINUS_ONE ? "N-1" : "N";
}

static bool parse_bool(const char *v, bool *out)
{
    if (!strcasecmp(v, "true") || !strcmp(v, "1")) {
        *out = true;
        return true;
    }
    if (!strcasecmp(v, "false") || !strcmp(v, "0")) {
        *out = false;
        return true;
    }
    return false;
}

bool go_rules_set(go_rules *r, const char *key, const char *v)
{
    go_rules t = *r;
    bool ok = false;
    if (!strcasecmp(key, "ko") || !strcasecmp(key, "koRule")) {
        ok = true;
        if (!strcasecmp(v, "SIMPLE"))
            t.ko = GO_KO_SIMPLE;
        else if (!strcasecmp(v, "POSITIONAL"))
            t.ko = GO_KO_POSITIONAL;
        else if (!strcasecmp(v, "SITUATIONAL"))
            t.ko = GO_KO_SITUATIONAL;
        else
            ok = false;
    } else if (!strcasecmp(key, "scoring") || !strcasecmp(key, "scoringRule")) {
        ok = true;
        if (!strcasecmp(v, "AREA"))
            t.scoring = GO_SCORING_AREA;
        else if (!strcasecmp(v, "TERRITORY"))
            t.scoring = GO_SCORING_TERRITORY;
        else
            ok = false;
    } else if (!strcasecmp(key, "tax") || !strcasecmp(key, "taxRule")) {
        ok = true;
        if (!strcasecmp(v, "NONE"))
            t.tax = GO_TAX_NONE;
        else if (!strcasecmp(v, "SEKI"))
            t.tax = GO_TAX_SEKI;
        else if (!strcasecmp(v, "ALL"))
            t.tax = GO_TAX_ALL;
        else
            ok = false;
    } else if (!strcasecmp(key, "suicide") || !strcasecmp(key, "multiStoneSuicideLegal")) {
        ok = parse_bool(v, &t.multi_stone_suicide);
    } else if (!strcasecmp(key, "hasButton") || !strcasecmp(key, "button")) {
        ok = parse_bool(v, &t.button);
    } else if (!strcasecmp(key, "friendlyPassOk")) {
        ok = parse_bool(v, &t.friendly_pass_ok);
    } else if (!strcasecmp(key, "whiteHandicapBonus") || !strcasecmp(key, "whiteHandicapBonusRule")) {
        ok = true;
        if (!strcmp(v, "0"))
            t.white_handicap_bonus = GO_WHB_ZERO;
        else if (!strcasecmp(v, "N-1"))
            t.white_handicap_bonus = GO_WHB_N_MINUS_ONE;
        else if (!strcasecmp(v, "N"))
            t.white_handicap_bonus = GO_WHB_N;
        else
            ok = false;
    }
    if (ok)
        *r = t;
    return ok;
}

int go_rules_to_json(const go_rules *r, char *buf, int len)
{
    int n = snprintf(buf, (size_t)len,
                     "{\"friendlyPassOk\":%s,\"hasButton\":%s,\"ko\":\"%s\",\"scoring\":\"%s\","
                     "\"suicide\":%s,\"tax\":\"%s\",\"whiteHandicapBonus\":\"%s\"}",
                     r->friendly_pass_ok ? "true" : "false", r->button ? "true" : "false",
                     go_ko_rule_name(r->ko), go_scoring_rule_name(r->scoring),
                     r->multi_stone_suicide ? "true" : "false", go_tax_rule_name(r->tax),
                     go_whb_rule_name(r->white_handicap_bonus));
    return n < len ? n : len - 1;
}

/* Reads a JSON string or bare token starting at *s into out; advances *s. */
static bool json_token(const char **s, char *out, int len)
{
    const char *p = *s;
    while (isspace((unsigned char)*p))
        p++;
    int n = 0;
    if (*p == '"') {
        p++;
        while (*p && *p != '"') {
            if (n >= len - 1)
                return false;
            out[n++] = *p++;
        }
        if (*p != '"')
            return false;
        p++;
    } else {
        while (*p && (isalnum((unsigned char)*p) || *p == '-' || *p == '_' || *p == '.')) {
            if (n >= len - 1)
                return false;
            out[n++] = *p++;
        }
        if (n == 0)
            return false;
    }
    out[n] = 0;
    *s = p;
    return true;
}

static bool expect(const char **s, char c)
{
    while (isspace((unsigned char)**s))
        (*s)++;
    if (**s != c)
        return false;
    (*s)++;
    return true;
}

bool go_rules_parse(go_rules *r, const char *text, char *err, int err_len)
{
    while (isspace((unsigned char)*text))
        text++;
    if (*text != '{') {
        char name[64];
        size_t n = strcspn(text, " \t\r\n");
        if (n == 0 || n >= sizeof name) {
            snprintf(err, (size_t)err_len, "unknown rules '%s'", text);
            return false;
        }
        memcpy(name, text, n);
        name[n] = 0;
        if (!go_rules_preset(r, name)) {
            snprintf(err, (size_t)err_len, "unknown rules '%s'", name);
            return false;
        }
        return true;
    }
    go_rules t = *r;
    const char *s = text + 1;
    if (expect(&s, '}'))
        goto done;
    for (;;) {
        char key[64], val[64];
        if (!json_token(&s, key, sizeof key) || !expect(&s, ':') ||
            !json_token(&s, val, sizeof val)) {
            snprintf(err, (size_t)err_len, "malformed rules JSON near '%.20s'", s);
            return false;
        }
        if (!go_rules_set(&t, key, val)) {
            snprintf(err, (size_t)err_len, "unknown rules field or value: %s = %s", key, val);
            return false;
        }
        if (expect(&s, '}'))
            break;
        if (!expect(&s, ',')) {
            snprintf(err, (size_t)err_len, "malformed rules JSON near '%.20s'", s);
            return false;
        }
    }
done:
    while (isspace((unsigned char)*s))
        s++;
    if (*s) {
        snprintf(err, (size_t)err_len, "trailing text after rules JSON: '%.20s'", s);
        return false;
    }
    *r = t;
    return true;
}

bool go_komi_check(double komi, char *err, int err_len)
{
    /* KataGo's bound: nets are trained within it, and past it the score terms mean nothing */
    if (!isfinite(komi) || fabs(komi) > 150 || komi * 2 != floor(komi * 2)) {
        snprintf(err, (size_t)err_len, "komi must be a multiple of 0.5 within [-150, 150]");
        return false;
    }
    return true;
}
