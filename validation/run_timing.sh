#!/usr/bin/env bash
# Builds gemm_bench and ubench and runs both on the GPU (well under 15 minutes on an H100):
#
#   validation/run_timing.sh OUTDIR [SHAPES.csv ...]
#
# Writes OUTDIR/<gpu>/ubench/{ubench.csv,meta.yaml} and, per shape list,
# OUTDIR/<gpu>/gemm_<list>/{gemm.csv,meta.yaml} (schemas: validation/measured/README.md).
# Default shape lists: validation/shapes/h100_timing.csv, traces/gemm/deepbench.csv and
# traces/gemm/transformer_layer.csv. Environment: TCSIM_VALIDATION_BUILD (default
# build-validation), CUDA_ARCHS (default "75;80;90a"), UBENCH_ARGS, GEMM_ARGS (extra options).
# Exit: 0 ok, 1 a tool failed, 2 bad usage, 3 no CUDA device.
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
VBUILD=${TCSIM_VALIDATION_BUILD:-$ROOT/build-validation}
ARCHS=${CUDA_ARCHS:-75;80;90a}
say() { echo "run_timing: $*"; }
die() { local code=$1; shift; echo "run_timing: error: $*" >&2; exit "$code"; }

[[ $# -ge 1 ]] || die 2 "usage: $0 OUTDIR [SHAPES.csv ...]"
OUT=$1; shift
SHAPES=("$@")
if [[ ${#SHAPES[@]} -eq 0 ]]; then
  SHAPES=("$ROOT/validation/shapes/h100_timing.csv")
  for f in "$ROOT/traces/gemm/deepbench.csv" "$ROOT/traces/gemm/transformer_layer.csv"; do
    [[ -f "$f" ]] && SHAPES+=("$f")
  done
fi
for f in "${SHAPES[@]}"; do [[ -f "$f" ]] || die 2 "shape list $f not found"; done
command -v cmake >/dev/null || die 2 "cmake not found"
GEN=(); command -v ninja >/dev/null && GEN=(-G Ninja)

say "building gemm_bench and ubench in $VBUILD (CUDA architectures $ARCHS)"
mkdir -p "$VBUILD" || die 2 "cannot create $VBUILD"
if ! { cmake -S "$ROOT/validation" -B "$VBUILD" "${GEN[@]}" -DCMAKE_BUILD_TYPE=Release "-DCMAKE_CUDA_ARCHITECTURES=$ARCHS" \
         >"$VBUILD/build.log" 2>&1 && cmake --build "$VBUILD" -j"$(nproc)" --target gemm_bench ubench >>"$VBUILD/build.log" 2>&1; }; then
  tail -n 20 "$VBUILD/build.log" >&2
  die 1 "build failed (log: $VBUILD/build.log)"
fi
[[ -x "$VBUILD/ubench" && -x "$VBUILD/gemm_bench" ]] || die 1 "the tools were not built (nvcc missing?); see $VBUILD/build.log"

GPU=$("$VBUILD/ubench" --print-gpu); rc=$?
[[ $rc -eq 3 ]] && die 3 "no CUDA device: the timing harness needs an NVIDIA GPU"
[[ $rc -eq 0 && -n "$GPU" ]] || die 1 "cannot query the GPU (ubench --print-gpu exit $rc)"
DEST="$OUT/$GPU"
mkdir -p "$DEST" || die 2 "cannot create $DEST"
say "GPU $GPU; results under $DEST"
command -v nvidia-smi >/dev/null && nvidia-smi -q >"$DEST/nvidia-smi.txt" 2>&1

fails=0
start=$(date +%s)
# shellcheck disable=SC2086
timeout 600 "$VBUILD/ubench" --out "$DEST/ubench" ${UBENCH_ARGS:-} || { say "ubench failed"; fails=$((fails + 1)); }
say "ubench done after $(( $(date +%s) - start )) s"
for f in "${SHAPES[@]}"; do
  name=$(basename "$f" .csv)
  # shellcheck disable=SC2086
  timeout 600 "$VBUILD/gemm_bench" --shapes "$f" --out "$DEST/gemm_$name" ${GEMM_ARGS:-} ||
    { say "gemm_bench failed on $f"; fails=$((fails + 1)); }
  say "gemm_bench $name done after $(( $(date +%s) - start )) s"
done
say "finished in $(( $(date +%s) - start )) s with $fails failure(s)"
[[ $fails -eq 0 ]]
