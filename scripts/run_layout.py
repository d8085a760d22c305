#!/usr/bin/env python3
"""The layout a launched step really ran at, from its run.json files, against the one it states.

    run_layout.py DIR --runs R --world-size S --ranks-per-node P --nodes N

DIR is a step's --out directory. Every rank writes a run.json (one rank: <run-id>/run.json;
several: <run-id>/rank-NNNNN/run.json) naming its node (`host`: SLURMD_NODENAME under Slurm) and
its world (`world.size`). The step must have made R runs, each of S ranks (every rank present,
each saying size S), P ranks on each of its nodes, N nodes in all. srun once took the job's
SLURM_NTASKS over --ntasks-per-node and ran one rank where eight were stated, with every exit
code 0: this is what catches that (scripts/slurm_ci.sh).

Prints one line per run; exit 0 as stated, 1 otherwise (each difference said), 2 bad usage.
"""
import argparse
import collections
import json
import pathlib
import sys


def layout(out_dir):
    """{run id: [(rank, world size, host)]} from every run.json under out_dir."""
    runs = collections.defaultdict(list)
    for path in sorted(pathlib.Path(out_dir).rglob("run.json")):
        m = json.loads(path.read_text())
        world = m.get("world") or {}
        runs[m["run"]].append((m.get("rank"), world.get("size"), m.get("host")))
    return runs


def differences(runs, want_runs, world_size, ranks_per_node, nodes):
    """What differs from the stated layout, one sentence each; [] when nothing does."""
    problems = []
    if len(runs) != want_runs:
        problems.append(f"{len(runs)} run(s), not {want_runs}")
    hosts = set()
    for run_id, ranks in sorted(runs.items()):
        sizes = sorted({size for _, size, _ in ranks}, key=str)
        if sizes != [world_size]:
            problems.append(f"run {run_id}: world.size {sizes}, not {world_size}")
        if sorted(rank for rank, _, _ in ranks) != list(range(world_size)):
            problems.append(f"run {run_id}: ranks {sorted(r for r, _, _ in ranks)}, not "
                            f"0..{world_size - 1}")
        per_node = collections.Counter(host for _, _, host in ranks)
        hosts |= set(per_node)
        for host, n in sorted(per_node.items()):
            if n != ranks_per_node:
                problems.append(f"run {run_id}: {n} rank(s) on {host}, not {ranks_per_node}")
    if len(hosts) != nodes:
        problems.append(f"{len(hosts)} node(s) ({', '.join(sorted(hosts))}), not {nodes}")
    return problems


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("dir")
    for flag in ("--runs", "--world-size", "--ranks-per-node", "--nodes"):
        p.add_argument(flag, type=int, required=True)
    a = p.parse_args(argv)
    try:
        runs = layout(a.dir)
    except (OSError, ValueError, KeyError) as e:
        print(f"run_layout: {a.dir}: {e}", file=sys.stderr)
        return 1
    for run_id, ranks in sorted(runs.items()):
        per_node = collections.Counter(host for _, _, host in ranks)
        print(f"{a.dir}: run {run_id}: world.size {ranks[0][1]}, ranks per node "
              + " ".join(f"{h}:{n}" for h, n in sorted(per_node.items())))
    problems = differences(runs, a.runs, a.world_size, a.ranks_per_node, a.nodes)
    for problem in problems:
        print(f"run_layout: {a.dir}: {problem}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
