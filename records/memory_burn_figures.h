#pragma once
// The memory burn-in phases' own figures in each GPU's object (metrics.per_gpu), beside the
// fields every GPU's object holds (records/gpu_part.h): memory.burn's copy rate and data check,
// memory.pattern's coverage and the words it found wrong, memory.peer_copy's outgoing pairs and
// their figures. Written by memory/cuda and read by
// analysis through these types, by the contract's names (records/memory_record.h); the point's
// figures over its GPUs are records/across_gpu_figures.h's, under
// memory::record::kBurnBandwidthAcrossGpus.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace railgauge::memory::record {

// memory.burn: one GPU's copy rate (median and slowest settled batch) and its data check.
struct HbmBurnGpuFigures {
  double bandwidth_gbytes_per_s = 0, bandwidth_min_gbytes_per_s = 0;
  std::int64_t calls = 0;
  std::uint64_t elements = 0, wrong_elements = 0;

  void write(nlohmann::json &gpu_object) const;
  // nullopt where the object holds no number under bandwidth_gbytes_per_s; another figure absent
  // or of another type reads as its default.
  static std::optional<HbmBurnGpuFigures> read(const nlohmann::json &gpu_object);

  bool operator==(const HbmBurnGpuFigures &) const = default;
};

// memory.pattern: one wrong word as the GPU found it (the words in hex, the pattern by name).
struct HbmPatternBadWordFigures {
  std::string address, expected, read, pattern;
  std::uint64_t round = 0;
  bool operator==(const HbmPatternBadWordFigures &) const = default;
};

// memory.pattern: what one GPU's check covered and found.
struct HbmPatternGpuFigures {
  std::uint64_t wrong_words = 0;
  std::map<std::string, std::uint64_t> wrong_words_by_pattern; // by the pattern's name
  std::vector<HbmPatternBadWordFigures> bad_words;             // the first few
  double free_memory_covered_fraction = 0;
  std::uint64_t covered_bytes = 0, free_memory_bytes = 0, margin_bytes = 0;
  std::int64_t chunks = 0, rounds = 0, injected_faults = 0;
  double bandwidth_gbytes_per_s = 0, pattern_time_s = 0;

  void write(nlohmann::json &gpu_object) const;
  // nullopt where the object holds no number under free_memory_covered_fraction; another figure
  // absent or of another type reads as its default, a bad word that is not an object is left out.
  static std::optional<HbmPatternGpuFigures> read(const nlohmann::json &gpu_object);

  bool operator==(const HbmPatternGpuFigures &) const = default;
};

// memory.peer_copy: one ordered pair, src copying into dst. Its figures are set only where it
// was measured (peer access, no error).
struct PeerCopyPairFigures {
  std::int64_t src = 0, dst = 0;
  bool peer_access = false;
  std::optional<std::string> error; // written as null when nothing broke
  struct Measured {
    double bandwidth_gbytes_per_s = 0, bandwidth_min_gbytes_per_s = 0; // median, slowest copy
    std::int64_t copies = 0;
    std::uint64_t words = 0, wrong_words = 0;
    bool operator==(const Measured &) const = default;
  };
  std::optional<Measured> measured;

  nlohmann::json to_json() const;
  // nullopt unless `pair` names its src and dst as integers.
  static std::optional<PeerCopyPairFigures> read(const nlohmann::json &pair);

  bool operator==(const PeerCopyPairFigures &) const = default;
};

// memory.peer_copy: one GPU's outgoing pairs; its figure (the median pair), slowest pair and
// that pair's peer only where a pair was measured, so that a rule reads it as missing, never 0.
struct PeerCopyGpuFigures {
  std::uint64_t wrong_words = 0;
  std::vector<PeerCopyPairFigures> pairs;
  std::optional<double> bandwidth_gbytes_per_s, bandwidth_min_gbytes_per_s;
  std::optional<std::int64_t> worst_peer_gpu;
  // The node's other GPUs this one has no measured pair to: a pair without peer access, broken or
  // absent. Its slowest pair is of those it reached; an NVSwitch node reaches every peer.
  std::optional<std::int64_t> peers_unreached;

  void write(nlohmann::json &gpu_object) const;
  // nullopt where the object holds no list of pairs.
  static std::optional<PeerCopyGpuFigures> read(const nlohmann::json &gpu_object);

  bool operator==(const PeerCopyGpuFigures &) const = default;
};

} // namespace railgauge::memory::record
