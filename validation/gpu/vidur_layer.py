#!/usr/bin/env python3
"""Vidur's operator profile, measured on this GPU: an LLM decoder layer's ten operators (embedding,
the norms, the QKV / output / up / down projections, rotary embedding, the activation, the residual
add) run in a layer's order and timed as Vidur times them (torch.profiler ranges, each range's
summed CUPTI kernel durations, median over iterations), written in Vidur's own CSV format so that
`tcsim validate -c CONFIG OUT/vidur/*/mlp.csv` reads them as it reads ../shared/data/vidur.

Runs only on a machine with an NVIDIA GPU and PyTorch; not part of tcsim's tests.

  nvcc -O3 -shared -Xcompiler -fPIC -cudart shared -gencode arch=compute_90a,code=sm_90a \\
       -o LIB validation/gpu/llm_layer_kernels.cu
  python3 validation/gpu/vidur_layer.py --lib LIB --out OUT [--models ...] [--tp 1,2,4,8]
      [--tokens 1,2,...,4096] [--iters 10] [--ncu-configs MODEL:TP:TOKENS,...]

Kernels: PyTorch's own for the embedding (F.embedding), the GEMMs (F.linear, fp16 weights), phi-2's
LayerNorm and GELU (erf) and the adds; Sarathi-Serve's three custom kernels (RMS norm, SiLU x up,
GPT-NeoX rotary embedding) as validation/gpu/llm_layer_kernels.cu restates them (same launch
geometry and loops), loaded with ctypes. Shapes: the three models of Vidur's A100 profile (their
configs as its CSVs give them; phi-2 rotates 32 of each head's 80 dimensions, partial_rotary_factor
0.4), the weights of one GPU of a tensor-parallel group (the vocabulary split too, as Sarathi's
VocabParallelEmbedding does), random fp16 values; tokens at positions 0..T-1.

Writes OUT/vidur/<model>/mlp.csv (Vidur's columns: time_stats.<op>.{min,max,mean,median,std} in ms,
then n_head, n_kv_head, n_embd, n_expanded_embd, vocab_size, use_gated_mlp, num_tokens,
num_tensor_parallel_workers, and rotary_dim, the dimensions per head rotated, which Vidur's files
lack: its profiler rotates whole heads), OUT/vidur/kernels.csv (per model, TP, tokens and op: the kernels of
the first timed iteration with their grid and block) and OUT/meta.yaml.
With --ncu-configs it runs only those points, one iteration between cudaProfilerStart and Stop
after three warm-ups, for `ncu --profile-from-start off` (no CSVs).
Exit codes: 0 ok, 1 a kernel launch failed, 2 bad options, 3 no CUDA device.
"""
import argparse
import ctypes
import json
import os
import statistics
import sys
import tempfile

MODELS = {
    # n_head, n_kv_head, n_embd, n_expanded_embd, vocab_size as Vidur's CSVs give them.
    "Llama-2-7b-hf": dict(n_head=32, n_kv_head=32, n_embd=4096, n_expanded_embd=11008, vocab_size=32768,
                          gated=True, rotary_fraction=1.0),
    "Meta-Llama-3-8B": dict(n_head=32, n_kv_head=8, n_embd=4096, n_expanded_embd=14336, vocab_size=128256,
                            gated=True, rotary_fraction=1.0),
    "phi-2": dict(n_head=32, n_kv_head=32, n_embd=2560, n_expanded_embd=10240, vocab_size=51200, gated=False,
                  rotary_fraction=0.4),
}


def rotary_dim(m):
    """Dimensions of each head the rotary kernel rotates (phi-2: 32 of 80)."""
    return int(round(m["rotary_fraction"] * (m["n_embd"] // m["n_head"])))


DEFAULT_TOKENS = "1,2,4,8,16,32,64,128,256,512,1024,2048,4096"
STATS = ("min", "max", "mean", "median", "std")
CONFIG_COLUMNS = ("n_head", "n_kv_head", "n_embd", "n_expanded_embd", "vocab_size", "use_gated_mlp", "num_tokens",
                  "num_tensor_parallel_workers", "rotary_dim")


def ops_of(model):
    ops = ["emb", "input_layernorm", "attn_pre_proj", "attn_rope", "attn_post_proj"]
    if MODELS[model]["gated"]:
        ops.append("post_attention_layernorm")
    return ops + ["mlp_up_proj", "mlp_act", "mlp_down_proj", "add"]


def parse_int_list(text, what, ap):
    try:
        values = [int(v) for v in text.split(",") if v.strip()]
    except ValueError:
        ap.error(f"{what}: expected comma-separated integers, got '{text}'")
    if not values or min(values) < 1:
        ap.error(f"{what}: expected positive integers, got '{text}'")
    return values


def load_kernels(path):
    lib = ctypes.CDLL(path)
    p, i, f = ctypes.c_void_p, ctypes.c_int, ctypes.c_float
    lib.tcsim_rms_norm.argtypes = [p, p, p, f, i, i, p]
    lib.tcsim_silu_and_mul.argtypes = [p, p, i, i, p]
    lib.tcsim_rotary_neox.argtypes = [p, p, p, p, i, i, i, i, i, i, i, p]
    for fn in (lib.tcsim_rms_norm, lib.tcsim_silu_and_mul, lib.tcsim_rotary_neox):
        fn.restype = ctypes.c_int
    return lib


class Layer:
    """One GPU's share of a decoder layer at tensor-parallel degree tp, for up to max_tokens tokens."""

    def __init__(self, torch, lib, model, tp, max_tokens):
        m = MODELS[model]
        self.torch, self.lib, self.model, self.tp = torch, lib, model, tp
        dev, half = torch.device("cuda"), torch.float16
        gen = torch.Generator(device=dev)
        gen.manual_seed(0)

        def rnd(*shape):
            return torch.randn(*shape, device=dev, dtype=half, generator=gen) * 0.02

        e, d = m["n_embd"], m["n_embd"] // m["n_head"]
        self.e, self.d = e, d
        self.hq, self.hkv = m["n_head"] // tp, m["n_kv_head"] // tp
        self.gated = m["gated"]
        self.rot_dim = rotary_dim(m)
        self.table = rnd(m["vocab_size"] // tp, e)
        self.ids = torch.randint(0, m["vocab_size"] // tp, (max_tokens,), device=dev, dtype=torch.int64,
                                 generator=gen)
        self.norm_w = 1 + rnd(e)
        self.norm_b = rnd(e)
        self.w_qkv = rnd((self.hq + 2 * self.hkv) * d, e)
        self.w_o = rnd(e, self.hq * d)
        ff = m["n_expanded_embd"] // tp
        self.ff = ff
        self.w_up = rnd((2 if self.gated else 1) * ff, e)
        self.w_down = rnd(e, ff)
        self.positions = torch.arange(max_tokens, device=dev, dtype=torch.int64)
        self.cos_sin = rnd(max(max_tokens, 4096), self.rot_dim)
        self.attn_out = rnd(max_tokens, self.hq * d)  # attention itself is not timed (Vidur's attention.csv)

    def _check(self, rc, what):
        if rc != 0:
            print(f"vidur_layer: {what}: CUDA error {rc}", file=sys.stderr)
            sys.exit(1)

    def rms(self, x):
        out = self.torch.empty_like(x)
        self._check(self.lib.tcsim_rms_norm(out.data_ptr(), x.data_ptr(), self.norm_w.data_ptr(), 1e-5, x.shape[0],
                                            self.e, self.torch.cuda.current_stream().cuda_stream), "rms_norm")
        return out

    def step(self, t, rf, tag=""):
        """One forward pass of the layer over t tokens, each operator in a profiler range named op + tag."""
        torch, F = self.torch, self.torch.nn.functional
        stream = torch.cuda.current_stream().cuda_stream
        with rf("emb" + tag):
            x = F.embedding(self.ids[:t], self.table)
        residual = x
        with rf("input_layernorm" + tag):
            y = self.rms(x) if self.gated else F.layer_norm(x, (self.e,), self.norm_w, self.norm_b, 1e-5)
        with rf("attn_pre_proj" + tag):
            qkv = F.linear(y, self.w_qkv)
        with rf("attn_rope" + tag):
            q = qkv[:, : self.hq * self.d]
            k = qkv[:, self.hq * self.d: (self.hq + self.hkv) * self.d]
            self._check(self.lib.tcsim_rotary_neox(self.positions.data_ptr(), q.data_ptr(), k.data_ptr(),
                                                   self.cos_sin.data_ptr(), t, self.rot_dim, qkv.stride(0),
                                                   qkv.stride(0), self.hq, self.hkv, self.d, stream), "rotary")
        with rf("attn_post_proj" + tag):
            o = F.linear(self.attn_out[:t], self.w_o)
        if self.gated:
            with rf("post_attention_layernorm" + tag):
                y = self.rms(o)
        with rf("mlp_up_proj" + tag):
            u = F.linear(y, self.w_up)
        with rf("mlp_act" + tag):
            if self.gated:
                a = torch.empty(t, self.ff, device=u.device, dtype=u.dtype)
                self._check(self.lib.tcsim_silu_and_mul(a.data_ptr(), u.data_ptr(), t, self.ff, stream), "silu_and_mul")
            else:
                a = F.gelu(u)
        with rf("mlp_down_proj" + tag):
            dn = F.linear(a, self.w_down)
        with rf("add" + tag):
            out = residual + dn if self.gated else o + dn + residual  # phi-2's parallel block: two adds
        return out


def kernel_times(trace_path):
    """{range name: [(summed kernel us, [(kernel, grid, block, us)]) per occurrence]} from a Chrome
    trace: each kernel belongs to the GPU-side span of the profiler range it was launched in (the
    span runs from its first kernel's start to its last kernel's end)."""
    with open(trace_path) as f:
        events = json.load(f)["traceEvents"]
    spans = sorted((e for e in events if e.get("cat") == "gpu_user_annotation"), key=lambda e: e["ts"])
    kernels = sorted((e for e in events if e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset")),
                     key=lambda e: e["ts"])
    out = {}
    j = 0
    for s in spans:
        start, end = s["ts"] - 1e-3, s["ts"] + s["dur"]
        while j < len(kernels) and kernels[j]["ts"] < start:
            j += 1
        total, names = 0.0, []
        while j < len(kernels) and kernels[j]["ts"] < end:  # a kernel starts strictly inside its span
            ev = kernels[j]
            args = ev.get("args", {})
            total += ev["dur"]
            names.append((ev["name"], args.get("grid"), args.get("block"), ev["dur"]))
            j += 1
        out.setdefault(s["name"], []).append((total, names))
    return out


def write_atomic(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--lib", required=True, help="llm_layer_kernels.cu built as a shared library")
    ap.add_argument("--out", required=True)
    ap.add_argument("--models", default=",".join(MODELS))
    ap.add_argument("--tp", default="1,2,4,8", help="tensor-parallel degrees (phi-2: 1 only, as Vidur's file)")
    ap.add_argument("--tokens", default=DEFAULT_TOKENS)
    ap.add_argument("--iters", type=int, default=10, help="timed iterations per point (after 3 warm-ups)")
    ap.add_argument("--ncu-configs", default="", help="MODEL:TP:TOKENS,...: one profiled iteration each, for ncu")
    args = ap.parse_args()
    models = [m for m in args.models.split(",") if m]
    for m in models:
        if m not in MODELS:
            ap.error(f"--models: unknown model '{m}'; expected some of {', '.join(MODELS)}")
    tps, tokens = parse_int_list(args.tp, "--tp", ap), parse_int_list(args.tokens, "--tokens", ap)
    if args.iters < 1:
        ap.error("--iters must be >= 1")
    ncu_points = []
    for item in [c for c in args.ncu_configs.split(",") if c]:
        parts = item.split(":")
        if len(parts) != 3 or parts[0] not in MODELS or not parts[1].isdigit() or not parts[2].isdigit():
            ap.error(f"--ncu-configs: expected MODEL:TP:TOKENS, got '{item}'")
        ncu_points.append((parts[0], int(parts[1]), int(parts[2])))
    if not os.path.isfile(args.lib):
        ap.error(f"--lib: {args.lib}: file not found")

    import torch
    from torch.profiler import profile, ProfilerActivity, record_function
    if not torch.cuda.is_available():
        print("vidur_layer: no CUDA device", file=sys.stderr)
        sys.exit(3)
    torch.backends.cuda.matmul.allow_tf32 = False
    lib = load_kernels(args.lib)

    if ncu_points:
        import contextlib
        for model, tp, t in ncu_points:
            layer = Layer(torch, lib, model, tp, t)
            for _ in range(3):
                layer.step(t, lambda name: contextlib.nullcontext())
            torch.cuda.synchronize()
            torch.cuda.profiler.start()
            layer.step(t, lambda name: torch.cuda.nvtx.range(name))
            torch.cuda.synchronize()
            torch.cuda.profiler.stop()
            print(f"vidur_layer: ncu point {model} tp {tp} tokens {t}", flush=True)
            del layer
        return

    kernel_rows = ["model,tp,num_tokens,op,kernel,grid,block,duration_us"]
    for model in models:
        ops = ops_of(model)
        rows = []
        for tp in (tps if model != "phi-2" else [1]):
            m = MODELS[model]
            if m["n_head"] % tp or m["n_kv_head"] % tp or m["n_expanded_embd"] % tp:
                print(f"vidur_layer: {model}: tp {tp} does not divide its heads; skipped", file=sys.stderr)
                continue
            layer = Layer(torch, lib, model, tp, max(tokens))
            with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
                for t in tokens:
                    for _ in range(3):
                        layer.step(t, lambda name: record_function("warmup"))
                    for _ in range(args.iters):
                        layer.step(t, record_function, f"|{t}")
                    torch.cuda.synchronize()
            with tempfile.TemporaryDirectory() as tmp:
                trace = os.path.join(tmp, "trace.json")
                prof.export_chrome_trace(trace)
                times = kernel_times(trace)
            if not any("|" in name for name in times):
                print("vidur_layer: the profiler's trace has no GPU-side ranges (gpu_user_annotation): cannot "
                      "assign kernels to ops", file=sys.stderr)
                sys.exit(1)
            for t in tokens:
                row = {}
                for op in ops:
                    occ = times.get(f"{op}|{t}", [])
                    if len(occ) != args.iters:
                        print(f"vidur_layer: {model} tp {tp} tokens {t} {op}: {len(occ)} ranges on the GPU, "
                              f"expected {args.iters}", file=sys.stderr)
                        sys.exit(1)
                    ms = [o[0] / 1000.0 for o in occ]
                    row[op] = (min(ms), max(ms), statistics.mean(ms), statistics.median(ms), statistics.pstdev(ms))
                    for name, grid, block, us in occ[0][1]:
                        kernel_rows.append(f'{model},{tp},{t},{op},"{name}","{grid}","{block}",{us:.3f}')
                rows.append((tp, t, row))
            print(f"vidur_layer: {model} tp {tp}: {len(tokens)} token counts timed", flush=True)
            del layer, prof
            torch.cuda.empty_cache()
        m = MODELS[model]
        header = [f"time_stats.{op}.{s}" for op in ops for s in STATS] + list(CONFIG_COLUMNS)
        lines = [",".join(header)]
        for tp, t, row in rows:
            cells = [f"{v:.6f}" for op in ops for v in row[op]]
            cells += [str(m["n_head"]), str(m["n_kv_head"]), str(m["n_embd"]), str(m["n_expanded_embd"]),
                      str(m["vocab_size"]), "True" if m["gated"] else "False", str(t), str(tp),
                      str(rotary_dim(m))]
            lines.append(",".join(cells))
        write_atomic(os.path.join(args.out, "vidur", model, "mlp.csv"), "\n".join(lines) + "\n")
    write_atomic(os.path.join(args.out, "vidur", "kernels.csv"), "\n".join(kernel_rows) + "\n")
    props = torch.cuda.get_device_properties(0)
    meta = [f"gpu: \"{props.name}\"", f"sm_count: {props.multi_processor_count}",
            f"torch: \"{torch.__version__}\"", f"cuda: \"{torch.version.cuda}\"",
            f"iterations: {args.iters}", "warmups: 3", f"tokens: [{args.tokens}]", f"tp: [{args.tp}]",
            "timing: torch.profiler record_function ranges, summed CUPTI kernel durations per range, ms"]
    write_atomic(os.path.join(args.out, "meta.yaml"), "\n".join(meta) + "\n")


if __name__ == "__main__":
    main()
