#pragma once
// Localisation: which link is bad. Every flow is evidence about the links on its traced path.
// A flow is bad when its bandwidth is under ClusterKit's fraction (0.93) of the reference, the
// median flow (with thousands of flows the maximum is the luckiest noise, not the fabric).
//
// Model: a bad link spoils each flow that crosses it with probability q (1 for a degraded
// cable, less for a flapping port); a flow over good links only is bad with a small
// probability eps (a passing disturbance). Links are named greedily: the one whose fault best
// explains the bad flows (the log-likelihood gain, in nats, with q fitted to the flows it
// leaves unexplained) is named while its gain exceeds a penalty, then its flows count as
// explained and the next is sought, so two faults are two names and the partners of a bad
// NIC are not blamed for its flows. A named link's confidence weighs its gain against every
// link that shares its bad flows and against no fault at all (the penalty):
// exp(g) / (exp(g) + exp(penalty) + sum over the rivals of exp(g_c)).
#include <string>
#include <vector>

#include "rdma/fabric/flow.h"
#include "rdma/fabric/topology.h"

namespace railgauge::rdma::fabric {

struct LocaliseOptions {
  double bandwidth_fraction = 0.93; // ClusterKit's: bad below this x the reference
  double false_bad_rate = 1e-3;     // eps
  double penalty_nats = 10;         // the evidence a link needs to be named
  double confident = 0.99;          // no more adaptive rounds for a link named this surely
  int max_named = 8;
};

struct NamedLink {
  int link = 0;
  int flows = 0, bad = 0; // flows through it, and how many were bad
  double gain_nats = 0;
  double confidence = 0;
  std::vector<int> rivals; // links sharing its bad flows with some gain, best first
  std::string text;        // "uplink leaf-r0-g03[40] - spine-r0-07[4]: 24 of 24 flows ... "
};

struct Localisation {
  double reference_gbps = 0;
  int flows = 0, bad_flows = 0, unexplained_bad = 0;
  std::vector<NamedLink> named;
};

Localisation localise(const Topology &t, const std::vector<FlowObservation> &flows,
                      const LocaliseOptions &options = {});

// One adaptive round that splits the suspects (named links not yet confident, and their
// rivals): a suspect NIC meets a known-good NIC on its own leaf (a path of two NIC cables and
// no uplink); a suspect uplink's leaf sends flows from known-good NICs to known-good NICs on
// other leaves; four times the first pass's flows a pair. Empty when every named link is
// confident.
PlannedRound plan_split_round(const Topology &t, const Localisation &verdict,
                              const std::vector<FlowObservation> &flows, int flows_per_pair,
                              const LocaliseOptions &options = {});

std::string link_kind_name(const Link &link);

} // namespace railgauge::rdma::fabric
