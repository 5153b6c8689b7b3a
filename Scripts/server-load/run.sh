#!/usr/bin/env bash
# The example server under real load, on loopback: thousands of concurrent connections asking for
# one-shots (wrk, mixed accuracies, timeouts of 100 ms to 2 s) plus a few hundred server-sent-event
# subscribers that come and go, for a bounded time. Then check.py verifies, from /metrics and the
# server's exit report, that every request ended exactly once, no subscription outlived its client,
# the source powered down and the heap came back to its idle level; it prints requests/s, latency
# p50/p99 and the engine's share of the CPU per request (against GET /health, which does no engine work).
# The run ends with SIGTERM while --pending one-shots (and a tenth as many event streams) wait for a
# fix that never comes: check.py verifies each was answered within 1 s with 503 `shut_down`, each
# stream ended with `shut_down`, and the server exited with its report.
# Geofences: before the load, --fences fences around the receiver's position (geofence_clients.py), one
# GET /geofences/events listener and one that reconnects with Last-Event-ID every 50 events; after it,
# every fence is deleted. The server keeps them in a database of its own under .build/server-load.
# check.py verifies that each was monitored (the gauge), that transitions were delivered and the listener
# heard every one the metrics counted, that each fence ended once (`cancelled`), that both listeners saw
# the same event ids one by one (no gap, no duplicate, across the resumes), and that the stream ended
# with `shut_down` within 1 s of SIGTERM.
#
#   Scripts/server-load/run.sh [--connections 2000] [--seconds 20] [--sse 300] [--pending 300] [--fences 300] [--server PATH]
#
# Needs wrk and python3 (Scripts/bootstrap.sh) and the server built in release:
#   swift build -c release --package-path Examples/LocationServer
set -euo pipefail
cd "$(dirname "$0")/../.."
here=Scripts/server-load
server=Examples/LocationServer/.build/release/location-server
connections=2000 seconds=20 sse=300 pending=300 fences=300 threads=2
while [ $# -gt 0 ]; do
    case "$1" in
        --connections) connections=$2; shift 2 ;;
        --seconds) seconds=$2; shift 2 ;;
        --sse) sse=$2; shift 2 ;;
        --pending) pending=$2; shift 2 ;;
        --fences) fences=$2; shift 2 ;;
        --server) server=$2; shift 2 ;;
        *) echo "run.sh: unknown option $1" >&2; exit 2 ;;
    esac
done
out=.build/server-load
mkdir -p "$out"
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)"

rm -f "$out/server.sqlite" "$out/server.sqlite-wal" "$out/server.sqlite-shm"
# Made before the server starts: the background job's redirection creates it only once that job runs, and on a
# loaded machine the first look for the port came before it (sed failed on a missing file, ending the script).
: >"$out/server.log"
"$server" --port 0 --database "$out/server.sqlite" --fix-rate 5 --linger 1s --log-level warning --exit-report "$out/exit.json" >"$out/server.log" 2>&1 &
pid=$!
trap 'kill -KILL $pid 2>/dev/null || true' EXIT
port=""
for _ in $(seq 300); do
    port=$(sed -n 's/^listening on \([0-9]*\)$/\1/p' "$out/server.log")
    [ -n "$port" ] && break
    kill -0 $pid 2>/dev/null || { cat "$out/server.log"; echo "run.sh: the server exited" >&2; exit 1; }
    sleep 0.1
done
[ -n "$port" ] || { echo "run.sh: the server did not start listening" >&2; exit 1; }
base="http://127.0.0.1:$port"
fetch() { python3 -c 'import sys, urllib.request; sys.stdout.write(urllib.request.urlopen(sys.argv[1], timeout=30).read().decode())' "$1"; }
cpu() { awk '{ printf "%.2f\n", ($14 + $15) / '"$(getconf CLK_TCK)"' }' "/proc/$pid/stat"; }
# Waits (at most 30 s) until the engine has nothing pending and its source is off.
wait_idle() {
    for _ in $(seq 300); do
        fetch "$base/metrics" >"$out/$1.prom"
        if grep -q '^locationengine_source_on 0' "$out/$1.prom" \
            && ! grep -qE '^locationengine_requests_pending\{[^}]*\} [1-9]' "$out/$1.prom"; then return 0; fi
        sleep 0.1
    done
    echo "run.sh: the engine did not become idle within 30 s" >&2
}

echo "server-load: server on port $port; warming up"
for accuracy in city block room; do fetch "$base/location?accuracy=$accuracy&timeout=2s" >/dev/null; done
wait_idle idle

echo "server-load: baseline, GET /health for 5 s over $connections connections"
cpu0=$(cpu)
WRK_PATH=/health wrk -t$threads -c"$connections" -d5s --timeout 10s -s $here/requests.lua "$base" >"$out/wrk-health.txt"
cpu1=$(cpu)

echo "server-load: $fences geofences, a /geofences/events listener and one resuming with Last-Event-ID"
rm -f "$out/geofence-listening" "$out/geofence-resuming"
python3 $here/geofence_clients.py listen --port "$port" --ready "$out/geofence-listening" >"$out/geofence-events.json" &
listener_pid=$!
python3 $here/geofence_clients.py listen --port "$port" --resume-every 50 --ready "$out/geofence-resuming" >"$out/geofence-events-resumed.json" &
resumer_pid=$!
for _ in $(seq 300); do [ -e "$out/geofence-listening" ] && [ -e "$out/geofence-resuming" ] && break; sleep 0.1; done
python3 $here/geofence_clients.py create --port "$port" --fences "$fences" >"$out/geofence-create.json"

echo "server-load: GET /location over $connections connections + $sse event streams for ${seconds}s"
python3 $here/sse_clients.py --port "$port" --clients "$sse" --seconds "$seconds" >"$out/sse.json" &
sse_pid=$!
wrk -t$threads -c"$connections" -d"${seconds}s" --timeout 10s --latency -s $here/requests.lua "$base" | tee "$out/wrk-location.txt"
wait $sse_pid
cpu2=$(cpu)
cat "$out/sse.json"
python3 $here/geofence_clients.py delete --port "$port" --created "$out/geofence-create.json" >"$out/geofence-delete.json"

wait_idle after
echo "server-load: SIGTERM with $pending one-shots and $((pending / 10)) event streams pending"
python3 $here/shutdown_clients.py --port "$port" --pid $pid --oneshots "$pending" --streams $((pending / 10)) | tee "$out/shutdown.json"
wait $pid || { echo "run.sh: the server exited with status $?" >&2; exit 1; }
trap - EXIT
wait $listener_pid || true
wait $resumer_pid || true

python3 $here/check.py --idle "$out/idle.prom" --after "$out/after.prom" --exit-report "$out/exit.json" \
    --wrk "$out/wrk-location.txt" --wrk-baseline "$out/wrk-health.txt" --sse "$out/sse.json" \
    --cpu-baseline "$(python3 -c "print($cpu1 - $cpu0)")" --cpu-load "$(python3 -c "print($cpu2 - $cpu1)")" --shutdown "$out/shutdown.json" \
    --geofence-create "$out/geofence-create.json" --geofence-delete "$out/geofence-delete.json" \
    --geofence-events "$out/geofence-events.json" --geofence-events-resumed "$out/geofence-events-resumed.json" \
    --json "$out/figures.json"
