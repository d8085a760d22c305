#include "harness/point_results.h"

#include <unordered_map>

#include <fmt/format.h>

namespace railgauge {

std::string point_identity(std::string_view key, const nlohmann::json &axes) {
  return fmt::format("{} {}", key,
                     axes.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

std::size_t keep_point_results(std::vector<Record> &records, std::vector<std::string> *unexpected) {
  const auto point_of = [](const Record &r) {
    return fmt::format("{}\n{}\n{}\n{}", r.run, r.host, r.rank, point_identity(r.key, r.axes));
  };
  std::vector<std::string> points(records.size());
  std::unordered_map<std::string, std::size_t> last; // point -> index of its last record
  for (std::size_t i = 0; i < records.size(); ++i)
    if (records[i].axes.is_object())
      last[points[i] = point_of(records[i])] = i;
  if (last.empty())
    return 0;
  std::vector<Record> kept;
  kept.reserve(records.size());
  for (std::size_t i = 0; i < records.size(); ++i) {
    if (!records[i].axes.is_object() || last.at(points[i]) == i) {
      kept.push_back(std::move(records[i]));
      continue;
    }
    if (unexpected && records[i].status != Status::error)
      unexpected->push_back(fmt::format(
          "{} recorded '{}', then '{}' ({})", records[i].key, to_string(records[i].status),
          to_string(records[last.at(points[i])].status), records[i].axes.dump()));
  }
  const std::size_t removed = records.size() - kept.size();
  records = std::move(kept);
  return removed;
}

} // namespace railgauge
