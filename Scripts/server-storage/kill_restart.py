#!/usr/bin/env python3
"""The example server killed with SIGKILL and restarted, --cycles times, on one database file, during a
burst of fence creations, deletions and transitions; on loopback only, each cycle well under a second.

Each cycle starts the server at one of two fixed positions 1.1 km apart (--static, alternating, so that
the fences around the first are entered and exited across restarts), opens a GET /geofences/events
reader that resumes with the last id it saw (Last-Event-ID), creates and deletes fences from two
threads, and kills the server at a random moment. After each restart it checks:

  - every fence whose creation was answered 201 is listed, unless its deletion was answered 204;
    every fence whose deletion was answered 204 is gone; any other listed fence is one whose creation
    was under way at the kill (no more of them than creations were under way);
  - the reader's event ids, across every kill, run 1, 2, 3… with no gap and no duplicate;
  - no fence that had a known state before a restart is `determined` again after it; the ones whose
    state changed are `entered`/`exited` with `whileStopped`.

While the first server runs, a second one started on the same file must be refused ("another server has
the database open"); every restart after a kill shows the killed server's claim on the file gone with it.

The last cycle ends with SIGTERM instead: the server must exit 0 and the reader's stream end with
`shut_down`. Prints one JSON line with the figures; exits 1 on any violation.

  kill_restart.py --server Examples/LocationServer/.build/release/location-server [--cycles 100] [--seed 1]
"""
import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import threading
import time

from server_process import EventReader, Server, request

POSITIONS = [(52.52, 13.405), (52.53, 13.405)]


class Model:
    """What the clients were told, and what was under way at the kill."""

    def __init__(self):
        self.lock = threading.Lock()
        self.created = set()      # answered 201, not yet answered 204
        self.deleted = set()      # answered 204
        self.creating = 0         # creations under way (no answer)
        self.deleting = set()     # deletions under way
        self.answers = {}

    def count(self, key):
        self.answers[key] = self.answers.get(key, 0) + 1


def burst(port, model, stop, rng):
    """Creates (two in three) and deletes fences until `stop` or the server is gone."""
    while not stop.is_set():
        with model.lock:
            victim = rng.choice(sorted(model.created)) if model.created and rng.random() < 0.34 else None
            if victim is None:
                model.creating += 1
            else:
                model.created.discard(victim)
                model.deleting.add(victim)
        try:
            if victim is None:
                latitude, longitude = POSITIONS[0]
                body = {"circle": {"latitude": latitude + rng.uniform(-0.001, 0.001), "longitude": longitude,
                                   "radius": rng.choice([300, 400, 500])}}
                status, location, _ = request(port, "POST", "/geofences", body, timeout=10)
                with model.lock:
                    model.count(f"POST {status}")
                    if status == 201:
                        model.creating -= 1
                        model.created.add(int(location.rsplit("/", 1)[1]))
                    elif status in (409, 503):
                        model.creating -= 1
            else:
                status, _, _ = request(port, "DELETE", f"/geofences/{victim}", timeout=10)
                with model.lock:
                    model.count(f"DELETE {status}")
                    if status == 204:
                        model.deleting.discard(victim)
                        model.deleted.add(victim)
        except OSError:
            return


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--server", required=True)
    parser.add_argument("--cycles", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    arguments = parser.parse_args()
    rng = random.Random(arguments.seed)
    failures = []
    model = Model()
    events = []          # every event the readers saw, in order
    states = {}          # fence -> its state as of the last event seen
    restarts_checked = 0
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="kill-restart-") as folder:
        database = os.path.join(folder, "fences.sqlite")
        log = open(os.path.join(folder, "server.log"), "w")
        for cycle in range(arguments.cycles):
            latitude, longitude = POSITIONS[cycle % 2]
            server = Server(arguments.server, database, ["--static", f"{latitude},{longitude},10", "--max-geofences", "100000"], log)
            status, _, body = request(server.port, "GET", "/geofences")
            listed = {fence["id"] for fence in json.loads(body)["geofences"]} if status == 200 else set()
            with model.lock:
                missing = model.created - listed
                resurrected = model.deleted & listed
                unexpected = listed - model.created - model.deleted - model.deleting
                if missing:
                    failures.append(f"cycle {cycle}: acknowledged fences lost: {sorted(missing)[:10]}")
                if resurrected:
                    failures.append(f"cycle {cycle}: deleted fences back: {sorted(resurrected)[:10]}")
                if len(unexpected) > model.creating:
                    failures.append(f"cycle {cycle}: {len(unexpected)} unacknowledged fences, only {model.creating} creations under way")
                # What was under way is now decided by what the server kept.
                model.created = (model.created | unexpected | (model.deleting & listed))
                model.deleted |= model.deleting - listed
                model.deleting = set()
                model.creating = 0
            restarts_checked += cycle > 0
            if cycle == 0:
                # A second server on the same file is refused at start, while the first runs (each restart
                # below shows the lock of a killed server gone with it).
                second = subprocess.run(
                    [arguments.server, "--host", "127.0.0.1", "--port", "0", "--database", database, "--log-level", "warning"],
                    capture_output=True, text=True, timeout=60)
                if second.returncode == 0 or "another server has the database open" not in second.stderr + second.stdout:
                    failures.append(f"a second server on the same database was not refused (exit {second.returncode}): {(second.stderr + second.stdout)[-300:]}")
            known_before = {fence for fence, state in states.items() if state in ("inside", "outside") and fence in listed}

            reader = EventReader(server.port, after=events[-1][0] if events else None)
            if reader.status != 200:
                failures.append(f"cycle {cycle}: GET /geofences/events answered {reader.status}: {reader.error}")
            stop = threading.Event()
            workers = [threading.Thread(target=burst, args=(server.port, model, stop, random.Random(rng.random()))) for _ in range(2)]
            for worker in workers:
                worker.start()
            time.sleep(rng.uniform(0.15, 0.45))
            last = cycle == arguments.cycles - 1
            if last:
                stop.set()
                for worker in workers:
                    worker.join()
                code = server.stop()
                if code != 0:
                    failures.append(f"the server exited {code} on SIGTERM")
            else:
                server.kill()
                stop.set()
                for worker in workers:
                    worker.join()
            reader.join()
            if last and (reader.final or {}).get("reason") != "shut_down":
                failures.append(f"the last stream ended with {reader.final}, not shut_down")
            for event_id, name, data in reader.events:
                expected = events[-1][0] + 1 if events else 1
                if event_id != expected:
                    failures.append(f"cycle {cycle}: event id {event_id} after {expected - 1}")
                events.append((event_id, name, data))
                fence = data.get("fence")
                if name == "transition":
                    if fence in known_before and data["transition"] == "determined":
                        failures.append(f"cycle {cycle}: fence {fence} determined again after a restart")
                    known_before.discard(fence)
                    states[fence] = data["state"]
                elif name == "end":
                    states.pop(fence, None)
            if len(failures) > 20:
                break
        log.close()
    while_stopped = sum(1 for _, name, data in events if name == "transition" and data.get("whileStopped"))
    figures = {"cycles": arguments.cycles, "restarts_checked": restarts_checked, "events": len(events),
               "while_stopped": while_stopped, "fences_kept": len(model.created), "fences_deleted": len(model.deleted),
               "answers": model.answers, "seconds": round(time.monotonic() - started, 1), "failures": failures[:20]}
    if while_stopped == 0:
        failures.append("no transition was marked whileStopped: the fences never changed state across a restart")
    if not events:
        failures.append("the readers saw no event")
    print(json.dumps(figures, sort_keys=True))
    print("kill-restart: " + ("ok" if not failures else f"{len(failures)} failures"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
