#include "rdma/stopping_rule.h"

#include <limits>
#include <stdexcept>

#include <fmt/format.h>

namespace railgauge::rdma {

MeasureSpec fixed_calls_spec(const MeasureSpec &base, std::int64_t calls) {
  if (calls < 1 || calls > std::numeric_limits<int>::max())
    throw std::invalid_argument(fmt::format("{} calls cannot be measured", calls));
  MeasureSpec spec = base;
  spec.min_samples = static_cast<int>(calls); // the core's first round takes them all
  spec.max_samples = static_cast<int>(calls);
  spec.max_rel_noise = 0;
  spec.time_budget_s = std::numeric_limits<double>::max();
  spec.min_sample_s = 0; // one call per sample
  return spec;
}

MeasureSpec back_to_back_spec(const MeasureSpec &base, std::int64_t calls) {
  MeasureSpec spec = fixed_calls_spec(base, calls);
  spec.min_samples = 1;
  spec.max_samples = 1;
  spec.batch = calls;
  return spec;
}

std::int64_t calls_for_messages(std::uint64_t iterations, std::uint64_t per_call) {
  if (per_call == 0)
    throw std::invalid_argument("a call must carry at least one message");
  return static_cast<std::int64_t>((iterations + per_call - 1) / per_call);
}

double serve_deadline_s(double peer_timeout_s, double time_budget_s, std::uint64_t iterations) {
  constexpr double kPerIteration_s = 0.05;
  const double measuring_s =
      iterations > 0 ? kPerIteration_s * static_cast<double>(iterations) : 2 * time_budget_s;
  return peer_timeout_s + measuring_s;
}

} // namespace railgauge::rdma
