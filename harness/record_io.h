#pragma once
// records.jsonl on disk. RecordFile appends each record with a single write(2) of the whole line
// on an O_APPEND descriptor as soon as the point is measured: the line reaches the kernel whole,
// so a process killed with SIGKILL leaves every record written so far complete and valid.
// read_records() reads a file back and reports, with line numbers, what it cannot read (a line
// truncated by a power loss, a foreign line) instead of stopping at it.
#include <string>
#include <string_view>
#include <vector>

#include "harness/record.h"

namespace railgauge {

class RecordFile {
public:
  // Creates or appends to `path`; throws InputError naming the path when it cannot be written.
  explicit RecordFile(std::string path);
  RecordFile(const RecordFile &) = delete;
  RecordFile &operator=(const RecordFile &) = delete;
  ~RecordFile();

  // Throws BackendError (with errno text: disk full, directory removed) when the write fails.
  void append(const Record &record);
  const std::string &path() const { return path_; }

private:
  std::string path_;
  int fd_ = -1;
};

struct RecordsRead {
  std::vector<Record> records;
  std::vector<std::string> problems; // "records.jsonl:17: <what>"
};

// Throws InputError when the file cannot be opened.
RecordsRead read_records(const std::string &path);
// The lines of a records file already read into memory (`path` names them in problems), for a
// reader that checks every read(2) itself.
RecordsRead parse_records(std::string_view text, const std::string &path);

} // namespace railgauge
