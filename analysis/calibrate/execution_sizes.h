#pragma once
// The sizes Calculon's layer model asks its system for, for one model and one execution (its
// `models/*.json` and `examples/*.json` formats, calculon-ai/calculon), per processor and per
// batch: the FLOPs of each matrix op (the block's Linear and BatchMatMul layers, forward,
// activation and weight gradients, recompute), the bytes of each mem1 access (every layer of the
// block, each stage, and the optimizer step), the bytes of each offload (mem2), and each network
// op's size, peers and tier (tensor-parallel all_reduce or reduce_scatter/all_gather, the
// pipeline's p2p, data-parallel all_reduce or reduce_scatter + all_gather).
//
// The layer shapes and which op runs in which stage follow Calculon's `calculon/llm/llm.py`
// (`_build_attn_block`, `_build_mlp_block`, `_compute_block_stats`, `_compute_batch_stats`) and
// `calculon/llm/layers.py` (the layers' FLOPs and bytes, `TPComm`), caa4b11; the code here is
// written from that description, not taken from it. tensor_par_overlap other than "none"
// (LinearOverlapped's tiles) is not modelled and is refused.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace railgauge::calibrate {

struct CalculonModel {
  std::string name;
  std::int64_t hidden = 0, feedforward = 0, seq_size = 0, attn_heads = 0, attn_size = 0,
               num_blocks = 0;
};

struct CalculonExecution {
  std::string name;
  std::int64_t num_procs = 0, tensor_par = 1, pipeline_par = 1, data_par = 1;
  int tensor_par_net = 0, pipeline_par_net = 0, data_par_net = 0;
  std::int64_t batch_size = 0, microbatch_size = 0, pipeline_interleaving = 1;
  std::string datatype = "float16", attention_type = "multihead", activation_recompute = "none",
              tensor_par_comm_type = "ar", tensor_par_overlap = "none";
  bool fused_activation = false, optimizer_sharding = false, seq_par_ag_redo = false,
       data_par_overlap = false, weight_offload = false, activations_offload = false,
       optimizer_offload = false, training = true;
};

// Throw std::invalid_argument naming the field that is missing or out of range.
CalculonModel parse_calculon_model(const nlohmann::json &j, std::string name);
CalculonExecution parse_calculon_execution(const nlohmann::json &j, std::string name);

// One size the model asks for, and how often per batch.
struct SizeUse {
  std::string target; // "matrix", "mem1", "mem2" or "network"
  double x = 0;       // FLOPs (matrix) or bytes (mem1, mem2, network: Calculon's op size)
  double calls = 0;   // per processor per batch
  int network = -1;   // networks[] index (network only)
  std::string op;     // all_reduce, reduce_scatter, all_gather, p2p (network only)
  int peers = 0;      // group size (network only)
  std::string what;   // "AttnBlock_Query fw", "TP MlpBlock_G fw", "DP", ...
};

struct ExecutionSizes {
  CalculonModel model;
  CalculonExecution execution;
  int bytes_per_element = 2;
  std::vector<SizeUse> uses;
  std::vector<std::string> notes; // what was not modelled
};

ExecutionSizes execution_sizes(const CalculonModel &m, const CalculonExecution &e);

// Calculon's System.TypeSizes; 0 for an unknown datatype.
int calculon_type_size(const std::string &datatype);

} // namespace railgauge::calibrate
