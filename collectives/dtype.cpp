#include "collectives/dtype.h"

#include <algorithm>
#include <bit>
#include <cmath>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "collectives/seeded_values.h"
#include "harness/enum_names.h"

namespace railgauge::collectives {
namespace {

constexpr DType kDTypes[] = {DType::f32, DType::f64, DType::i32, DType::bf16, DType::f16};
constexpr RedOp kRedOps[] = {RedOp::sum, RedOp::prod, RedOp::max, RedOp::min};

template <class T, class Op> void combine(T *acc, const T *in, std::size_t n, Op op) {
  for (std::size_t i = 0; i < n; ++i)
    acc[i] = op(acc[i], in[i]);
}

template <class T> void reduce_typed(RedOp op, T *acc, const T *in, std::size_t n) {
  switch (op) {
  case RedOp::sum:
    combine(acc, in, n, [](T a, T b) { return a + b; });
    break;
  case RedOp::prod:
    combine(acc, in, n, [](T a, T b) { return a * b; });
    break;
  case RedOp::max:
    combine(acc, in, n, [](T a, T b) { return std::max(a, b); });
    break;
  case RedOp::min:
    combine(acc, in, n, [](T a, T b) { return std::min(a, b); });
    break;
  }
}

// int32 sum and prod wrap around: computed in uint32 (defined), stored back as int32.
void reduce_i32(RedOp op, std::int32_t *acc, const std::int32_t *in, std::size_t n) {
  if (op == RedOp::max || op == RedOp::min)
    return reduce_typed(op, acc, in, n);
  for (std::size_t i = 0; i < n; ++i) {
    const auto a = static_cast<std::uint32_t>(acc[i]), b = static_cast<std::uint32_t>(in[i]);
    acc[i] = static_cast<std::int32_t>(op == RedOp::sum ? a + b : a * b);
  }
}

template <float (*ToFloat)(std::uint16_t), std::uint16_t (*FromFloat)(float)>
void reduce_half(RedOp op, std::uint16_t *acc, const std::uint16_t *in, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) {
    float a = ToFloat(acc[i]);
    const float b = ToFloat(in[i]);
    reduce_typed(op, &a, &b, 1);
    acc[i] = FromFloat(a);
  }
}

} // namespace

std::string_view to_string(DType t) {
  switch (t) {
  case DType::f32:
    return "float32";
  case DType::f64:
    return "float64";
  case DType::i32:
    return "int32";
  case DType::bf16:
    return "bf16";
  case DType::f16:
    return "fp16";
  }
  return "?";
}

std::string_view to_string(RedOp op) {
  switch (op) {
  case RedOp::sum:
    return "sum";
  case RedOp::prod:
    return "prod";
  case RedOp::max:
    return "max";
  case RedOp::min:
    return "min";
  }
  return "?";
}

std::optional<DType> parse_dtype(std::string_view text) { return value_named(text, kDTypes); }

std::optional<RedOp> parse_redop(std::string_view text) { return value_named(text, kRedOps); }

std::vector<std::string> dtype_names() { return names_of(kDTypes); }

std::vector<std::string> redop_names() { return names_of(kRedOps); }

std::size_t element_bytes(DType t) {
  switch (t) {
  case DType::f32:
  case DType::i32:
    return 4;
  case DType::f64:
    return 8;
  case DType::bf16:
  case DType::f16:
    return 2;
  }
  return 1;
}

float bf16_to_float(std::uint16_t bits) { return std::bit_cast<float>(std::uint32_t{bits} << 16); }

std::uint16_t float_to_bf16(float value) {
  auto x = std::bit_cast<std::uint32_t>(value);
  if ((x & 0x7fffffffU) > 0x7f800000U) // NaN: keep it a (quiet) NaN
    return static_cast<std::uint16_t>((x >> 16) | 0x40);
  x += 0x7fffU + ((x >> 16) & 1U);
  return static_cast<std::uint16_t>(x >> 16);
}

float fp16_to_float(std::uint16_t h) {
  const std::uint32_t sign = std::uint32_t{h & 0x8000U} << 16;
  const std::uint32_t exp = (h >> 10) & 0x1fU, mant = h & 0x3ffU;
  std::uint32_t x;
  if (exp == 0) {
    const float mag = std::ldexp(static_cast<float>(mant), -24);
    return sign ? -mag : mag;
  }
  if (exp == 31)
    x = sign | 0x7f800000U | (mant << 13);
  else
    x = sign | ((exp - 15 + 127) << 23) | (mant << 13);
  return std::bit_cast<float>(x);
}

std::uint16_t float_to_fp16(float value) {
  const auto x = std::bit_cast<std::uint32_t>(value);
  const auto sign = static_cast<std::uint16_t>((x >> 16) & 0x8000U);
  const std::uint32_t mag = x & 0x7fffffffU;
  if (mag >= 0x7f800000U) // infinity or NaN
    return sign | 0x7c00U | (mag > 0x7f800000U ? 0x200U : 0U);
  if (mag >= 0x477ff000U) // 65520 and above round to infinity
    return sign | 0x7c00U;
  if (mag < 0x38800000U) { // below 2^-14: a subnormal half, round(|v| * 2^24) to nearest even
    const auto a = std::bit_cast<float>(mag);
    return sign | static_cast<std::uint16_t>(std::nearbyint(a * 16777216.0f));
  }
  std::uint32_t h = (((mag >> 23) - 127 + 15) << 10) | ((mag & 0x7fffffU) >> 13);
  const std::uint32_t rest = mag & 0x1fffU;
  if (rest > 0x1000U || (rest == 0x1000U && (h & 1U)))
    ++h; // a carry into the exponent is the correct rounding too
  return sign | static_cast<std::uint16_t>(h);
}

void reduce_into(DType type, RedOp op, void *acc, const void *in, std::size_t count) {
  switch (type) {
  case DType::f32:
    return reduce_typed(op, static_cast<float *>(acc), static_cast<const float *>(in), count);
  case DType::f64:
    return reduce_typed(op, static_cast<double *>(acc), static_cast<const double *>(in), count);
  case DType::i32:
    return reduce_i32(op, static_cast<std::int32_t *>(acc), static_cast<const std::int32_t *>(in),
                      count);
  case DType::bf16:
    return reduce_half<bf16_to_float, float_to_bf16>(op, static_cast<std::uint16_t *>(acc),
                                                     static_cast<const std::uint16_t *>(in), count);
  case DType::f16:
    return reduce_half<fp16_to_float, float_to_fp16>(op, static_cast<std::uint16_t *>(acc),
                                                     static_cast<const std::uint16_t *>(in), count);
  }
}

double input_value(DType type, RedOp op, std::uint64_t seed, int rank, int world,
                   std::uint64_t index) {
  return seeded_input(type, op, seed, rank, world, index);
}

void store_value(DType type, double value, void *buffer, std::size_t i) {
  switch (type) {
  case DType::f32:
    static_cast<float *>(buffer)[i] = static_cast<float>(value);
    break;
  case DType::f64:
    static_cast<double *>(buffer)[i] = value;
    break;
  case DType::i32:
    static_cast<std::int32_t *>(buffer)[i] = static_cast<std::int32_t>(value);
    break;
  case DType::bf16:
    static_cast<std::uint16_t *>(buffer)[i] = float_to_bf16(static_cast<float>(value));
    break;
  case DType::f16:
    static_cast<std::uint16_t *>(buffer)[i] = float_to_fp16(static_cast<float>(value));
    break;
  }
}

double load_value(DType type, const void *buffer, std::size_t i) {
  switch (type) {
  case DType::f32:
    return static_cast<const float *>(buffer)[i];
  case DType::f64:
    return static_cast<const double *>(buffer)[i];
  case DType::i32:
    return static_cast<const std::int32_t *>(buffer)[i];
  case DType::bf16:
    return bf16_to_float(static_cast<const std::uint16_t *>(buffer)[i]);
  case DType::f16:
    return fp16_to_float(static_cast<const std::uint16_t *>(buffer)[i]);
  }
  return 0;
}

void fill_input(DType type, RedOp op, std::uint64_t seed, int rank, int world, std::uint64_t first,
                void *buffer, std::size_t count) {
  for (std::size_t i = 0; i < count; ++i)
    store_value(type, input_value(type, op, seed, rank, world, first + i), buffer, i);
}

double reduced_value(DType type, RedOp op, std::uint64_t seed, int world, std::uint64_t index) {
  return seeded_reduction(type, op, seed, world, index);
}

void CheckResult::add(const CheckResult &other) {
  if (wrong == 0 && other.wrong > 0) {
    first_wrong_index = other.first_wrong_index;
    first_got = other.first_got;
    first_expected = other.first_expected;
  }
  checked += other.checked;
  wrong += other.wrong;
  for (const auto i : other.wrong_indices)
    if (wrong_indices.size() < kWrongIndicesKept)
      wrong_indices.push_back(i);
}

std::string CheckResult::describe(std::string_view what) const {
  if (wrong == 0)
    return fmt::format("all {} elements of {} right", checked, what);
  auto text = fmt::format("{} of {} elements wrong in {} (first: element {} = {}, expected {})",
                          wrong, checked, what, first_wrong_index, first_got, first_expected);
  if (wrong_indices.size() > 1)
    text += fmt::format("; wrong elements include {}", fmt::join(wrong_indices, ", "));
  return text;
}

} // namespace railgauge::collectives
