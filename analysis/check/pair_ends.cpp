#include "analysis/check/pair_ends.h"

#include <fmt/format.h>

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

bool charged(const Finding &f) {
  return !f.missing && f.level >= Level::warn && f.params.is_object() &&
         f.params.value(rec::kMode, "") == "ranks" && f.key.starts_with("rdma.");
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

void PairEnds::add_server_end(const std::string &run_id, const Record &r, const PartKey &part) {
  ends_[{run_id, r.key}].push_back({r.params, part});
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
    there.detail = fmt::format("the pair's point, measured from {}{}: either end or the path "
                               "between them may be at fault{}",
                               part.host, part.id.empty() ? "" : "/" + part.id,
                               f.detail.empty() ? "" : "; " + f.detail);
    return std::pair{end.part, std::move(there)};
  }
  return std::nullopt;
}

} // namespace railgauge::check
