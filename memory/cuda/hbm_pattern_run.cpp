// run_hbm_pattern() for CUDA builds: one thread per GPU (see hbm_pattern.h for the method).
#include <algorithm>
#include <chrono>
#include <vector>

#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include "harness/cuda/check.h"
#include "harness/cuda/device.h"
#include "harness/cuda/resources.h"
#include "harness/error.h"
#include "harness/every_gpu.h"
#include "harness/inventory/gpu_telemetry.h"
#include "memory/cuda/hbm_pattern.h"
#include "memory/cuda/hbm_pattern_kernels.h"

namespace railgauge::memory {
namespace {

// One allocation of the tested memory, freed when the test ends.
struct OwnedChunk {
  gpu::UniqueCudaHandle<void *, gpu::DeviceMemoryTraits> memory;
  HbmPatternChunk chunk;
};

// Allocates the plan's chunks; a chunk the allocator refuses (another process took memory since
// the free figure was read, or the free memory is fragmented) is asked for again at half its
// size, down to kHbmPatternMinChunkBytes, and what could not be had shows as a lower coverage.
std::vector<OwnedChunk> allocate_chunks(const HbmPatternChunkPlan &plan) {
  std::vector<OwnedChunk> chunks;
  std::uint64_t next_index = 0;
  for (std::uint64_t bytes : plan.chunk_bytes)
    for (;;) {
      void *p = nullptr;
      const cudaError_t e = cudaMalloc(&p, bytes);
      if (e == cudaSuccess) {
        OwnedChunk c;
        c.memory = gpu::UniqueCudaHandle<void *, gpu::DeviceMemoryTraits>(p);
        c.chunk = {static_cast<std::uint64_t *>(p), bytes / sizeof(std::uint64_t), next_index};
        next_index += c.chunk.words;
        chunks.push_back(std::move(c));
        break;
      }
      if (e != cudaErrorMemoryAllocation)
        RAILGAUGE_CUDA_CALL(e);
      (void)cudaGetLastError(); // an allocation failure is not sticky: clear it and go on
      if (bytes <= kHbmPatternMinChunkBytes)
        break; // this chunk stays untested
      bytes = std::max(kHbmPatternMinChunkBytes,
                       bytes / 2 / kHbmPatternAlignBytes * kHbmPatternAlignBytes);
    }
  return chunks;
}

// The word `k` of `faults` put into the memory on purpose: spread evenly over every chunk.
std::uint64_t *fault_word(const std::vector<OwnedChunk> &chunks, std::int64_t k,
                          std::int64_t faults) {
  const std::uint64_t words = chunks.back().chunk.first_index + chunks.back().chunk.words;
  const std::uint64_t index = static_cast<std::uint64_t>(k + 1) * (words / (faults + 1));
  for (const auto &c : chunks)
    if (index < c.chunk.first_index + c.chunk.words)
      return c.chunk.base + (index - c.chunk.first_index);
  return chunks.back().chunk.base;
}

void test_gpu(const HbmPatternOptions &o, HbmPatternGpuResult &r) {
  const auto start = std::chrono::steady_clock::now();
  const gpu::CudaDeviceInfo info = gpu::cuda_device_info(r.gpu); // creates the context first
  const gpu::DeviceGuard guard(r.gpu);
  r.name = info.name;
  r.uuid = info.uuid;
  r.pci = info.pci_bus_id;
  r.rounds = o.rounds;

  gpu::DeviceBuffer log_buffer(sizeof(HbmPatternErrorLog));
  auto *log = log_buffer.as<HbmPatternErrorLog>();
  const gpu::Stream stream;
  const gpu::Event begin, end;
  std::size_t free_bytes = 0, total_bytes = 0;
  RAILGAUGE_CUDA_CALL(cudaMemGetInfo(&free_bytes, &total_bytes));
  const HbmPatternChunkPlan plan = plan_hbm_pattern_chunks(free_bytes);
  r.free_memory_bytes = plan.free_bytes;
  r.margin_bytes = plan.margin_bytes;
  const std::vector<OwnedChunk> chunks = allocate_chunks(plan);
  for (const auto &c : chunks)
    r.covered_bytes += c.chunk.words * sizeof(std::uint64_t);
  r.chunks = static_cast<int>(chunks.size());
  if (chunks.empty())
    throw BackendError(fmt::format("no memory to test: {} bytes free, a margin of {} left alone",
                                   plan.free_bytes, plan.margin_bytes));
  RAILGAUGE_CUDA_CALL(cudaMemsetAsync(log, 0, sizeof(HbmPatternErrorLog), stream.get()));

  const int blocks = hbm_pattern_blocks(info.sm_count);
  GpuTelemetryWindow telemetry(info.uuid);
  for (std::int64_t round = 0; round < o.rounds; ++round)
    for (int p = 0; p < kHbmPatternCount; ++p) {
      const auto pattern = static_cast<HbmPattern>(p);
      const auto r64 = static_cast<std::uint64_t>(round);
      RAILGAUGE_CUDA_CALL(cudaEventRecord(begin.get(), stream.get()));
      for (const auto &c : chunks)
        launch_hbm_pattern_write(c.chunk, pattern, r64, blocks, stream.get());
      if (round == 0 && p == 0) {
        for (std::int64_t k = 0; k < o.inject_faults; ++k)
          launch_hbm_pattern_flip(fault_word(chunks, k, o.inject_faults), stream.get());
        r.injected_faults = o.inject_faults;
      }
      for (const auto &c : chunks)
        launch_hbm_pattern_check(c.chunk, pattern, r64, log, blocks, stream.get());
      RAILGAUGE_CUDA_CALL(cudaEventRecord(end.get(), stream.get()));
      RAILGAUGE_CUDA_CALL(cudaEventSynchronize(end.get()));
      float ms = 0;
      RAILGAUGE_CUDA_CALL(cudaEventElapsedTime(&ms, begin.get(), end.get()));
      r.pattern_time_s += ms / 1e3;
    }
  r.telemetry = telemetry.finish();

  HbmPatternErrorLog found;
  RAILGAUGE_CUDA_CALL(
      cudaMemcpyAsync(&found, log, sizeof found, cudaMemcpyDeviceToHost, stream.get()));
  RAILGAUGE_CUDA_CALL(cudaStreamSynchronize(stream.get()));
  r.wrong_words = found.wrong_words;
  for (int p = 0; p < kHbmPatternCount; ++p)
    r.wrong_words_by_pattern[p] = found.wrong_words_by_pattern[p];
  for (std::uint64_t i = 0; i < found.wrong_words && i < kHbmPatternBadWordsKept; ++i)
    r.bad_words.push_back(found.first[i]);
  r.elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

} // namespace

std::vector<HbmPatternGpuResult> run_hbm_pattern(const HbmPatternOptions &o) {
  return run_on_every_gpu<HbmPatternGpuResult>(o.gpus, [&o](int gpu, HbmPatternGpuResult &r) {
    r.gpu = gpu;
    test_gpu(o, r);
  });
}

} // namespace railgauge::memory
