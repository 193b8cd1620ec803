#!/usr/bin/env python3
"""Clock, board power and throughput of sustained GEMMs and copies on this GPU: each workload runs
back to back for --seconds while NVML is sampled every --sample-ms, so the steady state under the
board's power limit shows (the question tcsim's power model answers: at which clock does this
kernel run when it runs long enough to meet the limit).

Runs only on a machine with an NVIDIA GPU, PyTorch and NVML (nvidia-ml-py); not part of tcsim's tests.

  python3 validation/gpu/power_steady.py --out OUT [--seconds 4] [--sample-ms 20] [--size 8192]

Workloads: size^3 GEMMs in fp16 and bf16 (random normal operands, and fp16 with all-zero operands:
the datapath's toggling), tf32, fp32 (CUDA cores), int8 (torch._int_mm) and fp8 e4m3 -> bf16
(torch._scaled_mm, sm_89+), a DRAM-bound copy of 2 GiB, and 2 s idle. A workload the GPU or PyTorch
lacks is skipped and says so.

Writes OUT/power_samples.csv (every NVML sample: workload, seconds since its start, SM clock,
power averaged by the driver and instantaneous where NVML has it, clock-event reasons, temperature),
OUT/power_chunks.csv (every timed chunk of calls: start/end since the workload's start, calls,
CUDA-event time per call, TFLOP/s or GB/s), OUT/power_steady.csv (per workload over its second
half: median clock, median power, throughput) and OUT/meta.yaml.
Exit codes: 0 ok, 2 bad options, 3 no CUDA device.
"""
import argparse
import csv
import os
import statistics
import sys
import threading
import time

from torch_meta import meta_header


class Sampler:
    """NVML every `period` seconds on a thread; samples go to `rows` tagged with the current workload."""

    def __init__(self, period):
        import pynvml
        self.nv = pynvml
        pynvml.nvmlInit()
        self.h = pynvml.nvmlDeviceGetHandleByIndex(0)
        self.period = period
        self.rows = []
        self.tag, self.t0 = "start", time.time()
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)

    def instant_power_w(self):
        try:  # NVML_FI_DEV_POWER_INSTANT = 186 (driver 535+)
            v = self.nv.nvmlDeviceGetFieldValues(self.h, [186])[0]
            if v.nvmlReturn == 0:
                return v.value.uiVal / 1000.0
        except Exception:
            pass
        return float("nan")

    def reasons(self):
        for fn in ("nvmlDeviceGetCurrentClocksEventReasons", "nvmlDeviceGetCurrentClocksThrottleReasons"):
            if hasattr(self.nv, fn):
                try:
                    return getattr(self.nv, fn)(self.h)
                except Exception:
                    pass
        return -1

    def run(self):
        nv = self.nv
        while not self.stop.is_set():
            t = time.time()
            try:
                clock = nv.nvmlDeviceGetClockInfo(self.h, nv.NVML_CLOCK_SM)
                power = nv.nvmlDeviceGetPowerUsage(self.h) / 1000.0
                temp = nv.nvmlDeviceGetTemperature(self.h, nv.NVML_TEMPERATURE_GPU)
                self.rows.append((self.tag, t - self.t0, clock, power, self.instant_power_w(), self.reasons(), temp))
            except Exception as e:  # keep sampling; note the failure once
                self.rows.append((self.tag, t - self.t0, -1, float("nan"), float("nan"), str(e)[:40], -1))
            self.stop.wait(max(0.0, self.period - (time.time() - t)))

    def start_workload(self, tag):
        self.tag, self.t0 = tag, time.time()


WORKLOADS = ("fp16_gemm_random", "fp16_gemm_zeros", "bf16_gemm_random", "tf32_gemm_random", "fp32_gemm_random",
             "int8_gemm_random", "fp8_gemm_random", "copy_2GiB")


def workloads(torch, n):
    dev = torch.device("cuda")
    gen = torch.Generator(device=dev).manual_seed(1)
    flops = 2.0 * n * n * n

    def rand(dtype, rows=n, cols=n):
        return torch.randn(rows, cols, device=dev, dtype=torch.float32, generator=gen).to(dtype)

    out = []

    def gemm(name, dtype, tf32=False, zeros=False):
        def make():
            torch.backends.cuda.matmul.allow_tf32 = tf32
            a = torch.zeros(n, n, device=dev, dtype=dtype) if zeros else rand(dtype)
            b = torch.zeros(n, n, device=dev, dtype=dtype) if zeros else rand(dtype)
            return lambda: torch.mm(a, b)
        out.append((name, make, flops, "tflops"))

    gemm("fp16_gemm_random", torch.float16)
    gemm("fp16_gemm_zeros", torch.float16, zeros=True)
    gemm("bf16_gemm_random", torch.bfloat16)
    gemm("tf32_gemm_random", torch.float32, tf32=True)
    gemm("fp32_gemm_random", torch.float32)

    def int8():
        a = torch.randint(-128, 128, (n, n), device=dev, dtype=torch.int8, generator=gen)
        b = torch.randint(-128, 128, (n, n), device=dev, dtype=torch.int8, generator=gen)
        return lambda: torch._int_mm(a, b)
    out.append(("int8_gemm_random", int8, flops, "tflops"))

    def fp8():
        a = rand(torch.float32).to(torch.float8_e4m3fn)
        b = rand(torch.float32).to(torch.float8_e4m3fn).t()  # column-major, as _scaled_mm wants
        one = torch.ones((), device=dev, dtype=torch.float32)
        return lambda: torch._scaled_mm(a, b, scale_a=one, scale_b=one, out_dtype=torch.bfloat16)
    out.append(("fp8_gemm_random", fp8, flops, "tflops"))

    def copy():
        src = torch.randn(2 ** 29, device=dev, dtype=torch.float32, generator=gen)  # 2 GiB
        dst = torch.empty_like(src)
        return lambda: dst.copy_(src)
    out.append(("copy_2GiB", copy, 2.0 * 2 ** 31, "gbps"))
    assert tuple(w[0] for w in out) == WORKLOADS
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--seconds", type=float, default=4.0, help="per workload")
    ap.add_argument("--sample-ms", type=float, default=20.0)
    ap.add_argument("--size", type=int, default=8192, help="GEMM M = N = K")
    ap.add_argument("--only", default="", help="comma-separated workload names (default: all)")
    args = ap.parse_args()
    if args.seconds < 1 or args.sample_ms < 1 or args.size < 256:
        ap.error("--seconds >= 1, --sample-ms >= 1, --size >= 256")
    unknown = sorted(set(w for w in args.only.split(",") if w) - set(WORKLOADS))
    if unknown:
        ap.error(f"--only: unknown workload(s) {unknown}; known: {', '.join(WORKLOADS)}")
    import torch
    if not torch.cuda.is_available():
        print("power_steady: no CUDA device", file=sys.stderr)
        sys.exit(3)
    os.makedirs(args.out, exist_ok=True)
    sampler = Sampler(args.sample_ms / 1000.0)
    sampler.thread.start()
    only = set(w for w in args.only.split(",") if w)
    chunks, steady = [], []
    sampler.start_workload("idle")
    time.sleep(2.0)
    for name, make, work, unit in workloads(torch, args.size):
        if only and name not in only:
            continue
        try:
            fn = make()
            fn(); fn()
            torch.cuda.synchronize()
        except (RuntimeError, AttributeError, TypeError) as e:
            print(f"power_steady: {name}: skipped ({str(e).splitlines()[0][:120]})", flush=True)
            continue
        # Calls per chunk: about 50 ms of work, at least one call.
        e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        e0.record(); fn(); e1.record(); e1.synchronize()
        per_call_s = max(e0.elapsed_time(e1) / 1000.0, 1e-6)
        calls = max(1, int(0.05 / per_call_s))
        sampler.start_workload(name)
        start = time.time()
        rows = []
        while time.time() - start < args.seconds:
            t_a = time.time() - start
            e0.record()
            for _ in range(calls):
                fn()
            e1.record()
            e1.synchronize()
            t_b = time.time() - start
            us = e0.elapsed_time(e1) * 1000.0 / calls
            rate = work / (us * 1e-6) / (1e12 if unit == "tflops" else 1e9)
            rows.append((name, t_a, t_b, calls, us, rate))
        chunks += rows
        half = args.seconds / 2
        samples = [s for s in sampler.rows if s[0] == name and s[1] >= half and s[2] > 0]
        late = [r for r in rows if r[1] >= half] or rows
        clock = statistics.median(s[2] for s in samples) if samples else float("nan")
        power = statistics.median(s[3] for s in samples) if samples else float("nan")
        inst = statistics.median(s[4] for s in samples) if samples else float("nan")
        us = statistics.median(r[4] for r in late)
        rate = statistics.median(r[5] for r in late)
        reasons = sorted(set(s[5] for s in samples if isinstance(s[5], int)))
        steady.append((name, len(samples), clock, power, inst, us, rate, unit, "|".join(hex(r) for r in reasons)))
        print(f"{name}: {clock:.0f} MHz, {power:.0f} W (instant {inst:.0f}), {us:.1f} us/call, {rate:.1f} {unit}, "
              f"reasons {steady[-1][-1]}", flush=True)
        del fn
        torch.cuda.empty_cache()
        sampler.start_workload("cooldown_after_" + name)
        time.sleep(0.5)
    sampler.stop.set()
    sampler.thread.join()
    with open(os.path.join(args.out, "power_samples.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["workload", "t_s", "sm_clock_mhz", "power_w", "power_instant_w", "clock_event_reasons", "temp_c"])
        for s in sampler.rows:
            w.writerow([s[0], f"{s[1]:.3f}", s[2], f"{s[3]:.2f}", f"{s[4]:.2f}", s[5] if not isinstance(s[5], int) else hex(s[5]), s[6]])
    with open(os.path.join(args.out, "power_chunks.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["workload", "start_s", "end_s", "calls", "us_per_call", "rate"])
        for r in chunks:
            w.writerow([r[0], f"{r[1]:.3f}", f"{r[2]:.3f}", r[3], f"{r[4]:.2f}", f"{r[5]:.2f}"])
    with open(os.path.join(args.out, "power_steady.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["workload", "samples", "sm_clock_mhz", "power_w", "power_instant_w", "us_per_call", "rate", "unit",
                    "clock_event_reasons"])
        for r in steady:
            w.writerow([r[0], r[1], f"{r[2]:.0f}", f"{r[3]:.1f}", f"{r[4]:.1f}", f"{r[5]:.2f}", f"{r[6]:.2f}", r[7], r[8]])
    with open(os.path.join(args.out, "meta.yaml"), "w") as f:
        f.write(meta_header(torch) + f"size: {args.size}\nseconds: {args.seconds}\nsample_ms: {args.sample_ms}\n"
                f"power_limit_w: {sampler.nv.nvmlDeviceGetEnforcedPowerLimit(sampler.h) / 1000.0}\n")


if __name__ == "__main__":
    main()
