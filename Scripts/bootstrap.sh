#!/usr/bin/env bash
# Installs the system packages the project needs on a fresh Debian machine (run as root, or with sudo):
#   libjemalloc-dev  - locbench links jemalloc and reads exact heap figures through mallctl
#   gpsd gpsd-clients python3-gps - the real gpsd that integration tests talk to (gpsfake needs python3-gps)
#   socat            - pseudo-terminal pairs for the serial-port tests
#   chromium fonts-dejavu-core - a headless browser and a font for Scripts/check-report.sh (locbench's HTML report)
#   wrk              - the HTTP load generator of the example server's load test (Scripts/server-load)
#   valgrind         - callgrind counts the engine's instructions and allocations for the performance guard
#   libdbus-1-dev pkg-config - libdbus's headers, found through pkg-config, for the GeoClue source (LocationSourcesGeoClue)
#   libsqlite3-dev   - SQLite, which the example server keeps its fences in (GRDB.swift builds against the system's)
#   gdb              - Scripts/with-hang-report.sh prints the threads of a test run that hangs
#   dbus-daemon geoclue-2.0 - a private system bus and the real GeoClue2 (with its demo agent) that the GeoClue tests
#                      and Scripts/geoclue-testbed.sh start
# Everything else (Swift packages) comes from Package.swift.
set -euo pipefail

packages=(libjemalloc-dev gpsd gpsd-clients python3-gps socat chromium fonts-dejavu-core wrk valgrind
    libdbus-1-dev pkg-config dbus-daemon geoclue-2.0 libsqlite3-dev gdb)
missing=()
for package in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if [ ${#missing[@]} -eq 0 ]; then
    echo "bootstrap: all system packages present"
    exit 0
fi

sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "bootstrap: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
# Debian's gpsd package may start a system gpsd on 2947; the tests start their own on other ports.
echo "bootstrap: done"
