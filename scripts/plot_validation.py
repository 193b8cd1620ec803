#!/usr/bin/python3
"""Plots the output folder of `tcsim validate -o OUTDIR`.

Usage: scripts/plot_validation.py OUTDIR [--title TEXT]

Reads OUTDIR/summary.csv (one row per measured kernel: measured_us, predicted_us, error_pct,
group, ...) and OUTDIR/metrics.csv (MAPE etc. per group), and writes
  OUTDIR/predicted_vs_measured.png  log-log scatter, one colour per group, y = x and +-10% lines
  OUTDIR/error_histogram.png        histogram of error_pct per group, MAPE in the legend
Needs Debian's python3-matplotlib (apt-get install python3-matplotlib); standard library otherwise.
Exit codes: 0 ok, 2 bad input (missing folder/columns), 3 matplotlib missing.
"""
import argparse
import csv
import math
import os
import sys


def fail(code, msg):
    print(f"plot_validation.py: error: {msg}", file=sys.stderr)
    sys.exit(code)


def read_rows(path):
    if not os.path.isfile(path):
        fail(2, f"{path}: not found (run `tcsim validate ... -o DIR` first)")
    with open(path, newline="") as f:
        reader = csv.DictReader(f)
        need = {"name", "group", "measured_us", "predicted_us", "error_pct"}
        missing = need - set(reader.fieldnames or [])
        if missing:
            fail(2, f"{path}: missing columns {', '.join(sorted(missing))}")
        rows = []
        for r in reader:
            if not r["predicted_us"]:
                continue  # not simulated (see its `skipped` column)
            rows.append((r["group"], float(r["measured_us"]), float(r["predicted_us"]), float(r["error_pct"])))
    if not rows:
        fail(2, f"{path}: no simulated rows to plot")
    return rows


def read_metrics(path):
    out = {}
    if os.path.isfile(path):
        with open(path, newline="") as f:
            for r in csv.DictReader(f):
                out[r["group"]] = r
    return out


def main():
    ap = argparse.ArgumentParser(description="Plot `tcsim validate -o OUTDIR` results.")
    ap.add_argument("outdir")
    ap.add_argument("--title", default="")
    args = ap.parse_args()
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        fail(3, f"matplotlib is not importable by {sys.executable}; use Debian's /usr/bin/python3 with "
                "python3-matplotlib "
                "(apt-get install python3-matplotlib)")

    rows = read_rows(os.path.join(args.outdir, "summary.csv"))
    metrics = read_metrics(os.path.join(args.outdir, "metrics.csv"))
    groups = []
    for g, *_ in rows:
        if g not in groups:
            groups.append(g)
    title = args.title or os.path.basename(os.path.normpath(args.outdir))
    overall = metrics.get("all")
    if overall and overall.get("mape_pct"):
        title += f" (MAPE {float(overall['mape_pct']):.1f}%, r_log {float(overall['pearson_log'] or 'nan'):.3f})"

    # Predicted vs measured, log-log.
    fig, ax = plt.subplots(figsize=(6, 6))
    lo = min(min(m, p) for _, m, p, _ in rows)
    hi = max(max(m, p) for _, m, p, _ in rows)
    lo, hi = lo / 1.5, hi * 1.5
    ax.plot([lo, hi], [lo, hi], color="black", linewidth=1, label="predicted = measured")
    ax.plot([lo, hi], [lo * 1.1, hi * 1.1], color="grey", linewidth=0.6, linestyle="--", label="+-10%")
    ax.plot([lo, hi], [lo * 0.9, hi * 0.9], color="grey", linewidth=0.6, linestyle="--")
    for g in groups:
        pts = [(m, p) for gg, m, p, _ in rows if gg == g]
        ax.scatter([m for m, _ in pts], [p for _, p in pts], s=12, label=f"{g} ({len(pts)})")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(lo, hi)
    ax.set_ylim(lo, hi)
    ax.set_xlabel("measured time (us)")
    ax.set_ylabel("predicted time (us)")
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=7)
    ax.grid(True, which="both", linewidth=0.3)
    fig.tight_layout()
    scatter = os.path.join(args.outdir, "predicted_vs_measured.png")
    fig.savefig(scatter + ".tmp.png", dpi=120)
    os.replace(scatter + ".tmp.png", scatter)
    plt.close(fig)

    # Error histogram.
    fig, ax = plt.subplots(figsize=(7, 4))
    errs = [e for *_, e in rows]
    # 5% bins when that gives at most 60 of them, else 60 equal bins over the range.
    lo_e, hi_e = min(errs), max(errs)
    width = 5.0 if (hi_e - lo_e) / 5.0 <= 58 else max((hi_e - lo_e) / 60.0, 1e-9)
    lo_e = math.floor(lo_e / width) * width
    nbins = max(1, min(60, int(math.ceil((hi_e - lo_e) / width)) + 1))
    bins = [lo_e + i * width for i in range(nbins + 1)]
    data, labels = [], []
    for g in groups:
        data.append([e for gg, *_, e in rows if gg == g])
        m = metrics.get(g) or (overall if len(groups) == 1 else None)
        mape = f", MAPE {float(m['mape_pct']):.1f}%" if m and m.get("mape_pct") else ""
        labels.append(f"{g}{mape}")
    ax.hist(data, bins=bins, stacked=True, label=labels)
    ax.axvline(0, color="black", linewidth=1)
    ax.set_xlabel("error (%) = (predicted - measured) / measured")
    ax.set_ylabel("rows")
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=7)
    fig.tight_layout()
    hist = os.path.join(args.outdir, "error_histogram.png")
    fig.savefig(hist + ".tmp.png", dpi=120)
    os.replace(hist + ".tmp.png", hist)
    plt.close(fig)
    print(f"wrote {scatter} and {hist}")


if __name__ == "__main__":
    main()
