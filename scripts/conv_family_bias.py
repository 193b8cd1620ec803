#!/usr/bin/env python3
"""NeuSight convolutions by cuDNN algorithm family: how often the model's pick matches the kernels the
measurement ran, and the bias of the fused-Winograd rows (measured and modelled) by input channels.

Usage (the figures in sim/gpu/README.md, "Convolutions", fused Winograd's inverse transform):
  build/tcsim validate -j 2 -c configs/gpu/a100_80gb_pcie.yaml $S/neusight/kernels/A100-80GB-PCIe/conv.csv -o out/conv
  /usr/bin/python3 scripts/conv_family_bias.py $S/neusight/kernels/A100-80GB-PCIe/conv.csv out/conv/summary.csv
(S=../shared/data). Standard library only.
"""
import csv
import statistics
import sys


def measured_family(kernels):
    if "winogradforwarddata4x4" in kernels:
        return "nonfused"
    if "scudnn_winograd" in kernels:
        return "fused"
    if "fft" in kernels.lower() or "gcgemm" in kernels:
        return "fft"
    if "scudnn" in kernels:
        return "implicit"
    return "legacy"


MODEL_FAMILY = {"cuDNN WINOGRAD_NONFUSED": "nonfused", "cuDNN WINOGRAD": "fused", "cuDNN IMPLICIT_GEMM": "implicit",
                "cuDNN IMPLICIT_PRECOMP_GEMM": "implicit", "cuDNN FFT_TILING": "fft"}


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    measured = list(csv.DictReader(open(sys.argv[1])))
    predicted = list(csv.DictReader(open(sys.argv[2])))
    if len(measured) != len(predicted):
        sys.exit("the summary does not have one row per measured row")
    rows = [(m, p, measured_family(m["Kernels"]), MODEL_FAMILY.get(p["mapping"].split(":")[0], "other"))
            for m, p in zip(measured, predicted)]
    agree = sum(1 for _, _, a, b in rows if a == b)
    print(f"model's algorithm family = measured family: {agree} of {len(rows)} rows")
    print("fused Winograd rows (measured and modelled, >= 300 us), error by input channels C:")
    for lo, hi in [(1, 16), (16, 32), (32, 64), (64, 128), (128, 512), (512, 1 << 30)]:
        errors = [float(p["error_pct"]) for m, p, a, b in rows
                  if a == b == "fused" and lo <= int(m["Input_Channel"]) < hi and float(p["measured_us"]) >= 300]
        if errors:
            print(f"  C {lo}-{hi if hi < 1 << 30 else 'up'}: {len(errors)} rows, bias {statistics.mean(errors):+.1f}%, "
                  f"MAPE {statistics.mean(abs(e) for e in errors):.1f}%")


if __name__ == "__main__":
    main()
