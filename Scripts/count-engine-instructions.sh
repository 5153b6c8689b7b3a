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
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
source Scripts/performance-counts/probe-phases.sh
run_probe_phases "$work" "$count"
python3 Scripts/performance-counts/callgrind_counts.py --requests "$count" \
    --phase "submit + processed=$submit_dump" --phase "cancel + processed=$cancel_dump" ${json:+--json "$json"}
