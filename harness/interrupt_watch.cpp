#include "harness/interrupt_watch.h"

#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <stdexcept>
#include <string>

namespace railgauge {
namespace {

// A signal handler can reach nothing but static storage: the write end of the watch's pipe, and
// whether a signal already came. Only async-signal-safe calls (write, _exit) are made from it.
std::atomic<int> write_fd{-1};
std::atomic<int> signals_seen{0};

void on_signal(int signo) {
  if (signals_seen.fetch_add(1) > 0)
    ::_exit(128 + signo); // the second: at once
  const unsigned char byte = static_cast<unsigned char>(signo);
  const int fd = write_fd.load();
  if (fd >= 0) [[maybe_unused]]
    const auto written = ::write(fd, &byte, 1);
}

} // namespace

const char *signal_name(int signo) {
  switch (signo) {
  case SIGTERM:
    return "SIGTERM";
  case SIGINT:
    return "SIGINT";
  default:
    return "a signal";
  }
}

InterruptWatch::InterruptWatch(std::function<void(int)> on_signal_callback)
    : on_signal_(std::move(on_signal_callback)) {
  if (write_fd.load() >= 0)
    throw std::logic_error("InterruptWatch: one already watches this process");
  if (::pipe(pipe_) != 0)
    throw std::runtime_error("InterruptWatch: pipe() failed: " + std::to_string(errno));
  write_fd = pipe_[1];
  signals_seen = 0;
  thread_ = std::thread([this] {
    unsigned char byte = 0;
    ssize_t got = 0;
    while ((got = ::read(pipe_[0], &byte, 1)) < 0 && errno == EINTR) {
    }
    if (got == 1 && byte != 0)
      on_signal_(byte); // byte 0: the destructor's wake-up, no signal
  });
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  sigaction(SIGTERM, &sa, &old_term_);
  sigaction(SIGINT, &sa, &old_int_);
}

InterruptWatch::~InterruptWatch() {
  sigaction(SIGTERM, &old_term_, nullptr);
  sigaction(SIGINT, &old_int_, nullptr);
  write_fd = -1;
  const unsigned char wake = 0;
  [[maybe_unused]] const auto written = ::write(pipe_[1], &wake, 1);
  thread_.join();
  ::close(pipe_[0]);
  ::close(pipe_[1]);
}

} // namespace railgauge
