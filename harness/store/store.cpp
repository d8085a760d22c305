#include "harness/store/store.h"

#include "harness/store/store_keys.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cstdint>

namespace railgauge {
namespace {

std::vector<std::string> rank_keys(const std::string &prefix, int world_size) {
  std::vector<std::string> keys;
  for (int r = 0; r < world_size; ++r)
    keys.push_back(prefix + std::to_string(r));
  return keys;
}

// The ranks of `prefix` that have not arrived yet, asked without waiting.
std::vector<int> ranks_not_arrived(Store &store, const std::string &prefix, int world_size) {
  try {
    store.wait(rank_keys(prefix, world_size), Milliseconds(0));
  } catch (const StoreTimeout &e) {
    return ranks_missing(e.missing_keys(), prefix);
  }
  return {};
}

// Waits for one key per rank; a timeout is rethrown naming the ranks that did not arrive within
// `waited` (the whole wait, when this call only checks what an earlier wait left missing). A
// lost rank may be one that arrived and then gave up on a rank that never came: the error names
// those too, so the cause is not hidden behind its consequence.
void wait_for_ranks(Store &store, const std::string &what, const std::string &prefix,
                    int world_size, Milliseconds timeout, Milliseconds waited) {
  try {
    store.wait(rank_keys(prefix, world_size), timeout);
  } catch (const PeerLost &e) {
    // The ranks absent that the store does not already name as lost: those that never came.
    const std::string lost = e.what();
    std::vector<int> never_came;
    for (const int r : ranks_not_arrived(store, prefix, world_size))
      if (lost.find(fmt::format("rank {} is lost", r)) == std::string::npos)
        never_came.push_back(r);
    throw PeerLost(never_came.empty() ? fmt::format("{}: {}", what, lost)
                                      : fmt::format("{}: {}; and rank{} {} of {} never arrived",
                                                    what, lost, never_came.size() == 1 ? "" : "s",
                                                    fmt::join(never_came, ", "), world_size));
  } catch (const StoreTimeout &e) {
    const auto ranks = ranks_missing(e.missing_keys(), prefix);
    throw StoreTimeout(fmt::format("{}: rank{} {} of {} did not arrive within {} s", what,
                                   ranks.size() == 1 ? "" : "s", fmt::join(ranks, ", "), world_size,
                                   waited.count() / 1000.0),
                       e.missing_keys());
  }
}

void wait_for_ranks(Store &store, const std::string &what, const std::string &prefix,
                    int world_size, Milliseconds timeout) {
  wait_for_ranks(store, what, prefix, world_size, timeout, timeout);
}

} // namespace

StoreTimeout keys_timeout(std::vector<std::string> missing, Milliseconds timeout) {
  auto what = fmt::format("store: keys {} did not appear within {} ms", missing, timeout.count());
  return StoreTimeout(std::move(what), std::move(missing));
}

std::vector<int> ranks_missing(const std::vector<std::string> &missing_keys,
                               const std::string &prefix) {
  std::vector<int> ranks;
  for (const auto &k : missing_keys)
    if (k.size() > prefix.size() && k.compare(0, prefix.size(), prefix) == 0)
      ranks.push_back(std::stoi(k.substr(prefix.size())));
  return ranks;
}

std::string barrier_key_prefix(const std::string &name) { return "barrier/" + name + "/"; }

namespace {

// Rank 0 waits for every rank's key and then sets one key that all the others get: each of
// them then asks for one key, not world_size, so a barrier of n ranks is O(n) requests and key
// lookups at the store, not O(n^2) (docs/rdma.md, "Control plane"). A rank whose get of that
// key expires asks which ranks' keys are missing and names them, as before.
std::string get_from_rank_zero(Store &store, const std::string &what, const std::string &prefix,
                               const std::string &key, int world_size, Milliseconds timeout) {
  try {
    return store.get(key, timeout);
  } catch (const PeerLost &e) {
    throw PeerLost(fmt::format("{}: {}", what, e.what()));
  } catch (const StoreTimeout &) {
    wait_for_ranks(store, what, prefix, world_size, Milliseconds(0), timeout);
    throw StoreTimeout(fmt::format("{}: every rank arrived but rank 0 did not say so within {} s",
                                   what, timeout.count() / 1000.0),
                       {prefix + "0"});
  }
}

} // namespace

void store_barrier(Store &store, const std::string &name, int rank, int world_size,
                   Milliseconds timeout) {
  const std::string prefix = barrier_key_prefix(name);
  const auto what = fmt::format("barrier '{}'", name);
  store.set(prefix + std::to_string(rank), "");
  if (rank == 0) {
    wait_for_ranks(store, what, prefix, world_size, timeout);
    store.set(prefix + "done", "");
  } else {
    get_from_rank_zero(store, what, prefix, prefix + "done", world_size, timeout);
  }
}

namespace {

// u32 count, then per value u32 length and bytes (little-endian).
void put_u32(std::string &out, std::uint32_t v) {
  for (int i = 0; i < 4; ++i)
    out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

std::uint32_t get_u32(const std::string &in, std::size_t &at) {
  if (at + 4 > in.size())
    throw BackendError("store: a gathered value is cut short");
  std::uint32_t v = 0;
  for (int i = 0; i < 4; ++i)
    v |= static_cast<std::uint32_t>(static_cast<unsigned char>(in[at + i])) << (8 * i);
  at += 4;
  return v;
}

std::string pack(const std::vector<std::string> &values) {
  std::string out;
  put_u32(out, static_cast<std::uint32_t>(values.size()));
  for (const auto &v : values) {
    put_u32(out, static_cast<std::uint32_t>(v.size()));
    out += v;
  }
  return out;
}

std::vector<std::string> unpack(const std::string &packed, int world_size) {
  std::size_t at = 0;
  const auto count = get_u32(packed, at);
  if (count != static_cast<std::uint32_t>(world_size))
    throw BackendError(fmt::format("store: {} gathered values for {} ranks", count, world_size));
  std::vector<std::string> values;
  for (std::uint32_t i = 0; i < count; ++i) {
    const auto n = get_u32(packed, at);
    if (at + n > packed.size())
      throw BackendError("store: a gathered value is cut short");
    values.push_back(packed.substr(at, n));
    at += n;
  }
  return values;
}

// The values in one key stay well inside the wire's largest value (store_wire.h, 16 MiB);
// beyond this, each rank gets each value on its own.
constexpr std::size_t kMaxPackedBytes = std::size_t{8} << 20;

} // namespace

// Rank 0 gathers the values and sets them packed in one key, which every other rank gets in one
// request: n sets and n gets at the store instead of n^2 gets (docs/rdma.md, "Control plane").
std::vector<std::string> store_all_gather(Store &store, const std::string &name, int rank,
                                          int world_size, const std::string &value,
                                          Milliseconds timeout) {
  const std::string prefix = "gather/" + name + "/";
  const auto what = fmt::format("all-gather '{}'", name);
  const std::string all_key = "gather-all/" + name;
  store.set(prefix + std::to_string(rank), value);
  const auto one_by_one = [&] {
    std::vector<std::string> values;
    for (int r = 0; r < world_size; ++r)
      values.push_back(store.get(prefix + std::to_string(r), timeout));
    return values;
  };
  if (rank == 0) {
    wait_for_ranks(store, what, prefix, world_size, timeout);
    auto values = one_by_one();
    auto packed = pack(values);
    store.set(all_key, packed.size() <= kMaxPackedBytes ? packed : std::string());
    return values;
  }
  const auto packed = get_from_rank_zero(store, what, prefix, all_key, world_size, timeout);
  return packed.empty() ? one_by_one() : unpack(packed, world_size);
}

} // namespace railgauge
