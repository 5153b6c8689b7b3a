#!/usr/bin/env python3
"""The end of a load run: SIGTERM while hundreds of requests are pending. Opens N one-shot requests
that nothing but the shutdown can end (1 cm accuracy, a 10-minute timeout) and M event streams,
waits until the server holds them all (from /metrics), sends SIGTERM to the server, and records
how each was answered and when, and when the process exited.
Prints one JSON line for check.py (--shutdown)."""
import argparse
import asyncio
import json
import os
import signal
import time

from prometheus_text import scrape, total


async def read_response(reader):
    """(status, headers, body) of one HTTP/1.1 response on a connection the server closes after it."""
    data = await reader.read()
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode(errors="replace").split("\r\n")
    status = int(lines[0].split(" ")[1]) if lines and len(lines[0].split(" ")) > 1 else 0
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    if headers.get("transfer-encoding") == "chunked":
        decoded, rest = b"", body
        while rest:
            size_line, _, rest = rest.partition(b"\r\n")
            size = int(size_line.split(b";")[0] or b"0", 16)
            if size == 0:
                break
            decoded, rest = decoded + rest[:size], rest[size + 2:]
        body = decoded
    return status, headers, body


async def request(port, path):
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".encode())
    await writer.drain()
    try:
        result = await read_response(reader)
    finally:
        writer.close()
    return result, time.monotonic()


def process_gone(pid):
    """Whether `pid` has exited (a zombie waiting for its parent counts as exited)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True


async def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--pid", type=int, required=True)
    parser.add_argument("--oneshots", type=int, default=300)
    parser.add_argument("--streams", type=int, default=30)
    parser.add_argument("--oneshot-path", default="/location?accuracy=0.01&timeout=10m",
                        help="what each pending one-shot asks (default: 1 cm, which nothing satisfies, for 10 minutes)")
    arguments = parser.parse_args()
    loop = asyncio.get_running_loop()
    tasks = []
    for index in range(arguments.oneshots + arguments.streams):
        path = arguments.oneshot_path if index < arguments.oneshots else "/updates?accuracy=city"
        tasks.append(asyncio.ensure_future(request(arguments.port, path)))
    # Every request is in the server (and the engine) before the signal.
    before = {}
    for _ in range(300):
        await asyncio.sleep(0.1)
        before = await loop.run_in_executor(None, scrape, arguments.port, 10)
        if total(before, "locationserver_location_in_flight") >= arguments.oneshots \
                and total(before, "locationserver_streams_open") >= arguments.streams:
            break
    signalled = time.monotonic()
    os.kill(arguments.pid, signal.SIGTERM)
    results = await asyncio.gather(*tasks, return_exceptions=True)
    while not process_gone(arguments.pid) and time.monotonic() - signalled < 600:
        await asyncio.sleep(0.01)
    exited = time.monotonic()

    summary = {
        "oneshots": arguments.oneshots, "streams": arguments.streams,
        "in_flight_at_signal": total(before, "locationserver_location_in_flight"),
        "streams_open_at_signal": total(before, "locationserver_streams_open"),
        "answered": 0, "statuses": {}, "shut_down_bodies": 0, "retry_after": 0, "errors": 0, "max_answer_ms": 0.0,
        "streams_ended": {}, "max_stream_end_ms": 0.0, "exit_ms": round((exited - signalled) * 1000, 1),
        # time.monotonic() at SIGTERM, for timings measured by other clients (geofence_clients.py listen).
        "signalled_at": signalled,
    }
    for index, result in enumerate(results):
        if isinstance(result, BaseException):
            summary["errors"] += 1
            continue
        (status, headers, body), answered_at = result
        elapsed = round((answered_at - signalled) * 1000, 1)
        if index < arguments.oneshots:
            summary["answered"] += 1
            summary["statuses"][str(status)] = summary["statuses"].get(str(status), 0) + 1
            try:
                summary["shut_down_bodies"] += json.loads(body or b"{}").get("status") == "shut_down"
            except ValueError:
                pass
            summary["retry_after"] += "retry-after" in headers
            summary["max_answer_ms"] = max(summary["max_answer_ms"], elapsed)
        else:
            events = body.decode(errors="replace").strip().split("\n\n")
            last = events[-1] if events else ""
            reason = "none"
            if last.startswith("event: end") and "data: " in last:
                reason = json.loads(last.split("data: ", 1)[1]).get("reason", "none")
            summary["streams_ended"][reason] = summary["streams_ended"].get(reason, 0) + 1
            summary["max_stream_end_ms"] = max(summary["max_stream_end_ms"], elapsed)
    print(json.dumps(summary, sort_keys=True))


if __name__ == "__main__":
    asyncio.run(main())
