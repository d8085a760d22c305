#include "harness/resume.h"
#include "harness/run_fields.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include "harness/digest.h"
#include "harness/error.h"
#include "harness/record_io.h"

namespace railgauge {
namespace fs = std::filesystem;

namespace {

std::string joined(const nlohmann::json &argv) {
  std::string text;
  if (!argv.is_array())
    return "(run.json has no argv)";
  for (const auto &a : argv)
    text += (text.empty() ? "" : " ") + (a.is_string() ? a.get<std::string>() : a.dump());
  return text;
}

// A last line without its newline is the tail of a write that never finished (power loss;
// railgauge itself writes each record whole). Removes it so that new records start on a line
// of their own; returns how many bytes were removed.
std::size_t drop_partial_last_line(const std::string &path) {
  const int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0)
    throw InputError(fmt::format("cannot open the records file: {}", std::strerror(errno)), path,
                     "make the run directory writable");
  struct stat st {};
  std::size_t removed = 0;
  char last = '\n';
  if (::fstat(fd, &st) == 0 && st.st_size > 0 && ::pread(fd, &last, 1, st.st_size - 1) == 1 &&
      last != '\n') {
    // Scan back a block at a time for the newline that ends the last whole record.
    off_t keep = 0;
    char block[4096];
    for (off_t end = st.st_size; end > 0 && keep == 0;) {
      const off_t begin = end > off_t(sizeof block) ? end - off_t(sizeof block) : 0;
      if (::pread(fd, block, std::size_t(end - begin), begin) != end - begin)
        break;
      for (off_t i = end - begin - 1; i >= 0 && keep == 0; --i)
        if (block[i] == '\n')
          keep = begin + i + 1;
      end = begin;
    }
    if (::ftruncate(fd, keep) == 0)
      removed = std::size_t(st.st_size - keep);
  }
  ::close(fd);
  return removed;
}

} // namespace

nlohmann::json plan_summary(const RunPlan &plan) {
  Fnv1a64 hash;
  const auto add = [&hash](const std::string &text) { hash.add(text).add("\n"); };
  for (const auto &item : plan.items) {
    add(std::string(item.benchmark->key()));
    add(item.measure.to_json().dump());
    for (const auto &point : item.points)
      add(point.params().dump());
  }
  return {{"digest", fmt::format("{:016x}", hash.value())}, {"points", plan.point_count()}};
}

RunDirLock::RunDirLock(const std::string &dir) {
  fd_ = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd_ < 0)
    throw InputError(fmt::format("cannot open the run directory: {}", std::strerror(errno)), dir,
                     "give a run directory <out>/<run-id> that exists");
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    ::close(fd_);
    fd_ = -1;
    if (err == EWOULDBLOCK)
      throw InputError("another railgauge process is still writing this run", dir,
                       "wait for it to finish (or stop it), then resume");
    throw InputError(fmt::format("cannot lock the run directory: {}", std::strerror(err)), dir,
                     "give a run directory on a file system that supports flock(2)");
  }
}

RunDirLock::~RunDirLock() {
  if (fd_ >= 0)
    ::close(fd_); // releases the lock
}

ResumeState::ResumeState(const std::string &dir, const nlohmann::json &manifest,
                         const RunPlan &plan, const nlohmann::json &suite_info,
                         const std::string &host, int rank, ResumeOptions options)
    : options_(options) {
  const std::string where = (fs::path(dir) / "run.json").string();
  const std::string again = fmt::format("resume with the options of the original command: {}",
                                        joined(manifest.value(run_field::kArgv, nlohmann::json())));
  const auto text = [&](const char *name) {
    const auto it = manifest.find(name);
    return it != manifest.end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  const auto it_rank = manifest.find(run_field::kRank);
  const int run_rank =
      it_rank != manifest.end() && it_rank->is_number_integer() ? it_rank->get<int>() : -1;
  if (text(run_field::kHost) != host || run_rank != rank)
    throw InputError(fmt::format("the run belongs to host {} rank {}, this is host {} rank {}",
                                 text(run_field::kHost), run_rank, host, rank),
                     where, "resume a run on the host (and as the rank) that started it");
  const auto suite = manifest.find(run_field::kSuite);
  if (suite == manifest.end() || *suite != suite_info)
    throw InputError(fmt::format("the run was made by suite {}, this command runs suite {}",
                                 suite == manifest.end() ? "(none)" : suite->dump(),
                                 suite_info.dump()),
                     where, again);
  const auto recorded_plan = manifest.find(run_field::kPlan);
  const auto this_plan = plan_summary(plan);
  if (recorded_plan == manifest.end() || !recorded_plan->is_object())
    throw InputError("run.json has no plan digest (written by an older railgauge), so this "
                     "command's plan cannot be checked against it",
                     where, "start a new run");
  if (recorded_plan->value("digest", nlohmann::json()) != this_plan["digest"])
    throw InputError(fmt::format("this command plans {} points that differ from the run's {} "
                                 "(benchmarks, axis values or measurement settings changed)",
                                 this_plan["points"].dump(),
                                 recorded_plan->value("points", nlohmann::json()).dump()),
                     where, again);
  id_ = {text(run_field::kRun), host, rank, dir};
  if (id_.run_id.empty())
    throw InputError("run.json has no run id", where, "start a new run");

  // Axis names per key, to match records that carry params but no axes.
  std::map<std::string, std::vector<std::string>> axis_names;
  for (const auto &item : plan.items) {
    auto &names = axis_names[std::string(item.benchmark->key())];
    for (const auto &axis : item.benchmark->axes())
      names.push_back(axis.name);
    for (const auto &point : item.points)
      planned_.push_back(point_identity(item.benchmark->key(), point.params()));
  }

  const std::string records_path = (fs::path(dir) / "records.jsonl").string();
  if (!fs::exists(records_path)) { // killed before its first record
    refuse_if_complete(text(run_field::kStatus), where);
    return;
  }
  if (const auto removed = drop_partial_last_line(records_path))
    notes_.push_back(fmt::format("{}: removed an incomplete last line ({} bytes, a write that "
                                 "never finished); its point runs again",
                                 records_path, removed));
  auto read = read_records(records_path);
  notes_.insert(notes_.end(), read.problems.begin(), read.problems.end());
  for (const auto &r : read.records) {
    if (r.run != id_.run_id || r.rank != rank) {
      notes_.push_back(
          fmt::format("{}: a record of run {} rank {} ignored", records_path, r.run, r.rank));
      continue;
    }
    nlohmann::json axes = r.axes;
    if (!axes.is_object()) {
      const auto names = axis_names.find(r.key);
      if (names == axis_names.end())
        continue; // not a benchmark of this plan
      axes = nlohmann::json::object();
      for (const auto &name : names->second)
        if (r.params.contains(name))
          axes[name] = r.params[name];
    }
    // A point a signal stopped was not measured: it runs again, as a point never started.
    const bool interrupted =
        r.status == Status::error && r.reason && r.reason->rfind(run_field::kInterruptedReasonPrefix, 0) == 0;
    if (interrupted)
      last_status_.erase(point_identity(r.key, axes));
    else
      last_status_[point_identity(r.key, axes)] = r.status;
  }
  refuse_if_complete(text(run_field::kStatus), where);
}

void ResumeState::refuse_if_complete(const std::string &status, const std::string &where) {
  if (status != run_field::kComplete || options_.force)
    return;
  // An older railgauge marked a run complete when a lost peer had stopped it early: such a run
  // resumes like any run cut short.
  const auto never_ran = std::count_if(planned_.begin(), planned_.end(),
                                       [&](const auto &id) { return !last_status_.count(id); });
  if (never_ran == 0)
    throw InputError("the run is complete: there is nothing to resume", where,
                     "start a new run without --resume, or add --force (with --retry-errors to "
                     "run its error points again)");
  notes_.push_back(fmt::format("run.json says complete, but {} of its {} planned points have no "
                               "record (the run was cut short): they run now",
                               never_ran, planned_.size()));
}

bool ResumeState::skips(const std::string &identity) const {
  const auto it = last_status_.find(identity);
  if (it == last_status_.end() || (it->second == Status::error && options_.retry_errors))
    return false;
  return !agreed_ || agreed_->count(identity);
}

bool ResumeState::skip(std::string_view key, const Point &point) const {
  return skips(point_identity(key, point.params()));
}

std::vector<std::string> ResumeState::skipped_identities() const {
  std::vector<std::string> out;
  for (const auto &identity : planned_)
    if (skips(identity))
      out.push_back(identity);
  return out;
}

void ResumeState::agree_with_other_ranks(Store &store, int world_size, Milliseconds timeout) {
  const auto mine = skipped_identities();
  const auto all = store_all_gather(store, "railgauge/resume/skipped", id_.rank, world_size,
                                    nlohmann::json(mine).dump(), timeout);
  // How many ranks skip each point; each rank lists a point once. A rank's list that does not
  // parse (another version) counts as skipping nothing.
  std::map<std::string, int> ranks_skipping;
  for (const auto &text : all) {
    const auto j = nlohmann::json::parse(text, nullptr, false);
    if (j.is_array())
      for (const auto &e : j)
        if (e.is_string())
          ++ranks_skipping[e.get<std::string>()];
  }
  agreed_.emplace();
  for (const auto &[identity, ranks] : ranks_skipping)
    if (ranks == world_size)
      agreed_->insert(identity);
  if (const std::size_t agreed = skipped_identities().size(); agreed < mine.size())
    notes_.push_back(fmt::format("{} of the {} points this rank has done run again: another rank "
                                 "has not done them",
                                 mine.size() - agreed, mine.size()));
}

std::map<std::string, int> ResumeState::kept_counts() const {
  std::map<std::string, int> counts;
  for (const auto &identity : planned_)
    if (skips(identity))
      ++counts[std::string(to_string(last_status_.at(identity)))];
  return counts;
}

std::string resume_directory(const std::string &given, int rank) {
  const fs::path mine = fs::path(given) / fmt::format("rank-{:05d}", rank);
  std::error_code ec;
  if (!fs::exists(fs::path(given) / "run.json", ec) && fs::is_directory(mine, ec))
    return mine.string();
  return given;
}

std::size_t ResumeState::skipped_points() const {
  std::size_t n = 0;
  for (const auto &[status, count] : kept_counts())
    n += std::size_t(count);
  return n;
}

void mark_resumed(Manifest &manifest, const std::vector<std::string> &argv,
                  const ResumeState &state, std::size_t points_planned) {
  auto &data = manifest.data();
  if (!data.contains(run_field::kResumes) || !data[run_field::kResumes].is_array())
    data[run_field::kResumes] = nlohmann::json::array();
  data[run_field::kResumes].push_back(
      {{run_field::kStartUtc, utc_timestamp_now()},
       {run_field::kArgv, argv},
       {run_field::kPreviousStatus, data.value(run_field::kStatus, nlohmann::json())},
       {run_field::kPointsSkipped, state.skipped_points()},
       {run_field::kPointsToRun, points_planned - state.skipped_points()}});
  data[run_field::kStatus] = run_field::kRunning;
  data[run_field::kEndUtc] = nullptr;
  data.erase(run_field::kFailure);
  data.erase(run_field::kRefused);
  data.erase(run_field::kLostRanks); // of the run resumed: this one names its own, if any
}

} // namespace railgauge
