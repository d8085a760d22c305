#!/usr/bin/env python3
"""How fast railgauge reads a large ibnetdiscover dump, and in how much memory: a benchmark,
not a test. It writes a synthetic dump of about --lines lines in ibnetdiscover's own format
(switch blocks with tabs, Ca blocks, NodeDescriptions "MF0;leaf-00001:MQM9701/U1" and
"node00001 mlx5_3"): a rail-optimised two-level tree of leaves with 32 NICs and 32 uplinks each,
8 rails, 64-port spines. Then it runs `railgauge fabric show FILE --json` under /usr/bin/time -v
and prints the wall time, the peak resident memory and what show counted.

  scripts/fabric_read_bench.py [--lines 1000000] [--railgauge build/bin/railgauge] [--keep FILE]
"""
import argparse
import json
import os
import pathlib
import re
import subprocess
import sys
import tempfile

NICS_PER_LEAF = 32
UPLINKS_PER_LEAF = 32
SPINE_PORTS = 64
RAILS = 8
# Lines a leaf brings: its block (header, NIC and uplink ports, a blank) and its NICs' Ca blocks;
# each spine port adds one line to a spine block.
LINES_PER_LEAF = 6 + NICS_PER_LEAF + UPLINKS_PER_LEAF + 1 + NICS_PER_LEAF * 7 + UPLINKS_PER_LEAF


def guid(kind, n):
    return f"{kind:x}{n:015x}"


def write_dump(path, lines_wanted):
    leaves = max(RAILS, lines_wanted // LINES_PER_LEAF // RAILS * RAILS)
    spines = leaves * UPLINKS_PER_LEAF // SPINE_PORTS
    leaf_g = [guid(1, i) for i in range(leaves)]
    spine_g = [guid(2, i) for i in range(spines)]
    spine_ports = [[] for _ in range(spines)]  # (port, leaf, leaf port)
    with open(path, "w") as out:
        out.write("#\n# Topology file: synthetic, written by scripts/fabric_read_bench.py\n#\n\n")
        for leaf in range(leaves):
            rail, group = leaf % RAILS, leaf // RAILS
            out.write(f"vendid=0x2c9\ndevid=0xd2f2\nsysimgguid=0x{leaf_g[leaf]}\n"
                      f"switchguid=0x{leaf_g[leaf]}({leaf_g[leaf]})\n"
                      f'Switch\t65 "S-{leaf_g[leaf]}"\t\t# "MF0;leaf-{leaf:05d}:MQM9701/U1" '
                      f"enhanced port 0 lid {leaf + 1} lmc 0\n")
            for p in range(NICS_PER_LEAF):
                host = group * NICS_PER_LEAF + p
                ca = guid(3, host * RAILS + rail)
                out.write(f'[{p + 1}]\t"H-{ca}"[1]({ca}) \t\t# "node{host:05d} mlx5_{rail}" '
                          f"lid {100000 + host} 4xNDR\n")
            for u in range(UPLINKS_PER_LEAF):
                s = (leaf * UPLINKS_PER_LEAF + u) % spines
                sp = len(spine_ports[s]) + 1
                spine_ports[s].append((sp, leaf, NICS_PER_LEAF + u + 1))
                out.write(f'[{NICS_PER_LEAF + u + 1}]\t"S-{spine_g[s]}"[{sp}]\t\t# '
                          f'"MF0;spine-{s:04d}:MQM9701/U1" lid {50000 + s} 4xNDR\n')
            out.write("\n")
            for p in range(NICS_PER_LEAF):
                host = group * NICS_PER_LEAF + p
                ca = guid(3, host * RAILS + rail)
                out.write(f"vendid=0x2c9\ndevid=0x1021\nsysimgguid=0x{ca}\ncaguid=0x{ca}\n"
                          f'Ca\t1 "H-{ca}"\t\t# "node{host:05d} mlx5_{rail}"\n'
                          f'[1]({ca}) \t"S-{leaf_g[leaf]}"[{p + 1}]\t\t# lid {100000 + host} '
                          f'lmc 0 "MF0;leaf-{leaf:05d}:MQM9701/U1" lid {leaf + 1} 4xNDR\n\n')
        for s in range(spines):
            out.write(f"vendid=0x2c9\ndevid=0xd2f2\nsysimgguid=0x{spine_g[s]}\n"
                      f"switchguid=0x{spine_g[s]}({spine_g[s]})\n"
                      f'Switch\t65 "S-{spine_g[s]}"\t\t# "MF0;spine-{s:04d}:MQM9701/U1" '
                      f"enhanced port 0 lid {50000 + s} lmc 0\n")
            for sp, leaf, lp in spine_ports[s]:
                out.write(f'[{sp}]\t"S-{leaf_g[leaf]}"[{lp}]\t\t# '
                          f'"MF0;leaf-{leaf:05d}:MQM9701/U1" lid {leaf + 1} 4xNDR\n')
            out.write("\n")
    return leaves, spines


def main():
    here = pathlib.Path(__file__).resolve().parents[1]
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lines", type=int, default=1_000_000)
    ap.add_argument("--railgauge", default=str(here / "build" / "bin" / "railgauge"))
    ap.add_argument("--keep", help="write the dump here and keep it")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = pathlib.Path(args.keep or os.path.join(tmp, "ibnetdiscover.out"))
        leaves, spines = write_dump(path, args.lines)
        with open(path) as f:
            lines = sum(1 for _ in f)
        run = subprocess.run(["/usr/bin/time", "-v", args.railgauge, "fabric", "show", str(path),
                              "--json"], capture_output=True, text=True, timeout=600)
        if run.returncode != 0:
            sys.exit(f"railgauge fabric show failed ({run.returncode}):\n{run.stderr}")
        wall = re.search(r"Elapsed \(wall clock\) time.*: (\S+)", run.stderr).group(1)
        rss_kib = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", run.stderr).group(1))
        shown = json.loads(run.stdout)
        print(f"{lines} lines, {path.stat().st_size / 1e6:.0f} MB ({leaves} leaves, {spines} "
              f"spines written): read in {wall} (m:ss), peak resident {rss_kib / 2**20:.2f} GiB; "
              f"show counted {shown['nodes']} nodes x {shown['rails']} rails, "
              f"{shown['leaf_count']} leaves, {shown['spine_count']} spines, "
              f"{shown['nic_cables']} NIC cables, {shown['uplinks']} uplinks")


if __name__ == "__main__":
    main()
