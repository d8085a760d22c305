#!/usr/bin/env python3
"""Checks coverage ledgers (fabric_ledger.jsonl) that the Soft-RoCE guest's verbs matrices wrote,
since the guest has no JSON parser: each file exists and is not empty, and every line is one JSON
object whose "link" is a non-empty string. Prints one line per file; exit 0 when all pass, 1
otherwise (each problem on stderr with file:line).

    ledger_check.py LEDGER...
"""
import json
import sys


def problems_of(path):
    """The problems of one ledger file, [] when it is good."""
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except OSError as e:
        return [f"{path}: cannot read the ledger ({e.strerror}): did the matrix run?"]
    if not lines:
        return [f"{path}: empty ledger"]
    problems = []
    for number, line in enumerate(lines, 1):
        try:
            entry = json.loads(line)
        except json.JSONDecodeError as e:
            problems.append(f"{path}:{number}: not JSON ({e.msg})")
            continue
        link = entry.get("link") if isinstance(entry, dict) else None
        if not isinstance(link, str) or not link:
            problems.append(f"{path}:{number}: no link named: {line}")
    if not problems:
        print(f"{path}: {len(lines)} ledger lines")
    return problems


def main(paths):
    if not paths:
        print("ledger_check.py: give the ledger files to check", file=sys.stderr)
        return 2
    problems = [p for path in paths for p in problems_of(path)]
    for p in problems:
        print(p, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
