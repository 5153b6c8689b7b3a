#!/usr/bin/env python3
"""Reads callgrind's dumps of the engine's phases and prints the source files of the engine whose code ran in
them: each function with instructions of its own (its self cost) is mapped to the file that defines it with
`addr2line` on the unstripped binary, and each file is listed with its instructions per request.

Only out-of-line code is seen: what the optimizer inlined counts in the file of the function it was inlined
into. A file whose code ran less than once per request (a source started once for the whole batch, a timer
armed once) is listed apart: it is on the path of a lone request, not of each of many.
"""
import argparse
import collections
import re
import subprocess
import sys


def self_costs(path):
    """Returns {function name: instructions of its own} of one callgrind dump."""
    names = {}
    costs = collections.Counter()
    current = None
    after_call = False
    name_line = re.compile(r"^(fn|cfn)=\((\d+)\)(?: (.*))?$")
    with open(path, encoding="utf-8", errors="replace") as dump:
        for line in dump:
            line = line.rstrip("\n")
            match = name_line.match(line)
            if match:
                if match.group(3):
                    names[match.group(2)] = match.group(3)
                if match.group(1) == "fn":
                    current = names[match.group(2)]
                continue
            if line.startswith("calls="):
                after_call = True  # the next cost line is the call's inclusive cost, not this function's
                continue
            if current and line[:1] in "0123456789+-*":
                if after_call:
                    after_call = False
                    continue
                fields = line.split()
                if len(fields) >= 2 and fields[1].isdigit():
                    costs[current] += int(fields[1])
    return costs


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--binary", required=True, help="the unstripped binary the dumps were made from")
    parser.add_argument("--requests", type=int, required=True)
    parser.add_argument("--prefix", default="Sources/LocationEngine/", help="the files counted: paths containing this")
    parser.add_argument("dumps", nargs="+")
    arguments = parser.parse_args()
    symbols = {}
    for line in subprocess.run(["nm", arguments.binary], capture_output=True, text=True, check=True).stdout.splitlines():
        fields = line.split()
        if len(fields) == 3:
            symbols[fields[2]] = fields[0]
    costs = collections.Counter()
    for dump in arguments.dumps:
        costs.update(self_costs(dump))
    functions = [(name, cost) for name, cost in costs.items() if cost > 0 and name in symbols]
    located = subprocess.run(
        ["addr2line", "-e", arguments.binary], input="\n".join(symbols[name] for name, _ in functions),
        capture_output=True, text=True, check=True).stdout.splitlines()
    per_file = collections.Counter()
    for (name, cost), place in zip(functions, located):
        path = place.split(":")[0]
        if arguments.prefix in path:
            per_file[path.split(arguments.prefix, 1)[1]] += cost
    if not per_file:
        sys.exit("no function of the engine found: is the binary unstripped, and the dumps made from it?")
    each = {path: cost / arguments.requests for path, cost in per_file.items()}
    every_request = sorted((path for path in each if each[path] >= 1), key=lambda path: -each[path])
    once = sorted((path for path in each if each[path] < 1), key=lambda path: -each[path])
    for path in every_request:
        print(f"{each[path]:10.1f} instructions per request  {path}")
    for path in once:
        print(f"{'<1':>10} instructions per request  {path}")
    print(f"files of the engine a request's code ran in: {len(each)} ({len(every_request)} on every request, {len(once)} once for the batch)")


if __name__ == "__main__":
    main()
