#pragma once
// A deadline for one piece of work that may never finish: a GPU kernel that hangs, a library
// call that waits forever on a dead peer. The work runs on the caller's thread; a watchdog
// thread waits for disarm() and, when the deadline passes first, calls `on_expiry` on its own
// thread. A hung CUDA kernel cannot be cancelled from the host (cudaStreamSynchronize and even
// cudaDeviceReset wait for it), so in `railgauge run` on_expiry records the point as `error`,
// marks run.json and ends the process (watchdog_exit_code); tests pass a callback that
// releases the hung work instead.
//
//   Watchdog dog([&](const std::string &what, double waited_s) { ... });
//   dog.arm("memory.hbm_read size_bytes=4096", 600);
//   run_the_point();
//   if (dog.disarm()) ...   // true: on_expiry already ran for this piece of work
//
// Caveats: on_expiry runs while the caller is still inside the work; it must not touch what the
// work uses. disarm() waits for a running on_expiry to return.
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "harness/exit_status.h"

namespace railgauge {

// The exit status of a run that the watchdog ended (harness/exit_status.h).
inline constexpr int kWatchdogExitCode = code(ExitStatus::hung);

class Watchdog {
public:
  using Expiry = std::function<void(const std::string &what, double waited_s)>;

  explicit Watchdog(Expiry on_expiry);
  ~Watchdog();
  Watchdog(const Watchdog &) = delete;
  Watchdog &operator=(const Watchdog &) = delete;

  // Starts the deadline of the work described by `what` (a point's key and label).
  void arm(std::string what, double timeout_s);
  // Ends it. Returns true when the deadline had passed and on_expiry ran for this work.
  bool disarm();
  // Ends the armed work now from another thread (a signal: the run is being stopped): calls
  // `report` with its description and the seconds it had run, as on_expiry would be called, and
  // returns true; false when nothing is armed. disarm() then returns true for it, and waits for
  // `report` to return.
  bool interrupt(const std::function<void(const std::string &what, double ran_s)> &report);

private:
  void watch();

  Expiry on_expiry_;
  std::mutex mutex_;
  std::condition_variable changed_;
  bool armed_ = false;
  bool expired_ = false;
  bool stopping_ = false;
  std::uint64_t generation_ = 0;
  std::string what_;
  double timeout_s_ = 0;
  std::chrono::steady_clock::time_point deadline_;
  std::thread thread_; // last: started once the members above exist
};

} // namespace railgauge
