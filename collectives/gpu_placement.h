#pragma once
// Which GPU a process of a multi-rank NCCL run drives: by its local rank (its position among
// the run's ranks on the same host, from a host-name all-gather through the store, so it holds
// for srun and mpirun alike and for any rank-to-node distribution). The global rank modulo the
// visible GPUs gives one GPU to two ranks of a host whenever a host's ranks are not consecutive
// (srun -m cyclic or plane, a hostfile listing nodes round-robin). Two ranks that still share a
// GPU (more ranks on a host than it has GPUs, or per-rank visibility that maps two ranks to one
// device) are found by comparing every rank's host and PCI bus id.
#include <optional>
#include <string>
#include <vector>

namespace railgauge::collectives {

// The position of `rank` among the ranks whose host is hosts[rank]; `hosts` in rank order.
int local_rank_of(const std::vector<std::string> &hosts, int rank);

// The device ordinal for `local_rank` among `visible_gpus` (>= 1): local_rank % visible_gpus.
// A launcher that binds one GPU to each process (srun --gpu-bind) leaves one visible: 0.
int device_for_local_rank(int local_rank, int visible_gpus);

// "ranks 1 and 3 on host n0 both drive GPU 0000:1b:00.0 ..." for the first two ranks with the
// same host and PCI bus id (`hosts` and `pci_bus_ids` in rank order), or nullopt.
std::optional<std::string> shared_gpu_problem(const std::vector<std::string> &hosts,
                                              const std::vector<std::string> &pci_bus_ids);

} // namespace railgauge::collectives
