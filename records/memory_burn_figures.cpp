#include "records/memory_burn_figures.h"

#include "harness/record_fields.h"
#include "records/memory_record.h"

namespace railgauge::memory::record {

namespace f = record_fields;

void HbmBurnGpuFigures::write(nlohmann::json &gpu_object) const {
  gpu_object[kBandwidthGbytesPerS] = bandwidth_gbytes_per_s;
  gpu_object[kPerGpuBandwidthMinGbytesPerS] = bandwidth_min_gbytes_per_s;
  gpu_object[kPerGpuCalls] = calls;
  gpu_object[kPerGpuElements] = elements;
  gpu_object[kWrongElements] = wrong_elements;
}

std::optional<HbmBurnGpuFigures> HbmBurnGpuFigures::read(const nlohmann::json &gpu_object) {
  const auto rate = f::number(gpu_object, kBandwidthGbytesPerS);
  if (!rate)
    return std::nullopt;
  return HbmBurnGpuFigures{*rate, f::number(gpu_object, kPerGpuBandwidthMinGbytesPerS).value_or(0),
                           f::integer(gpu_object, kPerGpuCalls).value_or(0),
                           f::count(gpu_object, kPerGpuElements),
                           f::count(gpu_object, kWrongElements)};
}

void HbmPatternGpuFigures::write(nlohmann::json &gpu_object) const {
  nlohmann::json bad = nlohmann::json::array();
  for (const auto &w : bad_words)
    bad.push_back({{kBadWordAddress, w.address},
                   {kBadWordExpected, w.expected},
                   {kBadWordRead, w.read},
                   {kBadWordPattern, w.pattern},
                   {kBadWordRound, w.round}});
  gpu_object[kWrongWords] = wrong_words;
  gpu_object[kPerGpuWrongWordsByPattern] = wrong_words_by_pattern;
  gpu_object[kPerGpuBadWords] = std::move(bad);
  gpu_object[kFreeMemoryCoveredFraction] = free_memory_covered_fraction;
  gpu_object[kPerGpuCoveredBytes] = covered_bytes;
  gpu_object[kPerGpuFreeMemoryBytes] = free_memory_bytes;
  gpu_object[kPerGpuMarginBytes] = margin_bytes;
  gpu_object[kPerGpuChunks] = chunks;
  gpu_object[kRounds] = rounds;
  gpu_object[kPerGpuInjectedFaults] = injected_faults;
  gpu_object[kBandwidthGbytesPerS] = bandwidth_gbytes_per_s;
  gpu_object[kPerGpuPatternTimeS] = pattern_time_s;
}

std::optional<HbmPatternGpuFigures> HbmPatternGpuFigures::read(const nlohmann::json &gpu_object) {
  const auto covered = f::number(gpu_object, kFreeMemoryCoveredFraction);
  if (!covered)
    return std::nullopt;
  HbmPatternGpuFigures g;
  g.wrong_words = f::count(gpu_object, kWrongWords);
  if (const auto *by = f::field(gpu_object, kPerGpuWrongWordsByPattern); by && by->is_object())
    for (const auto &[pattern, _] : by->items())
      g.wrong_words_by_pattern[pattern] = f::count(*by, pattern.c_str());
  if (const auto *bad = f::field(gpu_object, kPerGpuBadWords); bad && bad->is_array())
    for (const auto &w : *bad)
      if (w.is_object())
        g.bad_words.push_back(
            {f::text(w, kBadWordAddress).value_or(""), f::text(w, kBadWordExpected).value_or(""),
             f::text(w, kBadWordRead).value_or(""), f::text(w, kBadWordPattern).value_or(""),
             f::count(w, kBadWordRound)});
  g.free_memory_covered_fraction = *covered;
  g.covered_bytes = f::count(gpu_object, kPerGpuCoveredBytes);
  g.free_memory_bytes = f::count(gpu_object, kPerGpuFreeMemoryBytes);
  g.margin_bytes = f::count(gpu_object, kPerGpuMarginBytes);
  g.chunks = f::integer(gpu_object, kPerGpuChunks).value_or(0);
  g.rounds = f::integer(gpu_object, kRounds).value_or(0);
  g.injected_faults = f::integer(gpu_object, kPerGpuInjectedFaults).value_or(0);
  g.bandwidth_gbytes_per_s = f::number(gpu_object, kBandwidthGbytesPerS).value_or(0);
  g.pattern_time_s = f::number(gpu_object, kPerGpuPatternTimeS).value_or(0);
  return g;
}

nlohmann::json PeerCopyPairFigures::to_json() const {
  nlohmann::json j = {{kPairSrc, src},
                      {kPairDst, dst},
                      {kPairPeerAccess, peer_access},
                      {metric::kPerGpuError, error ? nlohmann::json(*error) : nlohmann::json()}};
  if (measured) {
    j[kBandwidthGbytesPerS] = measured->bandwidth_gbytes_per_s;
    j[kPerGpuBandwidthMinGbytesPerS] = measured->bandwidth_min_gbytes_per_s;
    j[kPairCopies] = measured->copies;
    j[kPairWords] = measured->words;
    j[kWrongWords] = measured->wrong_words;
  }
  return j;
}

std::optional<PeerCopyPairFigures> PeerCopyPairFigures::read(const nlohmann::json &pair) {
  const auto src = f::integer(pair, kPairSrc), dst = f::integer(pair, kPairDst);
  if (!src || !dst)
    return std::nullopt;
  PeerCopyPairFigures p;
  p.src = *src;
  p.dst = *dst;
  const auto *access = f::field(pair, kPairPeerAccess);
  p.peer_access = access && access->is_boolean() && access->get<bool>();
  p.error = f::text(pair, metric::kPerGpuError);
  if (const auto rate = f::number(pair, kBandwidthGbytesPerS))
    p.measured = Measured{*rate, f::number(pair, kPerGpuBandwidthMinGbytesPerS).value_or(0),
                          f::integer(pair, kPairCopies).value_or(0), f::count(pair, kPairWords),
                          f::count(pair, kWrongWords)};
  return p;
}

void PeerCopyGpuFigures::write(nlohmann::json &gpu_object) const {
  nlohmann::json list = nlohmann::json::array();
  for (const auto &p : pairs)
    list.push_back(p.to_json());
  gpu_object[kWrongWords] = wrong_words;
  gpu_object[kPerGpuPairs] = std::move(list);
  if (bandwidth_gbytes_per_s)
    gpu_object[kBandwidthGbytesPerS] = *bandwidth_gbytes_per_s;
  if (bandwidth_min_gbytes_per_s)
    gpu_object[kPerGpuBandwidthMinGbytesPerS] = *bandwidth_min_gbytes_per_s;
  if (worst_peer_gpu)
    gpu_object[kPerGpuWorstPeer] = *worst_peer_gpu;
  if (peers_unreached)
    gpu_object[kPerGpuPeersUnreached] = *peers_unreached;
}

std::optional<PeerCopyGpuFigures> PeerCopyGpuFigures::read(const nlohmann::json &gpu_object) {
  const auto *list = f::field(gpu_object, kPerGpuPairs);
  if (!list || !list->is_array())
    return std::nullopt;
  PeerCopyGpuFigures g;
  g.wrong_words = f::count(gpu_object, kWrongWords);
  for (const auto &p : *list)
    if (const auto pair = PeerCopyPairFigures::read(p))
      g.pairs.push_back(*pair);
  g.bandwidth_gbytes_per_s = f::number(gpu_object, kBandwidthGbytesPerS);
  g.bandwidth_min_gbytes_per_s = f::number(gpu_object, kPerGpuBandwidthMinGbytesPerS);
  g.worst_peer_gpu = f::integer(gpu_object, kPerGpuWorstPeer);
  g.peers_unreached = f::integer(gpu_object, kPerGpuPeersUnreached);
  return g;
}

} // namespace railgauge::memory::record
