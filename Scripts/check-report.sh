#!/usr/bin/env bash
# Renders locbench's HTML reports in a real headless browser (Debian's chromium) and checks the
# screenshots: each page drew (many colours, a good share of non-white pixels) and its charts are there
# (the workload report: the mode colours of the timeline bands, the pending-requests line; the geofence
# report's map: the path in the receiver's best mode, the true crossings, the reported transitions; its
# energy/latency curve is drawn below).
#   Scripts/check-report.sh [OUTPUT-DIRECTORY]   (default .build/locbench-report)
# LOCBENCH_REPORT_REQUESTS sets the run's size (10000).
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-.build/locbench-report}
mkdir -p "$out"
html="$out/report.html"
png="$out/report.png"
[ -x .build/release/locbench ] || swift build -c release --product locbench
.build/release/locbench --requests "${LOCBENCH_REPORT_REQUESTS:-10000}" --repeat 1 --report "$html" > "$out/report.txt"
geofences_html="$out/geofences.html"
geofences_png="$out/geofences.png"
.build/release/locbench --geofences 300 --geofence-shapes drive --geofence-duration 20m --geofence-curve --report "$geofences_html" > "$out/geofences.txt"
browser=$(command -v chromium || command -v chromium-browser || true)
[ -n "$browser" ] || { echo "check-report: chromium not found (Scripts/bootstrap.sh installs it)" >&2; exit 1; }
for page in "$html:$png" "$geofences_html:$geofences_png"; do
    "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1040,1900 \
        --screenshot="$(realpath -m "${page#*:}")" "file://$(realpath "${page%%:*}")" > "$out/chromium.log" 2>&1
done
python3 - "$png" "$geofences_png" <<'PYTHON'
import struct, sys, zlib

def pixels(path):
    """Decodes an 8-bit RGB or RGBA PNG (what chromium writes) into rows of (r, g, b)."""
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    position, idat = 8, b""
    while position < len(data):
        length, kind = struct.unpack(">I4s", data[position:position + 8])
        body = data[position + 8:position + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and colour in (2, 6), f"unexpected PNG format: depth {depth}, colour type {colour}"
        elif kind == b"IDAT":
            idat += body
        position += 12 + length
    channels = 3 if colour == 2 else 4
    stride = width * channels
    raw = zlib.decompress(idat)
    previous = bytearray(stride)
    rows = []
    for y in range(height):
        line = raw[y * (stride + 1):(y + 1) * (stride + 1)]
        kind, row = line[0], bytearray(line[1:])
        for i in range(stride):
            left = row[i - channels] if i >= channels else 0
            up = previous[i]
            if kind == 1: row[i] = (row[i] + left) & 255
            elif kind == 2: row[i] = (row[i] + up) & 255
            elif kind == 3: row[i] = (row[i] + ((left + up) >> 1)) & 255
            elif kind == 4:
                upper_left = previous[i - channels] if i >= channels else 0
                p = left + up - upper_left
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - upper_left)
                row[i] = (row[i] + (left if pa <= pb and pa <= pc else up if pb <= pc else upper_left)) & 255
        rows.append([tuple(row[x:x + 3]) for x in range(0, stride, channels)])
        previous = row
    return width, height, rows

def check(path, expected):
    """Checks one screenshot: enough colours, not blank, every expected colour present."""
    width, height, rows = pixels(path)
    colours = {}
    for row in rows:
        for pixel in row:
            colours[pixel] = colours.get(pixel, 0) + 1
    total = width * height
    non_white = total - colours.get((255, 255, 255), 0)
    missing = [name for name, rgb in expected.items() if colours.get(rgb, 0) < 20]
    print(f"check-report: {path}: {width}x{height} screenshot, {len(colours)} colours, {100 * non_white / total:.1f} % non-white")
    problems = []
    if len(colours) < 50: problems.append(f"only {len(colours)} colours")
    if non_white < total * 0.05: problems.append("the page is nearly blank")
    if missing: problems.append("missing " + ", ".join(missing))
    return [f"{path}: {problem}" for problem in problems]

problems = []
# The timeline's best-mode blue, the pending line's orange, the naive design's bar orange.
problems += check(sys.argv[1], {"best mode #08519c": (8, 81, 156), "pending line #d95f02": (217, 95, 2), "naive bar #fd8d3c": (253, 141, 60)})
# The map: the path in the best mode, the true crossings' green rings, the reported transitions' purple.
problems += check(sys.argv[2], {"path in best mode #08519c": (8, 81, 156), "true crossing #31a354": (49, 163, 84), "reported transition #6a51a3": (106, 81, 163)})
if problems:
    sys.exit("check-report: FAILED: " + "; ".join(problems))
print("check-report: ok")
PYTHON
