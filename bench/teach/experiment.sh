#!/usr/bin/env bash
# bench/teach/experiment.sh -- the teaching-play experiment of issue 36 from one command: every
# controller (a play_policy of teach/choice.h) against every opponent, `shido match` games in
# parallel with their SGFs kept, then `shido teach-stats` per cell (the opponent's win rate with
# its 95% interval, the naturalness of the controller's moves, its opening lines), and one
# Markdown table of it all.
#
#   bash bench/teach/experiment.sh OUT_DIR
#
# Settings (environment; defaults in brackets):
#   CONTROLLERS  play_policy values ["best naive softmax A15 ABC25 two-phase adaptive jigo
#                scoreloss"]; a value may carry more tunables after colons:
#                "ABC25:style=center13" sets play_policy=ABC25 and style=center13
#   OPPONENTS    gnugoL (GNU Go 3.8 at level L) or net (shido's policy net alone, no search;
#                its first NET_TEMP_MOVES [SIZE / 2 + 2] moves drawn by the policy, so that
#                its games differ) or shido:SPEC (another shido at VISITS playing SPEC, a value
#                as in CONTROLLERS: "shido:best", "shido:ABC25:style=edge13"; seed 001 measured
#                its styles against each other and the plain engine) ["gnugo1 gnugo5 gnugo10 net"]
#   SIZE [13]  GAMES per cell [100]  VISITS per controller move [200]  PARALLEL games [2]
#   NET [../shared/weights/g170-b6c96-s175395328-d26788732.bin.gz]  SEED [1]
#   JUDGE_VISITS: the strong search that counts moves losing > 5 points [0: not counted]
#   MAX_MOVES: games stop after this many moves and are scored as they stand [0: played out];
#   for the opening statistics alone (lines >= 4 in the first 40 / 60 moves)
#   OPENINGS: SGF files (`shido teach-stats --find-endgames` writes them) the games start from,
#   two games a position with colours swapped, in turn [none: the empty board]
#   SHARD=K/N: only the cells whose index is K modulo N (a Slurm job array: SHARD=$ID/$COUNT,
#   one process per node); `bash bench/teach/experiment.sh --table OUT_DIR` then writes the
#   table of every cell found in OUT_DIR.
# Output: OUT_DIR/CELL/ (SGFs), CELL.jsonl (match records), CELL.log, CELL.row (the table row),
# OUT_DIR/table.md. A progress bar with an ETA on standard error, by games. A cell whose row
# exists is skipped, so an interrupted run resumes where it stopped.
set -euo pipefail
cd "$(dirname "$0")/../.."
SHIDO=${SHIDO:-build/shido}
CONTROLLERS=${CONTROLLERS:-"best naive softmax A15 ABC25 two-phase adaptive jigo scoreloss"}
OPPONENTS=${OPPONENTS:-"gnugo1 gnugo5 gnugo10 net"}
SIZE=${SIZE:-13} GAMES=${GAMES:-100} VISITS=${VISITS:-200} PARALLEL=${PARALLEL:-2}
NET=${NET:-../shared/weights/g170-b6c96-s175395328-d26788732.bin.gz}
SEED=${SEED:-1} JUDGE_VISITS=${JUDGE_VISITS:-0} SHARD=${SHARD:-0/1} MAX_MOVES=${MAX_MOVES:-0}
GNUGO=${GNUGO:-/usr/games/gnugo} NET_TEMP_MOVES=${NET_TEMP_MOVES:-$((SIZE / 2 + 2))}

table_only=false
if [ "${1:-}" = "--table" ]; then
    table_only=true
    shift
fi
OUT=${1:?usage: bash bench/teach/experiment.sh [--table] OUT_DIR}
mkdir -p "$OUT"
[ -x "$SHIDO" ] || { echo "experiment: $SHIDO not built (cmake --build build)" >&2; exit 1; }

write_table() {
    {
        echo "| controller / opponent | games | opponent wins (95% CI) | prior mean / geometric" \
             "| prior < 0.05 | opening distance | line >= 4 a game (95% CI)" \
             "| > 5 points lost a game |"
        echo "|---|---|---|---|---|---|---|---|"
        cat "$OUT"/*.row 2>/dev/null || true
    } >"$OUT/table.md"
    echo "experiment: $(($(wc -l <"$OUT/table.md") - 2)) cells in $OUT/table.md" >&2
}
if $table_only; then
    write_table
    exit 0
fi

limit=()
((MAX_MOVES > 0)) && limit=(--max-moves "$MAX_MOVES")
for f in ${OPENINGS:-}; do limit+=(--opening "$f"); done
shard_k=${SHARD%/*} shard_n=${SHARD#*/}
cells=()
idx=0
for c in $CONTROLLERS; do
    for o in $OPPONENTS; do
        if ((idx % shard_n == shard_k)); then cells+=("$idx|$c|$o"); fi
        idx=$((idx + 1))
    done
done
total=$((${#cells[@]} * GAMES))
start=$(date +%s)
done_games=0

# The bar on standard error: redrawn in place on a terminal, elsewhere (a log) a line for each
# game finished.
drawn=-1
progress() {
    local now elapsed eta width=30 filled cr='' end=$'\n'
    [ -t 2 ] || ((done_games != drawn)) || return 0
    if [ -t 2 ]; then cr=$'\r' end='  '; fi
    drawn=$done_games
    now=$(date +%s)
    elapsed=$((now - start))
    eta=$((done_games > 0 ? elapsed * (total - done_games) / done_games : 0))
    filled=$((total > 0 ? done_games * width / total : width))
    printf '%s[%s%s] %d/%d games, %dm%02ds elapsed, ETA %dm%02ds%s' "$cr" \
        "$(printf '%*s' "$filled" '' | tr ' ' '#')" \
        "$(printf '%*s' $((width - filled)) '' | tr ' ' '.')" \
        "$done_games" "$total" $((elapsed / 60)) $((elapsed % 60)) $((eta / 60)) $((eta % 60)) \
        "$end" >&2
}

# The --set options of a controller value ("ABC25:style=center13") into the array sets.
sets_of() {
    local spec=$1 kv extra
    sets=(--set "play_policy=${spec%%:*}")
    if [[ $spec == *:* ]]; then
        IFS=: read -ra extra <<<"${spec#*:}"
        for kv in "${extra[@]}"; do sets+=(--set "$kv"); done
    fi
}

for cell in "${cells[@]}"; do
    IFS='|' read -r i spec opp <<<"$cell"
    name="shido-${spec//[:=,]/-}"
    oname=$opp
    case $opp in
    shido:*)
        sets_of "${opp#shido:}"
        oname="shido-${opp#shido:}" oname=${oname//[:=,]/-}
        [ "$oname" != "$name" ] || { echo "experiment: $spec against itself" >&2; exit 2; }
        cmd2="$SHIDO gtp -w $NET --visits $VISITS --threads 1 ${sets[*]}"
        # its choices and its search's symmetries vary by game
        seed2=(--setup2 "kata-set-param play_seed {seed}" --setup2 "kata-set-param seed {seed}") ;;
    gnugo*) cmd2="$GNUGO --mode gtp --level ${opp#gnugo} --chinese-rules"
            seed2=(--setup2 "set_random_seed {seed}") ;;   # GNU Go varies its play by it
    net) cmd2="$SHIDO gtp -w $NET --threads 1 --set play_policy=net --set net_temperature=1"
         cmd2+=" --set net_temperature_moves=$NET_TEMP_MOVES"
         seed2=(--setup2 "kata-set-param play_seed {seed}") ;;   # its opening drawn by it
    *) echo "experiment: unknown opponent $opp" >&2; exit 2 ;;
    esac
    sets_of "$spec"
    dir="$OUT/$name-vs-$oname"
    if [ -s "$dir.row" ]; then
        done_games=$((done_games + GAMES))   # done by an earlier run: resumed
        continue
    fi
    cmd1="$SHIDO gtp -w $NET --visits $VISITS --threads 1 ${sets[*]}"
    "$SHIDO" match --engine1 "$cmd1" --engine2 "$cmd2" --name1 "$name" --name2 "$oname" \
        --setup1 "kata-set-param play_seed {seed}" "${seed2[@]}" \
        --games "$GAMES" --size "$SIZE" --komi 7.5 --rules chinese --parallel "$PARALLEL" \
        --seed $((SEED + 1000 * i)) --sgf-dir "$dir" --jsonl "$dir.jsonl" "${limit[@]}" \
        >"$dir.log" 2>&1 &
    pid=$!
    base=$done_games
    while kill -0 "$pid" 2>/dev/null; do
        n=$(grep -c '^game ' "$dir.log" 2>/dev/null) || true
        done_games=$((base + ${n:-0}))
        progress
        sleep 5
    done
    wait "$pid" || echo "experiment: the match of $name against $oname failed (see $dir.log)" >&2
    done_games=$((base + GAMES))
    progress
    "$SHIDO" teach-stats --player "$name" -w "$NET" --threads 1 --judge-visits "$JUDGE_VISITS" \
        --row "$name vs $oname ($SIZE x $SIZE, $VISITS visits)" "$dir" >"$dir.row"
done
[ -t 2 ] && echo >&2
write_table
