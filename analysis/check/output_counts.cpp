#include "analysis/check/output_counts.h"

#include <algorithm>

namespace railgauge::check {

bool cannot_apply_here(const Finding &f) {
  return f.missing && f.level == Level::info && !f.not_applicable && !f.not_covered;
}

ResultCounts count_result(const CheckResult &r) {
  ResultCounts c;
  // Nodes, not parts: a group's figures (a pair's or a multi-node log's, "a+b") count against each
  // of its nodes, at the worst verdict that node has in any of them, as drain() drains them; two
  // pairs over three nodes are three nodes, not two.
  for (const auto &m : r.machines()) {
    ++c.nodes;
    ++c.nodes_by_verdict[m.verdict];
  }
  for (const auto &p : r.parts) {
    ++c.parts;
    for (const auto &f : p.findings) {
      if (f.not_covered)
        ++c.not_covered;
      else if (f.not_applicable)
        ++c.not_applicable;
      else
        ++(f.missing ? c.missing : f.level >= Level::warn ? c.violations : c.notes);
      c.cannot_apply += cannot_apply_here(f) ? 1 : 0;
    }
  }
  for (const auto &u : r.unlisted_missing)
    c.cannot_apply += u.level == Level::info ? u.count : 0;
  c.unlisted = r.unlisted_missing_count();
  c.missing += c.unlisted;
  return c;
}

} // namespace railgauge::check
