#!/usr/bin/env python3
"""Convolutions measured on two boards: for the shapes both NeuSight sheets hold, grouped by the cuDNN
kernel family each board ran, the median measured time ratio (board A / board B), the model's ratio and
each board's bias. A family whose measured ratio differs from the model's is a per-board effect the model
lacks; one that differs on one board only points at that board (clock, environment) or its kernels.

Usage (the figures in sim/gpu/README.md, "Convolutions", *Same shapes on both boards*):
  build/tcsim validate -j 2 -c configs/gpu/a100_80gb_pcie.yaml $S/neusight/kernels/A100-80GB-PCIe/conv.csv -o out/a
  build/tcsim validate -j 2 -c configs/gpu/v100_pcie.yaml $S/neusight/kernels/V100-PCIE-32GB/conv.csv -o out/v
  /usr/bin/python3 scripts/conv_cross_board.py $S/neusight/kernels/A100-80GB-PCIe/conv.csv out/a/summary.csv \\
      $S/neusight/kernels/V100-PCIE-32GB/conv.csv out/v/summary.csv [--min-us 500]
(S=../shared/data). Rows shorter than --min-us (measured, on both boards) are left out: launch and host
time would dilute the kernels' ratio. Standard library only.
"""
import csv
import re
import statistics
import sys

from conv_family_bias import measured_family

SHAPE = ("B", "Input_Channel", "Output_Channel", "Kernel_Szie", "Input_Size", "Stride", "Padding")


def fail(message):
    print(f"conv_cross_board.py: {message}", file=sys.stderr)
    sys.exit(2)


def family(row):
    """conv_family_bias.py's family of the call (from `Kernels`), implicit GEMM split by the `scudnn` tile of
    its longest kernel (`Kernel Name`)."""
    fam = measured_family(row["Kernels"])
    if fam == "implicit":
        tile = re.search(r"scudnn_(\d+x\d+)", row["Kernel Name"])
        return f"implicit ({tile.group(1)})" if tile else fam
    return fam


def load(measured_csv, summary_csv):
    try:
        measured = list(csv.DictReader(open(measured_csv, newline="")))
        summary = list(csv.DictReader(open(summary_csv, newline="")))
    except OSError as e:
        fail(str(e))
    missing = [k for k in SHAPE + ("Kernel Name", "Kernels") if measured and k not in measured[0]]
    missing += [k for k in ("measured_us", "predicted_us") if summary and k not in summary[0]]
    if missing:
        fail(f"{measured_csv} / {summary_csv}: missing columns {', '.join(missing)}")
    if len(measured) != len(summary):
        fail(f"{summary_csv}: {len(summary)} rows, {measured_csv} has {len(measured)}: not the same set")
    out = {}
    for m, s in zip(measured, summary):
        if not s["predicted_us"]:
            continue
        out[tuple(m[k] for k in SHAPE)] = (family(m), float(s["measured_us"]), float(s["predicted_us"]))
    return out


def main(argv):
    min_us = 500.0
    if "--min-us" in argv:
        i = argv.index("--min-us")
        try:
            min_us = float(argv[i + 1])
        except (IndexError, ValueError):
            fail("--min-us takes a number of microseconds")
        argv = argv[:i] + argv[i + 2:]
    if len(argv) != 4:
        fail("expected A.csv A_SUMMARY.csv B.csv B_SUMMARY.csv [--min-us U]\n" + __doc__)
    a, b = load(argv[0], argv[1]), load(argv[2], argv[3])
    groups = {}
    for shape in a.keys() & b.keys():
        fa, ma, pa = a[shape]
        fb, mb, pb = b[shape]
        if ma < min_us or mb < min_us:
            continue
        groups.setdefault((fa, fb), []).append((ma / mb, pa / pb, 100 * (pa / ma - 1), 100 * (pb / mb - 1)))
    print(f"{'family on A':34s} {'family on B':34s} {'rows':>5s} {'meas A/B':>9s} {'model A/B':>9s} "
          f"{'bias A %':>8s} {'bias B %':>8s}")
    for (fa, fb), v in sorted(groups.items(), key=lambda kv: -len(kv[1])):
        if len(v) < 5:
            continue
        med = [statistics.median(x[i] for x in v) for i in range(2)]
        bias = [statistics.mean(x[i] for x in v) for i in (2, 3)]
        print(f"{fa:34s} {fb:34s} {len(v):5d} {med[0]:9.2f} {med[1]:9.2f} {bias[0]:8.1f} {bias[1]:8.1f}")


if __name__ == "__main__":
    main(sys.argv[1:])
