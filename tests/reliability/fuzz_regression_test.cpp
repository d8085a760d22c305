// Inputs that broke a parser or a writer under fuzzing (found by libFuzzer, or by the edge-case
// seeds written for a target; tests/fuzz/regressions/ holds the raw inputs, replayed by
// fuzz_replay.*), minimised into unit tests with the expected message.
#include <fstream>
#include <sstream>
#include <utility>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "analysis/check/check_output.h"
#include "analysis/check/evaluate.h"
#include "analysis/check/rules.h"
#include "analysis/compare/compare.h"
#include "analysis/import/nccl_tests_import.h"
#include "analysis/import/nvbandwidth_import.h"
#include "analysis/import/perftest_import.h"
#include "analysis/report/report.h"
#include "analysis/run_set.h"
#include "harness/error.h"
#include "harness/manifest.h"
#include "harness/record.h"
#include "harness/suite.h"
#include "rdma/endpoint_info.h"
#include "rdma/pair_report.h"
#include "rdma/peer_result.h"
#include "rdma/tcp/tcp_socket.h"
#include "tests/reliability/temp_dir.h"

namespace railgauge {
namespace {

std::string input_error_of(const std::string &yaml) {
  try {
    parse_suite(yaml, "s.yaml");
  } catch (const InputError &e) {
    return e.what();
  }
  return "(no InputError)";
}

// A measurement setting without a value, a list as a setting, a mapping as a field name: each
// threw yaml-cpp's TypedBadConversion past every handler (std::terminate under the CLI).
TEST(FuzzRegressions, NonScalarSuiteValuesAreInputErrorsWithTheLine) {
  const auto empty =
      input_error_of("suite: s\nmeasure:\n  min_samples:\nbenchmarks:\n  - key: a.b\n");
  EXPECT_NE(empty.find("s.yaml:3"), std::string::npos) << empty;
  EXPECT_NE(empty.find("it is empty"), std::string::npos) << empty;
  const auto list =
      input_error_of("suite: s\nbenchmarks:\n  - key: a.b\n    measure: {min_samples: [1]}\n");
  EXPECT_NE(list.find("it is a list"), std::string::npos) << list;
  const auto key = input_error_of("suite: s\n? [a, b]\n: 1\nbenchmarks:\n  - key: a.b\n");
  EXPECT_NE(key.find("field name must be a single value"), std::string::npos) << key;
  const auto description =
      input_error_of("suite: s\ndescription: {a: 1}\nbenchmarks:\n  - key: a.b\n");
  EXPECT_NE(description.find("s.yaml:2"), std::string::npos) << description;
  const auto axis = input_error_of("suite: s\nbenchmarks:\n  - key: a.b\n    axes: {[x]: 1}\n");
  EXPECT_NE(axis.find("an axis name"), std::string::npos) << axis;
}

// A topology file with invalid UTF-8 in a name: its inventory goes into run.json, whose
// writer threw nlohmann's type_error 316 instead of writing the manifest.
// Found by libFuzzer in CI: a rules file whose schema, or a params filter's name, is a list or
// a mapping threw yaml-cpp's TypedBadConversion out of parse_rules (regressions/rules_yaml/).
TEST(FuzzRegressions, RulesWithANonScalarSchemaOrParamsNameAreInputErrors) {
  const auto error_of = [](const std::string &yaml) -> std::string {
    try {
      (void)check::parse_rules(yaml, "r.yaml");
    } catch (const InputError &e) {
      return e.what();
    }
    return "(no InputError)";
  };
  EXPECT_NE(error_of("schema: [railgauge.rules/1]\nname: x\nrules: [{id: a}]\n")
                .find("missing or unknown 'schema'"),
            std::string::npos);
  const std::string list_as_name = "schema: railgauge.rules/1\nname: x\nrules:\n"
                                   "  - id: a\n    category: memory\n    severity: fail\n"
                                   "    select: {key: memory.*, params: {? [dtype, tp]: 1}}\n"
                                   "    metric: metrics.x\n    compare: \">=\"\n    value: 1\n";
  EXPECT_NE(error_of(list_as_name).find("'a params name' must be a single value"),
            std::string::npos)
      << error_of(list_as_name);
}

TEST(FuzzRegressions, ManifestWithInvalidUtf8IsWritten) {
  const testing::TempDir dir("manifest_utf8");
  Manifest manifest({"run-1", "testhost", 0, dir.path()}, {"railgauge", "run"});
  manifest.data()["inventory"] = {{"nic", "mlx5\xdf"
                                          "0"}};
  ASSERT_NO_THROW(manifest.write());
  std::ifstream in(dir.path() + "/run.json");
  const auto read = nlohmann::json::parse(in);
  EXPECT_EQ(read["inventory"]["nic"], "mlx5\xef\xbf\xbd"
                                      "0");
}

// Imported perftest and nccl-tests logs with invalid UTF-8 in a field (a device or host name):
// the records carried it into a strict JSON dump, and rdma_perftest_import stopped with
// json type_error.316 instead of writing them. Every writer now goes through json_line().
TEST(FuzzRegressions, InvalidUtf8InARecordIsReplacedWhenWritten) {
  Record r;
  r.run = "imported";
  r.host = std::string("node\xff\xfe");
  r.key = "rdma.write_bw";
  r.params = {{"device", std::string("mlx5_\xb6")}};
  const std::string line = r.json_line();
  EXPECT_NE(line.find("node\xef\xbf\xbd"), std::string::npos) << line; // U+FFFD
  EXPECT_NE(line.find("mlx5_\xef\xbf\xbd"), std::string::npos) << line;
  EXPECT_TRUE(nlohmann::json::parse(line).is_object()) << line;
}

// ---- importers of other tools' output --------------------------------------------------------

template <class F> std::string input_error_in(F &&f) {
  try {
    f();
  } catch (const InputError &e) {
    return e.what();
  }
  return "(no InputError)";
}

// A size of 1e30 in an nccl-tests row was parsed as a double and cast to int64 (undefined
// behaviour: UBSan stopped the fuzzer on the seed). Sizes and counts are whole numbers now.
TEST(FuzzRegressions, NcclTestsLineOfOtherBlanksIsSkipped) {
  // A line holding only a form feed has no word: it was indexed as if it had one.
  std::istringstream in("# Collective test starting: all_gather_perf\n\f\n\v\r\n"
                        "  4096  1024  float  none  -1  5.0 0.82 0.82 0  5.0 0.82 0.82 0\n");
  const auto r = importers::import_nccl_tests_text(in, "log.txt", std::nullopt, "r", "h");
  EXPECT_EQ(r.records.size(), 2u);
  EXPECT_EQ(r.other_lines, 2);
}

TEST(FuzzRegressions, NcclTestsSizeBeyondAnIntegerIsAnInputError) {
  std::istringstream in("# Collective test starting: all_gather_perf\n"
                        "  1e30  2  float  none  -1  1.0 0.1 0.1 0  1.0 0.1 0.1 0\n");
  const auto e = input_error_in(
      [&] { importers::import_nccl_tests_text(in, "log.txt", std::nullopt, "r", "h"); });
  EXPECT_NE(e.find("log.txt:2"), std::string::npos) << e;
  EXPECT_NE(e.find("not a whole number"), std::string::npos) << e;
}

std::string perftest_fixture(const char *name) {
  std::ifstream in(std::string(RAILGAUGE_SOURCE_DIR) + "/tests/fixtures/rdma/perftest/" + name);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// perftest's #bytes cast from a double (1e23: undefined), and a field value of 23 digits made
// std::stoll throw std::out_of_range past the importer's handler.
TEST(FuzzRegressions, PerftestNumbersOutOfRangeAreInputErrorsOrText) {
  const std::string lat = perftest_fixture("ib_write_lat_rxe_client.txt");
  ASSERT_NE(lat.find(" 8       2000 "), std::string::npos);
  std::string huge_row = lat;
  huge_row.replace(huge_row.find(" 8       2000 "), 14, " 99999999999999999999999 2000 ");
  const auto e = input_error_in([&] { importers::import_perftest(huge_row, "lat.txt"); });
  EXPECT_NE(e.find("lat.txt:22"), std::string::npos) << e;
  EXPECT_NE(e.find("is not a whole number"), std::string::npos) << e;

  std::string huge_field = lat;
  huge_field.replace(huge_field.find("1024[B]"), 7, "99999999999999999999999[B]");
  const auto records = importers::import_perftest(huge_field, "lat.txt");
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].params.at("mtu_bytes"), "99999999999999999999999[B]");
  EXPECT_EQ(records[0].params.at("size_bytes"), 8);
}

// A line of 200,000 characters: std::regex matched it recursively and overflowed the stack
// (a segfault from 100,000 characters on; found reading the code, checked outside the fuzzer,
// whose inputs stay under 4 KiB).
TEST(FuzzRegressions, PerftestLongLineIsNotATitle) {
  const std::string text = "Atomic" + std::string(200'000, 'x') + " BW Test\n";
  const auto e = input_error_in([&] { importers::import_perftest(text, "big.txt"); });
  // refused by its length before any regex reads it (harness/bounded_input.h), at its line
  EXPECT_NE(e.find("big.txt:1: a line longer than 8192 bytes"), std::string::npos) << e;
}

// nvbandwidth JSON whose GPU x GPU matrix has rows but no column: the split into stacked
// matrices divided by the column count, zero (SIGFPE).
TEST(FuzzRegressions, NvbandwidthMatrixWithoutColumnsIsAProblem) {
  const std::string text =
      R"json({"nvbandwidth": {"testcases": [{"name": "device_to_device_memcpy_read_ce",
          "bandwidth_description": "memcpy CE GPU(row) -> GPU(column) bandwidth (GB/s)",
          "bandwidth_matrix": [[], []]}]}})json";
  const auto doc = importers::parse_nvbandwidth(text, "nvb.json");
  ASSERT_EQ(doc.testcases.size(), 1u);
  EXPECT_TRUE(doc.testcases[0].matrices.empty());
  ASSERT_EQ(doc.problems.size(), 1u);
  EXPECT_NE(doc.problems[0].find("malformed and was not imported"), std::string::npos);
}

// ---- what the peers of a pair and the ranks of a pair matrix send each other -----------------

template <class F> std::string backend_error_in(F &&f) {
  try {
    f();
  } catch (const BackendError &e) {
    return e.what();
  } catch (const std::exception &e) {
    return std::string("(another exception: ") + e.what() + ")";
  }
  return "(no BackendError)";
}

// A LID, QPN or rkey out of its field's range was narrowed on the way in (70000 became LID
// 4464, -1 QPN 4294967295): a connection to the wrong port or queue pair. Refused now.
TEST(FuzzRegressions, EndpointInfoValuesOutOfRangeAreRefused) {
  rdma::EndpointInfo good;
  good.mtu_bytes = 4096;
  good.qpns = {17};
  good.psns = {0xabcdef};
  auto j = nlohmann::json::parse(good.serialize());
  for (const auto &[field, value] :
       std::vector<std::pair<std::string, nlohmann::json>>{{"lid", 70000},
                                                           {"rkey", 1.5},
                                                           {"gid_index", -1},
                                                           {"qpns", {-1}},
                                                           {"psns", {0x1000000}},
                                                           {"mtu_bytes", "4096"}}) {
    auto bad = j;
    bad[field] = value;
    const auto e = backend_error_in([&] { rdma::EndpointInfo::parse(bad.dump()); });
    EXPECT_NE(e.find("'" + field + "'"), std::string::npos) << field << ": " << e;
  }
  EXPECT_EQ(rdma::EndpointInfo::parse(good.serialize()).serialize(), good.serialize());
}

// The TCP server's "address:port": std::stoi threw std::invalid_argument ("stoi") on a port that
// is not a number; a port above 65535 was wrapped.
TEST(FuzzRegressions, TcpPeerEndpointIsDecodedOrABackendError) {
  for (const char *bad : {"127.0.0.1:http", "127.0.0.1:70000", "127.0.0.1:0", "::1:80",
                          "[127.0.0.1]:80", "node017:29500", "127.0.0.1"}) {
    const auto e = backend_error_in([&] { rdma::parse_peer_endpoint(bad); });
    EXPECT_NE(e.find("malformed endpoint"), std::string::npos) << bad << ": " << e;
  }
  const auto v6 = rdma::parse_peer_endpoint("[fe80::1]:41234");
  EXPECT_EQ(v6.address, "fe80::1");
  EXPECT_EQ(v6.port, 41234);
  EXPECT_EQ(v6.to_string(), "[fe80::1]:41234");
  EXPECT_EQ(rdma::parse_peer_endpoint("10.0.0.5:1").to_string(), "10.0.0.5:1");
}

// The serving side's result: a field of another type threw the JSON library's type_error out of
// the client, reported as "[json.exception.type_error.302] ...".
TEST(FuzzRegressions, PeerResultIsDecodedOrABackendError) {
  for (const char *bad : {R"({"problems": [1], "messages": 3})", R"({"problems": []})",
                          R"({"problems": [], "messages": -1})", R"({"error": 7})", "[1]",
                          R"({"problems": [], "messages": 1, "active_s": "0.5"})",
                          R"({"problems": [], "messages": 1, "port_counter_deltas": [1]})"}) {
    const auto e = backend_error_in([&] { rdma::PeerResult::parse(bad); });
    EXPECT_NE(e.find("malformed result from the peer"), std::string::npos) << bad << ": " << e;
  }
  const auto failed = rdma::PeerResult::parse(R"({"error": "TCP accept: timed out"})");
  EXPECT_EQ(failed.error, "TCP accept: timed out");
  const auto ok = rdma::PeerResult::parse(
      R"({"problems": ["x: 1 of 8 bytes differ"], "wrong_bytes": 1, "messages": 12,
          "active_s": 0.5, "device": "rxe0",
          "port_counter_deltas": {"hw_counters": {"duplicate_request": 3}}})");
  EXPECT_EQ(ok.messages, 12u);
  EXPECT_EQ(ok.checked.wrong_bytes, 1u);
  EXPECT_EQ(ok.active_s, 0.5);
  ASSERT_TRUE(ok.port_counter_deltas);
  EXPECT_EQ((*ok.port_counter_deltas)["hw_counters"]["duplicate_request"], 3);
  EXPECT_EQ(rdma::PeerResult::parse(ok.to_json().dump()).to_json(), ok.to_json());
}

// A rank's pair matrix reports: {} made every rank read a missing key through a const
// operator[] (undefined), and a pair outside the round indexed the endpoint list out of range.
TEST(FuzzRegressions, PairReportIsOfTheRoundAndItsSenderOrABackendError) {
  const rdma::Round round = {{0, 3}, {1, 2}};
  const std::vector<int> owner = {0, 1, 2, 3};
  for (const auto &input : std::vector<std::pair<int, std::string>>{
           {3, "[{}]"},
           {3, "null"},
           {3, R"([{"a": 0, "b": 7, "latency_s": 1e-5, "bandwidth_gbits_per_s": 9}])"},
           {2, R"([{"a": 0, "b": 3, "latency_s": 1e-5, "bandwidth_gbits_per_s": 9}])"},
           {3, R"([{"a": 0, "b": 3, "latency_s": -1, "bandwidth_gbits_per_s": 9}])"},
           {3, R"([{"a": 0, "b": 3, "latency_s": 1, "bandwidth_gbits_per_s": 9},
                  {"a": 0, "b": 3, "latency_s": 1, "bandwidth_gbits_per_s": 9}])"},
           {3, "not json"}}) {
    const auto &[from, text] = input; // not captured below: clang 14 cannot capture a binding
    const auto e = backend_error_in(
        [&] { rdma::decode_pair_reports(input.second, input.first, round, owner); });
    EXPECT_NE(e.find("rank " + std::to_string(from) + " sent a malformed pair matrix report"),
              std::string::npos)
        << text << ": " << e;
  }
  EXPECT_TRUE(rdma::decode_pair_reports("[]", 0, round, owner).empty());
  const rdma::PairReport sent{{{1, 2}, 2e-5, 9.5}, ""};
  const auto got = rdma::decode_pair_reports(rdma::encode_pair_reports({sent}), 2, round, owner);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].result.pair, (rdma::EndpointPair{1, 2}));
  EXPECT_EQ(got[0].result.bandwidth_gbits_per_s, 9.5);
  // Two NICs per rank: rank 1 owns endpoints 2 and 3 and measures both pairs.
  const auto both = rdma::decode_pair_reports(
      rdma::encode_pair_reports({{{{0, 3}, 1e-5, 9}, ""}, {{{1, 2}, 1e-5, 9}, ""}}), 1, round,
      {0, 0, 1, 1});
  EXPECT_EQ(both.size(), 2u);
}

// ---- the JSON files `railgauge report` reads ---------------------------------------------------

// A check result with the right schema but a field missing: the verdict section read it through
// a const operator[] (undefined) or threw type_error; a comparison with fewer inputs than labels
// was indexed out of range.
TEST(FuzzRegressions, ReportInputsOfTheWrongShapeAreInputErrors) {
  const auto check = nlohmann::json::parse(
      R"({"schema": "railgauge.check/1", "verdict": "pass", "summary": {}, "parts": [],
          "drain": []})");
  auto e = input_error_in([&] { report::check_result_for_report(check, "c.json"); });
  EXPECT_NE(e.find("c.json"), std::string::npos) << e;
  EXPECT_NE(e.find("'rules'"), std::string::npos) << e;
  const auto comparison = nlohmann::json::parse(
      R"({"schema": "railgauge.compare/1", "labels": ["a", "b"], "inputs": [["r1"]],
          "points": [], "families": [], "keys": []})");
  e = input_error_in([&] { compare::comparison_from_json(comparison); });
  EXPECT_NE(e.find("2 labels for 1 inputs"), std::string::npos) << e;
}

// ---- runs read back by the analysis commands ---------------------------------------------------

Record host_memory_record(const std::string &host) {
  Record r;
  r.run = "run-1";
  r.host = host;
  r.key = "memory.host_copy";
  r.params = {{"size_bytes", 4096}};
  r.metrics = {{"bandwidth_gbytes_per_s", 10.0}, {"verified", true}};
  r.status = Status::ok;
  r.time_utc = "2026-11-22T10:00:00.000Z";
  return r;
}

// run.json is a file a user may have edited: a host that is a number, a GPU index that is text,
// a GPU list entry that is not an object each threw the JSON library's type_error out of
// `railgauge check` (exit "crashed" instead of a verdict).
TEST(FuzzRegressions, CheckJudgesARunWhoseManifestHasFieldsOfOtherTypes) {
  analysis::RunSet runs;
  analysis::LoadedRun run;
  run.dir = "runs/r1";
  run.manifest = nlohmann::json::parse(R"({"host": 7, "inventory": {
      "nvml": {"gpus": [1, {"pci_bus_id": "0000:19:00.0", "index": "zero"}]},
      "rail_map": {"gpus": [{"bus_id": "0000:19:00.0", "nvml_index": 1e300}]}}})");
  run.records = {host_memory_record("node01")};
  runs.runs.push_back(run);
  const auto rules =
      check::load_rules_file(std::string(RAILGAUGE_SOURCE_DIR) + "/results/rules/host-only.yaml");
  check::CheckResult result;
  ASSERT_NO_THROW(result = check::evaluate(rules, runs));
  EXPECT_EQ(result.hosts(), std::vector<std::string>{"node01"}); // the records' host, not 7
}

// A run.json with invalid UTF-8: its problem quoted the JSON parser's message, which quotes the
// bytes read last, and `check --json` could not write the verdict (type_error 316).
TEST(FuzzRegressions, UnreadableRunJsonIsAProblemTheVerdictCanCarry) {
  const testing::TempDir dir("run_json_utf8");
  std::ofstream(dir.path() + "/run.json") << "{\"host\": \"node\x83\"}";
  std::ofstream(dir.path() + "/records.jsonl") << host_memory_record("node01").json_line() << "\n";
  const auto runs = analysis::load_runs({dir.path()});
  ASSERT_EQ(runs.problems.size(), 1u);
  EXPECT_NE(runs.problems[0].find("run.json: not valid JSON (at byte 15)"), std::string::npos)
      << runs.problems[0];
  const auto rules =
      check::load_rules_file(std::string(RAILGAUGE_SOURCE_DIR) + "/results/rules/host-only.yaml");
  EXPECT_NO_THROW((void)check::to_json(check::evaluate(rules, runs)).dump(2));
}

} // namespace
} // namespace railgauge
