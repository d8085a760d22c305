#include "analysis/run_set.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <tuple>

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
  // A record without a host (hand-made or damaged input) belongs to its run's host, or to its
  // run directory: never to a node named "".
  std::string host;
  if (run.manifest.is_object() && run.manifest.contains("host") && run.manifest["host"].is_string())
    host = run.manifest["host"].get<std::string>();
  if (host.empty())
    host = records_file.parent_path().filename().string();
  if (host.empty())
    host = run.dir;
  for (auto &r : run.records)
    if (r.host.empty())
      r.host = host;
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
  if (set.record_count() == 0) {
    std::string first =
        set.problems.empty() ? "every records.jsonl is empty" : set.problems.front();
    throw InputError(fmt::format("no readable record in the input ({} problem{}; first: {})",
                                 set.problems.size(), set.problems.size() == 1 ? "" : "s", first),
                     paths.front(),
                     "give run directories written by `railgauge run` or `railgauge import`");
  }
  return set;
}

namespace {

std::string text_of(const nlohmann::json &manifest, const char *field) {
  return manifest.is_object() && manifest.contains(field) && manifest[field].is_string()
             ? manifest[field].get<std::string>()
             : "";
}

// The suite a run ran ("import.nccl-tests" for an import), and when it started.
std::string suite_of(const LoadedRun &run) {
  const auto &m = run.manifest;
  if (m.is_object() && m.contains("suite") && m["suite"].is_object())
    return text_of(m["suite"], "name");
  return "";
}

std::string host_of(const LoadedRun &run) {
  const auto host = text_of(run.manifest, "host");
  return !host.empty() ? host : run.records.empty() ? run.dir : run.records.front().host;
}

// The ranks of the run's world ("" before manifests named it): a run of 8 ranks on one node and
// one of 16 across two measure different things, so neither supersedes the other.
std::string world_of(const LoadedRun &run) {
  const auto &m = run.manifest;
  if (m.is_object() && m.contains("world") && m["world"].is_object() &&
      m["world"].contains("size") && m["world"]["size"].is_number_integer())
    return std::to_string(m["world"]["size"].get<long long>());
  return "";
}

// What a newer run replaces: the same host, suite and world size.
std::tuple<std::string, std::string, std::string> superseding_key(const LoadedRun &run) {
  return {host_of(run), suite_of(run), world_of(run)};
}

} // namespace

std::vector<std::string> keep_latest_per_host(RunSet &set) {
  // A run id names one run of every rank; the newest per host, suite and world size is the one
  // whose start time (then id) sorts last. Runs without a manifest cannot be dated and are all
  // kept.
  std::map<std::tuple<std::string, std::string, std::string>, std::pair<std::string, std::string>>
      newest;
  for (const auto &run : set.runs) {
    if (!run.manifest.is_object())
      continue;
    const auto when = std::pair{text_of(run.manifest, "start_utc"), text_of(run.manifest, "run")};
    auto &best = newest[superseding_key(run)];
    best = std::max(best, when);
  }
  std::vector<std::string> dropped;
  std::vector<LoadedRun> kept;
  for (auto &run : set.runs) {
    if (run.manifest.is_object()) {
      const auto when = std::pair{text_of(run.manifest, "start_utc"), text_of(run.manifest, "run")};
      if (when != newest[superseding_key(run)]) {
        dropped.push_back(run.dir);
        continue;
      }
    }
    kept.push_back(std::move(run));
  }
  set.runs = std::move(kept);
  return dropped;
}

std::vector<std::string> superseded_runs(const RunSet &set) {
  std::map<std::tuple<std::string, std::string, std::string>, std::set<std::string>> ids;
  for (const auto &run : set.runs)
    if (run.manifest.is_object())
      ids[superseding_key(run)].insert(text_of(run.manifest, "run"));
  std::vector<std::string> out;
  for (const auto &[key, runs] : ids)
    if (runs.size() > 1)
      out.push_back(fmt::format(
          "{} has {} runs of suite '{}'{}", std::get<0>(key), runs.size(), std::get<1>(key),
          std::get<2>(key).empty() ? "" : " on " + std::get<2>(key) + " ranks"));
  return out;
}

} // namespace railgauge::analysis
