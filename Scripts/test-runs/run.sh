#!/usr/bin/env bash
# Runs `swift test ARGUMENTS` under the hang report (Scripts/with-hang-report.sh), with a watcher beside it that
# notes every stall of the machine: a quarter-second sleep of another process that woke 5 s or more late, so the
# whole machine (or its sandbox) was frozen or starved, and every wall-clock timer of the run fell due at once
# when it went on (a source's answer timeout before the answer, a test's guard before its work).
#
# A failure stands, unless the watcher saw such a stall: then the tests that failed run once more, on their own,
# and that run decides. The log names the stall, the tests and their second run. A run that ended without a report
# (a crash, a hang) fails as it is, and so does a failure in a run the machine did not stall in: a test process
# that starves itself is the code's own fault, and the watcher (another process) does not see it.
#   Scripts/test-runs/run.sh NAME SECONDS [swift test arguments...]
set -uo pipefail
name=$1
limit=$2
shift 2
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p .build
report=.build/$name.xml
stalls=.build/$name.stalls
rm -f "$report" "$stalls"
python3 "$here/stall_watch.py" "$stalls" --stall-seconds 5 < /dev/null > /dev/null 2>&1 &
watcher=$!
bash "$here/../with-hang-report.sh" "$limit" swift test "$@" --xunit-output "$report"
status=$?
kill "$watcher" 2>/dev/null
wait "$watcher" 2>/dev/null
if [ -s "$stalls" ]; then
    echo "stall watch: the machine stalled during the run (seconds late, then the UTC time it went on):"
    sed 's/^/  /' "$stalls"
fi
[ "$status" -eq 0 ] && exit 0
if ! pattern=$(python3 "$here/failed_tests.py" "$report"); then
    echo "test run $name: no report (a crash or a hang): the failure stands"
    exit "$status"
fi
if [ -z "$pattern" ]; then
    echo "test run $name: failed with no failed test in its report: the failure stands"
    exit "$status"
fi
if [ ! -s "$stalls" ]; then
    echo "test run $name: tests failed and the machine did not stall: the failure stands"
    exit "$status"
fi
echo
echo "test run $name: tests failed in a run the machine stalled in; they run once more, on their own: $pattern"
bash "$here/../with-hang-report.sh" "$limit" swift test "$@" --skip-build --filter "$pattern"
