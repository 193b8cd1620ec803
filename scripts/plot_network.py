#!/usr/bin/python3
"""Plots the output folder of `tcsim network -o OUTDIR`.

Usage: scripts/plot_network.py OUTDIR [--title TEXT] [--top N]

Reads OUTDIR/summary.csv (one row per layer: layer, kind, time_us, bound, share_pct ...) and, when
the run used --compare, OUTDIR/compare.csv and OUTDIR/compare_by_kind.csv; writes
  OUTDIR/layers.png    per-layer time (network order), each bar coloured by what bounds the layer;
                       the N most expensive layers are named
  OUTDIR/compare.png   (with --compare) the step time per precision mode, split into GEMM/conv/attention,
                       memory-bound and host wait, with the speedup over the baseline on top; and the
                       time per layer kind in each mode
Needs Debian's python3-matplotlib (apt-get install python3-matplotlib); standard library otherwise.
Exit codes: 0 ok, 2 bad input (missing folder/columns), 3 matplotlib missing.
"""
import argparse
import csv
import os
import sys

BOUND_COLOURS = {
    "tensor": "#1b9e77", "cuda_core": "#66a61e", "compute": "#1b9e77", "shared_memory": "#e6ab02",
    "l2": "#7570b3", "l2_atomics": "#b2abd2", "dram": "#d95f02", "memory": "#d95f02", "latency": "#a6761d", "host": "#e7298a",
}


def fail(code, msg):
    print(f"plot_network.py: error: {msg}", file=sys.stderr)
    sys.exit(code)


def read_csv(path, need):
    if not os.path.isfile(path):
        fail(2, f"{path}: not found (run `tcsim network ... -o DIR` first)")
    with open(path, newline="") as f:
        reader = csv.DictReader(f)
        missing = set(need) - set(reader.fieldnames or [])
        if missing:
            fail(2, f"{path}: missing columns {', '.join(sorted(missing))}")
        return list(reader)


def plot_layers(plt, rows, out, title, top):
    rows = [r for r in rows if r["bound"]]  # views (flatten, reshape) run no kernel
    times = [float(r["time_us"] or 0) / 1e3 for r in rows]
    colours = [BOUND_COLOURS.get(r["bound"], "#999999") for r in rows]
    fig, ax = plt.subplots(figsize=(max(8, min(24, len(rows) * 0.08)), 5))
    ax.bar(range(len(rows)), times, color=colours, width=0.9)
    ax.set_xlabel("layer (network order)")
    ax.set_ylabel("time per step (ms)")
    ax.set_title(title)
    order = sorted(range(len(rows)), key=lambda i: -times[i])[:top]
    for i in order:
        ax.annotate(rows[i]["layer"], (i, times[i]), fontsize=7, rotation=60, ha="left", va="bottom")
    seen = sorted({r["bound"] for r in rows})
    handles = [plt.Rectangle((0, 0), 1, 1, color=BOUND_COLOURS.get(b, "#999999")) for b in seen]
    ax.legend(handles, seen, title="bound", fontsize=8)
    fig.tight_layout()
    path = os.path.join(out, "layers.png")
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def plot_compare(plt, modes, kinds, out, title):
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(13, 5))
    names = [m["precision"] for m in modes]
    parts = [("gemm_conv_attention_us", "GEMM / conv / attention", "#1b9e77"),
             ("memory_bound_us", "memory-bound", "#d95f02"), ("host_wait_us", "host wait", "#e7298a")]
    bottom = [0.0] * len(modes)
    for col, label, colour in parts:
        vals = [max(0.0, float(m[col] or 0)) / 1e3 for m in modes]
        ax1.bar(names, vals, bottom=bottom, label=label, color=colour)
        bottom = [b + v for b, v in zip(bottom, vals)]
    for i, m in enumerate(modes):
        ax1.annotate(f"{float(m['speedup']):.2f}x", (i, bottom[i]), ha="center", va="bottom", fontsize=9)
    ax1.set_ylabel("time per step (ms)")
    ax1.set_title("step time per precision")
    ax1.legend(fontsize=8)
    if kinds:
        kind_names = [k["kind"] for k in kinds]
        width = 0.8 / max(1, len(names))
        for j, n in enumerate(names):
            vals = [float(k.get(f"{n}_time_us") or 0) / 1e3 for k in kinds]
            ax2.bar([i + j * width for i in range(len(kinds))], vals, width=width, label=n)
        ax2.set_xticks([i + 0.4 - width / 2 for i in range(len(kinds))])
        ax2.set_xticklabels(kind_names, rotation=60, ha="right", fontsize=8)
        ax2.set_ylabel("time per step (ms)")
        ax2.set_title("per layer kind")
        ax2.legend(fontsize=8)
    fig.suptitle(title)
    fig.tight_layout()
    path = os.path.join(out, "compare.png")
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("outdir")
    ap.add_argument("--title", default="")
    ap.add_argument("--top", type=int, default=8, help="name the N most expensive layers")
    a = ap.parse_args()
    if not os.path.isdir(a.outdir):
        fail(2, f"{a.outdir}: not a folder")
    rows = read_csv(os.path.join(a.outdir, "summary.csv"), ["layer", "kind", "time_us", "bound"])
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        fail(3, "matplotlib is missing: apt-get install python3-matplotlib")
    title = a.title
    if not title:
        totals = os.path.join(a.outdir, "totals.csv")
        if os.path.isfile(totals):
            t = read_csv(totals, ["network", "accelerator", "pass", "precision", "batch"])[0]
            title = f"{t['network']} on {t['accelerator']}: {t['pass']}, batch {t['batch']}"
            if not os.path.isfile(os.path.join(a.outdir, "compare.csv")):
                title += f", {t['precision']}"
    written = [plot_layers(plt, rows, a.outdir, title, a.top)]
    compare = os.path.join(a.outdir, "compare.csv")
    if os.path.isfile(compare):
        modes = read_csv(compare, ["precision", "speedup", "gemm_conv_attention_us", "memory_bound_us", "host_wait_us"])
        by_kind = os.path.join(a.outdir, "compare_by_kind.csv")
        kinds = read_csv(by_kind, ["kind"]) if os.path.isfile(by_kind) else []
        written.append(plot_compare(plt, modes, kinds, a.outdir, title))
    for w in written:
        print(w)


if __name__ == "__main__":
    main()
