// SPDX-License-Identifier: LGPL-2.1-or-later
// The slot gate's arm -> wake latency through ef::SlotRing alone: bench_core's
// BM_GateArmToWake and bench_vkbridge's BM_GateArmToWake/ring, one benchmark
// so that docs/BENCHMARKS.md can set the element's figure against the same
// ring figure.
#pragma once

#include <sched.h>

#include <cstdint>
#include <optional>

#include <benchmark/benchmark.h>

namespace ef::bench {

// A fixed count: each iteration is one wake, and the percentiles need many.
inline constexpr int64_t kGateRingWakes = 2000;

// One iteration is one wake: a producer thread recycling a one-slot ring is
// blocked in SlotRing::acquire; the benchmark thread arms the release the
// producer handed out. Timed from just before arm() to just after acquire()
// returns in the producer, both on steady_clock. Reports p50_us and p99_us and
// labels where the threads ran.
//
// The two threads are pinned to the two lowest CPUs of `allowed`. Left to the
// scheduler they sometimes share one, and then the wake costs a context switch
// instead of a cross-CPU wake-up: runs differ by 10x depending on where the
// threads landed. Apart is what a pipeline sees: its producer and consumer
// threads both stay busy.
void gate_arm_to_wake_ring(benchmark::State &state, const std::optional<cpu_set_t> &allowed);

}  // namespace ef::bench
