#pragma once
// Host<->GPU bandwidth (docs/offload.md): offload.h2d, d2h, bidir, zero_copy_read,
// zero_copy_write, all_gpus_h2d, all_gpus_d2h and with_gemm, one benchmark per OffloadPath. The
// keys and what each measures are the table in offload_benchmark.cpp; the measuring is
// offload_run.cpp's, one function per kind of path.
//
// One point = host buffers of `size_bytes` bound by hwloc to the GPU's own NUMA node or a far
// one (placement.h), with the point's CPU thread pinned to a core of that node; pinned buffers
// are page-locked with cudaHostRegister (mapped, for the zero-copy kernels), pageable ones are
// left as they are. The source is seeded with a pattern and the destination zeroed, the transfer
// is measured, then the whole destination is checked against the pattern.
//
// Timing. Pinned copies and kernels: CUDA events around a batch enqueued behind a blocking
// kernel (gpu::CudaEventTimer, or GatedLanesTimer when several streams or GPUs run at once).
// Pageable copies cannot sit behind a blocked stream (the runtime synchronises the stream before
// a pageable copy returns), so they are timed on the host clock around copy + stream
// synchronisation; metrics.timer says which.
//
// Every record carries the GPU's PCIe link as negotiated (NVML, else sysfs), sampled while the
// point runs (an idle GPU drops its link to a lower generation to save power, so a reading
// taken before or after would not be this copy's), the bandwidth that link can carry and the
// efficiency against it (pcie_link.h).
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/benchmark.h"
#include "offload/offload_types.h"

namespace railgauge::offload {

class OffloadBenchmark final : public KeyedBenchmark {
public:
  explicit OffloadBenchmark(OffloadPath path);
  std::vector<Axis> axes() const override;
  std::vector<AxisValue> defaults_here(const Axis &axis, const RunContext &ctx) const override;
  std::optional<std::string> supported(const RunContext &ctx, const Point &point) const override;
  Outcome run(RunContext &ctx, const Point &point) override;

  OffloadPath path() const { return path_; }

  // Test hook: called after the measurement and before the data check with each destination
  // buffer (`device_memory` says whether it is GPU memory), so a test can corrupt it and see the
  // point fail.
  using BeforeVerify = std::function<void(void *destination, bool device_memory, std::size_t)>;
  void set_before_verify(BeforeVerify hook) { before_verify_ = std::move(hook); }

  // Where the NVML library and sysfs are read for the PCIe link (tests point them elsewhere).
  void set_link_sources(std::string nvml_library, std::string sysfs_root) {
    nvml_library_ = std::move(nvml_library);
    sysfs_root_ = std::move(sysfs_root);
    nvml_snapshot_.reset();
  }

private:
  Outcome run_copy(RunContext &ctx, const Point &point);
  Outcome run_bidir(RunContext &ctx, const Point &point);
  Outcome run_all_gpus(RunContext &ctx, const Point &point);
  Outcome run_with_gemm(RunContext &ctx, const Point &point);
  // NVML's view of the GPUs (harness/inventory/nvml_query.h), queried at the first point that
  // needs it: opening NVML and reading every GPU per point would cost more than a small point
  // measures.
  const nlohmann::json &nvml_snapshot();

  OffloadPath path_;
  BeforeVerify before_verify_;
  std::string nvml_library_ = "libnvidia-ml.so.1";
  std::string sysfs_root_ = "/sys";
  std::optional<nlohmann::json> nvml_snapshot_;
};

// Every path, in the order `railgauge list` shows them.
inline constexpr OffloadPath kOffloadPaths[] = {OffloadPath::h2d,
                                                OffloadPath::d2h,
                                                OffloadPath::bidir,
                                                OffloadPath::zero_copy_read,
                                                OffloadPath::zero_copy_write,
                                                OffloadPath::all_gpus_h2d,
                                                OffloadPath::all_gpus_d2h,
                                                OffloadPath::with_gemm};

std::unique_ptr<OffloadBenchmark> make_offload_benchmark(OffloadPath path);

} // namespace railgauge::offload
