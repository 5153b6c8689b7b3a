# Sourced by the scripts that count the engine's work: runs the cost probe's submit and cancel phases under
# callgrind, one dump per phase, in the directory `$1`, with `$2` requests. Sets `probe_binary` (the
# unstripped build), `submit_dump` and `cancel_dump`.
run_probe_phases() {
    local work="$1" count="$2"
    command -v valgrind >/dev/null || { echo "valgrind is needed (Debian: apt-get install valgrind)"; exit 1; }
    swift build -c release --product EngineCostProbe >/dev/null
    probe_binary="$(swift build -c release --show-bin-path)/EngineCostProbe"
    # valgrind cannot read this toolchain's debug information: it runs a stripped copy.
    objcopy --strip-debug "$probe_binary" "$work/probe"
    symbol() { nm "$work/probe" | awk -v name="$1" '$3 ~ name && $3 ~ /tF$/ && !found {print $3; found = 1}'; }
    local submit cancel
    submit="$(symbol 11submitPhase)"
    cancel="$(symbol 11cancelPhase)"
    valgrind --tool=callgrind --callgrind-out-file="$work/callgrind.out" \
        --zero-before="$submit" --dump-after="$submit" --zero-before="$cancel" --dump-after="$cancel" \
        "$work/probe" "$count" 2>/dev/null
    submit_dump="$(grep -l -F -- "--dump-after=$submit" "$work"/callgrind.out.*)"
    cancel_dump="$(grep -l -F -- "--dump-after=$cancel" "$work"/callgrind.out.*)"
}
