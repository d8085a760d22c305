#pragma once
// Element types and reduction operations of the collectives family, with the host-side pieces
// every backend shares: element sizes, the host reduction (the reference result and the
// reduction step of the textbook algorithms on host memory), seeded inputs and the data check.
//
// bf16 and fp16 live in host memory as their 16-bit patterns; arithmetic on them converts to
// float, operates and rounds back to nearest-even, which is what a GPU reduction kernel does.
//
// Seeded inputs are small integers (or a single 2 / -2 per element for prod) chosen so that
// every partial result of every reduction order is exactly representable in every dtype
// (seeded_values.h: the formula, shared with the GPU kernels, and its exactness argument). The
// expected result is therefore exact whatever algorithm, order or library computed it, and
// the data check compares values exactly, element by element, as numbers of the dtype (so
// +0 and -0 are equal and a NaN is always wrong). A tolerance would only hide a wrong element.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "collectives/element_type.h"

namespace railgauge::collectives {

std::string_view to_string(DType t);  // "float32", "float64", "int32", "bf16", "fp16"
std::string_view to_string(RedOp op); // "sum", "prod", "max", "min"
std::optional<DType> parse_dtype(std::string_view text);
std::optional<RedOp> parse_redop(std::string_view text);
std::vector<std::string> dtype_names();
std::vector<std::string> redop_names();
std::size_t element_bytes(DType t);

float bf16_to_float(std::uint16_t bits);
std::uint16_t float_to_bf16(float value); // round to nearest even; NaN stays NaN
float fp16_to_float(std::uint16_t bits);
std::uint16_t float_to_fp16(float value); // round to nearest even; overflow to infinity

// acc[i] = op(acc[i], in[i]) for `count` elements of `type`. int32 sum and prod wrap around
// (two's complement), as MPI and NCCL do.
void reduce_into(DType type, RedOp op, void *acc, const void *in, std::size_t count);

// Element `index` of rank `rank`'s input (of `world` ranks) for run seed `seed`: an exact
// small integer as described above. `op` matters: prod inputs are 1 except one rank per element.
double input_value(DType type, RedOp op, std::uint64_t seed, int rank, int world,
                   std::uint64_t index);
// Fills `count` elements of rank `rank`'s input, element i being input_value(..., first + i).
void fill_input(DType type, RedOp op, std::uint64_t seed, int rank, int world, std::uint64_t first,
                void *buffer, std::size_t count);
// The reduction over all ranks of element `index`, exact (see above).
double reduced_value(DType type, RedOp op, std::uint64_t seed, int world, std::uint64_t index);
void store_value(DType type, double value, void *buffer, std::size_t i);
double load_value(DType type, const void *buffer, std::size_t i);

// Counts the elements of `buffer` that differ from `expected(i)` and keeps the first one.
struct CheckResult {
  // Wrong indices kept beside the first: a pattern (every 4th, one block) shows in a reason.
  static constexpr std::size_t kWrongIndicesKept = 8;
  std::uint64_t checked = 0;
  std::uint64_t wrong = 0;
  std::uint64_t first_wrong_index = 0;
  double first_got = 0, first_expected = 0;
  // Up to kWrongIndicesKept wrong indices, ascending: the lowest on the host, the first the GPU
  // check met on a device.
  std::vector<std::uint64_t> wrong_indices;
  void add(const CheckResult &other);
  // "3 of 4096 elements wrong in <what> (first: element 17 = 5, expected 4)", then the indices
  // kept when there are several: "; wrong elements include 17, 18, 40"
  std::string describe(std::string_view what) const;
};

template <class Expected>
CheckResult check_elements(DType type, const void *buffer, std::size_t count,
                           std::uint64_t index_offset, Expected &&expected) {
  CheckResult r;
  r.checked = count;
  for (std::size_t i = 0; i < count; ++i) {
    const double got = load_value(type, buffer, i);
    const double want = expected(index_offset + i);
    if (!(got == want)) {
      if (r.wrong == 0) {
        r.first_wrong_index = index_offset + i;
        r.first_got = got;
        r.first_expected = want;
      }
      if (r.wrong_indices.size() < CheckResult::kWrongIndicesKept)
        r.wrong_indices.push_back(index_offset + i);
      ++r.wrong;
    }
  }
  return r;
}

} // namespace railgauge::collectives
