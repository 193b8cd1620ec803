#!/usr/bin/env python3
"""Profiles DeepBench's training convolutions on this GPU: the forward pass, the data gradient and the
weight gradient of each shape, each pass alone, in the formats `tcsim validate` reads.

Runs only on a machine with an NVIDIA GPU and PyTorch; it is not part of tcsim's tests.

  python3 validation/gpu/conv_profile.py --shapes ../shared/data/deepbench/v100_train_fp16_convolution.csv \\
      --out /tmp/conv [--modes fp16_nchw,fp16_nhwc,fp32_nchw,tf32_nchw] [--budget 400]

Only the shapes of the CSV are used (W, H, C, N, K, R, S, padding, stride; its V100 times are not
read). Each pass is one ATen call: `aten::convolution` for the forward pass and
`aten::convolution_backward` with output_mask [True, False, False] (data gradient) or
[False, True, False] (weight gradient), so every call in the trace is one pass and the profile
records which (its "Concrete Inputs").

Modes: fp16_nchw and fp16_nhwc (FP16 tensors, NCHW or channels_last), fp32_nchw (TF32 off: the
CUDA cores, DeepBench's FP32), tf32_nchw (FP32 tensors, TF32 on), bf16_nhwc, and fp16_nhwc_bench
(channels_last FP16 with cudnn.benchmark on: the autotuned pick instead of the heuristic's). All
other modes leave cudnn.benchmark off (PyTorch's default: cuDNN's heuristic picks the kernel).
Modes run in the order given; one that would start with less than a minute of --budget left is
skipped and says so.

Writes, per mode, OUT/deepbench_conv_<mode>.json (Chrome trace, record_shapes=True; each pass
called --reps times back to back) and OUT/deepbench_conv_times.csv: per shape, mode and pass the
time of one call from CUDA events around --event-calls back-to-back calls (DeepBench's own method
timed 300 calls with a host timer), plus OUT/meta.yaml (GPU, driver, PyTorch, cuDNN).
Exit codes: 0 ok, 2 bad options or input, 3 no CUDA device.
"""
import argparse
import csv
import os
import sys
import time

from torch_meta import meta_header

MODES = {  # name: (dtype name, channels_last, allow_tf32, cudnn.benchmark)
    "fp16_nchw": ("float16", False, False, False),
    "fp16_nhwc": ("float16", True, False, False),
    "fp32_nchw": ("float32", False, False, False),
    "tf32_nchw": ("float32", False, True, False),
    "bf16_nhwc": ("bfloat16", True, False, False),
    "fp16_nhwc_bench": ("float16", True, False, True),
}
PASSES = ("fwd", "dgrad", "wgrad")


def read_shapes(path):
    need = ["source", "W", "H", "C", "N", "K", "S (Filter width)", "R (Filter height)", "pad_w", "pad_h",
            "Horizontal stride", "Vertical stride"]
    shapes = []
    try:
        with open(path, newline="") as f:
            reader = csv.DictReader(f)
            missing = [k for k in need if k not in (reader.fieldnames or [])]
            if missing:
                print(f"conv_profile: error: {path}:1: missing columns {missing}", file=sys.stderr)
                sys.exit(2)
            for line, r in enumerate(reader, start=2):
                try:
                    s = dict(source=r["source"], N=int(r["N"]), C=int(r["C"]), H=int(r["H"]), W=int(r["W"]),
                             K=int(r["K"]), R=int(r["R (Filter height)"]), S=int(r["S (Filter width)"]),
                             pad_h=int(r["pad_h"]), pad_w=int(r["pad_w"]), stride_h=int(r["Vertical stride"]),
                             stride_w=int(r["Horizontal stride"]))
                except ValueError as e:
                    print(f"conv_profile: error: {path}:{line}: {e}", file=sys.stderr)
                    sys.exit(2)
                s["P"] = (s["H"] + 2 * s["pad_h"] - s["R"]) // s["stride_h"] + 1
                s["Q"] = (s["W"] + 2 * s["pad_w"] - s["S"]) // s["stride_w"] + 1
                if min(s["N"], s["C"], s["K"], s["R"], s["S"], s["P"], s["Q"]) < 1:
                    print(f"conv_profile: error: {path}:{line}: inconsistent shape {s}", file=sys.stderr)
                    sys.exit(2)
                shapes.append(s)
    except OSError as e:
        print(f"conv_profile: error: {path}: {e.strerror}", file=sys.stderr)
        sys.exit(2)
    return shapes


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--shapes", required=True, help="DeepBench convolution CSV (only its shapes are read)")
    ap.add_argument("--out", required=True)
    ap.add_argument("--modes", default="fp16_nchw,fp16_nhwc,fp32_nchw,tf32_nchw")
    ap.add_argument("--reps", type=int, default=2, help="profiled calls of each pass")
    ap.add_argument("--event-calls", type=int, default=10, help="back-to-back calls timed with CUDA events")
    ap.add_argument("--budget", type=float, default=600, help="seconds; later modes are skipped past it")
    args = ap.parse_args()
    modes = [m for m in args.modes.split(",") if m]
    bad = [m for m in modes if m not in MODES]
    if bad or not modes:
        ap.error(f"unknown mode(s) {bad}; known: {', '.join(MODES)}")
    if args.reps < 1 or args.event_calls < 1:
        ap.error("--reps and --event-calls must be >= 1")
    shapes = read_shapes(args.shapes)
    start = time.time()

    import torch
    from torch.profiler import profile, ProfilerActivity
    if not torch.cuda.is_available():
        print("conv_profile: no CUDA device", file=sys.stderr)
        sys.exit(3)
    os.makedirs(args.out, exist_ok=True)
    dev = torch.device("cuda")
    with open(os.path.join(args.out, "meta.yaml"), "w") as f:
        f.write(meta_header(torch) +
                f"cudnn: {torch.backends.cudnn.version()}\nshapes: \"{os.path.basename(args.shapes)}\"\n"
                f"reps: {args.reps}\nevent_calls: {args.event_calls}\n")

    times_path = os.path.join(args.out, "deepbench_conv_times.csv")
    new_file = not os.path.exists(times_path)
    times = open(times_path, "a", newline="")
    tw = csv.writer(times)
    if new_file:
        tw.writerow(["mode", "index", "source", "N", "C", "H", "W", "K", "R", "S", "pad_h", "pad_w", "stride_h",
                     "stride_w", "pass", "event_us"])

    for mode in modes:
        left = args.budget - (time.time() - start)
        if left < 60:
            print(f"[{time.time() - start:.0f}s] SKIPPED {mode} (only {left:.0f}s of the budget left)", flush=True)
            continue
        dtype_name, nhwc, tf32, bench = MODES[mode]
        dtype = getattr(torch, dtype_name)
        torch.backends.cudnn.benchmark = bench
        torch.backends.cudnn.allow_tf32 = tf32
        torch.backends.cuda.matmul.allow_tf32 = tf32
        fmt = torch.channels_last if nhwc else torch.contiguous_format
        calls = []  # (shape index, pass, fn)
        gen = torch.Generator(device=dev).manual_seed(1)
        for i, s in enumerate(shapes):
            x = torch.randn(s["N"], s["C"], s["H"], s["W"], device=dev, generator=gen).to(dtype).contiguous(memory_format=fmt)
            w = torch.randn(s["K"], s["C"], s["R"], s["S"], device=dev, generator=gen).to(dtype).contiguous(memory_format=fmt)
            gy = torch.randn(s["N"], s["K"], s["P"], s["Q"], device=dev, generator=gen).to(dtype).contiguous(memory_format=fmt)
            stride, pad = [s["stride_h"], s["stride_w"]], [s["pad_h"], s["pad_w"]]
            conv = torch.ops.aten.convolution
            back = torch.ops.aten.convolution_backward
            calls.append((i, "fwd", lambda x=x, w=w, st=stride, p=pad: conv(x, w, None, st, p, [1, 1], False, [0, 0], 1)))
            calls.append((i, "dgrad", lambda x=x, w=w, g=gy, st=stride, p=pad:
                          back(g, x, w, None, st, p, [1, 1], False, [0, 0], 1, [True, False, False])))
            calls.append((i, "wgrad", lambda x=x, w=w, g=gy, st=stride, p=pad:
                          back(g, x, w, None, st, p, [1, 1], False, [0, 0], 1, [False, True, False])))
        torch.cuda.synchronize()
        failed = set()
        for i, p, fn in calls:  # warm-up: plans, heuristics (and autotuning in the _bench mode)
            try:
                fn(); fn()
            except RuntimeError as e:
                failed.add((i, p))
                print(f"conv_profile: {mode} shape {i} {p}: {str(e).splitlines()[0]}", file=sys.stderr)
        torch.cuda.synchronize()
        ev0, ev1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        for i, p, fn in calls:
            if (i, p) in failed:
                continue
            ev0.record()
            for _ in range(args.event_calls):
                fn()
            ev1.record()
            ev1.synchronize()
            s = shapes[i]
            tw.writerow([mode, i, s["source"], s["N"], s["C"], s["H"], s["W"], s["K"], s["R"], s["S"], s["pad_h"],
                         s["pad_w"], s["stride_h"], s["stride_w"], p,
                         f"{ev0.elapsed_time(ev1) * 1000.0 / args.event_calls:.3f}"])
        times.flush()
        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], record_shapes=True) as prof:
            for i, p, fn in calls:
                if (i, p) in failed:
                    continue
                for _ in range(args.reps):
                    fn()
            torch.cuda.synchronize()
        path = os.path.join(args.out, f"deepbench_conv_{mode}.json")
        prof.export_chrome_trace(path)
        print(f"[{time.time() - start:.0f}s] {mode}: {len(calls) - len(failed)} passes, {len(failed)} failed -> {path}",
              flush=True)
        del calls
        torch.cuda.empty_cache()
    times.close()


if __name__ == "__main__":
    main()
