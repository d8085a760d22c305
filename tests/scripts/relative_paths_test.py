"""scripts/relative_paths.py, and the committed reference runs it keeps portable: no file under
results/reference/ names an absolute path of the machine that made it (a reader elsewhere cannot
follow one), and rewriting such paths keeps every record, run.json and manifest valid JSON.

Usage: relative_paths_test.py SOURCE_DIR [TestName ...]
"""
import io
import json
import os
import subprocess
import sys
import tempfile
import unittest
from contextlib import redirect_stderr, redirect_stdout

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from named_tests import run_script_tests  # noqa: E402

SOURCE = None
relative_paths = None


class RelativePathsTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="railgauge_relpaths_")
        self.addCleanup(self.tmp.cleanup)

    def write(self, name, text):
        path = os.path.join(self.tmp.name, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        return path

    def test_committed_reference_runs_name_no_machine_path(self):
        root = os.path.join(SOURCE, "results", "reference")
        found = relative_paths.check_tree(root)
        self.assertEqual(found, [], "rewrite them: scripts/relative_paths.py DIR --strip "
                                    "OUTPUT_DIR --strip SOURCE_TREE (docs/reference-runs.md)")
        # The check sees the files it must: every run has records or a log to look at.
        self.assertGreater(len(relative_paths.text_files(root)), 100)

    def test_check_finds_each_kind_of_machine_path(self):
        for path in ("/tmp/ref2/runs/x", "/root/out/ref", "/work/main/results/peaks/a.yaml:19",
                     "/home/u/railgauge/node/build/bin/railgauge"):
            self.assertEqual(relative_paths.machine_paths(f'{{"run_dir": "{path}"}}'), [path])
        # Relative paths, URLs and system directories are not a machine's scratch or home.
        for text in ("runs/tmp/x", "https://github.com/NVIDIA/nccl-tests/tmp/x",
                     "/usr/local/cuda/lib64", "node/work/x", "~/tmp/x"):
            self.assertEqual(relative_paths.machine_paths(text), [], text)

    def test_prefixes_become_relative_and_the_bare_directory_dot(self):
        prefixes = ["/tmp/full", "/work/main"]
        cases = {
            '"/tmp/full/runs/gemm-size/r1"': '"runs/gemm-size/r1"',
            "--out /tmp/full (budget": "--out . (budget",
            '"cwd": "/work/main",': '"cwd": ".",',
            "/work/main/node/build/bin/railgauge": "node/build/bin/railgauge",
            "peak_source=/work/main/results/peaks/gpu_peaks.yaml:19 ([NV-H200])":
                "peak_source=results/peaks/gpu_peaks.yaml:19 ([NV-H200])",
            "/tmp/fullish/x": "/tmp/fullish/x",  # another directory that starts alike
            "/tmp/full/": "./",
        }
        for before, after in cases.items():
            self.assertEqual(relative_paths.rewrite_text(before, prefixes), after, before)

    def test_an_output_directory_inside_the_tree_is_taken_as_the_output(self):
        text = "/work/main/out/runs/a and /work/main/scripts/x.py"
        self.assertEqual(relative_paths.rewrite_text(text, ["/work/main", "/work/main/out"]),
                         "runs/a and scripts/x.py")

    def test_rewritten_records_stay_valid_json_and_check_clean(self):
        record = {"key": "gemm.cublaslt", "params": {
            "peak_source": "/work/main/results/peaks/gpu_peaks.yaml:19 (a \"quoted\" cite)"},
            "argv": ["/work/main/node/build/bin/railgauge", "--out", "/tmp/full/runs/g"]}
        self.write("runs/g/r1/records.jsonl", json.dumps(record) + "\n" + json.dumps(record))
        self.write("manifest.json", json.dumps({"out": "/tmp/full", "cwd": "/work/main"}))
        self.write("logs/01.log", "run directory /tmp/full/runs/g/r1\n")
        self.assertEqual(len(relative_paths.check_tree(self.tmp.name)), 3)
        with redirect_stdout(io.StringIO()):
            code = relative_paths.main([self.tmp.name, "--strip", "/tmp/full",
                                        "--strip", "/work/main"])
        self.assertEqual(code, 0)
        self.assertEqual(relative_paths.check_tree(self.tmp.name), [])
        with open(os.path.join(self.tmp.name, "runs/g/r1/records.jsonl")) as f:
            lines = [json.loads(line) for line in f]
        self.assertEqual(lines[0]["params"]["peak_source"],
                         "results/peaks/gpu_peaks.yaml:19 (a \"quoted\" cite)")
        self.assertEqual(lines[1]["argv"], ["node/build/bin/railgauge", "--out", "runs/g"])
        with open(os.path.join(self.tmp.name, "manifest.json")) as f:
            self.assertEqual(json.load(f), {"out": ".", "cwd": "."})

    def test_check_exits_1_naming_the_file_and_bad_arguments_exit_2(self):
        self.write("summary.txt", "runs under /root/out/ref\n")
        script = os.path.join(SOURCE, "scripts", "relative_paths.py")
        run = subprocess.run([sys.executable, script, self.tmp.name, "--check"],
                             capture_output=True, text=True, timeout=60)
        self.assertEqual(run.returncode, 1, run.stderr)
        self.assertIn("summary.txt: 1 absolute path(s), first /root/out/ref", run.stdout)
        for args in ([self.tmp.name], [self.tmp.name, "--strip", "relative/dir"],
                     [os.path.join(self.tmp.name, "none"), "--check"]):
            with redirect_stderr(io.StringIO()) as err:
                self.assertEqual(relative_paths.main(args), 2, args)
            self.assertIn("relative_paths.py:", err.getvalue())


def main():
    run_script_tests(globals(), "relative_paths")


if __name__ == "__main__":
    main()
