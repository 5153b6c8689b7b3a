#!/usr/bin/env bash
# Builds the LocationEngine documentation (the DocC catalog in Sources/LocationEngine/LocationEngine.docc
# and the symbols' doc comments) with every warning treated as an error: a broken symbol link, an
# article missing from the topics or an unknown directive fails the build.
# The archive lands in .build/plugins/Swift-DocC/outputs/LocationEngine.doccarchive;
# `swift package --disable-sandbox preview-documentation --target LocationEngine` serves it locally.
set -euo pipefail
cd "$(dirname "$0")/.."
swift package --disable-sandbox generate-documentation --target LocationEngine --warnings-as-errors "$@"
