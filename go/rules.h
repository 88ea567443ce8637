/* go/rules.h -- a rules record as expressive as KataGo's, with its named presets.
 *
 * Presets (name: ko, scoring, tax, multi-stone suicide, button, white handicap bonus,
 * friendly pass ok), as KataGo resolves them:
 *   tromp-taylor:  POSITIONAL  AREA       NONE  yes  no  0    no
 *   chinese:       SIMPLE      AREA       NONE  no   no  N    yes
 *   chinese-ogs, chinese-kgs: POSITIONAL AREA NONE no no N    yes
 *   japanese:      SIMPLE      TERRITORY  SEKI  no   no  0    no
 *   korean:        SIMPLE      TERRITORY  SEKI  no   no  0    no
 *   aga, bga, french: SITUATIONAL AREA    NONE  no   no  N-1  yes
 *   aga-button:    SITUATIONAL AREA       NONE  no   yes N-1  yes
 *   new-zealand:   SITUATIONAL AREA       NONE  yes  no  0    yes
 *   stone-scoring: SIMPLE      AREA       ALL   no   no  0    yes
 */
#ifndef SHIDO_GO_RULES_H
#define SHIDO_GO_RULES_H

#include <stdbool.h>

typedef enum { GO_KO_SIMPLE, GO_KO_POSITIONAL, GO_KO_SITUATIONAL } go_ko_rule;
typedef enum { GO_SCORING_AREA, GO_SCORING_TERRITORY } go_scoring_rule;
typedef enum { GO_TAX_NONE, GO_TAX_SEKI, GO_TAX_ALL } go_tax_rule;
typedef enum { GO_WHB_ZERO, GO_WHB_N_MINUS_ONE, GO_WHB_N } go_whb_rule;

typedef struct go_rules {
    go_ko_rule ko;
    go_scoring_rule scoring;
    go_tax_rule tax;
    bool multi_stone_suicide;
    bool button;
    go_whb_rule white_handicap_bonus;
    bool friendly_pass_ok;
} go_rules;

/* Fills r with the named preset (case-insensitive; '_' and '-' equivalent). Returns false for an
 * unknown name, leaving r untouched. */
bool go_rules_preset(go_rules *r, const char *name);

/* The preset name equal to r, or NULL when r is a custom combination. */
const char *go_rules_name(const go_rules *r);

/* Sets one field from KataGo's key/value spelling (ko SIMPLE|POSITIONAL|SITUATIONAL,
 * scoring AREA|TERRITORY, tax NONE|SEKI|ALL, suicide/multiStoneSuicideLegal true|false,
 * hasButton true|false, whiteHandicapBonus 0|N-1|N, friendlyPassOk true|false).
 * Returns false for an unknown key or value. */
bool go_rules_set(go_rules *r, const char *key, const char *value);

/* Writes KataGo's kata-get-rules JSON for r into buf, e.g.
 * {"friendlyPassOk":true,"hasButton":false,"ko":"SIMPLE","scoring":"AREA","suicide":false,
 *  "tax":"NONE","whiteHandicapBonus":"N"}. Returns bytes written. */
int go_rules_to_json(const go_rules *r, char *buf, int len);

/* Parses a kata-set-rules argument: a preset name or a JSON object of the fields above (missing
 * fields keep r's values). Returns false with a reason in err on bad input (r untouched). */
bool go_rules_parse(go_rules *r, const char *text, char *err, int err_len);

/* Whether komi is one KataGo accepts: a multiple of 0.5 within [-150, 150] (GTP's komi and JSON
 * analysis share it). False with the reason in err. */
bool go_komi_check(double komi, char *err, int err_len);

/* The spelling of each enum as KataGo writes it. */
const char *go_ko_rule_name(go_ko_rule k);
const char *go_scoring_rule_name(go_scoring_rule s);
const char *go_tax_rule_name(go_tax_rule t);
const char *go_whb_rule_name(go_whb_rule w);

#endif
