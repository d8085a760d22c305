#pragma once
// Reading what operators and other tools wrote (a fabric's topology, nvbandwidth, nccl-tests and
// perftest logs), bounded so that no input crashes or hangs its reader:
//
//   - only a regular file is opened, and without blocking: a FIFO given as a topology blocked
//     every rank of a pair matrix until its point timed out, and /dev/zero was read until
//     allocation failed;
//   - a whole file is read only up to a size no real one reaches;
//   - a line is cut off at a length before anything parses it: libstdc++'s std::regex matches
//     recursively, a stack frame or more per character, and a 30,000-character line overflowed
//     an 8 MiB stack (an ibnetdiscover line of 100 KB killed every rank of the matrix);
//   - JSON nests only so deep: nlohmann::json copies and compares recursively, and an lldpctl
//     table nested 100,000 deep overflowed the stack.
//
// Each refusal is an InputError naming the path (or file:line), what it holds instead and the
// caller's fix.
#include <cstddef>
#include <cstdint>
#include <istream>
#include <memory>
#include <string>
#include <sys/types.h>

#include <nlohmann/json.hpp>

namespace railgauge {

// A line longer than any the readers' formats print (ibnetdiscover's are under 200 characters,
// an nvbandwidth matrix row of 576 GPUs about 5,000), and short enough that std::regex matches
// it within a thread's stack: 16,000 characters matched in 8 MiB under ASan, 30,000 did not.
inline constexpr std::size_t kMaxLineBytes = 8192;
// Deeper than lldpctl, nvbandwidth or nccl-tests nest (under 10), far below what overflows.
inline constexpr int kMaxJsonDepth = 64;
// Larger than any topology or tool's report (ibnetdiscover of a 10,000-node fabric is tens of
// MB); a wrong path to a disk image or a core file is refused instead of read into memory.
inline constexpr std::uintmax_t kMaxTextFileBytes = std::uintmax_t{1} << 30;

// What a path is when it is not the regular file expected: "a directory", "a FIFO", "a socket",
// "a device".
std::string file_kind(mode_t mode);

// An open regular file. Refuses anything else before reading a byte: opened with O_NONBLOCK
// (a FIFO does not wait for a writer) and fstat'ed, so a path that changes between a check and
// the open cannot slip through.
class RegularFile {
public:
  // InputError(what the path is instead, or the errno text; path; fix).
  RegularFile(const std::string &path, const std::string &fix);
  ~RegularFile();
  RegularFile(const RegularFile &) = delete;
  RegularFile &operator=(const RegularFile &) = delete;

  std::istream &stream();
  std::uintmax_t size_bytes() const { return size_bytes_; }

private:
  struct Buffer;
  std::unique_ptr<Buffer> buffer_;
  std::unique_ptr<std::istream> stream_;
  std::uintmax_t size_bytes_ = 0;
};

// The whole of a regular file of at most `max_bytes`; InputError naming the path otherwise
// (and when a read fails: the errno text, never a short text).
std::string read_bounded_file(const std::string &path, const std::string &fix,
                              std::uintmax_t max_bytes = kMaxTextFileBytes);

// Lines of a stream, each without its '\n' and a '\r' before it. A line longer than the bound
// is an InputError naming where:line, its length so far and the bound; nothing of it is kept
// beyond the bound, so a file without a newline costs no more memory than one line.
class LineReader {
public:
  LineReader(std::istream &in, std::string where, std::string fix,
             std::size_t max_line_bytes = kMaxLineBytes);
  // False at the end of the stream.
  bool next(std::string &line);
  int line_number() const { return line_number_; }
  // "<where>:<line number>".
  std::string here() const;

private:
  std::istream &in_;
  std::string where_, fix_;
  std::size_t max_line_bytes_;
  int line_number_ = 0;
};

// JSON nested at most `max_depth` deep; deeper is an InputError naming `where`. Syntax errors
// stay nlohmann's exceptions, for the caller to word as its format's.
nlohmann::json parse_bounded_json(const std::string &text, const std::string &where,
                                  const std::string &fix, int max_depth = kMaxJsonDepth);

} // namespace railgauge
