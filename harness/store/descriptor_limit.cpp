#include "harness/store/descriptor_limit.h"

#include <cerrno>
#include <cstring>
#include <limits>
#include <sys/resource.h>

#include <fmt/format.h>

namespace railgauge {

std::size_t descriptor_limit() {
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0)
    return 1024;
  if (limit.rlim_cur == RLIM_INFINITY)
    return std::numeric_limits<std::size_t>::max();
  return static_cast<std::size_t>(limit.rlim_cur);
}

bool is_descriptor_exhaustion(int err) { return err == EMFILE || err == ENFILE; }

std::string descriptor_exhaustion_text(const std::string &call, int err) {
  if (err == ENFILE)
    return fmt::format("{}: {}: this host's file table is full (fs.file-max); nothing at the "
                       "other end is at fault",
                       call, std::strerror(err));
  return fmt::format("{}: {}: this process has used up its {} file descriptors (RLIMIT_NOFILE, "
                     "`ulimit -n`); nothing at the other end is at fault",
                     call, std::strerror(err), descriptor_limit());
}

} // namespace railgauge
