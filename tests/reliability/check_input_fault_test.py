#!/usr/bin/env python3
"""`railgauge check` on a fleet with one fault at a time: a failing node reached through a
symlink, a FIFO named run.json, an I/O error, a run cut short, a record line cut in half, a copied
run, an output that cannot be written, host names that collide as file names or hold a newline,
a min_size past int. Each must keep the failing node in the verdict (never a silent PASS), name
the path, and never hang. The faults hold as root (no chmod tricks).

Run by CTest, one test method per CTest test:
  check_input_fault_test.py RAILGAUGE_BINARY Test.test_x
"""
import json
import os
import pathlib
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "support"))
from host_read_rules import host_read_floor_rules  # noqa: E402

BINARY = None

RULES = host_read_floor_rules("faults")


def railgauge(*args, timeout=60):
    return subprocess.run([BINARY, *map(str, args)], capture_output=True, text=True,
                          timeout=timeout)


def make_run(d, host, status="ok", n=3, manifest=None, run_id=None):
    """A run directory as `railgauge run` leaves it, complete unless `manifest` says otherwise."""
    d = pathlib.Path(d)
    d.mkdir(parents=True, exist_ok=True)
    run_id = run_id or f"run-{host}"
    m = {"schema": "railgauge.run/1", "run": run_id, "host": host, "rank": 0,
         "status": "complete", "points_planned": n, "counts": {status: n}}
    m.update(manifest or {})
    (d / "run.json").write_text(json.dumps(m))
    lines = [json.dumps({"schema": "railgauge.record/1", "run": run_id, "host": host, "rank": 0,
                         "key": "memory.host_read", "params": {"size_bytes": 1 << i},
                         "device": {}, "metrics": {"bandwidth_gbytes_per_s": 10.0},
                         "status": status, "reason": "wrong" if status == "failed" else None,
                         "time_utc": "2026-01-01T00:00:00.000Z"}) for i in range(n)]
    (d / "records.jsonl").write_text("".join(line + "\n" for line in lines))
    return d


class CheckInputFaultTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = pathlib.Path(self.tmp.name)
        self.rules = self.dir / "rules.yaml"
        self.rules.write_text(RULES)
        self.fleet = self.dir / "fleet"
        for h in ("node01", "node02", "node03"):
            make_run(self.fleet / h, h)

    def tearDown(self):
        self.tmp.cleanup()

    def check(self, *args):
        # --wide: these tests read the findings' detail past a temporary path, beyond the 120
        # columns a console line is cut at.
        return railgauge("check", "--rules", self.rules, self.fleet, "--wide", *args)

    def check_lowered(self, setting):
        """The fleet judged with `setting` (a level key: value) at the top of the rules."""
        lowered = self.dir / "lowered.yaml"
        lowered.write_text(RULES.replace("rules:\n", f"{setting}\nrules:\n", 1))
        return railgauge("check", "--rules", lowered, self.fleet)

    def test_a_failing_node_behind_a_symlink_fails_the_fleet(self):
        make_run(self.dir / "elsewhere" / "node04", "node04", status="failed")
        (self.fleet / "node04").symlink_to(self.dir / "elsewhere" / "node04")
        r = self.check()
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        self.assertIn("drain: node04", r.stdout)

    def test_a_fifo_named_run_json_is_named_and_does_not_hang(self):
        bad = make_run(self.fleet / "node04", "node04")
        (bad / "run.json").unlink()
        os.mkfifo(bad / "run.json")
        r = self.check()  # the timeout of railgauge() is the hang detector
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        self.assertIn(f"FAIL unreadable: {bad / 'run.json'}: a FIFO", r.stdout)
        r = self.check("--unreadable", "warn")
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)

    def test_an_io_error_is_one_problem_not_an_exit_for_the_fleet(self):
        bad = make_run(self.fleet / "node04", "node04")
        (bad / "run.json").unlink()
        (bad / "run.json").symlink_to("/proc/self/mem")  # read(2) at offset 0: EIO
        r = self.check()
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        self.assertIn("Input/output error", r.stdout)
        self.assertIn("node01", r.stdout)

    def test_a_run_cut_short_fails_its_node(self):
        make_run(self.fleet / "node04", "node04", n=4,
                 manifest={"status": "running", "points_planned": 11, "counts": {}})
        r = self.check()
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        self.assertIn("run-complete", r.stdout)
        self.assertIn("4 of 11 planned points", r.stdout)
        self.assertIn("drain: node04", r.stdout)
        r = self.check_lowered("incomplete_runs: warn")
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)

    def test_a_failed_record_cut_in_half_still_fails(self):
        d = make_run(self.fleet / "node04", "node04", n=3,
                     manifest={"points_planned": 4, "counts": {"ok": 3, "failed": 1}})
        with open(d / "records.jsonl", "a") as f:
            f.write('{"schema":"railgauge.record/1","status":"fai')
        r = self.check()
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        self.assertIn("failed 1 in run.json, 0 read", r.stdout)

    def test_a_line_cut_in_half_where_no_count_tells_is_unreadable_not_a_pass(self):
        # No run.json (records copied alone) or a run.json that cannot be parsed: no counts to
        # find the lost record by, so the cut line itself keeps the fleet from passing.
        d = make_run(self.fleet / "node04", "node04", n=3)
        (d / "run.json").unlink()
        with open(d / "records.jsonl", "a") as f:
            f.write('{"schema":"railgauge.record/1","status":"fai')
        r = self.check()
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        self.assertIn(f"FAIL unreadable: {d / 'records.jsonl'}: 1 line could not be read "
                      "(the first: 4: not a complete JSON line", r.stdout)
        self.assertNotRegex(r.stdout, r"(?m)^PASS")  # the fleet's verdict (a node's cell may pass)
        r = self.check("--unreadable", "warn")
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)

        e = make_run(self.fleet / "node05", "node05")
        (e / "run.json").write_text('{"host": "node05", "status": "compl')
        import shutil
        shutil.rmtree(d)
        r = self.check()
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        self.assertIn(f"FAIL unreadable: {e / 'run.json'}: not valid JSON", r.stdout)

    def test_a_cut_line_in_a_run_that_counts_whole_fails_its_node(self):
        # run.json counts 3 records and 3 are read: the cut fourth line is all that is wrong. The
        # node that wrote it is named, failed and drained, not a passing cell beside a FAIL.
        d = make_run(self.fleet / "node04", "node04", n=3)
        with open(d / "records.jsonl", "a") as f:
            f.write('{"schema":"railgauge.record/1","status":"o')
        r = self.check()
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        self.assertRegex(r.stdout, r"(?m)^node04 +node +FAIL +run-complete")
        self.assertIn("drain: node04", r.stdout)
        self.assertIn("FAIL: 4 nodes (3 pass, 0 warn, 1 fail)", r.stdout)

    def test_records_without_their_data_check_are_never_a_pass(self):
        # --no-verify writes metrics.verified false; a profile reading no verified metric passed.
        d = self.fleet / "node02" / "records.jsonl"
        d.write_text(d.read_text().replace('"bandwidth_gbytes_per_s": 10.0}',
                                           '"bandwidth_gbytes_per_s": 10.0, "verified": false}'))
        db = f"sqlite:{self.dir / 'h.db'}"
        self.assertEqual(railgauge("db", "ingest", "--db", db, self.fleet).returncode, 0)
        for args in ([self.fleet], ["--history", db]):
            r = railgauge("check", "--rules", self.rules, "--wide", *args)
            self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
            self.assertIn("data-check", r.stdout)
            self.assertIn("3 ok records ran with the data check off", r.stdout)
            self.assertRegex(r.stdout, r"(?m)^node02 +node +WARN +data-check")
            self.assertNotRegex(r.stdout, r"(?m)^PASS")  # the fleet's verdict
        r = self.check_lowered("unverified_records: info")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)

    def test_a_run_missing_some_of_its_ranks_fails_the_nodes_read(self):
        # Two nodes of 4 ranks each; only node04's directories reach the check: node05 would be
        # named nowhere, and node04's records alone passed.
        def rank_run(host, rank):
            d = make_run(self.fleet / f"{host}-rank{rank}", host, run_id="two-node",
                         manifest={"rank": rank, "world": {"rank": rank, "size": 8}})
            records = d / "records.jsonl"
            records.write_text(records.read_text().replace('"rank": 0', f'"rank": {rank}'))

        for rank in range(4):
            rank_run("node04", rank)
        r = self.check()
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        self.assertIn("run two-node had 8 ranks (world.size), 4 read (ranks 0-3); 4 missing "
                      "(ranks 4-7)", r.stdout)
        self.assertIn("drain: node04", r.stdout)
        for rank in range(4, 8):
            rank_run("node05", rank)
        r = self.check()
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)

    def test_a_copied_run_is_said_and_counted_once(self):
        import shutil
        shutil.copytree(self.fleet / "node01", self.dir / "copy" / "node01")
        r = railgauge("check", "--rules", self.rules, self.fleet, self.dir / "copy", "--json",
                      self.dir / "c.json")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("a copy of", r.stdout)
        self.assertEqual(len(json.loads((self.dir / "c.json").read_text())["inputs"]), 3)

    def test_the_drain_list_is_written_when_another_output_fails(self):
        make_run(self.fleet / "node04", "node04", status="failed")
        drain = self.dir / "drain.txt"
        r = self.check("--json", self.dir / "no-such-dir" / "check.json", "--drain", drain)
        self.assertEqual(r.returncode, 3, r.stdout + r.stderr)
        self.assertEqual(drain.read_text(), "node04\n")
        self.assertIn("no-such-dir/check.json", r.stderr)
        self.assertIn("No such file or directory", r.stderr)

    def test_prometheus_files_of_hosts_never_collide(self):
        make_run(self.fleet / "a", "rack1/n1", status="failed")
        make_run(self.fleet / "b", "rack1_n1")
        out = self.dir / "prom"
        r = self.check("--prometheus-dir", out)
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        files = sorted(p.name for p in out.iterdir())
        self.assertIn("rack1%2Fn1.prom", files)
        self.assertIn("rack1_n1.prom", files)
        self.assertIn('host="rack1/n1"', (out / "rack1%2Fn1.prom").read_text())
        self.assertNotIn('host="rack1/n1"', (out / "rack1_n1.prom").read_text())

    def test_a_host_name_with_a_newline_is_refused_by_name(self):
        make_run(self.fleet / "x", "node05\nnode06", status="failed")
        drain = self.dir / "drain.txt"
        r = self.check("--drain", drain)
        self.assertEqual(r.returncode, 4, r.stdout + r.stderr)
        self.assertIn('"node05\\nnode06"', r.stderr)
        self.assertFalse(drain.exists())

    def test_min_size_past_int_is_refused(self):
        bad = self.dir / "big.yaml"
        bad.write_text(RULES.replace("    value: 1\n",
                                     "    fleet: {fraction: 0.9, min_size: 2147483648}\n"))
        r = railgauge("check", "--rules", bad, self.fleet)
        self.assertEqual(r.returncode, 4, r.stdout + r.stderr)
        self.assertIn("min_size", r.stderr)
        self.assertIn("from 2 to 2147483647", r.stderr)


if __name__ == "__main__":
    BINARY = sys.argv[1]
    unittest.main(argv=[sys.argv[0], *sys.argv[2:]])
