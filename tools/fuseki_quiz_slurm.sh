#!/usr/bin/env bash
# tools/fuseki_quiz_slurm.sh -- fuseki quizzes for a large collection on a Slurm cluster: one
# array task per shard (`shido fuseki-quiz --shard K/N`), then one job that merges the shards'
# JSON Lines into the file one run would have written (the quizzes are deterministic, and every
# record carries its position's number). The SGF files of all shards go to one folder: their
# names (FILE-gGGGG-mMMM.sgf) never collide.
#
#   sbatch --array=1-64 tools/fuseki_quiz_slurm.sh GAMES.sgf OUT_DIR [fuseki-quiz options...]
#   # when every task has finished (or chain it with --dependency=afterok:JOBID):
#   sbatch --dependency=afterok:JOBID --wrap "tools/fuseki_quiz_slurm.sh --merge OUT_DIR"
#
# Environment: SHIDO (the binary, default build/shido), SHIDO_WEIGHTS (the network, default the
# shared 6-block net), SLURM_CPUS_PER_TASK (threads per task, default 1).
#SBATCH --job-name=fuseki-quiz
#SBATCH --cpus-per-task=4
#SBATCH --time=04:00:00
#SBATCH --output=fuseki-quiz-%A_%a.log
set -euo pipefail
shido=${SHIDO:-build/shido}
if [ "${1:-}" = "--merge" ]; then
    out=${2:?usage: $0 --merge OUT_DIR}
    "$shido" fuseki-quiz merge "$out"/shard-*.jsonl --out "$out/quizzes.jsonl"
    "$shido" fuseki-quiz stats "$out/quizzes.jsonl" > "$out/stats.md"
    exit 0
fi
games=${1:?usage: sbatch --array=1-N $0 GAMES.sgf OUT_DIR [options]}
out=${2:?usage: sbatch --array=1-N $0 GAMES.sgf OUT_DIR [options]}
shift 2
k=${SLURM_ARRAY_TASK_ID:?run as a Slurm array job (sbatch --array=1-N)}
n=${SLURM_ARRAY_TASK_COUNT:?run as a Slurm array job (sbatch --array=1-N)}
weights=${SHIDO_WEIGHTS:-../shared/weights/g170-b6c96-s175395328-d26788732.bin.gz}
mkdir -p "$out/sgf"
"$shido" fuseki-quiz "$games" -w "$weights" --threads "${SLURM_CPUS_PER_TASK:-1}" \
    --shard "$k/$n" --out-dir "$out/sgf" --jsonl "$out/shard-$(printf %04d "$k").jsonl" \
    --progress "$@"
