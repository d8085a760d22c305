#include "analysis/calibrate/astra_network.h"

#include <cmath>

#include <fmt/format.h>

namespace railgauge::calibrate {

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
    const int ring_n = n.group_ranks > 1 ? n.group_ranks : static_cast<int>(std::max(2LL, dim));
    const double latency_ns = n.latency_s.value * 1e9 / (2.0 * (ring_n - 1));
    bw.push_back(fmt::format("{:.6g}", gbytes));
    lat.push_back(fmt::format("{:.6g}", latency_ns));
    out += fmt::format("# dim {} = {}: {}; bandwidth {} ; latency {} over 2({}-1) ring steps\n",
                       n.index, n.name, n.measured ? "measured" : "NOT MEASURED",
                       n.bandwidth_gbytes_per_s.source, n.latency_s.source, ring_n);
  }
  out += fmt::format("topology: [ {} ]\n",
                     fmt::join(std::vector<std::string>(npus.size(), "Switch"), ", "));
  out += fmt::format("npus_count: [ {} ]\n", fmt::join(npus, ", "));
  out += fmt::format("bandwidth: [ {} ]  # GB/s\n", fmt::join(bw, ", "));
  out += fmt::format("latency: [ {} ]  # ns\n", fmt::join(lat, ", "));
  return out;
}

} // namespace railgauge::calibrate
