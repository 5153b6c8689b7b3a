#!/usr/bin/env python3
"""Helpers for nmea-throughput-vs-pynmea2.sh: build the shared input, time pynmea2 on it,
and read the Swift figure out of package-benchmark's text output.

Subcommands:
  make-input CORPUS_DIR COUNT OUT   every `$` line of the corpus logs, cycled to exactly COUNT lines
  pynmea2 INPUT                     pynmea2 sentences/s on INPUT (median of 3): parse only, and parse + field access
  swift BENCH_OUTPUT NAME           sentences/s of benchmark NAME (p50 wall clock) in package-benchmark text output
"""
import json
import re
import sys
import time
from pathlib import Path

LOGS = ["bu353s4.log", "com-1289.log", "haicom-305N.log", "quectel.log", "triton400.log"]


def make_input(corpus, count, out):
    lines = []
    for name in LOGS:
        for line in (Path(corpus) / name).read_bytes().splitlines():
            if line.startswith(b"$"):
                lines.append(line)
    if not lines:
        sys.exit(f"no sentences found in {corpus}")
    with open(out, "wb") as handle:
        for index in range(count):
            handle.write(lines[index % len(lines)] + b"\r\n")


def time_pynmea2(path):
    import pynmea2

    lines = Path(path).read_text(encoding="ascii", errors="replace").splitlines()

    def parse_only():
        for line in lines:
            try:
                pynmea2.parse(line, check=True)
            except pynmea2.ParseError:
                pass

    def parse_and_read_fields():
        # The values the Swift decoder produces for every sentence (position, time, quality,
        # altitude, DOPs, speed, track, date, satellites), read through pynmea2's typed accessors.
        for line in lines:
            try:
                message = pynmea2.parse(line, check=True)
                kind = message.sentence_type
                if kind == "GGA":
                    (message.latitude, message.longitude, message.timestamp, message.gps_qual,
                     message.num_sats, message.horizontal_dil, message.altitude, message.geo_sep)
                elif kind == "RMC":
                    (message.latitude, message.longitude, message.timestamp, message.status,
                     message.spd_over_grnd, message.true_course, message.datestamp)
                elif kind == "GLL":
                    message.latitude, message.longitude, message.timestamp, message.status
                elif kind == "GSA":
                    message.mode_fix_type, message.pdop, message.hdop, message.vdop, message.sv_id01
                elif kind == "GSV":
                    message.num_sv_in_view, message.sv_prn_num_1, message.elevation_deg_1, message.azimuth_1, message.snr_1
                elif kind == "VTG":
                    message.true_track, message.spd_over_grnd_kts
            except (pynmea2.ParseError, ValueError, TypeError, AttributeError):
                pass

    results = {}
    for name, run in (("parse", parse_only), ("fields", parse_and_read_fields)):
        rates = []
        for _ in range(3):  # median of three, as the Swift side reports its p50
            start = time.perf_counter()
            run()
            rates.append(len(lines) / (time.perf_counter() - start))
        results[name] = sorted(rates)[1]
    print(json.dumps(results))


TIME_UNITS = {"ns": 1e-9, "μs": 1e-6, "us": 1e-6, "ms": 1e-3, "s": 1.0}


def swift_throughput(output, name):
    """Sentences/s from the p50 wall-clock time per sentence (the benchmark's scaling factor makes
    package-benchmark report time per sentence; its throughput row is rounded to whole millions)."""
    text = Path(output).read_text(errors="replace")
    start = text.find(name)
    if start < 0:
        sys.exit(f"benchmark '{name}' not found in {output}")
    row = re.compile(r"[│|]\s*Time \(wall clock\) \((\S+)\) \*?\s*[│|]\s*([\d,.]+)\s*[│|]\s*([\d,.]+)\s*[│|]\s*([\d,.]+)")
    for line in text[start:].splitlines():
        match = row.match(line)
        if match:
            seconds = float(match.group(4).replace(",", "")) * TIME_UNITS[match.group(1)]  # columns: p0, p25, p50
            print(1 / seconds)
            return
    sys.exit(f"no wall-clock row for '{name}' in {output}")


if __name__ == "__main__":
    command, *arguments = sys.argv[1:] or ["help"]
    if command == "make-input":
        make_input(arguments[0], int(arguments[1]), arguments[2])
    elif command == "pynmea2":
        time_pynmea2(arguments[0])
    elif command == "swift":
        swift_throughput(arguments[0], arguments[1])
    else:
        sys.exit(__doc__)
