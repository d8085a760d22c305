// Transformer GEMM shapes under TP against calculon.md §4's worked tables, the FLOP and byte
// accounting, GQA/SwiGLU, and the model presets.
#include <cmath>
#include <map>

#include <gtest/gtest.h>

#include "gemm/dtype.h"
#include "gemm/model_presets.h"
#include "gemm/transformer_shapes.h"
#include "harness/error.h"

namespace railgauge::gemm {
namespace {

ModelShape preset(const std::string &name) { return resolve_model(name, {}, "test"); }

GemmShape shape_of(const ModelShape &m, int tp, Layer layer, Pass pass, std::size_t i = 0) {
  const auto g = transformer_gemms(m, tp, layer, pass);
  EXPECT_GT(g.size(), i);
  return g.at(i).shape;
}

double gflop(const ModelShape &m, int tp, Layer layer, Pass pass = Pass::fwd) {
  double f = 0;
  for (const auto &g : transformer_gemms(m, tp, layer, pass))
    f += gemm_flops(g.shape);
  return f / 1e9;
}

TEST(TransformerShapes, Gpt3QkvAtTp8MatchesCalculon) {
  const auto m = preset("gpt3-175b");
  EXPECT_EQ(shape_of(m, 8, Layer::qkv, Pass::fwd), (GemmShape{2048, 4608, 12288, 1}));
  EXPECT_EQ(shape_of(m, 8, Layer::qkv, Pass::dgrad), (GemmShape{2048, 12288, 4608, 1}));
  EXPECT_EQ(shape_of(m, 8, Layer::qkv, Pass::wgrad), (GemmShape{12288, 4608, 2048, 1}));
}

// calculon.md §4's first table, every row and pass, for GPT-3 and Megatron-1T at t = 1..32.
TEST(TransformerShapes, EveryGemmOfTheCalculonTable) {
  for (const std::string name : {"gpt3-175b", "megatron-1t"}) {
    const auto m = preset(name);
    const std::int64_t sb = 2048, h = m.hidden, d = m.head_dim(), s = 2048;
    for (int t = 1; t <= 32; t *= 2) {
      SCOPED_TRACE(name + " t=" + std::to_string(t));
      const std::int64_t a_t = m.heads / t;
      const std::map<std::pair<Layer, Pass>, std::vector<GemmShape>> expect = {
          {{Layer::qkv, Pass::fwd}, {{sb, 3 * h / t, h, 1}}},
          {{Layer::qkv, Pass::dgrad}, {{sb, h, 3 * h / t, 1}}},
          {{Layer::qkv, Pass::wgrad}, {{h, 3 * h / t, sb, 1}}},
          {{Layer::scores, Pass::fwd}, {{s, s, d, a_t}}},
          {{Layer::scores, Pass::dgrad}, {{s, d, s, a_t}, {s, d, s, a_t}}},
          {{Layer::context, Pass::fwd}, {{s, d, s, a_t}}},
          {{Layer::context, Pass::dgrad}, {{s, s, d, a_t}, {s, d, s, a_t}}},
          {{Layer::out_proj, Pass::fwd}, {{sb, h, h / t, 1}}},
          {{Layer::out_proj, Pass::dgrad}, {{sb, h / t, h, 1}}},
          {{Layer::out_proj, Pass::wgrad}, {{h / t, h, sb, 1}}},
          {{Layer::mlp_up, Pass::fwd}, {{sb, 4 * h / t, h, 1}}},
          {{Layer::mlp_up, Pass::dgrad}, {{sb, h, 4 * h / t, 1}}},
          {{Layer::mlp_up, Pass::wgrad}, {{h, 4 * h / t, sb, 1}}},
          {{Layer::mlp_down, Pass::fwd}, {{sb, h, 4 * h / t, 1}}},
          {{Layer::mlp_down, Pass::dgrad}, {{sb, 4 * h / t, h, 1}}},
          {{Layer::mlp_down, Pass::wgrad}, {{4 * h / t, h, sb, 1}}},
      };
      const auto all = transformer_gemms(m, t);
      EXPECT_EQ(all.size(), 18u); // 4 linear × 3 passes + 2 BMM fwd + 2 × 2 BMM dgrad
      std::map<std::pair<Layer, Pass>, std::vector<GemmShape>> got;
      for (const auto &g : all) {
        EXPECT_EQ(g.tp, t);
        EXPECT_EQ(g.model, name);
        got[{g.layer, g.pass}].push_back(g.shape);
      }
      EXPECT_EQ(got, expect);
    }
  }
}

// The GF columns, to the precision calculon.md prints them (whole GF, 0.1 GF for the BMMs).
TEST(TransformerShapes, GflopColumnsMatchCalculon) {
  struct Row {
    int t;
    double qkv, proj, up, scores;
  };
  const std::vector<Row> gpt3 = {{1, 1855, 618, 2474, 103.1}, {2, 928, 309, 1237, 51.5},
                                 {4, 464, 155, 618, 25.8},    {8, 232, 77, 309, 12.9},
                                 {16, 116, 39, 155, 6.4},     {32, 58, 19, 77, 3.2}};
  const std::vector<Row> t1 = {{1, 8053, 2684, 10737, 214.7}, {2, 4027, 1342, 5369, 107.4},
                               {4, 2013, 671, 2684, 53.7},    {8, 1007, 336, 1342, 26.8},
                               {16, 503, 168, 671, 13.4},     {32, 252, 84, 336, 6.7}};
  for (const auto &[name, rows] : {std::pair{"gpt3-175b", gpt3}, {"megatron-1t", t1}}) {
    const auto m = preset(name);
    for (const auto &r : rows) {
      SCOPED_TRACE(std::string(name) + " t=" + std::to_string(r.t));
      EXPECT_EQ(std::round(gflop(m, r.t, Layer::qkv)), r.qkv);
      EXPECT_EQ(std::round(gflop(m, r.t, Layer::out_proj)), r.proj);
      EXPECT_EQ(std::round(gflop(m, r.t, Layer::mlp_up)), r.up);
      EXPECT_EQ(std::round(gflop(m, r.t, Layer::mlp_down)), r.up); // up = down
      EXPECT_DOUBLE_EQ(std::round(10 * gflop(m, r.t, Layer::scores)) / 10, r.scores);
      EXPECT_DOUBLE_EQ(std::round(10 * gflop(m, r.t, Layer::context)) / 10, r.scores);
      // dgrad and wgrad cost the forward's FLOPs; a BMM's dgrad (two GEMMs) twice them.
      for (Layer l : {Layer::qkv, Layer::out_proj, Layer::mlp_up, Layer::mlp_down}) {
        EXPECT_DOUBLE_EQ(gflop(m, r.t, l, Pass::dgrad), gflop(m, r.t, l));
        EXPECT_DOUBLE_EQ(gflop(m, r.t, l, Pass::wgrad), gflop(m, r.t, l));
      }
      for (Layer l : {Layer::scores, Layer::context}) {
        EXPECT_DOUBLE_EQ(gflop(m, r.t, l, Pass::dgrad), 2 * gflop(m, r.t, l));
        EXPECT_TRUE(transformer_gemms(m, r.t, l, Pass::wgrad).empty());
      }
    }
  }
}

TEST(TransformerShapes, FlopAndByteAccounting) {
  EXPECT_DOUBLE_EQ(gemm_flops({2, 3, 5, 7}), 2.0 * 2 * 3 * 5 * 7);
  // calculon.md's check: GPT-3 t=8 Query alone (N = h/t) touches 94.4 MB in 16-bit.
  const double query_bytes = gemm_bytes({2048, 1536, 12288, 1}, dtype_bytes(Dtype::bf16));
  EXPECT_NEAR(query_bytes / 1e6, 94.4, 0.05);
  EXPECT_NEAR(gemm_flops({2048, 1536, 12288, 1}) / 1e9, 77.3, 0.05);
  // fp8: 1-byte A and B, 2-byte C; batch multiplies everything.
  EXPECT_DOUBLE_EQ(gemm_bytes({4, 8, 16, 3}, dtype_bytes(Dtype::fp8_e4m3)),
                   3.0 * (4 * 16 + 16 * 8 + 2 * 4 * 8));
  EXPECT_DOUBLE_EQ(gemm_bytes({4, 8, 16, 1}, dtype_bytes(Dtype::fp64)),
                   8.0 * (4 * 16 + 16 * 8 + 4 * 8));
}

TEST(TransformerShapes, Llama70bGqaAndSwiglu) {
  const auto m = preset("llama3-70b");
  const std::int64_t T = 8192, h = 8192;
  // t = 8: one kv head per rank; N = (h + 2·kv·d)/t = (8192 + 2048)/8.
  EXPECT_EQ(shape_of(m, 8, Layer::qkv, Pass::fwd), (GemmShape{T, 1280, h, 1}));
  EXPECT_EQ(shape_of(m, 8, Layer::mlp_up, Pass::fwd), (GemmShape{T, 2 * 28672 / 8, h, 1}));
  EXPECT_EQ(shape_of(m, 8, Layer::mlp_down, Pass::fwd), (GemmShape{T, h, 28672 / 8, 1}));
  EXPECT_EQ(shape_of(m, 8, Layer::mlp_down, Pass::wgrad), (GemmShape{28672 / 8, h, T, 1}));
  EXPECT_EQ(shape_of(m, 8, Layer::out_proj, Pass::fwd), (GemmShape{T, h, h / 8, 1}));
  EXPECT_EQ(shape_of(m, 8, Layer::scores, Pass::fwd), (GemmShape{8192, 8192, 128, 64 / 8}));
  EXPECT_EQ(shape_of(m, 1, Layer::qkv, Pass::fwd), (GemmShape{T, h + 2 * 8 * 128, h, 1}));
  // t = 16 > 8 kv heads: each kv head is replicated on 2 ranks, so a rank holds 4 q heads and
  // 1 kv head: N = (4 + 2)·128, not (h + 2·kv·d)/16 = 640.
  EXPECT_EQ(shape_of(m, 16, Layer::qkv, Pass::fwd), (GemmShape{T, 768, h, 1}));
  EXPECT_EQ(shape_of(m, 64, Layer::qkv, Pass::fwd), (GemmShape{T, 3 * 128, h, 1}));
  const auto big = preset("llama3-405b");
  EXPECT_EQ(shape_of(big, 8, Layer::qkv, Pass::fwd), (GemmShape{8192, (16 + 2) * 128, 16384, 1}));
  EXPECT_EQ(shape_of(big, 8, Layer::mlp_up, Pass::fwd), (GemmShape{8192, 13312, 16384, 1}));
}

TEST(TransformerShapes, TpThatDoesNotSplitTheModelIsAnInputError) {
  const auto gpt3 = preset("gpt3-175b");
  const auto why = tp_split_problem(gpt3, 64);
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("96 attention heads"), std::string::npos) << *why;
  EXPECT_THROW(transformer_gemms(gpt3, 64), InputError);
  EXPECT_FALSE(tp_split_problem(gpt3, 32));
  EXPECT_TRUE(tp_split_problem(gpt3, 0));
  // kv heads neither divided by nor dividing t.
  const auto odd = resolve_model(
      "custom",
      {.hidden = 4800, .heads = 48, .kv_heads = 12, .ffn = 0, .seq = 128, .micro_batch = 0},
      "test");
  const auto kv = tp_split_problem(odd, 8);
  ASSERT_TRUE(kv);
  EXPECT_NE(kv->find("12 kv heads"), std::string::npos) << *kv;
  EXPECT_FALSE(tp_split_problem(odd, 4));
  EXPECT_FALSE(tp_split_problem(odd, 24)); // replicated: 2 ranks per kv head
  EXPECT_EQ(tp_degrees(), (std::vector<int>{1, 2, 4, 8, 16, 32, 64}));
}

TEST(ModelPresets, PresetsAreTheirPublishedShapes) {
  EXPECT_EQ(preset("gpt3-175b"), (ModelShape{"gpt3-175b", 12288, 96, 96, 49152, 2048, 1, false}));
  EXPECT_EQ(preset("megatron-1t"),
            (ModelShape{"megatron-1t", 25600, 160, 160, 102400, 2048, 1, false}));
  EXPECT_EQ(preset("llama3-70b"), (ModelShape{"llama3-70b", 8192, 64, 8, 28672, 8192, 1, true}));
  EXPECT_EQ(preset("llama3-405b"),
            (ModelShape{"llama3-405b", 16384, 128, 8, 53248, 8192, 1, true}));
  EXPECT_EQ(preset("gpt3-175b").head_dim(), 128);
  EXPECT_EQ(preset("megatron-1t").head_dim(), 160);
  for (const auto &m : model_presets())
    EXPECT_NO_THROW(validate_model(m, "test")) << m.name;
  EXPECT_EQ(model_names().back(), "custom");
}

TEST(ModelPresets, OverridesAndCustomModels) {
  const auto m = resolve_model("gpt3-175b", {.seq = 4096, .micro_batch = 2}, "test");
  EXPECT_EQ(m.seq, 4096);
  EXPECT_EQ(m.tokens(), 8192);
  EXPECT_EQ(m.hidden, 12288);
  const auto c = resolve_model("custom", {.hidden = 4096, .heads = 32, .seq = 1024}, "test");
  EXPECT_EQ(c.kv_heads, 32);
  EXPECT_EQ(c.ffn, 4 * 4096);
  EXPECT_EQ(c.micro_batch, 1);
  EXPECT_FALSE(c.swiglu);
  const auto g = resolve_model(
      "custom",
      {.hidden = 4096, .heads = 32, .kv_heads = 8, .ffn = 14336, .seq = 1024, .swiglu = 1}, "test");
  EXPECT_TRUE(g.swiglu);
  EXPECT_EQ(shape_of(g, 1, Layer::mlp_up, Pass::fwd), (GemmShape{1024, 2 * 14336, 4096, 1}));
}

TEST(ModelPresets, BadModelsSayWhatToFix) {
  try {
    resolve_model("gpt4", {}, "-a model");
    FAIL();
  } catch (const InputError &e) {
    EXPECT_EQ(e.where(), "-a model");
    EXPECT_NE(e.problem().find("unknown model 'gpt4'"), std::string::npos);
    EXPECT_NE(e.fix().find("gpt3-175b"), std::string::npos);
    EXPECT_NE(e.fix().find("llama3-405b"), std::string::npos);
  }
  EXPECT_THROW(resolve_model("custom", {.hidden = 4096}, "t"), InputError); // no heads, seq
  EXPECT_THROW(resolve_model("custom", {.hidden = 4096, .heads = 30, .seq = 8}, "t"), InputError);
  EXPECT_THROW(resolve_model("llama3-70b", {.kv_heads = 5}, "t"), InputError);
  try {
    resolve_model("gpt3-175b", {.heads = 7}, "t");
    FAIL();
  } catch (const InputError &e) {
    EXPECT_NE(e.problem().find("heads = 7 does not divide hidden = 12288"), std::string::npos)
        << e.what();
  }
  // A negative override is a typo, not "the preset's own": it must not measure the preset.
  try {
    resolve_model("gpt3-175b", {.seq = -3}, "t");
    FAIL();
  } catch (const InputError &e) {
    EXPECT_EQ(e.where(), "seq");
    EXPECT_NE(e.problem().find("seq = -3 is negative"), std::string::npos) << e.what();
  }
  EXPECT_THROW(resolve_model("cpu-small", {.hidden = -5}, "t"), InputError);
  EXPECT_THROW(resolve_model("llama3-70b", {.micro_batch = -1}, "t"), InputError);
  EXPECT_THROW(resolve_model("llama3-70b", {.swiglu = 7}, "t"), InputError);
  EXPECT_NO_THROW(resolve_model("llama3-70b", {.swiglu = 0}, "t"));
}

// The axes' names parse back to their values, in the order the axes list them, and anything
// else is refused: a dtype's error lists every name.
TEST(TransformerShapes, LayerPassAndDtypeNamesParseBackAndOthersAreRefused) {
  EXPECT_EQ(layer_names(), (std::vector<std::string>{"qkv", "scores", "context", "out_proj",
                                                     "mlp_up", "mlp_down"}));
  EXPECT_EQ(pass_names(), (std::vector<std::string>{"fwd", "dgrad", "wgrad"}));
  EXPECT_EQ(parse_layer("mlp_up"), Layer::mlp_up);
  EXPECT_EQ(parse_pass("wgrad"), Pass::wgrad);
  EXPECT_EQ(parse_layer("mlp"), std::nullopt);
  EXPECT_EQ(parse_pass("bwd"), std::nullopt);
  EXPECT_EQ(parse_dtype("fp8_e4m3", "dtype"), Dtype::fp8_e4m3);
  try {
    parse_dtype("fp4", "axis dtype");
    FAIL() << "fp4 parsed";
  } catch (const InputError &e) {
    EXPECT_EQ(e.where(), "axis dtype");
    EXPECT_EQ(e.fix(), "use one of: fp64, fp32, tf32, bf16, fp16, fp8_e4m3");
  }
  EXPECT_EQ(dtype_names({Dtype::bf16, Dtype::tf32}), (std::vector<std::string>{"bf16", "tf32"}));
}

} // namespace
} // namespace railgauge::gemm
