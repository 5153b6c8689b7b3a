#!/usr/bin/env bash
# gpsgen's --output opens its path as a shell's `>` does: a regular file is created or truncated, a named pipe
# is written through (its reader gets the NMEA) and stays a pipe, a symbolic link is followed and stays a link,
# a directory is refused with a message naming it; a --rate with no finite fix interval is refused; an interrupted
# real-time run ends as its own end does. Usage: Scripts/check-gpsgen-output.sh [GPSGEN]
set -euo pipefail
gpsgen="${1:-.build/release/gpsgen}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
fail() { echo "check-gpsgen-output: $*" >&2; exit 1; }

"$gpsgen" --duration 5s --output "$work/plain.nmea"
grep -q '^\$G[PN]RMC' "$work/plain.nmea" || fail "a new file got no NMEA"
"$gpsgen" --duration 2s --output "$work/plain.nmea"
[ "$(grep -c 'RMC' "$work/plain.nmea")" -le 3 ] || fail "an existing file was not truncated"

mkfifo "$work/pipe"
timeout 60 cat "$work/pipe" > "$work/from-pipe" &
reader=$!
timeout 60 "$gpsgen" --duration 5s --output "$work/pipe"
wait "$reader"
[ -p "$work/pipe" ] || fail "the named pipe was replaced"
grep -q 'RMC' "$work/from-pipe" || fail "the pipe's reader got no NMEA"

touch "$work/target"
ln -s "$work/target" "$work/link"
"$gpsgen" --duration 5s --output "$work/link"
[ -L "$work/link" ] || fail "the symbolic link was replaced"
grep -q 'RMC' "$work/target" || fail "the link's target got no NMEA"

mkdir "$work/directory"
if "$gpsgen" --duration 5s --output "$work/directory" 2> "$work/error"; then fail "a directory was accepted as output"; fi
grep -q "cannot open output file '$work/directory'" "$work/error" || fail "unclear refusal: $(cat "$work/error")"
[ -d "$work/directory" ] || fail "the directory was replaced"
# A rate too small for a finite fix interval is refused, not run into an empty output and a zero exit.
if "$gpsgen" --duration 10s --rate 1e-310 > /dev/null 2> "$work/error"; then fail "--rate 1e-310 was accepted"; fi
grep -q -- "--rate must be" "$work/error" || fail "unclear refusal of --rate: $(cat "$work/error")"
# An option the run would ignore is refused, naming it; so is a run of no time.
for args in "--acknowledgements late" "--persona mtk --ublox m10 --listen 127.0.0.1:0" "--persona ublox --power lowest --listen 127.0.0.1:0" \
    "--listen 127.0.0.1:0 --output $work/ignored.nmea" "--duration 0" "--start-time 0"; do
    # shellcheck disable=SC2086
    if timeout 10 "$gpsgen" $args > /dev/null 2> "$work/error"; then fail "'$args' was accepted"; fi
    grep -q "^Error: " "$work/error" || fail "unclear refusal of '$args': $(cat "$work/error")"
done
# A character device that is no terminal is refused with a message (it trapped), and a decode of no NMEA fails.
status=0; timeout 10 "$gpsgen" --persona mtk --terminal /dev/null --duration 1s 2> "$work/error" || status=$?
[ "$status" -eq 1 ] && grep -q "not a terminal or a FIFO" "$work/error" || fail "--terminal /dev/null: exit $status, $(cat "$work/error")"
printf '<gpx></gpx>\n' > "$work/track.gpx"
if "$gpsgen" decode "$work/track.gpx" > /dev/null 2> "$work/error"; then fail "a decode of no NMEA succeeded"; fi
grep -q "no NMEA sentence" "$work/error" || fail "unclear decode failure: $(cat "$work/error")"
# A persona on a pseudo-terminal ends by itself at its --duration (exit 0), and with an error when the host hangs up.
python3 - "$gpsgen" <<'PY' || fail "a persona on a terminal did not end as it should"
import os, pty, subprocess, sys, time
for hang_up in (False, True):
    master, slave = pty.openpty()
    name = os.ttyname(slave)
    os.close(slave)
    run = subprocess.Popen([sys.argv[1], "--persona", "mtk", "--terminal", name, "--duration", "3s"], stderr=subprocess.PIPE)
    if hang_up:
        time.sleep(1)
        os.close(master)
    error = run.communicate(timeout=30)[1].decode()
    if not hang_up:
        os.close(master)
    expected = 1 if hang_up else 0
    if run.returncode != expected or (hang_up and "closed by its other end" not in error):
        sys.exit(f"hang-up {hang_up}: exit {run.returncode}, {error}")
PY
# Interrupted, a real-time run ends as its own end does: a server on a Unix socket removes its socket file, a persona
# prints its meter, and gpsgen exits with 128 + the signal's number, saying which stopped it.
python3 - "$gpsgen" "$work" <<'PY' || fail "an interrupted real-time run did not end as it should"
import os, signal, subprocess, sys
gpsgen, work = sys.argv[1], sys.argv[2]
socket_path = os.path.join(work, "nmea.sock")
# The signal goes as soon as gpsgen says it is ready (its first line): it catches the signals before it says so.
runs = [
    (["--listen", f"unix:{socket_path}", "--duration", "10m"], signal.SIGINT, "waiting for a client", "stopped by SIGINT"),
    (["--persona", "mtk", "--listen", "127.0.0.1:0", "--duration", "10m"], signal.SIGTERM, "receiver on", "metered"),
]
for arguments, sent, ready, said in runs:
    run = subprocess.Popen([gpsgen] + arguments, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL)
    first = run.stderr.readline().decode()
    if ready not in first:
        sys.exit(f"{' '.join(arguments)} did not start: {first}")
    run.send_signal(sent)
    error = first + run.communicate(timeout=30)[1].decode()
    name = signal.Signals(sent).name
    if run.returncode != 128 + sent or f"stopped by {name}" not in error or said not in error:
        sys.exit(f"{' '.join(arguments)} after {name}: exit {run.returncode}, {error}")
    if os.path.lexists(socket_path):
        sys.exit("the Unix socket file was left behind")
PY
echo "gpsgen --output: a new and an existing file, a named pipe, a symbolic link and a directory handled as a shell's > would; ignored options, a run of no time, a terminal that is none and a log without NMEA refused; a persona's terminal run ends at its duration or its hang-up; an interrupted real-time run removes its socket file, prints its meter and exits 128 + the signal"
