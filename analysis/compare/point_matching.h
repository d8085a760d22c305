#pragma once
// Matching points across the inputs of a comparison: a point is a key, its params (less those
// ignored and those set aside as context) and, with match_device, its device; each input holds
// the values of its records there. Sizes that nccl-tests rounded differently are one point.
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/check/check_result.h"
#include "analysis/compare/compare.h"

namespace railgauge::compare {

// An input's values of a point (one per record) and their repetitions' relative noise.
struct Slot {
  std::vector<double> values;
  std::vector<double> noises;
  // The status of a record of the point that did not end ok ("failed", "error"): a GPU whose
  // burn failed has no figure to compare, and is said to have failed, not to be absent.
  std::string not_ok;
};

// A point: key, matched params (dumped) and device ("" unless matching by device), in the
// order of the tables (params in natural order: size 2 before 10).
struct PointId {
  std::string key, params, device;
  bool operator<(const PointId &o) const {
    if (key != o.key)
      return key < o.key;
    if (params != o.params)
      return check::natural_less(params, o.params);
    return check::natural_less(device, o.device);
  }
};

// point -> metric chosen, and per input its slot
using Points = std::map<PointId, std::pair<std::string, std::vector<Slot>>>;
// point -> its params as matched
using ParamsOf = std::map<PointId, nlohmann::json>;
// Per key and param, each input's values ("-": absent).
using ValuesSeen = std::map<std::string, std::map<std::string, std::vector<std::set<std::string>>>>;
// key -> per input, whether it holds an ok record of the key
using KeysIn = std::map<std::string, std::vector<bool>>;
// key -> params set aside as context
using ContextOf = std::map<std::string, std::set<std::string>>;

// The keys whose GPU parts are matched by their slot (bus id) rather than their CUDA index: every
// part of the key names its bus id, the inputs that hold the key share a slot, and `pci` is not
// ignored. Inputs of another board (no slot in common) or of records without bus ids are
// matched by index, as they were.
using SlotKeys = std::set<std::string>;
SlotKeys keys_matched_by_slot(const std::vector<analysis::RunSet> &inputs, const CompareOptions &o);

// The params a record is matched by: its own less the ignored ones.
nlohmann::json matched_params(const Record &r, const CompareOptions &o, const SlotKeys &slot_keys);

// Which inputs hold each key, and the values of each param per key and input.
void values_seen(const std::vector<analysis::RunSet> &inputs, const CompareOptions &o,
                 const SlotKeys &slot_keys, ValuesSeen &seen, KeysIn &key_in);

// The params set aside as context per key (each input holds one value of them, and the values
// differ); c.context says which, with each input's values.
ContextOf set_aside_context(Comparison &c, const ValuesSeen &seen, const KeysIn &key_in,
                            std::size_t inputs);

// The window params (kWindowParams) whose values differ between the inputs, for the keys two or
// more inputs hold, into c.context with each input's values: points are matched without them.
void window_context(const std::vector<analysis::RunSet> &inputs, const KeysIn &key_in,
                    Comparison &c);

// Each input's ok records into their points (c.inputs: each input's run directories).
void collect_points(const std::vector<analysis::RunSet> &inputs, const CompareOptions &o,
                    const SlotKeys &slot_keys, const ContextOf &context_of, Comparison &c,
                    Points &points, ParamsOf &params_of);

// A point's curve: its key, params but size_bytes, and device; "" when it has no size.
std::string curve_of(const PointId &id, const nlohmann::json &params);

// nccl-tests rounds each size down to whole elements on every rank, so "1 GiB" on 80 ranks is
// 1073740800 bytes and on 8 ranks 1073741824. Points of one key and params whose sizes are
// within 0.1% of each other, and that no input holds both of, are one point, under the size
// of the input that comes first.
void merge_near_sizes(Points &points, ParamsOf &params_of);

// Why most points are in one input only: the params whose values differ between the inputs for
// the keys they share, each with a sample of values, and what to do about it.
std::string unmatched_hint(const Comparison &c, const ValuesSeen &seen, const KeysIn &key_in);

// The first three of `values` in natural order, ", ..." after them where there are more ("-":
// none): sizes as text put 10510925824 before 1073741824.
std::string joined_sample(const std::set<std::string> &values);

} // namespace railgauge::compare
