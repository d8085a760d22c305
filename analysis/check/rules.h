#pragma once
// Acceptance rules: data read from YAML (results/rules/*.yaml), never evaluated code. A rule
// picks values (a metric of the records, or a named probe of the inventory), compares each with
// an absolute bound or a bound relative to the fleet (median and MAD of the same metric on the
// same kind of part in the runs judged), and says how bad a violation is and what it is about.
//
//   schema: railgauge.rules/1
//   name: h100-sxm-ib
//   rules:
//     - id: gemm-bf16-vs-fleet
//       category: compute            # compute memory pcie nvlink nic fabric health
//       severity: fail               # warn | fail
//       select: {key: "gemm.*", params: {dtype: bf16}}
//       metric: metrics.tflops        # a path; `*` matches one level, `**` any number
//       compare: ">="                 # >= > <= < == != none_of any_of
//       fleet: {mads: 3, fraction: 0.95}   # or `value: 600` for an absolute bound
//     - id: ecc-uncorrectable
//       category: health
//       severity: fail
//       inventory: gpu.ecc_uncorrected_volatile
//       compare: "<="
//       value: 0
//
// docs/check.md lists every field and every inventory probe.
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/check/history_thresholds.h"

namespace railgauge::check {

inline constexpr const char *kRulesSchema = "railgauge.rules/1";

// Ordered by how bad: the verdict of a part is the worst level of its findings.
enum class Level { pass = 0, info = 1, warn = 2, fail = 3 };
std::string_view to_string(Level level);

enum class Op { ge, gt, le, lt, eq, ne, none_of, any_of };
std::string_view to_string(Op op);

enum class PartKind { node, gpu, nic };
std::string_view to_string(PartKind kind);

// A bound relative to the fleet. For `>=`/`>` (higher is better) the threshold is
// median - mads * MAD and/or fraction * median; for `<=`/`<` it is median + mads * MAD and/or
// fraction * median. With both, the looser of the two applies, so a violation must be both far
// outside the fleet's spread and a real fraction away from its median (a fleet of identical
// parts has MAD 0, and mads alone would flag the last digit).
struct FleetBound {
  std::optional<double> mads;     // MAD = median absolute deviation from the median (unscaled)
  std::optional<double> fraction; // of the median
  int min_size = 5;               // fewer values than this: cannot judge, a missing finding
  Level on_too_small = Level::info;
  // Params that name the part rather than the point (GPU index, NUMA node, the two ends of a
  // pair): ignored when grouping values into fleets, so one fleet holds every GPU's value of the
  // same point. (A rule over imports of one file each may add `source`, which perftest's
  // importer sets to the file: the rdma rules do.)
  std::vector<std::string> ignore_params = {"gpu", "nic", "numa_node", "rank",    "device",
                                            "src", "dst", "src_rank",  "dst_rank"};
  // `scope: node`: each node's parts form their own fleet, so a part is judged against its
  // neighbours in the same chassis (half the GPUs of one node slow) without a fleet of nodes.
  bool per_node = false;
  // `reference: best`: the threshold is taken from the best value (the highest for >=, the
  // lowest for <=) instead of the median, as ClusterKit judges pairs against the best pair. With
  // half the parts slow the median sits between the two halves; the best does not move.
  bool against_best = false;
};

// What a curve rule judges of one curve: the points of one part, run, key and params (less
// `over` and `ignore_params`), ordered by `over`.
enum class CurveTake {
  largest,           // the value at the largest `over` measured (a floor on the plateau)
  peak,              // the best value over the curve
  largest_over_peak, // value at the largest / best value: a curve that falls as size grows
  worst_drop,        // lowest ratio of a point to the best point before it: a dip mid-curve
  // value at the smallest `over` / best value: a curve that rises, such as bandwidth that needs
  // many QPs (flow entropy) to reach what the fabric carries
  smallest_over_peak,
};
std::string_view to_string(CurveTake take);

struct CurveSpec {
  std::string over = "size_bytes";
  CurveTake take = CurveTake::largest;
  std::vector<std::string> ignore_params = {"count"};
  int min_points = 2; // a curve of fewer points cannot be judged: a missing finding at info
};

// `detail: {path, text}`: what a violation's finding shows beside the judged figure, from the same
// record: `text` once per item of the list at `path` (or once for an object), each `{name}` the
// item's field, or once for a single value (a param), `{value}` that value; nothing where the
// path holds an empty list or nothing. A GPU's NVLink error
// total is judged; the finding names the links that counted (`NVLink {link}: {crc_flit} ...`).
struct DetailSpec {
  std::string path; // metrics. or params., no wildcard
  std::string text;
};

// Which runs a rule is about: `imported` rules read records only an import has (nvbandwidth's
// copy-engine matrix), so on railgauge's own runs they do not apply, and the reverse.
enum class AppliesTo { any, own, imported };

struct Rule {
  std::string id;
  std::string description;
  std::string category;
  Level severity = Level::fail;   // warn or fail
  Level on_missing = Level::fail; // info, warn or fail; defaults to the severity
  std::string where;              // rules.yaml:LINE, for messages

  // Exactly one source: records (key glob, params filter, metric path) or an inventory probe.
  std::string key_glob;                             // as written, for messages
  std::vector<std::string> key_globs;               // `key:` is one glob or a list of them
  nlohmann::json params = nlohmann::json::object(); // name -> value, list of values, or glob
  std::string metric;
  std::string probe;
  std::optional<PartKind> part; // attribute findings to this kind of part instead of the record's

  Op op = Op::ge;
  std::optional<double> value;     // absolute bound
  std::vector<std::string> values; // for none_of / any_of
  std::optional<FleetBound> fleet;
  std::optional<CurveSpec> curve; // judge one figure per curve instead of every record
  // A path whose value divides the metric's before the comparison: a latency tail is
  // metrics.latency.max_s relative_to metrics.latency.p50_s.
  std::string relative_to;
  // The level of a value whose record holds no positive relative_to (a limit NVML did not read, a
  // run older than the field), whether or not the value is there; on_missing stays the level of a
  // value missing beside a readable denominator. Defaults to on_missing.
  std::optional<Level> on_missing_relative_to;
  std::optional<DetailSpec> detail;
  AppliesTo applies_to = AppliesTo::any;
  // `empty_list: pass`: a `*` of the metric over an empty list holds for each of its items, so
  // the part passes there (the NVLink links that counted an error: none). Without it an empty
  // list is a value missing, as any path that leads nowhere: an empty object of port counters
  // was no counter read.
  bool empty_list_passes = false;

  bool from_inventory() const { return !probe.empty(); }
};

struct RuleSet {
  std::string name;
  std::string description;
  std::string file;
  // The suite that produces every point this profile judges (results/suites/NAME.yaml):
  // `railgauge run SUITE` on a healthy node of the profile's kind can reach PASS.
  std::string suite;
  // The GPU the profile's figures are of (`gpu:`, a text NVML's name of it holds: "H100"); ""
  // for a profile of no GPU. A node whose GPUs NVML names otherwise is judged against another
  // GPU's floors: the built-in profile-gpu warns on it.
  std::string gpu;
  std::vector<Rule> rules;
  // The level of a run that is not whole by its own run.json (`incomplete_runs:`), and of a path
  // the loader could not read (`unreadable_inputs:`, or check's --unreadable): a node whose run
  // was cut short or cannot be read is never a pass unless a profile says so.
  Level incomplete_runs = Level::fail;
  Level unreadable_inputs = Level::fail;
  // The level of a node that holds ok records of which no rule judged one (`unjudged_nodes:`):
  // a profile without a rule for them (a node-local profile given a multi-node collective) has
  // read nothing, and a node it read nothing of never passes unless a profile says so.
  Level unjudged_nodes = Level::warn;
  // The level of a node whose ok records ran with their data check off (`unverified_records:`;
  // metrics.verified false, as --no-verify leaves it): a wrong result would not have failed
  // them, so the node is not a pass unless a profile says so.
  Level unverified_records = Level::warn;
  // `history:`: the thresholds of `check --history`'s rules (history_thresholds.h).
  HistoryThresholds history;
};

// Throws InputError with file:line and the fix for anything wrong: unknown field, missing
// bound, both bounds, unknown probe, category or comparison, duplicate id.
RuleSet load_rules_file(const std::string &path);
RuleSet parse_rules(const std::string &yaml_text, const std::string &file_name);

// Does a record's params satisfy a rule's filter? Numbers compare by value, strings by glob, a
// string ">=N" (or <=, >, <) is a range for a numeric param, a list means any of its values; a
// param the record lacks never matches.
// A null in the filter (alone or in a list) matches a record that lacks the param.
bool params_match(const nlohmann::json &filter, const nlohmann::json &params);

// Does a record's key match one of the rule's key globs?
bool key_match(const Rule &rule, const std::string &key);

// Would the rule select an ok record with these key and params but for its size_bytes? An
// imported tool that printed the figure and stopped short of the sizes the rule reads (nccl-tests
// -e 512M under a 1 GiB floor) lacks the value; it does not hold "another tool's figures".
bool selects_but_for_size(const Rule &rule, const std::string &key, const nlohmann::json &params);

// The missing value's detail for a node whose import holds `key` at other sizes only.
std::string other_sizes_only(const std::string &no_record, const std::string &key);

// The highest absolute `>=` bound of any rule on metrics.<metric> of a record of `key` with
// `params` (no fleet, no curve): the floor a chart draws beside a figure; null without one.
const Rule *floor_rule(const RuleSet &rules, const std::string &key, const std::string &metric,
                       const nlohmann::json &params);

// Applies `op` with an absolute threshold. For none_of/any_of use values_pass.
bool compare_pass(Op op, double value, double threshold);
// none_of/any_of over a string or a list of strings.
bool values_pass(Op op, const nlohmann::json &value, const std::vector<std::string> &values);

} // namespace railgauge::check
