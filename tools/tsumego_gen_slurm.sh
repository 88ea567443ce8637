#!/usr/bin/env bash
# tools/tsumego_gen_slurm.sh -- strict tsumego problems from large collections on a Slurm cluster:
# one array task per shard (`shido tsumego-gen retro|concept --shard K/N`), then one job that
# merges the shards' JSON Lines into the file one run would have written (the generators are
# deterministic; every record carries its source's number, its order and its canonical key, and
# merge drops the duplicates one run would have dropped). The SGF files of all shards go to one
# folder (OUT_DIR/sgf, named after the source and the order within it: they never collide). A
# task that is killed and started again resumes where it stopped.
#
#   sbatch --array=1-64 tools/tsumego_gen_slurm.sh retro OUT_DIR --jsonl A.jsonl --jsonl B.jsonl
#   sbatch --array=1-8 tools/tsumego_gen_slurm.sh concept OUT_DIR tests/data/tsumego-seeds
#   # when every task has finished (or chain it with --dependency=afterok:JOBID):
#   sbatch --dependency=afterok:JOBID --wrap "tools/tsumego_gen_slurm.sh --merge OUT_DIR"
#
# Environment: SHIDO (the binary, default build/shido), SLURM_CPUS_PER_TASK (threads per task,
# default 1).
#SBATCH --job-name=tsumego-gen
#SBATCH --cpus-per-task=4
#SBATCH --time=04:00:00
#SBATCH --output=tsumego-gen-%A_%a.log
set -euo pipefail
shido=${SHIDO:-build/shido}
if [ "${1:-}" = "--merge" ]; then
    out=${2:?usage: $0 --merge OUT_DIR}
    "$shido" tsumego-gen merge "$out"/shard-*-of-*.jsonl --out "$out/problems.jsonl"
    exit 0
fi
method=${1:?usage: sbatch --array=1-N $0 retro|concept OUT_DIR SOURCES... [options]}
out=${2:?usage: sbatch --array=1-N $0 retro|concept OUT_DIR SOURCES... [options]}
shift 2
k=${SLURM_ARRAY_TASK_ID:?run as a Slurm array job (sbatch --array=1-N)}
n=${SLURM_ARRAY_TASK_COUNT:?run as a Slurm array job (sbatch --array=1-N)}
"$shido" tsumego-gen "$method" --out "$out" --threads "${SLURM_CPUS_PER_TASK:-1}" \
    --shard "$k/$n" --progress "$@"
