#pragma once
// The failures of nccl-tests' text output (nccl_tests_text_import.cpp): the failure lines of a
// log, and the failure of a run that ended without one (cut off, killed, or stopped before its
// first size), each with NCCL's last warning before it.
#include <cstddef>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "analysis/import/nccl_tests_import.h"
#include "analysis/import/nccl_tests_text_rows.h"
#include "harness/error.h"

namespace railgauge::importers {

// Every failure line counts; at most kMaxFailuresKept are kept, the last of them, once there
// are more, saying how many more (a log of nothing but failure lines must not fill the memory).
struct FailureLines {
  std::size_t seen = 0;

  // `first_record`: the record count where the failed run's rows began.
  void add(NcclTestsImport &out, std::string line, std::size_t first_record) {
    if (seen == 0) {
      out.failed_kind = out.kind;
      out.failed_after_rows = (out.record_count - first_record) / 2;
    }
    if (++seen <= kMaxFailuresKept)
      out.failures.push_back(std::move(line));
    else
      out.failures.back() =
          fmt::format("... and {} more failure line(s)", seen - kMaxFailuresKept + 1);
  }
};

// NCCL's last warning of `seen` for a failure's text ("; NCCL's last warning before it ..."),
// said once a run, by its first failure; "" when there is none or it was said.
std::string nccl_warned(TextSection &section, const TextSection::NcclWarnings &seen);

// The end of a section: a run that printed its header and no row, or rows and no end, is a
// failure (unless a failure line said why); then the section starts again for the next run.
// `next_run`: a run's header ends it, rather than the end of the file.
void end_section(NcclTestsImport &out, TextSection &section, FailureLines &failures,
                 const std::string &where, bool next_run);

// The failure of a log whose last result row is cut short, with the launcher's word of why (the
// section's kill notice, else the line after the cut) and what NCCL warned of.
std::string cut_row_failure(const InputError &cut_row, const std::string &where_line,
                            TextSection &section, const std::string &after_cut);

} // namespace railgauge::importers
