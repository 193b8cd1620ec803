#!/usr/bin/env python3
"""Bandwidth of cuDNN's layout conversions (nchwToNhwcKernel / nhwcToNchwKernel) in PyTorch profiler
traces: each conversion kernel is matched to the tensor of its convolution call whose 32 x 32 tile
grid, [ceil(H*W / 32), ceil(C / 32), N], it has; its rate is 2 x the tensor's bytes / its duration.
Prints the median per element size and tensor size class (the figures of sim/gpu/README.md,
"Layout transposes": fp16 ~2.05 TB/s, fp32 ~2.75 on the H100).

Usage:
  xz -dk validation/measured/H100/conv_deepbench/deepbench_conv_{fp16,tf32,fp32}_nchw.json.xz
  /usr/bin/python3 scripts/layout_conversion_rates.py validation/measured/H100/conv_deepbench/deepbench_conv_*_nchw.json
Standard library only.
"""
import collections
import json
import statistics
import sys

ELEMENT_BYTES = {"float": 4, "c10::Half": 2, "c10::BFloat16": 2}


def cdiv(a, b):
    return (a + b - 1) // b


def rates(path):
    events = json.load(open(path))["traceEvents"]
    calls = {}
    for e in events:
        if e.get("cat") == "cpu_op" and "convolution" in e["name"]:
            a = e.get("args", {})
            calls[a.get("External id")] = (a.get("Input Dims") or [], a.get("Input type") or [])
    for e in events:
        if e.get("cat") != "kernel" or not ("nchwToNhwc" in e["name"] or "nhwcToNchw" in e["name"]):
            continue
        a = e.get("args", {})
        dims, types = calls.get(a.get("External id"), ([], []))
        for i, t in enumerate(dims):
            if isinstance(t, list) and len(t) == 4 and [cdiv(t[2] * t[3], 32), cdiv(t[1], 32), t[0]] == a.get("grid"):
                eb = ELEMENT_BYTES.get(types[i] if i < len(types) else "", 0)
                if eb == 0 or e["dur"] <= 0:
                    break
                tensor = t[0] * t[1] * t[2] * t[3] * eb
                yield eb, tensor, 2 * tensor / e["dur"] / 1e6  # TB/s (dur in us)
                break


def main(paths):
    if not paths:
        print(__doc__, file=sys.stderr)
        return 2
    groups = collections.defaultdict(list)
    for p in paths:
        for eb, tensor, tbs in rates(p):
            size = "small (< 4 MB)" if tensor < 4e6 else "mid (4-25 MB)" if tensor < 25e6 else "big (>= 25 MB)"
            groups[(eb, size)].append(tbs)
    print(f"{'element_bytes':>13} {'tensor':>15} {'kernels':>7} {'median_tb_per_s':>15}")
    for (eb, size), v in sorted(groups.items()):
        print(f"{eb:>13} {size:>15} {len(v):>7} {statistics.median(v):>15.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
