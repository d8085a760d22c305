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
  const double b = calculon_type_size(e.datatype);
  out.bytes_per_element = static_cast<int>(b);
  const std::int64_t t = e.tensor_par;
  for (auto [v, what] : {std::pair{m.hidden, "hidden"},
                         {m.feedforward, "feedforward"},
                         {m.attn_heads, "attn_heads"}})
    if (v % t != 0)
      throw std::invalid_argument(
          fmt::format("{} = {} does not split over tensor_par {}", what, v, t));
  const bool rs_ag = e.tensor_par_comm_type == "rs_ag";
  const bool pp_rs_ag = e.tensor_par_comm_type != "ar";
  const double batch_seq = static_cast<double>(e.microbatch_size * m.seq_size);
  if ((rs_ag || pp_rs_ag) && (e.microbatch_size * m.seq_size) % t != 0)
    throw std::invalid_argument(
        fmt::format("microbatch × seq_size = {} does not split over tensor_par {}",
                    e.microbatch_size * m.seq_size, t));
  const double act = batch_seq * static_cast<double>(m.hidden);
  const double act_sp = act / static_cast<double>(t);
  const double act_ln = rs_ag ? act_sp : act; // LayerNorm, dropout, residual under seq. par.
  const double h = static_cast<double>(m.hidden), ff = static_cast<double>(m.feedforward);
  const double heads = static_cast<double>(m.attn_heads), asz = static_cast<double>(m.attn_size);
  const double seq = static_cast<double>(m.seq_size);
  const double tt = static_cast<double>(t);
  const int peers = static_cast<int>(t);

  const bool full = e.activation_recompute == "full";
  const bool attn = full || e.activation_recompute == "attn_only";
  const bool attn_ag = attn || e.seq_par_ag_redo;
  const bool mlp_ag = full || e.seq_par_ag_redo;

  std::vector<Layer> layers;
  std::vector<TpComm> comms;
  // Attention block.
  layers.push_back(fork("AttnBlock_Fork", act_ln, 2, b, full));
  layers.push_back(layer_norm("AttnBlock_LayerNorm", act_ln, h, b, full));
  layers.push_back(tp_comm("AttnBlock_F", act, peers, rs_ag, false, b));
  comms.push_back({"AttnBlock_F", false, attn_ag});
  layers.push_back(fork("AttnBlock_Multihead_Fork", act, 3, b, attn_ag));
  const double qkv = heads * asz / tt;
  const double kv = e.attention_type == "multihead" ? qkv : asz;
  layers.push_back(linear("AttnBlock_Query", batch_seq, h, qkv, b, full));
  layers.push_back(linear("AttnBlock_Key", batch_seq, h, kv, b, full));
  layers.push_back(linear("AttnBlock_Value", batch_seq, h, kv, b, full));
  const double bmm_batch = static_cast<double>(e.microbatch_size * (m.attn_heads / t));
  layers.push_back(
      batch_matmul("AttnBlock_Multihead_Key_Query", bmm_batch, seq, asz, seq, b, attn));
  const double scores =
      static_cast<double>(m.attn_heads / t) * seq * seq * static_cast<double>(e.microbatch_size);
  layers.push_back(pointwise("AttnBlock_Multihead_SoftMax", scores, b, 0, attn));
  layers.push_back(pointwise("AttnBlock_Multihead_DropOut", scores, b, scores, attn));
  layers.push_back(batch_matmul("AttnBlock_Multihead_Attn", bmm_batch, seq, seq, asz, b, full));
  layers.push_back(linear("AttnBlock_MLP", batch_seq, qkv, h, b, full));
  layers.push_back(tp_comm("AttnBlock_G", act, peers, rs_ag, true, b));
  comms.push_back({"AttnBlock_G", true, full});
  layers.push_back(pointwise("AttnBlock_DropOut", act_ln, b, act_ln, full));
  layers.push_back(residual("AttnBlock_Residual", act_ln, b, full));
  // MLP block.
  layers.push_back(fork("MlpBlock_Fork", act_ln, 2, b, full));
  layers.push_back(layer_norm("MlpBlock_LayerNorm", act_ln, h, b, full));
  layers.push_back(tp_comm("MlpBlock_F", act, peers, rs_ag, false, b));
  comms.push_back({"MlpBlock_F", false, mlp_ag});
  layers.push_back(linear("MlpBlock_Mlp1", batch_seq, h, ff / tt, b, full));
  {
    // A fused GeLU keeps no activation of its own, but still reads and writes one.
    layers.push_back(pointwise("MlpBlock_GeLU", ff * batch_seq / tt, b, 0, full));
  }
  layers.push_back(linear("MlpBlock_Mlp2", batch_seq, ff / tt, h, b, full));
  layers.push_back(tp_comm("MlpBlock_G", act, peers, rs_ag, true, b));
  comms.push_back({"MlpBlock_G", true, full});
  layers.push_back(pointwise("MlpBlock_DropOut", act_ln, b, act_ln, full));
  layers.push_back(residual("MlpBlock_Residual", act_ln, b, full));

  // Blocks this processor runs, and how they split into chunks (one edge block per chunk).
  std::int64_t blocks = m.num_blocks / e.pipeline_par;
  if (m.num_blocks % e.pipeline_par != 0)
    ++blocks;
  if (blocks % e.pipeline_interleaving != 0)
    throw std::invalid_argument(
        fmt::format("pipeline_interleaving {} does not divide the {} blocks per processor",
                    e.pipeline_interleaving, blocks));
  const std::int64_t microbatches = e.batch_size / e.data_par / e.microbatch_size;
  const std::int64_t chunks = e.pipeline_interleaving;
  const std::int64_t per_chunk = blocks / chunks;
  const double block_runs = static_cast<double>(blocks * microbatches);
  const double base_runs = static_cast<double>((per_chunk - 1) * chunks * microbatches);
  const double edge_runs = static_cast<double>(chunks * microbatches);
  const double shard = e.optimizer_sharding ? static_cast<double>(e.data_par) : 1.0;

  const auto use = [&](std::string target, double x, double calls, std::string what) {
    if (x > 0 && calls > 0)
      out.uses.push_back({std::move(target), x, calls, -1, "", 0, std::move(what)});
  };
  double weight_elems = 0, optimizer_bytes = 0;
  for (const auto &l : layers) {
    weight_elems += l.weight;
    // Adam: fp32 master weights (below 4 bytes per element) and two moments.
    optimizer_bytes += ((b < 4 ? l.weight * 4 : 0) + l.optim_space * 4) / shard;
    const double runs_fw = block_runs * (e.training && l.recompute ? 2 : 1);
    if (l.matrix)
      use("matrix", l.fw_flops, runs_fw, l.name + " fw");
    use("mem1", l.fw_mem, runs_fw, l.name + " fw");
    if (!e.training)
      continue;
    if (l.matrix) {
      use("matrix", l.agrad_flops, block_runs, l.name + " agrad");
      use("matrix", l.wgrad_flops, block_runs, l.name + " wgrad");
    }
    use("mem1", l.agrad_mem, block_runs, l.name + " agrad");
    use("mem1", l.wgrad_mem, block_runs, l.name + " wgrad");
    if (l.weight > 0)
      use("mem1", ((b < 4 ? l.weight * 4 : 0) + l.optim_space * 4) / shard,
          static_cast<double>(blocks), l.name + " optimizer step");
  }
  const auto net = [&](int tier, std::string op, double bytes, int n, double calls,
                       std::string what) {
    if (bytes > 0 && calls > 0)
      out.uses.push_back({"network", bytes, calls, tier, std::move(op), n, std::move(what)});
  };
  // Tensor parallelism: f is the identity forward and all_reduce backward, g the reverse; with
  // sequence parallelism f all_gathers forward and reduce_scatters backward, g the reverse.
  // p2p_rs_ag splits only in a chunk's edge block.
  if (t > 1)
    for (const auto &c : comms)
      for (const bool base : {true, false}) {
        const double runs = base ? base_runs : edge_runs;
        const bool split = rs_ag || (e.tensor_par_comm_type == "p2p_rs_ag" && !base);
        const std::string fw = split ? (c.conjugate ? "reduce_scatter" : "all_gather")
                                     : (c.conjugate ? "all_reduce" : "");
        const std::string bw = split ? (c.conjugate ? "all_gather" : "reduce_scatter")
                                     : (c.conjugate ? "" : "all_reduce");
        const std::string where = fmt::format("TP {} ({} block)", c.name, base ? "base" : "edge");
        if (!fw.empty())
          net(e.tensor_par_net, fw, act * b, peers, runs, where + " fw");
        if (e.training && !bw.empty())
          net(e.tensor_par_net, bw, act * b, peers, runs, where + " bw");
        // Communicated again in the recompute pass: the forward's op.
        if (e.training && c.recomm && (split || c.conjugate) && !fw.empty())
          net(e.tensor_par_net, fw, act * b, peers, runs, where + " recompute");
      }
  if (e.pipeline_par > 1)
    net(e.pipeline_par_net, "p2p", (pp_rs_ag ? act_sp : act) * b, 2,
        static_cast<double>(microbatches * chunks * (e.training ? 2 : 1)), "PP activations");
  const double weight_bytes = weight_elems * b;
  if (e.data_par > 1 && e.training) {
    const int d = static_cast<int>(e.data_par);
    if (e.optimizer_sharding) {
      net(e.data_par_net, "reduce_scatter", weight_bytes, d, static_cast<double>(blocks),
          "DP block gradients");
      net(e.data_par_net, "all_gather", weight_bytes, d, static_cast<double>(blocks),
          "DP block weights");
    } else {
      net(e.data_par_net, "all_reduce", weight_bytes, d, static_cast<double>(blocks),
          "DP block gradients");
    }
  }
  // Offload through mem2, once per block and microbatch each way.
  const double checkpoint = e.training && full ? act * b : 0;
  if (e.activations_offload && !full)
    out.notes.push_back("activations offload without full recompute moves the block's stored "
                        "activations, whose size is not modelled here: left out of mem2");
  const double act_off = e.activations_offload ? checkpoint : 0;
  use("mem2", std::max(e.weight_offload ? weight_bytes : 0.0, act_off), block_runs, "offload fw");
  if (e.training)
    use("mem2",
        (e.weight_offload ? weight_bytes : 0.0) + act_off +
            (e.optimizer_offload ? optimizer_bytes : 0.0),
        block_runs, "offload bw");
  return out;
}

} // namespace railgauge::calibrate
