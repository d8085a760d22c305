#include "records/collective_point_fields.h"

#include <array>
#include <utility>

#include "harness/record_fields.h"
#include "records/collective_record.h"
#include "records/figure_list.h"

namespace railgauge::collectives::record {
namespace {

namespace f = record_fields;

// The figures by their names: the one list write(), read() and empty() go through.
template <typename Fields> auto collective_numbers(Fields &c) {
  return std::array{std::pair{kAlgbwGbytesPerS, &c.algbw_gbytes_per_s},
                    std::pair{kBusbwGbytesPerS, &c.busbw_gbytes_per_s},
                    std::pair{kBusbwMaxGbytesPerS, &c.busbw_max_gbytes_per_s},
                    std::pair{kWallBusbwGbytesPerS, &c.wall_busbw_gbytes_per_s},
                    std::pair{kBusFactor, &c.bus_factor},
                    std::pair{kWallTimeS, &c.wall_time_s},
                    std::pair{kCpuTimeS, &c.cpu_time_s}};
}

// A whole count as the integer it was written as, a number of another kind as that number.
std::optional<WrongCount> wrong_count(const nlohmann::json &metrics) {
  const auto *count = f::field(metrics, kWrongElements);
  if (!count || !count->is_number())
    return std::nullopt;
  if (count->is_number_float())
    return WrongCount(count->get<double>());
  const auto whole = f::integer(metrics, kWrongElements);
  return *whole >= 0 ? std::optional(WrongCount(static_cast<std::uint64_t>(*whole))) : std::nullopt;
}

std::optional<bool> verified_flag(const nlohmann::json &metrics) {
  const auto *flag = f::field(metrics, kVerified);
  return flag && flag->is_boolean() ? std::optional(flag->get<bool>()) : std::nullopt;
}

} // namespace

CollectiveFields CollectiveFields::of(Kind kind, std::uint64_t size_bytes, int group_ranks,
                                      const Summary &time_s, double back_to_back_s) {
  const auto median = bandwidth(kind, size_bytes, group_ranks, time_s.median);
  const auto fastest = bandwidth(kind, size_bytes, group_ranks, time_s.min);
  CollectiveFields c;
  c.algbw_gbytes_per_s = median.algbw_gbytes_per_s;
  c.busbw_gbytes_per_s = median.busbw_gbytes_per_s;
  c.busbw_max_gbytes_per_s = fastest.busbw_gbytes_per_s;
  c.bus_factor = collectives::bus_factor(kind, group_ranks);
  if (back_to_back_s > 0)
    c.wall_busbw_gbytes_per_s =
        bandwidth(kind, size_bytes, group_ranks, back_to_back_s).busbw_gbytes_per_s;
  return c;
}

bool CollectiveFields::empty() const {
  return records::figures_unset(collective_numbers(*this)) && !wrong_elements && !verified;
}

void CollectiveFields::write(nlohmann::json &metrics) const {
  records::put_figures(metrics, collective_numbers(*this));
  if (wrong_elements)
    std::visit([&metrics](auto count) { metrics[kWrongElements] = count; }, *wrong_elements);
  if (verified)
    metrics[kVerified] = *verified;
}

std::optional<CollectiveFields> CollectiveFields::read(const nlohmann::json &metrics) {
  CollectiveFields c;
  records::take_numbers(metrics, collective_numbers(c));
  c.wrong_elements = wrong_count(metrics);
  c.verified = verified_flag(metrics);
  return c.empty() ? std::nullopt : std::optional(c);
}

} // namespace railgauge::collectives::record
