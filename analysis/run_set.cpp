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

// A path of the input that cannot be read (or judged as written): a problem, and unreadable.
void name_unreadable(RunSet &set, const fs::path &path, std::string what) {
  set.problems.push_back(fmt::format("{}: cannot be read: {}", path.string(), what));
  set.unreadable.push_back({path.string(), std::move(what)});
}

// The run's run.json into run.manifest; what cannot be read goes to set.
void read_manifest(const fs::path &manifest, LoadedRun &run, RunSet &set) {
  const auto unreadable = [&](const fs::path &path, std::string what) {
    name_unreadable(set, path, std::move(what));
  };
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
}

// Each record without a host (hand-made or damaged input) given its run's; where railgauge's
// own run holds records of another host, why the file cannot be judged as written.
std::optional<std::string> give_records_their_host(LoadedRun &run, const fs::path &records_file) {
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
  // railgauge writes one host's records into a run's directory (each rank its own): records of
  // another host are records merged from another run. Judged under their own host, they left
  // this run's node a pass and drained a host that never ran here; the history refuses them.
  if (run.manifest.is_object() && !run.manifest.contains(run_field::kImported) &&
      run.manifest.contains(run_field::kHost)) {
    const auto other = std::find_if(run.records.begin(), run.records.end(),
                                    [&](const Record &r) { return r.host != host; });
    if (other != run.records.end())
      return fmt::format("its records name host '{}' besides the run's '{}': records merged "
                         "from another run; judge each host's run directory as railgauge "
                         "wrote it",
                         other->host, host);
    // The same for the run: an older run's records under a newer run.json (a copy, a restore)
    // were judged as the newer run, which its own records failed, and passed.
    const std::string id = run_id_of(run);
    const auto older = std::find_if(run.records.begin(), run.records.end(), [&](const Record &r) {
      return !id.empty() && !r.run.empty() && r.run != id;
    });
    if (older != run.records.end())
      return fmt::format("its records name run '{}', its run.json '{}': records of another run "
                         "under this run's manifest; judge each run directory as railgauge "
                         "wrote it",
                         older->run, id);
  }
  return std::nullopt;
}

// The records file, run.json and host of one run; what cannot be read goes to set.
void load_one(const fs::path &records_file, RunSet &set, std::vector<std::size_t> &digests) {
  LoadedRun run;
  run.dir = records_file.parent_path().string();
  const auto unreadable = [&](const fs::path &path, std::string what) {
    name_unreadable(set, path, std::move(what));
  };
  const fs::path manifest = records_file.parent_path() / "run.json";
  std::string text;
  read_manifest(manifest, run, set);
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
  if (!twice.empty()) {
    // Read whole, but not as railgauge writes it: refused (an unreadable input, at its level),
    // while each point's last record is still judged and shown beside the refusal.
    auto what = fmt::format(
        "{}{}: only an error record is ever run again, so these are records edited or merged; "
        "judge the run as railgauge wrote it (each point's last record is still judged and shown "
        "beside the refusal)",
        twice.front(), twice.size() > 1 ? fmt::format(", and {} more", twice.size() - 1) : "");
    set.problems.push_back(fmt::format("{}: refused as written: {}", records_file.string(), what));
    set.unreadable.push_back({records_file.string(), std::move(what), "", true});
  }
  if (auto merged = give_records_their_host(run, records_file))
    unreadable(records_file, std::move(*merged));
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
