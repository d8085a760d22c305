#include "cli/fabric_localise_input.h"

#include <iostream>
#include <map>
#include <optional>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "analysis/run_set.h"
#include "harness/error.h"
#include "harness/record_fields.h"
#include "records/rdma_record.h"

namespace railgauge {
namespace {

namespace rec = rdma::record;

bool pair_matrix(const Record &r) {
  return r.key == rec::kPairMatrix || r.key == rec::kTcpPairMatrix;
}

// A perftest import's bandwidth point of a host pair: host "a+b" (import --host a+b), the NIC
// the device perftest used. Its largest message's figure stands for the pair.
struct PerftestPoint {
  double size_bytes = 0;
  rdma::MeasuredPair pair;
};

std::optional<PerftestPoint> perftest_point(const Record &r) {
  const auto view = rec::pair_point_view(r);
  const auto plus = r.host.find('+');
  if (!view || view->latency || plus == std::string::npos || !view->bandwidth_gbits_per_s ||
      !r.device.contains("nic") || !r.device["nic"].is_string())
    return std::nullopt;
  const auto nic = r.device["nic"].get<std::string>();
  return PerftestPoint{view->size_bytes.value_or(0),
                       {r.host.substr(0, plus) + "/" + nic, r.host.substr(plus + 1) + "/" + nic,
                        *view->bandwidth_gbits_per_s, ""}};
}

} // namespace

std::vector<rdma::MeasuredPair> read_measured_pairs(const std::vector<std::string> &runs) {
  const auto set = analysis::load_runs(runs);
  for (const auto &p : set.problems)
    std::cerr << "railgauge: fabric localise: " << p << '\n';
  std::vector<rdma::MeasuredPair> pairs;
  std::map<std::string, PerftestPoint> largest; // per pair and key
  for (const auto &run : set.runs)
    for (const auto &r : run.records) {
      if (pair_matrix(r) && r.status == Status::ok) {
        const auto more = rdma::matrix_pairs(r.metrics, run.dir);
        pairs.insert(pairs.end(), more.begin(), more.end());
      } else if (const auto p = perftest_point(r)) {
        auto &best = largest[r.key + " " + p->pair.a + " " + p->pair.b];
        if (p->size_bytes >= best.size_bytes)
          best = *p;
      }
    }
  for (const auto &[key, p] : largest)
    pairs.push_back(p.pair);
  if (pairs.empty())
    throw InputError("no measured pair: no finished pair matrix record and no perftest "
                     "bandwidth point of a host pair",
                     fmt::format("{}", fmt::join(runs, " ")),
                     "give the run directory of an rdma.pair_matrix run, or import perftest with "
                     "--host HOSTA+HOSTB");
  return pairs;
}

void print_localisation(const rdma::MatrixLocalisation &r, const std::string &topology, bool json) {
  const auto &t = r.topology;
  if (json) {
    nlohmann::json named = nlohmann::json::array();
    for (const auto &n : r.verdict.named)
      named.push_back({{"link", t.links[n.link].label},
                       {"kind", rdma::fabric::link_kind_name(t.links[n.link])},
                       {"flows", n.flows},
                       {"bad", n.bad},
                       {"confidence", n.confidence},
                       {"text", n.text}});
    std::cout << nlohmann::json{{"topology", topology},
                                {"pairs", r.pairs},
                                {"pairs_placed", r.pairs_placed},
                                {"pairs_errored", r.pairs_errored},
                                {"missing", r.missing},
                                {"reference_gbits_per_s", r.verdict.reference_gbps},
                                {"bad_pairs", r.verdict.bad_flows},
                                {"unexplained_bad", r.verdict.unexplained_bad},
                                {"named", named},
                                {"split_round", r.split_pairs},
                                {"split_flows_per_pair", r.split_flows_per_pair}}
                     .dump(2)
              << '\n';
    return;
  }
  std::cout << fmt::format("{} pairs read, {} placed on {} ({} errored); median {:.1f} Gb/s, "
                           "{} under 0.93 x it\n",
                           r.pairs, r.pairs_placed, topology, r.pairs_errored,
                           r.verdict.reference_gbps, r.verdict.bad_flows);
  for (const auto &m : r.missing)
    std::cout << "  not in the topology: " << m << '\n';
  if (r.verdict.named.empty())
    std::cout << "No link named: the bad pairs, if any, are explained by no one link.\n";
  for (const auto &n : r.verdict.named)
    std::cout << "Suspect: " << n.text << '\n';
  if (r.verdict.unexplained_bad > 0)
    std::cout << fmt::format("{} bad pairs explained by no named link\n",
                             r.verdict.unexplained_bad);
  if (!r.split_pairs.empty()) {
    std::cout << fmt::format("The round that splits the suspects ({} flows a pair):\n",
                             r.split_flows_per_pair);
    for (const auto &p : r.split_pairs)
      std::cout << "  " << p << '\n';
  }
}

} // namespace railgauge
