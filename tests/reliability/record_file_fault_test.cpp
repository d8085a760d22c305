// The records file when the disk says no: full (/dev/full, a file size limit in a child
// process) or gone (the run directory removed). A clear error naming the file and the errno
// text, and every line already in the file a whole, valid record.
#include <cerrno>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "harness/error.h"
#include "harness/record_io.h"
#include "tests/reliability/temp_dir.h"

namespace railgauge {
namespace {

Record sample_record(int index) {
  Record r;
  r.run = "run-1";
  r.host = "testhost";
  r.key = "fake.alpha";
  r.params = {{"size_bytes", 1024 * index}, {"mode", "ok"}};
  r.axes = r.params;
  r.metrics = {{"bandwidth_gbytes_per_s", 1.5}, {"note", std::string(300, 'x')}};
  r.time_utc = "2026-01-01T00:00:00.000Z";
  return r;
}

std::string whole_file(const std::string &path) {
  std::ifstream in(path);
  return {std::istreambuf_iterator<char>(in), {}};
}

TEST(RecordFileFaults, DiskFullIsAClearErrorNamingTheFile) {
  RecordFile file("/dev/full");
  try {
    file.append(sample_record(1));
    FAIL() << "a write to /dev/full succeeded";
  } catch (const BackendError &e) {
    EXPECT_NE(std::string(e.what()).find("/dev/full"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(std::strerror(ENOSPC)), std::string::npos) << e.what();
  }
}

// A file size limit (RLIMIT_FSIZE, with SIGXFSZ ignored so that write() returns EFBIG) stands
// in for a disk that fills up in the middle of a record: the kernel writes the part of the line
// that fits, then refuses the rest. Run in a child process, which the limit must not outlive.
TEST(RecordFileFaults, FileSizeLimitMidRecordLeavesOnlyWholeRecords) {
  const testing::TempDir dir("fsize");
  const std::string path = dir.path() + "/records.jsonl";
  const std::size_t line_bytes = sample_record(1).to_json().dump().size() + 1;
  int pipe_fds[2];
  ASSERT_EQ(::pipe(pipe_fds), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::close(pipe_fds[0]);
    std::signal(SIGXFSZ, SIG_IGN);
    // Room for two and a half records.
    const rlimit limit{rlim_t(line_bytes * 5 / 2), rlim_t(line_bytes * 5 / 2)};
    ::setrlimit(RLIMIT_FSIZE, &limit);
    std::string message = "no error";
    int written = 0;
    try {
      RecordFile file(path);
      for (int i = 1; i <= 10; ++i) {
        file.append(sample_record(i));
        ++written;
      }
    } catch (const std::exception &e) {
      message = std::to_string(written) + "|" + e.what();
    }
    [[maybe_unused]] const auto n = ::write(pipe_fds[1], message.data(), message.size());
    ::_exit(0);
  }
  ::close(pipe_fds[1]);
  std::string message;
  char buffer[4096];
  for (ssize_t n; (n = ::read(pipe_fds[0], buffer, sizeof buffer)) > 0;)
    message.append(buffer, std::size_t(n));
  ::close(pipe_fds[0]);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;

  EXPECT_EQ(message.substr(0, 2), "2|") << message;
  EXPECT_NE(message.find(path), std::string::npos) << message;
  EXPECT_NE(message.find(std::strerror(EFBIG)), std::string::npos) << message;
  // The half record that fitted was cut off again: two whole lines, both valid.
  const auto text = whole_file(path);
  EXPECT_EQ(text.size(), 2 * line_bytes);
  const auto read = read_records(path);
  EXPECT_EQ(read.problems, std::vector<std::string>{});
  ASSERT_EQ(read.records.size(), 2u);
  EXPECT_EQ(read.records[1].params["size_bytes"], 2048);
}

TEST(RecordFileFaults, RemovedDirectoryStopsTheNextWrite) {
  const testing::TempDir dir("removed");
  const std::string run_dir = dir.path() + "/run";
  std::filesystem::create_directories(run_dir);
  RecordFile file(run_dir + "/records.jsonl");
  file.append(sample_record(1));
  std::filesystem::remove_all(run_dir);
  try {
    file.append(sample_record(2));
    FAIL() << "a record went into a file that no directory holds";
  } catch (const BackendError &e) {
    EXPECT_NE(std::string(e.what()).find(run_dir + "/records.jsonl"), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find(std::strerror(ENOENT)), std::string::npos) << e.what();
  }
}

} // namespace
} // namespace railgauge
