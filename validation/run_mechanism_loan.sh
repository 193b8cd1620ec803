#!/usr/bin/env bash
# The mechanisms tcsim's held-out checks leave open, measured on a lent GPU in one short call:
#
#   validation/run_mechanism_loan.sh OUTDIR SECONDS
#
# Nsight Compute (raw page, CSV) of validation/gpu/mechanism_probes.py's workloads, in order of the
# time each one costs the models (sim/gpu/README.md, "What is weak"): cuDNN's channels-last training
# batch norm at partial 64-channel blocks, FP32 convolutions at batch 1 (one CTA or fewer per SM),
# MobileNet-v2's depthwise convolutions, channels-last -> NCHW copies (where their line requests
# are served); then the host's time per eager op without any profiler
# (host_ops.csv), and the decode steps the fifth loan timed with a cropped cache (torch_profile.py
# no longer crops). A step that would start with less than its limit left is skipped and says so.
# Packs OUTDIR/{mechanisms.tar.xz.NN, log.txt, clocks_during.csv, nvidia-smi.txt}.
set -uo pipefail
[[ $# -eq 2 ]] || { echo "usage: $0 OUTDIR SECONDS" >&2; exit 2; }
OUT=$1; LIMIT=$2
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
R=$(mktemp -d /tmp/mechanism_loan.XXXXXX)
P=$R/mechanisms
source "$ROOT/validation/loan_log.sh"
mkdir -p "$P"

start_clock_sampler
python3 -c 'import torch; print("torch", torch.__version__, "cudnn", torch.backends.cudnn.version())' 2>&1 | tail -n 1

# probe LIMIT_S NAME KERNEL_REGEX: Nsight Compute of every matching launch of one workload (it runs
# each shape twice: the second call of a shape is the warm one)
probe() {
  local cap=$1 name=$2 regex=$3
  if (( $(left) < cap + 15 )); then say "SKIPPED ($(left)s left): $name"; return; fi
  step "$cap" ncu --csv --page raw --clock-control none --kernel-name "regex:$regex" \
    --section SpeedOfLight --section LaunchStats --section Occupancy --section WarpStateStats \
    --section SchedulerStats --section InstructionStats --section MemoryWorkloadAnalysis \
    python3 "$ROOT/validation/gpu/mechanism_probes.py" "$name" >"$P/ncu_$name.csv"
}
probe 90 bn 'nhwc_semiPersist'
probe 60 conv_b1 'xmma_fprop.*ffma|implicit_convolve_sgemm'
probe 90 depthwise 'depthwise|c1_k1_nhwc'
probe 45 strided_copy 'elementwise_kernel'
if (( $(left) >= 45 )); then
  step 30 python3 "$ROOT/validation/gpu/mechanism_probes.py" host_ops >"$P/host_ops.csv"
else say "SKIPPED ($(left)s left): host_ops"; fi
for a in "--batch 1 --kv-len 512" "--batch 16 --kv-len 1024"; do
  if (( $(left) < 105 )); then say "SKIPPED ($(left)s left): llama2-7b decode $a"; continue; fi
  step 90 python3 "$ROOT/validation/gpu/torch_profile.py" --out "$P" --time-steps 20 \
    --model llama2-7b --pass infer --precision fp16 --seq 1 $a
done

kill $SAMPLER 2>/dev/null
tar cf - -C "$R" mechanisms | xz -T0 -6 | split -b 15M -d - "$OUT/mechanisms.tar.xz."
say "packed: $(ls "$OUT" | tr '\n' ' ')"
