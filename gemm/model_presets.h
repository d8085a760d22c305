#pragma once
// Transformer models by name, for the TP sweep (docs/gemm.md lists the sources):
//   gpt3-175b    h 12288, heads 96,  ffn 4h,    s 2048, b 1        (Brown et al. 2020)
//   megatron-1t  h 25600, heads 160, ffn 4h,    s 2048, b 1        (Calculon models/megatron-1T)
//   llama3-70b   h 8192,  heads 64,  kv 8, ffn 28672 SwiGLU, s 8192  (HF config.json)
//   llama3-405b  h 16384, heads 128, kv 8, ffn 53248 SwiGLU, s 8192  (HF config.json)
//   cpu-small    h 1024,  heads 16,  ffn 4h,    s 1024, b 1        (not a real model: a TP sweep
//                that a laptop CPU finishes in about a minute; the CPU backend's default)
// and `custom`, whose dimensions all come from overrides.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace railgauge::gemm {

struct ModelShape {
  std::string name;
  std::int64_t hidden = 0;      // h
  std::int64_t heads = 0;       // query heads a; head dim d = h / a
  std::int64_t kv_heads = 0;    // key/value heads (GQA); = heads for multi-head attention
  std::int64_t ffn = 0;         // MLP inner size (per gate for SwiGLU)
  std::int64_t seq = 0;         // s, tokens per sequence
  std::int64_t micro_batch = 1; // b, sequences per micro-batch
  bool swiglu = false;          // gated MLP: the up GEMM computes gate and up fused (2·ffn)

  std::int64_t head_dim() const { return heads > 0 ? hidden / heads : 0; }
  std::int64_t tokens() const { return seq * micro_batch; }
  bool operator==(const ModelShape &) const = default;
};

// Values that replace a preset's (0 = keep the preset's; for `custom` hidden, heads and seq are
// required, kv_heads defaults to heads, ffn to 4·hidden, micro_batch to 1). swiglu: -1 keep,
// 0 off, 1 on.
struct ModelOverrides {
  std::int64_t hidden = 0, heads = 0, kv_heads = 0, ffn = 0, seq = 0, micro_batch = 0;
  std::int64_t swiglu = -1; // -1: the model's own
};

inline constexpr std::string_view kCustomModel = "custom";

const std::vector<ModelShape> &model_presets();
std::vector<std::string> model_names(); // every preset, then "custom"

// The preset `name` with `overrides` applied, checked by validate_model(). Throws InputError
// naming `where` for an unknown name (listing the presets) or an inconsistent model.
ModelShape resolve_model(std::string_view name, const ModelOverrides &overrides,
                         const std::string &where);

// Throws InputError naming `where` when a dimension is not positive, heads does not divide
// hidden, or kv_heads does not divide heads.
void validate_model(const ModelShape &model, const std::string &where);

} // namespace railgauge::gemm
