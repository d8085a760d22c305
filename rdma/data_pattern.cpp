#include "rdma/data_pattern.h"

#include <fmt/format.h>

#include "records/rdma_record.h"

namespace railgauge::rdma {
namespace {

std::uint8_t expected(std::size_t i, std::uint64_t seed) {
  return static_cast<std::uint8_t>((i * 131 + seed * 7 + 17) & 0xff);
}

} // namespace

void fill_pattern(std::uint8_t *data, std::size_t bytes, std::uint64_t seed) {
  for (std::size_t i = 0; i < bytes; ++i)
    data[i] = expected(i, seed);
}

std::size_t count_pattern_errors(const std::uint8_t *data, std::size_t bytes, std::uint64_t seed) {
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < bytes; ++i)
    wrong += data[i] != expected(i, seed);
  return wrong;
}

std::string check_pattern(const std::uint8_t *data, std::size_t bytes, std::uint64_t seed,
                          const std::string &what) {
  const std::size_t wrong = count_pattern_errors(data, bytes, seed);
  if (wrong == 0)
    return {};
  std::size_t first = 0;
  while (data[first] == expected(first, seed))
    ++first;
  return fmt::format("{}: {} of {} bytes differ from the pattern, first at byte {}", what, wrong,
                     bytes, first);
}

void DataCheck::check(std::uint8_t *data, std::size_t bytes, std::uint64_t seed,
                      const std::string &what, const BeforeDataCheck &before) {
  if (before)
    before(data, bytes);
  if (auto p = check_pattern(data, bytes, seed, what); !p.empty()) {
    problems.push_back(std::move(p));
    wrong_bytes += count_pattern_errors(data, bytes, seed);
  }
}

void DataCheck::add(const DataCheck &other) {
  problems.insert(problems.end(), other.problems.begin(), other.problems.end());
  wrong_bytes += other.wrong_bytes;
}

void DataCheck::conclude(Outcome &out) const {
  if (!problems.empty())
    out.metrics[record::kWrongBytes] = wrong_bytes;
  out.conclude_data_check(problems);
}

nlohmann::json DataCheck::to_json() const {
  return {{"problems", problems}, {"wrong_bytes", wrong_bytes}};
}

DataCheck DataCheck::from_json(const nlohmann::json &j) {
  DataCheck c;
  c.problems = j.at("problems").get<std::vector<std::string>>();
  c.wrong_bytes = j.value("wrong_bytes", std::size_t{0});
  return c;
}

} // namespace railgauge::rdma
