#!/usr/bin/env python3
"""The bandwidth kernels' memory accesses as compiled: PTX of memory/cuda/hbm_kernels.cu and
offload/offload_kernels.cu, built by the `kernels_ptx` target for the project's architectures.

The HBM kernels are documented (docs/memory.md) as moving 16 bytes per access, and the zero-copy
kernel as keeping several 16-byte PCIe reads in flight per thread before it stores any. Both are
properties of the generated code, not of the source: a change of element type, an alias the
compiler cannot rule out, or a lost `#pragma unroll` silently halves the bytes in flight. This
reads the PTX, so it runs without a GPU.

usage: kernel_ptx_test.py "a.ptx;b.ptx" [unittest args]
"""
import re
import sys
import unittest

PTX_FILES = []

# A 128-bit global access: two doubles or four 32-bit words in one instruction.
VECTOR_128 = re.compile(r"\b(ld|st)\.global(\.nc)?\.(v2\.(f64|b64|u64|s64)|v4\.(u32|b32|f32|s32))\b")
ANY_GLOBAL = re.compile(r"\b(ld|st)\.global[.\w]*")


def entries(ptx_text):
    """{mangled kernel name: body} for every .entry of one PTX file."""
    found = {}
    for match in re.finditer(r"\.entry\s+(\S+)\(", ptx_text):
        start = match.end()
        depth, i = 0, ptx_text.index("{", start)
        begin = i
        while True:
            if ptx_text[i] == "{":
                depth += 1
            elif ptx_text[i] == "}":
                depth -= 1
                if depth == 0:
                    break
            i += 1
        found[match.group(1)] = ptx_text[begin:i]
    return found


def kernel(name):
    """The body of the kernel whose mangled name holds `name` (e.g. 11read_kernel)."""
    bodies = {}
    for path in PTX_FILES:
        with open(path, encoding="utf-8") as f:
            bodies.update(entries(f.read()))
    matches = [body for mangled, body in bodies.items() if name in mangled]
    if len(matches) != 1:
        raise AssertionError(f"{len(matches)} kernels named like {name} in {PTX_FILES}: "
                             f"{sorted(bodies)}")
    return matches[0]


def accesses(body):
    """(kind, is_128_bit) for every global load and store, in order."""
    out = []
    for line in body.splitlines():
        m = ANY_GLOBAL.search(line)
        if m:
            out.append((m.group(1), bool(VECTOR_128.search(line))))
    return out


class HbmKernels(unittest.TestCase):
    def expect(self, name, loads_128, stores_128, scalar_stores=0):
        got = accesses(kernel(name))
        self.assertEqual(sum(1 for k, v in got if k == "ld" and v), loads_128, got)
        self.assertEqual(sum(1 for k, v in got if k == "st" and v), stores_128, got)
        self.assertEqual(sum(1 for k, v in got if k == "ld" and not v), 0,
                         f"{name} has a load narrower than 16 bytes: {got}")
        self.assertEqual(sum(1 for k, v in got if k == "st" and not v), scalar_stores, got)

    def test_read_loads_16_bytes_and_stores_only_the_block_sum(self):
        self.expect("11read_kernel", loads_128=1, stores_128=0, scalar_stores=1)

    def test_write_stores_16_bytes(self):
        self.expect("12write_kernel", loads_128=0, stores_128=1)

    def test_copy_moves_16_bytes_per_access(self):
        self.expect("11copy_kernel", loads_128=1, stores_128=1)

    def test_triad_loads_two_and_stores_one_vector(self):
        self.expect("12triad_kernel", loads_128=2, stores_128=1)


class ZeroCopyKernel(unittest.TestCase):
    def test_several_reads_in_flight_before_the_first_store(self):
        got = accesses(kernel("16zero_copy_kernel"))
        self.assertTrue(got and all(v for _, v in got), f"every access 16 bytes: {got}")
        first_store = next(i for i, (k, _) in enumerate(got) if k == "st")
        self.assertGreaterEqual(first_store, 4,
                                f"the unrolled loop issues >= 4 loads before a store: {got}")


if __name__ == "__main__":
    PTX_FILES = [p for p in sys.argv[1].split(";") if p]
    unittest.main(argv=[sys.argv[0]] + sys.argv[2:])
