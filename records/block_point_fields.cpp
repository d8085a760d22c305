#include "records/block_point_fields.h"

#include "harness/byte_rates.h"
#include "harness/record_fields.h"
#include "records/block_record.h"
#include "records/gemm_cublaslt_fields.h"

namespace railgauge::block::record {

namespace f = record_fields;

bool PhaseFields::gemm() const { return kind == kGemmPhase; }

nlohmann::json PhaseFields::to_json() const {
  nlohmann::json p = {
      {kPhaseName, name}, {kPhaseKind, kind}, {kPhaseOp, op}, {kPhaseTimeS, time_s}};
  if (gemm()) {
    p[kPhaseM] = std::int64_t(m);
    p[kPhaseN] = std::int64_t(n);
    p[kPhaseK] = std::int64_t(k);
    p[kPhaseBatch] = std::int64_t(batch);
  } else {
    p[kPhaseSizeBytes] = std::int64_t(size_bytes);
  }
  return p;
}

PhaseFields PhaseFields::from_json(const nlohmann::json &p) {
  PhaseFields ph;
  ph.name = f::text(p, kPhaseName).value_or("");
  ph.kind = f::text(p, kPhaseKind).value_or("");
  ph.op = f::text(p, kPhaseOp).value_or("");
  ph.m = f::number(p, kPhaseM).value_or(0);
  ph.n = f::number(p, kPhaseN).value_or(0);
  ph.k = f::number(p, kPhaseK).value_or(0);
  ph.batch = f::number(p, kPhaseBatch).value_or(1);
  ph.size_bytes = f::number(p, kPhaseSizeBytes).value_or(0);
  ph.time_s = f::number(p, kPhaseTimeS).value_or(0);
  return ph;
}

BlockFigures BlockFigures::of(std::vector<PhaseFields> phases, double gemm_time_s,
                              double collective_time_s, double block_median_s) {
  BlockFigures b;
  double flops = 0;
  for (const auto &p : phases)
    if (p.gemm())
      flops += p.flops();
  b.gemm_time_s = gemm_time_s;
  b.collective_time_s = collective_time_s;
  b.flops_per_block = flops;
  b.block_tflops = tflops_of(flops, block_median_s);
  b.phases = std::move(phases);
  return b;
}

void BlockFigures::write(nlohmann::json &metrics) const {
  const auto put = [&metrics](const char *name, const std::optional<double> &v) {
    if (v)
      metrics[name] = *v;
  };
  put(kGemmTimeS, gemm_time_s);
  put(kCollectiveTimeS, collective_time_s);
  put(kBlockFlops, flops_per_block);
  put(kBlockTflops, block_tflops);
  if (phases) {
    nlohmann::json list = nlohmann::json::array();
    for (const auto &p : *phases)
      list.push_back(p.to_json());
    metrics[kPhases] = std::move(list);
  }
}

BlockFigures BlockFigures::read(const nlohmann::json &metrics) {
  BlockFigures b;
  b.gemm_time_s = f::number(metrics, kGemmTimeS);
  b.collective_time_s = f::number(metrics, kCollectiveTimeS);
  b.flops_per_block = f::number(metrics, kBlockFlops);
  b.block_tflops = f::number(metrics, kBlockTflops);
  if (const auto *list = f::field(metrics, kPhases); list && list->is_array()) {
    b.phases.emplace();
    for (const auto &p : *list)
      b.phases->push_back(PhaseFields::from_json(p));
  }
  return b;
}

void BlockDataCheck::write(nlohmann::json &metrics) const {
  metrics[kWrongElements] = wrong_elements();
  metrics[kWrongGemmElements] = wrong_gemm_elements;
  metrics[kWrongCollectiveElements] = wrong_collective_elements;
}

std::optional<BlockDataCheck> BlockDataCheck::read(const nlohmann::json &metrics) {
  const auto gemm = f::integer(metrics, kWrongGemmElements);
  const auto collective = f::integer(metrics, kWrongCollectiveElements);
  if (!gemm || !collective)
    return std::nullopt;
  return BlockDataCheck{*gemm, *collective};
}

} // namespace railgauge::block::record
