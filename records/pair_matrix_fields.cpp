#include "records/pair_matrix_fields.h"

#include <algorithm>
#include <string_view>

#include "harness/record_fields.h"
#include "records/rdma_record.h"

namespace railgauge::rdma::record {
namespace {

namespace f = record_fields;
using json = nlohmann::json;

json endpoints_json(const std::pair<MatrixEndpointIndex, MatrixEndpointIndex> &e) {
  return json::array({e.first, e.second});
}

// entry[kMatrixEndpoints] as a list of integers; nullopt where it is absent or holds another value.
std::optional<std::vector<MatrixEndpointIndex>> endpoint_list(const json &entry) {
  const auto *list = f::field(entry, kMatrixEndpoints);
  if (!list || !list->is_array())
    return std::nullopt;
  std::vector<MatrixEndpointIndex> out;
  for (const auto &e : *list) {
    if (!e.is_number_integer())
      return std::nullopt;
    out.push_back(e.get<MatrixEndpointIndex>());
  }
  return out;
}

std::optional<std::pair<MatrixEndpointIndex, MatrixEndpointIndex>> endpoint_pair(const json &e) {
  const auto list = endpoint_list(e);
  if (!list || list->size() != 2)
    return std::nullopt;
  return std::pair{(*list)[0], (*list)[1]};
}

std::vector<std::string> texts(const json &entry, const char *name) {
  std::vector<std::string> out;
  if (const auto *list = f::field(entry, name); list && list->is_array())
    for (const auto &t : *list)
      if (t.is_string())
        out.push_back(t.get<std::string>());
  return out;
}

// A pair's error: its text, or what it holds when that is not one (a pair with any error field
// was not measured).
std::optional<std::string> error_of(const json &pair) {
  const auto *error = f::field(pair, kMatrixError);
  if (!error)
    return std::nullopt;
  return error->is_string() ? error->get<std::string>() : error->dump();
}

json pairs_json(const std::vector<MatrixPairFields> &pairs) {
  json list = json::array();
  for (const auto &p : pairs) {
    json j = {{kMatrixEndpoints, endpoints_json(p.endpoints)}};
    if (p.latency_p50_s)
      j[kMatrixLatencyP50S] = *p.latency_p50_s;
    if (p.bandwidth_gbits_per_s)
      j[kBandwidthGbitsPerS] = *p.bandwidth_gbits_per_s;
    if (p.error)
      j[kMatrixError] = *p.error;
    list.push_back(std::move(j));
  }
  return list;
}

std::vector<MatrixPairFields> read_pairs(const json &metrics, const char *name) {
  std::vector<MatrixPairFields> out;
  if (const auto *list = f::field(metrics, name); list && list->is_array())
    for (const auto &p : *list)
      if (const auto ends = endpoint_pair(p))
        out.push_back({*ends, f::number(p, kMatrixLatencyP50S), f::number(p, kBandwidthGbitsPerS),
                       error_of(p)});
  return out;
}

json endpoint_json(const MatrixEndpointFields &e) {
  json j = {{kMatrixEndpoint, e.endpoint},
            {kMatrixRank, e.rank},
            {kMatrixNode, e.node},
            {kMatrixRail, e.rail}};
  if (e.label)
    j[kMatrixLabel] = *e.label;
  if (e.host)
    j[kMatrixHost] = *e.host;
  if (e.device)
    j[kMatrixDevice] = *e.device;
  return j;
}

MatrixEndpointFields read_endpoint(const json &e) {
  return {f::integer(e, kMatrixEndpoint).value_or(0),
          f::integer(e, kMatrixRank).value_or(0),
          f::integer(e, kMatrixNode).value_or(0),
          f::integer(e, kMatrixRail).value_or(0),
          f::text(e, kMatrixLabel),
          f::text(e, kMatrixHost),
          f::text(e, kMatrixDevice)};
}

} // namespace

EndpointPlace place_of(const MatrixEndpointFields &e) {
  EndpointPlace place{e.host, e.device};
  if (place.host || !e.label)
    return place;
  std::string_view label = *e.label;
  const auto slash = label.rfind('/');
  // A host name holds no '/', nor a device name: the last one parts them.
  if (slash != std::string_view::npos && !place.device)
    place.device = std::string(label.substr(slash + 1));
  std::string_view where = label.substr(0, slash);
  if (where.starts_with("rank ")) {
    const auto open = where.find(" ("), close = where.rfind(')');
    if (open == std::string_view::npos || close == std::string_view::npos || close < open + 2)
      return place;
    where = where.substr(open + 2, close - open - 2);
  }
  if (!where.empty())
    place.host = std::string(where);
  return place;
}

void PairMatrixFields::write(json &metrics) const {
  json endpoints_j = json::array(), bad_j = json::array(), findings_j = json::array();
  for (const auto &e : endpoints)
    endpoints_j.push_back(endpoint_json(e));
  for (const auto &b : bad_pairs)
    bad_j.push_back({{kMatrixEndpoints, endpoints_json(b.endpoints)},
                     {kMatrixLabels, b.labels},
                     {kMatrixWhy, b.why}});
  for (const auto &x : findings)
    findings_j.push_back({{kMatrixFindingKind, x.kind},
                          {kMatrixEndpoints, x.endpoints},
                          {kMatrixLabels, x.labels},
                          {kMatrixFindingText, x.text}});
  metrics[kEndpoints] = std::move(endpoints_j);
  metrics[kPairing] = pairing;
  metrics[kRounds] = rounds;
  if (coverage_plan)
    metrics[kCoveragePlan] = *coverage_plan;
  if (coverage_missing)
    metrics[kCoverageMissing] = *coverage_missing;
  metrics[kPairs] = pairs_json(pairs);
  metrics[kFleetMinLatencyS] = fleet_min_latency_s;
  metrics[kFleetMaxBandwidthGbitsPerS] = fleet_max_bandwidth_gbits_per_s;
  metrics[kBadPairs] = std::move(bad_j);
  metrics[kRetests] = pairs_json(retests);
  metrics[kFindings] = std::move(findings_j);
}

std::optional<PairMatrixFields> PairMatrixFields::read(const json &metrics) {
  const auto *endpoints_j = f::field(metrics, kEndpoints);
  const auto *pairs_j = f::field(metrics, kPairs);
  if (!endpoints_j || !endpoints_j->is_array() || !pairs_j || !pairs_j->is_array())
    return std::nullopt;
  PairMatrixFields m;
  for (const auto &e : *endpoints_j)
    m.endpoints.push_back(read_endpoint(e));
  m.pairing = f::text(metrics, kPairing).value_or("");
  m.rounds = static_cast<std::uint64_t>(
      std::max<std::int64_t>(0, f::integer(metrics, kRounds).value_or(0)));
  m.coverage_plan = f::text(metrics, kCoveragePlan);
  if (f::field(metrics, kCoverageMissing))
    m.coverage_missing = texts(metrics, kCoverageMissing);
  m.pairs = read_pairs(metrics, kPairs);
  m.retests = read_pairs(metrics, kRetests);
  m.fleet_min_latency_s = f::number(metrics, kFleetMinLatencyS).value_or(0);
  m.fleet_max_bandwidth_gbits_per_s = f::number(metrics, kFleetMaxBandwidthGbitsPerS).value_or(0);
  if (const auto *bad = f::field(metrics, kBadPairs); bad && bad->is_array())
    for (const auto &b : *bad)
      if (const auto ends = endpoint_pair(b))
        m.bad_pairs.push_back(
            {*ends, texts(b, kMatrixLabels), f::text(b, kMatrixWhy).value_or("")});
  if (const auto *found = f::field(metrics, kFindings); found && found->is_array())
    for (const auto &x : *found)
      if (const auto text = f::text(x, kMatrixFindingText))
        m.findings.push_back({f::text(x, kMatrixFindingKind).value_or(""),
                              endpoint_list(x).value_or(std::vector<MatrixEndpointIndex>{}),
                              texts(x, kMatrixLabels), *text});
  return m;
}

} // namespace railgauge::rdma::record
