#!/usr/bin/env bash
# bench/cuda/run.sh -- the whole GPU session in one run, within 600 s of device time: builds the
# CUDA Release build, runs the GPU tests (test_cuda, test_conv_igemm), then times
#   1. bench_conv: our implicit-GEMM convolution against cuDNN on the trunk shapes (3x3 and 1x1,
#      c 96/256/384/512, batch 1/16/64/256), TFLOP/s and fraction of the dense fp16 peak;
#   2. `shido bench nn` over the synthetic standard nets with cuda:fp16, the forward pass alone
#      (--forward-only, threads 1 and 2) and whole nn_eval calls (threads 1 and 4), the PyTorch
#      baseline (bench/cuda/torch_baseline.py), fuse=0, conv=igemm and fp32 (forward alone), the real
#      nets in the shared weights directory, and a profile of the forward (SHIDO_CUDA_PROFILE);
# and writes everything to one log plus results.md (tables to paste into bench/RESULTS.md),
# both rewritten as each step finishes, under $OUT (or $OUT_DIR, default /tmp/shido-bench-cuda).
#
# Run from the repository root on the GPU machine: bash bench/cuda/run.sh
# Environment: BUDGET_S (default 570: seconds for everything), BUILD (default build-cuda),
# SECONDS_PER (default 1: timed seconds per shido bench measurement), JOBS (default nproc),
# REBUILD (default 1; 0 uses an existing $BUILD as it is, e.g. one carried to the machine),
# BENCH_CONV (default 1; 0 leaves out the convolution kernel benchmark), TORCH (default 1; 0
# leaves out the PyTorch baseline), VARIANTS (default "evalthreads fuse0 igemm fp32": whole
# nn_eval calls with 2 workers of 8 threads each, and the forward alone with fuse=0, conv=igemm
# and fp32; "" runs none of them), TSUMEGO (default 1: last, with the time left, the tsumego
# solver on four books with KaTrain's net's guess on the device; 0 leaves it out).
# Steps run in order of importance and each gets at most its cap and what is left of the budget
# minus a reserve for the later ones; a step that fails or times out is recorded and the run
# goes on.
set -uo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 1
START=$(date +%s)
BUDGET_S=${BUDGET_S:-570}
BUILD=${BUILD:-build-cuda}
SECONDS_PER=${SECONDS_PER:-1}
JOBS=${JOBS:-$(nproc)}
REBUILD=${REBUILD:-1}
BENCH_CONV=${BENCH_CONV:-1}
TORCH=${TORCH:-1}
VARIANTS=${VARIANTS:-evalthreads fuse0 igemm fp32}
TSUMEGO=${TSUMEGO:-1}
export PYTHONDONTWRITEBYTECODE=1   # no __pycache__ in the tree
DIR=${OUT:-${OUT_DIR:-/tmp/shido-bench-cuda}}
mkdir -p "$DIR" || exit 1
LOG=$DIR/run.log
MD=$DIR/results.md
: >"$LOG"
: >"$MD"
BATCHES=1,16,64,256

elapsed() { echo $(($(date +%s) - START)); }
left() { echo $((BUDGET_S - $(elapsed))); }
log() { echo "[$(elapsed)s] $*" | tee -a "$LOG"; }
md() { printf '%s\n' "$@" >>"$MD"; }

# step NAME CAP RESERVE OUTFILE CMD...: runs CMD with a time limit of min(CAP, left - RESERVE)
# seconds, output to OUTFILE and the log; returns CMD's status (124: timed out, 125: no time).
step() {
    local name=$1 cap=$2 reserve=$3 outfile=$4
    shift 4
    local limit
    limit=$(($(left) - reserve))
    ((limit > cap)) && limit=$cap
    if ((limit < 5)); then
        log "SKIP $name: no time left (budget ${BUDGET_S}s)"
        md "* $name: skipped, no time left"
        return 125
    fi
    log "START $name (limit ${limit}s): $*"
    timeout -k 5 "$limit" "$@" >"$outfile" 2>&1
    local rc=$?
    cat "$outfile" >>"$LOG"
    log "END $name: exit $rc"
    ((rc == 124)) && md "* $name: timed out after ${limit}s (partial output kept)"
    return $rc
}

# ---------------------------------------------------------------- machine
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
[ -d "$CUDA_HOME/bin" ] && export PATH=$CUDA_HOME/bin:$PATH
CUDA_LIBS=$CUDA_HOME/lib64
[ -d "$CUDA_LIBS" ] || CUDA_LIBS=$CUDA_HOME/lib
export LD_LIBRARY_PATH=$CUDA_LIBS${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
GPU=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n1)
GPU=${GPU:-unknown GPU}
PEAK=$(python3 bench/cuda/summarize.py peak "$GPU")
# the device machine's copy has no .git: carry.sh wrote the commit the programs were built from
COMMIT=$(git rev-parse --short HEAD 2>/dev/null || cat .dev/COMMIT 2>/dev/null || echo "unknown commit")
DIRTY=$(git status --porcelain 2>/dev/null | head -n1)
[ -d .git ] || DIRTY=$(cat .dev/DIRTY 2>/dev/null)
SHARED=../shared
[ -d "$SHARED/weights" ] || SHARED=shared
{
    echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
    echo "commit: $COMMIT${DIRTY:+ (with uncommitted changes)}"
    echo "device: $GPU (dense fp16 peak ${PEAK} TFLOP/s)"
    nvidia-smi --query-gpu=driver_version,memory.total,clocks.max.sm --format=csv 2>/dev/null ||
        echo "nvidia-smi: not available"
    nvcc --version 2>&1 | tail -n1
    echo "cpu: $(nproc) cores; shared data: $SHARED"
} | tee -a "$LOG" >"$DIR/machine.txt"
md "## CUDA benchmarks: $GPU, $(date -u '+%Y-%m-%d'), commit $COMMIT${DIRTY:+ (+ local changes)}" ""
md '```' "$(cat "$DIR/machine.txt")" '```' ""

# ---------------------------------------------------------------- build
if ((REBUILD)); then
    step "configure" 60 400 "$DIR/configure.txt" \
        cmake -S . -B "$BUILD" -DSHIDO_CUDA=ON -DCMAKE_BUILD_TYPE=Release \
        -DCMAKE_CUDA_COMPILER="$(command -v nvcc || echo nvcc)"
    step "build" 240 300 "$DIR/build.txt" cmake --build "$BUILD" -j "$JOBS" \
        --target shido test_cuda test_conv_igemm bench_cuda_conv
    md "* build ($BUILD, Release, SHIDO_CUDA=ON): exit $?"
else
    md "* build: the existing $BUILD (REBUILD=0)"
fi

# ---------------------------------------------------------------- tests
md "" "### GPU tests" ""
for t in "$BUILD/test_cuda" "$BUILD/test_conv_igemm"; do
    name=$(basename "$t")
    if [ ! -x "$t" ]; then
        md "* $name: not built"
        continue
    fi
    # each suite in one process: one CUDA start-up instead of one per case (Check would fork
    # for each of ~90 loop cases); a suite killed by a signal is run again forking, so that
    # one crashing case does not hide the others
    CK_FORK=no step "$name" 150 250 "$DIR/$name.txt" "$t"
    rc=$?
    if ((rc > 128 && rc != 137)); then
        md "* $name: killed by signal $((rc - 128)) in one process; again with a process per case"
        CK_FORK=yes step "$name (forking)" 120 250 "$DIR/$name.txt" "$t"
        rc=$?
    fi
    ((rc == 125)) && continue
    md "* $name: exit $rc -- $(grep -E '^[0-9]+%: Checks' "$DIR/$name.txt" | tail -n1)"
    grep -E 'SKIP|mismatch|Failure|Error' "$DIR/$name.txt" | grep -v '^[0-9]*%: Checks' |
        uniq -c | head -n 12 | sed 's/^/    /' >>"$MD"
done

# ---------------------------------------------------------------- kernels
md "" "### Convolution kernels: igemm (fused BN + ReLU) against cuDNN, 19x19, NHWC fp16" ""
if ((!BENCH_CONV)); then
    md "* bench_conv: not run (BENCH_CONV=0)"
elif [ -x "$BUILD/bench_cuda_conv" ]; then
    step "bench_conv" 100 200 "$DIR/bench_conv.txt" "$BUILD/bench_cuda_conv" --batch "$BATCHES"
    rc=$?
    grep -E '^(\||device:)' "$DIR/bench_conv.txt" >>"$MD"
    if ((rc != 0)); then
        md "" "* bench_conv: exit $rc"
        grep -vE '^(\||device:)' "$DIR/bench_conv.txt" | tail -n 5 | sed 's/^/    /' >>"$MD"
    fi
else
    md "* bench_conv: not built (see build_hand.txt)"
fi

# ---------------------------------------------------------------- whole networks
NN_FILES=()
bench_nn() {   # LABEL CAP RESERVE ARGS...
    local label=$1 cap=$2 reserve=$3
    shift 3
    if [ ! -x "$BUILD/shido" ]; then
        md "* shido bench nn $label: shido not built"
        return
    fi
    step "shido bench nn $label" "$cap" "$reserve" "$DIR/nn_$label.txt" \
        "$BUILD/shido" bench nn --batch "$BATCHES" --seconds "$SECONDS_PER" "$@"
    NN_FILES+=("$DIR/nn_$label.txt")
    python3 bench/cuda/summarize.py nn --peak "$PEAK" "${NN_FILES[@]}" >"$DIR/nn_table.md"
}
bench_nn cuda-fp16-fwd 60 200 --backend cuda:fp16 --threads 1 --forward-only
bench_nn cuda-fp16 60 170 --backend cuda:fp16 --threads 1

TORCH_JSON=$DIR/torch.json
torch_left=$(($(left) - 140))
((torch_left > 150)) && torch_left=150
if ((TORCH && torch_left > 20)); then
    # PyTorch brings its own cuDNN: the toolkit's on LD_LIBRARY_PATH would shadow it
    step "PyTorch baseline" "$((torch_left + 10))" 0 "$DIR/torch.txt" \
        env -u LD_LIBRARY_PATH python3 bench/cuda/torch_baseline.py --batch "$BATCHES" \
        --budget "$torch_left" --json "$TORCH_JSON"
fi

bench_nn cuda-fp16-fwd-threads2 40 100 --backend cuda:fp16 --threads 2 --forward-only
bench_nn cuda-fp16-threads4 40 80 --backend cuda:fp16 --threads 4
for v in $VARIANTS; do
    case $v in
    evalthreads) bench_nn cuda-fp16-threads2-e8 40 75 --backend cuda:fp16 --threads 2 \
        --eval-threads 8 ;;
    fuse0) bench_nn cuda-fp16-fuse0-fwd 40 60 --backend cuda:fp16,fuse=0 --threads 1 \
        --forward-only ;;
    igemm) bench_nn cuda-fp16-igemm-fwd 40 45 --backend cuda:fp16,conv=igemm --threads 1 \
        --forward-only ;;
    fp32) bench_nn cuda-fp32-fwd 40 25 --backend cuda:fp32 --threads 1 --forward-only ;;
    *) log "unknown variant $v" ;;
    esac
done
if [ -d "$SHARED/weights" ]; then
    WEIGHTS=()
    for w in "$SHARED"/weights/*; do WEIGHTS+=(--weights "$w"); done
    SECONDS_PER=0.5 bench_nn real-cuda-fp16 30 10 --backend cuda:fp16 --threads 1 "${WEIGHTS[@]}"
fi
# where the device time of a forward goes (layer spans timed with events, graphs off)
if [ -x "$BUILD/shido" ]; then
    SHIDO_CUDA_PROFILE=1 step "profile" 30 0 "$DIR/profile.txt" "$BUILD/shido" bench nn \
        --batch 1,256 --seconds 0.3 --backend cuda:fp16 --forward-only
    md "" "### Device time per forward by kind (SHIDO_CUDA_PROFILE=1, cuda:fp16, graphs off)" ""
    grep -E "^nn: cuda profile|^synthetic" "$DIR/profile.txt" | sed 's/^/    /' >>"$MD"
fi

md "" "### Whole networks: \`shido bench nn\` (19x19, evaluations per second)" ""
if [ -s "$DIR/nn_table.md" ]; then cat "$DIR/nn_table.md" >>"$MD"; else md "* no results"; fi
md "" "### PyTorch baseline (same architectures, random weights, fp16, channels_last)" ""
if grep -qE '^(\||PyTorch)' "$DIR/torch.txt" 2>/dev/null; then
    grep -E '^(\||PyTorch)' "$DIR/torch.txt" >>"$MD"
else
    md "* not run or failed:" "$(tail -n 3 "$DIR/torch.txt" 2>/dev/null | sed 's/^/    /')"
fi
if [ -s "$TORCH_JSON" ] && ((${#NN_FILES[@]} > 0)); then
    md "" "### shido / PyTorch (best PyTorch variant at the same batch)" ""
    python3 bench/cuda/summarize.py ratio --torch "$TORCH_JSON" "${NN_FILES[@]}" >>"$MD" 2>>"$LOG"
fi
# ---------------------------------------------------------------- tsumego, last
# the solver on the four books it was not tuned on (40 problems each, seed 1) at 5 s a problem,
# 8 problems at once, g170 ordering the solver's moves and KaTrain's net searching the guess on
# the device: what a GPU gives the guess (bench/RESULTS.md, "Books it was not tuned on")
G170=$SHARED/weights/g170-b6c96-s175395328-d26788732.bin.gz
B10=$SHARED/weights/b10c384h6nbttflrs.bin.gz
if ((TSUMEGO)) && [ -x "$BUILD/shido" ] && [ -f "$G170" ] && [ -f "$B10" ]; then
    md "" "### Tsumego: four untuned books, 40 each (seed 1), 5 s a problem, 8 at once," \
        "g170 guiding, b10c384's guess on cuda:fp16" ""
    for book in maeda yamada ishida fujisawa; do
        f=$(ls "$SHARED"/tsumego/"$book"*.jsonl 2>/dev/null | head -n1)
        if [ -z "$f" ]; then
            md "* $book: no problems file"
            continue
        fi
        step "tsumego $book" 60 0 "$DIR/tsumego_$book.txt" "$BUILD/shido" tsumego bench \
            --jsonl "$f" --sample 40 --seed 1 --threads 8 --time-per-problem 5 -w "$G170" \
            --guess-weights "$B10" --backend cuda:fp16 --quiet \
            --results "$DIR/tsumego_$book.jsonl"
        md "* $(grep -m1 'first move correct' "$DIR/tsumego_$book.txt" || echo "$book: no summary")"
    done
fi
log "done in $(elapsed)s; log $LOG, tables $MD"
cat "$MD"
