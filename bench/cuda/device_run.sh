#!/usr/bin/env bash
# bench/cuda/device_run.sh -- on the GPU machine, the programs bench/cuda/carry.sh put in .dev/
# through bench/cuda/run.sh: unpacks what carry.sh compressed, finds cuBLAS and cuDNN on the
# machine, points the tests' compiled-in ../shared and tests/data (the build machine's paths) at
# the carried copy and this checkout, and leaves at most eight files under $OUT (the device
# tool's limit): results.md, run.log and all.tgz (every output of the run).
set -u
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 1
D=$PWD/.dev
[ -d "$D/bin" ] || { echo "device_run.sh: no .dev/bin: run bench/cuda/carry.sh first" >&2; exit 1; }
# carry.sh's NAME.carry.xz back to NAME (python's lzma: the machine may have no xz)
python3 - "$D" <<'PY'
import lzma, pathlib, shutil, sys
for p in pathlib.Path(sys.argv[1]).rglob("*.carry.xz"):
    with lzma.open(p) as src, open(str(p)[: -len(".carry.xz")], "wb") as dst:
        shutil.copyfileobj(src, dst)
    p.unlink()
PY
chmod +x "$D"/bin/*
# the tests open SHIDO_SHARED_DIR as compiled: the build machine's absolute ../shared
compiled=$(strings "$D/bin/test_cuda" | grep -m1 -E '^/.*/weights/$' || true)
if [ -n "$compiled" ]; then
    shared=${compiled%/weights/}
    mkdir -p "$(dirname "$shared")" 2>/dev/null
    [ -e "$shared" ] || ln -s "$D/shared" "$shared"
    echo "shared data for the tests: $shared -> $(readlink -f "$shared")"
fi
[ -e ../shared ] || ln -s "$D/shared" ../shared 2>/dev/null
# and tests/data as compiled: the build machine's checkout
data=$(strings "$D/bin/test_cuda" | grep -m1 -E '^/.*/tests/data$' || true)
if [ -n "$data" ] && [ ! -e "$data" ]; then
    mkdir -p "$(dirname "$data")" 2>/dev/null
    ln -s "$PWD/tests/data" "$data"
    echo "test data: $data -> $PWD/tests/data"
fi
L=$D/lib
for n in libcublas.so.13 libcublasLt.so.13 libcudnn.so.9; do
    f=$(find /usr/local/cuda/ /usr/local/cuda*/ /usr/lib/x86_64-linux-gnu /opt /usr/local/lib \
        -name "$n" 2>/dev/null | head -n1)
    [ -n "$f" ] && L=$L:$(dirname "$f")
    echo "$n: ${f:-NOT FOUND}"
done
export LD_LIBRARY_PATH=$L
ldd "$D/bin/shido" | grep -E "not found|cudnn|cublas|cudart"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv
S=/tmp/shido-device-run
rm -rf "$S" "$S.stdout"
OUT= OUT_DIR=$S REBUILD=0 BUILD=.dev/bin BUDGET_S=${BUDGET_S:-420} bash bench/cuda/run.sh \
    >"$S.stdout" 2>&1
echo "run.sh exit $?"
mv "$S.stdout" "$S/stdout.txt"
if [ -n "${OUT:-}" ]; then
    tar czf "$OUT/all.tgz" -C "$(dirname "$S")" "$(basename "$S")"
    cp "$S/results.md" "$S/run.log" "$OUT/"
fi
tail -n 150 "$S/results.md"
