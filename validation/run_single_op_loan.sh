#!/usr/bin/env bash
# The single-op sets on a lent GPU, in one short call, packed into few files:
#
#   validation/run_single_op_loan.sh SHAPES_CSV OUTDIR
#
# 1. conv_profile.py: DeepBench's convolutions (SHAPES_CSV: ../shared/data/deepbench/
#    v100_train_fp16_convolution.csv, copied beside the checkout when ../shared does not travel),
#    every pass in fp16/bf16/TF32/FP32, NCHW and channels-last, heuristic and autotuned picks;
# 2. op_profile.py --suite llm_ops and --suite gemm;
# 3. Nsight Compute of the llm_ops kernels at decode-to-prefill shapes (hidden 4096);
# 4. power_steady.py, 2 s per workload.
# Each step has its own time limit; clocks/power are sampled every 200 ms throughout. Writes
# OUTDIR/{conv_deepbench.tar.xz, op_profile.tar.xz, ncu_llm_ops.csv.xz, power_steady.tar.xz,
# log.txt, clocks_during.csv, nvidia-smi.txt}: at most 8 files, as a loan returns them.
set -uo pipefail
[[ $# -eq 2 ]] || { echo "usage: $0 SHAPES_CSV OUTDIR" >&2; exit 2; }
SHAPES=$1; OUT=$2
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
G=$ROOT/validation/gpu
R=$(mktemp -d /tmp/single_op.XXXXXX)
source "$ROOT/validation/loan_log.sh"

start_clock_sampler

step 100 python3 "$G/conv_profile.py" --shapes "$SHAPES" --out "$R/conv_deepbench" --budget 80 \
  --modes fp16_nchw,fp16_nhwc,fp32_nchw,tf32_nchw,bf16_nhwc,fp16_nhwc_bench
step 50 python3 "$G/op_profile.py" --suite llm_ops --out "$R/op_profile" --budget 40
step 70 python3 "$G/op_profile.py" --suite gemm --out "$R/op_profile" --budget 60
# ncu's default cache control flushes the caches before each replayed pass: cold-cache kernels.
step 150 ncu --profile-from-start off --csv --page raw --clock-control none \
  --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats \
  --section LaunchStats --section Occupancy --section SchedulerStats \
  python3 "$G/op_profile.py" --suite llm_ops --out "$R/ncu" --ncu-shapes 1x4096,128x4096,1024x4096,4096x4096 \
  >"$R/ncu_raw.txt"
# ncu prints its own notes (==PROF==, ==WARNING==) on stdout before the CSV: keep the CSV
sed -n '/^"ID"/,$p' "$R/ncu_raw.txt" >"$R/ncu_llm_ops.csv"
step 45 python3 "$G/power_steady.py" --out "$R/power_steady" --seconds 2
mkdir -p "$R/power_steady"; nvidia-smi -q -d PERFORMANCE >"$R/power_steady/nvidia-smi-performance-after.txt" 2>&1

for d in conv_deepbench op_profile power_steady; do
  [[ -d $R/$d ]] && tar cf - -C "$R" "$d" | xz -T0 -6 >"$OUT/$d.tar.xz"
done
[[ -s $R/ncu_llm_ops.csv ]] && xz -T0 -6 -c "$R/ncu_llm_ops.csv" >"$OUT/ncu_llm_ops.csv.xz"
say "packed: $(ls "$OUT" | tr '\n' ' ')"
