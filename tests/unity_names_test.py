#!/usr/bin/env python3
"""No two source files of one target define the same name at namespace scope.

Every build compiles each target's sources in unity batches, up to 16 files as one translation
unit (cmake/RailgaugeUnity.cmake), so a helper, a constant or a type that two files of a target
each keep private (an anonymous namespace, `static`) is defined twice there and the build stops.
Which files share a batch depends on the build (CUDA on or off, the fuzz targets), and a build
configured with -DCMAKE_UNITY_BUILD=OFF while editing never sees it. This test reads the sources of every target the default build configures
(build/target_sources.txt, cmake/RailgaugeTargets.cmake) and fails on such a pair, naming both
files, so that the name is made unique (or the helper shared) before CI.

What counts as one name: the named namespaces around it (an anonymous namespace adds none: in a
batch its contents meet the other files' in one namespace), then a type's name (struct, class,
union, enum), a variable's name, or a function's name with its parameter types. A test macro
(TEST, TEST_F, ...) counts with its arguments. Qualified definitions (`Type::member`, `ns::f`)
are left out: they define what a header declared once, and two of them fail to link already.
The fuzz targets exist only in the sanitized configuration and are not seen here.

  unity_names_test.py SOURCE_DIR BUILD_DIR [unittest args]
"""
import collections
import pathlib
import re
import sys
import unittest

sys.path.insert(0, str(pathlib.Path(__file__).parent / "support"))
from cpp_text import blank_code  # noqa: E402
from named_tests import run_named_tests  # noqa: E402

ROOT = pathlib.Path(sys.argv.pop(1)) if len(sys.argv) > 1 else pathlib.Path(__file__).parents[1]
BUILD = pathlib.Path(sys.argv.pop(1)) if len(sys.argv) > 1 else ROOT / "build"

NAMESPACE = re.compile(r"^(?:inline\s+)?namespace\s*([A-Za-z_][\w:]*)?\s*$")
TYPE = re.compile(r"^(?:struct|class|union|enum(?:\s+class|\s+struct)?)\s+(?:\[\[[^\]]*\]\]\s*)?"
                  r"(?:alignas\s*\([^)]*\)\s*)?([A-Za-z_]\w*)\b(?!\s*(?:::|<))")
IDENTIFIER = re.compile(r"[A-Za-z_]\w*")
# Words that end a parameter's type, never its name: `unsigned long`, `const char *`.
TYPE_WORDS = {"int", "long", "short", "char", "double", "float", "bool", "unsigned", "signed",
              "auto", "void", "const", "volatile"}


def without_template_heads(head):
    """`head` less a leading `template <...>` (nested angle brackets included) and attributes."""
    head = head.strip()
    while True:
        if head.startswith("[["):
            head = head[head.find("]]") + 2:].lstrip()
            continue
        m = re.match(r"template\s*<", head)
        if not m:
            return head
        depth, k = 0, m.end() - 1
        for k in range(m.end() - 1, len(head)):
            depth += {"<": 1, ">": -1}.get(head[k], 0)
            if depth == 0:
                break
        head = head[k + 1:].lstrip()


def top_level(text, stop):
    """The index of the first `stop` character of `text` outside (), <> and [], or -1."""
    depth = 0
    for k, ch in enumerate(text):
        if ch in stop and depth == 0:
            return k
        depth += ch in "([<" and 1 or 0
        depth -= ch in ")]>" and 1 or 0
    return -1


def parameter_types(params):
    """A parameter list with names and default values left out: `const Record &r, int n = 2`
    reads `const Record &,int`."""
    types, depth, start = [], 0, 0
    for k, ch in enumerate(params + ","):
        depth += ch in "([<{" and 1 or 0
        depth -= ch in ")]>}" and 1 or 0
        if ch == "," and depth == 0:
            p = params[start:k]
            p = p[:top_level(p, "=")] if top_level(p, "=") >= 0 else p
            p = re.sub(r"\s+", " ", p).strip()
            words = re.match(r"^(.*?)([A-Za-z_]\w*)(\s*(?:\[[^\]]*\])*)$", p)
            if words and words.group(1).strip() and words.group(2) not in TYPE_WORDS:
                p = words.group(1)
            types.append(re.sub(r"\s+", "", p))
            start = k + 1
    return ",".join(t for t in types if t)


def definition(head, body_follows):
    """(kind, name) of what a namespace-scope head defines, or None: a declaration, a using, a
    qualified definition, or a head this reader does not know."""
    head = without_template_heads(re.sub(r"\s+", " ", head))
    if not head or re.match(r"^(?:using|typedef|friend|extern|static_assert|namespace)\b", head):
        return None  # a namespace here is an alias: `namespace fs = std::filesystem;`
    if re.match(r"^(?:struct|class|union|enum)\b", head):
        m = TYPE.match(head)  # no match: Outer::Inner, or a specialisation hash<Foo>
        return ("type", m.group(1)) if m and body_follows else None
    # An operator's own symbols are not the head's brackets or its `=`: operator<, operator==.
    # Each symbol keeps a name of its own (operator== is operator_3d3d).
    head = re.sub(r"\boperator\s*(\(\)|[^\s(]+)",
                  lambda m: "operator_" + "".join(f"{ord(c):x}" for c in m.group(1)), head)
    eq, paren = top_level(head, "="), top_level(head, "(")
    if eq >= 0 and (paren < 0 or eq < paren):
        names = IDENTIFIER.findall(re.sub(r"\[[^\]]*\]", "", head[:eq]))
        return ("variable", names[-1]) if names else None
    if paren < 0:
        names = IDENTIFIER.findall(head)
        return ("variable", names[-1]) if body_follows and len(names) > 1 else None
    if not body_follows:
        return None  # a function declared, or a variable constructed by a call
    before = head[:paren].rstrip()
    if "::" in before.split(" ")[-1] or before.endswith(">"):
        return None  # Type::member, ns::f or a specialisation: declared elsewhere once
    name = re.search(r"(operator\s*\S+|[A-Za-z_]\w*)$", before)
    if not name:
        return None
    close = head.rfind(")")
    args = head[paren + 1:close] if close > paren else ""
    if name.group(1).isupper():
        return "function", name.group(1) + "(" + re.sub(r"\s+", "", args) + ")"
    return "function", f"{name.group(1)}({parameter_types(args)})"


def closing_brace(code, i):
    """The index of the brace that closes the one at code[i]."""
    depth = 0
    for k in range(i, len(code)):
        depth += {"{": 1, "}": -1}.get(code[k], 0)
        if depth == 0:
            return k
    return len(code) - 1


def namespace_scope_names(text):
    """{(namespace, kind, name): first line} of what a source defines at namespace scope."""
    code = blank_code(text)
    found, namespaces, head_start, i = {}, [], 0, 0
    while i < len(code):
        ch = code[i]
        if ch not in "{};":
            i += 1
            continue
        head = code[head_start:i]
        line = code.count("\n", 0, head_start + len(head) - len(head.lstrip())) + 1
        if ch == "{" and (m := NAMESPACE.match(head.strip())):
            namespaces.append(m.group(1) or "")
            head_start = i = i + 1
            continue
        if ch == "}":  # the end of a namespace
            namespaces = namespaces[:-1]
            head_start = i = i + 1
            continue
        what = definition(head, body_follows=ch == "{")
        if ch == "{":
            i = closing_brace(code, i)
            # A type or a braced variable goes on to its `;`; a function ends at its brace.
            if what is not None and what[0] != "function":
                i = code.find(";", i)
                i = len(code) if i < 0 else i
        if what is not None:
            scope = "::".join(n for n in namespaces if n)
            found.setdefault((scope,) + what, line)
        head_start = i = i + 1
    return found


def target_sources():
    """{target: [source path]} from the list CMake wrote at configure time."""
    listing = BUILD / "target_sources.txt"
    if not listing.is_file():
        raise FileNotFoundError(f"{listing} is missing: configure the build first "
                                "(cmake -S . -B build), which writes it")
    targets = collections.defaultdict(list)
    for row in listing.read_text().splitlines():
        target, _, path = row.partition("\t")
        if path:
            targets[target].append(pathlib.Path(path))
    return targets


def collisions(targets, read=lambda path: path.read_text(errors="replace")):
    """One line per name that two files of one target define, naming both files and lines."""
    bad = []
    for target, paths in sorted(targets.items()):
        owners = {}
        for path in paths:
            for key, line in namespace_scope_names(read(path)).items():
                if key in owners and owners[key][0] != path:
                    scope, kind, name = key
                    first = owners[key]
                    rel = [p.relative_to(ROOT) if p.is_relative_to(ROOT) else p
                           for p in (first[0], path)]
                    bad.append(f"{target}: {kind} {scope + '::' if scope else ''}{name} in "
                               f"{rel[0]}:{first[1]} and {rel[1]}:{line}")
                owners.setdefault(key, (path, line))
    return bad


class UnityNames(unittest.TestCase):
    def test_no_target_defines_a_name_twice_at_namespace_scope(self):
        bad = collisions(target_sources())
        self.assertEqual(bad, [], "two files of one target define the same name; in the "
                         "unity batches they are one translation unit and it "
                         "stops compiling: rename one, or share it through a header\n"
                         + "\n".join(bad))

    def test_the_list_names_the_sources_of_the_targets_it_checks(self):
        targets = target_sources()
        self.assertIn(ROOT / "cli/main.cpp", targets.get("railgauge", []))
        self.assertGreater(len(targets), 50)
        self.assertTrue(all(p.is_file() for paths in targets.values() for p in paths))

    # What the reader counts as one name, on small sources.
    def test_the_reader_finds_types_variables_and_functions(self):
        text = """
namespace railgauge::rdma {
namespace {
// A comment with a brace { and a string "}" do not count.
struct Seen {
  int n = 0;
  void add(int k) { n += k; }
};
const std::vector<const char *> kNames = {"a", "b"};
constexpr double kScale{2.0};
template <typename T>
std::optional<T> read_field(const nlohmann::json &j, const char *key = "x") {
  return j.contains(key) ? std::optional<T>(j[key]) : std::nullopt;
}
void expect_rewritten(const Record &r, const std::string &what) { (void)r; }
}  // namespace
int Seen2::count() const { return 1; }
template <> struct hash<Seen> {
  std::size_t operator()(const Seen &s) const { return s.n; }
};
bool operator==(const Seen &a, const Seen &b) { return a.n == b.n; }
void declared_only(int n);
TEST(PairMatrix, Reads) { EXPECT_TRUE(true); }
}  // namespace railgauge::rdma
"""
        self.assertEqual({k[1:] for k in namespace_scope_names(text)}, {
            ("type", "Seen"), ("variable", "kNames"), ("variable", "kScale"),
            ("function", "read_field(constnlohmann::json&,constchar*)"),
            ("function", "expect_rewritten(constRecord&,conststd::string&)"),
            ("function", "TEST(PairMatrix,Reads)"),
            ("function", "operator_3d3d(constSeen&,constSeen&)")})
        self.assertEqual({k[0] for k in namespace_scope_names(text)}, {"railgauge::rdma"})

    def test_a_pair_in_one_target_is_caught_and_overloads_are_not(self):
        a = ROOT / "tests/a_test.cpp"
        b = ROOT / "tests/b_test.cpp"
        texts = {a: "namespace {\nvoid check(const Record &r) {}\nvoid other(int n) {}\n}\n",
                 b: "namespace {\nvoid check(const Record &record) {\n}\n"
                    "void other(double n) {}\n}\n"}
        bad = collisions({"t": [a, b]}, read=texts.get)
        self.assertEqual(bad, ["t: function check(constRecord&) in tests/a_test.cpp:2 and "
                               "tests/b_test.cpp:2"])
        self.assertEqual(collisions({"t": [a], "u": [b]}, read=texts.get), [])


if __name__ == "__main__":
    run_named_tests(sys.argv[1:])
