#include "analysis/calibrate/execution_sizes.h"

#include <stdexcept>

#include <fmt/format.h>

namespace railgauge::calibrate {
namespace {

using nlohmann::json;

std::int64_t int_field(const json &j, const char *key, const std::string &file, bool required,
                       std::int64_t fallback = 0) {
  if (!j.contains(key)) {
    if (required)
      throw std::invalid_argument(fmt::format("{}: no \"{}\"", file, key));
    return fallback;
  }
  if (!j[key].is_number_integer())
    throw std::invalid_argument(fmt::format("{}: \"{}\" is not an integer", file, key));
  return j[key].get<std::int64_t>();
}

bool bool_field(const json &j, const char *key, const std::string &file, bool fallback) {
  if (!j.contains(key))
    return fallback;
  if (!j[key].is_boolean())
    throw std::invalid_argument(fmt::format("{}: \"{}\" is not true or false", file, key));
  return j[key].get<bool>();
}

std::string string_field(const json &j, const char *key, const std::string &file,
                         const std::vector<std::string> &allowed, std::string fallback) {
  if (!j.contains(key))
    return fallback;
  if (!j[key].is_string())
    throw std::invalid_argument(fmt::format("{}: \"{}\" is not a string", file, key));
  auto v = j[key].get<std::string>();
  if (!allowed.empty() && std::find(allowed.begin(), allowed.end(), v) == allowed.end())
    throw std::invalid_argument(
        fmt::format("{}: \"{}\" is \"{}\", not one of {}", file, key, v, fmt::join(allowed, ", ")));
  return v;
}

// One layer of Calculon's block, in elements (bytes come from the datatype), with the flags that
// decide whether it runs again in the recompute pass.
struct Layer {
  std::string name;
  bool matrix = false;
  double fw_flops = 0, agrad_flops = 0, wgrad_flops = 0;
  double fw_mem = 0, agrad_mem = 0, wgrad_mem = 0; // bytes
  double weight = 0, optim_space = 0;              // elements
  bool recompute = false;
};

// Layer's generic bytes: fw = inputs + outputs + weights; agrad = weights + activations +
// activation grads; wgrad = weight grads + activations + activation grads (0 without weights).
Layer generic(std::string name, double in, double out, double act, double act_grad, double weight,
              double b) {
  Layer l;
  l.name = std::move(name);
  l.fw_mem = (in + out + weight) * b;
  l.agrad_mem = (weight + act + act_grad) * b;
  l.wgrad_mem = weight > 0 ? (weight + act + act_grad) * b : 0;
  l.weight = weight;
  return l;
}

Layer linear(std::string name, double m, double n, double k, double b, bool recompute) {
  Layer l = generic(std::move(name), m * n, m * k, m * n, m * k, n * k, b);
  l.matrix = true;
  l.fw_flops = l.agrad_flops = l.wgrad_flops = 2 * m * n * k;
  l.optim_space = 2 * n * k;
  l.recompute = recompute;
  return l;
}

// batch × (m×n)·(n×k); its backward is one op of twice the FLOPs over the forward's bytes.
Layer batch_matmul(std::string name, double batch, double m, double n, double k, double b,
                   bool recompute) {
  const double in = batch * (m * n + n * k), out = batch * m * k;
  Layer l = generic(std::move(name), in, out, in, out, 0, b);
  l.matrix = true;
  l.fw_flops = batch * 2 * m * n * k;
  l.agrad_flops = 2 * l.fw_flops;
  l.recompute = recompute;
  return l;
}

Layer layer_norm(std::string name, double act, double hidden, double b, bool recompute) {
  Layer l = generic(std::move(name), act, act, act, act, 2 * hidden, b);
  l.optim_space = 4 * hidden;
  l.recompute = recompute;
  return l;
}

// Forward reads nothing; backward sums the users' gradients.
Layer fork(std::string name, double act, int users, double b, bool recompute) {
  Layer l;
  l.name = std::move(name);
  l.agrad_mem = act * b * (users + 1);
  l.recompute = recompute;
  return l;
}

// DropOut (its mask is one byte per element), SoftMax and GeLU read their input and write their
// output in both passes.
Layer pointwise(std::string name, double act, double b, double extra_bytes, bool recompute) {
  Layer l;
  l.name = std::move(name);
  l.fw_mem = l.agrad_mem = 2 * act * b + extra_bytes;
  l.recompute = recompute;
  return l;
}

Layer residual(std::string name, double act, double b, bool recompute) {
  Layer l = generic(std::move(name), 2 * act, act, 2 * act, act, 0, b);
  l.recompute = recompute;
  return l;
}

// TPComm: the identity (forward of f, backward of g without sequence parallelism) touches no
// memory; otherwise it reads and writes the activation.
Layer tp_comm(std::string name, double act, int peers, bool rs_ag, bool conjugate, double b) {
  Layer l;
  l.name = std::move(name);
  if (peers == 1)
    return l;
  l.fw_mem = !rs_ag && !conjugate ? 0 : 2 * act * b;
  l.agrad_mem = !rs_ag && conjugate ? 0 : 2 * act * b;
  return l;
}

struct TpComm {
  std::string name;
  bool conjugate = false; // g (after the row-parallel GEMM) rather than f
  bool recomm = false;    // communicated again in the recompute pass
};

// The sizes one processor's share of a block is made of, from the model and the execution.
struct BlockShape {
  double b = 0;       // bytes per element
  std::int64_t t = 1; // tensor_par
  int peers = 1;      // t, as a group size
  bool rs_ag = false; // sequence parallelism: TP reduce_scatter / all_gather
  bool pp_rs_ag = false;
  double batch_seq = 0, act = 0, act_sp = 0;
  double act_ln = 0; // LayerNorm, dropout, residual under seq. par.
  bool full = false, attn = false, attn_ag = false, mlp_ag = false; // what is recomputed
};

BlockShape block_shape(const CalculonModel &m, const CalculonExecution &e) {
  BlockShape s;
  s.b = calculon_type_size(e.datatype);
  s.t = e.tensor_par;
  for (auto [v, what] : {std::pair{m.hidden, "hidden"},
                         {m.feedforward, "feedforward"},
                         {m.attn_heads, "attn_heads"}})
    if (v % s.t != 0)
      throw std::invalid_argument(
          fmt::format("{} = {} does not split over tensor_par {}", what, v, s.t));
  s.rs_ag = e.tensor_par_comm_type == "rs_ag";
  s.pp_rs_ag = e.tensor_par_comm_type != "ar";
  s.batch_seq = static_cast<double>(e.microbatch_size * m.seq_size);
  if ((s.rs_ag || s.pp_rs_ag) && (e.microbatch_size * m.seq_size) % s.t != 0)
    throw std::invalid_argument(
        fmt::format("microbatch × seq_size = {} does not split over tensor_par {}",
                    e.microbatch_size * m.seq_size, s.t));
  s.act = s.batch_seq * static_cast<double>(m.hidden);
  s.act_sp = s.act / static_cast<double>(s.t);
  s.act_ln = s.rs_ag ? s.act_sp : s.act;
  s.peers = static_cast<int>(s.t);
  s.full = e.activation_recompute == "full";
  s.attn = s.full || e.activation_recompute == "attn_only";
  s.attn_ag = s.attn || e.seq_par_ag_redo;
  s.mlp_ag = s.full || e.seq_par_ag_redo;
  return s;
}

// The attention block's layers and TP communications, in Calculon's order.
void attention_block(const CalculonModel &m, const CalculonExecution &e, const BlockShape &s,
                     std::vector<Layer> &layers, std::vector<TpComm> &comms) {
  const double b = s.b, h = static_cast<double>(m.hidden);
  const double heads = static_cast<double>(m.attn_heads), asz = static_cast<double>(m.attn_size);
  const double seq = static_cast<double>(m.seq_size), tt = static_cast<double>(s.t);
  layers.push_back(fork("AttnBlock_Fork", s.act_ln, 2, b, s.full));
  layers.push_back(layer_norm("AttnBlock_LayerNorm", s.act_ln, h, b, s.full));
  layers.push_back(tp_comm("AttnBlock_F", s.act, s.peers, s.rs_ag, false, b));
  comms.push_back({"AttnBlock_F", false, s.attn_ag});
  layers.push_back(fork("AttnBlock_Multihead_Fork", s.act, 3, b, s.attn_ag));
  const double qkv = heads * asz / tt;
  const double kv = e.attention_type == "multihead" ? qkv : asz;
  layers.push_back(linear("AttnBlock_Query", s.batch_seq, h, qkv, b, s.full));
  layers.push_back(linear("AttnBlock_Key", s.batch_seq, h, kv, b, s.full));
  layers.push_back(linear("AttnBlock_Value", s.batch_seq, h, kv, b, s.full));
  const double bmm_batch = static_cast<double>(e.microbatch_size * (m.attn_heads / s.t));
  layers.push_back(
      batch_matmul("AttnBlock_Multihead_Key_Query", bmm_batch, seq, asz, seq, b, s.attn));
  const double scores =
      static_cast<double>(m.attn_heads / s.t) * seq * seq * static_cast<double>(e.microbatch_size);
  layers.push_back(pointwise("AttnBlock_Multihead_SoftMax", scores, b, 0, s.attn));
  layers.push_back(pointwise("AttnBlock_Multihead_DropOut", scores, b, scores, s.attn));
  layers.push_back(batch_matmul("AttnBlock_Multihead_Attn", bmm_batch, seq, seq, asz, b, s.full));
  layers.push_back(linear("AttnBlock_MLP", s.batch_seq, qkv, h, b, s.full));
  layers.push_back(tp_comm("AttnBlock_G", s.act, s.peers, s.rs_ag, true, b));
  comms.push_back({"AttnBlock_G", true, s.full});
  layers.push_back(pointwise("AttnBlock_DropOut", s.act_ln, b, s.act_ln, s.full));
  layers.push_back(residual("AttnBlock_Residual", s.act_ln, b, s.full));
}

// The MLP block's layers and TP communications, in Calculon's order.
void mlp_block(const CalculonModel &m, const BlockShape &s, std::vector<Layer> &layers,
               std::vector<TpComm> &comms) {
  const double b = s.b, h = static_cast<double>(m.hidden);
  const double ff = static_cast<double>(m.feedforward), tt = static_cast<double>(s.t);
  layers.push_back(fork("MlpBlock_Fork", s.act_ln, 2, b, s.full));
  layers.push_back(layer_norm("MlpBlock_LayerNorm", s.act_ln, h, b, s.full));
  layers.push_back(tp_comm("MlpBlock_F", s.act, s.peers, s.rs_ag, false, b));
  comms.push_back({"MlpBlock_F", false, s.mlp_ag});
  layers.push_back(linear("MlpBlock_Mlp1", s.batch_seq, h, ff / tt, b, s.full));
  // A fused GeLU keeps no activation of its own, but still reads and writes one.
  layers.push_back(pointwise("MlpBlock_GeLU", ff * s.batch_seq / tt, b, 0, s.full));
  layers.push_back(linear("MlpBlock_Mlp2", s.batch_seq, ff / tt, h, b, s.full));
  layers.push_back(tp_comm("MlpBlock_G", s.act, s.peers, s.rs_ag, true, b));
  comms.push_back({"MlpBlock_G", true, s.full});
  layers.push_back(pointwise("MlpBlock_DropOut", s.act_ln, b, s.act_ln, s.full));
  layers.push_back(residual("MlpBlock_Residual", s.act_ln, b, s.full));
}

// Blocks this processor runs, and how they split into chunks (one edge block per chunk).
struct BlockRuns {
  std::int64_t blocks = 0, microbatches = 0, chunks = 0;
  double block_runs = 0, base_runs = 0, edge_runs = 0;
};

BlockRuns block_runs(const CalculonModel &m, const CalculonExecution &e) {
  BlockRuns r;
  r.blocks = m.num_blocks / e.pipeline_par;
  if (m.num_blocks % e.pipeline_par != 0)
    ++r.blocks;
  if (r.blocks % e.pipeline_interleaving != 0)
    throw std::invalid_argument(
        fmt::format("pipeline_interleaving {} does not divide the {} blocks per processor",
                    e.pipeline_interleaving, r.blocks));
  r.microbatches = e.batch_size / e.data_par / e.microbatch_size;
  r.chunks = e.pipeline_interleaving;
  const std::int64_t per_chunk = r.blocks / r.chunks;
  r.block_runs = static_cast<double>(r.blocks * r.microbatches);
  r.base_runs = static_cast<double>((per_chunk - 1) * r.chunks * r.microbatches);
  r.edge_runs = static_cast<double>(r.chunks * r.microbatches);
  return r;
}

void add_use(ExecutionSizes &out, std::string target, double x, double calls, std::string what) {
  if (x > 0 && calls > 0)
    out.uses.push_back({std::move(target), x, calls, -1, "", 0, std::move(what)});
}

void add_network_use(ExecutionSizes &out, int tier, std::string op, double bytes, int n,
                     double calls, std::string what) {
  if (bytes > 0 && calls > 0)
    out.uses.push_back({"network", bytes, calls, tier, std::move(op), n, std::move(what)});
}

// Each layer's matrix and mem1 uses; returns the block's weight elements and optimizer bytes.
std::pair<double, double> add_layer_uses(ExecutionSizes &out, const std::vector<Layer> &layers,
                                         const CalculonExecution &e, const BlockRuns &runs,
                                         double b) {
  const double shard = e.optimizer_sharding ? static_cast<double>(e.data_par) : 1.0;
  double weight_elems = 0, optimizer_bytes = 0;
  for (const auto &l : layers) {
    weight_elems += l.weight;
    // Adam: fp32 master weights (below 4 bytes per element) and two moments.
    optimizer_bytes += ((b < 4 ? l.weight * 4 : 0) + l.optim_space * 4) / shard;
    const double runs_fw = runs.block_runs * (e.training && l.recompute ? 2 : 1);
    if (l.matrix)
      add_use(out, "matrix", l.fw_flops, runs_fw, l.name + " fw");
    add_use(out, "mem1", l.fw_mem, runs_fw, l.name + " fw");
    if (!e.training)
      continue;
    if (l.matrix) {
      add_use(out, "matrix", l.agrad_flops, runs.block_runs, l.name + " agrad");
      add_use(out, "matrix", l.wgrad_flops, runs.block_runs, l.name + " wgrad");
    }
    add_use(out, "mem1", l.agrad_mem, runs.block_runs, l.name + " agrad");
    add_use(out, "mem1", l.wgrad_mem, runs.block_runs, l.name + " wgrad");
    if (l.weight > 0)
      add_use(out, "mem1", ((b < 4 ? l.weight * 4 : 0) + l.optim_space * 4) / shard,
              static_cast<double>(runs.blocks), l.name + " optimizer step");
  }
  return {weight_elems, optimizer_bytes};
}

// Tensor parallelism: f is the identity forward and all_reduce backward, g the reverse; with
// sequence parallelism f all_gathers forward and reduce_scatters backward, g the reverse.
// p2p_rs_ag splits only in a chunk's edge block.
void add_tensor_parallel_uses(ExecutionSizes &out, const std::vector<TpComm> &comms,
                              const CalculonExecution &e, const BlockShape &s,
                              const BlockRuns &runs) {
  if (s.t <= 1)
    return;
  const double bytes = s.act * s.b;
  for (const auto &c : comms)
    for (const bool base : {true, false}) {
      const double n_runs = base ? runs.base_runs : runs.edge_runs;
      const bool split = s.rs_ag || (e.tensor_par_comm_type == "p2p_rs_ag" && !base);
      const std::string fw = split ? (c.conjugate ? "reduce_scatter" : "all_gather")
                                   : (c.conjugate ? "all_reduce" : "");
      const std::string bw = split ? (c.conjugate ? "all_gather" : "reduce_scatter")
                                   : (c.conjugate ? "" : "all_reduce");
      const std::string where = fmt::format("TP {} ({} block)", c.name, base ? "base" : "edge");
      if (!fw.empty())
        add_network_use(out, e.tensor_par_net, fw, bytes, s.peers, n_runs, where + " fw");
      if (e.training && !bw.empty())
        add_network_use(out, e.tensor_par_net, bw, bytes, s.peers, n_runs, where + " bw");
      // Communicated again in the recompute pass: the forward's op.
      if (e.training && c.recomm && (split || c.conjugate) && !fw.empty())
        add_network_use(out, e.tensor_par_net, fw, bytes, s.peers, n_runs, where + " recompute");
    }
}

// Data parallelism: the block's gradients reduced (and its weights gathered when the optimizer
// is sharded), once per block.
void add_data_parallel_uses(ExecutionSizes &out, const CalculonExecution &e, double weight_bytes,
                            const BlockRuns &runs) {
  if (e.data_par <= 1 || !e.training)
    return;
  const int d = static_cast<int>(e.data_par);
  const double blocks = static_cast<double>(runs.blocks);
  if (e.optimizer_sharding) {
    add_network_use(out, e.data_par_net, "reduce_scatter", weight_bytes, d, blocks,
                    "DP block gradients");
    add_network_use(out, e.data_par_net, "all_gather", weight_bytes, d, blocks, "DP block weights");
  } else {
    add_network_use(out, e.data_par_net, "all_reduce", weight_bytes, d, blocks,
                    "DP block gradients");
  }
}

// Offload through mem2, once per block and microbatch each way.
void add_offload_uses(ExecutionSizes &out, const CalculonExecution &e, const BlockShape &s,
                      const BlockRuns &runs, double weight_bytes, double optimizer_bytes) {
  const double checkpoint = e.training && s.full ? s.act * s.b : 0;
  if (e.activations_offload && !s.full)
    out.notes.push_back("activations offload without full recompute moves the block's stored "
                        "activations, whose size is not modelled here: left out of mem2");
  const double act_off = e.activations_offload ? checkpoint : 0;
  add_use(out, "mem2", std::max(e.weight_offload ? weight_bytes : 0.0, act_off), runs.block_runs,
          "offload fw");
  if (e.training)
    add_use(out, "mem2",
            (e.weight_offload ? weight_bytes : 0.0) + act_off +
                (e.optimizer_offload ? optimizer_bytes : 0.0),
            runs.block_runs, "offload bw");
}

} // namespace

int calculon_type_size(const std::string &dt) {
  if (dt == "float8")
    return 1;
  if (dt == "float16" || dt == "bfloat16")
    return 2;
  if (dt == "float32")
    return 4;
  return 0;
}

CalculonModel parse_calculon_model(const json &j, std::string name) {
  if (!j.is_object())
    throw std::invalid_argument(name + ": not a JSON object (a Calculon model file)");
  CalculonModel m;
  m.hidden = int_field(j, "hidden", name, true);
  m.feedforward = int_field(j, "feedforward", name, true);
  m.seq_size = int_field(j, "seq_size", name, true);
  m.attn_heads = int_field(j, "attn_heads", name, true);
  m.attn_size = int_field(j, "attn_size", name, true);
  m.num_blocks = int_field(j, "num_blocks", name, true);
  for (auto v : {m.hidden, m.feedforward, m.seq_size, m.attn_heads, m.attn_size, m.num_blocks})
    if (v < 1)
      throw std::invalid_argument(name + ": every size must be at least 1");
  m.name = std::move(name);
  return m;
}

CalculonExecution parse_calculon_execution(const json &j, std::string name) {
  if (!j.is_object())
    throw std::invalid_argument(name + ": not a JSON object (a Calculon execution file)");
  CalculonExecution e;
  e.num_procs = int_field(j, "num_procs", name, true);
  e.tensor_par = int_field(j, "tensor_par", name, true);
  e.pipeline_par = int_field(j, "pipeline_par", name, true);
  e.data_par = int_field(j, "data_par", name, true);
  e.tensor_par_net = static_cast<int>(int_field(j, "tensor_par_net", name, true));
  e.pipeline_par_net = static_cast<int>(int_field(j, "pipeline_par_net", name, true));
  e.data_par_net = static_cast<int>(int_field(j, "data_par_net", name, true));
  e.batch_size = int_field(j, "batch_size", name, true);
  e.microbatch_size = int_field(j, "microbatch_size", name, true);
  e.pipeline_interleaving = int_field(j, "pipeline_interleaving", name, false, 1);
  e.datatype =
      string_field(j, "datatype", name, {"float8", "float16", "bfloat16", "float32"}, "float16");
  e.attention_type =
      string_field(j, "attention_type", name, {"multihead", "multiquery"}, "multihead");
  e.activation_recompute =
      string_field(j, "activation_recompute", name, {"full", "attn_only", "none"}, "none");
  e.tensor_par_comm_type =
      string_field(j, "tensor_par_comm_type", name, {"ar", "p2p_rs_ag", "rs_ag"}, "ar");
  e.tensor_par_overlap =
      string_field(j, "tensor_par_overlap", name, {"none", "ring", "pipe"}, "none");
  e.fused_activation = bool_field(j, "fused_activation", name, false);
  e.optimizer_sharding = bool_field(j, "optimizer_sharding", name, false);
  e.seq_par_ag_redo = bool_field(j, "seq_par_ag_redo", name, false);
  e.data_par_overlap = bool_field(j, "data_par_overlap", name, false);
  e.weight_offload = bool_field(j, "weight_offload", name, false);
  e.activations_offload = bool_field(j, "activations_offload", name, false);
  e.optimizer_offload = bool_field(j, "optimizer_offload", name, false);
  e.training = bool_field(j, "training", name, true);
  for (auto [v, what] : {std::pair{e.tensor_par, "tensor_par"},
                         {e.pipeline_par, "pipeline_par"},
                         {e.data_par, "data_par"},
                         {e.batch_size, "batch_size"},
                         {e.microbatch_size, "microbatch_size"},
                         {e.pipeline_interleaving, "pipeline_interleaving"}})
    if (v < 1)
      throw std::invalid_argument(fmt::format("{}: \"{}\" must be at least 1", name, what));
  if (e.num_procs != e.tensor_par * e.pipeline_par * e.data_par)
    throw std::invalid_argument(
        fmt::format("{}: num_procs {} is not tensor_par × pipeline_par × data_par = {}", name,
                    e.num_procs, e.tensor_par * e.pipeline_par * e.data_par));
  if (e.batch_size % e.data_par != 0 || (e.batch_size / e.data_par) % e.microbatch_size != 0)
    throw std::invalid_argument(
        fmt::format("{}: batch_size {} does not split into data_par {} × whole microbatches of {}",
                    name, e.batch_size, e.data_par, e.microbatch_size));
  if (e.tensor_par_overlap != "none")
    throw std::invalid_argument(
        fmt::format("{}: tensor_par_overlap \"{}\" (tiled GEMMs overlapped with the TP "
                    "collectives) is not modelled; give an execution with \"none\"",
                    name, e.tensor_par_overlap));
  e.name = std::move(name);
  return e;
}

ExecutionSizes execution_sizes(const CalculonModel &m, const CalculonExecution &e) {
  ExecutionSizes out;
  out.model = m;
  out.execution = e;
  const BlockShape s = block_shape(m, e);
  out.bytes_per_element = static_cast<int>(s.b);
  std::vector<Layer> layers;
  std::vector<TpComm> comms;
  attention_block(m, e, s, layers, comms);
  mlp_block(m, s, layers, comms);
  const BlockRuns runs = block_runs(m, e);
  const auto [weight_elems, optimizer_bytes] = add_layer_uses(out, layers, e, runs, s.b);
  add_tensor_parallel_uses(out, comms, e, s, runs);
  if (e.pipeline_par > 1)
    add_network_use(out, e.pipeline_par_net, "p2p", (s.pp_rs_ag ? s.act_sp : s.act) * s.b, 2,
                    static_cast<double>(runs.microbatches * runs.chunks * (e.training ? 2 : 1)),
                    "PP activations");
  const double weight_bytes = weight_elems * s.b;
  add_data_parallel_uses(out, e, weight_bytes, runs);
  add_offload_uses(out, e, s, runs, weight_bytes, optimizer_bytes);
  return out;
}

} // namespace railgauge::calibrate
