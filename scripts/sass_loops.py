#!/usr/bin/env python3
"""Instruction counts of the loops in a cubin, without cuobjdump or nvdisasm.

    nvcc -cubin -arch=sm_80 -O3 -o k.cubin k.cu && scripts/sass_loops.py k.cubin

The memory-bound kernel model (sim/gpu/memory/memory_launch.cpp) charges a loop kernel its SASS
instructions per iteration. The CUDA toolkit here has nvcc and ptxas but no disassembler, so this
reads the machine code itself: on sm_70 and later every instruction is 16 bytes and its low 12
bits are the opcode; a BRA (0x947) holds a signed byte offset, relative to the next instruction, in
bits 32..81. A backward BRA closes a loop (its target is the loop head); a forward BRA inside the
body that jumps over a block (a slow path: IEEE division's subroutine call, a device assert) is
reported with the block it skips, so the hot path is the body less those blocks. Checked on
sm_80 cubins of nvcc 13.0 (EXIT 0x94d, BSSY 0x945, BSYNC 0x941, CALL.REL 0x944); other
architectures may number opcodes differently.
"""
import re
import struct
import subprocess
import sys

BRA, EXIT = 0x947, 0x94D


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


def report(path):
    try:
        data = open(path, "rb").read()
    except OSError as e:
        print(f"sass_loops.py: {path}: {e.strerror}", file=sys.stderr)
        sys.exit(2)
    if not any(True for _ in text_sections(path)):
        print(f"sass_loops.py: {path}: no .text.<kernel> section (expected an nvcc -cubin output)", file=sys.stderr)
        sys.exit(2)
    for name, offset, size in text_sections(path):
        ins = instructions(data[offset:offset + size])
        print(f"{name}: {len(ins)} instructions, {sum(op == EXIT for op, _ in ins)} EXIT")
        for l in loops(ins):
            where = ", ".join(f"{j + 1}..{t - 1}" for j, t in l["jumps"]) or "none"
            print(f"  loop {l['first']}..{l['last']}: {l['body']} instructions per iteration; forward branches"
                  f" skip {where}: {l['hot']} on the path that takes them")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    for p in sys.argv[1:]:
        report(p)
