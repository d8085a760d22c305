#!/usr/bin/env python3
"""The man page as debian/rules makes it: help2man of the top-level --help with
docs/railgauge.h2m and scripts/man_commands.sh's COMMANDS section, which holds every command's
--help (once the page was the top-level --help alone: no option of check, run or db ingest).

    man_page_test.py RAILGAUGE_BINARY SOURCE_DIR [ManPageTest.test_name ...]
"""
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, str(pathlib.Path(__file__).parent.parent / "support"))
from named_tests import run_named_tests  # noqa: E402

BINARY = SOURCE = None  # set from argv


class ManPageTest(unittest.TestCase):
    def test_debian_rules_puts_the_commands_section_in_the_page(self):
        rules = (pathlib.Path(SOURCE) / "debian" / "rules").read_text()
        self.assertIn("scripts/man_commands.sh $(builddir)/bin/railgauge >$(builddir)/commands.h2m",
                      rules)
        self.assertIn("--include=$(builddir)/commands.h2m", rules)

    @unittest.skipUnless(shutil.which("help2man") and shutil.which("man"),
                         "needs help2man and man (scripts/setup.sh installs them)")
    def test_the_page_holds_every_command_s_options(self):
        with tempfile.TemporaryDirectory() as tmp:
            include = pathlib.Path(tmp) / "commands.h2m"
            with open(include, "w") as f:
                subprocess.run([str(pathlib.Path(SOURCE) / "scripts" / "man_commands.sh"), BINARY],
                               stdout=f, check=True, timeout=120)
            page = pathlib.Path(tmp) / "railgauge.1"
            env = dict(os.environ, PATH=f"{pathlib.Path(BINARY).parent}:{os.environ['PATH']}")
            subprocess.run(["help2man", "--no-info", "--no-discard-stderr",
                            "--version-string=0", "--include",
                            str(pathlib.Path(SOURCE) / "docs" / "railgauge.h2m"), "--include",
                            str(include), "--name=test", "--output", str(page), "railgauge"],
                           env=env, check=True, timeout=120)
            shown = subprocess.run(["man", "--warnings", "-l", str(page)], capture_output=True,
                                   text=True, env=dict(env, MANWIDTH="100", LC_ALL="C.UTF-8"),
                                   timeout=60)
        self.assertEqual(shown.returncode, 0, shown.stderr)
        self.assertEqual(shown.stderr, "", "groff warned about the page")
        text = shown.stdout
        self.assertIn("COMMANDS", text)
        for command, option in (("check", "--inventory-only"), ("run", "--resume"),
                                ("burnin", "--budget"), ("db ingest", "--db"),
                                ("import perftest", "Usage: railgauge import perftest")):
            start = text.find(f"railgauge {command}\n")
            self.assertGreaterEqual(start, 0, f"no section for railgauge {command}")
            self.assertIn(option, text[start:start + 20000], command)
        # The exit statuses once, not after every command.
        self.assertEqual(" ".join(text.split()).count("Exit status: 0 done"), 1)


if __name__ == "__main__":
    BINARY, SOURCE = sys.argv[1], sys.argv[2]
    run_named_tests(sys.argv[3:])
