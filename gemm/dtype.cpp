#include "gemm/dtype.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "harness/enum_names.h"
#include "harness/error.h"

namespace railgauge::gemm {
namespace {

constexpr Dtype kAll[] = {Dtype::fp64, Dtype::fp32, Dtype::tf32,
                          Dtype::bf16, Dtype::fp16, Dtype::fp8_e4m3};

} // namespace

std::string_view to_string(Dtype d) {
  switch (d) {
  case Dtype::fp64:
    return "fp64";
  case Dtype::fp32:
    return "fp32";
  case Dtype::tf32:
    return "tf32";
  case Dtype::bf16:
    return "bf16";
  case Dtype::fp16:
    return "fp16";
  case Dtype::fp8_e4m3:
    return "fp8_e4m3";
  }
  return "?";
}

Dtype parse_dtype(std::string_view text, const std::string &where) {
  if (const auto d = value_named(text, kAll))
    return *d;
  throw InputError(fmt::format("unknown dtype '{}'", text), where,
                   fmt::format("use one of: {}", fmt::join(names_of(kAll), ", ")));
}

DtypeBytes dtype_bytes(Dtype d) {
  switch (d) {
  case Dtype::fp64:
    return {8, 8, 8};
  case Dtype::fp32:
  case Dtype::tf32:
    return {4, 4, 4};
  case Dtype::bf16:
  case Dtype::fp16:
    return {2, 2, 2};
  case Dtype::fp8_e4m3:
    return {1, 1, 2}; // bf16 output
  }
  return {};
}

std::vector<std::string> dtype_names(const std::vector<Dtype> &dtypes) { return names_of(dtypes); }

} // namespace railgauge::gemm
