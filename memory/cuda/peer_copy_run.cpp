// run_peer_copy() for CUDA builds: every ordered pair in turn (see peer_copy.h for the method).
#include <algorithm>
#include <chrono>
#include <thread>

#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include "harness/cuda/check.h"
#include "harness/cuda/device.h"
#include "harness/cuda/resources.h"
#include "harness/error.h"
#include "harness/inventory/gpu_telemetry.h"
#include "harness/stats.h"
#include "memory/cuda/hbm_pattern_kernels.h"
#include "memory/cuda/peer_copy.h"

namespace railgauge::memory {
namespace {

// A copy may take this long beyond its size at 1 GB/s (a PCIe Gen1 x1 link) before the wait
// gives up: a copy engine that never finishes is an error naming the pair, never a hang.
constexpr double kCopyTimeoutBaseS = 30;

// What one GPU holds for the phase: the buffer it copies from, the one its peers copy into, the
// check's log, and a stream and events of its own.
struct GpuSide {
  explicit GpuSide(std::uint64_t bytes)
      : source(bytes), destination(bytes), log(sizeof(HbmPatternErrorLog)) {}
  gpu::DeviceBuffer source, destination, log;
  gpu::Stream stream;
  gpu::Event begin, end;
  int blocks = 0;
};

// Waits for `event` by polling, up to `timeout_s`; throws naming `what` past it.
void wait_for(cudaEvent_t event, double timeout_s, const std::string &what) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  for (;;) {
    const cudaError_t e = cudaEventQuery(event);
    if (e == cudaSuccess)
      return;
    if (e != cudaErrorNotReady)
      RAILGAUGE_CUDA_CALL(e);
    if (std::chrono::steady_clock::now() > deadline)
      throw BackendError(fmt::format("{} did not finish within {:.0f} s", what, timeout_s));
    std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
}

HbmPatternChunk chunk_of(const gpu::DeviceBuffer &b) {
  return {b.as<std::uint64_t>(), b.bytes() / sizeof(std::uint64_t), 0};
}

// src -> dst: fill, copy once untimed and `repetitions` times timed, check on dst.
void copy_pair(const PeerCopyOptions &o, GpuSide &src, GpuSide &dst, PeerCopyPair &p) {
  const auto seed = static_cast<std::uint64_t>(p.src) * 64 + static_cast<std::uint64_t>(p.dst);
  const double timeout_s = kCopyTimeoutBaseS + static_cast<double>(o.size_bytes) / 1e9;
  const std::string what = fmt::format("the copy GPU {} -> GPU {}", p.src, p.dst);
  {
    const gpu::DeviceGuard guard(p.dst); // zeroed: a word left by an earlier pair is wrong
    RAILGAUGE_CUDA_CALL(cudaMemsetAsync(dst.destination.get(), 0, o.size_bytes, dst.stream.get()));
    RAILGAUGE_CUDA_CALL(
        cudaMemsetAsync(dst.log.get(), 0, sizeof(HbmPatternErrorLog), dst.stream.get()));
    RAILGAUGE_CUDA_CALL(cudaEventRecord(dst.end.get(), dst.stream.get()));
    wait_for(dst.end.get(), timeout_s, fmt::format("zeroing GPU {}'s buffer", p.dst));
  }
  const gpu::DeviceGuard guard(p.src);
  launch_hbm_pattern_write(chunk_of(src.source), HbmPattern::random, seed, src.blocks,
                           src.stream.get());
  std::vector<double> rates;
  for (std::int64_t r = 0; r <= o.repetitions; ++r) { // copy 0 is the untimed warm-up
    RAILGAUGE_CUDA_CALL(cudaEventRecord(src.begin.get(), src.stream.get()));
    RAILGAUGE_CUDA_CALL(cudaMemcpyPeerAsync(dst.destination.get(), p.dst, src.source.get(), p.src,
                                            o.size_bytes, src.stream.get()));
    RAILGAUGE_CUDA_CALL(cudaEventRecord(src.end.get(), src.stream.get()));
    wait_for(src.end.get(), timeout_s, what);
    float ms = 0;
    RAILGAUGE_CUDA_CALL(cudaEventElapsedTime(&ms, src.begin.get(), src.end.get()));
    if (r > 0 && ms > 0)
      rates.push_back(static_cast<double>(o.size_bytes) / (ms / 1e3) / 1e9);
  }
  if (rates.empty())
    throw BackendError(fmt::format("{}: no timed copy took a measurable time", what));
  p.copies = static_cast<std::int64_t>(rates.size());
  p.bandwidth_gbytes_per_s = median(rates);
  p.bandwidth_min_gbytes_per_s = *std::min_element(rates.begin(), rates.end());

  const gpu::DeviceGuard on_dst(p.dst); // every copy finished: the check reads the last one
  auto *log = dst.log.as<HbmPatternErrorLog>();
  launch_hbm_pattern_check(chunk_of(dst.destination), HbmPattern::random, seed, log, dst.blocks,
                           dst.stream.get());
  HbmPatternErrorLog found;
  RAILGAUGE_CUDA_CALL(
      cudaMemcpyAsync(&found, log, sizeof found, cudaMemcpyDeviceToHost, dst.stream.get()));
  RAILGAUGE_CUDA_CALL(cudaEventRecord(dst.end.get(), dst.stream.get()));
  wait_for(dst.end.get(), timeout_s, fmt::format("the check of {}", what));
  p.words = o.size_bytes / sizeof(std::uint64_t);
  p.wrong_words = found.wrong_words;
}

// Enables src's access to dst's memory; one enabled before (an earlier point) is no error.
void enable_peer(int src, int dst) {
  const gpu::DeviceGuard guard(src);
  const cudaError_t e = cudaDeviceEnablePeerAccess(dst, 0);
  if (e == cudaErrorPeerAccessAlreadyEnabled) {
    (void)cudaGetLastError(); // not sticky: clear it and go on
    return;
  }
  RAILGAUGE_CUDA_CALL(e);
}

} // namespace

std::vector<std::vector<bool>> peer_access_matrix(const std::vector<int> &gpus) {
  std::vector<std::vector<bool>> access(gpus.size(), std::vector<bool>(gpus.size(), false));
  for (std::size_t i = 0; i < gpus.size(); ++i)
    for (std::size_t j = 0; j < gpus.size(); ++j) {
      if (i == j)
        continue;
      int can = 0;
      RAILGAUGE_CUDA_CALL(cudaDeviceCanAccessPeer(&can, gpus[i], gpus[j]));
      access[i][j] = can != 0;
    }
  return access;
}

PeerCopyRun run_peer_copy(const PeerCopyOptions &o) {
  const auto start = std::chrono::steady_clock::now();
  PeerCopyRun run;
  const auto access = peer_access_matrix(o.gpus);
  std::vector<std::unique_ptr<GpuSide>> sides(o.gpus.size());
  for (std::size_t i = 0; i < o.gpus.size(); ++i) {
    PeerCopyGpu g;
    g.gpu = o.gpus[i];
    try {
      const gpu::CudaDeviceInfo info = gpu::cuda_device_info(g.gpu); // creates the context
      g.name = info.name;
      g.uuid = info.uuid;
      g.pci = info.pci_bus_id;
      const gpu::DeviceGuard guard(g.gpu);
      sides[i] = std::make_unique<GpuSide>(o.size_bytes);
      sides[i]->blocks = hbm_pattern_blocks(info.sm_count);
    } catch (const std::exception &e) {
      g.error = e.what();
      sides[i].reset();
    }
    run.gpus.push_back(std::move(g));
  }
  std::vector<std::unique_ptr<GpuTelemetryWindow>> windows;
  for (const auto &g : run.gpus)
    windows.push_back(g.error ? nullptr : std::make_unique<GpuTelemetryWindow>(g.uuid));
  for (std::size_t i = 0; i < o.gpus.size(); ++i)
    for (std::size_t j = 0; j < o.gpus.size(); ++j) {
      if (i == j)
        continue;
      PeerCopyPair p;
      p.src = o.gpus[i];
      p.dst = o.gpus[j];
      p.peer_access = access[i][j];
      if (p.peer_access && sides[i] && sides[j]) {
        try {
          enable_peer(p.src, p.dst);
          copy_pair(o, *sides[i], *sides[j], p);
        } catch (const std::exception &e) {
          p.error = e.what();
        }
      } else if (p.peer_access) {
        p.error = fmt::format("GPU {} could not be set up", sides[i] ? p.dst : p.src);
      }
      run.pairs.push_back(std::move(p));
    }
  const double elapsed_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  for (std::size_t i = 0; i < run.gpus.size(); ++i) {
    run.gpus[i].elapsed_s = elapsed_s;
    if (windows[i])
      run.gpus[i].telemetry = windows[i]->finish();
  }
  return run;
}

} // namespace railgauge::memory
