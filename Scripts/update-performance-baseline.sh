#!/usr/bin/env bash
# Rewrites the performance guard's baseline (Baselines/performance-counts.json) from this build: the
# instruction and allocation counts (exact, any machine state) and the voluntary context switches of
# `locbench --requests 10000` (the median of its three runs; take it on an idle machine). Run it only
# after a deliberate change of cost, and commit the new baseline on its own, with a message that says
# what changed, why, and the figures before and after (the script prints both).
set -euo pipefail
cd "$(dirname "$0")/.."
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
bash Scripts/count-engine-instructions.sh 100000 --json "$work/counts.json"
swift build -c release --product locbench >/dev/null
.build/release/locbench --requests 10000 --json "$work/locbench.json" >/dev/null
echo "before:"
cat Baselines/performance-counts.json 2>/dev/null || echo "(no baseline yet)"
python3 - "$work/counts.json" "$work/locbench.json" > Baselines/performance-counts.json <<'PY'
import json, sys
counts = json.load(open(sys.argv[1]))
locbench = json.load(open(sys.argv[2]))
print(json.dumps({
    "instructionsPerRequest": counts["instructionsPerRequest"],
    "allocationsPerRequest": counts["allocationsPerRequest"],
    "voluntaryContextSwitchesPerThousandOperations": round(locbench["engine"]["voluntaryContextSwitchesPerThousandOperations"], 1),
    "loopWakeupsPerThousandOperations": round(locbench["engine"]["loopWakeupsPerThousandOperations"], 1),
}, indent=2))
PY
echo "after:"
cat Baselines/performance-counts.json
