#include "rdma/verbs/endpoint.h"

#include <infiniband/verbs.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <random>
#include <variant>

#include <unistd.h>

#include <fmt/format.h>

#include "harness/cuda/gpudirect_buffer.h"
#include "harness/error.h"
#include "harness/host_buffer.h"
#include "harness/inventory/verbs_query.h"
#include "rdma/verbs/verbs_error.h"

namespace railgauge::rdma {
namespace {

constexpr std::size_t kControlBytes = 64;

struct DeviceListFree {
  void operator()(ibv_device **list) const { ibv_free_device_list(list); }
};
struct ContextClose {
  void operator()(ibv_context *c) const { ibv_close_device(c); }
};
struct PdFree {
  void operator()(ibv_pd *p) const { ibv_dealloc_pd(p); }
};
struct MrFree {
  void operator()(ibv_mr *m) const { ibv_dereg_mr(m); }
};
struct CqFree {
  void operator()(ibv_cq *c) const { ibv_destroy_cq(c); }
};
struct QpFree {
  void operator()(ibv_qp *q) const { ibv_destroy_qp(q); }
};

ibv_mtu mtu_enum(std::uint32_t bytes) {
  switch (bytes) {
  case 256:
    return IBV_MTU_256;
  case 512:
    return IBV_MTU_512;
  case 1024:
    return IBV_MTU_1024;
  case 2048:
    return IBV_MTU_2048;
  default:
    return IBV_MTU_4096;
  }
}

int read_numa_node(const std::string &sysfs_root, const std::string &device) {
  std::ifstream in(fmt::format("{}/class/infiniband/{}/device/numa_node", sysfs_root, device));
  int node = -1;
  if (in >> node)
    return node;
  return -1; // soft devices (rxe, siw) have no PCI parent
}

std::size_t round_up(std::size_t v, std::size_t to) { return (v + to - 1) / to * to; }

// The device named, else the first whose port is ACTIVE: its context, and its name in `device`.
std::unique_ptr<ibv_context, ContextClose> open_device(const EndpointConfig &config,
                                                       std::string &device) {
  int count = 0;
  std::unique_ptr<ibv_device *, DeviceListFree> list(ibv_get_device_list(&count));
  RAILGAUGE_VERBS_NOT_NULL(list, ibv_get_device_list(&count));
  std::vector<std::string> seen;
  std::unique_ptr<ibv_context, ContextClose> opened;
  for (int i = 0; i < count && !opened; ++i) {
    ibv_device *dev = list.get()[i];
    const std::string name = ibv_get_device_name(dev);
    seen.push_back(name);
    if (!config.device.empty() && name != config.device)
      continue;
    std::unique_ptr<ibv_context, ContextClose> ctx(ibv_open_device(dev));
    RAILGAUGE_VERBS_NOT_NULL(ctx, ibv_open_device(dev));
    ibv_port_attr port{};
    if (ibv_query_port(ctx.get(), static_cast<std::uint8_t>(config.port), &port) != 0 ||
        (config.device.empty() && port.state != IBV_PORT_ACTIVE))
      continue;
    opened = std::move(ctx);
    device = name;
  }
  if (!opened)
    throw InputError(
        config.device.empty()
            ? fmt::format("no RDMA device has port {} ACTIVE", config.port)
            : fmt::format("no RDMA device '{}' with port {}", config.device, config.port),
        "axis device",
        fmt::format("use one of: {}",
                    seen.empty() ? "(none)" : fmt::format("{}", fmt::join(seen, ", "))));
  return opened;
}

} // namespace

// Declared in the header as an opaque type: members are destroyed in reverse order, so QPs go
// before CQs, each MR before its buffer and PD, everything before the context.
struct VerbsHandles {
  std::unique_ptr<ibv_context, ContextClose> context;
  std::unique_ptr<ibv_pd, PdFree> pd;
  std::optional<HostBuffer> buffer; // the control word, and the slots in host memory
  std::unique_ptr<ibv_mr, MrFree> mr;
  std::optional<gpu::GpuDirectBuffer> gpu_buffer; // the slots in GPU memory
  std::unique_ptr<ibv_mr, MrFree> gpu_mr;
  std::unique_ptr<ibv_cq, CqFree> send_cq;
  std::unique_ptr<ibv_cq, CqFree> recv_cq;
  std::vector<std::unique_ptr<ibv_qp, QpFree>> qps;
};

std::vector<std::string> list_verbs_devices(std::string &why_none) {
  int count = 0;
  std::unique_ptr<ibv_device *, DeviceListFree> list(ibv_get_device_list(&count));
  std::vector<std::string> names;
  if (!list) {
    why_none = errno == ENOSYS ? "the kernel has no RDMA support (ibv_get_device_list: ENOSYS)"
                               : fmt::format("ibv_get_device_list: {}", std::strerror(errno));
    return names;
  }
  for (int i = 0; i < count; ++i)
    names.emplace_back(ibv_get_device_name(list.get()[i]));
  if (names.empty())
    why_none = "no RDMA device (ibv_get_device_list found none)";
  return names;
}

Endpoint::Endpoint(const EndpointConfig &config, hwloc_topology_t topology)
    : config_(config), h_(std::make_unique<VerbsHandles>()) {
  if (config.qps < 1 || config.send_depth < 1 || config.recv_depth < 1)
    throw InputError("qps, send and receive depths must be at least 1", "rdma axes",
                     "use qps >= 1 and tx_depth >= 1");
  h_->context = open_device(config, device_);
  ibv_context *ctx = h_->context.get();

  ibv_port_attr port{};
  RAILGAUGE_VERBS_CALL(ibv_query_port(ctx, static_cast<std::uint8_t>(config.port), &port));
  if (port.state != IBV_PORT_ACTIVE)
    throw BackendError(fmt::format("{} port {} is {}, not ACTIVE", device_, config.port,
                                   ibv_port_state_str(port.state)));
  ethernet_ = port.link_layer == IBV_LINK_LAYER_ETHERNET;
  lid_ = port.lid;
  mtu_bytes_ = ib_mtu_bytes(port.active_mtu);
  gid_ = choose_gid(read_port_gids(config.sysfs_root, device_, config.port),
                    config.gid_index >= 0 ? std::optional<int>(config.gid_index) : std::nullopt);
  ibv_device_attr dev_attr{};
  RAILGAUGE_VERBS_CALL(ibv_query_device(ctx, &dev_attr));
  max_rd_atomic_ = std::clamp(dev_attr.max_qp_rd_atom, 1, 16);

  h_->pd.reset(ibv_alloc_pd(ctx));
  RAILGAUGE_VERBS_NOT_NULL(h_->pd, ibv_alloc_pd(ctx));

  numa_node_ = read_numa_node(config.sysfs_root, device_);
  const std::size_t slots_bytes = static_cast<std::size_t>(config.qps) * config.slot_bytes;
  const std::size_t region = round_up((config.gpu >= 0 ? 0 : slots_bytes) + kControlBytes, 4096);
  const int node =
      hwloc_get_nbobjs_by_type(topology, HWLOC_OBJ_NUMANODE) > 0
          ? (numa_node_ >= 0
                 ? numa_node_
                 : static_cast<int>(
                       hwloc_get_obj_by_type(topology, HWLOC_OBJ_NUMANODE, 0)->os_index))
          : 0;
  h_->buffer.emplace(topology, static_cast<unsigned>(node), region);
  std::memset(h_->buffer->doubles(), 0, region);
  h_->mr.reset(
      ibv_reg_mr(h_->pd.get(), h_->buffer->doubles(), region,
                 IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ));
  RAILGAUGE_VERBS_NOT_NULL(h_->mr, ibv_reg_mr);
  if (config.gpu >= 0)
    register_gpu_slots(slots_bytes);

  h_->send_cq.reset(ibv_create_cq(ctx, config.qps * config.send_depth, nullptr, nullptr, 0));
  RAILGAUGE_VERBS_NOT_NULL(h_->send_cq, ibv_create_cq(send));
  h_->recv_cq.reset(ibv_create_cq(ctx, config.qps * config.recv_depth, nullptr, nullptr, 0));
  RAILGAUGE_VERBS_NOT_NULL(h_->recv_cq, ibv_create_cq(recv));

  std::random_device random;
  max_inline_ = config.max_inline_bytes;
  for (int i = 0; i < config.qps; ++i) {
    ibv_qp_init_attr init{};
    init.send_cq = h_->send_cq.get();
    init.recv_cq = h_->recv_cq.get();
    init.cap.max_send_wr = static_cast<std::uint32_t>(config.send_depth);
    init.cap.max_recv_wr = static_cast<std::uint32_t>(config.recv_depth);
    init.cap.max_send_sge = 1;
    init.cap.max_recv_sge = 1;
    init.cap.max_inline_data = static_cast<std::uint32_t>(std::max(config.max_inline_bytes, 0));
    init.qp_type = IBV_QPT_RC;
    std::unique_ptr<ibv_qp, QpFree> qp(ibv_create_qp(h_->pd.get(), &init));
    RAILGAUGE_VERBS_NOT_NULL(qp, ibv_create_qp);
    // The provider writes back what it granted (it may round the inline size up or down).
    max_inline_ = std::min(max_inline_, static_cast<int>(init.cap.max_inline_data));

    ibv_qp_attr attr{};
    attr.qp_state = IBV_QPS_INIT;
    attr.pkey_index = 0;
    attr.port_num = static_cast<std::uint8_t>(config.port);
    attr.qp_access_flags =
        IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;
    RAILGAUGE_VERBS_CALL(ibv_modify_qp(
        qp.get(), &attr, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS));
    h_->qps.push_back(std::move(qp));
    psns_.push_back(random() & 0xffffff);
  }
}

Endpoint::Endpoint(Endpoint &&) noexcept = default;
Endpoint &Endpoint::operator=(Endpoint &&) noexcept = default;
Endpoint::~Endpoint() = default;

EndpointInfo Endpoint::local_info() const {
  EndpointInfo info;
  info.lid = lid_;
  info.gid_index = gid_.index;
  info.gid = gid_from_text(gid_.gid);
  info.ethernet = ethernet_;
  info.mtu_bytes = mtu_bytes_;
  for (const auto &qp : h_->qps)
    info.qpns.push_back(qp->qp_num);
  info.psns = psns_;
  info.addr = slot_addr(0);
  info.rkey = h_->gpu_mr ? h_->gpu_mr->rkey : h_->mr->rkey;
  info.region_bytes = static_cast<std::uint64_t>(config_.qps) * config_.slot_bytes;
  info.control_addr = reinterpret_cast<std::uint64_t>(control());
  info.control_rkey = h_->mr->rkey;
  return info;
}

void Endpoint::connect(const EndpointInfo &remote) {
  // The peer's slots are written and read at the same offsets as this side's own.
  if (const auto why =
          connection_mismatch(remote, h_->qps.size(), ethernet_,
                              static_cast<std::uint64_t>(config_.qps) * config_.slot_bytes))
    throw BackendError(*why);
  remote_ = remote;
  const std::uint32_t mtu = std::min(mtu_bytes_, remote.mtu_bytes);
  for (std::size_t i = 0; i < h_->qps.size(); ++i) {
    ibv_qp_attr attr{};
    attr.qp_state = IBV_QPS_RTR;
    attr.path_mtu = mtu_enum(mtu);
    attr.dest_qp_num = remote.qpns[i];
    attr.rq_psn = remote.psns[i];
    attr.max_dest_rd_atomic = static_cast<std::uint8_t>(max_rd_atomic_);
    attr.min_rnr_timer = 12; // 0.64 ms
    attr.ah_attr.port_num = static_cast<std::uint8_t>(config_.port);
    attr.ah_attr.sl = static_cast<std::uint8_t>(config_.service_level);
    attr.ah_attr.dlid = remote.lid;
    if (ethernet_) {
      // RoCE has no LIDs: the GRH carries the addresses (and the traffic class).
      attr.ah_attr.is_global = 1;
      std::memcpy(attr.ah_attr.grh.dgid.raw, remote.gid.data(), 16);
      attr.ah_attr.grh.sgid_index = static_cast<std::uint8_t>(gid_.index);
      attr.ah_attr.grh.hop_limit = 64;
      attr.ah_attr.grh.traffic_class = static_cast<std::uint8_t>(config_.traffic_class);
      if (i < config_.flow_labels.size())
        attr.ah_attr.grh.flow_label = config_.flow_labels[i] & 0xfffffu;
    }
    RAILGAUGE_VERBS_CALL(ibv_modify_qp(h_->qps[i].get(), &attr,
                                       IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
                                           IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
                                           IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER));
    ibv_qp_attr rts{};
    rts.qp_state = IBV_QPS_RTS;
    rts.timeout = 14; // 4.096 us * 2^14 = 67 ms per retry
    rts.retry_cnt = 7;
    rts.rnr_retry = 7; // infinite: a sender waits for the receiver to post (SEND bandwidth)
    rts.sq_psn = psns_[i];
    rts.max_rd_atomic = static_cast<std::uint8_t>(max_rd_atomic_);
    RAILGAUGE_VERBS_CALL(ibv_modify_qp(h_->qps[i].get(), &rts,
                                       IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
                                           IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
                                           IBV_QP_MAX_QP_RD_ATOMIC));
  }
}

std::uint8_t *Endpoint::slot(int qp) const {
  if (h_->gpu_buffer)
    throw BackendError("the slots are in GPU memory: the CPU reaches them by copies only");
  return reinterpret_cast<std::uint8_t *>(h_->buffer->doubles()) +
         static_cast<std::size_t>(qp) * config_.slot_bytes;
}
std::uint64_t Endpoint::slot_addr(int qp) const {
  const std::uint64_t base = h_->gpu_buffer
                                 ? h_->gpu_buffer->address()
                                 : reinterpret_cast<std::uint64_t>(h_->buffer->doubles());
  return base + static_cast<std::uint64_t>(qp) * config_.slot_bytes;
}
std::size_t Endpoint::slot_offset(int qp, std::size_t bytes) const {
  if (qp < 0 || qp >= config_.qps || bytes > config_.slot_bytes)
    throw BackendError(fmt::format("{} bytes at slot {} do not fit {} slots of {} bytes", bytes, qp,
                                   config_.qps, config_.slot_bytes));
  return static_cast<std::size_t>(qp) * config_.slot_bytes;
}
void Endpoint::write_slot(int qp, const std::uint8_t *source, std::size_t bytes) {
  const std::size_t offset = slot_offset(qp, bytes);
  if (h_->gpu_buffer)
    h_->gpu_buffer->copy_in(offset, source, bytes);
  else
    std::memcpy(slot(qp), source, bytes);
}
void Endpoint::read_slot(int qp, std::uint8_t *destination, std::size_t bytes) const {
  const std::size_t offset = slot_offset(qp, bytes);
  if (h_->gpu_buffer)
    h_->gpu_buffer->copy_out(offset, destination, bytes);
  else
    std::memcpy(destination, slot(qp), bytes);
}
volatile std::uint64_t *Endpoint::control() const {
  return reinterpret_cast<volatile std::uint64_t *>(
      reinterpret_cast<std::uint8_t *>(h_->buffer->doubles()) + h_->buffer->size_bytes() -
      kControlBytes);
}
std::uint64_t Endpoint::remote_slot_addr(int qp) const {
  return remote_.addr + static_cast<std::uint64_t>(qp) * config_.slot_bytes;
}
std::uint64_t Endpoint::remote_control_addr() const { return remote_.control_addr; }
ibv_qp *Endpoint::qp(int i) const { return h_->qps[static_cast<std::size_t>(i)].get(); }
ibv_cq *Endpoint::send_cq() const { return h_->send_cq.get(); }
ibv_cq *Endpoint::recv_cq() const { return h_->recv_cq.get(); }
std::uint32_t Endpoint::lkey() const { return h_->gpu_mr ? h_->gpu_mr->lkey : h_->mr->lkey; }

void Endpoint::register_gpu_slots(std::size_t bytes) {
  h_->gpu_buffer.emplace(config_.gpu, bytes);
  const auto &buffer = *h_->gpu_buffer;
  const int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;
  // dma-buf first (upstream kernels, no out-of-tree module), as NCCL does; peer memory after.
  std::string dmabuf_failure;
  auto exported = buffer.export_dmabuf();
  if (const auto *dmabuf = std::get_if<gpu::DmaBuf>(&exported)) {
    h_->gpu_mr.reset(ibv_reg_dmabuf_mr(h_->pd.get(), dmabuf->offset, buffer.size_bytes(),
                                       buffer.address(), dmabuf->fd, access));
    const int error = errno;
    ::close(dmabuf->fd); // the MR holds its own reference to the dma-buf
    if (h_->gpu_mr) {
      registration_ = "dmabuf";
      return;
    }
    dmabuf_failure = fmt::format("ibv_reg_dmabuf_mr failed: {}", std::strerror(error));
  } else {
    dmabuf_failure = std::get<std::string>(exported);
  }
  h_->gpu_mr.reset(ibv_reg_mr(h_->pd.get(), reinterpret_cast<void *>(buffer.address()),
                              buffer.size_bytes(), access));
  if (h_->gpu_mr) {
    registration_ = "peermem";
    return;
  }
  throw BackendError(fmt::format(
      "{} cannot register the memory of CUDA device {} (GPUDirect RDMA): dma-buf: {}; peer "
      "memory: ibv_reg_mr of the device pointer failed: {} (is the nvidia-peermem module "
      "loaded?)",
      device_, config_.gpu, dmabuf_failure, std::strerror(errno)));
}

void Endpoint::post_recvs(int qp, int count) {
  for (int i = 0; i < count; ++i) {
    ibv_sge sge{slot_addr(qp), static_cast<std::uint32_t>(config_.slot_bytes), lkey()};
    ibv_recv_wr wr{};
    wr.wr_id = static_cast<std::uint64_t>(qp);
    wr.sg_list = &sge;
    wr.num_sge = 1;
    ibv_recv_wr *bad = nullptr;
    RAILGAUGE_VERBS_CALL(ibv_post_recv(this->qp(qp), &wr, &bad));
  }
}

namespace {
int poll_checked(ibv_cq *cq, ibv_wc *wcs, int n) {
  const int got = ibv_poll_cq(cq, n, wcs);
  if (got < 0)
    throw BackendError(fmt::format("ibv_poll_cq failed: {}", got));
  for (int i = 0; i < got; ++i)
    if (wcs[i].status != IBV_WC_SUCCESS)
      throw BackendError(completion_error_text(wcs[i]));
  return got;
}
} // namespace

int Endpoint::poll_send(ibv_wc *wcs, int n) { return poll_checked(send_cq(), wcs, n); }
int Endpoint::poll_recv(ibv_wc *wcs, int n) { return poll_checked(recv_cq(), wcs, n); }

void Endpoint::write_peer_control(std::uint64_t value, double timeout_s) {
  // The value travels from the last 8 bytes of this side's own control area (nothing writes
  // there but this call), so the payload is in registered memory.
  auto *src = reinterpret_cast<std::uint64_t *>(const_cast<std::uint64_t *>(control()) + 1);
  *src = value;
  ibv_sge sge{reinterpret_cast<std::uint64_t>(src), sizeof value, h_->mr->lkey};
  ibv_send_wr wr{};
  wr.wr_id = 0xC0;
  wr.sg_list = &sge;
  wr.num_sge = 1;
  wr.opcode = IBV_WR_RDMA_WRITE;
  wr.send_flags = IBV_SEND_SIGNALED;
  wr.wr.rdma.remote_addr = remote_control_addr();
  wr.wr.rdma.rkey = remote_.control_rkey;
  ibv_send_wr *bad = nullptr;
  RAILGAUGE_VERBS_CALL(ibv_post_send(qp(0), &wr, &bad));
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  ibv_wc wc[16];
  while (true) {
    const int got = poll_send(wc, 16);
    for (int i = 0; i < got; ++i)
      if (wc[i].wr_id == 0xC0)
        return;
    if (std::chrono::steady_clock::now() > deadline)
      throw BackendError(
          fmt::format("the control write to the peer did not complete in {} s", timeout_s));
  }
}

} // namespace railgauge::rdma
