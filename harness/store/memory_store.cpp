#include "harness/store/memory_store.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace railgauge {

void MemoryStore::set(const std::string &key, const std::string &value) {
  {
    std::lock_guard lock(mutex_);
    values_[key] = value;
  }
  changed_.notify_all();
}

void MemoryStore::wait(const std::vector<std::string> &keys, Milliseconds timeout) {
  std::unique_lock lock(mutex_);
  const auto all_present = [&] {
    for (const auto &k : keys)
      if (!values_.count(k))
        return false;
    return true;
  };
  if (changed_.wait_for(lock, timeout, all_present))
    return;
  std::vector<std::string> missing;
  for (const auto &k : keys)
    if (!values_.count(k))
      missing.push_back(k);
  throw StoreTimeout(
      fmt::format("store: keys {} did not appear within {} ms", missing, timeout.count()), missing);
}

std::string MemoryStore::get(const std::string &key, Milliseconds timeout) {
  wait({key}, timeout);
  std::lock_guard lock(mutex_);
  return values_.at(key);
}

} // namespace railgauge
