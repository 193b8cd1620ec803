#!/usr/bin/env python3
"""One torch.mm per (precision, layout) after a warm-up, between cudaProfilerStart/Stop, for Nsight
Compute: what the kernel cuBLAS picks for each operand layout spends its cycles on (on sm_90, TF32
GEMMs whose operands are both MN-major run 1.6-1.8x slower than the other layouts:
`measured/H100/op_profile`).

Runs only on a machine with an NVIDIA GPU and PyTorch; not part of tcsim's tests.

  ncu --profile-from-start off --csv --page raw --set full \\
      python3 validation/gpu/gemm_layout_probe.py --size 4096 --cases tf32:TN,tf32:NT,fp16:TN > ncu.csv

Layout letters are tcsim's (row-major A [M, K] and B [K, N]; T = the transposed view of a
row-major tensor), as in op_profile.py. Exit codes: 0 ok, 2 bad options, 3 no CUDA device.
"""
import argparse
import sys

DTYPES = {"fp16": ("float16", False), "bf16": ("bfloat16", False), "tf32": ("float32", True), "fp32": ("float32", False)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--size", type=int, default=4096, help="M = N = K")
    ap.add_argument("--cases", default="tf32:TN,tf32:NT,fp16:TN", help="precision:layout, comma-separated")
    args = ap.parse_args()
    cases = []
    for c in args.cases.split(","):
        d, _, lay = c.partition(":")
        if d not in DTYPES or lay not in ("NN", "NT", "TN", "TT"):
            ap.error(f"bad case '{c}' (precision {', '.join(DTYPES)}; layout NN, NT, TN or TT)")
        cases.append((d, lay))
    import torch
    if not torch.cuda.is_available():
        print("gemm_layout_probe: no CUDA device", file=sys.stderr)
        sys.exit(3)
    n = args.size
    for d, lay in cases:
        tname, tf32 = DTYPES[d]
        dtype = getattr(torch, tname)
        torch.backends.cuda.matmul.allow_tf32 = tf32
        a = torch.randn(n, n, device="cuda").to(dtype)
        b = torch.randn(n, n, device="cuda").to(dtype)
        a = a.t() if lay[0] == "T" else a
        b = b.t() if lay[1] == "T" else b
        for _ in range(3):
            torch.mm(a, b)
        torch.cuda.synchronize()
        torch.cuda.cudart().cudaProfilerStart()
        torch.mm(a, b)
        torch.cuda.synchronize()
        torch.cuda.cudart().cudaProfilerStop()
        print(f"{d} {lay}: profiled one {n}^3 torch.mm", file=sys.stderr, flush=True)


if __name__ == "__main__":
    main()
