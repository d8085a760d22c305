#include "harness/data_paths.h"

#include <cstdlib>
#include <optional>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "harness/did_you_mean.h"
#include "harness/error.h"

namespace railgauge {
namespace fs = std::filesystem;

namespace {

const char *data_dir_env() {
  const char *env = std::getenv(kDataDirEnv);
  return env && *env ? env : nullptr;
}

} // namespace

fs::path data_dir() {
  if (const char *env = data_dir_env())
    return fs::path(env);
  // /proc/self/exe rather than argv[0]: srun and mpirun start the binary by any path (or through
  // PATH), and a symlink to it (/usr/local/bin/railgauge) resolves to the real prefix.
  std::error_code ec;
  const auto exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec)
    return fs::path("share/railgauge");
  return exe.parent_path().parent_path() / "share" / "railgauge";
}

std::string data_dir_origin() {
  return data_dir_env() ? std::string(kDataDirEnv) : std::string("beside the binary");
}

fs::path data_file(const std::string &relative) {
  const auto dir = data_dir();
  const auto path = dir / relative;
  std::error_code ec;
  if (fs::exists(path, ec))
    return path;
  throw InputError(
      fmt::format("railgauge's data file {} is not there (data directory {}, {})", path.string(),
                  dir.string(), data_dir_origin()),
      relative,
      fmt::format("install railgauge (cmake --install, the .deb or the node kit put it in "
                  "<prefix>/share/railgauge beside <prefix>/bin), or set {} to a directory "
                  "holding suites/, rules/, peaks/ and schema/ (a checkout's results/)",
                  kDataDirEnv));
}

namespace {

// `path` relative to `dir` when it lies inside it (both resolved, so a symlinked data directory
// or a path given through `..` still matches), else nullopt.
std::optional<std::string> inside(const fs::path &path, const fs::path &dir) {
  std::error_code ec;
  const auto p = fs::weakly_canonical(path, ec);
  if (ec)
    return std::nullopt;
  const auto d = fs::weakly_canonical(dir, ec);
  if (ec)
    return std::nullopt;
  const auto rel = p.lexically_relative(d);
  if (rel.empty() || *rel.begin() == "..")
    return std::nullopt;
  return rel.string();
}

} // namespace

DataFileName data_file_name(const std::string &path) {
  if (auto rel = inside(path, data_dir()))
    return {*rel, fmt::format("data directory ({})", data_dir_origin())};
  std::error_code ec;
  if (auto rel = inside(path, fs::current_path(ec)); rel && !ec)
    return {*rel, "working directory"};
  return {fs::path(path).filename().string(), "file name only: outside the data and working "
                                              "directories"};
}

std::vector<std::string> yaml_names(const std::vector<std::string> &dirs) {
  std::set<std::string> known;
  for (const auto &dir : dirs) {
    std::error_code ec;
    for (const auto &e : fs::directory_iterator(dir, ec))
      if (e.path().extension() == ".yaml")
        known.insert(e.path().stem().string());
  }
  return {known.begin(), known.end()};
}

std::string shipped_names(const std::string &folder) {
  const auto dir = data_dir() / folder;
  const auto names = yaml_names({dir.string()});
  if (names.empty())
    return fmt::format("none found in {}", dir.string());
  return fmt::format("{}", fmt::join(names, ", "));
}

std::string find_named_yaml(const std::string &what, const std::string &name_or_path,
                            const std::vector<std::string> &dirs) {
  const bool looks_like_path = name_or_path.find('/') != std::string::npos ||
                               name_or_path.ends_with(".yaml") || name_or_path.ends_with(".yml");
  if (looks_like_path) {
    if (!fs::exists(name_or_path))
      throw InputError(fmt::format("no such {} file", what), name_or_path, "check the path");
    return name_or_path;
  }
  for (const auto &dir : dirs) {
    const auto candidate = fs::path(dir) / (name_or_path + ".yaml");
    if (fs::exists(candidate))
      return candidate.string();
  }
  if (const auto known = yaml_names(dirs); !known.empty())
    throw InputError(fmt::format("no {} named '{}'", what, name_or_path), name_or_path,
                     fmt::format("{}known: {}; or give the path of a YAML file",
                                 did_you_mean(name_or_path, known), fmt::join(known, ", ")));
  throw InputError(fmt::format("no {} named '{}', and no {} files in {}", what, name_or_path, what,
                               fmt::format("{}", fmt::join(dirs, ", "))),
                   name_or_path,
                   fmt::format("give the path of a YAML file, or set {} to a directory holding "
                               "suites/ and rules/ (a checkout's results/)",
                               kDataDirEnv));
}

} // namespace railgauge
