#include "analysis/calibrate/astra_network.h"

#include <cmath>

#include <fmt/format.h>

namespace railgauge::calibrate {
namespace {

// The per-step latency of one dimension in ns. A fitted α is the sum over the 2(n-1) steps of a
// ring all-reduce on the n ranks it was fitted on. An assumed latency (Calculon's default or the
// user's) was never fitted on a ring: dividing it by the steps of a ring on the tier's assumed
// size (2·32767 for a 65536-GPU fabric) would turn 20 µs into 0.3 ns. It is kept as it is.
std::pair<double, std::string> latency_per_step_ns(const NetworkTier &n, long long dim) {
  if (!n.latency_s.measured)
    return {n.latency_s.value * 1e9,
            fmt::format("{}, as is (assumed: not divided by ring steps)", n.latency_s.source)};
  const int ring_n = n.group_ranks > 1 ? n.group_ranks : static_cast<int>(std::max(2LL, dim));
  return {n.latency_s.value * 1e9 / (2.0 * (ring_n - 1)),
          fmt::format("{} over 2({}-1) ring steps", n.latency_s.source, ring_n)};
}

} // namespace

std::string astra_network_yaml(const Calibration &c) {
  std::string out =
      "# ASTRA-sim analytical network from `railgauge calibrate` (docs/calibrate.md).\n";
  std::vector<long long> npus;
  std::vector<std::string> bw, lat;
  for (const auto &n : c.networks) {
    const long long size = std::max(1LL, std::llround(n.size.value));
    const long long dim = n.index == 0 || npus.empty() ? size : std::max(1LL, size / npus.front());
    npus.push_back(dim);
    const double gbytes = n.bandwidth_gbytes_per_s.value * n.efficiency.value;
    const auto [latency_ns, latency_from] = latency_per_step_ns(n, dim);
    bw.push_back(fmt::format("{:.6g}", gbytes));
    lat.push_back(fmt::format("{:.6g}", latency_ns));
    out += fmt::format(
        "# dim {} = {}: {}; size {} ({}{}); bandwidth {}; latency {}\n", n.index, n.name,
        n.measured ? "measured" : "NOT MEASURED", size, n.size.source,
        n.size.measured ? "" : fmt::format(", ASSUMED: give --assume networks.{}.size", n.index),
        n.bandwidth_gbytes_per_s.source, latency_from);
  }
  out += fmt::format("topology: [ {} ]\n",
                     fmt::join(std::vector<std::string>(npus.size(), "Switch"), ", "));
  out += fmt::format("npus_count: [ {} ]\n", fmt::join(npus, ", "));
  out += fmt::format("bandwidth: [ {} ]  # GB/s\n", fmt::join(bw, ", "));
  out += fmt::format("latency: [ {} ]  # ns\n", fmt::join(lat, ", "));
  return out;
}

} // namespace railgauge::calibrate
