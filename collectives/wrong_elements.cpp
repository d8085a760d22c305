#include "collectives/wrong_elements.h"

#include <cmath>
#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "records/collective_point_fields.h"
#include "records/collective_record.h"

namespace railgauge::collectives {

WrongAcrossRanks wrong_across_ranks(const std::vector<double> &per_rank) {
  WrongAcrossRanks w;
  for (std::size_t r = 0; r < per_rank.size(); ++r) {
    const double count = per_rank[r];
    // A count that is not a whole non-negative number is a corrupted exchange, not a result.
    if (!(count >= 0) || count != std::floor(count))
      throw std::runtime_error(
          fmt::format("data check: rank {} reported {} wrong elements", r, count));
    if (count > 0) {
      w.total += static_cast<std::uint64_t>(count);
      w.ranks.push_back(static_cast<int>(r));
    }
  }
  return w;
}

std::string describe(const WrongAcrossRanks &w) {
  if (w.total == 0)
    return "";
  return fmt::format("{} element{} wrong over all ranks (rank{} {})", w.total,
                     w.total == 1 ? "" : "s", w.ranks.size() == 1 ? "" : "s",
                     fmt::join(w.ranks, ", "));
}

void add_wrong_elements(nlohmann::json &metrics, const WrongAcrossRanks &w) {
  add_wrong_total(metrics, w.total);
  metrics[record::kWrongElementRanks] = w.ranks;
}

void add_wrong_total(nlohmann::json &metrics, std::uint64_t total) {
  record::CollectiveFields checked;
  checked.wrong_elements = record::WrongCount(total);
  checked.write(metrics);
}

std::optional<std::string> wrong_problem(const WrongAcrossRanks &w, const CheckResult &mine) {
  if (w.total == 0)
    return std::nullopt;
  if (mine.wrong == 0)
    return describe(w) + "; this process's outputs are right";
  return describe(w) + "; this process: " + mine.describe("its outputs");
}

} // namespace railgauge::collectives
