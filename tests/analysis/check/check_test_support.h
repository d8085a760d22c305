#pragma once
// What the check tests share: a rules set from the rules alone, the error a rules file gives,
// one part of a verdict, the parts a rule found in violation, and a pair of GEMM rules.
#include <string>
#include <vector>

#include "analysis/check/check_result.h"
#include "analysis/check/rules.h"
#include "harness/error.h"
#include "synthetic_fleet.h"

namespace railgauge::check::support {

using json = nlohmann::json;
using testing::FleetFaults;
using testing::gpu_bus_id;
using testing::make_fleet;

inline const std::string kSource = RAILGAUGE_SOURCE_DIR;

inline RuleSet rules(const std::string &body) {
  return parse_rules("schema: railgauge.rules/1\nname: t\nrules:\n" + body, "t.yaml");
}

// The InputError message of parsing `body`, or "" when it parses.
inline std::string rules_error(const std::string &body) {
  try {
    rules(body);
  } catch (const InputError &e) {
    return e.what();
  }
  return "";
}

inline const PartResult *find_part(const CheckResult &r, const std::string &host, PartKind kind,
                                   const std::string &id) {
  for (const auto &p : r.parts)
    if (p.key.host == host && p.key.kind == kind && p.key.id == id)
      return &p;
  return nullptr;
}

// The first finding of `rule` on `host`'s node part, or null.
inline const Finding *node_finding(const CheckResult &r, const std::string &host,
                                   const std::string &rule) {
  const auto *part = find_part(r, host, PartKind::node, "");
  if (!part)
    return nullptr;
  for (const auto &f : part->findings)
    if (f.rule_id == rule)
      return &f;
  return nullptr;
}

// Parts with a finding of `rule` that is a violation (not missing).
inline std::vector<std::string> violators(const CheckResult &r, const std::string &rule) {
  std::vector<std::string> out;
  for (const auto &p : r.parts)
    for (const auto &f : p.findings)
      if (f.rule_id == rule && !f.missing) {
        out.push_back(p.key.host + "/" + p.label);
        break;
      }
  return out;
}

// A host memory read floor of 1 GB/s: a rule that any healthy record of memory.host_read passes.
inline const char *kHostReadFloorRule = R"(
  - id: host-read-floor
    category: memory
    severity: fail
    select: {key: "memory.host_read"}
    metric: metrics.bandwidth_gbytes_per_s
    compare: ">="
    value: 1
)";

inline const char *kGemmRules = R"(
  - id: gemm-absolute
    category: compute
    severity: fail
    select: {key: "gemm.*", params: {dtype: bf16}}
    metric: metrics.tflops
    compare: ">="
    value: 600
  - id: gemm-relative
    category: compute
    severity: fail
    select: {key: "gemm.*", params: {dtype: bf16}}
    metric: metrics.tflops
    compare: ">="
    fleet: {mads: 3, fraction: 0.95}
)";

} // namespace railgauge::check::support
