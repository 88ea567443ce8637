#!/usr/bin/env bash
# The main job: install what is missing, build shido (Release), play the demonstration game,
# measure the board, and measure network inference (OpenBLAS path vs the reference) on the
# networks in ../shared/weights when they are there. A built-in default network for a machine
# with nothing downloaded comes with the synthetic-network benchmark.
set -euo pipefail
cd "$(dirname "$0")/.."
source tools/deps.sh
shido_install_deps "${SHIDO_BUILD_PACKAGES[@]}"
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$SHIDO_JOBS" --target shido >/dev/null
./build/shido demo
./build/shido bench board --seconds 3
if [ -d ../shared/weights ]; then
    ./build/shido bench nn --batch 1,8 --seconds 3
else
    echo "shido: ../shared/weights not found: network benchmark skipped"
fi
