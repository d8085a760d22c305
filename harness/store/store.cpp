#include "harness/store/store.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace railgauge {
namespace {

std::vector<std::string> rank_keys(const std::string &prefix, int world_size) {
  std::vector<std::string> keys;
  for (int r = 0; r < world_size; ++r)
    keys.push_back(prefix + std::to_string(r));
  return keys;
}

// Waits for one key per rank; a timeout is rethrown naming the ranks that did not arrive.
void wait_for_ranks(Store &store, const std::string &what, const std::string &prefix,
                    int world_size, Milliseconds timeout) {
  try {
    store.wait(rank_keys(prefix, world_size), timeout);
  } catch (const StoreTimeout &e) {
    const auto ranks = ranks_missing(e.missing_keys(), prefix);
    throw StoreTimeout(fmt::format("{}: rank{} {} of {} did not arrive within {} s", what,
                                   ranks.size() == 1 ? "" : "s", fmt::join(ranks, ", "), world_size,
                                   timeout.count() / 1000.0),
                       e.missing_keys());
  }
}

} // namespace

std::vector<int> ranks_missing(const std::vector<std::string> &missing_keys,
                               const std::string &prefix) {
  std::vector<int> ranks;
  for (const auto &k : missing_keys)
    if (k.size() > prefix.size() && k.compare(0, prefix.size(), prefix) == 0)
      ranks.push_back(std::stoi(k.substr(prefix.size())));
  return ranks;
}

std::string barrier_key_prefix(const std::string &name) { return "barrier/" + name + "/"; }

void store_barrier(Store &store, const std::string &name, int rank, int world_size,
                   Milliseconds timeout) {
  const std::string prefix = barrier_key_prefix(name);
  store.set(prefix + std::to_string(rank), "");
  wait_for_ranks(store, fmt::format("barrier '{}'", name), prefix, world_size, timeout);
}

std::vector<std::string> store_all_gather(Store &store, const std::string &name, int rank,
                                          int world_size, const std::string &value,
                                          Milliseconds timeout) {
  const std::string prefix = "gather/" + name + "/";
  store.set(prefix + std::to_string(rank), value);
  wait_for_ranks(store, fmt::format("all-gather '{}'", name), prefix, world_size, timeout);
  std::vector<std::string> values;
  for (int r = 0; r < world_size; ++r)
    values.push_back(store.get(prefix + std::to_string(r), timeout));
  return values;
}

} // namespace railgauge
