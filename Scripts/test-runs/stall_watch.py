#!/usr/bin/env python3
"""Watches for stalls of the whole machine while a test run goes on.

Sleeps a quarter of a second at a time and writes, one line each, every wake-up that came more than
STALL_SECONDS late ("<seconds late> <UTC time of the wake-up>"), until it is stopped. A process that
waits on nothing and wakes this late was not run at all: the machine (or the sandbox it runs in) was
frozen or starved, and every wall-clock timer of the test process fell due at once when it went on.
A stall inside the test process alone (its own threads busy) is not seen here, by design.

    stall_watch.py OUTPUT [--stall-seconds S]
    stall_watch.py --self-test
"""
import argparse
import datetime
import signal
import sys
import time

STEP = 0.25


def watch(output, stall_seconds, clock=time.monotonic, sleep=time.sleep, running=lambda: True):
    with open(output, "a", buffering=1) as out:
        while running():
            before = clock()
            sleep(STEP)
            late = clock() - before - STEP
            if late > stall_seconds:
                stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%H:%M:%S")
                out.write(f"{late:.1f} {stamp}\n")


def self_test():
    import os
    import tempfile
    # A clock that jumps 400 s during the third sleep, as a frozen machine's does.
    now = [0.0]
    sleeps = [0]

    def sleep(seconds):
        sleeps[0] += 1
        now[0] += seconds + (400 if sleeps[0] == 3 else 0.01)

    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "stalls")
        watch(path, 5, clock=lambda: now[0], sleep=sleep, running=lambda: sleeps[0] < 6)
        with open(path) as lines:
            stalls = lines.readlines()
        assert len(stalls) == 1, "only the frozen step is a stall"
        assert abs(float(stalls[0].split()[0]) - 400) < 0.1, stalls
    print("stall_watch self-test: ok")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("output", nargs="?")
    parser.add_argument("--stall-seconds", type=float, default=5.0)
    parser.add_argument("--self-test", action="store_true")
    arguments = parser.parse_args()
    if arguments.self_test:
        return self_test()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    watch(arguments.output, arguments.stall_seconds)


if __name__ == "__main__":
    main()
