#!/usr/bin/env python3
"""Size limits on the C++ sources (CONTRIBUTING.md): no file over 500 lines, no function over
100. A file or a function that grows past them fails here, naming it and its length, so that it
is split along the lines its own comments draw while it is still small enough to read.

Functions are found by counting braces on the text with comments, strings and character literals
blanked out: a brace block whose head ends like a function's (a parameter list, then qualifiers
or a trailing return type) and that is not inside another function is one function, from the
first line of its head to its closing brace. Lambdas and local classes count towards the function
that holds them.

  size_limits_test.py SOURCE_DIR [unittest args]
"""
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, str(pathlib.Path(__file__).parent / "support"))
from named_tests import run_named_tests  # noqa: E402
from cpp_text import blank_code  # noqa: E402
from source_files import source_files  # noqa: E402

ROOT = pathlib.Path(sys.argv.pop(1)) if len(sys.argv) > 1 else pathlib.Path(__file__).parents[1]
MAX_FILE_LINES = 500
MAX_FUNCTION_LINES = 100
SUFFIXES = (".h", ".hpp", ".cpp", ".cc", ".cu", ".cuh")

# Files over a limit today, each with the length it may not grow past. The lists only shrink: an
# entry whose file or function is back under the limit (or gone) fails the stale-entry test, so
# that it is deleted rather than left as room to grow.
FILES_ALLOWED = {
}
# Functions over 100 lines today, as "path:function", with the same rule as above.
FUNCTIONS_ALLOWED = {
}

CONTROL = {"if", "for", "while", "switch", "catch", "return", "sizeof", "decltype", "alignof",
           "noexcept", "static_assert", "requires"}
SCOPE = re.compile(r"^(?:template\s*<.*>\s*)?(?:namespace|class|struct|union|enum|extern)\b", re.S)
QUALIFIED_TAIL = re.compile(
    r"\)\s*(?:const|volatile|noexcept(?:\s*\([^()]*\))?|override|final|mutable|&&|&|"
    r"__device__|__host__|try|\s)*(?:->\s*[^{};]+)?$")
NAME_BEFORE = re.compile(r"([A-Za-z_~][A-Za-z0-9_:<>,~ ]*|operator\s*\S+)\s*$")


def is_function_head(head):
    """Whether the text before a brace (since the last ; { or }) opens a function body."""
    head = head.strip()
    if not head or SCOPE.match(head) or "(" not in head:
        return False
    if not QUALIFIED_TAIL.search(head):
        # A constructor whose initializer list ends in a member's braces: x{v} {. (A head that
        # ends in a member's name, x{, is that member's initializer, not the body.)
        return head.endswith("}") and bool(re.search(r"\)\s*(?:noexcept\s*)?:[^:]", head))
    # The parameter list's name: the text before the first top-level '(' of the head.
    depth, start = 0, None
    for k, ch in enumerate(head):
        if ch == "(" and depth == 0 and start is None:
            start = k
        depth += ch in "(<[" and 1 or 0
        depth -= ch in ")>]" and 1 or 0
    before = head[:start].rstrip()
    if not before or before.endswith(("]", "=", ",", "(", "return", "?", ":")) and not \
            before.endswith("::") and not before.endswith("operator]"):
        return False  # a lambda, an initializer or a call
    word = re.findall(r"[A-Za-z_][A-Za-z0-9_]*", before)
    return bool(word) and word[-1] not in CONTROL


def functions(text):
    """(name, first line, last line) of each function defined in a C++ source text."""
    code = blank_code(text)
    found, head_start, depth, func = [], 0, 0, None
    # Braces that open an initializer, not a scope: the head they belong to continues after.
    init_depths = []
    for i, ch in enumerate(code):
        if ch == "{":
            if func is None and not init_depths:
                head = code[head_start:i]
                if is_function_head(head):
                    start = head_start + len(head) - len(head.lstrip())
                    func = (head.strip(), code.count("\n", 0, start) + 1, depth)
                elif not SCOPE.match(head.strip()) and not re.search(r"\)\s*$", head) and \
                        head.strip() and not head.strip().endswith(("else", "do", "try")):
                    init_depths.append(depth)
            elif func is None:
                init_depths.append(depth)
            depth += 1
            if func is None and not init_depths:
                head_start = i + 1
        elif ch == "}":
            depth -= 1
            if init_depths and init_depths[-1] == depth:
                init_depths.pop()
                continue
            if func is not None and func[2] == depth:
                name = re.sub(r"\s+", " ", func[0].split("(")[0]).split(" ")[-1]
                found.append((name, func[1], code.count("\n", 0, i) + 1))
                func = None
            if func is None and not init_depths:
                head_start = i + 1
        elif ch == ";" and func is None and not init_depths:
            head_start = i + 1
    return found


def sources():
    # The files git tracks or would track, never a build directory's (CMake writes its own
    # CMakeCXXCompilerId.cpp there): tests/support/source_files.py.
    for rel in source_files(ROOT):
        if rel.endswith(SUFFIXES):
            yield rel, (ROOT / rel).read_text(errors="replace")


def over_limits():
    """(files over the line limit, functions over theirs): {path: lines}, {path:name: lines}."""
    files, funcs = {}, {}
    for rel, text in sources():
        lines = text.count("\n") + (0 if text.endswith("\n") or not text else 1)
        if lines > MAX_FILE_LINES:
            files[rel] = lines
        for name, first, last in functions(text):
            if last - first + 1 > MAX_FUNCTION_LINES:
                funcs[f"{rel}:{name}"] = last - first + 1
    return files, funcs


class SizeLimits(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.files, cls.funcs = over_limits()

    def test_no_file_exceeds_the_line_limit(self):
        bad = [f"{path}: {n} lines" for path, n in sorted(self.files.items())
               if n > FILES_ALLOWED.get(path, MAX_FILE_LINES)]
        self.assertEqual(bad, [], f"source files over {MAX_FILE_LINES} lines (split them along "
                         "what they hold, CONTRIBUTING.md):\n" + "\n".join(bad))

    def test_no_function_exceeds_the_line_limit(self):
        bad = [f"{where}: {n} lines" for where, n in sorted(self.funcs.items())
               if n > FUNCTIONS_ALLOWED.get(where, MAX_FUNCTION_LINES)]
        self.assertEqual(bad, [], f"functions over {MAX_FUNCTION_LINES} lines (split them into "
                         "named steps, CONTRIBUTING.md):\n" + "\n".join(bad))

    def test_the_allow_lists_hold_no_stale_entry(self):
        # An entry for a file or function that is back under the limit (or gone) is deleted, so
        # that the lists only shrink.
        stale = [p for p in FILES_ALLOWED if p not in self.files]
        stale += [w for w in FUNCTIONS_ALLOWED if w not in self.funcs]
        self.assertEqual(stale, [], "allow-list entries no longer needed; delete them:\n" +
                         "\n".join(stale))

    def test_the_scan_finds_functions(self):
        # The scanner itself, on a text with the shapes that trip a brace count: a constructor's
        # initializer list, a brace initializer, a lambda, a string with braces, a namespace and
        # a class with an inline member.
        text = "\n".join([
            "namespace rg {",                                  # 1
            "struct A {",                                      # 2
            "  int x{0};",                                     # 3
            "  int get() const { return x; }",                 # 4
            "};",                                              # 5
            "A::A(int v) : x{v}, y(v) {",                      # 6
            "  auto f = [&](int k) { return k + 1; };",        # 7
            '  const char* s = "{{{";',                        # 8
            "}",                                               # 9
            "static const int kTable[] = {1, 2, 3};",          # 10
            "template <typename T>",                           # 11
            "auto twice(T t) -> T {",                          # 12
            "  if (t) {",                                      # 13
            "    return t + t; // }",                          # 14
            "  }",                                             # 15
            "  return t;",                                     # 16
            "}",                                               # 17
            "TEST(Suite, Case) {",                             # 18
            "}",                                               # 19
            "} // namespace rg",                               # 20
        ])
        self.assertEqual(functions(text), [("get", 4, 4), ("A::A", 6, 9), ("twice", 11, 17),
                                           ("TEST", 18, 19)])
        self.assertGreater(len(list(sources())), 300)  # the walk found the sources

    def test_the_walk_leaves_build_directories_out(self):
        # CMake writes a long CMakeCXXCompilerId.cpp into every build directory, of any name: the
        # walk reads what git tracks or would track, and without git it leaves out a directory
        # that holds a CMakeCache.txt.
        self.assertFalse([p for p in source_files(ROOT) if "CMakeFiles/" in p])
        with tempfile.TemporaryDirectory() as tmp:
            tree = pathlib.Path(tmp)
            for rel in ("src/a.cpp", "out/CMakeCache.txt", "out/CMakeFiles/3.25.1/Id.cpp"):
                (tree / rel).parent.mkdir(parents=True, exist_ok=True)
                (tree / rel).write_text("int x;\n")
            self.assertEqual(source_files(tree), ["src/a.cpp"])  # no git here: the walk
            if shutil.which("git"):
                subprocess.run(["git", "init", "-q", str(tree)], check=True)
                subprocess.run(["git", "-C", str(tree), "add", "src"], check=True)
                (tree / "src/new.h").write_text("")  # not added yet, still checked
                self.assertEqual(source_files(tree), ["src/a.cpp", "src/new.h"])


if __name__ == "__main__":
    run_named_tests(sys.argv[1:])
