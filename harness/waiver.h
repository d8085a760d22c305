#pragma once
// Two kinds of waived point. Most say that something this run should have is absent (no GPU, no
// RDMA device, built without a backend): an acceptance profile that expects it fails the node.
// Some say the point does not apply by construction (an in-place sendrecv, a multi-rank point in
// a one-rank run): nothing is wrong, and `check` reports them once as not applicable. Those
// reasons start with kNotApplicable, so the record says which kind it is in its own words.
#include <string>
#include <string_view>

namespace railgauge {

inline constexpr std::string_view kNotApplicable = "not applicable: ";

// kNotApplicable + why.
std::string not_applicable(std::string_view why);

bool is_not_applicable(std::string_view reason);

} // namespace railgauge
