#!/usr/bin/env python3
"""The verdict corpus: real published peer-tool output (tests/fixtures/verdicts/real, cited in
its README.md) imported and judged by the shipped profiles, each with the verdict it must get
and the rule and part that must be named.

  verdict_corpus_test.py RAILGAUGE [unittest args]

Every case imports its file(s) with `railgauge import`, runs `railgauge check --format json`
against results/rules/<profile>.yaml, and asserts the exit status, the verdict and, for a
problem, a finding of the named rule on the named host with the measured figure. The table is
printed in docs/check.md ("The verdict corpus").
"""
import json
import pathlib
import re
import subprocess
import sys
import tempfile
import unittest

ROOT = pathlib.Path(__file__).resolve().parents[3]
REAL = ROOT / "tests" / "fixtures" / "verdicts" / "real"
sys.path.insert(0, str(ROOT / "tests" / "support"))
from nccl_tests_text import with_averages  # noqa: E402
KILLED = ROOT / "tests" / "fixtures" / "verdicts" / "killed"
RULES = ROOT / "results" / "rules"
RAILGAUGE = None

EXIT = {"pass": 0, "warn": 1, "fail": 2}

# ib_read_bw of one NIC (mlx5_2) with GPU 0 and GPU 2, and every GPU x NIC pair of that node
# (moc_read_pairs/README.md).
READ_NEAR_AND_FAR = ["moc_oc_h100_roce_ib_read_bw_8qp_mlx5_2_gpu0_client_healthy.log",
                     "moc_oc_h100_roce_ib_read_bw_8qp_mlx5_2_gpu2_client_slow.log"]
READ_PAIRS = [f"moc_read_pairs/ib_read_bw_client_mlx5_{nic}_{gpu}.log"
              for nic in range(2, 6) for gpu in range(4)]

# (name, tool, files, profile, verdict, [(rule, host substring, value check[, parts])])
# value check: ("<", x) the finding's value is below x; (">", x) above. parts: the labels of
# exactly the parts the rule names (gpu2, ...), where a rule names GPUs.
CASES = [
    # ---- healthy: must pass
    ("h100x8_1node_cnode3-002", "nccl-tests", ["xxrjun_h100x8_1node_cnode3-002_5coll.log"],
     "h100-sxm-ib", "pass", []),
    ("h100x8_1node_cnode3-007", "nccl-tests", ["xxrjun_h100x8_1node_cnode3-007_5coll_healthy.log"],
     "h100-sxm-ib", "pass", []),
    ("h100x8_1node_cnode2-001", "nccl-tests",
     ["xxrjun_cluster00_h100x8_1node_cnode2-001_5coll_healthy.log"], "h100-sxm-roce", "pass", []),
    ("h100_10node_80rank", "nccl-tests", ["xxrjun_cluster01_h100_10node_8gpu_5coll_healthy.log"],
     "h100-sxm-ib", "pass", []),
    ("h100_2node_pair_400g", "nccl-tests",
     ["xxrjun_cluster01_h100_2node_8gpu_alltoall_sendrecv_healthy.log"], "h100-sxm-ib", "pass", []),
    ("h100_2node_pair_unknown_fabric", "nccl-tests",
     ["xxrjun_cluster00_h100_2node_8gpu_alltoall_sendrecv_healthy.log"], "any-fabric", "pass", []),
    ("p5_2node_efa", "nccl-tests", ["keitaw_aws_p5_h100_2node_efa_all_reduce_tagged.log"],
     "h100-sxm-ib", "pass", []),
    ("a3mega_2node_tcpxo", "nccl-tests", ["gcp_a3mega_h100_2node_tcpxo_all_reduce_EXTRACT.txt"],
     "h100-sxm-roce", "pass", []),
    # The H200s judged by an H100 profile: its lower floors pass them, so never a quiet PASS.
    ("h200_2node_roce_baremetal", "nccl-tests",
     ["issue256_h200_2node_roce_baremetal_all_reduce_EXTRACT.txt"], "h100-sxm-roce", "warn",
     [("profile-gpu", "fs-207", None)]),
    ("h200_2node_roce_baremetal_h200_profile", "nccl-tests",
     ["issue256_h200_2node_roce_baremetal_all_reduce_EXTRACT.txt"], "h200-sxm-roce", "pass", []),
    ("a100_2node_hdr_gdr_on", "nccl-tests",
     ["thomaslie_a100pcie_2node_hdr_ib_all_reduce_gdr_on.txt"], "any-fabric", "pass", []),
    ("read_lat_gpumem", "perftest", ["moc_oc_h100_roce_ib_read_lat_gpumem_client_healthy.log"],
     "h100-sxm-roce", "pass", []),
    # ---- problems: must fail or warn, naming the rule, the part and the figure
    ("h200_2node_roce_vm_slow", "nccl-tests",
     ["issue256_h200_2node_roce_vm_all_reduce_slow_EXTRACT.txt"], "h100-sxm-roce", "fail",
     [("multinode-allreduce-floor", "207-vm+208-vm", ("<", 60)), ("profile-gpu", "207-vm", None)]),
    *[(f"h200_2node_roce_vm_slow_{profile.replace('-', '_')}", "nccl-tests",
       ["issue256_h200_2node_roce_vm_all_reduce_slow_EXTRACT.txt"], profile, "fail",
       [("multinode-allreduce-floor", "207-vm+208-vm", ("<", 60))])
      for profile in ("h200-sxm-roce", "h200-sxm-ib")],
    # A node-local profile has no rule for a two-node collective: it read nothing of the log,
    # and says so (it passed, slow or not, before nothing-judged).
    *[(f"h200_2node_roce_{log}_node_local_{profile.replace('-', '_')}", "nccl-tests",
       [f"issue256_h200_2node_roce_{log}_all_reduce{suffix}_EXTRACT.txt"], profile, "warn",
       [("nothing-judged", host, None)]
       + ([("profile-gpu", host.split("+")[0], None)] if profile == "h100-sxm" else []))
      for log, suffix, host in (("vm", "_slow", "207-vm+208-vm"), ("baremetal", "", "fs-207"))
      for profile in ("h200-sxm", "h100-sxm")],
    ("h100_2node_roce_gdr_off_allreduce", "nccl-tests",
     ["moc_h100_2node_1gpu_roce_all_reduce_gdr0_15GBps.log"], "h100-sxm-roce", "fail",
     [("multinode-busbw-vs-line-rate", "+", ("<", 16))]),
    ("h100_2node_roce_gdr_off_sendrecv", "nccl-tests",
     ["moc_h100_2node_1gpu_roce_sendrecv_gdr0_14GBps.log"], "h100-sxm-roce", "fail",
     [("multinode-sendrecv-vs-line-rate", "+", ("<", 15))]),
    ("h100_2node_4gpu_roce_sendrecv_slow", "nccl-tests",
     ["moc_h100_2node_4gpu_roce_sendrecv_slow.log"], "h100-sxm-roce", "fail",
     [("multinode-sendrecv-vs-line-rate", "+", ("<", 6))]),
    ("a100_2node_hdr_gdr_off", "nccl-tests",
     ["thomaslie_a100pcie_2node_hdr_ib_all_reduce_gdr_off_slow.txt"], "any-fabric", "fail",
     [("busbw-falls-with-size", "n013+n014", ("<", 0.6))]),
    ("h100_pair_alltoall_abort_sendrecv_falls", "nccl-tests",
     ["xxrjun_h100_2node_4gpu_alltoall_abort_sendrecv_degrading.log"], "any-fabric", "fail",
     [("busbw-falls-with-size", "cnode2-001+cnode2-003", ("<", 0.2)),
      ("record-status", "cnode2-001+cnode2-003", None)]),
    ("h100_pair_alltoall_collapse", "nccl-tests",
     ["xxrjun_cluster00_h100_2node_8gpu_alltoall_erratic_collapse.log"], "any-fabric", "fail",
     [("busbw-falls-with-size", "cnode2-004+cnode2-011", ("<", 0.3))]),
    ("gh200_slingshot_wrong_data", "nccl-tests",
     ["issue369_gh200_2node_slingshot_all_reduce_wrong_EXTRACT.txt"], "any-fabric", "fail",
     [("record-status", "gpu-1-1+gpu-1-7", None)]),
    ("h100x8_cuda_init_abort", "nccl-tests",
     ["issue264_h100x8_all_reduce_cuda_init_abort_EXTRACT.txt"], "h100-sxm-ib", "fail",
     [("record-status", "test", None)]), # the host nccl-tests' failure lines name
    ("ib_write_bw_gpumem_half_line_rate", "perftest",
     ["moc_bm_h100_roce_cx7_ib_write_bw_gpumem_2qp_gpu0-gpu0_client.log"], "h100-sxm-roce",
     "fail", [("rdma-write-bw-floor", "gpu0-gpu0", ("<", 210))]),
    ("ib_write_bw_gpu_far_from_nic", "perftest",
     ["moc_bm_h100_roce_cx7_ib_write_bw_gpumem_2qp_gpu2-gpu0_client_slow.log"], "h100-sxm-roce",
     "fail", [("rdma-write-bw-floor", "gpu2-gpu0", ("<", 90))]),
    # A client that never met its server: the link did not come up, a failed point drained.
    ("ib_write_bw_never_connected", "perftest",
     ["moc_bm_h100_roce_cx7_ib_write_bw_gpumem_16qp_client_cm_error.log"], "h100-sxm-roce",
     "fail", [("record-status", "unknown-moc_bm_h100", None)]),
    # One NIC read with a GPU near it (226 Gb/s) and one far from it (105): the far pair is
    # named, by its GPU, at warn (a pairing across the CPUs' link, which a log cannot tell
    # from a degraded path); the near one passes.
    ("read_bw_near_and_far_gpu_one_nic", "perftest", READ_NEAR_AND_FAR, "h100-sxm-roce", "warn",
     [("rdma-gpu-pair-vs-nic-best", "gpu2_client_slow", ("<", 110))]),
    # Every GPU x NIC pair of one node: the 8 far pairs, two on each NIC, and no near one.
    ("read_bw_16_gpu_nic_pairs", "perftest", READ_PAIRS, "h100-sxm-roce", "warn",
     [("rdma-gpu-pair-vs-nic-best", "ib_read_bw_client", ("<", 112),
       {"mlx5_2", "mlx5_3", "mlx5_4", "mlx5_5"})]),
    # A RoCE port's log ("Link type : Ethernet") judged by the InfiniBand profile: its link layer
    # is named (before, the profile said the log does not hold one), beside the write floor.
    ("roce_write_bw_under_the_ib_profile", "perftest",
     ["moc_bm_roce_cx7_ib_write_bw_hostmem_16qp_client.log"], "h100-sxm-ib", "fail",
     [("rdma-log-link-layer", "hostmem_16qp_client", None, {"mlx5_2"}),
      ("rdma-write-bw-floor", "hostmem_16qp_client", ("<", 240))]),
    ("read_lat_tail", "perftest", ["moc_oc_roce_ib_read_lat_hostmem_client_latency_tail.log"],
     "h100-sxm-roce", "warn", [("rdma-latency-tail", "latency_tail", (">", 50))]),
    # any-fabric judges a copy against its siblings only: one GPU's nvbandwidth (H2D at PCIe
    # Gen3 speed, which h100-sxm-ib fails below) is read by no rule, and said so.
    ("nvbandwidth_1gpu_unknown", "nvbandwidth",
     ["dcgm_testinput_nvbandwidth_v0.5_json_1gpu_EXTRACT.json"], "any-fabric", "warn",
     [("nothing-judged", "", None)]),
    ("nvbandwidth_1gpu_gen3_h2d", "nvbandwidth",
     ["dcgm_testinput_nvbandwidth_v0.5_json_1gpu_EXTRACT.json"], "h100-sxm-ib", "fail",
     [("nvbandwidth-h2d-floor", "", ("<", 13))]),
    # 8xH800: while all GPUs copy at once, some get far less than their siblings (GPU 2 20.38
    # GB/s against its siblings' median 32.49 in all_to_host_bidirectional_memcpy_sm); before
    # the within-node rules grouped by GPU, every cell was a "fleet of 1 value" and this passed.
    *[(f"nvbandwidth_h800x8_siblings_{profile.replace('-', '_')}", "nvbandwidth",
       ["llmaction_h800x8_nvbandwidth_v0.2_all_testcases_EXTRACT.txt"], profile, "fail",
       [("copy-vs-siblings", "unknown-llmaction", ("<", 25), {"gpu1", "gpu2", "gpu6", "gpu7"}),
        ("peer-copy-vs-siblings", "unknown-llmaction", ("<", 140), {"gpu1", "gpu4", "gpu5"})])
      for profile in ("any-fabric", "h100-sxm-ib")],
    # ---- --rules auto: the profile from what the log says (the GPU its ranks name, the network
    # its NCCL_DEBUG lines or perftest's link layer name), as a user runs it without guessing.
    ("auto_h200_2node_roce_vm_slow", "nccl-tests",
     ["issue256_h200_2node_roce_vm_all_reduce_slow_EXTRACT.txt"], "auto", "fail",
     [("multinode-allreduce-floor", "207-vm+208-vm", ("<", 60))]),
    ("auto_h200_2node_roce_baremetal", "nccl-tests",
     ["issue256_h200_2node_roce_baremetal_all_reduce_EXTRACT.txt"], "auto", "pass", []),
    ("auto_h100x8_1node_cnode3-002", "nccl-tests", ["xxrjun_h100x8_1node_cnode3-002_5coll.log"],
     "auto", "pass", []),
    ("auto_h100_2node_4gpu_roce_sendrecv_slow", "nccl-tests",
     ["moc_h100_2node_4gpu_roce_sendrecv_slow.log"], "auto", "fail",
     [("multinode-sendrecv-vs-line-rate", "+", ("<", 6))]),
    ("auto_p5_2node_efa", "nccl-tests", ["keitaw_aws_p5_h100_2node_efa_all_reduce_tagged.log"],
     "auto", "pass", []),
    # A client that never connected names no GPU; its failed record needs no floor: FAIL, drained.
    ("auto_ib_write_bw_never_connected", "perftest",
     ["moc_bm_h100_roce_cx7_ib_write_bw_gpumem_16qp_client_cm_error.log"], "auto", "fail",
     [("record-status", "unknown-moc_bm_h100", None)]),
    ("auto_ib_write_bw_gpu_far_from_nic", "perftest",
     ["moc_bm_h100_roce_cx7_ib_write_bw_gpumem_2qp_gpu2-gpu0_client_slow.log"], "auto",
     "fail", [("rdma-write-bw-floor", "gpu2-gpu0", ("<", 90))]),
    ("auto_read_bw_near_and_far_gpu_one_nic", "perftest", READ_NEAR_AND_FAR, "auto", "warn",
     [("rdma-gpu-pair-vs-nic-best", "gpu2_client_slow", ("<", 110))]),
]

# What --rules auto must choose for each auto case, and a word of its reason.
AUTO_CHOICE = {
    "auto_h200_2node_roce_vm_slow": ("h200-sxm-roce", "does not name its network"),
    "auto_h200_2node_roce_baremetal": ("h200-sxm-roce", "does not name its network"),
    "auto_h100x8_1node_cnode3-002": ("h100-sxm", "8 GPUs per node"),
    "auto_h100_2node_4gpu_roce_sendrecv_slow": ("h100-sxm-roce", "network RoCE as the log says"),
    "auto_ib_write_bw_gpu_far_from_nic": ("h100-sxm-roce", "network RoCE as the log says"),
    "auto_p5_2node_efa": ("any-fabric", "network libfabric (EFA, Slingshot)"),
    "auto_ib_write_bw_never_connected": ("any-fabric", "shows a failed or broken record"),
    "auto_read_bw_near_and_far_gpu_one_nic": ("h100-sxm-roce", "network RoCE as the log says"),
}


def railgauge(*args):
    return subprocess.run([RAILGAUGE, *map(str, args)], capture_output=True, text=True,
                          timeout=300)


def scaled_rows(text, factor):
    """An nccl-tests log with each result row's algbw and busbw (both halves) times factor."""
    return with_averages("\n".join(" ".join(c if i not in (6, 7, 10, 11) else f"{float(c) * factor:.2f}"
                               for i, c in enumerate(line.split()))
                      if line.split() and line.split()[0].isdigit() else line
                      for line in text.splitlines()) + "\n")


def judge(tool, files, profile, out):
    for f in files:
        r = railgauge("import", tool, REAL / f, "--out", out)
        assert r.returncode in (0, 1), f"import {f}: exit {r.returncode}\n{r.stderr}"
    rules = "auto" if profile == "auto" else RULES / f"{profile}.yaml"
    r = railgauge("check", "--rules", rules, out, "--format", "json")
    return r, json.loads(r.stdout) if r.stdout.startswith("{") else None


def judge_stored(profile, out):
    """The same imports stored in a fleet history (SQLite) and judged from it alone."""
    db = f"sqlite:{pathlib.Path(out) / 'fleet.db'}"
    r = railgauge("db", "ingest", "--db", db, out, "--quiet")
    assert r.returncode == 0, f"db ingest: exit {r.returncode}\n{r.stderr}"
    r = railgauge("check", "--rules", RULES / f"{profile}.yaml", "--history", db,
                  "--format", "json")
    return r, json.loads(r.stdout) if r.stdout.startswith("{") else None


def comparable(result):
    """Every finding of the profile's rules and the built-in ones (the history's own rules
    aside), as comparable tuples."""
    history = {"history-drift", "history-step", "history-replaced", "history-repeat-offender"}
    return sorted((p["host"], p["kind"], p["id"], f["rule"], f["level"], f["missing"], f["what"],
                   json.dumps(f["value"]), f["bound"], f["key"],
                   json.dumps(f["params"], sort_keys=True), f["detail"])
                  for p in result["parts"] for f in p["findings"] if f["rule"] not in history)


class CorpusTest(unittest.TestCase):
    def test_auto_asks_for_a_profile_when_an_import_names_no_gpu(self):
        # A host-memory perftest log names no GPU and an import carries no inventory: auto has
        # nothing to tell the node by, so it says so of the log and asks for a profile by name,
        # rather than a message about inventories the import never had.
        with tempfile.TemporaryDirectory() as out:
            r, result = judge("perftest", ["moc_bm_roce_cx7_ib_write_bw_hostmem_16qp_client.log"],
                              "auto", out)
            self.assertIsNone(result, r.stdout)
            self.assertEqual(r.returncode, 4, r.stderr)
            self.assertIn("names no GPU (perftest prints its GPU only with --use_cuda", r.stderr)
            self.assertIn("h100-sxm-roce", r.stderr)
            self.assertNotIn("inventory shows a GPU", r.stderr)

    def test_a_log_that_stops_below_a_floors_sizes_lacks_the_figure(self):
        # The healthy 8-GPU all_reduce of cnode3-002, as nccl-tests -e 512M would have printed it
        # (rows up to 512 MiB) with busbw a third of what it measured: the 1 GiB floor cannot
        # read it. The import holds all_reduce figures, so that is a missing value at the
        # floor's level, from the files and from the fleet history alike; it once read as
        # "another tool's figures" (not covered) and the node passed.
        lines = (REAL / "xxrjun_h100x8_1node_cnode3-002_5coll.log").read_text().splitlines()
        out_lines = []
        for line in lines[:lines.index("# Out of bounds values : 0 OK")]:
            cells = line.split()
            if cells and cells[0].isdigit():
                if int(cells[0]) > 512 << 20:
                    continue
                for i in (5, 9):
                    cells[i] = f"{float(cells[i]) * 3:.2f}"
                for i in (6, 7, 10, 11):
                    cells[i] = f"{float(cells[i]) / 3:.2f}"
                line = " ".join(cells)
            out_lines.append(line.replace("maxBytes 68719476736", "maxBytes 536870912"))
        out_lines += ["# Out of bounds values : 0 OK", "# Avg bus bandwidth    : 106.1",
                      "#", "# Collective test concluded: all_reduce_perf"]
        with tempfile.TemporaryDirectory() as tmp:
            log = pathlib.Path(tmp) / "cnode3-002_all_reduce_to_512M_third.log"
            log.write_text(with_averages("\n".join(out_lines) + "\n"))
            out = pathlib.Path(tmp) / "runs"
            r, result = judge("nccl-tests", [log], "h100-sxm-ib", out)
            self.assertIsNotNone(result, r.stderr)
            self.assertEqual((result["verdict"], r.returncode), ("warn", 1), r.stdout)
            missing = {(p["host"], f["rule"]) for p in result["parts"] for f in p["findings"]
                       if f["missing"] and f["level"] != "info"}
            self.assertIn(("cnode3-002", "allreduce-8gpu-floor"), missing)
            detail = [f["detail"] for p in result["parts"] for f in p["findings"]
                      if f["rule"] == "allreduce-8gpu-floor"]
            self.assertIn("holds 'collectives.nccl_all_reduce' at other sizes only", detail[0])
            r_db, stored = judge_stored("h100-sxm-ib", out)
            self.assertEqual(comparable(stored), comparable(result))

    def test_a_log_whose_nccl_fell_back_to_sockets_is_judged_by_the_fabric_floors(self):
        # The MOC 2 x 1 GPU RoCE all_reduce (15 GB/s) with its NET/IB lines as NCCL writes them
        # when it falls back to TCP sockets: --rules auto took any-fabric, which has no floors,
        # and passed what the RoCE log failed.
        text = (REAL / "moc_h100_2node_1gpu_roce_all_reduce_gdr0_15GBps.log").read_text()
        socket = text.replace("NET/IB : Using [0]mlx5_5:1/RoCE [RO]; OOB eno7np0",
                              "NET/Socket : Using [0]eno7np0").replace("via NET/IB/1",
                                                                       "via NET/Socket/1")
        self.assertNotEqual(socket, text)
        self.assertNotIn("NET/IB", socket)
        with tempfile.TemporaryDirectory() as tmp:
            log = pathlib.Path(tmp) / "moc_socket_all_reduce.log"
            log.write_text(socket)
            r, result = judge("nccl-tests", [log], "auto", pathlib.Path(tmp) / "runs")
            self.assertIsNotNone(result, r.stderr)
            self.assertIn("--rules auto: h100-sxm-roce (", r.stderr)
            self.assertIn("TCP sockets", r.stderr)
            self.assertEqual((result["verdict"], r.returncode), ("fail", 2), r.stdout)
            self.assertIn("multinode-busbw-vs-line-rate",
                          {f["rule"] for p in result["parts"] for f in p["findings"]})

    def test_a_nic_pair_at_half_rate_both_ways_fails(self):
        # ib_write_bw -b of a 400G RoCE pair as published (779.21 Gb/s both ways at 8 MiB), and
        # the same at 400.21: a bidirectional record holds no one-way figure, so the pair at half
        # its rate only warned and was never drained.
        published = (ROOT / "tests" / "fixtures" / "rdma" / "perftest" /
                     "ib_write_bw_bidir_ionic_4qp_client_published.txt")
        text = published.read_text()
        slow = text.replace(" 8388608    20000            779.21             779.21",
                            " 8388608    20000            400.21             400.21")
        self.assertNotEqual(slow, text)
        for name, body, verdict in (("published", text, "pass"), ("slow", slow, "fail")):
            with tempfile.TemporaryDirectory() as tmp:
                log = pathlib.Path(tmp) / f"ib_write_bw_bidir_{name}.txt"
                log.write_text(body)
                r, result = judge("perftest", [log], "h100-sxm-roce", pathlib.Path(tmp) / "runs")
                self.assertIsNotNone(result, r.stderr)
                self.assertEqual((result["verdict"], r.returncode), (verdict, EXIT[verdict]),
                                 name + r.stdout)
                failed = {f["rule"] for p in result["parts"] for f in p["findings"]
                          if f["level"] == "fail" and not f["missing"]}
                self.assertEqual(failed, {"rdma-write-bw-bidirectional"} if name == "slow"
                                 else set(), name)

    def test_a_log_its_launcher_killed_mid_row_keeps_its_rows_and_fails(self):
        # The gdr_on all_reduce (any-fabric passes it whole) killed in its 15th row by Open MPI's
        # --timeout and by Slurm's time limit (tests/fixtures/verdicts/killed): each launcher's
        # message is glued to the half row, and Slurm's own notice comes before it (srun holds
        # a line without its newline until the task ends). Both files were refused whole (exit
        # 4), and the node's failed run left the verdict.
        base = "thomaslie_a100pcie_2node_hdr_ib_all_reduce_gdr_on"
        for name, line, notice in (
                ("mpirun_timeout", 143, "The user-provided time limit for job execution has "
                                        "been reached"),
                ("slurm_time_limit", 146, "*** STEP 1.0 ON vm CANCELLED AT 2026-12-01T00:34:41 "
                                          "DUE TO TIME LIMIT ***")):
            with tempfile.TemporaryDirectory() as out:
                r = railgauge("import", "nccl-tests", KILLED / f"{base}_{name}.txt", "--out", out)
                self.assertEqual(r.returncode, 1, name + r.stderr)
                statuses = [json.loads(record)["status"]
                            for f in pathlib.Path(out).rglob("records.jsonl")
                            for record in f.read_text().splitlines()]
                self.assertEqual((statuses.count("ok"), statuses.count("error")), (28, 1), name)
                r = railgauge("check", "--rules", RULES / "any-fabric.yaml", out, "--format",
                              "json")
                result = json.loads(r.stdout)
                self.assertEqual((result["verdict"], r.returncode), ("fail", 2), name + r.stdout)
                cut = [f["detail"] for p in result["parts"] for f in p["findings"]
                       if f["rule"] == "record-status"]
                self.assertEqual(len(cut), 1, cut)
                self.assertIn(f":{line}: the last result row is cut short", cut[0])
                self.assertIn(notice, cut[0])
                self.assertEqual(result["drain"], ["n013", "n014"])

    def test_a_run_killed_mid_row_then_the_next_collective_keeps_both(self):
        # A script running the five collectives one after another, its all_reduce step cut by a
        # per-step time limit at its 6th row (Slurm's message glued to the half row), the other
        # four run after it: the file was refused whole, 95 rows and the failure lost.
        lines = (REAL / "xxrjun_h100x8_1node_cnode3-007_5coll_healthy.log").read_text().splitlines()
        cut = lines.index(next(line for line in lines if line.strip().startswith("1073741824 ")))
        nxt = lines.index("# Collective test starting: all_gather_perf")
        notice = "slurmstepd: error: *** STEP 7.0 ON cnode3-007 CANCELLED AT 2026-12-01T00:34:41 " \
                 "DUE TO TIME LIMIT ***"
        text = "\n".join(lines[:cut] + [lines[cut][:60] + notice] + lines[nxt:]) + "\n"
        with tempfile.TemporaryDirectory() as tmp:
            log = pathlib.Path(tmp) / "five_collectives_all_reduce_cut.log"
            log.write_text(text)
            r, result = judge("nccl-tests", [log], "h100-sxm-ib", pathlib.Path(tmp) / "runs")
            self.assertIsNotNone(result, r.stderr)
            records = [json.loads(line) for f in pathlib.Path(tmp).rglob("records.jsonl")
                       for line in f.read_text().splitlines()]
            keys = {rec["key"] for rec in records if rec["status"] == "ok"}
            self.assertEqual(len(keys), 5, keys)
            errors = [rec for rec in records if rec["status"] == "error"]
            self.assertEqual([rec["key"] for rec in errors], ["collectives.nccl_all_reduce"])
            self.assertIn("the last result row is cut short", errors[0]["reason"])
            self.assertIn("DUE TO TIME LIMIT", errors[0]["reason"])
            self.assertEqual((result["verdict"], r.returncode), ("fail", 2), r.stdout)

    def test_the_hosts_of_an_imported_pair_are_the_jobs_hosts(self):
        # The bare-metal pair's log names fs-207 and fs-208, one part "fs-207+fs-208": with the
        # job's node list given, both were added as nodes that left no run, failed and drained
        # beside the pair's PASS. fs-209, which left nothing, is the one to drain.
        with tempfile.TemporaryDirectory() as out:
            judge("nccl-tests", ["issue256_h200_2node_roce_baremetal_all_reduce_EXTRACT.txt"],
                  "h200-sxm-roce", out)
            drain = pathlib.Path(out) / "drain.txt"
            r = railgauge("check", "--rules", RULES / "h200-sxm-roce.yaml", out, "--expect-hosts",
                          "fs-207,fs-208,fs-209", "--drain", drain, "--format", "json")
            result = json.loads(r.stdout)
            self.assertEqual(drain.read_text(), "fs-209\n", r.stdout)
            self.assertEqual({n["host"]: n["verdict"] for n in result["nodes"]},
                             {"fs-207": "pass", "fs-208": "pass", "fs-209": "fail"})
            self.assertEqual([n.get("groups") for n in result["nodes"]],
                             [["fs-207+fs-208"], ["fs-207+fs-208"], None])
            # The pair named as check prints it is the pair too.
            r = railgauge("check", "--rules", RULES / "h200-sxm-roce.yaml", out, "--expect-hosts",
                          "fs-207+fs-208", "--drain", drain, "--format", "json")
            self.assertEqual((json.loads(r.stdout)["verdict"], r.returncode), ("pass", 0))
            self.assertEqual(drain.read_text(), "")

    def test_a_log_of_two_runs_is_never_read_as_one(self):
        # Two runs appended to one log. The bare-metal pair healthy, then at half speed (a log of
        # no "Collective test starting" line): the second run's ranks were added to the first's,
        # 16 a host, so no 8-GPU floor read its rows and it passed. Two pairs of other nodes:
        # one node of four hosts, the healthy pair drained with the collapsed one.
        bm = (REAL / "issue256_h200_2node_roce_baremetal_all_reduce_EXTRACT.txt").read_text()
        half = scaled_rows(bm, 0.5)
        pairs = ((REAL / "xxrjun_cluster01_h100_2node_8gpu_alltoall_sendrecv_healthy.log")
                 .read_text() +
                 (REAL / "xxrjun_cluster00_h100_2node_8gpu_alltoall_erratic_collapse.log")
                 .read_text())
        for name, text, said in (("rerun", bm + half, "all_reduce float sum at 1073741824 bytes "
                                                      "again"),
                                 ("pairs", pairs, "runs on different nodes (cnode3-002+cnode3-003"
                                                  ", then cnode2-004+cnode2-011)")):
            with tempfile.TemporaryDirectory() as tmp:
                log = pathlib.Path(tmp) / f"{name}.log"
                log.write_text(text)
                r = railgauge("import", "nccl-tests", log, "--out", pathlib.Path(tmp) / "runs")
                self.assertEqual(r.returncode, 4, name + r.stderr)
                self.assertIn(said, r.stderr, name)
                self.assertIn("import each run on its own", r.stderr, name)
                self.assertFalse((pathlib.Path(tmp) / "runs").exists(), name)
        # Runs at the same sizes of another type, or of another collective named by the echoed
        # command before its run, are other points: each section imports.
        other_type = bm + bm.replace(" float ", " double ")
        other_kind = bm + bm.replace("all_reduce_perf", "all_gather_perf")
        for name, text, keys in (("double", other_type, {"collectives.nccl_all_reduce"}),
                                 ("all_gather", other_kind, {"collectives.nccl_all_reduce",
                                                             "collectives.nccl_all_gather"})):
            with tempfile.TemporaryDirectory() as tmp:
                log = pathlib.Path(tmp) / f"{name}.log"
                log.write_text(text)
                r = railgauge("import", "nccl-tests", log, "--out", pathlib.Path(tmp) / "runs")
                self.assertEqual(r.returncode, 0, name + r.stderr)
                records = [json.loads(line) for f in pathlib.Path(tmp).rglob("records.jsonl")
                           for line in f.read_text().splitlines()]
                self.assertEqual(len(records), 12, name)
                self.assertEqual({rec["key"] for rec in records}, keys, name)
                self.assertEqual({rec["params"]["world_size"] for rec in records}, {16}, name)

    def test_a_pair_missing_a_gpu_is_judged_by_the_8_gpu_floor(self):
        # The slow VM pair with rank 15 gone, 8 + 7 ranks: 7.5 a host is no 8, so the 8-GPU floor
        # selected none of its rows and the pair passed at a tenth of the bare metal's rate.
        text = (REAL / "issue256_h200_2node_roce_vm_all_reduce_slow_EXTRACT.txt").read_text()
        lines = [line for line in text.splitlines() if "Rank 15 " not in line]
        self.assertEqual(len(lines), len(text.splitlines()) - 1)
        with tempfile.TemporaryDirectory() as tmp:
            log = pathlib.Path(tmp) / "vm_15_ranks.txt"
            log.write_text("\n".join(lines) + "\n")
            r, result = judge("nccl-tests", [log], "h200-sxm-roce", pathlib.Path(tmp) / "runs")
            self.assertIsNotNone(result, r.stderr)
            self.assertEqual((result["verdict"], r.returncode), ("fail", 2), r.stdout)
            self.assertIn("multinode-allreduce-floor",
                          {f["rule"] for p in result["parts"] for f in p["findings"]
                           if f["level"] == "fail" and not f["missing"]})

    def test_a_perftest_log_of_several_runs_is_refused(self):
        # A loop over NICs and GPUs into one file: every record took the first run's mlx5_2 and
        # GPU 0, and mlx5_3 and mlx5_4 were never named.
        with tempfile.TemporaryDirectory() as tmp:
            log = pathlib.Path(tmp) / "read_loop.log"
            log.write_text("".join((REAL / f"moc_read_pairs/ib_read_bw_client_mlx5_{pair}.log")
                                   .read_text() for pair in ("2_0", "3_2", "4_0")))
            r = railgauge("import", "perftest", log, "--out", pathlib.Path(tmp) / "runs")
            self.assertEqual(r.returncode, 4, r.stderr)
            self.assertIn("starts another perftest run (its title again)", r.stderr)

    def test_an_nccl_tests_run_without_its_data_check_warns(self):
        # nccl-tests -c 0: "validation: 0" and #wrong "N/A". It passed with no word of it,
        # although a wrong result would have passed too. Not a pass; not a drain either.
        text = (REAL / "issue256_h200_2node_roce_baremetal_all_reduce_EXTRACT.txt").read_text()
        off = "\n".join(re.sub(r"(\s)0(\s+\S+\s+\S+\s+\S+\s+)0$", r"\1N/A\2N/A", line)
                        for line in text.replace("validation: 1", "validation: 0").splitlines())
        self.assertEqual(off.count("N/A"), 2 * 3)
        with tempfile.TemporaryDirectory() as tmp:
            log = pathlib.Path(tmp) / "bm_no_check.txt"
            log.write_text(off + "\n")
            r, result = judge("nccl-tests", [log], "h200-sxm-roce", pathlib.Path(tmp) / "runs")
            self.assertIsNotNone(result, r.stderr)
            self.assertEqual((result["verdict"], r.returncode), ("warn", 1), r.stdout)
            checks = [f for p in result["parts"] for f in p["findings"]
                      if f["rule"] == "data-check"]
            self.assertEqual([f["level"] for f in checks], ["warn"], checks)
            self.assertIn("'validation: 0', its -c 0", checks[0]["detail"])
            self.assertEqual(result["drain"], [])

    def test_junit_skips_the_rules_an_import_cannot_hold(self):
        # The bare-metal pair's log holds all_reduce rows only: sgemm-floor, nic-rate and the
        # ECC rules judged nothing, and JUnit showed each as a test that passed.
        import xml.etree.ElementTree as ET
        with tempfile.TemporaryDirectory() as out:
            judge("nccl-tests", ["issue256_h200_2node_roce_baremetal_all_reduce_EXTRACT.txt"],
                  "h200-sxm-roce", out)
            r = railgauge("check", "--rules", RULES / "h200-sxm-roce.yaml", out, "--format",
                          "junit")
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            root = ET.fromstring(r.stdout)
            cases = {c.get("name"): c for c in root.iter("testcase")}
            self.assertIsNotNone(cases["multinode-allreduce-floor"])
            self.assertIsNone(cases["multinode-allreduce-floor"].find("skipped"))
            skipped = {name for name, c in cases.items() if c.find("skipped") is not None}
            self.assertIn("sgemm-floor", skipped)
            self.assertEqual(int(root.get("skipped")), len(skipped))
            self.assertEqual(int(root.get("failures")) + int(root.get("errors")), 0)

    def test_a_pair_30_percent_slow_warns_however_many_are(self):
        # The healthy cluster01 pair with every busbw at 0.7: 32 GB/s sendrecv and 64 alltoall
        # passed the half-line-rate floors, and where most pairs are so the fleet rules moved
        # with them: a fabric slow everywhere passed.
        text = (REAL / "xxrjun_cluster01_h100_2node_8gpu_alltoall_sendrecv_healthy.log").read_text()
        slow = scaled_rows(text, 0.7)
        with tempfile.TemporaryDirectory() as tmp:
            log = pathlib.Path(tmp) / "pair_0.7.log"
            log.write_text(slow)
            r, result = judge("nccl-tests", [log], "h100-sxm-ib", pathlib.Path(tmp) / "runs")
            self.assertIsNotNone(result, r.stderr)
            self.assertEqual((result["verdict"], r.returncode), ("warn", 1), r.stdout)
            warned = {f["rule"]: f["value"] for p in result["parts"] for f in p["findings"]
                      if f["level"] == "warn" and not f["missing"]}
            self.assertEqual(set(warned), {"multinode-sendrecv-8gpu-below-healthy",
                                           "multinode-alltoall-8gpu-below-healthy"}, warned)
            self.assertLess(warned["multinode-sendrecv-8gpu-below-healthy"], 36.7)


def make_case(name, tool, files, profile, verdict, named):
    def test(self):
        with tempfile.TemporaryDirectory() as out:
            r, result = judge(tool, files, profile, out)
            self.assertIsNotNone(result, r.stderr)
            if profile == "auto":
                chosen, why = AUTO_CHOICE[name]
                self.assertEqual(result["rules"]["name"], chosen, r.stderr)
                self.assertIn(f"--rules auto: {chosen} (", r.stderr)
                self.assertIn(why, r.stderr)
            stored_profile = chosen if profile == "auto" else profile
            findings = [dict(f, host=p["host"], label=p["label"]) for p in result["parts"]
                        for f in p["findings"]
                        if not f["missing"] or f["rule"] in ("nothing-judged", "profile-gpu")]
            summary = "\n".join(f"{f['level']} {f['host']} {f['rule']}: {f['text']}"
                                for f in findings)
            self.assertEqual(result["verdict"], verdict, f"{name}:\n{summary}")
            self.assertEqual(r.returncode, EXIT[verdict])
            # An import is judged on its own evidence: never MISSING at warn or fail for what it
            # cannot hold (info, such as a fleet of one, is listed and changes nothing). What
            # it holds and the profile cannot judge (nothing-judged) is named by the case.
            expected_missing = {rule for rule, *_ in named
                                if rule in ("nothing-judged", "profile-gpu")}
            self.assertEqual([f["text"] for p in result["parts"] for f in p["findings"]
                              if f["missing"] and f["level"] != "info"
                              and f["rule"] not in expected_missing], [])
            self.assertNotIn("", result["drain"])
            # Nodes, not parts: a pair's log ("a+b") counts both its nodes, failed as drained.
            machines = {h for p in result["parts"] for h in p["host"].split("+")}
            self.assertEqual(sorted(machines), sorted(n["host"] for n in result["nodes"]), name)
            self.assertEqual(result["summary"]["nodes"], len(machines), name)
            self.assertEqual(result["summary"]["nodes_fail"], len(result["drain"]), name)
            for rule, host, check, *parts in named:
                hits = [f for f in findings if f["rule"] == rule and host in f["host"]]
                self.assertTrue(hits, f"{name}: no {rule} on a host with '{host}':\n{summary}")
                if check:
                    op, bound = check
                    values = [f["value"] for f in hits if isinstance(f["value"], (int, float))]
                    self.assertTrue(values, hits)
                    self.assertTrue(all(v < bound if op == "<" else v > bound for v in values),
                                    f"{rule} values {values} not {op} {bound}")
                if parts:
                    self.assertEqual({f["label"] for f in hits}, parts[0], summary)
            # The fleet history judges the stored runs as the directories are judged: a node
            # stored and judged from the database alone is never a pass the files fail.
            r_db, stored = judge_stored(stored_profile, out)
            self.assertIsNotNone(stored, r_db.stderr)
            self.assertEqual((stored["verdict"], r_db.returncode), (verdict, EXIT[verdict]),
                             f"{name} from the database")
            self.assertEqual(comparable(stored), comparable(result), f"{name} from the database")
            self.assertEqual(stored["drain"], result["drain"])
            self.assertEqual(stored["not_judged"], [], "an import holds no inventory to judge")
    return test


for case in CASES:
    setattr(CorpusTest, f"test_{case[0]}", make_case(*case))


if __name__ == "__main__":
    RAILGAUGE = sys.argv.pop(1)
    unittest.main()
