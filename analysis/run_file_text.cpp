#include "analysis/run_file_text.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include "harness/bounded_input.h"

namespace railgauge::analysis {

namespace fs = std::filesystem;

std::string stat_failure(const fs::path &path, int err) {
  struct stat link {};
  if (err == ENOENT && ::lstat(path.c_str(), &link) == 0 && S_ISLNK(link.st_mode)) {
    std::error_code ec;
    return fmt::format("a symbolic link to '{}', which does not exist",
                       fs::read_symlink(path, ec).string());
  }
  if (err == ELOOP)
    return fmt::format("{} (a symbolic link loop)", std::strerror(err));
  return std::strerror(err);
}

std::optional<std::string> read_regular_file(const fs::path &path, std::string &text) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    return stat_failure(path, errno);
  if (!S_ISREG(st.st_mode))
    return fmt::format("{}, not a regular file", file_kind(st.st_mode));
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0)
    return std::strerror(errno);
  std::optional<std::string> failure;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
    failure = "not a regular file";
  char buf[1 << 16];
  while (!failure) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      failure = fmt::format("reading failed: {}", std::strerror(errno));
    else if (n == 0)
      break;
    else
      text.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fd);
  return failure;
}

} // namespace railgauge::analysis
