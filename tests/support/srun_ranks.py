"""railgauge processes started the way srun starts them, for tests on one machine: the rank and
world size in SLURM_* variables, a TCP store on a loopback port, one run token for all ranks."""
import os
import socket
import subprocess
import time

from run_dirs import records_of  # noqa: F401 (its callers read a rank's records through it)


def free_port():
    """A loopback port nothing listens on now (the kernel's pick, released for rank 0)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_first_record(out_dir, timeout_s=120, ranks=1):
    """Waits until ranks 0..ranks-1 of the run under `out_dir` have each written a record (their
    first point is over); returns rank 0's records file, or None at the timeout. On a busy host
    rank 0 may write its first record well before the others write theirs."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        for path in out_dir.glob("*/rank-00000/records.jsonl"):
            others = [path.parent.parent / f"rank-{r:05d}" / "records.jsonl" for r in range(ranks)]
            if all(p.exists() and p.stat().st_size > 0 for p in others):
                return path
        time.sleep(0.01)
    return None


def start_ranks(railgauge, args_of_rank, ranks, store_timeout_s):
    """Starts `ranks` processes of `railgauge`; args_of_rank(rank) gives each one's arguments,
    to which the store settings are added. Returns the Popen objects (text pipes)."""
    store = f"tcp://127.0.0.1:{free_port()}"
    procs = []
    for rank in range(ranks):
        env = dict(os.environ, SLURM_NTASKS=str(ranks), SLURM_PROCID=str(rank),
                   SLURM_LOCALID=str(rank), RAILGAUGE_RUN_TOKEN=f"test-{os.getpid()}")
        args = [railgauge, *args_of_rank(rank), "--store", store, "--store-timeout",
                str(store_timeout_s)]
        procs.append(subprocess.Popen(args, env=env, stdout=subprocess.PIPE,
                                      stderr=subprocess.PIPE, text=True))
    return procs


def end_all(procs):
    """Kills what still runs and collects every process's output (closing its pipes)."""
    for p in procs:
        if p.poll() is None:
            p.kill()
        p.communicate()
