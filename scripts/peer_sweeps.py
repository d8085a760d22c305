"""Interleaving by sweep: railgauge's whole sweep, then the peer's, ABAB... for several rounds.

Interleaving point by point (peer_pairs.interleave) starts one railgauge process per point and
round. On one H100 that cost about 8.5 s per GEMM point (CUDA and cuBLASLt start-up, the
candidate algorithms), so the 96-point TP sweep would take 14 minutes for 3 rounds. By sweep,
each round re-runs every source run's own command once (its run.json argv, with this binary and
a round directory as --out), then the peer measures every point; a point's two measurements are
then a sweep apart instead of seconds, and the GPU is as busy and as warm in both (back-to-back
points), which is what the power state of a large GEMM depends on. The per-round ratios and
their interval are made as for points (peer_pairs.interleaved_metrics).

Needs neither torch nor a GPU.
"""
import json
import os
import subprocess

import peer_pairs
import peer_records


def argv_of(run_dir):
    """The command a railgauge run directory was made by (its run.json argv)."""
    path = os.path.join(run_dir, "run.json")
    try:
        with open(path, encoding="utf-8") as f:
            argv = json.load(f).get("argv")
    except (OSError, ValueError) as e:
        raise ValueError(f"{run_dir}: cannot read its run.json ({e}); give a railgauge run "
                         "directory <out>/<run-id>") from None
    if not isinstance(argv, list) or len(argv) < 2:
        raise ValueError(f"{path}: no argv to run the sweep again")
    return argv


def sweep_command(binary, argv, out_dir):
    """`argv` run again by `binary` into `out_dir`: its --out and --resume dropped, quiet."""
    cmd, skip = [binary], False
    for i, a in enumerate(argv[1:], start=1):
        if skip:
            skip = False
            continue
        if a in ("--out", "--resume"):
            skip = True
            continue
        if a.startswith(("--out=", "--resume=")):
            continue
        cmd.append(a)
    return cmd + ["--out", out_dir, "-q"]


class RailgaugeSweepRunner:
    """Runs each source run's sweep once per round (run_round) and gives a point's median
    seconds per call from the last round (time_of); each round's run directories are kept under
    `work_dir` as evidence."""

    def __init__(self, binary, work_dir, run_dirs, lib_path=None, timeout_s=1800,
                 metric="time_s", run=subprocess.run, source_first=False):
        self.binary, self.work_dir, self.lib_path = binary, work_dir, lib_path
        self.run_dirs, self.source_first = list(run_dirs), source_first
        self.argvs = [argv_of(d) for d in run_dirs]
        self.timeout_s, self.metric, self.run = timeout_s, metric, run
        self.rounds_run, self.records, self.problems = 0, [], []

    def run_round(self):
        """One railgauge sweep; with source_first, the first round is the source runs
        themselves (a reference run's GEMM peers start the moment their source step ends)."""
        if self.source_first and self.rounds_run == 0:
            self.rounds_run, self.problems, self.records = 1, [], []
            for d in self.run_dirs:
                self.records.extend(peer_records.read_records(d))
            return
        self.rounds_run += 1
        out = peer_pairs.round_dir(self.work_dir, self.rounds_run)
        env = peer_pairs.railgauge_env(self.lib_path)
        self.problems = []
        for argv in self.argvs:
            cmd = sweep_command(self.binary, argv, out)
            try:
                p = self.run(cmd, env=env, capture_output=True, text=True,
                             timeout=self.timeout_s)
                if p.returncode not in (0, 1):  # 1: some point failed; its record says so
                    self.problems.append(f"{' '.join(cmd)} exited {p.returncode}: "
                                         f"{(p.stderr or p.stdout).strip()[-300:]}")
            except subprocess.TimeoutExpired:
                self.problems.append(f"{' '.join(cmd)} ran past {self.timeout_s} s")
        self.records = []
        for path in peer_records.find_record_files(out):
            self.records.extend(peer_records.read_records(path))

    def time_of(self, source):
        """The point's seconds per call in the last round; ValueError naming what is missing."""
        try:
            return peer_pairs.point_time_s(self.records, source, self.metric)
        except ValueError as e:
            raise ValueError("; ".join([str(e)] + self.problems)) from None


def interleave_sweeps(points, runner, measure_peer, rounds, source_of=lambda point: point):
    """`rounds` rounds of railgauge's sweep (runner.run_round) then the peer on every point:
    returns [(point, [ours seconds per round], [peer seconds per round], error or None)]; a point
    railgauge or the peer could not measure in some round keeps its error and is measured on.
    `source_of` gives a point's railgauge record."""
    if rounds < 3:
        raise ValueError(f"--interleave {rounds}: give at least 3 rounds, so that a round's "
                         "drift shows in the interval")
    ours = [[] for _ in points]
    peer = [[] for _ in points]
    errors = [None] * len(points)
    for _ in range(rounds):
        runner.run_round()
        for i, point in enumerate(points):
            try:
                ours[i].append(runner.time_of(source_of(point)))
                peer[i].append(measure_peer(point))
            except (ValueError, RuntimeError) as e:
                errors[i] = errors[i] or f"{type(e).__name__}: {e}"
    return [(p, o, q, e) for p, o, q, e in zip(points, ours, peer, errors)]
