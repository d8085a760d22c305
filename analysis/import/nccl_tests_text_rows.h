#pragma once
// The result rows of nccl-tests' text output: one row of a size, its out-of-place and in-place
// halves read into records (nccl_tests_import.cpp reads the rest of the log around them).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/import/nccl_tests_import.h"

namespace railgauge::importers {

inline constexpr const char *kGiveTextOutput =
    "give the unmodified text output of an nccl-tests *_perf binary";

// A size in bytes or an element count: a whole non-negative integer, as nccl-tests prints them
// (a double cast to an integer is undefined beyond its range).
std::optional<std::int64_t> integer(const std::string &s);

// What a text log's current section has shown so far. A log may hold several runs, one after
// the other: each section's rank lines describe its own rows only, and a section whose run
// ended after its header (a time limit, the OOM killer) is a failure of its own.
struct TextSection {
  bool per_iteration = false; // -I 1: i_min i_max i_p99 i_cv% after each half
  bool header_seen = false;   // in this section
  std::size_t first_record = 0, first_failure = 0;
  std::vector<std::string> ranks;
  bool zero_row_seen = false; // in this section
  // "# Out of bounds values" or "# Avg bus bandwidth": nccl-tests prints both after its last size
  bool end_seen = false;
};

// A result row's words: its two halves as records (none for a repeated row of 0 bytes).
void read_result_row(const std::vector<std::string> &f, const std::string &here,
                     TextSection &section, NcclTestsImport &out, const std::string &run,
                     const std::string &host, const RecordSink &sink);

} // namespace railgauge::importers
