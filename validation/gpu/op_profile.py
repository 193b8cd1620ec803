#!/usr/bin/env python3
"""Profiles single PyTorch ops over a grid of sizes, each call its own ATen op, in the Chrome-trace
format `tcsim validate` reads: what cuBLAS picks and how long it runs for the GEMMs of transformer
layers at every token count and layout, and how long the memory-bound ops of an LLM layer take
from decode (1 token) to long prefill.

Runs only on a machine with an NVIDIA GPU and PyTorch; it is not part of tcsim's tests.

  python3 validation/gpu/op_profile.py --suite gemm --out OUT [--dtypes fp16,bf16,tf32] [--budget 240]
  python3 validation/gpu/op_profile.py --suite llm_ops --out OUT [--budget 120]
  ncu --profile-from-start off --csv --page raw --section ... \
      python3 validation/gpu/op_profile.py --suite llm_ops --out OUT --ncu-shapes 1x4096,1024x4096

Suite `gemm`: `torch.mm(A, B)` (aten::mm) with A [M, K] and B [K, N] each row-major or a transposed
view (tcsim's layout letters NN, NT, TN, TT: the strides tell `tcsim validate` which), for M in
1..4096 tokens and the (N, K) of the linear layers of BERT-base/large, GPT-2, phi-2, Llama-2-7B and
Llama-2-70B at tensor-parallel degree 4 (QKV, output projection, MLP up and down), the squares 256..8192, and
`torch.bmm` for attention's QK^T and PV at sequence lengths 128..2048. Precisions: fp16 and bf16
(fp32 accumulation, PyTorch's default), tf32 (fp32 tensors, allow_tf32 on) and fp32 (CUDA cores).

Suite `llm_ops`: fp16 [tokens, hidden] tensors for tokens 1..16384 and hidden 2560, 4096, 8192:
residual add, mul, SiLU, GELU, LayerNorm, RMSNorm, softmax, clone and an embedding lookup (vocab
32000). Each shape runs warm (--reps calls back to back: the inputs stay in L2 where they fit) and
cold (a 256 MiB buffer zeroed before each call evicts L2; the zeroing is its own aten::zero_ call
in the trace).

Writes OUT/<suite>_<dtype>.json per precision (record_shapes=True: dims, strides, types),
OUT/<suite>_times.csv (per case: --event-calls back-to-back calls timed with CUDA events) and
OUT/<suite>_meta.yaml (GPU, PyTorch, CUDA). A suite part that would start with less than 20 s of
--budget left is skipped and says so. Exit codes: 0 ok, 2 bad options, 3 no CUDA device.
"""
import argparse
import csv
import os
import sys
import time

from torch_meta import meta_header

# (N, K) of one linear layer: out_features, in_features.
LINEARS = {
    "bert_base": [(2304, 768), (768, 768), (3072, 768), (768, 3072)],
    "bert_large": [(3072, 1024), (1024, 1024), (4096, 1024), (1024, 4096)],
    "phi2": [(7680, 2560), (2560, 2560), (10240, 2560), (2560, 10240)],
    "llama2_7b": [(12288, 4096), (4096, 4096), (22016, 4096), (4096, 11008)],
    "llama2_70b_tp4": [(2560, 8192), (8192, 2048), (14336, 8192), (8192, 7168)],
}
TOKENS = (1, 16, 64, 128, 256, 512, 1024, 2048, 4096)
SQUARES = (256, 512, 1024, 2048, 4096, 8192)
# bmm: (batch = sequences x heads, seq, head_dim)
ATTENTION = [(96, 128, 64), (96, 512, 64), (48, 1024, 64), (32, 2048, 128), (64, 1024, 128)]
LAYOUTS = ("NN", "NT", "TN", "TT")
DTYPES = {"fp16": ("float16", False), "bf16": ("bfloat16", False), "tf32": ("float32", True), "fp32": ("float32", False)}
LLM_TOKENS = (1, 8, 64, 256, 1024, 4096, 16384)
LLM_HIDDEN = (2560, 4096, 8192)


def gemm_cases():
    """(name, kind, m, n, k, batch, layout): every layout of each linear shape and square; bmm in its
    natural layouts (QK^T: K transposed, PV: both row-major)."""
    cases = []
    for model, layers in LINEARS.items():
        for n, k in layers:
            for m in TOKENS:
                for lay in LAYOUTS:
                    cases.append((f"{model}", "mm", m, n, k, 1, lay))
    for s in SQUARES:
        for lay in LAYOUTS:
            cases.append(("square", "mm", s, s, s, 1, lay))
    for b, s, d in ATTENTION:
        cases.append(("attn_qk", "bmm", s, s, d, b, "NT"))
        cases.append(("attn_pv", "bmm", s, d, s, b, "NN"))
    return cases


def event_us(torch, fn, calls):
    """Microseconds per call of `calls` back-to-back calls, between two CUDA events."""
    ev0, ev1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    ev0.record()
    for _ in range(calls):
        fn()
    ev1.record()
    ev1.synchronize()
    return ev0.elapsed_time(ev1) * 1000.0 / calls


def matrix(torch, rows, cols, transposed, batch, dtype, dev, gen):
    """A [batch,] rows x cols operand, row-major or the transposed view of a cols x rows tensor."""
    shape = (cols, rows) if transposed else (rows, cols)
    if batch > 1:
        shape = (batch,) + shape
    t = torch.randn(*shape, device=dev, dtype=torch.float32, generator=gen).to(dtype)
    return t.transpose(-1, -2) if transposed else t


def run_gemm(torch, args, dev, tw, start, profile, ProfilerActivity):
    cases = gemm_cases()
    for dname in args.dtypes:
        left = args.budget - (time.time() - start)
        if left < 20:
            print(f"[{time.time() - start:.0f}s] SKIPPED gemm {dname} (only {left:.0f}s of the budget left)", flush=True)
            continue
        tname, tf32 = DTYPES[dname]
        dtype = getattr(torch, tname)
        torch.backends.cuda.matmul.allow_tf32 = tf32
        torch.backends.cudnn.allow_tf32 = tf32
        gen = torch.Generator(device=dev).manual_seed(1)
        operands = {}  # one tensor per (rows, cols, transposed, batch): the weights are shared across M

        def operand(rows, cols, transposed, batch):
            key = (rows, cols, transposed, batch)
            if key not in operands:
                operands[key] = matrix(torch, rows, cols, transposed, batch, dtype, dev, gen)
            return operands[key]

        calls = []
        for name, kind, m, n, k, batch, lay in cases:
            if dname == "fp32" and m * n * k * batch > 2 ** 34:
                continue  # CUDA-core SGEMM: keep the run short (about 0.7 ms a call at most)
            a = operand(m, k, lay[0] == "T", batch)
            b = operand(k, n, lay[1] == "T", batch)
            fn = (lambda a=a, b=b: torch.mm(a, b)) if kind == "mm" else (lambda a=a, b=b: torch.bmm(a, b))
            try:
                fn(); fn()
            except RuntimeError as e:
                print(f"op_profile: gemm {dname} {name} {m}x{n}x{k}x{batch} {lay}: {str(e).splitlines()[0]}",
                      file=sys.stderr)
                continue
            calls.append(((name, kind, m, n, k, batch, lay), fn))
            if time.time() - start > args.budget:
                break
        torch.cuda.synchronize()
        for (name, kind, m, n, k, batch, lay), fn in calls:
            us = event_us(torch, fn, args.event_calls)
            tw.writerow([dname, name, kind, m, n, k, batch, lay, "warm", f"{us:.3f}"])
        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], record_shapes=True) as prof:
            for _, fn in calls:
                for _ in range(args.reps):
                    fn()
            torch.cuda.synchronize()
        path = os.path.join(args.out, f"gemm_{dname}.json")
        prof.export_chrome_trace(path)
        print(f"[{time.time() - start:.0f}s] gemm {dname}: {len(calls)} cases -> {path}", flush=True)
        del calls, operands
        torch.cuda.empty_cache()


def llm_op_fns(torch, t, h, dev, gen):
    F = torch.nn.functional
    dtype = torch.float16
    x = torch.randn(t, h, device=dev, dtype=torch.float32, generator=gen).to(dtype)
    y = torch.randn(t, h, device=dev, dtype=torch.float32, generator=gen).to(dtype)
    w = torch.ones(h, device=dev, dtype=dtype)
    bias = torch.zeros(h, device=dev, dtype=dtype)
    ids = torch.randint(0, 32000, (t,), device=dev, generator=gen)
    table = torch.randn(32000, h, device=dev, dtype=torch.float32, generator=gen).to(dtype)
    fns = [
        ("add", lambda: torch.add(x, y)),
        ("mul", lambda: torch.mul(x, y)),
        ("silu", lambda: F.silu(x)),
        ("gelu", lambda: F.gelu(x)),
        ("layer_norm", lambda: F.layer_norm(x, (h,), w, bias)),
        ("softmax", lambda: torch.softmax(x, -1)),
        ("clone", lambda: x.clone()),
        ("embedding", lambda: F.embedding(ids, table)),
    ]
    if hasattr(F, "rms_norm"):
        fns.append(("rms_norm", lambda: F.rms_norm(x, (h,), w)))
    return fns


def run_llm_ops(torch, args, dev, tw, start, profile, ProfilerActivity):
    gen = torch.Generator(device=dev).manual_seed(1)
    flush = torch.empty(256 * 2 ** 20 // 4, device=dev, dtype=torch.float32)
    for temp in ("warm", "cold"):
        left = args.budget - (time.time() - start)
        if left < 20:
            print(f"[{time.time() - start:.0f}s] SKIPPED llm_ops {temp} (only {left:.0f}s of the budget left)", flush=True)
            continue
        calls = []
        for t in LLM_TOKENS:
            for h in LLM_HIDDEN:
                for name, fn in llm_op_fns(torch, t, h, dev, gen):
                    try:
                        fn(); fn()
                    except RuntimeError as e:
                        print(f"op_profile: llm_ops {name} t={t} h={h}: {str(e).splitlines()[0]}", file=sys.stderr)
                        continue
                    calls.append(((name, t, h), fn))
        torch.cuda.synchronize()
        for (name, t, h), fn in calls:
            if temp == "warm":
                us = event_us(torch, fn, args.event_calls)
            else:  # one call after each flush, timed alone
                total = 0.0
                for _ in range(args.reps):
                    flush.zero_()
                    total += event_us(torch, fn, 1)
                us = total / args.reps
            tw.writerow(["fp16", name, "llm_op", t, h, 0, 1, "", temp, f"{us:.3f}"])
        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], record_shapes=True) as prof:
            for _, fn in calls:
                for _ in range(args.reps):
                    if temp == "cold":
                        flush.zero_()
                    fn()
            torch.cuda.synchronize()
        path = os.path.join(args.out, f"llm_ops_{temp}.json")
        prof.export_chrome_trace(path)
        print(f"[{time.time() - start:.0f}s] llm_ops {temp}: {len(calls)} cases -> {path}", flush=True)
        del calls
        torch.cuda.empty_cache()


def run_llm_ops_ncu(torch, args, dev):
    """Each llm_ops case once between cudaProfilerStart/Stop (after two warm-up calls), at the
    --ncu-shapes (tokens x hidden), for `ncu --profile-from-start off`."""
    gen = torch.Generator(device=dev).manual_seed(1)
    for t, h in args.ncu_shapes:
        for name, fn in llm_op_fns(torch, t, h, dev, gen):
            fn(); fn()
            torch.cuda.synchronize()
            torch.cuda.cudart().cudaProfilerStart()
            fn()
            torch.cuda.synchronize()
            torch.cuda.cudart().cudaProfilerStop()
            print(f"op_profile: ncu case {name} t={t} h={h}", file=sys.stderr, flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--suite", required=True, choices=("gemm", "llm_ops"))
    ap.add_argument("--out", required=True)
    ap.add_argument("--dtypes", default="fp16,bf16,tf32,fp32", help="gemm suite: " + ",".join(DTYPES))
    ap.add_argument("--reps", type=int, default=3, help="profiled calls of each case")
    ap.add_argument("--event-calls", type=int, default=10, help="back-to-back calls timed with CUDA events")
    ap.add_argument("--budget", type=float, default=240, help="seconds; later parts are skipped past it")
    ap.add_argument("--ncu-shapes", default="", help="llm_ops under Nsight Compute: TOKENSxHIDDEN,... (no profiler)")
    args = ap.parse_args()
    args.dtypes = [d for d in args.dtypes.split(",") if d]
    bad = [d for d in args.dtypes if d not in DTYPES]
    if bad or not args.dtypes:
        ap.error(f"unknown dtype(s) {bad}; known: {', '.join(DTYPES)}")
    if args.reps < 1 or args.event_calls < 1:
        ap.error("--reps and --event-calls must be >= 1")
    shapes = []
    for shape in (v for v in args.ncu_shapes.split(",") if v):
        parts = shape.split("x")
        if len(parts) != 2 or not all(p.isdigit() and int(p) > 0 for p in parts):
            ap.error(f"--ncu-shapes: expected TOKENSxHIDDEN (e.g. 1024x4096), got '{shape}'")
        shapes.append((int(parts[0]), int(parts[1])))
    args.ncu_shapes = shapes
    start = time.time()

    import torch
    from torch.profiler import profile, ProfilerActivity
    if not torch.cuda.is_available():
        print("op_profile: no CUDA device", file=sys.stderr)
        sys.exit(3)
    dev = torch.device("cuda")
    if args.ncu_shapes:
        if args.suite != "llm_ops":
            ap.error("--ncu-shapes is for --suite llm_ops")
        run_llm_ops_ncu(torch, args, dev)
        return
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, f"{args.suite}_meta.yaml"), "w") as f:
        f.write(meta_header(torch) +
                f"suite: {args.suite}\nreps: {args.reps}\nevent_calls: {args.event_calls}\n")
    times_path = os.path.join(args.out, f"{args.suite}_times.csv")
    with open(times_path, "w", newline="") as times:
        tw = csv.writer(times)
        tw.writerow(["dtype", "name", "kind", "m_or_tokens", "n_or_hidden", "k", "batch", "layout", "l2", "event_us"])
        if args.suite == "gemm":
            run_gemm(torch, args, dev, tw, start, profile, ProfilerActivity)
        else:
            run_llm_ops(torch, args, dev, tw, start, profile, ProfilerActivity)
    print(f"[{time.time() - start:.0f}s] done -> {times_path}", flush=True)


if __name__ == "__main__":
    main()
