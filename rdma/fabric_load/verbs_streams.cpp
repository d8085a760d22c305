#include "rdma/fabric_load/verbs_streams.h"

#include <algorithm>

#include "rdma/fabric_load/fabric_figures.h"
#include "rdma/verbs/traffic.h"
#include "records/rdma_record.h"

namespace railgauge::rdma {

int moderation_for(std::size_t bytes, int depth) {
  return bytes >= 65536 ? 1 : std::min(16, depth);
}

std::vector<std::uint32_t> flow_labels(const FabricLoadSpec &s, int sender, int first_qp, int qps) {
  std::vector<std::uint32_t> labels;
  if (s.set_flow_labels)
    for (int q = 0; q < qps; ++q)
      labels.push_back(flow_label_of(sender % 64, first_qp + q)); // 64 apart: other addresses
  return labels;
}

EndpointConfig stream_config(const FabricLoadSpec &s, const std::string &device, int qps,
                             std::vector<std::uint32_t> labels) {
  EndpointConfig c;
  c.device = device;
  c.port = s.port;
  c.gid_index = s.gid_index;
  c.traffic_class = s.traffic_class;
  c.service_level = s.service_level;
  c.qps = qps;
  c.send_depth = s.tx_depth;
  c.recv_depth = 1; // WRITE needs no receives
  c.slot_bytes = (s.size_bytes + 63) / 64 * 64;
  c.max_inline_bytes = 0;
  c.sysfs_root = s.sysfs_root;
  c.flow_labels = std::move(labels);
  return c;
}

EndpointInfo peer_info(Store &store, const std::string &key, Milliseconds timeout, int peer) {
  const std::string text = store.get(key, timeout);
  if (text.starts_with(kFailedInfo))
    throw BackendError(fmt::format("rank {} failed: {}", peer, text.substr(kFailedInfo.size())));
  return EndpointInfo::parse(text);
}

std::string info_key(const std::string &prefix, int from, int to) {
  return fmt::format("{}info/{}>{}", prefix, from, to);
}

nlohmann::json entropy_of(const Endpoint &ep) {
  if (!ep.ethernet())
    return {{record::kFlowLabels, "not applicable: InfiniBand routes by LID (no GRH, no UDP)"}};
  nlohmann::json labels = nlohmann::json::array(), ports = nlohmann::json::array();
  const EndpointInfo local = ep.local_info();
  for (int q = 0; q < ep.config().qps; ++q) {
    const auto qi = static_cast<std::size_t>(q);
    const std::uint32_t label =
        qi < ep.config().flow_labels.size() && ep.config().flow_labels[qi] != 0
            ? ep.config().flow_labels[qi]
            : roce_flow_label_of_qpns(local.qpns[qi], ep.remote().qpns[qi]);
    labels.push_back(label);
    ports.push_back(roce_udp_source_port(label));
  }
  return {{record::kFlowLabels, labels},
          {record::kUdpSourcePorts, ports},
          {record::kUdpSourcePortOrigin,
           ep.config().flow_labels.empty()
               ? "derived here as the kernel does from the QPNs (rdma_calc_flow_label, then "
                 "rdma_flow_label_to_udp_sport); the NIC does not report it"
               : "derived here as the kernel does from the flow label set "
                 "(rdma_flow_label_to_udp_sport); the NIC does not report it"}};
}

nlohmann::json addressing_of(const Endpoint &ep) {
  return {{record::kGidIndexUsed, ep.gid().index},
          {record::kGidType, to_string(ep.gid().type)},
          {record::kLinkLayer, ep.ethernet() ? "Ethernet" : "InfiniBand"},
          {record::kMtuBytes, ep.mtu_bytes()}};
}

FlowFigures flow_over(const FlowStreamer &st, const std::vector<std::uint64_t> &before,
                      std::size_t bytes) {
  FlowFigures f;
  for (std::size_t q = 0; q < before.size(); ++q)
    f.bytes_per_qp.push_back(static_cast<double>(st.completed_per_qp()[q] - before[q]) *
                             static_cast<double>(bytes));
  return f;
}

} // namespace railgauge::rdma
