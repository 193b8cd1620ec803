#!/usr/bin/env python3
"""NeuSight convolutions by cuDNN algorithm family: how often the model's pick matches the kernels the
measurement ran, the bias of the fused-Winograd rows (measured and modelled) by input channels, and the
error if the model had picked the family that ran (each row's candidate of that family, from the
`notes` column's "benchmark mode, fastest of: ..." kernel times plus the row's host and launch time):
a bound on what a better algorithm choice alone could give.

Usage (the figures in sim/gpu/README.md, "Convolutions", fused Winograd's inverse transform):
  build/tcsim validate -j 2 -c configs/gpu/a100_80gb_pcie.yaml $S/neusight/kernels/A100-80GB-PCIe/conv.csv -o out/conv
  /usr/bin/python3 scripts/conv_family_bias.py $S/neusight/kernels/A100-80GB-PCIe/conv.csv out/conv/summary.csv
(S=../shared/data). Standard library only.
"""
import csv
import re
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


CANDIDATE = re.compile(r"([A-Z_]+) ([0-9.]+) us")


def candidate_us(notes):
    """{family: kernel time in us} of the benchmark-mode note ({} when the model timed one algorithm)."""
    for note in notes.split("; "):
        if note.startswith("benchmark mode, fastest of: "):
            return {MODEL_FAMILY.get("cuDNN " + name, name): float(us)
                    for name, us in CANDIDATE.findall(note[len("benchmark mode, fastest of: "):])}
    return {}


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
    if "notes" not in predicted[0]:
        return
    # The right family's kernel time plus what the row adds to its kernels (host, launches): the predicted
    # time minus the fastest candidate's. Rows whose family the model has no candidate for keep their pick.
    right = {}
    for m, p, a, b in rows:
        if not p["predicted_us"]:
            continue
        cands = candidate_us(p["notes"])
        extra = float(p["predicted_us"]) - min(cands.values()) if cands else 0
        t = cands[a] + extra if a in cands else float(p["predicted_us"])
        right.setdefault(a, []).append(100 * (t / float(p["measured_us"]) - 1))
    every = [e for v in right.values() for e in v]
    now = [float(p["error_pct"]) for _, p, _, _ in rows if p["error_pct"]]
    print(f"with each row's candidate of the measured family: MAPE {statistics.mean(abs(e) for e in every):.2f}% "
          f"(now {statistics.mean(abs(e) for e in now):.2f}%), bias {statistics.mean(every):+.1f}%")
    for fam, errors in sorted(right.items(), key=lambda kv: -len(kv[1])):
        print(f"  {fam}: {len(errors)} rows, MAPE {statistics.mean(abs(e) for e in errors):.1f}%, "
              f"bias {statistics.mean(errors):+.1f}%")


if __name__ == "__main__":
    main()
