#!/usr/bin/env python3
"""The store's figures: one fix that decides --fences fences at once, persisted and delivered.

The server replays a recorded NMEA log (written here): --lead seconds at a place 2 km from the fences,
then at their centre. Before the jump, --fences circles of 300 m are created around the centre (each
is `determined` outside by the fixes far away) and one GET /geofences/events reader listens; the jump's
one fix then has every fence `entered`. From /metrics before and after the jump: the events the store
committed and the time its transactions took (events/s persisted), and the delivery histogram (from
the engine's transition to its write on the stream: p50 and p99, interpolated within buckets); from the
exit report, the largest transaction (in writes: an event and its fence's state are two). Run it
with --database FILE (persistence on) and --database :memory: (the same server, nothing on disk) to
compare. Prints one JSON line.

  measure.py --server Examples/LocationServer/.build/release/location-server [--fences 10000] [--database FILE|:memory:]
             [--database-sync normal|full]
"""
import argparse
import json
import os
import sys
import tempfile
import threading
import time

from server_process import EventReader, Server, request, wait_until

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "server-load"))
from prometheus_text import scrape, total  # noqa: E402

CENTRE = (52.52, 13.405)
FAR = (52.52, 13.405 + 2000 / 111_320 / 0.6088)   # 2 km east


def nmea_coordinate(value, width):
    degrees = int(abs(value))
    minutes = (abs(value) - degrees) * 60
    return f"{degrees:0{width}d}{minutes:07.4f}"


def sentence(body):
    checksum = 0
    for character in body:
        checksum ^= ord(character)
    return f"${body}*{checksum:02X}\n"


def nmea_log(path, lead, tail):
    """GGA and RMC at 1 Hz: `lead` seconds at FAR, then `tail` at CENTRE."""
    with open(path, "w") as file:
        for second in range(lead + tail):
            latitude, longitude = FAR if second < lead else CENTRE
            clock = time.strftime("%H%M%S", time.gmtime(43_200 + second)) + ".00"
            lat, lon = nmea_coordinate(latitude, 2), nmea_coordinate(longitude, 3)
            file.write(sentence(f"GPGGA,{clock},{lat},N,{lon},E,1,10,0.8,35.0,M,40.0,M,,"))
            file.write(sentence(f"GPRMC,{clock},A,{lat},N,{lon},E,0.0,0.0,010126,,,A"))


def create(port, count, threads):
    ids, lock = [], threading.Lock()

    def worker(indices):
        for _ in indices:
            body = {"circle": {"latitude": CENTRE[0], "longitude": CENTRE[1], "radius": 300}}
            status, location, _ = request(port, "POST", "/geofences", body)
            if status == 201:
                with lock:
                    ids.append(location)

    workers = [threading.Thread(target=worker, args=(range(index, count, threads),)) for index in range(threads)]
    for thread in workers:
        thread.start()
    for thread in workers:
        thread.join()
    return len(ids)


def histogram(metrics, name):
    """Cumulative buckets {le: count} of a histogram."""
    return {float(labels["le"]): value for labels, value in metrics.get(name + "_bucket", [])}


def quantile(before, after, q):
    buckets = sorted((le, after[le] - before.get(le, 0)) for le in after)
    count = buckets[-1][1]
    if count <= 0:
        return None
    rank, lower, below = q * count, 0.0, 0.0
    for le, cumulative in buckets:
        if cumulative >= rank:
            if le == float("inf"):
                return lower
            return lower + (le - lower) * ((rank - below) / max(cumulative - below, 1e-9))
        lower, below = le, cumulative
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--server", required=True)
    parser.add_argument("--fences", type=int, default=10_000)
    parser.add_argument("--database", help="a file (default: a new one in a temporary folder) or :memory:")
    parser.add_argument("--lead", type=int, default=90, help="seconds of fixes far away before the jump (time to create the fences)")
    parser.add_argument("--threads", type=int, default=8)
    parser.add_argument("--database-sync", choices=["normal", "full"], help="the server's --database-sync (default: the server's own)")
    arguments = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="store-figures-") as folder:
        log_path = os.path.join(folder, "drive.nmea")
        nmea_log(log_path, arguments.lead, 60)
        database = arguments.database or os.path.join(folder, "fences.sqlite")
        server_log = open(os.path.join(folder, "server.log"), "w")
        sync = ["--database-sync", arguments.database_sync] if arguments.database_sync else []
        server = Server(arguments.server, database, ["--nmea", log_path, "--max-geofences", str(arguments.fences), *sync], server_log)
        try:
            reader = EventReader(server.port)
            started = time.monotonic()
            created = create(server.port, arguments.fences, arguments.threads)
            create_seconds = time.monotonic() - started
            if not wait_until(lambda: len(reader.events) >= created, seconds=arguments.lead):
                raise RuntimeError(f"only {len(reader.events)} of {created} fences determined before the jump")
            if time.monotonic() - started > arguments.lead - 5:
                raise RuntimeError("the fences took longer than --lead to create: raise it")
            before = scrape(server.port)
            if not wait_until(lambda: len(reader.events) >= 2 * created, seconds=arguments.lead + 60, step=0.005):
                raise RuntimeError(f"only {len(reader.events) - created} of {created} entered after the jump")
            jump = [received for received in reader.events[created:] if received[1] == "transition"]
            after = scrape(server.port)
        finally:
            server.stop()
        time.sleep(0.2)   # the exit report's line, read by the server's reader thread
        reports = [json.loads(line) for line in server.lines if line.startswith("{")]
        totals = reports[-1].get("geofences", {}) if reports else {}
        stored = total(after, "locationserver_geofence_events_stored") - total(before, "locationserver_geofence_events_stored")
        seconds = total(after, "locationserver_geofence_store_seconds") - total(before, "locationserver_geofence_store_seconds")
        buckets = (histogram(before, "locationserver_geofence_event_delivery_seconds"),
                   histogram(after, "locationserver_geofence_event_delivery_seconds"))
        figures = {
            "database": "memory" if database == ":memory:" else "file", "database_sync": arguments.database_sync or "default",
            "fences": created,
            "create_seconds": round(create_seconds, 2), "jump_events": len(jump),
            "jump_entered": sum(1 for _, _, data in jump if data.get("transition") == "entered"),
            "events_stored": int(stored), "store_seconds": round(seconds, 4),
            "events_per_second_persisted": round(stored / seconds) if seconds > 0 else None,
            "delivery_p50_ms": round(1000 * quantile(*buckets, 0.5), 2),
            "delivery_p99_ms": round(1000 * quantile(*buckets, 0.99), 2),
            "largest_transaction_writes": totals.get("largestBatch"), "transactions": totals.get("storeBatches"),
        }
        print(json.dumps(figures, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
