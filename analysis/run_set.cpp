#include "analysis/run_set.h"

#include <algorithm>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "harness/error.h"
#include "harness/record_io.h"

namespace railgauge::analysis {
namespace {

namespace fs = std::filesystem;

LoadedRun load_one(const fs::path &records_file, std::vector<std::string> &problems) {
  LoadedRun run;
  run.dir = records_file.parent_path().string();
  const fs::path manifest = records_file.parent_path() / "run.json";
  if (fs::exists(manifest)) {
    std::ifstream in(manifest);
    try {
      run.manifest = nlohmann::json::parse(in);
    } catch (const nlohmann::json::parse_error &e) {
      // Not e.what(): it quotes the bytes read last, which need not be UTF-8, and problems go
      // into `check --json` and the JUnit file, whose writers must not throw on them.
      problems.push_back(fmt::format("{}: not valid JSON (at byte {})", manifest.string(), e.byte));
    } catch (const nlohmann::json::exception &) { // out_of_range: a number such as 1E800
      problems.push_back(
          fmt::format("{}: not valid JSON (a number out of range)", manifest.string()));
    }
  }
  auto read = read_records(records_file.string());
  run.records = std::move(read.records);
  for (auto &p : read.problems)
    problems.push_back(std::move(p));
  return run;
}

// records.jsonl files under `dir`, sorted so that the same inputs load in the same order.
std::vector<fs::path> find_record_files(const fs::path &dir) {
  std::vector<fs::path> found;
  for (const auto &entry :
       fs::recursive_directory_iterator(dir, fs::directory_options::skip_permission_denied))
    if (entry.is_regular_file() && entry.path().filename() == "records.jsonl")
      found.push_back(entry.path());
  std::sort(found.begin(), found.end());
  return found;
}

} // namespace

std::size_t RunSet::record_count() const {
  std::size_t n = 0;
  for (const auto &r : runs)
    n += r.records.size();
  return n;
}

std::vector<const Record *> RunSet::records() const {
  std::vector<const Record *> all;
  for (const auto &run : runs)
    for (const auto &r : run.records)
      all.push_back(&r);
  return all;
}

RunSet load_runs(const std::vector<std::string> &paths) {
  RunSet set;
  for (const auto &path : paths) {
    const fs::path p(path);
    std::error_code ec;
    if (!fs::exists(p, ec))
      throw InputError(fmt::format("no such file or directory '{}'", path), path,
                       "give a run directory (it holds run.json and records.jsonl), a directory "
                       "of run directories, or a records.jsonl file");
    const auto files = fs::is_directory(p) ? find_record_files(p) : std::vector<fs::path>{p};
    if (files.empty())
      throw InputError(fmt::format("no records.jsonl under '{}'", path), path,
                       "point at the directory that `railgauge run` printed as its run "
                       "directory, or at a directory holding such directories");
    for (const auto &f : files)
      set.runs.push_back(load_one(f, set.problems));
  }
  return set;
}

} // namespace railgauge::analysis
