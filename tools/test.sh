#!/usr/bin/env bash
# Installs what is missing, then builds and runs every test:
#   0. the layer order of the sources (tools/layers.sh);
#   1. the CUDA backend compiles and links (when the CUDA toolkit is present; GPU tests skip
#      without a device);
#   2. the libFuzzer targets build with clang and each runs a short smoke round on its corpus;
#   3. the whole suite under AddressSanitizer + UndefinedBehaviorSanitizer;
#   4. the whole suite in the Release build (last, so its ctest summary closes the log).
set -euo pipefail
cd "$(dirname "$0")/.."
source tools/deps.sh
shido_install_deps "${SHIDO_BUILD_PACKAGES[@]}" gnugo clang libclang-rt-dev
export CK_COLOR=never

echo "== layer order"
bash tools/layers.sh

nvcc=$(command -v nvcc || true)
[ -z "$nvcc" ] && [ -x /usr/local/cuda/bin/nvcc ] && nvcc=/usr/local/cuda/bin/nvcc
if [ -n "$nvcc" ]; then
    echo "== CUDA build (nvcc: $nvcc)"
    cmake -S . -B build-cuda -DCMAKE_BUILD_TYPE=Release -DSHIDO_CUDA=ON \
        -DCMAKE_CUDA_COMPILER="$nvcc" >/dev/null
    cmake --build build-cuda -j"$SHIDO_JOBS" >/dev/null
    # the CUDA suites (skipping their GPU tests without a device), test_nn's eval case, where
    # the default backend must fall back from cuda to cpu (its other cases name their
    # backends, cpu or ref, and run in the Release stage), and test_train (the GPU trainer's
    # check)
    CK_RUN_CASE=eval ctest --test-dir build-cuda -R '^test_nn$' --no-tests=error \
        --output-on-failure
    ctest --test-dir build-cuda -R '^test_(cuda|conv_igemm|train)$' -j"$SHIDO_JOBS" \
        --no-tests=error --output-on-failure
else
    echo "== CUDA toolkit not found: the CUDA build was not checked"
fi

echo "== fuzz targets (clang libFuzzer, smoke run)"
CC=clang cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSHIDO_FUZZ=ON >/dev/null
cmake --build build-fuzz -j"$SHIDO_JOBS" >/dev/null
# Seeds: the project's own sample files (tests/data/kata: tiny KataGo 1.17 nets, versions 16
# and 17, written by test_kata's writer), plus small networks from ../shared copied into the
# build tree (never into the project).
mkdir -p build-fuzz/seeds/lz build-fuzz/seeds/kata
[ -f ../shared/weights/lz-0k.txt ] && cp ../shared/weights/lz-0k.txt build-fuzz/seeds/lz/
[ -f ../shared/weights/rand-b2c16-v15.bin.gz ] && cp ../shared/weights/rand-b2c16-v15.bin.gz build-fuzz/seeds/kata/
mkdir -p build-fuzz/seeds/json
printf '%s\n' '{"id":"A","moves":[["B","E5"],["W","C3"]],"rules":"japanese","komi":6.5,"boardXSize":9,"boardYSize":9,"analyzeTurns":[0,2],"maxVisits":16,"includeOwnership":true,"includePolicy":true}' >build-fuzz/seeds/json/turns
printf '%s\n' '{"id":"C","moves":[],"rules":{"ko":"SIMPLE","scoring":"AREA","tax":"NONE","suicide":false},"avoidMoves":[{"player":"W","moves":["C3"],"untilDepth":1}],"overrideSettings":{"maxVisits":8},"boardXSize":9,"boardYSize":9}' >build-fuzz/seeds/json/rules
printf '%s\n' '{"id":"v","action":"query_version"}' '{"id":"t","action":"terminate","terminateId":"C"}' >build-fuzz/seeds/json/actions
printf '%s\n' '{"id":"P","moves":[],"boardXSize":9,"boardYSize":9,"overrideSettings":{"playPolicy":"ABC25","style":"center13","kt_pick_n":"default"}}' >build-fuzz/seeds/json/play
# a discriminator checkpoint without its crc (the target appends one): a 3x3 window of one
# plane, one dense layer 9 -> 1 of zeros; and a data file of one sample
mkdir -p build-fuzz/seeds/disc
{ printf 'SHIDODSC\1\0\0\0\3\0\0\0\1\0\0\0\1\0\0\0'
  printf '\2\0\0\0\0\0\0\0\11\0\0\0\1\0\0\0\0\0\0\0'
  head -c 44 /dev/zero; } >build-fuzz/seeds/disc/dense9
{ echo '# shido discriminator data 1: problems 1 skipped_shape 0 final_missing 0 near_missing 0'
  printf 'problem train 0 %s\n' "..OX.....$(printf '.%.0s' $(seq 72))"; } >build-fuzz/seeds/disc/data
mkdir -p build-fuzz/seeds/records  # a hand-made 9x9 record (white's straight three)
printf '%s\n' '{"id":"s3","size":9,"to_play":"B","comment":"Black to kill","AW":["da","ab","bb","cb","db"],"AB":["ea","eb","ec","ad","bd","cd","dd","ed"],"solutions":["ba"]}' >build-fuzz/seeds/records/straight-three
declare -A seeds=([fuzz_sgf]=tests/data/sgf/good [fuzz_gtp]=tests/data/gtp
                  [fuzz_lz]=build-fuzz/seeds/lz [fuzz_kata]="build-fuzz/seeds/kata tests/data/kata"
                  [fuzz_analysis_json]=build-fuzz/seeds/json [fuzz_tsumego]=tests/data/tsumego
                  [fuzz_tsumego_records]="tests/data/tsumego build-fuzz/seeds/records"
                  [fuzz_disc]=build-fuzz/seeds/disc [fuzz_time]=tests/data/time
                  [fuzz_gtp_client]=tests/data/gtp_client
                  [fuzz_cuda_options]=tests/data/cuda_options)
printf '%s\n' '{"id":"p","moves":[["B","(4,4)"]],"rules":"chinese","boardXSize":9,"boardYSize":9,"analyzeTurns":[0,1],"priorities":[5,-1],"analysisPVLen":3,"includeNoResultValue":true,"whiteHandicapBonus":"N"}' '{"id":"m","action":"query_models"}' '{"id":"t","action":"terminate","terminateId":"p","turnNumbers":[1]}' >build-fuzz/seeds/json/katago
# dictionaries of the protocol's words
declare -A dicts=([fuzz_gtp]=tests/data/gtp/fuzz-gtp.dict [fuzz_time]=tests/data/gtp/fuzz-gtp.dict)
# A fixed seed and run count keep the smoke round reproducible; long runs are done by hand.
# fuzz/corpus/TARGET: the kept corpus of those runs (minimised with -merge=1; the network
# targets' inputs derive from ../shared's files and are not kept), read as seeds.
# (fuzz_gtp runs ~100 inputs a second: 5,000 keep its round near a minute)
declare -A runs=([fuzz_sgf]=20000 [fuzz_gtp]=5000 [fuzz_lz]=2000 [fuzz_kata]=500
                 [fuzz_analysis_json]=20000 [fuzz_tsumego]=5000
                 [fuzz_tsumego_records]=20000 [fuzz_disc]=5000 [fuzz_time]=20000
                 [fuzz_gtp_client]=20000 [fuzz_cuda_options]=20000)
for f in build-fuzz/fuzz_*; do
    name=$(basename "$f")
    mkdir -p "build-fuzz/corpus-$name"
    "$f" -seed=1 -runs="${runs[$name]:-2000}" -max_total_time=120 -timeout=10 -max_len=65536 \
        ${dicts[$name]:+-dict=${dicts[$name]}} \
        "build-fuzz/corpus-$name" \
        ${seeds[$name]:-} $([ -d "fuzz/corpus/$name" ] && echo "fuzz/corpus/$name") \
        >"build-fuzz/$name.log" 2>&1 ||
        { tail -50 "build-fuzz/$name.log"; echo "fuzz target $name found a failure"; exit 1; }
    echo "$name: $(grep -o 'Done [0-9]* runs in [0-9]* second(s)' "build-fuzz/$name.log" || echo 'no summary')"
done

echo "== tests under ASan + UBSan"
# Debug keeps the asserts; -O1 is the sanitizers' recommended level and halves the run
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_FLAGS_DEBUG="-g -O1" \
    -DSHIDO_SANITIZE=ON >/dev/null
cmake --build build-asan -j"$SHIDO_JOBS" >/dev/null
SHIDO_GNUGO_GAMES=${SHIDO_GNUGO_GAMES_ASAN:-20} SHIDO_VECTORS_STRIDE=13 ASAN_OPTIONS=detect_leaks=1 \
    UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    ctest --test-dir build-asan -j"$SHIDO_JOBS" --no-tests=error --output-on-failure

echo "== tests, Release build"
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$SHIDO_JOBS" >/dev/null
# -V keeps every suite's Check summary; the log is filtered to those lines and ctest's own ending.
rc=0
ctest --test-dir build -j"$SHIDO_JOBS" --no-tests=error -V >build/ctest.log 2>&1 || rc=$?
grep -E '^[0-9]+: ([0-9]+%: Checks|SKIP|.*:[FE]:)' build/ctest.log || true
[ "$rc" -eq 0 ] || grep -B2 -A40 -E 'Failures: [1-9]|Errors: [1-9]|\*\*\*Failed|Timeout' build/ctest.log | tail -200
sed -n '/tests passed/,$p' build/ctest.log
exit "$rc"
