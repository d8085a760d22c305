#include "analysis/import/perftest_text.h"

#include <charconv>
#include <sstream>
#include <string_view>

#include "harness/number_text.h"

namespace railgauge::importers {
namespace {

// perftest separates the two fields of a line with a tab; a copy that turned it into spaces (a
// README, a blog post) keeps a run of them: the second field's name starts after the last run of
// two or more spaces before its colon. A copy that squeezed every run into one space keeps none:
// there the first field's value ends at its first word, as perftest prints one word there (ON,
// OFF, a count, a device, RC). A field's name ends at ':' then a space (" : ", or
// "PCIe relax order: "). Each separator becomes '\x1f'.
std::string with_field_separators(std::string line) {
  // perftest pads a name with a tab too (" rdma_cm QPs\t : OFF"): one before a colon is not
  // between two fields.
  for (std::size_t i = 0; i < line.size(); ++i)
    if (line[i] == '\t') {
      const auto next = line.find_first_not_of(" \t", i);
      line[i] = next != std::string::npos && line[next] == ':' ? ' ' : '\x1f';
    }
  if (line.find('\x1f') != std::string::npos)
    return line;
  std::vector<std::size_t> colons;
  for (std::size_t i = 0; i + 1 < line.size(); ++i)
    if (line[i] == ':' && line[i + 1] == ' ')
      colons.push_back(i);
  for (std::size_t k = 1; k < colons.size(); ++k) {
    const auto value_start = line.find_first_not_of(' ', colons[k - 1] + 1);
    const auto name_end = line.find_last_not_of(' ', colons[k] - 1);
    if (value_start == std::string::npos || name_end == std::string::npos ||
        value_start >= name_end)
      continue;
    auto gap = line.rfind("  ", name_end);
    if (gap == std::string::npos || gap < value_start)
      gap = line.find(' ', value_start);
    if (gap != std::string::npos && gap < name_end)
      line[gap] = '\x1f';
  }
  return line;
}

} // namespace

void parse_fields(const std::string &line, std::map<std::string, std::string> &fields) {
  const std::string rest = with_field_separators(line);
  std::stringstream parts(rest);
  std::string part;
  while (std::getline(parts, part, '\x1f')) {
    const auto colon = part.find(" : ");
    const auto colon2 = part.find(':');
    const auto at = colon != std::string::npos ? colon + 1 : colon2;
    if (at == std::string::npos)
      continue;
    const std::string name = std::string(trimmed(part.substr(0, at)));
    const std::string value = std::string(trimmed(part.substr(at + 1)));
    if (!name.empty() && !value.empty() && name.find(' ') != 0)
      fields.emplace(name, value);
  }
}

nlohmann::json field_value(const std::string &value) {
  std::string_view digits(value);
  if (digits.ends_with("[B]"))
    digits.remove_suffix(3);
  long long v = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
  if (!digits.empty() && ec == std::errc() && end == digits.data() + digits.size())
    return v;
  return value;
}

std::vector<std::string> split_ws(const std::string &line) {
  std::vector<std::string> out;
  std::stringstream in(line);
  std::string w;
  while (in >> w)
    out.push_back(w);
  return out;
}

std::vector<std::string> header_columns(const std::string &line) {
  std::vector<std::string> cols;
  std::string current;
  for (const std::string &w : split_ws(line)) {
    current += current.empty() ? w : " " + w;
    if (w.back() == ']' || (current.front() == '#' && current.find(' ') == std::string::npos)) {
      cols.push_back(current);
      current.clear();
    }
  }
  if (!current.empty())
    cols.push_back(current);
  return cols;
}

} // namespace railgauge::importers
