#include "rdma/fabric_load/fabric_figures.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <regex>
#include <stdexcept>

#include <fmt/format.h>

#include "harness/stats.h"
#include "records/rdma_record.h"

namespace railgauge::rdma {

double jain_fairness_index(const std::vector<double> &flows) {
  if (flows.empty())
    throw std::invalid_argument("Jain's index of no flows");
  double sum = 0, squares = 0;
  for (double x : flows) {
    if (!std::isfinite(x) || x < 0)
      throw std::invalid_argument(fmt::format("Jain's index of a flow of {}", x));
    sum += x;
    squares += x * x;
  }
  if (squares == 0)
    throw std::invalid_argument("Jain's index of flows that all moved nothing");
  return sum * sum / (static_cast<double>(flows.size()) * squares);
}

record::FlowSpreadFields flow_spread(const std::vector<double> &flows) {
  record::FlowSpreadFields s;
  s.jain = jain_fairness_index(flows);
  s.min = *std::min_element(flows.begin(), flows.end());
  s.max = *std::max_element(flows.begin(), flows.end());
  s.median = median(flows);
  double sum = 0;
  for (double x : flows)
    sum += x;
  s.sum = sum;
  s.min_over_fair_share = *s.min / (sum / static_cast<double>(flows.size()));
  s.values = flows;
  return s;
}

IncastPlan incast_plan(int world_size, int receiver) {
  if (world_size < 2)
    throw std::invalid_argument(fmt::format("an incast needs 2 ranks, not {}", world_size));
  if (receiver < 0 || receiver >= world_size)
    throw std::invalid_argument(
        fmt::format("receiver {} is not a rank of {} ranks", receiver, world_size));
  IncastPlan plan{receiver, {}};
  for (int r = 0; r < world_size; ++r)
    if (r != receiver)
      plan.senders.push_back(r);
  return plan;
}

std::uint32_t flow_label_of(int sender, int qp) {
  if (sender < 0 || sender >= 64 || qp < 0 || qp >= 255)
    throw std::invalid_argument(
        fmt::format("no flow label for sender {} QP {} (up to 64 senders of 255 QPs)", sender, qp));
  return static_cast<std::uint32_t>(sender * 256 + qp + 1);
}

std::uint16_t roce_udp_source_port(std::uint32_t flow_label) {
  std::uint32_t low = flow_label & 0x03fffu;
  const std::uint32_t high = flow_label & 0xfc000u;
  low ^= high >> 14;
  return static_cast<std::uint16_t>(low | 0xc000u);
}

std::uint32_t roce_flow_label_of_qpns(std::uint32_t local_qpn, std::uint32_t remote_qpn) {
  std::uint64_t fl = static_cast<std::uint64_t>(local_qpn) * remote_qpn;
  fl ^= fl >> 20;
  fl ^= fl >> 40;
  return static_cast<std::uint32_t>(fl & 0xfffffu);
}

std::optional<double> parse_port_rate_gbits(const std::string &text) {
  static const std::regex rate(R"(^\s*([0-9]+(\.[0-9]+)?)\s*Gb/sec)");
  std::smatch m;
  if (!std::regex_search(text, m, rate))
    return std::nullopt;
  return std::stod(m[1].str());
}

std::optional<double> read_port_rate_gbits(const std::string &sysfs_root, const std::string &device,
                                           unsigned port) {
  std::ifstream in(fmt::format("{}/class/infiniband/{}/ports/{}/rate", sysfs_root, device, port));
  std::string line;
  if (!in || !std::getline(in, line))
    return std::nullopt;
  return parse_port_rate_gbits(line);
}

namespace {

// Sums the named counters of one map that the device has; nullopt when it has none of them.
std::optional<std::int64_t> sum_present(const nlohmann::json &map,
                                        const std::vector<std::regex> &names) {
  if (!map.is_object())
    return std::nullopt;
  std::optional<std::int64_t> total;
  for (const auto &[name, value] : map.items())
    if (value.is_number_integer())
      for (const auto &re : names)
        if (std::regex_match(name, re)) {
          total = total.value_or(0) + value.get<std::int64_t>();
          break;
        }
  return total;
}

struct FigureSource {
  const char *figure;
  const char *map; // counters, hw_counters, netdev_counters
  std::vector<std::regex> names;
};

const std::vector<FigureSource> &figure_sources() {
  static const std::vector<FigureSource> sources = {
      {"pfc_pause_frames_rx", "netdev_counters", {std::regex(R"(rx_prio[0-7]_pause)")}},
      {"pfc_pause_frames_tx", "netdev_counters", {std::regex(R"(tx_prio[0-7]_pause)")}},
      {"pfc_pause_duration_rx_us",
       "netdev_counters",
       {std::regex(R"(rx_prio[0-7]_pause_duration)")}},
      {"pfc_pause_duration_tx_us",
       "netdev_counters",
       {std::regex(R"(tx_prio[0-7]_pause_duration)")}},
      {"cnp_sent", "hw_counters", {std::regex("np_cnp_sent")}},
      {"cnp_handled", "hw_counters", {std::regex("rp_cnp_handled")}},
      {"ecn_marked", "hw_counters", {std::regex("np_ecn_marked_roce_packets")}},
      {"out_of_sequence",
       "hw_counters",
       {std::regex("out_of_sequence"), std::regex("out_of_seq_request")}},
      {"retransmits",
       "hw_counters",
       {std::regex("local_ack_timeout_err"), std::regex("packet_seq_err"),
        std::regex("completer_retry_err")}},
      {"xmit_wait", "counters", {std::regex("port_xmit_wait")}},
  };
  return sources;
}

} // namespace

CongestionFigures congestion_figures(const nlohmann::json &deltas) {
  CongestionFigures f;
  for (const auto &source : figure_sources()) {
    const nlohmann::json empty = nlohmann::json::object();
    const nlohmann::json &map =
        deltas.is_object() && deltas.contains(source.map) ? deltas.at(source.map) : empty;
    if (const auto value = sum_present(map, source.names))
      f.present[source.figure] = *value;
    else
      f.absent.emplace_back(source.figure);
  }
  return f;
}

nlohmann::json to_json(const CongestionFigures &figures) {
  return {{record::kCongestionCounters, figures.present},
          {record::kCongestionAbsent, figures.absent}};
}

std::optional<double> pfc_pause_fraction(const CongestionFigures &figures, double phase_s) {
  // The longer direction, not both summed: a link paused both ways at once is paused once. Each
  // direction sums its priorities (a RoCE fabric runs one lossless priority, usually 3).
  std::optional<double> longest_us;
  for (const char *name : {"pfc_pause_duration_rx_us", "pfc_pause_duration_tx_us"})
    if (figures.present.contains(name))
      longest_us = std::max(longest_us.value_or(0.0), figures.present.at(name).get<double>());
  if (!longest_us || phase_s <= 0)
    return std::nullopt;
  return *longest_us * 1e-6 / phase_s;
}

nlohmann::json latency_ratios(const record::LatencyFields &loaded,
                              const record::LatencyFields &idle) {
  using Figure = std::optional<double> record::LatencyFields::*;
  nlohmann::json out = nlohmann::json::object();
  for (const auto &[figure, field] :
       {std::pair<const char *, Figure>{record::kLoadedOverIdleP50, &record::LatencyFields::p50_s},
        std::pair<const char *, Figure>{record::kLoadedOverIdleP99, &record::LatencyFields::p99_s},
        std::pair<const char *, Figure>{record::kLoadedOverIdleP99_9,
                                        &record::LatencyFields::p99_9_s}}) {
    const double i = (idle.*field).value();
    if (i > 0)
      out[figure] = (loaded.*field).value() / i;
  }
  return out;
}

} // namespace railgauge::rdma
