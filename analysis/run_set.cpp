#include "analysis/run_set.h"

#include "analysis/run_machines.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <filesystem>
#include <iterator>
#include <map>
#include <optional>
#include <set>
#include <sys/stat.h>
#include <thread>
#include <tuple>
#include <unistd.h>

#include <fmt/format.h>

#include "analysis/run_file_text.h"
#include "harness/bounded_input.h"
#include "harness/error.h"
#include "harness/manifest.h"
#include "harness/point_results.h"
#include "harness/record_io.h"
#include "harness/run_fields.h"
#include "records/per_gpu_parts.h"

namespace railgauge::analysis {
namespace {

namespace fs = std::filesystem;

// Where a walk has been: directories by device and inode, the ones it is inside (a link back to
// one of them is a loop) and every one it has listed (a second link to it is the same runs).
struct Walk {
  explicit Walk(FoundRuns &s) : set(s) {}

  FoundRuns &set;
  std::vector<std::pair<dev_t, ino_t>> inside;
  std::map<std::pair<dev_t, ino_t>, std::string> listed;
  std::vector<fs::path> record_files;

  void unreadable(const fs::path &path, std::string what) {
    set.problems.push_back(fmt::format("{}: cannot be read: {}", path.string(), what));
    set.unreadable.push_back({path.string(), std::move(what)});
  }

  void directory(const fs::path &dir, const struct stat &st) {
    const std::pair id{st.st_dev, st.st_ino};
    if (std::find(inside.begin(), inside.end(), id) != inside.end()) {
      set.problems.push_back(fmt::format("{}: a symbolic link loop back to '{}': not walked again",
                                         dir.string(), listed[id]));
      return;
    }
    if (const auto it = listed.find(id); it != listed.end()) {
      set.problems.push_back(fmt::format("{}: the same directory as '{}': its runs are loaded once",
                                         dir.string(), it->second));
      return;
    }
    listed[id] = dir.string();
    std::error_code ec;
    std::vector<fs::path> entries;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
      entries.push_back(it->path());
    if (ec) {
      unreadable(dir, ec.message());
      return;
    }
    std::sort(entries.begin(), entries.end());
    // A run that wrote its run.json and no record (it stopped before its first point, or its
    // records were lost) is still a run of the fleet: loaded, its missing records.jsonl is named
    // and judged, where walking past it would leave its node out of the verdict.
    const auto named = [&](const char *name) {
      return std::any_of(entries.begin(), entries.end(),
                         [&](const fs::path &e) { return e.filename() == name; });
    };
    if (named("run.json") && !named("records.jsonl"))
      record_files.push_back(dir / "records.jsonl");
    inside.push_back(id);
    for (const auto &entry : entries)
      path(entry, false);
    inside.pop_back();
  }

  // Within a directory only records.jsonl and directories matter; any entry that cannot even be
  // stat'ed may be a run, so it is named.
  void path(const fs::path &p, bool given) {
    struct stat st {};
    if (::stat(p.c_str(), &st) != 0)
      return unreadable(p, stat_failure(p, errno));
    const bool records = p.filename() == "records.jsonl";
    // Beside a run.json it is that run's records file: the run is loaded and its file named
    // there, as a FIFO's is (alone, the run's node was left out of the verdict and passed).
    std::error_code ec;
    if (S_ISDIR(st.st_mode) && records && fs::exists(p.parent_path() / "run.json", ec)) {
      record_files.push_back(p);
      return;
    }
    if (S_ISDIR(st.st_mode) && records)
      return unreadable(p, "a directory, not a regular file");
    if (S_ISDIR(st.st_mode))
      return directory(p, st);
    if (given || records)
      record_files.push_back(p);
  }
};

std::string text_of(const nlohmann::json &manifest, const char *field) {
  return manifest.is_object() && manifest.contains(field) && manifest[field].is_string()
             ? manifest[field].get<std::string>()
             : "";
}

// The records file, run.json and host of one run; what cannot be read goes to set.
void load_one(const fs::path &records_file, RunSet &set, std::vector<std::size_t> &digests) {
  LoadedRun run;
  run.dir = records_file.parent_path().string();
  const auto unreadable = [&](const fs::path &path, std::string what) {
    set.problems.push_back(fmt::format("{}: cannot be read: {}", path.string(), what));
    set.unreadable.push_back({path.string(), std::move(what)});
  };
  const fs::path manifest = records_file.parent_path() / "run.json";
  // A run.json that cannot be parsed hides the run's inventory and counts from the verdict.
  const auto invalid_manifest = [&](std::string what) {
    set.problems.push_back(fmt::format("{}: {}", manifest.string(), what));
    set.unreadable.push_back({manifest.string(), std::move(what)});
  };
  std::string text;
  struct stat st {};
  if (::lstat(manifest.c_str(), &st) == 0) {
    if (auto failure = read_regular_file(manifest, text))
      unreadable(manifest, std::move(*failure));
    else
      try {
        run.manifest = nlohmann::json::parse(text);
      } catch (const nlohmann::json::parse_error &e) {
        // Not e.what(): it quotes the bytes read last, which need not be UTF-8, and problems go
        // into `check --json` and the JUnit file, whose writers must not throw on them.
        invalid_manifest(fmt::format("not valid JSON (at byte {})", e.byte));
      } catch (const nlohmann::json::exception &) { // out_of_range: a number such as 1E800
        invalid_manifest("not valid JSON (a number out of range)");
      }
    // A run.json of another schema (a newer railgauge's) may hold its fields under other names:
    // read as ours, its counts and inventory could pass what they do not say.
    const auto schema =
        run.manifest.is_object() ? run.manifest.find(run_field::kSchema) : run.manifest.end();
    if (run.manifest.is_object() && schema != run.manifest.end() &&
        *schema != nlohmann::json(kRunSchema)) {
      invalid_manifest(fmt::format("schema {} is not {}, which this railgauge reads (written by "
                                   "a newer railgauge?): read it with that version",
                                   schema->dump(), kRunSchema));
      run.manifest = nullptr;
    }
  }
  text.clear();
  std::error_code ec;
  if (!fs::exists(fs::symlink_status(records_file, ec)) && run.manifest.is_object()) {
    unreadable(records_file, fmt::format("missing beside its run.json (run status '{}'): the run "
                                         "wrote no record, or they were lost",
                                         text_of(run.manifest, run_field::kStatus)));
  } else if (auto failure = read_regular_file(records_file, text)) {
    unreadable(records_file, std::move(*failure));
    if (!run.manifest.is_object())
      return; // nothing of this run to judge; its path is named
  }
  if (const auto start = text_of(run.manifest, run_field::kStartUtc);
      !start.empty() && !plausible_start(start))
    set.problems.push_back(fmt::format(
        "{}: start_utc '{}' cannot date the run (not a UTC time of the form "
        "2026-11-28T21:10:32.123Z, before 2000, or after this machine's clock): it is judged "
        "beside its host's newest run, never taken for it",
        manifest.string(), start));
  auto read = parse_records(text, records_file.string());
  run.records = std::move(read.records);
  std::vector<std::string> twice;
  run.replaced_records = keep_point_results(run.records, &twice);
  if (!twice.empty())
    unreadable(records_file,
               fmt::format("{}{}: only an error record is ever run again, so these are "
                           "records edited or merged; judge the run as railgauge wrote it",
                           twice.front(),
                           twice.size() > 1 ? fmt::format(", and {} more", twice.size() - 1) : ""));
  // A record without a host (hand-made or damaged input) belongs to its run's host, or to its
  // run directory: never to a node named "".
  std::string host;
  if (run.manifest.is_object() && run.manifest.contains(run_field::kHost) &&
      run.manifest[run_field::kHost].is_string())
    host = run.manifest[run_field::kHost].get<std::string>();
  if (host.empty())
    host = records_file.parent_path().filename().string();
  if (host.empty())
    host = run.dir;
  for (auto &r : run.records)
    if (r.host.empty())
      r.host = host;
  // Lines that cannot be decoded are records lost to the verdict: the file is an input that
  // could not be read whole (each line is still a problem of its own, with its number).
  if (!read.problems.empty())
    set.unreadable.push_back(
        {records_file.string(),
         fmt::format("{} line{} could not be read (the first: {})", read.problems.size(),
                     read.problems.size() == 1 ? "" : "s",
                     read.problems.front().substr(records_file.string().size() + 1))});
  for (auto &p : read.problems)
    set.problems.push_back(std::move(p));
  set.runs.push_back(std::move(run));
  digests.push_back(std::hash<std::string>{}(text));
}

// Parsing is most of loading a fleet (a seventh of a 1,500-node check): the files are parsed
// on every core, each into a set of its own, and the sets joined in the order of the files, so
// the result is the same as one file after another.
void load_in_parallel(const std::vector<fs::path> &files, RunSet &set,
                      std::vector<std::size_t> &digests) {
  std::vector<RunSet> parts(files.size());
  std::vector<std::vector<std::size_t>> part_digests(files.size());
  std::atomic<std::size_t> next{0};
  const auto work = [&] {
    for (std::size_t i = next++; i < files.size(); i = next++)
      load_one(files[i], parts[i], part_digests[i]);
  };
  const std::size_t threads =
      std::min<std::size_t>(std::max(1U, std::thread::hardware_concurrency()), files.size());
  std::vector<std::thread> pool;
  for (std::size_t t = 1; t < threads; ++t)
    pool.emplace_back(work);
  work();
  for (auto &t : pool)
    t.join();
  for (std::size_t i = 0; i < files.size(); ++i) {
    std::move(parts[i].runs.begin(), parts[i].runs.end(), std::back_inserter(set.runs));
    std::move(parts[i].problems.begin(), parts[i].problems.end(), std::back_inserter(set.problems));
    std::move(parts[i].unreadable.begin(), parts[i].unreadable.end(),
              std::back_inserter(set.unreadable));
    digests.insert(digests.end(), part_digests[i].begin(), part_digests[i].end());
  }
}

// Which run a directory holds: its run id, host and rank, and the time it started, when run.json
// names them; otherwise none, and only its records tell a copy. The run id alone is not enough:
// it is the start second and the host, so two runs started in the same second into different
// --out directories (a gemm and a collectives run under one job step) share it.
std::optional<std::string> identity_of(const LoadedRun &run) {
  const auto id = text_of(run.manifest, run_field::kRun);
  if (id.empty())
    return std::nullopt;
  const auto rank =
      run.manifest.contains(run_field::kRank) ? run.manifest[run_field::kRank].dump() : "";
  const auto suite = run.manifest.is_object() && run.manifest.contains(run_field::kSuite)
                         ? run.manifest[run_field::kSuite].dump()
                         : "";
  return fmt::format("run {} of host '{}' rank {} started {}{}", id,
                     text_of(run.manifest, run_field::kHost), rank.empty() ? "?" : rank,
                     text_of(run.manifest, run_field::kStartUtc),
                     suite.empty() ? "" : " suite " + suite);
}

// A run copied twice (the same run id, host and rank, or byte for byte the same records) would
// count twice in every fleet statistic: the copy with the most records written is kept
// (records.jsonl only grows), and the other named. Records are told apart by a 64-bit digest.
void drop_copies(RunSet &set, const std::vector<std::size_t> &digests) {
  std::map<std::string, std::size_t> by_identity;
  std::map<std::size_t, std::size_t> by_digest;
  std::vector<bool> dropped(set.runs.size(), false);
  for (std::size_t i = 0; i < set.runs.size(); ++i) {
    auto &runs = set.runs;
    const auto identity = identity_of(runs[i]);
    const bool records = !runs[i].records.empty();
    std::optional<std::size_t> first;
    if (identity && by_identity.count(*identity))
      first = by_identity[*identity];
    else if (records && by_digest.count(digests[i]))
      first = by_digest[digests[i]];
    if (!first) {
      if (identity)
        by_identity[*identity] = i;
      if (records)
        by_digest.emplace(digests[i], i);
      continue;
    }
    if (runs[i].records_written() > runs[*first].records_written())
      std::swap(runs[i], runs[*first]); // the fuller copy is judged, where the first one was
    dropped[i] = true;
    set.problems.push_back(fmt::format("{}: a copy of '{}' ({}): loaded once", runs[i].dir,
                                       runs[*first].dir,
                                       identity ? *identity : "the same records"));
  }
  std::vector<LoadedRun> kept;
  for (std::size_t i = 0; i < set.runs.size(); ++i)
    if (!dropped[i])
      kept.push_back(std::move(set.runs[i]));
  set.runs = std::move(kept);
}

// A run refused before its first point holds no record, and compare and report read only
// records: each is named, with why, so that no command passes over it in silence.
// So is a run stopped (SIGTERM, SIGINT) before its first record: check judges it unfinished,
// where "no readable record in the input" once sent a burn-in cut short back as bad input.
bool name_refused_runs(RunSet &set) {
  bool any = false;
  for (const auto &run : set.runs) {
    const auto status = text_of(run.manifest, run_field::kStatus);
    if (status == run_field::kInterruptedStatus && run.records.empty()) {
      any = true;
      set.problems.push_back(fmt::format("{}: interrupted before its first record", run.dir));
      continue;
    }
    if (status != run_field::kRefusedStatus) {
      // A run.json beside no record read (an empty records file, one that is a directory):
      // check judges the run (its points planned and none recorded), where "no readable
      // record in the input" sent a node's only run back as bad input, drained by no one.
      if (run.records.empty() && run.manifest.is_object()) {
        any = true;
        set.problems.push_back(fmt::format("{}: run.json says status '{}', and no record of it "
                                           "was read",
                                           run.dir, status));
      }
      continue;
    }
    any = true;
    const auto why = text_of(run.manifest, run_field::kRefused);
    set.problems.push_back(fmt::format("{}: refused, no point ran: {}", run.dir,
                                       why.empty() ? "run.json gives no reason" : why));
  }
  return any;
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

FoundRuns find_runs(const std::vector<std::string> &paths) {
  FoundRuns found;
  Walk walk(found);
  for (const auto &path : paths) {
    const fs::path p(path);
    struct stat st {};
    if (::stat(p.c_str(), &st) != 0)
      throw InputError(fmt::format("cannot read '{}': {}", path, stat_failure(p, errno)), path,
                       "give a run directory (it holds run.json and records.jsonl), a directory "
                       "of run directories, or a records.jsonl file");
    const auto said = std::pair{walk.record_files.size(), found.problems.size()};
    walk.path(p, true);
    if (said == std::pair{walk.record_files.size(), found.problems.size()})
      throw InputError(fmt::format("no records.jsonl under '{}'", path), path,
                       "point at the directory that `railgauge run` printed as its run "
                       "directory, or at a directory holding such directories");
  }
  // The same file reached twice (given twice, or through a link) is one run.
  std::set<std::pair<dev_t, ino_t>> files;
  for (const auto &f : walk.record_files) {
    struct stat st {};
    if (::stat(f.c_str(), &st) == 0 && !files.insert({st.st_dev, st.st_ino}).second)
      continue;
    found.record_files.push_back(f.string());
  }
  return found;
}

RunSet load_run_file(const std::string &records_file) {
  RunSet set;
  std::vector<std::size_t> digests;
  load_one(records_file, set, digests);
  name_refused_runs(set);
  return set;
}

RunSet load_runs(const std::vector<std::string> &paths, LoadOptions options) {
  auto found = find_runs(paths);
  RunSet set;
  set.problems = std::move(found.problems);
  set.unreadable = std::move(found.unreadable);
  std::vector<std::size_t> digests;
  load_in_parallel(std::vector<fs::path>(found.record_files.begin(), found.record_files.end()), set,
                   digests);
  drop_copies(set, digests);
  const bool refused = name_refused_runs(set);
  if (set.record_count() == 0 && !(refused && options.refused_runs_are_input)) {
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

// The suite a run ran ("import.nccl-tests" for an import), and when it started.
std::string suite_of(const LoadedRun &run) {
  const auto &m = run.manifest;
  if (m.is_object() && m.contains(run_field::kSuite) && m[run_field::kSuite].is_object())
    return text_of(m[run_field::kSuite], run_field::kSuiteName);
  return "";
}

// The ranks of the run's world ("" before manifests named it): a run of 8 ranks on one node and
// one of 16 across two measure different things, so neither supersedes the other.
std::string world_of(const LoadedRun &run) {
  const auto &m = run.manifest;
  if (m.is_object() && m.contains(run_field::kWorld) && m[run_field::kWorld].is_object() &&
      m[run_field::kWorld].contains(run_field::kWorldSize) &&
      m[run_field::kWorld][run_field::kWorldSize].is_number_integer())
    return std::to_string(m[run_field::kWorld][run_field::kWorldSize].get<long long>());
  return "";
}

using SupersedingKey = std::tuple<std::string, std::string, std::string, std::string, std::string>;

// How many ranks of each run ran on each host: one run id per host and run.
std::map<std::pair<std::string, std::string>, int> ranks_per_host(const RunSet &set) {
  std::map<std::pair<std::string, std::string>, int> ranks;
  for (const auto &run : set.runs)
    if (run.manifest.is_object())
      ++ranks[{host_of(run), run_id_of(run)}];
  return ranks;
}

// What a newer run replaces: the same host, suite, world size and ranks on the host. A burn-in
// on eight 8-GPU nodes has a node step of one rank per node (world 8, 1 on the host) and a
// per-node NCCL step (world 8, all 8 on the host): neither supersedes the other.
// And the machine (run_machines.h): another machine under the same host name is not a retest.
SupersedingKey superseding_key(const LoadedRun &run,
                               const std::map<std::pair<std::string, std::string>, int> &ranks,
                               const std::map<std::string, std::string> &machines) {
  const auto here = ranks.find({host_of(run), run_id_of(run)});
  return {host_of(run), suite_of(run), world_of(run),
          here == ranks.end() ? "" : std::to_string(here->second), machines.at(run.dir)};
}

} // namespace

bool plausible_start(const std::string &start_utc) {
  const auto digits = [&](std::size_t from, std::size_t n) {
    return start_utc.size() >= from + n &&
           std::all_of(start_utc.begin() + static_cast<std::ptrdiff_t>(from),
                       start_utc.begin() + static_cast<std::ptrdiff_t>(from + n),
                       [](char c) { return c >= '0' && c <= '9'; });
  };
  // YYYY-MM-DDTHH:MM:SS, then an optional fraction, then Z and nothing else.
  if (start_utc.size() < 20 || !digits(0, 4) || start_utc[4] != '-' || !digits(5, 2) ||
      start_utc[7] != '-' || !digits(8, 2) || start_utc[10] != 'T' || !digits(11, 2) ||
      start_utc[13] != ':' || !digits(14, 2) || start_utc[16] != ':' || !digits(17, 2))
    return false;
  std::size_t end = 19;
  if (start_utc[end] == '.') {
    ++end;
    while (end < start_utc.size() && digits(end, 1))
      ++end;
  }
  if (end + 1 != start_utc.size() || start_utc[end] != 'Z' || start_utc < "2000")
    return false;
  // A day's slack for clocks that disagree: a later start is a clock set ahead.
  const std::time_t tomorrow = std::time(nullptr) + 24 * 3600;
  std::tm tm{};
  gmtime_r(&tomorrow, &tm);
  char limit[32];
  std::strftime(limit, sizeof limit, "%Y-%m-%dT%H:%M:%S", &tm);
  return start_utc.compare(0, 19, limit) <= 0;
}

std::vector<std::string> keep_latest_per_host(RunSet &set) {
  // A run id names one run of every rank, and each rank dates its own directory to the
  // millisecond: the newest run per host, suite and world size is the run id whose earliest rank
  // started last (then the id), and every rank of it is kept. Runs without a manifest cannot be
  // dated, and imports are never superseded (each holds the file it was imported from: two logs
  // of one tool are two measurements, and the same file twice is already one run): all kept.
  const auto ranks = ranks_per_host(set);
  const auto machines = machine_of_runs(set);
  const auto dated = [](const LoadedRun &run) {
    if (!run.manifest.is_object() || run.manifest.contains(run_field::kImported))
      return false;
    const auto start = text_of(run.manifest, run_field::kStartUtc);
    return start.empty() || plausible_start(start);
  };
  std::map<std::pair<SupersedingKey, std::string>, std::string> run_start; // earliest rank's
  for (const auto &run : set.runs) {
    if (!dated(run))
      continue;
    auto start = text_of(run.manifest, run_field::kStartUtc);
    if (start.empty() && !run.records.empty())
      start = run.records.front().time_utc; // a run.json written by hand: as the history dates it
    auto [it, first] =
        run_start.try_emplace({superseding_key(run, ranks, machines), run_id_of(run)}, start);
    if (!first)
      it->second = std::min(it->second, start);
  }
  std::map<SupersedingKey, std::pair<std::string, std::string>> newest; // (start, run id)
  for (const auto &[key_and_id, start] : run_start) {
    auto &best = newest[key_and_id.first];
    best = std::max(best, std::pair{start, key_and_id.second});
  }
  std::vector<std::string> dropped;
  std::vector<LoadedRun> kept;
  for (auto &run : set.runs) {
    if (dated(run) && run_id_of(run) != newest[superseding_key(run, ranks, machines)].second) {
      dropped.push_back(run.dir);
      continue;
    }
    kept.push_back(std::move(run));
  }
  set.runs = std::move(kept);
  return dropped;
}

std::vector<std::string> superseded_runs(const RunSet &set) {
  const auto ranks = ranks_per_host(set);
  const auto machines = machine_of_runs(set);
  std::map<SupersedingKey, std::set<std::string>> ids;
  for (const auto &run : set.runs)
    if (run.manifest.is_object())
      ids[superseding_key(run, ranks, machines)].insert(run_id_of(run));
  std::vector<std::string> out;
  for (const auto &[key, runs] : ids)
    if (runs.size() > 1)
      out.push_back(fmt::format(
          "{} has {} runs of suite '{}'{}", std::get<0>(key), runs.size(), std::get<1>(key),
          std::get<2>(key).empty() ? "" : " on " + std::get<2>(key) + " ranks"));
  return out;
}

RunSet with_per_gpu_parts(RunSet set) {
  for (auto &run : set.runs) {
    std::vector<Record> parts;
    for (const auto &r : run.records)
      for (auto &part : records::per_gpu_parts(r))
        parts.push_back(std::move(part));
    std::move(parts.begin(), parts.end(), std::back_inserter(run.records));
  }
  return set;
}

} // namespace railgauge::analysis
