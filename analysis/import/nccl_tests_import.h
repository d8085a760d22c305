#pragma once
// Reads the output of nccl-tests (all_reduce_perf and its siblings), its text or the JSON it
// writes with -J, into records, so that existing logs can be checked and compared beside
// railgauge's own (docs/design.md "Analysis").
//
// The text format: '#' header lines (the "Collective test starting: <name>_perf" line in recent
// versions; "Rank r Group g Pid p on host device d [busid] name" per rank), then one row per
// size: size(B) count type redop root, then time(us) algbw busbw #wrong for out-of-place and
// again for in-place (with -I 1, i_min i_max i_p99 i_cv% after each half, which go to
// metrics.iteration_*), and a footer "Out of bounds values" and
// "Avg bus bandwidth". Each row becomes two records (out_of_place, in_place) keyed
// collectives.nccl_<kind>, params.source = "nccl-tests". nccl-tests' time is a host wall-clock
// mean over its iterations, so it goes to metrics.wall_time_s, never to time_s. A row with
// #wrong > 0 is `failed`; "N/A" (data check off) leaves `verified` out.
#include <cstdint>
#include <functional>
#include <istream>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "harness/record.h"
#include "records/collective_record.h"

namespace railgauge::importers {

using collectives::bandwidth;
using collectives::Kind;
using collectives::parse_kind;
using collectives::to_string;

struct NcclTestsImport {
  std::optional<Kind> kind;                        // from the header, or the caller's
  std::vector<std::string> ranks;                  // "Rank ..." header lines, trimmed
  std::vector<Record> records;                     // empty when they were streamed to a sink
  std::size_t record_count = 0;                    // the result rows' records, kept or streamed
  std::optional<double> avg_busbw_gbytes_per_s;    // the footer (mean over all rows, as printed)
  nlohmann::json about = nlohmann::json::object(); // JSON only: version, argv, config, times
  // Why nccl-tests stopped early: its "<host>: Test CUDA failure <file>:<line> '<message>'"
  // lines (text), or a JSON file that ends before any result. The rows before it are kept.
  std::vector<std::string> failures;
  // The collective whose run the first failure stopped (a log of several runs goes on after it),
  // and how many result rows that run had printed.
  std::optional<Kind> failed_kind;
  std::size_t failed_after_rows = 0;
  // Text only: lines that are neither '#' header lines nor result rows (NCCL_DEBUG output, a
  // launcher's messages), skipped. A launcher's line prefix ([1,0]<stdout>:, srun's "0: ") is
  // removed first, so tagged logs import whole.
  int other_lines = 0;
  // Text only: the network NCCL used between nodes, from NCCL_DEBUG=INFO's "NET/IB : Using
  // [0]mlx5_5:1/RoCE" (roce), ".../IB" (ib), "NET/Socket : Using" (socket), "NET/AWS Libfabric"
  // or "NET/OFI" (libfabric), and the line that said so; empty when the log does not say.
  std::string network, network_line;
  // Rows of 0 bytes after the first of a run: nccl-tests prints one for every requested size
  // that rounds down to no element per rank (-b 8 on 16 ranks), all alike; one is kept.
  int repeated_zero_rows = 0;
};

// The collective an nccl-tests binary's path names: "/path/to/all_reduce_perf" -> all_reduce;
// "./alltoall_perf_mpi" is not recognised. A log whose header was lost often still echoes the
// command line that ran it.
std::optional<Kind> kind_of_binary(std::string_view argv0);

// The network an NCCL_DEBUG=INFO line names ("roce", "ib", "socket", "libfabric"), or "".
std::string network_of_nccl_line(std::string_view line);

// The distinct hosts of "Rank r Group g Pid p on <host> device ..." lines, in order of appearance.
std::vector<std::string> rank_hosts(const std::vector<std::string> &rank_lines);
// The distinct hosts nccl-tests' failure lines name ("WHERE:LINE: node07: Test CUDA failure
// common.cu:941 ..."; its macros print the host first), in order: the node of a log that failed
// before it printed a rank line.
std::vector<std::string> failure_hosts(const std::vector<std::string> &failures);

// From those lines of one run: params.world_size and group_size (the ranks listed) and
// params.group_hosts (their distinct hosts) on each of its result records, the names railgauge's
// own records and `railgauge calibrate` use for a collective's group and its tier.
void add_rank_layout(std::span<Record> records, const std::vector<std::string> &rank_lines);

// The record that says an imported nccl-tests run failed: key collectives.nccl_<kind>, status
// error, the failure lines as the reason.
Record nccl_tests_failure_record(const NcclTestsImport &import, const std::string &run,
                                 const std::string &host);

// One half (out of place or in place) of one size row, as both formats give it.
struct NcclTestsHalf {
  std::int64_t size_bytes = 0;
  std::int64_t count = 0;
  std::string type;  // as nccl-tests names it: float, bfloat16, int8, ...
  std::string redop; // "none" for kinds without one
  std::string root;  // "-1" for kinds without one
  bool in_place = false;
  double time_us = 0;    // host wall clock, mean over the iterations
  bool cpu_time = false; // -C (JSON only): time_us is the process's CPU time instead
  double algbw_gbytes_per_s = 0;
  double busbw_gbytes_per_s = 0;
  std::optional<double> wrong; // absent: the data check was off
  bool check_off = false;      // the run's header says so ("validation: 0", nccl-tests -c 0)
  // Logs before NCCL 2.13 print the half's largest error instead of a count, judged against
  // nccl-tests' bound for its type and rank count (absent where the rank count is not known).
  std::optional<double> max_error, max_error_bound;
};

// The record of one half: key collectives.nccl_<kind>, `failed` when elements were wrong.
Record nccl_tests_record(const NcclTestsHalf &half, Kind kind, const std::string &run,
                         const std::string &host);

// `kind` overrides the header; without either, throws InputError naming `where`. A malformed
// row throws InputError with where:line.
NcclTestsImport import_nccl_tests_text(std::istream &in, const std::string &where,
                                       std::optional<Kind> kind, const std::string &run,
                                       const std::string &host);

// The same, each record handed to `sink` as its row is read (with its section's rank layout:
// nccl-tests prints a run's rank lines before its rows), none kept: a log of any length takes
// the memory of one line, its rank lines and its failure lines (at most kMaxFailuresKept).
using RecordSink = std::function<void(Record)>;
NcclTestsImport import_nccl_tests_text(std::istream &in, const std::string &where,
                                       std::optional<Kind> kind, const std::string &run,
                                       const std::string &host, const RecordSink &sink);

// Failure lines kept in a text log's `failures`; the rest are counted in the last one.
inline constexpr std::size_t kMaxFailuresKept = 20;

// The -J output (format version 3, nccl-tests 2.17.3 and later): the collective comes from
// argv[0] (<kind>_perf) unless `kind` is given; metrics also carry the NCCL version and the
// NCCL_ALGO / NCCL_PROTO / NCCL_NVLS_ENABLE / NCCL_COLLNET_ENABLE the run had in its
// environment, under the names railgauge's own NCCL records use. With -I 1 (per-iteration CUDA
// events), metrics.time_s is the summary of the per-iteration times (max over processes, the
// leading skipped iterations left out) and, with several processes, the process slowest most
// often is named. Malformed JSON or a field of the wrong type throws InputError naming `where`.
NcclTestsImport import_nccl_tests_json(const std::string &text, const std::string &where,
                                       std::optional<Kind> kind, const std::string &run,
                                       const std::string &host);

// Either format, told apart by the first non-blank character ('{': JSON).
NcclTestsImport import_nccl_tests(const std::string &text, const std::string &where,
                                  std::optional<Kind> kind, const std::string &run,
                                  const std::string &host);

} // namespace railgauge::importers
