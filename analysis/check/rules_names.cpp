// The names rules files and verdicts spell levels, comparisons, curve figures and part kinds
// with.
#include "analysis/check/rules.h"

namespace railgauge::check {

std::string_view to_string(Level level) {
  switch (level) {
  case Level::pass:
    return "pass";
  case Level::info:
    return "info";
  case Level::warn:
    return "warn";
  case Level::fail:
    return "fail";
  }
  return "fail";
}

std::string_view to_string(Op op) {
  switch (op) {
  case Op::ge:
    return ">=";
  case Op::gt:
    return ">";
  case Op::le:
    return "<=";
  case Op::lt:
    return "<";
  case Op::eq:
    return "==";
  case Op::ne:
    return "!=";
  case Op::none_of:
    return "none_of";
  case Op::any_of:
    return "any_of";
  }
  return "?";
}

std::string_view to_string(CurveTake take) {
  switch (take) {
  case CurveTake::largest:
    return "largest";
  case CurveTake::peak:
    return "peak";
  case CurveTake::largest_over_peak:
    return "largest_over_peak";
  case CurveTake::worst_drop:
    return "worst_drop";
  case CurveTake::smallest_over_peak:
    return "smallest_over_peak";
  }
  return "largest";
}

std::string_view to_string(PartKind kind) {
  switch (kind) {
  case PartKind::node:
    return "node";
  case PartKind::gpu:
    return "gpu";
  case PartKind::nic:
    return "nic";
  }
  return "node";
}

} // namespace railgauge::check
