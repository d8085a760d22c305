#include "harness/waiver.h"

namespace railgauge {

std::string not_applicable(std::string_view why) {
  return std::string(kNotApplicable) + std::string(why);
}

bool is_not_applicable(std::string_view reason) { return reason.starts_with(kNotApplicable); }

} // namespace railgauge
