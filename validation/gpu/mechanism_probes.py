"""Workloads for Nsight Compute behind the mechanisms tcsim's held-out checks leave open, and a
host-cost table of eager ops (sim/gpu/README.md "What is weak"; validation/README.md):

  bn         cuDNN's channels-last training batch norm (batchnorm_{fw,bw}tr_nhwc_semiPersist) at
             channel counts that fill part of its 64-channel blocks (MobileNet-v2's 16-144), beside
             full ones: the H200 trace has C = 16 at 66% and C = 32 at 76% of a full block's time
  conv_b1    FP32 convolutions at batch 1 (cuDNN 9's sm80_xmma_fprop_*_ffma with one CTA or fewer
             per SM): ~530 cycles per 8-deep k-step measured where the model gives 260
  depthwise  MobileNet-v2's depthwise 3x3 convolutions, channels-last fp16, forward and backward
             (sm90_xmma_depthwise_convolution_*, conv2d/dgrad2d_c1_k1_nhwc_specialized)
  strided_copy  channels-last -> NCHW copies (PyTorch's elementwise_kernel<128, 4>), fp16 at C = 8-128 and
             fp32 at C = 16, 32, and two short planes (7x7, 14x14): 4.5-33 distinct 128-byte lines per
             warp access. The H100 ran C = 32 and
             64 at one line request per 2 cycles per SM, the H200 1.17x faster (its 1.2x enabled L2):
             the L2's request rate (l2.line_requests_per_clock) or the SMs'? Another GPU's lts__t_requests
             and times say
  host_ops   no profiler: the host's time per eager call of small ops (views, elementwise,
             reductions, linear, conv, SDPA), printed as CSV (op,calls,us_per_call)

Each workload runs every shape twice (cuDNN's heuristic picks, no benchmark mode), so a kernel-name
filter with --launch-skip 1 sees the warm call. `--list` prints the shapes without a GPU.

  ncu --csv --page raw --kernel-name regex:nhwc_semiPersist --section ... python3 mechanism_probes.py bn
"""
import argparse
import sys
import time

BN_SHAPES = [  # (batch, channels, height, width)
    (256, 16, 112, 112), (256, 32, 112, 112), (256, 64, 112, 112), (256, 96, 112, 112),
    (256, 24, 56, 56), (256, 64, 56, 56), (256, 96, 56, 56), (256, 144, 56, 56),
    (256, 32, 28, 28), (256, 144, 28, 28), (256, 192, 28, 28),
]
CONV_B1_SHAPES = [  # (channels, size, filters, kernel, stride): ResNet-50 at batch 1, FP32 NCHW
    (512, 7, 512, 3, 1), (256, 14, 256, 3, 1), (128, 28, 128, 3, 1), (1024, 14, 256, 1, 1),
    (2048, 7, 512, 1, 1), (64, 56, 64, 3, 1),
]
DEPTHWISE_SHAPES = [  # (channels, size, stride): MobileNet-v2 at batch 256
    (32, 112, 1), (96, 112, 2), (144, 56, 1), (144, 56, 2), (192, 28, 1), (384, 14, 1), (960, 7, 1),
]

STRIDED_COPY_SHAPES = [  # (dtype, batch, channels, height, width): the copy a channels-last tensor to NCHW
    ("fp16", 16, 8, 80, 352), ("fp16", 16, 16, 80, 352), ("fp16", 16, 32, 80, 352), ("fp16", 16, 64, 80, 352),
    ("fp16", 8, 128, 80, 352), ("fp32", 16, 16, 80, 352), ("fp32", 16, 32, 80, 352),
    # short planes: a CTA's 512 elements cover several channels of the same pixels (ResNet-50's 7x7
    # gradients ran 1.35-1.8x the long planes' rate per line)
    ("fp16", 256, 2048, 7, 7), ("fp16", 256, 1024, 14, 14),
]


def strided_copy(torch):
    for dtype, n, c, h, w in STRIDED_COPY_SHAPES:
        t = {"fp16": torch.float16, "fp32": torch.float32}[dtype]
        x = torch.randn(n, c, h, w, device="cuda", dtype=t).to(memory_format=torch.channels_last)
        for _ in range(2):
            x.contiguous()
        del x


def bn(torch):
    for n, c, h, w in BN_SHAPES:
        x = torch.randn(n, c, h, w, device="cuda", dtype=torch.float16).to(memory_format=torch.channels_last)
        x.requires_grad_(True)
        layer = torch.nn.BatchNorm2d(c).cuda().to(memory_format=torch.channels_last)
        for _ in range(2):
            with torch.autocast("cuda", dtype=torch.float16):
                y = layer(x)
            y.backward(torch.ones_like(y))
        del x, y


def conv_b1(torch):
    torch.backends.cudnn.benchmark = False
    for c, s, k, r, stride in CONV_B1_SHAPES:
        x = torch.randn(1, c, s, s, device="cuda")
        conv = torch.nn.Conv2d(c, k, r, stride=stride, padding=r // 2, bias=False).cuda()
        with torch.inference_mode():
            for _ in range(2):
                conv(x)


def depthwise(torch):
    torch.backends.cudnn.benchmark = False
    for c, s, stride in DEPTHWISE_SHAPES:
        x = torch.randn(256, c, s, s, device="cuda", dtype=torch.float16).to(memory_format=torch.channels_last)
        x.requires_grad_(True)
        conv = torch.nn.Conv2d(c, c, 3, stride=stride, padding=1, groups=c, bias=False).cuda()
        conv = conv.to(memory_format=torch.channels_last)
        for _ in range(2):
            with torch.autocast("cuda", dtype=torch.float16):
                y = conv(x)
            y.backward(torch.ones_like(y))
        del x, y


def host_ops(torch, calls):
    f = torch.nn.functional
    h = torch.float16
    a = torch.randn(1, 4096, device="cuda", dtype=h)
    b = torch.randn(1, 4096, device="cuda", dtype=h)
    w = torch.randn(4096, 4096, device="cuda", dtype=h)
    img = torch.randn(1, 64, 56, 56, device="cuda", dtype=h).to(memory_format=torch.channels_last)
    conv = torch.nn.Conv2d(64, 64, 3, padding=1, bias=False).cuda().half().to(memory_format=torch.channels_last)
    q = torch.randn(1, 32, 1, 128, device="cuda", dtype=h)
    kv = torch.randn(1, 32, 512, 128, device="cuda", dtype=h)
    ln = torch.nn.LayerNorm(4096).cuda().half()
    ops = {
        "view": lambda: a.view(64, 64),
        "transpose": lambda: a.view(64, 64).transpose(0, 1),
        "add": lambda: a + b,
        "mul": lambda: a * b,
        "to_fp32": lambda: a.float(),
        "pow": lambda: a.pow(2),
        "mean": lambda: a.mean(-1, keepdim=True),
        "rsqrt": lambda: a.rsqrt(),
        "cat": lambda: torch.cat([a, b], -1),
        "layer_norm": lambda: ln(a),
        "linear": lambda: f.linear(a, w),
        "conv2d": lambda: conv(img),
        "sdpa": lambda: f.scaled_dot_product_attention(q, kv, kv),
    }
    print("op,calls,us_per_call")
    with torch.inference_mode():
        for name, op in ops.items():
            for _ in range(50):
                op()
            torch.cuda.synchronize()
            start = time.perf_counter()
            for _ in range(calls):
                op()
            torch.cuda.synchronize()
            print(f"{name},{calls},{(time.perf_counter() - start) / calls * 1e6:.2f}")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("probe", choices=["bn", "conv_b1", "depthwise", "strided_copy", "host_ops"])
    p.add_argument("--list", action="store_true", help="print the shapes and exit (no GPU needed)")
    p.add_argument("--calls", type=int, default=2000, help="host_ops: timed calls per op")
    a = p.parse_args()
    if a.list:
        shapes = {"bn": BN_SHAPES, "conv_b1": CONV_B1_SHAPES, "depthwise": DEPTHWISE_SHAPES,
                  "strided_copy": STRIDED_COPY_SHAPES, "host_ops": []}[a.probe]
        for s in shapes:
            print(*s, sep=",")
        return 0
    try:
        import torch
    except ImportError:
        print("mechanism_probes: no PyTorch (no CUDA device here)", file=sys.stderr)
        return 3
    if not torch.cuda.is_available():
        print("mechanism_probes: no CUDA device", file=sys.stderr)
        return 3
    if a.probe == "host_ops":
        host_ops(torch, a.calls)
    else:
        {"bn": bn, "conv_b1": conv_b1, "depthwise": depthwise, "strided_copy": strided_copy}[a.probe](torch)
        torch.cuda.synchronize()
        print(f"mechanism_probes {a.probe}: done")
    return 0


if __name__ == "__main__":
    sys.exit(main())
