// Inputs that fuzzing found to break a parser or a writer (tests/fuzz/regressions/ holds the
// raw inputs, replayed by fuzz_replay.*), minimised into unit tests with the expected message.
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "harness/error.h"
#include "harness/manifest.h"
#include "harness/suite.h"
#include "tests/reliability/temp_dir.h"

namespace railgauge {
namespace {

std::string input_error_of(const std::string &yaml) {
  try {
    parse_suite(yaml, "s.yaml");
  } catch (const InputError &e) {
    return e.what();
  }
  return "(no InputError)";
}

// A measurement setting without a value, a list as a setting, a mapping as a field name: each
// threw yaml-cpp's TypedBadConversion past every handler (std::terminate under the CLI).
TEST(FuzzRegressions, NonScalarSuiteValuesAreInputErrorsWithTheLine) {
  const auto empty =
      input_error_of("suite: s\nmeasure:\n  min_samples:\nbenchmarks:\n  - key: a.b\n");
  EXPECT_NE(empty.find("s.yaml:3"), std::string::npos) << empty;
  EXPECT_NE(empty.find("it is empty"), std::string::npos) << empty;
  const auto list =
      input_error_of("suite: s\nbenchmarks:\n  - key: a.b\n    measure: {min_samples: [1]}\n");
  EXPECT_NE(list.find("it is a list"), std::string::npos) << list;
  const auto key = input_error_of("suite: s\n? [a, b]\n: 1\nbenchmarks:\n  - key: a.b\n");
  EXPECT_NE(key.find("field name must be a single value"), std::string::npos) << key;
  const auto description =
      input_error_of("suite: s\ndescription: {a: 1}\nbenchmarks:\n  - key: a.b\n");
  EXPECT_NE(description.find("s.yaml:2"), std::string::npos) << description;
  const auto axis = input_error_of("suite: s\nbenchmarks:\n  - key: a.b\n    axes: {[x]: 1}\n");
  EXPECT_NE(axis.find("an axis name"), std::string::npos) << axis;
}

// A topology file with invalid UTF-8 in a name: its inventory goes into run.json, whose
// writer threw nlohmann's type_error 316 instead of writing the manifest.
TEST(FuzzRegressions, ManifestWithInvalidUtf8IsWritten) {
  const testing::TempDir dir("manifest_utf8");
  Manifest manifest({"run-1", "testhost", 0, dir.path()}, {"railgauge", "run"});
  manifest.data()["inventory"] = {{"nic", "mlx5\xdf"
                                          "0"}};
  ASSERT_NO_THROW(manifest.write());
  std::ifstream in(dir.path() + "/run.json");
  const auto read = nlohmann::json::parse(in);
  EXPECT_EQ(read["inventory"]["nic"], "mlx5\xef\xbf\xbd"
                                      "0");
}

} // namespace
} // namespace railgauge
