#!/usr/bin/env python3
"""Rewrite the absolute paths of the machine that made a run into paths relative to the run.

    scripts/relative_paths.py DIR --strip ABS [--strip ABS ...] [--check]

Every text file under DIR (records, run.json, manifests, summaries, logs) is read, and each
ABS given with --strip is removed where it starts a path: `ABS/runs/x` becomes `runs/x`, and
ABS alone (`--out ABS`, a `cwd`) becomes `.`. Pass the output directory the run was written to
(its files then name each other relative to the output directory) and the source tree the run
was made from (`node/build/bin/railgauge`, `results/peaks/gpu_peaks.yaml:19`, relative to the
checkout). Files are rewritten in place only when they change; JSON stays valid because a path
inside a JSON string is replaced by a shorter one with no quote or backslash.

With --check nothing is written: it lists every file that still holds an absolute path under
one of the build machines' scratch and home directories (MACHINE_DIRS) and exits 1 when there
is one. A reader on another machine cannot follow such a path (issue 44); the default-tier test
tests/scripts/relative_paths_test.py runs this check on results/reference/.

Exit status: 0 done (or clean), 1 --check found paths, 2 bad arguments.
"""
import argparse
import os
import re
import sys

# Directories whose paths only ever name the machine that wrote them.
MACHINE_DIRS = ("/tmp/", "/root/", "/work/", "/home/", "/Users/", "/var/tmp/")
# An absolute path under MACHINE_DIRS: not preceded by a path character (so `node/tmp/x` and
# `https://host/tmp/` are not paths of a machine).
MACHINE_PATH = re.compile(r"(?<![\w.:/~-])(?:" + "|".join(re.escape(d) for d in MACHINE_DIRS) +
                          r")[^\s\"',;)\]}>]*")


def strip_pattern(prefix):
    """`prefix/` before a path character (removed), or `prefix` at the end of a path
    (replaced by `.`)."""
    prefix = prefix.rstrip("/")
    return re.compile(r"(?<![\w.-])" + re.escape(prefix) +
                      r"(?:(?P<slash>/)(?=[^\s\"',;)\]}>/])|(?![\w.-]))")


def rewrite_text(text, prefixes):
    """`text` with every prefix in `prefixes` stripped, the longest first (so an output
    directory inside the source tree is taken as the output directory)."""
    for prefix in sorted(prefixes, key=len, reverse=True):
        text = strip_pattern(prefix).sub(lambda m: "" if m.group("slash") else ".", text)
    return text


def text_files(root):
    """Every file under `root` that reads as UTF-8 text, sorted."""
    found = []
    for dirpath, _, files in os.walk(root):
        for name in files:
            path = os.path.join(dirpath, name)
            try:
                with open(path, encoding="utf-8") as f:
                    f.read()
            except (UnicodeDecodeError, OSError):
                continue
            found.append(path)
    return sorted(found)


def machine_paths(text):
    """The absolute machine paths in `text`, in order."""
    return MACHINE_PATH.findall(text)


def rewrite_tree(root, prefixes):
    """Rewrites every text file under `root`; returns the paths of the files changed."""
    changed = []
    for path in text_files(root):
        with open(path, encoding="utf-8") as f:
            before = f.read()
        after = rewrite_text(before, prefixes)
        if after != before:
            with open(path, "w", encoding="utf-8") as f:
                f.write(after)
            changed.append(path)
    return changed


def check_tree(root):
    """[(file, first machine path, count)] of every text file under `root` holding one."""
    found = []
    for path in text_files(root):
        with open(path, encoding="utf-8") as f:
            hits = machine_paths(f.read())
        if hits:
            found.append((path, hits[0], len(hits)))
    return found


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dir", help="a run's output directory (or a tree of them)")
    ap.add_argument("--strip", action="append", default=[], metavar="ABS",
                    help="an absolute directory to make paths relative to (repeatable)")
    ap.add_argument("--check", action="store_true",
                    help="only list files holding a machine's absolute path; exit 1 if any")
    args = ap.parse_args(argv)
    if not os.path.isdir(args.dir):
        print(f"relative_paths.py: {args.dir} is not a directory: give a run's output "
              "directory", file=sys.stderr)
        return 2
    bad = [p for p in args.strip if not p.startswith("/") or p.rstrip("/") == ""]
    if bad:
        print(f"relative_paths.py: --strip {bad[0]}: give an absolute directory other than /",
              file=sys.stderr)
        return 2
    if args.check:
        found = check_tree(args.dir)
        for path, first, count in found:
            print(f"{path}: {count} absolute path(s), first {first}")
        if found:
            print(f"relative_paths.py: {len(found)} file(s) name a machine's absolute path; "
                  f"rewrite them with --strip OUTPUT_DIR --strip SOURCE_TREE", file=sys.stderr)
        return 1 if found else 0
    if not args.strip:
        print("relative_paths.py: nothing to strip: give --strip OUTPUT_DIR (and the source "
              "tree), or --check", file=sys.stderr)
        return 2
    for path in rewrite_tree(args.dir, args.strip):
        print(f"rewrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
