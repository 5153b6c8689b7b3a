#!/usr/bin/env python3
"""The clients' figures, on loopback: what a token check adds to a request, and what a client flooding
the server does to another's latency.

1. Token cost: wrk on GET /geofences (a small answer, no engine work) against the server without a token
   file, then with one and the header; for each, wrk's latency p50/p99 and the server's CPU time per
   request (from /proc, user + system, over the run).
2. Flooding: with --client-rate-limit, one client paced well under its limit (--steady-rate requests a
   second, one connection, its own latencies recorded) alone, then beside a second client flooding at
   10 times the limit (paced, in a process of its own), then beside one that wrk floods as fast as it
   can: the steady client's p50/p99 each time, and how the flood was answered (429s). Then the wrk flood
   with no limit, to show what the limit spares the others.

Prints one JSON line. Bounded: each phase --seconds long, every server stopped with SIGTERM.

  measure.py --server Examples/LocationServer/.build/release/location-server [--seconds 10] [--rate-limit 100]
"""
import argparse
import http.client
import json
import multiprocessing
import os
import re
import subprocess
import sys
import tempfile
import threading
import time

TOKENS = {"steady": "steady-token-0123456789abcdef", "flood": "flood-token-0123456789abcdef"}


class Server:
    """The server on a free loopback port, in-memory store, with `arguments`."""

    def __init__(self, binary, arguments):
        self.process = subprocess.Popen(
            [binary, "--port", "0", "--database", ":memory:", "--log-level", "error", *arguments],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        line = self.process.stdout.readline()
        if not line.startswith("listening on "):
            self.process.kill()
            raise RuntimeError(f"the server did not start: {line!r}")
        self.port = int(line.split()[-1])
        threading.Thread(target=self.process.stdout.read, daemon=True).start()

    def cpu_seconds(self):
        fields = open(f"/proc/{self.process.pid}/stat").read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def stop(self):
        self.process.terminate()
        self.process.wait(30)


def milliseconds(text):
    number, unit = re.match(r"([\d.]+)(us|ms|s)", text).groups()
    return float(number) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[unit]


def wrk(port, path, seconds, token=None, connections=50):
    """wrk's requests, p50 and p99 (ms), and its non-2xx answers."""
    command = ["wrk", "-t2", f"-c{connections}", f"-d{seconds}s", "--latency", f"http://127.0.0.1:{port}{path}"]
    if token:
        command[1:1] = ["-H", f"Authorization: Bearer {token}"]
    output = subprocess.run(command, capture_output=True, text=True, timeout=seconds + 60).stdout
    figures = {"requests": int(re.search(r"(\d+) requests in", output).group(1))}
    for name, quantile in (("p50_ms", "50%"), ("p99_ms", "99%")):
        figures[name] = milliseconds(re.search(rf"^\s+{quantile}\s+(\S+)", output, re.M).group(1))
    non2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", output)
    figures["non_2xx"] = int(non2xx.group(1)) if non2xx else 0
    return figures


def token_cost(binary, token_file, seconds):
    results = {}
    for name, arguments, token in (("without_tokens", [], None), ("with_tokens", ["--tokens", token_file], TOKENS["steady"])):
        server = Server(binary, arguments)
        try:
            wrk(server.port, "/geofences", 2, token)   # warm-up
            before = server.cpu_seconds()
            figures = wrk(server.port, "/geofences", seconds, token)
            figures["cpu_us_per_request"] = round(1e6 * (server.cpu_seconds() - before) / max(1, figures["requests"]), 1)
            results[name] = figures
        finally:
            server.stop()
    return results


def steady(port, rate, seconds, client="steady"):
    """`rate` requests a second as `client` on one connection for `seconds`: p50/p99 (ms) and the statuses."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    latencies, statuses = [], {}
    start = time.monotonic()
    for index in range(int(rate * seconds)):
        time.sleep(max(0.0, start + index / rate - time.monotonic()))
        sent = time.monotonic()
        connection.request("GET", "/geofences", headers={"Authorization": f"Bearer {TOKENS[client]}"})
        response = connection.getresponse()
        response.read()
        latencies.append(1000 * (time.monotonic() - sent))
        statuses[response.status] = statuses.get(response.status, 0) + 1
    connection.close()
    latencies.sort()
    return {"p50_ms": round(latencies[len(latencies) // 2], 3), "p99_ms": round(latencies[int(len(latencies) * 0.99)], 3),
            "statuses": statuses}


def paced_flood(port, rate, seconds, results):
    results.update(steady(port, rate, seconds, client="flood"))


def flooding(binary, token_file, seconds, rate_limit, steady_rate):
    results = {}
    phases = (("steady_alone", True, None), ("steady_beside_10x_flood", True, "paced"), ("steady_beside_wrk_flood", True, "wrk"),
              ("steady_beside_wrk_flood_no_limit", False, "wrk"))
    for name, limited, flood in phases:
        arguments = ["--tokens", token_file] + (["--client-rate-limit", str(rate_limit)] if limited else [])
        server = Server(binary, arguments)
        try:
            flooded = multiprocessing.Manager().dict() if flood == "paced" else {}
            runner = None
            if flood == "paced":
                runner = multiprocessing.Process(target=paced_flood, args=(server.port, 10 * rate_limit, seconds + 2, flooded))
            elif flood == "wrk":
                runner = threading.Thread(target=lambda: flooded.update(wrk(server.port, "/geofences", seconds + 2, TOKENS["flood"], 20)))
            if runner:
                runner.start()
                time.sleep(1)
            figures = steady(server.port, steady_rate, seconds)
            if runner:
                runner.join()
                if flood == "paced":
                    statuses = dict(flooded["statuses"])
                    figures["flood"] = {"requests_per_second": round(sum(statuses.values()) / (seconds + 2)), "answered_429": statuses.get(429, 0)}
                else:
                    figures["flood"] = {"requests_per_second": round(flooded["requests"] / (seconds + 2)), "answered_429": flooded["non_2xx"]}
            results[name] = figures
        finally:
            server.stop()
    return results


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--server", required=True)
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--rate-limit", type=float, default=100, help="--client-rate-limit of the flooding phase")
    parser.add_argument("--steady-rate", type=float, default=50, help="the steady client's requests a second")
    arguments = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="clients-figures-") as folder:
        token_file = os.path.join(folder, "clients.txt")
        with open(token_file, "w") as file:
            file.write("".join(f"{token} {name} precise\n" for name, token in TOKENS.items()))
        figures = {"token_cost": token_cost(arguments.server, token_file, arguments.seconds),
                   "flooding": flooding(arguments.server, token_file, arguments.seconds, arguments.rate_limit, arguments.steady_rate)}
    print(json.dumps(figures, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
