#pragma once
// Judges run directories against a rule set: the heart of `railgauge check`.
//
//   const auto rules = railgauge::check::load_rules_file("results/rules/h100-sxm-ib.yaml");
//   const auto runs = railgauge::analysis::load_runs({"rack07/"});
//   const auto result = railgauge::check::evaluate(rules, runs);
//   return railgauge::check::exit_status(result.verdict);
//
// Besides the rules, one built-in rule always applies: `record-status` fails the part of every
// record whose status is failed or error (a wrong result or a broken point never passes just
// because no rule asked for its metric).
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "analysis/check/check_result.h"
#include "analysis/check/rules.h"
#include "analysis/run_machines.h"
#include "analysis/run_set.h"

namespace railgauge::check {

inline constexpr const char *kRecordStatusRule = "record-status";
// Built in too: `run-complete` gives a node a missing finding (at the rules' incomplete_runs
// level, fail by default) for every run of it that is not whole by its own run.json (status,
// planned points, counts); and every path the runs could not be read from is judged at the
// rules' unreadable_inputs level (CheckResult::unreadable).
inline constexpr const char *kRunCompleteRule = "run-complete";
// And `nothing-judged`: a node that holds ok records none of which any rule of the profile
// judged (and no violation) gets a missing finding at the rules' unjudged_nodes level (warn by
// default), naming its records: a profile with no rule for them has read nothing of them, and a
// node it read nothing of is not a pass.
inline constexpr const char *kNothingJudgedRule = "nothing-judged";
// And `data-check`: a node whose ok records ran with their data check off (metrics.verified
// false, as --no-verify leaves it) gets a missing finding at the rules' unverified_records level
// (warn by default): a burn-in that never looked at its results has not shown them right.
inline constexpr const char *kDataCheckRule = "data-check";
// And `pair-isolation` (pair_isolation.h): the parts a NIC pair matrix's own isolation named.
// And `one-machine-per-host`: a host name that runs of more than one machine report (their
// inventories' machine ids differ and they share no GPU: analysis/run_machines.h) gets a missing
// finding at fail naming each machine and a run of it: one node's verdict cannot judge two.
inline constexpr const char *kOneMachinePerHostRule = "one-machine-per-host";
// Its finding on the node of the shared host name (the fleet history's too).
Finding one_machine_per_host_finding(const analysis::SharedHostName &shared);
// And `profile-gpu`: a node whose GPUs NVML names otherwise than the profile's `gpu:` gets a
// missing finding at warn: it was judged against another GPU's floors.
inline constexpr const char *kProfileGpuRule = "profile-gpu";
// Whether NVML's name of a GPU names `gpu` as a word ("NVIDIA H200" does H200; "NVIDIA GH200"
// does not).
bool names_gpu(const std::string &nvml_name, const std::string &gpu);
// The GPU names a record states (a collective's params.gpu_name, a burn's metrics.gpus[].name and
// metrics.per_gpu[].name), added to `names`.
void add_record_gpu_names(const Record &r, std::set<std::string> &names);
// The GPU names an inventory's NVML section lists, added to `names`.
void add_inventory_gpu_names(const nlohmann::json &inventory, std::set<std::string> &names);
// The profile-gpu findings (host, finding) of nodes by the names their inventories (`nvml`) and
// their records list: one where NVML names another GPU than the profile's, one where the records
// name another GPU still (an inventory of another node's, or edited, beside an H200's records).
// `said`: both kinds, or the records' alone (the fleet history judges the inventories with the
// inventory rules).
enum class Said { both, records };
std::vector<std::pair<std::string, Finding>>
profile_gpu_findings(const RuleSet &rules, const std::map<std::string, std::set<std::string>> &nvml,
                     const std::map<std::string, std::set<std::string>> &records, Said said);

CheckResult evaluate(const RuleSet &rules, const analysis::RunSet &runs);

// The inventory rules of `rules` alone over the runs' run.json inventories, judged as evaluate
// judges them, and of the built-in rules profile-gpu alone: the fleet history judges the
// inventories its database keeps with it (analysis/history/history_inventory.h), the records
// being judged there.
CheckResult evaluate_inventory_rules(const RuleSet &rules, const analysis::RunSet &runs);

// A missing finding of a built-in rule (run-complete, nothing-judged): category health.
Finding built_in_missing(const char *rule_id, Level level, std::string what, std::string detail);

// Why an ok record shows no data check that passed, or nullopt when it shows one: its
// metrics.verified is false (--no-verify); or, of railgauge's own records (not `imported`) of a
// point that always checks its results (checks_always), verified is absent or not a boolean; or a
// GEMM burn's GPU compared no element with the fp64 reference. A wrong result would have passed
// each. (A check that ran and found wrong results makes the record failed instead.)
// A GPU's part of a record (params.part gpu, as a fleet history stores it) is its record's.
std::optional<std::string> data_check_unshown(const Record &r, bool imported);
// Whether railgauge's records of `key` always carry a data check's result (the burn-in's phases:
// no option turns their check off, or --no-verify writes verified false).
bool checks_always(const std::string &key);
// A node's ok records that show no data check that passed: how many, the first one's key and
// why, and whether each of them ran with the check off (verified false).
struct UnverifiedRecords {
  std::size_t records = 0;
  std::string first, first_why;
  bool all_off = true;
  bool all_imported = true; // every one another tool's (nccl-tests -c 0), none railgauge's own
  void add(const std::string &key, const std::string &why, bool imported = false);
};
// The data-check finding of a node.
Finding data_check_off_finding(Level level, const UnverifiedRecords &u);

// The category of a record's family ("compute" for gemm.*), "health" for a family without one.
std::string category_of_key(const std::string &key);

// The finding of a record whose status is failed or error (record-status).
Finding record_status_finding(const Record &r, const std::string &run_dir);

} // namespace railgauge::check
