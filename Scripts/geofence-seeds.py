#!/usr/bin/env python3
"""The geofence curve over many seeds: runs `locbench --geofences 1000 --geofence-curve` once per seed (each seed
its own trajectories, fences and receiver noise) and prints, per trajectory and design (the engine by its
responsiveness, polling by its fix interval), the latency p99 from the decidable instant and the energy against the
reach oracle across the seeds (median, 90th percentile of the seeds, range), and the wrong and missed transitions
summed; how many polling designs the engine's curve dominates on each seed, and which polling designs dominate one
of its points; then each of the engine's missed crossings at its default responsiveness, with how far its excursion went
past the margin. One seed's p99 on foot is its slowest of about twenty transitions, so one seed says little.

Exits 1 when the engine reported a false or duplicate transition at any responsiveness on any seed, or a polling design
(on the engine's rules, its states held across each wait) at any interval.

    Scripts/geofence-seeds.py LOCBENCH [--seeds 20] [--json-dir DIR] [--fix-error SCALE]

--fix-error passes locbench's --geofence-fix-error: 0 puts every fix on the truth, to see what the receiver's noise
alone costs each design.
"""
import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile


def nearest_rank(values, p):
    ordered = sorted(values)
    rank = max(1, math.ceil(len(ordered) * p / 100))
    return ordered[min(len(ordered), rank) - 1]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("locbench")
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--json-dir")
    parser.add_argument("--fix-error", type=float, default=1.0)
    arguments = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="geofence-seeds-") as scratch:
        directory = arguments.json_dir or scratch
        os.makedirs(directory, exist_ok=True)
        runs = []
        for seed in range(1, arguments.seeds + 1):
            path = os.path.join(directory, f"seed-{seed}.json")
            subprocess.run(
                [arguments.locbench, "--geofences", "1000", "--geofence-curve", "--seed", str(seed), "--json", path,
                 "--geofence-fix-error", str(arguments.fix_error)],
                check=True, stdout=subprocess.DEVNULL)
            with open(path) as file:
                runs.append(json.load(file))

    points = {}
    pooled = {}
    misses = []
    dominance = {}
    for run in runs:
        for shape in run["shapes"]:
            polling = sum(1 for point in shape["curve"] if point["design"] == "polling")
            dominance.setdefault((shape["shape"], "energy, latency p99 and missed transitions"), []).append(
                (shape["pollingDominated"], polling, shape["pollingDominating"]))
            dominance.setdefault((shape["shape"], "energy and latency p99 alone"), []).append(
                (shape["pollingDominatedOnEnergyAndLatency"], polling, shape["pollingDominatingOnEnergyAndLatency"]))
            for point in shape["curve"]:
                points.setdefault(shape["shape"], {}).setdefault((point["design"], point["settingSeconds"]), []).append(point)
            for design in shape["designs"]:
                if design["design"] == "engine":
                    pooled.setdefault(shape["shape"], []).extend(design["latencyFromDecidableSeconds"])
            for miss in shape["engineMissed"]:
                if not miss["endsMissedExcursion"]:
                    misses.append((shape["shape"], run["seed"], miss, shape["marginMetres"]))

    noise = "" if arguments.fix_error == 1 else f" --geofence-fix-error {arguments.fix_error:g}"
    print(f"the geofence curve over {len(runs)} seeds (locbench --geofences 1000 --geofence-curve --seed 1…{len(runs)}{noise}): "
          "latency p99 from the decidable instant, s, and energy against the reach oracle, "
          "each as median / 90th percentile of the seeds / range; wrong (false + duplicate) and missed transitions summed")
    wrong_by_design = {}
    for shape, designs in points.items():
        print(shape)
        for (design, setting), values in sorted(designs.items()):
            # A design that delivered no transition on a seed has no latency there (the key is absent).
            latency = [value["latencyFromDecidableP99Seconds"] for value in values if "latencyFromDecidableP99Seconds" in value]
            energy = [value["energyVsReachOracle"] for value in values]
            wrong = sum(value["falseTransitions"] + value["duplicates"] for value in values)
            missed = sum(value["missed"] for value in values)
            wrong_by_design[design] = wrong_by_design.get(design, 0) + wrong
            latency_text = (f"{statistics.median(latency):6.1f} / {nearest_rank(latency, 90):6.1f} / {min(latency):.1f}–{max(latency):.1f}"
                            if latency else "none delivered")
            if latency and len(latency) < len(values):
                silent = len(values) - len(latency)
                latency_text += f" (none delivered on {silent} seed{'s' if silent > 1 else ''})"
            print(f"  {design:8} {setting:>3} s  latency {latency_text}   energy {statistics.median(energy):.2f}x / "
                  f"{nearest_rank(energy, 90):.2f}x / {min(energy):.2f}–{max(energy):.2f}x   wrong {wrong:3}  missed {missed:4}")
    print("the curve's dominance per seed: polling designs that a point of the engine's curve dominates (less or as much of "
          "each figure, one of them less), and polling designs that dominate a point of the engine's curve; on energy, latency "
          "p99 and missed transitions, then on energy and latency p99 alone")
    for (shape, figures), counts in sorted(dominance.items(), key=lambda item: (item[0][0], item[0][1] != "energy, latency p99 and missed transitions")):
        dominated = [count[0] for count in counts]
        beaten = {}
        for count in counts:
            for setting in count[2]:
                beaten[setting] = beaten.get(setting, 0) + 1
        designs = counts[0][1]
        beating = ", ".join(f"every {setting} s on {seeds}" for setting, seeds in sorted(beaten.items())) or "none"
        print(f"  {shape:8} on {figures}: dominated: median {statistics.median(dominated):.1f} of {designs}, {min(dominated)}–{max(dominated)}; "
              f"all {designs} on {sum(1 for count in dominated if count == designs)} of {len(counts)} seeds   "
              f"dominating an engine point: {beating}")
    print("the engine at its default responsiveness, every transition of every seed pooled: latency from the decidable instant, s")
    for shape, latencies in pooled.items():
        if latencies:
            print(f"  {shape:8} {len(latencies):5} transitions  p50 {nearest_rank(latencies, 50):5.1f}  p90 {nearest_rank(latencies, 90):5.1f}  "
                  f"p99 {nearest_rank(latencies, 99):5.1f}  max {max(latencies):6.1f}  "
                  f"within 2 s {sum(1 for value in latencies if value <= 2) / len(latencies):.1%}")
    print("the engine's missed crossings at its default responsiveness (the crossing that ends each such excursion not counted again):")
    for shape, seed, miss, margin in misses:
        fix = miss.get("nearestFix")
        nearest = (f"the fix nearest to deciding it {fix['depth']:.1f} m ± {fix['accuracy']:.1f}, asked {fix['asked']:.1f} m"
                   if fix else "no fix during it")
        print(f"  {shape} seed {seed} fence {miss['fence']}: {miss['excursionDepth'] - margin:.1f} m past the margin of {margin:.1f} m, {nearest}")
    if not misses:
        print("  none")
    if any(wrong_by_design.values()):
        for design, wrong in wrong_by_design.items():
            if wrong:
                print(f"{design} reported {wrong} false or duplicate transitions")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
