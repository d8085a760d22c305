#include "gemm/transformer_shapes.h"

#include <algorithm>

#include <fmt/format.h>

#include "harness/enum_names.h"
#include "harness/error.h"
#include "harness/waiver.h"
#include "records/gemm_record.h"

namespace railgauge::gemm {
namespace {

constexpr Layer kLayers[] = {Layer::qkv,      Layer::scores, Layer::context,
                             Layer::out_proj, Layer::mlp_up, Layer::mlp_down};
constexpr Pass kPasses[] = {Pass::fwd, Pass::dgrad, Pass::wgrad};
static_assert(std::size(kLayers) == record::kLayerNames.size() &&
              std::size(kPasses) == record::kPassNames.size());
constexpr int kMaxTp = 64;

// A linear layer with per-rank weight [in × out]: fwd (T, out, in), dgrad (T, in, out),
// wgrad (in, out, T).
GemmShape linear(Pass pass, std::int64_t tokens, std::int64_t in, std::int64_t out) {
  switch (pass) {
  case Pass::fwd:
    return {tokens, out, in, 1};
  case Pass::dgrad:
    return {tokens, in, out, 1};
  case Pass::wgrad:
    return {in, out, tokens, 1};
  }
  return {};
}

} // namespace

double gemm_flops(const GemmShape &s) {
  return 2.0 * static_cast<double>(s.m) * static_cast<double>(s.n) * static_cast<double>(s.k) *
         static_cast<double>(s.batch);
}

double gemm_bytes(const GemmShape &s, const DtypeBytes &b) {
  const auto m = static_cast<double>(s.m), n = static_cast<double>(s.n),
             k = static_cast<double>(s.k);
  return static_cast<double>(s.batch) * (m * k * b.a + k * n * b.b + m * n * b.c);
}

// The names are the record contract's, in the enums' order (block order).
std::string_view to_string(Layer layer) {
  return record::kLayerNames.at(static_cast<std::size_t>(layer));
}

std::string_view to_string(Pass pass) {
  return record::kPassNames.at(static_cast<std::size_t>(pass));
}

std::optional<Layer> parse_layer(std::string_view text) { return value_named(text, kLayers); }

std::optional<Pass> parse_pass(std::string_view text) { return value_named(text, kPasses); }

std::vector<std::string> layer_names() { return names_of(kLayers); }

std::vector<std::string> pass_names() { return names_of(kPasses); }

bool is_attention_bmm(Layer layer) { return layer == Layer::scores || layer == Layer::context; }

std::string TransformerGemm::op() const {
  return fmt::format("{}.{}", to_string(layer), to_string(pass));
}

std::optional<std::string> tp_split_problem(const ModelShape &m, int tp) {
  if (tp < 1)
    return fmt::format("tp = {} is not a positive TP degree", tp);
  if (m.heads % tp != 0)
    return fmt::format("tp = {} does not divide {}'s {} attention heads: Megatron gives every "
                       "rank the same number of heads",
                       tp, m.name, m.heads);
  if (m.ffn % tp != 0)
    return fmt::format("tp = {} does not divide {}'s ffn = {}", tp, m.name, m.ffn);
  // kv heads: split when t divides them, replicated (t/kv ranks per kv head) when t is a
  // multiple of them; anything else would give ranks unequal kv heads.
  if (tp <= m.kv_heads ? m.kv_heads % tp != 0 : tp % m.kv_heads != 0)
    return fmt::format("tp = {} neither divides nor is a multiple of {}'s {} kv heads", tp, m.name,
                       m.kv_heads);
  return std::nullopt;
}

Layout training_layout(Layer layer, Pass pass, std::string_view operand) {
  switch (layer) {
  case Layer::scores: // S = Q·Kᵀ; dQ = dS·K; dK = dSᵀ·Q
    return pass == Pass::fwd ? Layout::nt : operand == "dk" ? Layout::tn : Layout::nn;
  case Layer::context: // O = P·V; dP = dO·Vᵀ; dV = Pᵀ·dO
    return pass == Pass::fwd ? Layout::nn : operand == "dv" ? Layout::tn : Layout::nt;
  default: // a linear layer: Y = X·Wᵀ; dX = dY·W; dWᵀ = Xᵀ·dY (activations [tokens × features])
    return pass == Pass::fwd ? Layout::nt : pass == Pass::dgrad ? Layout::nn : Layout::tn;
  }
}

std::vector<TransformerGemm> transformer_gemms(const ModelShape &m, int tp) {
  if (auto why = tp_split_problem(m, tp))
    throw InputError(not_applicable(*why), fmt::format("model={} tp={}", m.name, tp),
                     "pick a TP degree that divides the heads, kv heads and ffn");
  const std::int64_t t = tp, h = m.hidden, d = m.head_dim(), s = m.seq, tokens = m.tokens();
  const std::int64_t q_heads = m.heads / t;
  const std::int64_t kv_heads = std::max<std::int64_t>(1, m.kv_heads / t); // replicated if t > kv
  const std::int64_t qkv_out = (q_heads + 2 * kv_heads) * d;
  const std::int64_t attn_out = q_heads * d;
  const std::int64_t ffn_t = m.ffn / t;
  const std::int64_t up_out = (m.swiglu ? 2 : 1) * ffn_t;
  const std::int64_t bmm_batch = m.micro_batch * q_heads;

  std::vector<TransformerGemm> out;
  const auto add = [&](Layer layer, Pass pass, GemmShape shape, std::string operand = "") {
    const Layout layout = training_layout(layer, pass, operand);
    out.push_back({m.name, layer, pass, std::move(operand), tp, shape, layout});
  };
  for (Pass p : kPasses)
    add(Layer::qkv, p, linear(p, tokens, h, qkv_out));
  add(Layer::scores, Pass::fwd, {s, s, d, bmm_batch});
  add(Layer::scores, Pass::dgrad, {s, d, s, bmm_batch}, "dq");
  add(Layer::scores, Pass::dgrad, {s, d, s, bmm_batch}, "dk");
  add(Layer::context, Pass::fwd, {s, d, s, bmm_batch});
  add(Layer::context, Pass::dgrad, {s, s, d, bmm_batch}, "dp");
  add(Layer::context, Pass::dgrad, {s, d, s, bmm_batch}, "dv");
  for (Pass p : kPasses)
    add(Layer::out_proj, p, linear(p, tokens, attn_out, h));
  for (Pass p : kPasses)
    add(Layer::mlp_up, p, linear(p, tokens, h, up_out));
  for (Pass p : kPasses)
    add(Layer::mlp_down, p, linear(p, tokens, ffn_t, h));
  return out;
}

std::vector<TransformerGemm> transformer_gemms(const ModelShape &m, int tp, Layer layer,
                                               Pass pass) {
  std::vector<TransformerGemm> out;
  for (auto &g : transformer_gemms(m, tp))
    if (g.layer == layer && g.pass == pass)
      out.push_back(std::move(g));
  return out;
}

std::vector<int> tp_degrees() {
  std::vector<int> t;
  for (int v = 1; v <= kMaxTp; v *= 2)
    t.push_back(v);
  return t;
}

} // namespace railgauge::gemm
