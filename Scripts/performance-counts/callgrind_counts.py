#!/usr/bin/env python3
"""Reads callgrind's dumps of the engine's phases and prints, per request, the instructions executed
and the allocations made in each.

Instructions are the dump's `summary:` line. Allocations are the calls of the C allocator's entry
points, summed over every caller in the dump (callgrind's `calls=` lines under a `cfn=` naming one of
them): callgrind records every call with its count, so the figure is exact for the run, and the same
for the same binary and input whatever else the machine does.
"""
import argparse
import json
import re
import sys

ALLOCATORS = {"malloc", "calloc", "realloc", "posix_memalign", "aligned_alloc", "memalign"}


def counts(path):
    """Returns (instructions, allocator calls) of one callgrind dump."""
    names = {}  # callgrind compresses repeated names to "(id)"
    instructions = None
    allocations = 0
    callee = None
    name_line = re.compile(r"^c?fn=\((\d+)\)(?: (.*))?$")
    with open(path, encoding="utf-8", errors="replace") as dump:
        for line in dump:
            if line.startswith("summary:"):
                instructions = int(line.split()[1])
            elif line.startswith(("fn=", "cfn=")):
                match = name_line.match(line.rstrip("\n"))
                if match:
                    identifier, name = match.groups()
                    if name is not None:
                        names[identifier] = name
                    name = names.get(identifier, "")
                else:
                    name = line.split("=", 1)[1].strip()
                callee = name if line.startswith("cfn=") else None
            elif line.startswith("calls=") and callee is not None:
                if callee.split("'")[0] in ALLOCATORS:
                    allocations += int(line[len("calls="):].split()[0])
                callee = None
    if instructions is None:
        sys.exit(f"{path}: no summary line (not a callgrind dump?)")
    return instructions, allocations


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--requests", type=int, required=True, help="requests each phase handled")
    parser.add_argument("--phase", action="append", required=True, help="NAME=DUMP, once per phase")
    parser.add_argument("--json", help="also write the figures here")
    arguments = parser.parse_args()
    figures = {"requests": arguments.requests, "instructionsPerRequest": {}, "allocationsPerRequest": {}}
    for phase in arguments.phase:
        name, path = phase.split("=", 1)
        instructions, allocations = counts(path)
        per_instructions = instructions / arguments.requests
        per_allocations = allocations / arguments.requests
        figures["instructionsPerRequest"][name] = round(per_instructions, 1)
        figures["allocationsPerRequest"][name] = round(per_allocations, 3)
        print(f"{name}: {per_instructions:.0f} instructions, {per_allocations:.3f} allocations per request "
              f"(N = {arguments.requests:,}, the caller's and the engine's threads)")
    if arguments.json:
        with open(arguments.json, "w", encoding="utf-8") as out:
            json.dump(figures, out, indent=2)
            out.write("\n")


if __name__ == "__main__":
    main()
