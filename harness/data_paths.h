#pragma once
// Where railgauge's data lives: the suites, acceptance rules, GPU peak table and schemas that
// the binary reads at run time. One layout everywhere, relative to the binary:
//
//   <prefix>/bin/railgauge
//   <prefix>/share/railgauge/{suites,rules,peaks,schema}/
//
// `cmake --install`, the Debian package and the node kit lay it out so; the build tree links
// build/share/railgauge/* to the checkout's results/*. $RAILGAUGE_DATA_DIR overrides it (a site's
// own rules and suites). The source checkout's path is never compiled in: a binary copied to a
// node finds its data beside it or says where it looked.
//
//   const auto rules = railgauge::data_file("rules/h100-sxm-ib.yaml");
#include <filesystem>
#include <string>
#include <vector>

namespace railgauge {

inline constexpr const char *kDataDirEnv = "RAILGAUGE_DATA_DIR";

// The data directory: $RAILGAUGE_DATA_DIR when set and not empty, else
// <directory of the running binary>/../share/railgauge. It may not exist; data_file says so.
std::filesystem::path data_dir();

// A file or directory under the data directory. Throws InputError naming the path it looked for,
// where the data directory came from and how to fix it, when it is not there.
std::filesystem::path data_file(const std::string &relative);

// Where data_dir() came from, for messages and `railgauge list --paths`: "RAILGAUGE_DATA_DIR" or
// "beside the binary".
std::string data_dir_origin();

// How a record names a data file without this machine's absolute path, so that a committed run
// reads the same elsewhere: relative to the data directory when the file lies in it
// ("peaks/gpu_peaks.yaml"), else relative to the working directory when under it
// ("results/peaks/gpu_peaks.yaml"), else by its file name; `origin` says which of the three.
struct DataFileName {
  std::string name;
  std::string origin; // "data directory (beside the binary)", "working directory", ...
};
DataFileName data_file_name(const std::string &path);

// The names of the YAML files in DIRS: their stems, sorted, each once; the suites or rule
// profiles a command takes by name. Empty when none of DIRS holds one (or exists).
std::vector<std::string> yaml_names(const std::vector<std::string> &dirs);

// The names shipped in one folder of the data directory ("rules", "suites"), joined with ", ",
// for a message or a --help: read from the folder, so that no list of them is kept by hand. When
// the folder holds none (a binary without its data), where they would be.
std::string shipped_names(const std::string &folder);

// A named data file: NAME_OR_PATH itself when it looks like a path (has a '/' or ends in .yaml),
// else NAME.yaml in the first of DIRS that has it. Throws InputError listing the names known in
// DIRS (or the directories searched, when they hold none). WHAT names the kind ("suite", "rules").
std::string find_named_yaml(const std::string &what, const std::string &name_or_path,
                            const std::vector<std::string> &dirs);

} // namespace railgauge
