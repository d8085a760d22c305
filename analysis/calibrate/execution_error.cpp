#include "analysis/calibrate/execution_error.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace railgauge::calibrate {

std::vector<SizeError> errors_by_size(const std::vector<PointError> &points,
                                      const std::string &tag) {
  std::map<double, std::pair<std::size_t, double>> by_x;
  for (const auto &p : points)
    if (tag.empty() || p.tag == tag) {
      auto &[n, sum] = by_x[p.x];
      ++n;
      sum += p.rel;
    }
  std::vector<SizeError> out;
  for (const auto &[x, ns] : by_x)
    out.push_back({x, ns.first, ns.second / static_cast<double>(ns.first)});
  return out;
}

double error_at(const std::vector<SizeError> &t, double x, bool *outside) {
  if (outside)
    *outside = x < t.front().x || x > t.back().x;
  if (x <= t.front().x)
    return t.front().mean_rel;
  if (x >= t.back().x)
    return t.back().mean_rel;
  const auto hi =
      std::lower_bound(t.begin(), t.end(), x, [](const SizeError &s, double v) { return s.x < v; });
  if (hi->x == x)
    return hi->mean_rel;
  const auto lo = hi - 1;
  // Sizes are positive wherever an execution asks for one; a measured size of 0 (a latency
  // point) is read as the smallest positive one.
  const double l0 = std::log(std::max(lo->x, 1.0)), l1 = std::log(std::max(hi->x, 1.0));
  const double w = l1 > l0 ? (std::log(x) - l0) / (l1 - l0) : 1.0;
  return lo->mean_rel + std::clamp(w, 0.0, 1.0) * (hi->mean_rel - lo->mean_rel);
}

ExecutionError execution_error(const std::vector<PointError> &held_out,
                               const std::vector<SizeUse> &uses,
                               const std::function<double(const SizeUse &)> &time_of,
                               const std::function<std::string(const SizeUse &)> &tag_of) {
  ExecutionError e;
  std::map<std::string, std::vector<SizeError>> tables;
  double w_time = 0, w_calls = 0, sum_time = 0, sum_calls = 0, outside = 0, unmeasured = 0;
  bool any = false;
  for (const auto &u : uses) {
    const std::string tag = tag_of(u);
    auto it = tables.find(tag);
    if (it == tables.end())
      it = tables.emplace(tag, errors_by_size(held_out, tag)).first;
    const double time = u.calls * time_of(u);
    e.asked_min = any ? std::min(e.asked_min, u.x) : u.x;
    e.asked_max = any ? std::max(e.asked_max, u.x) : u.x;
    any = true;
    ++e.asked;
    if (it->second.empty()) {
      unmeasured += time;
      continue;
    }
    bool out = false;
    const double err = error_at(it->second, u.x, &out);
    w_time += time;
    w_calls += u.calls;
    sum_time += time * err;
    sum_calls += u.calls * err;
    if (out)
      outside += time;
  }
  e.time_s = w_time;
  if (w_time > 0)
    e.weighted = sum_time / w_time;
  if (w_calls > 0)
    e.by_calls = sum_calls / w_calls;
  if (w_time + unmeasured > 0) {
    e.share_outside = outside / (w_time + unmeasured);
    e.share_unmeasured = unmeasured / (w_time + unmeasured);
  }
  return e;
}

nlohmann::json to_json(const ExecutionError &e) {
  const auto opt = [](const std::optional<double> &v) {
    return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
  };
  return {{"uses", e.asked},
          {"asked_min", e.asked_min},
          {"asked_max", e.asked_max},
          {"time_s", e.time_s},
          {"weighted_mean_rel", opt(e.weighted)},
          {"by_calls_mean_rel", opt(e.by_calls)},
          {"share_outside_measured_sizes", e.share_outside},
          {"share_on_unmeasured_ops", e.share_unmeasured}};
}

nlohmann::json per_size_json(const std::vector<PointError> &held_out) {
  const auto t = errors_by_size(held_out);
  if (t.empty())
    return nullptr;
  nlohmann::json rows = nlohmann::json::array();
  double sum = 0;
  for (const auto &s : t) {
    rows.push_back({{"x", s.x}, {"points", s.points}, {"mean_rel", s.mean_rel}});
    sum += s.mean_rel;
  }
  return {{"sizes", t.size()}, {"mean_rel", sum / static_cast<double>(t.size())}, {"table", rows}};
}

} // namespace railgauge::calibrate
