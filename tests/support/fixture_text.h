#pragma once
// The text of a file under tests/fixtures, or anywhere in the source tree, for tests that parse
// real or sample output and committed records. An empty or missing file fails the calling test
// (a moved fixture must not pass as empty input).
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

namespace railgauge::testing {

inline std::string nonempty_file_text(const std::string &path, const std::string &shown) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  EXPECT_FALSE(s.str().empty()) << shown;
  return s.str();
}

inline std::string fixture_text(const std::string &relative_path) {
  return nonempty_file_text(std::string(RAILGAUGE_TEST_FIXTURES) + "/" + relative_path,
                            relative_path);
}

// By its path from the root of the source tree: results/reference/..., tests/fuzz/corpus/...
inline std::string source_text(const std::string &relative_path) {
  return nonempty_file_text(std::string(RAILGAUGE_SOURCE_DIR) + "/" + relative_path, relative_path);
}

} // namespace railgauge::testing
