#!/usr/bin/env python3
"""NeuSight FP32 GEMM rows (linear or bmm) run on the cuBLAS kernel their listing names: the rows are
split by `Kernel Name` (volta_/ampere_sgemm_<tile>_<layout>), each group is validated with
`--set library.sgemm_tile=<that tile>` (tcsim's M x N: cuBLAS's name transposed, PyTorch being a
row-major caller), and the script prints the error per kernel. It separates the cost of a kernel from
the choice of kernel, which the model makes without the listing (the figures of sim/gpu/README.md,
"SIMT tiles with the library's thread counts").

Usage:
  /usr/bin/python3 scripts/sgemm_tile_bias.py $S/neusight/kernels/A100-PCIE-40GB/linear.csv \
      configs/gpu/a100_pcie_40gb.yaml [--tcsim build/tcsim] [--jobs 2] [--min-us 500] [--unsplit]
      [-- --clock fixed]
(S=../shared/data). Standard library only. Exit 2 on bad input.

--unsplit keeps the rows where neither cuBLAS (the listing's `Grid z`) nor the model (its mapping's
splitK) split K (a bmm's grid z less its batch): the kernel's own cost, without the in-kernel split-K the model does not have. The
script then also prints the error by measured duration, plain and sliced-K kernels pooled apart, and
pooled over the rows >= --min-us: with `-- --clock fixed`, the bias of the long rows of kernels
modelled right is the clock the board held; `--min-us 10000` on the A100 PCIe linear sheet is the fit
of the A100's instruction energy (sim/gpu/README.md, "Power, energy and the clock").
"""
import csv
import os
import re
import subprocess
import sys
import tempfile

KERNEL = re.compile(r"_sgemm_(\d+)x(\d+)(_sliced1x4)?_(nn|nt|tn|tt)$")


def fail(message):
    print(f"sgemm_tile_bias.py: {message}", file=sys.stderr)
    sys.exit(2)


def our_tile(kernel_name):
    """cuBLAS's M x N tile as tcsim's (PyTorch passes C^T = B^T A^T: cuBLAS's M is our N)."""
    m = KERNEL.search(kernel_name)
    if not m:
        return None
    tile = f"{m.group(2)}x{m.group(1)}"
    return tile + "-sliced" if m.group(3) else tile


def parse_args(argv):
    opts = {"tcsim": "build/tcsim", "jobs": "2", "min-us": "500"}
    positional, extra = [], []
    unsplit = False
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == "--":
            extra = argv[i + 1:]
            break
        if a == "--unsplit":
            unsplit = True
            i += 1
            continue
        if a.startswith("--") and a[2:] in opts:
            if i + 1 >= len(argv):
                fail(f"{a} needs a value")
            opts[a[2:]] = argv[i + 1]
            i += 2
            continue
        if a.startswith("-"):
            fail(f"unknown option {a}")
        positional.append(a)
        i += 1
    if len(positional) != 2:
        fail("usage: sgemm_tile_bias.py NEUSIGHT_GEMM.csv CONFIG.yaml [--tcsim T] [--jobs N] [--min-us U] [--unsplit] "
             "[-- VALIDATE OPTIONS]")
    try:
        min_us = float(opts["min-us"])
    except ValueError:
        fail(f"--min-us: expected a number, got {opts['min-us']!r}")
    return positional[0], positional[1], opts["tcsim"], opts["jobs"], min_us, unsplit, extra


# Measured-duration buckets of the --unsplit summary (upper bounds in us).
DURATIONS = [(100, "< 100 us"), (1e3, "0.1-1 ms"), (1e4, "1-10 ms"), (1e5, "10-100 ms"), (float("inf"), ">= 100 ms")]
SPLIT_K = re.compile(r"splitK (\d+)")


def k_slices(row, sheet, line):
    """cuBLAS's split of K: its grid's z extent, less the batch of a bmm (batched calls put it on z)."""
    try:
        z = int(row.get("Grid z") or 1)
        batch = int(row.get("B") or 1) if row.get("OPName", "").strip().lower() == "bmm" else 1
    except ValueError:
        fail(f"{sheet}:{line}: Grid z and B: expected integers, got {row.get('Grid z')!r}, {row.get('B')!r}")
    return max(1, z // max(1, batch))


def stats(errors):
    if not errors:
        return "      -                 "
    return f"{len(errors):5d} {sum(map(abs, errors)) / len(errors):6.1f}% {sum(errors) / len(errors):+6.1f}%"


def main(argv):
    sheet, config, tcsim, jobs, min_us, unsplit, extra = parse_args(argv)
    for path in (sheet, config, tcsim):
        if not os.path.isfile(path):
            fail(f"{path}: no such file")
    try:
        with open(sheet, newline="") as f:
            reader = csv.DictReader(f)
            header = reader.fieldnames or []
            rows = list(reader)
    except (OSError, UnicodeDecodeError, csv.Error) as e:
        fail(f"{sheet}: {e}")
    if "Kernel Name" not in header:
        fail(f"{sheet}: not a NeuSight kernel sheet (no 'Kernel Name' column)")
    groups = {}
    for line, row in enumerate(rows, start=2):
        tile = our_tile(row["Kernel Name"])
        if tile and not (unsplit and k_slices(row, sheet, line) > 1):
            groups.setdefault((row["Kernel Name"], tile), []).append(row)
    if not groups:
        fail(f"{sheet}: no row names a volta_/ampere_sgemm kernel")
    print(f"{'cuBLAS kernel':36s} {'tile':12s} {'rows':>5s} {'MAPE':>7s} {'bias':>7s} | "
          f">= {min_us:g} us: {'rows':>5s} {'MAPE':>7s} {'bias':>7s}")
    by_duration = {}  # (plain|sliced, bucket) -> errors
    with tempfile.TemporaryDirectory() as tmp:
        for (kernel, tile), members in sorted(groups.items(), key=lambda kv: -len(kv[1])):
            subset = os.path.join(tmp, f"{len(os.listdir(tmp))}.csv")
            with open(subset, "w", newline="") as f:
                w = csv.DictWriter(f, header)
                w.writeheader()
                w.writerows(members)
            out = subset[:-4] + "_out"
            cmd = [tcsim, "validate", "-j", jobs, "-c", config, "--set", f"library.sgemm_tile={tile}", *extra,
                   subset, "-o", out]
            run = subprocess.run(cmd, capture_output=True, text=True)
            if run.returncode != 0:
                fail(f"{' '.join(cmd)} exited {run.returncode}: {run.stderr.strip()[-400:]}")
            errors, long_errors = [], []
            with open(os.path.join(out, "summary.csv"), newline="") as f:
                for r in csv.DictReader(f):
                    if not r["error_pct"]:
                        continue
                    split = SPLIT_K.search(r.get("mapping", ""))
                    if unsplit and split and int(split.group(1)) > 1:
                        continue
                    error, us = float(r["error_pct"]), float(r["measured_us"])
                    errors.append(error)
                    kind = "sliced-K" if tile.endswith("-sliced") else "plain"
                    bucket = next(name for bound, name in DURATIONS if us < bound)
                    by_duration.setdefault((kind, bucket), []).append(error)
                    if us >= min_us:
                        long_errors.append(error)
                        by_duration.setdefault((kind, "long"), []).append(error)
            print(f"{kernel:36s} {tile:12s} {stats(errors)} | {' ' * 13}{stats(long_errors)}")
    if unsplit:
        print("\nby measured duration (rows, MAPE, bias):")
        for kind in ("plain", "sliced-K"):
            cells = [f"{name}: {stats(by_duration.get((kind, name), [])).strip()}" for _, name in DURATIONS]
            cells.append(f">= {min_us:g} us: {stats(by_duration.get((kind, 'long'), [])).strip()}")
            print(f"  {kind:9s} " + " | ".join(cells))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
