#!/usr/bin/env bash
# Counts the work the engine does per request, through its public callback API, under valgrind's
# callgrind: N one-shots submitted and processed, then all of them cancelled and processed (the shape
# of the engine benchmarks). Per request it reports the instructions executed and the allocations made
# (calls of malloc, calloc, realloc and the aligned allocators), every thread counted: the caller's and
# the engine's loop's. Unlike a time, neither count moves with the machine's load (valgrind runs the
# threads one at a time), so two builds can be compared on a busy machine. Usage:
#   Scripts/count-engine-instructions.sh [N] [--json FILE]      (N defaults to 100000)
# Scripts/check-performance-counts.sh compares these counts with the baseline in Baselines/.
set -euo pipefail
cd "$(dirname "$0")/.."
count=100000
json=""
while [ $# -gt 0 ]; do
    case "$1" in
        --json) json="$2"; shift 2 ;;
        *) count="$1"; shift ;;
    esac
done
command -v valgrind >/dev/null || { echo "valgrind is needed (Debian: apt-get install valgrind)"; exit 1; }
swift build -c release --product EngineCostProbe >/dev/null
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# callgrind reads no Swift debug information well enough; the symbols are what it needs.
objcopy --strip-debug "$(swift build -c release --show-bin-path)/EngineCostProbe" "$work/probe"
# Each phase is a function of its own: the counters are zeroed when it starts and dumped when it
# returns, all threads included (the main thread waits inside the phase until the engine is done).
# The functions are named exactly (their mangled names): a pattern would also match the closures
# inside them, which run on other threads and would zero the counters mid-phase.
symbol() { nm "$work/probe" | awk -v name="$1" '$3 ~ name && $3 ~ /tF$/ && !found {print $3; found = 1}'; }
submit="$(symbol 11submitPhase)"
cancel="$(symbol 11cancelPhase)"
valgrind --tool=callgrind --callgrind-out-file="$work/callgrind.out" \
    --zero-before="$submit" --dump-after="$submit" --zero-before="$cancel" --dump-after="$cancel" \
    "$work/probe" "$count" 2>/dev/null
submitFile="$(grep -l -F -- "--dump-after=$submit" "$work"/callgrind.out.*)"
cancelFile="$(grep -l -F -- "--dump-after=$cancel" "$work"/callgrind.out.*)"
python3 Scripts/performance-counts/callgrind_counts.py --requests "$count" \
    --phase "submit + processed=$submitFile" --phase "cancel + processed=$cancelFile" ${json:+--json "$json"}
