#include "analysis/calibrate/astra_network.h"

#include <cmath>

#include <fmt/format.h>

namespace railgauge::calibrate {
namespace {

// ASTRA-sim's analytical backend (astra-network-analytical, congestion_unaware) reads bandwidth
// in GB/s with 1 GB = 2^30 bytes (NetworkFunction.cpp, bw_GBps_to_Bpns); railgauge's GB is 1e9.
constexpr double kAstraGigabyte = 1073741824.0;

// A message between two NPUs of a Switch dimension crosses two links (src -> switch -> dest,
// Switch::compute_hops_count) and pays the latency on each.
constexpr int kSwitchHops = 2;

// The per-link latency of one dimension in ns. A fitted α is the sum over the 2(n-1) steps of a
// ring all-reduce on the n ranks it was fitted on, each step two hops. An assumed latency
// (Calculon's default or the user's) was never fitted on a ring: dividing it by the steps of a
// ring on the tier's assumed size (2·32767 for a 65536-GPU fabric) would turn 20 µs into 0.3 ns.
// It is taken as the latency of one message, so each of its two links gets half.
std::pair<double, std::string> latency_per_link_ns(const NetworkTier &n, long long dim) {
  if (!n.latency_s.measured)
    return {n.latency_s.value * 1e9 / kSwitchHops,
            fmt::format("{} per message over {} switch hops (assumed: not divided by ring "
                        "steps)",
                        n.latency_s.source, kSwitchHops)};
  // A tier taken apart keeps the latency of its inter-node steps alone: 2(n-1) of a ring
  // all-reduce over its n nodes.
  if (const auto &d = n.decomposition; d && d->latency_split && n.latency_s.measured) {
    const int steps = inter_node_steps(d->op, d->nodes);
    if (steps > 0)
      return {n.latency_s.value * 1e9 / (steps * kSwitchHops),
              fmt::format("{} over its {} inter-node steps of {} switch hops", n.latency_s.source,
                          steps, kSwitchHops)};
    return {n.latency_s.value * 1e9 / kSwitchHops,
            fmt::format("{} per message over {} switch hops", n.latency_s.source, kSwitchHops)};
  }
  // The scale-up tier's α was fitted on the ring of its own ranks. A scale-out tier's (not taken
  // apart, or its latency not split) spans every rank of its runs, intra-node steps included,
  // while ASTRA-sim runs 2(dim-1) steps on this dimension: spread over those, as npus_count says,
  // so that the dimension's latency is the whole fitted α, an upper bound.
  if (n.index > 0) {
    const long long ring_n = std::max(2LL, dim);
    return {n.latency_s.value * 1e9 / (2.0 * static_cast<double>(ring_n - 1) * kSwitchHops),
            fmt::format("{} (intra-node steps included: an upper bound) over the 2({}-1) ring "
                        "steps of {} switch hops this dimension runs",
                        n.latency_s.source, ring_n, kSwitchHops)};
  }
  const int ring_n = n.group_ranks > 1 ? n.group_ranks : static_cast<int>(std::max(2LL, dim));
  return {n.latency_s.value * 1e9 / (2.0 * (ring_n - 1) * kSwitchHops),
          fmt::format("{} over 2({}-1) ring steps of {} switch hops", n.latency_s.source, ring_n,
                      kSwitchHops)};
}

// NPUs of a dimension. The scale-up one is its tier's size. A scale-out dimension counts the
// scale-up domains it joins: the hosts of the largest group measured on it (a data-parallel
// group of one rank per node and a world group of every rank give the same count), else the
// tier's size over the scale-up size, as Calculon's fabric size counts every GPU.
long long npus_of(const NetworkTier &n, const std::vector<long long> &npus) {
  const long long size = std::max(1LL, std::llround(n.size.value));
  if (n.index == 0 || npus.empty())
    return size;
  if (n.size.measured && n.group_hosts > 1)
    return n.group_hosts;
  return std::max(1LL, size / npus.front());
}

} // namespace

std::string astra_network_yaml(const Calibration &c) {
  std::string out =
      "# ASTRA-sim analytical network from `railgauge calibrate` (docs/calibrate.md).\n";
  std::vector<long long> npus;
  std::vector<std::string> bw, lat;
  for (const auto &n : c.networks) {
    const long long size = std::max(1LL, std::llround(n.size.value));
    const long long dim = npus_of(n, npus);
    npus.push_back(dim);
    const double bytes_per_s = n.bandwidth_gbytes_per_s.value * n.efficiency.value * 1e9;
    const auto [latency_ns, latency_from] = latency_per_link_ns(n, dim);
    bw.push_back(fmt::format("{:.6g}", bytes_per_s / kAstraGigabyte));
    lat.push_back(fmt::format("{:.6g}", latency_ns));
    out += fmt::format("# dim {} = {}: {}; size {} ({}{}); bandwidth {}; latency {}\n", n.index,
                       n.name, n.measured ? "measured" : "NOT MEASURED", size, n.size.source,
                       n.size.measured || n.size.source == kUserSource
                           ? ""
                           : fmt::format(", ASSUMED: give --assume networks.{}.size", n.index),
                       n.bandwidth_gbytes_per_s.source, latency_from);
  }
  out += fmt::format("topology: [ {} ]\n",
                     fmt::join(std::vector<std::string>(npus.size(), "Switch"), ", "));
  out += fmt::format("npus_count: [ {} ]\n", fmt::join(npus, ", "));
  out += fmt::format("bandwidth: [ {} ]  # GB/s, 1 GB = 2^30 bytes as ASTRA-sim reads it\n",
                     fmt::join(bw, ", "));
  out += fmt::format("latency: [ {} ]  # ns\n", fmt::join(lat, ", "));
  return out;
}

} // namespace railgauge::calibrate
