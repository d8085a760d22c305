#pragma once
// The words memory.pattern writes into HBM and then checks, one 64-bit word at a time. The
// kernel that writes a word and the one that checks it compute it from the word's index and
// address alone, so the check needs no copy of the data (on the host or on the GPU); the host
// tests compute the same function (RAILGAUGE_HOST_DEVICE). Plain C++17 for nvcc.
//
// The patterns are a memory tester's (memtest86's and DCGM's memtest): each finds a different
// fault of a DRAM cell, a row or the address path.
//   walking_ones   one bit set, its position moving word to word: a bit stuck at 0, or coupled
//                  to its neighbour in the same word
//   walking_zeros  the complement: a bit stuck at 1
//   address        each word holds its own byte address (its complement in odd rounds): an
//                  address line stuck or shorted sends two words to one cell, and one of them
//                  then holds the other's address
//   random         a seeded pseudo-random word (splitmix64 of the index): data-dependent faults
//                  that no regular pattern excites
#include <cstdint>

#include "harness/host_device.h"

namespace railgauge::memory {

enum class HbmPattern : int { walking_ones = 0, walking_zeros = 1, address = 2, random = 3 };
inline constexpr int kHbmPatternCount = 4;

// A word the check found wrong: where, what it should have held and what it held, under which
// pattern (an HbmPattern) and round. Written by the GPU's check kernel, read by the host.
struct HbmPatternBadWord {
  std::uint64_t address = 0, expected = 0, read = 0, round = 0;
  std::int32_t pattern = 0;
};

// The seed of round 0's random pattern; round r uses kHbmPatternSeed + r.
inline constexpr std::uint64_t kHbmPatternSeed = 0x5241494c47415547ull; // "RAILGAUG"

// Sebastiano Vigna's splitmix64 finaliser: consecutive inputs give uncorrelated outputs.
RAILGAUGE_HOST_DEVICE inline std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// The word that `pattern` puts at word `index` of the tested memory (counted over every chunk,
// from 0), whose byte address on the GPU is `address`, in round `round`: each round moves the
// walking bit by one place, complements the address and reseeds the random words, so that every
// round writes every word with a value it did not hold the round before.
RAILGAUGE_HOST_DEVICE inline std::uint64_t hbm_pattern_word(HbmPattern pattern, std::uint64_t index,
                                                            std::uint64_t address,
                                                            std::uint64_t round) {
  const std::uint64_t walking = std::uint64_t{1} << ((index + round) % 64);
  switch (pattern) {
  case HbmPattern::walking_ones:
    return walking;
  case HbmPattern::walking_zeros:
    return ~walking;
  case HbmPattern::address:
    return round % 2 == 0 ? address : ~address;
  case HbmPattern::random:
    break;
  }
  return splitmix64((kHbmPatternSeed + round) ^ splitmix64(index));
}

} // namespace railgauge::memory
