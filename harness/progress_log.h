#pragma once
// A batch job's progress lines (stderr not a terminal): every few seconds, the points done of
// those planned, the time so far and the time left at this pace; and while one point runs longer
// than that, a line naming it and how long it has run, so a log is never silent for a long point.
//
// The time left is each suite entry's points still to measure times that entry's pace: the mean
// time of its points measured so far or, before its first, its points' budget (time_budget_s +
// warmup_s) scaled by how the points measured so far compared with theirs. An entry of large
// copies and one of small messages differ tenfold per point, and one pace for all of them said
// +200 % to -70 % of the real time left on the node suite. A waived point takes no time (a
// machine without GPUs waives most of the node suite) and a resumed run's points already
// recorded are no work. Counting both as work, a 95 s run said "about 837 s left" with 30 s to
// go, and a resume "about 3137 s left".
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace railgauge {

// One suite entry's points, as the time left counts them.
struct ItemPace {
  std::size_t to_measure = 0; // points of the entry this run will measure
  double budget_s = 0;        // one point's time_budget_s + warmup_s
  std::size_t measured = 0;   // of them measured so far
  double measured_s = 0;      // the time they took
};

// The time left: each entry's points still to measure at its pace, less what the running point
// (of entry `running`, for `running_s` so far) has already spent of its share; nullopt before
// the first measured point (no pace yet).
std::optional<double> seconds_left(const std::vector<ItemPace> &items,
                                   std::optional<std::size_t> running = std::nullopt,
                                   double running_s = 0);

// "railgauge: progress: 120 of 1053 points (40 of 154 to measure), 80 s so far, about 160 s left
// at this pace"; the part in brackets only when some points are waived; `running`, when given,
// ends the line (", memory.host_copy size_bytes=1GiB running for 40 s").
std::string progress_line(std::size_t done, std::size_t points, std::size_t measured,
                          std::size_t to_measure, double elapsed_s, std::optional<double> left_s,
                          const std::string &running = "");

class ProgressLog {
public:
  // `points`: those this run will go through (not those a resume skips); `items`: per suite
  // entry, those of them that will be measured (not waived) and their budget; a line every
  // `every_s` seconds, none when <= 0. From kTickerMinEvery_s on, a thread writes the lines due
  // while a point runs.
  ProgressLog(std::size_t points, std::vector<ItemPace> items, double every_s);
  ~ProgressLog();
  ProgressLog(const ProgressLog &) = delete;
  ProgressLog &operator=(const ProgressLog &) = delete;

  static constexpr double kTickerMinEvery_s = 0.5;

  // Before each point of entry `item`: writes a line to stderr when one is due.
  void before_point(std::size_t item, std::string label);
  // After each point; `measured`: it was measured (its record is not waived).
  void after_point(bool measured);

  std::size_t done() const;
  std::size_t points() const { return points_; }
  double elapsed_s() const;

private:
  using Clock = std::chrono::steady_clock;
  void write_line(Clock::time_point now); // with mutex_ held
  void tick();

  const std::size_t points_;
  const double every_s_;
  const Clock::time_point start_ = Clock::now();
  mutable std::mutex mutex_;
  std::condition_variable stop_cv_;
  bool stop_ = false;
  std::vector<ItemPace> items_;
  std::size_t to_measure_ = 0, done_ = 0, measured_ = 0;
  std::optional<std::size_t> running_item_;
  std::string running_label_;
  Clock::time_point point_start_;
  Clock::time_point next_line_;
  std::thread ticker_;
};

} // namespace railgauge
