#include "harness/watchdog.h"

namespace railgauge {

Watchdog::Watchdog(Expiry on_expiry)
    : on_expiry_(std::move(on_expiry)), thread_([this] { watch(); }) {}

Watchdog::~Watchdog() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  thread_.join();
}

void Watchdog::arm(std::string what, double timeout_s) {
  {
    std::lock_guard lock(mutex_);
    what_ = std::move(what);
    timeout_s_ = timeout_s;
    deadline_ = std::chrono::steady_clock::now() +
                std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                    std::chrono::duration<double>(timeout_s));
    armed_ = true;
    expired_ = false;
    ++generation_;
  }
  changed_.notify_all();
}

bool Watchdog::disarm() {
  // Holding the mutex while on_expiry runs makes this wait for it: the caller never carries on
  // (writes its own record, say) while the watchdog is still reporting the same work.
  std::lock_guard lock(mutex_);
  armed_ = false;
  return expired_;
}

bool Watchdog::interrupt(const std::function<void(const std::string &what, double ran_s)> &report) {
  std::lock_guard lock(mutex_);
  if (!armed_ || expired_)
    return false;
  expired_ = true;
  // The deadline less the timeout is when the work was armed.
  const std::chrono::duration<double> left = deadline_ - std::chrono::steady_clock::now();
  report(what_, timeout_s_ - left.count());
  return true;
}

void Watchdog::watch() {
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    if (!armed_ || expired_) {
      changed_.wait(lock);
      continue;
    }
    const auto generation = generation_;
    if (changed_.wait_until(lock, deadline_) == std::cv_status::no_timeout)
      continue; // disarmed, re-armed or stopping: look again
    if (!armed_ || generation != generation_ || std::chrono::steady_clock::now() < deadline_)
      continue;
    expired_ = true;
    on_expiry_(what_, timeout_s_);
  }
}

} // namespace railgauge
