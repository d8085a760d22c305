// calibrate's --assume KEY=VALUE texts (analysis/calibrate/assumptions.h), one per input line:
// any set is the user's assumptions or an InputError naming the flag, never a crash or another
// exception; every value kept is one the flag's rules allow (finite, in its key's range) and is
// the one a Calculon file gets.
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "analysis/calibrate/assumptions.h"
#include "harness/error.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
  namespace cal = railgauge::calibrate;
  std::istringstream in(std::string(reinterpret_cast<const char *>(data), size));
  std::vector<std::string> texts;
  for (std::string line; std::getline(in, line);)
    texts.push_back(line);
  try {
    const auto a = cal::Assumptions::parse(texts);
    for (const auto &[key, value] : a.given()) {
      if (!std::isfinite(value) || value < 0)
        std::abort(); // a value the flag's rules refuse
      const auto used = a.value(key);
      if (!used || used->value != value || used->source != cal::kUserSource)
        std::abort(); // the user's value is not the one used
    }
    const std::pair<const char *, const char *> tables[] = {{"matrix.float16", "matrix"},
                                                            {"vector.bfloat16", "vector"},
                                                            {"mem1", "mem1"},
                                                            {"mem2", "mem2"}};
    for (const auto &[prefix, family] : tables)
      (void)a.table(prefix, family);
  } catch (const railgauge::InputError &) {
  }
  return 0;
}
