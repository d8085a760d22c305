#pragma once
// The text of a file under tests/fixtures, for tests that parse real or sample output. An empty
// or missing file fails the calling test (a moved fixture must not pass as empty input).
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

namespace railgauge::testing {

inline std::string fixture_text(const std::string &relative_path) {
  std::ifstream in(std::string(RAILGAUGE_TEST_FIXTURES) + "/" + relative_path);
  std::stringstream s;
  s << in.rdbuf();
  EXPECT_FALSE(s.str().empty()) << relative_path;
  return s.str();
}

} // namespace railgauge::testing
