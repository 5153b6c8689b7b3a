#!/usr/bin/env bash
# Rewrites the performance guard's baseline (Baselines/performance-counts.json) from this build: the
# instruction and allocation counts and the hand-offs per 1,000 operations (exact, any machine state:
# figures that move with the machine have no baseline). Run it only
# after a deliberate change of cost, and commit the new baseline on its own, with a message that says
# what changed, why, and the figures before and after (the script prints both).
set -euo pipefail
cd "$(dirname "$0")/.."
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
bash Scripts/count-engine-instructions.sh 100000 --json "$work/counts.json"
bash Scripts/count-engine-handoffs.sh 100000 > "$work/handoffs.json"
echo "before:"
cat Baselines/performance-counts.json 2>/dev/null || echo "(no baseline yet)"
python3 - "$work/counts.json" "$work/handoffs.json" > Baselines/performance-counts.json <<'PY'
import json, sys
counts = json.load(open(sys.argv[1]))
handoffs = json.load(open(sys.argv[2]))
print(json.dumps({
    "instructionsPerRequest": counts["instructionsPerRequest"],
    "allocationsPerRequest": counts["allocationsPerRequest"],
    "handoffsPerThousandOperations": handoffs["handoffsPerThousandOperations"],
}, indent=2))
PY
echo "after:"
cat Baselines/performance-counts.json
