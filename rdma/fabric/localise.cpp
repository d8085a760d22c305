#include "rdma/fabric/localise.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include <fmt/format.h>

namespace railgauge::rdma::fabric {
namespace {

struct Evidence {
  std::vector<char> bad;                    // per flow
  std::vector<std::vector<int>> link_flows; // per link: the flows across it
  std::vector<double> good_odds;            // per flow: P(no named link spoilt it)
  double eps = 1e-3;
};

double p_bad(const Evidence &e, int f, double extra_ok) {
  return 1 - (1 - e.eps) * e.good_odds[f] * extra_ok;
}

double log_obs(const Evidence &e, int f, double extra_ok) {
  const double p = std::clamp(p_bad(e, f, extra_ok), 1e-12, 1 - 1e-12);
  return e.bad[f] ? std::log(p) : std::log1p(-p);
}

struct Gain {
  double nats = 0, q = 0;
};

// The gain of naming `link` on top of what is named: q fitted to its unexplained flows.
Gain gain_of(const Evidence &e, int link) {
  int bad = 0, open = 0;
  for (int f : e.link_flows[link])
    if (p_bad(e, f, 1) < 0.5) {
      ++open;
      bad += e.bad[f];
    }
  if (bad == 0)
    return {};
  const double q = std::clamp(static_cast<double>(bad) / open, 0.02, 0.999);
  double nats = 0;
  for (int f : e.link_flows[link])
    nats += log_obs(e, f, 1 - q) - log_obs(e, f, 1);
  return {nats, q};
}

void name(Evidence &e, int link, double q) {
  for (int f : e.link_flows[link])
    e.good_odds[f] *= 1 - q;
}

double median_bandwidth(const std::vector<FlowObservation> &flows) {
  std::vector<double> bw;
  for (const auto &f : flows)
    bw.push_back(f.bandwidth_gbps);
  if (bw.empty())
    return 0;
  std::nth_element(bw.begin(), bw.begin() + bw.size() / 2, bw.end());
  return bw[bw.size() / 2];
}

} // namespace

std::string link_kind_name(const Link &link) {
  return link.kind == LinkKind::nic_leaf ? "NIC cable or leaf port" : "uplink";
}

Localisation localise(const Topology &t, const std::vector<FlowObservation> &flows,
                      const LocaliseOptions &options) {
  Localisation out;
  out.flows = static_cast<int>(flows.size());
  out.reference_gbps = median_bandwidth(flows);
  Evidence e;
  e.eps = options.false_bad_rate;
  e.link_flows.resize(t.links.size());
  e.good_odds.assign(flows.size(), 1.0);
  std::set<int> candidates;
  for (int f = 0; f < static_cast<int>(flows.size()); ++f) {
    const bool bad = flows[f].bandwidth_gbps < options.bandwidth_fraction * out.reference_gbps;
    e.bad.push_back(bad);
    out.bad_flows += bad;
    for (int l : flows[f].path) {
      e.link_flows[l].push_back(f);
      if (bad)
        candidates.insert(l);
    }
  }
  std::vector<std::pair<int, double>> chosen; // link, q
  while (static_cast<int>(chosen.size()) < options.max_named) {
    Gain best;
    int best_link = -1;
    for (int l : candidates)
      if (const auto g = gain_of(e, l); g.nats > best.nats)
        best = g, best_link = l;
    if (best_link < 0 || best.nats < options.penalty_nats)
      break;
    name(e, best_link, best.q);
    chosen.emplace_back(best_link, best.q);
    candidates.erase(best_link);
  }
  for (const auto &[link, q] : chosen) {
    // Unname it, weigh it against every link with a share in its bad flows, name it again.
    for (int f : e.link_flows[link])
      e.good_odds[f] /= 1 - q;
    NamedLink n;
    n.link = link;
    n.gain_nats = gain_of(e, link).nats;
    std::set<int> rivals;
    for (int f : e.link_flows[link])
      if (e.bad[f])
        rivals.insert(flows[f].path.begin(), flows[f].path.end());
    rivals.erase(link);
    std::vector<std::pair<double, int>> ranked;
    // "No fault here" is a rival too: a few bad flows met by chance on one link (one flow in
    // a thousand or two is a passing disturbance) weigh as much as the penalty against them.
    double total = 1 + std::exp(std::max(-700.0, options.penalty_nats - n.gain_nats));
    for (int r : rivals)
      if (const auto g = gain_of(e, r); g.nats > 0) {
        ranked.emplace_back(g.nats, r);
        total += std::exp(std::max(-700.0, g.nats - n.gain_nats));
      }
    std::sort(ranked.rbegin(), ranked.rend());
    for (const auto &[g, r] : ranked)
      n.rivals.push_back(r);
    n.confidence = 1 / total;
    name(e, link, q);
    for (int f : e.link_flows[link]) {
      ++n.flows;
      n.bad += e.bad[f];
    }
    const auto &l = t.links[link];
    n.text =
        fmt::format("{} {}: {} of {} flows across it under {} x the median {:.1f} Gb/s; "
                    "evidence {:.0f} nats, confidence {:.3f}{}",
                    link_kind_name(l), l.label, n.bad, n.flows, options.bandwidth_fraction,
                    out.reference_gbps, n.gain_nats, n.confidence,
                    ranked.empty() ? ""
                                   : fmt::format("; next likeliest {} ({:.0f} nats)",
                                                 t.links[ranked[0].second].label, ranked[0].first));
    out.named.push_back(n);
  }
  for (int f = 0; f < static_cast<int>(flows.size()); ++f)
    out.unexplained_bad += e.bad[f] && p_bad(e, f, 1) < 0.5;
  return out;
}

} // namespace railgauge::rdma::fabric
