#include "analysis/report/fabric_load_sections.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "analysis/report/svg.h"
#include "harness/device_fields.h"
#include "harness/record_fields.h"
#include "harness/stats.h"
#include "records/fabric_load_fields.h"
#include "records/rdma_point_fields.h"
#include "records/rdma_record.h"

namespace railgauge::report {
namespace {

using json = nlohmann::json;
namespace rr = rdma::record;

bool ok_with_role(const Record &r, const char *key, const char *role) {
  return r.status == Status::ok && r.key == key && r.params.contains(rr::kRole) &&
         r.params[rr::kRole] == role;
}

// "node02", with its NIC when the record names one: "node02 mlx5_0".
std::string end_name(const Record &r) {
  if (const auto nic = record_fields::text(r.device, device::kNic); nic && !nic->empty())
    return r.host + " " + *nic;
  return r.host;
}

// "1 QP", "4 QPs"
std::string qps_text(const json &qps) {
  return text(qps) + (qps.is_number() && qps.get<double>() == 1 ? " QP" : " QPs");
}

std::string fixed(std::optional<double> v, const char *format = "{:.4g}") {
  return v ? fmt::format(fmt::runtime(format), *v) : "-";
}

// ---------------------------------------------------------------- incast
// The hosts of the ranks that sent to each receiver, from the senders' own records, so that a
// bar says "node03", not "rank 2": by (run, receiver, rank), else by (receiver, rank) where the
// set holds one host for it (ranks whose records were collected into runs of their own).
struct SenderHosts {
  std::map<std::tuple<std::string, std::string, int>, std::string> in_run;
  std::map<std::pair<std::string, int>, std::set<std::string>> any_run;

  std::optional<std::string> of(const std::string &run, const std::string &receiver,
                                int rank) const {
    if (const auto it = in_run.find({run, receiver, rank}); it != in_run.end())
      return it->second;
    if (const auto it = any_run.find({receiver, rank});
        it != any_run.end() && it->second.size() == 1)
      return *it->second.begin();
    return std::nullopt;
  }
};

SenderHosts sender_hosts(const analysis::RunSet &runs) {
  SenderHosts hosts;
  for (const auto &run : runs.runs)
    for (const auto &r : run.records)
      if (ok_with_role(r, rr::kIncast, rr::kRoleSender) && r.params.contains(rr::kReceiver)) {
        const std::string receiver = text(r.params[rr::kReceiver]);
        hosts.in_run[{r.run, receiver, r.rank}] = r.host;
        hosts.any_run[{receiver, r.rank}].insert(r.host);
      }
  return hosts;
}

// A receiver's flows, one per sender: from its incast figures' flows, else the bare values.
std::vector<std::pair<std::string, double>> flows_of(const Record &r,
                                                     const std::optional<rr::IncastFigures> &incast,
                                                     const SenderHosts &hosts) {
  std::vector<std::pair<std::string, double>> flows;
  const std::string receiver = text(r.params[rr::kReceiver]);
  if (incast && incast->flows) {
    for (const auto &f : *incast->flows) {
      const int rank = static_cast<int>(f.rank);
      const auto host = hosts.of(r.run, receiver, rank);
      flows.emplace_back(host ? fmt::format("{} (rank {})", *host, rank)
                              : fmt::format("rank {}", rank),
                         f.gbits_per_s);
    }
    return flows;
  }
  if (const auto spread = rr::FlowSpreadFields::read(r.metrics, rr::kPerFlowGbitsPerS))
    for (const double v : spread->values)
      flows.emplace_back(fmt::format("flow {}", flows.size() + 1), v);
  return flows;
}

void incast_section(Page &page, const analysis::RunSet &runs) {
  const SenderHosts hosts = sender_hosts(runs);
  std::vector<std::vector<std::string>> rows = {
      {"receiver", "flows", "aggregate Gb/s", "of line rate", "Jain's index", "min flow Gb/s",
       "median flow Gb/s", "max flow Gb/s", "PFC paused"}};
  std::vector<std::string> row_class = {""};
  std::string charts;
  for (const auto &run : runs.runs)
    for (const auto &r : run.records) {
      if (!ok_with_role(r, rr::kIncast, rr::kRoleReceiver) || !r.params.contains(rr::kReceiver))
        continue;
      const auto incast = rr::IncastFigures::read(r.metrics);
      const auto flows = flows_of(r, incast, hosts);
      if (flows.empty())
        continue;
      std::vector<std::string> labels;
      std::vector<double> values;
      for (const auto &[label, gbits] : flows) {
        labels.push_back(label);
        values.push_back(gbits);
      }
      const double median_flow = railgauge::median(values);
      std::vector<bool> unfair;
      for (double v : values)
        unfair.push_back(v < kFlowShareOfMedian * median_flow);
      const bool any_unfair = std::find(unfair.begin(), unfair.end(), true) != unfair.end();
      const std::string label = run_label(runs, run);
      const std::string who = fmt::format("{} (rank {}{}{})", end_name(r), r.rank,
                                          r.params.contains(rr::kQps)
                                              ? ", " + qps_text(r.params[rr::kQps]) + " per flow"
                                              : std::string(),
                                          label.empty() ? "" : ", " + label);
      charts += "<figure>" +
                bar_chart("incast into " + who + ": Gb/s per flow", labels, values, unfair, "Gb/s",
                          kFlowShareOfMedian * median_flow,
                          fmt::format("{:.0f}% of the median flow", kFlowShareOfMedian * 100)) +
                "</figure>\n";
      const auto [lo, hi] = std::minmax_element(values.begin(), values.end());
      const auto over_line = incast ? incast->aggregate_over_line_rate : std::nullopt;
      const auto paused = record_fields::number(r.metrics, rr::kPfcPauseFraction);
      rows.push_back({who, std::to_string(values.size()),
                      fixed(incast ? incast->aggregate_gbits_per_s : std::nullopt),
                      over_line ? fmt::format("{:.0f}%", 100 * *over_line) : "-",
                      fixed(incast ? incast->jain_fairness_index : std::nullopt, "{:.3f}"),
                      fmt::format("{:.4g}", *lo), fmt::format("{:.4g}", median_flow),
                      fmt::format("{:.4g}", *hi),
                      paused ? fmt::format("{:.1f}%", 100 * *paused) : "-"});
      row_class.push_back(any_unfair ? "warn" : "");
    }
  if (rows.size() < 2)
    return;
  page.heading("Incast fairness");
  page.para(fmt::format(
      "Every other rank WRITEs to one receiver at once; one bar per flow, measured while all the "
      "others stream. Red: a flow under {:.0f}% of the median flow into the same receiver (the "
      "incast-flow-vs-fleet rule); the row is shaded. Jain's index is 1 for equal flows and 1/n "
      "when one flow takes everything. PFC paused: the share of the incast's time the receiver's "
      "port was held by pause frames (- where the NIC has no pause-duration counter).",
      kFlowShareOfMedian * 100));
  page.table(rows, row_class);
  page.html += charts;
}

// ---------------------------------------------------------------- qp scaling
void qp_scaling_section(Page &page, const analysis::RunSet &runs) {
  // curve name -> QPs -> (aggregate, per-QP min, median, max, Jain)
  struct AtQps {
    std::vector<double> aggregate;
    std::optional<double> qp_min, qp_median, qp_max, jain;
  };
  std::map<std::string, std::map<double, AtQps>> curves;
  for (const auto &run : runs.runs) {
    const std::string label = run_label(runs, run);
    for (const auto &r : run.records) {
      const auto bandwidth = rr::BandwidthFields::read(r.metrics);
      const auto gbits = bandwidth ? bandwidth->gbits_per_s : std::nullopt;
      if (!ok_with_role(r, rr::kQpScaling, rr::kRoleSender) || !gbits ||
          !r.params.contains(rr::kQps) || !r.params[rr::kQps].is_number())
        continue;
      std::string name = end_name(r);
      if (r.params.contains(rr::kSizeBytes) && r.params[rr::kSizeBytes].is_number())
        name += " " + tick_label(r.params[rr::kSizeBytes].get<double>(), true);
      if (!label.empty())
        name += " (" + label + ")";
      AtQps &at = curves[name][r.params[rr::kQps].get<double>()];
      at.aggregate.push_back(*gbits);
      if (const auto per_qp = rr::FlowSpreadFields::read(r.metrics, rr::kPerQpGbitsPerS)) {
        at.qp_min = per_qp->min;
        at.qp_median = per_qp->median;
        at.qp_max = per_qp->max;
      }
      at.jain = record_fields::number(r.metrics, rr::kJainFairnessIndex);
    }
  }
  if (curves.empty())
    return;
  page.heading("Flow entropy: one stream over more QPs");
  page.para("One WRITE stream between two ranks spread over 1 to 64 QPs, each QP with its own "
            "RoCEv2 flow label and so its own UDP source port, which is what ECMP hashes. A "
            "fabric with enough paths gives the same aggregate from 2 QPs on; a curve that keeps "
            "rising needs many flows to fill the link (hash collisions with few flows). The "
            "profiles' qp-entropy-curve rule wants 2 QPs at 93% or more of the peak. x: QPs (log "
            "scale), y: aggregate Gb/s.");
  std::vector<Series> series;
  std::vector<std::vector<std::string>> rows = {{"stream", "QPs", "aggregate Gb/s", "of the peak",
                                                 "per-QP min / median / max Gb/s", "Jain's index"}};
  for (const auto &[name, by_qps] : curves) {
    Series s{name, {}, {}};
    double peak = 0;
    for (const auto &[qps, at] : by_qps)
      peak = std::max(peak, railgauge::median(at.aggregate));
    for (const auto &[qps, at] : by_qps) {
      const double aggregate = railgauge::median(at.aggregate);
      s.points.emplace_back(qps, aggregate);
      rows.push_back({name, fmt::format("{:g}", qps), fmt::format("{:.4g}", aggregate),
                      peak > 0 ? fmt::format("{:.0f}%", 100 * aggregate / peak) : "-",
                      at.qp_min ? fmt::format("{:.4g} / {:.4g} / {:.4g}", *at.qp_min,
                                              at.qp_median.value_or(0), at.qp_max.value_or(0))
                                : "-",
                      fixed(at.jain, "{:.3f}")});
    }
    series.push_back(std::move(s));
  }
  page.html +=
      "<figure>" +
      line_chart("rdma.qp_scaling: aggregate Gb/s versus QPs", "QPs", "Gb/s", series, true, false) +
      "</figure>\n";
  page.table(rows);
}

// ---------------------------------------------------------------- latency under load
void latency_under_load_section(Page &page, const analysis::RunSet &runs) {
  using Figure = std::optional<double> rr::LatencyFields::*;
  const std::vector<std::pair<const char *, Figure>> kPercentiles = {
      {"p50", &rr::LatencyFields::p50_s},
      {"p99", &rr::LatencyFields::p99_s},
      {"p99.9", &rr::LatencyFields::p99_9_s}};
  std::vector<std::vector<std::string>> rows = {{"probe", "load", "idle p50 / p99 / p99.9 us",
                                                 "loaded p50 / p99 / p99.9 us", "loaded / idle"}};
  std::string charts;
  for (const auto &run : runs.runs) {
    const std::string label = run_label(runs, run);
    for (const auto &r : run.records) {
      if (!ok_with_role(r, rr::kLatencyUnderLoad, rr::kRoleProbe))
        continue;
      const auto loaded = rr::LatencyFields::read(r.metrics, rr::kLatency);
      const auto idle = rr::LatencyFields::read(r.metrics, rr::kLatencyIdle);
      if (!loaded || !idle)
        continue;
      std::vector<std::string> groups;
      std::vector<double> idle_us, loaded_us;
      for (const auto &[name, field] : kPercentiles) {
        const auto i = (*idle).*field, l = (*loaded).*field;
        if (!i || !l)
          continue;
        groups.push_back(name);
        idle_us.push_back(*i * 1e6);
        loaded_us.push_back(*l * 1e6);
      }
      if (groups.empty())
        continue;
      // The load and its streams' QPs ("bulk, 4 QPs"): points differ by both.
      std::string load = r.params.contains(rr::kLoad) ? text(r.params[rr::kLoad]) : "?";
      if (r.params.contains(rr::kQps))
        load += ", " + qps_text(r.params[rr::kQps]);
      const std::string who =
          fmt::format("{} (rank {}{})", end_name(r), r.rank, label.empty() ? "" : ", " + label);
      charts += "<figure>" +
                paired_bar_chart("probe on " + who + ", load " + load + ": idle and loaded latency",
                                 groups, idle_us, loaded_us, "idle", "loaded", "microseconds") +
                "</figure>\n";
      std::string idle_text, loaded_text, ratio_text;
      for (std::size_t i = 0; i < groups.size(); ++i) {
        const char *sep = i ? " / " : "";
        idle_text += fmt::format("{}{:.3g}", sep, idle_us[i]);
        loaded_text += fmt::format("{}{:.3g}", sep, loaded_us[i]);
        ratio_text += fmt::format("{}{:.2f}x", sep, loaded_us[i] / idle_us[i]);
      }
      rows.push_back({who, load, idle_text, loaded_text, ratio_text});
    }
  }
  if (rows.size() < 2)
    return;
  page.heading("Latency under load");
  page.para("A WRITE ping-pong between ranks 0 and 1 (round trip / 2, as perftest), first on an "
            "idle fabric, then behind bulk WRITEs on other QPs of the same NICs (load=bulk) or "
            "behind an incast of every other rank into the probe's receiver (load=incast). This "
            "is what a collective's latency-bound phase sees. Blue: idle, orange: loaded, with "
            "loaded / idle above it; a lossless fabric that queues keeps p50 near idle and "
            "shows its queueing in p99 and p99.9.");
  page.table(rows);
  page.html += charts;
}

} // namespace

bool is_fabric_load(const Record &r) {
  return std::find(rr::kFabricLoadKeys.begin(), rr::kFabricLoadKeys.end(), r.key) !=
         rr::kFabricLoadKeys.end();
}

void fabric_load_sections(Page &page, const analysis::RunSet &runs) {
  incast_section(page, runs);
  qp_scaling_section(page, runs);
  latency_under_load_section(page, runs);
}

} // namespace railgauge::report
