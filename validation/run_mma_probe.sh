#!/usr/bin/env bash
# Builds the CUDA MMA probe, runs the whole probe set on the GPU, then checks every result
# directory against tcsim's emulator (`tcsim mma batch DIR --arch .. --instr .. --check DIR`).
#
#   validation/run_mma_probe.sh OUTDIR [mma_probe options...]   # e.g. --samples 2000
#   validation/run_mma_probe.sh --check-only OUTDIR/<GPU>        # re-check existing results
#   validation/run_mma_probe.sh --check-only validation/measured/H100/mma.tar.xz   # committed ones
#
# Results: OUTDIR/<GPU>/<case>/ (tc-golden layout + meta.yaml), OUTDIR/<GPU>/probe_status.yaml,
# OUTDIR/<GPU>/check_summary.txt. Exit: 0 all checked cases match, 1 mismatches or failures,
# 2 bad usage, 3 no CUDA device. Environment: TCSIM_VALIDATION_BUILD (default build-validation),
# TCSIM_BUILD (tcsim's build dir, default build-validation-tcsim), CUDA_ARCHS (default "75;80;90a").
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
VBUILD=${TCSIM_VALIDATION_BUILD:-$ROOT/build-validation}
TBUILD=${TCSIM_BUILD:-$ROOT/build-validation-tcsim}
ARCHS=${CUDA_ARCHS:-75;80;90a}
say() { echo "run_mma_probe: $*"; }
die() { local code=$1; shift; echo "run_mma_probe: error: $*" >&2; exit "$code"; }

[[ $# -ge 1 ]] || die 2 "usage: $0 OUTDIR [mma_probe options] | $0 --check-only OUTDIR/<GPU>"
command -v cmake >/dev/null || die 2 "cmake not found"
GEN=(); command -v ninja >/dev/null && GEN=(-G Ninja)

build_tcsim() {
  mkdir -p "$TBUILD" || return 1
  # tcsim needs the Debian dependencies (Boost, yaml-cpp, Eigen, HDF5, doctest); best effort.
  if [[ -x "$TBUILD/tcsim" ]] && cmake --build "$TBUILD" -j"$(nproc)" --target tcsim >"$TBUILD/build.log" 2>&1; then
    return 0
  fi
  cmake -S "$ROOT" -B "$TBUILD" "${GEN[@]}" -DCMAKE_BUILD_TYPE=Release -DTCSIM_BUILD_CUDA=OFF \
        -DTCSIM_BUILD_BENCH=OFF >"$TBUILD/build.log" 2>&1 &&
    cmake --build "$TBUILD" -j"$(nproc)" --target tcsim >>"$TBUILD/build.log" 2>&1
}

meta() {  # meta FILE KEY -> the value, unquoted, without a trailing comment
  awk -v k="$2" 'index($0, k": ") == 1 { v = substr($0, length(k) + 3); sub(/[ \t]+#.*$/, "", v);
                  gsub(/^"|"$/, "", v); print v; exit }' "$1"
}

check_all() {  # check_all GPUDIR
  local gdir=$1 summary="$1/check_summary.txt" tcsim="$TBUILD/tcsim"
  local n_ok=0 n_bad=0 n_skip=0 n_err=0
  if ! build_tcsim; then
    say "tcsim could not be built here (see $TBUILD/build.log); results are NOT checked."
    say "check them later on a development machine: $0 --check-only $gdir"
    return 4
  fi
  : >"$summary.tmp"
  for dir in "$gdir"/*/; do
    dir=${dir%/}
    [[ -f "$dir/meta.yaml" && "$(meta "$dir/meta.yaml" tool)" == mma_probe ]] || continue  # ubench, gemm_*
    local case arch instr sat fmt out rc
    case=$(basename "$dir")
    arch=$(meta "$dir/meta.yaml" arch)
    instr=$(meta "$dir/meta.yaml" instruction)
    sat=$(meta "$dir/meta.yaml" satfinite)
    fmt=$(meta "$dir/meta.yaml" input_format)
    if [[ "$fmt" == fp64 ]]; then
      printf '%-52s not checked (fp64 files are an extension tcsim mma batch does not read)\n' "$case" >>"$summary.tmp"
      n_skip=$((n_skip + 1)); continue
    fi
    local args=("$dir" --arch "$arch" --instr "$instr" --check "$dir")
    [[ "$sat" == true ]] && args+=(--satfinite)
    out=$(timeout 300 "$tcsim" mma batch "${args[@]}" 2>&1); rc=$?
    local spm; spm=$(meta "$dir/meta.yaml" sparse_meta)
    if [[ -n "$spm" && "$spm" != none && $rc -eq 3 ]]; then
      # 2:4 sparse: the default reading (blocks of L kept products) failed; try the dense reading
      # (numerics/sparse/structured.h) and say which one the hardware follows.
      local out2 rc2
      out2=$(timeout 300 "$tcsim" mma batch "${args[@]}" --sparse-blocks dense 2>&1); rc2=$?
      if [[ $rc2 -eq 0 ]]; then
        out="$out
(sparse) the kept-products reading mismatches; --sparse-blocks dense matches: $(printf '%s\n' "$out2" | grep -v '^\s*$' | tail -n 1)"
      fi
    fi
    local last; last=$(printf '%s\n' "$out" | grep -v '^\s*$' | tail -n 1)
    case $rc in
      0) printf '%-52s match     %s\n' "$case" "$last" >>"$summary.tmp"; n_ok=$((n_ok + 1)) ;;
      3) printf '%-52s MISMATCH  %s\n' "$case" "$last" >>"$summary.tmp"; n_bad=$((n_bad + 1))
         printf '%s\n' "$out" >"$dir/check_output.txt" ;;
      2) printf '%-52s not emulated / input error: %s\n' "$case" "$last" >>"$summary.tmp"; n_skip=$((n_skip + 1)) ;;
      *) printf '%-52s ERROR rc=%d %s\n' "$case" "$rc" "$last" >>"$summary.tmp"; n_err=$((n_err + 1)) ;;
    esac
  done
  printf 'cases: %d match, %d MISMATCH, %d not checked, %d errors\n' "$n_ok" "$n_bad" "$n_skip" "$n_err" >>"$summary.tmp"
  mv "$summary.tmp" "$summary"
  cat "$summary"
  say "summary written to $summary (mismatch details: <case>/check_output.txt)"
  [[ $n_bad -eq 0 && $n_err -eq 0 ]]
}

if [[ "$1" == --check-only ]]; then
  [[ $# -eq 2 && ( -d "$2" || -f "$2" ) ]] || die 2 "--check-only needs an existing OUTDIR/<GPU> directory or a measured mma.tar.xz"
  target=$2
  if [[ -f "$2" ]]; then  # validation/measured/<GPU>/mma.tar.xz: the case directories, packed
    tmp=$(mktemp -d) || die 2 "cannot create a temporary directory"
    trap 'rm -rf "$tmp"' EXIT
    tar xJf "$2" -C "$tmp" || die 2 "cannot unpack $2"
    target=$(dirname "$(ls "$tmp"/*/probe_status.yaml | head -n 1)")
  fi
  check_all "$target"; rc=$?
  [[ $rc -eq 4 ]] && exit 1
  exit $rc
fi

OUT=$1; shift
mkdir -p "$OUT" || die 2 "cannot create $OUT"
say "building mma_probe in $VBUILD (CUDA architectures $ARCHS)"
mkdir -p "$VBUILD" "$TBUILD" || die 2 "cannot create the build directories"
if ! { cmake -S "$ROOT/validation" -B "$VBUILD" "${GEN[@]}" -DCMAKE_BUILD_TYPE=Release "-DCMAKE_CUDA_ARCHITECTURES=$ARCHS" \
         >"$VBUILD/build.log" 2>&1 && cmake --build "$VBUILD" -j"$(nproc)" --target mma_probe >>"$VBUILD/build.log" 2>&1; }; then
  tail -n 20 "$VBUILD/build.log" >&2
  die 1 "building mma_probe failed (log: $VBUILD/build.log)"
fi
[[ -x "$VBUILD/mma_probe" ]] || die 1 "mma_probe was not built (nvcc missing?); see $VBUILD/build.log"

start=$(date +%s)
timeout 1500 "$VBUILD/mma_probe" --out "$OUT" "$@"; prc=$?
say "mma_probe finished in $(( $(date +%s) - start )) s with exit code $prc"
[[ $prc -eq 3 ]] && die 3 "no CUDA device: the probe needs an NVIDIA GPU"
[[ $prc -eq 2 ]] && die 2 "bad mma_probe options"
[[ $prc -eq 124 ]] && die 1 "mma_probe timed out"
say "building tcsim in $TBUILD to check the results"

# the GPU directory this run wrote: the newest probe_status.yaml under OUT
status=$(ls -t "$OUT"/*/probe_status.yaml 2>/dev/null | head -n 1)
[[ -n "$status" ]] || die 1 "mma_probe wrote no probe_status.yaml under $OUT"
gdir=$(dirname "$status")
check_all "$gdir"; crc=$?
if [[ $crc -eq 4 ]]; then exit $(( prc == 0 ? 0 : 1 )); fi
[[ $prc -eq 0 && $crc -eq 0 ]] && exit 0
exit 1
