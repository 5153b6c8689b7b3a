#!/usr/bin/env bash
# Counts the instructions the engine executes per request, through its public callback API, under
# valgrind's callgrind: N one-shots submitted and processed, then all of them cancelled and processed
# (the shape of the engine benchmarks). Unlike a time, an instruction count does not move with the
# machine's load, so two builds can be compared on a busy machine. Usage:
#   Scripts/count-engine-instructions.sh [N]        (default 100000)
# Prints the instructions per request of each phase, all threads counted (the caller's and the
# engine's loop's).
set -euo pipefail
cd "$(dirname "$0")/.."
count="${1:-100000}"
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
for phase in "submit + processed:$submit" "cancel + processed:$cancel"; do
    file="$(grep -l -F -- "--dump-after=${phase#*:}" "$work"/callgrind.out.*)"
    total="$(sed -n 's/^summary: *//p' "$file")"
    echo "${phase%%:*}: $((total / count)) instructions per request (N = $count, the caller's and the engine's)"
done
