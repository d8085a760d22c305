#!/usr/bin/env python3
"""railgauge's NCCL collectives beside nccl-tests, like for like and interleaved (issue 44).

    scripts/nccl_pairs.py --nccl-tests DIR --railgauge BIN --out DIR [--rounds 3]
                          [--kinds all_reduce,...] [--sizes 8,16MiB,...] [--gpus N]
                          [--railgauge-lib DIR] [--warmup 5] [--iterations 20]

For each kind, ROUNDS rounds of nccl-tests over the sizes (`KIND_perf -b MIN -e MAX -f 2 -g N
-I 1 -J`, imported with `railgauge import nccl-tests`) then railgauge's collective at the same
sizes, dtype, warm-up and iterations (`railgauge collectives --filter collectives.nccl_KIND`),
ABAB...: each tool measures every size of a kind in one launch, seconds after the other, so a
round costs two process starts, not two per size (a GEMM or NCCL process start on a GPU is about
a second). The sizes are powers of two, which nccl-tests' factor-2 sweep holds. railgauge runs
each size with its buffers from cudaMalloc and from ncclMemAlloc (nccl-tests' allocator from
NCCL 2.19; --buffers), each its own row. The pair is
railgauge's back-to-back time per call (metrics.wall_time_s: iterations enqueued one after the
other, as nccl-tests times them) against nccl-tests' per-iteration time; railgauge's isolated,
gated GPU time (metrics.time_s) is its own column, never the ratio. Out of place only: on one
rank an in-place collective moves nothing and times an empty operation. alltoall is
ncclAlltoAll in both where NCCL has it (2.28 on; railgauge's params.alltoall_call); a row
whose railgauge record ran grouped send/recv says so.

Writes OUT/nccl-pairs.json and OUT/nccl-pairs.md (after every kind, so a run cut short keeps
the kinds it finished), and each round's raw runs under OUT/rounds/; `--from-rounds` makes the
tables again from those rounds without measuring.
`pairs` (below) makes the same rows from one reference run's records (one round, so no
interval): `scripts/nccl_pairs.py --from-reference results/reference/<run>`.

Exit status: 0 done, 1 a point could not be measured (its row says why), 2 bad arguments.
"""
import argparse
import json
import os
import subprocess
import sys

import peer_pairs
import peer_records

KINDS = ("all_reduce", "all_gather", "reduce_scatter", "broadcast", "reduce", "alltoall",
         "sendrecv")
NOTES = {"alltoall": "railgauge: grouped ncclSend/ncclRecv; nccl-tests: ncclAlltoAll (NCCL >= "
                     "2.28): not the same call"}


def median_of(value):
    """A metric that is a time_s summary or a plain number."""
    if isinstance(value, dict):
        return value.get("median")
    return value


def buffers_of(record):
    """How a railgauge record's buffers were allocated (records before the axis: cudaMalloc)."""
    return record.get("params", {}).get("buffers", "cuda_malloc")


def out_of_place(records, kind, size, buffers=None):
    """The ok record of collectives.nccl_KIND at `size` out of place (with railgauge's buffers
    allocated so, when given), or None."""
    for r in records:
        p = r.get("params", {})
        if (r.get("key") == f"collectives.nccl_{kind}" and r.get("status") == "ok"
                and p.get("in_place") == "out_of_place" and int(p.get("size_bytes", -1)) == size
                and (buffers is None or buffers_of(r) == buffers)):
            return r
    return None


def note_of(kind, record):
    """A row's note: alltoall's call, where railgauge's differs from nccl-tests' (NCCL >= 2.28
    has ncclAlltoAll, which nccl-tests calls; records before params.alltoall_call ran grouped
    send/recv)."""
    call = record.get("params", {}).get("alltoall_call", "grouped ncclSend/ncclRecv")
    return NOTES.get(kind) if call != "ncclAlltoAll" else None


def row(kind, size, ours_wall_s, ours_gpu_s, peer_s, buffers="cuda_malloc", note=None):
    """One table row from per-round lists (railgauge back to back, railgauge isolated,
    nccl-tests)."""
    pair = peer_pairs.pair_rounds(ours_wall_s, peer_s)
    return {"kind": kind, "size_bytes": size, "railgauge_buffers": buffers, "rounds": len(peer_s),
            "railgauge_back_to_back_s": peer_records.summary(ours_wall_s)["median"],
            "railgauge_isolated_gpu_s": peer_records.summary(ours_gpu_s)["median"],
            "nccl_tests_s": peer_records.summary(peer_s)["median"],
            "ratio": pair["ratio"], "ratio_lo": pair["ratio_lo"], "ratio_hi": pair["ratio_hi"],
            "verdict": pair["verdict"] if len(peer_s) >= 3 else "one round: no interval",
            "note": note}


def pairs(railgauge_records, nccl_records, kinds=KINDS):
    """Rows of one round from a reference run's records (every size both sides have)."""
    rows = []
    for kind in kinds:
        sizes = sorted({int(r["params"]["size_bytes"]) for r in railgauge_records
                        if r.get("key") == f"collectives.nccl_{kind}"})
        for size in sizes:
            ours, peer = out_of_place(railgauge_records, kind, size), out_of_place(
                nccl_records, kind, size)
            if not ours or not peer:
                continue
            wall = median_of(ours["metrics"].get("wall_time_s"))
            gpu = median_of(ours["metrics"].get("time_s"))
            theirs = median_of(peer["metrics"].get("time_s"))
            if wall and gpu and theirs:
                rows.append(row(kind, size, [wall], [gpu], [theirs], buffers_of(ours),
                                note_of(kind, ours)))
    return rows


def markdown(rows):
    lines = ["| kind | size (bytes) | railgauge back to back (us) | nccl-tests (us) | "
             "nccl-tests / railgauge [p10, p90] | verdict | railgauge isolated GPU (us) | note | "
             "railgauge buffers |",
             "|---|---:|---:|---:|---|---|---:|---|---|"]
    for r in rows:
        lines.append(f"| {r['kind']} | {r['size_bytes']} | "
                     f"{r['railgauge_back_to_back_s'] * 1e6:.2f} | {r['nccl_tests_s'] * 1e6:.2f} "
                     f"| {r['ratio']:.3f} [{r['ratio_lo']:.3f}, {r['ratio_hi']:.3f}] | "
                     f"{r['verdict']} | {r['railgauge_isolated_gpu_s'] * 1e6:.2f} | "
                     f"{r['note'] or ''} | {r.get('railgauge_buffers', 'cuda_malloc')} |")
    return "\n".join(lines) + "\n"


def parse_size(text):
    units = {"KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}
    for suffix, factor in units.items():
        if text.endswith(suffix):
            return int(text[:-len(suffix)]) * factor
    return int(text)


def run(cmd, env, timeout_s, what):
    try:
        p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout_s)
    except subprocess.TimeoutExpired:
        raise ValueError(f"{what} ran past {timeout_s} s: {' '.join(cmd)}") from None
    return p


def records_under(path):
    found = []
    for f in peer_records.find_record_files(path):
        found.extend(peer_records.read_records(f))
    return found


def measure(args, kind, sizes, round_dir, env):
    """One round of a kind: nccl-tests over `sizes`, then railgauge over the same. Returns
    {size: (ours wall s, ours GPU s, nccl-tests s)} for the sizes both measured, and the sizes
    one side could not measure."""
    os.makedirs(round_dir, exist_ok=True)
    js = os.path.join(round_dir, f"{kind}.json")
    run([os.path.join(args.nccl_tests, f"{kind}_perf"), "-b", str(min(sizes)), "-e",
         str(max(sizes)), "-f", "2", "-g", str(args.gpus), "-w", str(args.warmup), "-n",
         str(args.iterations), "-c", "1", "-I", "1", "-J", js], env, 300, f"{kind}_perf")
    run([args.railgauge, "import", "nccl-tests", js, "--out", os.path.join(round_dir, "peer")],
        env, 60, "railgauge import")
    run([args.railgauge, "collectives", "--filter", f"collectives.nccl_{kind}", "-q",
         "--out", os.path.join(round_dir, "railgauge"),
         "-a", "size_bytes=" + ",".join(str(s) for s in sizes),
         "-a", "buffers=" + ",".join(args.buffers),
         "-a", "in_place=out_of_place", "-a", "dtype=float32", "-a", f"warmup={args.warmup}",
         "-a", f"iterations={args.iterations}"], env, 300, "railgauge collectives")
    return round_pairs(kind, sizes, round_dir, args.buffers)


def round_pairs(kind, sizes, round_dir, buffers=("cuda_malloc",)):
    """One measured round of a kind, read back from its directory (measure()'s layout):
    {(size, buffers): (ours wall s, ours GPU s, nccl-tests s)} and what one side lacks."""
    ours_records = records_under(os.path.join(round_dir, "railgauge"))
    peer_records_ = records_under(os.path.join(round_dir, "peer"))
    measured, missing = {}, []
    for size in sizes:
        peer = out_of_place(peer_records_, kind, size)
        for alloc in buffers:
            ours = out_of_place(ours_records, kind, size, alloc)
            if not ours or not peer:
                missing.append(f"{kind} {size} ({alloc}): no ok out-of-place record from "
                               f"{'railgauge' if not ours else 'nccl-tests'} (see {round_dir})")
                continue
            measured[(size, alloc)] = (median_of(ours["metrics"]["wall_time_s"]),
                                       median_of(ours["metrics"]["time_s"]),
                                       median_of(peer["metrics"]["time_s"]),
                                       note_of(kind, ours))
    return measured, missing


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--nccl-tests", help="nccl-tests' build directory (all_reduce_perf, ...)")
    ap.add_argument("--railgauge", help="the railgauge binary")
    ap.add_argument("--out", help="directory for nccl-pairs.{json,md} and the rounds")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--kinds", default=",".join(KINDS))
    ap.add_argument("--sizes", default="8,4KiB,64KiB,1MiB,16MiB,32MiB,128MiB,512MiB")
    ap.add_argument("--gpus", type=int, default=1)
    ap.add_argument("--buffers", default="cuda_malloc,nccl_mem_alloc",
                    help="how railgauge allocates its buffers, each measured in the same launch: "
                         "cuda_malloc, nccl_mem_alloc (as nccl-tests >= 2.19 does)")
    ap.add_argument("--railgauge-lib", help="LD_LIBRARY_PATH first entries (libnccl, ...)")
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--iterations", type=int, default=20)
    ap.add_argument("--from-reference", metavar="DIR",
                    help="no measuring: the rows one committed reference run's records make")
    ap.add_argument("--from-rounds", action="store_true",
                    help="no measuring: the rows from the rounds already under OUT/rounds (a "
                         "run cut short before it wrote its table)")
    args = ap.parse_args(argv)
    if args.from_reference:
        rows = pairs(records_under(os.path.join(args.from_reference, "runs", "collectives-nccl")),
                     records_under(os.path.join(args.from_reference, "peers", "nccl-tests")))
        sys.stdout.write(markdown(rows))
        return 0
    kinds = [k for k in args.kinds.split(",") if k]
    problems = [f"--kinds {k}: not one of {', '.join(KINDS)}" for k in kinds if k not in KINDS]
    if args.rounds < 3:
        problems.append(f"--rounds {args.rounds}: give at least 3")
    if not args.from_rounds and not (
            args.nccl_tests and os.path.isfile(os.path.join(args.nccl_tests, "all_reduce_perf"))):
        problems.append("--nccl-tests: give nccl-tests' build directory (with all_reduce_perf)")
    if not args.from_rounds and (not args.railgauge or not os.access(args.railgauge, os.X_OK)):
        problems.append("--railgauge: give the railgauge binary")
    if not args.out:
        problems.append("--out: give the output directory")
    try:
        sizes = [parse_size(s) for s in args.sizes.split(",") if s]
    except ValueError:
        sizes = []
        problems.append(f"--sizes {args.sizes}: give byte counts like 8,4KiB,16MiB")
    args.buffers = [b for b in args.buffers.split(",") if b]
    bad = [b for b in args.buffers if b not in ("cuda_malloc", "nccl_mem_alloc")]
    if bad or not args.buffers:
        problems.append(f"--buffers {','.join(bad)}: give cuda_malloc and/or nccl_mem_alloc")
    odd = [s for s in sizes if s < 8 or s & (s - 1)]
    if odd:
        problems.append(f"--sizes: {', '.join(map(str, odd))} not a power of two of at least 8 "
                        "bytes (nccl-tests sweeps the range by factors of 2)")
    if problems:
        print("nccl_pairs.py: " + "; ".join(problems), file=sys.stderr)
        return 2
    env = dict(os.environ)
    if args.railgauge_lib:
        env["LD_LIBRARY_PATH"] = ":".join(
            p for p in (args.railgauge_lib, env.get("LD_LIBRARY_PATH", "")) if p)
    rows, failed = [], 0
    for kind in kinds:
        round_dirs = [os.path.join(args.out, "rounds", f"{kind}-{i}") for i in range(args.rounds)]
        try:
            if args.from_rounds:
                absent = [d for d in round_dirs if not os.path.isdir(d)]
                if absent:
                    raise ValueError(f"{kind}: no round directory {', '.join(absent)}")
                rounds = [round_pairs(kind, sizes, d, args.buffers) for d in round_dirs]
            else:
                rounds = [measure(args, kind, sizes, d, env) for d in round_dirs]
        except ValueError as e:
            failed = 1
            print(f"nccl_pairs.py: {e}", file=sys.stderr)
            continue
        for measured, missing in rounds:
            for problem in missing:
                failed = 1
                print(f"nccl_pairs.py: {problem}", file=sys.stderr)
        for size in sizes:
            for alloc in args.buffers:
                per_round = [m[(size, alloc)] for m, _ in rounds if (size, alloc) in m]
                if len(per_round) == len(rounds):
                    wall, gpu, peer, notes = [list(x) for x in zip(*per_round)]
                    rows.append(row(kind, size, wall, gpu, peer, alloc, notes[0]))
        write_tables(args.out, rows)  # after every kind: a run cut short keeps what it measured
    write_tables(args.out, rows)
    sys.stdout.write(markdown(rows))
    return failed


def write_tables(out, rows):
    with open(os.path.join(out, "nccl-pairs.json"), "w", encoding="utf-8") as f:
        json.dump(rows, f, indent=1)
    with open(os.path.join(out, "nccl-pairs.md"), "w", encoding="utf-8") as f:
        f.write(markdown(rows))


if __name__ == "__main__":
    sys.exit(main())
