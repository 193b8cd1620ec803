#!/usr/bin/env python3
"""Records one training step of ResNet-50 or BERT-base with the PyTorch profiler, in the formats
`tcsim validate` and `tcsim replay` read (traces/README.md, "Profiles of your own run").

Runs only on a machine with an NVIDIA GPU and PyTorch (ResNet-50 also needs torchvision); it is
not part of tcsim's tests. BERT-base is built from torch.nn (12 layers, hidden 768, 12 heads,
FFN 3072, GELU, vocabulary 30522, as Devlin et al. 2019, sec. 3) so no other package is needed.

  python3 validation/gpu/torch_profile.py --model resnet50 --precision amp-fp16 --channels-last --out /tmp/prof
  python3 validation/gpu/torch_profile.py --model bert-base --precision fp32 --batch 32 --seq 128 --out /tmp/prof
  # Nsight Systems instead (NVTX op ranges with sizes; the capture is the profiled step only):
  nsys profile --trace=cuda,nvtx --capture-range=cudaProfilerApi -o /tmp/prof/rn50 \\
      python3 validation/gpu/torch_profile.py --model resnet50 --nvtx
  nsys export --type sqlite /tmp/prof/rn50.nsys-rep

Writes OUT/<model>_<precision>[_cl]_b<batch>.json (Chrome trace, record_shapes=True) and prints
the tcsim commands to run on it. Exit codes: 0 ok, 2 bad options, 3 no CUDA device.
"""
import argparse
import os
import sys


def build_resnet50(torch):
    try:
        import torchvision
    except ImportError:
        sys.exit("torch_profile: error: ResNet-50 needs torchvision (python3 -c 'import torchvision')")
    return torchvision.models.resnet50(weights=None), 1000


def build_bert_base(torch, seq):
    nn = torch.nn

    class BertBase(nn.Module):
        def __init__(self):
            super().__init__()
            self.tok = nn.Embedding(30522, 768)
            self.pos = nn.Embedding(512, 768)
            self.norm = nn.LayerNorm(768, eps=1e-12)
            layer = nn.TransformerEncoderLayer(768, 12, 3072, dropout=0.1, activation="gelu", batch_first=True)
            self.encoder = nn.TransformerEncoder(layer, 12, enable_nested_tensor=False)
            self.head = nn.Linear(768, 30522)

        def forward(self, ids):
            positions = torch.arange(ids.shape[1], device=ids.device)
            x = self.norm(self.tok(ids) + self.pos(positions))
            return self.head(self.encoder(x))

    if seq > 512:
        sys.exit("torch_profile: error: --seq at most 512 for BERT-base")
    return BertBase(), 30522


def build_gpt2(torch, seq):
    """GPT-2 small (124M; Radford et al. 2019) from Hugging Face transformers' own classes, random
    weights, the library's default attention implementation; returns logits only."""
    try:
        from transformers import GPT2Config, GPT2LMHeadModel
    except ImportError:
        sys.exit("torch_profile: error: GPT-2 needs transformers (python3 -c 'import transformers')")
    if seq > 1024:
        sys.exit("torch_profile: error: --seq at most 1024 for GPT-2")

    class Logits(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.lm = GPT2LMHeadModel(GPT2Config())

        def forward(self, ids):
            return self.lm(input_ids=ids).logits

    return Logits(), 50257


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", choices=["resnet50", "bert-base", "gpt2"], default="resnet50")
    ap.add_argument("--precision", choices=["fp32", "tf32", "amp-fp16", "amp-bf16"], default="fp32")
    ap.add_argument("--channels-last", action="store_true", help="ResNet-50 in NHWC (torch.channels_last)")
    ap.add_argument("--batch", type=int, default=0, help="default: 64 (ResNet-50), 32 (BERT-base, GPT-2)")
    ap.add_argument("--seq", type=int, default=128, help="BERT-base / GPT-2 sequence length")
    ap.add_argument("--warmup", type=int, default=5, help="steps before the profiled one (cuDNN benchmark picks)")
    ap.add_argument("--out", default="profiles")
    ap.add_argument("--time-steps", type=int, default=0,
                    help="after the profiled step, time N more steps without the profiler (CUDA events) and "
                         "write OUT/<name>_steps.csv (one row per step, step_ms)")
    ap.add_argument("--nvtx", action="store_true",
                    help="emit_nvtx(record_shapes=True) around the profiled step for nsys (no Chrome trace)")
    args = ap.parse_args()
    if args.batch < 0 or args.warmup < 0 or args.time_steps < 0:
        ap.error("--batch, --warmup and --time-steps must be >= 0")

    import torch
    if not torch.cuda.is_available():
        print("torch_profile: no CUDA device", file=sys.stderr)
        return 3
    dev = torch.device("cuda")
    torch.backends.cudnn.benchmark = True
    tf32 = args.precision == "tf32"
    torch.backends.cuda.matmul.allow_tf32 = tf32
    torch.backends.cudnn.allow_tf32 = tf32
    batch = args.batch or (64 if args.model == "resnet50" else 32)

    if args.model == "resnet50":
        model, classes = build_resnet50(torch)
        inputs = torch.randn(batch, 3, 224, 224, device=dev)
        targets = torch.randint(0, classes, (batch,), device=dev)
        if args.channels_last:
            model = model.to(memory_format=torch.channels_last)
            inputs = inputs.to(memory_format=torch.channels_last)
    elif args.model == "gpt2":
        model, classes = build_gpt2(torch, args.seq)
        inputs = torch.randint(0, classes, (batch, args.seq), device=dev)
        targets = torch.randint(0, classes, (batch, args.seq), device=dev)
    else:
        model, classes = build_bert_base(torch, args.seq)
        inputs = torch.randint(0, classes, (batch, args.seq), device=dev)
        targets = torch.randint(0, classes, (batch, args.seq), device=dev)
    model = model.to(dev).train()
    fused = {"fused": True} if "fused" in torch.optim.Adam.__init__.__code__.co_varnames else {}
    opt = torch.optim.Adam(model.parameters(), lr=1e-4, **fused)
    amp_dtype = {"amp-fp16": torch.float16, "amp-bf16": torch.bfloat16}.get(args.precision)
    scaler = torch.cuda.amp.GradScaler(enabled=amp_dtype == torch.float16)
    loss_fn = torch.nn.CrossEntropyLoss()

    def step():
        opt.zero_grad(set_to_none=True)
        with torch.autocast("cuda", dtype=amp_dtype or torch.float32, enabled=amp_dtype is not None):
            out = model(inputs)
            loss = loss_fn(out.reshape(-1, classes), targets.reshape(-1))
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()

    for _ in range(args.warmup):
        step()
    torch.cuda.synchronize()

    name = "%s_%s%s_b%d" % (args.model.replace("-", ""), args.precision, "_cl" if args.channels_last else "", batch)
    if args.nvtx:
        torch.cuda.profiler.start()
        with torch.autograd.profiler.emit_nvtx(record_shapes=True):
            step()
            torch.cuda.synchronize()
        torch.cuda.profiler.stop()
        print("torch_profile: step recorded under nsys; then: nsys export --type sqlite REPORT.nsys-rep")
        return 0

    from torch.profiler import ProfilerActivity, profile
    os.makedirs(args.out, exist_ok=True)
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], record_shapes=True) as prof:
        step()
        torch.cuda.synchronize()
    path = os.path.join(args.out, name + ".json")
    prof.export_chrome_trace(path)
    if args.time_steps:
        # Each step between two events on the default stream; the median is the step time a
        # network estimate is compared with (the profiled step above carries profiler overhead).
        times = []
        for _ in range(args.time_steps):
            begin, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            begin.record()
            step()
            end.record()
            end.synchronize()
            times.append(begin.elapsed_time(end))
        steps_path = os.path.join(args.out, name + "_steps.csv")
        with open(steps_path + ".tmp", "w") as f:
            # tcsim validate reads this line (sim/workload/network/measured_steps.cpp): token models
            # carry their sequence length.
            f.write("# %s, torch %s, cuDNN %s, batch %d, precision %s%s%s\n" % (
                torch.cuda.get_device_name(), torch.__version__, torch.backends.cudnn.version(), batch,
                args.precision, ", channels_last" if args.channels_last else "",
                "" if args.model == "resnet50" else ", seq %d" % args.seq))
            f.write("step,step_ms\n")
            for i, t in enumerate(times):
                f.write("%d,%.4f\n" % (i, t))
        os.replace(steps_path + ".tmp", steps_path)
        print("torch_profile: %d steps, median %.3f ms -> %s" % (len(times), sorted(times)[len(times) // 2], steps_path))
    gpu = torch.cuda.get_device_name().lower()
    print("torch_profile: wrote %s (%s, torch %s)" % (path, torch.cuda.get_device_name(), torch.__version__))
    print("  tcsim validate -c configs/gpu/<this GPU>.yaml %s -o out/%s   # e.g. %s" % (path, name, gpu))
    print("  tcsim replay -c configs/gpu/h100.yaml %s --precision amp-bf16" % path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
