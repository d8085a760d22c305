#pragma once
// The typed errors railgauge throws. Only main() turns them into an exit status.
//
// InputError is the user's to fix: it says what is wrong, where (file:line, flag, key) and how
// to fix it. BackendError is a library call that failed at run time (CUDA, NVML, verbs, hwloc):
// it carries the call, its error name and file:line, and becomes an `error` record when it
// happens inside a benchmark point.
#include <stdexcept>
#include <string>

namespace railgauge {

class InputError : public std::runtime_error {
public:
  InputError(std::string what, std::string where, std::string fix)
      : std::runtime_error(compose(what, where, fix)), what_(std::move(what)),
        where_(std::move(where)), fix_(std::move(fix)) {}

  const std::string &problem() const { return what_; }
  const std::string &where() const { return where_; }
  const std::string &fix() const { return fix_; }

private:
  static std::string compose(const std::string &what, const std::string &where,
                             const std::string &fix) {
    std::string text = where.empty() ? what : where + ": " + what;
    if (!fix.empty())
      text += "\n  fix: " + fix;
    return text;
  }
  std::string what_, where_, fix_;
};

class BackendError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

// A point of several ranks failed because another rank died or stopped answering. The point
// becomes an `error` record like any BackendError, and then the run stops: every later point
// with that rank would wait its timeout for it in vain (the end barrier then names it).
class PeerLost : public BackendError {
public:
  using BackendError::BackendError;
};

} // namespace railgauge
