#include "harness/record_io.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <iterator>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include "harness/error.h"

namespace railgauge {

RecordFile::RecordFile(std::string path) : path_(std::move(path)) {
  fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd_ < 0)
    throw InputError(
        fmt::format("cannot open the records file for writing: {}", std::strerror(errno)), path_,
        "choose a writable --out directory");
}

RecordFile::~RecordFile() {
  if (fd_ >= 0)
    ::close(fd_);
}

void RecordFile::append(const Record &record) {
  const std::string line = record.json_line() + "\n";
  // A file whose last link is gone (its directory was removed) still takes writes: they would
  // go nowhere for the rest of the run. Stop at once instead.
  struct stat st {};
  if (::fstat(fd_, &st) != 0)
    throw BackendError(
        fmt::format("{}: cannot stat the records file: {}", path_, std::strerror(errno)));
  if (st.st_nlink == 0)
    throw BackendError(fmt::format("{}: the records file was removed (was its directory "
                                   "deleted?): {}; this point's record could not be written",
                                   path_, std::strerror(ENOENT)));
  std::size_t done = 0;
  while (done < line.size()) {
    const ssize_t n = ::write(fd_, line.data() + done, line.size() - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      const int err = n < 0 ? errno : ENOSPC;
      // A disk that fills up mid-line (ENOSPC, EFBIG past a file size limit) leaves part of the
      // line behind; cut it off so that every line of the file stays a whole record.
      if (done > 0 && ::ftruncate(fd_, st.st_size) != 0)
        throw BackendError(fmt::format("{}: writing a record failed: {}; removing the partial "
                                       "line failed too: {}",
                                       path_, std::strerror(err), std::strerror(errno)));
      throw BackendError(fmt::format("{}: writing a record failed: {}", path_,
                                     n < 0 ? std::strerror(err) : "no progress"));
    }
    done += static_cast<std::size_t>(n);
  }
}

RecordsRead read_records(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw InputError("cannot open the records file", path,
                     "give a run directory or a records.jsonl written by railgauge");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return parse_records(text, path);
}

namespace {

// Why a records line is not JSON, as far as can be told: bytes that are not UTF-8 (a host name
// from a broken locale), a line cut short, or JSON broken some other way.
std::string why_not_json(std::string_view line) {
  if (!std::all_of(line.begin(), line.end(), [](unsigned char c) { return c < 0x80; })) {
    try {
      (void)nlohmann::json(std::string(line)).dump();
    } catch (const nlohmann::json::type_error &) {
      return "holds bytes that are not UTF-8, which JSON text must be (a host or device name "
             "written in another encoding?)";
    }
  }
  const auto last = line.find_last_not_of(" \t\r");
  if (last == std::string_view::npos || line[last] != '}')
    return "not a complete JSON line (truncated write?)";
  return "not valid JSON";
}

} // namespace

RecordsRead parse_records(std::string_view text, const std::string &path) {
  RecordsRead out;
  std::size_t number = 0;
  while (!text.empty()) {
    ++number;
    const auto end = text.find('\n');
    const auto line = text.substr(0, end);
    text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
    if (line.empty())
      continue;
    const auto where = fmt::format("{}:{}", path, number);
    const auto parsed = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (parsed.is_discarded()) {
      out.problems.push_back(where + ": " + why_not_json(line));
      continue;
    }
    try {
      out.records.push_back(Record::from_json(parsed));
    } catch (const std::invalid_argument &e) {
      out.problems.push_back(where + ": " + e.what());
    }
  }
  return out;
}

} // namespace railgauge
