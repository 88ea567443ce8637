/* tools/analysis_json.h -- `shido analysis`: KataGo's JSON analysis protocol on stdin/stdout
 * (what KaTrain, Ogatak and puzzle miners speak).
 *
 * Input: one JSON object per line. A query
 *   {"id":"q1","moves":[["B","D4"],["W","Q16"]],"initialStones":[["B","C3"]],
 *    "initialPlayer":"B","rules":"japanese"|{...kata-set-rules fields...},"komi":6.5,
 *    "boardXSize":9,"boardYSize":9,"analyzeTurns":[0,2],"maxVisits":32,
 *    "includeOwnership":true,"includeMovesOwnership":false,"includePolicy":true,
 *    "includePVVisits":false,"includeNoResultValue":false,"analysisPVLen":15,
 *    "rootPolicyTemperature":1,"rootFpuReductionMax":0.1,"whiteHandicapBonus":"N",
 *    "avoidMoves":[{"player":"B","moves":["C3"],"untilDepth":1}],"allowMoves":[...],
 *    "reportDuringSearchEvery":0.5,
 *    "overrideSettings":{"maxVisits":64,"maxTime":1.5,"reportAnalysisWinratesAs":"BLACK",
 *                        "wideRootNoise":0.04, any mcts_params name},
 *    "priority":0 | "priorities":[one per analyzeTurns entry]}
 * Vertices are GTP's ("D4", "pass") or KataGo's "(x,y)" from the top left. A query is checked
 * when read (errors and warnings come at once; every move must be legal: "Illegal move N: ...").
 * Each turn is then a unit of work: the waiting turn of highest priority runs next (the earliest
 * read among equals), searched afresh under its query's own settings (no tree is kept from one
 * turn to the next; the network cache is). It is answered with one line:
 *   {"id","turnNumber","isDuringSearch","moveInfos":[{"move","visits","edgeVisits","weight",
 *    "edgeWeight","playSelectionValue","winrate","scoreLead","scoreMean","scoreSelfplay",
 *    "scoreStdev","prior","lcb","utility","utilityLcb","order","pv",["pvVisits",
 *    "pvEdgeVisits"],["ownership"]}...],"rootInfo":{"winrate","scoreLead","scoreSelfplay",
 *    "utility","visits","currentPlayer","lcb","thisHash","symHash","rawWinrate",
 *    "rawNoResultProb","rawLead","rawScoreSelfplay","rawScoreSelfplayStdev",["rawStWrError",
 *    "rawStScoreError","rawVarTimeLeft"],["noResultValue"]},["ownership"],["policy"]}
 * ("noResultValue" in every moveInfo too with includeNoResultValue)
 * Weights are visits (every visit weighs 1 here); playSelectionValue is the visits, the chosen
 * move's raised to the most (KataGo's values with its LCB choice); the raw values are one
 * network evaluation of the position (the mean over the eight symmetries with includePolicy,
 * whose policy it is), the error and time heads where the net has them;
 * noResultValue is the search's mean no-result probability (0 for nets without the head).
 * Hashes are 64-bit hex: thisHash of stones, side to move and ko ban, symHash the
 * least over the eight symmetries.
 * "includeMoveFeatures":true (shido) adds seed 000's features to every moveInfo: "remiDist",
 * "remiDist2" (Rémi distance to the last move and the one before, null when none), "density",
 * "scoreLoss" (the first move's scoreLead less this one's), "humanPrior" (the second network's
 * policy, else the first's), "strengthenOwn", "weakenOpp" (eqs. 2 and 3, null without an
 * ownership head), all in the mover's view whatever the perspective (see tools/gtp.h's
 * kata-analyze moveFeatures for how each is computed).
 * Values are from the view of reportAnalysisWinratesAs (BLACK by default, as KataGo's analysis
 * config); ownership is row-major from the top row, policy has size^2 + 1 entries (pass last,
 * -1 on illegal moves). Boards must be square (2..19).
 * Actions are echoed back with their own fields: {"id","action":"query_version"} (plus
 * "version", "git_hash"), {"id","action":"query_models"} (plus "models": name, internalName,
 * maxBatchSize, usesHumanSLProfile, version, usingFP16), {"id","action":"clear_cache"} (once
 * the running turn is done), {"id","action":"terminate","terminateId":ID[,"turnNumbers":[..]]}
 * and {"id","action":"terminate_all"[,"turnNumbers":[..]]} (only the turns listed, when
 * listed); terminated turns not analysed are reported as {"id","turnNumber",
 * "isDuringSearch":false,"noResults":true}.
 * Errors: {"id":ID,"error":MESSAGE[,"field":NAME]} (id null when the line is not JSON); warnings
 * {"id","warning","field"} for fields ignored. Neither ends the process. Turns run one at a
 * time; the input is read while a search runs (terminate stops it) and before each turn is
 * chosen. With --parallel N, N worker threads each take the waiting turn of highest priority
 * when free and answer it when done (answers in order of completion), while the main thread
 * reads; their searches evaluate through one batching service per device (nn.h's nn_service)
 * and share one network cache, and clear_cache clears it at once. At the end of input the
 * queries already read are answered, then the process exits with 0.
 * Lines are parsed with cJSON; a line over GTP_MAX_LINE bytes, nested deeper than 64 levels or
 * with a number out of double range is answered as not JSON.
 */
#ifndef SHIDO_TOOLS_ANALYSIS_JSON_H
#define SHIDO_TOOLS_ANALYSIS_JSON_H

#include <cjson/cJSON.h>
#include <stdio.h>

#include "teach/engine.h"

/* shido analysis -w NET [--backend NAME] [--visits N] [--threads T] [--set NAME=VALUE]...
 *                [--config FILE] [--parallel N] [--nn-contexts K]
 * Serves queries from in until its end. Returns the process exit status. */
int shido_cmd_analysis(int argc, char **argv);

/* The networks of e as KataGo's query_models and kata-get-models list them: an array of
 * {name (the file's base name), internalName, maxBatchSize, usesHumanSLProfile, version,
 * usingFP16}. NULL when out of memory; the caller deletes it. */
cJSON *shido_models_json(teach_engine *e);

/* Answers the lines of in on out as `shido analysis` would, without a network or a search:
 * errors, warnings and action echoes only (a valid query's turns are set up, not analysed).
 * For the fuzzer and tests. Returns 0, or 1 when out could not be written. */
int shido_analysis_check(FILE *in, FILE *out);

#endif
