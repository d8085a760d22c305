#include "harness/progress_log.h"

#include <algorithm>
#include <cstdio>

#include <fmt/format.h>

namespace railgauge {
namespace {

std::chrono::steady_clock::duration seconds(double s) {
  return std::chrono::duration_cast<std::chrono::steady_clock::duration>(
      std::chrono::duration<double>(s));
}

double seconds_between(std::chrono::steady_clock::time_point from,
                       std::chrono::steady_clock::time_point to) {
  return std::chrono::duration<double>(to - from).count();
}

} // namespace

std::optional<double> seconds_left(const std::vector<ItemPace> &items,
                                   std::optional<std::size_t> running, double running_s) {
  double measured_s = 0, measured_budget_s = 0;
  std::size_t measured = 0;
  for (const auto &i : items) {
    measured += i.measured;
    measured_s += i.measured_s;
    measured_budget_s += static_cast<double>(i.measured) * i.budget_s;
  }
  if (measured == 0)
    return std::nullopt;
  const double mean_s = measured_s / static_cast<double>(measured);
  // How the points measured so far compared with their budgets, for an entry not yet begun.
  const auto pace_of = [&](const ItemPace &i) {
    if (i.measured > 0)
      return i.measured_s / static_cast<double>(i.measured);
    return measured_budget_s > 0 && i.budget_s > 0 ? i.budget_s * measured_s / measured_budget_s
                                                   : mean_s;
  };
  double left_s = 0;
  for (std::size_t n = 0; n < items.size(); ++n) {
    const auto &i = items[n];
    const std::size_t left = i.to_measure > i.measured ? i.to_measure - i.measured : 0;
    const double pace_s = pace_of(i);
    left_s += static_cast<double>(left) * pace_s;
    if (running && *running == n && left > 0)
      left_s -= std::min(running_s, pace_s);
  }
  return std::max(0.0, left_s);
}

std::string progress_line(std::size_t done, std::size_t points, std::size_t measured,
                          std::size_t to_measure, double elapsed_s, std::optional<double> left_s,
                          const std::string &running) {
  return fmt::format(
      "railgauge: progress: {} of {} points{}, {:.0f} s so far, {}{}", done, points,
      to_measure == points ? "" : fmt::format(" ({} of {} to measure)", measured, to_measure),
      elapsed_s,
      left_s ? fmt::format("about {:.0f} s left at this pace", *left_s)
             : std::string("no pace yet (no point measured)"),
      running.empty() ? "" : ", " + running);
}

ProgressLog::ProgressLog(std::size_t points, std::vector<ItemPace> items, double every_s)
    : points_(points), every_s_(every_s), items_(std::move(items)),
      next_line_(start_ + seconds(every_s)) {
  for (const auto &i : items_)
    to_measure_ += i.to_measure;
  if (every_s_ >= kTickerMinEvery_s)
    ticker_ = std::thread([this] { tick(); });
}

ProgressLog::~ProgressLog() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  stop_cv_.notify_all();
  if (ticker_.joinable())
    ticker_.join();
}

double ProgressLog::elapsed_s() const { return seconds_between(start_, Clock::now()); }

std::size_t ProgressLog::done() const {
  std::lock_guard lock(mutex_);
  return done_;
}

void ProgressLog::write_line(Clock::time_point now) {
  // From now, not from when the line was due: after a long point, one line, not one per period.
  next_line_ = now + seconds(every_s_);
  const double running_s = running_item_ ? seconds_between(point_start_, now) : 0;
  const std::string running =
      running_item_ ? fmt::format("{} running for {:.0f} s", running_label_, running_s) : "";
  std::fprintf(stderr, "%s\n",
               progress_line(done_, points_, measured_, to_measure_, seconds_between(start_, now),
                             seconds_left(items_, running_item_, running_s), running)
                   .c_str());
  std::fflush(stderr);
}

// While a point runs past the next line's time, that line is written from here.
void ProgressLog::tick() {
  std::unique_lock lock(mutex_);
  while (!stop_) {
    stop_cv_.wait_until(lock, next_line_, [this] { return stop_; });
    if (stop_)
      return;
    const auto now = Clock::now();
    if (now < next_line_)
      continue;
    if (running_item_)
      write_line(now);
    else // the next before_point() writes it
      stop_cv_.wait_for(lock, seconds(kTickerMinEvery_s), [this] { return stop_; });
  }
}

void ProgressLog::before_point(std::size_t item, std::string label) {
  std::lock_guard lock(mutex_);
  const auto now = Clock::now();
  if (every_s_ > 0 && now >= next_line_)
    write_line(now);
  running_item_ = item < items_.size() ? std::optional(item) : std::nullopt;
  running_label_ = std::move(label);
  point_start_ = now;
}

void ProgressLog::after_point(bool measured) {
  std::lock_guard lock(mutex_);
  ++done_;
  if (measured) {
    ++measured_;
    if (running_item_) {
      ++items_[*running_item_].measured;
      items_[*running_item_].measured_s += seconds_between(point_start_, Clock::now());
    }
  }
  running_item_.reset();
}

} // namespace railgauge
