#!/usr/bin/env python3
"""CTest check of scripts/sass_loops.py on validation/sass/loops.cu's cubin (argv[1]): the loops
are found, a loop doing twice the work counts more instructions, the division's slow path is
skipped. Exits non-zero with the reason otherwise."""
import os
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
print("sass_loops check: ok", {k: [(l["body"], l["hot"]) for l in v] for k, v in kernels.items()})
