#!/usr/bin/env python3
"""Reads `railgauge list` on stdin and says whether the binary is a GPU-capable build.

A CUDA build on a machine without a GPU lists its GPU benchmarks as waived for want of a driver
("no NVIDIA driver is loaded") or, with a GPU, as running; a build without CUDA or NCCL lists them
as "built without ...". scripts/package_cuda.sh runs the unpacked GPU package's binary through
this, so that a package that lost its CUDA backends, or that cannot load them, is refused.

Exit status: 0 every GPU benchmark runs or waits for a driver; 1 not so (the keys that do not are
named, with their reasons); 2 the input lists no benchmark at all.
"""
import re
import sys

# The families and keys whose benchmarks need CUDA (or NCCL): every key of these runs on a GPU.
GPU_KEYS = re.compile(
    r"^(memory\.(hbm_\w+|burn|pattern|peer_copy)|gemm\.(cublaslt\w*|burn)|offload\.\w+"
    r"|collectives\.nccl_\w+|block\.\w+_gpu)$"
)
# `railgauge list` heads each benchmark with "KEY  [runs here]" or "KEY  [waived here: REASON]".
HEADING = re.compile(r"^(\S+)  \[(runs here|waived here: (.*))\]$")


def gpu_verdicts(listed):
    """(key, reason or None) of each GPU benchmark the listing heads, in its order."""
    out = []
    for line in listed.splitlines():
        m = HEADING.match(line)
        if m and GPU_KEYS.match(m.group(1)):
            out.append((m.group(1), m.group(3)))
    return out


def refusals(verdicts):
    """The GPU benchmarks that neither run nor wait for a driver, with their reasons."""
    return [(key, reason) for key, reason in verdicts if reason is not None and "driver" not in reason]


def main():
    listed = sys.stdin.read()
    verdicts = gpu_verdicts(listed)
    if not verdicts:
        print("cuda_waivers.py: the input lists no GPU benchmark (is it `railgauge list`?)",
              file=sys.stderr)
        return 2
    bad = refusals(verdicts)
    for key, reason in bad:
        print(f"cuda_waivers.py: {key} is waived for another reason than the driver: {reason}",
              file=sys.stderr)
    if bad:
        return 1
    waiting = sum(1 for _, reason in verdicts if reason is not None)
    print(f"cuda_waivers.py: {len(verdicts)} GPU benchmarks: {len(verdicts) - waiting} run here, "
          f"{waiting} wait for the NVIDIA driver", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
