#!/usr/bin/env bash
# Serves a synthetic drive to a real gpsd over TCP and prints gpsd's TPV reports, by hand.
# (The automated version of this check is Tests/SyntheticGPSTests/GpsdIntegrationTests.swift.)
#
#   Scripts/gpsd-roundtrip.sh [SCENARIO] [SECONDS]      e.g. Scripts/gpsd-roundtrip.sh tunnel 60
#
# Needs: gpsd and gpspipe (apt-get install gpsd gpsd-clients). Everything listens on 127.0.0.1 only
# and is stopped on exit.
set -euo pipefail

scenario="${1:-drive}"
seconds="${2:-20}"
feed_port="${FEED_PORT:-47600}"
gpsd_port="${GPSD_PORT:-47601}"
scratch="${SCRATCH_PATH:-.build-synth}"

cd "$(dirname "$0")/.."
command -v gpsd >/dev/null || { echo "gpsd is not installed (apt-get install gpsd gpsd-clients)" >&2; exit 1; }
command -v gpspipe >/dev/null || { echo "gpspipe is not installed (apt-get install gpsd-clients)" >&2; exit 1; }

swift build --scratch-path "$scratch" --product gpsgen >&2
gpsgen="$scratch/debug/gpsgen"

pids=()
cleanup() { for pid in "${pids[@]}"; do kill -KILL "$pid" 2>/dev/null || true; done; }
trap cleanup EXIT

"$gpsgen" --scenario "$scenario" --duration "${seconds}s" --outage 8s+5s --listen "127.0.0.1:$feed_port" &
pids+=($!)
sleep 1
gpsd -N -n -S "$gpsd_port" "tcp://127.0.0.1:$feed_port" &
pids+=($!)
sleep 1
# One TPV per second of scenario; gpspipe exits after that many.
gpspipe -w -n "$((seconds * 3))" "127.0.0.1:$gpsd_port" | grep --line-buffered "\"class\":\"TPV\"" || true
