// run_burn() for CUDA builds: one thread per GPU (see burn.h for the method).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <vector>

#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include "gemm/cuda/burn.h"
#include "gemm/cuda/cublaslt_plan.h"
#include "gemm/cuda/gemm_kernels.h"
#include "gemm/cuda/lt_matmul.h"
#include "gemm/cuda/reference_check.h"
#include "harness/byte_rates.h"
#include "harness/cuda/check.h"
#include "harness/cuda/device.h"
#include "harness/cuda/event_timer.h"
#include "harness/cuda/resources.h"
#include "harness/error.h"
#include "harness/every_gpu.h"
#include "harness/inventory/gpu_monitor.h"
#include "harness/inventory/gpu_telemetry.h"
#include "harness/rate_series.h"
#include "harness/stats.h"
#include "records/gemm_cublaslt_fields.h"
#include "records/gemm_record.h"

namespace railgauge::gemm {
namespace {

constexpr std::uint64_t kBurnSeed = 0x6275726e;
// Algorithms asked of the heuristic, so that one cublasLtMatmul refuses leaves another.
constexpr int kBurnCandidates = 4;
// Output buffers per timed batch: each repetition keeps its result until it is compared, and
// the comparison runs outside the timed batch. At most this many, within a quarter of the
// free memory.
constexpr int kMaxRingBuffers = 8;

// The golden result's sampled elements against the fp64 reference.
void check_golden(const ReferenceProblem &problem, std::uint64_t c_elements, cudaStream_t stream,
                  BurnGpuResult &r) {
  const auto picked =
      sampled_elements(static_cast<std::int64_t>(c_elements), kVerifiedElementsPerGemm, kBurnSeed);
  const std::vector<double> host = sampled_reference_errors(problem, picked, stream);
  for (double e : host) {
    ++r.reference_checked;
    if (!(e <= 1.0)) // over the bound, or NaN
      ++r.reference_wrong;
  }
}

// One timed batch's counters (differing, NaN, Inf per ring buffer) into the GPU's result.
void add_batch_counters(const std::vector<unsigned long long> &host_counters, int ring,
                        BurnGpuResult &r) {
  for (int i = 0; i < ring; ++i) {
    const unsigned long long *c = host_counters.data() + 3 * i;
    if (c[0] || c[1] || c[2]) {
      if (r.first_bad_iteration < 0)
        r.first_bad_iteration = r.iterations + i;
      ++r.bad_iterations;
    }
    r.mismatched_elements += c[0];
    r.nan_elements += c[1];
    r.inf_elements += c[2];
  }
  r.iterations += ring;
}

void burn_gpu(const BurnOptions &o, BurnGpuResult &r) {
  const GemmShape &s = o.shape;
  const Layout layout = parse_layout(o.layout, "layout");
  const gpu::CudaDeviceInfo info = gpu::cuda_device_info(r.index);
  const gpu::DeviceGuard guard(r.index);
  r.name = info.name;
  r.uuid = info.uuid;
  r.pci = info.pci_bus_id;
  const nlohmann::json before = sample_gpu_telemetry(info.uuid);

  gpu::CudaEventTimer timer(r.index);
  const cudaStream_t stream = timer.stream();
  const LtHandle handle;
  const gpu::DeviceBuffer workspace(kLtWorkspaceBytes);
  const gpu::DeviceBuffer scales = device_fp8_scales(stream);
  const DtypeStorage storage = dtype_storage(o.dtype);
  const LtMatmul lt(s, o.dtype, layout, scales.as<float>());
  const auto count = [&](std::int64_t rows, std::int64_t cols) {
    return static_cast<std::uint64_t>(rows) * static_cast<std::uint64_t>(cols);
  };
  const std::uint64_t c_elements = count(s.m, s.n);
  const std::uint64_t c_bytes = aligned_bytes(c_elements * element_bytes(storage.c));
  gpu::DeviceBuffer a(aligned_bytes(count(s.m, s.k) * element_bytes(storage.a)));
  gpu::DeviceBuffer b(aligned_bytes(count(s.k, s.n) * element_bytes(storage.b)));
  gpu::DeviceBuffer golden(c_bytes);
  fill_operand(a.get(), storage.a, count(s.m, s.k), kBurnSeed, stream);
  fill_operand(b.get(), storage.b, count(s.k, s.n), kBurnSeed + 1, stream);

  // The first algorithm without split-K that cublasLtMatmul runs (drop_refused()).
  auto candidates = lt.heuristic(handle, kBurnCandidates, workspace.bytes(), true);
  const auto refused = drop_refused(lt, handle, candidates, a.get(), b.get(), golden.get(),
                                    workspace.get(), workspace.bytes(), stream);
  if (candidates.empty())
    throw BackendError(
        fmt::format("cuBLASLt {} has no algorithm without split-K reduction that "
                    "it runs for {} {}×{}×{} in layout {}{}",
                    cublaslt_version(), to_string(o.dtype), s.m, s.n, s.k, o.layout,
                    refused.empty() ? std::string() : "; refused: " + refused.dump()));
  const cublasLtMatmulAlgo_t &algo = candidates.front().algo;
  r.algo = algo_json(candidates.front());

  // The golden result, checked against the fp64 reference.
  RAILGAUGE_CUDA_CALL(cudaMemsetAsync(golden.get(), 0xff, c_bytes, stream));
  RAILGAUGE_CUBLAS_CALL(lt.run(handle, algo, a.get(), b.get(), golden.get(), workspace.get(),
                               workspace.bytes(), stream));
  check_golden(reference_problem(a.get(), b.get(), golden.get(), o.dtype, s, layout), c_elements,
               stream, r);

  std::size_t free_bytes = 0, total_bytes = 0;
  RAILGAUGE_CUDA_CALL(cudaMemGetInfo(&free_bytes, &total_bytes));
  const int ring =
      static_cast<int>(std::clamp<std::uint64_t>(free_bytes / 4 / c_bytes, 1, kMaxRingBuffers));
  gpu::DeviceBuffer outputs(c_bytes * static_cast<std::uint64_t>(ring));
  // Three counters (differing, NaN, Inf) per ring buffer: which repetition went wrong.
  gpu::DeviceBuffer counters(sizeof(unsigned long long) * 3 * static_cast<std::size_t>(ring));
  std::vector<unsigned long long> host_counters(3 * static_cast<std::size_t>(ring));
  const auto output = [&](int i) { return outputs.as<char>() + c_bytes * std::uint64_t(i); };

  RateSeries tflops;
  int slot = 0;
  GpuMonitor monitor(info.uuid); // clocks and power under the burn's load
  const auto start = std::chrono::steady_clock::now();
  const auto elapsed_s = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  while (elapsed_s() < o.duration_s) {
    slot = 0;
    const double batch_s = timer.time_batch_s(
        [&] {
          const cublasStatus_t status = lt.run(handle, algo, a.get(), b.get(), output(slot++),
                                               workspace.get(), workspace.bytes(), stream);
          if (status != CUBLAS_STATUS_SUCCESS)
            throw BackendError(gpu::status_message(status, "cublasLtMatmul", __FILE__, __LINE__));
        },
        ring);
    tflops.add(elapsed_s(), tflops_of(gemm_flops(s) * ring, batch_s));
    RAILGAUGE_CUDA_CALL(cudaMemsetAsync(counters.get(), 0, counters.bytes(), stream));
    for (int i = 0; i < ring; ++i)
      compare_outputs(golden.get(), output(i), c_elements, storage.output,
                      counters.as<unsigned long long>() + 3 * i, stream);
    RAILGAUGE_CUDA_CALL(cudaMemcpyAsync(host_counters.data(), counters.get(), counters.bytes(),
                                        cudaMemcpyDeviceToHost, stream));
    RAILGAUGE_CUDA_CALL(cudaStreamSynchronize(stream));
    add_batch_counters(host_counters, ring, r);
  }
  r.elapsed_s = elapsed_s();
  r.settle_s = kSettleFraction * o.duration_s;
  // The telemetry of the window the figure is taken over (after the clocks settled).
  const nlohmann::json during = monitor.stop(r.settle_s);
  r.tflops = tflops.median(r.settle_s).value_or(0.0);
  r.tflops_min = tflops.min(r.settle_s).value_or(0.0);
  r.series = tflops.windows(kSeriesWindow_s, record::kTflops);
  r.telemetry = telemetry_pair(before, during, sample_gpu_telemetry(info.uuid));
}

} // namespace

std::vector<BurnGpuResult> run_burn(const BurnOptions &o) {
  return run_on_every_gpu<BurnGpuResult>(o.gpus, [&o](int gpu, BurnGpuResult &r) {
    r.index = gpu;
    burn_gpu(o, r);
  });
}

} // namespace railgauge::gemm
