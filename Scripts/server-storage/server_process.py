"""The example server as a process for the storage scripts: started on a free loopback port with a
database file, its port read from its first line, killed or stopped; and small HTTP helpers."""
import http.client
import json
import subprocess
import threading
import time


class Server:
    def __init__(self, binary, database, arguments, log):
        self.process = subprocess.Popen(
            [binary, "--host", "127.0.0.1", "--port", "0", "--database", database, "--log-level", "warning", *arguments],
            stdout=subprocess.PIPE, stderr=log, text=True)
        self.port = None
        self.lines = []
        ready = threading.Event()

        def read():
            for line in self.process.stdout:
                self.lines.append(line)
                if line.startswith("listening on "):
                    self.port = int(line.split()[-1])
                    ready.set()
            ready.set()

        threading.Thread(target=read, daemon=True).start()
        if not ready.wait(60) or self.port is None:
            self.process.kill()
            raise RuntimeError(f"the server did not start listening (exit {self.process.poll()})")

    def kill(self):
        self.process.kill()
        self.process.wait()

    def stop(self, timeout=30):
        self.process.terminate()
        return self.process.wait(timeout)


def request(port, method, path, body=None, headers=None, timeout=30):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        all_headers = dict(headers or {})
        if body is not None:
            all_headers["Content-Type"] = "application/json"
        connection.request(method, path, body=json.dumps(body).encode() if body is not None else None, headers=all_headers)
        response = connection.getresponse()
        return response.status, response.getheader("Location"), response.read()
    finally:
        connection.close()


class EventReader:
    """GET /geofences/events in a thread, from `after` on (Last-Event-ID), until the connection ends:
    every event with an id, as (id, name, data), and the stream's final `end` if it came."""

    def __init__(self, port, after=None):
        self.events = []
        self.final = None
        self.status = None
        self.error = None
        self.opened = threading.Event()
        self.thread = threading.Thread(target=self._read, args=(port, after), daemon=True)
        self.thread.start()
        self.opened.wait(30)

    def _read(self, port, after):
        try:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
            connection.request("GET", "/geofences/events", headers={"Last-Event-ID": str(after)} if after is not None else {})
            response = connection.getresponse()
            self.status = response.status
            self.opened.set()
            if response.status != 200:
                self.error = response.read().decode(errors="replace")
                return
            fields = {}
            while True:
                line = response.readline()
                if not line:
                    return
                text = line.decode(errors="replace").rstrip("\n")
                if text:
                    key, _, value = text.partition(": ")
                    fields[key] = value
                    continue
                if "id" in fields:
                    self.events.append((int(fields["id"]), fields.get("event"), json.loads(fields.get("data", "null"))))
                elif fields.get("event") == "end":
                    self.final = json.loads(fields.get("data", "null"))
                fields = {}
        except (OSError, http.client.HTTPException) as error:
            self.error = self.error or repr(error)
        finally:
            self.opened.set()

    def join(self, timeout=60):
        self.thread.join(timeout)
        return not self.thread.is_alive()


def wait_until(condition, seconds=30, step=0.02):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(step)
    return condition()
