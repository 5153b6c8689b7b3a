#!/usr/bin/env bash
# Builds the documentation of every library — the DocC catalog in Sources/<Module>/<Module>.docc and the
# symbols' doc comments — with every warning treated as an error: a broken symbol link, an article
# missing from the topics or an unknown directive fails the build.
# The archives land in .build/plugins/Swift-DocC/outputs/<Module>.doccarchive;
# `swift package --disable-sandbox preview-documentation --target <Module>` serves one locally.
set -euo pipefail
cd "$(dirname "$0")/.."
modules=(LocationEngine NMEA LocationSources LocationSourcesGeoClue SyntheticGPS LocationEngineTestKit ReceiverControl)
targets=()
for module in "${modules[@]}"; do targets+=(--target "$module"); done
swift package --disable-sandbox generate-documentation "${targets[@]}" --warnings-as-errors "$@"
