// SPDX-License-Identifier: LGPL-2.1-or-later
// The memories efconvert's frames and tensors live in, once: each kind's
// caps feature, its name in messages, which caps carry it and how
// negotiation treats it. The backends' tables say which kinds each backend
// reads and writes (backend_table.hpp); the caps, the pad templates and
// the choice of pool are made from this table and those.
#pragma once

#include <gst/gst.h>

#include <vector>

namespace ef::gst {

// Gl: GL textures (frames); GlBuffer: GL buffer objects (tensors that stay
// on the GPU); Cuda: CUDA device memory (NVDEC's frames).
enum class FrameMemory { System, DmaBuf, Gl, GlBuffer, Cuda };

struct MemoryKind {
  FrameMemory memory;
  const char *feature;  // the caps feature
  const char *name;     // "GL memory", in messages
  bool frames;          // carries video/x-raw
  bool tensors;         // carries other/tensors
  bool plain;           // the CPU maps it in place (a read-back lands in it)
  // Upstream producers take it wherever it is offered (NVDEC's decoders
  // take CUDA memory whenever downstream allows it): offered upstream only
  // where a backend the `backend` setting allows reads it, so that no
  // producer hands over frames the running backend refuses.
  bool only_to_readers;
};

// In the order caps list them. The features are spelt out: GstGL's and
// GstCuda's headers are missing where their backends are not built.
inline constexpr MemoryKind kMemoryKinds[] = {
    {FrameMemory::System, "memory:SystemMemory", "system memory", true, true, true, false},
    {FrameMemory::DmaBuf, "memory:DMABuf", "dma-buf memory", true, false, true, false},
    {FrameMemory::Gl, "memory:GLMemory", "GL memory", true, false, false, false},
    {FrameMemory::GlBuffer, "memory:GLBuffer", "GL buffer memory", false, true, false, false},
    {FrameMemory::Cuda, "memory:CUDAMemory", "CUDA memory", true, false, false, true},
};

constexpr const MemoryKind &memory_kind(FrameMemory m) {
  return kMemoryKinds[unsigned(m)];
}
static_assert(kMemoryKinds[unsigned(FrameMemory::Cuda)].memory == FrameMemory::Cuda &&
                  kMemoryKinds[unsigned(FrameMemory::GlBuffer)].memory == FrameMemory::GlBuffer &&
                  kMemoryKinds[unsigned(FrameMemory::Gl)].memory == FrameMemory::Gl &&
                  kMemoryKinds[unsigned(FrameMemory::DmaBuf)].memory == FrameMemory::DmaBuf,
              "kMemoryKinds is indexed by FrameMemory");

// The kinds that carry frames, and those that carry tensors, in caps order.
inline const std::vector<FrameMemory> &frame_memories() {
  static const std::vector<FrameMemory> kinds = [] {
    std::vector<FrameMemory> v;
    for (const MemoryKind &kind : kMemoryKinds)
      if (kind.frames)
        v.push_back(kind.memory);
    return v;
  }();
  return kinds;
}
inline const std::vector<FrameMemory> &tensor_memories() {
  static const std::vector<FrameMemory> kinds = [] {
    std::vector<FrameMemory> v;
    for (const MemoryKind &kind : kMemoryKinds)
      if (kind.tensors)
        v.push_back(kind.memory);
    return v;
  }();
  return kinds;
}

// The kind of memory a caps structure with features `f` is in: the one it
// names, else system memory.
FrameMemory memory_in(GstCapsFeatures *f);
// The memory of the first structure of `caps`.
FrameMemory memory_of(GstCaps *caps);

// A set of FrameMemory values.
using Memories = unsigned;
constexpr Memories memory_bit(FrameMemory m) {
  return 1u << unsigned(m);
}

// Whether some structure of `caps` is in one of `memories`, or in any
// memory (ANY features).
inline bool names_memory(GstCaps *caps, Memories memories) {
  for (guint i = 0; caps && i < gst_caps_get_size(caps); ++i) {
    GstCapsFeatures *f = gst_caps_get_features(caps, i);
    if (f && gst_caps_features_is_any(f))
      return true;
    for (const MemoryKind &kind : kMemoryKinds)
      if ((memories & memory_bit(kind.memory)) && f && gst_caps_features_contains(f, kind.feature))
        return true;
  }
  return false;
}
inline constexpr Memories kPlainMemory =
    memory_bit(FrameMemory::System) | memory_bit(FrameMemory::DmaBuf);
// What a frame reader maps or imports: plain memory and GL textures (CUDA
// memory only the backend on its device reads).
inline constexpr Memories kAnyMemory = kPlainMemory | memory_bit(FrameMemory::Gl);

}  // namespace ef::gst
