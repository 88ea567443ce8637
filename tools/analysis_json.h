/* tools/analysis_json.h -- `shido analysis`: KataGo's JSON analysis protocol on stdin/stdout
 * (what KaTrain, Ogatak and puzzle miners speak).
 *
 * Input: one JSON object per line. A query
 *   {"id":"q1","moves":[["B","D4"],["W","Q16"]],"initialStones":[["B","C3"]],
 *    "initialPlayer":"B","rules":"japanese"|{...kata-set-rules fields...},"komi":6.5,
 *    "boardXSize":9,"boardYSize":9,"analyzeTurns":[0,2],"maxVisits":32,
 *    "includeOwnership":true,"includeMovesOwnership":false,"includePolicy":true,
 *    "includePVVisits":false,
 *    "avoidMoves":[{"player":"B","moves":["C3"],"untilDepth":1}],"allowMoves":[...],
 *    "reportDuringSearchEvery":0.5,
 *    "overrideSettings":{"maxVisits":64,"maxTime":1.5,"reportAnalysisWinratesAs":"BLACK",
 *                        "wideRootNoise":0.0, any mcts_params name},
 *    "priority":0}
 * is answered with one line per analysed turn (in increasing turn order):
 *   {"id","turnNumber","isDuringSearch","moveInfos":[{"move","visits","edgeVisits","winrate",
 *    "scoreLead","scoreMean","scoreSelfplay","scoreStdev","prior","lcb","utility","utilityLcb",
 *    "order","pv",["pvVisits"],["ownership"]}...],"rootInfo":{"winrate","scoreLead",
 *    "scoreSelfplay","utility","visits","currentPlayer"},["ownership"],["policy"]}
 * "includeMoveFeatures":true (shido) adds seed 000's features to every moveInfo: "remiDist",
 * "remiDist2" (Rémi distance to the last move and the one before, null when none), "density",
 * "scoreLoss" (the first move's scoreLead less this one's), "humanPrior" (the second network's
 * policy, else the first's), "strengthenOwn", "weakenOpp" (eqs. 2 and 3, null without an
 * ownership head), all in the mover's view whatever the perspective (see tools/gtp.h's
 * kata-analyze moveFeatures for how each is computed).
 * Values are from the view of reportAnalysisWinratesAs (BLACK by default, as KataGo's analysis
 * config); ownership is row-major from the top row, policy has size^2 + 1 entries (pass last,
 * -1 on illegal moves). Boards must be square (2..19).
 * Actions: {"id","action":"query_version"}, {"id","action":"clear_cache"},
 * {"id","action":"terminate","terminateId":ID} and {"id","action":"terminate_all"} are echoed
 * back; terminated turns not analysed are reported as {"id","turnNumber","isDuringSearch":false,
 * "noResults":true}.
 * Errors: {"id":ID,"error":MESSAGE[,"field":NAME]} (id null when the line is not JSON); warnings
 * {"id","warning","field"} for fields ignored. Neither ends the process. Queries run one at a
 * time, in order; the input is read while a search runs, so terminate stops it. At the end of
 * input the queries already read are answered, then the process exits with 0.
 * Lines are parsed with cJSON; a line over GTP_MAX_LINE bytes, nested deeper than 64 levels or
 * with a number out of double range is answered as not JSON.
 */
#ifndef SHIDO_TOOLS_ANALYSIS_JSON_H
#define SHIDO_TOOLS_ANALYSIS_JSON_H

#include <stdio.h>

/* shido analysis -w NET [--backend NAME] [--visits N] [--threads T] [--set NAME=VALUE]...
 *                [--config FILE]
 * Serves queries from in until its end. Returns the process exit status. */
int shido_cmd_analysis(int argc, char **argv);

/* Answers the lines of in on out as `shido analysis` would, without a network or a search:
 * errors, warnings and action echoes only (a valid query's turns are set up, not analysed).
 * For the fuzzer and tests. Returns 0, or 1 when out could not be written. */
int shido_analysis_check(FILE *in, FILE *out);

#endif
