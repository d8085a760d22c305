#include "offload/offload_transfer.h"

#include <algorithm>
#include <cstring>
#include <variant>

#include <fmt/format.h>

#include "harness/byte_rates.h"
#include "harness/cuda/check.h"
#include "harness/device_fields.h"
#include "harness/stats.h"
#include "offload/pattern.h"
#include "records/offload_record.h"

namespace railgauge::offload {
namespace {

void seed_host(void *data, std::size_t bytes, std::uint32_t seed) {
  auto *words = static_cast<std::uint32_t *>(data);
  for (std::size_t i = 0; i < bytes / 4; ++i)
    words[i] = pattern_word(i, seed);
}

std::uint64_t count_wrong_host(const void *data, std::size_t bytes, std::uint32_t seed) {
  const auto *words = static_cast<const std::uint32_t *>(data);
  std::uint64_t wrong = 0;
  for (std::size_t i = 0; i < bytes / 4; ++i)
    wrong += words[i] != pattern_word(i, seed) ? 1 : 0;
  return wrong;
}

} // namespace

std::uint32_t seed_for(std::size_t bytes, int device, int buffer) {
  return static_cast<std::uint32_t>(bytes * 2654435761u) ^ static_cast<std::uint32_t>(device << 8) ^
         static_cast<std::uint32_t>(buffer + 1) * 0x27d4eb2du;
}

std::span<const double> timed_batches(const std::vector<double> &series, const Measurement &m) {
  const std::size_t n = std::min(series.size(), m.samples_s.size());
  return std::span<const double>(series).subspan(series.size() - n);
}

double lane_median_s(const GatedLanesTimer &timer, std::size_t lane, const Measurement &m) {
  const auto timed = timed_batches(timer.lane_samples_s(lane), m);
  return timed.empty() ? 0.0 : summarize(timed).median;
}

double gbytes_per_s(std::uint64_t bytes, double seconds) {
  return seconds > 0 ? gbytes_per_s_of(static_cast<double>(bytes), seconds) : 0.0;
}

HostPlacement placement_of(const RunContext &ctx, const Point &point,
                           const gpu::CudaDeviceInfo &info, unsigned nth_thread) {
  auto where = choose_host_placement(ctx.topology(), info.pci_bus_id,
                                     *parse_placement(point.text(record::kPlacement)), nth_thread);
  if (auto *why = std::get_if<std::string>(&where))
    throw BackendError(*why); // supported() checked it: the topology changed under the run
  return std::get<HostPlacement>(where);
}

void add_placement(Outcome &outcome, const gpu::CudaDeviceInfo &info, const HostPlacement &p,
                   std::initializer_list<const HostRegion *> regions) {
  std::vector<std::variant<std::vector<unsigned>, std::string>> found;
  for (const HostRegion *r : regions)
    found.push_back(r->buffer().page_nodes());
  placement_check_fields(p.numa_node, found).write(outcome.metrics);
  outcome.device = {{device::kGpu, info.uuid}, {device::kPci, info.pci_bus_id}};
  outcome.device.update({{device::kNuma, p.numa_node}, {device::kCpus, std::to_string(p.pu)}});
  outcome.derived_params[record::kGpuName] = info.name;
  placement_fields(p).write(outcome.derived_params);
}

void Transfer::operator()(cudaStream_t stream) const {
  switch (path) {
  case OffloadPath::zero_copy_read:
    launch_zero_copy(host->device_pointer(), device, bytes, grid, stream);
    return;
  case OffloadPath::zero_copy_write:
    launch_zero_copy(device, host->device_pointer(), bytes, grid, stream);
    return;
  case OffloadPath::d2h:
  case OffloadPath::all_gpus_d2h:
    RAILGAUGE_CUDA_CALL(
        cudaMemcpyAsync(host->data(), device, bytes, cudaMemcpyDeviceToHost, stream));
    return;
  default:
    RAILGAUGE_CUDA_CALL(
        cudaMemcpyAsync(device, host->data(), bytes, cudaMemcpyHostToDevice, stream));
    return;
  }
}

void prepare_transfer(const Transfer &t, std::uint32_t seed, cudaStream_t stream) {
  if (t.to_device()) {
    seed_host(t.host->data(), t.bytes, seed);
    RAILGAUGE_CUDA_CALL(cudaMemsetAsync(t.device, 0, t.bytes, stream));
  } else {
    std::memset(t.host->data(), 0, t.bytes);
    seed_pattern_on_device(t.device, t.bytes, seed, stream);
  }
  RAILGAUGE_CUDA_CALL(cudaStreamSynchronize(stream));
}

std::uint64_t count_wrong_words(const Transfer &t, std::uint32_t seed, cudaStream_t stream,
                                const OffloadBenchmark::BeforeVerify &hook) {
  RAILGAUGE_CUDA_CALL(cudaStreamSynchronize(stream));
  if (hook)
    hook(t.to_device() ? t.device : t.host->data(), t.to_device(), t.bytes);
  return t.to_device() ? count_wrong_on_device(t.device, t.bytes, seed, stream)
                       : count_wrong_host(t.host->data(), t.bytes, seed);
}

std::string wrong_words_problem(std::string_view what, std::uint64_t wrong, std::size_t bytes) {
  return fmt::format("{}: {} of {} words hold wrong values", what, wrong, bytes / 4);
}

} // namespace railgauge::offload
