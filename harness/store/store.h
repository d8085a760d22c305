#pragma once
// How ranks find each other (docs/design.md "Launching across nodes"): a key-value store shared by
// every rank of a run. NCCL unique ids, verbs QP/GID/rkey blobs, the agreed run id and barrier
// arrivals all go through it. Implementations: MemoryStore (ranks as threads, tests), a TCP
// store (rank 0 serves) and an MPI store (when launched by mpirun).
//
// Every wait has a timeout; a wait that expires throws StoreTimeout naming the keys (and so the
// ranks) that never arrived, instead of hanging.
#include <chrono>
#include <string>
#include <vector>

#include "harness/error.h"

namespace railgauge {

using Milliseconds = std::chrono::milliseconds;

class StoreTimeout : public BackendError {
public:
  StoreTimeout(std::string what, std::vector<std::string> missing_keys)
      : BackendError(std::move(what)), missing_(std::move(missing_keys)) {}
  const std::vector<std::string> &missing_keys() const { return missing_; }

private:
  std::vector<std::string> missing_;
};

class Store {
public:
  virtual ~Store() = default;
  // Sets `key` to `value`, replacing any earlier value. Values are opaque bytes.
  virtual void set(const std::string &key, const std::string &value) = 0;
  // Waits until every key exists; throws StoreTimeout listing those still missing.
  virtual void wait(const std::vector<std::string> &keys, Milliseconds timeout) = 0;
  // Waits for `key` and returns its value; throws StoreTimeout.
  virtual std::string get(const std::string &key, Milliseconds timeout) = 0;
};

// Every rank of `world_size` calls this with the same `name`; it returns once all have arrived.
// On timeout it throws StoreTimeout whose message names the ranks that did not arrive
// ("barrier 'x': ranks 3, 7 of 8 did not arrive within 30 s"). Names must be unique per use.
void store_barrier(Store &store, const std::string &name, int rank, int world_size,
                   Milliseconds timeout);

// The prefix of the keys of barrier `name`: one key per rank, `<prefix><rank>`.
std::string barrier_key_prefix(const std::string &name);

// Every rank contributes `value`; returns all ranks' values in rank order.
std::vector<std::string> store_all_gather(Store &store, const std::string &name, int rank,
                                          int world_size, const std::string &value,
                                          Milliseconds timeout);

// "3, 7" from the ranks whose keys `<prefix><rank>` are among `missing_keys`.
std::vector<int> ranks_missing(const std::vector<std::string> &missing_keys,
                               const std::string &prefix);

} // namespace railgauge
