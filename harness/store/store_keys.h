#pragma once
// What the stores that hold their values in this process (MemoryStore, the TCP store's server)
// share when they wait for keys: whether a map by key holds every key, the keys it lacks, and
// the StoreTimeout of a wait that ran out.
#include <algorithm>
#include <string>
#include <vector>

#include "harness/store/store.h"

namespace railgauge {

template <class Map> bool holds_all(const Map &values, const std::vector<std::string> &keys) {
  return std::all_of(keys.begin(), keys.end(), [&](const auto &k) { return values.count(k); });
}

// The keys of `keys` that `values` lacks, in their order.
template <class Map>
std::vector<std::string> keys_missing_from(const Map &values,
                                           const std::vector<std::string> &keys) {
  std::vector<std::string> missing;
  for (const auto &k : keys)
    if (!values.count(k))
      missing.push_back(k);
  return missing;
}

// "store: keys [...] did not appear within N ms", naming the `missing` keys.
StoreTimeout keys_timeout(std::vector<std::string> missing, Milliseconds timeout);

} // namespace railgauge
