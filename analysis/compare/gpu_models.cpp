#include "analysis/compare/gpu_models.h"

#include <set>

#include <fmt/format.h>

#include "analysis/check/evaluate.h"
#include "harness/inventory/inventory_fields.h"

namespace railgauge::compare {

namespace {

std::set<std::string> models_of(const analysis::RunSet &input) {
  std::set<std::string> names;
  for (const auto &run : input.runs)
    if (run.manifest.is_object() && run.manifest.contains(inventory_field::kInventory))
      check::add_inventory_gpu_names(run.manifest[inventory_field::kInventory], names);
  if (!names.empty())
    return names;
  for (const auto &run : input.runs)
    for (const auto &r : run.records)
      check::add_record_gpu_names(r, names);
  return names;
}

} // namespace

std::string different_gpu_models(const std::vector<analysis::RunSet> &inputs,
                                 const std::vector<std::string> &labels) {
  std::vector<std::set<std::string>> models;
  std::set<std::set<std::string>> distinct;
  for (const auto &input : inputs) {
    models.push_back(models_of(input));
    if (!models.back().empty())
      distinct.insert(models.back());
  }
  if (distinct.size() < 2)
    return "";
  std::string each;
  for (std::size_t i = 0; i < models.size() && i < labels.size(); ++i)
    each += fmt::format("{}{}: {}", i ? "; " : "", labels[i],
                        models[i].empty() ? "-" : fmt::format("{}", fmt::join(models[i], ", ")));
  return fmt::format("the inputs ran on different GPUs ({}): a ratio compares two models, not a "
                     "change of one",
                     each);
}

} // namespace railgauge::compare
