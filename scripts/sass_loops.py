#!/usr/bin/env python3
"""Instruction counts of the loops in a cubin, without cuobjdump or nvdisasm.

    nvcc -cubin -arch=sm_80 -O3 -o k.cubin k.cu && scripts/sass_loops.py k.cubin

The memory-bound kernel model (sim/gpu/memory/memory_launch.cpp) charges a loop kernel its SASS
instructions per iteration. The CUDA toolkit here has nvcc and ptxas but no disassembler, so this
reads the machine code itself: on sm_70 and later every instruction is 16 bytes; the low 9 bits
name the operation and bits 9..11 the operand form (register, immediate, constant bank); a BRA
(0x947) holds a signed byte offset, relative to the next instruction, in bits 32..81. A backward
BRA closes a loop (its target is the loop head); a forward BRA inside the body that jumps over a
block (a slow path: IEEE division's subroutine call, a device assert) is reported with the block
it skips, so the hot path is the body less those blocks.

Per loop it also prints the hot path's static stall cycles (bits 105..108 of each instruction, the
cycles the compiler makes the warp wait before its next instruction: Jia et al., "Dissecting the
NVIDIA Volta GPU Architecture via Microbenchmarking", 2018, sec. 2.1) and its instructions by
pipeline, as Nsight Compute's Kernel Profiling Guide assigns them (alu: integer, logic, compares,
FP32-to-FP16 conversion; fma: FP32 add/multiply; fmaheavy: IMAD and the FP16 pairs; xu: special
functions and conversions; lsu: global/shared memory and shuffles; ctrl: branches, barriers,
constant loads; uniform: the U* datapath).

The operation names come from `cuobjdump --dump-sass` of nvcc 13.0 cubins for sm_80 and sm_90a
(validation/measured/H200/vidur_layer/sass.txt.xz, read on a lent GPU): the 87 opcodes there, no
name clash in the low 9 bits; an opcode not among them prints as op_<hex>. The instructions, stall
counts and loops of all twelve sm_80 kernels listed on the loan matched this reader's; the committed
listing keeps seven of them, which validation/sass/check_sass_loops.py compares in CTest.
"""
import re
import struct
import subprocess
import sys

BRA, EXIT = 0x947, 0x94D

# Operation (opcode & 0x1FF) -> mnemonic, from the cuobjdump listing named above.
NAMES = {
    0x002: "MOV", 0x007: "SEL", 0x00B: "FSETP", 0x00C: "ISETP", 0x010: "IADD3", 0x011: "LEA", 0x012: "LOP3",
    0x013: "IABS", 0x019: "SHF", 0x01C: "PLOP3", 0x020: "FMUL", 0x021: "FADD", 0x023: "FFMA", 0x024: "IMAD",
    0x025: "IMAD.WIDE", 0x027: "IMAD.HI", 0x030: "HADD2", 0x035: "HFMA2", 0x036: "VIADD", 0x03E: "F2FP",
    0x045: "I2FP", 0x082: "UMOV", 0x090: "UIADD3", 0x091: "ULEA", 0x099: "USHF", 0x0A4: "UIMAD", 0x0B9: "ULDC",
    0x0BB: "ULDC", 0x0C3: "S2UR", 0x102: "FCHK", 0x104: "F2F", 0x105: "F2I", 0x106: "I2F", 0x108: "MUFU",
    0x118: "NOP", 0x119: "S2R", 0x11D: "BAR", 0x141: "BSYNC", 0x143: "CALL", 0x144: "CALL", 0x145: "BSSY",
    0x147: "BRA", 0x14D: "EXIT", 0x14E: "LEPC", 0x150: "RET", 0x181: "LDG", 0x182: "LDC", 0x184: "LDS",
    0x186: "STG", 0x188: "STS", 0x189: "SHFL",
}
PIPES = {
    "alu": {"MOV", "SEL", "FSETP", "ISETP", "IADD3", "LEA", "LOP3", "IABS", "SHF", "PLOP3", "F2FP", "VIADD"},
    "fma": {"FMUL", "FADD", "FFMA"},
    "fmaheavy": {"IMAD", "IMAD.WIDE", "IMAD.HI", "HADD2", "HFMA2"},
    "xu": {"MUFU", "F2F", "F2I", "I2F", "I2FP", "FCHK"},
    "lsu": {"LDG", "STG", "LDS", "STS", "SHFL"},
    "ctrl": {"BRA", "BSSY", "BSYNC", "CALL", "RET", "EXIT", "BAR", "LDC", "LEPC"},
    "uniform": {"UMOV", "UIADD3", "ULEA", "USHF", "UIMAD", "ULDC", "S2UR"},
}


def name(op):
    return NAMES.get(op & 0x1FF, f"op_{op:03x}")


def pipe(op):
    n = name(op)
    return next((p for p, names in PIPES.items() if n in names), "other")


def stall_cycles(code):
    """Static stall count of each 16-byte instruction (control bits 105..108)."""
    return [(struct.unpack("<Q", code[i + 8:i + 16])[0] >> 41) & 0xF for i in range(0, len(code) - 15, 16)]


def text_sections(path):
    """(name, file offset, size) of each kernel's .text section, from readelf."""
    run = subprocess.run(["readelf", "-S", "-W", path], capture_output=True, text=True)
    if run.returncode != 0:
        print(f"sass_loops.py: {path}: not an ELF file readelf can read (expected an nvcc -cubin output): "
              f"{run.stderr.strip()}", file=sys.stderr)
        sys.exit(2)
    out = run.stdout
    for line in out.splitlines():
        m = re.search(r"\]\s+(\.text\.\S+)\s+PROGBITS\s+\S+\s+(\S+)\s+(\S+)", line)
        if m:
            yield m.group(1)[len(".text."):], int(m.group(2), 16), int(m.group(3), 16)


def instructions(code):
    """(opcode, branch target index or None) per 16-byte instruction."""
    out = []
    for i in range(0, len(code) - 15, 16):
        lo, hi = struct.unpack("<QQ", code[i:i + 16])
        op, target = lo & 0xFFF, None
        if op == BRA:
            rel = (lo >> 32) | ((hi & 0x3FFFF) << 32)
            if rel & (1 << 49):
                rel -= 1 << 50
            target = (i + 16 + rel) // 16
        out.append((op, target))
    return out


def loops(ins):
    """Each loop closed by a backward BRA: its first and last instruction, its length ("body"), the
    instructions forward branches inside it jump over ("skipped") and the rest ("hot")."""
    out = []
    for end, (op, target) in enumerate(ins):
        if op != BRA or target is None or target >= end:  # forward branches, and the final self-loop
            continue
        jumps = [(j, t) for j, (o, t) in enumerate(ins[target:end], start=target)
                 if o == BRA and t is not None and j < t <= end]
        body = end - target + 1
        skipped = sum(t - j - 1 for j, t in jumps)
        out.append({"first": target, "last": end, "body": body, "skipped": skipped, "hot": body - skipped,
                    "jumps": jumps})
    return out


def hot_path(loop):
    """Indices of a loop's instructions less the blocks its forward branches skip."""
    skipped = set()
    for j, t in loop["jumps"]:
        skipped.update(range(j + 1, t))
    return [i for i in range(loop["first"], loop["last"] + 1) if i not in skipped]


def report(path):
    try:
        data = open(path, "rb").read()
    except OSError as e:
        print(f"sass_loops.py: {path}: {e.strerror}", file=sys.stderr)
        sys.exit(2)
    if not any(True for _ in text_sections(path)):
        print(f"sass_loops.py: {path}: no .text.<kernel> section (expected an nvcc -cubin output)", file=sys.stderr)
        sys.exit(2)
    for kernel, offset, size in text_sections(path):
        code = data[offset:offset + size]
        ins, stalls = instructions(code), stall_cycles(code)
        print(f"{kernel}: {len(ins)} instructions, {sum(op == EXIT for op, _ in ins)} EXIT")
        for l in loops(ins):
            where = ", ".join(f"{j + 1}..{t - 1}" for j, t in l["jumps"]) or "none"
            hot = hot_path(l)
            mix = {}
            for i in hot:
                mix[pipe(ins[i][0])] = mix.get(pipe(ins[i][0]), 0) + 1
            print(f"  loop {l['first']}..{l['last']}: {l['body']} instructions per iteration; forward branches"
                  f" skip {where}: {l['hot']} on the path that takes them, {sum(stalls[i] for i in hot)} static"
                  f" stall cycles; by pipe: " + ", ".join(f"{p} {n}" for p, n in sorted(mix.items(), key=lambda kv: -kv[1])))


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    for p in sys.argv[1:]:
        report(p)
