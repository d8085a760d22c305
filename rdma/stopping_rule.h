#pragma once
// How a verbs point decides that it has measured enough. By default the measurement core's
// rule (harness/measure.h: noise, time budget or max samples), which samples for as long as
// the budget allows. With `iterations=N`, exactly N timed round trips (latency) or N messages
// (bandwidth, rounded up to whole calls), as perftest's -n: a comparison with perftest then
// does the same work on both sides, where a time budget would sample more of a noisy
// machine's stalls than perftest's 2000 iterations see.
#include <cstdint>
#include <string>

#include "harness/measure.h"

namespace railgauge::rdma {

// Recorded as derived_params.stopping_rule.
inline constexpr const char *kStopByMeasurementCore = "measurement_core";
inline constexpr const char *kStopByIterations = "iterations";

// The measurement core's spec that takes exactly `calls` samples of one call each (after the
// base spec's untimed warm-up calls and the one call that sizes the batch): no noise or time
// stop can end it early, and no batching merges calls.
MeasureSpec fixed_calls_spec(const MeasureSpec &base, std::int64_t calls);

// The measurement core's spec that times exactly `calls` calls back to back, as one sample of
// one batch after the base spec's untimed warm-up calls: latency under `iterations=N`. A timer
// that stamps each call (rdma/per_call_timer.h) gives their distribution, and no sampler code
// runs between two round trips. perftest's latency loop has nothing between its iterations
// either; with one sample per round trip, the sampler's code between them made every WRITE round
// trip about 6 µs longer in the Soft-RoCE VM (docs/rdma.md).
MeasureSpec back_to_back_spec(const MeasureSpec &base, std::int64_t calls);

// Calls of `per_call` messages that carry at least `iterations` messages.
std::int64_t calls_for_messages(std::uint64_t iterations, std::uint64_t per_call);

// How long a serving side waits for the measuring side to say stop: the peer timeout plus
// what the measurement may take. Time budget: twice the budget. Iterations: 50 ms per
// iteration, which a 64 KiB message on Soft-RoCE under emulation (about 2 ms) stays far within.
double serve_deadline_s(double peer_timeout_s, double time_budget_s, std::uint64_t iterations);

} // namespace railgauge::rdma
