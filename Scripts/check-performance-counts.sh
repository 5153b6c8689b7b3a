#!/usr/bin/env bash
# The performance guard CI runs: the engine's instructions and allocations per request (counted under
# callgrind) and its hand-offs per 1,000 operations (loop and timer wake-ups, task resumptions: counted on
# the manual clock with every task on one thread), each printed with its baseline
# (Baselines/performance-counts.json) and the ratio, and the
# context switches and loop wake-ups per 1,000 operations of `locbench --requests 10000`, printed only;
# fails when a count is past its bound (Scripts/performance-counts/check_counts.py says which bound and why). Usage:
#   Scripts/check-performance-counts.sh LOCBENCH_JSON
# where LOCBENCH_JSON is the --json output of `locbench --requests 10000` from the same build.
set -euo pipefail
cd "$(dirname "$0")/.."
locbench_json="${1:?usage: Scripts/check-performance-counts.sh LOCBENCH_JSON (from locbench --requests 10000 --json)}"
counts="$(mktemp)"
handoffs="$(mktemp)"
trap 'rm -f "$counts" "$handoffs"' EXIT
bash Scripts/count-engine-instructions.sh 100000 --json "$counts"
bash Scripts/count-engine-handoffs.sh 100000 > "$handoffs"
echo
python3 Scripts/performance-counts/check_counts.py \
    --baseline Baselines/performance-counts.json --counts "$counts" --handoffs "$handoffs" --locbench "$locbench_json"
