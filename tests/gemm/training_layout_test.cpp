// Each GEMM of a transformer block runs in the layout training runs it in, and that layout,
// mapped onto cuBLASLt's column-major call (lt_call), computes what the pass means: a CPU
// executor of the column-major call, fed the tensors as a framework stores them (activations
// [tokens × features], a linear weight [out × in], Q/K/V and dO [s × d], S/P/dS [s × s]), is
// compared with the pass written out by index, for every layer, pass and operand.
#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "gemm/cuda/cublaslt_plan.h"
#include "gemm/layout.h"
#include "gemm/transformer_shapes.h"
#include "harness/error.h"

namespace railgauge::gemm {
namespace {

using Matrix = std::vector<double>; // row-major

Matrix random_matrix(std::int64_t rows, std::int64_t cols, std::uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_int_distribution<int> pick(-8, 8); // small integers: exact sums
  Matrix m(static_cast<std::size_t>(rows * cols));
  for (auto &x : m)
    x = pick(gen);
  return m;
}

double at(const Matrix &m, std::int64_t cols, std::int64_t r, std::int64_t c) {
  return m[static_cast<std::size_t>(r * cols + c)];
}

// cuBLASLt's D = op(A')·op(B') in column-major storage, as lt_call() describes it, with A' =
// our B's storage and B' = our A's (batch 1); returns our row-major C [M×N].
Matrix run_lt_call(const LtCall &call, const Matrix &our_a, const Matrix &our_b) {
  // Element (r, c) of a column-major matrix with leading dimension ld, after op.
  const auto element = [](const Matrix &m, const LtMatrix &desc, bool transposed, std::int64_t r,
                          std::int64_t c) {
    if (transposed)
      std::swap(r, c);
    EXPECT_LT(r, desc.rows);
    EXPECT_LT(c, desc.cols);
    return m[static_cast<std::size_t>(c * desc.ld + r)];
  };
  Matrix d(static_cast<std::size_t>(call.m * call.n));
  for (std::int64_t i = 0; i < call.m; ++i)
    for (std::int64_t j = 0; j < call.n; ++j) {
      double sum = 0;
      for (std::int64_t k = 0; k < call.k; ++k)
        sum += element(our_b, call.a, call.transpose_a, i, k) *
               element(our_a, call.b, call.transpose_b, k, j);
      d[static_cast<std::size_t>(j * call.c.ld + i)] = sum; // column-major [m'×n'] = our C
    }
  return d;
}

TEST(GemmLayout, EveryLayoutComputesTheRowMajorProductOfItsStorage) {
  const std::int64_t m = 3, n = 5, k = 4;
  const Matrix a = random_matrix(m, k, 1), b = random_matrix(k, n, 2);
  Matrix a_t(a.size()), b_t(b.size()); // Aᵀ [K×M], Bᵀ [N×K]
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t j = 0; j < k; ++j)
      a_t[static_cast<std::size_t>(j * m + i)] = at(a, k, i, j);
  for (std::int64_t i = 0; i < k; ++i)
    for (std::int64_t j = 0; j < n; ++j)
      b_t[static_cast<std::size_t>(j * k + i)] = at(b, n, i, j);
  Matrix want(static_cast<std::size_t>(m * n));
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t j = 0; j < n; ++j)
      for (std::int64_t x = 0; x < k; ++x)
        want[static_cast<std::size_t>(i * n + j)] += at(a, k, i, x) * at(b, n, x, j);
  for (Layout l : {Layout::nt, Layout::nn, Layout::tn}) {
    SCOPED_TRACE(std::string(to_string(l)));
    const LtCall call = lt_call({m, n, k, 1}, l);
    EXPECT_EQ(call.transpose_a, b_transposed(l));
    EXPECT_EQ(call.transpose_b, a_transposed(l));
    EXPECT_EQ(run_lt_call(call, a_transposed(l) ? a_t : a, b_transposed(l) ? b_t : b), want);
  }
}

TEST(GemmLayout, ParseAndFp8Rule) {
  for (Layout l : {Layout::nt, Layout::nn, Layout::tn})
    EXPECT_EQ(parse_layout(to_string(l), "layout"), l);
  EXPECT_THROW(parse_layout("tt", "layout"), InputError);
  EXPECT_THROW(parse_layout("training", "layout"), InputError) << "an axis value, not a layout";
  EXPECT_FALSE(layout_problem(Dtype::fp8_e4m3, Layout::nt).has_value());
  for (Layout l : {Layout::nn, Layout::tn}) {
    const auto why = layout_problem(Dtype::fp8_e4m3, l);
    ASSERT_TRUE(why.has_value());
    EXPECT_NE(why->find("layout=training"), std::string::npos) << *why;
    EXPECT_FALSE(layout_problem(Dtype::bf16, l).has_value());
  }
  // Transformer Engine runs every fp8 GEMM as nt (transposed fp8 copies for the backward).
  for (Layout l : {Layout::nt, Layout::nn, Layout::tn}) {
    EXPECT_EQ(layout_for_dtype(l, Dtype::fp8_e4m3), Layout::nt);
    EXPECT_EQ(layout_for_dtype(l, Dtype::bf16), l);
  }
}

// A small block (T = 6 tokens, h = 8, 2 heads of d = 4 at t = 2, so one head per rank and the
// BMM batch is 1), every GEMM fed the tensors a framework holds, in the GEMM's training layout.
TEST(GemmLayout, EveryPassOfABlockComputesItsGradientInItsTrainingLayout) {
  ModelShape model{"tiny", 8, 2, 2, 12, 6, 1, false};
  const int tp = 2;
  const auto gemms = transformer_gemms(model, tp);
  std::map<std::string, Layout> layouts;
  std::uint32_t seed = 10;
  for (const TransformerGemm &g : gemms) {
    const std::string what = g.op() + (g.operand.empty() ? "" : "." + g.operand);
    SCOPED_TRACE(what);
    layouts[what] = g.layout;
    const GemmShape &s = g.shape;
    ASSERT_EQ(s.batch, 1);
    const bool bmm = is_attention_bmm(g.layer);
    // The tensors, as stored in training. Linear layer (in, out): X [T×in], W [out×in],
    // dY [T×out]. Attention: Q, K, V, dO [s×d]; S's gradient dS and P [s×s].
    Matrix want, a, b;
    // want[i][j] = Σ_x left(i, x)·right(x, j): the pass written out by index.
    const auto product = [&](auto left, auto right, std::int64_t rows, std::int64_t cols,
                             std::int64_t inner) {
      for (std::int64_t i = 0; i < rows; ++i)
        for (std::int64_t j = 0; j < cols; ++j) {
          double sum = 0;
          for (std::int64_t x = 0; x < inner; ++x)
            sum += left(i, x) * right(x, j);
          want.push_back(sum);
        }
    };
    const auto row = [](const Matrix &mm, std::int64_t cols) {
      return [&mm, cols](std::int64_t r, std::int64_t c) { return at(mm, cols, r, c); };
    };
    const auto col = [](const Matrix &mm, std::int64_t cols) { // the transpose
      return [&mm, cols](std::int64_t r, std::int64_t c) { return at(mm, cols, c, r); };
    };
    if (!bmm) {
      const std::int64_t tokens = g.pass == Pass::wgrad ? s.k : s.m;
      const std::int64_t in = g.pass == Pass::fwd ? s.k : g.pass == Pass::dgrad ? s.n : s.m;
      const std::int64_t out = g.pass == Pass::fwd ? s.n : g.pass == Pass::dgrad ? s.k : s.n;
      const Matrix x = random_matrix(tokens, in, seed++), w = random_matrix(out, in, seed++),
                   dy = random_matrix(tokens, out, seed++);
      if (g.pass == Pass::fwd) { // Y = X·Wᵀ [T×out]
        a = x, b = w;
        product(row(x, in), col(w, in), tokens, out, in);
      } else if (g.pass == Pass::dgrad) { // dX = dY·W [T×in]
        a = dy, b = w;
        product(row(dy, out), row(w, in), tokens, in, out);
      } else { // dWᵀ [in×out] = Xᵀ·dY
        a = x, b = dy;
        product(col(x, in), row(dy, out), in, out, tokens);
      }
    } else {
      const std::int64_t seq = model.seq, d = model.head_dim();
      const Matrix q = random_matrix(seq, d, seed++), kk = random_matrix(seq, d, seed++),
                   v = random_matrix(seq, d, seed++), d_o = random_matrix(seq, d, seed++),
                   ds = random_matrix(seq, seq, seed++), p = random_matrix(seq, seq, seed++);
      if (g.layer == Layer::scores && g.pass == Pass::fwd) { // S = Q·Kᵀ
        a = q, b = kk;
        product(row(q, d), col(kk, d), seq, seq, d);
      } else if (g.operand == "dq") { // dQ = dS·K
        a = ds, b = kk;
        product(row(ds, seq), row(kk, d), seq, d, seq);
      } else if (g.operand == "dk") { // dK = dSᵀ·Q
        a = ds, b = q;
        product(col(ds, seq), row(q, d), seq, d, seq);
      } else if (g.layer == Layer::context && g.pass == Pass::fwd) { // O = P·V
        a = p, b = v;
        product(row(p, seq), row(v, d), seq, d, seq);
      } else if (g.operand == "dp") { // dP = dO·Vᵀ
        a = d_o, b = v;
        product(row(d_o, d), col(v, d), seq, seq, d);
      } else { // dv: dV = Pᵀ·dO
        ASSERT_EQ(g.operand, "dv");
        a = p, b = d_o;
        product(col(p, seq), row(d_o, d), seq, d, seq);
      }
    }
    EXPECT_EQ(run_lt_call(lt_call(s, g.layout), a, b), want)
        << "layout " << to_string(g.layout) << ", shape " << s.m << "x" << s.n << "x" << s.k;
  }
  // The table, as a reader of docs/gemm.md would check it.
  const std::map<std::string, Layout> expected = {
      {"qkv.fwd", Layout::nt},          {"qkv.dgrad", Layout::nn},
      {"qkv.wgrad", Layout::tn},        {"scores.fwd", Layout::nt},
      {"scores.dgrad.dq", Layout::nn},  {"scores.dgrad.dk", Layout::tn},
      {"context.fwd", Layout::nn},      {"context.dgrad.dp", Layout::nt},
      {"context.dgrad.dv", Layout::tn}, {"out_proj.fwd", Layout::nt},
      {"out_proj.dgrad", Layout::nn},   {"out_proj.wgrad", Layout::tn},
      {"mlp_up.fwd", Layout::nt},       {"mlp_up.dgrad", Layout::nn},
      {"mlp_up.wgrad", Layout::tn},     {"mlp_down.fwd", Layout::nt},
      {"mlp_down.dgrad", Layout::nn},   {"mlp_down.wgrad", Layout::tn}};
  EXPECT_EQ(layouts, expected);
}

} // namespace
} // namespace railgauge::gemm
