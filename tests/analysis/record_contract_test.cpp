// The families' record contracts (<family>/<family>_record.h) against everything else that names
// a record's fields: the record schema, the shipped rules and the registry. A metric renamed in a
// contract, or a rule or schema entry that names a metric no contract has, fails here.
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "analysis/check/rules.h"
#include "cli/make_registry.h"
#include "harness/metric_names.h"
#include "railgauge/config.h"
#include "records/block_record.h"
#include "records/collective_record.h"
#include "records/gemm_record.h"
#include "records/memory_record.h"
#include "records/metric_field.h"
#include "records/offload_record.h"
#include "records/peer_record.h"
#include "records/rdma_record.h"
#include "tests/support/rule_metric.h"

namespace railgauge {
namespace {

using testing::metric_of;

const std::string kSource = RAILGAUGE_SOURCE_DIR;

// One family's field table, and the family its records' keys and the schema's descriptions
// name ("gemm: ...", "collectives.*_with_gemm ...").
struct FieldTable {
  std::string family;
  std::vector<MetricField> fields;
};

std::vector<FieldTable> field_tables() {
  const auto rows = [](const auto &table) {
    return std::vector<MetricField>(table.begin(), table.end());
  };
  return {{gemm::record::kFamily, rows(gemm::record::kMetrics)},
          {memory::record::kFamily, rows(memory::record::kMetrics)},
          {offload::record::kFamily, rows(offload::record::kMetrics)},
          {rdma::record::kFamily, rows(rdma::record::kMetrics)},
          {collectives::record::kFamily, rows(collectives::record::kMetrics)},
          {block::record::kFamily, rows(block::record::kMetrics)},
          {"peer", rows(peer::record::kMetrics)}};
}

// Every metric a contract or the measurement core names.
std::set<std::string> contract_metrics() {
  std::set<std::string> names(std::begin(metric::kCoreMetrics), std::end(metric::kCoreMetrics));
  for (const auto &table : field_tables())
    for (const auto &field : table.fields)
      names.insert(field.name);
  return names;
}

nlohmann::json schema_metrics() {
  std::ifstream in(kSource + "/results/schema/record.schema.json");
  return nlohmann::json::parse(in)["properties"]["metrics"]["properties"];
}

// What the measurement core writes beside the figures (Measurement::to_json): the schema
// describes them, no contract needs to.
const std::set<std::string> kCoreBookkeeping(std::begin(metric::kCoreBookkeeping),
                                             std::end(metric::kCoreBookkeeping));

// The metrics a source text writes by a literal name (`metrics["name"]`) that no contract names:
// "file:line name" each.
std::vector<std::string> unnamed_metric_literals(const std::string &text, const std::string &file,
                                                 const std::set<std::string> &names) {
  static const std::regex literal(R"re(metrics\["([a-z0-9_]+)"\])re");
  std::vector<std::string> out;
  std::istringstream lines(text);
  int n = 0;
  for (std::string line; std::getline(lines, line);) {
    ++n;
    for (std::sregex_iterator m(line.begin(), line.end(), literal), end; m != end; ++m)
      if (!names.count((*m)[1].str()))
        out.push_back(file + ":" + std::to_string(n) + " " + (*m)[1].str());
  }
  return out;
}

// A family that writes a metric by its name renames it only together with its contract: a name
// written in a family's sources that no contract has fails here (and a contract's name that the
// schema lacks fails EveryContractMetricIsInTheSchema).
TEST(RecordContract, EveryMetricAFamilyWritesByNameIsInAContract) {
  const auto names = contract_metrics();
  std::vector<std::string> unnamed;
  int files = 0;
  for (const char *family : {"gemm", "memory", "offload", "rdma", "collectives", "block"})
    for (const auto &entry :
         std::filesystem::recursive_directory_iterator(kSource + "/" + family)) {
      const auto ext = entry.path().extension();
      if (!entry.is_regular_file() || (ext != ".cpp" && ext != ".cu" && ext != ".h"))
        continue;
      std::ifstream in(entry.path());
      std::stringstream text;
      text << in.rdbuf();
      ++files;
      for (auto &u : unnamed_metric_literals(text.str(), entry.path().string(), names))
        unnamed.push_back(std::move(u));
    }
  EXPECT_GT(files, 100);
  for (const auto &u : unnamed)
    ADD_FAILURE() << u << ": a metric no record contract names (add it to the family's "
                  << "<family>_record.h kMetrics and to results/schema/record.schema.json)";
  // The check itself: a renamed metric is caught, a contract's is not.
  EXPECT_EQ(unnamed_metric_literals("out.metrics[\"wrong_word\"] = 1;\n", "f.cpp", names),
            std::vector<std::string>{"f.cpp:1 wrong_word"});
  EXPECT_TRUE(unnamed_metric_literals("out.metrics[\"wrong_words\"] = 1;", "f.cpp", names).empty());
}

TEST(RecordContract, EveryContractMetricIsInTheSchema) {
  const auto schema = schema_metrics();
  for (const auto &name : contract_metrics())
    EXPECT_TRUE(schema.contains(name)) << name << " is named by a contract, not by the schema";
}

TEST(RecordContract, EverySchemaMetricIsNamedByAContract) {
  const auto names = contract_metrics();
  const auto schema = schema_metrics(); // items() refers to it: a temporary would dangle
  for (const auto &[name, _] : schema.items())
    EXPECT_TRUE(names.count(name) || kCoreBookkeeping.count(name))
        << name << " is in the schema, not in any family's record contract";
}

// The unit a metric's name gives it by the schema's convention, "" where the name says none.
std::string unit_of_name(const std::string &name) {
  const auto ends = [&](const std::string &suffix) {
    return name.size() >= suffix.size() && name.ends_with(suffix);
  };
  const auto has = [&](const char *part) { return name.find(part) != std::string::npos; };
  if (has("gbytes_per_s"))
    return "GB/s";
  if (has("gbits_per_s"))
    return "Gb/s";
  if (has("tflops"))
    return "TFLOP/s";
  if (has("gflops"))
    return "GFLOP/s";
  if (ends("_per_s"))
    return "1/s";
  if (ends("_s"))
    return "s";
  if (ends("_bytes"))
    return "bytes";
  return "";
}

// The schema's types of a metric ({"number", "null"}), empty where it states none.
std::set<std::string> schema_types(const nlohmann::json &entry) {
  std::set<std::string> types;
  if (const auto t = entry.find("type"); t != entry.end()) {
    if (t->is_string())
      types.insert(t->get<std::string>());
    else
      for (const auto &one : *t)
        types.insert(one.get<std::string>());
  }
  return types;
}

// Each row of a field table: a one-line meaning, the unit the schema's naming convention gives
// its name, no unit on what the schema types as a flag or a text, and one unit for a name that
// several tables hold.
TEST(RecordContract, EachFieldHasTheUnitTheSchemaGivesItsName) {
  std::ifstream in(kSource + "/results/schema/record.schema.json");
  const auto schema = nlohmann::json::parse(in);
  // The convention unit_of_name applies is the schema's own: it says so at the top.
  const auto convention = schema.at("description").get<std::string>();
  for (const char *said :
       {"_s seconds", "_bytes bytes", "_gbytes_per_s GB/s", "_gbits_per_s Gb/s", "_tflops 1e12"})
    EXPECT_NE(convention.find(said), std::string::npos) << "the schema no longer says " << said;
  const auto &metrics = schema["properties"]["metrics"]["properties"];
  std::map<std::string, std::string> unit_by_name;
  int rows = 0;
  for (const auto &table : field_tables())
    for (const auto &f : table.fields) {
      ++rows;
      const std::string where = table.family + " " + f.name;
      const std::string meaning = f.meaning, unit = f.unit;
      EXPECT_FALSE(meaning.empty()) << where << " has no meaning";
      EXPECT_EQ(meaning.find('\n'), std::string::npos) << where << ": one line";
      if (const auto by_name = unit_of_name(f.name); !by_name.empty())
        EXPECT_EQ(unit, by_name) << where << ": its name gives " << by_name;
      if (metrics.contains(f.name)) {
        const auto types = schema_types(metrics[f.name]);
        if (types.count("boolean") || types.count("string"))
          EXPECT_EQ(unit, "") << where << " is a flag or a text in the schema";
      }
      const auto it = unit_by_name.emplace(f.name, unit).first;
      EXPECT_EQ(it->second, unit) << where << ": another table gives it " << it->second;
    }
  EXPECT_GT(rows, 150);
  // The rule itself
  EXPECT_EQ(unit_of_name("busbw_max_gbytes_per_s"), "GB/s");
  EXPECT_EQ(unit_of_name("message_rate_per_s"), "1/s");
  EXPECT_EQ(unit_of_name("gemm_alone_s"), "s");
  EXPECT_EQ(unit_of_name("wrong_bytes"), "bytes");
  EXPECT_EQ(unit_of_name("efficiency"), "");
}

// A schema metric whose description names a family ("rdma.incast receiver: ...") is in that
// family's table (import.nvbandwidth's in the peer table, beside the comparisons it feeds).
TEST(RecordContract, EverySchemaMetricOfAFamilyIsInItsTable) {
  const auto schema = schema_metrics();
  const std::set<std::string> core(std::begin(metric::kCoreMetrics),
                                   std::end(metric::kCoreMetrics));
  std::map<std::string, std::set<std::string>> tables;
  for (const auto &table : field_tables())
    for (const auto &f : table.fields)
      tables[table.family].insert(f.name);
  tables["import"] = tables["peer"];
  int tagged = 0;
  for (const auto &[name, entry] : schema.items()) {
    const auto description = entry.value("description", std::string());
    const auto family =
        description.substr(0, description.find_first_not_of("abcdefghijklmnopqrstuvwxyz_"));
    if (!tables.count(family) || core.count(name))
      continue;
    ++tagged;
    EXPECT_TRUE(tables[family].count(name))
        << name << ": the schema gives it to " << family << ", whose field table lacks it";
  }
  EXPECT_GT(tagged, 150);
}

TEST(RecordContract, EveryMetricARuleReadsIsNamedByAContract) {
  auto names = contract_metrics();
  // The fields of each GPU's object in a point that ran on every GPU (metric_names.h, kPerGpu*),
  // which a rule on `part: gpu` reads as its part's metrics: how long the GPU burned.
  names.insert(metric::kPerGpuElapsedS);
  int judged = 0;
  for (const auto &file : std::filesystem::directory_iterator(kSource + "/results/rules")) {
    const auto rules = check::load_rules_file(file.path().string());
    for (const auto &rule : rules.rules)
      for (const auto &path :
           {rule.metric, rule.relative_to, rule.detail ? rule.detail->path : std::string()}) {
        if (path.empty() || path.starts_with("params."))
          continue; // a param a detail names (a GPU x NIC pair's memory) is no metric
        ++judged;
        EXPECT_TRUE(names.count(metric_of(path)))
            << file.path().filename().string() << " rule " << rule.id << " reads " << path
            << ", which no record contract names";
      }
  }
  EXPECT_GT(judged, 20);
}

TEST(RecordContract, EveryContractKeyIsRegistered) {
  const Registry registry = make_registry();
  for (const char *key : {gemm::record::kCublasLt,
                          gemm::record::kCublasLtSize,
                          gemm::record::kBurn,
                          gemm::record::kCpuBlas,
                          gemm::record::kCpuBlasSize,
                          memory::record::kHbmCopy,
                          memory::record::kHbmRead,
                          memory::record::kHbmWrite,
                          memory::record::kHbmTriad,
                          memory::record::kHbmMemcpyD2d,
                          memory::record::kHbmBurn,
                          memory::record::kHbmPattern,
                          memory::record::kHostCopy,
                          memory::record::kHostRead,
                          memory::record::kHostWrite,
                          memory::record::kHostTriad,
                          offload::record::kH2d,
                          offload::record::kD2h,
                          offload::record::kBidir,
                          offload::record::kZeroCopyRead,
                          offload::record::kZeroCopyWrite,
                          offload::record::kAllGpusH2d,
                          offload::record::kAllGpusD2h,
                          offload::record::kWithGemm,
                          rdma::record::kWriteBw,
                          rdma::record::kReadBw,
                          rdma::record::kSendBw,
                          rdma::record::kWriteLat,
                          rdma::record::kReadLat,
                          rdma::record::kSendLat,
                          rdma::record::kPairMatrix,
                          rdma::record::kTcpBw,
                          rdma::record::kTcpLat,
                          rdma::record::kTcpPairMatrix,
                          rdma::record::kQpScaling,
                          rdma::record::kIncast,
                          rdma::record::kLatencyUnderLoad,
                          collectives::record::kNcclAllReduceWithGemm,
                          collectives::record::kMpiAllReduceWithGemm,
                          block::record::kTransformerTp,
                          block::record::kTransformerTpGpu})
    EXPECT_NE(registry.find(key), nullptr) << key << " is in a contract but not registered";
  // Every collective kind has its row of keys, and each of them is registered.
  for (const auto kind : collectives::all_kinds()) {
    const auto &keys = collectives::record::keys_of(kind);
    EXPECT_EQ(keys.kind, kind) << collectives::to_string(kind) << " has no row in kKindKeys";
    for (const char *key : {keys.mpi, keys.nccl, keys.mpi_textbook, keys.nccl_textbook}) {
      if (key) { // braced: EXPECT_NE expands to an if/else of its own
        EXPECT_NE(registry.find(key), nullptr) << key << " is in a contract but not registered";
      }
    }
  }
}

TEST(RecordContract, EveryRegisteredKeyIsInItsFamilysContract) {
  // A benchmark added without its key in the contract would be invisible to analysis by name.
  std::set<std::string> keys{gemm::record::kCublasLt,
                             gemm::record::kCublasLtSize,
                             gemm::record::kBurn,
                             gemm::record::kCpuBlas,
                             gemm::record::kCpuBlasSize,
                             collectives::record::kNcclAllReduceWithGemm,
                             collectives::record::kMpiAllReduceWithGemm,
                             block::record::kTransformerTp,
                             block::record::kTransformerTpGpu};
  for (const char *key : {memory::record::kHbmCopy,       memory::record::kHbmRead,
                          memory::record::kHbmWrite,      memory::record::kHbmTriad,
                          memory::record::kHbmMemcpyD2d,  memory::record::kHostCopy,
                          memory::record::kHostRead,      memory::record::kHostWrite,
                          memory::record::kHostTriad,     offload::record::kH2d,
                          offload::record::kD2h,          offload::record::kBidir,
                          offload::record::kZeroCopyRead, offload::record::kZeroCopyWrite,
                          offload::record::kAllGpusH2d,   offload::record::kAllGpusD2h,
                          offload::record::kWithGemm,     rdma::record::kWriteBw,
                          rdma::record::kReadBw,          rdma::record::kSendBw,
                          rdma::record::kWriteLat,        rdma::record::kReadLat,
                          rdma::record::kSendLat,         rdma::record::kPairMatrix,
                          rdma::record::kTcpBw,           rdma::record::kTcpLat,
                          rdma::record::kTcpPairMatrix,   rdma::record::kQpScaling,
                          rdma::record::kIncast,          rdma::record::kLatencyUnderLoad,
                          memory::record::kHbmBurn,       memory::record::kHbmPattern,
                          memory::record::kPeerCopy})
    keys.insert(key);
  for (const auto &row : collectives::record::kKindKeys)
    for (const char *key : {row.mpi, row.nccl, row.mpi_textbook, row.nccl_textbook})
      if (key)
        keys.insert(key);
  const auto registry = make_registry(); // all() refers to it: a temporary would dangle
  for (const Benchmark *b : registry.all())
    EXPECT_TRUE(keys.count(std::string(b->key()))) << b->key() << " is in no record contract";
}

} // namespace
} // namespace railgauge
