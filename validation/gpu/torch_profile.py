#!/usr/bin/env python3
"""Records one training or inference step of a network with the PyTorch profiler, in the formats
`tcsim validate` and `tcsim replay` read (traces/README.md, "Profiles of your own run"), and with
--time-steps N times N more steps without the profiler (CUDA events) for `tcsim validate`'s
whole-network comparison.

Runs only on a machine with an NVIDIA GPU and PyTorch (the CNNs also need torchvision, the
Hugging Face models transformers); it is not part of tcsim's tests. The models are the ones
models/*.yaml describe (the header of the step file names it: `model resnet18`):
torchvision's resnet50, resnet18, vgg16, mobilenet_v2; Hugging Face's BertForPreTraining
(bert-base-hf, bert-large-hf; eager attention, the MLM head's loss), GPT2LMHeadModel (gpt2,
gpt2-large) and LlamaForCausalLM (llama2-7b, llama3-8b; random weights). `bert-base` is BERT-base
built from torch.nn (12 layers, hidden 768, 12 heads, FFN 3072, GELU, vocabulary 30522, as Devlin
et al. 2019, sec. 3), which needs no other package but is not models/bert_base.yaml.

--pass infer runs the forward pass under torch.inference_mode(); with --kv-len L a token model
decodes --seq new tokens (usually 1) against a KV cache of about L tokens (Hugging Face's
DynamicCache as generate() grows it: the prompt fills L - warmup - 1 tokens, so the profiled step
sees L; the timed steps see L+1 .. L+N and the header records the middle, L + N/2 + 1. The first
loan's files, validation/measured/H200/networks, cropped the cache back to L after each step: the
cropped cache is a non-contiguous view, which sends torch.cat down its slow general path);
--cuda-graphs replays the
forward pass as one CUDA graph (CNNs and BERT; not with a KV cache). fp16/bf16 are pure half
precision (the model cast), amp-* autocast.

  python3 validation/gpu/torch_profile.py --model resnet50 --precision amp-fp16 --channels-last --out /tmp/prof
  python3 validation/gpu/torch_profile.py --model bert-base --precision fp32 --batch 32 --seq 128 --out /tmp/prof
  python3 validation/gpu/torch_profile.py --model llama2-7b --pass infer --precision fp16 --batch 1 --seq 1 \
      --kv-len 512 --time-steps 20 --out /tmp/prof     # one decode step against 512 cached tokens
  python3 validation/gpu/torch_profile.py --model resnet50 --pass infer --precision amp-fp16 --channels-last \
      --batch 1 --cuda-graphs --time-steps 20 --out /tmp/prof
  # Nsight Systems instead (NVTX op ranges with sizes; the capture is the profiled step only):
  nsys profile --trace=cuda,nvtx --capture-range=cudaProfilerApi -o /tmp/prof/rn50 \\
      python3 validation/gpu/torch_profile.py --model resnet50 --nvtx
  nsys export --type sqlite /tmp/prof/rn50.nsys-rep

Writes OUT/<name>.json (Chrome trace, record_shapes=True) and OUT/<name>_steps.csv, <name> =
<model>[_infer]_<precision>[_cl]_b<batch>[_s<seq>][_kv<L>][_graphs] (the training files of the
first three models keep their older names, <model>_<precision>[_cl]_b<batch>), and prints the tcsim
commands to run on it. Exit codes: 0 ok, 2 bad options, 3 no CUDA device.
"""
import argparse
import os
import sys


def build_resnet50(torch):
    return build_torchvision("resnet50"), 1000


def build_torchvision(name):
    try:
        import torchvision
    except ImportError:
        sys.exit("torch_profile: error: %s needs torchvision (python3 -c 'import torchvision')" % name)
    return getattr(torchvision.models, name)(weights=None)


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


def build_gpt2_large(torch, seq):
    """GPT-2 large (774M): gpt2-large's config.json (n_embd 1280, n_layer 36, n_head 20)."""
    from transformers import GPT2Config, GPT2LMHeadModel

    class Logits(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.lm = GPT2LMHeadModel(GPT2Config(n_embd=1280, n_layer=36, n_head=20))

        def forward(self, ids):
            return self.lm(input_ids=ids).logits

    if seq > 1024:
        sys.exit("torch_profile: error: --seq at most 1024 for GPT-2")
    return Logits(), 50257


def build_bert_hf(torch, seq, large):
    """Hugging Face BertForPreTraining on bert-{base,large}-uncased's config, eager attention (three
    q/k/v linears, unfused softmax), as models/bert_{base,large}.yaml; returns the MLM logits (the
    next-sentence head's two logits are computed and not used)."""
    try:
        from transformers import BertConfig, BertForPreTraining
    except ImportError:
        sys.exit("torch_profile: error: BERT (Hugging Face) needs transformers (python3 -c 'import transformers')")
    if seq > 512:
        sys.exit("torch_profile: error: --seq at most 512 for BERT")
    sizes = dict(hidden_size=1024, num_hidden_layers=24, num_attention_heads=16, intermediate_size=4096) if large \
        else dict(hidden_size=768, num_hidden_layers=12, num_attention_heads=12, intermediate_size=3072)
    config = BertConfig(vocab_size=30522, attn_implementation="eager", **sizes)
    try:
        config._attn_implementation = "eager"
    except AttributeError:  # releases that take it only as the constructor's argument
        pass

    class Logits(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.bert = BertForPreTraining(config)

        def forward(self, ids):
            return self.bert(input_ids=ids).prediction_logits

    return Logits(), 30522


LLAMA = {  # config.json of meta-llama/Llama-2-7b-hf and meta-llama/Meta-Llama-3-8B
    "llama2-7b": dict(hidden_size=4096, intermediate_size=11008, num_hidden_layers=32, num_attention_heads=32,
                      num_key_value_heads=32, vocab_size=32000, max_position_embeddings=4096, rms_norm_eps=1e-5),
    "llama3-8b": dict(hidden_size=4096, intermediate_size=14336, num_hidden_layers=32, num_attention_heads=32,
                      num_key_value_heads=8, vocab_size=128256, max_position_embeddings=8192, rms_norm_eps=1e-5,
                      rope_theta=500000.0),
}


def build_llama(torch, name):
    """Hugging Face LlamaForCausalLM, random weights, built on the GPU; the library's default
    attention (scaled_dot_product_attention); the module itself (decode passes its cache)."""
    try:
        from transformers import LlamaConfig, LlamaForCausalLM
    except ImportError:
        sys.exit("torch_profile: error: Llama needs transformers (python3 -c 'import transformers')")
    with torch.device("cuda"):
        model = LlamaForCausalLM(LlamaConfig(**LLAMA[name]))
    return model, LLAMA[name]["vocab_size"]


# torch_profile.py's model -> models/<name>.yaml (the step file's header says it: `model <name>`)
TCSIM_MODEL = {"resnet50": "resnet50", "resnet18": "resnet18", "vgg16": "vgg16", "mobilenet-v2": "mobilenet_v2",
               "bert-base-hf": "bert_base", "bert-large-hf": "bert_large", "gpt2": "gpt2",
               "gpt2-large": "gpt2_large", "llama2-7b": "llama2_7b", "llama3-8b": "llama3_8b"}
CNNS = ("resnet50", "resnet18", "vgg16", "mobilenet-v2")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", choices=["resnet50", "resnet18", "vgg16", "mobilenet-v2", "bert-base", "bert-base-hf",
                                        "bert-large-hf", "gpt2", "gpt2-large", "llama2-7b", "llama3-8b"],
                    default="resnet50")
    ap.add_argument("--precision", choices=["fp32", "tf32", "amp-fp16", "amp-bf16", "fp16", "bf16"], default="fp32")
    ap.add_argument("--pass", dest="pass_", choices=["train", "infer"], default="train")
    ap.add_argument("--channels-last", action="store_true", help="a CNN in NHWC (torch.channels_last)")
    ap.add_argument("--batch", type=int, default=0, help="default: 64 (CNNs), 32 (token models)")
    ap.add_argument("--seq", type=int, default=128, help="token models: the tokens of a step (decode: 1)")
    ap.add_argument("--kv-len", type=int, default=0, help="--pass infer, token models: tokens already in the KV cache")
    ap.add_argument("--cuda-graphs", action="store_true", help="--pass infer: replay the forward pass as a CUDA graph")
    ap.add_argument("--warmup", type=int, default=5, help="steps before the profiled one (cuDNN benchmark picks)")
    ap.add_argument("--out", default="profiles")
    ap.add_argument("--time-steps", type=int, default=0,
                    help="after the profiled step, time N more steps without the profiler (CUDA events) and "
                         "write OUT/<name>_steps.csv (one row per step, step_ms)")
    ap.add_argument("--nvtx", action="store_true",
                    help="emit_nvtx(record_shapes=True) around the profiled step for nsys (no Chrome trace)")
    args = ap.parse_args()
    if args.batch < 0 or args.warmup < 0 or args.time_steps < 0 or args.kv_len < 0 or args.seq < 1:
        ap.error("--batch, --warmup, --time-steps and --kv-len must be >= 0, --seq >= 1")
    cnn = args.model in CNNS
    if args.kv_len and (cnn or args.pass_ != "infer" or not args.model.startswith(("gpt2", "llama"))):
        ap.error("--kv-len is for --pass infer of the causal models (gpt2*, llama*)")
    if args.cuda_graphs and (args.pass_ != "infer" or args.kv_len):
        ap.error("--cuda-graphs is for --pass infer without a KV cache")
    if args.channels_last and not cnn:
        ap.error("--channels-last is for the CNNs")
    if args.precision in ("fp16", "bf16") and args.pass_ == "train":
        ap.error("pure fp16/bf16 is for --pass infer (training in half precision: amp-fp16, amp-bf16)")

    import torch
    if not torch.cuda.is_available():
        print("torch_profile: no CUDA device", file=sys.stderr)
        return 3
    dev = torch.device("cuda")
    torch.backends.cudnn.benchmark = True
    tf32 = args.precision == "tf32"
    torch.backends.cuda.matmul.allow_tf32 = tf32
    torch.backends.cudnn.allow_tf32 = tf32
    batch = args.batch or (64 if cnn else 32)

    if cnn:
        model, classes = build_torchvision(args.model.replace("-", "_")), 1000
        inputs = torch.randn(batch, 3, 224, 224, device=dev)
        targets = torch.randint(0, classes, (batch,), device=dev)
        if args.channels_last:
            model = model.to(memory_format=torch.channels_last)
            inputs = inputs.to(memory_format=torch.channels_last)
    else:
        if args.model == "gpt2":
            model, classes = build_gpt2(torch, args.seq + args.kv_len)
        elif args.model == "gpt2-large":
            model, classes = build_gpt2_large(torch, args.seq + args.kv_len)
        elif args.model.startswith("llama"):
            model, classes = build_llama(torch, args.model)
        elif args.model == "bert-base":
            model, classes = build_bert_base(torch, args.seq)
        else:
            model, classes = build_bert_hf(torch, args.seq, args.model == "bert-large-hf")
        inputs = torch.randint(0, classes, (batch, args.seq), device=dev)
        targets = torch.randint(0, classes, (batch, args.seq), device=dev)
    model = model.to(dev)
    half = {"fp16": torch.float16, "bf16": torch.bfloat16}.get(args.precision)
    if half is not None:
        model = model.to(half)
        if cnn:
            inputs = inputs.to(half)
    amp_dtype = {"amp-fp16": torch.float16, "amp-bf16": torch.bfloat16}.get(args.precision)

    def autocast(**kw):  # torch.autocast for the amp-* modes, a no-op context otherwise
        return torch.autocast("cuda", dtype=amp_dtype or torch.float32, enabled=amp_dtype is not None, **kw)

    if args.pass_ == "train":
        model = model.train()
        fused = {"fused": True} if "fused" in torch.optim.Adam.__init__.__code__.co_varnames else {}
        opt = torch.optim.Adam(model.parameters(), lr=1e-4, **fused)
        scaler = torch.cuda.amp.GradScaler(enabled=amp_dtype == torch.float16)
        loss_fn = torch.nn.CrossEntropyLoss()

        def step():
            opt.zero_grad(set_to_none=True)
            with autocast():
                out = model(inputs)
                loss = loss_fn(out.reshape(-1, classes), targets.reshape(-1))
            scaler.scale(loss).backward()
            scaler.step(opt)
            scaler.update()
    elif args.kv_len:
        # Decode: the prompt fills the cache so that the profiled step sees kv_len cached tokens; each
        # step appends its tokens as generate() does (no crop: a cropped cache is a non-contiguous
        # view and would send torch.cat down its slow general path).
        model = model.eval()
        lm = getattr(model, "lm", model)  # GPT-2's wrapper returns logits only: call the model inside
        prompt = args.kv_len - args.seq * (args.warmup + 1) + args.seq
        if prompt < 1:
            ap.error("--kv-len must exceed --seq x --warmup (the warm-up steps grow the cache)")
        from transformers import DynamicCache
        cache = DynamicCache()
        with torch.inference_mode(), autocast():
            lm(input_ids=torch.randint(0, classes, (batch, prompt), device=dev), past_key_values=cache,
               use_cache=True)

        def step():
            with torch.inference_mode(), autocast():
                lm(input_ids=inputs, past_key_values=cache, use_cache=True)
    else:
        model = model.eval()

        def forward():
            with torch.inference_mode(), autocast(cache_enabled=not args.cuda_graphs):
                model(inputs)

        step = forward
        if args.cuda_graphs:
            # PyTorch's recipe: warm up on a side stream (cuDNN's benchmark picks), then capture.
            side = torch.cuda.Stream()
            side.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(side):
                for _ in range(3):
                    forward()
            torch.cuda.current_stream().wait_stream(side)
            graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(graph):
                forward()
            step = graph.replay

    for _ in range(args.warmup):
        step()
    torch.cuda.synchronize()

    name = "%s%s_%s%s_b%d" % (args.model.replace("-", ""), "_infer" if args.pass_ == "infer" else "", args.precision,
                              "_cl" if args.channels_last else "", batch)
    if args.model not in ("resnet50", "bert-base", "gpt2") or args.pass_ == "infer":
        name += ("" if cnn else "_s%d" % args.seq) + ("_kv%d" % args.kv_len if args.kv_len else "") + \
            ("_graphs" if args.cuda_graphs else "")
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
            extra = "" if cnn else ", seq %d" % args.seq
            if args.model in TCSIM_MODEL:
                extra += ", model " + TCSIM_MODEL[args.model]
            if args.pass_ == "infer":
                extra += ", pass infer"
            if args.kv_len:  # the middle timed step's cache (the profiled step's is kv_len)
                extra += ", kv_len %d" % (args.kv_len + args.seq * (args.time_steps // 2 + 1))
                extra += ", kv_cache appended"  # not cropped (files without this field cropped the cache)
            if args.cuda_graphs:
                extra += ", cuda_graphs"
            f.write("# %s, torch %s, cuDNN %s, batch %d, precision %s%s%s\n" % (
                torch.cuda.get_device_name(), torch.__version__, torch.backends.cudnn.version(), batch,
                args.precision, ", channels_last" if args.channels_last else "", extra))
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
