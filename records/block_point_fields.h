#pragma once
// The figures of a block record that both writers state (the CPU block, transformer_tp.cpp, and
// the GPU block, transformer_tp_gpu.cpp, through block/block_phases.cpp) and calibrate reads
// (block_point_view, records/block_record.h): the phases with their shapes and times, the GEMM and
// collective totals, the block's FLOPs and rate, and the data check's wrong elements. Written and
// read through these types by the contract's names, so that a field renamed on one side fails to
// compile or fails tests/block/block_point_fields_test.cpp, which rewrites the committed block
// records through them.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace railgauge::block::record {

// One phase of a block: a GEMM (its shape: m x n x k, `batch` of them) or a collective (its
// buffer), with its time, the median over iterations of the max over ranks.
struct PhaseFields {
  std::string name, kind, op; // "qkv.fwd", kGemmPhase, "qkv.fwd" | "attn.ar", ..., "all_reduce"
  double m = 0, n = 0, k = 0; // GEMM phases
  double batch = 1;           // GEMM phases: a BMM's batch
  double size_bytes = 0;      // collective phases
  double time_s = 0;

  double flops() const { return 2.0 * m * n * k * batch; }
  bool gemm() const;
  // A GEMM phase states its shape, a collective phase its size, each as an integer.
  nlohmann::json to_json() const;
  // A field absent or of another type reads as its default.
  static PhaseFields from_json(const nlohmann::json &phase);

  bool operator==(const PhaseFields &) const = default;
};

// The block's figures beside time_s.
struct BlockFigures {
  std::optional<double> gemm_time_s, collective_time_s;
  std::optional<double> flops_per_block, block_tflops; // one rank's GEMMs; over the block's time
  std::optional<std::vector<PhaseFields>> phases;      // in block order

  // The figures of `phases` timed by the block's median time: FLOPs summed over the GEMM phases
  // and the rate they make.
  static BlockFigures of(std::vector<PhaseFields> phases, double gemm_time_s,
                         double collective_time_s, double block_median_s);
  // Puts the figures that are set into `metrics`.
  void write(nlohmann::json &metrics) const;
  // The figures `metrics` holds; a figure of another type reads as absent, phases that are not a
  // list as none.
  static BlockFigures read(const nlohmann::json &metrics);

  bool operator==(const BlockFigures &) const = default;
};

// What the data check found wrong, over every rank: GEMM outputs outside its bound and
// collective outputs that differ; wrong_elements is their sum.
struct BlockDataCheck {
  std::int64_t wrong_gemm_elements = 0, wrong_collective_elements = 0;

  std::int64_t wrong_elements() const { return wrong_gemm_elements + wrong_collective_elements; }
  void write(nlohmann::json &metrics) const;
  // nullopt where either count is absent or not an integer.
  static std::optional<BlockDataCheck> read(const nlohmann::json &metrics);

  bool operator==(const BlockDataCheck &) const = default;
};

} // namespace railgauge::block::record
