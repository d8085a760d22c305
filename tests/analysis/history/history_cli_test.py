#!/usr/bin/env python3
"""`railgauge db ingest` and `check --history` from the command line: a database that cannot be
reached, is locked, or is of a newer schema is refused with a clear error and exit 4, and the
run directories are left byte for byte as they were; a password is never taken from the URL;
eight ingests at once store every run once. The PostgreSQL cases need RAILGAUGE_TEST_PG_URL
(pg_server.py starts a server and sets it) and skip without it.

  history_cli_test.py RAILGAUGE_BINARY [unittest names]
"""
import concurrent.futures
import hashlib
import json
import os
import pathlib
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import unittest

import yaml

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1] / "support"))
from named_tests import run_named_tests  # noqa: E402

BINARY = sys.argv.pop(1) if len(sys.argv) > 1 else "railgauge"
PG_URL = os.environ.get("RAILGAUGE_TEST_PG_URL")
MAKE_FLEET = HERE.parent / "check" / "make_fleet.py"
PROFILE = HERE.parents[2] / "results" / "rules" / "h100-sxm-ib.yaml"
SOFTROCE_MATRIX = HERE.parents[2] / "results" / "reference" / "softroce-2026-11-29" / "runs_matrix"


def digest(tree):
    h = hashlib.sha256()
    for p in sorted(pathlib.Path(tree).rglob("*")):
        if p.is_file():
            h.update(str(p.relative_to(tree)).encode() + p.read_bytes())
    return h.hexdigest()


def fresh_pg_database(name):
    subprocess.run(["psql", PG_URL, "-q", "-c", "SET client_min_messages = warning",
                    "-c", f"DROP DATABASE IF EXISTS {name}",
                    "-c", f"CREATE DATABASE {name}"], check=True, timeout=60)
    return PG_URL.replace("/postgres?", f"/{name}?")


def pg_count(url, sql):
    out = subprocess.run(["psql", url, "-At", "-c", sql], check=True, timeout=60,
                         capture_output=True, text=True)
    return int(out.stdout.strip())


class HistoryCli(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = pathlib.Path(tempfile.mkdtemp(prefix="rg-history-cli-"))
        fleet = cls.tmp / "fleet"
        subprocess.run([sys.executable, MAKE_FLEET, fleet, "--nodes", "4", "--rdma-peers", "1"],
                       check=True, timeout=120)
        # 16 runs: each node's run on four days, each its own run id and start time.
        cls.runs = cls.tmp / "runs"
        for src in sorted(fleet.iterdir()):
            for day in range(1, 5):
                dst = cls.runs / f"{src.name}-day{day}"
                dst.mkdir(parents=True)
                manifest = json.loads((src / "run.json").read_text())
                manifest["run"] = f"{manifest['run']}-day{day}"
                manifest["start_utc"] = f"2026-11-0{day}T10:00:00.000Z"
                (dst / "run.json").write_text(json.dumps(manifest))
                lines = []
                for line in (src / "records.jsonl").read_text().splitlines():
                    rec = json.loads(line)
                    rec["run"] = manifest["run"]
                    lines.append(json.dumps(rec))
                (dst / "records.jsonl").write_text("\n".join(lines) + "\n")
        cls.records_per_run = len(lines)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def railgauge(self, *args, env=None):
        return subprocess.run([BINARY, *map(str, args)], capture_output=True, text=True,
                              timeout=300, env=env)

    def refused(self, args, words):
        before = digest(self.runs)
        r = self.railgauge(*args)
        self.assertEqual(r.returncode, 4, r.stdout + r.stderr)
        for w in words:
            self.assertIn(w, r.stderr)
        self.assertIn("fix:", r.stderr)
        self.assertEqual(digest(self.runs), before, "a run directory changed")
        return r

    def test_an_unreachable_server_exits_4(self):
        nowhere = self.tmp / "no-server"
        nowhere.mkdir(exist_ok=True)
        url = f"postgresql:///postgres?host={nowhere}&user=postgres"
        self.refused(["db", "ingest", "--db", url, "--db-timeout-s", "2", self.runs],
                     ["cannot reach the PostgreSQL server"])
        self.refused(["check", "--rules", "any-fabric", "--history", url, "--db-timeout-s", "2",
                      self.runs / "node01-day1"], ["cannot reach the PostgreSQL server"])

    def test_a_locked_sqlite_database_exits_4_after_its_timeout(self):
        path = self.tmp / "locked.db"
        self.assertEqual(self.railgauge("db", "ingest", "--db", f"sqlite:{path}",
                                        self.runs / "node01-day1").returncode, 0)
        holder = sqlite3.connect(path, isolation_level=None)
        holder.execute("BEGIN EXCLUSIVE")
        try:
            self.refused(["db", "ingest", "--db", f"sqlite:{path}", "--db-timeout-s", "1",
                          self.runs / "node02-day1"], ["locked"])
        finally:
            holder.execute("ROLLBACK")
            holder.close()
        # The refused run was not half stored: ingested now, it is whole.
        self.assertEqual(self.railgauge("db", "ingest", "--db", f"sqlite:{path}",
                                        self.runs / "node02-day1").returncode, 0)
        con = sqlite3.connect(path)
        self.assertEqual(con.execute("SELECT COUNT(*) FROM runs").fetchone()[0], 2)
        self.assertEqual(con.execute("SELECT COUNT(*) FROM records WHERE per_gpu = 0")
                         .fetchone()[0], 2 * self.records_per_run)

    @unittest.skipUnless(PG_URL, "no PostgreSQL server: run under pg_server.py")
    def test_a_locked_postgresql_database_exits_4_after_its_timeout(self):
        url = fresh_pg_database("locked")
        self.assertEqual(self.railgauge("db", "ingest", "--db", url,
                                        self.runs / "node01-day1").returncode, 0)
        # Another session holds the runs table for 5 s; the ingest waits 1 s for it.
        holder = subprocess.Popen(["psql", url, "-q", "-c", "BEGIN",
                                   "-c", "LOCK TABLE runs IN ACCESS EXCLUSIVE MODE",
                                   "-c", "SELECT pg_sleep(5)"], stdout=subprocess.DEVNULL)
        try:
            for _ in range(100):  # until the lock is held
                if pg_count(url, "SELECT COUNT(*) FROM pg_locks WHERE mode = "
                                 "'AccessExclusiveLock' AND relation = 'runs'::regclass") > 0:
                    break
            self.refused(["db", "ingest", "--db", url, "--db-timeout-s", "1",
                          self.runs / "node02-day1"], ["locked"])
        finally:
            holder.kill()
            holder.wait(timeout=30)
        self.assertEqual(pg_count(url, "SELECT COUNT(*) FROM runs"), 1)

    def test_a_newer_schema_exits_4_and_is_left_alone(self):
        path = self.tmp / "newer.db"
        self.assertEqual(self.railgauge("db", "ingest", "--db", f"sqlite:{path}",
                                        self.runs / "node01-day1").returncode, 0)
        con = sqlite3.connect(path)
        con.execute("UPDATE schema_version SET version = 99")
        con.commit()
        self.refused(["db", "ingest", "--db", f"sqlite:{path}", self.runs],
                     ["schema is version 99, newer"])
        self.refused(["check", "--history", f"sqlite:{path}"], ["schema is version 99, newer"])
        self.assertEqual(con.execute("SELECT COUNT(*) FROM runs").fetchone()[0], 1)

    def test_a_password_in_the_url_is_refused(self):
        for url in ("postgresql://me:secret@db.example/fleet",
                    "postgresql://db.example/fleet?password=secret"):
            r = self.refused(["db", "ingest", "--db", url, self.runs], ["holds a password"])
            self.assertNotIn("secret", r.stderr)

    def test_a_password_file_readable_by_others_is_refused(self):
        pw = self.tmp / "pw"
        pw.write_text("secret\n")
        pw.chmod(0o644)
        self.refused(["db", "ingest", "--db", "postgresql://db.example/fleet",
                      "--db-password-file", pw, self.runs], ["readable by others", "chmod 600"])

    def test_the_same_runs_twice_are_stored_once(self):
        url = f"sqlite:{self.tmp / 'twice.db'}"
        for _ in range(2):
            r = self.railgauge("db", "ingest", "--db", url, self.runs)
            self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("0 run(s) ingested (0 records), 16 already there", r.stdout)

    def ingest_concurrently(self, url, count):
        dirs = sorted(self.runs.iterdir())
        # Eight ingests at once, each given every run in its own order: every run is contested.
        jobs = [[*dirs[i:], *dirs[:i]] for i in range(0, 16, 2)]
        with concurrent.futures.ThreadPoolExecutor(8) as pool:
            results = list(pool.map(
                lambda runs: self.railgauge("db", "ingest", "--quiet", "--db", url, *runs), jobs))
        for r in results:
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        added = sum(int(r.stdout.split(": ")[-1].split(" run(s) ingested")[0]) for r in results)
        self.assertEqual(added, 16)
        self.assertEqual(count("SELECT COUNT(*) FROM runs"), 16)
        self.assertEqual(count("SELECT COUNT(DISTINCT run_id) FROM runs"), 16)
        self.assertEqual(count("SELECT COUNT(*) FROM records WHERE per_gpu = 0"),
                         16 * self.records_per_run)

    @unittest.skipUnless(PG_URL, "no PostgreSQL server: run under pg_server.py")
    def test_eight_concurrent_ingests_into_postgresql_store_every_run_once(self):
        url = fresh_pg_database("concurrent")
        self.ingest_concurrently(url, lambda sql: pg_count(url, sql))

    def test_eight_concurrent_ingests_into_sqlite_store_every_run_once(self):
        path = self.tmp / "concurrent.db"
        self.ingest_concurrently(f"sqlite:{path}",
                                 lambda sql: sqlite3.connect(path).execute(sql).fetchone()[0])

    def test_check_history_stores_the_runs_it_judges_and_their_verdicts(self):
        path = self.tmp / "verdicts.db"
        r = self.railgauge("check", "--rules", "any-fabric", "--history", f"sqlite:{path}",
                           self.runs / "node01-day1", self.runs / "node02-day1")
        self.assertIn(r.returncode, (0, 1), r.stderr)
        self.assertIn("2 runs stored", r.stderr)
        con = sqlite3.connect(path)
        self.assertEqual(con.execute("SELECT COUNT(*) FROM runs").fetchone()[0], 2)
        hosts = con.execute("SELECT DISTINCT h.name FROM verdicts v JOIN hosts h ON "
                            "h.id = v.host_id WHERE v.rule = 'verdict' AND v.what = h.name "
                            "ORDER BY h.name").fetchall()
        self.assertEqual(hosts, [("node01",), ("node02",)])

    def test_report_history_draws_a_host_and_refuses_an_unknown_one(self):
        url = f"sqlite:{self.tmp / 'report.db'}"
        self.assertEqual(self.railgauge("db", "ingest", "--db", url, self.runs).returncode, 0)
        html = self.tmp / "node01.html"
        r = self.railgauge("report", "--history", url, "--host", "node01", "--html", html)
        self.assertEqual(r.returncode, 0, r.stderr)
        page = html.read_text()
        self.assertIn("History of node01", page)
        self.assertIn("4 run(s) of node01", page)
        self.assertGreater(page.count("<svg"), 10)
        r = self.railgauge("report", "--history", url, "--host", "node99")
        self.assertEqual(r.returncode, 4)
        self.assertIn("no figure of host 'node99'", r.stderr)

    def test_check_history_alone_judges_every_host_it_holds(self):
        url = f"sqlite:{self.tmp / 'alone.db'}"
        self.assertEqual(self.railgauge("db", "ingest", "--db", url, self.runs).returncode, 0)
        r = self.railgauge("check", "--history", url, "--format", "json")
        self.assertEqual(r.returncode, 0, r.stderr)
        verdict = json.loads(r.stdout)
        self.assertEqual(verdict["verdict"], "pass")
        self.assertEqual(sorted({p["host"] for p in verdict["parts"]}),
                         ["node01", "node02", "node03", "node04"])

    def fleet(self, name, *args, run_suffix="", start_utc=None):
        """A fleet of 8 nodes (make_fleet.py), its runs renamed and dated when asked."""
        out = self.tmp / name
        subprocess.run([sys.executable, MAKE_FLEET, out, "--nodes", "8", "--rdma-peers", "2",
                        *args], check=True, timeout=120)
        for run in out.iterdir():
            manifest = json.loads((run / "run.json").read_text())
            manifest["run"] += run_suffix
            if start_utc:
                manifest["start_utc"] = start_utc
            (run / "run.json").write_text(json.dumps(manifest))
            lines = [json.loads(line) for line in (run / "records.jsonl").read_text().splitlines()]
            (run / "records.jsonl").write_text(
                "".join(json.dumps({**r, "run": manifest["run"]}) + "\n" for r in lines))
        return out

    def fleet_findings(self, *args):
        """The findings of the rules `check --history` judges over the database, as comparable
        tuples: every rule of the profile (fleet-relative, absolute, curves, the inventory probes
        over the inventories the database keeps) and the built-in record-status, run-complete
        and nothing-judged."""
        rules = yaml.safe_load(PROFILE.read_text())["rules"]
        fleet_rules = {r["id"] for r in rules} | {
            "record-status", "run-complete", "nothing-judged"}
        r = self.railgauge("check", "--rules", PROFILE, "--format", "json", *args)
        self.assertIn(r.returncode, (0, 1, 2), r.stderr)
        verdict = json.loads(r.stdout)
        found = {(f["rule"], p["host"], p["kind"], p["id"], f["level"], f["missing"], f["what"],
                  json.dumps(f["value"]), f["threshold"], f["bound"], f["key"],
                  json.dumps(f["params"], sort_keys=True), f["run"], f["detail"])
                 for p in verdict["parts"] for f in p["findings"] if f["rule"] in fleet_rules}
        tallies = {(p["host"], p["kind"], p["id"], rule): (t["checked"], t["passed"])
                   for p in verdict["parts"] for rule, t in p["rules"].items()
                   if rule in fleet_rules}
        return found, tallies

    def fleet_rules_agree(self, url, name):
        # The database holds an older healthy run of every node and the newest runs, one GPU
        # of node03 slow: only the newest are judged, as the directories of those runs are.
        old = self.fleet(f"{name}-old", run_suffix="-old", start_utc="2025-12-01T00:00:00Z")
        new = self.fleet(f"{name}-new", "--slow", "node03:5")
        for runs in (old, new):
            r = self.railgauge("db", "ingest", "--db", url, runs, "--quiet")
            self.assertEqual(r.returncode, 0, r.stderr)
        from_db, db_tallies = self.fleet_findings("--history", url)
        from_dirs, dir_tallies = self.fleet_findings(new)
        self.assertEqual(from_db, from_dirs)
        self.assertEqual(db_tallies, dir_tallies)
        slow = {(f[0], f[1], f[3]) for f in from_db if not f[5]}
        self.assertIn(("gemm-vs-siblings", "node03", "0000:68:00.0"), slow)
        self.assertEqual({f[1] for f in from_db if not f[5]}, {"node03"})

    def broken_fleet_agree(self, url, name):
        # node02's newest run has a GEMM record whose data check failed, node05's was cut short
        # (killed: run.json still says running) and node06's stopped by SIGTERM (a job's time
        # limit) in its last point: the database fails the first two and warns on the third,
        # draining nobody for it, as the directories do.
        new = self.fleet(f"{name}-broken")
        run = next(d for d in new.iterdir() if "node02" in d.name)
        lines = (run / "records.jsonl").read_text().splitlines()
        i = next(i for i, line in enumerate(lines) if '"gemm.' in line)
        failed = {**json.loads(lines[i]), "status": "failed", "reason": "12 wrong elements"}
        lines[i] = json.dumps(failed)
        (run / "records.jsonl").write_text("\n".join(lines) + "\n")
        run = next(d for d in new.iterdir() if "node05" in d.name)
        manifest = json.loads((run / "run.json").read_text())
        (run / "run.json").write_text(json.dumps({**manifest, "status": "running"}))
        run = next(d for d in new.iterdir() if "node06" in d.name)
        manifest = json.loads((run / "run.json").read_text())
        (run / "run.json").write_text(json.dumps({**manifest, "status": "interrupted",
                                                  "interrupted": "SIGTERM"}))
        lines = (run / "records.jsonl").read_text().splitlines()
        cut = json.loads(lines[-1])
        cut.update(status="error", metrics={},
                   reason=f"interrupted by SIGTERM while running {cut['key']}, 3.2 s in "
                          "(--point-timeout 600 s): the run was stopped (a job's time limit, "
                          "scancel, Ctrl-C)")
        lines[-1] = json.dumps(cut)
        (run / "records.jsonl").write_text("\n".join(lines) + "\n")
        from_db = self.judged_alike(
            url, (new,), new,
            {("record-status", "node02", failed["device"]["pci"], failed["key"])})
        levels = {(f[0], f[1], f[4], f[5]) for f in from_db}
        self.assertIn(("run-complete", "node05", "fail", True), levels)
        self.assertIn(("run-complete", "node06", "warn", True), levels)
        self.assertIn(("record-status", "node06", "warn", True), levels)
        fails = {h: {f[0] for f in from_db if f[1] == h and f[4] == "fail"}
                 for h in ("node06", "node07")}
        # (node07 fails rules whose records this fleet lacks; node06 warns on those: its run was
        # cut, so they may be points that never ran.)
        self.assertLessEqual(fails["node06"], fails["node07"], "the cut adds no failure")
        r = self.railgauge("check", "--rules", PROFILE, "--history", url)
        self.assertEqual(r.returncode, 2, r.stdout)
        # The inventory probes are judged from the inventories stored with the runs.
        self.assertNotIn("Not judged:", r.stdout)
        # Without a profile the built-in rules still judge the newest runs.
        r = self.railgauge("check", "--history", url, "--format", "json")
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        found = {(f["rule"], p["host"]) for p in json.loads(r.stdout)["parts"]
                 for f in p["findings"]}
        self.assertLessEqual({("record-status", "node02"), ("run-complete", "node05")}, found)

    @staticmethod
    def lose(run, rank, lost_rank, lost_host):
        """Make `run` rank `rank` of a job of two ranks that stopped halfway because the store
        lost rank `lost_rank` on `lost_host`: its point then an error, the rest never run, and
        run.json saying so as railgauge writes it. Returns (points kept, points planned)."""
        manifest = json.loads((run / "run.json").read_text())
        lines = (run / "records.jsonl").read_text().splitlines()
        kept, planned = len(lines) // 2, len(lines)
        lost = (f"rank {lost_rank} is lost: its connection to the store (from 10.0.0.8:4242) "
                "closed at 2026-11-27T10:05:00.000Z (its process ended or was killed, or its "
                "node went down)")
        reason = f"store: {lost}; a wait that needs it fails at once"
        records = [json.loads(line) for line in lines[:kept]]
        records[-1].update(status="error", metrics={}, reason=reason)
        (run / "records.jsonl").write_text(
            "".join(json.dumps({**r, "run": "job-4711"}) + "\n" for r in records))
        (run / "run.json").write_text(json.dumps({
            **manifest, "run": "job-4711", "status": "failed", "points_planned": planned,
            "world": {"size": 2, "rank": rank},
            "failure": f"the run stopped after {kept} of {planned} points "
                       f"({planned - kept} never ran): {reason}; then barrier 'railgauge/end': "
                       f"{reason}",
            "counts": {"ok": kept - 1, "error": 1},
            "lost_ranks": [{"rank": lost_rank, "host": lost_host, "reason": lost}]}))
        return kept, planned

    def lost_rank_fleet_agree(self, url, name):
        # node07 and node08 ran one job of two ranks; node08 died in it (no run directory of
        # its rank) and node07's rank named it lost, stopped with points it never ran. The
        # database fails node08 for the rank it never gave and warns on node07, draining only
        # node08, as the directories do (it failed node07, the survivor, for node08's loss).
        new = self.fleet(f"{name}-lost-rank")
        survivor = next(d for d in new.iterdir() if "node07" in d.name)
        shutil.rmtree(next(d for d in new.iterdir() if "node08" in d.name))
        kept, planned = self.lose(survivor, 0, 1, "node08")
        from_db = self.judged_alike(url, (new,), new, set())
        levels = {(f[0], f[1], f[4]) for f in from_db}
        self.assertIn(("run-complete", "node08", "fail"), levels)
        self.assertIn(("run-complete", "node07", "warn"), levels)
        self.assertIn(("record-status", "node07", "warn"), levels)
        fails = {h: {f[0] for f in from_db if f[1] == h and f[4] == "fail"}
                 for h in ("node06", "node07", "node08")}
        # (Every node fails rules whose records this fleet lacks: the survivor fails no more.)
        self.assertLessEqual(fails["node07"], fails["node06"], "the loss adds no failure")
        self.assertIn("run-complete", fails["node08"])
        survivor_said = {f[13] for f in from_db if f[:2] == ("run-complete", "node07")}
        self.assertEqual(len(survivor_said), 1)
        self.assertTrue(survivor_said.pop().startswith(
            f"not judged: stopped by lost rank 1 on node08; {planned - kept + 1} of {planned} "
            "planned points not measured (not passed); run.json says status 'failed'"))
        # Each names the other lost (the link between them failed): neither is excused, though
        # node07's run was stored, excused, before node08's.
        both = self.fleet(f"{name}-lost-both")
        runs = {h: next(d for d in both.iterdir() if h in d.name) for h in ("node07", "node08")}
        self.lose(runs["node07"], 0, 1, "node08")
        self.lose(runs["node08"], 1, 0, "node07")
        mutual = url.replace("lost-rank", "lost-both") if url.startswith("sqlite:") else \
            fresh_pg_database("rg_lost_both")
        from_db = self.judged_alike(mutual, (runs["node07"], both), both, set())
        for host, other in (("node07", "node08"), ("node08", "node07")):
            said = {f[13] for f in from_db if f[:2] == ("run-complete", host) and f[4] == "fail"}
            self.assertEqual(len(said), 1, host)
            self.assertTrue(said.pop().startswith(
                f"the rank it lost on {other} names this node lost in turn: the link between "
                f"them, or either node, failed; stopped by lost rank"), host)
            self.assertIn(("record-status", host, "fail"), {(f[0], f[1], f[4]) for f in from_db})
        if mutual.startswith("sqlite:"):
            # The run stored excused counts the point the loss broke once judged again (repeat
            # offenders read failed_records).
            with sqlite3.connect(mutual[len("sqlite:"):]) as con:
                stored = con.execute("SELECT h.name, ru.failed_records FROM runs ru JOIN hosts h "
                                     "ON h.id = ru.host_id WHERE ru.run_id = 'job-4711' "
                                     "ORDER BY h.name").fetchall()
            self.assertEqual(stored, [("node07", 1), ("node08", 1)])

    def lost_in_turn_agree(self, new_url, name):
        # Two ranks that name each other lost are neither excused, however they reach the
        # database: node07's excused run stored before a node08 run that is not excused itself
        # (it also lost a rank on no host it knew), or both ingested at once.
        both = self.fleet(f"{name}-lost-turn")
        runs = {h: next(d for d in both.iterdir() if h in d.name) for h in ("node07", "node08")}
        self.lose(runs["node07"], 0, 1, "node08")
        self.lose(runs["node08"], 1, 0, "node07")
        for host, run in runs.items():
            manifest = json.loads((run / "run.json").read_text())
            manifest["world"]["size"] = 3
            if host == "node08":
                manifest["lost_ranks"].append({"rank": 2, "host": "", "reason": "rank 2 is lost"})
            (run / "run.json").write_text(json.dumps(manifest))
        from_db = self.judged_alike(new_url("order"), (runs["node07"], both), both, set())
        said = {f[13] for f in from_db if f[:2] == ("run-complete", "node07") and f[4] == "fail"}
        self.assertTrue(any(s.startswith("the rank it lost on node08 names this node lost in "
                                         "turn") for s in said), said)
        for attempt in range(3):
            url = new_url(f"at_once{attempt}")
            with concurrent.futures.ThreadPoolExecutor(2) as pool:
                results = list(pool.map(lambda run: self.railgauge(
                    "db", "ingest", "--quiet", "--db", url, run), runs.values()))
            for r in results:
                self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            from_db, _ = self.fleet_findings("--history", url)
            for host in runs:
                self.assertIn(("run-complete", host, "fail"),
                              {(f[0], f[1], f[4]) for f in from_db}, (attempt, host))
        # A lost rank's host that check could not write is refused at ingest, naming it.
        manifest = json.loads((runs["node07"] / "run.json").read_text())
        manifest["lost_ranks"][0]["host"] = "node\u000708"
        (runs["node07"] / "run.json").write_text(json.dumps(manifest))
        r = self.railgauge("db", "ingest", "--db", new_url("bad_host"), runs["node07"])
        self.assertNotEqual(r.returncode, 0, r.stdout)
        self.assertIn("its lost rank 1's host name \"node\\u000708\" holds a control character",
                      r.stderr)

    def test_check_history_drains_the_lost_rank_not_its_survivor(self):
        self.lost_rank_fleet_agree(f"sqlite:{self.tmp / 'lost-rank.db'}", "sqlite")
        self.lost_in_turn_agree(lambda name: f"sqlite:{self.tmp / f'lost-turn-{name}.db'}",
                                "sqlite")

    @unittest.skipUnless(PG_URL, "no PostgreSQL server: run under pg_server.py")
    def test_check_history_drains_the_lost_rank_not_its_survivor_in_postgresql(self):
        self.lost_rank_fleet_agree(fresh_pg_database("rg_lost_rank"), "postgresql")
        self.lost_in_turn_agree(lambda name: fresh_pg_database(f"rg_lost_turn_{name}"),
                                "postgresql")

    def test_a_run_stored_without_its_lost_ranks_is_stored_again_with_them(self):
        # A run stored before schema version 8 kept no lost ranks (NULL): ingested again, it is
        # stored with them, so that a peer it names can be judged in turn.
        fleet = self.fleet("lost-null")
        run = next(d for d in fleet.iterdir() if "node07" in d.name)
        self.lose(run, 0, 1, "node08")
        db = self.tmp / "lost-null.db"
        for step in ("first", "again"):
            r = self.railgauge("db", "ingest", "--db", f"sqlite:{db}", run)
            self.assertEqual(r.returncode, 0, r.stderr)
            with sqlite3.connect(db) as con:
                stored = con.execute("SELECT lost_ranks FROM runs").fetchall()
                if step == "first":
                    con.execute("UPDATE runs SET lost_ranks = NULL")
            self.assertEqual(stored, [('[[1,"node08"]]',)], step)

    def test_check_history_of_a_database_without_runs_is_refused(self):
        # A new file or a URL with a typo holds nothing: judged nothing is no pass.
        empty = self.tmp / "empty.db"
        sqlite3.connect(empty).execute("CREATE TABLE t (x)").connection.close()
        r = self.railgauge("check", "--history", f"sqlite:{empty}")
        self.assertEqual(r.returncode, 4, r.stdout + r.stderr)
        self.assertIn("the database holds no run to judge", r.stderr)
        self.assertIn("fix:", r.stderr)
        self.assertNotIn("PASS", r.stdout)
        # A path that holds no database at all is refused by every command that only reads
        # the history, and not created (db list read the typo's new file as 0 runs, exit 0).
        typo = self.tmp / "typo.db"
        for args in (["check", "--history", f"sqlite:{typo}"],
                     ["db", "list", "--db", f"sqlite:{typo}"],
                     ["report", "--history", f"sqlite:{typo}", "--host", "n1",
                      "--html", self.tmp / "h.html"]):
            r = self.railgauge(*args)
            self.assertEqual(r.returncode, 4, args)
            self.assertIn(f"no database at {typo}", r.stderr, args)
            self.assertFalse(typo.exists(), args)
        # A wait that is no bounded wait: 0 was PostgreSQL's "no lock timeout" (an ingest hung on
        # a lock), nan, inf and -1 SQLite's "give up at once".
        for wait in ("0", "nan", "inf", "-1"):
            r = self.railgauge("db", "list", "--db", f"sqlite:{empty}", "--db-timeout-s", wait)
            self.assertEqual(r.returncode, 4, wait)
            self.assertIn(f"'{wait}' is not a wait of 0.001 to 86400 seconds", r.stderr)

    def test_check_history_with_rules_auto_is_refused(self):
        # auto picks from run directories; without any it would judge with no profile and pass
        # what the fleet's profile fails.
        db = f"sqlite:{self.tmp / 'auto.db'}"
        self.assertEqual(self.railgauge("db", "ingest", "--db", db, self.runs).returncode, 0)
        r = self.refused(["check", "--rules", "auto", "--history", db],
                         ["--rules auto picks a profile from run directories"])
        self.assertNotIn("PASS", r.stdout)

    def isolation_agrees(self, url, name):
        # The committed Soft-RoCE pair matrix (4 ranks standing for nodes, one host) without its
        # fleet finding: the NIC its isolation named fails over the database as over the
        # directories, the same findings and tallies, and the node is drained both ways.
        runs = self.tmp / name
        shutil.copytree(SOFTROCE_MATRIX, runs)
        holder = next(runs.glob("*/rank-00000/records.jsonl"))
        lines = []
        for line in holder.read_text().splitlines():
            rec = json.loads(line)
            if rec["key"] == "rdma.pair_matrix":
                rec["metrics"]["findings"] = [f for f in rec["metrics"]["findings"]
                                              if f["kind"] != "fleet"]
            lines.append(json.dumps(rec))
        holder.write_text("\n".join(lines) + "\n")
        self.assertEqual(self.railgauge("db", "ingest", "--db", url, runs, "--quiet").returncode,
                         0)
        judged = []
        for where in (("--history", url), (runs,)):
            r = self.railgauge("check", "--rules", "any-fabric", "--format", "json", *where)
            self.assertEqual(r.returncode, 2, r.stdout[-2000:] + r.stderr)
            verdict = json.loads(r.stdout)
            judged.append(({(p["host"], p["kind"], p["id"], f["level"], f["missing"],
                             json.dumps(f["value"]), f["detail"])
                            for p in verdict["parts"] for f in p["findings"]
                            if f["rule"] == "pair-isolation"},
                           {(p["host"], p["id"]): p["rules"]["pair-isolation"]["passed"]
                            for p in verdict["parts"] if "pair-isolation" in p["rules"]}))
        self.assertEqual(judged[0], judged[1])
        named = {(h, i) for h, k, i, level, missing, _, _ in judged[0][0]
                 if level == "fail" and not missing}
        self.assertEqual(named, {("softroce-guest", "rxe1")})
        self.assertEqual(judged[0][1], {("softroce-guest", "rxe0"): 0,
                                        ("softroce-guest", "rxe1"): 0})

    def test_the_ranks_of_one_run_are_one_run_of_a_series(self):
        # The committed 4-rank fabric run on one host: the incast's senders and the loaded
        # latency's loaders are several ranks measuring one series through one NIC. The history
        # read each rank as a run, and history-step found a 6 % fall "since the previous run" in
        # the only run stored; with the same run a day earlier at 1.5 times every bandwidth, the
        # 33 % fall went unsaid on the series several ranks wrote. Now each rank's figures are a
        # series of their own, and a fall on one rank of three is said too.
        fabric = SOFTROCE_MATRIX.parent / "runs_fabric"
        db = f"sqlite:{self.tmp / 'ranks.db'}"

        def steps():
            r = self.railgauge("check", "--rules", "any-fabric", "--format", "json",
                               "--history", db)
            self.assertIn(r.returncode, (0, 1, 2), r.stderr)
            return {(f["what"], f["detail"].split(" since")[0].split(" below")[0])
                    for p in json.loads(r.stdout)["parts"] for f in p["findings"]
                    if f["rule"] == "history-step" and not f["missing"]}

        self.assertEqual(self.railgauge("db", "ingest", "--db", db, fabric,
                                        "--quiet").returncode, 0)
        self.assertEqual(steps(), set())
        earlier = self.tmp / "earlier"
        shutil.copytree(fabric, earlier)
        for rank in earlier.glob("*/rank-*"):
            manifest = json.loads((rank / "run.json").read_text())
            manifest["start_utc"] = manifest["start_utc"].replace("2026-11-29", "2026-11-28")
            manifest["run"] += "-earlier"
            (rank / "run.json").write_text(json.dumps(manifest))
            lines = []
            for line in (rank / "records.jsonl").read_text().splitlines():
                record = json.loads(line)
                record["run"] += "-earlier"
                for name, value in record["metrics"].items():
                    if name.endswith("_gbits_per_s") and isinstance(value, (int, float)):
                        record["metrics"][name] = value * 1.5
                lines.append(json.dumps(record) + "\n")
            (rank / "records.jsonl").write_text("".join(lines))
        db = f"sqlite:{self.tmp / 'ranks2.db'}"
        for runs in (earlier, fabric):
            self.assertEqual(self.railgauge("db", "ingest", "--db", db, runs,
                                            "--quiet").returncode, 0)
        stepped = steps()
        self.assertTrue(stepped, "no history-step over a 33 % fall")
        self.assertTrue(all("fell 33" in detail for _, detail in stepped), stepped)
        self.assertTrue(any(what.endswith(", rank 3") for what, _ in stepped), stepped)

    @unittest.skipUnless(PG_URL, "no PostgreSQL server: run under pg_server.py")
    def test_check_history_in_postgresql_reads_every_record_after_a_violation(self):
        # The committed Soft-RoCE pair points: their latency tails violate an absolute rule as
        # the records stream. Its finding read the record's params back inside the stream, and
        # libpq dropped the rows not yet read to run it: over PostgreSQL 4 values and 1 record
        # of 3 were judged where SQLite judged 13 and 3. And the bandwidth run (--filter
        # 'rdma.[rsw]*_bw') was superseded by the later latency run of the same host and suite,
        # which measured none of its points: 2 runs of 4 were judged, 13 values where 22 are.
        runs = SOFTROCE_MATRIX.parent / "rep1" / "runs_ranks"
        judged = []
        for url in (fresh_pg_database("rg_stream"), f"sqlite:{self.tmp / 'stream.db'}"):
            self.assertEqual(
                self.railgauge("db", "ingest", "--db", url, runs, "--quiet").returncode, 0)
            r = self.railgauge("check", "--rules", "h100-sxm-roce", "--format", "json",
                               "--history", url)
            self.assertIn(r.returncode, (1, 2), r.stderr)
            verdict = json.loads(r.stdout)
            judged.append((r.stderr.split("judged over")[-1].splitlines()[0],
                           {(p["host"], p["id"], rule, t["checked"], t["passed"])
                            for p in verdict["parts"] for rule, t in p["rules"].items()}))
        self.assertEqual(judged[0], judged[1])
        self.assertIn("4 runs, 22 values", judged[0][0])

    def pair_ends_agree(self, url, name):
        # The committed Soft-RoCE pair points (mode=ranks) with rank 1 on a host of its own: the
        # server end's notes and the violations charged to it are the same over the database as
        # over the directories (their newest runs, as --latest-per-host keeps them).
        runs = self.tmp / name
        shutil.copytree(SOFTROCE_MATRIX.parent / "rep1" / "runs_ranks", runs)
        for rank_dir in runs.glob("*/rank-00001"):
            manifest = json.loads((rank_dir / "run.json").read_text())
            (rank_dir / "run.json").write_text(json.dumps({**manifest, "host": "nodeB"}))
            lines = [json.dumps({**json.loads(line), "host": "nodeB"})
                     for line in (rank_dir / "records.jsonl").read_text().splitlines()]
            (rank_dir / "records.jsonl").write_text("\n".join(lines) + "\n")
        self.assertEqual(self.railgauge("db", "ingest", "--db", url, runs, "--quiet").returncode,
                         0)
        judged = []
        for where in (("--history", url), ("--latest-per-host", runs)):
            r = self.railgauge("check", "--rules", "h100-sxm-roce", "--format", "json", *where)
            self.assertIn(r.returncode, (1, 2), r.stdout[-2000:] + r.stderr)
            judged.append({(p["host"], p["id"], f["rule"], f["level"], f["missing"],
                            json.dumps(f["value"]), f["detail"])
                           for p in json.loads(r.stdout)["parts"] for f in p["findings"]
                           if (f["key"] or "").startswith("rdma.") or "pair" in f["detail"]})
        self.assertEqual(judged[0], judged[1])
        charged = {f for f in judged[0] if f[0] == "nodeB" and "measured from" in f[6]}
        self.assertTrue(charged)
        self.assertFalse({f for f in judged[0] if f[0] == "nodeB" and f[4] and
                          f[3] in ("warn", "fail") and "no such metric" in f[6]})

    def test_check_history_charges_a_pairs_figure_to_both_ends(self):
        self.pair_ends_agree(f"sqlite:{self.tmp / 'pair-ends.db'}", "pair-ends-sqlite")

    @unittest.skipUnless(PG_URL, "no PostgreSQL server: run under pg_server.py")
    def test_check_history_charges_a_pairs_figure_to_both_ends_in_postgresql(self):
        self.pair_ends_agree(fresh_pg_database("rg_pair_ends"), "pair-ends-postgresql")

    def test_check_history_fails_the_nic_a_pair_matrix_named(self):
        self.isolation_agrees(f"sqlite:{self.tmp / 'isolation.db'}", "isolation-sqlite")

    @unittest.skipUnless(PG_URL, "no PostgreSQL server: run under pg_server.py")
    def test_check_history_fails_the_nic_a_pair_matrix_named_in_postgresql(self):
        self.isolation_agrees(fresh_pg_database("rg_isolation"), "isolation-postgresql")

    def test_check_history_fails_a_failed_record_and_a_cut_run(self):
        self.broken_fleet_agree(f"sqlite:{self.tmp / 'broken.db'}", "sqlite")

    @unittest.skipUnless(PG_URL, "no PostgreSQL server: run under pg_server.py")
    def test_check_history_fails_a_failed_record_and_a_cut_run_in_postgresql(self):
        self.broken_fleet_agree(fresh_pg_database("rg_broken"), "postgresql")

    def test_check_history_judges_the_fleet_rules_as_the_directories_do(self):
        self.fleet_rules_agree(f"sqlite:{self.tmp / 'fleet-rules.db'}", "sqlite")

    @unittest.skipUnless(PG_URL, "no PostgreSQL server: run under pg_server.py")
    def test_check_history_judges_the_fleet_rules_in_postgresql(self):
        self.fleet_rules_agree(fresh_pg_database("rg_fleet_rules"), "postgresql")

    def ranked(self, name, slow=None, ranks=4, run_suffix="", day="2026-11-27"):
        """The 8-node fleet as `mpirun -np 8 ... --ranks-per-node 4` writes it: each node's GPUs
        split over its ranks' run directories (rank-00000 ...), each rank's run.json dated by
        its own start, the last rank the last to start."""
        fleet = self.fleet(f"{name}-one-rank", *(("--slow", slow) if slow else ()),
                           run_suffix=run_suffix)
        out = self.tmp / name
        for node in sorted(fleet.iterdir()):
            manifest = json.loads((node / "run.json").read_text())
            records = [json.loads(line) for line in (node / "records.jsonl").read_text()
                       .splitlines()]
            gpus = sorted({r["device"]["pci"] for r in records if "pci" in r["device"]})
            per_rank = len(gpus) // ranks
            for rank in range(ranks):
                mine = set(gpus[rank * per_rank:(rank + 1) * per_rank])
                # The node's records without a GPU (RDMA) are rank 0's.
                lines = [json.dumps({**r, "rank": rank}) + "\n" for r in records
                         if r["device"].get("pci") in mine or
                         (rank == 0 and "pci" not in r["device"])]
                d = out / node.name / f"rank-{rank:05d}"
                d.mkdir(parents=True)
                (d / "run.json").write_text(json.dumps(
                    {**manifest, "rank": rank, "start_utc": f"{day}T10:00:0{rank}.000Z"}))
                (d / "records.jsonl").write_text("".join(lines))
        return out

    def judged_alike(self, url, ingested, judged, named):
        """`check --history` after ingesting `ingested` finds what `check judged` finds, each
        naming the violations `named` as (rule, host, part id, key)."""
        for runs in ingested:
            r = self.railgauge("db", "ingest", "--db", url, runs, "--quiet")
            self.assertEqual(r.returncode, 0, r.stderr)
        from_db, db_tallies = self.fleet_findings("--history", url)
        from_dirs, dir_tallies = self.fleet_findings(judged)
        for found, where in ((from_dirs, "the directories"), (from_db, "the database")):
            violations = {(f[0], f[1], f[3], f[10]) for f in found if not f[5]}
            self.assertEqual(violations & named, named, f"from {where}")
        self.assertEqual(from_db, from_dirs)
        self.assertEqual(db_tallies, dir_tallies)
        return from_db

    def ranks_judged_alike(self, url, name):
        # A GPU of node03 slow on rank 2, not on the rank that started last: every rank of the
        # newest run is judged, as `check DIRS` judges every rank's directory. The older run has
        # as many ranks a node: a run of other ranks is not superseded (--latest-per-host).
        old = self.ranked(f"{name}-old", run_suffix="-old", day="2025-12-01")
        new = self.ranked(f"{name}-ranked", "node03:5")
        self.judged_alike(url, (old, new), new,
                          {("gemm-vs-siblings", "node03", "0000:68:00.0", "gemm.cublaslt")})

    def test_check_history_judges_every_rank_of_the_newest_run(self):
        self.ranks_judged_alike(f"sqlite:{self.tmp / 'ranks.db'}", "ranks-sqlite")

    @unittest.skipUnless(PG_URL, "no PostgreSQL server: run under pg_server.py")
    def test_check_history_judges_every_rank_of_the_newest_run_in_postgresql(self):
        self.ranks_judged_alike(fresh_pg_database("rg_ranks"), "ranks-postgresql")

    def imports(self, name):
        """Six nodes' all_gather_perf logs imported, then their all_reduce_perf logs an hour
        later: two runs of suite import.nccl-tests a node, node02's all-gather slow."""
        out = self.tmp / name
        for tool, redop, hour in (("all_gather", "none", 10), ("all_reduce", "sum", 11)):
            for n in range(1, 7):
                host = f"node{n:02d}"
                scale = 0.7 if (host, tool) == ("node02", "all_gather") else 1 + 0.004 * n
                rows = "".join(
                    f"{size:>12} {size // 4:>13} {'float':>9} {redop:>7} {-1:>7} 20.00 "
                    f"{bw * scale:7.2f} {bw * scale:7.2f} 0 19.00 {bw * scale:7.2f} "
                    f"{bw * scale:7.2f} 0\n" for size, bw in ((1 << 20, 52.0), (1 << 28, 380.0)))
                log = self.tmp / f"{name}-{host}-{tool}_perf.txt"
                log.write_text(
                    f"# Collective test starting: {tool}_perf\n"
                    "# nThread 1 nGpus 1 minBytes 1048576 maxBytes 268435456 step: 256(factor) "
                    "warmup iters: 1 iters: 20 agg iters: 1 validation: 1 graph: 0\n#\n"
                    "# Using devices\n"
                    f"#  Rank  0 Group  0 Pid  41001 on {host:>10} device  0 [0000:19:00] "
                    "NVIDIA H100 80GB HBM3\n#\n" + rows + "# Out of bounds values : 0 OK\n")
                r = self.railgauge("import", "nccl-tests", log, "--out", out / host,
                                   "--host", host)
                self.assertEqual(r.returncode, 0, r.stderr)
            # Dated an hour apart whatever the clock did between the imports.
            for manifest in out.glob("*/*/run.json"):
                m = json.loads(manifest.read_text())
                if m["suite"]["path"].endswith(f"{tool}_perf.txt"):
                    m["start_utc"] = f"2026-11-27T{hour}:00:00.000Z"
                    manifest.write_text(json.dumps(m))
        return out

    def imports_judged_alike(self, url, name):
        # Each node's two imports are both judged, as `check DIRS` judges both: the slow
        # all-gather, imported first, is named.
        runs = self.imports(name)
        self.judged_alike(url, (runs,), runs,
                          {("collectives-vs-fleet", "node02", "", "collectives.nccl_all_gather")})

    def test_check_history_judges_every_import_of_a_node(self):
        self.imports_judged_alike(f"sqlite:{self.tmp / 'imports.db'}", "imports-sqlite")

    @unittest.skipUnless(PG_URL, "no PostgreSQL server: run under pg_server.py")
    def test_check_history_judges_every_import_of_a_node_in_postgresql(self):
        self.imports_judged_alike(fresh_pg_database("rg_imports"), "imports-postgresql")

    def bare_records(self, name):
        """Each node's records twice as bare records.jsonl files without run.json, a day apart
        by their records' times; node02's older file holds a failed record."""
        fleet = self.fleet(f"{name}-fleet")
        out = self.tmp / name
        for node in sorted(fleet.iterdir()):
            records = [json.loads(line) for line in
                       (node / "records.jsonl").read_text().splitlines()]
            for day, run in (("2026-11-01", "older"), ("2026-11-02", "newer")):
                lines = []
                for i, r in enumerate(records):
                    r = {**r, "run": f"{node.name}-{run}", "time_utc": f"{day}T10:00:00.000Z"}
                    if (node.name, run, i) == ("node02", "older", 0):
                        r = {**r, "status": "failed", "reason": "data check: 3 of 4096 wrong"}
                    lines.append(json.dumps(r) + "\n")
                (out / f"{node.name}-{run}").mkdir(parents=True)
                (out / f"{node.name}-{run}" / "records.jsonl").write_text("".join(lines))
        return out

    def bare_records_judged_alike(self, url, name):
        # Neither file can be dated by a run.json, so `check DIRS` judges both, even with
        # --latest-per-host: the database judges both too, and the older file's failed record
        # fails node02 (it once kept only the file whose first record was newest, and passed it).
        runs = self.bare_records(name)
        found = self.judged_alike(url, (runs,), runs, set())
        self.assertIn("node02", {f[1] for f in found if f[0] == "record-status" and not f[5]})

    def test_check_history_judges_every_bare_records_file(self):
        self.bare_records_judged_alike(f"sqlite:{self.tmp / 'bare.db'}", "bare-sqlite")

    @unittest.skipUnless(PG_URL, "no PostgreSQL server: run under pg_server.py")
    def test_check_history_judges_every_bare_records_file_in_postgresql(self):
        self.bare_records_judged_alike(fresh_pg_database("rg_bare"), "bare-postgresql")

    def test_check_history_finds_no_fleet_violation_in_a_healthy_fleet(self):
        url = f"sqlite:{self.tmp / 'healthy-fleet.db'}"
        runs = self.fleet("healthy")
        self.assertEqual(self.railgauge("db", "ingest", "--db", url, runs).returncode, 0)
        from_db, _ = self.fleet_findings("--history", url)
        self.assertEqual(from_db, self.fleet_findings(runs)[0])
        self.assertEqual({f for f in from_db if not f[5]}, set())
        self.assertTrue(from_db, "the rules' missing values are named too")

    def measure(self, out, *db_args, env=None):
        """A short CPU-only run (four host-memory copy points) with `run --db ...`."""
        # noise_bound=0: a loaded machine may leave a point past the default suite's bound.
        return self.railgauge("run", "--out", out, "--filter", "memory.host_copy",
                              "-a", "size_bytes=4KiB,8KiB", "-a", "threads=1,2", "-q",
                              "--measure", "noise_bound=0", *db_args, env=env)

    def stored(self, path, run_dir):
        """The records `run_dir` holds and the records its run has in the SQLite file."""
        lines = (run_dir / "records.jsonl").read_text().splitlines()
        con = sqlite3.connect(path)
        rows = con.execute("SELECT COUNT(*) FROM records r JOIN runs ru ON ru.id = r.run_id "
                           "WHERE ru.dir = ? AND r.per_gpu = 0", (str(run_dir),)).fetchone()
        return len(lines), rows[0]

    def test_run_with_db_stores_the_run_when_it_finishes(self):
        out, path = self.tmp / "run-db", self.tmp / "run-db.db"
        r = self.measure(out, "--db", f"sqlite:{path}")
        self.assertEqual(r.returncode, 0, r.stderr)
        (run_dir,) = out.iterdir()
        self.assertIn("stored in", r.stderr)
        self.assertEqual(self.stored(path, run_dir), (4, 4))
        # --db env: the URL from $RAILGAUGE_DB, in no command line.
        env = dict(os.environ, RAILGAUGE_DB=f"sqlite:{path}")
        r = self.measure(self.tmp / "run-db-env", "--db", "env", env=env)
        self.assertEqual(r.returncode, 0, r.stderr)
        con = sqlite3.connect(path)
        self.assertEqual(con.execute("SELECT COUNT(*) FROM runs").fetchone()[0], 2)

    @unittest.skipUnless(PG_URL, "no PostgreSQL server: run under pg_server.py")
    def test_run_with_db_stores_the_run_in_postgresql(self):
        url = fresh_pg_database("run_db")
        r = self.measure(self.tmp / "run-pg", "--db", url)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(pg_count(url, "SELECT COUNT(*) FROM runs"), 1)
        self.assertEqual(pg_count(url, "SELECT COUNT(*) FROM records WHERE per_gpu = 0"), 4)

    def test_run_with_an_unreachable_db_exits_4_and_keeps_every_record(self):
        out, nowhere = self.tmp / "run-nodb", self.tmp / "no-server-run"
        nowhere.mkdir(exist_ok=True)
        r = self.measure(out, "--db", f"postgresql:///postgres?host={nowhere}&user=postgres",
                         "--db-timeout-s", "2")
        self.assertEqual(r.returncode, 4, r.stdout + r.stderr)
        self.assertIn("cannot reach the PostgreSQL server", r.stderr)
        self.assertIn("holds every record", r.stderr)
        (run_dir,) = out.iterdir()
        self.assertEqual(json.loads((run_dir / "run.json").read_text())["status"], "complete")
        self.assertIn(f"railgauge db ingest --db 'postgresql:///postgres?host={nowhere}",
                      r.stderr)
        # Stored later, the run is whole.
        path = self.tmp / "later.db"
        self.assertEqual(self.railgauge("db", "ingest", "--db", f"sqlite:{path}",
                                        run_dir).returncode, 0)
        self.assertEqual(self.stored(path, run_dir), (4, 4))

    def test_run_refuses_a_db_url_it_could_never_use_before_measuring(self):
        for url, words in [("postgresql://u:secret@db01/fleet", "holds a password"),
                           ("mysql://db01/fleet", "unknown database URL"),
                           ("env", "RAILGAUGE_DB is not set")]:
            out = self.tmp / "run-refused"
            env = {k: v for k, v in os.environ.items() if k != "RAILGAUGE_DB"}
            r = self.measure(out, "--db", url, env=env)
            self.assertEqual(r.returncode, 4, r.stdout + r.stderr)
            self.assertIn(words, r.stderr)
            self.assertFalse(out.exists(), "nothing may be measured with a --db refused")


if __name__ == "__main__":
    run_named_tests(sys.argv[1:])
