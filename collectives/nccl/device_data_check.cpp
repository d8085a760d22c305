#include "collectives/nccl/device_data_check.h"

#include <algorithm>
#include <cstring>

#include "collectives/nccl/seeded_data_kernels.h"
#include "harness/cuda/check.h"

namespace railgauge::collectives {

void seed_on_device(int device, cudaStream_t stream, DType type, RedOp op, std::uint64_t seed,
                    int rank, int world, const std::optional<InputRegion> &region, void *input,
                    void *output, std::size_t output_bytes) {
  gpu::DeviceGuard guard(device);
  RAILGAUGE_CUDA_CALL(cudaMemsetAsync(output, 0xff, output_bytes, stream));
  if (!region)
    return;
  auto *at = static_cast<std::byte *>(input) + region->offset_elements * element_bytes(type);
  enqueue_seeded_fill(type, op, seed, rank, world, region->first_index, at, region->elements,
                      stream);
}

std::size_t DeviceDataCheck::enqueue(int device, cudaStream_t stream, const void *buffer,
                                     const OutputRegion &region) {
  gpu::DeviceGuard guard(device);
  Pending p;
  p.device = device;
  p.region = static_cast<const std::byte *>(buffer) +
             region.offset_elements * element_bytes(region.expect.type);
  p.expect = region.expect;
  p.counts = std::make_unique<gpu::DeviceBuffer>(sizeof(DeviceCheckCounts));
  p.back = std::make_unique<gpu::MappedHostBuffer>(sizeof(DeviceCheckCounts));
  auto *counts = p.counts->as<DeviceCheckCounts>();
  enqueue_output_check(p.expect, p.region, counts, stream);
  RAILGAUGE_CUDA_CALL(cudaMemcpyAsync(p.back->host(), counts, sizeof(DeviceCheckCounts),
                                      cudaMemcpyDeviceToHost, stream));
  pending_.push_back(std::move(p));
  return pending_.size() - 1;
}

std::vector<CheckResult> DeviceDataCheck::results() const {
  std::vector<CheckResult> out;
  for (const Pending &p : pending_) {
    DeviceCheckCounts counts;
    std::memcpy(&counts, p.back->host(), sizeof counts);
    CheckResult r;
    r.checked = p.expect.elements;
    r.wrong = counts.wrong;
    if (r.wrong > 0) {
      const std::uint64_t lowest = ~counts.lowest_wrong_complement;
      const std::size_t elt = element_bytes(p.expect.type);
      std::byte element[8];
      gpu::DeviceGuard guard(p.device);
      RAILGAUGE_CUDA_CALL(
          cudaMemcpy(element, p.region + lowest * elt, elt, cudaMemcpyDeviceToHost));
      r.first_wrong_index = p.expect.first_index + lowest;
      r.first_got = load_value(p.expect.type, element, 0);
      r.first_expected = expected_value(p.expect, lowest);
      const auto kept =
          std::min<std::uint64_t>(counts.positions_taken, DeviceCheckCounts::kPositionsKept);
      for (std::uint64_t k = 0; k < kept; ++k)
        r.wrong_indices.push_back(p.expect.first_index + counts.positions[k]);
      std::sort(r.wrong_indices.begin(), r.wrong_indices.end());
    }
    out.push_back(std::move(r));
  }
  return out;
}

} // namespace railgauge::collectives
