"""Runs training steps of torch_profile.py's models with no profiler attached, for tools that
attach their own (Nsight Compute):

  ncu --kernel-name regex:'layer_norm|softmax' --launch-skip 100 --launch-count 100 \
      python3 validation/gpu/train_steps.py --model bert-base --precision amp-fp16 --batch 32
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch  # noqa: E402
import torch_profile as tp  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", choices=["resnet50", "bert-base", "gpt2"], default="bert-base")
    ap.add_argument("--precision", choices=["fp32", "tf32", "amp-fp16", "amp-bf16"], default="amp-fp16")
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--seq", type=int, default=128)
    ap.add_argument("--steps", type=int, default=3)
    a = ap.parse_args()
    torch.backends.cuda.matmul.allow_tf32 = torch.backends.cudnn.allow_tf32 = a.precision == "tf32"
    if a.model == "resnet50":
        model, classes = tp.build_resnet50(torch)
        x = torch.randn(a.batch, 3, 224, 224, device="cuda")
        y = torch.randint(0, classes, (a.batch,), device="cuda")
    else:
        model, classes = (tp.build_bert_base if a.model == "bert-base" else tp.build_gpt2)(torch, a.seq)
        x = torch.randint(0, classes, (a.batch, a.seq), device="cuda")
        y = torch.randint(0, classes, (a.batch * a.seq,), device="cuda")
    model = model.cuda().train()
    opt = torch.optim.SGD(model.parameters(), lr=1e-3)
    amp = {"amp-fp16": torch.float16, "amp-bf16": torch.bfloat16}.get(a.precision)
    for _ in range(a.steps):
        opt.zero_grad(set_to_none=True)
        with torch.autocast("cuda", dtype=amp or torch.float32, enabled=amp is not None):
            out = model(x)
            loss = torch.nn.functional.cross_entropy(out.reshape(-1, classes).float(), y)
        loss.backward()
        opt.step()
    torch.cuda.synchronize()
    print(f"train_steps: {a.steps} steps of {a.model} {a.precision} b{a.batch}")


if __name__ == "__main__":
    main()
