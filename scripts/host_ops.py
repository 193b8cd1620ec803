#!/usr/bin/env python3
"""Host (CPU) time per framework op, by op class, in PyTorch profiler (Kineto) traces.

For each trace: the top-level CPU ops of every thread (an op not nested in another one), grouped
by class (convolution, gemm, attention, normalization, view: ops that launch no kernel, and
elementwise: everything else, casts, reductions and copies included), with their count and mean
duration in the profiled step. The profiler slows the host, so where the trace has its
torch_profile.py `_steps.csv` beside it (the CUDA-event-timed steps of the same run) the durations
are also scaled by the median timed step over the profiled ops' total: the host's cost per op in
an unprofiled step, valid where that step is host-bound (the GPU's kernel time, printed, well under
the step). The profiled step's first op also carries the profiler's start (2.4-3.5 ms on the lent H200
VM's traces, which the timed steps do not pay): where it exceeds 1 ms and ten times its class's
median, it counts at that median, and the line says so. The figures of sim/engine/README.md, "Host cost by op class".

usage: scripts/host_ops.py TRACE.json[.xz] ...
"""
import collections
import csv
import json
import lzma
import os
import statistics
import sys

# Checked in order on the lower-cased op name; the first match wins.
CLASSES = [
    ("attention", ("scaled_dot_product", "flash_attention", "efficient_attention", "cudnn_attention")),
    ("convolution", ("conv",)),
    ("normalization", ("batch_norm", "layer_norm", "group_norm", "rms_norm")),
    ("gemm", ("linear", "addmm", "matmul", "baddbmm", "bmm", "aten::mm", "mmbackward")),
    ("view", ("aten::view", "aten::reshape", "aten::slice", "aten::select", "aten::transpose", "aten::permute",
              "aten::unsqueeze", "aten::squeeze", "aten::expand", "aten::alias", "aten::t", "aten::detach",
              "aten::as_strided", "aten::split", "aten::chunk", "aten::flatten", "aten::unflatten",
              "aten::narrow", "aten::unbind", "aten::_unsafe_view", "aten::lift_fresh")),
]
ORDER = ["convolution", "gemm", "attention", "normalization", "elementwise", "view"]


def op_class(name):
    n = name.lower()
    for cls, keys in CLASSES:
        # A view op by its exact name (aten::t is not aten::to); the others by a part of it.
        if any(n == k if cls == "view" else k in n for k in keys):
            return cls
    return "elementwise"


def fail(msg):
    print(f"host_ops.py: error: {msg}", file=sys.stderr)
    sys.exit(2)


def load(path):
    opener = lzma.open if path.endswith(".xz") else open
    try:
        with opener(path, "rt") as f:
            doc = json.load(f)
    except (OSError, EOFError, lzma.LZMAError, UnicodeDecodeError, json.JSONDecodeError) as e:
        fail(f"{path}: cannot read a JSON trace: {e}")
    events = doc.get("traceEvents") if isinstance(doc, dict) else None
    if not isinstance(events, list):
        fail(f"{path}: not a PyTorch profiler trace (no traceEvents list)")
    return events


def timed_step_us(path):
    """Median step of the torch_profile.py `_steps.csv` beside the trace, or None."""
    base = path[:-3] if path.endswith(".xz") else path
    steps = base[:-5] + "_steps.csv" if base.endswith(".json") else None
    if not steps or not os.path.exists(steps):
        return None
    with open(steps) as f:
        rows = list(csv.DictReader(line for line in f if not line.startswith("#")))
    try:
        values = [float(r["step_ms"]) for r in rows]
    except (KeyError, TypeError, ValueError):
        fail(f"{steps}: expected a step_ms column of numbers")
    if not values:
        fail(f"{steps}: no steps")
    return 1000 * statistics.median(values)


def top_level_ops(events):
    ops = [e for e in events if e.get("cat") == "cpu_op" and isinstance(e.get("dur"), (int, float))
           and isinstance(e.get("ts"), (int, float))]
    ops.sort(key=lambda e: (str(e.get("tid")), e["ts"]))
    top, end, tid = [], float("-inf"), object()
    for e in ops:
        if e.get("tid") != tid:
            tid, end = e.get("tid"), float("-inf")
        if e["ts"] >= end:
            top.append(e)
            end = e["ts"] + e["dur"]
    return top


def trim_profiler_start(top, by):
    """Counts the step's first op at its class's median where the profiler's start inflates it."""
    first = min(top, key=lambda e: e["ts"])
    cls = op_class(first["name"])
    durations = by[cls]
    if len(durations) < 3:
        return None
    median = statistics.median(durations)
    if first["dur"] <= max(10 * median, 1000):
        return None
    durations[durations.index(first["dur"])] = median
    return (f"the first op ({first['name']}, {first['dur'] / 1000:.2f} ms: the profiler's start) counts at its "
            f"class's median, {median:.1f} us")


def main(paths):
    if not paths or any(p in ("-h", "--help") for p in paths):
        print(__doc__.strip())
        sys.exit(0 if paths else 2)
    for path in paths:
        events = load(path)
        top = top_level_ops(events)
        if not top:
            fail(f"{path}: no CPU ops (record the trace with ProfilerActivity.CPU)")
        kernel_us = sum(e.get("dur", 0) for e in events if e.get("cat") == "kernel")
        by = collections.defaultdict(list)
        for e in top:
            by[op_class(e["name"])].append(e["dur"])
        note = trim_profiler_start(top, by)
        total = sum(sum(d) for d in by.values())
        step = timed_step_us(path)
        scale = step / total if step else None
        print(f"{os.path.basename(path)}: {len(top)} top-level ops, {total / 1000:.1f} ms of host time profiled, "
              f"GPU kernels {kernel_us / 1000:.1f} ms" +
              (f"; timed step {step / 1000:.2f} ms (median), scale {scale:.2f}" if scale else "; no _steps.csv beside it"))
        if note:
            print(f"  {note}")
        print(f"  {'class':14s} {'ops':>6s} {'us/op profiled':>15s}" + (f" {'us/op scaled':>13s}" if scale else ""))
        for cls in ORDER:
            if cls in by:
                d = by[cls]
                mean = sum(d) / len(d)
                print(f"  {cls:14s} {len(d):6d} {mean:15.1f}" + (f" {mean * scale:13.1f}" if scale else ""))


if __name__ == "__main__":
    main(sys.argv[1:])
