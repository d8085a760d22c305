#include "offload/pcie_link.h"
#include "harness/inventory/inventory_fields.h"
#include "harness/inventory/telemetry_fields.h"
#include "harness/json_integer.h"

#include <charconv>
#include <cmath>
#include <fstream>

#include <fmt/format.h>

namespace railgauge::offload {
namespace {

std::optional<std::string> read_line(const std::string &path) {
  std::ifstream in(path);
  std::string line;
  if (!in || !std::getline(in, line))
    return std::nullopt;
  return line;
}

std::optional<int> to_int(std::string_view text) {
  int value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end == text.data())
    return std::nullopt;
  return value;
}

std::optional<int> json_int(const nlohmann::json &j, const char *field) {
  return j.contains(field) ? json_integer<int>(j.at(field)) : std::nullopt;
}

} // namespace

std::optional<double> pcie_gtransfers_per_s(int generation) {
  switch (generation) {
  case 1:
    return 2.5;
  case 2:
    return 5.0;
  case 3:
    return 8.0;
  case 4:
    return 16.0;
  case 5:
    return 32.0;
  case 6:
    return 64.0;
  case 7:
    return 128.0;
  default:
    return std::nullopt;
  }
}

std::optional<double> pcie_encoding_efficiency(int generation) {
  if (generation == 1 || generation == 2)
    return 8.0 / 10.0;
  if (generation >= 3 && generation <= 5)
    return 128.0 / 130.0;
  if (generation == 6 || generation == 7)
    return 236.0 / 256.0;
  return std::nullopt;
}

std::string_view pcie_encoding_name(int generation) {
  if (generation == 1 || generation == 2)
    return "8b/10b";
  if (generation >= 3 && generation <= 5)
    return "128b/130b";
  if (generation == 6 || generation == 7)
    return "flit 236/256";
  return "unknown";
}

std::optional<double> pcie_link_gbytes_per_s(int generation, int width) {
  const auto rate = pcie_gtransfers_per_s(generation);
  const auto encoding = pcie_encoding_efficiency(generation);
  if (!rate || !encoding || width < 1)
    return std::nullopt;
  return *rate * width * *encoding / 8.0;
}

int pcie_tlp_overhead_bytes(int generation) { return generation >= 6 ? 16 : 24; }

double pcie_tlp_efficiency(int generation, int max_payload_bytes) {
  const double payload = max_payload_bytes;
  return payload / (payload + pcie_tlp_overhead_bytes(generation));
}

std::optional<double> pcie_expected_gbytes_per_s(int generation, int width, int max_payload_bytes) {
  const auto link = pcie_link_gbytes_per_s(generation, width);
  if (!link)
    return std::nullopt;
  return *link * pcie_tlp_efficiency(generation, max_payload_bytes);
}

std::optional<std::string> pcie_downtrained_reason(const PcieLinkState &link) {
  if (!link.gen_current || !link.width_current || !link.gen_max || !link.width_max)
    return std::nullopt;
  const bool slow_gen = *link.gen_current < *link.gen_max;
  const bool narrow = *link.width_current < *link.width_max;
  if (!slow_gen && !narrow)
    return std::nullopt;
  const char *what = slow_gen && narrow ? "generation and width"
                     : slow_gen         ? "generation"
                                        : "width";
  return fmt::format("Gen{} x{} of Gen{} x{}: {}", *link.gen_current, *link.width_current,
                     *link.gen_max, *link.width_max, what);
}

record::PcieLinkFields pcie_link_fields(const std::optional<PcieLinkState> &link,
                                        std::optional<double> measured_gbytes_per_s, int directions,
                                        const std::string &unknown_reason) {
  record::PcieLinkFields out;
  if (!link) {
    out.unknown_reason = unknown_reason.empty() ? "no link information" : unknown_reason;
    return out;
  }
  out.source = link->source;
  out.gen = link->gen_current;
  out.width = link->width_current;
  out.gen_max = link->gen_max;
  out.width_max = link->width_max;
  out.downtrained_reason = pcie_downtrained_reason(*link);
  out.downtrained = out.downtrained_reason.has_value();
  if (!link->gen_current || !link->width_current)
    return out;
  const int gen = *link->gen_current, width = *link->width_current;
  const auto expected = pcie_expected_gbytes_per_s(gen, width);
  out.rates = record::PcieLinkFields::Rates{
      std::string(pcie_encoding_name(gen)), pcie_link_gbytes_per_s(gen, width),
      expected ? std::optional(*expected * directions) : std::nullopt, kAssumedMaxPayloadBytes};
  if (expected && measured_gbytes_per_s)
    out.efficiency = *measured_gbytes_per_s / (*expected * directions);
  return out;
}

nlohmann::json pcie_metrics(const std::optional<PcieLinkState> &link,
                            std::optional<double> measured_gbytes_per_s, int directions,
                            const std::string &unknown_reason) {
  nlohmann::json m;
  pcie_link_fields(link, measured_gbytes_per_s, directions, unknown_reason).write(m);
  return m;
}

std::optional<int> pcie_generation_from_sysfs_speed(std::string_view text) {
  const auto space = text.find(' ');
  if (space == std::string_view::npos || text.substr(space + 1, 4) != "GT/s")
    return std::nullopt;
  const std::string number(text.substr(0, space));
  char *end = nullptr;
  const double rate = std::strtod(number.c_str(), &end);
  if (end == number.c_str())
    return std::nullopt;
  for (int gen = 1; gen <= 7; ++gen)
    if (std::abs(*pcie_gtransfers_per_s(gen) - rate) < 1e-6)
      return gen;
  return std::nullopt;
}

std::optional<PcieLinkState> read_sysfs_pcie_link(const std::string &sysfs_root,
                                                  const std::string &bus_id) {
  const std::string dir = sysfs_root + "/bus/pci/devices/" + bus_id + "/";
  const auto current_speed = read_line(dir + "current_link_speed");
  if (!current_speed)
    return std::nullopt;
  PcieLinkState link;
  link.source = "sysfs";
  link.gen_current = pcie_generation_from_sysfs_speed(*current_speed);
  if (const auto max_speed = read_line(dir + "max_link_speed"))
    link.gen_max = pcie_generation_from_sysfs_speed(*max_speed);
  if (const auto w = read_line(dir + "current_link_width"))
    link.width_current = to_int(*w);
  if (const auto w = read_line(dir + "max_link_width"))
    link.width_max = to_int(*w);
  return link;
}

std::optional<PcieLinkState> pcie_link_from_nvml(const nlohmann::json &nvml,
                                                 const std::string &bus_id) {
  namespace inv = inventory_field;
  if (!nvml.is_object() || !nvml.value(inv::kAvailable, false) || !nvml.contains(inv::kGpus))
    return std::nullopt;
  for (const auto &gpu : nvml.at(inv::kGpus)) {
    if (!gpu.contains(inv::kPciBusId) || !gpu.at(inv::kPciBusId).is_string() ||
        gpu.at(inv::kPciBusId).get<std::string>() != bus_id || !gpu.contains(inv::kPcie) ||
        !gpu.at(inv::kPcie).is_object())
      continue;
    const auto &p = gpu.at(inv::kPcie);
    PcieLinkState link;
    link.source = "nvml";
    link.gen_current = json_int(p, inv::kGenCurrent);
    link.width_current = json_int(p, inv::kWidthCurrent);
    link.gen_max = json_int(p, inv::kGenMax);
    link.width_max = json_int(p, inv::kWidthMax);
    if (!link.gen_current && !link.width_current)
      return std::nullopt;
    return link;
  }
  return std::nullopt;
}

bool link_sampled_while_running(const nlohmann::json &during) {
  if (!during.is_object() || !during.value(telemetry::kAvailable, false) ||
      !during.contains(telemetry::kPcie) || !during.at(telemetry::kPcie).is_object())
    return false;
  const auto &pcie = during.at(telemetry::kPcie);
  return json_int(pcie, telemetry::kGenMax) || json_int(pcie, telemetry::kWidthMax);
}

PcieLinkState link_while_running(PcieLinkState snapshot, const nlohmann::json &during) {
  if (!link_sampled_while_running(during))
    return snapshot;
  const auto &pcie = during.at(telemetry::kPcie);
  const std::optional<int> gen = json_int(pcie, telemetry::kGenMax),
                           width = json_int(pcie, telemetry::kWidthMax);
  if (gen)
    snapshot.gen_current = gen;
  if (width)
    snapshot.width_current = width;
  snapshot.source = "nvml_while_running";
  return snapshot;
}

} // namespace railgauge::offload
