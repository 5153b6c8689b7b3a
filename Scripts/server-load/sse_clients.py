#!/usr/bin/env python3
"""Server-sent-event subscribers for the load test: N clients open GET /updates with mixed options,
read events for a while, then leave — most by closing the connection abruptly (the server must end
their subscriptions), some by waiting for the subscription to end by itself (maxUpdates).
Prints one JSON line: clients, events received, streams ended by the server, malformed events."""
import argparse
import asyncio
import json
import random

OPTIONS = [
    "accuracy=block", "accuracy=house&distance=5", "kind=significant", "kind=passive",
    "accuracy=city&interval=2s", "kind=heading", "distance=20&interval=1s", "accuracy=room",
]


async def client(host, port, index, seconds, totals, rng):
    finite = index % 10 == 0  # one in ten waits for its subscription to end by itself
    query = OPTIONS[index % len(OPTIONS)] + ("&maxUpdates=2&duration=" + str(int(seconds)) + "s" if finite else "")
    stay = rng.uniform(seconds * 0.2, seconds)
    try:
        reader, writer = await asyncio.open_connection(host, port)
    except OSError:
        totals["connect_errors"] += 1
        return
    writer.write(f"GET /updates?{query} HTTP/1.1\r\nHost: {host}\r\n\r\n".encode())
    await writer.drain()
    buffer = b""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + (seconds * 3 if finite else stay)
    try:
        status = await asyncio.wait_for(reader.readline(), timeout=30)
        if b" 200 " not in status:
            totals["bad_status"] += 1
            return
        while True:
            remaining = deadline - loop.time()
            if remaining <= 0:
                break
            try:
                chunk = await asyncio.wait_for(reader.read(65536), timeout=remaining)
            except asyncio.TimeoutError:
                break
            if not chunk:
                break
            buffer += chunk
            while b"\n\n" in buffer:
                block, buffer = buffer.split(b"\n\n", 1)
                text = block.decode(errors="replace")
                if "event: " not in text:
                    continue  # chunked-encoding framing lines
                name = text.split("event: ", 1)[1].split("\n", 1)[0]
                data = text.split("data: ", 1)[1].split("\n", 1)[0] if "data: " in text else ""
                try:
                    json.loads(data)
                except ValueError:
                    totals["malformed"] += 1
                totals["events"] += 1
                if name == "end":
                    totals["ended_by_server"] += 1
                    return
    finally:
        totals["clients"] += 1
        writer.transport.abort()  # leave without a goodbye, like a client that goes away


async def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--clients", type=int, default=300)
    parser.add_argument("--seconds", type=float, default=20)
    arguments = parser.parse_args()
    rng = random.Random(42)
    totals = {"clients": 0, "events": 0, "ended_by_server": 0, "malformed": 0, "connect_errors": 0, "bad_status": 0}
    await asyncio.gather(*(
        client(arguments.host, arguments.port, index, arguments.seconds, totals, rng) for index in range(arguments.clients)))
    print(json.dumps(totals, sort_keys=True))


if __name__ == "__main__":
    asyncio.run(main())
