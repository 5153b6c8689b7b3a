#!/usr/bin/env bash
# Rewrites the engine benchmarks' static thresholds (Thresholds/) from a run on this machine, in the
# short mode CI checks them in. Run it on a quiet machine after a deliberate change of cost.
#
# package-benchmark 1.38 writes a threshold file with the spaces of the benchmark's name replaced by
# underscores but looks it up by the name as it is, so the files are renamed back here (the engine
# benchmarks' names contain no underscores of their own).
set -euo pipefail
cd "$(dirname "$0")/.."
rm -rf Thresholds
LOCATIONENGINE_BENCHMARK_SHORT=1 swift package --disable-sandbox ${SCRATCH_PATH:+--scratch-path "$SCRATCH_PATH"} --allow-writing-to-package-directory \
    benchmark thresholds update --target SchedulerBenchmarks --filter 'Engine: (submit|cancel).*n=100000' --no-progress
for file in Thresholds/*_*; do
    mv "$file" "Thresholds/$(basename "$file" | tr '_' ' ')"
done
ls Thresholds
