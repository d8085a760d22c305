#include "rdma/matrix_localise.h"

#include <map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "harness/error.h"
#include "harness/record_fields.h"
#include "rdma/coverage_rounds.h"
#include "records/rdma_record.h"

namespace railgauge::rdma {
namespace {

namespace rec = record;

// One link a leaf standing for all its uplinks: the path a flow took up is not known.
std::vector<int> add_untraced_uplinks(fabric::Topology &t) {
  std::vector<int> out;
  for (int leaf = 0; leaf < static_cast<int>(t.leaves.size()); ++leaf) {
    fabric::Link l;
    l.kind = fabric::LinkKind::leaf_spine;
    l.leaf = leaf;
    l.label = fmt::format("{}: its {} uplinks (the path a flow took is not traced)", t.leaves[leaf],
                          t.leaf_uplinks[leaf].size());
    out.push_back(static_cast<int>(t.links.size()));
    t.links.push_back(l);
  }
  return out;
}

// The endpoints of the pairs, each label once, numbered by host and NIC as the matrix does.
std::vector<FabricEndpoint> endpoints_of(const std::vector<MeasuredPair> &pairs,
                                         std::map<std::string, int> &index) {
  std::vector<FabricEndpoint> eps;
  std::map<std::string, int> host_index, nics_on_host;
  for (const auto &p : pairs)
    for (const auto *label : {&p.a, &p.b}) {
      if (index.count(*label))
        continue;
      const auto host = label->substr(0, label->rfind('/'));
      const auto [it, added] = host_index.emplace(host, static_cast<int>(host_index.size()));
      index[*label] = static_cast<int>(eps.size());
      eps.push_back({it->second, nics_on_host[host]++, *label});
    }
  return eps;
}

} // namespace

std::vector<MeasuredPair> matrix_pairs(const nlohmann::json &metrics, const std::string &where) {
  namespace f = record_fields;
  const auto *eps = f::field(metrics, rec::kMatrixEndpoints);
  const auto *pairs = f::field(metrics, rec::kPairs);
  if (!eps || !eps->is_array() || !pairs || !pairs->is_array())
    throw InputError("a pair matrix record without endpoints and pairs", where,
                     "give the run directory of a finished rdma.pair_matrix or tcp_pair_matrix");
  std::map<int, std::string> label;
  for (const auto &e : *eps)
    if (const auto i = f::number(e, rec::kMatrixEndpoint); i && e.contains(rec::kMatrixLabel))
      label[static_cast<int>(*i)] = e[rec::kMatrixLabel].get<std::string>();
  std::vector<MeasuredPair> out;
  for (const auto &p : *pairs) {
    const auto *ends = f::field(p, rec::kMatrixEndpoints);
    if (!ends || !ends->is_array() || ends->size() != 2 || !(*ends)[0].is_number() ||
        !(*ends)[1].is_number())
      continue;
    const int a = (*ends)[0].get<int>(), b = (*ends)[1].get<int>();
    if (!label.count(a) || !label.count(b))
      continue;
    MeasuredPair m{label[a], label[b], f::number(p, rec::kBandwidthGbitsPerS).value_or(0), ""};
    if (const auto *e = f::field(p, rec::kMatrixError); e && e->is_string())
      m.error = e->get<std::string>(), m.bandwidth_gbits_per_s = 0;
    out.push_back(std::move(m));
  }
  return out;
}

MatrixLocalisation localise_pairs(const std::vector<MeasuredPair> &pairs,
                                  const std::string &topology_path, const fabric::LoadOptions &load,
                                  const fabric::LocaliseOptions &options) {
  std::map<std::string, int> index;
  const auto eps = endpoints_of(pairs, index);
  auto m = matrix_topology(eps, topology_path, load);
  MatrixLocalisation out;
  out.missing = m.missing, out.mapping = m.mapping;
  std::vector<int> planner_of(eps.size(), -1);
  for (int ep = 0; ep < static_cast<int>(m.to_matrix.size()); ++ep)
    if (m.to_matrix[ep] >= 0)
      planner_of[m.to_matrix[ep]] = ep;
  out.topology = std::move(m.topology);
  auto &t = out.topology;
  const auto untraced = add_untraced_uplinks(t);
  std::vector<fabric::FlowObservation> flows;
  for (const auto &p : pairs) {
    ++out.pairs;
    out.pairs_errored += !p.error.empty();
    const int a = planner_of[index[p.a]], b = planner_of[index[p.b]];
    if (a < 0 || b < 0 || t.nic_link[a] < 0 || t.nic_link[b] < 0)
      continue;
    const int la = t.leaf_of_endpoint(a), lb = t.leaf_of_endpoint(b);
    fabric::FlowObservation f{a, b, 0, 0, {t.nic_link[a]}, p.bandwidth_gbits_per_s};
    if (la != lb)
      f.path.insert(f.path.end(), {untraced[la], untraced[lb]});
    f.path.push_back(t.nic_link[b]);
    flows.push_back(std::move(f));
  }
  out.pairs_placed = static_cast<int>(flows.size());
  if (flows.empty())
    throw InputError("no measured pair's NICs are in the topology", topology_path,
                     "give the topology of the fabric the pairs ran on (its host and NIC names)");
  out.verdict = fabric::localise(t, flows, options);
  const auto split = fabric::plan_split_round(t, out.verdict, flows, 1, options);
  out.split_flows_per_pair = split.flows_per_pair;
  for (const auto &[a, b] : split.pairs)
    out.split_pairs.push_back(t.endpoint_label(a) + " <-> " + t.endpoint_label(b));
  return out;
}

} // namespace railgauge::rdma
