#pragma once
// Reads the text output of nccl-tests (all_reduce_perf and its siblings) into records, so that
// existing logs can be checked and compared beside railgauge's own (DESIGN.md "import").
//
// The text format: '#' header lines (the "Collective test starting: <name>_perf" line in recent
// versions; "Rank r Group g Pid p on host device d [busid] name" per rank), then one row per
// size: size(B) count type redop root, then time(us) algbw busbw #wrong for out-of-place and
// again for in-place (optionally more columns with -I), and a footer "Out of bounds values" and
// "Avg bus bandwidth". Each row becomes two records (out_of_place, in_place) keyed
// collectives.nccl_<kind>, params.source = "nccl-tests". nccl-tests' time is a host wall-clock
// mean over its iterations, so it goes to metrics.wall_time_s, never to time_s. A row with
// #wrong > 0 is `failed`; "N/A" (data check off) leaves `verified` out.
#include <istream>
#include <optional>
#include <string>
#include <vector>

#include "collectives/bus_bandwidth.h"
#include "harness/record.h"

namespace railgauge::collectives {

struct NcclTestsImport {
  std::optional<Kind> kind;       // from the header, or the caller's
  std::vector<std::string> ranks; // "Rank ..." header lines, trimmed
  std::vector<Record> records;
  std::optional<double> avg_busbw_gbytes_per_s; // the footer (mean over all rows, as printed)
};

// `kind` overrides the header; without either, throws InputError naming `where`. A malformed
// row throws InputError with where:line.
NcclTestsImport import_nccl_tests_text(std::istream &in, const std::string &where,
                                       std::optional<Kind> kind, const std::string &run,
                                       const std::string &host);

} // namespace railgauge::collectives
