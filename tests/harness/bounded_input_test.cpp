// The bounded reading every reader of operators' and tools' files goes through
// (harness/bounded_input.h): only regular files, lines and JSON nesting capped, each refusal an
// InputError naming the path or file:line.
#include <fcntl.h>
#include <fstream>
#include <functional>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "harness/bounded_input.h"
#include "harness/error.h"
#include "tests/reliability/temp_dir.h"

namespace railgauge {
namespace {

std::string input_error(const std::function<void()> &f) {
  try {
    f();
  } catch (const InputError &e) {
    return e.what();
  }
  return "(no InputError)";
}

TEST(BoundedInput, LinesAreSplitWithoutTheirCarriageReturn) {
  std::istringstream in("a\r\n\nlast");
  LineReader lines(in, "f.txt", "fix");
  std::string line;
  ASSERT_TRUE(lines.next(line));
  EXPECT_EQ(line, "a");
  ASSERT_TRUE(lines.next(line));
  EXPECT_EQ(line, "");
  ASSERT_TRUE(lines.next(line));
  EXPECT_EQ(line, "last");
  EXPECT_EQ(lines.here(), "f.txt:3");
  EXPECT_FALSE(lines.next(line));
}

// A line one byte over the bound is refused at its line, and nothing of it beyond the bound is
// kept; a line of exactly the bound is read.
TEST(BoundedInput, ALineLongerThanTheBoundIsAnInputErrorAtItsLine) {
  std::istringstream in("ok\n" + std::string(16, 'x') + "\n" + std::string(17, 'y') + "\n");
  LineReader lines(in, "f.txt", "give the tool's own output", 16);
  std::string line;
  ASSERT_TRUE(lines.next(line));
  ASSERT_TRUE(lines.next(line));
  EXPECT_EQ(line.size(), 16u);
  const auto error = input_error([&] { lines.next(line); });
  EXPECT_NE(error.find("f.txt:3: a line longer than 16 bytes"), std::string::npos) << error;
  EXPECT_NE(error.find("fix: give the tool's own output"), std::string::npos) << error;
  EXPECT_LE(line.size(), 16u);
}

TEST(BoundedInput, OnlyARegularFileIsRead) {
  testing::TempDir dir("bounded_input");
  const std::string fifo = dir.path() + "/topology.fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  // Returns at once: no writer is waited for.
  const auto fifo_error = input_error([&] { read_bounded_file(fifo, "give a file"); });
  EXPECT_NE(fifo_error.find(fifo + ": a FIFO, not a regular file"), std::string::npos)
      << fifo_error;
  const auto device = input_error([&] { read_bounded_file("/dev/zero", "give a file"); });
  EXPECT_NE(device.find("/dev/zero: a device, not a regular file"), std::string::npos) << device;
  const auto directory = input_error([&] { read_bounded_file(dir.path(), "give a file"); });
  EXPECT_NE(directory.find("a directory"), std::string::npos) << directory;
  const auto missing = input_error([&] { read_bounded_file(dir.path() + "/none", "give a file"); });
  EXPECT_NE(missing.find("No such file or directory"), std::string::npos) << missing;
}

TEST(BoundedInput, AFileLargerThanTheBoundIsRefusedBeforeItIsRead) {
  testing::TempDir dir("bounded_input");
  const std::string path = dir.path() + "/big.txt";
  {
    std::ofstream out(path);
    out << std::string(100, 'a');
  }
  EXPECT_EQ(read_bounded_file(path, "fix", 100), std::string(100, 'a'));
  const auto error = input_error([&] { read_bounded_file(path, "fix", 99); });
  EXPECT_NE(error.find("100 bytes, more than the 99 bytes"), std::string::npos) << error;
}

std::string nested(int depth) {
  return std::string(static_cast<std::size_t>(depth), '[') +
         std::string(static_cast<std::size_t>(depth), ']');
}

TEST(BoundedInput, JsonNestedDeeperThanTheBoundIsAnInputError) {
  EXPECT_NO_THROW(parse_bounded_json(nested(8), "t.json", "fix", 8));
  const auto error = input_error([&] { parse_bounded_json(nested(9), "t.json", "fix", 8); });
  EXPECT_NE(error.find("t.json: JSON nested more than 8 deep"), std::string::npos) << error;
  // 100,000 deep: what overflowed the stack when the document was copied.
  const auto deep = input_error([&] { parse_bounded_json(nested(100000), "t.json", "fix"); });
  EXPECT_NE(deep.find("nested more than 64 deep"), std::string::npos) << deep;
  EXPECT_THROW(parse_bounded_json("{", "t.json", "fix"), nlohmann::json::parse_error);
}

} // namespace
} // namespace railgauge
