#include "synthetic_fabric_load.h"

#include <algorithm>

#include <fmt/format.h>

#include "synthetic_fleet.h"

namespace railgauge::check::testing {
namespace {

using json = nlohmann::json;

constexpr int kNodes = 4;

std::string host_of(int rank) { return fmt::format("node{:02d}", rank + 1); }

json congestion(std::int64_t cnp, double pause_duration_us) {
  return {{"counters",
           {{"cnp_sent", cnp},
            {"cnp_handled", cnp},
            {"ecn_marked", cnp},
            {"pfc_pause_frames_rx", cnp / 2},
            {"pfc_pause_frames_tx", 0},
            {"pfc_pause_duration_rx_us", static_cast<std::int64_t>(pause_duration_us)},
            {"pfc_pause_duration_tx_us", 0},
            {"out_of_sequence", 0},
            {"retransmits", 0}}},
          {"absent", json::array({"xmit_wait"})}};
}

json port_deltas(std::int64_t cnp) {
  return {{"counters", {{"link_downed", 0}, {"symbol_error", 0}}},
          {"hw_counters", {{"np_cnp_sent", cnp}, {"rp_cnp_handled", cnp}}},
          {"netdev_counters", {{"rx_prio3_pause", cnp / 2}}}};
}

Record record(int rank, const std::string &key, json params, json metrics) {
  Record r;
  r.run = "fabric-" + host_of(rank);
  r.host = host_of(rank);
  r.rank = rank;
  r.key = key;
  r.params = std::move(params);
  r.params["size_bytes"] = 1048576;
  r.params["device"] = "";
  r.params["flow_label"] = "per_qp";
  r.params["link_layer"] = "Ethernet";
  r.device = {{"nic", "mlx5_0"}, {"port", 1}};
  r.metrics = std::move(metrics);
  r.metrics["verified"] = true;
  r.time_utc = "2026-01-01T00:00:00.000Z";
  return r;
}

json spread(const std::vector<double> &v) {
  double sum = 0, squares = 0;
  for (double x : v) {
    sum += x;
    squares += x * x;
  }
  std::vector<double> sorted = v;
  std::sort(sorted.begin(), sorted.end());
  const double median = sorted.size() % 2
                            ? sorted[sorted.size() / 2]
                            : (sorted[sorted.size() / 2 - 1] + sorted[sorted.size() / 2]) / 2;
  return {{"min", sorted.front()},
          {"median", median},
          {"max", sorted.back()},
          {"sum", sum},
          {"jain_fairness_index", sum * sum / (static_cast<double>(v.size()) * squares)},
          {"min_over_fair_share", sorted.front() / (sum / static_cast<double>(v.size()))},
          {"values", v}};
}

} // namespace

analysis::RunSet make_fabric_fleet(const FabricFaults &f) {
  std::vector<std::vector<Record>> by_rank(kNodes);
  constexpr double kPhase_s = 2.0;
  // Incast: every rank in turn receives from the three others.
  for (int receiver = 0; receiver < kNodes; ++receiver) {
    std::vector<double> flows;
    json flow_list = json::array();
    for (int s = 0; s < kNodes; ++s) {
      if (s == receiver)
        continue;
      double gbits = 130.0 * jitter(s, receiver);
      if (f.unfair_flow && receiver == 0)
        gbits = s == 2 ? 65.0 : 162.5;
      flows.push_back(gbits);
      flow_list.push_back({{"rank", s}, {"gbits_per_s", gbits}, {"device", "mlx5_0"}});
      by_rank[static_cast<std::size_t>(s)].push_back(
          record(s, "rdma.incast", {{"receiver", receiver}, {"qps", 1}, {"role", "sender"}},
                 {{"bandwidth_gbits_per_s", gbits},
                  {"port_counter_deltas", port_deltas(40)},
                  {"congestion", congestion(40, 0.02 * kPhase_s * 1e6 * jitter(s, receiver))},
                  {"pfc_pause_fraction", 0.02 * jitter(s, receiver)},
                  {"phase_s", kPhase_s}}));
    }
    const double pause = f.pfc_storm && receiver == 3 ? 0.9 : 0.02 * jitter(receiver, 9);
    const json s = spread(flows);
    by_rank[static_cast<std::size_t>(receiver)].push_back(
        record(receiver, "rdma.incast", {{"receiver", receiver}, {"qps", 1}, {"role", "receiver"}},
               {{"aggregate_gbits_per_s", s["sum"]},
                {"jain_fairness_index", s["jain_fairness_index"]},
                {"per_flow_gbits_per_s", s},
                {"flows", flow_list},
                {"line_rate_gbits_per_s", 400},
                {"aggregate_over_line_rate", s["sum"].get<double>() / 400},
                {"port_counter_deltas", port_deltas(300)},
                {"congestion", congestion(300, pause * kPhase_s * 1e6)},
                {"pfc_pause_fraction", pause},
                {"phase_s", kPhase_s}}));
  }
  // Latency under bulk load: a probe on every node against the next.
  for (int r = 0; r < kNodes; ++r) {
    const double idle_p99 = 3e-6 * jitter(r, 1);
    const double loaded_p99 = f.latency_blowup && r == 1 ? 60e-6 : 6e-6 * jitter(r, 2);
    const json idle = {{"n", 20000},      {"min_s", 1.6e-6},   {"p50_s", 2e-6},
                       {"p90_s", 2.4e-6}, {"p99_s", idle_p99}, {"p99_9_s", 5e-6},
                       {"max_s", 9e-6},   {"mean_s", 2.1e-6},  {"stdev_s", 3e-7}};
    json loaded = idle;
    loaded["p50_s"] = 3e-6;
    loaded["p99_s"] = loaded_p99;
    loaded["p99_9_s"] = 2 * loaded_p99;
    loaded["max_s"] = 4 * loaded_p99;
    by_rank[static_cast<std::size_t>(r)].push_back(
        record(r, "rdma.latency_under_load",
               {{"load", "bulk"}, {"probe_size_bytes", 8}, {"qps", 4}, {"role", "probe"}},
               {{"latency", loaded},
                {"latency_idle", idle},
                {"loaded_over_idle",
                 {{"p50", 1.5}, {"p99", loaded_p99 / idle_p99}, {"p99_9", 2 * loaded_p99 / 5e-6}}},
                {"port_counter_deltas", port_deltas(0)},
                {"congestion", congestion(0, 0)},
                {"pfc_pause_fraction", 0.0}}));
  }
  // QP scaling on node01 to node02.
  const std::vector<int> qps = {1, 2, 4, 8, 16, 32, 64};
  const std::vector<double> low_entropy = {150, 210, 300, 360, 385, 390, 391};
  for (std::size_t i = 0; i < qps.size(); ++i) {
    const double gbits = f.low_entropy ? low_entropy[i] : 390.0 * jitter(qps[i], 4);
    std::vector<double> per_qp(static_cast<std::size_t>(qps[i]), gbits / qps[i]);
    json m = {{"bandwidth_gbits_per_s", gbits},
              {"port_counter_deltas", port_deltas(0)},
              {"congestion", congestion(0, 0)},
              {"pfc_pause_fraction", 0.0}};
    if (qps[i] > 1) {
      m["per_qp_gbits_per_s"] = spread(per_qp);
      m["jain_fairness_index"] = 1.0;
    }
    by_rank[0].push_back(
        record(0, "rdma.qp_scaling", {{"qps", qps[i]}, {"role", "sender"}}, std::move(m)));
  }
  analysis::RunSet set;
  for (int r = 0; r < kNodes; ++r) {
    analysis::LoadedRun run;
    run.dir = "fabric/" + host_of(r);
    run.manifest = {{"schema", "railgauge.run/1"}, {"host", host_of(r)}, {"rank", r}};
    run.records = std::move(by_rank[static_cast<std::size_t>(r)]);
    set.runs.push_back(std::move(run));
  }
  return set;
}

} // namespace railgauge::check::testing
