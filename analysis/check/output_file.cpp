#include "analysis/check/output_file.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

#include <fmt/format.h>

#include "harness/error.h"

namespace railgauge::analysis {
namespace {

// The first step that failed, with its errno text; empty when every step worked.
std::string write_whole(const std::string &tmp, const std::string &text) {
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0)
    return fmt::format("open '{}': {}", tmp, std::strerror(errno));
  std::string failure;
  for (std::size_t done = 0; done < text.size() && failure.empty();) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      failure = fmt::format("write: {}", n < 0 ? std::strerror(errno) : "no progress");
    else
      done += static_cast<std::size_t>(n);
  }
  // A full disk or a quota can show only here, on NFS even only at close().
  if (failure.empty() && ::fsync(fd) != 0)
    failure = fmt::format("fsync: {}", std::strerror(errno));
  if (::close(fd) != 0 && failure.empty())
    failure = fmt::format("close: {}", std::strerror(errno));
  return failure;
}

} // namespace

void write_output_file(const std::string &path, const std::string &text, const std::string &flag) {
  const std::string tmp = path + ".tmp";
  auto failure = write_whole(tmp, text);
  if (failure.empty() && std::rename(tmp.c_str(), path.c_str()) != 0)
    failure = fmt::format("rename to '{}': {}", path, std::strerror(errno));
  if (failure.empty())
    return;
  ::unlink(tmp.c_str());
  throw BackendError(fmt::format("{}: cannot write '{}': {}", flag, path, failure));
}

} // namespace railgauge::analysis
