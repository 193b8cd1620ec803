#!/usr/bin/env python3
"""Stream gaps in PyTorch profiler (Kineto) traces: for each pair of consecutive kernels on one
stream whose second launch call returned before the first kernel ended (the second was queued),
the time from the first kernel's end to the second's start. Prints the count, median and mean,
overall and by launch API, per trace and over all of them (kernel.queue_gap in configs/gpu/h100.yaml
and h200.yaml is the overall median; sim/gpu/README.md, "Stream gaps between eager launches").
With --graphs, every same-stream pair of a CUDA-graph trace (no per-kernel launch calls).

usage: scripts/trace_gaps.py [--graphs] TRACE.json[.xz] ...
"""
import collections
import json
import lzma
import statistics
import sys


def load(path):
    opener = lzma.open if path.endswith(".xz") else open
    with opener(path, "rt") as f:
        return json.load(f)["traceEvents"]


def kernel_gaps(events, graphs):
    kernels = sorted((e for e in events if e.get("cat") == "kernel"), key=lambda e: e["ts"])
    launches = {}
    for e in events:
        if e.get("cat") in ("cuda_runtime", "cuda_driver"):
            c = e.get("args", {}).get("correlation")
            if c is not None:
                launches[c] = e
    gaps = collections.defaultdict(list)
    for a, b in zip(kernels, kernels[1:]):
        if a["args"].get("stream") != b["args"].get("stream"):
            continue
        end = a["ts"] + a["dur"]
        if graphs:
            gaps["graph"].append(b["ts"] - end)
            continue
        call = launches.get(b["args"].get("correlation"))
        if call is None or call["ts"] + call["dur"] >= end - 0.5:
            continue  # not queued: the GPU waited for the host
        gaps[call["name"]].append(b["ts"] - end)
        gaps["all"].append(b["ts"] - end)
    return gaps


def line(name, gaps):
    parts = [f"{api} {len(v)} median {statistics.median(v):.2f} mean {sum(v) / len(v):.2f}"
             for api, v in sorted(gaps.items()) if v]
    return f"{name}: " + "; ".join(parts) + " (us)"


def main(argv):
    graphs = "--graphs" in argv
    paths = [a for a in argv if a != "--graphs"]
    if not paths:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    total = collections.defaultdict(list)
    for p in paths:
        try:
            g = kernel_gaps(load(p), graphs)
        except (OSError, ValueError, KeyError, lzma.LZMAError) as e:
            print(f"trace_gaps.py: {p}: not a readable Kineto trace ({e})", file=sys.stderr)
            return 2
        print(line(p, g))
        for k, v in g.items():
            total[k] += v
    if len(paths) > 1:
        print(line("all traces", total))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
