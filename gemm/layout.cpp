#include "gemm/layout.h"

#include <fmt/format.h>

#include "harness/error.h"

namespace railgauge::gemm {

std::string_view to_string(Layout layout) {
  switch (layout) {
  case Layout::nt:
    return "nt";
  case Layout::nn:
    return "nn";
  case Layout::tn:
    return "tn";
  }
  return "?";
}

Layout parse_layout(std::string_view text, const std::string &where) {
  for (Layout l : {Layout::nt, Layout::nn, Layout::tn})
    if (text == to_string(l))
      return l;
  throw InputError(fmt::format("unknown layout '{}'", text), where,
                   "use nt (B stored as Bᵀ [N×K]), nn (B stored [K×N]) or tn (A stored as Aᵀ "
                   "[K×M])");
}

std::optional<std::string> layout_problem(Dtype dtype, Layout layout) {
  if (dtype == Dtype::fp8_e4m3 && layout != Layout::nt)
    return fmt::format("fp8_e4m3 runs only in layout nt on Hopper (cuBLASLt's FP8 GEMM takes A "
                       "transposed and B not, column-major TN), not {}: use -a layout=nt or "
                       "-a layout=training",
                       to_string(layout));
  return std::nullopt;
}

Layout layout_for_dtype(Layout training, Dtype dtype) {
  return dtype == Dtype::fp8_e4m3 ? Layout::nt : training;
}

} // namespace railgauge::gemm
