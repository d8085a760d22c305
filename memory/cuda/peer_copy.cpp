// memory.peer_copy's axes, waivers and verdict: compiled in every build (run_peer_copy() and
// peer_access_matrix() are in peer_copy_run.cpp or its stub).
#include "memory/cuda/peer_copy.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "harness/cuda/device.h"
#include "harness/error.h"
#include "harness/every_gpu_status.h"
#include "harness/stats.h"
#include "harness/waiver.h"
#include "records/gpu_part.h"
#include "records/memory_burn_figures.h"
#include "records/memory_record.h"

namespace railgauge::memory {
namespace {

// 256 MiB: nvbandwidth's copies are of this order (its default buffer is 512 MiB), far past any
// L2, and a copy at an H800's 176 GB/s takes 1.5 ms, long beside the events' resolution.
constexpr std::int64_t kDefaultSizeBytes = std::int64_t{256} << 20;
constexpr std::int64_t kDefaultRepetitions = 8;

std::string gpu_label(const PeerCopyGpu &g) {
  return every_gpu_label(g.gpu, g.name, g.uuid, g.pci);
}

PeerCopyOptions peer_copy_options(const Point &point, int gpus_visible) {
  PeerCopyOptions o;
  const std::int64_t bytes = point.integer(record::kSizeBytes);
  if (bytes < 8 || bytes % 8 != 0)
    throw InputError(fmt::format("size_bytes = {} is not a positive multiple of 8", bytes),
                     record::kSizeBytes, "give bytes per copy, a multiple of 8 (e.g. 256MiB)");
  o.size_bytes = static_cast<std::uint64_t>(bytes);
  o.repetitions = point.integer(record::kRepetitions);
  if (o.repetitions < 1 || o.repetitions > 10'000)
    throw InputError(fmt::format("repetitions = {} is not a count of copies", o.repetitions),
                     record::kRepetitions, "give 1 to 10000 timed copies per pair");
  for (int g = 0; g < gpus_visible; ++g)
    o.gpus.push_back(g);
  return o;
}

// One GPU's figures among `gpus`: its outgoing pairs, their median and worst, and the peers it
// has no measured pair to.
record::PeerCopyGpuFigures gpu_figures(const std::vector<const PeerCopyPair *> &out,
                                       std::size_t gpus) {
  record::PeerCopyGpuFigures figures;
  std::vector<double> rates;
  std::set<int> reached;
  const PeerCopyPair *worst = nullptr;
  for (const auto *p : out) {
    figures.pairs.push_back(p->figures());
    figures.wrong_words += p->wrong_words;
    if (!p->measured())
      continue;
    reached.insert(p->dst);
    rates.push_back(p->bandwidth_gbytes_per_s);
    if (!worst || p->bandwidth_gbytes_per_s < worst->bandwidth_gbytes_per_s)
      worst = p;
  }
  // A GPU without one measured pair has no figure: the rules read it as missing, never as 0.
  if (worst) {
    figures.bandwidth_gbytes_per_s = median(rates);
    figures.bandwidth_min_gbytes_per_s = worst->bandwidth_gbytes_per_s;
    figures.worst_peer_gpu = worst->dst;
  }
  figures.peers_unreached = static_cast<std::int64_t>(gpus > 0 ? gpus - 1 : 0) -
                            static_cast<std::int64_t>(reached.size());
  return figures;
}

nlohmann::json gpu_json(const PeerCopyGpu &g, const record::PeerCopyGpuFigures &figures, bool wrong,
                        bool broke) {
  nlohmann::json j = nlohmann::json::object();
  figures.write(j);
  records::gpu_part_of(g, g.gpu, wrong ? Status::failed : (broke ? Status::error : Status::ok))
      .write(j);
  return j;
}

} // namespace

record::PeerCopyPairFigures PeerCopyPair::figures() const {
  record::PeerCopyPairFigures f{src, dst, peer_access, error, std::nullopt};
  if (measured())
    f.measured = record::PeerCopyPairFigures::Measured{
        bandwidth_gbytes_per_s, bandwidth_min_gbytes_per_s, copies, words, wrong_words};
  return f;
}

Outcome peer_copy_outcome(const PeerCopyRun &run) {
  Outcome out;
  nlohmann::json list = nlohmann::json::array();
  std::vector<std::string> wrong, broke;
  std::vector<std::pair<int, double>> rates;
  std::uint64_t wrong_total = 0;
  std::int64_t without_access = 0;
  for (const auto &g : run.gpus) {
    std::vector<const PeerCopyPair *> outgoing;
    bool g_wrong = false, g_broke = g.error.has_value();
    if (g.error)
      broke.push_back(fmt::format("{}: {}", gpu_label(g), *g.error));
    for (const auto &p : run.pairs) {
      if (p.src != g.gpu)
        continue;
      outgoing.push_back(&p);
      without_access += p.peer_access ? 0 : 1;
      wrong_total += p.wrong_words;
      if (p.wrong_words > 0) {
        g_wrong = true;
        wrong.push_back(fmt::format("{} -> GPU {}: {} of {} words wrong after {} copies",
                                    gpu_label(g), p.dst, p.wrong_words, p.words, p.copies + 1));
      }
      if (p.error) {
        g_broke = true;
        broke.push_back(fmt::format("{} -> GPU {}: {}", gpu_label(g), p.dst, *p.error));
      }
    }
    const auto figures = gpu_figures(outgoing, run.gpus.size());
    list.push_back(gpu_json(g, figures, g_wrong, g_broke));
    if (figures.bandwidth_gbytes_per_s)
      rates.emplace_back(g.gpu, *figures.bandwidth_gbytes_per_s);
  }
  out.metrics[record::kPerGpu] = list;
  if (const auto across = records::AcrossGpuFigures::of(rates))
    across->write(out.metrics, record::kBurnBandwidthAcrossGpus);
  out.metrics[record::kWrongWords] = wrong_total;
  out.metrics[record::kPairsWithoutPeerAccess] = without_access;
  out.metrics[record::kVerified] = wrong.empty() && broke.empty() && !rates.empty();
  set_every_gpu_status(out, run.gpus.size(), wrong, broke, "peer copies delivered wrong words from",
                       "the peer copies");
  return out;
}

std::optional<std::string> peer_copy_waiver(const std::vector<int> &gpus,
                                            const std::vector<std::vector<bool>> &access) {
  // One GPU has no peer by construction (check says "cannot apply", not "missing"); GPUs that
  // cannot reach each other lack what a multi-GPU node should have.
  if (gpus.size() < 2)
    return gpus.empty() ? "no GPU: no peer to copy to"
                        : not_applicable("one GPU: no peer to copy to");
  for (std::size_t i = 0; i < gpus.size(); ++i)
    for (std::size_t j = 0; j < gpus.size(); ++j)
      if (i != j && i < access.size() && j < access[i].size() && access[i][j])
        return std::nullopt;
  const std::string why = "cudaDeviceCanAccessPeer says neither can reach the other (no NVLink, "
                          "and no PCIe peer-to-peer path the driver allows)";
  if (gpus.size() == 2)
    return fmt::format("no peer access between GPUs {} and {}: {}", gpus[0], gpus[1], why);
  return fmt::format("no peer access between any two of the {} GPUs (GPUs {} and {} among them): "
                     "{}",
                     gpus.size(), gpus[0], gpus[1], why);
}

PeerCopyBenchmark::PeerCopyBenchmark()
    : KeyedBenchmark(
          record::kPeerCopy,
          "GPU-to-GPU copies: every ordered pair of local GPUs with peer access, one at a time, "
          "cudaMemcpyPeerAsync timed by CUDA events and the destination checked on the GPU; "
          "each GPU's worst and median outgoing pair") {}

std::vector<Axis> PeerCopyBenchmark::axes() const {
  return {
      {record::kSizeBytes, AxisType::bytes, "bytes per copy", {kDefaultSizeBytes}, {}},
      {record::kRepetitions,
       AxisType::integer,
       "timed copies per ordered pair, after one untimed copy (the figure is their median)",
       {kDefaultRepetitions},
       {}},
  };
}

std::optional<std::string> PeerCopyBenchmark::supported(const RunContext &,
                                                        const Point &point) const {
  if (auto why = gpu::cuda_unavailable_reason())
    return why;
  PeerCopyOptions o;
  try {
    o = peer_copy_options(point, gpu::cuda_device_count());
    if (o.gpus.size() < 2)
      return peer_copy_waiver(o.gpus, {});
    return peer_copy_waiver(o.gpus, peer_access_matrix(o.gpus));
  } catch (const InputError &e) {
    return e.problem();
  } catch (const BackendError &e) {
    return fmt::format("peer access cannot be queried: {}", e.what());
  }
}

Outcome PeerCopyBenchmark::run(RunContext &ctx, const Point &point) {
  if (auto why = supported(ctx, point))
    return Outcome::waived(*why);
  const PeerCopyOptions o = peer_copy_options(point, gpu::cuda_device_count());
  Outcome out = peer_copy_outcome(run_peer_copy(o));
  out.derived_params = {{record::kGpusBurned, o.gpus.size()}};
  return out;
}

std::unique_ptr<PeerCopyBenchmark> make_peer_copy() {
  return std::make_unique<PeerCopyBenchmark>();
}

} // namespace railgauge::memory
