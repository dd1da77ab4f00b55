// SPDX-License-Identifier: LGPL-2.1-or-later
// What backend=auto runs for one pair of caps, among the backends whose
// tables make the conversion, from what each one's cost model (its
// registry entry's) says a frame costs on this machine: where the frames
// live, what its device is (a GL renderer, in hardware or software),
// whether that device took the source and the destination as they are,
// and the cores the CPU pass has. Pure: no GStreamer, no device, so tests
// describe a machine and check the answer.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "memory_kinds.hpp"

namespace ef::gst {

enum class GpuKind { None, Software, Hardware };

// Whether the device took a side of the frame without a copy (an import),
// or needed one (an upload of the source, a readback of the destination).
enum class Import { Unknown, Yes, No };

// The frames, the same for every backend.
struct Machine {
  FrameMemory in = FrameMemory::System;
  FrameMemory out = FrameMemory::System;
};

// What one backend found of its device (its entry's observe hook), and
// learnt from its first frame (its learn hook).
struct Facts {
  GpuKind gpu = GpuKind::None;
  std::string renderer;  // the device's name, or why there is none
  Import src = Import::Unknown;
  Import dst = Import::Unknown;
  unsigned cores = 1;  // the CPU threads the pass has
};

// A backend's rough cost of one frame here, as a class: lower is cheaper,
// and a model is sure of its class to within one. kUnusable: it cannot run.
struct Cost {
  unsigned level;
  std::string why;  // what the model found, in words
};
inline constexpr unsigned kUnusable = ~0u;

struct Candidate {
  const char *name;  // the backend's, in the trial's times
  Cost cost;
};

// One candidate to run (`timed` holds it alone), or those that only timing
// can tell apart, by their index in the candidates.
struct Choice {
  std::vector<size_t> timed;
  std::string reason;
};

// The cheapest where it is two classes or more below every other usable
// candidate, else every usable one within a class of the cheapest, to be
// timed. At least one candidate must be usable; the reason gives each
// candidate's model, in order.
Choice choose_backend(std::span<const Candidate> candidates);

// The choice once `timed` were timed: the median microseconds per frame
// `us[i]` of candidates[timed[i]] over `runs` conversions each (of the
// first frame), after `warmup` each.
Choice settle_trial(std::span<const Candidate> candidates, const std::vector<size_t> &timed,
                    const std::vector<double> &us, unsigned runs, unsigned warmup);

}  // namespace ef::gst
