#pragma once
// Every GEMM of one Megatron transformer block on one GPU under tensor parallelism of degree t,
// for the forward pass, the data gradient (dgrad) and the weight gradient (wgrad):
// the Megatron-LM block GEMM table (Narayanan et al. 2021; Calculon, calculon-ai/calculon),
// extended to GQA and SwiGLU (docs/gemm.md).
//
// Notation: row-major C[M×N] = A[M×K]·B[K×N], repeated `batch` times (strided batched for the
// attention BMMs). Tokens T = s·b (sequence parallelism all-gathers back to s·b first);
// d = h/heads; per rank: q heads a_t = heads/t, kv heads g_t (below), FFN columns f_t = ffn/t.
//
//   layer      pass   (M, N, K)                                 batch
//   qkv        fwd    (T, (a_t + 2·g_t)·d, h)                   1      column-parallel, fused
//              dgrad  (T, h, (a_t + 2·g_t)·d)
//              wgrad  (h, (a_t + 2·g_t)·d, T)
//   scores     fwd    S = Q·Kᵀ        (s, s, d)                 b·a_t
//              dgrad  dQ = dS·K       (s, d, s)  and  dK = dSᵀ·Q (s, d, s)
//   context    fwd    O = P·V         (s, d, s)                 b·a_t
//              dgrad  dP = dO·Vᵀ      (s, s, d)  and  dV = Pᵀ·dO (s, d, s)
//   out_proj   fwd    (T, h, a_t·d)                             1      row-parallel
//              dgrad  (T, a_t·d, h)
//              wgrad  (a_t·d, h, T)
//   mlp_up     fwd    (T, u·f_t, h)   u = 2 for SwiGLU (gate and up fused), else 1
//              dgrad  (T, h, u·f_t)
//              wgrad  (h, u·f_t, T)
//   mlp_down   fwd    (T, h, f_t)
//              dgrad  (T, f_t, h)
//              wgrad  (f_t, h, T)
//
// The attention BMMs have no weights, hence no wgrad, and two dgrad GEMMs each (Calculon counts
// a BMM's dgrad as 2× its forward FLOPs). Without GQA (kv_heads = heads) the QKV N is 3h/t.
//
// GQA under t > kv_heads: Megatron-core requires kv_heads % t == 0; inference engines (vLLM,
// TensorRT-LLM) replicate each kv head over t/kv_heads ranks instead. We follow the
// replication, so g_t = max(1, kv_heads/t) and the point still exists: t must then be a multiple
// of kv_heads. tp_split_problem() says when a t does not divide the model.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gemm/dtype.h"
#include "gemm/layout.h"
#include "gemm/model_presets.h"

namespace railgauge::gemm {

struct GemmShape {
  std::int64_t m = 0, n = 0, k = 0;
  std::int64_t batch = 1; // independent GEMMs of this shape (strided batched)
  bool operator==(const GemmShape &) const = default;
};

// THE FLOP accounting of every GEMM benchmark: 2·M·N·K·batch (one multiply and one add per
// term; no FLOPs for alpha/beta scaling). TFLOP/s = this / time / 1e12.
double gemm_flops(const GemmShape &shape);

// THE byte accounting: every operand touched once, batch·(M·K·a + K·N·b + M·N·c) bytes with
// the dtype's element sizes (fp8: 1-byte A and B, 2-byte C). C is counted once, as written
// (beta = 0: C is not read). This is the minimum traffic, Calculon's "mem accessed".
double gemm_bytes(const GemmShape &shape, const DtypeBytes &bytes);

enum class Layer { qkv, scores, context, out_proj, mlp_up, mlp_down };
enum class Pass { fwd, dgrad, wgrad };

std::string_view to_string(Layer layer);
std::string_view to_string(Pass pass);
std::optional<Layer> parse_layer(std::string_view text);
std::optional<Pass> parse_pass(std::string_view text);
std::vector<std::string> layer_names();
std::vector<std::string> pass_names();
bool is_attention_bmm(Layer layer);

struct TransformerGemm {
  std::string model;
  Layer layer = Layer::qkv;
  Pass pass = Pass::fwd;
  std::string operand; // which of a BMM's two dgrad GEMMs: "dq", "dk", "dp", "dv"; else ""
  int tp = 1;
  GemmShape shape;
  Layout layout = Layout::nt; // the one training runs it in (training_layout())

  // "qkv.fwd", "scores.dgrad" (the op a record names; both dgrad GEMMs of a BMM share it)
  std::string op() const;
};

// The layout (layout.h) a framework runs this GEMM in (Megatron-LM's cuBLAS calls; the
// attention BMMs as torch's autograd of bmm computes them):
//   linear layers  fwd nt (X·Wᵀ, W [out × in]), dgrad nn (dY·W), wgrad tn (Xᵀ·dY: the wgrad
//                  table's M = in, N = out, K = T, both operands stored [T × features])
//   scores         fwd nt (Q·Kᵀ), dgrad dq nn (dS·K), dk tn (dSᵀ·Q)
//   context        fwd nn (P·V), dgrad dp nt (dO·Vᵀ), dv tn (Pᵀ·dO)
// fp8 differs: layout_for_dtype().
Layout training_layout(Layer layer, Pass pass, std::string_view operand);

// Why `model` cannot be split over `tp` GPUs (tp < 1, heads, kv heads or ffn not divisible),
// or nullopt.
std::optional<std::string> tp_split_problem(const ModelShape &model, int tp);

// Every GEMM of one block for `tp`, in the order of the table above. Throws InputError with
// tp_split_problem()'s reason when `tp` does not divide the model.
std::vector<TransformerGemm> transformer_gemms(const ModelShape &model, int tp);

// The GEMMs of one (layer, pass): one GEMM, two for a BMM's dgrad, none for a BMM's wgrad.
std::vector<TransformerGemm> transformer_gemms(const ModelShape &model, int tp, Layer layer,
                                               Pass pass);

// 1, 2, 4, ..., 64
std::vector<int> tp_degrees();

} // namespace railgauge::gemm
