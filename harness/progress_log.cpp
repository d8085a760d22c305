#include "harness/progress_log.h"

#include <cstdio>

#include <fmt/format.h>

namespace railgauge {

std::optional<double> seconds_left(double elapsed_s, std::size_t measured, std::size_t to_measure) {
  if (measured == 0)
    return std::nullopt;
  const std::size_t left = to_measure > measured ? to_measure - measured : 0;
  return elapsed_s / static_cast<double>(measured) * static_cast<double>(left);
}

std::string progress_line(std::size_t done, std::size_t points, std::size_t measured,
                          std::size_t to_measure, double elapsed_s) {
  const auto left_s = seconds_left(elapsed_s, measured, to_measure);
  return fmt::format(
      "railgauge: progress: {} of {} points{}, {:.0f} s so far, {}", done, points,
      to_measure == points ? "" : fmt::format(" ({} of {} to measure)", measured, to_measure),
      elapsed_s,
      left_s ? fmt::format("about {:.0f} s left at this pace", *left_s)
             : std::string("no pace yet (no point measured)"));
}

ProgressLog::ProgressLog(std::size_t points, std::size_t to_measure, double every_s)
    : points_(points), to_measure_(to_measure), every_s_(every_s),
      next_line_(start_ + std::chrono::duration_cast<Clock::duration>(
                              std::chrono::duration<double>(every_s))) {}

double ProgressLog::elapsed_s() const {
  return std::chrono::duration<double>(Clock::now() - start_).count();
}

void ProgressLog::before_point() {
  if (every_s_ <= 0 || Clock::now() < next_line_)
    return;
  // From now, not from when the line was due: after a long point, one line, not one per period.
  next_line_ = Clock::now() +
               std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(every_s_));
  std::fprintf(stderr, "%s\n",
               progress_line(done_, points_, measured_, to_measure_, elapsed_s()).c_str());
  std::fflush(stderr);
}

void ProgressLog::after_point(bool measured) {
  ++done_;
  measured_ += measured;
}

} // namespace railgauge
