#include "analysis/compare/counted_points.h"

#include <algorithm>
#include <map>

#include "records/per_gpu_parts.h"

namespace railgauge::compare {
namespace {

bool is_part(const nlohmann::json &params) {
  return params.value(records::kPartParam, nlohmann::json()) == records::kPerGpuPart;
}

// The inputs that hold a figure of the point, or a record of it that broke.
long held_by(const std::vector<Slot> &slots) {
  return std::count_if(slots.begin(), slots.end(),
                       [](const Slot &s) { return !s.values.empty() || !s.not_ok.empty(); });
}

} // namespace

bool CountedPoints::counted(const PointComparison &p) const {
  return is_part(p.params) ? !by_totals.contains(p.key) : !by_parts.contains(p.key);
}

CountedPoints counted_points(const Points &points, const ParamsOf &params_of, const Sides &sides) {
  std::set<std::string> compared, parts_unspread, totals_spread;
  std::map<std::string, int> parts, totals; // compared points per key
  for (const auto &[id, params] : params_of) {
    const auto at = points.find(id);
    if (at == points.end() || held_by(at->second.second) < 2)
      continue;
    const auto &of = sides.at(id);
    const bool spread =
        std::all_of(of.begin(), of.end(), [](const auto &s) { return !s || s->noise.has_value(); });
    ++(is_part(params) ? parts : totals)[id.key];
    if (is_part(params)) {
      compared.insert(id.key);
      if (!spread)
        parts_unspread.insert(id.key);
    } else if (spread) {
      totals_spread.insert(id.key);
    }
  }
  CountedPoints out;
  // Only where each total is one GPU's (as many totals as parts): of 8 GPUs, the total would
  // hide the one GPU 20 % slow that its part names.
  for (const auto &key : compared)
    (parts_unspread.contains(key) && totals_spread.contains(key) && parts[key] == totals[key]
         ? out.by_totals
         : out.by_parts)
        .insert(key);
  return out;
}

} // namespace railgauge::compare
