#!/usr/bin/env python3
"""The layers of docs/design.md ("Layers"), checked on the sources and the CMake files:

  harness/      the core: includes and links only itself (and third-party libraries)
  <family>/     gemm, memory, offload, rdma, collectives: the core and itself
  block/        a composite (a transformer block): the core, itself, gemm and collectives
  analysis/     the core, itself, and each family's record contract <family>/<family>_record.h
  command line  harness/cli.cpp, make_registry.*, main.cpp and the railgauge_cli target: anything

A new #include or target_link_libraries across these lines fails here, naming the file and line.

  layers_test.py SOURCE_DIR [unittest args]
"""
import pathlib
import re
import sys
import unittest

ROOT = pathlib.Path(sys.argv.pop(1)) if len(sys.argv) > 1 else pathlib.Path(__file__).parents[1]
FAMILIES = ("gemm", "memory", "offload", "rdma", "collectives")
# block/ runs the gemm family's shapes with the collectives family's MPI session between them:
# one transformer block is both at once, so it is a place of its own rather than an edge between
# two families (docs/design.md, Layers).
COMPOSITES = ("block",)
LAYERS = ("harness", "analysis") + FAMILIES + COMPOSITES
# The command line ties every family to the core: these files may include anything.
COMMAND_LINE = {"harness/cli.cpp", "harness/cli.h", "harness/make_registry.cpp",
                "harness/make_registry.h", "harness/main.cpp"}
# Families never link each other (the GEMM beside a copy or an all_reduce is the core's,
# gemm_load.h). The composite block/ links the two families whose work one block is; nothing
# links block/ but the command line.
EXTRA_EDGES = {("block", "gemm"), ("block", "collectives")}
CONTRACT = re.compile(r"^(gemm/gemm|memory/memory|offload/offload|rdma/rdma|"
                      r"collectives/collective|block/block)_record\.h$")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def layer_of(path):
    top = path.split("/", 1)[0]
    return top if top in LAYERS else None


def allowed_include(src_layer, header):
    target = layer_of(header)
    if target is None or target == src_layer or target == "harness":
        return True  # third-party or generated (railgauge/config.h), itself, the core
    if src_layer == "harness":
        return False
    if src_layer == "analysis":
        return bool(CONTRACT.match(header))
    return (src_layer, target) in EXTRA_EDGES


# Which layer a CMake target belongs to, by where it is defined.
ADD_LIBRARY = re.compile(r"add_(?:library|executable)\(\s*([A-Za-z0-9_]+)")
LINK = re.compile(r"target_link_libraries\(\s*([A-Za-z0-9_]+)([^)]*)\)", re.S)


def cmake_files():
    for layer in LAYERS:
        yield from sorted((ROOT / layer).rglob("CMakeLists.txt"))


def target_layers():
    owners = {}
    for f in cmake_files():
        layer = f.relative_to(ROOT).parts[0]
        for name in ADD_LIBRARY.findall(f.read_text()):
            owners[name] = layer
    return owners


class Layers(unittest.TestCase):
    def test_includes_stay_within_their_layers(self):
        bad, seen = [], 0
        for layer in LAYERS:
            for f in sorted((ROOT / layer).rglob("*")):
                if f.suffix not in (".h", ".cpp", ".cu") or not f.is_file():
                    continue
                rel = f.relative_to(ROOT).as_posix()
                if rel in COMMAND_LINE:
                    continue
                text = f.read_text(errors="replace")
                for m in INCLUDE.finditer(text):
                    seen += 1
                    if not allowed_include(layer, m.group(1)):
                        line = text.count("\n", 0, m.start()) + 1
                        bad.append(f"{rel}:{line}: {layer} includes {m.group(1)}")
        self.assertGreater(seen, 500)  # the walk found the sources
        self.assertEqual(bad, [], "includes across layers (docs/design.md, Layers):\n" +
                         "\n".join(bad))

    def test_targets_link_within_their_layers(self):
        owners = target_layers()
        self.assertIn("railgauge_gemm", owners)
        bad = []
        for f in cmake_files():
            text = f.read_text()
            rel = f.relative_to(ROOT).as_posix()
            for m in LINK.finditer(text):
                target, libs = m.group(1), m.group(2).split()
                if target == "railgauge_cli" or target not in owners:
                    continue
                src = owners[target]
                for lib in libs:
                    dst = owners.get(lib)
                    if dst is None or dst == src or dst == "harness":
                        continue
                    if src == "analysis" and lib.endswith("_record"):
                        continue  # a family's record contract
                    if (src, dst) in EXTRA_EDGES:
                        continue
                    line = text.count("\n", 0, m.start()) + 1
                    bad.append(f"{rel}:{line}: {target} ({src}) links {lib} ({dst})")
        self.assertEqual(bad, [], "links across layers (docs/design.md, Layers):\n" +
                         "\n".join(bad))

    def test_the_core_and_analysis_link_no_backend(self):
        # The core (railgauge_harness) and every analysis target link no backend: analysis never
        # touches hardware, and a tool built on it needs no MPI, CUDA, NCCL or verbs. The store's
        # MPI bootstrap is railgauge_launch's, which only the command line links.
        backend = re.compile(r"^(MPI::|CUDA::|railgauge_(launch|cuda|cublaslt|ibverbs|cli)$|"
                             r".*(nccl|NCCL|ibverbs|openblas|OpenBLAS|BLAS))")
        owners = target_layers()
        checked, bad = set(), []
        for f in cmake_files():
            text = f.read_text()
            for m in LINK.finditer(text):
                target = m.group(1)
                if target != "railgauge_harness" and owners.get(target) != "analysis":
                    continue
                checked.add(target)
                for lib in m.group(2).split():
                    if backend.match(lib):
                        line = text.count("\n", 0, m.start()) + 1
                        bad.append(f"{f.relative_to(ROOT)}:{line}: {target} links {lib}")
        self.assertIn("railgauge_harness", checked)
        self.assertIn("railgauge_analysis", checked)
        self.assertEqual(bad, [], "the core or analysis links a backend:\n" + "\n".join(bad))
        self.assertTrue(backend.match("MPI::MPI_C") and backend.match("railgauge_launch"))
        self.assertFalse(backend.match("railgauge_check") or backend.match("fmt::fmt"))

    def test_an_edge_across_layers_is_caught(self):
        # The checks themselves: an analysis file including a family's benchmark header, a family
        # including another, and the core including a family are refused; contracts are not.
        self.assertFalse(allowed_include("analysis", "collectives/nccl/nccl_session.h"))
        self.assertTrue(allowed_include("analysis", "collectives/collective_record.h"))
        self.assertFalse(allowed_include("collectives", "gemm/cuda/lt_matmul.h"))
        self.assertFalse(allowed_include("offload", "gemm/gemm_record.h"))
        self.assertFalse(allowed_include("harness", "memory/memory_record.h"))
        self.assertTrue(allowed_include("rdma", "harness/host_buffer.h"))
        self.assertTrue(allowed_include("block", "collectives/mpi/mpi_session.h"))
        self.assertFalse(allowed_include("gemm", "block/tp_block_plan.h"))
        self.assertFalse(allowed_include("block", "rdma/rdma_record.h"))
        self.assertTrue(allowed_include("analysis", "block/block_record.h"))
        self.assertFalse(allowed_include("analysis", "block/tp_block_plan.h"))


if __name__ == "__main__":
    unittest.main()
