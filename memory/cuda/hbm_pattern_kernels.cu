#include "memory/cuda/hbm_pattern_kernels.h"

#include "harness/cuda/check.h"

namespace railgauge::memory {
namespace {

constexpr int kThreadsPerBlock = 256;
// Resident blocks per SM the grid asks for: a grid-stride loop over 8-byte words reaches the
// HBM's rate with the SMs full of warps; more blocks only wait.
constexpr int kBlocksPerSm = 8;

__device__ std::uint64_t first_thread() {
  return static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}
__device__ std::uint64_t thread_stride() {
  return static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
}

__global__ void pattern_write_kernel(HbmPatternChunk chunk, HbmPattern pattern,
                                     std::uint64_t round) {
  for (std::uint64_t i = first_thread(); i < chunk.words; i += thread_stride()) {
    std::uint64_t *word = chunk.base + i;
    word[0] =
        hbm_pattern_word(pattern, chunk.first_index + i,
                         static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(word)), round);
  }
}

__global__ void pattern_check_kernel(HbmPatternChunk chunk, HbmPattern pattern, std::uint64_t round,
                                     HbmPatternErrorLog *log) {
  for (std::uint64_t i = first_thread(); i < chunk.words; i += thread_stride()) {
    const std::uint64_t *word = chunk.base + i;
    const auto address = static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(word));
    const std::uint64_t expected = hbm_pattern_word(pattern, chunk.first_index + i, address, round);
    const std::uint64_t read = word[0];
    if (read == expected)
      continue;
    // A healthy GPU never gets here: the atomics cost nothing on the path that matters.
    const unsigned long long n = atomicAdd(&log->wrong_words, 1ull);
    atomicAdd(&log->wrong_words_by_pattern[static_cast<int>(pattern)], 1ull);
    if (n < kHbmPatternBadWordsKept) {
      HbmPatternBadWord &bad = log->first[n];
      bad.address = address;
      bad.expected = expected;
      bad.read = read;
      bad.round = round;
      bad.pattern = static_cast<std::int32_t>(pattern);
    }
  }
}

__global__ void flip_kernel(std::uint64_t *word) { word[0] ^= 1ull; }

} // namespace

int hbm_pattern_blocks(int sm_count) { return (sm_count > 0 ? sm_count : 1) * kBlocksPerSm; }

void launch_hbm_pattern_write(const HbmPatternChunk &chunk, HbmPattern pattern, std::uint64_t round,
                              int blocks, cudaStream_t stream) {
  pattern_write_kernel<<<blocks, kThreadsPerBlock, 0, stream>>>(chunk, pattern, round);
  RAILGAUGE_CUDA_CALL(cudaGetLastError());
}

void launch_hbm_pattern_check(const HbmPatternChunk &chunk, HbmPattern pattern, std::uint64_t round,
                              HbmPatternErrorLog *log, int blocks, cudaStream_t stream) {
  pattern_check_kernel<<<blocks, kThreadsPerBlock, 0, stream>>>(chunk, pattern, round, log);
  RAILGAUGE_CUDA_CALL(cudaGetLastError());
}

void launch_hbm_pattern_flip(std::uint64_t *word, cudaStream_t stream) {
  flip_kernel<<<1, 1, 0, stream>>>(word);
  RAILGAUGE_CUDA_CALL(cudaGetLastError());
}

} // namespace railgauge::memory
