#!/usr/bin/env bash
# The main job: install what is missing, build shido (Release), play the demonstration game,
# measure the board, and measure network inference on 2 worker threads: first synthetic
# networks of the standard shapes (built in memory, so this runs on a machine with nothing
# downloaded), then the networks in ../shared/weights when they are there. Each measurement
# runs a few seconds so the whole job stays within a few minutes on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."
source tools/deps.sh
shido_install_deps "${SHIDO_BUILD_PACKAGES[@]}"
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$SHIDO_JOBS" --target shido >/dev/null
./build/shido demo
./build/shido bench board --seconds 3
./build/shido bench nn --threads 2 --batch 1,16 --seconds 2
if [ -d ../shared/weights ]; then
    ./build/shido bench nn --threads 2 --batch 1,8,16 --seconds 3 \
        --weights ../shared/weights/g170-b6c96-s175395328-d26788732.bin.gz \
        --weights ../shared/weights/lz-rand-b4c32.txt.gz
else
    echo "shido: ../shared/weights not found: benchmark of the shared networks skipped"
fi
