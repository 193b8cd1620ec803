#!/usr/bin/env bash
# Vidur's operator profile on a lent GPU, in one short call, packed into few files:
#
#   validation/run_vidur_layer_loan.sh OUTDIR [EXTRA_CUBIN...]
#
# 1. builds validation/gpu/llm_layer_kernels.cu (Sarathi-Serve's RMS norm, SiLU x up and rotary
#    kernels, restated) into a shared library with the machine's nvcc;
# 2. vidur_layer.py: the decoder layers of Vidur's three models (Llama-2-7B, Llama-3-8B at TP 1-8,
#    phi-2) at 1-4096 tokens, timed as Vidur times them, in Vidur's CSV format;
# 3. Nsight Compute (warm: --cache-control none, as the layer runs back to back) of the layer's
#    memory-bound kernels at a few points;
# 4. cuobjdump --dump-sass of the library and of validation/sass/loops.cu for sm_80 (and of any
#    EXTRA_CUBIN), to check scripts/sass_loops.py against the toolkit's disassembler.
# Clocks and power are sampled every 200 ms throughout. Writes OUTDIR/{vidur/<model>/mlp.csv,
# vidur/kernels.csv, meta.yaml, ncu_llm_layer.csv.xz, sass.txt.xz, log.txt}: at most 8 files.
set -uo pipefail
[[ $# -ge 1 ]] || { echo "usage: $0 OUTDIR [EXTRA_CUBIN...]" >&2; exit 2; }
OUT=$1; shift
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
G=$ROOT/validation/gpu
R=$(mktemp -d /tmp/vidur_layer.XXXXXX)
source "$ROOT/validation/loan_log.sh"

nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem,power.limit --format=csv
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu,clocks_event_reasons.active \
  --format=csv -lms 200 >"$R/clocks.csv" 2>&1 &
SAMPLER=$!
trap 'kill $SAMPLER 2>/dev/null' EXIT

export LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-}${LD_LIBRARY_PATH:+:}/usr/local/cuda/lib64  # libcudart, if PyTorch has not loaded it
LIB=$R/llm_layer_kernels.so
step 120 nvcc -O3 -shared -Xcompiler -fPIC -cudart shared -gencode arch=compute_90a,code=sm_90a \
  -gencode arch=compute_80,code=sm_80 -o "$LIB" "$G/llm_layer_kernels.cu" || exit 1
step 180 python3 "$G/vidur_layer.py" --lib "$LIB" --out "$OUT"
# The memory-bound kernels only (not the GEMMs), warm, the clocks left alone.
step 200 ncu --profile-from-start off --csv --page raw --clock-control none --cache-control none \
  --kernel-name regex:'rms_norm|silu_and_mul|rotary|gather|index|elementwise|layer_norm' \
  --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section SchedulerStats \
  --section ComputeWorkloadAnalysis --section InstructionStats --section LaunchStats --section Occupancy \
  python3 "$G/vidur_layer.py" --lib "$LIB" --out "$R/ncu" --ncu-configs \
  Llama-2-7b-hf:1:1,Llama-2-7b-hf:1:128,Llama-2-7b-hf:1:1024,Llama-2-7b-hf:1:4096,Meta-Llama-3-8B:8:4096,phi-2:1:4096 \
  >"$R/ncu_raw.txt"
sed -n '/^"ID"/,$p' "$R/ncu_raw.txt" >"$R/ncu_llm_layer.csv"
[[ -s $R/ncu_llm_layer.csv ]] && xz -T0 -6 -c "$R/ncu_llm_layer.csv" >"$OUT/ncu_llm_layer.csv.xz"

{
  echo "== llm_layer_kernels.so"; cuobjdump --dump-sass "$LIB"
  nvcc -cubin -arch=sm_80 -O3 -o "$R/loops.cubin" "$ROOT/validation/sass/loops.cu" &&
    { echo "== validation/sass/loops.cu sm_80"; cuobjdump --dump-sass "$R/loops.cubin"; }
  for c in "$@"; do echo "== $c"; cuobjdump --dump-sass "$c"; done
} >"$R/sass.txt" 2>&1
xz -T0 -6 -c "$R/sass.txt" >"$OUT/sass.txt.xz"
kill $SAMPLER 2>/dev/null
echo "== clocks (every 200 ms)"; cat "$R/clocks.csv"
say "packed: $(cd "$OUT" && find . -type f | tr '\n' ' ')"
