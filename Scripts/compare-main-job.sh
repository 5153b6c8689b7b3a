#!/usr/bin/env bash
# The main job side by side: two locbench binaries run `--requests 10000` alternately (one pair at a
# time, the first binary first), and the engine's run wall and CPU from each run's JSON are compared —
# medians with a bootstrap interval, and pair by pair with a sign test, which sees through the spread
# between one run and the next (half the median on a small VM) that separate medians do not.
#   Scripts/compare-main-job.sh OLD_LOCBENCH NEW_LOCBENCH [pairs] [-- extra locbench options]
# e.g. build an older commit in a worktree (`swift build -c release --product locbench`), copy its
# binary out, and compare it with this tree's `.build/release/locbench`. Default: 100 pairs.
set -euo pipefail
if [[ $# -lt 2 ]]; then
    echo "usage: $0 OLD_LOCBENCH NEW_LOCBENCH [pairs] [-- locbench options]" >&2
    exit 64
fi
old="$1" new="$2"
shift 2
pairs=100
if [[ $# -gt 0 && "$1" != "--" ]]; then pairs="$1"; shift; fi
[[ $# -gt 0 && "$1" == "--" ]] && shift
for binary in "$old" "$new"; do
    [[ -x "$binary" ]] || { echo "not an executable: $binary" >&2; exit 66; }
done
[[ "$pairs" =~ ^[1-9][0-9]*$ ]] || { echo "pairs must be a positive integer, got '$pairs'" >&2; exit 64; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
for ((pair = 1; pair <= pairs; pair++)); do
    for side in old new; do
        binary="$old"; [[ "$side" == new ]] && binary="$new"
        "$binary" --requests 10000 "$@" --json "$work/run.json" >/dev/null 2>&1 || {
            echo "$side run $pair failed: $binary --requests 10000 $*" >&2
            exit 1
        }
        python3 -c 'import json, sys; e = json.load(open(sys.argv[1]))["engine"]; print(sys.argv[2], e["wallSeconds"], e["cpuSeconds"])' \
            "$work/run.json" "$side" >>"$work/runs.txt"
    done
    printf '\r%d of %d pairs' "$pair" "$pairs" >&2
done
echo >&2
python3 - "$work/runs.txt" <<'PY'
import math, random, statistics, sys
rows = [line.split() for line in open(sys.argv[1])]
random.seed(1)
for column, name in ((1, "wall"), (2, "CPU")):
    old = [float(r[column]) for r in rows if r[0] == "old"]
    new = [float(r[column]) for r in rows if r[0] == "new"]
    ratio = statistics.median(new) / statistics.median(old)
    boot = sorted(
        statistics.median(random.choices(new, k=len(new))) / statistics.median(random.choices(old, k=len(old)))
        for _ in range(2000))
    won = sum(n < o for o, n in zip(old, new))
    n = len(old)
    tail = min(won, n - won)
    p = min(1.0, 2 * sum(math.comb(n, i) for i in range(tail + 1)) / 2**n)
    within = statistics.median(nw / o for o, nw in zip(old, new))
    print(f"{name}: old median {statistics.median(old):.4f} s (min {min(old):.4f}), new {statistics.median(new):.4f} s "
          f"(min {min(new):.4f}); new/old {ratio:.3f} (95 % bootstrap {boot[50]:.3f}-{boot[1949]:.3f}); "
          f"new faster in {won} of {n} pairs, median ratio within a pair {within:.3f}, sign test p = {p:.2g}")
PY
