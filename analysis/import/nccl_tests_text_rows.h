#pragma once
// The result rows of nccl-tests' text output: one row of a size, its out-of-place and in-place
// halves read into records (nccl_tests_import.cpp reads the rest of the log around them).
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "analysis/import/nccl_tests_import.h"
#include "harness/error.h"

namespace railgauge::importers {

inline constexpr const char *kGiveTextOutput =
    "give the unmodified text output of an nccl-tests *_perf binary";

// A size in bytes or an element count: a whole non-negative integer, as nccl-tests prints them
// (a double cast to an integer is undefined beyond its range).
std::optional<std::int64_t> integer(const std::string &s);

// nccl-tests' bound on a half's largest error before 2.13: DeltaMaxValue(type) x (ranks - 1)
// (src/common.cu at 8274cb4, CheckData), nullopt for a type it has no bound of.
std::optional<double> max_error_bound(const std::string &type, std::size_t ranks);

// Where a result row's columns are, from the header above the rows ("size count type redop root
// time algbw busbw #wrong ..."). nccl-tests added `root` with NCCL 2.13 (NVIDIA/nccl-tests
// 51af557, 2022); before it, all_gather and a few others printed no `redop`, and the check column
// was `error`, the half's largest deviation from the expected values, where it now counts wrong
// elements.
struct RowLayout {
  std::size_t first_half = 5; // the first half's time column
  std::optional<std::size_t> redop = 3, root = 4;
  bool max_error = false; // the check column is `error`, not `#wrong`
};

// The layout a header line names (its text after '#'), or nullopt for any other line.
std::optional<RowLayout> row_layout_of_header(const std::string &body);

// What a text log's current section has shown so far. A log may hold several runs, one after
// the other: each section's rank lines describe its own rows only, and a section whose run
// ended after its header (a time limit, the OOM killer) is a failure of its own.
struct TextSection {
  bool per_iteration = false; // -I 1: i_min i_max i_p99 i_cv% after each half
  // --kind or the file's name named the collective, not the log: its rows are held to that
  // collective's bus factor.
  bool kind_from_caller = false;
  bool header_seen = false; // in this section
  std::size_t first_record = 0, first_failure = 0;
  std::vector<std::string> ranks;
  bool zero_row_seen = false; // in this section
  // "# Out of bounds values" or "# Avg bus bandwidth": nccl-tests prints both after its last size
  bool end_seen = false;
  RowLayout layout;
  int out_of_bounds = 0; // halves of the `error` layout whose error is above nccl-tests' bound
  int wrong_halves = 0;  // halves of the `#wrong` layout with a wrong element
  // Every half's busbw as printed since the run's start or its last average, a repeated 0-byte
  // row's too: what its "Avg bus bandwidth" line averages.
  struct PrintedBusbw {
    double sum = 0;
    double rounding_sum = 0; // each half's: half its last printed digit
    std::size_t halves = 0;
  } printed_busbw;
  // The ranks of rank 0's group (NCCL_TESTS_SPLIT), counted once for `group_ranks_of` rank lines.
  std::size_t group_ranks = 0, group_ranks_of = 0;
  bool nthread_seen = false;   // "# nThread ...": a second one starts another run's section
  bool validation_off = false; // its "# nThread" line says "validation: 0" (nccl-tests -c 0)
  // Of the whole file, kept across sections: the hosts of its first section with rank lines,
  // and the points (collective, size, type, reduction, root) of the sections before this one,
  // so that a log of two runs on other nodes, or of one point twice, is never read as one run.
  std::vector<std::string> file_hosts;
  std::string kill_notice; // the launcher's first word of why the run ended (launcher_text.h)
  // NCCL_DEBUG's "host:pid:tid [r] file:line NCCL WARN ..." lines since the last run ended: the
  // last before a failure most often says what nccl-tests reports only as "unhandled system
  // error" (the peer, the completion status, the HCA), where the first is often a setup warning
  // ("Could not find a path for pattern 4"). As they stood at the run's last row and at the
  // launcher's kill notice: a run found cut off at the next run's header takes no warning of
  // that run's setup.
  struct NcclWarnings {
    std::string last;
    std::size_t count = 0;
  } warnings, warnings_at_last_row, warnings_at_kill;
  bool warning_said = false; // by the run's first failure: its trace lines do not repeat it
  std::set<std::string> earlier_points, points;
  // The collective an echoed command names after a run's end ("$ ./all_gather_perf ..."), for
  // the next run of a log without "Collective test starting" lines.
  std::optional<Kind> next_kind;
};

// A result row with fewer words than its layout's columns: where it is the file's last line, the
// log was cut mid-row (a job killed while nccl-tests wrote it), not a file of another kind.
class ShortResultRow : public InputError {
public:
  using InputError::InputError;
};

// Half the last digit a figure was printed to: what its printing may have rounded away.
double half_last_digit(const std::string &number);

// A result row's words: its two halves as records (none for a repeated row of 0 bytes). Throws
// ShortResultRow for a row short of its columns, InputError for any other row it cannot read.
void read_result_row(const std::vector<std::string> &f, const std::string &here,
                     TextSection &section, NcclTestsImport &out, const std::string &run,
                     const std::string &host, const RecordSink &sink);

} // namespace railgauge::importers
