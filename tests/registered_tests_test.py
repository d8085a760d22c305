#!/usr/bin/env python3
"""Every test method of the Python tests is one ctest runs. railgauge_python_tests() registers the
methods it is given by name (tests/CMakeLists.txt), so a method added to a file and not to its
list never runs: ten were found that way, two of them failing since the output they read had
changed. This fails on a `def test_...` of a unittest file under tests/ or scripts/ that no
CMakeLists.txt names, unless ctest runs the file whole (a COMMAND naming it, outside
railgauge_python_tests()).

  registered_tests_test.py SOURCE_DIR [unittest args]
"""
import pathlib
import re
import sys
import unittest

sys.path.insert(0, str(pathlib.Path(__file__).parent / "support"))
from source_files import source_files  # noqa: E402

ROOT = pathlib.Path(sys.argv.pop(1)) if len(sys.argv) > 1 else pathlib.Path(__file__).parents[1]
METHOD = re.compile(r"^    def (test_\w+)\(", re.M)
REGISTERED_BY_NAME = re.compile(r"railgauge_python_tests\(\s*\S+\s+(\S+\.py)")
RUN_WHOLE = re.compile(r"COMMAND\s+\$\{RAILGAUGE_TEST_PYTHON\}\s+\S*?([\w.]+\.py)")


def cmake_text():
    return "\n".join((ROOT / rel).read_text() for rel in source_files(ROOT)
                     if rel.endswith("CMakeLists.txt"))


def unregistered(cmake, files):
    """(file, method) of every test method of `files` ({path: text}) that `cmake` never names."""
    by_name = set(REGISTERED_BY_NAME.findall(cmake))
    whole = set(RUN_WHOLE.findall(cmake)) - by_name
    named = set(re.findall(r"\btest_\w+", cmake))
    return [(path, m) for path, text in sorted(files.items())
            if "unittest" in text and pathlib.Path(path).name not in whole
            for m in METHOD.findall(text) if m not in named]


class RegisteredTests(unittest.TestCase):
    def test_every_test_method_is_run_by_ctest(self):
        files = {rel: (ROOT / rel).read_text() for rel in source_files(ROOT)
                 if rel.endswith(".py") and rel.split("/")[0] in ("tests", "scripts")}
        self.assertGreater(len(files), 50)
        missing = unregistered(cmake_text(), files)
        self.assertEqual(missing, [], "name each in its railgauge_python_tests(... TESTS) list")

    def test_an_unregistered_method_is_caught(self):
        cmake = ("railgauge_python_tests(a a_test.py CLASS A TESTS test_one)\n"
                 "add_test(NAME b COMMAND ${RAILGAUGE_TEST_PYTHON} ${X}/b_test.py)\n")
        files = {"tests/a_test.py": "import unittest\n    def test_one(self):\n"
                                    "    def test_two(self):\n",
                 "tests/b_test.py": "import unittest\n    def test_whole(self):\n"}
        self.assertEqual(unregistered(cmake, files), [("tests/a_test.py", "test_two")])


if __name__ == "__main__":
    unittest.main()
