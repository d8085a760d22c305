#pragma once
// memory.pattern's kernels (hbm_pattern_kernels.cu): write a pattern over one chunk of HBM, check
// it where it lies, count the words that differ on the GPU. Include only from sources compiled
// when RAILGAUGE_HAS_CUDA.
#include <cstdint>

#include <cuda_runtime_api.h>

#include "memory/cuda/hbm_pattern_words.h"

namespace railgauge::memory {

// The first wrong words the check found, in the order the GPU's atomics gave them: enough to
// tell one bad cell from a bad row or address line, small enough to copy back at once.
inline constexpr int kHbmPatternBadWordsKept = 8;

// What the checks of one GPU found, kept on the GPU and zeroed before the first pattern.
struct HbmPatternErrorLog {
  unsigned long long wrong_words = 0;
  unsigned long long wrong_words_by_pattern[kHbmPatternCount] = {};
  HbmPatternBadWord first[kHbmPatternBadWordsKept] = {};
};

// One chunk of the tested memory: `words` 64-bit words from `base`, the first of them word
// `first_index` of the whole tested memory (the index the patterns count).
struct HbmPatternChunk {
  std::uint64_t *base = nullptr;
  std::uint64_t words = 0;
  std::uint64_t first_index = 0;
};

// Blocks that fill the GPU's SMs for the grid-stride pattern kernels.
int hbm_pattern_blocks(int sm_count);

void launch_hbm_pattern_write(const HbmPatternChunk &chunk, HbmPattern pattern, std::uint64_t round,
                              int blocks, cudaStream_t stream);
void launch_hbm_pattern_check(const HbmPatternChunk &chunk, HbmPattern pattern, std::uint64_t round,
                              HbmPatternErrorLog *log, int blocks, cudaStream_t stream);

// Flips the lowest bit of the word at `word` (a fault put there on purpose, between a write and
// its check, so that a test can prove the check finds it).
void launch_hbm_pattern_flip(std::uint64_t *word, cudaStream_t stream);

} // namespace railgauge::memory
