#!/usr/bin/python3
"""Time against energy over several `tcsim network -o DIR` runs, with the Pareto front.

Usage: scripts/plot_pareto.py OUT.png DIR [DIR ...] [--title TEXT] [--csv OUT.csv]

Each DIR is the output folder of one `tcsim network ... -o DIR` run (a single precision: totals.csv;
--compare: compare.csv, one point per precision). The point's label is the config's name and power
limit (DIR/config.resolved.yaml) and the precision. Plots the step time (x) against the energy per
sample or token (y); the points no other point beats in both (the Pareto front) are joined and
listed on stdout, with performance per watt. --csv also writes every point.
Needs Debian's python3-matplotlib (apt-get install python3-matplotlib); standard library otherwise.
Exit codes: 0 ok, 2 bad input (missing folder/columns, no energy columns), 3 matplotlib missing.
"""
import argparse
import csv
import os
import sys


def fail(code, msg):
    print(f"plot_pareto.py: error: {msg}", file=sys.stderr)
    sys.exit(code)


def read_rows(path, need):
    with open(path, newline="") as f:
        reader = csv.DictReader(f)
        missing = set(need) - set(reader.fieldnames or [])
        if missing:
            fail(2, f"{path}: missing columns {', '.join(sorted(missing))} (energy needs a GPU config with a power: section)")
        return list(reader)


def config_label(folder):
    """'A100-SXM4-40GB 250W' from the resolved config (name, and power.limit when given)."""
    path = os.path.join(folder, "config.resolved.yaml")
    if not os.path.isfile(path):
        fail(2, f"{path}: not found (run `tcsim network ... -o {folder}` first)")
    name, limit, section = "", "", ""
    with open(path) as f:
        for line in f:
            text = line.split("#", 1)[0].rstrip()
            if not text:
                continue
            if not line.startswith(" "):
                section = text.split(":", 1)[0]
                if section == "name":
                    name = text.split(":", 1)[1].strip()
            elif section == "power" and text.strip().startswith("limit:"):
                limit = text.split(":", 1)[1].strip()
    return f"{name} {limit}".strip()


def points_of(folder):
    if not os.path.isdir(folder):
        fail(2, f"{folder}: not a folder (run `tcsim network ... -o {folder}` first)")
    label = config_label(folder)
    need = ["precision", "step_time_us", "energy_j", "energy_per_item_mj", "throughput"]
    compare = os.path.join(folder, "compare.csv")
    rows = read_rows(compare if os.path.isfile(compare) else os.path.join(folder, "totals.csv"), need)
    out = []
    for r in rows:
        time_us, energy = float(r["step_time_us"]), float(r["energy_j"])
        out.append({"config": label, "precision": r["precision"], "step_time_ms": time_us / 1e3, "energy_j": energy,
                    "energy_per_item_mj": float(r["energy_per_item_mj"]), "throughput": float(r["throughput"]),
                    "avg_power_w": energy / (time_us / 1e6) if time_us > 0 else 0.0, "folder": folder})
    return out


def pareto(points):
    """Points no other point beats in both step time and energy (ties kept once), fastest first."""
    front = []
    for p in sorted(points, key=lambda p: (p["step_time_ms"], p["energy_per_item_mj"])):
        if not front or p["energy_per_item_mj"] < front[-1]["energy_per_item_mj"]:
            front.append(p)
    return front


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("output")
    ap.add_argument("folders", nargs="+")
    ap.add_argument("--title", default="")
    ap.add_argument("--csv", default="")
    a = ap.parse_args()
    points = [p for folder in a.folders for p in points_of(folder)]
    front = pareto(points)
    print("Pareto front (step time vs energy per item):")
    for p in front:
        print(f"  {p['config']:<28} {p['precision']:<9} {p['step_time_ms']:9.2f} ms  {p['energy_per_item_mj']:9.3f} mJ"
              f"  {p['avg_power_w']:6.0f} W  {p['throughput'] / max(p['avg_power_w'], 1e-9):8.3f} items/J")
    if a.csv:
        tmp = a.csv + ".tmp"
        with open(tmp, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(points[0].keys()) + ["pareto"])
            w.writeheader()
            for p in points:
                w.writerow({**p, "pareto": int(any(p is q for q in front))})
        os.replace(tmp, a.csv)
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        fail(3, "matplotlib is missing: apt-get install python3-matplotlib")
    fig, ax = plt.subplots(figsize=(8, 5.5))
    precisions = sorted({p["precision"] for p in points})
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for i, prec in enumerate(precisions):
        ps = [p for p in points if p["precision"] == prec]
        ax.scatter([p["step_time_ms"] for p in ps], [p["energy_per_item_mj"] for p in ps], s=36,
                   color=colours[i % len(colours)], label=prec, zorder=3)
        for p in ps:
            ax.annotate(p["config"], (p["step_time_ms"], p["energy_per_item_mj"]), fontsize=7,
                        xytext=(4, 3), textcoords="offset points")
    ax.plot([p["step_time_ms"] for p in front], [p["energy_per_item_mj"] for p in front], "k--", lw=1,
            label="Pareto front", zorder=2)
    ax.set_xlabel("step time (ms)")
    ax.set_ylabel("energy per sample or token (mJ)")
    ax.set_title(a.title or "time against energy")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    tmp = a.output + ".tmp.png"
    fig.savefig(tmp, dpi=110)
    os.replace(tmp, a.output)
    print(f"wrote {a.output}")


if __name__ == "__main__":
    main()
