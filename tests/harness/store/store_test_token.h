#pragma once
// The token the store tests' servers are started with and their clients present: one value, so
// that a test's client and server never disagree by a typo.
namespace railgauge {

inline constexpr const char *kToken = "test-token";

} // namespace railgauge
