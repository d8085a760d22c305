#pragma once
// SIGTERM (Slurm at a job's time limit, `scancel`) and SIGINT (Ctrl-C) while a run is going: the
// first one is handed to `on_signal` on a thread of its own, so that the run can record the point
// it was in, mark run.json and say how to resume, instead of vanishing mid-point; a second one
// ends the process at once (exit 128 + signal), for a user who does not want to wait.
//
//   InterruptWatch watch([&](int signo) { ...; std::_Exit(5); });
//   ... the run ...
//   // the destructor puts the previous handlers back
//
// One at a time per process: a second InterruptWatch while one exists throws std::logic_error.
#include <functional>
#include <thread>

#include <signal.h>

namespace railgauge {

class InterruptWatch {
public:
  explicit InterruptWatch(std::function<void(int signo)> on_signal);
  ~InterruptWatch();
  InterruptWatch(const InterruptWatch &) = delete;
  InterruptWatch &operator=(const InterruptWatch &) = delete;

private:
  std::function<void(int)> on_signal_;
  int pipe_[2] = {-1, -1};
  struct sigaction old_term_ {
  }, old_int_{};
  std::thread thread_;
};

// "SIGTERM", "SIGINT", or "signal N".
const char *signal_name(int signo);

} // namespace railgauge
