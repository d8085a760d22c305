#pragma once
// memory.peer_copy: the GPU-to-GPU phase of a burn-in (DCGM's nvbandwidth and NVLink checks). On
// a node with two or more GPUs, for every ordered pair (src, dst) in turn, one pair at a time:
//
//  1. Peer access: cudaDeviceCanAccessPeer(src, dst), then cudaDeviceEnablePeerAccess on src. A
//     pair without it is recorded as such (peer_access false, no figure); a node where no pair
//     has it, or with fewer than two GPUs, is waived with the reason.
//  2. src's buffer (`size_bytes`) is filled on src with the seeded random words of memory.pattern
//     (hbm_pattern_words.h, seeded by the pair), dst's buffer is zeroed, and the buffer is copied
//     src -> dst with cudaMemcpyPeerAsync on a stream of src: one untimed copy, then
//     `repetitions` copies each timed by CUDA events on src, as nvbandwidth's
//     device_to_device_memcpy_write_ce times a copy engine writing into the peer.
//  3. dst's buffer is checked on dst by memory.pattern's check kernel: a word that is not the
//     source's makes the pair, and its source GPU, `failed`.
//  4. Each GPU's part (metrics.per_gpu, read by `railgauge check` as a GPU of its own) holds its
//     outgoing pairs: the median of their figures (bandwidth_gbytes_per_s), the worst
//     (bandwidth_min_gbytes_per_s, and the peer it went to), the pair list, and its telemetry
//     over the whole phase (NVLink error counters among its health deltas).
//
// The figure of a pair is bytes copied over the median timed copy (GB/s, 1e9 bytes/s), bytes
// counted once as nvbandwidth counts them. It is a GPU pair's figure, not a link's: the copy
// engine spreads a copy over every NVLink the pair has, and per-link bandwidth is not measured.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/benchmark.h"
#include "records/memory_burn_figures.h"

namespace railgauge::memory {

// One ordered pair: src copies into dst.
struct PeerCopyPair {
  int src = 0, dst = 0;
  bool peer_access = false;
  double bandwidth_gbytes_per_s = 0;     // the median timed copy
  double bandwidth_min_gbytes_per_s = 0; // the slowest timed copy
  std::int64_t copies = 0;               // timed copies
  std::uint64_t words = 0, wrong_words = 0;
  std::optional<std::string> error; // the pair broke: no figure, no verdict on its data

  bool measured() const { return peer_access && !error && bandwidth_gbytes_per_s > 0; }
  // What its record holds of it: the figures only where it was measured.
  record::PeerCopyPairFigures figures() const;
};

// One GPU of the node: who it is and its telemetry over the whole phase.
struct PeerCopyGpu {
  int gpu = 0;
  std::string name, uuid, pci;
  double elapsed_s = 0;
  nlohmann::json telemetry = nullptr;
  std::optional<std::string> error; // the GPU could not be set up: none of its pairs ran
};

struct PeerCopyRun {
  std::vector<PeerCopyGpu> gpus;
  std::vector<PeerCopyPair> pairs; // every ordered pair of distinct GPUs, src-major
};

struct PeerCopyOptions {
  std::uint64_t size_bytes = 0;
  std::int64_t repetitions = 0;
  std::vector<int> gpus; // every visible GPU
};

// The point's outcome: `failed` when a pair's destination held wrong words (naming the pair),
// else `error` when a GPU or a pair broke; metrics per_gpu (each GPU's outgoing pairs),
// bandwidth_gbytes_per_s_{min,median,max} over the GPUs' medians, slowest_gpu,
// slowest_vs_median, wrong_words and pairs_without_peer_access.
Outcome peer_copy_outcome(const PeerCopyRun &run);

// Why the point cannot run on `gpus` whose peer access is `access[i][j]` (GPU gpus[i] can reach
// gpus[j]): one GPU ("not applicable: one GPU: no peer to copy to"), or no pair with peer
// access ("no peer access between GPUs 0 and 1: ..."); nullopt when one pair has it.
std::optional<std::string> peer_copy_waiver(const std::vector<int> &gpus,
                                            const std::vector<std::vector<bool>> &access);

// cudaDeviceCanAccessPeer for every ordered pair of `gpus` (peer_copy_run.cpp; the stub throws).
std::vector<std::vector<bool>> peer_access_matrix(const std::vector<int> &gpus);

// Runs every ordered pair of `options.gpus`, one at a time (peer_copy_run.cpp; the stub throws).
PeerCopyRun run_peer_copy(const PeerCopyOptions &options);

class PeerCopyBenchmark final : public KeyedBenchmark {
public:
  PeerCopyBenchmark();
  std::vector<Axis> axes() const override;
  std::optional<std::string> supported(const RunContext &ctx, const Point &point) const override;
  Outcome run(RunContext &ctx, const Point &point) override;
};

std::unique_ptr<PeerCopyBenchmark> make_peer_copy();

} // namespace railgauge::memory
