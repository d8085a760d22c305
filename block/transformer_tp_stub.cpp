// block.transformer_tp in a build without MPI or OpenBLAS: every point waived, same key and axes.
#include "block/transformer_tp.h"
#include "block/transformer_tp_axes.h"
#include "railgauge/config.h"
#include "records/block_record.h"

namespace railgauge::block {
namespace {

class WaivedTransformerTp final : public Benchmark {
public:
  std::string_view key() const override { return record::kTransformerTp; }
  std::string_view description() const override {
    return "one Megatron transformer block with its TP collectives (needs MPI and OpenBLAS)";
  }
  std::vector<Axis> axes() const override { return transformer_tp_axes(); }
  std::optional<std::string> supported(const RunContext &, const Point &) const override {
    return reason();
  }
  Outcome run(RunContext &, const Point &) override { return Outcome::waived(reason()); }

private:
  static std::string reason() {
    return RAILGAUGE_HAS_MPI ? "built without OpenBLAS" : "built without MPI";
  }
};

} // namespace

std::unique_ptr<Benchmark> make_transformer_tp(std::shared_ptr<BlockTestHooks>) {
  return std::make_unique<WaivedTransformerTp>();
}

} // namespace railgauge::block
