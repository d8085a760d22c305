#include "analysis/check/pair_ends.h"

#include <algorithm>

#include <fmt/format.h>

#include "analysis/check/evaluate.h"
#include "records/rdma_record.h"

namespace railgauge::check {

namespace {

namespace rec = rdma::record;

// Every param of the server end is the measuring end's (which adds the ones it derived).
bool same_point(const nlohmann::json &server, const nlohmann::json &measuring) {
  if (!server.is_object() || !measuring.is_object())
    return false;
  for (const auto &[name, value] : server.items())
    if (const auto it = measuring.find(name); it == measuring.end() || *it != value)
      return false;
  return true;
}

// A violation of the pair's figure or a failed measuring end; the measuring end's own port
// counters are its own NIC's (the server end's are on its own record).
bool charged(const Finding &f) {
  return !f.missing && f.level >= Level::warn && f.params.is_object() &&
         f.params.value(rec::kMode, "") == "ranks" && f.key.starts_with("rdma.") &&
         f.what.find(rec::kPortCounterDeltas) == std::string::npos;
}

} // namespace

bool is_pair_server_end(const Record &r) {
  if (!r.metrics.is_object())
    return false;
  const auto role = r.metrics.find(rec::kRole);
  return role != r.metrics.end() && role->is_string() && *role == rec::kRoleServer;
}

bool pair_figure_on_server_end(const Record &r, const std::string &metric) {
  const std::string counters = fmt::format("metrics.{}", rec::kPortCounterDeltas);
  return is_pair_server_end(r) && !metric.starts_with(counters);
}

std::string pair_server_end_detail() {
  return "the server end of a pair's point holds no figure: the pair's figure is on its measuring "
         "end's record, judged there and charged to both ends";
}

bool is_pair_measuring_end(const Record &r) {
  return r.key.starts_with("rdma.") && r.params.is_object() &&
         r.params.value(rec::kMode, "") == "ranks" && !is_pair_server_end(r);
}

void PairEnds::add_server_end(const std::string &run_id, const std::string &dir, const Record &r,
                              const PartKey &part) {
  ends_[{run_id, r.key}].push_back({r.params, part, dir});
}

void PairEnds::add_measuring_end(const std::string &run_id, const Record &r) {
  measured_[{run_id, r.key}].push_back(r.params);
}

std::vector<std::pair<PartKey, Finding>> PairEnds::unmeasured_server_ends() const {
  std::vector<std::pair<PartKey, Finding>> out;
  for (const auto &[at, ends] : ends_)
    for (const auto &end : ends) {
      const auto measured = measured_.find(at);
      if (measured != measured_.end() &&
          std::any_of(measured->second.begin(), measured->second.end(),
                      [&](const nlohmann::json &p) { return same_point(end.params, p); }))
        continue;
      Finding f = built_in_missing(kRecordStatusRule, Level::fail, "status",
                                   "the measuring end of this pair's point (rank 0) left no "
                                   "record of it: the pair was not measured");
      f.category = "nic";
      f.key = at.second;
      f.params = end.params;
      f.run = end.dir;
      out.emplace_back(end.part, std::move(f));
    }
  return out;
}

std::optional<std::pair<PartKey, Finding>>
PairEnds::charged_to_server_end(const std::string &run_id, const PartKey &part,
                                const Finding &f) const {
  if (!charged(f))
    return std::nullopt;
  const auto it = ends_.find({run_id, f.key});
  if (it == ends_.end())
    return std::nullopt;
  for (const auto &end : it->second) {
    if (end.part == part || !same_point(end.params, f.params))
      continue;
    Finding there = f;
    there.run = end.dir;
    there.detail = fmt::format("the pair's point, measured from {}{}: either end or the path "
                               "between them may be at fault{}",
                               part.host, part.id.empty() ? "" : "/" + part.id,
                               f.detail.empty() ? "" : "; " + f.detail);
    return std::pair{end.part, std::move(there)};
  }
  return std::nullopt;
}

} // namespace railgauge::check
