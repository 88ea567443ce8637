#!/usr/bin/env bash
# The main job: install what is missing, build shido (Release) and run the demonstration.
# Later milestones turn this into the inference benchmark on a built-in default network.
set -euo pipefail
cd "$(dirname "$0")/.."
source tools/deps.sh
shido_install_deps "${SHIDO_BUILD_PACKAGES[@]}"
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$SHIDO_JOBS" --target shido >/dev/null
./build/shido demo
./build/shido bench board --seconds 3
