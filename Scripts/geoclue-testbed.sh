#!/usr/bin/env bash
# Runs a command against a real GeoClue2 on a private system bus, then stops everything it started:
#   a dbus-daemon of type "system" on a socket in a temporary directory (DBUS_SYSTEM_BUS_ADDRESS points at it),
#   gpsgen serving the synthetic receiver's NMEA on a Unix socket (FIX_RATE fixes per second, default 10),
#   GeoClue reading that socket as its network-NMEA source (its other sources find nothing; no network is used),
#   and GeoClue's demo agent for this user.
# Usage: Scripts/geoclue-testbed.sh COMMAND [ARGUMENTS...]
#   e.g. Scripts/geoclue-testbed.sh .build/release/locbench --source geoclue --clock wall --requests 10000
# Needs dbus-daemon and geoclue-2.0 (Scripts/bootstrap.sh) and a built gpsgen (GPSGEN, default .build/release/gpsgen).
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 1 ] || { echo "usage: $0 COMMAND [ARGUMENTS...]" >&2; exit 2; }
gpsgen="${GPSGEN:-.build/release/gpsgen}"
geoclue=/usr/libexec/geoclue
agent=/usr/libexec/geoclue-2.0/demos/agent
for tool in dbus-daemon "$geoclue" "$agent" "$gpsgen"; do
    command -v "$tool" >/dev/null || { echo "geoclue-testbed: $tool is missing (Scripts/bootstrap.sh; swift build -c release --product gpsgen)" >&2; exit 2; }
done

dir=$(mktemp -d /tmp/geoclue-bed-XXXXXX)
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill -9 "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$dir"
}
trap cleanup EXIT

cat > "$dir/bus.conf" <<CONF
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-BUS Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>system</type>
  <listen>unix:path=$dir/bus</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/> <allow own="*"/>
    <allow send_type="method_call"/> <allow send_type="signal"/> <allow send_type="method_return"/> <allow send_type="error"/>
    <allow receive_type="method_call"/> <allow receive_type="signal"/> <allow receive_type="method_return"/> <allow receive_type="error"/>
  </policy>
</busconfig>
CONF
wait_for() { # what, test command...
    local what=$1; shift
    for _ in $(seq 1 500); do "$@" && return 0; sleep 0.02; done
    echo "geoclue-testbed: gave up waiting for $what" >&2; exit 1
}
export DBUS_SYSTEM_BUS_ADDRESS="unix:path=$dir/bus"
dbus-daemon --config-file="$dir/bus.conf" --nofork --nopidfile 2>"$dir/bus.log" & pids+=($!)
wait_for "the bus" test -S "$dir/bus"
# GeoClue dates NMEA's time of day with today's date: the stream starts at the wall clock's time.
"$gpsgen" --scenario walk --duration 2h --rate "${FIX_RATE:-10}" --start-time now --listen "unix:$dir/nmea" 2>"$dir/gpsgen.log" & pids+=($!)
wait_for "the NMEA socket" test -S "$dir/nmea"
"$geoclue" -t 0 -u "$dir/nmea" >"$dir/geoclue.log" 2>&1 & pids+=($!)
wait_for "GeoClue on the bus" sh -c "dbus-send --system --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus.NameHasOwner string:org.freedesktop.GeoClue2 2>/dev/null | grep -q 'boolean true'"
"$agent" >"$dir/agent.log" 2>&1 & pids+=($!)
echo "geoclue-testbed: bus $DBUS_SYSTEM_BUS_ADDRESS, GeoClue reading ${FIX_RATE:-10} fixes/s of synthetic NMEA" >&2
"$@"
