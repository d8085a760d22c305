#!/usr/bin/env python3
"""Prints what rdma.pair_matrix found, from rank 0's records: every pair's latency and bandwidth,
the bad pairs and the findings. Usage: matrix_summary.py RECORDS.jsonl... Exit 1 when no
pair matrix record is found."""
import json
import sys


def main(paths):
    found = 0
    for path in paths:
        with open(path) as f:
            for line in f:
                r = json.loads(line)
                if r.get("key") != "rdma.pair_matrix":
                    continue
                found += 1
                m = r.get("metrics", {})
                reason = f": {r['reason']}" if r.get("reason") else ""
                print(f"rdma.pair_matrix ({r['status']}{reason})")
                labels = {e["endpoint"]: e["label"] for e in m.get("endpoints", [])}
                print(f"  {len(labels)} endpoints, {m.get('rounds')} rounds, "
                      f"{len(m.get('pairs', []))} pairs ({m.get('pairing')})")
                for p in m.get("pairs", []):
                    a, b = p["endpoints"]
                    error = f" {p['error']}" if p.get("error") else ""
                    print(f"  {labels[a]} <-> {labels[b]}: p50 {p['latency_p50_s'] * 1e6:.1f} us,"
                          f" {p['bandwidth_gbits_per_s']:.4g} Gb/s{error}")
                for b in m.get("bad_pairs", []):
                    print(f"  bad: {' <-> '.join(b['labels'])}: {b['why']}")
                for f_ in m.get("findings", []):
                    print(f"  finding ({f_['kind']}): {f_['text']}")
    return 0 if found else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
