#!/usr/bin/env bash
# Builds the libFuzzer targets (address sanitizer on) and runs each for a bounded time.
#
#   Scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]
#
# SECONDS_PER_TARGET defaults to 25. Targets: NMEAStreamFuzzer GPSDReportFuzzer
# AuthorizationConfigurationFuzzer LocbenchOptionsFuzzer UBXReplyFuzzer PMTKReplyFuzzer GeofenceBodyFuzzer GeoClueValuesFuzzer (all by default). Each target keeps its
# growing corpus in .build-fuzz/corpus/TARGET (seeded from the NMEA corpus beside the package and
# Fuzz/Seeds) and writes crashes as .build-fuzz/findings/TARGET/crash-*; the script fails when any
# target finds one.
# Targets run as many at once as there are cores (FUZZ_JOBS=1: one at a time). Extra libFuzzer flags can be
# passed in FUZZ_FLAGS.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
seconds="${1:-25}"
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(NMEAStreamFuzzer GPSDReportFuzzer AuthorizationConfigurationFuzzer LocbenchOptionsFuzzer UBXReplyFuzzer PMTKReplyFuzzer GeofenceBodyFuzzer GeoClueValuesFuzzer)
nmea_corpus="${LOCATIONENGINE_NMEA_CORPUS:-$root/../shared/nmea}"
scratch="$root/.build-fuzz"

# Coverage instrumentation as `-sanitize=fuzzer` does it, with address sanitizer, but linked against
# libFuzzer without its `main`: each target's own main starts libFuzzer (see Fuzz/FuzzSupport).
# SwiftPM does not recompile when only these flags change, so the fuzz build keeps its own scratch path.
runtime="$(dirname "$(command -v swiftc)")/../lib/clang"
libfuzzer="$(find "$runtime" -name 'libclang_rt.fuzzer_no_main-*.a' | head -1)"
[ -n "$libfuzzer" ] || { echo "libFuzzer (libclang_rt.fuzzer_no_main) not found under $runtime" >&2; exit 1; }
for target in "${targets[@]}"; do
    LOCATIONENGINE_FUZZ=1 swift build -c debug --product "$target" --scratch-path "$scratch" \
        -Xswiftc -sanitize=address -Xswiftc -sanitize-coverage=edge,trace-cmp,inline-8bit-counters,pc-table \
        -Xswiftc -use-ld=lld -Xlinker "$libfuzzer" -Xlinker -lstdc++
done
# A crash is reported by the sanitizer; Swift's own backtracer would only slow it down.
export SWIFT_BACKTRACE=enable=no

# Each target runs on one core: as many run at once as there are cores (FUZZ_JOBS overrides), each
# printing into a log of its own, shown in target order once all are done.
jobs="${FUZZ_JOBS:-$(nproc)}"
logs="$scratch/logs"
mkdir -p "$logs"

fuzz_one() {
    local target="$1"
    local corpus="$scratch/corpus/$target"
    local findings="$scratch/findings/$target"
    mkdir -p "$corpus" "$findings"
    local seeds=()
    case "$target" in
        NMEAStreamFuzzer) [ -d "$nmea_corpus" ] && seeds+=("$nmea_corpus") ;;
        GPSDReportFuzzer) seeds+=("$root/Fuzz/Seeds/gpsd") ;;
        AuthorizationConfigurationFuzzer) seeds+=("$root/Fuzz/Seeds/authorization") ;;
        LocbenchOptionsFuzzer) seeds+=("$root/Fuzz/Seeds/locbench") ;;
        UBXReplyFuzzer) seeds+=("$root/Fuzz/Seeds/ubx") ;;
        PMTKReplyFuzzer) seeds+=("$root/Fuzz/Seeds/pmtk") ;;
        GeofenceBodyFuzzer) seeds+=("$root/Fuzz/Seeds/geofence") ;;
        GeoClueValuesFuzzer) seeds+=("$root/Fuzz/Seeds/geoclue") ;;
    esac
    # A geofence body may be up to 64 KiB (a polygon of 1,024 vertices): inputs reach past that cap.
    local max_len=4096
    if [ "$target" = GeofenceBodyFuzzer ]; then max_len=70000; fi
    echo "== $target: ${seconds}s"
    # -max_len bounds one input (receivers' lines are short: 4 KiB holds dozens of sentences; see above for the geofence body); -rss_limit_mb and -timeout turn unbounded memory and hangs into findings.
    # shellcheck disable=SC2086
    "$scratch/debug/$target" "$corpus" "${seeds[@]}" -max_total_time="$seconds" -max_len="$max_len" \
        -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 -artifact_prefix="$findings/" ${FUZZ_FLAGS:-} 2>&1 \
        | grep -E '^(#[0-9]+[[:space:]]+(INITED|DONE)|stat::|==[0-9]+==|SUMMARY|artifact_prefix|Test unit written|Done )' || true
}

running=0
for target in "${targets[@]}"; do
    if [ "$running" -ge "$jobs" ]; then
        wait -n || true
        running=$((running - 1))
    fi
    fuzz_one "$target" > "$logs/$target.log" 2>&1 &
    running=$((running + 1))
done
wait || true

# A finding is a file libFuzzer wrote, whatever a run printed or returned.
status=0
for target in "${targets[@]}"; do
    cat "$logs/$target.log"
    findings="$scratch/findings/$target"
    # (One `ls` of the four patterns would fail whenever any one of them matched nothing.)
    if [ -n "$(find "$findings" -maxdepth 1 \( -name 'crash-*' -o -name 'timeout-*' -o -name 'oom-*' -o -name 'leak-*' \) -print -quit)" ]; then
        echo "!! $target: findings in $findings" >&2
        status=1
    fi
done
exit $status
