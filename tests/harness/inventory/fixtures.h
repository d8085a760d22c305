#pragma once
// Paths of the inventory test fixtures (tests/fixtures/, see the README and generator there).
#include <string>

namespace railgauge::test {

inline std::string fixture(const std::string &relative) {
  return std::string(RAILGAUGE_TEST_FIXTURES) + "/" + relative;
}
inline std::string h100_hwloc_xml() { return fixture("topology/h100_8gpu_8nic.hwloc.xml"); }
inline std::string h100_nccl_xml() { return fixture("topology/h100_8gpu_8nic.nccl.xml"); }
inline std::string fake_sysfs() { return fixture("sysfs"); }

} // namespace railgauge::test
