#pragma once
// A batch job's progress lines (stderr not a terminal): every few seconds, the points done of
// those planned, the time so far and the time left at this pace. The pace is that of the points
// measured so far, and the time left is that pace times the points still to measure: a waived
// point takes no time (a machine without GPUs waives most of the node suite) and a resumed run's
// points already recorded are no work. Counting both as work, a 95 s run said "about 837 s
// left" with 30 s to go, and a resume "about 3137 s left".
#include <chrono>
#include <cstddef>
#include <optional>
#include <string>

namespace railgauge {

// The mean time of the `measured` points so far times the points left of `to_measure`; nullopt
// before the first measured point (no pace yet).
std::optional<double> seconds_left(double elapsed_s, std::size_t measured, std::size_t to_measure);

// "railgauge: progress: 120 of 1053 points (40 of 154 to measure), 80 s so far, about 160 s left
// at this pace"; the part in brackets only when some points are waived.
std::string progress_line(std::size_t done, std::size_t points, std::size_t measured,
                          std::size_t to_measure, double elapsed_s);

class ProgressLog {
public:
  // `points`: those this run will go through (not those a resume skips); `to_measure`: those of
  // them that will be measured (not waived); a line every `every_s` seconds, none when <= 0.
  ProgressLog(std::size_t points, std::size_t to_measure, double every_s);

  // Before each point: writes a line to stderr when one is due.
  void before_point();
  // After each point; `measured`: it was measured (its record is not waived).
  void after_point(bool measured);

  std::size_t done() const { return done_; }
  std::size_t points() const { return points_; }
  double elapsed_s() const;

private:
  using Clock = std::chrono::steady_clock;
  std::size_t points_, to_measure_;
  double every_s_;
  std::size_t done_ = 0, measured_ = 0;
  Clock::time_point start_ = Clock::now();
  Clock::time_point next_line_;
};

} // namespace railgauge
