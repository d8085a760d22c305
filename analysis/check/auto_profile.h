#pragma once
// `check --rules auto` (and `railgauge burnin`): the burn-in profile for the GPUs the runs found,
// from their inventories (NVML's name of each GPU, and how many a node has):
//
//   "NVIDIA H100 80GB HBM3" (H100 SXM5)  -> h100-sxm, or h100-sxm-1gpu on a one-GPU machine
//   "NVIDIA H200"           (H200 SXM)   -> h200-sxm, or h200-sxm-1gpu
//
// A node with another count than 1 is judged by the 8-GPU profile, whose gpu-count rule then
// names what is missing. Runs that had to have GPUs (a GPU burn-in's, or one whose --expect named
// GPUs) and show none are judged by gpu-node, which fails them: a node without its GPUs is the
// commonest failure, never bad input; so are runs whose inventory shows NVIDIA hardware on the
// PCI bus (a GPU or an NVSwitch) or a loaded driver, and no GPU NVML can name. Runs whose PCI
// tree holds nothing of NVIDIA's, without a driver, are judged by host-only.
// Runs that show no GPU and no PCI tree, GPUs of no profile (H100 PCIe or NVL, H200 NVL, A100) or
// GPUs of two kinds are an input error that says which rules to give instead.
//
// An imported log (nccl-tests, perftest) has no inventory: the GPU its records name
// (params.gpu_name) picks the SKU, and a log that crossed nodes or tested a NIC is judged by the
// SKU's fabric profile for the network the log names (nccl-tests' NCCL_DEBUG=INFO "NET/IB : Using
// ...:1/RoCE" line, perftest's link layer): -roce or -ib. A log that names no network is judged
// by -roce, whose floors are the lower, and the choice says so, as is one whose NCCL fell back to
// TCP sockets (the RDMA fabric not in use: a worse transport never gets a kinder verdict); EFA,
// which no profile has floors for, by any-fabric (the checks that need no expected figure). An imported
// log that names no GPU is refused, asking for a profile by name, unless it shows a failed or
// broken record (a link that never came up): any-fabric then FAILs it without a floor.
#include <optional>
#include <string>

#include "analysis/run_set.h"

namespace railgauge::check {

// The profile of a node that must show GPUs and shows none (results/rules/gpu-node.yaml).
inline constexpr const char *kGpuNodeProfile = "gpu-node";
// The profile of a machine without GPUs (results/rules/host-only.yaml).
inline constexpr const char *kHostOnlyProfile = "host-only";
// The checks that need no expected figure (results/rules/any-fabric.yaml).
inline constexpr const char *kAnyFabricProfile = "any-fabric";

struct AutoProfile {
  std::string name; // a shipped profile's name, e.g. "h200-sxm-1gpu"
  std::string why;  // "1 GPU 'NVIDIA H200' on vm: H200 SXM, one GPU"
};

// The profile's name from a GPU name and the most GPUs any node showed; empty when no profile
// describes the GPU. Pure.
std::string profile_for_gpu(const std::string &gpu_name, int gpus_per_node);

// Throws InputError (where: "--rules auto") when no single profile fits the runs. With
// `expect_gpus` (check --expect-gpus) the profile is the one for that many GPUs per node, whatever
// the nodes show: a node of 8 that shows 1 is never judged a healthy machine of one.
AutoProfile auto_profile(const analysis::RunSet &runs,
                         std::optional<int> expect_gpus = std::nullopt);

} // namespace railgauge::check
