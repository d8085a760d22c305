#!/usr/bin/env python3
"""Fault injection on the TCP store: 2,000 idle connections (no hello, no token) to rank 0's
store while rank 0 runs at `ulimit -n 1024`, the common default. The store must keep below its
descriptor limit, stay nearly idle while the connections sit (it spun at 97 % CPU on accept()
before), and let the real ranks in: the 3-rank run ends `ok` on every rank.

Run by CTest:  store_flood_test.py RAILGAUGE TestName.test_name
"""
import json
import os
import pathlib
import resource
import socket
import subprocess
import sys
import tempfile
import time
import unittest

ROOT = pathlib.Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "scripts"))
sys.path.insert(0, str(ROOT / "tests" / "support"))
import validate_run  # noqa: E402
from srun_ranks import end_all, free_port  # noqa: E402

RAILGAUGE = None  # set from argv
FLOOD = 2000
RANK0_NOFILE = 1024
SIT_S = 3.0
ARGS = ["rdma", "--filter", "rdma.tcp_bw", "-a", "mode=ranks", "-a", "size_bytes=1MiB,4MiB",
        "--time-budget", "0.3", "-q", "--store-timeout", "60"]


def cpu_s(pid):
    """utime + stime of a process, in seconds (/proc/PID/stat fields 14 and 15)."""
    fields = pathlib.Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def open_fds(pid):
    return len(os.listdir(f"/proc/{pid}/fd"))


class StoreFloodTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="railgauge-flood-")
        self.out = pathlib.Path(self.tmp.name)
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        want = FLOOD + 256
        if soft < want:
            if hard != resource.RLIM_INFINITY and hard < want:
                self.skipTest(f"this process may open {hard} descriptors, the test needs {want}")
            resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))

    def tearDown(self):
        self.tmp.cleanup()

    def start(self, rank, store, token):
        env = dict(os.environ, SLURM_NTASKS="3", SLURM_PROCID=str(rank), SLURM_LOCALID=str(rank),
                   RAILGAUGE_RUN_TOKEN=token)
        limit = (lambda: resource.setrlimit(resource.RLIMIT_NOFILE,
                                            (RANK0_NOFILE, RANK0_NOFILE))) if rank == 0 else None
        return subprocess.Popen([RAILGAUGE, *ARGS, "--out", str(self.out), "--store", store],
                                env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True, preexec_fn=limit)

    def test_two_thousand_idle_connections_leave_a_three_rank_run_ok(self):
        port = free_port()
        store, token = f"tcp://127.0.0.1:{port}", f"flood-{os.getpid()}"
        procs = [self.start(0, store, token)]
        flood = []
        try:
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=1).close()
                    break
                except OSError:
                    time.sleep(0.05)
            for _ in range(FLOOD):
                s = socket.socket()
                s.setblocking(False)
                s.connect_ex(("127.0.0.1", port))
                flood.append(s)
            time.sleep(1.0)  # the store takes in what it takes
            pid = procs[0].pid
            before, started = cpu_s(pid), time.monotonic()
            peak_fds = open_fds(pid)
            while time.monotonic() - started < SIT_S:
                time.sleep(0.2)
                peak_fds = max(peak_fds, open_fds(pid))
            share = (cpu_s(pid) - before) / (time.monotonic() - started)
            print(f"rank 0 while {FLOOD} idle connections sat: CPU {100 * share:.1f} %, "
                  f"at most {peak_fds} descriptors open of {RANK0_NOFILE}", file=sys.stderr)
            procs += [self.start(rank, store, token) for rank in (1, 2)]
            outputs = [p.communicate(timeout=240) for p in procs]
        finally:
            for s in flood:
                s.close()
            end_all(procs)
        self.assertLess(share, 0.10, "the store was busy while the connections sat")
        self.assertLess(peak_fds, RANK0_NOFILE - 200)
        [run_dir] = [p for p in self.out.iterdir() if p.is_dir()]
        for rank, (p, (_, err)) in enumerate(zip(procs, outputs)):
            self.assertEqual(p.returncode, 0, f"rank {rank}: {err}")
            rank_dir = run_dir / f"rank-{rank:05d}"
            manifest = json.loads((rank_dir / "run.json").read_text())
            self.assertEqual(manifest["status"], "complete", f"rank {rank}")
            problems, _ = validate_run.validate_run_dir(rank_dir, True)
            self.assertEqual(problems, [], f"rank {rank}")


if __name__ == "__main__":
    RAILGAUGE = sys.argv[1]
    unittest.main(argv=[sys.argv[0], sys.argv[2]], verbosity=2)
