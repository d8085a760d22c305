#pragma once
// The fields of a record's device object (Outcome::device, harness/record.h): the part a point
// measured. The families name them from here, so that a rename reaches every writer and the
// readers (per-GPU parts, the report) alike.
namespace railgauge::device {

inline constexpr const char *kGpu = "gpu";   // the GPU's UUID
inline constexpr const char *kPci = "pci";   // its PCI bus id
inline constexpr const char *kNuma = "numa"; // the NUMA node the point ran on
inline constexpr const char *kCpus = "cpus"; // the CPUs it ran on: "0,1,2"
inline constexpr const char *kNic = "nic";   // the RDMA device
inline constexpr const char *kPort = "port"; // ... and its port
inline constexpr const char *kInterfaceAddress = "interface_address"; // a TCP point's address
inline constexpr const char *kNetdev = "netdev";                      // ... and its interface

} // namespace railgauge::device
