#!/usr/bin/env python3
"""What one small kernel costs on this GPU, three ways: its own duration (the profiler's CUPTI
record, what `tcsim validate` sums from a trace), its share of a GPU-bound stream (a CUDA graph of
back-to-back launches: no host in the way), and its share of an eager stream (the host launching
each kernel, as a PyTorch program or a host-timed benchmark loop does).

Runs only on a machine with an NVIDIA GPU and PyTorch; not part of tcsim's tests.

  python3 validation/gpu/kernel_floor.py --out OUT [--calls 2000]

Kernels: a one-element add (the emptiest kernel PyTorch launches), device-to-device copies of
64 KiB to 64 MiB (fp16 copy_, which PyTorch runs as cudaMemcpyAsync), and cuDNN convolutions on NCHW fp16 tensors (three or four kernels per
call: layout transposes around an NHWC kernel) and on channels-last ones (one kernel).
Writes OUT/kernel_floor.csv (case, kernels_per_call, cupti_us_per_call (median over calls of the
summed kernel durations), graph_us_per_call, eager_us_per_call) and OUT/meta.yaml.
Exit codes: 0 ok, 2 bad options, 3 no CUDA device.
"""
import argparse
import json
import os
import statistics
import sys


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--calls", type=int, default=2000, help="calls per measurement (graphs hold calls / 10)")
    args = ap.parse_args()
    if args.calls < 100:
        ap.error("--calls must be >= 100")
    import torch
    from torch.profiler import profile, ProfilerActivity
    if not torch.cuda.is_available():
        print("kernel_floor: no CUDA device", file=sys.stderr)
        sys.exit(3)
    os.makedirs(args.out, exist_ok=True)
    torch.backends.cudnn.benchmark = False
    dev = torch.device("cuda")
    cases = []
    one = torch.zeros(1, device=dev)
    cases.append(("add_1_element", lambda: one.add_(1.0)))
    for kib in (64, 1024, 16384, 65536):
        src = torch.randn(kib * 512, device=dev).half()
        dst = torch.empty_like(src)
        cases.append((f"copy_{kib}KiB_fp16", lambda s=src, d=dst: d.copy_(s)))

    def conv_case(name, n, c, h, w, k, r, channels_last):
        fmt = torch.channels_last if channels_last else torch.contiguous_format
        x = torch.randn(n, c, h, w, device=dev).half().contiguous(memory_format=fmt)
        wt = torch.randn(k, c, r, r, device=dev).half().contiguous(memory_format=fmt)
        cases.append((name, lambda: torch.ops.aten.convolution(x, wt, None, [1, 1], [r // 2, r // 2], [1, 1], False,
                                                                 [0, 0], 1)))

    conv_case("conv_fwd_n8_c128_14x14_k256_3x3_nchw", 8, 128, 14, 14, 256, 3, False)
    conv_case("conv_fwd_n8_c128_14x14_k256_3x3_nhwc", 8, 128, 14, 14, 256, 3, True)
    conv_case("conv_fwd_n16_c64_56x56_k64_3x3_nchw", 16, 64, 56, 56, 64, 3, False)
    conv_case("conv_fwd_n16_c64_56x56_k64_3x3_nhwc", 16, 64, 56, 56, 64, 3, True)

    rows = []
    in_graph = max(10, args.calls // 10)
    for name, fn in cases:
        for _ in range(20):
            fn()
        torch.cuda.synchronize()
        # 1. CUPTI durations: kernels per call and their summed duration, median over calls.
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            for _ in range(200):
                fn()
            torch.cuda.synchronize()
        trace = os.path.join(args.out, f"{name}.json")
        prof.export_chrome_trace(trace)
        with open(trace) as f:
            events = json.load(f)["traceEvents"]
        os.remove(trace)
        # A same-type contiguous copy_ is a cudaMemcpyAsync (category gpu_memcpy), not a kernel.
        kernels = sorted((e["ts"], e["dur"]) for e in events if e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset"))
        per_call = max(1, round(len(kernels) / 200))
        durations = [d for _, d in kernels]
        sums = [sum(durations[i:i + per_call]) for i in range(0, len(durations) - per_call + 1, per_call)]
        cupti = statistics.median(sums) if sums else float("nan")
        # 2. A CUDA graph of back-to-back calls: the GPU's own per-call cost.
        stream = torch.cuda.Stream()
        stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(stream):
            for _ in range(3):
                fn()
        torch.cuda.current_stream().wait_stream(stream)
        graph_us = float("nan")
        try:
            g = torch.cuda.CUDAGraph()
            with torch.cuda.graph(g):
                for _ in range(in_graph):
                    fn()
            g.replay()
            torch.cuda.synchronize()
            e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            reps = max(1, args.calls // in_graph)
            e0.record()
            for _ in range(reps):
                g.replay()
            e1.record()
            e1.synchronize()
            graph_us = e0.elapsed_time(e1) * 1000.0 / (reps * in_graph)
        except RuntimeError as e:
            print(f"kernel_floor: {name}: no graph ({str(e).splitlines()[0]})", file=sys.stderr)
        # 3. Eager: the host launches every call.
        e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        torch.cuda.synchronize()
        e0.record()
        for _ in range(args.calls):
            fn()
        e1.record()
        e1.synchronize()
        eager_us = e0.elapsed_time(e1) * 1000.0 / args.calls
        rows.append((name, per_call, cupti, graph_us, eager_us))
        print(f"{name}: {per_call} kernel(s), CUPTI {cupti:.2f} us, graph {graph_us:.2f} us, eager {eager_us:.2f} us",
              flush=True)
    with open(os.path.join(args.out, "kernel_floor.csv"), "w") as f:
        f.write("case,kernels_per_call,cupti_us_per_call,graph_us_per_call,eager_us_per_call\n")
        for r in rows:
            f.write(f"{r[0]},{r[1]},{r[2]:.3f},{r[3]:.3f},{r[4]:.3f}\n")
    props = torch.cuda.get_device_properties(0)
    with open(os.path.join(args.out, "meta.yaml"), "w") as f:
        f.write(f"gpu: \"{props.name}\"\ntorch: \"{torch.__version__}\"\ncudnn: {torch.backends.cudnn.version()}\n"
                f"calls: {args.calls}\ngraph_calls: {in_graph}\n")


if __name__ == "__main__":
    main()
