#!/usr/bin/env bash
# Everything a short GPU loan should measure, in order of value, inside one time limit:
#
#   validation/run_lent_gpu.sh OUTDIR SECONDS
#
# 1. ubench (MMA, shared memory, L2/DRAM, launch, clock), 2. mma_probe (bit patterns; checked
# later anywhere with run_mma_probe.sh --check-only), 3. gemm_bench over shapes/h100_timing.csv
# and traces/gemm/transformer_layer.csv, 4. PyTorch steps of ResNet-50, BERT-base and GPT-2
# (AMP), profiled and timed, 5. gemm_bench over traces/gemm/deepbench.csv, 6. the same PyTorch
# steps in TF32. A step that would start with too little time left is skipped and says so.
# clocks_during.csv samples clocks, power and throttle reasons every 200 ms throughout.
# Uses the tools in TCSIM_VALIDATION_BUILD when they run there (built elsewhere with the same
# CUDA), else builds them. Packs OUTDIR/{probe.tar.xz.*,timing.tar.xz,profiles.tar.xz,log.txt}:
# few files, each under 15 MB, for a loan that returns only a handful of files.
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
[[ $# -eq 2 ]] || { echo "usage: $0 OUTDIR SECONDS" >&2; exit 2; }
OUT=$1; LIMIT=$2
START=$(date +%s)
mkdir -p "$OUT" || exit 2
RES=$(mktemp -d /tmp/lent_gpu.XXXXXX)
exec > >(tee -a "$OUT/log.txt") 2>&1
left() { echo $(( LIMIT - ($(date +%s) - START) )); }
say() { echo "[$(( $(date +%s) - START ))s] $*"; }
# run_step NEED_S CAP_S CMD...: runs CMD under min(CAP, time left - 20 s) when NEED seconds remain
run_step() {
  local need=$1 cap=$2; shift 2
  local l; l=$(left)
  if (( l < need )); then say "SKIPPED (only ${l}s left): $*"; return 1; fi
  local t=$(( l - 20 < cap ? l - 20 : cap ))
  say "start (limit ${t}s): $*"
  timeout "$t" "$@"; local rc=$?
  say "exit $rc: $1"
  return $rc
}

VB=${TCSIM_VALIDATION_BUILD:-$ROOT/build-validation}
tools_run() { for t in mma_probe gemm_bench ubench; do
  [[ -x "$VB/$t" ]] && ! ldd "$VB/$t" | grep -q "not found" || return 1; done; }
if ! tools_run; then
  say "tools in $VB missing or not loadable; building in /tmp/build-validation"
  VB=/tmp/build-validation
  GEN=(); command -v ninja >/dev/null && GEN=(-G Ninja)
  cmake -S "$ROOT/validation" -B "$VB" "${GEN[@]}" -DCMAKE_BUILD_TYPE=Release \
    "-DCMAKE_CUDA_ARCHITECTURES=${CUDA_ARCHS:-90a}" >"$RES/build.log" 2>&1 &&
    cmake --build "$VB" -j"$(nproc)" >>"$RES/build.log" 2>&1 || { tail -n 30 "$RES/build.log"; exit 1; }
fi
GPU=$("$VB/ubench" --print-gpu) || { say "no GPU"; exit 3; }
D="$RES/$GPU"; mkdir -p "$D/profiles"
say "GPU $GPU, tools from $VB"
nvidia-smi -q >"$D/nvidia-smi.txt" 2>&1
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,power.draw,power.limit,temperature.gpu \
  --format=csv >"$D/clocks_before.csv" 2>&1

# Clocks, power and throttle reasons every 200 ms while everything runs: which clock the long
# GEMMs held (the power model's question; the counters of `nvidia-smi -q -d PERFORMANCE` at the end
# say whether the firmware capped power at all).
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu,clocks_event_reasons.active \
  --format=csv -lms 200 >"$D/clocks_during.csv" 2>&1 &
SAMPLER=$!
trap 'kill $SAMPLER 2>/dev/null' EXIT

run_step 60 120 "$VB/ubench" --out "$D/ubench"
# SKIP_PROBE=1 leaves the bit patterns out (a board whose MMA datapath another board already
# measured, e.g. the H200 after the H100: same GH100 SM).
[[ ${SKIP_PROBE:-0} == 1 ]] && say "mma_probe skipped (SKIP_PROBE=1)" ||
  run_step 60 150 "$VB/mma_probe" --out "$RES/probe" --gpu-name "$GPU"
if [[ -d "$RES/probe/$GPU" ]]; then
  (cd "$RES/probe" && tar cf - "$GPU" | xz -T0 -6 | split -b 15M -d - "$OUT/probe.tar.xz.")
  say "probe packed: $(ls "$OUT"/probe.tar.xz.* | wc -l) part(s)"
fi
for list in validation/shapes/h100_timing.csv traces/gemm/transformer_layer.csv; do
  run_step 60 240 "$VB/gemm_bench" --shapes "$ROOT/$list" --out "$D/gemm_$(basename "$list" .csv)" --row-timeout 10
done
prof() { run_step 45 100 python3 "$ROOT/validation/gpu/torch_profile.py" --out "$D/profiles" --time-steps 20 "$@"; }
# Sizes that keep the GPU busy (the VM's CPU makes small eager steps host-bound); the same
# sizes as the H100's measured set, so boards compare step for step.
prof --model resnet50 --precision amp-fp16 --channels-last --batch 256
prof --model bert-base --precision amp-fp16 --batch 128 --seq 128
prof --model gpt2 --precision amp-bf16 --batch 16 --seq 1024
run_step 60 150 "$VB/gemm_bench" --shapes "$ROOT/traces/gemm/deepbench.csv" --out "$D/gemm_deepbench" --row-timeout 10
prof --model resnet50 --precision tf32 --batch 128
prof --model bert-base --precision tf32 --batch 64 --seq 128
prof --model gpt2 --precision tf32 --batch 8 --seq 1024
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,power.draw,power.limit,temperature.gpu \
  --format=csv >"$D/clocks_after.csv" 2>&1
kill $SAMPLER 2>/dev/null
nvidia-smi -q -d PERFORMANCE >"$D/nvidia-smi-performance-after.txt" 2>&1
(cd "$D/profiles" && ls *.json >/dev/null 2>&1 && tar cf - . | xz -T0 -6 >"$OUT/profiles.tar.xz")
(cd "$RES" && tar cf - --exclude=profiles "$GPU" | xz -T0 -6 >"$OUT/timing.tar.xz")
say "done; packed: $(ls "$OUT" | tr '\n' ' ')"
