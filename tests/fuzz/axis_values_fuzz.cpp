// The axis value grammar (harness/axis.h): any spec is a list of values or an InputError naming
// the flag, never a crash, a hang (a range that never ends) or an exception of another type.
// The first byte picks the axis type; the rest is the spec.
#include <cstdint>
#include <string_view>

#include "harness/axis.h"
#include "harness/error.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
  if (size == 0)
    return 0;
  railgauge::Axis axis;
  axis.name = "x";
  switch (data[0] % 5) {
  case 0:
    axis.type = railgauge::AxisType::integer;
    break;
  case 1:
    axis.type = railgauge::AxisType::bytes;
    break;
  case 2:
    axis.type = railgauge::AxisType::real;
    break;
  case 3:
    axis.type = railgauge::AxisType::text;
    break;
  default:
    axis.type = railgauge::AxisType::text;
    axis.choices = {"read", "write", "copy"};
  }
  const std::string_view spec(reinterpret_cast<const char *>(data) + 1, size - 1);
  try {
    for (const auto &value : railgauge::parse_axis_values(axis, spec, "--axis x"))
      (void)railgauge::to_string(value);
  } catch (const railgauge::InputError &) {
  }
  (void)railgauge::parse_bytes(spec);
  return 0;
}
