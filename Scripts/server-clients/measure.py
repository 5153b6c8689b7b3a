#!/usr/bin/env python3
"""The clients' figures, on loopback: what a token check adds to a request, and what a client flooding
the server does to another's latency. Each comparison is a series of runs that alternate its two sides
(A B B A A B ...), so that the machine's drift falls on both, and is reported as the median and range of
each side over its runs and whether the medians differ by more than the runs differ among themselves
(a rank-sum permutation test over every split of the runs between the two sides: p below 0.05 is a
difference the runs' own spread does not explain).

1. Token cost: wrk on GET /geofences (a small answer, no engine work) against the server without a token
   file and with one and the header, --token-runs runs each; per run wrk's latency p50/p99 and the
   server's CPU time per request (from /proc, user + system, over the run).
2. Flooding: with --client-rate-limit, one client paced well under its limit (--steady-rate requests a
   second, one connection, its own latencies recorded), alone and beside a second client flooding at 10
   times the limit (paced, in a process of its own), --flood-runs runs each: the steady client's p50/p99
   per run, and how the flood was answered (429s). With --all-out, once more beside a client that wrk
   floods as fast as it can, with and without the limit.

--pin puts the server on CPU 0 and the clients (wrk, the steady client, the flood) on the others (taskset);
the flood runs at nice --flood-nice, so that on a small machine its own CPU, spent in the client, does not
delay the steady client's process before the server is even asked: what is measured is the server.

Prints one JSON line. Bounded: each phase --seconds long, every server stopped with SIGTERM.

  measure.py --server Examples/LocationServer/.build/release/location-server [--seconds 10] [--rate-limit 100] [--pin]
"""
import argparse
import http.client
import itertools
import json
import multiprocessing
import os
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time

TOKENS = {"steady": "steady-token-0123456789abcdef", "flood": "flood-token-0123456789abcdef"}


SERVER_CPUS = None   # set by --pin: the CPUs of the server, and of the clients
CLIENT_CPUS = None


def pinned(command, cpus):
    """`command` under taskset on `cpus`, when --pin is given."""
    return ["taskset", "-c", cpus, *command] if cpus else command


def pin_this_process(cpus):
    if cpus:
        os.sched_setaffinity(0, {int(cpu) for cpu in cpus.split(",")})


class Server:
    """The server on a free loopback port, in-memory store, with `arguments`."""

    def __init__(self, binary, arguments):
        self.process = subprocess.Popen(
            pinned([binary, "--port", "0", "--database", ":memory:", "--log-level", "error", *arguments], SERVER_CPUS),
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
    command = pinned(["wrk", "-t2", f"-c{connections}", f"-d{seconds}s", "--latency", f"http://127.0.0.1:{port}{path}"]
        + (["-H", f"Authorization: Bearer {token}"] if token else []), CLIENT_CPUS)
    output = subprocess.run(command, capture_output=True, text=True, timeout=seconds + 60).stdout
    figures = {"requests": int(re.search(r"(\d+) requests in", output).group(1))}
    for name, quantile in (("p50_ms", "50%"), ("p99_ms", "99%")):
        figures[name] = milliseconds(re.search(rf"^\s+{quantile}\s+(\S+)", output, re.M).group(1))
    non2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", output)
    figures["non_2xx"] = int(non2xx.group(1)) if non2xx else 0
    return figures


def alternating(runs):
    """The order of `runs` runs of two sides, A B B A A B B A ...: each side as often first as second."""
    return [side for index in range(runs) for side in ((0, 1) if index % 2 == 0 else (1, 0))]


def summary(values):
    """Median and range of one side's runs."""
    return {"median": round(statistics.median(values), 3), "min": round(min(values), 3), "max": round(max(values), 3),
            "runs": [round(value, 3) for value in values]}


def compared(first, second):
    """The two sides' summaries, the difference of their medians (second - first) and a two-sided
    rank-sum (Mann-Whitney) permutation test: p is the share of the ways to split the runs into two sides
    of these sizes whose rank sums lie at least as far from the middle (small p: a difference that the
    runs' own spread does not explain; 6 runs against 6 can reach p = 0.002)."""
    pooled = sorted(first + second)
    rank = {}
    for index, value in enumerate(pooled):
        rank.setdefault(value, []).append(index + 1)
    ranks = [statistics.mean(rank[value]) for value in first + second]
    middle = len(first) * (len(pooled) + 1) / 2
    observed = abs(sum(ranks[:len(first)]) - middle)
    splits = list(itertools.combinations(range(len(ranks)), len(first)))
    extreme = sum(1 for chosen in splits if abs(sum(ranks[index] for index in chosen) - middle) >= observed - 1e-9)
    p = extreme / len(splits)
    return {"first": summary(first), "second": summary(second),
            "median_difference": round(statistics.median(second) - statistics.median(first), 3),
            "p": round(p, 4), "within_spread": p >= 0.05}


def token_cost(binary, token_file, seconds, runs):
    """wrk on GET /geofences, `runs` runs without a token file and `runs` with one, alternating."""
    sides = (("without_tokens", [], None), ("with_tokens", ["--tokens", token_file], TOKENS["steady"]))
    results = {name: [] for name, _, _ in sides}
    for side in alternating(runs):
        name, arguments, token = sides[side]
        server = Server(binary, arguments)
        try:
            wrk(server.port, "/geofences", 2, token)   # warm-up
            before = server.cpu_seconds()
            figures = wrk(server.port, "/geofences", seconds, token)
            figures["cpu_us_per_request"] = round(1e6 * (server.cpu_seconds() - before) / max(1, figures["requests"]), 2)
            results[name].append(figures)
        finally:
            server.stop()
    return {"runs": results, **{
        figure: compared([run[figure] for run in results["without_tokens"]], [run[figure] for run in results["with_tokens"]])
        for figure in ("p50_ms", "p99_ms", "cpu_us_per_request")}}


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
    elapsed = time.monotonic() - start
    latencies.sort()
    return {"p50_ms": round(latencies[len(latencies) // 2], 3), "p99_ms": round(latencies[int(len(latencies) * 0.99)], 3),
            "statuses": statuses, "seconds": round(elapsed, 2)}


def paced_flood(port, rate, seconds, results, nice):
    pin_this_process(CLIENT_CPUS)
    os.nice(nice)
    results.update(steady(port, rate, seconds, client="flood"))


def flood_phase(binary, token_file, seconds, rate_limit, steady_rate, limited, flood, nice):
    """One run: the steady client's figures, beside `flood` (None, "paced" at 10x the limit, or "wrk")."""
    arguments = ["--tokens", token_file] + (["--client-rate-limit", str(rate_limit)] if limited else [])
    server = Server(binary, arguments)
    try:
        flooded = multiprocessing.Manager().dict() if flood == "paced" else {}
        runner = None
        if flood == "paced":
            runner = multiprocessing.Process(target=paced_flood, args=(server.port, 10 * rate_limit, seconds + 2, flooded, nice))
        elif flood == "wrk":
            runner = threading.Thread(target=lambda: flooded.update(wrk(server.port, "/geofences", seconds + 2, TOKENS["flood"], 20)))
        if runner:
            runner.start()
        time.sleep(1)   # the flood under way, the server settled
        figures = steady(server.port, steady_rate, seconds)
        if runner:
            runner.join()
            if flood == "paced":
                statuses = dict(flooded["statuses"])
                # As sent: a flood that falls behind its pace takes longer than its seconds.
                figures["flood"] = {"requests_per_second": round(sum(statuses.values()) / flooded["seconds"]), "answered_429": statuses.get(429, 0)}
            else:
                figures["flood"] = {"requests_per_second": round(flooded["requests"] / (seconds + 2)), "answered_429": flooded["non_2xx"]}
        return figures
    finally:
        server.stop()


def flooding(binary, token_file, seconds, rate_limit, steady_rate, runs, nice, all_out):
    """The steady client alone and beside the 10x flood, `runs` runs each, alternating; with `all_out`,
    one run beside wrk's flood with the limit and one without."""
    sides = (("steady_alone", None), ("steady_beside_10x_flood", "paced"))
    results = {name: [] for name, _ in sides}
    for side in alternating(runs):
        name, flood = sides[side]
        results[name].append(flood_phase(binary, token_file, seconds, rate_limit, steady_rate, True, flood, nice))
    figures = {"runs": results, "p99_ms": compared([run["p99_ms"] for run in results["steady_alone"]],
                                                   [run["p99_ms"] for run in results["steady_beside_10x_flood"]]),
               "p50_ms": compared([run["p50_ms"] for run in results["steady_alone"]],
                                  [run["p50_ms"] for run in results["steady_beside_10x_flood"]])}
    if all_out:
        figures["steady_beside_wrk_flood"] = flood_phase(binary, token_file, seconds, rate_limit, steady_rate, True, "wrk", nice)
        figures["steady_beside_wrk_flood_no_limit"] = flood_phase(binary, token_file, seconds, rate_limit, steady_rate, False, "wrk", nice)
    return figures


def main():
    global SERVER_CPUS, CLIENT_CPUS
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--server", required=True)
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--rate-limit", type=float, default=100, help="--client-rate-limit of the flooding phase")
    parser.add_argument("--steady-rate", type=float, default=50, help="the steady client's requests a second")
    parser.add_argument("--token-runs", type=int, default=6, help="runs with and without tokens, each (0: none)")
    parser.add_argument("--flood-runs", type=int, default=6, help="runs alone and beside the flood, each (0: none)")
    parser.add_argument("--all-out", action="store_true", help="also the steady client beside wrk's flood, with and without the limit")
    parser.add_argument("--pin", action="store_true", help="the server on CPU 0, the clients on the others (taskset)")
    parser.add_argument("--flood-nice", type=int, default=19, help="the paced flood's nice value (0: as the others)")
    parser.add_argument("--self-test", action="store_true", help="check the run order and the comparison, then exit")
    arguments = parser.parse_args()
    if arguments.self_test:
        return self_test()
    if arguments.pin:
        count = os.cpu_count() or 1
        if count < 2:
            parser.error("--pin needs at least 2 CPUs")
        SERVER_CPUS, CLIENT_CPUS = "0", ",".join(str(cpu) for cpu in range(1, count))
        pin_this_process(CLIENT_CPUS)
    with tempfile.TemporaryDirectory(prefix="clients-figures-") as folder:
        token_file = os.path.join(folder, "clients.txt")
        with open(token_file, "w") as file:
            file.write("".join(f"{token} {name} precise\n" for name, token in TOKENS.items()))
        figures = {"pinned": arguments.pin, "flood_nice": arguments.flood_nice}
        if arguments.token_runs:
            figures["token_cost"] = token_cost(arguments.server, token_file, arguments.seconds, arguments.token_runs)
        if arguments.flood_runs:
            figures["flooding"] = flooding(arguments.server, token_file, arguments.seconds, arguments.rate_limit, arguments.steady_rate,
                                           arguments.flood_runs, arguments.flood_nice, arguments.all_out)
    print(json.dumps(figures, sort_keys=True))
    return 0


def self_test():
    order = alternating(4)
    assert order == [0, 1, 1, 0, 0, 1, 1, 0] and order.count(0) == order.count(1), order
    apart = compared([1.0, 1.1, 0.9, 1.0, 1.05, 0.95], [5.0, 5.1, 4.9, 5.0, 5.05, 4.95])
    assert apart["median_difference"] == 4.0 and apart["p"] == 0.0022 and not apart["within_spread"], apart
    mixed = compared([1.0, 3.0, 2.0, 5.0, 4.0, 6.0], [2.5, 4.5, 1.5, 5.5, 3.5, 6.5])
    assert mixed["within_spread"] and mixed["p"] > 0.5, mixed
    assert summary([3.0, 1.0, 2.0]) == {"median": 2.0, "min": 1.0, "max": 3.0, "runs": [3.0, 1.0, 2.0]}
    print("measure.py self-test: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
