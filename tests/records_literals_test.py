#!/usr/bin/env python3
"""The families, the measurement core's record writers and the importers name records' fields
through their contracts (records/<family>_record.h, harness/metric_names.h), never by a quoted
literal: a metric or param renamed on the writer's side then breaks the build or the contract's
tests (tests/analysis/record_contract_test.cpp) instead of silently writing a field that
analysis, the schema and the shipped rules no longer read. This fails, naming file and line, on a
literal name where a writer's code

  writes or reads a record field: metrics["name"], derived_params["name"], params["name"], or
      metrics.at("name"), .contains, .value, .find, .emplace;
  reads an axis of its point: point.text("name"), .integer, .real, .boolean, .has (also `p.`);
  declares an axis: {"name", AxisType::...}, the type on the same line or a later one (the
      axis's name is the param its points write).

  assigns to a subscript by a literal, in an object of any name: entry["gemm"] = g,
      out.device["numa"] = n, j["run"] = run (what an object of a record is built from);

  names a field inside a braced JSON initialiser, {"name", value}, where that object is what a
      statement assigns to or merges into metrics, derived_params or params (metrics[k] = {...},
      derived_params.update({...}), out.metrics = nlohmann::json{...}), or where the same braced
      list names another of its fields by a constant ({record::kTflops, ...}, {metric::k..., ...});

  or names anything by a literal pair, anywhere: a braced list of two, a name and a value that is
      not a text ({"algo_id", id}, std::pair{"m", s.m}), wherever it goes (a helper's return value,
      a device object, a list an error message names axes from), and a list of two texts
      ({"scale", "CUDA_R_32F"}) beside such a pair or a constant's. A list of two texts alone
      ({"nt", "nn"}: an axis's values) is not a pair.

In the inventory's writers (run.json's inventory, harness/inventory/inventory_fields.h) and the
telemetry files that read NVML's GPUs from it, which build and read JSON in objects of any name
(gpu["uuid"] = ..., port.value("state", ...)), any subscript or accessor with a literal name fails
too, not only a record's metrics' or params'.

Comments do not count. ALLOWED holds what is left to convert; it only shrinks. NOT_RECORD_FIELDS
holds the pairs that name no record field (what ranks send each other over the store, parsed back
by the same file): each entry says why, and it too fails once the file no longer has the name.

  records_literals_test.py SOURCE_DIR [unittest args]
"""
import json
import pathlib
import re
import sys
import unittest

sys.path.insert(0, str(pathlib.Path(__file__).parent / "support"))
from named_tests import run_named_tests  # noqa: E402
from source_files import source_files  # noqa: E402

ROOT = pathlib.Path(sys.argv.pop(1)) if len(sys.argv) > 1 else pathlib.Path(__file__).parents[1]
FAMILIES = ("gemm", "memory", "offload", "rdma", "collectives", "block")
# Beyond the families, what else writes records: the measurement core's files that put fields
# into every record (the time summary, the steady state, lockstep, lanes, rates over GPUs, the
# burns' axes, GPU telemetry), and the importers, whose records analysis reads beside the families' own.
CORE_WRITERS = ("harness/measure.cpp", "harness/lockstep.cpp", "harness/stats.cpp",
                "harness/lane_contention.cpp", "harness/rate_series.cpp", "harness/every_gpu.cpp",
                "harness/record.cpp", "harness/suite.cpp", "harness/runner.cpp",
                # metrics.telemetry of every GPU point, and the settle probe's reading
                "harness/inventory/gpu_samples.cpp", "harness/inventory/gpu_telemetry.cpp",
                "harness/inventory/gpu_settle_nvml.cpp", "harness/inventory/gpu_settle_stub.cpp",
                "harness/inventory/gpu_monitor_nvml.cpp", "harness/inventory/gpu_monitor_stub.cpp",
                "harness/inventory/gpu_processes.cpp")
# The inventory in run.json (harness/inventory/inventory_fields.h): its writers, the stubs built
# without NVML or verbs, and the console table that reads it back.
INVENTORY_WRITERS = ("harness/inventory/inventory.cpp", "harness/inventory/nvml.cpp",
                     "harness/inventory/nvml_stub.cpp", "harness/inventory/pci_tree.cpp",
                     "harness/inventory/rail_map.cpp", "harness/inventory/verbs.cpp",
                     "harness/inventory/verbs_stub.cpp", "harness/inventory/port_counters.cpp",
                     "harness/inventory/tcp_counters.cpp", "harness/inventory/pcie_aer.cpp",
                     "harness/inventory/render.cpp")
# Where JSON_FIELD applies: the inventory's writers, and the telemetry files, which read the
# inventory's GPUs and processes and write the window's summary (objects named gpu, p, t, d, j
# rather than metrics).
ANY_OBJECT_FILES = INVENTORY_WRITERS + ("harness/inventory/gpu_telemetry.cpp",
                                        "harness/inventory/gpu_processes.cpp",
                                        "harness/inventory/gpu_samples.cpp",
                                        "harness/inventory/gpu_monitor_nvml.cpp",
                                        "harness/inventory/gpu_monitor_stub.cpp",
                                        "harness/inventory/gpu_settle_nvml.cpp",
                                        "harness/inventory/gpu_settle_stub.cpp")
IMPORTERS = "analysis/import"
SUFFIXES = (".h", ".hpp", ".cpp", ".cc", ".cu", ".cuh")

FIELD = re.compile(r'\b(?:metrics|derived_params|params)\s*'
                   r'(?:\[\s*|\.\s*(?:at|contains|value|find|emplace)\s*\(\s*)"([A-Za-z0-9_.]+)"')
# A literal name in a subscript or accessor of an object of any name (ANY_OBJECT_FILES only:
# elsewhere a literal key is as often a message's, a file's or a log's).
JSON_FIELD = re.compile(r'(?:\[\s*|(?:\.|->)\s*(?:at|contains|value|find|count|emplace)\s*\(\s*)'
                        r'"([A-Za-z0-9_.]+)"')
# A literal subscript assigned to, on an object of any name (entry["gemm"] = g): in a writer, the
# object is as often part of a record as not, and a name that reaches one belongs in a contract.
ASSIGNED = re.compile(r'\[\s*"([A-Za-z0-9_.]+)"\s*\](?=(?:\s*\[[^\]\n]*\])*\s*=(?!=))')
AXIS = re.compile(r'\b(?:point|p)\s*\.\s*(?:text|integer|real|boolean|has)\s*\(\s*'
                  r'"([A-Za-z0-9_.]+)"')
# An axis declared by a literal name: a braced Axis whose next element is its AxisType.
AXIS_DECLARATION = re.compile(r'\{\s*"([A-Za-z0-9_.]+)"\s*,\s*(?:[A-Za-z_]\w*::)*AxisType::')

# A statement that assigns or merges a braced object into a record's fields: what follows up to the
# end of the statement is scanned for {"name", ...} pairs.
RECORD_STATEMENT = re.compile(r'\b(?:metrics|derived_params|params)\b\s*(?:\[[^\]\n]*\]\s*)*'
                              r'(?:=(?!=)|\.\s*(?:update|merge_patch|emplace)\s*\()')
PAIR = re.compile(r'\{\s*"([A-Za-z0-9_.]+)"\s*,')
CONSTANT_PAIR = re.compile(r'\{\s*(?:[a-z_]+::)*(?:record|metric|device)::k[A-Za-z0-9_]+\s*,')
TEXT = re.compile(r'\s*"(?:[^"\\\n]|\\.)*"\s*')

# Literal names not converted yet, as "path": {names}. An entry whose file no longer has the
# literal fails the stale-entry test, so that the list only shrinks.
ALLOWED = {}

# Pairs that name no record field, as "path": (why, {names}). Keep it to messages between ranks
# and names that are not fields at all; a name that reaches a record belongs in a contract.
NOT_RECORD_FIELDS = {
    "rdma/endpoint_info.cpp": (
        "the connection data a rank sends its peer over the store (serialize/parse)",
        {"lid", "gid_index", "gid", "ethernet", "mtu_bytes", "qpns", "psns", "addr", "rkey",
         "region_bytes", "control_addr", "control_rkey"}),
    "rdma/data_pattern.cpp": (
        "a receiver's data check sent to the sender over the store (to_json/from_json)",
        {"problems", "wrong_bytes"}),
    "rdma/peer_result.cpp": ("a server's result sent over the store",
                             {"error", "wrong_bytes", "port_counter_deltas", "messages",
                              "active_s", "device", "refused_connections"}),
    "rdma/pair_report.cpp": ("a pair's figures in the ledger ranks share over the store, not a "
                             "record's (the wire's own names)", {"latency_s", "bandwidth_gbits_per_s"}),
    "gemm/gpu_peaks.cpp": ("the keys of the GPU peaks file (results/peaks/gpu_peaks.yaml), not a record",
                           {"tflops"}),
    "analysis/import/nccl_tests_json_import.cpp": (
        "the keys of nccl-tests' own JSON output, read from it, and run.json's `imported`: what "
        "that output says of itself", {"nccl_version", "argv", "json_version"}),
    "analysis/import/nccl_tests_text_import.cpp": (
        "run.json's `imported`: the version line nccl-tests printed, not a record",
        {"version_line"}),
    "rdma/verbs/verbs_point.cpp": ("a server's result sent over the store",
                                   {"error", "messages", "active_s", "device"}),
    "rdma/matrix_endpoints.cpp": (
        "a rank's NICs sent over the store (encode/decode_rank_nics)",
        {"host", "usable", "why_none"}),
    "rdma/matrix_ledger.cpp": ("the ledger's merge state shared over the store, or why rank 0 "
                               "could not read it", {"since_s", "links", "error"}),
    "rdma/fabric/topology_load.cpp": ("the directories of an LLDP dump, not fields",
                                      {"hosts", "switches"}),
    "analysis/import/nvbandwidth_import.cpp": (
        "run.json's `imported`: what the nvbandwidth output says of itself, not a record",
        {"format", "version", "driver_version", "cuda_runtime_version", "host", "devices",
         "device_pci", "problems"}),
    "rdma/fabric/fabric_summary.cpp": (
        "`railgauge fabric show --json`: a topology's summary on the console, not a record",
        {"name", "nic_cables", "uplinks", "spines_reached", "topology", "nodes", "hosts_read",
         "rails", "switches_read", "leaf_count", "spine_count", "usual_uplinks_per_leaf",
         "leaves_short_of_usual_uplinks", "leaves", "spines", "set_aside", "unread",
         "unresolved_hosts"}),
}


def without_comments(text):
    """The text with // and /* */ comments blanked (newlines kept), strings left as they are."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append(text[i:j + 1])
            i = j + 1
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("".join(ch if ch == "\n" else " " for ch in text[i:j]))
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def skip_string(code, i):
    """The index just past the string or character literal that starts at code[i]."""
    j = i + 1
    while j < len(code) and code[j] != code[i] and code[j] != "\n":
        j += 2 if code[j] == "\\" else 1
    return j + 1


def closing(code, i, stop=";"):
    """The index of what closes the expression that starts at code[i]: the first `stop` outside
    brackets, or the bracket that closes one opened before i."""
    depth = 0
    while i < len(code):
        c = code[i]
        if c in "\"'":
            i = skip_string(code, i)
            continue
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
            if depth < 0:
                return i
        elif c == stop and depth == 0:
            return i
        i += 1
    return i


def enclosing_list(code, i):
    """(start, end) of the braced list that holds the `{` at code[i]: the `{` left open before i
    and the `}` that closes it; None at file scope."""
    depth, j = 0, i - 1
    while j >= 0:
        c = code[j]
        if c == "}":
            depth += 1
        elif c == "{":
            if depth == 0:
                return j, closing(code, j + 1)
            depth -= 1
        j -= 1
    return None


def elements(code, i):
    """The top-level elements of the braced list that opens at code[i], as texts."""
    parts, start = [], i + 1
    while True:
        end = closing(code, start, stop=",")
        parts.append(code[start:end])
        if end >= len(code) or code[end] != ",":
            return parts
        start = end + 1


def is_pair(code, i):
    """True where the braced list at code[i] is {"name", value}: two elements, a value not a text
    (a list of two texts is as often an axis's values as a pair)."""
    parts = elements(code, i)
    return len(parts) == 2 and not TEXT.fullmatch(parts[1])


def initialiser_literals(code):
    """(position, name, code) of each {"name", ...} pair that names a record field: inside an
    object a statement assigns to or merges into a record's fields, or in a braced list that
    names another field by a contract's constant. code has its comments blanked."""
    found = {}
    for m in RECORD_STATEMENT.finditer(code):
        for p in PAIR.finditer(code, m.end(), closing(code, m.end())):
            found[p.start()] = (p.group(1), m.group(0).strip() + ' {..., ' + p.group(0) + ' ...}')
    for p in PAIR.finditer(code):
        span = enclosing_list(code, p.start())
        if span and CONSTANT_PAIR.search(code, span[0] + 1, span[1]):
            found.setdefault(p.start(), (p.group(1), p.group(0) + ' ... beside a constant'))
    pairs = {p.start(): p for p in PAIR.finditer(code) if is_pair(code, p.start())}
    for start, p in pairs.items():
        found.setdefault(start, (p.group(1), p.group(0) + ' ...} a literal pair'))
    for p in PAIR.finditer(code):
        span = enclosing_list(code, p.start())
        if p.start() in pairs or not span or len(elements(code, p.start())) != 2:
            continue
        if any(span[0] < q < span[1] for q in pairs):
            found.setdefault(p.start(), (p.group(1), p.group(0) + ' ... beside a literal pair'))
    return [(pos, name, what) for pos, (name, what) in found.items()]


def schema_metric_names():
    """The record schema's top-level metric names that cannot be mistaken for a word of code or a
    value: those with an underscore, and tflops. A literal of one anywhere in a writer's code (a
    helper's argument, a lambda's subscript, an object of any name) is that metric named by hand.
    The names inside a metric's objects (per-GPU rows, series, telemetry) are not read here."""
    schema = json.loads((ROOT / "results" / "schema" / "record.schema.json").read_text())
    names = schema["properties"]["metrics"]["properties"]
    return {n for n in names if "_" in n or n == "tflops"}


QUOTED_NAME = re.compile(r'"([a-z0-9_]+)"')


def literals(text, any_object=False, metric_names=frozenset()):
    """(line, name, the code that names it) of every literal record field or axis name in text,
    with any_object of every literal name in any object's subscript or accessor (JSON_FIELD), and
    of every literal anywhere that is one of metric_names (a writer defines no constant of its
    own for one: the contract's is the name); a name two checks find is reported once, by the
    first."""
    found = {}
    names_at = set()  # where each name found so far begins: a name two patterns match counts once
    code = without_comments(text)
    for m in QUOTED_NAME.finditer(code):
        if m.group(1) in metric_names:
            names_at.add(m.start(1))
            found.setdefault(m.start(), (m.group(1), f'"{m.group(1)}"'))
    for pattern in (FIELD, AXIS, AXIS_DECLARATION, ASSIGNED):
        for m in pattern.finditer(code):
            if m.start(1) not in names_at:
                names_at.add(m.start(1))
                found.setdefault(m.start(), (m.group(1), " ".join(m.group(0).split())))
    if any_object:
        named = {m.start(1) for pattern in (FIELD, AXIS) for m in pattern.finditer(code)}
        for m in JSON_FIELD.finditer(code):
            if m.start(1) not in named:
                found.setdefault(m.start(), (m.group(1), " ".join(m.group(0).split())))
    for pos, name, what in initialiser_literals(code):
        found.setdefault(pos, (name, what))
    return sorted((code.count("\n", 0, pos) + 1, name, what) for pos, (name, what) in found.items())


def family_sources():
    for family in FAMILIES:
        for rel in source_files(ROOT, under=family):
            if rel.endswith(SUFFIXES):
                yield rel


def writer_sources():
    """The families' sources, the core's record writers, the inventory's and the importers."""
    yield from family_sources()
    yield from CORE_WRITERS
    yield from INVENTORY_WRITERS
    for rel in source_files(ROOT, under=IMPORTERS):
        if rel.endswith(SUFFIXES):
            yield rel


def scan():
    """{path: [(line, name, code)]} of the writers' sources that hold a literal name."""
    out = {}
    metric_names = schema_metric_names()
    for rel in writer_sources():
        found = literals((ROOT / rel).read_text(errors="replace"), rel in ANY_OBJECT_FILES,
                         metric_names)
        if found:
            out[rel] = found
    return out


class RecordsLiterals(unittest.TestCase):
    def test_no_writer_names_a_record_field_by_a_literal(self):
        bad = []
        for rel, found in sorted(scan().items()):
            for line, name, code in found:
                if name not in ALLOWED.get(rel, set()) | NOT_RECORD_FIELDS.get(rel, ("", set()))[1]:
                    bad.append(f"{rel}:{line}: {code} names '{name}' by a literal")
        if bad:
            self.fail("\n" + "\n".join(bad) + "\nname each by a constant of the family's "
                      "records/<family>_record.h (harness/metric_names.h when several families "
                      "write it); a metric constant goes into that contract's kMetrics too; an "
                      "inventory field by harness/inventory/inventory_fields.h, a telemetry one "
                      "by harness/inventory/telemetry_fields.h")

    def test_the_allow_list_holds_no_stale_entry(self):
        found = scan()
        listed = [(rel, names) for rel, names in ALLOWED.items()]
        listed += [(rel, names) for rel, (_, names) in NOT_RECORD_FIELDS.items()]
        stale = [f"{rel}: {name}" for rel, names in sorted(listed) for name in sorted(names)
                 if name not in {n for _, n, _ in found.get(rel, [])}]
        if stale:
            self.fail("no longer named by a literal, delete from ALLOWED or NOT_RECORD_FIELDS: "
                      + ", ".join(stale))

    def test_the_scan_finds_literals(self):
        text = "\n".join([
            'out.metrics["verified"] = false;',                        # 1: a metric written
            'out.derived_params[ "gpu_name" ] = info.name;',            # 2: a derived param
            'const auto n = point.integer("size_bytes");',             # 3: an axis read
            'if (p.has("op") && o.metrics.contains("note"))',          # 4: both kinds
            'out.metrics[record::kVerified] = false; // metrics["x"]',  # 5: a constant; a comment
            '/* point.text("dtype") */ point.text(record::kDtype);',    # 6: a block comment
            'const char *s = "// metrics[\\"y\\"]"; r.params["k"];',    # 7: a // inside a string
            'out.metrics[record::kLockstep] = {{"ranks", l.ranks},',    # 8: an object assigned
            '    {record::kOwnTimeS, x}, {"a", {1, 2}}}; f({"b", 1});',  # 9: ... to the `;`
            'out.derived_params.update({{record::kTp, 2}, {"layout", "nn"}});',  # 10: merged
            'return {{record::kP50S, a},',                              # 11: a list that names
            '        {"p90_s", b}};',                                   # 12: ... a constant too
            'return {{"host", h}, {"why", w}}; if (a == b) x = {"c", 1};',  # 13: pairs anywhere
            'return {{"id", a}, {"scale", "F32"}}; f({"nt", "nn"});',     # 14: texts: a pair's
            'for (auto [n, v] : {std::pair{"m", s.m}}) g({"x", y, z});',  # 15: two, not three
            'out.device = {{device::kGpu, u}, {"pci", "0000:01"}};',      # 16: beside a constant
            'axes.push_back({"qps", AxisType::integer, "QPs", {1}, {}});',  # 17: an axis declared
            'return {{record::kM, AxisType::integer, "m", {}, {}}, {"tx_depth",',  # 18: type on 19
            '    railgauge::AxisType::integer, "depth", {}, {}}}; // {"x", AxisType::text}',  # 19
            'Axis a{"y", type, "not a declaration: no AxisType next", {}, {}};',  # 20
            'entry["gemm"] = g; if (j["rank"] == 1) {} x = j["key"];',  # 21: assigned, not read
            'j["outer"][k]["inner"] = v; y = j["read"][0];',  # 22: each key of a nested assignment
        ])
        self.assertEqual([(line, name) for line, name, _ in literals(text)],
                         [(1, "verified"), (2, "gpu_name"), (3, "size_bytes"), (4, "note"),
                          (4, "op"), (7, "k"), (8, "ranks"), (9, "a"), (9, "b"), (10, "layout"),
                          (12, "p90_s"), (13, "c"), (13, "host"), (13, "why"), (14, "id"),
                          (14, "scale"),
                          (15, "m"), (16, "pci"), (17, "qps"), (18, "tx_depth"), (21, "gemm"),
                          (22, "inner"), (22, "outer")])
        sources = list(family_sources())
        self.assertGreater(len(sources), 100)  # the walk found the families' sources
        self.assertTrue(all(rel.split("/", 1)[0] in FAMILIES for rel in sources))
        writers = set(writer_sources())
        self.assertTrue(set(CORE_WRITERS) <= writers)
        self.assertTrue(set(ANY_OBJECT_FILES) <= writers)
        self.assertIn("analysis/import/perftest_import.cpp", writers)
        self.assertTrue(all((ROOT / rel).is_file() for rel in CORE_WRITERS), CORE_WRITERS)
        self.assertTrue(all((ROOT / rel).is_file() for rel in INVENTORY_WRITERS), INVENTORY_WRITERS)

    def test_the_scan_finds_a_metric_named_by_hand_anywhere(self):
        # A metric of the schema passed by its text to a helper, written into an object of any
        # name, or given a constant of the writer's own rather than the contract's.
        names = schema_metric_names()
        self.assertIn("wall_busbw_gbytes_per_s", names)
        self.assertNotIn("ranks", names)  # a word of code too ("ranks" mode), not distinctive
        text = "\n".join([
            'm["wall_busbw_gbytes_per_s"] = x;',                           # 1: any object
            'out.update(across_gpus(speeds, "tflops"));',                   # 2: an argument
            'constexpr const char *kMine =',                                # 3: a writer's own
            '    "bandwidth_gbits_per_s";',                                 # 4: ... constant
            'if (spec.mode == "ranks") {}',                                 # 5: not a metric
        ])
        self.assertEqual([(line, name) for line, name, _ in literals(text, False, names)],
                         [(1, "wall_busbw_gbytes_per_s"), (2, "tflops"),
                          (4, "bandwidth_gbits_per_s")])

    def test_the_scan_finds_literal_names_of_any_object_in_the_inventory(self):
        text = "\n".join([
            'gpu["uuid"] = text; j[ "state" ] = s;',                   # 1: written
            'if (port.value("port", 0) && n.contains("pci_bus_id"))',  # 2: read
            'x = g.at("index"); y = inv->find("nvml"); d["a.b"];',     # 3: at, find, a path
            'out.metrics["verified"] = v; // gpu["serial"]',            # 4: once; a comment
            'gpu[inventory_field::kUuid] = s; f("name"); s.find(\':\');',  # 5: none
        ])
        self.assertEqual([(line, name) for line, name, _ in literals(text, any_object=True)],
                         [(1, "state"), (1, "uuid"), (2, "pci_bus_id"), (2, "port"),
                          (3, "a.b"), (3, "index"), (3, "nvml"), (4, "verified")])
        # Elsewhere a record's fields count, and a literal subscript assigned to in any object.
        self.assertEqual([(line, name) for line, name, _ in literals(text)],
                         [(1, "state"), (1, "uuid"), (4, "verified")])


if __name__ == "__main__":
    run_named_tests(sys.argv[1:])
