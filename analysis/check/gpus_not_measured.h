#pragma once
// A GPU of a node that holds no record of a rule judging each GPU (`params: {part: gpu}`: the
// burn phases) was never measured by it. The missing value is the node's (one per rule and node,
// over directories and over the fleet history alike); the GPU's row once read PASS beside it on
// its inventory probes alone. Each such GPU part now names the rules that never measured it
// (PartResult::not_measured) and takes the missing value's level: never a PASS it did not earn.
#include "analysis/check/check_result.h"
#include "analysis/check/rules.h"

namespace railgauge::check {

// The detail of a node's missing value where the rule selected no record on the node, and
// whether a detail is one (the evaluators over directories and over the database write it).
std::string no_record_on_node_detail(const Rule &rule);
bool is_no_record_on_node(const std::string &detail);
// The detail of a GPU's missing value where a point that ran on every GPU at once has no part of
// the GPU that its node's inventory lists (`gpu`: the GPU's label), over directories and over the
// database alike.
std::string no_record_on_gpu_detail(const Rule &rule, const std::string &gpu);

// Marks the GPU parts of each node whose no-record missing values (listed or counted) are of
// rules that judge each GPU, at warn or fail, and raises those parts' and the result's verdict.
void mark_gpus_not_measured(const RuleSet &rules, CheckResult &result);

} // namespace railgauge::check
