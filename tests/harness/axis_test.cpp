#include "harness/axis.h"

#include <gtest/gtest.h>

#include "harness/error.h"

namespace railgauge {
namespace {

Axis bytes_axis() { return {"size_bytes", AxisType::bytes, "bytes per buffer", {}, {}}; }

std::vector<std::int64_t> ints(const std::vector<AxisValue> &values) {
  std::vector<std::int64_t> out;
  for (const auto &v : values)
    out.push_back(std::get<std::int64_t>(v));
  return out;
}

TEST(Axis, ByteSuffixesBinaryAndDecimal) {
  EXPECT_EQ(parse_bytes("4096"), 4096);
  EXPECT_EQ(parse_bytes("4K"), 4096);
  EXPECT_EQ(parse_bytes("4KiB"), 4096);
  EXPECT_EQ(parse_bytes("1GiB"), 1LL << 30);
  EXPECT_EQ(parse_bytes("1GB"), 1000000000);
  EXPECT_EQ(parse_bytes("8MB"), 8000000);
  EXPECT_EQ(parse_bytes("2T"), 2LL << 40);
  EXPECT_FALSE(parse_bytes("4XB"));
  EXPECT_FALSE(parse_bytes("KiB"));
  EXPECT_FALSE(parse_bytes("99999999999TiB")); // overflow
}

TEST(Axis, GeometricAndArithmeticRanges) {
  EXPECT_EQ(ints(parse_axis_values(bytes_axis(), "4KiB:64KiB:*2", "t")),
            (std::vector<std::int64_t>{4096, 8192, 16384, 32768, 65536}));
  const Axis threads{"threads", AxisType::integer, "threads", {}, {}};
  EXPECT_EQ(ints(parse_axis_values(threads, "1:7:+3", "t")), (std::vector<std::int64_t>{1, 4, 7}));
  EXPECT_EQ(ints(parse_axis_values(threads, "1, 2,8", "t")), (std::vector<std::int64_t>{1, 2, 8}));
}

TEST(Axis, BadValuesNameAxisWhereAndExpectation) {
  try {
    parse_axis_values(bytes_axis(), "4KiB:1GiB:x2", "suite.yaml:7");
    FAIL() << "expected an InputError";
  } catch (const InputError &e) {
    EXPECT_EQ(e.where(), "suite.yaml:7");
    EXPECT_NE(e.problem().find("size_bytes"), std::string::npos);
    EXPECT_NE(e.fix().find("64KiB"), std::string::npos) << e.fix();
  }
  const Axis threads{"threads", AxisType::integer, "threads", {}, {}};
  EXPECT_THROW(parse_axis_values(threads, "two", "t"), InputError);
  EXPECT_THROW(parse_axis_values(threads, "8:1:*2", "t"), InputError);
  EXPECT_THROW(parse_axis_values(threads, "0:8:*2", "t"), InputError);
  EXPECT_THROW(parse_axis_values(threads, "1,,2", "t"), InputError);
  EXPECT_THROW(parse_axis_values(threads, "1:100000000:+1", "t"), InputError);
  // Ranges up to INT64_MAX stop at the last value that fits, without overflowing.
  const auto big = parse_axis_values(threads, "1:9223372036854775807:*2", "t");
  ASSERT_EQ(big.size(), 63u);
  EXPECT_EQ(std::get<std::int64_t>(big.back()), std::int64_t{1} << 62);
}

TEST(Axis, TextChoicesAreChecked) {
  const Axis op{"op", AxisType::text, "kernel", {}, {"read", "copy"}};
  EXPECT_EQ(parse_axis_values(op, "copy,read", "t").size(), 2u);
  try {
    parse_axis_values(op, "triad", "--axis op=triad");
    FAIL();
  } catch (const InputError &e) {
    EXPECT_NE(e.fix().find("read, copy"), std::string::npos) << e.fix();
  }
}

TEST(Axis, RealValues) {
  const Axis noise{"noise", AxisType::real, "fraction", {}, {}};
  const auto v = parse_axis_values(noise, "0.5,1e-2", "t");
  EXPECT_DOUBLE_EQ(std::get<double>(v[1]), 0.01);
  EXPECT_THROW(parse_axis_values(noise, "nan", "t"), InputError);
}

TEST(Axis, CartesianProductInAxisOrder) {
  const std::vector<Axis> axes = {{"a", AxisType::integer, "", {}, {}},
                                  {"b", AxisType::text, "", {}, {}}};
  const auto points = cartesian_product(
      axes, {{std::int64_t{1}, std::int64_t{2}}, {std::string("x"), std::string("y")}});
  ASSERT_EQ(points.size(), 4u);
  EXPECT_EQ(points[0].label(), "a=1 b=x");
  EXPECT_EQ(points[3].label(), "a=2 b=y");
  EXPECT_EQ(points[1].integer("a"), 1);
  EXPECT_EQ(points[1].text("b"), "y");
  EXPECT_EQ(points[2].params(), (nlohmann::json{{"a", 2}, {"b", "x"}}));
  EXPECT_THROW(points[0].integer("c"), std::out_of_range);
}

} // namespace
} // namespace railgauge
