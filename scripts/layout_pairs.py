#!/usr/bin/env python3
"""Layout cost of cuBLAS's sm_90 TF32 kernels, measured against modelled.

Reads the summary.csv that `tcsim validate -o DIR` writes for a single-op GEMM profile (for example
validation/measured/H100/op_profile/gemm_tf32.json.xz, decompressed). For every shape that ran in
cuBLAS's K-major layout (`sm90_xmma_gemm_*_tn_*`) and in another one (nn, tt or nt), it divides the
other layout's median time by the tn one's, measured and modelled, and groups the ratios by the
kernel the other layout ran (`tilesize<M>x<N>x<K>_warpgroupsize<W>x1x1`). Used for
sim/gpu/README.md, "TF32: what is left" (the session-88 update).

With --schedules it prints instead which schedule cuBLAS ran for the single (not batched) calls with
one M/N-major operand (nn, tt): ping-pong (warpgroupsize1x1x1) or cooperative (2x1x1), against the
session-89 rule (ping-pong for every nn call, and for tt calls below 144 output tiles of 128 x 128).

usage: scripts/layout_pairs.py SUMMARY.csv [--min-shapes N] [--schedules]
"""
import argparse
import csv
import re
import statistics
import sys
from collections import defaultdict

def fail(message):
    """Bad input: the message on stderr, exit code 2 (the project's convention)."""
    print(f"layout_pairs.py: {message}", file=sys.stderr)
    sys.exit(2)


LAYOUT = re.compile(r"sm90_xmma_gemm_\w*?_(nn|nt|tn|tt)_")
TILE = re.compile(r"tilesize(\d+x\d+)x\d+_warpgroupsize(\d+)x")


def sm90_rows(path, columns):
    """(line, row, layout, tile match) for the rows that ran cuBLAS's sm90_xmma kernels; fails unless
    the file has `columns`."""
    with open(path, newline="") as f:
        reader = csv.DictReader(f)
        missing = set(columns) - set(reader.fieldnames or [])
        if missing:
            fail(f"{path}: not a tcsim validate summary.csv (no column {', '.join(sorted(missing))})")
        for line, row in enumerate(reader, start=2):
            layout, tile = LAYOUT.search(row["kernel"]), TILE.search(row["kernel"])
            if layout and tile:
                yield line, row, layout.group(1), tile


def read_rows(path):
    """(shape, layout, kernel) -> list of (measured_us, predicted_us) for the sm90_xmma rows; the
    kernel is its tile and math warpgroups ("128x128 wg1"), so a shape whose calls of one layout ran
    different kernels gives one ratio per kernel."""
    runs = defaultdict(list)
    for line, row, layout, tile in sm90_rows(path, ("shape", "kernel", "measured_us", "predicted_us")):
        try:
            measured, predicted = float(row["measured_us"]), float(row["predicted_us"])
        except ValueError:
            fail(f"{path}:{line}: measured_us / predicted_us: expected numbers")
        if measured <= 0 or predicted <= 0:
            continue
        runs[(row["shape"], layout, f"{tile.group(1)} wg{tile.group(2)}")].append((measured, predicted))
    return runs


SHAPE = re.compile(r"m=(\d+) n=(\d+) k=(\d+)")


def schedules(path):
    """The session-89 schedule rule against the kernels cuBLAS ran (sim/gpu/README.md)."""
    counts = defaultdict(int)  # (layout, ran ping-pong, rule says ping-pong) -> calls
    for line, row, layout, tile in sm90_rows(path, ("shape", "kernel")):
        if layout not in ("nn", "tt") or "batch=" in row["shape"]:
            continue
        shape = SHAPE.search(row["shape"])
        if not shape:
            fail(f"{path}:{line}: shape: expected 'm=<M> n=<N> k=<K>', got '{row['shape']}'")
        tiles = int(shape.group(1)) * int(shape.group(2)) / (128.0 * 128.0)
        rule = layout == "nn" or tiles < 144
        counts[(layout, tile.group(2) == "1", rule)] += 1
    if not counts:
        fail(f"{path}: no single nn or tt sm90_xmma call")
    name = {True: "ping-pong", False: "cooperative"}
    print(f"{'layout':6s} {'cuBLAS ran':12s} {'rule says':12s} {'calls':>6s}")
    for (layout, ran, rule), n in sorted(counts.items()):
        print(f"{layout:6s} {name[ran]:12s} {name[rule]:12s} {n:6d}")
    right = sum(n for (_, ran, rule), n in counts.items() if ran == rule)
    total = sum(counts.values())
    print(f"the rule names the schedule of {right} of {total} calls ({100.0 * right / total:.1f}%)")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("summary", help="summary.csv of `tcsim validate -o DIR`")
    ap.add_argument("--min-shapes", type=int, default=4, help="leave out groups of fewer shapes (default 4)")
    ap.add_argument("--schedules", action="store_true", help="cuBLAS's ping-pong / cooperative choice against the rule")
    args = ap.parse_args()
    try:
        if args.schedules:
            schedules(args.summary)
            return
        runs = read_rows(args.summary)
    except OSError as e:
        fail(f"{args.summary}: {e.strerror}")
    tn = defaultdict(list)  # shape -> its K-major calls, whatever kernel they ran
    for (shape, layout, _), rows in runs.items():
        if layout == "tn":
            tn[shape] += rows
    groups = defaultdict(list)
    for (shape, layout, kernel), rows in runs.items():
        if layout == "tn" or shape not in tn:
            continue
        base = tn[shape]
        tn_measured = statistics.median(r[0] for r in base)
        tn_predicted = statistics.median(r[1] for r in base)
        measured = statistics.median(r[0] for r in rows)
        predicted = statistics.median(r[1] for r in rows)
        groups[(layout, kernel)].append((measured / tn_measured, predicted / tn_predicted, predicted / measured - 1))
    if not groups:
        fail(f"{args.summary}: no shape ran both in the tn layout and in another sm90_xmma layout")
    print(f"{'layout':6s} {'kernel':16s} {'shapes':>6s} {'measured/tn':>11s} {'model/tn':>9s} {'model error':>11s}")
    for (layout, tile), ratios in sorted(groups.items()):
        if len(ratios) < args.min_shapes:
            continue
        print(f"{layout:6s} {tile:16s} {len(ratios):6d} {statistics.median(r[0] for r in ratios):11.3f} "
              f"{statistics.median(r[1] for r in ratios):9.3f} {100 * statistics.median(r[2] for r in ratios):+10.1f}%")


if __name__ == "__main__":
    main()
