#!/usr/bin/python3
"""PNG plots of a `tcsim sweep -o DIR` folder: a line plot per axis, a heat map of two axes, and
Pareto fronts of time against a cost (peak TFLOP/s, SRAM bytes, DRAM bandwidth) and against energy.

Usage: scripts/plot_sweep.py DIR [--out OUTDIR] [--metric step_time_s] [--workload NAME]
                             [--cost peak_tflops|sram_bytes|dram_bandwidth_bytes_per_s]... [--heatmap AXIS1,AXIS2]

Reads DIR/results.h5 (table /points) with h5py when it is installed, else DIR/summary.csv (the
same table). For each workload it writes into OUTDIR (default DIR):
  <workload>_line_<axis>.png    the metric against each axis (one line per combination of the
                                other axes when there are at most 8, else their min-max band)
  <workload>_heatmap_<a>_<b>.png the metric over two axes (the best over the other axes)
  <workload>_pareto_<cost>.png  the metric against each cost column; the front no point beats in both
  <workload>_pareto_energy.png  the metric against energy per step (GPU configs with a power: section)
and prints the Pareto fronts on stdout. Rows whose status is not ok are left out.
Needs Debian's python3-matplotlib; h5py (python3-h5py) is optional.
Exit codes: 0 ok, 2 bad input (no sweep folder, unknown metric/axis/cost), 3 matplotlib missing.
"""
import argparse
import csv
import math
import os
import re
import sys

COSTS = ["peak_tflops", "sram_bytes", "dram_bandwidth_bytes_per_s"]
FIXED = {"point", "workload", "status", "item"}


def fail(code, msg):
    print(f"plot_sweep.py: error: {msg}", file=sys.stderr)
    sys.exit(code)


def number(text):
    try:
        v = float(text)
        return v if math.isfinite(v) else None
    except (TypeError, ValueError):
        return None


def read_table(folder):
    """(columns, rows as dicts of text) from results.h5 when h5py is there, else summary.csv."""
    h5 = os.path.join(folder, "results.h5")
    try:
        import h5py  # noqa: F401  (optional)
    except ImportError:
        h5py = None
    if h5py is not None and os.path.isfile(h5):
        with h5py.File(h5, "r") as f:
            g = f["points"]
            cols = [c.decode() if isinstance(c, bytes) else str(c) for c in g.attrs["columns"]]
            data = {}
            for c in cols:
                vals = g[c][()]
                data[c] = [v.decode() if isinstance(v, bytes) else ("" if isinstance(v, float) and math.isnan(v) else repr(float(v)) if not isinstance(v, str) else v) for v in vals]
            n = len(data[cols[0]]) if cols else 0
            return cols, [{c: data[c][i] for c in cols} for i in range(n)]
    path = os.path.join(folder, "summary.csv")
    if not os.path.isfile(path):
        fail(2, f"{folder}: no summary.csv or results.h5 (run `tcsim sweep SPEC -o {folder}` to the end first)")
    with open(path, newline="") as f:
        reader = csv.DictReader(f)
        return list(reader.fieldnames or []), list(reader)


def axes_of(cols):
    """Axis columns: between workload and status, without their _si twins."""
    if "workload" not in cols or "status" not in cols:
        fail(2, "not a tcsim sweep table (no workload/status columns)")
    mid = cols[cols.index("workload") + 1:cols.index("status")]
    return [c for c in mid if not (c.endswith("_si") and c[:-3] in mid)], set(mid)


def axis_value(row, axis, cols):
    """(sort key, tick label, numeric x or None)."""
    si = number(row.get(axis + "_si")) if axis + "_si" in cols else None
    return (0, si, row[axis]) if si is not None else (1, 0, row[axis])


def safe(name):
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name)


def pareto(points):
    """(x, y, label) with both minimised: the points no other beats in both, by x."""
    front = []
    for p in sorted(points):
        if not front or p[1] < front[-1][1]:
            front.append(p)
    return front


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dir")
    ap.add_argument("--out")
    ap.add_argument("--metric", default="step_time_s")
    ap.add_argument("--workload")
    ap.add_argument("--cost", action="append")
    ap.add_argument("--heatmap")
    a = ap.parse_args()
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        fail(3, "matplotlib is missing (apt-get install python3-matplotlib; run with /usr/bin/python3)")
    if not os.path.isdir(a.dir):
        fail(2, f"{a.dir}: not a folder")
    cols, rows = read_table(a.dir)
    axes, axis_cols = axes_of(cols)
    if a.metric not in cols:
        fail(2, f"metric '{a.metric}' is not a column; expected one of {', '.join(c for c in cols if c not in FIXED and c not in axis_cols)}")
    costs = a.cost or [c for c in COSTS if c in cols]
    for c in costs:
        if c not in cols:
            fail(2, f"cost '{c}' is not a column (the spec's metrics: must record it)")
    out = a.out or a.dir
    os.makedirs(out, exist_ok=True)
    rows = [r for r in rows if r.get("status") == "ok" and number(r.get(a.metric)) is not None]
    workloads = sorted({r["workload"] for r in rows})
    if a.workload:
        if a.workload not in workloads:
            fail(2, f"no workload '{a.workload}' (have {', '.join(workloads)})")
        workloads = [a.workload]
    written = []

    def save(fig, name):
        path = os.path.join(out, name)
        fig.tight_layout()
        fig.savefig(path, dpi=110)
        plt.close(fig)
        written.append(path)

    for w in workloads:
        wr = [r for r in rows if r["workload"] == w]
        item = wr[0].get("item", "") if wr else ""
        ylabel = f"{a.metric} ({w})"
        # One line plot per axis.
        for ax_name in axes:
            others = [o for o in axes if o != ax_name]
            groups = {}
            for r in wr:
                key = ", ".join(f"{o}={r[o]}" for o in others)
                groups.setdefault(key, []).append((axis_value(r, ax_name, cols), number(r[a.metric])))
            ticks = sorted({v for g in groups.values() for v, _ in g})
            xs = {t: i for i, t in enumerate(ticks)}
            numeric = all(t[0] == 0 for t in ticks)
            fig, axp = plt.subplots(figsize=(7, 4.5))
            xpos = (lambda t: t[1]) if numeric else (lambda t: xs[t])
            if len(groups) <= 8:
                for key, pts in sorted(groups.items()):
                    pts.sort()
                    axp.plot([xpos(t) for t, _ in pts], [y for _, y in pts], marker="o", label=key or w)
                if len(groups) > 1:
                    axp.legend(fontsize=7)
            else:
                by_x = {}
                for pts in groups.values():
                    for t, y in pts:
                        by_x.setdefault(t, []).append(y)
                tx = sorted(by_x)
                axp.fill_between([xpos(t) for t in tx], [min(by_x[t]) for t in tx], [max(by_x[t]) for t in tx], alpha=0.25,
                                 label=f"min-max over {len(groups)} combinations of the other axes")
                axp.plot([xpos(t) for t in tx], [min(by_x[t]) for t in tx], marker="o", label="best")
                axp.legend(fontsize=7)
            if not numeric:
                axp.set_xticks(range(len(ticks)))
                axp.set_xticklabels([t[2] for t in ticks])
            elif len({t[1] for t in ticks}) > 2 and ticks[-1][1] / max(ticks[0][1], 1e-300) > 20:
                axp.set_xscale("log")
            axp.set_xlabel(ax_name)
            axp.set_ylabel(ylabel)
            axp.set_title(f"{w}: {a.metric} against {ax_name}")
            axp.grid(alpha=0.3)
            save(fig, f"{safe(w)}_line_{safe(ax_name)}.png")
        # Heat map of two axes (the best value over the rest).
        if len(axes) >= 2:
            pair = a.heatmap.split(",") if a.heatmap else axes[:2]
            if len(pair) != 2 or any(p not in axes for p in pair):
                fail(2, f"--heatmap expects two axes of {', '.join(axes)}")
            xa, ya = pair
            xt = sorted({axis_value(r, xa, cols) for r in wr})
            yt = sorted({axis_value(r, ya, cols) for r in wr})
            grid = [[math.nan] * len(xt) for _ in yt]
            for r in wr:
                i, j = yt.index(axis_value(r, ya, cols)), xt.index(axis_value(r, xa, cols))
                v = number(r[a.metric])
                grid[i][j] = v if math.isnan(grid[i][j]) else min(grid[i][j], v)
            fig, axp = plt.subplots(figsize=(1.2 * len(xt) + 3, 0.6 * len(yt) + 2.5))
            im = axp.imshow(grid, origin="lower", aspect="auto", cmap="viridis_r")
            axp.set_xticks(range(len(xt)))
            axp.set_xticklabels([t[2] for t in xt])
            axp.set_yticks(range(len(yt)))
            axp.set_yticklabels([t[2] for t in yt])
            for i in range(len(yt)):
                for j in range(len(xt)):
                    if not math.isnan(grid[i][j]):
                        light = im.norm(grid[i][j]) < 0.5  # viridis_r: low values are yellow
                        axp.text(j, i, f"{grid[i][j]:.3g}", ha="center", va="center", fontsize=8, color="k" if light else "w")
            axp.set_xlabel(xa)
            axp.set_ylabel(ya)
            fig.colorbar(im, ax=axp, label=a.metric + (" (best over the other axes)" if len(axes) > 2 else ""))
            axp.set_title(f"{w}: {a.metric}")
            save(fig, f"{safe(w)}_heatmap_{safe(xa)}_{safe(ya)}.png")
        # Pareto fronts: the metric against each cost, and against energy.
        fronts = [(c, c) for c in costs]
        if "energy_j" in cols and any(number(r.get("energy_j")) is not None for r in wr):
            fronts.append(("energy_j", "energy"))
        for col, tag in fronts:
            pts = []
            for r in wr:
                x, y = number(r.get(col)), number(r[a.metric])
                if x is not None:
                    pts.append((y, x, ", ".join(f"{o}={r[o]}" for o in axes)) if tag == "energy" else (x, y, ", ".join(f"{o}={r[o]}" for o in axes)))
            if not pts:
                continue
            front = pareto(pts)
            fig, axp = plt.subplots(figsize=(7, 4.5))
            if tag == "energy":  # time on x, energy on y: both minimised
                axp.scatter([p[0] for p in pts], [p[1] for p in pts], s=14, alpha=0.5, label="points")
                axp.plot([p[0] for p in front], [p[1] for p in front], "r-o", ms=5, label="Pareto front")
                axp.set_xlabel(a.metric)
                axp.set_ylabel("energy_j per step")
            else:  # cost on x, time on y
                axp.scatter([p[0] for p in pts], [p[1] for p in pts], s=14, alpha=0.5, label="points")
                axp.plot([p[0] for p in front], [p[1] for p in front], "r-o", ms=5, label="Pareto front")
                axp.set_xlabel(col)
                axp.set_ylabel(ylabel)
            axp.set_title(f"{w}: {a.metric} against {'energy' if tag == 'energy' else col}")
            axp.grid(alpha=0.3)
            axp.legend(fontsize=8)
            save(fig, f"{safe(w)}_pareto_{safe(tag)}.png")
            print(f"{w}: Pareto front of {a.metric} against {col} ({item}):")
            for p in front:
                print(f"  {p[0]:.4g} {p[1]:.4g}  {p[2]}")
    for p in written:
        print("wrote", p)


if __name__ == "__main__":
    main()
