// The record contracts' round trip: the real CPU writers (the node suite through the built
// railgauge: memory.host_*, gemm.cpu_blas*, rdma.tcp_* over loopback; what needs a GPU, a NIC or
// mpirun is waived on a machine without them) write records that read back through their
// family's typed view, and carry no metric that their family's field table and the measurement
// core do not name. A writer that renames a field, or adds one no table holds, fails here.
// The importers (nccl-tests, perftest, nvbandwidth) are held to the same tables: what each
// makes of the committed format samples under tests/fixtures reads back alike.
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <utility>

#include <gtest/gtest.h>

#include "harness/metric_names.h"
#include "harness/record_io.h"
#include "records/block_record.h"
#include "records/collective_record.h"
#include "records/gemm_record.h"
#include "records/memory_point.h"
#include "records/memory_record.h"
#include "records/offload_record.h"
#include "records/peer_record.h"
#include "records/rdma_record.h"

namespace railgauge {
namespace {

namespace fs = std::filesystem;

// What the measurement core writes beside the figures (Measurement::to_json)
const std::set<std::string> kCoreBookkeeping(std::begin(metric::kCoreBookkeeping),
                                             std::end(metric::kCoreBookkeeping));

// The metrics a record of `family` may carry: its field table's, the core's; empty for a family
// without a table.
std::set<std::string> known_metrics(const std::string &family) {
  std::set<std::string> names;
  const auto add = [&](const auto &table) {
    for (const MetricField &f : table)
      names.insert(f.name);
  };
  if (family == gemm::record::kFamily)
    add(gemm::record::kMetrics);
  else if (family == memory::record::kFamily)
    add(memory::record::kMetrics);
  else if (family == offload::record::kFamily)
    add(offload::record::kMetrics);
  else if (family == rdma::record::kFamily)
    add(rdma::record::kMetrics);
  else if (family == collectives::record::kFamily)
    add(collectives::record::kMetrics);
  else if (family == block::record::kFamily)
    add(block::record::kMetrics);
  else if (family == "peer" || family == "import") // import.nvbandwidth: peer's (the rate: core)
    add(peer::record::kMetrics);
  else
    return names;
  names.insert(std::begin(metric::kCoreMetrics), std::end(metric::kCoreMetrics));
  names.insert(kCoreBookkeeping.begin(), kCoreBookkeeping.end());
  return names;
}

// What the family's view could not read of an ok record ("" when it read the figures analysis
// uses: the median call, and the point's rate or FLOPs where the family has them).
std::string unread_by_view(const Record &r) {
  if (const auto v = gemm::record::gemm_call_view(r))
    return !v->time_s ? "time_s" : !v->flops_per_call ? "flops_per_call" : "";
  if (const auto v = memory::record::MemoryPoint::read(r)) {
    if (!v->time_s)
      return "time_s";
    if (!v->bandwidth_gbytes_per_s)
      return "bandwidth_gbytes_per_s";
    // What the host writer fills in its MemoryPoint, read back through the same struct
    if (v->tier == "host" && !(v->threads_used && v->passes_per_call && v->vector_isa &&
                               v->total_bytes && v->wrong_elements && v->verified))
      return "threads_used, passes_per_call, vector_isa, total_bytes, wrong_elements or verified";
    return "";
  }
  if (const auto v = rdma::record::pair_point_view(r))
    return !v->time_s && !v->latency_s && !v->bandwidth_gbits_per_s // perftest's: no time
               ? "time_s, latency or bandwidth"
               : "";
  if (offload::record::offload_point_view(r) || collectives::record::collective_point_view(r) ||
      block::record::block_point_view(r))
    return "";
  return "the record itself (no view reads its key)";
}

// An NCCL_* variable the nccl-tests JSON import copies (env_NCCL_ALGO, ...): the schema's
// patternProperties, not a table's name.
bool is_env_metric(const std::string &name) { return name.rfind("env_NCCL_", 0) == 0; }

// Reads every records.jsonl under `out` back through the contracts, counting the ok records of
// each family.
void read_back(const fs::path &out, std::map<std::string, int> &read_by_family) {
  for (const auto &entry : fs::recursive_directory_iterator(out)) {
    if (entry.path().filename() != "records.jsonl")
      continue;
    const RecordsRead read = read_records(entry.path().string());
    EXPECT_EQ(read.problems, std::vector<std::string>{});
    for (const Record &r : read.records) {
      if (r.status != Status::ok)
        continue;
      const std::string family = r.key.substr(0, r.key.find('.'));
      const auto known = known_metrics(family);
      EXPECT_FALSE(known.empty()) << r.key << ": its family has no field table";
      for (const auto &[name, value] : r.metrics.items())
        EXPECT_TRUE(known.count(name) || is_env_metric(name))
            << r.key << " wrote metrics." << name << ", which " << family
            << "'s field table does not name (records/" << (family == "import" ? "peer" : family)
            << "_record.h kMetrics)";
      const std::string unread = family == "import" ? "" : unread_by_view(r);
      EXPECT_EQ(unread, "") << r.key << ": its view did not read " << unread;
      ++read_by_family[family];
    }
  }
}

// A fresh directory for one test's runs, removed with its logs at the end.
fs::path fresh_out(const std::string &what) {
  const fs::path out = fs::temp_directory_path() /
                       ("railgauge_round_trip_" + what + "_" + std::to_string(::getpid()));
  fs::remove_all(out);
  return out;
}

TEST(RecordRoundTrip, TheCpuWritersRecordsReadBackThroughTheContracts) {
  const fs::path out = fresh_out("run");
  const std::string command = "timeout 300 " + std::string(RAILGAUGE_BINARY) + " run --out '" +
                              out.string() + "' -q --time-budget 0.01 -a size_bytes=64KiB" +
                              " -a threads=1 -a m=64 -a seq=64 -a tp=1" +
                              " --measure noise_bound=0 > '" + out.string() + ".log' 2>&1";
  ASSERT_EQ(std::system(command.c_str()), 0) << command << " (see " << out << ".log)";
  std::map<std::string, int> read_by_family;
  read_back(out, read_by_family);
  // The CPU writers every machine runs: a quiet skip of one of them would leave it untested.
  for (const char *family : {memory::record::kFamily, gemm::record::kFamily})
    EXPECT_GT(read_by_family[family], 0) << "no ok " << family << " record came back";
  fs::remove_all(out);
  fs::remove(out.string() + ".log");
}

TEST(RecordRoundTrip, TheImportersRecordsReadBackThroughTheContracts) {
  const fs::path fixtures = fs::path(RAILGAUGE_SOURCE_DIR) / "tests" / "fixtures";
  const std::pair<const char *, fs::path> samples[] = {
      {"nccl-tests", fixtures / "nccl-tests" / "all_reduce_format_sample.txt"},
      {"nccl-tests", fixtures / "nccl-tests" / "all_reduce_format_sample.json"},
      {"perftest", fixtures / "rdma" / "perftest" / "ib_write_bw_rxe_client.txt"},
      {"perftest", fixtures / "rdma" / "perftest" / "ib_send_lat_rxe_client.txt"},
      {"nvbandwidth", fixtures / "nvbandwidth" / "two_gpus.json"}}; // its .txt waives a case
  const fs::path out = fresh_out("import");
  fs::create_directories(out); // each import's log goes beside its run directory
  int n = 0;
  for (const auto &[tool, sample] : samples) {
    const std::string dir = (out / std::to_string(n++)).string();
    const std::string command = "timeout 120 " + std::string(RAILGAUGE_BINARY) + " import " + tool +
                                " '" + sample.string() + "' --out '" + dir + "' > '" + dir +
                                ".log' 2>&1";
    ASSERT_EQ(std::system(command.c_str()), 0) << command << " (see " << dir << ".log)";
  }
  std::map<std::string, int> read_by_family;
  read_back(out, read_by_family);
  for (const char *family : {collectives::record::kFamily, rdma::record::kFamily, "import"})
    EXPECT_GT(read_by_family[family], 0) << "no ok " << family << " record came back";
  fs::remove_all(out);
}

} // namespace
} // namespace railgauge
