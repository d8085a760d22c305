#include "rdma/verbs_benchmark.h"

#include <charconv>

#include <fmt/format.h>

#include "harness/error.h"
#include "records/rdma_record.h"

namespace railgauge::rdma {

int parse_rdma_memory(const std::string &text) {
  if (text == "host")
    return -1;
  int gpu = -1;
  const char *digits = text.data() + 4;
  const char *end = text.data() + text.size();
  if (text.starts_with("gpu:") && digits != end) {
    const auto [stop, ec] = std::from_chars(digits, end, gpu);
    if (ec == std::errc() && stop == end && gpu >= 0)
      return gpu;
  }
  throw InputError(fmt::format("memory '{}' is neither host nor gpu:N", text), "axis memory",
                   "use memory=host (the NIC's NUMA node) or memory=gpu:0 (CUDA device 0's "
                   "memory, GPUDirect RDMA)");
}

std::vector<Axis> verbs_addressing_axes() {
  return {{record::kPort, AxisType::integer, "Port number (1-based)", {std::int64_t{1}}, {}},
          {record::kGidIndex,
           AxisType::integer,
           "GID index; -1 chooses RoCEv2 IPv4 > RoCEv2 IPv6 > RoCEv1 (IB: 0)",
           {std::int64_t{-1}},
           {}},
          {record::kTrafficClass,
           AxisType::integer,
           "RoCE GRH traffic class (DSCP<<2|ECN)",
           {std::int64_t{0}},
           {}},
          {record::kServiceLevel,
           AxisType::integer,
           "InfiniBand service level",
           {std::int64_t{0}},
           {}}};
}

void apply_addressing_axes(const Point &point, VerbsPointSpec &spec) {
  spec.port = static_cast<unsigned>(point.integer(record::kPort));
  spec.gid_index = static_cast<int>(point.integer(record::kGidIndex));
  spec.traffic_class = static_cast<int>(point.integer(record::kTrafficClass));
  spec.service_level = static_cast<int>(point.integer(record::kServiceLevel));
}

std::vector<Axis> VerbsBenchmark::axes() const {
  std::vector<Axis> axes;
  if (latency_)
    axes.push_back({record::kSizeBytes,
                    AxisType::bytes,
                    "Message size",
                    {std::int64_t{2}, std::int64_t{16}, std::int64_t{128}, std::int64_t{1024},
                     std::int64_t{8192}, std::int64_t{65536}},
                    {}});
  else
    axes.push_back(
        {record::kSizeBytes,
         AxisType::bytes,
         "Message size (2 B to 8 MiB by x4 by default)",
         {std::int64_t{2}, std::int64_t{8}, std::int64_t{32}, std::int64_t{128}, std::int64_t{512},
          std::int64_t{2048}, std::int64_t{8192}, std::int64_t{32768}, std::int64_t{131072},
          std::int64_t{524288}, std::int64_t{2097152}, std::int64_t{8388608}},
         {}});
  axes.push_back({record::kMode,
                  AxisType::text,
                  "loopback: both ends in this process on one device; ranks: rank 0 measures "
                  "against rank 1 through the run's store",
                  {std::string("loopback")},
                  {"loopback", "ranks"}});
  axes.push_back({record::kDevice,
                  AxisType::text,
                  "RDMA device name (empty: the first ACTIVE port)",
                  {std::string("")},
                  {}});
  for (Axis &a : verbs_addressing_axes())
    axes.push_back(std::move(a));
  axes.push_back({record::kIterations,
                  AxisType::integer,
                  latency_ ? "0: sample as --measure says (time budget, noise); N: exactly N timed "
                             "round trips after the warm-up (perftest -n)"
                           : "0: sample as --measure says (time budget, noise); N: exactly N timed "
                             "messages, whole calls, after the warm-up (perftest -n)",
                  {std::int64_t{0}},
                  {}});
  axes.push_back({record::kInlineBytes,
                  AxisType::bytes,
                  "Send messages up to this size inline (WRITE/SEND; capped by the QP)",
                  {std::int64_t{verb_ == Verb::read ? 0 : 64}},
                  {}});
  if (!latency_) {
    axes.push_back({record::kDirection,
                    AxisType::text,
                    "uni: client to server; bidir: both at once (sum reported)",
                    {std::string("uni")},
                    {"uni", "bidir"}});
    axes.push_back({record::kQps,
                    AxisType::integer,
                    "Queue pairs (messages round-robin)",
                    {std::int64_t{1}},
                    {}});
    axes.push_back(
        {record::kTxDepth, AxisType::integer, "Send queue depth per QP", {std::int64_t{128}}, {}});
    axes.push_back({record::kPostList,
                    AxisType::integer,
                    "Work requests chained per ibv_post_send",
                    {std::int64_t{1}},
                    {}});
    axes.push_back({record::kCqModeration,
                    AxisType::integer,
                    "One signaled completion per this many WRs (divides tx_depth)",
                    {std::int64_t{16}},
                    {}});
    axes.push_back({record::kMemory,
                    AxisType::text,
                    "host: the NIC's NUMA node; gpu:N: CUDA device N (GPUDirect RDMA, dma-buf "
                    "else nvidia-peermem)",
                    {std::string("host")},
                    {}});
  }
  return axes;
}

VerbsPointSpec VerbsBenchmark::spec_of(const Point &point) const {
  VerbsPointSpec s;
  s.verb = verb_;
  s.pattern = latency_                                    ? Pattern::latency
              : point.text(record::kDirection) == "bidir" ? Pattern::bandwidth_bidirectional
                                                          : Pattern::bandwidth;
  s.mode = point.text(record::kMode);
  s.device = point.text(record::kDevice);
  apply_addressing_axes(point, s);
  s.inline_bytes = static_cast<int>(point.integer(record::kInlineBytes));
  s.size_bytes = static_cast<std::size_t>(point.integer(record::kSizeBytes));
  const std::int64_t iterations = point.integer(record::kIterations);
  if (iterations < 0)
    throw InputError(fmt::format("iterations {} is negative", iterations), "axis iterations",
                     "use 0 (the --measure stopping rule) or a count such as 2000");
  s.iterations = static_cast<std::uint64_t>(iterations);
  if (!latency_) {
    s.qps = static_cast<int>(point.integer(record::kQps));
    s.tx_depth = static_cast<int>(point.integer(record::kTxDepth));
    s.post_list = static_cast<int>(point.integer(record::kPostList));
    s.cq_moderation = static_cast<int>(point.integer(record::kCqModeration));
    s.gpu = parse_rdma_memory(point.text(record::kMemory));
  }
  return s;
}

std::optional<std::string> VerbsBenchmark::supported(const RunContext &ctx,
                                                     const Point &point) const {
  return verbs_waive_reason(ctx, spec_of(point));
}

Outcome VerbsBenchmark::run(RunContext &ctx, const Point &point) {
  VerbsPointSpec spec = spec_of(point);
  spec.point_id = fmt::format("{}/{}", key(), points_run_++);
  return run_verbs_point(ctx, spec);
}

namespace {

// One verbs key: its verb, what it measures ("WRITE bandwidth") and the figures it writes.
std::unique_ptr<Benchmark> verbs_benchmark(Verb verb, bool latency, std::string_view key,
                                           std::string_view what) {
  constexpr std::string_view kBandwidthFigures =
      "Gb/s, GB/s and message rate; QPs, post lists, CQ moderation, inline; uni- or "
      "bidirectional; data checked; port counter deltas";
  constexpr std::string_view kLatencyFigures =
      "min/p50/p90/p99/p99.9/max and stdev per round trip; data checked; port counter deltas";
  return std::make_unique<VerbsBenchmark>(
      verb, latency, key,
      fmt::format("RC RDMA {} vs message size: {}", what,
                  latency ? kLatencyFigures : kBandwidthFigures));
}

} // namespace

std::unique_ptr<Benchmark> make_write_bw() {
  return verbs_benchmark(Verb::write, false, record::kWriteBw, "WRITE bandwidth");
}
std::unique_ptr<Benchmark> make_read_bw() {
  return verbs_benchmark(Verb::read, false, record::kReadBw, "READ bandwidth");
}
std::unique_ptr<Benchmark> make_send_bw() {
  return verbs_benchmark(Verb::send, false, record::kSendBw, "SEND bandwidth");
}
std::unique_ptr<Benchmark> make_write_lat() {
  return verbs_benchmark(Verb::write, true, record::kWriteLat, "WRITE latency");
}
// A READ's latency is its own round trip (the request out, the data back).
std::unique_ptr<Benchmark> make_read_lat() {
  return verbs_benchmark(Verb::read, true, record::kReadLat, "READ latency (round trip)");
}
std::unique_ptr<Benchmark> make_send_lat() {
  return verbs_benchmark(Verb::send, true, record::kSendLat, "SEND latency");
}

} // namespace railgauge::rdma
