#!/usr/bin/env python3
"""`railgauge fabric`: show's counts on a real dump as JSON, localise on a pair matrix run
directory, the examples in --help, and bad input named with exit status 4.

  fabric_command_test.py RAILGAUGE TEST
"""
import json
import pathlib
import subprocess
import sys
import tempfile
import time
import unittest

RAILGAUGE = None  # set from argv
FIXTURES = pathlib.Path(__file__).parents[1] / "fixtures" / "rdma" / "topology"
NETQ = FIXTURES / "corpus" / "topograph_netq_topologyGraph_8dgx_2leaf_1spine.json"


def railgauge(*args):
    return subprocess.run([RAILGAUGE, "fabric", *map(str, args)], capture_output=True, text=True,
                          timeout=60)


def matrix_record(bad_label):
    """A finished pair matrix over the NetQ fabric's hosts, every rail-aligned pair at 390
    Gb/s but those of `bad_label` at 200: the figures are made up, the shape is the writer's."""
    topo = json.loads(railgauge("show", NETQ, "--json").stdout)
    assert topo["nodes"] == 8
    hosts = [f"dgx-0{i}" for i in range(1, 9)]
    nics = ["ens1f0np1", "ens1f1np3", "ens4f0np0", "ens4f1np2"]
    endpoints, pairs = [], []
    for h in hosts:
        for n in nics:
            endpoints.append({"endpoint": len(endpoints), "label": f"{h}/{n}"})
    for r in range(4):
        for i in range(8):
            for j in range(i + 1, 8):
                a, b = i * 4 + r, j * 4 + r
                slow = bad_label in (endpoints[a]["label"], endpoints[b]["label"])
                pairs.append({"endpoints": [a, b], "latency_p50_s": 3e-6,
                              "bandwidth_gbits_per_s": 200.0 if slow else 390.0 + (a + b) % 3})
    return {"schema": "railgauge.record/1", "run": "2026-11-28T00-00-00Z-dgx-01", "host": "dgx-01",
            "rank": 0, "key": "rdma.pair_matrix", "params": {}, "device": {},
            "metrics": {"endpoints": endpoints, "pairs": pairs}, "status": "ok", "reason": None,
            "time_utc": "2026-11-28T00:00:01.000Z"}


class FabricCommandTest(unittest.TestCase):
    def test_show_json_gives_the_netq_fabrics_counts(self):
        out = railgauge("show", NETQ, "--json")
        self.assertEqual(out.returncode, 0, out.stderr)
        s = json.loads(out.stdout)
        self.assertEqual((s["nodes"], s["rails"], s["leaf_count"], s["spine_count"]), (8, 4, 2, 1))
        self.assertEqual((s["nic_cables"], s["uplinks"]), (32, 47))

    def test_localise_names_the_slow_nic_of_a_pair_matrix_run(self):
        with tempfile.TemporaryDirectory() as tmp:
            run = pathlib.Path(tmp) / "run"
            run.mkdir()
            (run / "records.jsonl").write_text(json.dumps(matrix_record("dgx-03/ens4f0np0")) + "\n")
            out = railgauge("localise", NETQ, run, "--json")
            self.assertEqual(out.returncode, 1, out.stderr)  # a link named
            verdict = json.loads(out.stdout)
            self.assertEqual(len(verdict["named"]), 1, verdict)
            self.assertTrue(verdict["named"][0]["link"].startswith("dgx-03/ens4f0np0 - "), verdict)
            self.assertEqual(verdict["pairs"], verdict["pairs_placed"])

    def test_plan_cover_since_tops_up_only_the_links_a_ledger_has_not_seen_lately(self):
        slurm = FIXTURES / "slurm" / "topology.conf"  # dev0..dev17 on s0..s2, s3 above
        now = time.time()

        def line(link, kind, age_s):
            return json.dumps({"link": link, "kind": kind, "time_s": now - age_s, "round": 0,
                               "phase": "coverage", "flows": 8, "bad": 0})
        lines = [line(f"dev{n}/link - s{n // 6}[]", "nic_leaf", 60) for n in range(18) if n != 5]
        lines += [line(f"s{s}[] - s3[]", "leaf_spine", 60) for s in range(3)]
        lines.append(line("dev5/link - s0[]", "nic_leaf", 7200))  # exercised, two hours ago
        with tempfile.TemporaryDirectory() as tmp:
            ledger = pathlib.Path(tmp) / "fabric_ledger.jsonl"
            ledger.write_text("\n".join(lines) + "\n")
            out = railgauge("plan", slurm, "--cover-since", "1h", "--ledger", ledger, "--json")
            self.assertEqual(out.returncode, 0, out.stderr)
            plan = json.loads(out.stdout)
            self.assertIn("17 of 18 NIC cables and 3 of 3 uplinks", plan["cover_since"])
            self.assertTrue(plan["rounds"])
            self.assertTrue(all(r["pairs"] == 1 for r in plan["rounds"]), plan["rounds"])
            out = railgauge("plan", slurm, "--cover-since", "3h", "--ledger", ledger, "--json")
            self.assertEqual(json.loads(out.stdout)["rounds"], [], out.stdout)

    def test_plan_cover_since_reads_the_fleet_historys_ledger(self):
        slurm = FIXTURES / "slurm" / "topology.conf"
        now = time.time()
        lines = [json.dumps({"link": f"dev{n}/link - s{n // 6}[]", "kind": "nic_leaf",
                             "time_s": now - 60, "round": 0, "phase": "matrix", "flows": 1,
                             "bad": 0}) for n in range(18) if n != 5]
        with tempfile.TemporaryDirectory() as tmp:
            run = pathlib.Path(tmp) / "run"
            run.mkdir()
            (run / "records.jsonl").write_text(json.dumps(matrix_record("")) + "\n")
            (run / "fabric_ledger.jsonl").write_text("\n".join(lines) + "\n")
            db = f"sqlite:{tmp}/fleet.db"
            ingest = subprocess.run([RAILGAUGE, "db", "ingest", "--db", db, str(run)],
                                    capture_output=True, text=True, timeout=60)
            self.assertEqual(ingest.returncode, 0, ingest.stderr)
            out = railgauge("plan", slurm, "--cover-since", "1h", "--db", db, "--json")
            self.assertEqual(out.returncode, 0, out.stderr)
            self.assertIn("17 of 18 NIC cables and 0 of 3 uplinks",
                          json.loads(out.stdout)["cover_since"])

    def test_every_subcommand_has_examples_in_its_help(self):
        for sub in ("show", "plan", "simulate", "localise"):
            out = railgauge(sub, "--help")
            self.assertEqual(out.returncode, 0, out.stderr)
            self.assertIn(f"railgauge fabric {sub} ", out.stdout)

    def test_plan_of_a_one_node_fabric_is_exit_4_not_an_empty_plan(self):
        out = railgauge("plan", FIXTURES / "corpus" / "treydock_hdr_ports_p_handpicked_test2.out")
        self.assertEqual(out.returncode, 4, out.stdout)
        self.assertIn("no pair to plan", out.stderr)
        self.assertEqual(out.stdout, "")

    def test_a_file_no_reader_takes_is_exit_4_with_where(self):
        with tempfile.NamedTemporaryFile("w", suffix=".txt") as f:
            f.write("hello\n")
            f.flush()
            out = railgauge("show", f.name)
            self.assertEqual(out.returncode, 4)
            self.assertIn(f.name, out.stderr)
            self.assertIn("ibnetdiscover", out.stderr)


if __name__ == "__main__":
    RAILGAUGE = sys.argv[1]
    unittest.main(argv=[sys.argv[0], sys.argv[2]], verbosity=2)
