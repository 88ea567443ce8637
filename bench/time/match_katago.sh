#!/bin/sh
# bench/time/match_katago.sh -- shido against KataGo at equal time: the same network, one search
# thread each, no pondering, Chinese rules, komi 7, shido's clock kept by `shido match` (time_left
# before every genmove, the flag after it). KataGo is a peer built from its public source for
# the benchmark only (never part of shido); its own example GTP config is read from its tree.
#
#   KATAGO=/path/to/katago KATAGO_CFG=/path/to/cpp/configs/gtp_example.cfg \
#     bash bench/time/match_katago.sh OUT SIZE GAMES M,B,S [SHIDO_BIN]
#
# M,B,S is GTP time_settings: 0,1,1 is one second a move (byo-yomi), 300,0,0 five minutes
# sudden death. OUT gets match.log, games.jsonl and sgf/. Both engines take a little opening
# temperature for variety (KataGo's default early temperature, shido's for the first moves).
# SEED=S sets the match seed (default 42). GRACE=S lets a move run over the clock by S seconds
# without losing (counted as late): for a machine loaded by other work, where a process may be
# descheduled past its deadline. SHIDO_SET="NAME=VALUE ..." adds shido tunables, e.g. KataGo's
# own search settings: "cpuctExploration=1.0 cpuctExplorationLog=0.45 fpuReductionMax=0.2
# rootFpuReductionMax=0.1".
set -eu
out=$1 size=$2 games=$3 tc=$4
shido=${5:-build/shido}
: "${KATAGO:?set KATAGO to a KataGo 1.17 binary}"
: "${KATAGO_CFG:?set KATAGO_CFG to cpp/configs/gtp_example.cfg of KataGo}"
net=${NET:-../shared/weights/g170-b6c96-s175395328-d26788732.bin.gz}
net=$(realpath "$net")
shido=$(realpath "$shido")
mkdir -p "$out/sgf"
sets=""
for kv in ${SHIDO_SET:-}; do sets="$sets --set $kv"; done
cat >"$out/katago.sh" <<EOS
#!/bin/sh
exec "$KATAGO" gtp -model "$net" -config "$KATAGO_CFG" -override-config \
  "maxVisits=1000000000,numSearchThreads=1,lagBuffer=0.05,logDir=,logToStderr=false,ponderingEnabled=false,rules=chinese" 2>/dev/null
EOS
cat >"$out/shido.sh" <<EOS
#!/bin/sh
exec "$shido" gtp -w "$net" --threads 1 --set temperature=0.5 --set temperature_moves=$((size / 2 + 2)) \
  $sets
EOS
chmod +x "$out/katago.sh" "$out/shido.sh"
"$shido" match --engine1 "$out/shido.sh" --engine2 "$out/katago.sh" --games "$games" \
  --size "$size" --komi 7 --rules chinese --time-settings "$tc" --time-grace "${GRACE:-0}" --seed "${SEED:-42}" \
  --sgf-dir "$out/sgf" --jsonl "$out/games.jsonl" --genmove-timeout 900 | tee "$out/match.log"
