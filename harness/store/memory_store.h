#pragma once
// A Store in this process's memory, shared by ranks that are threads: the store of the test
// tier that needs nothing (docs/design.md "Building and testing") and of a single-process run.
#include <condition_variable>
#include <map>
#include <mutex>

#include "harness/store/store.h"

namespace railgauge {

class MemoryStore final : public Store {
public:
  void set(const std::string &key, const std::string &value) override;
  void wait(const std::vector<std::string> &keys, Milliseconds timeout) override;
  std::string get(const std::string &key, Milliseconds timeout) override;

private:
  std::mutex mutex_;
  std::condition_variable changed_;
  std::map<std::string, std::string> values_;
};

} // namespace railgauge
