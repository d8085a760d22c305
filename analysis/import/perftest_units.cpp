#include "analysis/import/perftest_units.h"

#include <cmath>

#include <fmt/format.h>

namespace railgauge::importers {

std::optional<std::string> unit_by_message_rate(bool header_gbits, std::optional<double> size_bytes,
                                                rdma::record::BandwidthFields &bandwidth,
                                                bool &contradicts) {
  contradicts = false;
  constexpr double kMbToGbits = 8.0 * 1048576.0 / 1e9; // perftest's MB/sec is MiB/s
  constexpr double kAgree = 0.03;       // BW and MsgRate are printed to 2 and 6 decimals
  constexpr double kLeastPrinted = 1.0; // a BW under 1 has under three digits
  const double header_factor = header_gbits ? 1.0 : kMbToGbits;
  const double other_factor = header_gbits ? kMbToGbits : 1.0;
  if (!bandwidth.gbits_per_s || !bandwidth.message_rate_per_s || !size_bytes || *size_bytes <= 0 ||
      *bandwidth.gbits_per_s / header_factor < kLeastPrinted || *bandwidth.message_rate_per_s <= 0)
    return std::nullopt;
  const double from_rate = *bandwidth.message_rate_per_s * *size_bytes * 8 / 1e9;
  const double printed = *bandwidth.gbits_per_s / header_factor;
  // perftest prints MsgRate in Mpps to 6 decimals, one message a second: at 1 GiB a message, 10
  // a second on 100 Gb/s, that is 5 %. The BW is printed to 2 decimals.
  const double resolution =
      0.5 / *bandwidth.message_rate_per_s + 0.005 / printed; // relative, of each print
  const auto fits = [&](double factor) {
    return std::fabs(printed * factor / from_rate - 1) <= kAgree + resolution;
  };
  if (fits(header_factor))
    return std::nullopt;
  const char *header = header_gbits ? "Gb/sec" : "MB/sec";
  const char *other = header_gbits ? "MB/sec" : "Gb/sec";
  if (!fits(other_factor)) {
    contradicts = true;
    return fmt::format("BW average {} {} and MsgRate {:g} Mpps at {:g} bytes ({:.4g} Gb/s) agree "
                       "in neither unit",
                       printed, header, *bandwidth.message_rate_per_s / 1e6, *size_bytes,
                       from_rate);
  }
  const double scale = other_factor / header_factor;
  for (auto *figure : {&bandwidth.gbits_per_s, &bandwidth.gbits_peak_per_s, &bandwidth.gbytes_per_s,
                       &bandwidth.bidirectional_gbits_per_s})
    if (*figure)
      **figure *= scale;
  return fmt::format("read in {}: the header says {}, and MsgRate {:g} Mpps at {:g} bytes is "
                     "{:.4g} Gb/s (a server prints its client's figures under its own header)",
                     other, header, *bandwidth.message_rate_per_s / 1e6, *size_bytes, from_rate);
}

} // namespace railgauge::importers
