#!/usr/bin/env bash
# Whole-network steps on a lent GPU, for `tcsim validate`'s network comparison, in one short call:
#
#   validation/run_network_loan.sh OUTDIR SECONDS
#
# torch_profile.py --time-steps 20 over the networks models/ ships that the earlier loans did not
# time (the README's main job first: Llama-2-7B decode), in order of value: LLM decode and prefill
# (Hugging Face, fp16/bf16, batch 1 and 16), ResNet-50 inference at batch 1 eagerly and as a CUDA
# graph (the host-bound case) and at 256, training steps of GPT-2 (with its sequence length, which
# the first loans' step files lack), ResNet-18, VGG-16, MobileNet-v2, BERT-base/large (Hugging
# Face), GPT-2 large. Each run writes its profiled step (Chrome trace) and its timed steps; a run
# that would start with less than its limit left is skipped and says so. Clocks and power every
# 200 ms throughout. Packs OUTDIR/{networks.tar.xz.NN, log.txt, clocks_during.csv, nvidia-smi.txt}.
set -uo pipefail
[[ $# -eq 2 ]] || { echo "usage: $0 OUTDIR SECONDS" >&2; exit 2; }
OUT=$1; LIMIT=$2
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
R=$(mktemp -d /tmp/network_loan.XXXXXX)
P=$R/networks
source "$ROOT/validation/loan_log.sh"
mkdir -p "$P"

start_clock_sampler
python3 -c 'import torch, torchvision, transformers; print("torch", torch.__version__, "torchvision",
  torchvision.__version__, "transformers", transformers.__version__)' 2>&1 | tail -n 1

# net LIMIT_S ARGS...: one torch_profile.py run, skipped when fewer than LIMIT_S + 15 s are left
net() {
  local cap=$1; shift
  if (( $(left) < cap + 15 )); then say "SKIPPED ($(left)s left): $*"; return; fi
  step "$cap" python3 "$ROOT/validation/gpu/torch_profile.py" --out "$P" --time-steps 20 "$@"
}
net 90 --model llama2-7b --pass infer --precision fp16 --batch 1 --seq 1 --kv-len 512
net 40 --model resnet50 --pass infer --precision amp-fp16 --channels-last --batch 1
net 40 --model resnet50 --pass infer --precision amp-fp16 --channels-last --batch 1 --cuda-graphs
net 40 --model resnet50 --pass infer --precision fp32 --batch 1
net 60 --model gpt2 --precision amp-bf16 --batch 16 --seq 1024
net 60 --model resnet18 --precision amp-fp16 --channels-last --batch 256
net 60 --model vgg16 --precision amp-fp16 --channels-last --batch 64
net 60 --model mobilenet-v2 --precision amp-fp16 --channels-last --batch 256
net 60 --model bert-large-hf --precision amp-fp16 --batch 32 --seq 128
net 90 --model llama2-7b --pass infer --precision fp16 --batch 1 --seq 512
net 90 --model llama3-8b --pass infer --precision bf16 --batch 1 --seq 1 --kv-len 512
net 90 --model llama2-7b --pass infer --precision fp16 --batch 16 --seq 1 --kv-len 1024
net 40 --model resnet50 --pass infer --precision amp-fp16 --channels-last --batch 256
net 60 --model bert-base-hf --precision amp-fp16 --batch 32 --seq 512
net 60 --model gpt2 --precision tf32 --batch 8 --seq 1024
net 60 --model gpt2-large --precision amp-bf16 --batch 4 --seq 1024
net 60 --model vgg16 --precision tf32 --batch 64
net 60 --model resnet18 --precision tf32 --batch 256
net 60 --model gpt2 --pass infer --precision fp16 --batch 1 --seq 1 --kv-len 512

kill $SAMPLER 2>/dev/null
nvidia-smi -q -d PERFORMANCE >"$R/networks/nvidia-smi-performance-after.txt" 2>&1
tar cf - -C "$R" networks | xz -T0 -6 | split -b 15M -d - "$OUT/networks.tar.xz."
say "packed: $(ls "$OUT" | tr '\n' ' ')"
