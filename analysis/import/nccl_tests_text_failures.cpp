#include "analysis/import/nccl_tests_text_failures.h"

#include <fmt/format.h>

namespace railgauge::importers {

namespace {

// The warnings a run cut off or killed may have died of: those before the launcher's notice;
// without one, those before its last row where the next run's header found it cut (what came
// after may be that run's setup), else all.
const TextSection::NcclWarnings &cut_run_warnings(const TextSection &section, bool next_run) {
  if (!section.kill_notice.empty())
    return section.warnings_at_kill;
  return next_run ? section.warnings_at_last_row : section.warnings;
}

} // namespace

std::string nccl_warned(TextSection &section, const TextSection::NcclWarnings &seen) {
  if (section.warning_said)
    return {};
  section.warning_said = true; // by the run's first failure, whether or not NCCL warned before it
  if (seen.last.empty())
    return {};
  return fmt::format("; NCCL's last warning before it{}: '{}'",
                     seen.count > 1 ? fmt::format(" (of {} NCCL WARN lines)", seen.count) : "",
                     seen.last);
}

void end_section(NcclTestsImport &out, TextSection &section, FailureLines &failures,
                 const std::string &where, bool next_run) {
  const auto of_kind = out.kind ? fmt::format(" of {}", to_string(*out.kind)) : "";
  if (section.header_seen && out.record_count == section.first_record &&
      failures.seen == section.first_failure)
    failures.add(out,
                 fmt::format("{}: nccl-tests printed the header of a run{} but no "
                             "result row: the run ended before its first size{}",
                             where, of_kind, nccl_warned(section, section.warnings)),
                 section.first_record);
  // Rows and no end of the sweep after them, and no failure line to say why: the log was cut off
  // (or the run killed) before its last size, so the sizes it never reached are not a pass.
  else if (out.record_count > section.first_record && !section.end_seen &&
           failures.seen == section.first_failure)
    failures.add(out,
                 fmt::format("{}: {} result row(s){} and no '# Avg bus bandwidth' line "
                             "after them: the log ends before nccl-tests' last size (cut "
                             "off, or the run was killed){}{}",
                             where, (out.record_count - section.first_record) / 2, of_kind,
                             section.kill_notice.empty()
                                 ? ""
                                 : fmt::format("; the launcher said: '{}'", section.kill_notice),
                             nccl_warned(section, cut_run_warnings(section, next_run))),
                 section.first_record);
  // Warnings after the run's last row (or its end), where the next run's header ended it, are
  // that run's.
  const auto &w = section.warnings;
  const auto &at_row = section.warnings_at_last_row;
  section.warnings = next_run && w.count > at_row.count
                         ? TextSection::NcclWarnings{w.last, w.count - at_row.count}
                         : TextSection::NcclWarnings{};
  section.warnings_at_last_row = section.warnings_at_kill = {};
  section.warning_said = false;
  section.earlier_points.insert(section.points.begin(), section.points.end());
  section.points.clear();
  section.nthread_seen = false;
  section.validation_off = false;
  section.first_record = out.record_count;
  section.first_failure = failures.seen;
  section.ranks.clear();
  section.group_ranks_of = 0; // counted again from the next run's rank lines
  section.header_seen = false;
  section.zero_row_seen = false;
  section.end_seen = false;
  section.layout = {};
  section.out_of_bounds = 0;
  section.wrong_halves = 0;
  section.printed_busbw = {};
}

std::string cut_row_failure(const InputError &cut_row, const std::string &where_line,
                            TextSection &section, const std::string &after_cut) {
  const std::string &kill_notice = section.kill_notice;
  const auto &warned = cut_run_warnings(section, false);
  return fmt::format("{}: the last result row is cut short ({}): the log was cut off mid-line, "
                     "or the run killed{}{}",
                     where_line,
                     // the problem less its guess at another tool's file: a cut last line is
                     // nccl-tests' own, header or not
                     cut_row.problem().substr(0, cut_row.problem().find(", and no ")),
                     !kill_notice.empty() ? fmt::format("; the launcher said: '{}'", kill_notice)
                     : after_cut.empty()  ? ""
                                          : fmt::format("; then: '{}'", after_cut),
                     after_cut == warned.last ? "" : nccl_warned(section, warned));
}

} // namespace railgauge::importers
