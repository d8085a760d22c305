#include "rdma/fabric/coverage_ledger.h"

#include <cmath>
#include <fstream>
#include <map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

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
  std::ofstream out(path, std::ios::app);
  if (!out)
    throw InputError("cannot append to the coverage ledger", path,
                     "give a run directory this process can write to");
  for (const auto &l : lines) {
    nlohmann::json j{{"link", l.link},   {"kind", l.kind},   {"time_s", l.time_s},
                     {"round", l.round}, {"phase", l.phase}, {"flows", l.flows},
                     {"bad", l.bad}};
    if (!l.via.empty())
      j["via"] = l.via;
    out << j.dump() << '\n';
  }
  if (!out)
    throw InputError("could not write the coverage ledger", path, "free space on its disk");
}

std::vector<LedgerLine> read_ledger(const std::string &path) {
  std::vector<LedgerLine> lines;
  std::ifstream in(path);
  std::string text;
  for (int number = 1; std::getline(in, text); ++number) {
    if (text.empty())
      continue;
    try {
      const auto j = nlohmann::json::parse(text);
      lines.push_back({j.at("link"), j.value("kind", ""), j.value("phase", ""), j.at("time_s"),
                       j.value("round", 0), j.value("flows", 0), j.value("bad", 0),
                       j.value("via", "")});
    } catch (const nlohmann::json::exception &e) {
      throw InputError(fmt::format("not a ledger line: {}", e.what()),
                       fmt::format("{}:{}", path, number),
                       "remove or repair the line (each is one JSON object)");
    }
  }
  return lines;
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
