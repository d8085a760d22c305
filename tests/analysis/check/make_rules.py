#!/usr/bin/env python3
"""Writes a large rules file for the scale check of `railgauge check`: test data, not a profile.

  make_rules.py OUT.yaml [--rules 1000]

The rules are the shipped profiles' (results/rules/), the verdict CLI fixture's, and a few that
read what the synthetic fleet (make_fleet.py) never holds (an absent metric on every record, an
absent key, a counter only real NICs have), repeated under new ids until there are --rules of
them. On a synthetic fleet most of them cannot judge: every record they select is a missing
value, which is what made a check of 1,000 rules on 1,500 nodes run out of memory.
"""
import argparse
import pathlib

import yaml

HERE = pathlib.Path(__file__).resolve().parent
PROFILES = ["h100-sxm-ib.yaml", "h100-sxm-roce.yaml", "h100-sxm.yaml", "any-fabric.yaml",
            "host-only.yaml"]

ABSENT = [
    {"id": "absent-metric-every-record", "category": "health", "severity": "warn",
     "select": {"key": "*"}, "metric": "metrics.absent_counter", "compare": "<=", "value": 0},
    {"id": "absent-key", "category": "compute", "severity": "fail",
     "select": {"key": "nosuch.*"}, "metric": "metrics.tflops", "compare": ">=",
     "fleet": {"fraction": 0.9}},
    {"id": "absent-nic-counter", "category": "nic", "severity": "fail",
     "select": {"key": "rdma.*"}, "metric": "metrics.port_counter_deltas.**.link_downed",
     "compare": "<=", "value": 0},
]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--rules", type=int, default=1000)
    a = ap.parse_args()
    pool = []
    for name in PROFILES:
        pool += yaml.safe_load((HERE.parents[2] / "results" / "rules" / name).read_text())["rules"]
    pool += yaml.safe_load((HERE / "fixture_rules.yaml").read_text())["rules"]
    pool += ABSENT
    rules = []
    while len(rules) < a.rules:
        for rule in pool[: a.rules - len(rules)]:
            rules.append(dict(rule, id=f"{rule['id']}-{len(rules)}"))
    pathlib.Path(a.out).write_text(yaml.safe_dump(
        {"schema": "railgauge.rules/1", "name": f"scale-{a.rules}", "rules": rules},
        sort_keys=False))


if __name__ == "__main__":
    main()
