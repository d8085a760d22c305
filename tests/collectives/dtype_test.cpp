#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include <gtest/gtest.h>

#include "collectives/dtype.h"

namespace railgauge::collectives {
namespace {

TEST(DType, NamesRoundTrip) {
  for (const auto &name : dtype_names())
    EXPECT_EQ(to_string(*parse_dtype(name)), name);
  for (const auto &name : redop_names())
    EXPECT_EQ(to_string(*parse_redop(name)), name);
  EXPECT_FALSE(parse_dtype("float16"));
  EXPECT_EQ(element_bytes(DType::bf16), 2u);
  EXPECT_EQ(element_bytes(DType::f64), 8u);
}

TEST(DType, Bf16RoundsToNearestEven) {
  EXPECT_EQ(float_to_bf16(1.0f), 0x3f80);
  EXPECT_EQ(bf16_to_float(0x3f80), 1.0f);
  // 1 + 2^-8 lies halfway between 1 and 1 + 2^-7: ties to even (1.0).
  EXPECT_EQ(float_to_bf16(1.0f + std::ldexp(1.0f, -8)), 0x3f80);
  // 1 + 3 * 2^-8 is halfway between 1 + 2^-7 (odd) and 1 + 2^-6: rounds up to even.
  EXPECT_EQ(float_to_bf16(1.0f + 3 * std::ldexp(1.0f, -8)), 0x3f82);
  EXPECT_TRUE(std::isnan(bf16_to_float(float_to_bf16(std::numeric_limits<float>::quiet_NaN()))));
}

TEST(DType, Fp16ConvertsNormalSubnormalAndOverflow) {
  EXPECT_EQ(float_to_fp16(1.0f), 0x3c00);
  EXPECT_EQ(float_to_fp16(-2.0f), 0xc000);
  EXPECT_EQ(float_to_fp16(65504.0f), 0x7bff);
  EXPECT_EQ(float_to_fp16(65520.0f), 0x7c00); // rounds to infinity
  EXPECT_EQ(float_to_fp16(std::ldexp(1.0f, -24)), 0x0001);
  EXPECT_EQ(fp16_to_float(0x0001), std::ldexp(1.0f, -24));
  EXPECT_EQ(fp16_to_float(0x3555), 0.333251953125f);
  // 1 + 2^-11 is halfway between 1 and the next fp16: ties to even.
  EXPECT_EQ(float_to_fp16(1.0f + std::ldexp(1.0f, -11)), 0x3c00);
  for (std::uint32_t h = 0; h < 0x7c00; ++h) // every finite positive fp16 round-trips
    ASSERT_EQ(float_to_fp16(fp16_to_float(static_cast<std::uint16_t>(h))), h) << h;
}

TEST(DType, ReduceIntoEveryTypeAndOp) {
  for (auto type : {DType::f32, DType::f64, DType::i32, DType::bf16, DType::f16}) {
    std::vector<std::byte> a(4 * element_bytes(type)), b(a.size());
    const double av[] = {1, -2, 3, 4}, bv[] = {5, 6, -7, 4};
    for (auto op : {RedOp::sum, RedOp::prod, RedOp::max, RedOp::min}) {
      for (std::size_t i = 0; i < 4; ++i) {
        store_value(type, av[i], a.data(), i);
        store_value(type, bv[i], b.data(), i);
      }
      reduce_into(type, op, a.data(), b.data(), 4);
      for (std::size_t i = 0; i < 4; ++i) {
        const double want = op == RedOp::sum    ? av[i] + bv[i]
                            : op == RedOp::prod ? av[i] * bv[i]
                            : op == RedOp::max  ? std::max(av[i], bv[i])
                                                : std::min(av[i], bv[i]);
        EXPECT_EQ(load_value(type, a.data(), i), want) << to_string(type) << to_string(op) << i;
      }
    }
  }
}

TEST(DType, Int32SumWrapsAround) {
  std::int32_t a = std::numeric_limits<std::int32_t>::max(), b = 1;
  reduce_into(DType::i32, RedOp::sum, &a, &b, 1);
  EXPECT_EQ(a, std::numeric_limits<std::int32_t>::min());
}

// The seeded inputs keep every partial result exact: reducing rank by rank in the dtype itself
// (in two different orders) gives exactly reduced_value, for every dtype, op and rank count.
TEST(DType, SeededInputsReduceExactlyInAnyOrder) {
  const std::size_t n = 257;
  for (auto type : {DType::f32, DType::f64, DType::i32, DType::bf16, DType::f16})
    for (auto op : {RedOp::sum, RedOp::prod, RedOp::max, RedOp::min})
      for (int world : {1, 2, 3, 16, 64, 300}) {
        const std::size_t bytes = n * element_bytes(type);
        std::vector<std::byte> fwd(bytes), bwd(bytes), in(bytes);
        fill_input(type, op, 42, 0, world, 0, fwd.data(), n);
        fill_input(type, op, 42, world - 1, world, 0, bwd.data(), n);
        for (int r = 1; r < world; ++r) {
          fill_input(type, op, 42, r, world, 0, in.data(), n);
          reduce_into(type, op, fwd.data(), in.data(), n);
          fill_input(type, op, 42, world - 1 - r, world, 0, in.data(), n);
          reduce_into(type, op, bwd.data(), in.data(), n);
        }
        const auto want = [&](std::uint64_t i) { return reduced_value(type, op, 42, world, i); };
        EXPECT_EQ(check_elements(type, fwd.data(), n, 0, want).wrong, 0u)
            << to_string(type) << " " << to_string(op) << " world " << world;
        EXPECT_EQ(check_elements(type, bwd.data(), n, 0, want).wrong, 0u)
            << to_string(type) << " " << to_string(op) << " world " << world;
      }
}

TEST(DType, InputsDependOnSeedRankAndIndex) {
  std::vector<float> a(64), b(64), c(64);
  fill_input(DType::f32, RedOp::sum, 1, 0, 4, 0, a.data(), 64);
  fill_input(DType::f32, RedOp::sum, 2, 0, 4, 0, b.data(), 64);
  fill_input(DType::f32, RedOp::sum, 1, 1, 4, 0, c.data(), 64);
  EXPECT_NE(a, b);
  EXPECT_NE(a, c);
}

TEST(DType, CheckCountsWrongElementsAndNamesTheFirst) {
  std::vector<std::int32_t> v(100, 7);
  v[13] = 8;
  v[90] = -1;
  const auto r =
      check_elements(DType::i32, v.data(), v.size(), 1000, [](std::uint64_t) { return 7.0; });
  EXPECT_EQ(r.wrong, 2u);
  EXPECT_EQ(r.checked, 100u);
  EXPECT_EQ(r.first_wrong_index, 1013u);
  EXPECT_EQ(r.describe("recv"),
            "2 of 100 elements wrong in recv (first: element 1013 = 8, expected 7); wrong "
            "elements include 1013, 1090");
  std::vector<float> nan(1, std::numeric_limits<float>::quiet_NaN());
  EXPECT_EQ(check_elements(DType::f32, nan.data(), 1, 0, [](std::uint64_t) { return 0.0; }).wrong,
            1u);
}

} // namespace
} // namespace railgauge::collectives
