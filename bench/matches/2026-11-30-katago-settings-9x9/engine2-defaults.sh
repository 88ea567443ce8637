#!/bin/sh
exec build/shido gtp -w ../shared/weights/g170-b6c96-s175395328-d26788732.bin.gz --threads 1 --visits ${V:-600} --set temperature=1.0 --set temperature_moves=8 2>/dev/null
