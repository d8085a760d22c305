#pragma once
// One side of a set of RC connections (gloo's ibverbs pair, perftest's ctx): an opened device,
// a protection domain, registered memory, a send and a receive completion queue, and N
// reliable-connected QPs taken INIT -> RTR -> RTS against a peer's EndpointInfo. Every handle is
// RAII; move-only.
//
// Memory: N slots of slot_bytes (slot q is what QP q writes from, reads into, sends from,
// receives into), then a 64-byte control word the peer sets with an RDMA WRITE to tell this side
// to stop serving. Both lie in one host region on the NIC's NUMA node; with `gpu` set the slots
// lie in that GPU's memory instead (GPUDirect RDMA, registered through dma-buf, else through
// nvidia-peermem) and only the control word stays in host memory, where the CPU polls it.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <hwloc.h>

#include "rdma/endpoint_info.h"
#include "rdma/gid_select.h"

struct ibv_context;
struct ibv_pd;
struct ibv_mr;
struct ibv_cq;
struct ibv_qp;
struct ibv_wc;

namespace railgauge::rdma {

struct EndpointConfig {
  std::string device;    // "" = the first device whose port is ACTIVE
  unsigned port = 1;     // 1-based
  int gid_index = -1;    // -1 = automatic (gid_select.h)
  int traffic_class = 0; // RoCE: GRH traffic class (DSCP << 2 | ECN)
  int service_level = 0; // InfiniBand SL
  int qps = 1;
  int send_depth = 128; // send queue entries per QP
  int recv_depth = 256; // receive queue entries per QP
  std::size_t slot_bytes = 64;
  int max_inline_bytes = 0; // asked for; the QP may grant less (see Endpoint::max_inline())
  std::string sysfs_root = "/sys";
  int gpu = -1; // CUDA device whose memory holds the slots; -1: host memory
  // RoCE: the GRH flow label of QP i is flow_labels[i] (RoCEv2 drivers derive the UDP source port,
  // which ECMP hashes, from it); empty or 0: the driver derives one from the two QPNs.
  std::vector<std::uint32_t> flow_labels;
};

struct VerbsHandles; // the RAII owners, defined in endpoint.cpp

class Endpoint {
public:
  // Opens the device and creates everything up to INIT. Throws BackendError (a verbs call
  // failed) or InputError (no such device, bad GID index).
  Endpoint(const EndpointConfig &config, hwloc_topology_t topology);
  Endpoint(Endpoint &&) noexcept;
  Endpoint &operator=(Endpoint &&) noexcept;
  ~Endpoint();

  EndpointInfo local_info() const;
  // INIT -> RTR -> RTS for every QP against the peer's QPs (same count).
  void connect(const EndpointInfo &remote);

  const EndpointConfig &config() const { return config_; }
  const std::string &device_name() const { return device_; }
  const GidChoice &gid() const { return gid_; }
  bool ethernet() const { return ethernet_; }
  std::uint32_t mtu_bytes() const { return mtu_bytes_; }
  int numa_node() const { return numa_node_; } // -1: the device does not say
  int max_inline() const { return max_inline_; }
  int max_rd_atomic() const { return max_rd_atomic_; }
  // How the slots were registered: "host", "dmabuf" (ibv_reg_dmabuf_mr) or "peermem" (ibv_reg_mr
  // of a device pointer, through the nvidia-peermem module).
  const std::string &registration() const { return registration_; }

  // The CPU's pointer to slot `qp`: host memory only (the ping-pong of the latency tests).
  std::uint8_t *slot(int qp) const;
  // Copies into or out of the start of slot `qp`, wherever it lies.
  void write_slot(int qp, const std::uint8_t *source, std::size_t bytes);
  void read_slot(int qp, std::uint8_t *destination, std::size_t bytes) const;
  std::uint64_t slot_addr(int qp) const;
  volatile std::uint64_t *control() const;
  const EndpointInfo &remote() const { return remote_; }
  std::uint64_t remote_slot_addr(int qp) const;
  std::uint64_t remote_control_addr() const;

  ibv_qp *qp(int i) const;
  ibv_cq *send_cq() const;
  ibv_cq *recv_cq() const;
  std::uint32_t lkey() const; // of the slots

  // Posts `count` receives into slot `qp` (slot_bytes each).
  void post_recvs(int qp, int count);
  // Polls up to `n` completions; throws BackendError with completion_error_text() on an
  // error status.
  int poll_send(ibv_wc *wcs, int n);
  int poll_recv(ibv_wc *wcs, int n);
  // RDMA WRITEs `value` into the peer's control word and waits for its completion (up to
  // timeout_s). Other outstanding send completions that arrive meanwhile are discarded, so
  // call it after the send queue was drained.
  void write_peer_control(std::uint64_t value, double timeout_s);

private:
  // Allocates the slots on config_.gpu and registers them: dma-buf, else peer memory; throws
  // BackendError naming both failures.
  void register_gpu_slots(std::size_t bytes);
  // Where slot `qp` starts; throws BackendError when qp or bytes fall outside the slots.
  std::size_t slot_offset(int qp, std::size_t bytes) const;

  EndpointConfig config_;
  std::unique_ptr<VerbsHandles> h_;
  std::string device_;
  GidChoice gid_;
  bool ethernet_ = false;
  std::uint16_t lid_ = 0;
  std::uint32_t mtu_bytes_ = 0;
  int numa_node_ = -1;
  int max_inline_ = 0;
  int max_rd_atomic_ = 1;
  std::string registration_ = "host";
  std::vector<std::uint32_t> psns_;
  EndpointInfo remote_;
};

// The names of the RDMA devices libibverbs sees, in its order; empty when there are none or
// the kernel has no RDMA support. `why_none` gets a sentence for the waive reason.
std::vector<std::string> list_verbs_devices(std::string &why_none);

} // namespace railgauge::rdma
