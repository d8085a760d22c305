#!/usr/bin/env python3
"""Set imported nvbandwidth cells beside railgauge's records of the same copy on the same GPU, as
peer records.

    scripts/nvbandwidth_vs_ours.py --nvbandwidth DIR --size-bytes N [--out DIR] RUN_DIR...

DIR holds `railgauge import nvbandwidth` run directories (records import.nvbandwidth.*), the
RUN_DIRs railgauge runs of the offload family and memory.hbm_memcpy_d2d, measured with
-a size_bytes=N (nvbandwidth's -b, in bytes) -a placement=near: nvbandwidth allocates its host
buffers and pins its thread on the GPU's own NUMA node. Neither side is re-measured here.

Mapping (testcase -> railgauge key and metric; the GPU is matched by PCI bus id):
  host_to_device_memcpy_ce                offload.h2d pinned      bandwidth_gbytes_per_s
  device_to_host_memcpy_ce                offload.d2h pinned      bandwidth_gbytes_per_s
  host_to_device_bidirectional_memcpy_ce  offload.bidir           h2d_gbytes_per_s
  device_to_host_bidirectional_memcpy_ce  offload.bidir           d2h_gbytes_per_s
  host_to_all_memcpy_ce                   offload.all_gpus_h2d    the GPU's per_gpu entry
  all_to_host_memcpy_ce                   offload.all_gpus_d2h    the GPU's per_gpu entry
  host_to_device_memcpy_sm                offload.zero_copy_read  bandwidth_gbytes_per_s
  device_to_host_memcpy_sm                offload.zero_copy_write bandwidth_gbytes_per_s
  device_local_copy                       memory.hbm_memcpy_d2d   bandwidth_gbytes_per_s
A bidirectional cell whose params.bidirectional_figure is sum_of_both_directions (newer
nvbandwidth's Total matrix: the two directions' rates added) maps to offload.bidir's
sum_gbytes_per_s instead. The SM testcases are a kernel copying between mapped pinned host
memory and HBM, as railgauge's zero-copy kernels do: the pair compares the two kernels.
Byte counting: nvbandwidth counts the bytes copied once; so does railgauge's offload family, but
memory.hbm_memcpy_d2d counts bytes read + written (2x): nvbandwidth's device_local_copy figure is
doubled here so that both sides count alike (metrics.peer_counting_factor says so).

Writes DIR/<run-id>/records.jsonl (--out), one record per nvbandwidth cell with key
`peer.nvbandwidth`: the railgauge record's params (plus peer_of, nvbandwidth_testcase,
nvbandwidth_version) and device, metrics bandwidth_gbytes_per_s (nvbandwidth's, counted like the
railgauge key), nvbandwidth_reported_gbytes_per_s, ours_gbytes_per_s and ours_vs_nvbandwidth
(railgauge / nvbandwidth), then prints them. A cell with no ok railgauge record to match is a
`waived` record saying what was looked for.

Exit status: 0 at least one pair compared; 2 unreadable input or nothing to compare.
"""
import argparse
import os
import statistics
import sys

import peer_records

PEER_KEY = "peer.nvbandwidth"
PREFIX = "import.nvbandwidth."

# testcase -> (railgauge key, metric, nvbandwidth-to-railgauge byte counting factor).
MAPPED = {
    "host_to_device_memcpy_ce": ("offload.h2d", "bandwidth_gbytes_per_s", 1),
    "device_to_host_memcpy_ce": ("offload.d2h", "bandwidth_gbytes_per_s", 1),
    "host_to_device_bidirectional_memcpy_ce": ("offload.bidir", "h2d_gbytes_per_s", 1),
    "device_to_host_bidirectional_memcpy_ce": ("offload.bidir", "d2h_gbytes_per_s", 1),
    "host_to_all_memcpy_ce": ("offload.all_gpus_h2d", "per_gpu", 1),
    "all_to_host_memcpy_ce": ("offload.all_gpus_d2h", "per_gpu", 1),
    "host_to_device_memcpy_sm": ("offload.zero_copy_read", "bandwidth_gbytes_per_s", 1),
    "device_to_host_memcpy_sm": ("offload.zero_copy_write", "bandwidth_gbytes_per_s", 1),
    "device_local_copy": ("memory.hbm_memcpy_d2d", "bandwidth_gbytes_per_s", 2),
}


def testcase_of(record):
    return record["key"][len(PREFIX):] if record.get("key", "").startswith(PREFIX) else None


def target(cell):
    """(railgauge key, metric, factor) that an nvbandwidth cell compares with, or None."""
    mapped = MAPPED.get(testcase_of(cell))
    if mapped is None:
        return None
    key, metric, factor = mapped
    if cell.get("params", {}).get("bidirectional_figure") == "sum_of_both_directions":
        metric = "sum_gbytes_per_s"
    return key, metric, factor


def wanted(key, size_bytes):
    """The params of the railgauge point an nvbandwidth cell of `key` is paired with: the size,
    pinned host memory (for the keys that have the choice) and near placement (offload)."""
    params = {"size_bytes": size_bytes}
    if key in ("offload.h2d", "offload.d2h"):
        params["host_memory"] = "pinned"
    if key.startswith("offload."):
        params["placement"] = "near"
    return params


def matches(record, key, size_bytes):
    """An ok railgauge record of `key` at the wanted params."""
    p = record.get("params", {})
    return (record.get("key") == key and record.get("status") == "ok"
            and all(p.get(k) == v for k, v in wanted(key, size_bytes).items()))


def our_value(record, metric, pci):
    """The record's figure for the GPU `pci`: its own metric, or its per_gpu[] entry of that
    GPU."""
    m = record.get("metrics", {})
    if metric == "per_gpu":
        for g in m.get("per_gpu") or []:
            if g.get("pci") == pci:
                return g.get("bandwidth_gbytes_per_s")
        return None
    if record.get("device", {}).get("pci") != pci:
        return None
    return m.get(metric)


def pair(cell, ours, size_bytes):
    """(peer record fields, ratio) for one nvbandwidth cell: the median of the matching railgauge
    figures (several when the run was repeated), or a waived record when none matches."""
    key, metric, factor = target(cell)
    pci = cell.get("device", {}).get("pci")
    theirs = cell["metrics"]["bandwidth_gbytes_per_s"] * factor
    found = [(r, v) for r in ours if matches(r, key, size_bytes)
             for v in [our_value(r, metric, pci)] if v is not None]
    extra = {"nvbandwidth_testcase": testcase_of(cell),
             "nvbandwidth_version": cell.get("params", {}).get("nvbandwidth_version", "")}
    source = found[0][0] if found else {"key": key, "params": wanted(key, size_bytes),
                                        "device": {"pci": pci} if pci else {}}
    record = peer_records.peer_record("", "", PEER_KEY, source, extra)
    if metric == "per_gpu":
        record["device"] = {"pci": pci} if pci else {}
    record["metrics"] = {"bandwidth_gbytes_per_s": theirs,
                         "nvbandwidth_reported_gbytes_per_s": cell["metrics"][
                             "bandwidth_gbytes_per_s"],
                         "peer_counting_factor": factor, "ours_metric": metric}
    if not found:
        record["status"] = "waived"
        record["reason"] = (f"no ok {key} record at size_bytes={size_bytes}, pinned, near, for "
                            f"the GPU at PCI {pci or '(unknown)'}: run railgauge with -a "
                            f"size_bytes={size_bytes} -a placement=near on this node")
        return record, None
    value = statistics.median(v for _, v in found)
    record["metrics"].update(ours_gbytes_per_s=value, ours_records=len(found),
                             ours_vs_nvbandwidth=peer_records.ratio(value, theirs))
    return record, record["metrics"]["ours_vs_nvbandwidth"]


def read_all(dirs, what):
    """The records under every directory of `dirs`. A directory without records is skipped with a
    warning (a step that was skipped for time must not lose the other steps' pairs); raises
    ValueError when none of them has any."""
    records, empty = [], []
    for d in dirs:
        paths = peer_records.find_record_files(d) if os.path.exists(d) else []
        if not paths:
            empty.append(d)
        for path in paths:
            records.extend(peer_records.read_records(path))
    if len(empty) == len(dirs):
        raise ValueError(f"no records.jsonl under {', '.join(dirs)} ({what})")
    for d in empty:
        print(f"nvbandwidth_vs_ours.py: warning: no records.jsonl under {d} ({what}); its points "
              "are not compared", file=sys.stderr)
    return records


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("run_dirs", nargs="+", metavar="RUN_DIR",
                    help="railgauge run directories (or directories holding them)")
    ap.add_argument("--nvbandwidth", required=True, action="append", metavar="DIR",
                    help="`railgauge import nvbandwidth` run directories (or one holding them)")
    ap.add_argument("--size-bytes", type=int, required=True,
                    help="nvbandwidth's buffer size in bytes (its -b is in MiB)")
    ap.add_argument("--out", default="runs", help="directory that receives <run-id>/")
    args = ap.parse_args(argv)
    try:
        cells = [r for r in read_all(args.nvbandwidth, "nvbandwidth imports")
                 if r.get("status") == "ok" and target(r) is not None
                 and "bandwidth_gbytes_per_s" in r.get("metrics", {})]
        ours = read_all(args.run_dirs, "railgauge runs")
    except (OSError, ValueError) as e:
        print(f"nvbandwidth_vs_ours.py: cannot read the records: {e}; give run directories "
              "written by railgauge (its runs, and `railgauge import nvbandwidth`)",
              file=sys.stderr)
        return 2
    if not cells:
        print("nvbandwidth_vs_ours.py: no ok nvbandwidth cell of a mapped testcase ("
              f"{', '.join(MAPPED)}) in {', '.join(args.nvbandwidth)}", file=sys.stderr)
        return 2
    compared = 0
    print(f"{'testcase':<40} {'gpu pci':<13} {'ours':>9} {'nvbw':>9} {'ours/nvbw':>9}  (GB/s, "
          "counted as railgauge counts)")
    with peer_records.PeerRun(args.out, "nvbandwidth") as run:
        for cell in cells:
            record, ratio = pair(cell, ours, args.size_bytes)
            record.update(run=run.run_id, host=run.host)
            run.write(record)
            m = record["metrics"]
            ours_text = "-" if ratio is None else f"{m['ours_gbytes_per_s']:9.2f}"
            ratio_text = "-" if ratio is None else f"{ratio:9.3f}"
            print(f"{testcase_of(cell):<40} {record['device'].get('pci', '?'):<13} "
                  f"{ours_text:>9} {m['bandwidth_gbytes_per_s']:9.2f} {ratio_text:>9}"
                  + ("" if ratio is not None else f"  {record['reason']}"))
            compared += ratio is not None
    print(f"records: {run.path}", file=sys.stderr)
    if not compared:
        print("nvbandwidth_vs_ours.py: no nvbandwidth cell found its railgauge point",
              file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
