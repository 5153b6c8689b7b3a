#!/usr/bin/env python3
"""Checks a server load run from what the server says about itself: /metrics scraped while idle
before the load and after it, and the exit report the server prints when it stops.

Passes when every one-shot and every subscription ended exactly once (the engine's submitted and
ended counts agree, nothing pending, the HTTP side answered every request it took in), no event
stream outlived its client, the source powered down after the load, and the heap came back to
its idle level (within a tolerance). With --shutdown (shutdown_clients.py's summary of a SIGTERM
sent while hundreds of requests were pending): every pending one-shot was answered within 1 s with
503, the engine's `shut_down` status and Retry-After; every event stream ended with `shut_down`; the
process exited, and its exit report says the source is off. With --geofence-create/-delete/-events
(geofence_clients.py's summaries): every fence was created (201) and monitored (the gauge), transitions
were delivered and the /geofences/events listener heard each one the metrics counted, by name; every
fence was deleted (204) and ended once on the stream (`cancelled`), none dropped, and the stream ended
with `shut_down` within 1 s of SIGTERM. Prints the figures: requests/s, latency p50/p99, the engine's
share of the server's CPU per request, and the shutdown's timings.

  check.py --idle idle.prom --after after.prom --exit-report exit.json --wrk wrk.json \
           --wrk-baseline health.json --sse sse.json --cpu-baseline S --cpu-load S [--shutdown shutdown.json]
           [--geofence-create create.json --geofence-delete delete.json --geofence-events events.json]
  check.py --self-test
"""
import argparse
import json
import sys

from prometheus_text import parse_metrics, total


def quantile_bound(metrics, name, q, **labels):
    """The upper bound of the histogram bucket holding quantile `q` of `name` (None when empty)."""
    buckets = sorted((float(sample["le"]), value) for sample, value in metrics.get(name + "_bucket", [])
                     if all(sample.get(key) == wanted for key, wanted in labels.items()))
    if not buckets or buckets[-1][1] == 0:
        return None
    for bound, count in buckets:
        if count >= q * buckets[-1][1]:
            return bound
    return None


def check(idle, after, report, wrk, baseline, sse, cpu_baseline, cpu_load, heap_slack_bytes):
    """Returns (failures, figures)."""
    failures = []

    def expect(condition, message):
        if not condition:
            failures.append(message)

    for kind in ("oneshot", "subscription"):
        submitted = total(after, "locationengine_requests_submitted", kind=kind)
        ended = total(after, "locationengine_requests_ended", kind=kind)
        pending = total(after, "locationengine_requests_pending", kind=kind)
        expect(submitted == ended, f"{kind}: {submitted:.0f} submitted but {ended:.0f} ended (each must end exactly once)")
        expect(pending == 0, f"{kind}: {pending:.0f} still pending after the load")
    expect(total(after, "locationserver_streams_open") == 0,
           f"{total(after, 'locationserver_streams_open'):.0f} event streams still open after their clients left")
    expect(total(after, "locationserver_location_in_flight") == 0, "GET /location requests still in flight after the load")
    expect(total(after, "locationengine_source_on") == 0, "the source is still on after the load stopped")
    expect(total(after, "locationengine_source_starts") == total(after, "locationengine_source_stops"),
           "source starts and stops do not pair up")
    expect(total(after, "locationengine_source_starts") >= 1, "the source never started")

    idle_heap = total(idle, "locationserver_heap_in_use_bytes")
    after_heap = total(after, "locationserver_heap_in_use_bytes")
    expect(after_heap <= idle_heap + heap_slack_bytes,
           f"heap in use {after_heap / 2**20:.1f} MiB after the load, idle was {idle_heap / 2**20:.1f} MiB "
           f"(allowed: + {heap_slack_bytes / 2**20:.0f} MiB)")

    http, engine = report["http"], report["engine"]
    expect(http["locationRequestsStarted"] == http["locationRequestsEnded"],
           f"HTTP: {http['locationRequestsStarted']} /location requests taken in, {http['locationRequestsEnded']} answered")
    expect(engine["oneShotsSubmitted"] == engine["oneShotsEnded"] + engine["oneShotsCancelled"],
           f"engine: {engine['oneShotsSubmitted']} one-shots submitted, {engine['oneShotsEnded']} ended + "
           f"{engine['oneShotsCancelled']} cancelled")
    expect(engine["oneShotsSubmitted"] == http["locationRequestsStarted"],
           f"engine saw {engine['oneShotsSubmitted']} one-shots, the HTTP side made {http['locationRequestsStarted']}")
    expect(engine["subscriptionsSubmitted"] == engine["subscriptionsEnded"] + engine["subscriptionsCancelled"],
           "engine: subscriptions submitted != ended + cancelled")
    # Each geofence is one of the engine's subscriptions (a region monitor).
    fences = report.get("geofences", {}).get("created", 0)
    expect(http["streamsOpened"] == http["streamsClosed"] and http["streamsOpened"] + fences == engine["subscriptionsSubmitted"],
           f"streams opened {http['streamsOpened']}, closed {http['streamsClosed']}, geofences {fences}, "
           f"subscriptions {engine['subscriptionsSubmitted']}")
    expect(engine["pendingOneShots"] == 0 and engine["activeSubscriptions"] == 0, "requests pending at exit")
    expect(not engine["sourceOn"], "source on at exit")

    expect(wrk["requests"] > 0, "wrk made no request")
    expect(wrk["non_2xx"] == 0, f"wrk: {wrk['non_2xx']} responses were not 2xx")
    expect(sse["clients"] > 0 and sse["malformed"] == 0 and sse["bad_status"] == 0,
           f"SSE clients: {sse}")
    expect(sse["events"] > 0, "SSE clients received no event")

    rate = wrk["requests"] / (wrk["duration_us"] / 1e6)
    figures = {
        "requests_per_second": round(rate),
        "p50_ms": wrk["p50_us"] / 1000, "p90_ms": wrk["p90_us"] / 1000, "p99_ms": wrk["p99_us"] / 1000,
        "max_ms": wrk["max_us"] / 1000,
        "wrk_timeouts": wrk["timeouts"], "wrk_socket_errors": wrk["connect_errors"] + wrk["read_errors"] + wrk["write_errors"],
        "sse_clients": sse["clients"], "sse_events": sse["events"], "sse_ended_by_server": sse["ended_by_server"],
        "oneshots": engine["oneShotsSubmitted"], "subscriptions": engine["subscriptionsSubmitted"],
        "outcomes": {labels.get("outcome"): int(value) for labels, value in after.get("locationengine_requests_ended", [])
                     if labels.get("kind") == "oneshot" and value > 0},
        "heap_idle_mib": round(idle_heap / 2**20, 1), "heap_after_mib": round(after_heap / 2**20, 1),
    }
    # Inside the server: from the handler's start to the engine's result, and the engine's own timer
    # and delivery figures (histogram bucket bounds: "at most").
    for figure, name, q, labels in (
            ("server_success_p50_ms_at_most", "locationserver_location_duration_seconds", 0.5, {"outcome": "success"}),
            ("server_success_p99_ms_at_most", "locationserver_location_duration_seconds", 0.99, {"outcome": "success"}),
            ("timeout_lateness_p99_ms_at_most", "locationengine_timeout_lateness", 0.99, {}),
            ("fix_delivery_p99_ms_at_most", "locationengine_fix_delivery_latency", 0.99, {})):
        bound = quantile_bound(after, name, q, **labels)
        if bound is not None:
            figures[figure] = bound * 1000
    if baseline and baseline["requests"] > 0 and wrk["requests"] > 0 and cpu_baseline and cpu_load:
        # CPU per request of a request that does no engine work (GET /health) against GET /location:
        # the difference is what the engine (and encoding its result) costs.
        per_baseline = cpu_baseline / baseline["requests"]
        per_location = cpu_load / wrk["requests"]
        figures["cpu_us_per_request_health"] = round(per_baseline * 1e6, 1)
        figures["cpu_us_per_request_location"] = round(per_location * 1e6, 1)
        figures["engine_overhead_share"] = round(max(0.0, 1 - per_baseline / per_location), 3)
        figures["health_requests_per_second"] = round(baseline["requests"] / (baseline["duration_us"] / 1e6))
    return failures, figures


#: How soon after SIGTERM every pending one-shot must be answered.
SHUTDOWN_ANSWER_MS = 1000


def check_shutdown(shutdown):
    """Returns (failures, figures) for shutdown_clients.py's summary."""
    failures = []

    def expect(condition, message):
        if not condition:
            failures.append(message)

    oneshots, streams = shutdown["oneshots"], shutdown["streams"]
    expect(shutdown["in_flight_at_signal"] >= oneshots and shutdown["streams_open_at_signal"] >= streams,
           f"shutdown: only {shutdown['in_flight_at_signal']:.0f} one-shots and {shutdown['streams_open_at_signal']:.0f} "
           f"streams were pending at SIGTERM (wanted {oneshots} and {streams})")
    expect(shutdown["answered"] == oneshots and shutdown["errors"] == 0,
           f"shutdown: {shutdown['answered']} of {oneshots} pending one-shots answered, {shutdown['errors']} connection errors")
    expect(shutdown["statuses"] == {"503": oneshots}, f"shutdown: answered with HTTP {shutdown['statuses']}, not all 503")
    expect(shutdown["shut_down_bodies"] == oneshots, f"shutdown: {shutdown['shut_down_bodies']} bodies say shut_down")
    expect(shutdown["retry_after"] == oneshots, f"shutdown: {shutdown['retry_after']} answers carry Retry-After")
    expect(shutdown["max_answer_ms"] <= SHUTDOWN_ANSWER_MS,
           f"shutdown: the last pending one-shot was answered {shutdown['max_answer_ms']:.0f} ms after SIGTERM "
           f"(allowed: {SHUTDOWN_ANSWER_MS} ms)")
    expect(shutdown["streams_ended"] == {"shut_down": streams}, f"shutdown: streams ended with {shutdown['streams_ended']}")
    figures = {"shutdown_" + key: shutdown[key] for key in ("oneshots", "streams", "max_answer_ms", "max_stream_end_ms", "exit_ms")}
    return failures, figures


def check_geofences(create, delete, events, after, report, shutdown, resumed=None):
    """Returns (failures, figures) for geofence_clients.py's summaries, the metrics after the load (every
    fence deleted by then), the exit report and the shutdown's summary."""
    failures = []

    def expect(condition, message):
        if not condition:
            failures.append(message)

    requested, created = create.get("requested", 0), create.get("created", 0)
    expect(requested > 0 and created == requested, f"geofences: {created} of {requested} created ({create})")
    expect(create.get("gauge_after_create") == created,
           f"geofences: the gauge said {create.get('gauge_after_create')} monitored after {created} were created")
    expect(delete.get("deleted") == created, f"geofences: {delete.get('deleted')} of {created} deleted ({delete.get('statuses')})")
    expect(total(after, "locationserver_geofences") == 0, f"geofences: {total(after, 'locationserver_geofences'):.0f} still monitored")
    counted = {labels["transition"]: int(value) for labels, value in after.get("locationserver_geofence_transitions", [])
               if value > 0}
    expect(sum(counted.values()) > 0, "geofences: no transition was delivered")
    expect(events.get("transitions") == counted,
           f"geofences: the listener heard {events.get('transitions')}, the metrics counted {counted}")
    expect(events.get("ends") == {"cancelled": created}, f"geofences: fences ended on the stream as {events.get('ends')}")
    expect(events.get("status") == 200 and events.get("malformed") == 0 and events.get("after_final") == 0,
           f"geofences: listener {events}")
    totals = report.get("geofences", {})
    expect(totals.get("created") == created and totals.get("deleted") == created and totals.get("ended") == 0,
           f"geofences: exit report {totals}")
    expect(events.get("gaps") == 0 and events.get("duplicates") == 0 and events.get("events", 0) > 0,
           f"geofences: the listener's event ids: {events.get('events')} events, {events.get('gaps')} gaps, "
           f"{events.get('duplicates')} duplicates")
    if resumed is not None:
        expect(resumed.get("resumes", 0) > 0 and resumed.get("gaps") == 0 and resumed.get("duplicates") == 0
               and (resumed.get("first_id"), resumed.get("last_id"), resumed.get("events"))
               == (events.get("first_id"), events.get("last_id"), events.get("events")),
               f"geofences: the resuming listener ({resumed.get('resumes')} resumes) saw ids {resumed.get('first_id')}.."
               f"{resumed.get('last_id')} ({resumed.get('events')} events, {resumed.get('gaps')} gaps, "
               f"{resumed.get('duplicates')} duplicates), the other {events.get('first_id')}..{events.get('last_id')}")
    expect(totals.get("storeFailures") == 0, f"geofences: {totals.get('storeFailures')} store transactions failed")
    expect(totals.get("listenersOpened") == totals.get("listenersClosed") >= 1, f"geofences: listeners {totals}")
    expect(events.get("final") == "shut_down", f"geofences: the stream ended with {events.get('final')}, not shut_down")
    end_ms = None
    if events.get("final_at") is not None and shutdown and "signalled_at" in shutdown:
        end_ms = round((events["final_at"] - shutdown["signalled_at"]) * 1000, 1)
        expect(end_ms <= SHUTDOWN_ANSWER_MS, f"geofences: the stream ended {end_ms:.0f} ms after SIGTERM")
    return failures, {"geofences": created, "geofence_transitions": counted, "geofence_stream_end_ms": end_ms,
                      "geofence_events": events.get("events"), "geofence_resumes": (resumed or {}).get("resumes")}


def self_test():
    idle = parse_metrics('# TYPE x gauge\nlocationserver_heap_in_use_bytes 10000000\nlocationengine_source_on 0\n')
    good = parse_metrics("\n".join([
        'locationengine_requests_submitted{kind="oneshot"} 10',
        'locationengine_requests_ended{kind="oneshot",outcome="success"} 7',
        'locationengine_requests_ended{kind="oneshot",outcome="timed_out"} 3',
        'locationengine_requests_submitted{kind="subscription"} 2',
        'locationengine_requests_ended{kind="subscription",outcome="cancelled"} 2',
        'locationengine_requests_pending{kind="oneshot"} 0', 'locationengine_requests_pending{kind="subscription"} 0',
        'locationserver_streams_open 0', 'locationserver_location_in_flight 0', 'locationengine_source_on 0',
        'locationengine_source_starts 1', 'locationengine_source_stops 1', 'locationserver_heap_in_use_bytes 12000000',
    ]))
    report = {"http": {"locationRequestsStarted": 10, "locationRequestsEnded": 10, "streamsOpened": 2, "streamsClosed": 2},
              "engine": {"oneShotsSubmitted": 10, "oneShotsEnded": 10, "oneShotsCancelled": 0, "subscriptionsSubmitted": 2,
                         "subscriptionsEnded": 0, "subscriptionsCancelled": 2, "pendingOneShots": 0,
                         "activeSubscriptions": 0, "sourceOn": False}}
    wrk = {"requests": 10, "duration_us": 1_000_000, "non_2xx": 0, "connect_errors": 0, "read_errors": 0,
           "write_errors": 0, "timeouts": 0, "p50_us": 1000, "p90_us": 2000, "p99_us": 3000, "max_us": 4000}
    health = dict(wrk, requests=20)
    sse = {"clients": 2, "events": 5, "ended_by_server": 0, "malformed": 0, "connect_errors": 0, "bad_status": 0}
    failures, figures = check(idle, good, report, wrk, health, sse, 0.01, 0.02, 4 << 20)
    assert failures == [], failures
    histogram = parse_metrics('h_bucket{le="0.1"} 50\nh_bucket{le="1.0"} 99\nh_bucket{le="+Inf"} 100\n')
    assert quantile_bound(histogram, "h", 0.5) == 0.1 and quantile_bound(histogram, "h", 0.99) == 1.0
    assert quantile_bound(histogram, "h", 1.0) == float("inf") and quantile_bound({}, "h", 0.5) is None
    assert quantile_bound(histogram, "h", 0.5, outcome="success") is None
    assert figures["requests_per_second"] == 10 and figures["engine_overhead_share"] == 0.75, figures

    leaky = dict(good)
    leaky["locationengine_requests_ended"] = [({"kind": "oneshot", "outcome": "success"}, 9.0)]
    leaky["locationserver_streams_open"] = [({}, 1.0)]
    leaky["locationengine_source_on"] = [({}, 1.0)]
    leaky["locationserver_heap_in_use_bytes"] = [({}, 30e6)]
    bad_report = json.loads(json.dumps(report))
    bad_report["http"]["locationRequestsEnded"] = 9
    failures, _ = check(idle, leaky, bad_report, dict(wrk, non_2xx=1), health, sse, 0.01, 0.02, 4 << 20)
    for expected in ("each must end exactly once", "event streams still open", "source is still on", "heap in use",
                     "answered", "not 2xx"):
        assert any(expected in failure for failure in failures), (expected, failures)
    shutdown = {"oneshots": 300, "streams": 30, "in_flight_at_signal": 300, "streams_open_at_signal": 30, "answered": 300,
                "statuses": {"503": 300}, "shut_down_bodies": 300, "retry_after": 300, "errors": 0, "max_answer_ms": 80.0,
                "streams_ended": {"shut_down": 30}, "max_stream_end_ms": 60.0, "exit_ms": 150.0}
    failures, figures = check_shutdown(shutdown)
    assert failures == [] and figures["shutdown_exit_ms"] == 150.0, (failures, figures)
    waited = dict(shutdown, statuses={"200": 300}, shut_down_bodies=0, max_answer_ms=60000.0,
                  streams_ended={"finished": 30}, answered=299, retry_after=0)
    failures, _ = check_shutdown(waited)
    for expected in ("not all 503", "bodies say shut_down", "Retry-After", "60000 ms after SIGTERM", "streams ended with",
                     "299 of 300"):
        assert any(expected in failure for failure in failures), (expected, failures)
    fenced = parse_metrics('locationserver_geofences 0\nlocationserver_geofence_transitions{transition="exited"} 4\n'
                           'locationserver_geofence_transitions{transition="entered"} 0\n')
    create = {"requested": 5, "created": 5, "ids": [1, 2, 3, 4, 5], "gauge_after_create": 5.0}
    events = {"status": 200, "transitions": {"exited": 4}, "ends": {"cancelled": 5}, "malformed": 0, "final": "shut_down",
              "final_at": 100.2, "after_final": 0, "events": 9, "first_id": 1, "last_id": 9, "gaps": 0, "duplicates": 0}
    resumed = dict(events, resumes=2)
    fence_report = {"geofences": {"created": 5, "deleted": 5, "ended": 0, "storeFailures": 0, "listenersOpened": 4,
                                  "listenersClosed": 4}}
    failures, figures = check_geofences(create, {"deleted": 5}, events, fenced, fence_report, {"signalled_at": 100.0}, resumed)
    assert failures == [] and figures["geofence_stream_end_ms"] == 200.0, (failures, figures)
    lost = dict(events, transitions={"exited": 3}, ends={"cancelled": 4, "shut_down": 1}, final=None, final_at=None, gaps=1)
    failures, _ = check_geofences(dict(create, gauge_after_create=4.0), {"deleted": 4}, lost, fenced,
                                  {"geofences": dict(fence_report["geofences"], storeFailures=2)}, {"signalled_at": 100.0},
                                  dict(resumed, duplicates=1, last_id=8))
    for expected in ("the gauge said 4", "4 of 5 deleted", "the listener heard", "ended on the stream", "1 gaps",
                     "the resuming listener", "store transactions failed", "not shut_down"):
        assert any(expected in failure for failure in failures), (expected, failures)
    failures, _ = check_geofences(create, {"deleted": 5}, dict(events, final_at=101.5), fenced, fence_report, {"signalled_at": 100.0})
    assert any("1500 ms after SIGTERM" in failure for failure in failures), failures
    fenced_report = json.loads(json.dumps(report))
    fenced_report["geofences"] = {"created": 3}
    fenced_report["engine"]["subscriptionsSubmitted"] = 5
    fenced_report["engine"]["subscriptionsCancelled"] = 5
    failures, _ = check(idle, good, fenced_report, wrk, health, sse, 0.01, 0.02, 4 << 20)
    assert not any("streams opened" in failure for failure in failures), failures
    try:
        parse_metrics("garbage line here")
        raise AssertionError("a malformed sample must be refused")
    except ValueError:
        pass
    print("check.py self-test: ok (good run accepted, leaks and lost requests detected, a slow or unnamed shutdown "
          "detected, lost or slow geofence events detected, bad samples refused)")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--self-test", action="store_true")
    for name in ("idle", "after", "exit-report", "wrk", "wrk-baseline", "sse", "shutdown", "geofence-create",
                 "geofence-delete", "geofence-events", "geofence-events-resumed"):
        parser.add_argument("--" + name)
    parser.add_argument("--cpu-baseline", type=float)
    parser.add_argument("--cpu-load", type=float)
    parser.add_argument("--heap-slack-mib", type=float, default=16)
    parser.add_argument("--json", help="also write the figures here")
    arguments = parser.parse_args()
    if arguments.self_test:
        self_test()
        return 0

    def read(path):
        with open(path) as file:
            return file.read()

    def last_json_line(path):
        return json.loads([line for line in read(path).splitlines() if line.startswith("{")][-1])

    failures, figures = check(
        parse_metrics(read(arguments.idle)), parse_metrics(read(arguments.after)), last_json_line(arguments.exit_report),
        last_json_line(arguments.wrk), last_json_line(arguments.wrk_baseline) if arguments.wrk_baseline else None,
        last_json_line(arguments.sse), arguments.cpu_baseline, arguments.cpu_load, arguments.heap_slack_mib * 2**20)
    if arguments.shutdown:
        shutdown_failures, shutdown_figures = check_shutdown(last_json_line(arguments.shutdown))
        failures += shutdown_failures
        figures.update(shutdown_figures)
    if arguments.geofence_create:
        fence_failures, fence_figures = check_geofences(
            last_json_line(arguments.geofence_create), last_json_line(arguments.geofence_delete),
            last_json_line(arguments.geofence_events), parse_metrics(read(arguments.after)),
            last_json_line(arguments.exit_report), last_json_line(arguments.shutdown) if arguments.shutdown else None,
            last_json_line(arguments.geofence_events_resumed) if arguments.geofence_events_resumed else None)
        failures += fence_failures
        figures.update(fence_figures)
    print(json.dumps(figures, indent=2, sort_keys=True))
    if arguments.json:
        with open(arguments.json, "w") as file:
            json.dump(figures, file, indent=2, sort_keys=True)
    for failure in failures:
        print("FAILED:", failure, file=sys.stderr)
    print(f"server load check: {'passed' if not failures else 'FAILED'} ({len(failures)} failures)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
