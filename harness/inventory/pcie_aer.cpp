#include "harness/inventory/pcie_aer.h"

#include <cctype>
#include <charconv>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "harness/inventory/inventory_fields.h"

namespace railgauge {

nlohmann::json parse_aer_counters(const std::string &text) {
  nlohmann::json counters = nlohmann::json::object();
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    std::istringstream words(line);
    std::string name, count, extra;
    if (!(words >> name >> count) || (words >> extra))
      continue;
    unsigned long long value = 0;
    const auto [end, ec] = std::from_chars(count.data(), count.data() + count.size(), value);
    if (ec == std::errc() && end == count.data() + count.size())
      counters[name] = value;
  }
  return counters;
}

nlohmann::json read_pcie_aer(const std::string &sysfs_root, const std::string &bus_id) {
  // A bus id from NVML is upper case with 8 hex digits of domain; sysfs names it 0000:00:06.0.
  std::string id = bus_id;
  for (auto &c : id)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (id.size() > 12 && id.find(':') == 8)
    id = id.substr(4);
  const std::string dir = fmt::format("{}/bus/pci/devices/{}", sysfs_root, id);
  nlohmann::json out = {{inventory_field::kAvailable, true}};
  for (const char *kind :
       {inventory_field::kCorrectable, inventory_field::kNonfatal, inventory_field::kFatal}) {
    std::ifstream in(fmt::format("{}/aer_dev_{}", dir, kind));
    if (!in)
      return {{inventory_field::kAvailable, false},
              {inventory_field::kReason,
               fmt::format("{}/aer_dev_{} cannot be read (no AER statistics: a kernel "
                           "without AER, or a VM's virtual root port)",
                           dir, kind)}};
    std::stringstream text;
    text << in.rdbuf();
    out[kind] = parse_aer_counters(text.str());
  }
  return out;
}

} // namespace railgauge
