#pragma once
// A type's figures as one list of {name, pointer to an optional member}, which its write(), read()
// and empty() all go through (records/rdma_point_fields.cpp, records/collective_point_fields.cpp):
// a figure named once, written and read by the same name.
#include <nlohmann/json.hpp>

#include "harness/record_fields.h"

namespace railgauge::records {

// Puts each figure that is set into `obj` under its name.
template <typename Figures> void put_figures(nlohmann::json &obj, const Figures &figures) {
  for (const auto &[name, figure] : figures)
    if (*figure)
      obj[name] = **figure;
}

// True when no figure of the list is set.
template <typename Figures> bool figures_unset(const Figures &figures) {
  for (const auto &[name, figure] : figures)
    if (*figure)
      return false;
  return true;
}

// Each figure from `obj`'s number of its name; absent, or of another type, it reads as absent.
template <typename Figures> void take_numbers(const nlohmann::json &obj, const Figures &figures) {
  for (const auto &[name, figure] : figures)
    *figure = record_fields::number(obj, name);
}

} // namespace railgauge::records
