// The fleet history against SQLite and PostgreSQL alike: burn-ins of one H200 node written as
// run directories by the real record writers (gemm::burn_outcome, memory::hbm_burn_outcome,
// Record::json_line, Manifest::write; made-up figures, never a measurement), ingested and judged
// by `check`'s evaluate() with the history beside it. The PostgreSQL cases need a server
// (RAILGAUGE_TEST_PG_URL, set by pg_server.py, which starts one from Debian's package); without
// it they skip, saying so.
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <set>

#include <gtest/gtest.h>

#include "analysis/check/check_output.h"
#include "analysis/check/evaluate.h"
#include "analysis/history/database.h"
#include "analysis/history/history_report.h"
#include "analysis/history/history_rules.h"
#include "analysis/history/ingest.h"
#include "analysis/history/ledger_rows.h"
#include "analysis/history/schema.h"
#include "analysis/report/report.h"
#include "analysis/run_set.h"
#include "gemm/cuda/burn.h"
#include "harness/error.h"
#include "harness/manifest.h"
#include "memory/cuda/hbm_burn.h"
#include "railgauge/config.h"
#include "tests/analysis/check/synthetic_fleet.h"
#include "tests/analysis/history/synthetic_burnin_run.h"
#include "tests/support/outcome_record.h"

namespace railgauge::history {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

const std::string kSource = RAILGAUGE_SOURCE_DIR;
constexpr const char *kHost = kBurninHost;

class History : public ::testing::TestWithParam<std::string> {
protected:
  void SetUp() override {
    char tmpl[] = "/tmp/rg-history-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    if (GetParam() == "sqlite") {
      url_ = "sqlite:" + (dir_ / "history.db").string();
      return;
    }
    const char *server = std::getenv("RAILGAUGE_TEST_PG_URL");
    if (!server)
      GTEST_SKIP() << "no PostgreSQL server: run under tests/analysis/history/pg_server.py";
    // A fresh database a test: postgresql:///postgres?host=... -> postgresql:///<name>?host=...
    static int count = 0;
    const std::string name = fmt::format("history_{}_{}", ::getpid(), ++count);
    const std::string admin = server;
    ASSERT_EQ(std::system(fmt::format("psql '{}' -q -c 'CREATE DATABASE {}'", admin, name).c_str()),
              0);
    url_ = admin;
    url_.replace(url_.find("/postgres?"), 10, "/" + name + "?");
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Writes and ingests the burn-in; returns check's result of it with the history beside.
  check::CheckResult burn_in(Database &db, const BurnIn &b) {
    const auto runs = analysis::load_runs({write_burnin(dir_ / "runs", b)});
    for (const auto &run : runs.runs)
      ingest_run(db, run);
    auto result =
        check::evaluate(check::load_rules_file(kSource + "/results/rules/h200-sxm.yaml"), runs);
    add_history(result, judge_history(db, {kHost}));
    return result;
  }

  // Ten burn-ins, the 2nd, 5th and 9th failed by `fail`: a repeat offender from the 9th on.
  void expect_offender_from_the_ninth(Database &db, const std::function<void(BurnIn &)> &fail,
                                      bool offend = true);

  fs::path dir_;
  std::string url_;
};

// part label -> the rules it violated (warn or fail, not a missing value)
std::map<std::string, std::set<std::string>> violations(const check::CheckResult &r) {
  std::map<std::string, std::set<std::string>> out;
  for (const auto &p : r.parts)
    for (const auto &f : p.findings)
      if (!f.missing && !f.not_covered && !f.not_applicable && f.level >= check::Level::warn)
        out[p.label].insert(f.rule_id);
  return out;
}

TEST_P(History, AGpuLosingHalfAPercentARunIsNamedByDriftBeforeItsFloor) {
  auto db = open_database(url_);
  int named_at = 0, floor_at = 0;
  for (int run = 1; run <= 20; ++run) {
    const auto r = burn_in(*db, {.run = run, .drifting_gpu = 5});
    for (const auto &[part, rules] : violations(r)) {
      // 20 runs of 0.5 % is 9 % down: the floor (8 % below healthy) may catch it late, never
      // before the drift does.
      if (rules.contains("burn-gemm-floor") && !floor_at)
        floor_at = run;
      EXPECT_FALSE(rules.contains("burn-hbm-floor")) << run << " " << part;
      if (rules.contains(kDriftRule)) {
        EXPECT_EQ(part.rfind("gpu5", 0), 0u) << "run " << run << ": " << part;
        if (!named_at && part.rfind("gpu5", 0) == 0)
          named_at = run;
      }
      EXPECT_FALSE(rules.contains(kStepRule)) << run << " " << part;
    }
  }
  std::cout << "history-drift named gpu5 first at burn-in " << named_at << " of 20; its floor at "
            << floor_at << "\n";
  EXPECT_GT(named_at, 0);
  EXPECT_LE(named_at, 12);
  EXPECT_TRUE(floor_at == 0 || floor_at > named_at) << floor_at;
}

// Ten burn-ins, the 2nd, 5th and 9th failed by `fail`: the node is a repeat offender (three
// failed of its last ten) from the 9th on, and not before; never, where they do not `offend`.
void History::expect_offender_from_the_ninth(Database &db,
                                             const std::function<void(BurnIn &)> &fail,
                                             bool offend) {
  for (int run = 1; run <= 10; ++run) {
    BurnIn b{.run = run};
    if (run == 2 || run == 5 || run == 9)
      fail(b);
    const auto r = burn_in(db, b);
    const bool offender = violations(r)[kHost].contains(kOffenderRule);
    EXPECT_EQ(offender, offend && run >= 9) << "run " << run << "\n" << check::render_table(r);
  }
}

TEST_P(History, ThreeFailedBurnInsOfTenIsARepeatOffender) {
  auto db = open_database(url_);
  expect_offender_from_the_ninth(*db, [](BurnIn &b) { b.corrupt = true; });
}

// Burn-ins cut off before their end (run.json still "running") fail check on run-complete with
// no record failed: three of them in ten are a repeat offender as three failed records are.
TEST_P(History, ThreeBurnInsCutOffOfTenAreARepeatOffender) {
  auto db = open_database(url_);
  expect_offender_from_the_ninth(*db, [](BurnIn &b) { b.unfinished = true; });
}

// A job's time limit is no fault of the node: three burn-ins of ten that SIGTERM stopped make no
// repeat offender (run-complete warns on each: not measured, not passed).
TEST_P(History, ThreeBurnInsStoppedByATimeLimitAreNoRepeatOffender) {
  auto db = open_database(url_);
  expect_offender_from_the_ninth(
      *db, [](BurnIn &b) { b.interrupted = true; }, false);
}

// A run of four processes on the node is one run: its ranks failing together are one failed
// run of the node, not four.
TEST_P(History, TheRanksOfOneFailedRunAreOneFailedRun) {
  auto db = open_database(url_);
  for (int run = 1; run <= 3; ++run) {
    const auto r = burn_in(*db, {.run = run, .corrupt = run == 1, .ranks = 4});
    EXPECT_FALSE(violations(r)[kHost].contains(kOffenderRule)) << "run " << run << "\n"
                                                               << check::render_table(r);
  }
}

TEST_P(History, AReplacedGpuRestartsItsHistory) {
  auto db = open_database(url_);
  for (int run = 1; run <= 8; ++run)
    burn_in(*db, {.run = run, .drifting_gpu = 1});
  // GPU 1's slot gets a new GPU: its history restarts, so the drift of the old one is gone.
  const auto r = burn_in(*db, {.run = 9, .gpu1_uuid = "GPU-replacement"});
  bool said = false;
  for (const auto &p : r.parts)
    for (const auto &f : p.findings) {
      EXPECT_NE(f.rule_id, kDriftRule) << check::render_table(r);
      EXPECT_NE(f.rule_id, kStepRule) << check::render_table(r);
      if (f.rule_id == kReplacedRule) {
        said = true;
        EXPECT_EQ(p.label.rfind("gpu1", 0), 0u) << p.label;
        EXPECT_NE(f.detail.find("GPU-00000001"), std::string::npos) << f.detail;
        EXPECT_NE(f.detail.find("GPU-replacement"), std::string::npos) << f.detail;
      }
    }
  EXPECT_TRUE(said) << check::render_table(r);
}

// A database of GPUs known by their UUIDs, then an inventory that reads serials too: the same
// GPUs, their histories go on. A new GPU (another UUID and serial) is still a replacement.
TEST_P(History, AGpusFirstSerialContinuesTheHistoryItsUuidNames) {
  auto db = open_database(url_);
  for (int run = 1; run <= 12; ++run)
    burn_in(*db, {.run = run, .drifting_gpu = 1});
  for (int run = 13; run <= 14; ++run) {
    const auto r = burn_in(*db, {.run = run, .drifting_gpu = 1, .serials = true});
    bool drift = false;
    for (const auto &p : r.parts)
      for (const auto &f : p.findings) {
        EXPECT_NE(f.rule_id, kReplacedRule) << p.label << ": " << f.detail;
        drift |= f.rule_id == kDriftRule && p.label.rfind("gpu1", 0) == 0;
      }
    EXPECT_TRUE(drift) << "run " << run << "\n" << check::render_table(r);
  }
  const auto r = burn_in(*db, {.run = 15,
                               .gpu1_uuid = "GPU-replacement",
                               .serials = true,
                               .gpu1_serial = "SN-replacement"});
  std::vector<std::string> replaced;
  for (const auto &p : r.parts)
    for (const auto &f : p.findings)
      if (f.rule_id == kReplacedRule) {
        replaced.push_back(p.label);
        EXPECT_NE(f.detail.find("SN-00000001"), std::string::npos) << f.detail;
        EXPECT_NE(f.detail.find("SN-replacement"), std::string::npos) << f.detail;
      }
  ASSERT_EQ(replaced.size(), 1u) << check::render_table(r);
  EXPECT_EQ(replaced[0].rfind("gpu1", 0), 0u) << replaced[0];
}

TEST_P(History, TheSameRunIngestedTwiceIsOneRun) {
  auto db = open_database(url_);
  const auto runs = analysis::load_runs({write_burnin(dir_ / "runs", {.run = 1})});
  const auto first = ingest_run(*db, runs.runs.at(0));
  const auto again = ingest_run(*db, runs.runs.at(0));
  EXPECT_TRUE(first.added);
  EXPECT_FALSE(again.added);
  EXPECT_EQ(first.records, 2);
  EXPECT_EQ(first.figures, 16); // 8 GPUs' GEMM and HBM figures
  EXPECT_EQ(as_int(db->query("SELECT COUNT(*) FROM runs").at(0).at(0)), 1);
  EXPECT_EQ(as_int(db->query("SELECT COUNT(*) FROM records").at(0).at(0)), 2 + 16);
  EXPECT_EQ(as_int(db->query("SELECT COUNT(*) FROM parts").at(0).at(0)), 8);
}

TEST_P(History, ADatabaseOfANewerSchemaIsRefused) {
  {
    auto db = open_database(url_);
    db->execute("UPDATE schema_version SET version = ?", {std::int64_t{kSchemaVersion + 1}});
  }
  try {
    open_database(url_);
    FAIL() << "a newer schema was opened";
  } catch (const InputError &e) {
    EXPECT_NE(std::string(e.what()).find("newer"), std::string::npos) << e.what();
  }
}

// A version-1 database (PostgreSQL: records with their foreign keys, as version 1 made them) is
// brought to the current version when opened, and takes runs as a new one does.
TEST_P(History, ADatabaseOfVersionOneIsUpgradedWhenOpened) {
  const bool postgresql = GetParam() == "postgresql";
  const auto foreign_keys = "SELECT COUNT(*) FROM pg_constraint WHERE contype = 'f' AND "
                            "conrelid = 'records'::regclass";
  {
    auto db = open_database(url_);
    db->execute("UPDATE schema_version SET version = 1");
    if (postgresql) {
      db->execute("ALTER TABLE records ADD CONSTRAINT records_run_id_fkey FOREIGN KEY (run_id) "
                  "REFERENCES runs(id), ADD CONSTRAINT records_part_id_fkey FOREIGN KEY "
                  "(part_id) REFERENCES parts(id)");
      EXPECT_EQ(as_int(db->query(foreign_keys).at(0).at(0)), 2);
    }
  }
  auto db = open_database(url_);
  EXPECT_EQ(as_int(db->query("SELECT MAX(version) FROM schema_version").at(0).at(0)),
            kSchemaVersion);
  if (postgresql) {
    EXPECT_EQ(as_int(db->query(foreign_keys).at(0).at(0)), 0);
  }
  const auto runs = analysis::load_runs({write_burnin(dir_ / "runs", {.run = 1})});
  EXPECT_TRUE(ingest_run(*db, runs.runs.at(0)).added);
  EXPECT_EQ(as_int(db->query("SELECT COUNT(*) FROM records").at(0).at(0)), 2 + 16);
}

// A version-3 database (runs without their completeness) gains the columns when opened, and a
// run stored before then is judged by its status until it is ingested again.
TEST_P(History, ADatabaseOfVersionThreeGainsTheRunsCompletenessWhenOpened) {
  {
    auto db = open_database(url_);
    for (const char *column :
         {"points_planned", "counts", "world_size", "world_rank", "incomplete"})
      db->execute(std::string("ALTER TABLE runs DROP COLUMN ") + column);
    db->execute("UPDATE schema_version SET version = 3");
  }
  auto db = open_database(url_);
  EXPECT_EQ(as_int(db->query("SELECT MAX(version) FROM schema_version").at(0).at(0)),
            kSchemaVersion);
  const auto runs =
      analysis::load_runs({write_burnin(dir_ / "runs", {.run = 1, .unfinished = true})});
  EXPECT_TRUE(ingest_run(*db, runs.runs.at(0)).added);
  // Its completeness is stored now (this burn-in's run.json still says running).
  EXPECT_EQ(as_text(db->query("SELECT incomplete FROM runs").at(0).at(0)),
            "run.json says status 'running', not complete");
}

// A version-4 database (runs without their inventory, no unreadable table) gains them when
// opened, and a run stored before then is stored again, with its run.json's inventory, when it
// is ingested again.
TEST_P(History, ADatabaseOfVersionFourGainsTheRunsInventoryWhenOpened) {
  const auto runs = analysis::load_runs({write_burnin(dir_ / "runs", {.run = 1})});
  const auto &run = runs.runs.at(0);
  {
    auto db = open_database(url_);
    EXPECT_TRUE(ingest_run(*db, run).added);
    db->execute("ALTER TABLE runs DROP COLUMN inventory");
    db->execute("DROP TABLE unreadable");
    db->execute("UPDATE schema_version SET version = 4");
  }
  auto db = open_database(url_);
  EXPECT_EQ(as_int(db->query("SELECT MAX(version) FROM schema_version").at(0).at(0)),
            kSchemaVersion);
  const auto stored = [&] { return db->query("SELECT inventory FROM runs").at(0).at(0); };
  EXPECT_TRUE(std::holds_alternative<std::nullptr_t>(stored()));
  EXPECT_EQ(as_int(db->query("SELECT COUNT(*) FROM unreadable").at(0).at(0)), 0);
  const auto again = ingest_run(*db, run);
  EXPECT_TRUE(again.refreshed);
  EXPECT_NE(again.before.find("no inventory"), std::string::npos) << again.before;
  EXPECT_EQ(json::parse(as_text(stored())), run.manifest.at("inventory"));
  EXPECT_FALSE(ingest_run(*db, run).added); // stored whole now: nothing changes
}

// A version-6 database (unreadable rows without a host) gains the column when opened, and
// stores the host of a run it could not store.
TEST_P(History, ADatabaseOfVersionSixGainsTheHostOfAnUnreadableRun) {
  {
    auto db = open_database(url_);
    db->execute("ALTER TABLE unreadable DROP COLUMN host");
    db->execute("UPDATE schema_version SET version = 6");
  }
  auto db = open_database(url_);
  EXPECT_EQ(as_int(db->query("SELECT MAX(version) FROM schema_version").at(0).at(0)),
            kSchemaVersion);
  store_unreadable(*db, {"runs"}, {{"runs/b", "the run cannot be stored: why", "node7"}});
  EXPECT_EQ(as_text(db->query("SELECT host FROM unreadable").at(0).at(0)), "node7");
}

TEST_P(History, TheReportDrawsEachGpuOverItsRunsWithFloorAndFleetBand) {
  auto db = open_database(url_);
  for (int run = 1; run <= 6; ++run)
    burn_in(*db, {.run = run, .drifting_gpu = 5});
  const auto rules = check::load_rules_file(kSource + "/results/rules/h200-sxm.yaml");
  report::ReportInput in;
  in.title = "history";
  in.sections.push_back([&](report::Page &page) { history_section(page, *db, kHost, &rules); });
  const auto page = report::build_report(in);
  // Two charts (GEMM and HBM burn), each a line per GPU, the fleet's band and the floor.
  EXPECT_NE(page.html.find("gemm.burn"), std::string::npos);
  EXPECT_NE(page.html.find("memory.burn"), std::string::npos);
  EXPECT_NE(page.html.find("floor (burn-gemm-floor)"), std::string::npos);
  EXPECT_NE(page.html.find("fleet 5th-95th percentile"), std::string::npos);
  EXPECT_NE(page.html.find("0000:68:00.0"), std::string::npos); // GPU 5's slot
  EXPECT_NE(page.markdown.find("| 0000:68:00.0 | 6 |"), std::string::npos) << page.markdown;
  EXPECT_THROW(history_section(*std::make_unique<report::Page>(), *db, "nohost", &rules),
               InputError);
}

// The thresholds come from the rules file: two failed burn-ins of five name a lemon where the
// profile's history section says so (the shipped 3 of 10 do not, ThreeFailedBurnInsOfTen...).
TEST_P(History, TheRulesFileSetsTheHistoryThresholds) {
  auto db = open_database(url_);
  auto rules = check::load_rules_file(kSource + "/results/rules/h200-sxm.yaml");
  EXPECT_EQ(rules.history.offender_failures, 3); // inherited from h100-sxm.yaml
  const auto yaml =
      fmt::format("schema: railgauge.rules/1\nname: strict\nbase: {}\n"
                  "history: {{repeat_offender: {{failures: 2, runs: 5}}}}\n"
                  "rules: [{{id: x, category: health, severity: warn, inventory: node.gpu_count, "
                  "compare: '>=', value: 1}}]\n",
                  kSource + "/results/rules/h200-sxm.yaml");
  rules = check::parse_rules(yaml, dir_ / "strict.yaml");
  EXPECT_EQ(rules.history.offender_failures, 2);
  EXPECT_EQ(rules.history.offender_runs, 5);
  EXPECT_EQ(rules.history.window_runs, 10); // the base's
  bool named = false;
  for (int run = 1; run <= 3; ++run) {
    const auto runs = analysis::load_runs(
        {write_burnin(dir_ / "runs", {.run = run, .corrupt = run == 1 || run == 3})});
    ingest_run(*db, runs.runs.at(0));
    auto result = check::evaluate(rules, runs);
    add_history(result, judge_history(*db, {kHost}, rules.history));
    named = violations(result)[kHost].contains(kOffenderRule);
    EXPECT_EQ(named, run == 3) << "run " << run;
  }
}

// The coverage ledger in the history: `db ingest` stores a run's fabric_ledger.jsonl as rows of
// the ledger table, once. A matrix run of host `host` under `out`, its ledger holding `ledger`
// (JSON lines).
std::string matrix_run(const fs::path &out, const std::string &host, const std::string &ledger) {
  const RunIdentity id = create_run_directory(out.string(), host, 0);
  Manifest manifest(id, {"railgauge", "rdma"});
  manifest.data()["suite"] = {{"name", "rdma"}};
  manifest.write();
  Outcome o;
  o.metrics = {{"pairing", "coverage"}};
  std::ofstream(fs::path(id.dir) / "records.jsonl")
      << railgauge::testing::outcome_record(id.run_id, host, "rdma.tcp_pair_matrix",
                                            {{"coverage_k", 2}}, o, "2026-11-27T04:00:00.000Z")
             .json_line()
      << '\n';
  std::ofstream(fs::path(id.dir) / records::kLedgerFileName) << ledger;
  return id.dir;
}

TEST_P(History, ARunsLedgerIsStoredOnceWithItsLinksTimesAndHow) {
  const auto run = matrix_run(
      dir_ / "runs", "fabnode",
      "{\"link\":\"n1/mlx5_0 - leaf1[3]\",\"kind\":\"nic_leaf\",\"time_s\":1795000000.5,"
      "\"round\":0,\"phase\":\"matrix\",\"flows\":2,\"bad\":1,\"via\":\"rdma.pair_matrix write\"}\n"
      "{\"link\":\"leaf1[33] - spine2[1]\",\"kind\":\"leaf_spine\",\"time_s\":1795000100,"
      "\"round\":3,\"phase\":\"split\",\"flows\":32,\"bad\":0}\n");
  auto db = open_database(url_);
  const auto loaded = analysis::load_runs({run});
  ASSERT_EQ(loaded.runs.size(), 1u);
  const auto first = ingest_run(*db, loaded.runs.front());
  EXPECT_TRUE(first.added);
  EXPECT_EQ(first.ledger_lines, 2);
  EXPECT_FALSE(ingest_run(*db, loaded.runs.front()).added); // a second ingest adds nothing
  const auto rows = db->query("SELECT l.link, l.kind, l.phase, l.via, l.time_s, l.round_index, "
                              "l.flows, l.bad, h.name FROM ledger l JOIN hosts h ON "
                              "h.id = l.host_id JOIN runs r ON r.id = l.run_id ORDER BY l.link");
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(as_text(rows[0][0]), "leaf1[33] - spine2[1]");
  EXPECT_EQ(as_text(rows[0][2]), "split");
  EXPECT_EQ(as_text(rows[0][3]), ""); // no via: null
  EXPECT_EQ(as_int(rows[0][5]), 3);
  EXPECT_EQ(as_int(rows[0][6]), 32);
  EXPECT_EQ(as_text(rows[1][0]), "n1/mlx5_0 - leaf1[3]");
  EXPECT_EQ(as_text(rows[1][1]), "nic_leaf");
  EXPECT_EQ(as_text(rows[1][3]), "rdma.pair_matrix write");
  EXPECT_EQ(as_double(rows[1][4]), 1795000000.5);
  EXPECT_EQ(as_int(rows[1][7]), 1);
  EXPECT_EQ(as_text(rows[1][8]), "fabnode");
  // What a canary asks: the links exercised since a time.
  EXPECT_EQ(db->query("SELECT link FROM ledger WHERE time_s >= ?", {1795000050.0}).size(), 1u);
}

TEST_P(History, ABadLedgerLineRefusesItsRunNamingTheLine) {
  const auto run =
      matrix_run(dir_ / "runs", "fabnode", "{\"link\":\"a\",\"time_s\":1}\n{\"link\":\"b\"}\n");
  auto db = open_database(url_);
  const auto loaded = analysis::load_runs({run});
  ASSERT_EQ(loaded.runs.size(), 1u);
  try {
    ingest_run(*db, loaded.runs.front());
    FAIL() << "a ledger line without its time was ingested";
  } catch (const InputError &e) {
    EXPECT_EQ(e.where(), (fs::path(run) / records::kLedgerFileName).string() + ":2");
  }
  EXPECT_EQ(as_int(db->query("SELECT COUNT(*) FROM runs").at(0).at(0)), 0);
}

INSTANTIATE_TEST_SUITE_P(Backends, History, ::testing::Values("sqlite", "postgresql"),
                         [](const auto &info) { return info.param; });

// A bad threshold is refused at its line, saying the range it must be in.
TEST(HistoryThresholds, ABadValueIsRefusedAtItsLine) {
  const auto refused = [](const std::string &history) {
    const auto yaml =
        "schema: railgauge.rules/1\nname: t\nhistory:\n" + history +
        "rules: [{id: x, category: health, severity: warn, inventory: node.gpu_count, "
        "compare: '>=', value: 1}]\n";
    try {
      check::parse_rules(yaml, "t.yaml");
    } catch (const InputError &e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_NE(refused("  window_runs: 1\n").find("t.yaml:4"), std::string::npos);
  EXPECT_NE(refused("  window_runs: 7.5\n").find("a whole number from 2"), std::string::npos);
  EXPECT_NE(refused("  drift: {min_fraction: 0}\n").find("above 0"), std::string::npos);
  EXPECT_NE(refused("  drift: {falling_share: 0.3}\n").find("history.drift.falling_share"),
            std::string::npos);
  EXPECT_NE(refused("  step: {min_fraction: ten}\n").find("'ten'"), std::string::npos);
  EXPECT_NE(refused("  step: {slope: 1}\n").find("slope"), std::string::npos);
  EXPECT_NE(refused("  repeat_offender: {failures: 4, runs: 3}\n").find("at most its runs"),
            std::string::npos);
  EXPECT_NE(refused("  window_runs: 4\n  drift: {min_runs: 5}\n").find("window_runs"),
            std::string::npos);
  EXPECT_EQ(refused("  window_runs: 12\n  step: {noise_multiple: 3}\n"), "accepted");
  const auto defaults = check::HistoryThresholds{};
  const auto shipped = check::load_rules_file(kSource + "/results/rules/h100-sxm.yaml").history;
  const auto fields = [](const check::HistoryThresholds &t) {
    return std::tuple(t.window_runs, t.drift_min_runs, t.drift_min_fraction, t.drift_noise_multiple,
                      t.drift_falling_share, t.step_min_fraction, t.step_noise_multiple,
                      t.offender_failures, t.offender_runs);
  };
  EXPECT_EQ(fields(shipped), fields(defaults)); // the file writes the defaults out
}

} // namespace
} // namespace railgauge::history
