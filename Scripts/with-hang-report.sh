#!/usr/bin/env bash
# Runs a test command (`swift test ...`), and if it has not ended after the given seconds, prints the stack of
# every thread of each test process still running (what it waits on names the hang) and fails: a hang is
# reported where it happened, instead of CI running out of its time with nothing said.
#   Scripts/with-hang-report.sh SECONDS COMMAND [ARGUMENTS...]
set -uo pipefail
limit=$1
shift
"$@" &
command=$!
(
    # The sleep ends with the watchdog, and holds none of the output's descriptors meanwhile (a pipe to tee
    # would otherwise stay open until it ended).
    trap 'kill "$sleeper" 2>/dev/null; exit 0' TERM
    sleep "$limit" > /dev/null 2>&1 < /dev/null &
    sleeper=$!
    wait "$sleeper"
    kill -0 "$command" 2>/dev/null || exit 0
    echo
    echo "with-hang-report: '$*' still running after $limit s; the test processes' threads:"
    for process in $(pgrep -f 'PackageTests\.xctest'); do
        echo "--- process $process: $(tr '\0' ' ' < "/proc/$process/cmdline" | cut -c1-200)"
        gdb -batch -p "$process" -ex 'thread apply all bt 30' 2>/dev/null | grep -E '^(Thread|#)' | cut -c1-300
    done
    pkill -KILL -f 'PackageTests\.xctest'
    kill "$command" 2>/dev/null
) &
watchdog=$!
wait "$command"
status=$?
kill "$watchdog" 2>/dev/null
wait "$watchdog" 2>/dev/null
exit "$status"
