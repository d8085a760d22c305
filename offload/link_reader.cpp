#include "offload/link_reader.h"

#include <fmt/format.h>

#include "harness/inventory/inventory_fields.h"
#include "harness/inventory/nvml_query.h"
#include "harness/metric_names.h"

namespace railgauge::offload {

std::pair<std::optional<PcieLinkState>, std::string>
LinkReader::read(const std::string &bus_id, const nlohmann::json &during) const {
  const nlohmann::json fresh =
      link_sampled_while_running(during) ? nlohmann::json() : query_nvml(nvml_library_);
  const nlohmann::json &nvml = link_sampled_while_running(during) ? snapshot_ : fresh;
  if (auto link = pcie_link_from_nvml(nvml, bus_id))
    return {link_while_running(*link, during), ""};
  if (auto link = read_sysfs_pcie_link(sysfs_root_, bus_id))
    return {link_while_running(*link, during), ""};
  std::string nvml_why = "no GPU with this bus id, or no PCIe fields";
  namespace inv = inventory_field;
  if (!nvml.value(inv::kAvailable, false) && nvml.contains(inv::kReason) &&
      nvml.at(inv::kReason).is_string())
    nvml_why = nvml.at(inv::kReason).get<std::string>();
  return {std::nullopt, fmt::format("neither NVML ({}) nor {}/bus/pci/devices/{} gave the link",
                                    nvml_why, sysfs_root_, bus_id)};
}

record::PcieLinkFields link_fields(const LinkReader &links, const std::string &bus_id,
                                   const nlohmann::json &during, std::optional<double> measured,
                                   int directions) {
  const auto [link, why] = links.read(bus_id, during);
  return pcie_link_fields(link, measured, directions, why);
}

nlohmann::json link_metrics(const record::PcieLinkFields &link, const nlohmann::json &during) {
  nlohmann::json j = nlohmann::json::object();
  link.write(j);
  j[metric::kTelemetry] = during;
  return j;
}

nlohmann::json link_metrics(const LinkReader &links, const std::string &bus_id,
                            const nlohmann::json &during, std::optional<double> measured,
                            int directions) {
  return link_metrics(link_fields(links, bus_id, during, measured, directions), during);
}

} // namespace railgauge::offload
