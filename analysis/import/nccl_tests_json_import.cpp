// The JSON nccl-tests writes with -J (src/util.cu there, format version 3): a top-level object
// with version, start_time, args (argv), env ("K=V" strings), nccl_version (an integer code),
// config (with devices: rank, group, pid, hostname, device, device_hex, device_info), results
// (per size: size, count, type, redop, root as a padded string, then out_of_place and in_place,
// each {time or cpu_time (us), alg_bw, bus_bw, nwrong or null} or null, and with -I 1
// <half>_per_iter {skipped_iterations, times_us, per_process_max_times_us, ...}),
// out_of_bounds, average_bus_bandwidth, errors and end_time. Booleans are the strings "true" and
// "false", a NaN is the string "nan", and an infinity is a bare `inf`, which is not JSON.
#include <string_view>

#include <fmt/format.h>

#include "analysis/import/nccl_tests_import.h"
#include "harness/bounded_input.h"
#include "harness/error.h"
#include "harness/json_integer.h"
#include "harness/lockstep.h"
#include "harness/metric_names.h"
#include "harness/number_text.h"
#include "harness/stats.h"
#include "records/peer_record.h"

namespace railgauge::importers {
namespace {

using collectives::record::kEnvPrefix;

constexpr const char *kFix = "give the file an nccl-tests *_perf binary wrote with -J, unmodified";

// Reads typed fields and names the one that is wrong: "file.json: results[2].in_place.time".
class Fields {
public:
  explicit Fields(std::string where) : where_(std::move(where)) {}

  [[noreturn]] void fail(const std::string &path, const std::string &what) const {
    throw InputError(what, fmt::format("{}: {}", where_, path), kFix);
  }
  const nlohmann::json &member(const nlohmann::json &object, const std::string &path,
                               const char *key) const {
    if (!object.is_object() || !object.contains(key))
      fail(path, fmt::format("'{}' is missing", key));
    return object[key];
  }
  double number(const nlohmann::json &j, const std::string &path) const {
    if (!j.is_number())
      fail(path, fmt::format("{} is not a number{}", j.dump(),
                             j == "nan" ? " (nccl-tests measured a NaN)" : ""));
    return j.get<double>();
  }
  std::int64_t count(const nlohmann::json &j, const std::string &path) const {
    const auto v = json_integer<std::int64_t>(j);
    if (!v || *v < 0)
      fail(path, fmt::format("{} is not a whole number from 0", j.dump()));
    return *v;
  }
  std::string text(const nlohmann::json &j, const std::string &path) const {
    if (!j.is_string())
      fail(path, fmt::format("{} is not a string", j.dump()));
    return j.get<std::string>();
  }

private:
  std::string where_;
};

// NCCL_VERSION_CODE: major*10000 + minor*100 + patch since 2.9, major*1000 + minor*100 + patch
// before.
std::string nccl_version_text(std::int64_t code) {
  if (code >= 10000)
    return fmt::format("{}.{}.{}", code / 10000, (code / 100) % 100, code % 100);
  return fmt::format("{}.{}.{}", code / 1000, (code / 100) % 10, code % 100);
}

// -I 1: per-iteration CUDA-event times, max over processes, into metrics.time_s; with several
// processes, the one slowest most often is named as railgauge's lockstep sampler names a rank.
void add_per_iteration(const Fields &f, const nlohmann::json &per_iter, const std::string &path,
                       nlohmann::json &metrics) {
  const auto skip =
      f.count(f.member(per_iter, path, "skipped_iterations"), path + ".skipped_iterations");
  const auto seconds = [&](const nlohmann::json &list, const std::string &where) {
    if (!list.is_array())
      f.fail(where, "is not a list of times");
    if (static_cast<std::int64_t>(list.size()) <= skip)
      f.fail(where, fmt::format("has {} times, not more than the {} skipped", list.size(), skip));
    std::vector<double> s;
    for (std::size_t i = static_cast<std::size_t>(skip); i < list.size(); ++i)
      s.push_back(f.number(list[i], fmt::format("{}[{}]", where, i)) * 1e-6);
    return s;
  };
  const std::vector<double> max_s =
      seconds(f.member(per_iter, path, "times_us"), path + ".times_us");
  metrics[metric::kTimeS] = to_json(summarize(max_s));
  metrics[metric::kIterations] = max_s.size();
  metrics[metric::kTimer] = "nccl-tests per-iteration CUDA events (-I 1), max over processes; the "
                            "mean over iterations is by the host clock";
  const std::string rows_path = path + ".per_process_max_times_us";
  if (!per_iter.contains("per_process_max_times_us"))
    return;
  const auto &rows = per_iter["per_process_max_times_us"];
  if (!rows.is_array())
    f.fail(rows_path, "is not a list of per-process lists");
  std::vector<std::vector<double>> by_process;
  for (std::size_t p = 0; p < rows.size(); ++p) {
    by_process.push_back(seconds(rows[p], fmt::format("{}[{}]", rows_path, p)));
    if (by_process.back().size() != max_s.size())
      f.fail(rows_path, fmt::format("process {} has {} times, times_us has {}", p,
                                    by_process.back().size() + static_cast<std::size_t>(skip),
                                    max_s.size() + static_cast<std::size_t>(skip)));
  }
  if (by_process.size() < 2)
    return;
  const auto lockstep = summarize_lockstep(by_process, {}, 0);
  namespace c = collectives::record;
  metrics[c::kProcesses] = by_process.size();
  metrics[c::kSlowestProcess] = lockstep.slowest_rank;
  metrics[c::kSlowestProcessShare] = lockstep.slowest_share;
}

nlohmann::json parse_document(const std::string &text, const std::string &where) {
  try {
    return parse_bounded_json(text, where, kFix);
  } catch (const nlohmann::json::exception &e) { // parse_error, or out_of_range for 1E800
    throw InputError(fmt::format("not JSON: {}", e.what()), where,
                     std::string(kFix) +
                         " (nccl-tests writes an infinite time or bandwidth as a bare inf, "
                         "which no JSON reader accepts)");
  }
}

// The command line nccl-tests ran, into `about`; the collective its binary's name says where
// `kind` names none.
void read_args(const Fields &f, const nlohmann::json &doc, std::optional<Kind> &kind,
               NcclTestsImport &out) {
  if (!doc.contains("args"))
    return;
  const auto &args = doc["args"];
  if (!args.is_array())
    f.fail("args", "is not a list");
  std::vector<std::string> argv;
  for (std::size_t i = 0; i < args.size(); ++i)
    argv.push_back(f.text(args[i], fmt::format("args[{}]", i)));
  out.about["argv"] = argv;
  if (!kind && !argv.empty())
    kind = kind_of_binary(argv.front());
}

// The NCCL version and the NCCL settings of the environment: metrics every record shares.
nlohmann::json shared_metrics(const Fields &f, const nlohmann::json &doc) {
  nlohmann::json common = nlohmann::json::object();
  if (doc.contains("nccl_version"))
    common[collectives::record::kNcclVersion] =
        nccl_version_text(f.count(doc["nccl_version"], "nccl_version"));
  if (doc.contains("env")) {
    const auto &env = doc["env"];
    if (!env.is_array())
      f.fail("env", "is not a list");
    for (std::size_t i = 0; i < env.size(); ++i) {
      const std::string kv = f.text(env[i], fmt::format("env[{}]", i));
      for (std::string_view var :
           {"NCCL_ALGO", "NCCL_PROTO", "NCCL_NVLS_ENABLE", "NCCL_COLLNET_ENABLE"})
        if (kv.starts_with(var) && kv.size() > var.size() && kv[var.size()] == '=')
          common[fmt::format("{}{}", kEnvPrefix, var)] = kv.substr(var.size() + 1);
    }
  }
  return common;
}

// config.devices as the text form's rank lines, so that both forms describe ranks alike.
void read_devices(const Fields &f, const nlohmann::json &doc, NcclTestsImport &out) {
  if (!doc.contains("config") || !doc["config"].is_object() || !doc["config"].contains("devices"))
    return;
  const auto &devices = doc["config"]["devices"];
  for (std::size_t i = 0; devices.is_array() && i < devices.size(); ++i) {
    const std::string path = fmt::format("config.devices[{}]", i);
    const auto &d = devices[i];
    out.ranks.push_back(
        fmt::format("Rank {} Group {} Pid {} on {} device {} [{}] {}",
                    f.count(f.member(d, path, "rank"), path + ".rank"),
                    f.count(f.member(d, path, "group"), path + ".group"),
                    f.count(f.member(d, path, "pid"), path + ".pid"),
                    f.text(f.member(d, path, "hostname"), path + ".hostname"),
                    f.count(f.member(d, path, "device"), path + ".device"),
                    f.text(f.member(d, path, "device_hex"), path + ".device_hex"),
                    f.text(f.member(d, path, "device_info"), path + ".device_info")));
  }
}

// One half of results[i] (out of place or in place) as a record.
Record half_record(const Fields &f, const nlohmann::json &row, const std::string &row_path,
                   bool in_place, Kind kind, const nlohmann::json &common, bool check_off,
                   const std::string &run, const std::string &host) {
  const auto field = [&](const char *key) -> const nlohmann::json & {
    return f.member(row, row_path, key);
  };
  const char *name = in_place ? "in_place" : "out_of_place";
  const std::string path = row_path + "." + name;
  const auto &h = field(name);
  NcclTestsHalf half{.size_bytes = f.count(field("size"), row_path + ".size"),
                     .count = f.count(field("count"), row_path + ".count"),
                     .type = f.text(field("type"), row_path + ".type"),
                     .redop = f.text(field("redop"), row_path + ".redop"),
                     .root = std::string(trimmed(f.text(field("root"), row_path + ".root"))),
                     .in_place = in_place,
                     .wrong = std::nullopt,
                     .check_off = check_off,
                     .max_error = std::nullopt,
                     .max_error_bound = std::nullopt};
  const bool cpu_time = h.is_object() && h.contains("cpu_time");
  const char *time_key = cpu_time ? "cpu_time" : "time";
  half.time_us = f.number(f.member(h, path, time_key), path + "." + time_key);
  half.algbw_gbytes_per_s = f.number(f.member(h, path, "alg_bw"), path + ".alg_bw");
  half.busbw_gbytes_per_s = f.number(f.member(h, path, "bus_bw"), path + ".bus_bw");
  if (const auto &wrong = f.member(h, path, "nwrong"); !wrong.is_null())
    half.wrong = f.number(wrong, path + ".nwrong");
  half.cpu_time = cpu_time;
  Record r = nccl_tests_record(half, kind, run, host);
  r.params[peer::record::kSourceFormat] = "json";
  r.metrics.update(common);
  const std::string per_iter_key = std::string(name) + "_per_iter";
  if (row.contains(per_iter_key))
    add_per_iteration(f, row[per_iter_key], row_path + "." + per_iter_key, r.metrics);
  return r;
}

} // namespace

std::optional<Kind> kind_of_binary(std::string_view argv0) {
  if (const auto slash = argv0.rfind('/'); slash != std::string_view::npos)
    argv0.remove_prefix(slash + 1);
  if (!argv0.ends_with("_perf"))
    return std::nullopt;
  argv0.remove_suffix(5);
  return parse_kind(argv0);
}

NcclTestsImport import_nccl_tests_json(const std::string &text, const std::string &where,
                                       std::optional<Kind> kind, const std::string &run,
                                       const std::string &host) {
  const nlohmann::json doc = parse_document(text, where);
  const Fields f(where);
  if (!doc.is_object())
    f.fail("(top level)", "is not an object");
  NcclTestsImport out;
  out.about["json_version"] = f.count(f.member(doc, "(top level)", "version"), "version");
  read_args(f, doc, kind, out);
  if (!kind)
    throw InputError("cannot tell which collective this nccl-tests JSON measured", where,
                     "pass the collective (e.g. all_reduce): args[0] is not a <kind>_perf binary");
  out.kind = kind;
  const nlohmann::json common = shared_metrics(f, doc);
  for (const char *key : {"start_time", "end_time", "config", "out_of_bounds", "errors"})
    if (doc.contains(key))
      out.about[key] = doc[key];
  read_devices(f, doc, out);
  if (doc.contains("average_bus_bandwidth"))
    out.avg_busbw_gbytes_per_s =
        f.number(f.member(doc["average_bus_bandwidth"], "average_bus_bandwidth", "bandwidth"),
                 "average_bus_bandwidth.bandwidth");

  // nccl-tests writes the config first and each size's results as it measures them; a run that
  // failed before its first size leaves a file with no results at all.
  if (!doc.contains("results") && doc.contains("config")) {
    out.failures.push_back(fmt::format(
        "{}: the file ends after its config, with no results: nccl-tests stopped before its "
        "first size (its standard output names the failure)",
        where));
    return out;
  }
  // -c 0: config.validation 0, as the text form's header says "validation: 0".
  const bool check_off = doc.contains("config") && doc["config"].is_object() &&
                         doc["config"].value("validation", nlohmann::json(1)) == 0;
  const auto &results = f.member(doc, "(top level)", "results");
  if (!results.is_array())
    f.fail("results", "is not a list");
  for (std::size_t i = 0; i < results.size(); ++i) {
    const std::string row_path = fmt::format("results[{}]", i);
    for (const bool in_place : {false, true}) {
      // A half that is null ran not at all (trace replay runs in place only).
      if (!f.member(results[i], row_path, in_place ? "in_place" : "out_of_place").is_null())
        out.records.push_back(
            half_record(f, results[i], row_path, in_place, *kind, common, check_off, run, host));
    }
  }
  add_rank_layout(out.records, out.ranks);
  out.record_count = out.records.size();
  return out;
}

} // namespace railgauge::importers
