#!/usr/bin/env python3
"""The A/A control of the GEMM ratio tables: railgauge against itself, interleaved by sweep.

    scripts/gemm_aa_control.py RUN_DIR --railgauge BIN [--railgauge-lib DIR] [--rounds 3]
                               [--out DIR] [--keys gemm.cublaslt,gemm.cublaslt_size]

RUN_DIR is a railgauge GEMM run (gemm.cublaslt or gemm.cublaslt_size records). Its own command
(run.json argv) is run again by BIN as two sides, A and B, alternating ABAB... for --rounds
rounds, as gemm_vs_torch.py --interleave alternates railgauge and torch (scripts/peer_sweeps.py).
Both sides are the same call through the same harness, so every ratio B / A is the harness's own
drift between two sweeps a few minutes apart: the resolution of a railgauge / torch ratio table
made the same way. A ratio inside it says nothing about either side.

Writes DIR/<run-id>/records.jsonl, one `peer.railgauge_aa` record per point (the source's params
plus peer_of; metrics as an interleaved torch peer's: both sides' rounds, the per-round ratios,
the ratio with its p10-p90, and ours_vs_railgauge), and prints the ratios' median and p10-p90
over the points and the resolution: max(|p10 - 1|, |p90 - 1|). gemm_vs_torch.py --aa-control and
peer_pairs.py verdicts read these records and state the resolution beside their tables.

Needs no torch; the sweeps need the GPU the source run measured.
"""
import argparse
import os
import sys

import peer_pairs
import peer_records
import peer_sweeps

AA_KEY = "peer.railgauge_aa"
GPU_KEYS = ("gemm.cublaslt", "gemm.cublaslt_size")


def alternate(points, side_a, side_b, rounds):
    """`rounds` rounds of side A's sweep then side B's: [(point, A seconds per round, B seconds
    per round, error or None)] for every source record in `points`."""
    if rounds < 3:
        raise ValueError(f"--rounds {rounds}: give at least 3, so that a round's drift shows")
    a_s, b_s = [[] for _ in points], [[] for _ in points]
    errors = [None] * len(points)
    for _ in range(rounds):
        side_a.run_round()
        side_b.run_round()
        for i, point in enumerate(points):
            try:
                a, b = side_a.time_of(point), side_b.time_of(point)
                a_s[i].append(a)
                b_s[i].append(b)
            except ValueError as e:
                errors[i] = errors[i] or f"{type(e).__name__}: {e}"
    return [(p, a, b, e) for p, a, b, e in zip(points, a_s, b_s, errors)]


def aa_summary(ratios):
    """{n, median, p10, p90, resolution} of A/A ratios (B / A, one per point): the resolution is
    how far from 1 the p10-p90 of the harness against itself reaches."""
    if not ratios:
        return None
    p10, p90 = peer_pairs.quantile(ratios, 0.1), peer_pairs.quantile(ratios, 0.9)
    return {"n": len(ratios), "median": peer_pairs.quantile(ratios, 0.5), "p10": p10, "p90": p90,
            "resolution": max(abs(p10 - 1.0), abs(p90 - 1.0))}


def control_of(records):
    """The A/A summary of `records` (any peer records; the ok peer.railgauge_aa ones count)."""
    ratios = [r["metrics"]["ours_vs_railgauge"] for r in records
              if r.get("key") == AA_KEY and r.get("status") == "ok"
              and isinstance(r.get("metrics", {}).get("ours_vs_railgauge"), (int, float))]
    return aa_summary(ratios)


def describe(control):
    """The line a ratio table prints about its resolution."""
    if not control:
        return ("A/A control: none given, so this table's resolution is unknown "
                "(scripts/gemm_aa_control.py)")
    return (f"A/A control (railgauge against itself, {control['n']} points): median "
            f"{control['median']:.3f}, p10-p90 {control['p10']:.3f}-{control['p90']:.3f}, "
            f"resolution +/-{control['resolution']:.3f}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("run_dir", help="a railgauge GEMM run directory (its run.json and records)")
    ap.add_argument("--railgauge", required=True, help="the railgauge binary to run the sweeps")
    ap.add_argument("--railgauge-lib", help="LD_LIBRARY_PATH entries for it")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--out", default="peers")
    ap.add_argument("--keys", default=",".join(GPU_KEYS))
    args = ap.parse_args(argv)
    try:
        sources = peer_records.ok_records(peer_records.read_records(args.run_dir),
                                          args.keys.split(","))
    except OSError as e:
        print(f"gemm_aa_control.py: {e}", file=sys.stderr)
        return 2
    if not sources:
        print(f"gemm_aa_control.py: no ok record of {args.keys} in {args.run_dir}",
              file=sys.stderr)
        return 2
    with peer_records.PeerRun(args.out, "aa") as out:
        sides = [peer_sweeps.RailgaugeSweepRunner(
            args.railgauge, os.path.join(out.dir, f"side-{name}"), [args.run_dir],
            args.railgauge_lib) for name in ("a", "b")]
        rows = alternate(sources, sides[0], sides[1], args.rounds)
        records = []
        for source, a_s, b_s, error in rows:
            rec = peer_records.peer_record(out.run_id, out.host, AA_KEY, source, {})
            if error:
                rec["status"], rec["reason"] = "error", error
            else:
                rec["metrics"] = peer_pairs.interleaved_metrics(a_s, b_s)
                rec["metrics"]["ours_vs_railgauge"] = rec["metrics"]["ratio"]
            out.write(rec)
            records.append(rec)
    print(describe(control_of(records)))
    print(f"records: {out.path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
