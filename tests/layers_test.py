#!/usr/bin/env python3
"""The floors of docs/design.md ("Layers"), checked on the sources and the CMake files. Each
floor includes and links only itself and the floors below it (and third-party libraries):

  harness/      the core: only itself
  records/      the record contracts (one header per family's kinds, bus_bandwidth): the core
  <family>/     gemm, memory, offload, rdma, collectives: the core, records/ and itself
  block/        a composite (a transformer block): the above, gemm and collectives
  analysis/     the core, records/ and itself: never a family's benchmark code
  cli/          the command line, the console printers: anything

Inside analysis/, its own floors, each reaching only those below it (ANALYSIS_BELOW):

  analysis/*.h  the run sets every command reads
  check/        rules, judgements, verdicts and their outputs (JSON paths, results, rule values)
  compare/      runs against runs: check's results and JSON paths
  report/       the HTML report: check's verdicts, compare's tables
  history/      the fleet database: check's judgements over past runs, report's pages of them
  import/, calibrate/   peers' logs into records; coefficients from runs: the run sets alone
  commands/     the commands that face the user (check, compare, report, calibrate, import, db):
                every floor of analysis/

A new #include or target_link_libraries that runs up or across these floors fails here, naming
the file and line.

  layers_test.py SOURCE_DIR [unittest args]
"""
import pathlib
import re
import sys
import unittest

sys.path.insert(0, str(pathlib.Path(__file__).parent / "support"))
from source_files import source_files  # noqa: E402

ROOT = pathlib.Path(sys.argv.pop(1)) if len(sys.argv) > 1 else pathlib.Path(__file__).parents[1]
FAMILIES = ("gemm", "memory", "offload", "rdma", "collectives")
# block/ runs the gemm family's shapes with the collectives family's MPI session between them:
# one transformer block is both at once, so it is a place of its own rather than an edge between
# two families (docs/design.md, Layers).
COMPOSITES = ("block",)
LAYERS = ("harness", "records", "analysis", "cli") + FAMILIES + COMPOSITES
# What each floor may reach beside itself and the core.
BELOW = {"harness": set(), "records": set(), "analysis": {"records"},
         "block": {"records", "gemm", "collectives"}}
BELOW.update({family: {"records"} for family in FAMILIES})
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
# The floors inside analysis/ ("." is analysis/ itself: the run sets).
ANALYSIS_BELOW = {".": set(), "check": {"."}, "compare": {".", "check"},
                  "report": {".", "check", "compare"},
                  "history": {".", "check", "compare", "report"},
                  "import": {"."}, "calibrate": {"."}}
ANALYSIS_BELOW["commands"] = set(ANALYSIS_BELOW)


def layer_of(path):
    top = path.split("/", 1)[0]
    return top if top in LAYERS else None


def analysis_floor(path):
    """The floor of a path under analysis/ ("." for analysis/ itself), or None outside it."""
    parts = path.split("/")
    if parts[0] != "analysis" or len(parts) < 2:
        return None
    return parts[1] if len(parts) > 2 else "."


def allowed_analysis_include(src_path, header):
    src, target = analysis_floor(src_path), analysis_floor(header)
    return src is None or target is None or target == src or target in ANALYSIS_BELOW[src]


def allowed_include(src_layer, header):
    target = layer_of(header)
    if target is None or target == src_layer or target == "harness" or src_layer == "cli":
        return True  # third-party or generated (railgauge/config.h), itself, the core
    if src_layer == "harness":
        return False
    return target in BELOW[src_layer]


# Which layer a CMake target belongs to, by where it is defined.
ADD_LIBRARY = re.compile(r"add_(?:library|executable)\(\s*([A-Za-z0-9_]+)")
LINK = re.compile(r"target_link_libraries\(\s*([A-Za-z0-9_]+)([^)]*)\)", re.S)


def layer_files(layer):
    """The files of one floor that git tracks or would track, never a build directory's
    (tests/support/source_files.py), as paths under ROOT."""
    return [ROOT / rel for rel in source_files(ROOT, under=layer)]


def cmake_files():
    for layer in LAYERS:
        yield from (f for f in layer_files(layer) if f.name == "CMakeLists.txt")


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
            for f in layer_files(layer):
                if f.suffix not in (".h", ".cpp", ".cu"):
                    continue
                rel = f.relative_to(ROOT).as_posix()
                text = f.read_text(errors="replace")
                for m in INCLUDE.finditer(text):
                    seen += 1
                    if not allowed_include(layer, m.group(1)):
                        line = text.count("\n", 0, m.start()) + 1
                        bad.append(f"{rel}:{line}: {layer} includes {m.group(1)}")
        self.assertGreater(seen, 500)  # the walk found the sources
        self.assertEqual(bad, [], "includes across layers (docs/design.md, Layers):\n" +
                         "\n".join(bad))

    def test_analysis_includes_stay_within_its_floors(self):
        bad, seen = [], 0
        for f in layer_files("analysis"):
            if f.suffix not in (".h", ".cpp"):
                continue
            rel = f.relative_to(ROOT).as_posix()
            self.assertIn(analysis_floor(rel), ANALYSIS_BELOW, f"{rel}: a folder of analysis/ "
                          "with no floor: add it to ANALYSIS_BELOW and the docstring")
            text = f.read_text(errors="replace")
            for m in INCLUDE.finditer(text):
                if analysis_floor(m.group(1)) is None:
                    continue
                seen += 1
                if not allowed_analysis_include(rel, m.group(1)):
                    line = text.count("\n", 0, m.start()) + 1
                    bad.append(f"{rel}:{line}: {analysis_floor(rel)} includes {m.group(1)}")
        self.assertGreater(seen, 100)  # the walk found the sources
        self.assertEqual(bad, [], "includes up or across analysis/'s floors:\n" + "\n".join(bad))

    def test_analysis_floors_have_no_cycle(self):
        # A floor never reaches one that reaches it back, however far down.
        def reach(floor, seen=()):
            for below in ANALYSIS_BELOW[floor]:
                self.assertNotIn(below, seen + (floor,), f"a cycle through {floor} and {below}")
                reach(below, seen + (floor,))
        for floor in ANALYSIS_BELOW:
            reach(floor)

    def test_targets_link_within_their_layers(self):
        owners = target_layers()
        self.assertIn("railgauge_gemm", owners)
        bad = []
        for f in cmake_files():
            text = f.read_text()
            rel = f.relative_to(ROOT).as_posix()
            for m in LINK.finditer(text):
                target, libs = m.group(1), m.group(2).split()
                if target not in owners:
                    continue
                src = owners[target]
                for lib in libs:
                    dst = owners.get(lib)
                    if dst is None or dst == src or dst == "harness" or src == "cli":
                        continue
                    if dst in BELOW[src]:
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
        self.assertTrue(allowed_include("analysis", "records/collective_record.h"))
        self.assertFalse(allowed_include("collectives", "gemm/cuda/lt_matmul.h"))
        self.assertTrue(allowed_include("offload", "records/gemm_record.h"))
        self.assertFalse(allowed_include("harness", "records/memory_record.h"))
        self.assertFalse(allowed_include("records", "gemm/layout.h"))
        self.assertFalse(allowed_include("analysis", "cli/printers.h"))
        self.assertFalse(allowed_include("gemm", "cli/make_registry.h"))
        self.assertTrue(allowed_include("cli", "gemm/register_gemm.h"))
        self.assertTrue(allowed_include("rdma", "harness/host_buffer.h"))
        self.assertTrue(allowed_include("block", "collectives/mpi/mpi_session.h"))
        self.assertFalse(allowed_include("gemm", "block/tp_block_plan.h"))
        self.assertTrue(allowed_include("block", "records/rdma_record.h"))
        self.assertTrue(allowed_include("analysis", "records/block_record.h"))
        self.assertFalse(allowed_include("analysis", "block/tp_block_plan.h"))
        # Inside analysis/: the judge never reaches the history or a command; the history does.
        self.assertFalse(allowed_analysis_include("analysis/check/evaluate.cpp",
                                                  "analysis/history/trend.h"))
        self.assertFalse(allowed_analysis_include("analysis/report/report.cpp",
                                                  "analysis/commands/check_command.h"))
        self.assertFalse(allowed_analysis_include("analysis/run_set.cpp",
                                                  "analysis/check/json_path.h"))
        self.assertTrue(allowed_analysis_include("analysis/history/history_fleet.cpp",
                                                 "analysis/check/check_result.h"))
        self.assertTrue(allowed_analysis_include("analysis/commands/db_command.cpp",
                                                 "analysis/history/ingest.h"))


if __name__ == "__main__":
    unittest.main()
