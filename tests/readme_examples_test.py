#!/usr/bin/env python3
"""The README's examples run as written: every command block marked `<!-- runnable -->` (the
ones that need no GPU and finish in seconds; every other block says why it is not run) is run by bash from the build tree's binary, in a
scratch directory that sees the checkout's tests/ and results/, and must exit 0 (a block that
shows a failing verdict says so itself, e.g. `|| test $? -eq 2`).

  readme_examples_test.py RAILGAUGE SOURCE_DIR [unittest args]
"""
import pathlib
import re
import subprocess
import sys
import tempfile
import unittest

RAILGAUGE = pathlib.Path(sys.argv.pop(1)).resolve()
ROOT = pathlib.Path(sys.argv.pop(1)).resolve()
RUNNABLE = re.compile(r"^<!-- runnable -->\n```sh\n(.*?)^```\n(?:\n```\n(.*?)^```$)?",
                      re.S | re.M)


def runnable_blocks(text):
    return [m.group(1) for m in RUNNABLE.finditer(text)]


def unmarked_blocks(text):
    """The line numbers of the ```sh blocks marked neither runnable nor with why they are not."""
    lines = text.splitlines()
    return [n + 1 for n, line in enumerate(lines) if line == "```sh" and not (
        n > 0 and (lines[n - 1] == "<!-- runnable -->"
                   or re.fullmatch(r"<!-- not run by the tests: .*\S.* -->", lines[n - 1])))]


def shown_outputs(text):
    """The output block right after each runnable block ("" when none)."""
    return [m.group(2) or "" for m in RUNNABLE.finditer(text)]


class ReadmeExamples(unittest.TestCase):
    def test_every_runnable_block_runs_from_the_build_tree(self):
        text = (ROOT / "README.md").read_text()
        blocks = runnable_blocks(text)
        # Burn-in's verdict, a fabric's acceptance and a model's calibration, at least.
        self.assertGreaterEqual(len(blocks), 3, "the README marks its examples <!-- runnable -->")
        for block, shown in zip(blocks, shown_outputs(text)):
            with self.subTest(block=block.splitlines()[0]), tempfile.TemporaryDirectory() as tmp:
                scratch = pathlib.Path(tmp)
                for name in ("tests", "results"):
                    (scratch / name).symlink_to(ROOT / name)
                (scratch / "build" / "bin").mkdir(parents=True)
                (scratch / "build" / "bin" / "railgauge").symlink_to(RAILGAUGE)
                r = subprocess.run(["bash", "-eo", "pipefail", "-c", block], cwd=scratch,
                                   capture_output=True, text=True, timeout=120)
                self.assertEqual(r.returncode, 0, f"{block}\n{r.stdout[-3000:]}\n{r.stderr}")
                # The output shown is the output printed: every line but those cut ("...").
                printed = {line.rstrip() for line in r.stdout.splitlines()}
                for line in shown.splitlines():
                    if "..." not in line and line.strip():
                        self.assertIn(line.rstrip(), printed, block)

    def test_every_command_block_is_run_or_says_why_not(self):
        # A new command block is run by the test above unless it says why it cannot be (a GPU,
        # a whole fresh machine): an example that was never run is an example that rots.
        self.assertEqual(unmarked_blocks((ROOT / "README.md").read_text()), [],
                         "README.md lines of ```sh blocks marked neither "
                         "<!-- runnable --> nor <!-- not run by the tests: WHY -->")

    def test_a_block_that_fails_is_caught(self):
        text = "x\n<!-- runnable -->\n```sh\nfalse\n```\n```sh\nnot marked\n```\n"
        self.assertEqual(runnable_blocks(text), ["false\n"])
        r = subprocess.run(["bash", "-eo", "pipefail", "-c", runnable_blocks(text)[0]])
        self.assertNotEqual(r.returncode, 0)
        # The block after it is marked neither way, and so is one under an empty reason or a
        # blank line; the marked ones are not named.
        text += ("<!-- not run by the tests: needs a GPU -->\n```sh\nrailgauge burnin\n```\n"
                 "<!-- not run by the tests:  -->\n```sh\ntrue\n```\n"
                 "<!-- runnable -->\n\n```sh\ntrue\n```\n")
        self.assertEqual(unmarked_blocks(text), [6, 14, 19])


if __name__ == "__main__":
    unittest.main()
