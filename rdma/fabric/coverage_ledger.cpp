#include "rdma/fabric/coverage_ledger.h"

#include <cmath>
#include <map>

#include <fmt/format.h>

#include "harness/error.h"

namespace railgauge::rdma::fabric {

std::vector<LedgerLine> ledger_lines(const Topology &t, const std::vector<FlowObservation> &flows,
                                     double time_s, const std::string &phase,
                                     double bad_below_gbps) {
  std::map<std::pair<int, int>, LedgerLine> by_link; // (round, link)
  for (const auto &f : flows)
    for (int l : f.path) {
      auto &line = by_link[{f.round, l}];
      line.flows += 1;
      line.bad += f.bandwidth_gbps < bad_below_gbps;
      line.round = f.round;
    }
  std::vector<LedgerLine> out;
  for (auto &[key, line] : by_link) {
    const auto &link = t.links[key.second];
    line.link = link.label;
    line.kind = link.kind == LinkKind::nic_leaf ? "nic_leaf" : "leaf_spine";
    line.phase = phase;
    line.time_s = time_s;
    out.push_back(line);
  }
  return out;
}

void append_ledger(const std::string &path, const std::vector<LedgerLine> &lines) {
  records::append_ledger_lines(path, lines);
}

std::vector<LedgerLine> read_ledger(const std::string &path) {
  return records::read_ledger_lines(path);
}

std::vector<int> links_not_exercised_since(const Topology &t, const std::vector<LedgerLine> &ledger,
                                           double since_s) {
  std::map<std::string, double> latest;
  for (const auto &l : ledger)
    latest[l.link] = std::max(latest[l.link], l.time_s);
  std::vector<int> out;
  for (int i = 0; i < static_cast<int>(t.links.size()); ++i) {
    const auto it = latest.find(t.links[i].label);
    if (it == latest.end() || it->second < since_s)
      out.push_back(i);
  }
  return out;
}

double parse_duration_s(const std::string &text, const std::string &flag) {
  static const std::map<char, double> unit_s{
      {'s', 1}, {'m', 60}, {'h', 3600}, {'d', 86400}, {'w', 604800}};
  std::size_t used = 0;
  double value = 0;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception &) {
    used = 0;
  }
  const auto rest = text.substr(used);
  const bool unit_ok = rest.empty() || (rest.size() == 1 && unit_s.count(rest[0]));
  if (used == 0 || !unit_ok || !std::isfinite(value) || value <= 0)
    throw InputError(fmt::format("'{}' is not a duration", text), flag,
                     "give a positive number with s, m, h, d or w, e.g. 7d");
  return value * (rest.empty() ? 1 : unit_s.at(rest[0]));
}

} // namespace railgauge::rdma::fabric
