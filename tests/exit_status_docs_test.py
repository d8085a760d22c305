#!/usr/bin/env python3
"""The exit statuses are one table (harness/exit_status.h): docs/reliability.md's copy, the one
the other documents link to, and `railgauge --help` must say what `railgauge exit-statuses`
says, so that no document disagrees on a code (the watchdog's 5 once read 4 in the help); and
no other document holds a copy of the table to drift.

  exit_status_docs_test.py RAILGAUGE SOURCE_DIR [unittest args]

To refresh the document: replace the lines between the exit-statuses markers with the output
of `railgauge exit-statuses --format markdown`.
"""
import pathlib
import re
import subprocess
import sys
import unittest

RAILGAUGE = sys.argv.pop(1)
ROOT = pathlib.Path(sys.argv.pop(1))
BLOCK = re.compile(r"<!-- exit-statuses:[^\n]*-->\n(.*?)<!-- end exit-statuses -->", re.S)


def run(*args):
    return subprocess.run([RAILGAUGE, *args], capture_output=True, text=True, timeout=60)


class ExitStatusDocs(unittest.TestCase):
    def test_each_document_holds_the_generated_table(self):
        table = run("exit-statuses", "--format", "markdown")
        self.assertEqual(table.returncode, 0, table.stderr)
        self.assertIn("| 5 |", table.stdout)
        owner = "docs/reliability.md"
        blocks = BLOCK.findall((ROOT / owner).read_text())
        self.assertEqual(len(blocks), 1, f"{owner}: one exit-statuses block expected")
        self.assertEqual(blocks[0], table.stdout,
                         f"{owner} disagrees with harness/exit_status.h: paste "
                         "`railgauge exit-statuses --format markdown` between its markers")
        others = [p.relative_to(ROOT).as_posix() for p in [ROOT / "README.md",
                                                           *sorted((ROOT / "docs").glob("*.md"))]
                  if p.relative_to(ROOT).as_posix() != owner and "exit-statuses:" in p.read_text()]
        self.assertEqual(others, [], f"a copy of the exit-status table outside {owner}: link to "
                         "its section \"Exit statuses\" instead")

    def test_help_gives_the_same_statuses(self):
        text = run("exit-statuses").stdout.strip()
        helped = run("--help").stdout
        self.assertIn(" ".join(text.split()), " ".join(helped.split()))
        for code in range(6):
            self.assertIn(f" {code} ", text)

    def test_other_commands_refer_to_the_table_once(self):
        # The table is printed by `railgauge --help` and `exit-statuses` only; every other
        # command's help ends with one line that says where it is (a command's own few statuses
        # may stand in its description: check's pass, warn and fail).
        reference = "Exit status: `railgauge exit-statuses` prints the table (docs/reliability.md)."
        for command in (["import", "perftest"], ["memory"], ["check"], ["run"], ["db"]):
            helped = run(*command, "--help").stdout
            self.assertIn(reference, helped, command)
            self.assertNotIn("0  done:", helped, command)
            self.assertEqual(helped.count(reference), 1, command)
        self.assertIn("0  done:", run("--help").stdout)

    def test_options_name_the_status_they_end_with(self):
        # An option whose help names the exit status it ends with names the table's code, in
        # every command that has it: --point-timeout once said 4 where the watchdog exits 5, and
        # --expect 1 where a refused run exits 2.
        table = " ".join(run("exit-statuses").stdout.split())
        self.assertIn("5 a point outlived --point-timeout", table)
        self.assertIn("hardware --expect names is missing", table)
        for command in ("run", "memory", "burnin"):
            helped = " ".join(run(command, "--help").stdout.split())
            self.assertIn("the run stops (exit 5; a hung GPU kernel", helped, command)
            self.assertIn("(run.json status refused, exit status 2: a node to drain)", helped,
                          command)
            self.assertEqual(re.findall(r"\(exit [0-46-9];", helped), [], command)


if __name__ == "__main__":
    unittest.main()
