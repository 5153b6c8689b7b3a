#!/usr/bin/env bash
# Decoding throughput of the Swift NMEA module vs Python's pynmea2, on the same input.
#
# Input: every `$` line of the shared corpus (../shared/nmea, or $LOCATIONENGINE_NMEA_CORPUS),
# cycled to exactly 1,000,000 sentences. Both sides run single-threaded, pinned to one core
# (taskset -c 0 when available), in this one run:
#   - Swift: the NMEABenchmarks target (package-benchmark, release build) builds the same
#     1,000,000 lines in memory and decodes them per iteration through NMEAStreamDecoder:
#     checksum, every field to numbers, epochs.
#   - pynmea2: pynmea2.parse(check=True) on every line ("parse"), and parse plus reading the
#     same values through pynmea2's typed accessors ("fields") — the like-for-like figure.
# Prints sentences/s for each and the ratios. The first run builds in release (several minutes).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
corpus="${LOCATIONENGINE_NMEA_CORPUS:-$root/../shared/nmea}"
[ -f "$corpus/README.md" ] || { echo "NMEA corpus not found at $corpus (set LOCATIONENGINE_NMEA_CORPUS)" >&2; exit 1; }
scratch="$root/.build-nmea"
input="$scratch/nmea-throughput-input.txt"
helper="$root/Scripts/nmea_throughput.py"
pin=()
command -v taskset >/dev/null && pin=(taskset -c 0)

mkdir -p "$scratch"
python3 "$helper" make-input "$corpus" 1000000 "$input"

if [ ! -x .venv-nmea/bin/python ]; then
    python3 -m venv .venv-nmea
fi
.venv-nmea/bin/pip install --quiet --disable-pip-version-check pynmea2

echo "Building the benchmark (release)…" >&2
swift package --disable-sandbox --scratch-path "$scratch" benchmark --target NMEABenchmarks \
    --filter "no-such-benchmark" >/dev/null 2>&1 || true

# The benchmark builds the same 1,000,000 lines in memory (same logs, same order, same cycling).
name="NMEA stream decode, 1M corpus sentences per iteration"
echo "Timing Swift…" >&2
LOCATIONENGINE_NMEA_CORPUS="$corpus" ${pin[@]+"${pin[@]}"} swift package --disable-sandbox --scratch-path "$scratch" \
    benchmark --target NMEABenchmarks --filter ".*1M corpus.*" --no-progress >"$scratch/nmea-benchmark.txt" 2>&1 \
    || { cat "$scratch/nmea-benchmark.txt" >&2; exit 1; }
swift_rate="$(python3 "$helper" swift "$scratch/nmea-benchmark.txt" "$name")"

echo "Timing pynmea2…" >&2
python_rates="$(${pin[@]+"${pin[@]}"} .venv-nmea/bin/python "$helper" pynmea2 "$input")"

python3 - "$swift_rate" "$python_rates" "$(.venv-nmea/bin/python -c 'import pynmea2; print(pynmea2.version)')" <<'PY'
import json, sys
swift, python, version = float(sys.argv[1]), json.loads(sys.argv[2]), sys.argv[3]
rows = [
    ("Swift NMEAStreamDecoder: checksum, all fields, epochs", swift, None),
    (f"pynmea2 {version}: parse + read the same fields", python["fields"], swift / python["fields"]),
    (f"pynmea2 {version}: parse only (fields stay text)", python["parse"], swift / python["parse"]),
]
print("NMEA decoding, 1,000,000 corpus sentences, one core (Swift p50, pynmea2 median of 3)")
for label, rate, ratio in rows:
    print(f"  {label:<55} {rate:>12,.0f} sentences/s" + (f"   Swift is {ratio:5.1f}x" if ratio else ""))
PY
