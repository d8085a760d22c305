#pragma once
// A GPU of a node that holds no record of a rule judging each GPU (`params: {part: gpu}`: the
// burn phases) was never measured by it. The missing value is the node's (one per rule and node,
// over directories and over the fleet history alike); the GPU's row once read PASS beside it on
// its inventory probes alone. Each such GPU part now names the rules that never measured it
// (PartResult::not_measured) and takes the missing value's level: never a PASS it did not earn.
#include <cstddef>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "analysis/check/check_result.h"
#include "analysis/check/part_index.h"
#include "analysis/check/rules.h"
#include "harness/record.h"

namespace railgauge::check {

// The detail of a node's missing value where the rule selected no record on the node, and
// whether a detail is one (the evaluators over directories and over the database write it).
std::string no_record_on_node_detail(const Rule &rule);
bool is_no_record_on_node(const std::string &detail);
// Would `rule`, which judges each GPU (`params: {part: gpu}`), select the point's own record of
// `key` and `params` but for its part? A burn point that failed before it measured a GPU holds no
// GPU object, so no part of it is selected: its node lacks every GPU's figure because the point
// failed, not because it never ran, and the missing value says so.
bool selects_point_of_gpu_parts(const Rule &rule, const std::string &key,
                                const nlohmann::json &params);
// A node's missing value's detail where such a point failed (status failed or error, its reason);
// is_no_record_on_node() holds for it.
std::string failed_point_detail(const Rule &rule, const std::string &key, const std::string &status,
                                const std::string &reason);
// The detail of a GPU's missing value where a point that ran on every GPU at once has no part of
// the GPU that its node's inventory lists (`gpu`: the GPU's label), over directories and over the
// database alike. `failed_point`: failed_point_detail of such a point of the node that failed (a
// rank's burn point that failed before it measured a GPU), said instead of "did not run on it".
std::string no_record_on_gpu_detail(const std::string &phase, const std::string &gpu,
                                    const std::string *failed_point = nullptr);

// The phase of a burn-in a record of every GPU at once is: its key and, where it has one, its
// dtype ("gemm.burn dtype=fp64"). A rule that selects several phases (the FP64, TF32 and HBM
// burns' duration) needs each GPU in each: a GPU that the FP64 burn left out was measured by the
// other two and passed.
std::string burn_phase(const std::string &key, const nlohmann::json &params);

// Whether a node's failed point (its key, params and device) is the one its GPU `gpu` (the GPU's
// part id, its PCI bus id) lacks in burn phase `phase`: the same phase, and a device that names
// that GPU or none. A rank's failed FP64 burn is no reason for another GPU's missing bf16 figure.
bool failed_point_of_gpu(const std::string &key, const nlohmann::json &params,
                         const nlohmann::json &device, const std::string &phase,
                         const std::string &gpu);
// By node and phase, the GPUs (bus ids) that a point run on every GPU at once has a part of.
using GpusByPhase = std::map<std::pair<std::string, std::string>, std::set<std::string>>;

// Whether `r`, a node's record whose values are each GPU's by their telemetry windows (a rank's
// all_reduce: telemetry_gpu.h), ran on every GPU of its node: one node's world (group_hosts 1 or
// unsaid, group_type world or unsaid) of at least `node_gpus` ranks. Its records then hold a
// window of each GPU, and a GPU without one was never read (its rank's record lost, its window
// dropped): the GPU's Xid and ECC counts during the all_reduce passed unseen.
bool ran_on_every_gpu(const Record &r, std::size_t node_gpus);
// The detail of a GPU's missing value where such records hold no window of it.
std::string no_window_on_gpu_detail(const Rule &rule, const std::string &gpu);

// One rule's telemetry windows per node, over directories and over the database alike.
class GpuWindows {
public:
  // An ok record `r` that `rule` selected, its own part `record_part`: where the rule reads the
  // telemetry of a node's record (no `part:` of its own), each GPU a window of `r` names is read,
  // whether or not the rule's field is in it (a field missing is the rule's own missing value).
  void saw(const Record &r, const Rule &rule, const PartKey &record_part, const PartIndex &index);
  // The GPUs that the inventory lists on a node whose records ran on every GPU and that no
  // window of them names.
  std::vector<PartKey> unread(const PartIndex &index) const;

private:
  std::map<std::string, std::set<std::string>> read_; // host -> GPUs (bus ids) with a window
  std::set<std::string> every_gpu_;                   // hosts whose records ran on every GPU
};

// Marks the GPU parts of each node whose no-record missing values (listed or counted) are of
// rules that judge each GPU, at warn or fail, and raises those parts' and the result's verdict.
void mark_gpus_not_measured(const RuleSet &rules, CheckResult &result);

} // namespace railgauge::check
