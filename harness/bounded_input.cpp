#include "harness/bounded_input.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <streambuf>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include "harness/error.h"

namespace railgauge {

std::string file_kind(mode_t mode) {
  if (S_ISDIR(mode))
    return "a directory";
  if (S_ISFIFO(mode))
    return "a FIFO";
  if (S_ISSOCK(mode))
    return "a socket";
  if (S_ISCHR(mode) || S_ISBLK(mode))
    return "a device";
  return "not a regular file";
}

// Reads the descriptor itself so that a failed read(2) is named (a filebuf reports it as the
// end of the file, and the reader would take a short file for the whole).
struct RegularFile::Buffer : std::streambuf {
  Buffer(int descriptor, std::string p, std::string f)
      : fd(descriptor), path(std::move(p)), fix(std::move(f)) {}
  ~Buffer() override { ::close(fd); }

  int_type underflow() override {
    for (;;) {
      const ssize_t n = ::read(fd, data, sizeof data);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        throw InputError(fmt::format("reading failed: {}", std::strerror(errno)), path, fix);
      if (n == 0)
        return traits_type::eof();
      setg(data, data, data + n);
      return traits_type::to_int_type(data[0]);
    }
  }

  int fd;
  std::string path, fix;
  char data[1 << 16];
};

RegularFile::RegularFile(const std::string &path, const std::string &fix) {
  // stat(2) first: open(2) of a FIFO with O_NONBLOCK succeeds, of a device may have effects.
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    throw InputError(fmt::format("cannot read it: {}", std::strerror(errno)), path, fix);
  if (!S_ISREG(st.st_mode))
    throw InputError(fmt::format("{}, not a regular file", file_kind(st.st_mode)), path, fix);
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0)
    throw InputError(fmt::format("cannot open it: {}", std::strerror(errno)), path, fix);
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    throw InputError("it changed into something other than a regular file while being opened", path,
                     fix);
  }
  size_bytes_ = static_cast<std::uintmax_t>(st.st_size);
  buffer_ = std::make_unique<Buffer>(fd, path, fix);
  stream_ = std::make_unique<std::istream>(buffer_.get());
  stream_->exceptions(std::ios::badbit); // a failed read reaches the caller as its InputError
}

RegularFile::~RegularFile() = default;

std::istream &RegularFile::stream() { return *stream_; }

std::string read_bounded_file(const std::string &path, const std::string &fix,
                              std::uintmax_t max_bytes) {
  RegularFile file(path, fix);
  if (file.size_bytes() > max_bytes)
    throw InputError(fmt::format("{} bytes, more than the {} bytes this reader takes",
                                 file.size_bytes(), max_bytes),
                     path, fix);
  std::string text;
  text.reserve(static_cast<std::size_t>(file.size_bytes()));
  char chunk[1 << 16];
  // The size is checked again while reading: a file that grows meanwhile stops at the bound.
  while (file.stream().read(chunk, sizeof chunk) || file.stream().gcount() > 0) {
    text.append(chunk, static_cast<std::size_t>(file.stream().gcount()));
    if (text.size() > max_bytes)
      throw InputError(fmt::format("more than the {} bytes this reader takes", max_bytes), path,
                       fix);
  }
  return text;
}

LineReader::LineReader(std::istream &in, std::string where, std::string fix,
                       std::size_t max_line_bytes)
    : in_(in), where_(std::move(where)), fix_(std::move(fix)), max_line_bytes_(max_line_bytes) {}

bool LineReader::next(std::string &line) {
  line.clear();
  std::streambuf &buf = *in_.rdbuf();
  using traits = std::streambuf::traits_type;
  auto c = buf.sbumpc();
  if (traits::eq_int_type(c, traits::eof()))
    return false;
  ++line_number_;
  for (; !traits::eq_int_type(c, traits::eof()); c = buf.sbumpc()) {
    const char ch = traits::to_char_type(c);
    if (ch == '\n')
      break;
    if (line.size() == max_line_bytes_)
      throw InputError(fmt::format("a line longer than {} bytes, longer than any this format has",
                                   max_line_bytes_),
                       here(), fix_);
    line += ch;
  }
  if (!line.empty() && line.back() == '\r')
    line.pop_back();
  return true;
}

std::string LineReader::here() const { return fmt::format("{}:{}", where_, line_number_); }

nlohmann::json parse_bounded_json(const std::string &text, const std::string &where,
                                  const std::string &fix, int max_depth) {
  // The parser itself keeps its own stack; the callback stops it before a document deeper than
  // the bound exists to be copied or compared. `depth` counts the containers around the one
  // that starts.
  using Event = nlohmann::json::parse_event_t;
  const nlohmann::json::parser_callback_t bound = [&](int depth, Event event, nlohmann::json &) {
    if ((event == Event::object_start || event == Event::array_start) && depth >= max_depth)
      throw InputError(
          fmt::format("JSON nested more than {} deep, deeper than this format nests", max_depth),
          where, fix);
    return true;
  };
  return nlohmann::json::parse(text, bound);
}

} // namespace railgauge
