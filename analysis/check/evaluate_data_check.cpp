// The built-in rule `data-check` (evaluate.h): a node whose ok records show no data check that
// passed. `railgauge run --no-verify` writes metrics.verified false and nothing else tells: a
// profile that reads no verified metric passed such a burn-in although a GPU returning wrong
// results would have passed it too. So did a burn record that says nothing of its check (edited,
// or written by another tool) and a GEMM burn whose fp64 reference compared nothing.
#include <algorithm>
#include <array>
#include <map>
#include <optional>
#include <string>

#include <fmt/format.h>

#include "analysis/check/evaluate.h"
#include "analysis/check/evaluator.h"
#include "analysis/check/selection_cache.h"
#include "harness/metric_names.h"
#include "records/gemm_record.h"
#include "records/memory_record.h"
#include "records/offload_record.h"
#include "records/per_gpu_parts.h"

namespace railgauge::check {

namespace {

constexpr const char *kDataCheckOff =
    "ran with the data check off (metrics.verified false, as --no-verify leaves it)";

// The burn-in's own phases. (Its all_reduce always checks too, but its key is every NCCL
// all_reduce's, and records of other tools' making that lack verified are judged by their rules.)
constexpr std::array kChecksAlways{gemm::record::kBurn,          memory::record::kHbmBurn,
                                   memory::record::kHbmPattern,  memory::record::kPeerCopy,
                                   offload::record::kAllGpusH2d, offload::record::kAllGpusD2h};

// The first GPU of a GEMM burn whose fp64 reference check compared no element, as a reason.
std::optional<std::string> reference_checked_nothing(const nlohmann::json &metrics) {
  const auto gpus = metrics.find(gemm::record::kGpus);
  if (gpus == metrics.end() || !gpus->is_array())
    return std::nullopt;
  for (const auto &g : *gpus) {
    const auto checked = g.is_object() ? g.find(gemm::record::kBurnReferenceCheckedElements)
                                       : nlohmann::json::const_iterator{};
    if (g.is_object() && checked != g.end() && checked->is_number() && checked->get<double>() > 0)
      continue;
    return fmt::format("GPU {} compared no element against the fp64 reference ({} {})",
                       g.is_object() ? g.value("index", nlohmann::json(nullptr)).dump() : "?",
                       gemm::record::kBurnReferenceCheckedElements,
                       g.is_object() && checked != g.end() ? checked->dump() : "absent");
  }
  return std::nullopt;
}

// An ok record of railgauge's that counts wrong results: the record contradicts itself (edited,
// or a check that counted and did not fail), and a GPU returning wrong results passed.
std::optional<std::string> wrong_results_counted(const nlohmann::json &metrics) {
  if (const auto top = records::wrong_data_count(metrics))
    return fmt::format("counts {} and is ok: the record contradicts itself", *top);
  for (const char *list : {gemm::record::kGpus, metric::kPerGpu}) {
    const auto gpus = metrics.find(list);
    if (gpus == metrics.end() || !gpus->is_array())
      continue;
    for (const auto &g : *gpus)
      if (const auto count = records::wrong_data_count(g))
        return fmt::format("GPU {} counts {} and the record is ok: the record contradicts itself",
                           g.value("index", g.value("gpu", nlohmann::json(nullptr))).dump(),
                           *count);
  }
  return std::nullopt;
}

} // namespace

bool checks_always(const std::string &key) {
  return std::find(kChecksAlways.begin(), kChecksAlways.end(), key) != kChecksAlways.end();
}

std::optional<std::string> data_check_unshown(const Record &r, bool imported) {
  const nlohmann::json &metrics = r.metrics;
  const std::string &key = r.key;
  if (!metrics.is_object())
    return std::nullopt; // a record without metrics is judged unreadable by its rules
  if (r.params.is_object() && r.params.value(records::kPartParam, "") == records::kPerGpuPart)
    return std::nullopt; // a GPU's part, which a fleet history stores beside its whole record
  const auto it = metrics.find(metric::kVerified);
  if (it != metrics.end() && it->is_boolean() && !it->get<bool>())
    return std::string(kDataCheckOff);
  if (imported)
    return std::nullopt;
  if (auto wrong = wrong_results_counted(metrics))
    return wrong;
  if (!checks_always(key))
    return std::nullopt;
  if (it == metrics.end() || !it->is_boolean())
    return fmt::format("carries no metrics.verified{}, which {} always writes",
                       it == metrics.end() ? "" : " as a boolean (" + it->dump() + ")", key);
  if (key == gemm::record::kBurn)
    return reference_checked_nothing(metrics);
  return std::nullopt;
}

void UnverifiedRecords::add(const std::string &key, const std::string &why, bool imported) {
  all_off = all_off && why == kDataCheckOff;
  all_imported = all_imported && imported;
  if (records++ == 0) {
    first = key;
    first_why = why;
  }
}

Finding data_check_off_finding(Level level, const UnverifiedRecords &u) {
  const std::size_t records = u.records;
  const char *them = records == 1 ? "it" : "them";
  // Another tool's run without its data check is a fabric measured, not a node found faulty: not
  // a pass, never a drain (a burn-in profile fails railgauge's own at unverified_records: fail).
  if (u.all_off && u.all_imported)
    return built_in_missing(
        kDataCheckRule, std::min(level, Level::warn), "records of this node",
        fmt::format("{} ok imported record{} ran with the data check off (metrics.verified "
                    "false: nccl-tests' header says 'validation: 0', its -c 0; {} the first): a "
                    "wrong result would not have failed {}; run nccl-tests with -c 1, its "
                    "default",
                    records, records == 1 ? "" : "s", u.first, them));
  if (u.all_off)
    return built_in_missing(
        kDataCheckRule, level, "records of this node",
        fmt::format("{} ok record{} ran with the data check off (metrics.verified false, as "
                    "--no-verify leaves it; {} the first): a wrong result would not have failed "
                    "{}; run without --no-verify",
                    records, records == 1 ? "" : "s", u.first, them));
  return built_in_missing(
      kDataCheckRule, level, "records of this node",
      fmt::format("{} ok record{} show{} no data check that passed (the first, {}: {}): a wrong "
                  "result would not have failed {}; run the burn-in again with this build, "
                  "without --no-verify",
                  records, records == 1 ? "" : "s", records == 1 ? "s" : "", u.first, u.first_why,
                  them));
}

void Evaluator::data_check_rule() {
  if (rules_.unverified_records == Level::info)
    return; // a profile that says so: a run without data checks is what it asked for
  std::map<std::string, UnverifiedRecords> by_host;
  for (const auto &run : runs_.runs) {
    const bool imported = is_imported(run);
    for (const auto &r : run.records)
      if (r.status == Status::ok)
        if (const auto why = data_check_unshown(r, imported))
          by_host[r.host].add(r.key, *why, imported);
  }
  if (by_host.empty())
    return;
  result_.rule_categories[kDataCheckRule] = "health";
  for (const auto &[host, u] : by_host)
    ledger_.add_finding(PartKey{host, PartKind::node, ""},
                        data_check_off_finding(rules_.unverified_records, u));
}

} // namespace railgauge::check
