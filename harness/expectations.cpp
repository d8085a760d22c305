#include "harness/expectations.h"

#include <charconv>

#include <fmt/format.h>

#include "harness/error.h"
#include "harness/inventory/inventory_fields.h"
#include "harness/number_text.h"

namespace railgauge {

std::map<std::string, int> parse_expectations(const std::vector<std::string> &texts,
                                              const std::string &where) {
  std::map<std::string, int> out;
  for (const auto &text : texts) {
    std::size_t start = 0;
    while (start <= text.size()) {
      const auto comma = text.find(',', start);
      const std::string item(trimmed(std::string_view(text).substr(
          start, comma == std::string::npos ? std::string::npos : comma - start)));
      start = comma == std::string::npos ? text.size() + 1 : comma + 1;
      if (item.empty())
        continue;
      const auto eq = item.find('=');
      const std::string name = item.substr(0, eq);
      if (eq == std::string::npos || (name != "gpus" && name != "nics"))
        throw InputError(fmt::format("'{}' is not an expectation", item), where,
                         "give gpus=N and/or nics=N, e.g. --expect gpus=8,nics=8");
      int count = -1;
      const std::string value = item.substr(eq + 1);
      const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), count);
      if (ec != std::errc() || end != value.data() + value.size() || count < 0)
        throw InputError(fmt::format("'{}' in '{}' is not a count", value, item), where,
                         "give a whole number >= 0, e.g. --expect gpus=8");
      out[name] = count;
    }
  }
  return out;
}

std::map<std::string, int> found_hardware(int cuda_devices, const nlohmann::json &inventory) {
  int nics = 0;
  if (inventory.contains(inventory_field::kVerbs) &&
      inventory[inventory_field::kVerbs].contains(inventory_field::kDevices) &&
      inventory[inventory_field::kVerbs][inventory_field::kDevices].is_array())
    nics = static_cast<int>(inventory[inventory_field::kVerbs][inventory_field::kDevices].size());
  return {{"gpus", cuda_devices}, {"nics", nics}};
}

std::vector<std::string> unmet_expectations(const std::map<std::string, int> &expected,
                                            const std::map<std::string, int> &found) {
  std::vector<std::string> out;
  for (const auto &[name, want] : expected) {
    const auto it = found.find(name);
    const int have = it == found.end() ? 0 : it->second;
    if (have < want)
      out.push_back(fmt::format("{}: expected {}, found {}", name, want, have));
  }
  return out;
}

} // namespace railgauge
