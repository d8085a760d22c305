#pragma once
// A measured value as a finding's text states it: rounded to its noise, so that it claims no
// digit its measurement does not have. The verdict is always taken on the full-precision value;
// only the text is rounded (docs/check.md, "Verdicts").
#include <optional>
#include <string>

namespace railgauge::check {

// Significant digits a value with relative noise `noise_rel` (harness/noise_bound.h) is printed
// with: its absolute uncertainty u = |value| x noise_rel, and the value's last digit at the decade
// of u's first significant digit (4274.1 at 1.2 %: u = 51, "4270"; 717.34 at 0.3 %: u = 2.2,
// "717"), never fewer than 2 digits (a point noisier than itself still says its order and first
// digit) and never more than 4, the text of a value whose noise is unknown (an import, a fleet
// aggregate) or zero.
int noise_digits(double value, std::optional<double> noise_rel);

// The text of `value` rounded to its noise (noise_digits). With `bound` (the threshold a
// violation failed), digits are added until the text reads on the same side of the bound as the
// full value does, past 4 where it must: 379.6 against a floor of 380 at 2 % is "379.6", never
// "380". A value below 1e4 (and from 1e-4) is written without an exponent, as {:.4g} writes it.
std::string noise_text(double value, std::optional<double> noise_rel,
                       std::optional<double> bound = std::nullopt);

// A value whose noise is not known (a fleet's median or MAD, a point of a curve): noise_text's
// text without a noise, 4 significant digits.
std::string four_digit_text(double value);

// A number a rule states (a floor, a fraction, a count of MADs), never rounded: the shortest
// text that reads back as the same double, which is the rule's own text for a decimal written in
// its file (3932.1, 0.875, 4.2e-06), where {:.4g} wrote 3932.
std::string stated_text(double value);

} // namespace railgauge::check
