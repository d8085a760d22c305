#include "cli/fabric_command.h"

#include <chrono>
#include <iostream>
#include <memory>
#include <optional>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/fabric_localise_input.h"
#include "cli/fabric_stale.h"
#include "harness/error.h"
#include "harness/exit_status.h"
#include "rdma/fabric/coverage_plan.h"
#include "rdma/fabric/fabric_summary.h"
#include "rdma/fabric/fabric_trials.h"
#include "rdma/fabric/topology_readers.h"
#include "rdma/matrix_localise.h"

namespace railgauge {
namespace {

namespace fabric = rdma::fabric;

double now_s() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

struct FabricOptions {
  std::string topology, guid_map, host;
  bool json = false;
  int k = 2, flows_per_pair = 8, trials = 20;
  std::uint64_t seed = 1;
  std::string fault = "cable";
  std::vector<std::string> runs;
  std::string cover_since;
  std::vector<std::string> ledgers;
  history::DbFlags db;
};

fabric::Topology load(const FabricOptions &o) {
  return fabric::load_topology(o.topology, {o.guid_map, o.host});
}

// Plan and simulate need a pair: with one node no flow crosses a cable, and a plan of empty
// rounds would read as coverage.
fabric::Topology load_for_pairs(const FabricOptions &o) {
  auto t = load(o);
  if (t.nodes.size() < 2)
    throw InputError(
        fmt::format("{} node in the tree: no pair to plan or simulate", t.nodes.size()), o.topology,
        "give the topology of a fabric of two or more hosts (`railgauge fabric "
        "show` lists what was read and set aside)");
  return t;
}

void add_topology_options(CLI::App &cmd, FabricOptions &o) {
  cmd.add_option("topology", o.topology,
                 "ibnetdiscover output (either form), Slurm topology.conf, NetQ topologyGraph "
                 "JSON, an lldpctl JSON table or directory, or a YAML inventory")
      ->required();
  cmd.add_option("--guid-map", o.guid_map,
                 "ibnetdiscover: 'H-<guid> <hostname>' lines naming hosts known only by GUID "
                 "(default: <topology>.map beside the file, when there is one)");
  cmd.add_option("--host", o.host,
                 "One host's lldpctl table: its own host name (default: the "
                 "file's name without .json)");
  cmd.add_flag("--json", o.json, "JSON instead of the table");
}

int show(const FabricOptions &o) {
  const auto t = load(o);
  if (o.json)
    std::cout << fabric::summary_json(t, o.topology).dump(2) << '\n';
  else
    std::cout << fabric::summary_table(t, o.topology);
  return code(ExitStatus::ok);
}

int plan(const FabricOptions &o) {
  const auto t = load_for_pairs(o);
  fabric::CoverageOptions options;
  options.k = o.k, options.flows_per_pair = o.flows_per_pair, options.seed = o.seed;
  std::optional<StaleLinks> stale;
  if (!o.cover_since.empty()) {
    stale = stale_links(t, o.cover_since, o.ledgers, o.db, now_s());
    if (stale->links.empty()) {
      std::cout << (o.json ? nlohmann::json{{"topology", o.topology},
                                            {"cover_since", stale->how},
                                            {"rounds", nlohmann::json::array()}}
                                 .dump(2)
                           : stale->how + ": no rounds")
                << '\n';
      return code(ExitStatus::ok);
    }
  }
  const auto p = fabric::plan_coverage(t, options, stale ? stale->links : std::vector<int>{});
  const int rounds = static_cast<int>(p.rounds.size());
  const auto probs = fabric::uplink_probabilities(t, rounds, o.flows_per_pair, o.k);
  nlohmann::json uplinks = nlohmann::json::array();
  for (int l : t.link_indices(fabric::LinkKind::leaf_spine))
    uplinks.push_back({{"link", t.links[l].label}, {"probability", probs[l]}});
  if (o.json) {
    nlohmann::json rounds_j = nlohmann::json::array();
    for (const auto &r : p.rounds)
      rounds_j.push_back({{"pairs", r.pairs.size()}, {"flows_per_pair", r.flows_per_pair}});
    std::cout << nlohmann::json{{"topology", o.topology},
                                {"k", o.k},
                                {"rounds", rounds_j},
                                {"probability_every_uplink", p.probability},
                                {"how", p.how},
                                {"cover_since", stale ? stale->how : ""},
                                {"uplinks", uplinks}}
                     .dump(2)
              << '\n';
    return code(ExitStatus::ok);
  }
  std::cout << fmt::format("Coverage of {} for k = {}: {} rounds\n  {}{}\n\n", o.topology, o.k,
                           rounds, stale ? stale->how + "\n  " : "", p.how);
  for (int r = 0; r < rounds; ++r)
    std::cout << fmt::format("  round {:>2}: {:>5} NIC pairs x {} flows\n", r + 1,
                             p.rounds[r].pairs.size(), p.rounds[r].flows_per_pair);
  std::cout << fmt::format("\nEach uplink's probability of {} or more crossings in {} rounds "
                           "(ECMP picks the uplink):\n",
                           o.k, rounds);
  for (const auto &u : uplinks)
    std::cout << fmt::format("  {:<60} {:.4f}\n", u["link"].get<std::string>(),
                             u["probability"].get<double>());
  return code(ExitStatus::ok);
}

std::optional<fabric::FaultKind> fault_kind(const std::string &name) {
  if (name == "cable")
    return fabric::FaultKind::bad_cable;
  if (name == "uplink")
    return fabric::FaultKind::bad_uplink;
  if (name == "flap")
    return fabric::FaultKind::flapping_port;
  return std::nullopt;
}

int simulate(const FabricOptions &o) {
  const auto t = load_for_pairs(o);
  const auto kind = fault_kind(o.fault);
  const auto faulty =
      kind ? fabric::run_fault_trials(t, {*kind}, o.trials, o.seed) : fabric::TrialRates{};
  const auto clean = fabric::run_fault_trials(t, {}, o.trials, o.seed + 1);
  const auto rates_json = [](const fabric::TrialRates &r) {
    return nlohmann::json{{"trials", r.trials},
                          {"right", r.right},
                          {"wrong", r.wrong},
                          {"max_first_pass_rounds", r.max_first_pass},
                          {"max_adaptive_rounds", r.max_adaptive},
                          {"misses", r.misses}};
  };
  const bool bar = (!kind || 100 * faulty.right >= 95 * faulty.trials) && clean.wrong == 0;
  if (o.json) {
    nlohmann::json j{{"topology", o.topology}, {"seed", o.seed}, {"no_fault", rates_json(clean)}};
    if (kind)
      j["fault"] = rates_json(faulty), j["fault"]["kind"] = fabric::fault_kind_name(*kind);
    std::cout << j.dump(2) << '\n';
  } else {
    if (kind)
      std::cout << fmt::format("{}: the faulty link named in {} of {} trials, a wrong link in "
                               "{}; first pass at most {} rounds, adaptive at most {}\n",
                               fabric::fault_kind_name(*kind), faulty.right, faulty.trials,
                               faulty.wrong, faulty.max_first_pass, faulty.max_adaptive);
    std::cout << fmt::format("no fault: a link named in {} of {} trials\n", clean.wrong,
                             clean.trials);
    for (const auto *r : {&faulty, &clean})
      for (const auto &m : r->misses)
        std::cout << "  " << m << '\n';
  }
  return code(bar ? ExitStatus::ok : ExitStatus::problems);
}

int localise(const FabricOptions &o) {
  const auto pairs = read_measured_pairs(o.runs);
  const auto r = rdma::localise_pairs(pairs, o.topology, {o.guid_map, o.host});
  print_localisation(r, o.topology, o.json);
  const bool clean = r.verdict.named.empty() && r.pairs_placed == r.pairs;
  return code(clean ? ExitStatus::ok : ExitStatus::problems);
}

CLI::App *subcommand(CLI::App &fabric_cmd, const char *name, const char *what, const char *examples,
                     FabricOptions &o) {
  auto *cmd = fabric_cmd.add_subcommand(name, what);
  add_topology_options(*cmd, o);
  cmd->footer(std::string(examples) + "\n\n" + exit_status_reference());
  return cmd;
}

} // namespace

void add_fabric_command(CLI::App &app, int &exit_code) {
  auto o = std::make_shared<FabricOptions>();
  auto *cmd = app.add_subcommand(
      "fabric", "The fabric's topology: summarise it, plan its coverage, simulate faults on it, "
                "localise a bad link from a run's pairs");
  cmd->require_subcommand(1);
  auto *show_cmd =
      subcommand(*cmd, "show", "What railgauge reads of the fabric, and what it could not use",
                 "Examples:\n  railgauge fabric show ibnetdiscover.out\n"
                 "  railgauge fabric show ibnetdiscover.out --guid-map hosts.map --json\n"
                 "  railgauge fabric show /etc/slurm/topology.conf\n"
                 "  railgauge fabric show netq-topologyGraph.json",
                 *o);
  auto *plan_cmd = subcommand(
      *cmd, "plan", "The coverage rounds for k crossings of every cable, per uplink's probability",
      "Examples:\n  railgauge fabric plan ibnetdiscover.out --k 2\n"
      "  railgauge fabric plan topology.yaml --k 3 --flows 16 --json\n"
      "  railgauge fabric plan ibnetdiscover.out --cover-since 7d --db sqlite:fleet.db",
      *o);
  plan_cmd->add_option("--k", o->k, "Crossings wanted on every cable")->check(CLI::Range(1, 16));
  plan_cmd->add_option("--flows", o->flows_per_pair, "Flows (queue pairs) a pair a round")
      ->check(CLI::Range(1, 1024));
  plan_cmd->add_option("--seed", o->seed, "The plan's random matchings");
  plan_cmd->add_option("--cover-since", o->cover_since,
                       "Plan only the links no ledger saw exercised within this long (90m, 12h, "
                       "7d): the rounds that top up what has gone stale");
  plan_cmd->add_option("--ledger", o->ledgers,
                       "With --cover-since: a coverage ledger (a run's fabric_ledger.jsonl)");
  plan_cmd->add_option("--db", o->db.url,
                       "With --cover-since: the fleet history's ledger (sqlite:PATH, "
                       "postgresql://..., or env for $RAILGAUGE_DB)");
  history::add_db_flags(plan_cmd, o->db);
  auto *sim_cmd = subcommand(
      *cmd, "simulate",
      "The fault simulator on this fabric: what localisation names, and in no-fault trials",
      "Examples:\n  railgauge fabric simulate ibnetdiscover.out --fault uplink --trials 100\n"
      "  railgauge fabric simulate topology.conf --fault flap --trials 20 --seed 7 --json\n"
      "Exit 0 when the faulty link is named in at least 95% of the trials and no link in the "
      "no-fault trials, else 1.",
      *o);
  sim_cmd->add_option("--fault", o->fault, "cable, uplink, flap (a flapping port) or none")
      ->check(CLI::IsMember({"cable", "uplink", "flap", "none"}));
  sim_cmd->add_option("--trials", o->trials, "Trials with the fault, and as many without")
      ->check(CLI::Range(1, 10000));
  sim_cmd->add_option("--seed", o->seed, "The trials' faults, plans and noise");
  auto *loc_cmd = subcommand(
      *cmd, "localise",
      "The suspect link from a pair matrix's records (or imported perftest points) and the "
      "topology",
      "Examples:\n  railgauge fabric localise ibnetdiscover.out results/2026-11-22T10-00-00Z-n1\n"
      "  railgauge fabric localise topology.yaml imported/ib_write_bw-a+b --json\n"
      "perftest imports: give `railgauge import perftest --host HOSTA+HOSTB`, so the record "
      "names its pair; the NIC is the device perftest used, the same name on both hosts.\n"
      "Exit 0 when nothing is named and every pair is on the topology, else 1.",
      *o);
  loc_cmd->add_option("runs", o->runs, "Run directories (pair matrix records, perftest imports)")
      ->required();
  using Run = int (*)(const FabricOptions &);
  for (const auto &[sub, run] : std::initializer_list<std::pair<CLI::App *, Run>>{
           {show_cmd, show}, {plan_cmd, plan}, {sim_cmd, simulate}, {loc_cmd, localise}}) {
    const Run fn = run;
    sub->callback([&exit_code, o, fn] { exit_code = fn(*o); });
  }
}

} // namespace railgauge
