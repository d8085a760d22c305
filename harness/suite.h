#pragma once
// A suite is a YAML file (results/suites/*.yaml) naming which benchmarks to run, with which axis
// values and measurement settings. Example:
//
//   suite: node
//   description: every family on whatever this machine has
//   measure: {time_budget_s: 0.5, max_rel_noise: 0.02}   # defaults for every entry
//   benchmarks:
//     - key: memory.host_*            # a key or a glob
//       axes: {size_bytes: "16KiB:1GiB:*2", threads: [1, 2]}
//       measure: {time_budget_s: 0.2}
//
// Every mistake is an InputError with file:line and what was expected.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "harness/measure.h"

namespace railgauge {

struct SuiteEntry {
  std::string key_glob;
  std::string where;                       // file:line of the entry
  std::map<std::string, std::string> axes; // axis name -> value spec ("1,2,4")
  std::map<std::string, std::string> axis_where;
  MeasureSpec measure;
};

struct Suite {
  std::string name;
  std::string description;
  std::string path;
  std::vector<SuiteEntry> entries;
};

Suite load_suite_file(const std::string &path);
Suite parse_suite(const std::string &yaml_text, const std::string &path);

// A suite argument is a path (has a '/' or ends in .yaml) or a name looked up in `dirs` as
// <dir>/<name>.yaml. Throws InputError listing the suites found when there is no such suite.
std::string find_suite(const std::string &name_or_path, const std::vector<std::string> &dirs);

// Applies the `measure:` mapping of a YAML node to `spec`; shared with the command line.
void apply_measure_setting(MeasureSpec &spec, const std::string &name, const std::string &value,
                           const std::string &where);
// Throws InputError when the settings contradict each other (max_samples < min_samples).
void check_measure_spec(const MeasureSpec &spec, const std::string &where);

} // namespace railgauge
