#!/usr/bin/env python3
"""Two locbench JSON files of one virtual-clock command must agree: every figure equal (numbers to a
relative 1e-9, for sums taken in another order), except those of the machine — CPU and wall time, and the
command line. Exits 1 and lists what differs.

    Scripts/compare-run-figures.py first.json second.json
"""
import json
import math
import sys

MACHINE = ("cpu", "wall", "command")


def differences(first, second, path):
    if isinstance(first, dict) and isinstance(second, dict):
        for key in sorted(set(first) | set(second)):
            if any(word in key.lower() for word in MACHINE):
                continue
            if key not in first or key not in second:
                yield f"{path}.{key}: only in {'the second' if key not in first else 'the first'}"
                continue
            yield from differences(first[key], second[key], f"{path}.{key}")
    elif isinstance(first, list) and isinstance(second, list):
        if len(first) != len(second):
            yield f"{path}: {len(first)} entries against {len(second)}"
            return
        for index, (a, b) in enumerate(zip(first, second)):
            yield from differences(a, b, f"{path}[{index}]")
    elif isinstance(first, (int, float)) and isinstance(second, (int, float)) and not isinstance(first, bool):
        if not math.isclose(first, second, rel_tol=1e-9, abs_tol=1e-12):
            yield f"{path}: {first} against {second}"
    elif first != second:
        yield f"{path}: {first!r} against {second!r}"


def main():
    if len(sys.argv) != 3:
        print(__doc__.strip(), file=sys.stderr)
        return 64
    with open(sys.argv[1]) as a, open(sys.argv[2]) as b:
        found = list(differences(json.load(a), json.load(b), ""))
    for line in found[:50]:
        print(line)
    if found:
        print(f"{len(found)} figures differ between two runs of one seed", file=sys.stderr)
        return 1
    print("the two runs agree on every figure but the machine's")
    return 0


if __name__ == "__main__":
    sys.exit(main())
