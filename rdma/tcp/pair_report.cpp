#include "rdma/tcp/pair_report.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "harness/error.h"

namespace railgauge::rdma {

std::string encode_pair_report(const std::optional<PairReport> &report) {
  if (!report)
    return "null";
  nlohmann::json j = {{"a", report->result.pair.first},
                      {"b", report->result.pair.second},
                      {"latency_s", report->result.latency_s},
                      {"bandwidth_gbits_per_s", report->result.bandwidth_gbits_per_s}};
  if (!report->error.empty())
    j["error"] = report->error;
  // An error text quotes the OS or the peer: invalid UTF-8 is replaced, never thrown.
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::optional<PairReport> decode_pair_report(const std::string &text, int from_rank,
                                             const Round &round) {
  const auto malformed = [&](const std::string &why) {
    return BackendError(
        fmt::format("rank {} sent a malformed pair matrix report: {}", from_rank, why));
  };
  const auto j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded())
    throw malformed(fmt::format("not JSON: '{}'", text.substr(0, 200)));
  if (j.is_null())
    return std::nullopt;
  if (!j.is_object())
    throw malformed(fmt::format("{} is neither an object nor null", j.dump()));
  const auto rank_field = [&](const char *name) {
    if (!j.contains(name) || !j.at(name).is_number_integer())
      throw malformed(fmt::format("'{}' is missing or not a rank", name));
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
  const std::int64_t a = rank_field("a"), b = rank_field("b");
  const auto in_round = std::find_if(round.begin(), round.end(), [&](const EndpointPair &p) {
    return p.first == a && p.second == b;
  });
  if (in_round == round.end())
    throw malformed(fmt::format("the pair {}-{} is not one of this round's", a, b));
  if (b != from_rank)
    throw malformed(
        fmt::format("the pair {}-{} is measured by rank {}, not by the sender", a, b, b));
  PairReport report;
  report.result = {*in_round, figure("latency_s"), figure("bandwidth_gbits_per_s")};
  if (j.contains("error")) {
    if (!j.at("error").is_string())
      throw malformed("'error' is not a text");
    report.error = j.at("error").get<std::string>();
  }
  return report;
}

} // namespace railgauge::rdma
