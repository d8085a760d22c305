#!/usr/bin/env python3
"""The fleet history as strict as `check` on run directories (issue 54): `db ingest` walks with
check's loader (links followed with loop detection, unreadable paths and FIFOs named and
failing), stores what run-complete needs, refreshes a run that changed, refuses a host name or a
text it cannot store alike on SQLite and PostgreSQL (the others stored), and `check --history`
gives each node the verdict `check` gives it over the same runs' directories. Each case runs
against SQLite, and against PostgreSQL under pg_server.py (RAILGAUGE_TEST_PG_URL).

  history_strict_test.py RAILGAUGE_BINARY [unittest names]
"""
import json
import os
import pathlib
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import unittest

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1] / "support"))
from host_read_rules import host_read_floor_rules  # noqa: E402
from named_tests import run_named_tests  # noqa: E402

BINARY = sys.argv.pop(1) if len(sys.argv) > 1 else "railgauge"
PG_URL = os.environ.get("RAILGAUGE_TEST_PG_URL")

RULES = host_read_floor_rules("strict")
INVENTORY_RULE = """  - id: gpu-count
    category: health
    severity: fail
    inventory: node.gpu_count
    compare: ">="
    value: 8
"""
REMAP_RULE = """  - id: row-remap-failure
    category: health
    severity: fail
    inventory: gpu.remapped_rows_failure
    compare: "=="
    value: 0
"""


def inventory(gpus=8, remap_failed=()):
    """run.json's inventory of a node of `gpus` GPUs, those of `remap_failed` (indices) with a
    row remap that failed."""
    return {"schema": "railgauge.inventory/1", "summary": {"gpus": gpus, "nics": 0},
            "nvml": {"available": True, "reason": None, "gpus": [
                {"index": g, "uuid": f"GPU-{g}",
                 "pci_bus_id": f"00000000:{0x18 + g * 0x10:02X}:00.0",
                 "remapped_rows": {"pending": False, "failure": g in remap_failed,
                                   "correctable": 0, "uncorrectable": 0}}
                for g in range(gpus)]}}


def record(run_id, host, i, status="ok", rank=0, reason=None):
    return {"schema": "railgauge.record/1", "run": run_id, "host": host, "rank": rank,
            "key": "memory.host_read", "params": {"size_bytes": 1 << i},
            "axes": {"size_bytes": 1 << i}, "device": {},
            "metrics": {"bandwidth_gbytes_per_s": 10.0}, "status": status,
            "reason": reason if reason is not None else ("wrong" if status == "failed" else None),
            "time_utc": "2026-01-01T00:00:00.000Z"}


def make_run(d, host, run_id, start, n=3, failed=(), manifest=None, rank=0, world=1, lines=None,
             reason=None, points=None):
    """A run directory as `railgauge run` leaves it: complete, its counts and planned points
    stated; records `failed` (indices) failed; only the first `lines` lines written when given;
    of the points `points` (indices) when given, else the first n."""
    d = pathlib.Path(d) if not isinstance(d, bytes) else d
    os.makedirs(d, exist_ok=True)
    points = list(range(n)) if points is None else points
    n = len(points)
    recs = [record(run_id, host, i, "failed" if i in failed else "ok", rank,
                   reason if i in failed else None) for i in points]
    counts = {}
    for r in recs:
        counts[r["status"]] = counts.get(r["status"], 0) + 1
    m = {"schema": "railgauge.run/1", "run": run_id, "host": host, "rank": rank,
         "start_utc": start, "suite": {"name": "node"}, "status": "complete",
         "plan": {"digest": "".join(f"{i:x}" for i in points).rjust(16, "0"), "points": n},
         "points_planned": n, "counts": counts, "world": {"size": world, "rank": rank}}
    m.update(manifest or {})
    join = os.path.join
    with open(join(d, b"run.json" if isinstance(d, bytes) else "run.json"), "w") as f:
        f.write(json.dumps(m))
    text = "".join(json.dumps(r) + "\n" for r in recs[:lines])
    with open(join(d, b"records.jsonl" if isinstance(d, bytes) else "records.jsonl"), "w") as f:
        f.write(text)
    return d


class Strict:
    """The cases; a subclass names the database."""

    def setUp(self):
        self.tmp = pathlib.Path(tempfile.mkdtemp(prefix="rg-strict-"))
        os.chmod(self.tmp, 0o755)
        self.rules = self.tmp / "rules.yaml"
        self.rules.write_text(RULES)

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def railgauge(self, *args, timeout=120, user=None):
        argv = [BINARY, *args]
        if user:
            argv = ["runuser", "-u", user, "--"] + argv
        return subprocess.run(argv, capture_output=True, timeout=timeout)

    def ingest(self, *paths, expect=0, **kw):
        r = self.railgauge("db", "ingest", "--db", self.url, *map(str, paths), **kw)
        out, err = r.stdout.decode(errors="replace"), r.stderr.decode(errors="replace")
        self.assertEqual(r.returncode, expect, out + err)
        return out, err

    def node_verdicts(self, *args, rules=None, user=None):
        r = self.railgauge("check", "--rules", str(rules or self.rules), "--format", "json",
                           *map(str, args), user=user)
        self.assertIn(r.returncode, (0, 1, 2), r.stdout.decode(errors="replace") +
                      r.stderr.decode(errors="replace"))
        out = json.loads(r.stdout)
        return {n["host"]: n["verdict"] for n in out["nodes"]}, out

    def agree(self, dirs, rules=None, latest=True, user=None):
        """Each node's verdict over the directories (--latest-per-host) and from the history, and
        the paths neither could read."""
        from_dirs, dirs_out = self.node_verdicts(*(["--latest-per-host"] if latest else []),
                                                 *dirs, rules=rules, user=user)
        from_db, out = self.node_verdicts("--history", self.url, rules=rules, user=user)
        self.assertEqual(from_db, from_dirs, json.dumps(out["parts"], indent=1))
        self.assertEqual(out["unreadable"], dirs_out["unreadable"])
        return from_db

    # Case 1: a FIFO for records.jsonl is named, fails the ingest, and fails the node in the
    # history as over its directory; the older run does not pass it.
    def test_a_fifo_records_file_is_named_and_fails_the_node(self):
        make_run(self.tmp / "runs" / "n1-old", "n1", "r-old", "2026-01-01T00:00:00Z")
        make_run(self.tmp / "runs" / "n2", "n2", "r-n2", "2026-01-02T00:00:00Z")
        new = make_run(self.tmp / "runs" / "n1-new", "n1", "r-new", "2026-01-02T00:00:00Z")
        (new / "records.jsonl").unlink()
        os.mkfifo(new / "records.jsonl")
        out, err = self.ingest(self.tmp / "runs", expect=4, timeout=30)
        self.assertIn("n1-new/records.jsonl: cannot be read: a FIFO", err)
        # The new run is stored all the same, its completeness naming what was lost.
        self.assertIn("3 run(s) ingested", out)
        self.assertEqual(self.agree([self.tmp / "runs"])["n1"], "fail")
        # The file restored and the runs judged again by `check --history DIRS`, which stores
        # them: the FIFO is no longer held against the fleet by the history alone.
        (new / "records.jsonl").unlink()
        make_run(self.tmp / "runs" / "n1-new", "n1", "r-new", "2026-01-02T00:00:00Z")
        verdicts, _ = self.node_verdicts("--history", self.url, self.tmp / "runs")
        self.assertEqual(self.rows("SELECT COUNT(*) FROM unreadable"), [(0,)])
        self.assertEqual(self.agree([self.tmp / "runs"])["n1"], "pass")

    # Case 1: a directory that cannot be listed (as root, every command runs as nobody) is named
    # and fails the ingest, and fails the fleet from the history as over the directories: the
    # node's older run does not pass it.
    def test_an_unreadable_directory_is_named_and_fails(self):
        user = self.unprivileged()
        runs = self.tmp / "runs"
        make_run(runs / "ok" / "n2", "n2", "r-n2", "2026-01-02T00:00:00Z")
        make_run(runs / "ok" / "n1-old", "n1", "r-n1-old", "2026-01-01T00:00:00Z")
        make_run(runs / "locked" / "n1", "n1", "r-n1", "2026-01-02T00:00:00Z", failed=(1,))
        for d in [runs, *runs.rglob("*")]:
            os.chmod(d, 0o755 if d.is_dir() else 0o644)
        os.chmod(runs / "locked", 0o700 if user else 0)
        r = self.railgauge("db", "ingest", "--db", self.url, str(runs), user=user)
        err = r.stderr.decode(errors="replace")
        self.assertEqual(r.returncode, 4, r.stdout.decode() + err)
        self.assertIn(f"{runs / 'locked'}: cannot be read: Permission denied", err)
        self.assertIn("2 run(s) ingested", r.stdout.decode())
        self.assertEqual(self.agree([runs], user=user), {"n1": "pass", "n2": "pass"})
        r = self.railgauge("check", "--rules", str(self.rules), "--history", self.url, user=user)
        self.assertEqual(r.returncode, 2, r.stdout.decode() + r.stderr.decode())
        self.assertIn(f"FAIL unreadable: {runs / 'locked'}: Permission denied", r.stdout.decode())
        # Readable again and ingested again: the path is no longer held against the fleet, and
        # its run fails n1.
        os.chmod(runs / "locked", 0o755)
        self.ingest(runs, user=user)
        self.assertEqual(self.agree([runs], user=user), {"n1": "fail", "n2": "pass"})
        self.assertEqual(self.rows("SELECT COUNT(*) FROM unreadable"), [(0,)])

    # Case 9: two links to `.` walk each directory once, in bounded time.
    def test_links_to_the_runs_own_directory_are_walked_once(self):
        runs = self.tmp / "runs"
        for n in range(3):
            make_run(runs / f"n{n}", f"n{n}", f"r{n}", "2026-01-02T00:00:00Z")
        os.symlink(".", runs / "a")
        os.symlink(".", runs / "b")
        out, err = self.ingest(runs, timeout=30)
        self.assertIn("3 run(s) ingested", out)
        self.assertEqual(err.count("a symbolic link loop back to"), 2, err)

    # Case 2: a failed record's line cut in half: 7 records read, counts say 8.
    def test_a_torn_failed_record_fails_from_the_history(self):
        run = make_run(self.tmp / "runs" / "n1", "n1", "r1", "2026-01-02T00:00:00Z", n=8,
                       failed=(7,))
        text = (run / "records.jsonl").read_text()
        (run / "records.jsonl").write_text(text[:len(text) - 60])
        make_run(self.tmp / "runs" / "n2", "n2", "r2", "2026-01-02T00:00:00Z")
        self.ingest(self.tmp / "runs")
        self.assertEqual(self.agree([self.tmp / "runs"]), {"n1": "fail", "n2": "pass"})

    # Case 2 and 7: a partial copy stored first, then the whole run: refreshed and judged whole.
    def test_a_partial_copy_is_refreshed_by_the_whole_run(self):
        whole = make_run(self.tmp / "whole" / "n1", "n1", "r1", "2026-01-02T00:00:00Z", n=11,
                         failed=(10,))
        make_run(self.tmp / "part" / "n1", "n1", "r1", "2026-01-02T00:00:00Z", n=11,
                 failed=(10,), lines=4)
        make_run(self.tmp / "whole" / "n2", "n2", "r2", "2026-01-02T00:00:00Z")
        self.ingest(self.tmp / "part")
        self.assertEqual(self.node_verdicts("--history", self.url)[0], {"n1": "fail"})
        out, _ = self.ingest(self.tmp / "whole")
        self.assertIn("refreshed r1 (n1), 11 records (was 4 records", out)
        self.assertEqual(self.agree([self.tmp / "whole"]), {"n1": "fail", "n2": "pass"})
        # The partial copy again: the fuller one stays.
        out, _ = self.ingest(self.tmp / "part")
        self.assertIn("a fuller copy", out)
        self.assertEqual(self.rows("SELECT records FROM runs WHERE run_id = 'r1'"), [(11,)])
        _, verdict = self.node_verdicts("--history", self.url)
        self.assertIn(str(whole), json.dumps(verdict["parts"]))

    # Case 3: an older 2-rank run with a failure and a newer 1-rank run of the same suite.
    def test_the_newest_run_is_per_world_size(self):
        runs = self.tmp / "runs"
        for rank in range(2):
            make_run(runs / "two" / f"rank-{rank:05d}", "n1", "r-two", "2026-01-01T00:00:00Z",
                     rank=rank, world=2, failed=(1,) if rank == 1 else ())
        make_run(runs / "one", "n1", "r-one", "2026-01-02T00:00:00Z")
        make_run(runs / "n2", "n2", "r-n2", "2026-01-02T00:00:00Z")
        self.ingest(runs)
        self.assertEqual(self.agree([runs]), {"n1": "fail", "n2": "pass"})

    # A retest that a signal stopped (scancelled, past its time limit) supersedes nothing: n1's
    # failed run is still judged beside it and fails the node; n2's stopped retest of a healthy
    # run warns (not measured, not drained); a complete retest after it supersedes both.
    def test_a_retest_a_signal_stopped_supersedes_nothing(self):
        runs = self.tmp / "runs"
        stopped = {"status": "interrupted", "interrupted": "SIGTERM", "counts": {}}
        make_run(runs / "n1-old", "n1", "r1-old", "2026-01-01T00:00:00Z", failed=(1,))
        make_run(runs / "n1-cut", "n1", "r1-cut", "2026-01-02T00:00:00Z", lines=0,
                 manifest=stopped)
        make_run(runs / "n2-old", "n2", "r2-old", "2026-01-01T00:00:00Z")
        make_run(runs / "n2-cut", "n2", "r2-cut", "2026-01-02T00:00:00Z", lines=0,
                 manifest=stopped)
        self.ingest(runs)
        self.assertEqual(self.agree([runs]), {"n1": "fail", "n2": "warn"})
        make_run(runs / "n1-new", "n1", "r1-new", "2026-01-03T00:00:00Z")
        self.ingest(runs)
        self.assertEqual(self.agree([runs]), {"n1": "pass", "n2": "warn"})

    def assert_judged_beside(self, points):
        """The history says n1's first run is judged for `points` of its 3 points."""
        _, out = self.node_verdicts("--history", self.url)
        self.assertIn(f"n1: run r1-full (started 2026-01-01T00:00:00Z) is judged beside newer "
                      f"runs of its host and suite for the {points} of its 3 points they did not "
                      f"measure again", out["problems"])

    # A retest with --filter measured point 0 again, not the failed point 1: it once superseded
    # the run before it, and the node passed on a point it never ran again. Now that run is
    # judged beside it, and said so, until a run measures all its points again.
    def test_a_retest_of_other_points_never_passes_the_failed_run(self):
        runs = self.tmp / "runs"
        make_run(runs / "n1-full", "n1", "r1-full", "2026-01-01T00:00:00Z", failed=(1,))
        make_run(runs / "n1-point0", "n1", "r1-point0", "2026-01-02T00:00:00Z", n=1)
        self.ingest(runs)
        self.assertEqual(self.agree([runs]), {"n1": "fail"})
        self.assert_judged_beside(2)
        # A retest of the failed point alone: the run is judged for point 2, which passed.
        make_run(runs / "n1-point1", "n1", "r1-point1", "2026-01-03T00:00:00Z", points=[1])
        self.ingest(runs)
        self.assertEqual(self.agree([runs]), {"n1": "pass"})
        self.assert_judged_beside(1)
        # Judged and stored at once (--latest-per-host --history DB DIRS), the run is stored whole:
        # the records set aside as measured again are its own (they were once left out).
        self.node_verdicts("--latest-per-host", "--history", self.url, runs)
        self.assertEqual(self.rows("SELECT records, failed_records FROM runs WHERE "
                                   "run_id = 'r1-full'"), [(3, 1)])
        self.assertEqual(self.rows("SELECT COUNT(*) FROM records r JOIN runs ru ON "
                                   "ru.id = r.run_id WHERE ru.run_id = 'r1-full'"), [(3,)])
        # Where point 2 had failed too, the retest of point 1 leaves the node failed on it.
        make_run(runs / "n2-full", "n2", "r2-full", "2026-01-01T00:00:00Z", failed=(1, 2))
        make_run(runs / "n2-point1", "n2", "r2-point1", "2026-01-03T00:00:00Z", points=[1])
        self.ingest(runs)
        self.assertEqual(self.agree([runs]), {"n1": "pass", "n2": "fail"})
        make_run(runs / "n1-again", "n1", "r1-again", "2026-01-04T00:00:00Z")
        self.ingest(runs)
        self.assertEqual(self.agree([runs]), {"n1": "pass", "n2": "fail"})

    # A database of schema version 8 stored no run's points: opened by this railgauge it gains the
    # columns, a run stored before is superseded by any newer run as before, and ingested again
    # it is refreshed ("no points measured stored") and judged by its points.
    def test_a_run_stored_before_its_points_is_refreshed_with_them(self):
        runs = self.tmp / "runs"
        make_run(runs / "n1-full", "n1", "r1-full", "2026-01-01T00:00:00Z", failed=(1,))
        self.ingest(runs)
        for column in ("plan_digest", "points", "points_digest"):
            self.execute(f"ALTER TABLE runs DROP COLUMN {column}")
        self.execute("ALTER TABLE records DROP COLUMN point")
        self.execute("UPDATE schema_version SET version = 8")
        make_run(self.tmp / "retest" / "n1-point0", "n1", "r1-point0", "2026-01-02T00:00:00Z",
                 n=1)
        self.ingest(self.tmp / "retest")
        self.assertEqual(self.rows("SELECT MAX(version) FROM schema_version"), [(10,)])
        verdicts, _ = self.node_verdicts("--history", self.url)
        self.assertEqual(verdicts, {"n1": "pass"})  # the older rule, for a run stored at 8
        out, _ = self.ingest(runs)
        self.assertIn("no points measured stored", out)
        verdicts, _ = self.node_verdicts("--history", self.url)
        self.assertEqual(verdicts, {"n1": "fail"})

    # Case 3: a run of 2 ranks of which one is stored names the missing rank, as over directories.
    def test_a_rank_missing_from_the_history_is_named(self):
        runs = self.tmp / "runs"
        make_run(runs / "rank-00000", "n1", "r-two", "2026-01-01T00:00:00Z", world=2)
        self.ingest(runs)
        verdicts = self.agree([runs])
        self.assertEqual(verdicts, {"n1": "fail"})

    # Case 4: a rule the database cannot judge (a run stored before it kept inventories) is at
    # least a warning, never a silent pass.
    def test_an_inventory_probe_is_never_a_silent_pass(self):
        rules = self.tmp / "inventory.yaml"
        rules.write_text(RULES + INVENTORY_RULE)
        make_run(self.tmp / "runs" / "n1", "n1", "r1", "2026-01-02T00:00:00Z",
                 manifest={"inventory": inventory(gpus=7)})
        self.ingest(self.tmp / "runs")
        self.execute("UPDATE runs SET inventory = NULL")
        verdicts, out = self.node_verdicts("--history", self.url, rules=rules)
        self.assertEqual(verdicts, {"n1": "warn"}, json.dumps(out, indent=1))
        self.assertIn("not judged from the history", json.dumps(out["parts"]))
        # Ingested again, it is stored with its inventory, and judged as over its directory.
        out, _ = self.ingest(self.tmp / "runs")
        self.assertIn("no inventory)", out)
        self.assertEqual(self.agree([self.tmp / "runs"], rules=rules), {"n1": "fail"})

    # Case 4: the inventory probes judged from the stored inventory as from run.json: 7 of 8
    # GPUs and a failed row remap fail both ways, a node without an inventory is missing both
    # ways, and the newest run's inventory is the one judged.
    def test_inventory_probes_fail_from_the_history_as_from_the_directories(self):
        rules = self.tmp / "inventory.yaml"
        rules.write_text(RULES + INVENTORY_RULE + REMAP_RULE)
        runs = self.tmp / "runs"
        make_run(runs / "n1", "n1", "r1", "2026-01-02T00:00:00Z",
                 manifest={"inventory": inventory(gpus=7)})
        make_run(runs / "n2", "n2", "r2", "2026-01-02T00:00:00Z",
                 manifest={"inventory": inventory(remap_failed=(3,))})
        make_run(runs / "n3", "n3", "r3", "2026-01-02T00:00:00Z",
                 manifest={"inventory": inventory()})
        make_run(runs / "n4", "n4", "r4", "2026-01-02T00:00:00Z")
        # An older run of n1 with 8 GPUs: the newest run's inventory is the one judged.
        make_run(runs / "n1-old", "n1", "r0", "2026-01-01T00:00:00Z",
                 manifest={"inventory": inventory()})
        self.ingest(runs)
        verdicts = self.agree([runs], rules=rules)
        self.assertEqual(verdicts, {"n1": "fail", "n2": "fail", "n3": "pass", "n4": "fail"})
        _, out = self.node_verdicts("--history", self.url, rules=rules)
        self.assertEqual(out["not_judged"], [])
        failed = {(p["host"], f["rule"]) for p in out["parts"] for f in p["findings"]
                  if f["level"] == "fail"}
        self.assertIn(("n1", "gpu-count"), failed)
        self.assertIn(("n2", "row-remap-failure"), failed)
        self.assertNotIn(("n3", "gpu-count"), failed)

    # Case 5: host names refused as on the directory path; the other runs stored.
    def test_hostile_host_names_are_refused_and_the_others_stored(self):
        runs = self.tmp / "runs"
        for i, host in enumerate(["node05\nnode06", "good\u0000evil", "tab\there", "x" * 9000]):
            make_run(runs / f"a{i}", host, f"r-bad{i}", "2026-01-02T00:00:00Z")
        make_run(runs / "z", "n9", "r-good", "2026-01-02T00:00:00Z")
        # One records.jsonl holding two hosts' records: the history keeps one host a run.
        two = make_run(runs / "b-two", "n7", "r-two", "2026-01-02T00:00:00Z")
        with open(two / "records.jsonl", "a") as f:
            f.write(json.dumps(record("r-two", "n8", 9, "failed")) + "\n")
        _, err = self.ingest(runs, expect=4)
        self.assertIn('b-two: the run cannot be stored: its records name host "n8" besides the '
                      'run\'s "n7"', err)
        self.assertEqual(err.count("the run cannot be stored: host name"), 4, err)
        self.assertIn('"node05\\nnode06" holds a control character', err)
        self.assertIn("9000 bytes long", err)
        self.assertEqual(self.rows("SELECT h.name FROM runs r JOIN hosts h ON h.id = r.host_id"),
                         [("n9",)])
        r = self.railgauge("check", "--rules", str(self.rules), runs / "a0")
        self.assertEqual(r.returncode, 4)
        self.assertIn(b"holds a control character", r.stderr)
        # What the history could not store, it cannot pass: each refused run fails the fleet.
        _, judged = self.node_verdicts("--history", self.url)
        self.assertEqual(judged["verdict"], "fail")
        # b-two twice: the history could not store it, and its records file holds another
        # host's records (as check over the directory names it).
        self.assertEqual(sorted(u["path"] for u in judged["unreadable"]),
                         [str(runs / d) for d in ("a0", "a1", "a2", "a3", "b-two")] +
                         [str(runs / "b-two" / "records.jsonl")])

    # Case 7: a run stored while it was written is refreshed; db list and db remove.
    def test_a_running_run_is_refreshed_listed_and_removed(self):
        run = make_run(self.tmp / "runs" / "n1", "n1", "r1", "2026-01-02T00:00:00Z", n=11,
                       lines=4, manifest={"status": "running", "counts": {}})
        make_run(self.tmp / "old" / "n1", "n1", "r0", "2026-01-01T00:00:00Z")
        self.ingest(self.tmp / "old", run)
        out, _ = self.ingest(run)
        self.assertIn("already there: r1 (n1)", out)
        make_run(run, "n1", "r1", "2026-01-02T00:00:00Z", n=11, failed=(9,))
        out, _ = self.ingest(run)
        self.assertIn("refreshed r1 (n1), 11 records (was 4 records, status 'running'", out)
        self.assertIn("1 refreshed", out)
        listed = self.railgauge("db", "list", "--db", self.url, "--host", "n1")
        self.assertEqual(listed.returncode, 0, listed.stderr)
        lines = listed.stdout.decode().splitlines()
        self.assertEqual(len(lines), 3, lines)
        self.assertIn("r1\tn1\t0\tnode\t2026-01-02T00:00:00Z\tcomplete\t11\tyes\t", lines[2])
        self.assertEqual(self.node_verdicts("--history", self.url)[0], {"n1": "fail"})
        r = self.railgauge("db", "remove", "--db", self.url, "--run", "r1")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn(b"removed r1 (n1) rank 0: 11 records", r.stdout)
        self.assertEqual(self.rows("SELECT COUNT(*) FROM records r JOIN runs ru ON "
                                   "ru.id = r.run_id WHERE ru.run_id = 'r1'"), [(0,)])
        self.assertEqual(self.node_verdicts("--history", self.url)[0], {"n1": "pass"})
        r = self.railgauge("db", "remove", "--db", self.url, "--run", "r1")
        self.assertEqual(r.returncode, 4)
        self.assertIn(b"holds no run 'r1'", r.stderr)

    # Case 8: runs the database cannot store as they are (a reason with U+0000, a directory name
    # that is not UTF-8, a run id over an index's limit) are each named with the reason, the
    # runs after them are stored: the same on SQLite and PostgreSQL.
    def test_unstorable_runs_are_named_and_the_others_stored(self):
        runs = self.tmp / "runs"
        make_run(runs / "a-nul", "n1", "r-nul", "2026-01-02T00:00:00Z", failed=(0,),
                 reason="bad\u0000reason")
        make_run(os.path.join(bytes(runs), b"b-\xff"), "n2", "r-latin1", "2026-01-02T00:00:00Z")
        make_run(runs / "c-long", "n3", "r" * 3000, "2026-01-02T00:00:00Z")
        make_run(runs / "d-good", "n4", "r-good", "2026-01-02T00:00:00Z")
        out, err = self.ingest(runs, expect=4)
        self.assertIn("a-nul: the run cannot be stored: its records.reason holds a NUL", err)
        self.assertIn("directory name is not UTF-8", err)
        self.assertIn("run id is 3000 bytes long", err)
        self.assertIn("1 run(s) ingested", out)
        self.assertIn("3 failed", out)
        self.assertEqual(self.rows("SELECT run_id FROM runs"), [("r-good",)])
        _, judged = self.node_verdicts("--history", self.url)
        self.assertEqual((judged["verdict"], len(judged["unreadable"])), ("fail", 3))

    # Item 8: small fleets of every kind, judged from the directories and from the history. An
    # unreadable run directory (mode 000; as root, every command runs as nobody, for whom the
    # mode bites) is named by ingest, which exits 4, and fails the fleet both ways: the node's
    # older run does not pass it from the history where the directories fail it.
    def test_random_fleets_agree_node_by_node(self):
        import random
        user = self.unprivileged()
        rnd = random.Random(54)
        unreadable_fleets = 0
        for fleet in range(4):
            runs = self.tmp / f"fleet{fleet}"
            locked = []
            for n in range(6):
                host = f"f{fleet}n{n}"
                for day in range(rnd.randint(1, 2)):
                    start = f"2026-01-0{day + 1}T00:00:00Z"
                    kind = rnd.choice(["healthy", "failed", "torn", "partial", "copied",
                                       "world2", "unreadable"])
                    d = runs / host / f"day{day}"
                    run_id = f"r-{host}-{day}"
                    if kind == "world2":
                        for rank in range(rnd.randint(1, 2)):
                            make_run(d / f"rank-{rank}", host, run_id, start, rank=rank,
                                     world=2, failed=(0,) if rnd.random() < 0.3 else ())
                        continue
                    make_run(d, host, run_id, start, n=5, failed=(4,) if kind != "healthy" and
                             kind != "copied" and rnd.random() < 0.5 else (),
                             lines=3 if kind == "partial" else None,
                             manifest={"status": "running"} if kind == "partial" else None)
                    if kind == "torn":
                        text = (d / "records.jsonl").read_text()
                        (d / "records.jsonl").write_text(text[:-40])
                    if kind == "copied":
                        shutil.copytree(d, runs / "copies" / host / f"day{day}")
                    if kind == "unreadable":
                        locked.append(d)
            for p in [runs, *runs.rglob("*")]:
                os.chmod(p, 0o755 if p.is_dir() else 0o644)
            for d in locked:
                os.chmod(d, 0)
            self.reset()
            out, err = self.ingest(runs, expect=4 if locked else 0, user=user)
            for d in locked:
                self.assertIn(f"{d}: cannot be read: Permission denied", err)
            self.agree([runs], user=user)
            _, judged = self.node_verdicts("--history", self.url, user=user)
            named = {u["path"] for u in judged["unreadable"]}
            self.assertTrue(set(map(str, locked)) <= named, named)
            if locked:
                unreadable_fleets += 1
                self.assertEqual(judged["verdict"], "fail")
        self.assertGreater(unreadable_fleets, 0, "the seed made no unreadable run directory")

    # Another machine's run under the same run id, host and rank (VMs of one image named alike,
    # started in one second as one PID): once "already there, a fuller copy" or "refreshed"
    # over the other, and the history passed what the directories fail. It is refused, named,
    # and fails the fleet from the history.
    def test_another_run_under_the_same_run_id_is_refused_not_hidden(self):
        for case, a_start, a_machine in (("other-machine", "2026-01-02T00:00:00Z", "a" * 32),
                                         ("other-start", "2026-01-02T00:00:01Z", None)):
            with self.subTest(case):
                self.reset()
                root = self.tmp / case
                inventory = lambda m: {"inventory": {"machine_id": m}} if m else None  # noqa
                make_run(root / "b", "vm", "r1", "2026-01-02T00:00:00Z",
                         manifest=inventory("b" * 32 if a_machine else None))
                make_run(root / "a", "vm", "r1", a_start, n=2, failed=(1,),
                         manifest=inventory(a_machine))
                self.ingest(root / "b")
                _, err = self.ingest(root / "a", expect=4)
                self.assertIn("the database holds another run under its run id r1, host vm "
                              "and rank 0", err)
                r = self.railgauge("check", "--rules", str(self.rules), "--history", self.url)
                self.assertEqual(r.returncode, 2, r.stdout.decode() + r.stderr.decode())
                self.assertIn(f"unreadable: {root / 'a'}", r.stdout.decode())

    # A run whose records changed but not their number, its status nor its inventory (edited,
    # or copied over) was "already there", and the stale copy was judged.
    def test_a_run_edited_with_as_many_records_is_stored_again(self):
        runs = self.tmp / "runs"
        make_run(runs / "n1", "n1", "r1", "2026-01-02T00:00:00Z")
        make_run(runs / "n2", "n2", "r2", "2026-01-02T00:00:00Z")
        self.ingest(runs)
        self.assertEqual(self.agree([runs]), {"n1": "pass", "n2": "pass"})
        make_run(runs / "n1", "n1", "r1", "2026-01-02T00:00:00Z", failed=(1,))
        out, _ = self.ingest(runs)
        self.assertIn("refreshed r1 (n1)", out)
        self.assertEqual(self.agree([runs]), {"n1": "fail", "n2": "pass"})

    # Runs whose run.json holds no run id are told apart by their records' run ids both ways:
    # the directories once took them for one run and judged both, the history the newest.
    def test_runs_without_a_run_id_are_superseded_alike(self):
        runs = self.tmp / "runs"
        for name, start, failed in (("old", "2026-01-01T00:00:00Z", (1,)),
                                    ("new", "2026-01-02T00:00:00Z", ())):
            d = make_run(runs / name, "n1", f"r-{name}", start, failed=failed)
            manifest = json.loads((d / "run.json").read_text())
            del manifest["run"]
            (d / "run.json").write_text(json.dumps(manifest))
        self.ingest(runs)
        self.assertEqual(self.agree([runs]), {"n1": "pass"})

    # --unreadable sets the level of what could not be read from the history as over the
    # directories (it once applied over directories only).
    def test_the_unreadable_level_is_the_historys_too(self):
        runs = self.tmp / "runs"
        make_run(runs / "n2", "n2", "r-n2", "2026-01-02T00:00:00Z")
        fifo = make_run(runs / "n1", "n1", "r-n1", "2026-01-02T00:00:00Z")
        (fifo / "records.jsonl").unlink()
        os.mkfifo(fifo / "records.jsonl")
        self.ingest(runs, expect=4, timeout=30)
        codes = set()
        for source in ([str(runs)], ["--history", self.url]):
            r = self.railgauge("check", "--rules", str(self.rules), "--unreadable", "warn",
                               *source, timeout=30)
            self.assertIn("WARN unreadable:", r.stdout.decode(), source[0])
            codes.add(r.returncode)
        self.assertEqual(len(codes), 1, codes)

    # A run fixed and ingested again through a link to its directory (data -> mnt): its
    # unreadable row, stored under the other path, once stayed and failed the fleet for good.
    def test_a_run_fixed_and_ingested_through_a_link_clears_its_row(self):
        mnt = self.tmp / "mnt"
        make_run(mnt / "results" / "n1", "n1", "r1", "2026-01-02T00:00:00Z")
        fifo = make_run(mnt / "results" / "n2", "n2", "r2", "2026-01-02T00:00:00Z")
        (fifo / "records.jsonl").unlink()
        os.mkfifo(fifo / "records.jsonl")
        (self.tmp / "data").symlink_to(mnt)
        self.ingest(mnt / "results", expect=4, timeout=30)
        self.assertEqual(self.rows("SELECT COUNT(*) FROM unreadable"), [(1,)])
        (fifo / "records.jsonl").unlink()
        make_run(fifo, "n2", "r2", "2026-01-02T00:00:00Z")
        self.ingest(self.tmp / "data" / "results")
        self.assertEqual(self.rows("SELECT COUNT(*) FROM unreadable"), [(0,)])
        self.assertEqual(self.agree([self.tmp / "data" / "results"]),
                         {"n1": "pass", "n2": "pass"})

    # A database of which ingest refused every run holds no run to judge: exit 4, naming what
    # it refused and why, not only "no run".
    def test_a_database_of_refused_runs_only_names_them(self):
        make_run(self.tmp / "runs" / "bad", "node\n05", "r1", "2026-01-02T00:00:00Z")
        self.ingest(self.tmp / "runs", expect=4)
        r = self.railgauge("check", "--rules", str(self.rules), "--history", self.url)
        err = r.stderr.decode(errors="replace")
        self.assertEqual(r.returncode, 4, err)
        self.assertIn("the database holds no run to judge; 1 path ingest could not read or "
                      f"store, first {self.tmp / 'runs' / 'bad'}", err)

    # A torn run.json is one error of ingest, not a note and then the same words as an error.
    def test_a_torn_run_json_is_named_once(self):
        d = make_run(self.tmp / "runs" / "n1", "n1", "r1", "2026-01-02T00:00:00Z")
        (d / "run.json").write_text((d / "run.json").read_text()[:40])
        _, err = self.ingest(self.tmp / "runs", expect=4)
        self.assertEqual(err.count("run.json"), 1, err)
        self.assertIn(f"error: {d / 'run.json'}: cannot be read: not valid JSON", err)

    def unprivileged(self):
        """The user whose permissions bite: None (this one) unless root, else nobody, with a
        database nobody can write."""
        if os.geteuid() != 0:
            return None
        if not shutil.which("runuser"):
            self.skipTest("as root, needs runuser to run the commands as nobody")
        # A checkout under a directory only its owner may enter (mktemp -d makes them 0700)
        # keeps nobody from the binary itself: then nothing here can be tried as nobody.
        r = subprocess.run(["runuser", "-u", "nobody", "--", BINARY, "--version"],
                           capture_output=True, timeout=60)
        if r.returncode != 0:
            why = r.stderr.decode(errors="replace").strip()
            self.skipTest(f"nobody cannot run {BINARY} ({why}): a directory above it is closed "
                          "to other users; build in one they may enter to run this test as nobody")
        db_dir = self.tmp / "db"
        db_dir.mkdir(mode=0o777)
        os.chmod(db_dir, 0o777)
        if self.url.startswith("sqlite:"):
            self.path = db_dir / "nobody.db"
            self.url = f"sqlite:{self.path}"
        return "nobody"


class StrictSqlite(Strict, unittest.TestCase):
    def setUp(self):
        super().setUp()
        self.path = self.tmp / "fleet.db"
        self.url = f"sqlite:{self.path}"

    def reset(self):
        self.path.unlink(missing_ok=True)

    def rows(self, sql):
        return [tuple(r) for r in sqlite3.connect(self.path).execute(sql).fetchall()]

    def execute(self, sql):
        with sqlite3.connect(self.path) as db:
            db.execute(sql)


@unittest.skipUnless(PG_URL, "no PostgreSQL server: run under pg_server.py")
class StrictPostgresql(Strict, unittest.TestCase):
    def setUp(self):
        super().setUp()
        self.reset()

    def reset(self):
        subprocess.run(["psql", PG_URL, "-q", "-c", "SET client_min_messages = warning",
                        "-c", "DROP DATABASE IF EXISTS rg_strict",
                        "-c", "CREATE DATABASE rg_strict"], check=True, timeout=60)
        self.url = PG_URL.replace("/postgres?", "/rg_strict?")

    def rows(self, sql):
        out = subprocess.run(["psql", self.url, "-At", "-F", "\t", "-c", sql], check=True,
                             timeout=60, capture_output=True, text=True)
        return [tuple(int(v) if v.isdigit() else v for v in line.split("\t"))
                for line in out.stdout.splitlines()]

    def execute(self, sql):
        subprocess.run(["psql", self.url, "-q", "-c", sql], check=True, timeout=60)


if __name__ == "__main__":
    run_named_tests(sys.argv[1:])
