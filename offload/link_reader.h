#pragma once
// The GPU's PCIe link as an offload record states it: NVML when it answers, else sysfs, with what
// the GPU's monitor saw while the point ran (OffloadBenchmark::run, CUDA builds).
#include <optional>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "offload/pcie_link.h"

namespace railgauge::offload {

// The GPU's PCIe link: NVML when it answers, else sysfs. Its maximum generation and width come
// from `snapshot`, NVML queried once per benchmark (OffloadBenchmark::nvml_snapshot), and its
// current ones from what the monitor saw while the point ran; NVML is queried afresh only when
// the monitor has no link samples, since a link read at the first point is no reading of this one.
class LinkReader {
public:
  LinkReader(const nlohmann::json &snapshot, std::string nvml_library, std::string sysfs_root)
      : snapshot_(snapshot), nvml_library_(std::move(nvml_library)),
        sysfs_root_(std::move(sysfs_root)) {}
  // `during`: the GPU's GpuMonitor summary of the point, whose PCIe samples replace the
  // snapshot's current link (link_while_running).
  std::pair<std::optional<PcieLinkState>, std::string> read(const std::string &bus_id,
                                                            const nlohmann::json &during) const;

private:
  const nlohmann::json &snapshot_;
  std::string nvml_library_;
  std::string sysfs_root_;
};

// The link fields of a record (pcie_link_fields) for the GPU at `bus_id`, read as
// LinkReader::read reads it, with `measured` against what it carries.
record::PcieLinkFields link_fields(const LinkReader &links, const std::string &bus_id,
                                   const nlohmann::json &during, std::optional<double> measured,
                                   int directions = 1);

// `link` as a record's metrics, with what the GPU's monitor saw while the point ran under
// `telemetry`.
nlohmann::json link_metrics(const record::PcieLinkFields &link, const nlohmann::json &during);
// The same from `links`.
nlohmann::json link_metrics(const LinkReader &links, const std::string &bus_id,
                            const nlohmann::json &during, std::optional<double> measured,
                            int directions = 1);

} // namespace railgauge::offload
