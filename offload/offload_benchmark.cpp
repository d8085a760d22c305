// The parts of the offload benchmarks that need no CUDA toolkit: axes, defaults and waivers
// (compiled in every build; run() is in offload_run.cpp or its stub).
#include "offload/offload_benchmark.h"

#include <algorithm>
#include <memory>
#include <stdexcept>

#include <fmt/format.h>

#include "harness/cuda/device.h"
#include "harness/cuda/every_gpu_check.h"
#include "harness/cuda/gemm_load_values.h"
#include "harness/error.h"
#include "harness/run_context.h"
#include "offload/offload_sizes.h"
#include "offload/placement.h"
#include "records/offload_record.h"

namespace railgauge::offload {
namespace {

constexpr double kMaxDeviceMemoryShare = 0.9;
constexpr std::int64_t kDefaultGemmMnk = 8192;

bool has_host_memory_axis(OffloadPath path) {
  return path == OffloadPath::h2d || path == OffloadPath::d2h;
}

std::vector<int> gpus_of(OffloadPath path, const Point &point) {
  std::vector<int> gpus;
  if (is_all_gpus(path)) {
    for (int d = 0; d < gpu::cuda_device_count(); ++d)
      gpus.push_back(d);
  } else {
    gpus.push_back(static_cast<int>(point.integer(record::kGpu)));
  }
  return gpus;
}

struct PathInfo {
  const char *key;
  const char *description;
};

PathInfo path_info(OffloadPath path) {
  namespace r = record;
  switch (path) {
  case OffloadPath::h2d: // the path a prefetch of weights or optimizer state takes
    return {r::kH2d,
            "host-to-device cudaMemcpyAsync bandwidth of one GPU, pinned or pageable host memory "
            "near or far from it (GB/s, bytes copied counted once, with the PCIe link's expected "
            "rate)"};
  case OffloadPath::d2h: // the path an offload of activations or optimizer state takes
    return {r::kD2h,
            "device-to-host cudaMemcpyAsync bandwidth of one GPU, pinned or pageable host memory "
            "near or far from it (GB/s, bytes copied counted once, with the PCIe link's expected "
            "rate)"};
  case OffloadPath::bidir:
    // nvbandwidth's bidirectional CE tests measure one stream while the other interferes; here
    // both are measured and summed
    return {r::kBidir, "host<->device bidirectional cudaMemcpyAsync of one GPU, two streams "
                       "started together: each direction's GB/s and their sum (bytes counted once "
                       "per direction)"};
  case OffloadPath::zero_copy_read: // a kernel that reads offloaded tensors in place
    return {r::kZeroCopyRead,
            "zero-copy host-to-device: a kernel reads mapped pinned host memory "
            "(16-byte vectors) into HBM (GB/s, bytes over the link counted once)"};
  case OffloadPath::zero_copy_write: // a kernel that writes offloaded tensors in place
    return {r::kZeroCopyWrite,
            "zero-copy device-to-host: a kernel writes HBM contents into mapped pinned host memory "
            "(16-byte vectors) (GB/s, bytes over the link counted once)"};
  case OffloadPath::all_gpus_h2d:
    // one thread per GPU, released together: the aggregate and each GPU's share show a shared
    // PCIe switch or root port that single-GPU tests cannot
    return {r::kAllGpusH2d, "host-to-device cudaMemcpyAsync on every visible GPU at once: "
                            "aggregate GB/s, each GPU's GB/s and share"};
  case OffloadPath::all_gpus_d2h:
    return {r::kAllGpusD2h, "device-to-host cudaMemcpyAsync on every visible GPU at once: "
                            "aggregate GB/s, each GPU's GB/s and share"};
  case OffloadPath::with_gemm:
    // the GEMM count per call balanced to the copy's time, so they overlap: the slowdown of each
    // says whether offload hides behind compute, as a model that overlaps them assumes
    return {r::kWithGemm, "host<->device copy concurrent with a bf16 cuBLASLt GEMM on the same "
                          "GPU: each one's time alone and together, and the slowdown of each"};
  }
  throw std::logic_error("unknown offload path");
}

} // namespace

OffloadBenchmark::OffloadBenchmark(OffloadPath path)
    : KeyedBenchmark(path_info(path).key, path_info(path).description), path_(path) {}

std::unique_ptr<OffloadBenchmark> make_offload_benchmark(OffloadPath path) {
  return std::make_unique<OffloadBenchmark>(path);
}

std::vector<Axis> OffloadBenchmark::axes() const {
  std::vector<AxisValue> sizes;
  if (path_ == OffloadPath::with_gemm)
    sizes.emplace_back(std::int64_t{256} << 20);
  else
    for (std::int64_t s : offload_default_sizes_bytes(std::nullopt, 1))
      sizes.emplace_back(s);
  std::vector<Axis> axes;
  axes.push_back({record::kSizeBytes,
                  AxisType::bytes,
                  path_ == OffloadPath::with_gemm
                      ? "bytes per copy beside the GEMM, a multiple of 16; default: 256 MiB"
                  : is_all_gpus(path_)
                      ? "bytes PER GPU per copy, a multiple of 16; default: powers of two from "
                        "4 KiB to 4 GiB, cut where the GPUs' pinned buffers would lock more than "
                        "half of the available host memory"
                      : "bytes per copy (per direction for bidir), a multiple of 16; default: "
                        "powers of two from 4 KiB to 4 GiB, cut where the pinned buffers would "
                        "lock more than half of the available host memory",
                  sizes,
                  {}});
  if (!is_all_gpus(path_))
    axes.push_back({record::kGpu,
                    AxisType::integer,
                    "CUDA device index, as CUDA_VISIBLE_DEVICES leaves them; default: every "
                    "visible GPU",
                    {std::int64_t{0}},
                    {}});
  if (has_host_memory_axis(path_))
    axes.push_back({record::kHostMemory,
                    AxisType::text,
                    "pinned: page-locked, the copy engine reads it directly (timed by CUDA "
                    "events); pageable: ordinary memory the driver stages through its own pinned "
                    "buffers (timed by the host clock), for contrast",
                    {std::string("pinned"), std::string("pageable")},
                    {"pinned", "pageable"}});
  axes.push_back({record::kPlacement,
                  AxisType::text,
                  "near: host memory and CPU thread on the GPU's own NUMA node; far: on another "
                  "node (another socket when there is one)",
                  {std::string("near"), std::string("far")},
                  {"near", "far"}});
  if (path_ == OffloadPath::with_gemm) {
    axes.push_back({record::kDirection,
                    AxisType::text,
                    "the copy that runs beside the GEMM: h2d (prefetching weights or optimizer "
                    "state) or d2h (offloading them)",
                    {std::string("h2d"), std::string("d2h")},
                    {"h2d", "d2h"}});
    axes.push_back({record::kGemmMnk,
                    AxisType::integer,
                    "M = N = K of the bf16 GEMM (fp32 accumulate and output) on the same GPU",
                    {kDefaultGemmMnk},
                    {}});
  }
  return axes;
}

std::vector<AxisValue> OffloadBenchmark::defaults_here(const Axis &axis, const RunContext &) const {
  std::vector<AxisValue> values;
  if (axis.name == "gpu") {
    for (int d = 0; d < gpu::cuda_device_count(); ++d)
      values.emplace_back(std::int64_t{d});
  } else if (axis.name == "size_bytes" && path_ != OffloadPath::with_gemm) {
    const int gpus = std::max(gpu::cuda_device_count(), 1);
    for (std::int64_t s :
         offload_default_sizes_bytes(host_available_bytes(), host_buffers(path_, gpus)))
      values.emplace_back(s);
  }
  return values.empty() ? axis.defaults : values;
}

std::optional<std::string> OffloadBenchmark::supported(const RunContext &ctx,
                                                       const Point &point) const {
  if (auto why = gpu::cuda_unavailable_reason())
    return why;
  if (!ctx.topology().is_this_machine())
    return "the topology was loaded from an XML file, not read from this machine: host memory "
           "cannot be bound nor threads pinned by it";
  const int count = gpu::cuda_device_count();
  const std::vector<int> gpus = gpus_of(path_, point);
  for (int device : gpus)
    if (auto why = gpu::gpu_not_visible(device, count))
      return why;
  const std::int64_t size_bytes = point.integer(record::kSizeBytes);
  if (auto why = gpu::vector_size_problem(size_bytes))
    return why;
  const auto placement = parse_placement(point.text(record::kPlacement));
  if (!placement)
    return fmt::format("placement={} is neither near nor far", point.text(record::kPlacement));
  if (path_ == OffloadPath::with_gemm && point.integer(record::kGemmMnk) < 16)
    return fmt::format("gemm_mnk={} is below 16", point.integer(record::kGemmMnk));

  const double host_bytes =
      static_cast<double>(size_bytes) * host_buffers(path_, static_cast<int>(gpus.size()));
  if (const auto available = host_available_bytes();
      available && host_bytes > kMaxHostMemoryShare * static_cast<double>(*available))
    return fmt::format("the host buffers need {} bytes, more than {:.0f}% of the {} bytes of "
                       "available host memory (MemAvailable)",
                       host_bytes, 100 * kMaxHostMemoryShare, *available);
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    gpu::CudaDeviceInfo info;
    try {
      info = gpu::cuda_device_info(gpus[i]);
    } catch (const BackendError &e) {
      return fmt::format("CUDA device {} cannot be queried: {}", gpus[i], e.what());
    }
    auto where = choose_host_placement(ctx.topology(), info.pci_bus_id, *placement,
                                       static_cast<unsigned>(i));
    if (auto *why = std::get_if<std::string>(&where))
      return fmt::format("placement={} for GPU {}: {}", point.text(record::kPlacement), gpus[i],
                         *why);
    double device_bytes = static_cast<double>(size_bytes) * device_buffers(path_);
    if (path_ == OffloadPath::with_gemm)
      device_bytes +=
          static_cast<double>(gpu::gemm_load_device_bytes(point.integer(record::kGemmMnk)));
    if (device_bytes > kMaxDeviceMemoryShare * static_cast<double>(info.free_memory_bytes))
      return fmt::format("the point needs {} bytes of GPU memory, more than {:.0f}% of the {} "
                         "bytes free on GPU {} ({})",
                         device_bytes, 100 * kMaxDeviceMemoryShare, info.free_memory_bytes, gpus[i],
                         info.name);
  }
  return std::nullopt;
}

} // namespace railgauge::offload
