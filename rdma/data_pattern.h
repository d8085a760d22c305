#pragma once
// The data-check pattern of the rdma family: a function of the message size, so both ends of
// a pair agree on it without exchanging it.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/record.h"

namespace railgauge::rdma {

void fill_pattern(std::uint8_t *data, std::size_t bytes, std::uint64_t seed);

// How many bytes differ from the pattern.
std::size_t count_pattern_errors(const std::uint8_t *data, std::size_t bytes, std::uint64_t seed);

// "" or what differs: "<what>: N of M bytes differ from the pattern, first at byte I".
std::string check_pattern(const std::uint8_t *data, std::size_t bytes, std::uint64_t seed,
                          const std::string &what);

// A test hook run on each received buffer just before its check (fault injection: a flipped
// bit must fail the point). Settable only from code, never from the command line.
using BeforeDataCheck = std::function<void(std::uint8_t *data, std::size_t bytes)>;

// The data checks of one side of a pair: the problems and the wrong bytes they add up to.
struct DataCheck {
  std::vector<std::string> problems;
  std::size_t wrong_bytes = 0;

  // Runs `before` (if any) on the buffer, then checks it against the pattern.
  void check(std::uint8_t *data, std::size_t bytes, std::uint64_t seed, const std::string &what,
             const BeforeDataCheck &before);
  void add(const DataCheck &other);
  // The point's verdict: `failed` with every problem and metrics.wrong_bytes, or verified.
  void conclude(Outcome &out) const;
  nlohmann::json to_json() const;
  static DataCheck from_json(const nlohmann::json &j);
};

} // namespace railgauge::rdma
