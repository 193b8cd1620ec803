#!/usr/bin/env python3
"""CTest check of scripts/sass_loops.py on validation/sass/loops.cu's cubin (argv[1]): the loops
are found, a loop doing twice the work counts more instructions, the division's slow path is
skipped. With argv[2], the toolkit's own disassembly of the same source (cuobjdump --dump-sass,
xz-compressed, read on a lent GPU: validation/measured/H200/vidur_layer/sass.txt.xz), every
instruction's opcode, name and stall count and every loop must match the listing's for each kernel
whose code is the same length (a later nvcc may compile differently); at least one must.
Exits non-zero with the reason otherwise."""
import lzma
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
import sass_loops  # noqa: E402

path = sys.argv[1]
data = open(path, "rb").read()
kernels = {}
for name, offset, size in sass_loops.text_sections(path):
    kernels[name] = sass_loops.loops(sass_loops.instructions(data[offset:offset + size]))


def fail(why):
    sys.exit(f"sass_loops check failed: {why}; loops found: {kernels}")


need = {"one_loop": 1, "one_loop_twice": 1, "two_loops": 2, "divide_loop": 1}
for name, count in need.items():
    if name not in kernels:
        fail(f"kernel {name} not found")
    if len(kernels[name]) != count:
        fail(f"{name}: expected {count} loop(s), got {len(kernels[name])}")
one, twice = kernels["one_loop"][0], kernels["one_loop_twice"][0]
if not (one["body"] >= 4 and twice["body"] > one["body"]):
    fail("the loop with twice the work is not longer")
if one["skipped"] != 0:
    fail("one_loop has no slow path to skip")
div = kernels["divide_loop"][0]
if not (div["skipped"] > 0 and div["hot"] < div["body"]):
    fail("the division's slow path is not skipped")


def listing(path, section):
    """{kernel: [(opcode, mnemonic, stall, branch target index or None)]} of one '== section' of a
    cuobjdump --dump-sass listing (each instruction: its text, then its two 64-bit words)."""
    out, kernel, inside = {}, None, False
    lines = lzma.open(path, "rt").read().splitlines()
    for i, line in enumerate(lines):
        if line.startswith("== "):
            inside = line[3:].strip() == section
            continue
        if not inside:
            continue
        m = re.search(r"Function : (\S+)", line)
        if m:
            kernel = m.group(1)
            out[kernel] = []
            continue
        m = re.match(r"\s+/\*([0-9a-f]{4,})\*/\s+(.*?);\s+/\* 0x([0-9a-f]{16}) \*/", line)
        if m and kernel:
            lo = int(m.group(3), 16)
            hi = int(re.search(r"0x([0-9a-f]{16})", lines[i + 1]).group(1), 16)
            text = re.sub(r"^@!?U?P\w+\s+", "", m.group(2).strip())
            target = None
            if text.startswith("BRA") and re.search(r"0x[0-9a-f]+$", text):
                target = int(text.split()[-1], 16) // 16
            out[kernel].append((lo & 0xFFF, text.split()[0], (hi >> 41) & 0xF, target))
    return out


if len(sys.argv) > 2:
    ref = listing(sys.argv[2], "validation/sass/loops.cu sm_80")
    compared = 0
    for name, offset, size in sass_loops.text_sections(path):
        code = data[offset:offset + size]
        ins, stalls = sass_loops.instructions(code), sass_loops.stall_cycles(code)
        if name not in ref:
            fail(f"{name} not in the listing {sys.argv[2]}")
        if len(ref[name]) != len(ins):
            print(f"sass_loops check: {name}: {len(ins)} instructions here, {len(ref[name])} in the listing (another"
                  f" compiler): not compared")
            continue
        for i, ((op, target), stall, (rop, rname, rstall, rtarget)) in enumerate(zip(ins, stalls, ref[name])):
            mine = sass_loops.name(op)
            if op != rop or not (rname == mine or rname.startswith(mine + ".")) or stall != rstall:
                fail(f"{name} instruction {i}: read {op:#05x} {mine} stall {stall}, listing {rop:#05x} {rname}"
                     f" stall {rstall}")
            if (op == sass_loops.BRA) and target != rtarget:
                fail(f"{name} instruction {i}: branch target {target}, listing {rtarget}")
        compared += 1
    if compared == 0:
        fail("no kernel of the cubin has the listing's length")
    print(f"sass_loops check: {compared} kernels match the cuobjdump listing instruction by instruction")
print("sass_loops check: ok", {k: [(l["body"], l["hot"]) for l in v] for k, v in kernels.items()})
