#include "harness/run_failure.h"
#include "harness/run_fields.h"

#include <cstdio>
#include <cstdlib>
#include <exception>

#include <fmt/format.h>

#include "harness/interrupt_watch.h"
#include "harness/point_results.h"
#include "harness/record_io.h"
#include "harness/watchdog.h"

namespace railgauge {

std::map<std::string, int> count_records(const std::string &path) noexcept {
  std::map<std::string, int> counts;
  try {
    auto records = read_records(path).records;
    keep_point_results(records);
    for (const auto &r : records)
      ++counts[std::string(to_string(r.status))];
  } catch (const std::exception &) {
    counts.clear();
  }
  return counts;
}

std::optional<std::string> points_never_run(const std::map<std::string, int> &counts,
                                            std::size_t points_planned,
                                            const std::string &stopped_early) {
  std::size_t recorded = 0;
  for (const auto &[status, n] : counts)
    recorded += static_cast<std::size_t>(n);
  if (recorded >= points_planned)
    return std::nullopt;
  return fmt::format("the run stopped after {} of {} points ({} never ran): {}", recorded,
                     points_planned, points_planned - recorded,
                     stopped_early.empty() ? "the runner ended early" : stopped_early);
}

bool mark_run_failed(Manifest &manifest, const std::string &why,
                     const std::map<std::string, int> &counts) noexcept {
  try {
    manifest.data()[run_field::kFailure] = why;
    manifest.finish(run_field::kFailedStatus, counts);
    return true;
  } catch (const std::exception &e) {
    std::fprintf(stderr, "railgauge: run.json could not be marked failed either: %s\n", e.what());
    return false;
  }
}

void mark_run_refused(Manifest &manifest, const std::string &why,
                      const std::map<std::string, int> &counts) {
  manifest.data()[run_field::kRefused] = why;
  manifest.finish(run_field::kRefusedStatus, counts);
}

void end_hung_run(Manifest &manifest, const Record &hung, const std::string &records_path,
                  const std::string &resume_hint) {
  std::fprintf(stderr, "\nrailgauge: watchdog: %s: %s\n  %s\n", hung.key.c_str(),
               hung.reason.value_or("").c_str(), resume_hint.c_str());
  mark_run_failed(manifest, hung.key + ": " + hung.reason.value_or(""),
                  count_records(records_path));
  std::fflush(nullptr);
  std::_Exit(kWatchdogExitCode);
}

void end_interrupted_run(Manifest &manifest, const Record *point, int signo,
                         const std::string &records_path, const std::string &resume_hint) {
  std::fprintf(stderr, "\nrailgauge: %s: the run stops%s%s\n  %s\n", signal_name(signo),
               point ? "; the point it was in is an error record: " : " between points",
               point ? point->key.c_str() : "", resume_hint.c_str());
  try {
    manifest.data()[run_field::kInterrupted] = signal_name(signo);
    manifest.finish(run_field::kInterruptedStatus, count_records(records_path));
  } catch (const std::exception &e) {
    std::fprintf(stderr, "railgauge: run.json could not be marked interrupted: %s\n", e.what());
  }
  std::fflush(nullptr);
  std::_Exit(kWatchdogExitCode);
}

} // namespace railgauge
