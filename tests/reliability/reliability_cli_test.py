#!/usr/bin/env python3
"""End-to-end fault tests of the railgauge command line: a run killed with SIGKILL and resumed,
every refusal of --resume, a file size limit (a full disk) and a run directory removed mid-run.
Every record left behind is checked against the JSON Schema.

Run by CTest, one test method per CTest test:
    reliability_cli_test.py RAILGAUGE_BINARY TestName.test_name
"""
import json
import pathlib
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))
sys.path.insert(0, str(ROOT / "tests" / "support"))
import validate_run  # noqa: E402
from run_dirs import manifest_of, only_run_dir, records_of  # noqa: E402

BINARY = None  # set from argv in __main__

# Many quick points of one benchmark: enough that a run is still going when it is interrupted.
MANY_POINTS = ["memory", "-q", "--time-budget", "0.01", "--filter", "memory.host_copy",
               "-a", "size_bytes=" + ",".join(f"{16 * i}KiB" for i in range(1, 33)), "-a", "threads=1", "-a", "numa_node=0"]
MANY_POINTS_COUNT = 32


def railgauge(*args, timeout=300, **kwargs):
    return subprocess.run([BINARY, *args], capture_output=True, text=True, timeout=timeout,
                          **kwargs)


def point_of(record):
    return record["key"], json.dumps(record["axes"], sort_keys=True)


def start_and_wait_for_records(args, out, at_least):
    """Starts railgauge and returns (process, run_dir) once it has written `at_least` records."""
    proc = subprocess.Popen([BINARY, *args], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            text=True)
    deadline = time.time() + 120
    while time.time() < deadline:
        dirs = [p for p in pathlib.Path(out).iterdir() if p.is_dir()]
        if dirs and (dirs[0] / "records.jsonl").exists():
            if (dirs[0] / "records.jsonl").read_text().count("\n") >= at_least:
                return proc, dirs[0]
        if proc.poll() is not None:
            break
        time.sleep(0.01)
    proc.kill()
    raise AssertionError(f"railgauge wrote fewer than {at_least} records: {proc.stderr.read()}")


class ResumeCliTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.out = self.tmp.name

    def tearDown(self):
        self.tmp.cleanup()

    def assert_valid(self, run_dir, require_complete):
        problems, count = validate_run.validate_run_dir(run_dir, require_complete)
        self.assertEqual(problems, [])
        return count

    def test_sigkill_then_resume_completes_the_run(self):
        args = [*MANY_POINTS, "--out", self.out]
        proc, run_dir = start_and_wait_for_records(args, self.out, 3)
        self.assertIsNone(proc.poll(), "the run ended before it could be killed")
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
        self.assertEqual(proc.returncode, -signal.SIGKILL)
        before = records_of(run_dir)
        self.assert_valid(run_dir, require_complete=False)
        self.assertEqual(manifest_of(run_dir)["status"], "running")  # interrupted
        self.assertLess(len(before), MANY_POINTS_COUNT)

        r = railgauge(*args, "--resume", str(run_dir))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(self.assert_valid(run_dir, require_complete=True), MANY_POINTS_COUNT)
        after = records_of(run_dir)
        self.assertEqual(after[:len(before)], before, "records already written were kept as is")
        points = [point_of(rec) for rec in after]
        self.assertEqual(len(set(points)), MANY_POINTS_COUNT, "each point recorded exactly once")
        self.assertEqual({rec["run"] for rec in after}, {run_dir.name})
        manifest = manifest_of(run_dir)
        self.assertEqual(manifest["counts"], {"ok": MANY_POINTS_COUNT})
        self.assertEqual(len(manifest["resumes"]), 1)
        self.assertEqual(manifest["resumes"][0]["points_skipped"], len(before))
        self.assertEqual(manifest["resumes"][0]["previous_status"], "running")

        # A complete run is not resumed without --force; with it, nothing runs again.
        r = railgauge(*args, "--resume", str(run_dir))
        self.assertEqual(r.returncode, 4, r.stderr)
        self.assertIn("complete", r.stderr)
        r = railgauge(*args, "--resume", str(run_dir), "--force")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(len(records_of(run_dir)), MANY_POINTS_COUNT)

    def test_sigterm_records_the_point_marks_run_json_and_resume_finishes(self):
        # As Slurm at a job's time limit: the point running becomes an error record, run.json
        # says interrupted, the exact resume command is printed, exit 5; --resume runs the
        # interrupted point again and completes the run.
        # Points of 0.2 s, and the signal 50 ms after the second record, so that it lands inside
        # the third point; without -q, for the messages.
        # Under --db, the run cut short is not stored, and that is said; --resume stores it.
        db = f"sqlite:{self.out}/history.db"
        args = [a for a in MANY_POINTS if a != "-q"] + ["--out", self.out, "--db", db]
        args[args.index("--time-budget") + 1] = "0.2"
        proc, run_dir = start_and_wait_for_records(args, self.out, 2)
        time.sleep(0.05)
        self.assertIsNone(proc.poll(), "the run ended before it could be signalled")
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=60)
        err = proc.stderr.read()
        self.assertEqual(proc.returncode, 5, err)
        self.assertIn(f"railgauge: --db: run {run_dir} ended before it was whole and is not "
                      "stored in the fleet history", err)
        self.assertIn(f"railgauge: run directory {run_dir}", err)
        self.assertIn("SIGTERM: the run stops", err)
        self.assertIn(f"continue with: {BINARY} ", err)
        self.assertIn(f"--resume {run_dir}", err)
        manifest = manifest_of(run_dir)
        self.assertEqual(manifest["status"], "interrupted")
        self.assertEqual(manifest["interrupted"], "SIGTERM")
        before = records_of(run_dir)
        last = before[-1]
        # A machine that stalled the run for 50 ms can still put the signal between two points:
        # then no point was running, every record is ok, and --resume runs the points left.
        between_points = last["status"] == "ok"
        if between_points:
            self.assertTrue(all(rec["status"] == "ok" for rec in before), before)
        else:
            self.assertEqual(last["status"], "error", last)
            self.assertTrue(last["reason"].startswith("interrupted by SIGTERM while running "),
                            last)
            self.assertRegex(last["reason"], r", \d+\.\d s in \(--point-timeout 600 s\): ")
        self.assert_valid(run_dir, require_complete=False)
        # The node did nothing wrong: check warns (not a pass: the points never measured are not
        # judged) and drains nobody, naming the signal and the --resume that finishes it; the
        # point the signal cut is not a failed point.
        drain, md = (pathlib.Path(self.out) / name for name in ("drain.txt", "verdict.md"))
        r = railgauge("check", "--rules", "host-only", str(run_dir), "--drain", str(drain),
                      "--markdown", str(md))
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertEqual(drain.read_text(), "")
        self.assertIn("| run-complete | health | run {}: missing, not judged: stopped by SIGTERM "
                      "from outside the run (a job's time limit, scancel, Ctrl-C); ".format(
                          run_dir), md.read_text())
        self.assertIn(f"continue it with `railgauge {args[0]} ... --resume {run_dir}`",
                      md.read_text())
        self.assertNotIn("drain: ", r.stdout)
        self.assertRegex(r.stdout, r"WARN: 1 node \(0 pass, 1 warn, 0 fail\)")

        r = railgauge(*args, "-q", "--resume", str(run_dir))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("railgauge: --db: run ", r.stderr)  # stored once whole
        after = records_of(run_dir)
        self.assertEqual(after[:len(before)], before, "records already written were kept as is")
        self.assertEqual(len({point_of(rec) for rec in after}), MANY_POINTS_COUNT)
        self.assertEqual(manifest_of(run_dir)["counts"], {"ok": MANY_POINTS_COUNT})
        # A point's last record is its result: the interrupted point's error record (its params
        # only the axes) gives way to the resume's ok record of it (derived params added), in
        # check over the run directory and in the fleet history that the resume stored, which
        # keeps the run's inventory and judges its probes as the directory check does.
        for judged, status in (([str(run_dir)], 0), (["--history", db], 0)):
            r = railgauge("check", "--rules", "host-only", *judged)
            # The node table and findings, below the test x part grid that lists every rule.
            self.assertNotIn("record-status", r.stdout.split("host  part")[-1], judged)
            self.assertEqual(r.returncode, status, f"{judged}: {r.stdout}{r.stderr}")
        if between_points:
            self.assertEqual(self.assert_valid(run_dir, require_complete=True), MANY_POINTS_COUNT)
            return
        # Every point once, and the interrupted one twice: its error record, then its ok one.
        self.assertEqual(self.assert_valid(run_dir, require_complete=True), MANY_POINTS_COUNT + 1)
        interrupted = point_of(last)
        self.assertEqual([rec["status"] for rec in after if point_of(rec) == interrupted],
                         ["error", "ok"], "the interrupted point ran again")

    def test_a_batch_log_gets_progress_lines(self):
        # stderr is a pipe here, as in a Slurm log: progress lines instead of the terminal's.
        args = [a for a in MANY_POINTS if a != "-q"] + ["--out", self.out, "--progress-every",
                                                        "0.2"]
        r = railgauge(*args)
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = [l for l in r.stderr.splitlines() if l.startswith("railgauge: progress: ")]
        self.assertGreaterEqual(len(lines), 1, r.stderr)
        self.assertRegex(lines[-1], r"^railgauge: progress: \d+ of 32 points, \d+ s so far, "
                                    r"about \d+ s left at this pace$")
        self.assertNotIn("\033[K", r.stderr)  # the terminal's line is not drawn into a log
        self.assertTrue(r.stderr.startswith("railgauge: run directory "), r.stderr[:200])

    def test_expected_hardware_that_is_missing_refuses_the_run(self):
        # More GPUs than any machine has: the run is refused before its first point, within 2 s,
        # exit 2 (a node to drain), the reason said at the start and again as the last line,
        # run.json "refused".
        args = ["memory", "-q", "--filter", "memory.hbm_read", "-a", "size_bytes=4KiB",
                "--out", self.out]
        started = time.monotonic()
        r = railgauge(*args, "--expect", "gpus=4096,nics=0")
        took_s = time.monotonic() - started
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertLess(took_s, 2.0, r.stderr)
        self.assertRegex(r.stderr, r"expectation not met: gpus: expected 4096, found \d+")
        self.assertRegex(r.stderr.splitlines()[-1],
                         r"^railgauge: refused: rank 0 \(.+\): gpus: expected 4096, found \d+ "
                         r"(\(.+\) )?\(expected hardware\); no point ran")
        run_dir = only_run_dir(self.out)
        manifest = manifest_of(run_dir)
        self.assertEqual(manifest["status"], "refused")
        # with no GPU the driver's reason is said beside the count
        self.assertRegex(manifest["refused"],
                         r"gpus: expected 4096, found \d+ (\(.+\) )?\(expected hardware\)$")
        self.assertEqual(manifest["counts"], {})
        self.assertIsNotNone(manifest["end_utc"])
        self.assertEqual(len(manifest["expect"]["unmet"]), 1, manifest["expect"])
        self.assertEqual(records_of(run_dir), [], "no point ran")
        self.assert_valid(run_dir, require_complete=False)
        shutil.rmtree(run_dir)
        r = railgauge(*args, "--expect", "gpus=0")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(manifest_of(only_run_dir(self.out))["status"], "complete")

    def test_a_resume_refused_at_the_start_keeps_its_records_counts(self):
        # A run resumed where a GPU has gone (--expect not met) is refused before its first new
        # point; run.json still counts the records the run holds (it once wrote counts {}, and
        # check read "no point ran" beside them).
        args = ["memory", "-q", "--filter", "memory.host_read", "-a", "size_bytes=4KiB,8KiB",
                "--out", self.out]
        self.assertEqual(railgauge(*args).returncode, 0)
        run_dir = only_run_dir(self.out)
        held = len(records_of(run_dir))
        r = railgauge(*args, "--resume", run_dir, "--force", "--expect", "gpus=4096")
        self.assertEqual(r.returncode, 2, r.stderr)
        manifest = manifest_of(run_dir)
        self.assertEqual(manifest["status"], "refused")
        self.assertEqual(manifest["counts"], {"ok": held})
        self.assertEqual(len(records_of(run_dir)), held)

    def test_burnin_without_a_gpu_fails_and_drains_the_node(self):
        # This machine has no GPU (no driver): the commonest failure a burn-in meets. It is a
        # FAIL that drains the node (exit 2), named with its cause, under the profile --rules
        # auto picks and under one given by name; never bad input (4) and never a PASS.
        if "found 0" not in railgauge("memory", "-q", "--filter", "memory.host_copy",
                                      "-a", "size_bytes=4KiB", "--out", self.out,
                                      "--expect", "gpus=1").stderr:
            self.skipTest("this machine has a usable GPU")
        for rules in ("auto", "any-fabric"):
            out = pathlib.Path(self.out) / rules
            # a budget that holds every phase at its shortest (88 s): nothing runs here
            r = railgauge("burnin", "--budget", "200", "--rules", rules, "--out", str(out))
            self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
            self.assertRegex(r.stderr, r"expectation not met: gpus: expected 1, found 0 \(.+\)")
            self.assertIn("drain:", r.stdout)
            self.assertRegex(r.stdout, r"\nFAIL: 1 node \(0 pass, 0 warn, 1 fail\)")
            if rules == "auto":
                self.assertIn("--rules auto: gpu-node (no GPU in the inventory of 1 node",
                              r.stdout + r.stderr)
            run_dir = only_run_dir(out)
            manifest = manifest_of(run_dir)
            self.assertEqual(manifest["status"], "refused")
            self.assertRegex(manifest["refused"], r"gpus: expected 1, found 0 \(.+\)")
            # check of the same directory later says the same
            c = railgauge("check", "--rules", "auto", "--format", "drain", str(run_dir))
            self.assertEqual(c.returncode, 2, c.stdout + c.stderr)
            self.assertEqual(len(c.stdout.split()), 1, c.stdout)

    def test_a_typo_in_expect_leaves_no_run_directory(self):
        out = pathlib.Path(self.out) / "typo"
        for args, said in (
                (["memory", "-q", "--filter", "memory.host_copy", "--expect", "gpu=8"], "gpus=N"),
                # A misspelt profile for burnin is refused before a minute is measured (on a GPU
                # node the burn-in it would cost is minutes long).
                (["burnin", "--rules", "h200-sxn"], "no rules named 'h200-sxn'"),
                # Its phases' durations are the plan's (run.json states them): -a cannot shorten
                # them.
                (["burnin", "--filter", "memory.burn", "-a", "duration_s=1"],
                 "give --budget SECONDS"),
                # Its plan and verdict are text on standard output: jsonl lines would be mixed
                # with it.
                (["burnin", "--format", "jsonl"], "records.jsonl in the run directory"),
                (["burnin", "--format", "csv"], "not csv"),
                # A misspelt phase is named with the suite's keys, not the registry's (it was
                # offered gemm.cpu_blas, which the burn-in never plans).
                (["burnin", "--filter", "gemm.burnx"], "did you mean 'gemm.burn'? its phases:")):
            r = railgauge(*args, "--out", str(out))
            self.assertEqual(r.returncode, 4, r.stderr)
            self.assertIn(said, r.stderr)
            self.assertFalse(out.exists(), "an input error writes nothing")

    def test_a_refused_run_never_reads_as_pass(self):
        # A node's complete run, then its retest refused: check fails the node and says why;
        # report lists the refusal; compare and report of the refused run alone have nothing to
        # show and say why (exit 4), never a pass.
        host_args = ["memory", "-q", "--time-budget", "0.01", "--filter", "memory.host_copy",
                     "-a", "size_bytes=16KiB", "-a", "threads=1", "-a", "numa_node=0"]
        good = pathlib.Path(self.out) / "good"
        refused = pathlib.Path(self.out) / "refused"
        self.assertEqual(railgauge(*host_args, "--out", str(good)).returncode, 0)
        self.assertEqual(railgauge(*host_args, "--out", str(refused), "--expect",
                                   "gpus=4096").returncode, 2)
        verdict = pathlib.Path(self.out) / "verdict.json"
        r = railgauge("check", "--rules", "host-only", "--format", "drain", "--json",
                      str(verdict), str(good), str(refused))
        self.assertEqual(r.returncode, 2, r.stderr)
        text = verdict.read_text()
        self.assertIn("run.json says status 'refused' (rank 0 (", text)
        self.assertIn("refused, no point ran: rank 0 (", text)  # among the input problems
        r = railgauge("check", "--rules", "host-only", "--format", "drain", str(refused))
        self.assertEqual(r.returncode, 2, r.stderr + r.stdout)  # the node fails, on the list
        self.assertEqual(len(r.stdout.split()), 1, r.stdout)
        r = railgauge("report", "--markdown", str(pathlib.Path(self.out) / "r.md"), str(good),
                      str(refused))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("refused, no point ran", (pathlib.Path(self.out) / "r.md").read_text())
        for command in (["report", str(refused)], ["compare", str(good), str(refused)]):
            r = railgauge(*command)
            self.assertEqual(r.returncode, 4, r.stderr)
            self.assertIn("refused, no point ran: rank 0 (", r.stderr)

    def test_two_runs_started_together_have_two_run_ids(self):
        # The same host, the same second, two --out directories (a job step's two runs).
        args = ["memory", "-q", "--time-budget", "0.01", "--filter", "memory.host_copy",
                "-a", "size_bytes=16KiB", "-a", "threads=1", "-a", "numa_node=0"]
        for attempt in range(5):
            outs = [pathlib.Path(self.out) / f"{attempt}-{i}" for i in range(2)]
            procs = [subprocess.Popen([BINARY, *args, "--out", str(o)],
                                      stderr=subprocess.DEVNULL) for o in outs]
            for proc in procs:
                self.assertEqual(proc.wait(timeout=120), 0)
            ids = [manifest_of(only_run_dir(o))["run"] for o in outs]
            if ids[0][:20] == ids[1][:20]:  # started in the same second: the case to test
                self.assertNotEqual(ids[0], ids[1])
                return
        self.fail(f"no two runs started in the same second in 5 tries: {ids}")

    def test_resume_refusals(self):
        args = ["memory", "-q", "--time-budget", "0.01", "--filter", "memory.host_copy",
                "-a", "size_bytes=16KiB,32KiB", "-a", "threads=1", "-a", "numa_node=0",
                "--out", self.out]
        r = railgauge(*args)
        self.assertEqual(r.returncode, 0, r.stderr)
        run_dir = only_run_dir(self.out)
        manifest = manifest_of(run_dir)
        manifest["status"] = "running"  # as if it had been interrupted
        (run_dir / "run.json").write_text(json.dumps(manifest))
        # Another plan: different axis values.
        r = railgauge("memory", "-q", "--filter", "memory.host_copy", "-a", "size_bytes=64KiB",
                      "-a", "threads=1", "-a", "numa_node=0", "--resume", str(run_dir))
        self.assertEqual(r.returncode, 4, r.stderr)
        self.assertIn("differ from the run's 2", r.stderr)
        self.assertIn("fix: resume with the options of the original command", r.stderr)
        # Another suite.
        r = railgauge("run", "quick", "-q", "--resume", str(run_dir))
        self.assertEqual(r.returncode, 4, r.stderr)
        self.assertIn("made by suite", r.stderr)
        # Not a run directory.
        r = railgauge(*args, "--resume", self.out)
        self.assertEqual(r.returncode, 4, r.stderr)
        self.assertIn("run.json", r.stderr)
        # --force without --resume.
        r = railgauge(*args, "--force")
        self.assertEqual(r.returncode, 4, r.stderr)
        self.assertIn("only go with --resume", r.stderr)
        # A run that is still being written by a live process.
        live_out = pathlib.Path(self.out) / "live"
        live_out.mkdir()
        live_args = [*MANY_POINTS, "--out", str(live_out)]
        proc, live_dir = start_and_wait_for_records(live_args, live_out, 1)
        try:
            r = railgauge(*live_args, "--resume", str(live_dir))
            self.assertEqual(r.returncode, 4, r.stderr)
            self.assertIn("still writing", r.stderr)
        finally:
            proc.kill()
            proc.wait(timeout=30)
        # Nothing refused wrote anything.
        self.assertEqual(len(records_of(run_dir)), 2)
        self.assertEqual(manifest_of(run_dir).get("resumes"), None)


class ProgressLogTest(unittest.TestCase):
    """The batch log's time left, measured against the time the run really took."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.out = self.tmp.name

    def tearDown(self):
        self.tmp.cleanup()

    def test_the_time_left_at_halfway_is_within_a_quarter(self):
        # Six points of about 1 s each (max_rel_noise 0: each samples its whole budget), then 18
        # points waived at once (the other host_* kernels on a NUMA node no machine has), as the
        # node suite's GPU points on a machine without GPUs. Counted as work, the waived points
        # made the estimate at halfway about seven times the time left.
        sizes = "[16KiB, 32KiB, 64KiB, 128KiB, 256KiB, 512KiB]"
        suite = pathlib.Path(self.out) / "eta.yaml"
        suite.write_text(
            "suite: eta\ndescription: measured points, then waived ones\n"
            "measure:\n  time_budget_s: 1.0\n  max_rel_noise: 0\n  min_sample_s: 0.01\n"
            "benchmarks:\n"
            f"  - key: memory.host_copy\n    axes: {{size_bytes: {sizes}, threads: [1], "
            "numa_node: [0]}\n"
            "  - key: \"memory.host_*\"\n"
            f"    axes: {{size_bytes: {sizes}, threads: [1], numa_node: [4095]}}\n")
        started = time.monotonic()
        proc = subprocess.Popen([BINARY, "run", str(suite), "--out", self.out,
                                 "--progress-every", "0.2"], stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE, text=True)
        lines = []  # (seconds since the start, time left the line says)
        for line in proc.stderr:
            if line.startswith("railgauge: progress: ") and "left at this pace" in line:
                left_s = float(line.split("about ")[1].split(" s left")[0])
                lines.append((time.monotonic() - started, left_s, line.strip()))
        proc.stderr.close()
        self.assertEqual(proc.wait(timeout=120), 0)
        total_s = time.monotonic() - started
        self.assertIn("(3 of 6 to measure)", " ".join(l[2] for l in lines))
        at, said_s, line = min(lines, key=lambda l: abs(l[0] - total_s / 2))
        true_s = total_s - at
        print(f"halfway: {line!r} at {at:.1f} s of {total_s:.1f} s: {true_s:.1f} s were left",
              file=sys.stderr)
        # The line prints whole seconds: half a second of rounding beside the quarter. Counting
        # the 18 waived points as work would say about 21 s here, not 3 to 4.
        self.assertLessEqual(abs(said_s - true_s), 0.25 * true_s + 0.5, line)


class OutputFailureTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.out = self.tmp.name

    def tearDown(self):
        self.tmp.cleanup()

    def test_file_size_limit_stops_the_run_with_records_intact(self):
        # How big run.json is here, from a one-point run: the limit must let it be written and
        # rewritten, and stop records.jsonl a few records in.
        probe_out = pathlib.Path(self.out) / "probe"
        r = railgauge("memory", "-q", "--time-budget", "0.01", "--filter", "memory.host_copy",
                      "-a", "size_bytes=16KiB", "-a", "threads=1", "-a", "numa_node=0",
                      "--out", str(probe_out))
        self.assertEqual(r.returncode, 0, r.stderr)
        probe = only_run_dir(probe_out)
        manifest_bytes = (probe / "run.json").stat().st_size
        record_bytes = (probe / "records.jsonl").stat().st_size
        limit = manifest_bytes + 1024
        self.assertGreater(MANY_POINTS_COUNT * record_bytes, limit + 2 * record_bytes,
                           "the run must outgrow the limit")

        def limit_file_size():
            # A disk that fills up: write() past the limit returns EFBIG (SIGXFSZ ignored).
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
            resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

        out = pathlib.Path(self.out) / "runs"
        args = [*MANY_POINTS, "--out", str(out)]
        r = railgauge(*args, preexec_fn=limit_file_size)
        self.assertEqual(r.returncode, 3, r.stderr)
        run_dir = only_run_dir(out)
        records_path = run_dir / "records.jsonl"
        self.assertIn(f"{records_path}: writing a record failed: File too large", r.stderr)
        self.assertIn(f"--resume {run_dir}", r.stderr)
        # Every line whole and valid; run.json says what happened.
        kept = len(records_of(run_dir))
        self.assertGreater(kept, 0)
        self.assertLess(kept, MANY_POINTS_COUNT)
        problems, count = validate_run.validate_run_dir(run_dir, require_complete=False)
        self.assertEqual(problems, [])
        manifest = manifest_of(run_dir)
        self.assertEqual(manifest["status"], "failed")
        self.assertIn("File too large", manifest["failure"])
        self.assertEqual(manifest["counts"], {"ok": kept})

        # Space again: --resume completes the run, nothing lost, nothing twice.
        r = railgauge(*args, "--resume", str(run_dir))
        self.assertEqual(r.returncode, 0, r.stderr)
        problems, count = validate_run.validate_run_dir(run_dir, require_complete=True)
        self.assertEqual(problems, [])
        self.assertEqual(count, MANY_POINTS_COUNT)
        self.assertEqual(len({point_of(rec) for rec in records_of(run_dir)}), MANY_POINTS_COUNT)
        self.assertEqual(manifest_of(run_dir)["resumes"][0]["previous_status"], "failed")

    def test_removed_run_directory_stops_the_run(self):
        args = [*MANY_POINTS, "--out", self.out]
        proc, run_dir = start_and_wait_for_records(args, self.out, 2)
        shutil.rmtree(run_dir)
        try:
            _, stderr = proc.communicate(timeout=120)
        finally:
            if proc.poll() is None:
                proc.kill()
        self.assertEqual(proc.returncode, 3, stderr)
        self.assertIn(f"{run_dir}/records.jsonl: the records file was removed", stderr)
        self.assertIn("No such file or directory", stderr)
        self.assertIn(f"{run_dir} is gone", stderr)
        self.assertFalse(run_dir.exists(), "nothing is written back into a removed run")


if __name__ == "__main__":
    BINARY = sys.argv.pop(1)
    unittest.main()
