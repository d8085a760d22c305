#pragma once
// PCIe link arithmetic: what a negotiated link (generation x width) can carry per direction, so
// that every offload record can say how close it came and whether the link trained below its
// maximum (a Gen4 or x8 link on a Gen5 x16 GPU: the burn-in finding this family exists for).
//
// Two figures per direction, GB/s with GB = 1e9 bytes:
//   link_gbytes_per_s      transfer rate x lanes x encoding efficiency / 8 bits. Encoding:
//                          8b/10b for Gen1 and Gen2 (PCIe Base Spec 2.0), 128b/130b for Gen3 to
//                          Gen5 (PCIe Base Spec 3.0), 1b/1b PAM4 flits for Gen6 and Gen7, whose
//                          256-byte flit carries 236 bytes of TLPs (the rest is DLP, CRC, FEC;
//                          PCIe Base Spec 6.0), counted here as the flit's efficiency.
//                          Gen5 x16 = 32 GT/s x 16 x 128/130 / 8 = 63.02 GB/s.
//   expected_gbytes_per_s  link_gbytes_per_s x TLP efficiency: each TLP carries at most
//                          max_payload bytes of data and costs pcie_tlp_overhead_bytes() more
//                          on the wire. Gen1 to Gen5: a 4-DW header for 64-bit addresses (16 B),
//                          framing and sequence number (4 B: the STP token from Gen3 on, STP +
//                          2-byte sequence + END before) and LCRC (4 B), no ECRC: 24 B, so
//                          256-byte payloads give 256/280 = 91.4%. Gen6+ flit mode moves
//                          sequence and CRC into the flit (already in the flit efficiency):
//                          16 B of header remain.
//                          Not modelled: DLLPs (ACK, flow-control updates) and read-completion
//                          splitting, so a healthy link measures below expected_gbytes_per_s;
//                          efficiency is for comparing GPUs, links and runs, not a pass mark.
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "records/pcie_link_fields.h"

namespace railgauge::offload {

// PCIe max payload size railgauge assumes when it cannot read it (the value H100 systems
// negotiate; 128 on some older root complexes).
inline constexpr int kAssumedMaxPayloadBytes = 256;

// GT/s per lane of a generation; nullopt for a generation this table does not know (0, 8+).
std::optional<double> pcie_gtransfers_per_s(int generation);
// Encoding efficiency of a generation: 0.8, 128/130, or 236/256 (flit), as described above.
std::optional<double> pcie_encoding_efficiency(int generation);
// "8b/10b", "128b/130b", "flit 236/256".
std::string_view pcie_encoding_name(int generation);

// Per direction, after encoding. nullopt for an unknown generation or a width < 1.
std::optional<double> pcie_link_gbytes_per_s(int generation, int width);
// Bytes a TLP costs on the wire beyond its payload: 24 up to Gen5, 16 in Gen6+ flit mode.
int pcie_tlp_overhead_bytes(int generation);
// max_payload / (max_payload + pcie_tlp_overhead_bytes(generation)).
double pcie_tlp_efficiency(int generation, int max_payload_bytes = kAssumedMaxPayloadBytes);
// pcie_link_gbytes_per_s x pcie_tlp_efficiency.
std::optional<double> pcie_expected_gbytes_per_s(int generation, int width,
                                                 int max_payload_bytes = kAssumedMaxPayloadBytes);

// A GPU's link as read from NVML or sysfs. Fields a source could not read are nullopt.
struct PcieLinkState {
  std::optional<int> gen_current, width_current, gen_max, width_max;
  std::string source; // "nvml" or "sysfs"
};

// Why the link runs below what it can (e.g. "Gen4 x16 of Gen5 x16: generation"), or nullopt when
// it runs at its maximum or a field is unknown.
std::optional<std::string> pcie_downtrained_reason(const PcieLinkState &link);

// The fields every offload record carries (records/pcie_link_fields.h), flat so that check rules
// can select them: where the link was read, its generation and width against their maximum, and
// whether it is downtrained and why; where the generation and width are known, the encoding, the
// link's rate, the payload assumed and expected_gbytes_per_s; and, when both are known,
// efficiency = measured / (expected x directions). `directions` is 2 for a bidirectional sum
// (each direction has its own lanes). Without a link (nullopt), only a null source and
// `unknown_reason`.
record::PcieLinkFields pcie_link_fields(const std::optional<PcieLinkState> &link,
                                        std::optional<double> measured_gbytes_per_s,
                                        int directions = 1, const std::string &unknown_reason = "");
// The same, as a record's metrics.
nlohmann::json pcie_metrics(const std::optional<PcieLinkState> &link,
                            std::optional<double> measured_gbytes_per_s, int directions = 1,
                            const std::string &unknown_reason = "");

// Linux sysfs current_link_speed / max_link_speed text ("32.0 GT/s PCIe", "8 GT/s",
// "2.5 GT/s") -> generation; nullopt for "Unknown" or anything else.
std::optional<int> pcie_generation_from_sysfs_speed(std::string_view text);

// The link of the PCI function `bus_id` ("0000:18:00.0") from
// <sysfs_root>/bus/pci/devices/<bus_id>/{current,max}_link_{speed,width}; nullopt when the
// directory or the current speed is missing.
std::optional<PcieLinkState> read_sysfs_pcie_link(const std::string &sysfs_root,
                                                  const std::string &bus_id);

// The link of `bus_id` from an NVML inventory document (query_nvml's result: gpus[].pci_bus_id
// and gpus[].pcie); nullopt when NVML is unavailable, the GPU is not listed or has no pcie data.
std::optional<PcieLinkState> pcie_link_from_nvml(const nlohmann::json &nvml,
                                                 const std::string &bus_id);

// The link as it ran: `snapshot`'s current generation and width replaced by the highest that a
// GpuMonitor (harness/inventory/gpu_monitor.h) sampled while the point ran, when it sampled any,
// with source "nvml_while_running". An idle GPU may drop its link to a lower generation to save
// power, so a snapshot taken after the point can read low and make a healthy link look
// downtrained. Without samples, `snapshot` unchanged.
// True when a GpuMonitor summary holds PCIe link samples.
bool link_sampled_while_running(const nlohmann::json &during);
PcieLinkState link_while_running(PcieLinkState snapshot, const nlohmann::json &during);

} // namespace railgauge::offload
