// A pair point's violation charged to its server end too, over run directories (pair_ends.h).
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "analysis/check/evaluate.h"
#include "analysis/check/evaluator.h"
#include "analysis/check/pair_ends.h"

namespace railgauge::check {

void Evaluator::charge_pair_ends() {
  PairEnds ends;
  std::map<std::string, std::string> run_of_dir;
  for (const auto &run : runs_.runs) {
    if (is_imported(run))
      continue;
    for (const auto &r : run.records) {
      run_of_dir.try_emplace(run.dir, r.run);
      if (r.status == Status::ok && is_pair_server_end(r))
        ends.add_server_end(r.run, run.dir, r, index_.part_of(r, nullptr, category_of_key(r.key)));
      else if (is_pair_measuring_end(r))
        ends.add_measuring_end(r.run, r);
    }
  }
  if (ends.empty())
    return;
  std::vector<std::pair<PartKey, Finding>> charged;
  for (const auto &[part, p] : ledger_.parts())
    for (const auto &f : p.findings)
      if (const auto run = run_of_dir.find(f.run); run != run_of_dir.end())
        if (auto there = ends.charged_to_server_end(run->second, part, f))
          charged.push_back(std::move(*there));
  for (auto &[part, f] : charged)
    ledger_.add_finding(part, std::move(f));
  for (auto &[part, f] : ends.unmeasured_server_ends())
    ledger_.add_finding(part, std::move(f));
}

} // namespace railgauge::check
