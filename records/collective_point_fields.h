#pragma once
// The figures of a collectives point that both of its writers state: the family's points
// (collectives/collective_point.cpp, the data checks of both backends) and nccl-tests' imports
// (analysis/import/nccl_tests_import.cpp, nccl_tests_json_import.cpp), and that analysis reads
// (collective_point_view). Written and read through this type, by the contract's names
// (records/collective_record.h), so that a field renamed on one side fails to compile or fails
// tests/collectives/collective_point_fields_test.cpp, which rewrites the committed collectives
// records and the imported nccl-tests logs through it.
//
// time_s is not here: it is the measurement core's summary (harness/lockstep.h, and the JSON
// import's -I 1 times through the same to_json), read by record_fields::median_time_s.
#include <cstdint>
#include <optional>
#include <variant>

#include <nlohmann/json.hpp>

#include "harness/stats.h"
#include "records/bus_bandwidth.h"

namespace railgauge::collectives::record {

// Elements a data check found wrong, as its writer counted them: the family's check counts whole
// elements (an integer); nccl-tests' imports carry its #wrong column as the number it was read
// into (a double, written 0.0), and the committed imports hold it so. Kept apart so that a record
// rewrites as it was written.
using WrongCount = std::variant<std::uint64_t, double>;

struct CollectiveFields {
  // nccl-tests' algbw and busbw (bus_bandwidth.h) at the median call, busbw at the fastest call
  // and at the back-to-back calls' time, and the factor between the two.
  std::optional<double> algbw_gbytes_per_s, busbw_gbytes_per_s, busbw_max_gbytes_per_s;
  std::optional<double> wall_busbw_gbytes_per_s, bus_factor;
  // Per call: back to back by the host clock (the lockstep core's, or nccl-tests' mean), or by
  // the process's CPU time (nccl-tests -C). A textbook point's library states -1: not run.
  std::optional<double> wall_time_s, cpu_time_s;
  std::optional<WrongCount> wrong_elements; // over every rank
  std::optional<bool> verified;             // the data check passed

  // The bandwidth figures of a `kind` point of `size_bytes` on `group_ranks` ranks timed at
  // `time_s`, and at `back_to_back_s` per call where that ran (> 0). wall_time_s stays the
  // lockstep core's to state (LockstepResult::to_json).
  static CollectiveFields of(Kind kind, std::uint64_t size_bytes, int group_ranks,
                             const Summary &time_s, double back_to_back_s);

  bool empty() const;
  // Puts the figures that are set into `metrics`.
  void write(nlohmann::json &metrics) const;
  // The figures of `metrics`; nullopt where it holds none of them (a waived point). A figure of
  // another type reads as absent, and so does a negative whole count.
  static std::optional<CollectiveFields> read(const nlohmann::json &metrics);

  bool operator==(const CollectiveFields &) const = default;
};

} // namespace railgauge::collectives::record
