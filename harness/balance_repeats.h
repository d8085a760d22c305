#pragma once
// How often each of two concurrent works repeats per call so that they overlap: the longer
// runs once, the shorter as often as fits in it. Used wherever two operations are measured
// side by side (a copy beside a GEMM, a collective beside a GEMM). Plain C++.
namespace railgauge {

struct RepeatsPerCall {
  int first = 1;
  int second = 1;
};

// From the seconds of one repetition of each alone: the shorter repeats round(longer /
// shorter) times, at least 1 and at most `max_repeats` (every repetition is a launch queued
// behind the call's start gate, so the queue bounds it). Throws std::invalid_argument unless
// both times are positive and finite and max_repeats >= 1.
RepeatsPerCall balance_repeats(double first_s, double second_s, int max_repeats);

} // namespace railgauge
