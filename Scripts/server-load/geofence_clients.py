#!/usr/bin/env python3
"""Geofences for the load test, in three steps (each prints one JSON line):

  create  N fences around where the synthetic receiver is now (GET /location): circles and squares of
          100 m to a few km, so that the moving receiver starts inside all of them (`determined`) and
          leaves the small ones during the load (`exited`). Reports the answers and the
          `locationserver_geofences` gauge afterwards.
  listen  GET /geofences/events until the server ends the stream: transitions by name, fence ends by
          reason, the stream's final `end` and when it came (time.monotonic(), comparable with
          shutdown_clients.py's `signalled_at`), and the event ids (gaps, duplicates). With
          --resume-every N it reconnects with Last-Event-ID after every N events.
  delete  DELETE every fence that `create` made (its output file), reporting the answers.
"""
import argparse
import http.client
import json
import math
import sys
import time

from prometheus_text import scrape, total


def request(port, method, path, body=None):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    connection.request(method, path, body=body, headers={"Content-Type": "application/json"} if body else {})
    response = connection.getresponse()
    data = response.read()
    connection.close()
    return response.status, response.getheader("Location"), data


def fence_body(index, latitude, longitude):
    """Fence `index` around (latitude, longitude): radius (or half side) 100 m + 10 m per index."""
    radius = 100.0 + 10.0 * index
    if index % 3 == 2:
        dlat = radius / 111_195.0
        dlon = dlat / math.cos(math.radians(latitude))
        ring = [[latitude - dlat, longitude - dlon], [latitude - dlat, longitude + dlon],
                [latitude + dlat, longitude + dlon], [latitude + dlat, longitude - dlon]]
        return {"polygon": ring, "name": f"square-{index}"}
    return {"circle": {"latitude": latitude, "longitude": longitude, "radius": radius}, "name": f"circle-{index}",
            "loiteringDelay": "5s"}


def create(port, count):
    status, _, data = request(port, "GET", "/location?accuracy=block&timeout=60s")
    fix = json.loads(data).get("fix") if status == 200 else None
    if not fix:
        return {"created": 0, "error": f"no fix to place fences around (HTTP {status}: {data[:200]!r})"}
    ids, statuses = [], {}
    for index in range(count):
        status, location, _ = request(port, "POST", "/geofences",
                                      json.dumps(fence_body(index, fix["latitude"], fix["longitude"])).encode())
        statuses[str(status)] = statuses.get(str(status), 0) + 1
        if status == 201 and location:
            ids.append(int(location.rsplit("/", 1)[1]))
    return {"requested": count, "created": len(ids), "ids": ids, "statuses": statuses,
            "centre": [fix["latitude"], fix["longitude"]], "gauge_after_create": total(scrape(port), "locationserver_geofences")}


def delete(port, ids):
    statuses = {}
    for fence in ids:
        status, _, _ = request(port, "DELETE", f"/geofences/{fence}")
        statuses[str(status)] = statuses.get(str(status), 0) + 1
    return {"deleted": statuses.get("204", 0), "statuses": statuses}


def listen(port, ready_file, resume_every=0):
    """Reads the stream until its final `end`. With `resume_every`, it drops the connection after that many
    events and reconnects with Last-Event-ID, as a client whose network blips would; the ids it sees must
    still run on one by one."""
    summary = {"status": None, "transitions": {}, "ends": {}, "malformed": 0, "final": None, "final_at": None,
               "after_final": 0, "events": 0, "first_id": None, "last_id": None, "gaps": 0, "duplicates": 0, "resumes": 0}
    while summary["final"] is None:
        headers = {"Last-Event-ID": str(summary["last_id"])} if summary["last_id"] is not None else {}
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=3600)
        connection.request("GET", "/geofences/events", headers=headers)
        response = connection.getresponse()
        summary["status"] = response.status
        if response.status != 200:
            break
        if ready_file:
            open(ready_file, "w").close()
            ready_file = None
        if read_events(response, summary, resume_every):
            summary["resumes"] += 1
            connection.close()
            continue
        break
    return summary


def read_events(response, summary, resume_every):
    """Reads events into `summary` until the stream ends (returns False) or `resume_every` events (True)."""
    name, event_id, read = None, None, 0
    while True:
        line = response.readline()
        if not line:
            return False
        text = line.decode(errors="replace").rstrip("\n")
        if text.startswith("id: "):
            event_id = int(text[len("id: "):])
        elif text.startswith("event: "):
            name = text[len("event: "):]
        elif text.startswith("data: "):
            try:
                data = json.loads(text[len("data: "):])
            except ValueError:
                summary["malformed"] += 1
                continue
            if event_id is not None:
                last = summary["last_id"]
                if last is not None and event_id <= last:
                    summary["duplicates"] += 1
                elif last is not None and event_id != last + 1:
                    summary["gaps"] += 1
                summary["first_id"] = event_id if summary["first_id"] is None else summary["first_id"]
                summary["last_id"] = max(event_id, last or 0)
                summary["events"] += 1
            if summary["final"] is not None:
                summary["after_final"] += 1
            elif name == "transition":
                summary["transitions"][data["transition"]] = summary["transitions"].get(data["transition"], 0) + 1
            elif name == "end" and "fence" in data:
                summary["ends"][data["reason"]] = summary["ends"].get(data["reason"], 0) + 1
            elif name == "end":
                summary["final"] = data["reason"]
                summary["final_at"] = time.monotonic()
            else:
                summary["malformed"] += 1
            name, event_id = None, None
            read += 1
            if resume_every and read >= resume_every and summary["final"] is None:
                return True


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("step", choices=["create", "listen", "delete"])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--fences", type=int, default=300)
    parser.add_argument("--created", help="create's output (for delete)")
    parser.add_argument("--ready", help="listen: touch this file once the stream is open")
    parser.add_argument("--resume-every", type=int, default=0, help="listen: reconnect with Last-Event-ID after this many events")
    arguments = parser.parse_args()
    if arguments.step == "create":
        result = create(arguments.port, arguments.fences)
    elif arguments.step == "delete":
        with open(arguments.created) as file:
            result = delete(arguments.port, json.loads(file.read().splitlines()[-1])["ids"])
    else:
        result = listen(arguments.port, arguments.ready, arguments.resume_every)
    print(json.dumps(result, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
