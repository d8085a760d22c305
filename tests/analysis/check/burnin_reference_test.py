#!/usr/bin/env python3
"""The burn-in profiles on the committed burn-ins of real GPUs (results/reference): one H100 and
one H200, each healthy and beside a process holding half its SMs. What a rack team signs off by:
the healthy GPU clears every figure's floor and its power target; the shared one fails them,
named, and its host copies (which the co-tenant does not touch) still pass.

  burnin_reference_test.py RAILGAUGE [unittest args]

These runs were written before the burn-in kept health counters and process lists for every
phase: what they lack is reported missing, never passed; the figures are judged as they stand.
"""
import json
import pathlib
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import unittest

ROOT = pathlib.Path(__file__).resolve().parents[3]
REFERENCE = ROOT / "results" / "reference"
RAILGAUGE = None
FIGURES = {"burn-gemm-floor", "burn-hbm-floor", "burn-h2d-floor", "burn-d2h-floor",
           "burn-power-target"}


def violated(run, profile):
    with tempfile.TemporaryDirectory() as tmp:
        out = pathlib.Path(tmp) / "verdict.json"
        r = subprocess.run([RAILGAUGE, "check", "--rules", profile, "--json", str(out), str(run)],
                           capture_output=True, text=True, timeout=120)
        assert r.returncode in (0, 1, 2), r.stderr
        verdict = json.loads(out.read_text())
    names = {}
    for part in verdict["parts"]:
        for f in part["findings"]:
            if not f["missing"] and f["rule"] in FIGURES:
                names.setdefault(f["rule"], set()).add(part["label"].split()[0])
    return names, verdict


def healthy_h200_with(tmp, edit):
    """The healthy H200 burn-in copied into `tmp`, its run.json edited by edit(manifest)."""
    run = pathlib.Path(tmp) / "run"
    shutil.copytree(next((REFERENCE / "h200-burnin-2026-11-28" / "burnin" / "healthy").iterdir()),
                    run)
    manifest = json.loads((run / "run.json").read_text())
    edit(manifest)
    (run / "run.json").write_text(json.dumps(manifest))
    return run


def second_gpu(manifest):
    """A second GPU in the run's inventory, a copy of the first at bus 0000:00:07.0."""
    gpus = manifest["inventory"]["nvml"]["gpus"]
    extra = json.loads(json.dumps(gpus[0]))
    extra.update(index=1, pci_bus_id="0000:00:07.0",
                 uuid="GPU-00000000-0000-0000-0000-000000000007")
    gpus.append(extra)


def grew(telemetry, counter, by):
    """A health counter of a telemetry window grown by `by`: its delta and its reading after
    (NVML's replay counter is pcie_replay_count in the snapshots)."""
    telemetry["health_delta"][counter] = by
    reading = "pcie_replay_count" if counter == "pcie_replays" else counter
    telemetry["after"][reading] = telemetry["before"][reading] + by


def logged_xid(telemetry, xid, text):
    """An Xid logged during a telemetry window: in its delta and in the kernel log after it."""
    log = telemetry["after"]["kernel_log"]
    log["last_seq"] += 1
    event = {"seq": log["last_seq"], "xid": xid, "text": text}
    log["xids"] = log["xids"] + [event]
    telemetry["health_delta"].update(xid_events=1, xids=[event])


def rewrite_records(run, edit):
    """Each record of `run` through edit(record), which changes it in place."""
    lines = []
    for line in (run / "records.jsonl").read_text().splitlines():
        r = json.loads(line)
        edit(r)
        lines.append(json.dumps(r) + "\n")
    (run / "records.jsonl").write_text("".join(lines))


def dated_copy(src, dst, day):
    """The run `src` copied to `dst` as its own run of 2026-11-<day> 10:00 (run id, start and
    record times)."""
    shutil.copytree(src, dst)
    run_id = f"2026-11-{day:02d}T10-00-00Z-vm-{day}"
    manifest = json.loads((dst / "run.json").read_text())
    manifest.update(run=run_id, start_utc=f"2026-11-{day:02d}T10:00:00.000Z")
    manifest.pop("end_utc", None)
    (dst / "run.json").write_text(json.dumps(manifest))

    def renamed(r):
        r["run"] = run_id
        r["time_utc"] = f"2026-11-{day:02d}T10:00:01.000Z"
    rewrite_records(dst, renamed)
    return dst


def checked_healthy_h200_with(edit, rules):
    """`check --rules RULES` of the healthy H200 burn-in, its run.json edited by edit(manifest)."""
    with tempfile.TemporaryDirectory() as tmp:
        return subprocess.run([RAILGAUGE, "check", "--rules", rules,
                               str(healthy_h200_with(tmp, edit))],
                              capture_output=True, text=True, timeout=120)


def checked_over_dirs_and_history(tmp, run):
    """The 1-GPU H200 profile's verdict of `run`, over its directory and over a fleet history it
    was ingested into: (source, completed process, parts by kind) for each."""
    db = f"sqlite:{pathlib.Path(tmp) / 'history.db'}"
    ingest = subprocess.run([RAILGAUGE, "db", "ingest", "--db", db, "--quiet", str(run)],
                            timeout=120)
    assert ingest.returncode == 0, "ingest failed"
    for source in ([str(run)], ["--history", db]):
        out = pathlib.Path(tmp) / "verdict.json"
        r = subprocess.run([RAILGAUGE, "check", "--rules", "h200-sxm-1gpu", "--json", str(out),
                            *source], capture_output=True, text=True, timeout=120)
        parts = {p["kind"]: p for p in json.loads(out.read_text())["parts"]}
        yield source[0], r, parts


class BurninReferenceTest(unittest.TestCase):
    def assert_failed_saying(self, tmp, run, kind, rule, words):
        """`run` fails over its directory and the history, a finding of `rule` on its part of
        `kind` saying `words`."""
        for source, r, parts in checked_over_dirs_and_history(tmp, run):
            self.assertEqual(r.returncode, 2, source + r.stdout + r.stderr)
            details = [f["detail"] for f in parts[kind]["findings"] if f["rule"] == rule]
            self.assertTrue(any(words in d for d in details), (source, details))

    def check_pair(self, folder, profile):
        burnin = REFERENCE / folder / "burnin"
        healthy, _ = violated(burnin / "healthy", profile)
        self.assertEqual(healthy, {}, "a healthy GPU clears its floors and power target")
        shared, verdict = violated(burnin / "cotenant", profile)
        self.assertEqual(shared, {"burn-gemm-floor": {"gpu0"}, "burn-hbm-floor": {"gpu0"},
                                  "burn-power-target": {"gpu0"}})
        self.assertEqual(verdict["verdict"], "fail")
        self.assertEqual(len(verdict["drain"]), 1)

    def test_the_shared_gpus_node_row_names_its_cause_in_one_look(self):
        # The node fails because its GPU does: the row says so, not a rule that cannot apply to
        # one GPU (burn-allreduce-floor was once the node's only named cause); those rules are one
        # counted line, and no line runs past 120 columns.
        run = REFERENCE / "h200-burnin-2026-11-27" / "burnin" / "cotenant"
        r = subprocess.run([RAILGAUGE, "check", "--rules", "h200-sxm-1gpu", str(run)],
                           capture_output=True, text=True, timeout=120)
        self.assertEqual(r.returncode, 2, r.stderr)
        lines = r.stdout.splitlines()
        node = [line for line in lines if line.split()[1:2] == ["node"]]
        self.assertEqual(len(node), 1, r.stdout)
        self.assertIn("FAIL     gpu0: burn-gemm-floor, burn-hbm-floor", node[0])
        self.assertNotIn("allreduce", node[0])
        self.assertNotIn("siblings", r.stdout.split("host  part")[1].split("Findings by rule")[0])
        folded = r.stdout.split("Cannot apply here")[1].split("\n\n")[0]
        self.assertIn("burn-allreduce-floor", folded)
        self.assertIn("burn-gemm-vs-siblings", folded)
        self.assertEqual([line for line in lines if len(line) > 120], [])

    def test_the_test_by_gpu_grid_heads_the_verdict_with_each_rules_cell(self):
        # As `dcgmi diag` prints its tests: the shared GPU's column reads FAIL where its figures
        # fall, PASS for the host copies the co-tenant does not touch, n/a for the siblings a lone
        # GPU does not have, and MISS for the health this older run did not record per phase.
        grids = {}
        for run in ("healthy", "cotenant"):
            r = subprocess.run([RAILGAUGE, "check", "--rules", "h200-sxm-1gpu",
                                str(REFERENCE / "h200-burnin-2026-11-27" / "burnin" / run)],
                               capture_output=True, text=True, timeout=120)
            self.assertIn(r.returncode, (1, 2), r.stderr)
            head = r.stdout.split("host  part")[0]
            self.assertIn("Test x part on vm (node and GPUs)", head)
            grids[run] = {}
            for line in head.splitlines():
                words = line.split()
                if len(words) == 3 and line.startswith("  "):
                    grids[run][words[0]] = (words[1], words[2])  # (node, gpu0)
        cell = {run: {rule: cells[1] for rule, cells in g.items()} for run, g in grids.items()}
        for rule in ("burn-gemm-floor", "burn-hbm-floor", "burn-power-target"):
            self.assertEqual(cell["healthy"][rule], "PASS", rule)
            self.assertEqual(cell["cotenant"][rule], "FAIL", rule)
        for rule in ("burn-h2d-floor", "burn-d2h-floor", "pcie-width"):
            self.assertEqual(cell["cotenant"][rule], "PASS", rule)
        self.assertEqual(cell["cotenant"]["burn-gemm-vs-siblings"], "n/a")
        self.assertEqual(cell["cotenant"]["load-xid"], "MISS")
        self.assertEqual(grids["cotenant"]["gpu-count"][0], "PASS")

    def test_h100_healthy_passes_its_floors_and_the_shared_gpu_fails_them(self):
        self.check_pair("h100-burnin-2026-11-26", "h100-sxm-1gpu")

    def test_h200_healthy_passes_its_floors_and_the_shared_gpu_fails_them(self):
        self.check_pair("h200-burnin-2026-11-27", "h200-sxm-1gpu")

    def test_every_phase_judged_healthy_passes_and_both_cotenants_fail_naming_the_process(self):
        # The H200 run of 2026-11-28, with every phase's health and process list: under auto
        # the healthy GPU passes every rule that applies to one GPU, none read as missing; each
        # co-tenant run (cotenant_spin holding 50 or 15 % of the SMs) fails on the GEMM burns of
        # all three dtypes, the HBM copy, the power target and the foreign process, which the
        # finding names, and drains the node.
        burnin = REFERENCE / "h200-burnin-2026-11-28" / "burnin"
        with tempfile.TemporaryDirectory() as tmp:
            out = pathlib.Path(tmp) / "healthy.json"
            r = subprocess.run([RAILGAUGE, "check", "--rules", "auto", "--json", str(out),
                                str(burnin / "healthy")], capture_output=True, text=True,
                               timeout=120)
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            verdict = json.loads(out.read_text())
        self.assertEqual(verdict["verdict"], "pass")
        # What cannot apply to one GPU (siblings, NVLink, the 8-GPU all_reduce) is info; nothing
        # the profile judges is missing.
        self.assertEqual([f["rule"] for p in verdict["parts"] for f in p["findings"]
                          if f["missing"] and f["level"] != "info"], [])
        self.assertEqual(verdict["summary"]["violations"], 0, verdict["summary"])
        for share in ("50", "15"):
            with self.subTest(share=share):
                run = burnin / f"cotenant-{share}"
                named, verdict = violated(run, "h200-sxm-1gpu")
                self.assertEqual(named, {"burn-gemm-floor": {"gpu0"}, "burn-hbm-floor": {"gpu0"},
                                         "burn-power-target": {"gpu0"}})
                level = {f["rule"]: f["level"] for p in verdict["parts"] for f in p["findings"]
                         if not f["missing"]}
                self.assertEqual(level["load-foreign-process"], "fail")
                # One healthy GPU measured the FP64 and TF32 floors: they warn.
                self.assertEqual(level["burn-gemm-fp64-floor"], "warn")
                self.assertEqual(level["burn-gemm-tf32-floor"], "warn")
                self.assertEqual(len(verdict["drain"]), 1)
                r = subprocess.run([RAILGAUGE, "check", "--rules", "h200-sxm-1gpu", str(run)],
                                   capture_output=True, text=True, timeout=120)
                self.assertEqual(r.returncode, 2)
                self.assertRegex(r.stdout, r"foreign_processes.count = 1, needs <= 0; "
                                           r"cotenant_spin \(pid \d+\)")
                # One line for the process, then the phases it was seen in, not seven lines.
                self.assertIn("    the same in 6 more records: gemm.burn fp64, gemm.burn tf32, "
                              "memory.burn, memory.pattern, offload.all_gpus_d2h nea...",
                              r.stdout)


    def test_the_real_node_without_its_driver_fails_under_auto(self):
        # The healthy H200's own run as a plain run would read on the same VM with the driver
        # gone (NVML unreadable), or with its GPU lost to NVML (listed with a handle error, as
        # NVML lists a GPU fallen off the bus), while the PCI bus still holds the H200 (10de,
        # class 0302): --rules auto must not call that host-only, nor refuse it as input:
        # gpu-node fails it on NVML's count and drains it.
        for nvml in ({"available": False, "gpus": [],
                      "reason": "libnvidia-ml.so.1: cannot open shared object file"},
                     {"available": True,
                      "gpus": [{"index": 0, "errors": {"handle": "GPU is lost"}}]}):
            with self.subTest(nvml=nvml), tempfile.TemporaryDirectory() as tmp:
                run = pathlib.Path(tmp) / "run"
                shutil.copytree(next((REFERENCE / "h200-burnin-2026-11-27" / "burnin" /
                                      "healthy").iterdir()), run)
                manifest = json.loads((run / "run.json").read_text())
                pci = manifest["inventory"]["pci"]["devices"]
                self.assertIn(("0x10de", "0x0302"), {(d["vendor"], d["class"]) for d in pci})
                manifest["inventory"]["nvml"] = nvml
                del manifest["suite"]["burnin_plan"]  # a plain run, not a burn-in
                (run / "run.json").write_text(json.dumps(manifest))
                out = pathlib.Path(tmp) / "verdict.json"
                r = subprocess.run([RAILGAUGE, "check", "--rules", "auto", "--json", str(out),
                                    str(run)], capture_output=True, text=True, timeout=120)
                self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
                self.assertIn("--rules auto: gpu-node (1 node (vm) shows NVIDIA hardware or its "
                              "driver and no GPU in NVML)", r.stderr)
                self.assertIn("node.nvml_gpu_count (nvml.gpus opened (count)) = 0, needs >= 1",
                              r.stdout)
                self.assertEqual(json.loads(out.read_text())["drain"], ["vm"])

    def test_a_gpu_with_ecc_off_fails(self):
        # With ECC off every ECC and remap rule passes on zeros: the GPU fails on ECC itself.
        def ecc_off(manifest):
            manifest["inventory"]["nvml"]["gpus"][0]["ecc"]["enabled_current"] = False

        r = checked_healthy_h200_with(ecc_off, "h200-sxm-1gpu")
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        self.assertIn("vm    gpu0 (0000:00:06.0)  FAIL     ecc-enabled", r.stdout)

    def test_an_h200_at_half_its_hbm_bandwidth_fails_the_fabric_profiles(self):
        # The H200 fabric profiles once kept the H100's DCGM floor (1,905 GB/s), which an H200 at
        # half its 4.3 TB/s passes; their floor is now the H200's own.
        for profile in ("h200-sxm-ib", "h200-sxm-roce"):
            with self.subTest(profile=profile), tempfile.TemporaryDirectory() as tmp:
                run = pathlib.Path(tmp) / "run"
                shutil.copytree(REFERENCE / "h200-2026-11-26", run)
                for records in run.rglob("records.jsonl"):
                    lines = []
                    for line in records.read_text().splitlines():
                        r = json.loads(line)
                        if r["key"].startswith("memory.hbm_") and r["status"] == "ok":
                            r["metrics"]["bandwidth_gbytes_per_s"] /= 2
                        lines.append(json.dumps(r) + "\n")
                    records.write_text("".join(lines))
                failed = {}
                for name, path in (("healthy", REFERENCE / "h200-2026-11-26"), ("slow", run)):
                    _, verdict = violated(path, profile)
                    failed[name] = {f["rule"] for p in verdict["parts"] for f in p["findings"]
                                    if not f["missing"] and f["level"] == "fail"}
                self.assertNotIn("hbm-floor", failed["healthy"])
                self.assertIn("hbm-floor", failed["slow"])

    def test_another_gpus_profile_is_not_a_pass(self):
        # The healthy H200 judged by the H100's one-GPU profile: its floors are lower, so the
        # figures pass them; the node warns that they are another GPU's, never a quiet PASS, and
        # its HBM copy (4,274 GB/s) is above the H100's 3,350: no H100 reads it, so it fails.
        # The same from the fleet history alone, which keeps the run's inventory.
        healthy = REFERENCE / "h200-burnin-2026-11-28" / "burnin" / "healthy"
        with tempfile.TemporaryDirectory() as tmp:
            db = f"sqlite:{pathlib.Path(tmp) / 'fleet.db'}"
            ingest = subprocess.run([RAILGAUGE, "db", "ingest", "--db", db, str(healthy)],
                                    capture_output=True, text=True, timeout=120)
            self.assertEqual(ingest.returncode, 0, ingest.stderr)
            for source in ([str(healthy)], ["--history", db]):
                r = subprocess.run([RAILGAUGE, "check", "--rules", "h100-sxm-1gpu", "--format",
                                    "json", *source], capture_output=True, text=True, timeout=120)
                self.assertEqual(r.returncode, 2, r.stderr)
                parts = json.loads(r.stdout)["parts"]
                self.assertEqual({f["rule"] for p in parts for f in p["findings"]
                                  if f["level"] == "fail" and not f["missing"]},
                                 {"burn-hbm-ceiling"}, source)
                details = [f["detail"] for p in parts
                           for f in p["findings"] if f["rule"] == "profile-gpu"]
                self.assertEqual(details, ["NVML names its GPU 'NVIDIA H200' and the profile "
                                           "h100-sxm-1gpu is for the H100: its floors are "
                                           "another GPU's; give the node's own profile (--rules "
                                           "auto picks it)"], source)

    def test_records_of_another_gpu_than_the_inventory_are_not_a_pass(self):
        # The healthy H200 with an H100's name in its run.json (an inventory copied from another
        # node, or edited): --rules auto picked h100-sxm-1gpu, whose lower floors every H200
        # figure passes, and the node passed. Its records name the H200: the node warns, and
        # fails on its HBM copy, which no H100 reaches.
        def h100_inventory(manifest):
            for gpu in manifest["inventory"]["nvml"]["gpus"]:
                gpu["name"] = "NVIDIA H100 80GB HBM3"

        with tempfile.TemporaryDirectory() as tmp:
            run = healthy_h200_with(tmp, h100_inventory)
            db = f"sqlite:{pathlib.Path(tmp) / 'fleet.db'}"
            ingest = subprocess.run([RAILGAUGE, "db", "ingest", "--db", db, "--quiet", str(run)],
                                    capture_output=True, text=True, timeout=120)
            self.assertEqual(ingest.returncode, 0, ingest.stderr)
            # auto picks from directories; the history is given the profile auto picked
            for rules, source in (("auto", [str(run)]), ("h100-sxm-1gpu", ["--history", db])):
                r = subprocess.run([RAILGAUGE, "check", "--rules", rules, "--format", "json",
                                    *source], capture_output=True, text=True, timeout=120)
                self.assertEqual(r.returncode, 2, source + [r.stdout, r.stderr])
                verdict = json.loads(r.stdout)
                self.assertEqual({f["rule"] for p in verdict["parts"] for f in p["findings"]
                                  if f["level"] == "fail" and not f["missing"]},
                                 {"burn-hbm-ceiling"}, source)
                details = [f["detail"] for p in verdict["parts"]
                           for f in p["findings"] if f["rule"] == "profile-gpu"]
                self.assertEqual(details, ["its records name its GPU 'NVIDIA H200' and the profile "
                                           "h100-sxm-1gpu is for the H100: its floors are "
                                           "another GPU's; give the node's own profile (--rules "
                                           "auto picks it)"], source)

    def test_one_gpu_beside_nvswitches_is_a_node_of_eight(self):
        # NVSwitches exist only on an 8-GPU HGX baseboard: one GPU beside them is a node that
        # lost 7, judged by h200-sxm (gpu-count fails), never a healthy one-GPU machine.
        def hgx(manifest):
            manifest["inventory"]["summary"]["nvswitches"] = 4

        r = checked_healthy_h200_with(hgx, "auto")
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        self.assertIn("--rules auto: h200-sxm (", r.stderr)
        self.assertIn("gpu-count", r.stdout)

    def machine(self, root, name, machine_id, start, gpu_uuid=None, slow=1.0):
        """The healthy H200 burn-in as machine `machine_id` wrote it at `start`, under the
        reference run's own host name (vm), its GPU renamed `gpu_uuid`, its bf16 burn `slow`."""
        source = next((REFERENCE / "h200-burnin-2026-11-28" / "burnin" / "healthy").iterdir())
        run = root / name
        shutil.copytree(source, run)
        manifest = json.loads((run / "run.json").read_text())
        old_uuid = manifest["inventory"]["nvml"]["gpus"][0]["uuid"]
        for path in (run / "run.json", run / "records.jsonl"):
            text = path.read_text().replace(manifest["run"], name)
            path.write_text(text.replace(old_uuid, gpu_uuid) if gpu_uuid else text)
        manifest = json.loads((run / "run.json").read_text())
        manifest["inventory"]["machine_id"] = machine_id
        manifest["start_utc"] = start
        (run / "run.json").write_text(json.dumps(manifest))
        lines = []
        for line in (run / "records.jsonl").read_text().splitlines():
            r = json.loads(line)
            if r["key"] == "gemm.burn" and r["params"].get("dtype") == "bf16":
                for gpu in r["metrics"]["gpus"]:
                    gpu["tflops"] *= slow
            lines.append(json.dumps(r) + "\n")
        (run / "records.jsonl").write_text("".join(lines))

    def dirs_and_history(self, root, runs, want):
        """`runs` (names under `root`) stored in root's history.db, then every run under `root`
        judged by h200-sxm-1gpu over the directories (--latest-per-host) and over the history,
        each exiting `want`: (source flag, process, --json verdict) of each."""
        db = f"sqlite:{root / 'history.db'}"
        self.assertEqual(subprocess.run([RAILGAUGE, "db", "ingest", "--db", db, "--quiet",
                                         *(str(root / run) for run in runs)],
                                        timeout=120).returncode, 0)
        for source in (["--latest-per-host", str(root)], ["--history", db]):
            out = root / "verdict.json"
            r = subprocess.run([RAILGAUGE, "check", "--rules", "h200-sxm-1gpu", "--json",
                                str(out), *source], capture_output=True, text=True, timeout=120)
            self.assertEqual(r.returncode, want, source[0] + r.stdout + r.stderr)
            yield source[0], r, json.loads(out.read_text())

    def test_two_machines_under_one_host_name_are_never_one_node(self):
        # VMs of one image all named "vm": machine a's burn-in ran slow, machine b's later run
        # is healthy. --latest-per-host once kept b's run alone and passed "vm"; now neither
        # supersedes the other, a's slow GPU fails, and the node says two machines wrote it.
        # The same GPU under a new machine id is one node reinstalled: its newer run supersedes.
        # The fleet history once chose its newest runs per host name alone, and passed "vm".
        for b_gpu, want in (("GPU-bbbbbbbb-0000-0000-0000-000000000000", 2), (None, 0)):
            with self.subTest(b_gpu=b_gpu), tempfile.TemporaryDirectory() as tmp:
                root = pathlib.Path(tmp)
                self.machine(root, "a", "a" * 32, "2026-11-28T10:00:00.000Z", slow=0.8)
                self.machine(root, "b", "b" * 32, "2026-11-28T11:00:00.000Z", gpu_uuid=b_gpu)
                # Over the directories, and over the fleet history that stored both runs.
                for source, r, verdict in self.dirs_and_history(root, ["a", "b"], want):
                    failed = {f["rule"]: f["detail"]
                              for p in verdict["parts"]
                              for f in p["findings"] if f["level"] == "fail"}
                    if want:
                        self.assertEqual(set(failed), {"one-machine-per-host", "burn-gemm-floor"},
                                         source + r.stdout)
                        self.assertIn(f"2 machines report host name 'vm': machine-id "
                                      f"{'a' * 32} (run {root / 'a'}), machine-id {'b' * 32}",
                                      failed["one-machine-per-host"])
                    else:
                        self.assertEqual(failed, {}, source + r.stdout)

    def test_a_retest_of_other_phases_never_passes_the_failed_burnin(self):
        # The H200 burn-in with its bf16 burn 20 % slow fails; a retest of the memory phases only
        # (`railgauge burnin --filter 'memory.*'`) passes. --latest-per-host and the fleet
        # history once judged the retest alone and passed the node on a burn it never ran
        # again. Now the burn-in is judged beside it for the points the retest did not run, and
        # the line says so; a retest of the bf16 burn judges that point again; a whole burn-in
        # after them (at another budget: the same points, run longer) supersedes them all.
        with tempfile.TemporaryDirectory() as tmp:
            root = pathlib.Path(tmp)
            self.machine(root, "burnin", "a" * 32, "2026-11-28T10:00:00.000Z", slow=0.8)

            def retest(name, start, keep, digest):
                self.filtered(root, name, start, keep, digest)

            retest("retest", "2026-11-28T11:00:00.000Z", lambda r: r["key"].startswith("memory."),
                   "0123456789abcdef")

            def judged(want, runs):
                # The text's problem line is cut to the console's width; --json holds it.
                return {source: "\n".join([r.stderr, *verdict["problems"]])
                        for source, r, verdict in self.dirs_and_history(root, runs, want)}

            said = judged(2, ["burnin", "retest"])
            for source, text in said.items():
                self.assertIn("vm: run burnin (started 2026-11-28T10:00:00.000Z) is judged beside "
                              "newer runs of its host and suite for the 7 of its 9 points they "
                              "did not measure again", text, source)
            # A retest of the failed phase alone (its bf16 burn): the burn-in is judged for the
            # 6 points neither retest ran, which pass, and the node passes.
            retest("bf16", "2026-11-28T11:30:00.000Z",
                   lambda r: r["key"] == "gemm.burn" and r["axes"]["dtype"] == "bf16",
                   "00000000000000bf")
            for source, text in judged(0, ["bf16"]).items():
                self.assertIn("vm: run burnin (started 2026-11-28T10:00:00.000Z) is judged beside "
                              "newer runs of its host and suite for the 6 of its 9 points they "
                              "did not measure again", text, source)
            self.machine(root, "again", "a" * 32, "2026-11-28T12:00:00.000Z")
            again = root / "again" / "run.json"
            manifest = json.loads(again.read_text())
            manifest["plan"]["digest"] = "fedcba9876543210"
            again.write_text(json.dumps(manifest))
            lines = [json.loads(line) for line in
                     (root / "again" / "records.jsonl").read_text().splitlines()]
            for r in lines:
                if "duration_s" in r.get("axes", {}):
                    r["axes"]["duration_s"] *= 2
            (root / "again" / "records.jsonl").write_text(
                "".join(json.dumps(r) + "\n" for r in lines))
            for source, text in judged(0, ["again"]).items():
                self.assertNotIn("judged beside", text, source)

    def filtered(self, root, name, start, keep, digest):
        """The healthy H200 burn-in as `railgauge burnin --filter` leaves it, of the records
        `keep` takes, as machine a's run `name` at `start`, its plan `digest`; its run.json."""
        self.machine(root, name, "a" * 32, start)
        records = [json.loads(line) for line in
                   (root / name / "records.jsonl").read_text().splitlines()]
        records = [r for r in records if keep(r)]
        (root / name / "records.jsonl").write_text(
            "".join(json.dumps(r) + "\n" for r in records))
        manifest = json.loads((root / name / "run.json").read_text())
        manifest["argv"] += ["--filter", "..."]
        manifest["plan"] = {"digest": digest, "points": len(records)}
        manifest["points_planned"] = len(records)
        manifest["counts"] = {}
        for r in records:
            manifest["counts"][r["status"]] = manifest["counts"].get(r["status"], 0) + 1
        (root / name / "run.json").write_text(json.dumps(manifest))
        return manifest

    def test_expect_gpus_reads_the_newest_run_of_a_host(self):
        # The H200 burn-in, then a retest of its memory phases whose inventory lists no GPU (the
        # GPU fell off the bus since). --latest-per-host judges the burn-in beside the retest,
        # and --expect-gpus took the most GPUs any run listed: the lost GPU went unsaid.
        with tempfile.TemporaryDirectory() as tmp:
            root = pathlib.Path(tmp)
            self.machine(root, "burnin", "a" * 32, "2026-11-28T10:00:00.000Z")
            manifest = self.filtered(root, "retest", "2026-11-28T11:00:00.000Z",
                                     lambda r: r["key"].startswith("memory."), "0123456789abcdef")
            manifest["inventory"]["nvml"]["gpus"] = []
            (root / "retest" / "run.json").write_text(json.dumps(manifest))
            out = root / "verdict.json"
            r = subprocess.run([RAILGAUGE, "check", "--rules", "any-fabric", "--expect-gpus", "1",
                                "--latest-per-host", "--json", str(out), str(root)],
                               capture_output=True, text=True, timeout=120)
            self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
            node = next(p for p in json.loads(out.read_text())["parts"] if p["kind"] == "node")
            self.assertIn("expected-gpus", {f["rule"] for f in node["findings"]})

    def test_two_machines_stored_from_one_path_are_two(self):
        # Each VM named "vm" ingested its run from inside its run directory (`db ingest .`): the
        # history told the machines apart by the stored path, took them for one, kept b's newer
        # healthy run alone and passed "vm"; a's slow GPU was never judged.
        with tempfile.TemporaryDirectory() as tmp:
            root = pathlib.Path(tmp)
            self.machine(root, "a", "a" * 32, "2026-11-28T10:00:00.000Z", slow=0.8)
            self.machine(root, "b", "b" * 32, "2026-11-28T11:00:00.000Z",
                         gpu_uuid="GPU-bbbbbbbb-0000-0000-0000-000000000000")
            db = f"sqlite:{root / 'history.db'}"
            for name in ("a", "b"):
                self.assertEqual(subprocess.run([RAILGAUGE, "db", "ingest", "--db", db,
                                                 "--quiet", "."], cwd=root / name,
                                                timeout=120).returncode, 0)
            r = subprocess.run([RAILGAUGE, "check", "--rules", "h200-sxm-1gpu", "--history", db],
                               capture_output=True, text=True, timeout=120)
            self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
            self.assertIn("one-machine-per-host", r.stdout)
            self.assertIn("burn-gemm-floor", r.stdout)

    def test_a_newer_run_the_history_could_not_store_is_no_pass(self):
        # The node's newer run holds records of another host: ingest refuses it (exit 4) and
        # the history kept the node's older pass, exit 0 under --unreadable info.
        with tempfile.TemporaryDirectory() as tmp:
            root = pathlib.Path(tmp)
            self.machine(root, "old", "a" * 32, "2026-11-28T10:00:00.000Z")
            self.machine(root, "new", "a" * 32, "2026-11-29T10:00:00.000Z")
            lines = [json.loads(line) for line in
                     (root / "new" / "records.jsonl").read_text().splitlines()]
            (root / "new" / "records.jsonl").write_text(
                "".join(json.dumps(dict(r, host="other")) + "\n" for r in lines))
            db = f"sqlite:{root / 'history.db'}"
            codes = [subprocess.run([RAILGAUGE, "db", "ingest", "--db", db, "--quiet",
                                     str(root / name)], capture_output=True,
                                    timeout=120).returncode for name in ("old", "new")]
            self.assertEqual(codes, [0, 4])
            out = root / "verdict.json"
            r = subprocess.run([RAILGAUGE, "check", "--rules", "h200-sxm-1gpu", "--history", db,
                                "--unreadable", "info", "--json", str(out)],
                               capture_output=True, text=True, timeout=120)
            self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
            verdict = json.loads(out.read_text())
            self.assertEqual(verdict["drain"], ["vm"])
            node = next(p for p in verdict["parts"] if p["kind"] == "node")
            self.assertTrue(any(f["rule"] == "run-complete" and
                                "the fleet history could not store it" in f["detail"]
                                for f in node["findings"]), node["findings"])

    def test_a_run_its_clock_cannot_date_never_hides_the_newest(self):
        # A healthy run dated 2099 (a clock set ahead) was the host's newest for good, and the
        # slow run after it was never judged; one dated 1970 (a clock reset) lost to the older
        # pass; an offset (+02:00) sorted as text against Z. Each is judged beside the newest.
        for odd in ("2099-01-01T00:00:05.000Z", "1970-01-01T00:00:00.000Z",
                    "2026-11-29T00:30:00.000+02:00", "garbage"):
            with self.subTest(start=odd), tempfile.TemporaryDirectory() as tmp:
                root = pathlib.Path(tmp)
                healthy_first = odd.startswith(("2099", "2026", "garbage"))
                self.machine(root, "odd", "a" * 32, odd, slow=1.0 if healthy_first else 0.8)
                self.machine(root, "dated", "a" * 32, "2026-11-28T23:00:00.000Z",
                             slow=0.8 if healthy_first else 1.0)
                db = f"sqlite:{root / 'history.db'}"
                self.assertEqual(subprocess.run([RAILGAUGE, "db", "ingest", "--db", db, "--quiet",
                                                 str(root / "odd"), str(root / "dated")],
                                                capture_output=True, timeout=120).returncode, 0)
                for source in (["--latest-per-host", str(root)], ["--history", db]):
                    r = subprocess.run([RAILGAUGE, "check", "--rules", "h200-sxm-1gpu", *source],
                                       capture_output=True, text=True, timeout=120)
                    self.assertEqual(r.returncode, 2, source[0] + r.stdout + r.stderr)
                    self.assertIn("burn-gemm-floor", r.stdout, source[0])
                r = subprocess.run([RAILGAUGE, "check", "--rules", "h200-sxm-1gpu",
                                    "--latest-per-host", str(root)],
                                   capture_output=True, text=True, timeout=120)
                self.assertIn(f"start_utc '{odd}' cannot date the run", r.stdout + r.stderr)

    def test_a_gpu_of_a_node_that_ran_nothing_is_not_a_pass(self):
        # vm2's run stopped before its first record: the node fails on its missing values, and
        # its GPU, which its inventory probes alone judged, once read PASS beside it. Over the
        # directories and over the fleet history alike it fails, naming what never measured it.
        with tempfile.TemporaryDirectory() as tmp:
            root = pathlib.Path(tmp)
            self.machine(root, "a", "a" * 32, "2026-11-28T10:00:00.000Z")
            self.machine(root, "b", "b" * 32, "2026-11-28T10:00:00.000Z",
                         gpu_uuid="GPU-bbbbbbbb-0000-0000-0000-000000000000")
            manifest = json.loads((root / "b" / "run.json").read_text())
            manifest["host"] = "vm2"
            (root / "b" / "run.json").write_text(json.dumps(manifest))
            (root / "b" / "records.jsonl").write_text("")
            db = f"sqlite:{root / 'history.db'}"
            self.assertEqual(subprocess.run([RAILGAUGE, "db", "ingest", "--db", db, "--quiet",
                                             str(root / "a"), str(root / "b")],
                                            timeout=120).returncode, 0)
            for source in ([str(root / "a"), str(root / "b")], ["--history", db]):
                out = root / "verdict.json"
                r = subprocess.run([RAILGAUGE, "check", "--rules", "h200-sxm-1gpu", "--json",
                                    str(out), *source], capture_output=True, text=True,
                                   timeout=120)
                self.assertEqual(r.returncode, 2, source[0] + r.stdout + r.stderr)
                gpus = {p["host"]: p for p in json.loads(out.read_text())["parts"]
                        if p["kind"] == "gpu"}
                self.assertEqual(gpus["vm"]["verdict"], "pass", source[0])
                self.assertNotIn("not_measured", gpus["vm"])
                self.assertEqual(gpus["vm2"]["verdict"], "fail", source[0] + r.stdout)
                self.assertLessEqual({"burn-gemm-floor", "burn-hbm-floor", "burn-power-target"},
                                     set(gpus["vm2"]["not_measured"]))
                self.assertIn("not measured, its node holds no figure of: burn-d2h-below-healthy, "
                              "burn-d2h-floor",
                              r.stdout)


    def test_a_burn_shorter_than_the_planners_least_fails(self):
        # The floors are sustained figures: burns of 3 s (an edit, a hand-made suite) passed
        # every one of them.
        with tempfile.TemporaryDirectory() as tmp:
            run = healthy_h200_with(tmp, lambda manifest: None)

            def short(r):
                if r["key"] in ("gemm.burn", "memory.burn"):
                    r["params"]["duration_s"] = 3
            rewrite_records(run, short)
            out = pathlib.Path(tmp) / "verdict.json"
            r = subprocess.run([RAILGAUGE, "check", "--rules", "h200-sxm-1gpu", "--json", str(out),
                                str(run)], capture_output=True, text=True, timeout=120)
            self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
            parts = json.loads(out.read_text())["parts"]
            failed = {(f["rule"], f["params"].get("dtype"))
                      for p in parts for f in p["findings"] if f["level"] == "fail"}
            self.assertEqual(failed, {("burn-gemm-duration", "bf16"),
                                      ("burn-gemm-fp64-duration", "fp64"),
                                      ("burn-gemm-tf32-duration", "tf32"),
                                      ("burn-hbm-duration", None)}, r.stdout)

    def test_a_burn_that_ended_early_or_reads_impossibly_fails(self):
        # Each passed, over the directory and the history: a bf16 burn planned for 33 s that ran
        # 1 s (the duration rules read the plan), power in mW read as W (743 x the limit met the
        # power target), the pattern test's coverage written as a percentage (5.0 met 0.9).
        def gpus(r):
            return r["metrics"].get("gpus") or r["metrics"].get("per_gpu")

        def ended_early(r):
            if r["key"] == "gemm.burn" and r["params"]["dtype"] == "bf16":
                gpus(r)[0]["elapsed_s"] = 1.0

        def milliwatts(r):
            if r["key"] == "gemm.burn" and r["params"]["dtype"] == "bf16":
                gpus(r)[0]["telemetry"]["during"]["power_w"]["median"] *= 1000

        def percent(r):
            if r["key"] == "memory.pattern":
                for o in (r["metrics"], gpus(r)[0]):
                    o["free_memory_covered_fraction"] = 5.0
        # An Xid count written as text: load-xid's on_missing (warn: the kernel log needs
        # root) made a count that was read, and is wrong, a warning.
        def xid_text(r):
            if r["key"] == "gemm.burn" and r["params"]["dtype"] == "bf16":
                gpus(r)[0]["telemetry"]["health_delta"]["xid_events"] = "3"
        for edit, rule in ((ended_early, "burn-ran-its-plan"), (milliwatts, "burn-power-readable"),
                           (percent, "burn-hbm-pattern-coverage-readable")):
            with self.subTest(rule=rule), tempfile.TemporaryDirectory() as tmp:
                run = healthy_h200_with(tmp, lambda manifest: None)
                rewrite_records(run, edit)
                for source, r, parts in checked_over_dirs_and_history(tmp, run):
                    self.assertEqual(r.returncode, 2, source + r.stdout + r.stderr)
                    failed = {f["rule"] for f in parts["gpu"]["findings"]
                              if f["level"] == "fail" and not f["missing"]}
                    self.assertEqual(failed, {rule}, source + r.stdout)
        with tempfile.TemporaryDirectory() as tmp:
            run = healthy_h200_with(tmp, lambda manifest: None)
            rewrite_records(run, xid_text)
            for source, r, parts in checked_over_dirs_and_history(tmp, run):
                self.assertEqual(r.returncode, 2, source + r.stdout + r.stderr)
                unread = {f["rule"] for f in parts["gpu"]["findings"]
                          if f["level"] == "fail" and f["missing"]}
                self.assertEqual(unread, {"load-xid"}, source + r.stdout)

    def test_health_faults_dcgm_and_nhc_catch_are_caught(self):
        # Each once passed the H200 profile (or only warned): a storm of corrected ECC errors
        # (Azure NHC: > 10k), NVML's thermal violation time (DCGM fails any), PCIe replays past
        # DCGM's 80, a GPU capped below its 700 W TDP (a warning: the cap may be meant).
        def burn_telemetry(edit):
            def edit_record(r):
                if r["key"] == "gemm.burn" and r["params"].get("dtype") == "bf16":
                    edit(r["metrics"]["gpus"][0]["telemetry"])
            return lambda run: rewrite_records(run, edit_record)

        def hot(limit_c):
            def edit(t):
                t["during"].update(temperature_c_max=92.0, temperature_limit_c=limit_c,
                                   temperature_limit="gpu_max_operating")
            return burn_telemetry(edit)

        def capped(manifest):
            manifest["inventory"]["nvml"]["gpus"][0]["power_limit_w"] = 600.0

        cases = [
            ("load-ecc-corrected", 2, burn_telemetry(
                lambda t: grew(t, "ecc_corrected_volatile", 50000.0)), None),
            ("load-thermal-violation", 2, burn_telemetry(
                lambda t: t["during"].update(thermal_violation_s=4.2)), None),
            ("load-pcie-replays-over-dcgm", 2, burn_telemetry(
                lambda t: grew(t, "pcie_replays", 10000.0)), None),
            ("power-limit", 1, None, capped),
            # DCGM: the highest GPU temperature of a test above NVML's maximum operating one
            ("load-temperature", 2, hot(87.0), None),
            # and its HBM's above NVML's maximum memory operating temperature
            ("load-memory-temperature", 2, burn_telemetry(lambda t: t["during"].update(
                memory_temperature_c_max=98.0, memory_temperature_limit_c=95.0)), None),
        ]
        for rule, code, records, manifest in cases:
            with self.subTest(rule), tempfile.TemporaryDirectory() as tmp:
                run = healthy_h200_with(tmp, manifest or (lambda m: None))
                if records:
                    records(run)
                r = subprocess.run([RAILGAUGE, "check", "--rules", "h200-sxm-1gpu", str(run)],
                                   capture_output=True, text=True, timeout=120)
                self.assertEqual(r.returncode, code, r.stdout + r.stderr)
                self.assertIn(f" {rule} [", r.stdout)

    def test_a_fault_in_the_all_reduce_fails_the_gpu_that_saw_it(self):
        # The rank's all_reduce record has no device of its own: an Xid and 50,000 corrected ECC
        # errors in its GPU's telemetry window failed the node while "gpu0 (0000:00:06.0)" read
        # PASS. Over the directories and over the fleet history alike, the GPU fails now.
        with tempfile.TemporaryDirectory() as tmp:
            run = healthy_h200_with(tmp, lambda manifest: None)

            def faulty(r):
                if r["key"] == "collectives.nccl_all_reduce":
                    logged_xid(r["metrics"]["telemetry"], 79, "GPU has fallen off the bus")
                    grew(r["metrics"]["telemetry"], "ecc_corrected_volatile", 50000.0)
            rewrite_records(run, faulty)
            for source, r, parts in checked_over_dirs_and_history(tmp, run):
                self.assertEqual(r.returncode, 2, source + r.stdout + r.stderr)
                failed = {f["rule"] for f in parts["gpu"]["findings"]
                          if f["level"] == "fail" and not f["missing"]}
                self.assertEqual(failed, {"load-xid-nccl", "load-ecc-corrected-nccl"},
                                 source + r.stdout)
                self.assertEqual(parts["gpu"]["verdict"], "fail", source)

    def second_gpus_findings(self, all_reduce_ranks, edit_all_reduce=None):
        """The healthy H200 burn-in with a second GPU in its inventory that nothing ran on, its
        all_reduce of `all_reduce_ranks` ranks: per source (directories, history), the exit
        status and the second GPU's part."""
        def ranks(r):
            if r["key"] == "collectives.nccl_all_reduce":
                r["params"]["world_size"] = all_reduce_ranks
                if edit_all_reduce:
                    edit_all_reduce(r)

        with tempfile.TemporaryDirectory() as tmp:
            run = healthy_h200_with(tmp, second_gpu)
            rewrite_records(run, ranks)
            db = f"sqlite:{pathlib.Path(tmp) / 'history.db'}"
            ingest = subprocess.run([RAILGAUGE, "db", "ingest", "--db", db, "--quiet", str(run)],
                                    timeout=120)
            self.assertEqual(ingest.returncode, 0)
            for source in ([str(run)], ["--history", db]):
                out = pathlib.Path(tmp) / "verdict.json"
                r = subprocess.run([RAILGAUGE, "check", "--rules", "h200-sxm-1gpu", "--json",
                                    str(out), *source], capture_output=True, text=True,
                                   timeout=120)
                yield source[0], r, next(p for p in json.loads(out.read_text())["parts"]
                                         if p["kind"] == "gpu" and p["id"] == "0000:00:07.0")

    def test_a_gpu_the_burn_left_out_fails_over_the_history_too(self):
        # The node's inventory lists a second GPU that no burn phase ran on (left out of
        # CUDA_VISIBLE_DEVICES on a retest): the directories' check failed it, and the fleet
        # history, which judged only the GPUs the records named, signed the node off.
        for source, r, left_out in self.second_gpus_findings(all_reduce_ranks=1):
            self.assertEqual(r.returncode, 2, source + r.stdout + r.stderr)
            self.assertEqual(left_out["verdict"], "fail", source)
            unmeasured = {f["rule"] for f in left_out["findings"]
                          if f["missing"] and "did not run on it" in f["detail"]}
            self.assertTrue({"burn-gemm-floor", "burn-hbm-floor"} <= unmeasured,
                            (source, unmeasured))
            # One rank's all_reduce ran on one GPU: the other has no window to lack.
            self.assertFalse(any("no telemetry window" in f["detail"]
                                 for f in left_out["findings"]), source)

    def test_a_gpu_whose_ranks_burn_failed_says_it_failed(self):
        # Two ranks, one GPU each: rank 1's GEMM burn failed before it measured its GPU. That
        # GPU's missing value read "the point that ran on every GPU did not run on it"; only the
        # node's named the failure. Both ways, the GPU's now does.
        with tempfile.TemporaryDirectory() as tmp:
            run = healthy_h200_with(tmp, second_gpu)
            records = [json.loads(line)
                       for line in (run / "records.jsonl").read_text().splitlines()]
            burn = next(r for r in records
                        if r["key"] == "gemm.burn" and r["axes"].get("dtype") == "bf16")
            failed = json.loads(json.dumps(burn))
            failed.update(rank=1, status="failed", metrics={},
                          device={"gpu": "GPU-00000000-0000-0000-0000-000000000007",
                                  "pci": "0000:00:07.0"},
                          reason="CUDA error: out of memory before the first GPU measured")
            records.append(failed)
            (run / "records.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
            for source, r, _ in checked_over_dirs_and_history(tmp, run):
                self.assertEqual(r.returncode, 2, source + r.stdout + r.stderr)
                verdict = json.loads((pathlib.Path(tmp) / "verdict.json").read_text())
                second = next(p for p in verdict["parts"]
                              if p["kind"] == "gpu" and p["id"] == "0000:00:07.0")
                details = [f["detail"] for f in second["findings"]
                           if f["missing"] and f["rule"] == "burn-gemm-floor"]
                self.assertTrue(details, (source, second["findings"]))
                self.assertTrue(all("the point 'gemm.burn' is failed: CUDA error: out of memory"
                                    in d for d in details), (source, details))
                # Its other phases did not fail: they are not said to have (a rule over every
                # burn phase named the bf16 failure on the HBM burn's figure too).
                others = [f["detail"] for f in second["findings"]
                          if f["missing"] and "no figure of 'memory.burn" in f["detail"]]
                self.assertTrue(others, (source, second["findings"]))
                self.assertFalse([d for d in others if "is failed" in d], (source, others))

    def test_a_gpu_one_phase_left_out_is_missing_that_phase(self):
        # A second GPU that every burn phase ran on but the FP64 GEMM: the duration rule of the
        # FP64, TF32 and HBM burns together found it in the other two and passed it, both ways;
        # the profile also passed a node whose FP64 and TF32 burns never ran.
        def on_both_but_fp64(r):
            for field in ("gpus", "per_gpu"):
                objects = r["metrics"].get(field)
                if objects and r["axes"].get("dtype") != "fp64":
                    extra = json.loads(json.dumps(objects[0]))
                    extra.update(gpu=1, index=1, pci="0000:00:07.0",
                                 uuid="GPU-00000000-0000-0000-0000-000000000007")
                    objects.append(extra)

        with tempfile.TemporaryDirectory() as tmp:
            run = healthy_h200_with(tmp, second_gpu)
            rewrite_records(run, on_both_but_fp64)
            for source, r, parts in checked_over_dirs_and_history(tmp, run):
                self.assertEqual(r.returncode, 2, source + r.stdout + r.stderr)
                self.assertEqual(parts["gpu"]["id"], "0000:00:07.0")  # the last GPU part
                details = {f["rule"]: f["detail"] for f in parts["gpu"]["findings"]}
                self.assertIn("no figure of 'gemm.burn dtype=fp64' for gpu1",
                              details.get("burn-gemm-fp64-duration", ""), source)
                self.assertIn("burn-gemm-fp64-duration (missing)", r.stdout, source)

        with tempfile.TemporaryDirectory() as tmp:
            run = healthy_h200_with(tmp, lambda manifest: None)
            lines = [line for line in (run / "records.jsonl").read_text().splitlines()
                     if json.loads(line)["axes"].get("dtype") not in ("fp64", "tf32")]
            (run / "records.jsonl").write_text("\n".join(lines) + "\n")
            manifest = json.loads((run / "run.json").read_text())
            manifest["counts"]["ok"] -= 2
            manifest["points_planned"] = manifest.get("points_planned", 12) - 2
            (run / "run.json").write_text(json.dumps(manifest))
            for source, r, parts in checked_over_dirs_and_history(tmp, run):
                self.assertEqual(r.returncode, 2, source + r.stdout + r.stderr)
                self.assertIn("burn-gemm-fp64-duration", r.stdout, source)
                self.assertIn("burn-gemm-tf32-duration", r.stdout, source)

    def test_a_gpu_without_a_window_in_the_all_reduce_on_every_gpu_is_unread(self):
        # The all_reduce ran a rank on each of the node's 2 GPUs and holds the window of one:
        # the other's Xid and ECC counts during it were never read, and its -nccl rules read
        # nothing and passed, over the directories and the history alike.
        for source, r, unread in self.second_gpus_findings(all_reduce_ranks=2):
            self.assertEqual(r.returncode, 2, source + r.stdout + r.stderr)
            windowless = {f["rule"]: f["level"] for f in unread["findings"]
                          if f["missing"] and "no telemetry window of gpu1" in f["detail"]}
            self.assertEqual(windowless.get("load-xid-nccl"), "warn", (source, windowless))
            self.assertEqual(windowless.get("load-ecc-uncorrectable-nccl"), "fail",
                             (source, windowless))

    def test_a_world_that_does_not_say_it_ran_on_one_node_lacks_no_window(self):
        # A world of 2 ranks without group_hosts may have run one rank on each of two nodes: the
        # node's second GPU lacks no window (it was failed as unread). gpu0's window lacks its
        # Xid count too, which is the rule's missing value, not a window lacking.
        def no_xid_no_hosts(r):
            del r["metrics"]["telemetry"]["health_delta"]["xid_events"]
            del r["params"]["group_hosts"]
        for source, r, second in self.second_gpus_findings(2, no_xid_no_hosts):
            self.assertFalse([f for f in second["findings"]
                              if "no telemetry window" in f["detail"]], source)

    def test_a_gpu_verdict_of_another_spelling_is_no_pass(self):
        # A GPU object whose verdict this build does not know ("fail", 3 wrong words) in a record
        # that ended ok: the GPU took the record's ok and the node passed.
        with tempfile.TemporaryDirectory() as tmp:
            run = healthy_h200_with(tmp, lambda manifest: None)

            def misspelt(r):
                if r["key"] == "memory.pattern":
                    r["metrics"]["per_gpu"][0].update(verdict="fail", error="3 wrong words")
            rewrite_records(run, misspelt)
            for source, r, parts in checked_over_dirs_and_history(tmp, run):
                self.assertEqual(r.returncode, 2, source + r.stdout + r.stderr)
                self.assertEqual(parts["gpu"]["verdict"], "fail", source)

    def test_a_failed_point_recorded_again_as_ok_is_no_pass(self):
        # The pattern test failed (3 wrong words), then a copy of the point ended ok: the last
        # record stood for the point and the node passed both ways. Only an error record is ever
        # run again.
        with tempfile.TemporaryDirectory() as tmp:
            run = healthy_h200_with(tmp, lambda manifest: None)
            records = [json.loads(line) for line in (run / "records.jsonl").read_text().splitlines()]
            at = next(i for i, r in enumerate(records) if r["key"] == "memory.pattern")
            failed = json.loads(json.dumps(records[at]))
            failed.update(status="failed", reason="gpu0: 3 wrong words")
            records.insert(at, failed)
            (run / "records.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
            for source, r, parts in checked_over_dirs_and_history(tmp, run):
                self.assertEqual(r.returncode, 2, source + r.stdout + r.stderr)
                self.assertEqual(parts["node"]["verdict"], "fail", source)
                self.assertIn("memory.pattern recorded 'failed', then 'ok'", r.stdout, source)
                if source != "--history":
                    # Refused, not "cannot be read": its last record is judged beside it.
                    self.assertIn("records.jsonl: refused as written", r.stdout, source)
                    self.assertNotIn("records.jsonl cannot be read", r.stdout, source)

    def test_a_health_counter_that_went_backwards_is_no_pass(self):
        # The GPU was reset during the HBM burn: its volatile uncorrectable ECC count read 2
        # before and 1 after, a growth of -1 that passed "<= 0" both ways.
        with tempfile.TemporaryDirectory() as tmp:
            run = healthy_h200_with(tmp, lambda manifest: None)

            def reset(r):
                if r["key"] == "memory.burn":
                    delta = r["metrics"]["per_gpu"][0]["telemetry"]["health_delta"]
                    delta["ecc_uncorrected_volatile"] = -1.0
            rewrite_records(run, reset)
            self.assert_failed_saying(tmp, run, "gpu", "load-ecc-uncorrectable",
                                      "the counter went backwards (-1)")

    def test_a_health_delta_its_own_readings_contradict_is_no_pass(self):
        # The HBM burn's delta says 0 uncorrectable ECC errors while its readings went from 0 to
        # 2; the Xid count says 0 beside a list of one Xid 48, or beside a new Xid in the kernel
        # log after the phase; 0 PCIe replays while NVML's counter went from 0 to 500. Each
        # passed "<= 0" before: the rules read the delta alone.
        def grown_readings(t):
            t["after"]["ecc_uncorrected_volatile"] = t["before"]["ecc_uncorrected_volatile"] + 2

        def listed_xid(t):
            t["health_delta"].update(xid_events=0, xids=[{"seq": 9, "xid": 48,
                                                          "text": "DBE (double bit error)"}])
        def replayed(t):  # NVML's counter is pcie_replay_count in the snapshots
            t["after"]["pcie_replay_count"] = t["before"]["pcie_replay_count"] + 500

        def logged_xid(t):  # a new Xid 48 in the kernel log after the phase, none in the delta
            log = t["after"]["kernel_log"]
            log["xids"] = [{"seq": log["last_seq"] + 1, "xid": 48, "text": "DBE"}]
            log["last_seq"] += 1
        for edit, rule, says in (
                (grown_readings, "load-ecc-uncorrectable", "went from 0 to 2"),
                (listed_xid, "load-xid", "the Xid list beside it holds 1"),
                (replayed, "load-pcie-replays-over-dcgm", "went from 0 to 500"),
                (logged_xid, "load-xid", "the kernel log after the phase holds 1 Xid")):
            with tempfile.TemporaryDirectory() as tmp:
                run = healthy_h200_with(tmp, lambda manifest: None)

                def contradict(r):
                    if r["key"] == "memory.burn":
                        edit(r["metrics"]["per_gpu"][0]["telemetry"])
                rewrite_records(run, contradict)
                for source, r, parts in checked_over_dirs_and_history(tmp, run):
                    self.assertEqual(r.returncode, 2, source + r.stdout + r.stderr)
                    details = [f["detail"] for f in parts["gpu"]["findings"] if f["rule"] == rule]
                    self.assertTrue(any(says in d and "contradicts itself" in d
                                        for d in details), (source, details))

    def test_a_window_its_sampler_barely_read_is_no_pass(self):
        # The bf16 burn's telemetry read twice in its 26 s window (a stalled sampler): the power
        # target's median of two readings passed, and so did every throttle share.
        with tempfile.TemporaryDirectory() as tmp:
            run = healthy_h200_with(tmp, lambda manifest: None)

            def stalled(r):
                if r["key"] == "gemm.burn" and r["params"].get("dtype") == "bf16":
                    r["metrics"]["gpus"][0]["telemetry"]["during"]["samples"] = 2
            rewrite_records(run, stalled)
            for source, r, parts in checked_over_dirs_and_history(tmp, run):
                self.assertEqual(r.returncode, 2, source + r.stdout + r.stderr)
                failed = [f for f in parts["gpu"]["findings"]
                          if f["rule"] == "burn-telemetry-sampled" and not f["missing"]]
                self.assertEqual(len(failed), 1, source)
                self.assertLess(failed[0]["value"], 0.1, source)

    def test_a_power_limit_lowered_during_the_burn_is_said(self):
        # The limit fell to 600 W while the bf16 burn ran (a power manager capping the rack):
        # power-limit read the 700 W of the run's start and the power target the draw against
        # 600 W, and the node passed.
        with tempfile.TemporaryDirectory() as tmp:
            run = healthy_h200_with(tmp, lambda manifest: None)

            def capped(r):
                if r["key"] == "gemm.burn" and r["params"].get("dtype") == "bf16":
                    during = r["metrics"]["gpus"][0]["telemetry"]["during"]
                    during["power_limit_w"] = 600.0
                    during["power_w"].update(median=597.0, mean=597.0)
            rewrite_records(run, capped)
            for source, r, parts in checked_over_dirs_and_history(tmp, run):
                self.assertEqual(r.returncode, 1, source + r.stdout + r.stderr)
                said = [f for f in parts["gpu"]["findings"] if f["rule"] == "load-power-limit"]
                self.assertEqual([(f["level"], f["value"]) for f in said], [("warn", 600.0)])

    def assert_stepped_at_the_retest(self, edit, days=7, said_as="fell 7.0 % below the median of "
                                     "its 6 runs before", at_rank_one=False):
        """Dated copies of the healthy H200 burn-in (`days` of them), the last two through
        edit(record) (the last alone, as rank 1 of a job of two, with `at_rank_one`), each checked
        with --history as it came: the last check warns of the bf16 GEMM's step, `said_as`."""
        healthy = next((REFERENCE / "h200-burnin-2026-11-28" / "burnin" / "healthy").iterdir())
        with tempfile.TemporaryDirectory() as tmp:
            tmp = pathlib.Path(tmp)
            db = f"sqlite:{tmp / 'fleet.db'}"
            for day in range(1, days + 1):
                run = dated_copy(healthy, tmp / f"d{day}", day)
                if day >= days - 1 and not (at_rank_one and day < days):
                    rewrite_records(run, edit)
                if at_rank_one and day == days:
                    manifest = json.loads((run / "run.json").read_text())
                    manifest["rank"] = 1
                    manifest["world"].update(size=2, rank=1)
                    (run / "run.json").write_text(json.dumps(manifest))
                r = subprocess.run([RAILGAUGE, "check", "--rules", "h200-sxm-1gpu", "--format",
                                    "json", "--history", db, str(run)], capture_output=True,
                                   text=True, timeout=120)
            if not at_rank_one:  # a job of two with one rank given fails its missing rank
                self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
            said = [f["detail"] for p in json.loads(r.stdout)["parts"] for f in p["findings"]
                    if f["rule"] == "history-step" and "gemm.burn" in f["what"]
                    and "bf16" in f["what"]]
            self.assertTrue(any(said_as in d for d in said), said)

    def test_a_drop_that_stays_is_still_a_step_at_its_retest(self):
        # Five healthy burn-ins, then the GPU's bf16 GEMM 7 % slower (still above the floor) in
        # two runs: the first warned, the retest at the same level moved 0 % from it and passed.
        def slower(r):
            if r["key"] == "gemm.burn" and r["params"].get("dtype") == "bf16":
                r["metrics"]["gpus"][0]["tflops"] *= 0.93
        self.assert_stepped_at_the_retest(slower)

    def test_a_drop_at_another_rank_is_still_a_step(self):
        # Five healthy burn-ins at rank 0, then the node as rank 1 of a job of two (its rank is
        # the job's choice) with its bf16 GEMM 7 % slower. Split by rank, its history was two
        # series, and the drop was compared with nothing.
        def at_rank_one(r):
            r["rank"] = 1
            if r["key"] == "gemm.burn" and r["params"].get("dtype") == "bf16":
                r["metrics"]["gpus"][0]["tflops"] *= 0.93
        self.assert_stepped_at_the_retest(at_rank_one, days=6, said_as="fell 7.0 %",
                                          at_rank_one=True)

    def test_a_drop_with_a_new_budget_is_still_a_step(self):
        # Five healthy burn-ins, then the fleet's budget grew (the bf16 burn planned for 48 s
        # instead of 33, as between the committed H200 burn-ins of 2026-11-27 and 11-28) in the
        # same two runs where the GPU's bf16 GEMM fell 7 %. The series was keyed by duration_s:
        # the drop began a series of its own, which no step judged, and the node passed.
        def longer_and_slower(r):
            if r["key"] == "gemm.burn" and r["params"].get("dtype") == "bf16":
                r["params"]["duration_s"] = 48.0
                gpu = r["metrics"]["gpus"][0]
                gpu["elapsed_s"] *= 48.0 / 33.0
                gpu["tflops"] *= 0.93
        self.assert_stepped_at_the_retest(longer_and_slower)

    def test_a_link_that_narrowed_under_load_fails(self):
        # NVML sampled the GPU's link at x4 during the bf16 burn: only the width at the run's
        # start and the host copies' flag were judged, and the node passed.
        with tempfile.TemporaryDirectory() as tmp:
            run = healthy_h200_with(tmp, lambda manifest: None)

            def narrowed(r):
                if r["key"] == "gemm.burn" and r["params"].get("dtype") == "bf16":
                    r["metrics"]["gpus"][0]["telemetry"]["during"]["pcie"]["width_min"] = 4
            rewrite_records(run, narrowed)
            for source, r, parts in checked_over_dirs_and_history(tmp, run):
                self.assertEqual(r.returncode, 2, source + r.stdout + r.stderr)
                failed = [f["value"] for f in parts["gpu"]["findings"]
                          if f["rule"] == "load-pcie-width" and not f["missing"]]
                self.assertEqual(failed, [4], source)

    def test_a_reading_its_own_record_contradicts_is_no_pass(self):
        # A count, flag or share that says all is well beside the readings it was taken from
        # (edited, or a writer's fault): the rule reading it alone passed the node. Each is now
        # missing at the rule's severity, with why.
        def foreign(r):
            if r["key"] == "gemm.burn" and r["params"].get("dtype") == "bf16":
                r["metrics"]["gpus"][0]["telemetry"]["foreign_processes"]["processes"] = [
                    {"name": "cotenant_spin", "pid": 948, "used_memory_bytes": 545259520}]

        def snapshots_hold_it(r):  # count and list say none, the snapshots they came from one
            if r["key"] == "gemm.burn" and r["params"].get("dtype") == "bf16":
                t = r["metrics"]["gpus"][0]["telemetry"]
                for when in ("before", "after"):
                    t[when]["compute_processes"].append(
                        {"name": "cotenant_spin", "pid": 948, "used_memory_bytes": 545259520})

        def negative(edit):  # no window holds a negative share or time: each passed "<= 0"
            def edit_record(r):
                if r["key"] == "gemm.burn" and r["params"].get("dtype") == "bf16":
                    edit(r["metrics"]["gpus"][0]["telemetry"]["during"])
            return edit_record

        def downtrained(r):
            if r["key"] == "offload.all_gpus_h2d" and r["params"].get("engine"):
                r["metrics"]["per_gpu"][0]["pcie_gen"] = 4

        def slowed(r):
            if r["key"] == "gemm.burn" and r["params"].get("dtype") == "bf16":
                r["metrics"]["gpus"][0]["telemetry"]["during"]["clocks_event_reasons"] = [
                    "hw_slowdown"]
        for edit, rule, says in (
                (foreign, "load-foreign-process", "count reads 0 and the list beside it names 1 "
                 "process: the record contradicts itself"),
                (snapshots_hold_it, "load-foreign-process", "count reads 0 and the window's "
                 "snapshots of the GPU's processes hold 1 process beside railgauge's own"),
                (negative(lambda d: d["reason_fraction"].update(hw_slowdown=-0.3)),
                 "load-hw-slowdown", "reads -0.3, and a share of a window's time is never "
                 "negative"),
                (negative(lambda d: d.update(thermal_violation_s=-1.0)), "load-thermal-violation",
                 "reads -1 s, and a time spent throttled is never negative"),
                (downtrained, "burn-pcie-downtrained", "reads false and the link sampled beside "
                 "it ran at Gen4 x16 of Gen5 x16"),
                (slowed, "load-hw-slowdown", "reads 0 and the window's clocks_event_reasons saw "
                 "hw_slowdown in some sample")):
            with tempfile.TemporaryDirectory() as tmp:
                run = healthy_h200_with(tmp, lambda manifest: None)
                rewrite_records(run, edit)
                for source, r, parts in checked_over_dirs_and_history(tmp, run):
                    self.assertEqual(r.returncode, 2, source + r.stdout + r.stderr)
                    found = [f["detail"] for f in parts["gpu"]["findings"]
                             if f["rule"] == rule and f["missing"] and f["level"] != "info"]
                    self.assertEqual(len(found), 1, (rule, source, found))
                    self.assertIn(says, found[0], source)
        # In a container railgauge's own process is one of NVML's list under a host pid it
        # cannot see: the writer counts one fewer and says so. That is no contradiction.
        def containerised(r):
            if r["key"] == "gemm.burn" and r["params"].get("dtype") == "bf16":
                r["metrics"]["gpus"][0]["telemetry"]["foreign_processes"].update(
                    processes=[{"name": "railgauge", "pid": 4242, "used_memory_bytes": 1 << 30}],
                    note="this process (pid 7) is not among NVML's pids (another PID "
                         "namespace): one of the 1 listed is taken to be it")
        with tempfile.TemporaryDirectory() as tmp:
            run = healthy_h200_with(tmp, lambda manifest: None)
            rewrite_records(run, containerised)
            for source, r, parts in checked_over_dirs_and_history(tmp, run):
                self.assertEqual(r.returncode, 0, source + r.stdout + r.stderr)

    def test_a_gpu_that_fell_off_the_bus_is_named_by_its_slot(self):
        # The bf16 burn's GPU errored and gave no UUID (a GPU off the bus cannot say it): its
        # object was skipped, and the node was said to hold no bf16 burn record, as if the
        # point never ran on it. Its bus id names its slot: the GPU's part fails, with the error.
        def off_the_bus(r):
            if r["key"] == "gemm.burn" and r["params"].get("dtype") == "bf16":
                gpu = r["metrics"]["gpus"][0]
                gpu.pop("uuid")
                gpu.update(verdict="error", tflops=0,
                           error="cudaErrorDevicesUnavailable: GPU has fallen off the bus")
                r.update(status="error", reason="GPU 0: " + gpu["error"])
        with tempfile.TemporaryDirectory() as tmp:
            run = healthy_h200_with(tmp, lambda manifest: None)
            rewrite_records(run, off_the_bus)
            for source, r, parts in checked_over_dirs_and_history(tmp, run):
                self.assertEqual(r.returncode, 2, source + r.stdout + r.stderr)
                gpu = [f for f in parts["gpu"]["findings"] if f["rule"] == "record-status"
                       and f["params"].get("part") == "gpu"]
                self.assertEqual(len(gpu), 1, source)
                self.assertIn("GPU has fallen off the bus", gpu[0]["text"], source)
                self.assertNotIn("no record of 'gemm.burn'", r.stdout, source)

    def test_a_burn_point_that_failed_before_any_gpu_says_so(self):
        # The bf16 burn failed before it measured a GPU (no GPU object in its metrics): every
        # floor of it read "no record of 'gemm.burn' ... on this node", as if the phase had never
        # run, beside record-status failing the very record it said was not there.
        def failed_whole(r):
            if r["key"] == "gemm.burn" and r["params"].get("dtype") == "bf16":
                r.update(status="failed", reason="cublasLt: CUBLAS_STATUS_EXECUTION_FAILED",
                         metrics={})
        with tempfile.TemporaryDirectory() as tmp:
            run = healthy_h200_with(tmp, lambda manifest: None)
            rewrite_records(run, failed_whole)
            for source, r, parts in checked_over_dirs_and_history(tmp, run):
                self.assertEqual(r.returncode, 2, source + r.stdout + r.stderr)
                floor = [f for f in parts["node"]["findings"] if f["rule"] == "burn-gemm-floor"]
                self.assertEqual(len(floor), 1, source)
                self.assertTrue(floor[0]["missing"], source)
                self.assertIn("the point 'gemm.burn' is failed: cublasLt: "
                              "CUBLAS_STATUS_EXECUTION_FAILED (record-status)",
                              floor[0]["detail"], source)
                self.assertNotIn("no record of 'gemm.burn'", r.stdout, source)
                self.assertIn("burn-gemm-floor", parts["gpu"]["not_measured"], source)
                # The phases that ran are judged as ever.
                self.assertNotIn("burn-gemm-fp64-floor", parts["gpu"]["not_measured"], source)

    def test_a_node_of_the_job_that_left_no_run_is_drained(self):
        # Slurm gave the job vm and n2; n2 was down at the start and wrote nothing. It was absent
        # from the verdict, while the nodes whose steps waited for it were drained instead.
        run = next((REFERENCE / "h200-burnin-2026-11-28" / "burnin" / "healthy").iterdir())
        with tempfile.TemporaryDirectory() as tmp:
            out = pathlib.Path(tmp)
            r = subprocess.run([RAILGAUGE, "check", "--rules", "h200-sxm-1gpu", "--expect-hosts",
                                "vm,n2", "--json", str(out / "v.json"), "--drain",
                                str(out / "drain.txt"), "--prometheus", str(out / "p.prom"),
                                str(run)], capture_output=True, text=True, timeout=120)
            self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
            verdict = json.loads((out / "v.json").read_text())
            self.assertEqual((out / "drain.txt").read_text(), "n2\n")
            self.assertEqual({n["host"]: n["verdict"] for n in verdict["nodes"]},
                             {"vm": "pass", "n2": "fail"})
            n2 = next(p for p in verdict["parts"] if p["host"] == "n2")
            self.assertEqual([f["rule"] for f in n2["findings"]], ["expected-host"])
            self.assertIn("no run of it was given", n2["findings"][0]["detail"])
            self.assertIn('railgauge_check_node_verdict{host="n2",rules="h200-sxm-1gpu"} 2',
                          (out / "p.prom").read_text())

    def test_a_figure_no_gpu_can_reach_fails(self):
        # A timer around work that did not run: the bf16 burn read 1,500 TFLOP/s and the HBM
        # copy 6,000 GB/s, above the H200's dense peak (989.4) and its HBM3e (4,800). Only
        # floors judged them, and the node passed.
        with tempfile.TemporaryDirectory() as tmp:
            run = healthy_h200_with(tmp, lambda manifest: None)

            def impossible(r):
                if r["key"] == "gemm.burn" and r["params"].get("dtype") == "bf16":
                    gpu = r["metrics"]["gpus"][0]
                    gpu["tflops_min"] *= 1500.0 / gpu["tflops"]  # as steady as it was
                    gpu["tflops"] = 1500.0
                if r["key"] == "memory.burn":
                    r["metrics"]["per_gpu"][0]["bandwidth_gbytes_per_s"] = 6000.0
            rewrite_records(run, impossible)
            for source, r, parts in checked_over_dirs_and_history(tmp, run):
                self.assertEqual(r.returncode, 2, source + r.stdout + r.stderr)
                failed = sorted((f["rule"], f["value"]) for f in parts["gpu"]["findings"]
                                if f["level"] == "fail" and not f["missing"])
                self.assertEqual(failed, [("burn-gemm-ceiling", 1500.0),
                                          ("burn-hbm-ceiling", 6000.0)], source)

    def test_a_fleet_that_ingests_then_checks_counts_its_failed_runs(self):
        # db ingest, then check --history: the profile's verdicts of the newest runs were never
        # stored, so three failed co-tenant burn-ins and a healthy one read PASS, where the
        # same runs given to check --history as directories warned of a repeat offender.
        shared = next((REFERENCE / "h200-burnin-2026-11-28" / "burnin" / "cotenant-15").iterdir())
        healthy = next((REFERENCE / "h200-burnin-2026-11-28" / "burnin" / "healthy").iterdir())
        with tempfile.TemporaryDirectory() as tmp:
            db = f"sqlite:{pathlib.Path(tmp) / 'fleet.db'}"
            runs = [dated_copy(shared, pathlib.Path(tmp) / f"f{day}", day) for day in (1, 2, 3)]
            runs.append(dated_copy(healthy, pathlib.Path(tmp) / "ok", 4))
            for run in runs:
                subprocess.run([RAILGAUGE, "db", "ingest", "--db", db, "--quiet", str(run)],
                               check=True, timeout=120)
                r = subprocess.run([RAILGAUGE, "check", "--rules", "h200-sxm-1gpu", "--format",
                                    "json", "--history", db], capture_output=True, text=True,
                                   timeout=120)
            self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
            said = [f["detail"] for p in json.loads(r.stdout)["parts"] for f in p["findings"]
                    if f["rule"] == "history-repeat-offender"]
            self.assertEqual(len(said), 1, r.stdout)
            self.assertIn("failed 3 of its last 4 runs", said[0])

    def test_runs_of_one_host_judged_together_each_keep_their_own_verdict(self):
        # Three healthy runs and a failed one given to one check --history: the node's FAIL was
        # stored against all four, and a fifth healthy run then warned of a repeat offender.
        shared = next((REFERENCE / "h200-burnin-2026-11-28" / "burnin" / "cotenant-15").iterdir())
        healthy = next((REFERENCE / "h200-burnin-2026-11-28" / "burnin" / "healthy").iterdir())
        with tempfile.TemporaryDirectory() as tmp:
            tmp = pathlib.Path(tmp)
            db = tmp / "fleet.db"
            runs = [dated_copy(healthy, tmp / f"ok{day}", day) for day in (1, 2, 3)]
            runs.append(dated_copy(shared, tmp / "f", 4))
            r = subprocess.run([RAILGAUGE, "check", "--rules", "h200-sxm-1gpu", "--history",
                                f"sqlite:{db}", *map(str, runs)], capture_output=True,
                               text=True, timeout=120)
            self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
            with sqlite3.connect(db) as con:
                levels = dict(con.execute(
                    "SELECT ru.run_id, MAX(v.level = 'fail') FROM verdicts v JOIN runs ru ON "
                    "ru.id = v.run_id WHERE v.rule = 'verdict' GROUP BY ru.run_id").fetchall())
            self.assertEqual(levels, {"2026-11-01T10-00-00Z-vm-1": 0,
                                      "2026-11-02T10-00-00Z-vm-2": 0,
                                      "2026-11-03T10-00-00Z-vm-3": 0,
                                      "2026-11-04T10-00-00Z-vm-4": 1})
            fifth = dated_copy(healthy, tmp / "ok5", 5)
            r = subprocess.run([RAILGAUGE, "check", "--rules", "h200-sxm-1gpu", "--history",
                                f"sqlite:{db}", str(fifth)], capture_output=True, text=True,
                               timeout=120)
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)

    def test_another_hosts_records_in_a_run_fail_its_node(self):
        # A copy of the bf16 burn record of another host (node7, 15 % slow) appended to the
        # run's records: check over the directory passed vm and drained node7, which never ran
        # here (the history refuses such a run).
        with tempfile.TemporaryDirectory() as tmp:
            run = healthy_h200_with(tmp, lambda manifest: None)
            first = json.loads((run / "records.jsonl").read_text().splitlines()[0])
            first["host"] = "node7"
            with open(run / "records.jsonl", "a") as f:
                f.write(json.dumps(first) + "\n")
            r = subprocess.run([RAILGAUGE, "check", "--rules", "h200-sxm-1gpu", str(run)],
                               capture_output=True, text=True, timeout=120)
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        self.assertIn("its records name host 'node7' besides the run's 'vm'", r.stdout + r.stderr)
        self.assertRegex(r.stdout, r"drain: .*vm")

    def test_another_runs_records_under_a_runs_manifest_fail_its_node(self):
        # The co-tenant run (12 violations) with the healthy run's records put in its place: its
        # run.json was judged with records its run never wrote, PASS over the directory and over
        # the history it was ingested into. Each record names the run that wrote it.
        burnin = REFERENCE / "h200-burnin-2026-11-28" / "burnin"
        with tempfile.TemporaryDirectory() as tmp:
            run = pathlib.Path(tmp) / "run"
            shutil.copytree(next((burnin / "cotenant-50").iterdir()), run)
            shutil.copy(next((burnin / "healthy").iterdir()) / "records.jsonl", run)
            r = subprocess.run([RAILGAUGE, "check", "--rules", "h200-sxm-1gpu", "--wide",
                                str(run)], capture_output=True, text=True, timeout=120)
            self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
            self.assertIn("its records name run '2026-11-28T21-10-32Z-vm-633', its run.json "
                          "'2026-11-28T21-12-06Z-vm-957'", r.stdout + r.stderr)
            db = f"sqlite:{pathlib.Path(tmp) / 'history.db'}"
            ingest = subprocess.run([RAILGAUGE, "db", "ingest", "--db", db, str(run)],
                                    capture_output=True, text=True, timeout=120)
            self.assertNotEqual(ingest.returncode, 0, ingest.stdout)
            self.assertIn("its records name run", ingest.stderr)
            r = subprocess.run([RAILGAUGE, "check", "--rules", "h200-sxm-1gpu", "--history", db],
                               capture_output=True, text=True, timeout=120)
            self.assertEqual(r.returncode, 2, r.stdout + r.stderr)

    def test_an_inventory_whose_gpus_are_no_list_fails_without_a_crash(self):
        # "gpus": "x" in run.json's inventory crashed check (exit 3, no file or field named).
        r = checked_healthy_h200_with(
            lambda manifest: manifest["inventory"]["nvml"].update(gpus="x"), "h200-sxm-1gpu")
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        self.assertIn("missing, the inventory's ", r.stdout)
        self.assertIn("vm    node                 FAIL     clocks-throttled (missing)", r.stdout)

    def test_wrong_data_counted_beside_a_verdict_of_ok_is_no_pass(self):
        # 3 wrong words of the pattern test, 12 mismatched GEMM elements: each GPU object said
        # verdict ok (a writer's bug, an edited file) and check took the verdict.
        for key, field in (("memory.pattern", "wrong_words"), ("gemm.burn", "mismatched_elements")):
            with self.subTest(key=key), tempfile.TemporaryDirectory() as tmp:
                run = healthy_h200_with(tmp, lambda manifest: None)

                def wrong(r):
                    if r["key"] == key:
                        for gpu in r["metrics"].get("per_gpu") or r["metrics"].get("gpus"):
                            gpu[field] = 3
                rewrite_records(run, wrong)
                for source, r, parts in checked_over_dirs_and_history(tmp, run):
                    self.assertEqual(r.returncode, 2, source + r.stdout + r.stderr)
                    self.assertEqual(parts["gpu"]["verdict"], "fail", source)

    def test_a_collective_naming_a_rank_with_wrong_elements_is_no_pass(self):
        # The all_reduce records name rank 0 among the ranks whose buffers held wrong elements,
        # beside a total of 0: the record contradicts itself, and it passed the node.
        with tempfile.TemporaryDirectory() as tmp:
            run = healthy_h200_with(tmp, lambda manifest: None)

            def wrong_rank(r):
                if r["key"] == "collectives.nccl_all_reduce":
                    r["metrics"]["wrong_element_ranks"] = [0]
            rewrite_records(run, wrong_rank)
            self.assert_failed_saying(tmp, run, "node", "data-check", "wrong_element_ranks = [0]")

    def test_a_burnin_with_its_data_check_off_signs_no_node_off(self):
        # --no-verify: the host copies' data were never compared. A GPU that returned wrong data
        # would have passed too; the burn-in profiles fail it (the default level warns).
        with tempfile.TemporaryDirectory() as tmp:
            run = healthy_h200_with(tmp, lambda manifest: None)

            def unverified(r):
                if "verified" in r["metrics"]:
                    r["metrics"]["verified"] = False
            rewrite_records(run, unverified)
            for source, r, parts in checked_over_dirs_and_history(tmp, run):
                self.assertEqual(r.returncode, 2, source + r.stdout + r.stderr)
                self.assertIn("data-check (missing)", r.stdout, source)

    def test_a_burnin_that_does_not_show_its_data_check_signs_no_node_off(self):
        # The burn phases always check their results and say so (metrics.verified); a record
        # without it, or a GEMM burn whose fp64 reference check compared no element, showed no
        # check: before, both passed the node.
        def without_verified(r):
            r["metrics"].pop("verified", None)

        def reference_checked_nothing(r):
            for g in r["metrics"].get("gpus", []) if r["key"] == "gemm.burn" else []:
                g["reference_checked_elements"] = 0
        # And an ok record that counts wrong results beside verified true (edited, or a check
        # that counted and did not fail): a GPU's own count fails its part (record-status), and
        # the record's count passed the node.
        def copies_wrong(r):
            if r["key"] == "offload.all_gpus_h2d":
                r["metrics"]["wrong_words"] = 5

        def hbm_wrong(r):
            if r["key"] == "memory.burn":
                r["metrics"]["wrong_elements"] = 5

        # A record of no burn phase (always checked) but its own count: over the history its
        # metrics were never read, and the all_reduce with 3 wrong elements passed there.
        def reduced_wrong(r):
            if (r["key"] == "collectives.nccl_all_reduce"
                    and r["params"]["in_place"] == "out_of_place"):
                r["metrics"]["wrong_elements_this_process"] = 3
        for edit, says in ((without_verified, "carries no metrics.verified"),
                           (reduced_wrong, "collectives.nccl_all_reduce: counts "
                            "wrong_elements_this_process = 3"),
                           (reference_checked_nothing, "no element against the fp64 reference"),
                           (copies_wrong, "offload.all_gpus_h2d: counts wrong_words = 5 and is "
                            "ok: the record contradicts itself"),
                           (hbm_wrong, "memory.burn: counts wrong_elements = 5")):
            with tempfile.TemporaryDirectory() as tmp:
                run = healthy_h200_with(tmp, lambda manifest: None)
                rewrite_records(run, edit)
                for source, r, parts in checked_over_dirs_and_history(tmp, run):
                    self.assertEqual(r.returncode, 2, source + r.stdout + r.stderr)
                    self.assertIn("data-check (missing)", r.stdout, source)
                    found = [f for f in parts["node"]["findings"] if f["rule"] == "data-check"]
                    self.assertEqual(len(found), 1, source)
                    self.assertIn(says, found[0]["detail"], source)

    def test_a_burnin_stopped_before_its_first_record_is_judged_unfinished(self):
        # SIGTERM before the first point: check answered "no readable record in the input" (exit
        # 4, bad input: a launcher drains nobody on it). The node is judged, unfinished: a warning
        # (nothing measured, so no pass; stopped from outside, so no drain), where a node whose
        # run.json still says running (killed) fails.
        for status, exit_status in (("interrupted", 1), ("running", 2)):
            with tempfile.TemporaryDirectory() as tmp:
                run = healthy_h200_with(tmp, lambda m: m.update(status=status, counts={}))
                (run / "records.jsonl").write_text("")
                r = subprocess.run([RAILGAUGE, "check", "--rules", "h200-sxm-1gpu", str(run)],
                                   capture_output=True, text=True, timeout=120)
            self.assertEqual(r.returncode, exit_status, r.stdout + r.stderr)
            self.assertIn("run-complete", r.stdout)
            self.assertEqual("drain: vm" in r.stdout, status == "running", r.stdout)
            self.assertEqual("interrupted before its first record" in r.stdout + r.stderr,
                             status == "interrupted", r.stdout + r.stderr)

    def test_a_complete_burnin_whose_records_are_empty_is_judged(self):
        # run.json says complete, records.jsonl is empty: "no readable record in the input"
        # (exit 4, bad input, drained by no one). The node is judged: its points are missing.
        with tempfile.TemporaryDirectory() as tmp:
            run = healthy_h200_with(tmp, lambda manifest: None)
            (run / "records.jsonl").write_text("")
            r = subprocess.run([RAILGAUGE, "check", "--rules", "h200-sxm-1gpu", str(run)],
                               capture_output=True, text=True, timeout=120)
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        self.assertIn("run.json says status 'complete', and no record of it was read",
                      r.stdout + r.stderr)
        self.assertIn("drain: vm", r.stdout)

    def test_a_temperature_limit_read_beside_no_reading_is_no_pass(self):
        # NVML read the HBM's limit and no HBM temperature all phase: DCGM takes the blank as 0 C
        # and passes it. Here it is a missing value that fails the GPU, over the directories and
        # the fleet history alike; with no limit either (the committed run as it is) it is info.
        with tempfile.TemporaryDirectory() as tmp:
            run = healthy_h200_with(tmp, lambda manifest: None)

            def unread(r):
                if r["key"] == "gemm.burn" and r["params"].get("dtype") == "bf16":
                    r["metrics"]["gpus"][0]["telemetry"]["during"].update(
                        memory_temperature_c_max=None, memory_temperature_limit_c=95.0)
            rewrite_records(run, unread)
            for source, r, parts in checked_over_dirs_and_history(tmp, run):
                self.assertEqual(r.returncode, 2, source + r.stdout + r.stderr)
                missing = [f for f in parts["gpu"]["findings"]
                           if f["rule"] == "load-memory-temperature" and f["missing"]]
                failed = [f for f in missing if f["level"] != "info"]
                self.assertEqual([f["level"] for f in failed], ["fail"], source + r.stdout)
                self.assertIn("not a number (over 95)", failed[0]["detail"], source)
                self.assertGreater(len(missing), 1, source)  # the other phases: info
                self.assertEqual(parts["gpu"]["verdict"], "fail", source)

    def test_a_profile_that_reads_none_of_the_records_is_no_pass(self):
        # A profile whose only rules that pass read the inventory (a fabric profile, say, given a
        # burn-in alone) read none of the burn-in's records: nothing-judged warns (its default
        # level; a profile's unjudged_nodes sets it). Its
        # inventory passing once counted as reading the node, and it passed. --inventory-only
        # leaves the records unread on purpose, and passes.
        with tempfile.TemporaryDirectory() as tmp:
            profile = pathlib.Path(tmp) / "inventory-and-nccl.yaml"
            profile.write_text("""schema: railgauge.rules/1
name: inventory-and-nccl
rules:
  - id: gpu-count
    category: health
    severity: fail
    inventory: node.gpu_count
    compare: ">="
    value: 1
  - id: alltoall-floor
    category: nvlink
    severity: fail
    on_missing: info
    select: {key: "collectives.nccl_all_to_all"}
    metric: metrics.busbw_gbytes_per_s
    compare: ">="
    value: 1
""")
            run = REFERENCE / "h200-burnin-2026-11-28" / "burnin" / "healthy"
            r = subprocess.run([RAILGAUGE, "check", "--rules", str(profile), "--wide", str(run)],
                               capture_output=True, text=True, timeout=120)
            self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
            self.assertIn("nothing-judged", r.stdout)
            self.assertIn("no rule of inventory-and-nccl selects any of its", r.stdout)
            r = subprocess.run([RAILGAUGE, "check", "--rules", str(profile), "--inventory-only",
                                str(run)], capture_output=True, text=True, timeout=120)
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)


if __name__ == "__main__":
    RAILGAUGE = sys.argv.pop(1)
    unittest.main()
