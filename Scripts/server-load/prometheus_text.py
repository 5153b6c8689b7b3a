"""The Prometheus text format as the load scripts read it: parsing, summing by labels, scraping a server's
/metrics. One parser for check.py, shutdown_clients.py and geofence_clients.py (the standard library has
none, and the prometheus_client package would be the scripts' only dependency outside it)."""
import re
import urllib.request

SAMPLE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)$')
LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')


def parse_metrics(text):
    """Prometheus text format -> {name: [(labels, value)]}."""
    metrics = {}
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        match = SAMPLE.match(line.strip())
        if not match:
            raise ValueError(f"not a Prometheus sample: {line!r}")
        name, labels, value = match.groups()
        metrics.setdefault(name, []).append((dict(LABEL.findall(labels or "")), float(value)))
    return metrics


def total(metrics, name, **labels):
    """The sum of `name`'s samples whose labels include `labels` (0 when absent)."""
    return sum(value for sample_labels, value in metrics.get(name, [])
               if all(sample_labels.get(key) == wanted for key, wanted in labels.items()))


def scrape(port, timeout=30):
    """The server's /metrics on 127.0.0.1:`port`, parsed."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=timeout) as response:
        return parse_metrics(response.read().decode())
