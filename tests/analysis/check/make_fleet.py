#!/usr/bin/env python3
"""Writes a synthetic fleet of run directories for the verdict CLI tests: made-up records in
railgauge's record format (railgauge.record/1), never measurements.

  make_fleet.py OUT_DIR [--nodes 4] [--gpus 8] [--slow node03:5] [--busbw-scale 1.0]
                [--rdma-peers K]

One run directory per node: gemm.cublaslt TP shapes (params model/op/tp), memory.hbm_copy,
offload.h2d and collectives all_reduce busbw over sizes per GPU, and rdma.write_bw pair records
(params src/dst) with node04 -> node02 slow (a bad cable). Each node writes to every other node,
or with --rdma-peers K to the next K nodes of a ring (all pairs of 1,500 nodes are 2.2 million
records: a pair test of a large fleet pairs each node with a few others).
"""
import argparse
import json
import pathlib


def jitter(n, g):
    return 1.0 + 0.005 * (((n * 7 + g * 3) % 5) - 2) / 2.0


def time_stats(median):
    return {"n": 20, "median": median, "p10": median * 0.99, "p90": median * 1.01,
            "min": median * 0.985, "max": median * 1.02, "mean": median,
            "stdev": median * 0.008, "p99": median * 1.02}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--nodes", type=int, default=4)
    ap.add_argument("--gpus", type=int, default=8)
    ap.add_argument("--slow", default="")
    ap.add_argument("--busbw-scale", type=float, default=1.0)
    ap.add_argument("--rdma-peers", type=int, default=0, help="0: every other node")
    a = ap.parse_args()
    slow_host, slow_gpu = (a.slow.split(":") + [""])[:2] if a.slow else ("", "")
    hosts = [f"node{n:02d}" for n in range(1, a.nodes + 1)]
    for n, host in enumerate(hosts, start=1):
        d = pathlib.Path(a.out) / host
        d.mkdir(parents=True, exist_ok=True)
        gpus = [{"index": g, "errors": {}, "uuid": f"GPU-fixture-{n:02d}-{g}",
                 "pci_bus_id": f"00000000:{0x18 + g * 0x10:02X}:00.0"} for g in range(a.gpus)]
        (d / "run.json").write_text(json.dumps({
            "schema": "railgauge.run/1", "run": f"fixture-{host}", "host": host, "rank": 0,
            "inventory": {"schema": "railgauge.inventory/1", "host": host,
                          "summary": {"packages": 2, "numa_nodes": 2, "gpus": a.gpus,
                                      "nics": a.gpus, "nvswitches": 0 if a.gpus == 1 else 4},
                          "nvml": {"available": True, "reason": None, "gpus": gpus},
                          "verbs": {"available": True, "reason": None, "devices": []},
                          "port_counters": {"available": True, "reason": None, "ports": []}}}))
        recs = []

        def rec(key, params, device, metrics):
            recs.append({"schema": "railgauge.record/1", "run": f"fixture-{host}", "host": host,
                         "rank": 0, "key": key, "params": params, "device": device,
                         "metrics": metrics, "status": "ok", "reason": None,
                         "time_utc": "2026-01-01T00:00:00.000Z"})

        for g in range(a.gpus):
            dev = {"gpu": f"GPU-fixture-{n:02d}-{g}", "pci": f"0000:{0x18 + g * 0x10:02x}:00.0",
                   "numa": g // 4}
            slow = 0.92 if (host == slow_host and str(g) == slow_gpu) else 1.0
            for op, base in (("qkv.fwd", 0.78), ("attn.fwd", 0.62), ("mlp_up.fwd", 0.8)):
                for tp in (1, 2, 4, 8):
                    eff = base * (1 - 0.06 * (tp.bit_length() - 1)) * jitter(n, g) * slow
                    rec("gemm.cublaslt", {"model": "gpt3-175b", "op": op, "tp": tp,
                                          "dtype": "bf16"}, dev,
                        {"time_s": time_stats(1e-3), "tflops": eff * 989, "efficiency": eff})
            for size in (1 << 20, 1 << 26, 1 << 32):
                bw = 2900 * min(1.0, size / 2 ** 28 + 0.3) * jitter(n, g + 1)
                rec("memory.hbm_copy", {"size_bytes": size, "gpu": g}, dev,
                    {"time_s": time_stats(2 * size / bw / 1e9), "bandwidth_gbytes_per_s": bw,
                     "verified": True})
                h2d = 55 * min(1.0, size / 2 ** 24 + 0.2) * jitter(n, g + 2)
                rec("offload.h2d", {"size_bytes": size}, dev,
                    {"time_s": time_stats(size / h2d / 1e9), "bandwidth_gbytes_per_s": h2d})
            for size in (1 << 20, 1 << 24, 1 << 28, 1 << 30):
                busbw = 470 * a.busbw_scale * min(1.0, size / 2 ** 28 + 0.05) * jitter(n, g + 4)
                rec("collectives.nccl_all_reduce", {"size_bytes": size, "dtype": "bf16"}, dev,
                    {"time_s": time_stats(size / busbw / 1e9), "busbw_gbytes_per_s": busbw})
        peers = [h for h in hosts if h != host] if a.rdma_peers <= 0 else [
            hosts[(n - 1 + k) % len(hosts)] for k in range(1, min(a.rdma_peers, len(hosts) - 1) + 1)]
        for dst in peers:
            bw = 392 * jitter(n, len(dst)) * (0.7 if (host, dst) == ("node04", "node02") else 1)
            rec("rdma.write_bw", {"size_bytes": 8388608, "src": host, "dst": dst},
                {"nic": "mlx5_0", "numa": 0},
                {"time_s": time_stats(8388608 * 8 / bw / 1e9), "bandwidth_gbits_per_s": bw})
        with open(d / "records.jsonl", "w") as f:
            for r in recs:
                f.write(json.dumps(r, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
