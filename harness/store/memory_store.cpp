#include "harness/store/memory_store.h"

#include "harness/store/store_keys.h"

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
  if (changed_.wait_for(lock, timeout, [&] { return holds_all(values_, keys); }))
    return;
  throw keys_timeout(keys_missing_from(values_, keys), timeout);
}

std::string MemoryStore::get(const std::string &key, Milliseconds timeout) {
  wait({key}, timeout);
  std::lock_guard lock(mutex_);
  return values_.at(key);
}

} // namespace railgauge
