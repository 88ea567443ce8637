#!/bin/sh
exec build/shido gtp -w ../shared/weights/g170-b6c96-s175395328-d26788732.bin.gz --threads 1 --visits ${V:-600} --set temperature=1.0 --set temperature_moves=8 --set cpuctExploration=1.0 --set cpuctExplorationLog=0.45 --set fpuReductionMax=0.2 --set rootFpuReductionMax=0.1 2>/dev/null
