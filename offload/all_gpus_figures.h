#pragma once
// The record of offload.all_gpus_h2d/d2h assembled from what each GPU measured: its per_gpu
// objects and the figures over them. Plain C++, apart from the CUDA run that measures
// (offload_all_gpus.cpp), so that the assembly is tested without a GPU.
#include <vector>

#include <nlohmann/json.hpp>

#include "records/gpu_part.h"
#include "records/offload_placement.h"
#include "records/pcie_link_fields.h"

namespace railgauge::offload {

// One GPU's copy of the point, as measured.
struct AllGpusCopy {
  records::GpuPart part; // the GPU and its telemetry window
  record::HostPlacementFields placement;
  record::PlacementCheckFields placement_check;
  record::PcieLinkFields link; // its efficiency against this GPU's own bandwidth
  double bandwidth_gbytes_per_s = 0;
};

// Puts into `metrics` each GPU's object (per_gpu: its placement, link, bandwidth and share of the
// sum), the sum of the GPUs' rates, the slowest GPU and its share, and the links' summed
// expected rate with `aggregate_gbytes_per_s` (the point's bytes over its median time) against
// it. Each GPU was timed while all the others still ran (the timer's padding): a GPU that
// finishes early does not leave the others an uncontended tail that would hide a shared uplink,
// so the sum is a concurrent aggregate.
void write_all_gpus_figures(const std::vector<AllGpusCopy> &gpus, double aggregate_gbytes_per_s,
                            nlohmann::json &metrics);

} // namespace railgauge::offload
