#!/usr/bin/env bash
# Which files of the engine a one-shot's code runs in, from `location(...)` to its handler: the cost probe's
# submit and cancel phases (callback one-shots, each cancelled; the handler told) under callgrind, each
# function that ran mapped to the file that defines it (Scripts/performance-counts/callgrind_files.py).
# Out-of-line code only; the same for the same build, whatever else the machine does.
#   Scripts/count-one-shot-files.sh [requests]   (default 20,000)
set -euo pipefail
cd "$(dirname "$0")/.."
count="${1:-20000}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
source Scripts/performance-counts/probe-phases.sh
run_probe_phases "$work" "$count" >/dev/null
python3 Scripts/performance-counts/callgrind_files.py --binary "$probe_binary" --requests "$count" "$submit_dump" "$cancel_dump"
