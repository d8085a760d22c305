#include "rdma/pair_report.h"

#include <algorithm>
#include <cmath>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "harness/error.h"

namespace railgauge::rdma {
namespace {

// The fields of one pair's report, as a rank sends it over the store (never a record's): the
// measurer's endpoints a and b, its figures and why it failed. The matrix's record names its
// own (record::kMatrix* in records/rdma_record.h).
constexpr const char *kWireA = "a";
constexpr const char *kWireB = "b";
constexpr const char *kWireLatencyS = "latency_s";
constexpr const char *kWireBandwidthGbitsPerS = "bandwidth_gbits_per_s";
constexpr const char *kWireError = "error";

} // namespace

std::string encode_pair_reports(const std::vector<PairReport> &reports) {
  nlohmann::json list = nlohmann::json::array();
  for (const PairReport &report : reports) {
    nlohmann::json j = {{kWireA, report.result.pair.first},
                        {kWireB, report.result.pair.second},
                        {kWireLatencyS, report.result.latency_s},
                        {kWireBandwidthGbitsPerS, report.result.bandwidth_gbits_per_s}};
    if (!report.error.empty())
      j[kWireError] = report.error;
    list.push_back(std::move(j));
  }
  // An error text quotes the OS or the peer: invalid UTF-8 is replaced, never thrown.
  return list.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

namespace {

PairReport decode_one(const nlohmann::json &j, int from_rank, const Round &round,
                      const std::vector<int> &owner_rank, const auto &malformed) {
  if (!j.is_object())
    throw malformed(fmt::format("{} is not an object", j.dump().substr(0, 200)));
  const auto endpoint_field = [&](const char *name) {
    if (!j.contains(name) || !j.at(name).is_number_integer())
      throw malformed(fmt::format("'{}' is missing or not an endpoint", name));
    return j.at(name).get<std::int64_t>();
  };
  const auto figure = [&](const char *name) {
    if (!j.contains(name) || !j.at(name).is_number())
      throw malformed(fmt::format("'{}' is missing or not a number", name));
    const double v = j.at(name).get<double>();
    if (!std::isfinite(v) || v < 0)
      throw malformed(fmt::format("'{}' is {}, not a non-negative figure", name, v));
    return v;
  };
  const std::int64_t a = endpoint_field(kWireA), b = endpoint_field(kWireB);
  const auto in_round = std::find_if(round.begin(), round.end(), [&](const EndpointPair &p) {
    return p.first == a && p.second == b;
  });
  if (in_round == round.end())
    throw malformed(fmt::format("the pair {}-{} is not one of this round's", a, b));
  const int measurer = owner_rank.at(static_cast<std::size_t>(in_round->second));
  if (measurer != from_rank)
    throw malformed(
        fmt::format("the pair {}-{} is measured by rank {}, not by the sender", a, b, measurer));
  PairReport report;
  report.result = {*in_round, figure(kWireLatencyS), figure(kWireBandwidthGbitsPerS)};
  if (j.contains(kWireError)) {
    if (!j.at(kWireError).is_string())
      throw malformed("'error' is not a text");
    report.error = j.at(kWireError).get<std::string>();
  }
  return report;
}

} // namespace

std::vector<PairReport> decode_pair_reports(const std::string &text, int from_rank,
                                            const Round &round,
                                            const std::vector<int> &owner_rank) {
  const auto malformed = [&](const std::string &why) {
    return BackendError(
        fmt::format("rank {} sent a malformed pair matrix report: {}", from_rank, why));
  };
  for (const auto &[a, b] : round)
    if (a < 0 || b < 0 || static_cast<std::size_t>(std::max(a, b)) >= owner_rank.size())
      throw std::logic_error(
          fmt::format("pair {}-{} outside the {} endpoints", a, b, owner_rank.size()));
  const auto j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded())
    throw malformed(fmt::format("not JSON: '{}'", text.substr(0, 200)));
  if (!j.is_array())
    throw malformed(fmt::format("{} is not a list of reports", j.dump().substr(0, 200)));
  std::vector<PairReport> reports;
  std::set<EndpointPair> seen;
  for (const auto &item : j) {
    reports.push_back(decode_one(item, from_rank, round, owner_rank, malformed));
    if (!seen.insert(reports.back().result.pair).second)
      throw malformed(fmt::format("the pair {}-{} is reported twice",
                                  reports.back().result.pair.first,
                                  reports.back().result.pair.second));
  }
  return reports;
}

} // namespace railgauge::rdma
