#pragma once
// The PCIe link's state as every offload record states it (offload/pcie_link.h computes it;
// offload.* records carry it flat in metrics, all_gpus' in each per_gpu object), written and
// read through this one type so that a field renamed on one side fails to compile or fails
// tests/offload/offload_record_fields_test.cpp, which reads each writer's output back.
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace railgauge::offload::record {

struct PcieLinkFields {
  // Where the link's state was read (nvml, sysfs, nvml_while_running); nullopt when no source
  // gave it, and then `unknown_reason` says why and nothing else is written.
  std::optional<std::string> source;
  std::string unknown_reason;
  // As the source read them; null in the record where it could not say
  std::optional<int> gen, width, gen_max, width_max;
  bool downtrained = false;                      // below its maximum generation or width
  std::optional<std::string> downtrained_reason; // null when not downtrained (or not known)

  // What the negotiated link carries: written only where its generation and width are known.
  struct Rates {
    std::string encoding;
    // null for a generation the link table does not know
    std::optional<double> link_gbytes_per_s, expected_gbytes_per_s;
    int max_payload_bytes_assumed = 0;
    bool operator==(const Rates &) const = default;
  };
  std::optional<Rates> rates;
  std::optional<double> efficiency; // measured over expected, where both are known

  // Puts the fields into `metrics` (a record's metrics or an all_gpus per_gpu object).
  void write(nlohmann::json &metrics) const;
  // The link fields of `metrics`; nullopt where it has no pcie_link_source at all (a record of
  // another family, or an import). A field of another type reads as absent.
  static std::optional<PcieLinkFields> read(const nlohmann::json &metrics);

  bool operator==(const PcieLinkFields &) const = default;
};

} // namespace railgauge::offload::record
