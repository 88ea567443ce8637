#!/usr/bin/env bash
# bench/cuda/carry.sh -- prepares a GPU session from a machine without a GPU: builds the CUDA
# Release build here (build-cuda), and fills .dev/ (git-ignored through .git/info/exclude) with
# what the GPU machine needs and may lack: the four CUDA programs, the shared libraries they
# load that are not CUDA's (OpenBLAS, its Fortran runtime, cJSON, zlib, subunit, cudart), and a
# copy of ../shared's weights, vectors and four tsumego books, compressed where that pays (about
# 58 MiB with KaTrain's 36 MiB net, under the device tool's 64 MiB with the working tree).
# Then, on the GPU machine, from the repository root:
#     bash bench/cuda/device_run.sh            (with the device tool's carry: [".dev"])
# which runs bench/cuda/run.sh on the carried programs; knobs as run.sh's (BUDGET_S,
# BENCH_CONV, TORCH, VARIANTS).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
SHARED=${SHARED:-../shared}
cmake -S . -B build-cuda -DSHIDO_CUDA=ON -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build-cuda -j "$(nproc)" --target shido test_cuda test_conv_igemm bench_cuda_conv
mkdir -p .git/info
grep -qx '/.dev/' .git/info/exclude 2>/dev/null || echo '/.dev/' >>.git/info/exclude
rm -rf .dev
mkdir -p .dev/bin .dev/lib .dev/shared
git rev-parse --short HEAD >.dev/COMMIT
git status --porcelain --untracked-files=no | head -n1 >.dev/DIRTY
cp build-cuda/{shido,test_cuda,test_conv_igemm,bench_cuda_conv} .dev/bin/
for lib in libcjson.so.1 libz.so.1 libopenblas.so.0 libgfortran.so.5 libquadmath.so.0 \
    libsubunit.so.0 libcudart.so.13; do
    path=$(ldd build-cuda/shido build-cuda/test_cuda | awk -v l="$lib" '$1 == l {print $3; exit}')
    if [ -n "$path" ]; then cp -L "$path" .dev/lib/; else echo "carry.sh: $lib not linked"; fi
done
cp -r "$SHARED/weights" "$SHARED/vectors" .dev/shared/
mkdir -p .dev/shared/tsumego   # run.sh's tsumego step: the four books the solver was not tuned on
for book in maeda yamada ishida fujisawa; do
    cp "$SHARED"/tsumego/"$book"*.jsonl .dev/shared/tsumego/
done
chmod -R u+w .dev/shared
# the device tool carries 64 MiB with the working tree: symbols stripped, and what compresses
# well (programs, libraries, text weights, the vectors) as NAME.carry.xz, which device_run.sh
# restores
strip .dev/bin/*
for f in .dev/bin/* .dev/lib/* .dev/shared/weights/*.txt .dev/shared/vectors/*.jsonl; do
    [ -f "$f" ] && xz -9e -T0 -c "$f" >"$f.carry.xz" && rm -f "$f"
done
tree=$(git ls-files -z | xargs -0 du -cb | tail -n1 | cut -f1)
bytes=$(du -sb .dev | cut -f1)
echo "carry.sh: .dev $((bytes >> 20)) MiB, with the working tree $(((bytes + tree) >> 20)) MiB"
((bytes + tree <= 64 * 1024 * 1024)) || echo "carry.sh: over the device tool's 64 MiB"
