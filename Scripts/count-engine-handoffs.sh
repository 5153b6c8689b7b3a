#!/usr/bin/env bash
# Counts the engine's hand-offs per 1,000 operations — its loop's wake-ups, its timer's wake-ups, every
# task resumption — through a seeded day of requests, cancels and fixes on the manual clock, with every
# task on one thread, one job at a time (Profiling/EngineHandoffProbe). The code decides these counts,
# not the kernel: the same on every run, on any machine, under any load. Prints them as JSON. Usage:
#   Scripts/count-engine-handoffs.sh [N]      (N operations, 100000 by default)
# Scripts/check-performance-counts.sh compares them with the baseline in Baselines/.
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --product EngineHandoffProbe >/dev/null
probe="$(swift build -c release --show-bin-path)/EngineHandoffProbe"
# The guard rests on the counts being decided by the code alone: two runs must agree to the last job.
# A run takes about a second: one that has not ended in two minutes spins (its tasks never all suspend).
# Hashing is made deterministic too, so that nothing but the code decides what runs in which order.
run() {
    if ! SWIFT_DETERMINISTIC_HASHING=1 timeout 120 "$probe" "${1:-100000}"; then
        echo "EngineHandoffProbe did not finish in two minutes (or failed): its tasks keep handing work to each other" >&2
        exit 1
    fi
}
first="$(run "$@")"
second="$(run "$@")"
if [ "$first" != "$second" ]; then
    echo "EngineHandoffProbe counted differently on two runs of one build: some task ran off the probe's one thread" >&2
    echo "$first" >&2
    echo "$second" >&2
    exit 1
fi
echo "$first"
